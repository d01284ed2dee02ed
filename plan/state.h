/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record of what was migrated: state.json in the state directory
 * (common/statedir.h), the list of files migrated and the exact state each
 * was given, which `verify` compares with the system to find drift after
 * package updates.  state.json is replaced atomically (temporary file, fsync,
 * rename, fsync of the directory).
 */
#ifndef S2C_PLAN_STATE_H
#define S2C_PLAN_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fileid.h"
#include "cleanup.h"
#include "hashindex.h"

struct s2c_error;

/** Largest state file read: about 700,000 files. */
#define STATE_MAX_SIZE ((size_t)256 << 20)

/** One migrated file. */
struct state_entry {
	char *path;
	char *rule_id;                 /**< NULL when no rule decided it */
	struct file_id left;           /**< what the change left: the device, inode, content
					    (SHA-256) and the state it was given (size, mtime and
					    links are not recorded: 0) */
	char *journal;                 /**< the journal that applied it */
};

/** The whole record. */
struct state {
	char *root;
	struct state_entry *v;         /**< sorted by path when loaded and once saved; in the
					    order of state_put() and state_remove() between */
	size_t n, alloc;
	struct hashindex index;        /**< positions in v by strhash() of the path */
	bool unindexed;                /**< the index could not be kept (out of memory):
					    entries are searched one by one */
	bool unsorted;                 /**< v is not sorted by path */
};

/**
 * Read state.json from @dirfd; a missing file gives an empty state for @root.
 * @dir: the state directory as messages name it (statedir_shown()), or NULL.
 * Returns 0 or -errno with "DIR/state.json: $.path: message" in @err.
 */
int state_load(int dirfd, const char *dir, const char *root, bool trusted, struct state **ret,
	       struct s2c_error *err);

/** Parse state JSON text (tests, fuzzing). */
int state_parse(const char *text, size_t len, const char *display, struct state **ret,
		struct s2c_error *err);

/**
 * Write @s to @dirfd/state.json atomically, sorted by path (which sorts @s);
 * @dir as in state_load().
 * Returns 0 or -errno with @err naming the file and the step that failed.
 */
int state_save(int dirfd, const char *dir, struct state *s, struct s2c_error *err);

/**
 * Add or replace the entry for @e->path (deep copy): a new one goes last, so
 * that putting n entries costs O(n).  Returns 0 or -ENOMEM.
 */
int state_put(struct state *s, const struct state_entry *e);

/** Remove the entry for @path (the last entry takes its place); true when there was one. */
bool state_remove(struct state *s, const char *path);

/** The entry for @path or NULL. */
struct state_entry *state_find(struct state *s, const char *path);

/** Free; accepts NULL; returns NULL. */
struct state *state_free(struct state *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct state *, state_free)

#endif /* S2C_PLAN_STATE_H */
