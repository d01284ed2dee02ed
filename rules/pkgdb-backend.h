/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside rules/pkgdb: what the dispatcher hands each backend, and the
 * backends themselves (pkgdb-dpkg.c, pkgdb-rpm.c, pkgdb-apk.c,
 * pkgdb-pacman.c).  Not for use outside the module.
 */
#ifndef S2C_RULES_PKGDB_BACKEND_H
#define S2C_RULES_PKGDB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkgdb.h"

/** One path asked for. */
struct pkgdb_want {
	const char *path;            /**< "/usr/bin/ping" (borrowed from the caller) */
	char *alias;                 /**< its merged-/usr twin ("/bin/ping"), or NULL */
	struct pkgdb_entry *entry;   /**< where the answer goes */
};

/** The paths of one lookup, with a hash table over paths and aliases. */
struct pkgdb_query {
	struct pkgdb_want *want;
	size_t n;
	size_t *table;               /**< open addressing: 1 + index into want, 0 empty */
	size_t mask;
	uint64_t seen[64];           /**< bit quick_key() of every wanted path and alias */
	enum pkgdb_format format;    /**< of the backend being asked, for the entries it fills */
};

/**
 * The index of the wanted path equal to the @len bytes at @path, else of one whose
 * merged-/usr alias is equal to them, or -1: when /bin/su and /usr/bin/su are both
 * wanted (a system whose /bin is not merged), the database's "/bin/su" is /bin/su's.
 * Paths of the databases without a leading slash are passed with @slash true, and
 * compared as if they had one.
 */
long pkgdb_query_find(const struct pkgdb_query *q, const char *path, size_t len, bool slash);

/**
 * Record that @package (version @version, either may be borrowed: they are
 * copied) owns wanted path @i, unless an earlier database owns it already.
 * Returns 1 when recorded, 0 when owned already, -ENOMEM.
 */
int pkgdb_query_own(struct pkgdb_query *q, size_t i, const char *package, const char *version);

/**
 * Record the digest of wanted path @i: @hex (@len hex digits, any case) in
 * @algo.  A digest of the wrong length is ignored.  Returns 0 or -ENOMEM.
 */
int pkgdb_query_digest(struct pkgdb_query *q, size_t i, enum hash_algo algo, const char *hex,
		       size_t len);

/**
 * A database file read 64 KiB at a time and split into lines in place: one read(2)
 * per 64 KiB instead of a stdio buffer refilled every 4 KiB and a copy of every line,
 * for the hundreds of thousands of lines of a dpkg database, and no more memory than
 * its longest line whatever the file's size.  The buffer is kept from one file to the
 * next (a thousand dpkg lists share one).  Zero-initialise.
 */
struct pkgdb_text {
	char *buf;                   /**< a window of the file, a byte to spare for a NUL */
	size_t size;                 /**< allocated, less the spare byte */
	size_t len;                  /**< read into @buf */
	size_t off;                  /**< where the next line starts */
	size_t scanned;              /**< from @off, bytes known to hold no newline */
	size_t total;                /**< read of this file */
	int fd;                      /**< the file being read, when @open */
	bool open;
	int error;                   /**< 0, or -errno of reading the file: its lines end */
};

/** The most of one database file read (a dpkg list of the largest packages is ~10 MiB). */
#define PKGDB_TEXT_MAX ((size_t)256 << 20)

/**
 * Read @fd's lines with @t (@fd is taken over and closed; a negative @fd is returned
 * as is), in place of the file @t read before.  Returns 0 or the negative @fd.
 */
int pkgdb_text_open(int fd, struct pkgdb_text *t);

/**
 * The next line of @t, its newline replaced by a NUL in place, its length in
 * @ret_len (a NUL byte inside the line is counted, as getline(3) counts it);
 * NULL at the end, or when reading failed (t->error: -errno, -ENOMEM, or -EFBIG past
 * PKGDB_TEXT_MAX bytes): the lines returned until then were the file's.  The line
 * stays valid until the next call.
 */
char *pkgdb_text_line(struct pkgdb_text *t, size_t *ret_len);

void pkgdb_text_release(struct pkgdb_text *t);

/**
 * The hash of the @len bytes at @path (with a leading slash when @slash) that
 * the query's table uses; a backend's own index may keep it.
 */
uint64_t pkgdb_path_hash(const char *path, size_t len, bool slash);

/**
 * Which unit of a database (a dpkg list, a pacman package) may name a path, for
 * a backend's index: the high bits of each path's hash with the unit's number
 * (at most PKGDB_PATHINDEX_UNITS units).  Two paths that share those bits only
 * cost the reading of a unit that names neither; the unit read says what it
 * names, so an answer through the index is the answer of reading every unit.
 * 8 bytes a path: 1.4 MiB for a Debian host's 175,000.
 */
struct pkgdb_pathindex {
	uint64_t *keys;
	size_t n, alloc;
};

#define PKGDB_PATHINDEX_UNITS ((size_t)1 << 20)

/** Add @path (@len bytes, @slash as in pkgdb_query_find()) of @unit.  Returns 0 or -ENOMEM. */
int pkgdb_pathindex_add(struct pkgdb_pathindex *x, const char *path, size_t len, bool slash,
			size_t unit);

/** End adding. */
void pkgdb_pathindex_seal(struct pkgdb_pathindex *x);

/**
 * A bitmap of @units bits (free() it), set for every unit that may name a
 * path of @q or its twin.  Returns 0 or -ENOMEM.
 */
int pkgdb_pathindex_mark(const struct pkgdb_pathindex *x, size_t units,
			 const struct pkgdb_query *q, uint64_t **ret);

void pkgdb_pathindex_release(struct pkgdb_pathindex *x);

/* The backends: each fills what it knows; 0 or -ENOMEM (a damaged database is
 * read as far as it goes). */

/**
 * What dpkg's backend keeps between the lookups of a run that makes more than
 * one (an audit hands its files over in batches): which lists may hold a path,
 * and the installed packages' versions.  Made by the lookup that is asked to
 * (@make_index_now) while it reads every list anyway; the lookups after it
 * read only the lists that may hold their paths.  *@index stays NULL when the
 * lists are too many to index (over a million): every lookup then reads them
 * all.
 */
struct pkgdb_dpkg_index;
int pkgdb_dpkg_lookup(int rootfd, struct pkgdb_query *q, struct pkgdb_dpkg_index **index,
		      bool make_index_now);
struct pkgdb_dpkg_index *pkgdb_dpkg_index_free(struct pkgdb_dpkg_index *x);
/* rpm's sqlite database has its own index of base names; apk's is one file. */
int pkgdb_rpm_lookup(int rootfd, int dbdirfd, struct pkgdb_query *q);
int pkgdb_apk_lookup(int rootfd, struct pkgdb_query *q);

/** pacman's, as dpkg's: which package directories may list a path. */
struct pkgdb_pacman_index;
int pkgdb_pacman_lookup(int rootfd, struct pkgdb_query *q, struct pkgdb_pacman_index **index,
			bool make_index_now);
struct pkgdb_pacman_index *pkgdb_pacman_index_free(struct pkgdb_pacman_index *x);

/** True when this build reads rpm databases (librpm and sqlite3). */
bool pkgdb_rpm_supported(void);

#endif /* S2C_RULES_PKGDB_BACKEND_H */
