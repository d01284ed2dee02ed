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
#include <stdio.h>

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
 * The index of the wanted path equal to the @len bytes at @path (a path or
 * an alias), or -1.  Paths of the databases without a leading slash are
 * passed with @slash true, and compared as if they had one.
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

/** A line reader over an fd: getline(3) on fdopen(), the fd taken over. */
int pkgdb_fdopen(int fd, FILE **ret);

/* The backends: each fills what it knows; 0 or -ENOMEM (a damaged database is
 * read as far as it goes). */
int pkgdb_dpkg_lookup(int rootfd, struct pkgdb_query *q);
int pkgdb_rpm_lookup(int rootfd, int dbdirfd, struct pkgdb_query *q);
int pkgdb_apk_lookup(int rootfd, struct pkgdb_query *q);
int pkgdb_pacman_lookup(int rootfd, struct pkgdb_query *q);

/** True when this build reads rpm databases (librpm and sqlite3). */
bool pkgdb_rpm_supported(void);

#endif /* S2C_RULES_PKGDB_BACKEND_H */
