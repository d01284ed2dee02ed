/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One inventory of privileged files: opens the root, loads the mount table
 * (host only), runs the parallel walker, collects the facts of every
 * candidate, names owners and groups, and sorts the result by path so every
 * output built from it is deterministic.
 */
#ifndef S2C_SCANNER_SCAN_H
#define S2C_SCANNER_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "walk.h"
#include "cleanup.h"

struct facts;
struct mounts;
struct s2c_error;

/** Scan behaviour. */
enum scan_flags {
	SCAN_XDEV = 1 << 0,          /**< stay on each start path's filesystem */
	SCAN_ALL_CAPS = 1 << 1,      /**< read caps of every regular file */
	SCAN_CROSS_PSEUDO = 1 << 2,  /**< descend into proc, sysfs and the like */
};

/** Options; zero-initialise and fill in. */
struct scan_options {
	const char *root;            /**< system root; NULL or "/" for the host */
	const char *const *paths;    /**< start paths under root; NULL for { "/" } */
	unsigned threads;            /**< worker threads (0 = 1) */
	unsigned max_depth;          /**< 0 = walker default */
	enum scan_flags flags;
	const char *mountinfo;       /**< mount table to read; NULL = /proc/self/mountinfo */
	walk_error_fn on_warning;    /**< called for every incomplete part (any thread) */
	void *userdata;
	struct walk_stats *stats;    /**< optional live counters for a progress display */
};

/** The inventory. */
struct scan_result {
	char *root;                  /**< the root as given ("/" for the host) */
	bool host;                   /**< the root is this system's "/" */
	int rootfd;                  /**< O_PATH fd of the root, owned */
	struct mounts *mounts;       /**< host mount table, NULL for images */
	struct facts **v;            /**< candidates sorted by path */
	size_t n;
	uint64_t warnings;           /**< number of warnings reported */
	struct walk_stats stats;     /**< final counters */
	double seconds;              /**< wall time of the walk */
};

/**
 * Run a scan.
 * @ret  on success a new result, free with scan_result_free().  Partial
 *       scans succeed; warnings counts the parts that were skipped.
 * Returns 0, or -errno with a message in @err when the root cannot be used.
 */
int scan_run(const struct scan_options *opts, struct scan_result **ret, struct s2c_error *err);

/** Free; accepts NULL; returns NULL. */
struct scan_result *scan_result_free(struct scan_result *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct scan_result *, scan_result_free)

/**
 * Open @root as a directory for use as a root fd (O_PATH).  Sets @ret_host
 * when it is the running system's "/".
 * Returns the fd or -errno with a message in @err.
 */
int scan_open_root(const char *root, bool *ret_host, struct s2c_error *err);

#endif /* S2C_SCANNER_SCAN_H */
