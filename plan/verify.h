/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drift: how a migrated file differs today from what apply recorded, and
 * whether repairing it is safe.
 *
 * A file is compared with its state record (plan/state.h) through the one file
 * identity (scanner/fileid.h): the same inode and content with another state
 * (the set-ID bit back, capabilities gone or changed); new content on the same
 * or a new inode, told apart by the package database into an update (the
 * package's own content) and tampering (anything else); or no file at all.
 * Only an update, or the same content with the set-ID bit back, may be
 * repaired by applying the recorded state again, and only when the rules,
 * asked again, still decide exactly the recorded state (verify_approve()).
 */
#ifndef S2C_PLAN_VERIFY_H
#define S2C_PLAN_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "fileid.h"
#include "cleanup.h"

struct host;
struct plan;
struct s2c_error;
struct state;
struct state_entry;

/** What happened to a migrated file. */
enum drift_kind {
	DRIFT_NONE,          /**< as recorded */
	DRIFT_GONE,          /**< missing, not a regular file, or not reachable safely */
	DRIFT_STATE,         /**< same inode and content, another owner, group, mode or caps */
	DRIFT_UPDATED,       /**< new content that the owning package shipped (an update) */
	DRIFT_TAMPERED,      /**< new content that the owning package did not ship */
	DRIFT_UNVERIFIED,    /**< new content no package database can vouch for */
	_DRIFT_KIND_MAX,
};

/** The drift of one recorded file. */
struct drift {
	const struct state_entry *entry;   /**< borrowed */
	enum drift_kind kind;
	bool fixable;                      /**< verify --fix may apply the recorded state again */
	struct file_id now;                /**< what the file is now (sha256 set when read) */
	char what[512];                    /**< what drifted, one sentence for people */
	const char *repair;                /**< how to repair it (static): "'suid2cap verify
					        --fix' repairs it" when @fixable, else what a
					        person does (plan and apply again, reinstall the
					        package, 'verify --forget') */
};

/**
 * Compare the file of @e beneath @rootfd with the record.  @h (the target's
 * facts, packages loaded for @e->path) tells updates from tampering.
 * Returns 0 with @ret filled (kind DRIFT_NONE when nothing drifted), or
 * -ENOMEM.
 */
int verify_entry(int rootfd, const struct host *h, const struct state_entry *e,
		 struct drift *ret);

/** "none", "gone", "state", "updated", "tampered", "unverified". */
const char *drift_kind_name(enum drift_kind k);

/** One verify: the record beneath a root and the drift of each file in it. */
struct verify_run {
	struct state *state;               /**< the record (plan/state.h) */
	struct host *host;                 /**< the target's facts, its packages loaded */
	struct drift *drifts;              /**< state->n, in the record's order */
	size_t n_drifted;                  /**< entries of @drifts that drifted */
};

/**
 * Compare every file recorded beneath @rootfd with the disk (verify_entry()).
 * @root    the root as messages name it ("/" for the running system)
 * @path    the root as given, which an empty record names
 * @live    @rootfd is the running system
 * @trusted refuse a state directory or state file others could have written
 * Returns 0 with a new run in @ret (free with verify_run_free()), 1 when
 * nothing was ever migrated there (no state directory), or -errno with @err.
 */
int verify_run_check(int rootfd, const char *root, const char *path, bool live, bool trusted,
		     struct verify_run **ret, struct s2c_error *err);

/** Free @v; accepts NULL; returns NULL. */
struct verify_run *verify_run_free(struct verify_run *v);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct verify_run *, verify_run_free)

/** Told of a drifted file that is not repaired, and why (borrowed). */
typedef void (*verify_refused_fn)(void *userdata, const char *path, const char *why);

/**
 * The drifted files of @v that --fix may repair and that are to be decided
 * again: NULL-terminated paths borrowed from @v into @ret_paths (free the
 * array).  Each drifted file that may not be repaired goes to @refused with
 * its drift's sentence; @ret_refused counts them.
 * Returns the number of paths, or -ENOMEM.
 */
int verify_fixable(const struct verify_run *v, verify_refused_fn refused, void *userdata,
		   const char ***ret_paths, size_t *ret_refused);

/**
 * Which of the fresh decisions @p about the fixable drifted files of @v (the
 * plan a narrowed child made for verify_fixable()'s paths) repair them: only
 * a change to exactly the recorded state (what it grants), on the content
 * that was checked.  Every other entry of @p is made to change nothing, and
 * each fixable file not repaired goes to @refused with the reason (no longer
 * privileged, its content changed again, the rules decide another state).
 * @ret_approved  the paths that change, NULL-terminated, borrowed from @p
 *                (free the array), for apply_options.only
 * Returns the number of fixable files not repaired, or -ENOMEM.
 */
int verify_approve(const struct verify_run *v, struct plan *p, verify_refused_fn refused,
		   void *userdata, const char ***ret_approved);

/**
 * Stop tracking @paths (@n of them): remove their entries from the record
 * beneath @rootfd, under the state directory's lock; no file is touched.
 * @root as in verify_run_check(); @ret_found[i] says whether @paths[i] was
 * recorded.  Returns 0 (the record saved), or -errno with @err (nothing
 * saved; -ENOENT: nothing was ever migrated there).
 */
int verify_forget(int rootfd, const char *root, const char *const *paths, size_t n,
		  bool trusted, bool *ret_found, struct s2c_error *err);

#endif /* S2C_PLAN_VERIFY_H */
