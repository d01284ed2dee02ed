/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One inventory of privileged files: opens the root, loads the mount table
 * (host only), runs the parallel walker, collects the facts of every
 * candidate, names owners and groups, and sorts the result by path so every
 * output built from it is deterministic.
 *
 * On the running system the scan leaves out other systems' files (other OS
 * roots, container and VM storage, overlayfs layers: skip.h) unless
 * SCAN_OTHER_ROOTS; on any root it leaves out what the exclude patterns and
 * the exclude file name.  What was left out is listed in the result.
 */
#ifndef S2C_SCANNER_SCAN_H
#define S2C_SCANNER_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "facts.h"
#include "skip.h"
#include "walk.h"
#include "cleanup.h"

struct binary_wants;
struct facts;
struct mounts;
struct s2c_error;
struct scan_result;
struct spill;
struct spill_cursor;

/** Scan behaviour. */
enum scan_flags {
	SCAN_XDEV = 1 << 0,          /**< stay on each start path's filesystem */
	SCAN_ALL_CAPS = 1 << 1,      /**< read caps of every regular file */
	SCAN_CROSS_PSEUDO = 1 << 2,  /**< descend into proc, sysfs and the like */
	SCAN_OTHER_ROOTS = 1 << 3,   /**< on the running system, also walk other OS roots,
					  container storage and overlayfs layers */
	SCAN_CONTENT = 1 << 4,       /**< read each candidate's content (binary.h) in the
					  worker that found it, while the walk goes on */
};

/** The part of a scan that failed (scan_options::failed). */
enum scan_part {
	SCAN_PART_NONE,
	SCAN_PART_ROOT,              /**< opening the root, or reading the mount table */
	SCAN_PART_EXCLUDE,           /**< an exclude pattern or the exclude file */
	SCAN_PART_RECORDS,           /**< keeping the records in scan_options::records_dir */
	SCAN_PART_WALK,              /**< the walk, naming owners, or on_batch() */
};

/** Options; zero-initialise and fill in. */
struct scan_options {
	const char *root;            /**< system root; NULL or "/" for the host */
	const char *const *paths;    /**< start paths under root; NULL for { "/" } */
	unsigned threads;            /**< worker threads (0 = 1) */
	unsigned max_depth;          /**< 0 = walker default */
	enum scan_flags flags;
	const char *mountinfo;       /**< mount table to read; NULL = /proc/self/mountinfo */
	const struct binary_wants *want; /**< with SCAN_CONTENT: what to read of each candidate's
					      content (binary_read()), or NULL */
	const char *const *exclude;  /**< paths and globs not to walk (NULL-terminated), or NULL */
	const char *exclude_file;    /**< exclude file beneath the root (skip_list_load()), or NULL */
	bool trusted;                /**< refuse an exclude file someone but root could write */
	walk_error_fn on_warning;    /**< called for every incomplete part (any thread) */
	void *userdata;
	struct walk_stats *stats;    /**< optional live counters for a progress display */
	/** With @batch: the candidates' facts (named, and with SCAN_CONTENT their content)
	 * are handed over @batch at a time (later batches up to four times that) as they
	 * are found, the last after the walk, on the thread that called scan_run() while
	 * the walk goes on on others, and the result holds none of them: what the scan
	 * keeps does not grow with their number (a walk thread with a candidate waits
	 * while one batch waits and another is full).  @res is the result being made (its root, rootfd, host
	 * and mounts).  @on_batch takes @v's facts, not @v, whatever it returns: 0, or
	 * -errno, which stops the scan: scan_run() then returns it and says nothing in its
	 * error (@on_batch has). */
	int (*on_batch)(void *userdata, const struct scan_result *res, struct facts **v, size_t n);
	void *batch_userdata;
	size_t batch;
	/** Without @on_batch: keep the candidates as records (scanner/factsrec.h) in
	 * scan_result::files, within @records_memory bytes of memory and past it in an
	 * unnamed file in this directory, instead of in scan_result::v; read them with
	 * scan_cursor_start().  What the scan holds then does not grow with their number. */
	const char *records_dir;
	size_t records_memory;
	/** scan_result::n_any counts the candidates with any of these flags. */
	enum facts_flags count_any;
	/** Optional: when scan_run() fails, set to the part that did (what an errno means
	 * depends on it: -ENOENT of the root is not -ENOENT of the records directory). */
	enum scan_part *failed;
};

/** The inventory. */
struct scan_result {
	char *root;                  /**< the root as given ("/" for the host) */
	bool host;                   /**< the root is this system's "/" */
	int rootfd;                  /**< O_PATH fd of the root, owned */
	struct mounts *mounts;       /**< host mount table, NULL for images */
	struct facts **v;            /**< candidates sorted by path, NULL with @files */
	size_t n;                    /**< candidates */
	size_t n_flag[_FACT_MAX];    /**< candidates with each flag: n_flag[FACT_BIT(flag)]
					  (all found, also those handed to on_batch) */
	size_t n_any;                /**< candidates with any of scan_options::count_any */
	struct spill *files;         /**< or (scan_options::records_dir): their records */
	uint64_t warnings;           /**< number of warnings reported */
	struct skip_entry *skipped;  /**< what was left out, sorted by path, unique */
	size_t n_skipped;
	struct walk_stats stats;     /**< final counters */
	double seconds;              /**< wall time of the walk */
};

/**
 * Run a scan.
 * @ret  on success a new result, free with scan_result_free().  Partial
 *       scans succeed; warnings counts the parts that were skipped.
 * Returns 0, or -errno with a message in @err and the part in scan_options::failed:
 * the root cannot be used (SCAN_PART_ROOT); an exclude pattern is malformed (-EINVAL),
 * the exclude file is malformed (-EINVAL), untrusted (-EPERM) or unreadable
 * (SCAN_PART_EXCLUDE); the records cannot be kept (SCAN_PART_RECORDS: the message
 * names the directory); the walk, naming owners or on_batch() failed (SCAN_PART_WALK).
 */
int scan_run(const struct scan_options *opts, struct scan_result **ret, struct s2c_error *err);

/** Free; accepts NULL; returns NULL. */
struct scan_result *scan_result_free(struct scan_result *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct scan_result *, scan_result_free)

/**
 * One reading of a scan's candidates in path order, from scan_result::v or
 * read back from its records one at a time; several may go on at once.
 *
 *	_cleanup_(scan_cursor_release) struct scan_cursor c = { 0 };
 *	for (r = scan_cursor_start(res, &c); r == 0 && c.f; r = scan_cursor_next(res, &c))
 *		...
 */
struct scan_cursor {
	size_t i;                    /**< the candidate's position, from 0 */
	const struct facts *f;       /**< NULL after the last */
	struct spill_cursor *sc;     /* private */
	struct facts *rec;           /* private: the record read back */
};

/** Start @c (zeroed) at the first candidate.  Returns 0, or -errno of reading a record. */
int scan_cursor_start(const struct scan_result *r, struct scan_cursor *c);

/** Move @c to the next candidate.  Returns 0, or -errno of reading a record. */
int scan_cursor_next(const struct scan_result *r, struct scan_cursor *c);

/** Free what @c holds; it is zeroed. */
void scan_cursor_release(struct scan_cursor *c);

/**
 * The entry of @r->skipped that is @path or one of its ancestors, or NULL:
 * why a path was not scanned.  Borrowed pointer.
 */
const struct skip_entry *scan_result_skipped(const struct scan_result *r, const char *path);

/**
 * Open @root as a directory for use as a root fd (O_PATH).  Sets @ret_host
 * when it is the running system's "/".
 * Returns the fd or -errno with a message in @err.
 */
int scan_open_root(const char *root, bool *ret_host, struct s2c_error *err);

#endif /* S2C_SCANNER_SCAN_H */
