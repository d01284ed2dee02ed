/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The parallel directory walker.
 *
 * A pool of worker threads pulls directories from one shared LIFO queue
 * (depth-first order keeps the queue, and so memory, small whatever the tree
 * size).  Each worker reads entries with getdents64(2) into its own 64 KiB
 * buffer and uses d_type to avoid stat calls: only regular files (and entries
 * of unknown type) get a statx(2), with a minimal mask, relative to the open
 * directory fd.  Mount points come from the mount table, so directories are
 * never stat'ed either.  security.capability is read only for regular files
 * with an execute bit (or for every regular file with WALK_ALL_CAPS).
 * Nothing follows symlinks: directories are opened with O_NOFOLLOW relative
 * to their parent's fd and the start paths are resolved without symlinks.
 *
 * For every candidate (setuid, setgid, or carrying a capability xattr) the
 * walker calls walk_options::on_candidate from a worker thread.
 *
 * Paths a skip list (skip.h) matches are not walked but handed to
 * walk_options::on_skip; the list is consulted only in subtrees a rule can
 * reach.  With WALK_SKIP_OS_ROOTS a directory is also left out when it is
 * another OS root: the walker notes "usr" and "etc" among the entries
 * getdents64 already returned, and only a directory holding both costs the
 * few openat/fstatat calls of skip_is_os_root().  The candidates found in a
 * directory are handed on after the directory has been read, so nothing of
 * an OS root is ever reported as a candidate.
 */
#ifndef S2C_SCANNER_WALK_H
#define S2C_SCANNER_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct mounts;
struct skip_list;
struct skip_rule;

/** Walker behaviour. */
enum walk_flags {
	WALK_XDEV = 1 << 0,          /**< stay on the filesystem of each start path */
	WALK_ALL_CAPS = 1 << 1,      /**< read caps of every regular file, not only executables */
	WALK_CROSS_PSEUDO = 1 << 2,  /**< also descend into pseudo filesystems */
	WALK_SKIP_OS_ROOTS = 1 << 3, /**< leave out directories (not the root) that are OS roots */
};

/** What the walker hands to on_candidate; valid only during the call. */
struct walk_entry {
	const char *path;            /**< "/usr/bin/su", relative to the walk root */
	int dirfd;                   /**< open directory containing the file */
	const char *name;            /**< name within dirfd */
	const struct statx *stx;     /**< full basic statx of the file */
	const unsigned char *caps;   /**< raw security.capability, or NULL */
	int caps_len;                /**< its length, or -errno (-ENODATA: none) */
	uint64_t mnt_id;             /**< stx_mnt_id when known, else 0 */
};

/** Counters for a progress display; updated with relaxed atomics. */
struct walk_stats {
	uint64_t dirs;               /**< directories read */
	uint64_t files;              /**< directory entries seen */
	uint64_t candidates;         /**< candidates reported */
	uint64_t errors;             /**< warnings reported */
};

/**
 * Candidate callback; runs concurrently on worker threads.
 * Return 0 to go on, or a negative errno to stop the walk with that error.
 */
typedef int (*walk_candidate_fn)(void *userdata, const struct walk_entry *entry);

/**
 * Warning callback for anything that makes the walk incomplete (unreadable
 * directory, vanished file, path too deep…); runs concurrently.
 * @path   the path concerned, relative to the walk root.
 * @error  negative errno.
 * @what   short description of the failed operation ("cannot open directory").
 */
typedef void (*walk_error_fn)(void *userdata, const char *path, int error, const char *what);

/**
 * A path was left out; runs concurrently.
 * @path  relative to the walk root.
 * @rule  the skip rule that matched, or NULL for a directory found to be
 *        another OS root (WALK_SKIP_OS_ROOTS).
 * Return 0 to go on, or a negative errno to stop the walk with that error.
 */
typedef int (*walk_skip_fn)(void *userdata, const char *path, const struct skip_rule *rule);

/** Options; zero-initialise and fill in. */
struct walk_options {
	int rootfd;                  /**< directory fd standing for "/" */
	const char *const *paths;    /**< start paths ("/", "/usr"), NULL-terminated */
	const struct mounts *mounts; /**< mount table of rootfd's namespace, or NULL for an image */
	unsigned threads;            /**< worker threads, >= 1 */
	unsigned max_depth;          /**< directory depth limit (0 = default 4096) */
	enum walk_flags flags;
	walk_candidate_fn on_candidate;
	walk_error_fn on_error;
	const struct skip_list *skip;  /**< paths not to walk (start paths included), or NULL */
	walk_skip_fn on_skip;        /**< required with @skip or WALK_SKIP_OS_ROOTS */
	void *userdata;
	struct walk_stats *stats;    /**< optional live counters */
};

/**
 * Walk every start path.  Returns 0 when the walk finished (warnings may
 * have been reported), or the negative errno a callback returned, or -ENOMEM,
 * or the error of thread creation.
 */
int walk_run(const struct walk_options *opts);

#endif /* S2C_SCANNER_WALK_H */
