/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apply and rollback: carry out a plan with the safety protocol, and undo it.
 *
 * For every entry to change: preflight of its filesystem; open beneath the
 * root with no symlink and no unsafe parent; identity check against the plan
 * (device, inode, size, mtime, mode, owner, capability bytes, SHA-256; one
 * hard link unless allowed); an fsync'd journal record of the exact previous
 * state; the change (owner, capabilities, mode) read back; the rule's smoke
 * test as an unprivileged user, with an automatic undo on failure; a
 * completion record; and the new state recorded for verify.
 *
 * A crash at any point leaves a journal: a later apply first undoes what an
 * interrupted run left half done, and rollback restores the exact previous
 * bytes of every entry, idempotently.
 */
#ifndef S2C_PLAN_APPLY_H
#define S2C_PLAN_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct captable;
struct file_state;
struct plan;
struct s2c_error;

/** What happened to one entry, reported through apply_report_fn. */
enum apply_event {
	APPLY_APPLIED,         /**< changed as planned */
	APPLY_ALREADY,         /**< already in the planned state */
	APPLY_SKIPPED,         /**< not touched (changed since the plan, unsafe, preflight) */
	APPLY_FAILED,          /**< the change failed and was undone */
	APPLY_SMOKE_OK,        /**< the smoke test passed */
	APPLY_ROLLED_BACK,     /**< the smoke test failed and the change was undone */
	APPLY_RESTORED,        /**< rollback restored the previous state */
	APPLY_NOT_RESTORED,    /**< rollback could not restore it (replaced since, unsafe) */
	APPLY_RECOVERED,       /**< an interrupted change of an earlier run was undone */
	_APPLY_EVENT_MAX,
};

/** One outcome of one entry, as apply_report_fn receives it; everything is borrowed. */
struct apply_report {
	const char *path;
	enum apply_event event;
	const char *message;                /**< why; "" when there is nothing to say */
	bool recovery;                      /**< from undoing what an interrupted earlier run
					         left half done, not from this run's own entries */
	const struct file_state *before;    /**< the file's state when this step found it;
					         NULL when it was not read (not reachable) */
	const struct file_state *after;     /**< its state, read again, when this step left
					         it; NULL when it was not read */
};

/** Called for every entry outcome; @r is valid during the call only. */
typedef void (*apply_report_fn)(void *userdata, const struct apply_report *r);

/** Options of apply_run(). */
struct apply_options {
	int rootfd;                   /**< the plan's root */
	const struct plan *plan;
	const char *plan_sha256;      /**< hash of the plan file, recorded in the journal */
	const char *const *only;      /**< NULL-terminated paths, or NULL for all */
	const struct captable *caps;  /**< risk grades for the privilege check (rules/privcheck.h) */
	bool allow_hardlinks;
	bool allow_root_equivalent;   /**< accept root-equivalent sets (recorded in the journal) */
	bool smoke;                   /**< run smoke tests */
	uid_t smoke_uid;
	gid_t smoke_gid;
	unsigned smoke_timeout;       /**< seconds */
	bool trusted;                 /**< check ownership and modes of the state directory */
	const char *fault;            /**< test builds only: "step[:seq][=SIG]" at which to raise
				       SIGKILL (or SIG: INT, TERM, HUP, QUIT) */
	bool (*stop)(void);           /**< asked before each file; true: stop there (a signal) */
	apply_report_fn report;
	void *userdata;
};

/** Counts of a run. */
struct apply_result {
	size_t applied, already, skipped, failed, rolled_back, restored, not_restored, recovered;
	char journal[128];            /**< journal name, "" when none was written */
};

/**
 * Apply @o->plan.  Entries whose "action" is "none" are not touched.  Each
 * change is checked again, on the state the file has now, against the
 * privilege order (rules/privcheck.h): a change that would grant more than
 * the file has, or set a root-equivalent set without
 * @o->allow_root_equivalent, is skipped; the plan's own risk fields are not
 * trusted.  The state directory beneath the plan's root is made when it is
 * absent (statedir_open()).
 * Returns 0 when the run finished (see the counts: skipped or failed entries
 * were reported), or -errno when it had to stop (the journal or state could
 * not be written; another run holds the lock), with @err; -EINTR when
 * @o->stop asked it to: every change begun is then finished and journalled,
 * the journal ended, and @err says before which file it stopped.
 */
int apply_run(const struct apply_options *o, struct apply_result *ret, struct s2c_error *err);

/**
 * Undo what an interrupted earlier run left half done beneath @rootfd (its
 * pending journal entries), before a new scan looks at the files.  Does
 * nothing, and makes nothing, when nothing was ever applied there.  @root is
 * the root as the user named it, for messages.  Returns 0 or -errno.
 */
int apply_recover(int rootfd, const char *root, bool trusted, apply_report_fn fn,
		  void *userdata, struct apply_result *ret, struct s2c_error *err);

/** Options of rollback_run(). */
struct rollback_options {
	int rootfd;
	const char *root;             /**< as the user named it, for messages */
	const char *journal;          /**< name in the journal directory; NULL for the newest */
	const char *const *only;
	bool trusted;
	const char *fault;
	bool (*stop)(void);           /**< asked before each file; true: stop there (a signal) */
	apply_report_fn report;
	void *userdata;
};

/**
 * Undo a journal's changes in reverse order, restoring the exact previous
 * owner, group, mode and capability bytes; entries already undone are
 * skipped, so running it again is harmless.  A file is restored only when it
 * is still the inode the journal changed, with the same content (SHA-256) and
 * the state the change left; anything else is reported as not restored.
 * Without @o->journal, the newest journal with a change left to undo; when
 * every change is undone already, nothing is done and @ret->journal is "".
 * Returns 0 or -errno with @err (-ENOENT when there is no journal at all, or
 * no state directory: nothing is made; -EINTR when @o->stop asked it to stop,
 * between two files, with @err saying where).
 */
int rollback_run(const struct rollback_options *o, struct apply_result *ret, struct s2c_error *err);

/** One journal, as `rollback --list` shows it. */
struct journal_info {
	char *name;                   /**< file name; names sort by creation time */
	char *root;
	unsigned version;
	bool ended;                   /**< the run finished (an "end" record) */
	bool root_equivalent;         /**< root-equivalent sets were accepted */
	size_t entries;               /**< changes begun */
	size_t applied;               /**< in place now: applied and not undone */
	size_t undone;
	size_t interrupted;           /**< begun and never finished nor undone */
	size_t other;                 /**< skipped, failed or rolled back at once */
};

/**
 * Every journal beneath @rootfd, newest first; nothing is made.  With
 * @trusted, the state directory and each journal must pass the private trust
 * check.  @root is the root as the user named it, for messages.
 * @ret: array of @ret_n, free with journal_infos_free().
 * Returns 0 (an empty list when nothing was ever applied) or -errno with @err.
 */
int journal_infos(int rootfd, const char *root, bool trusted, struct journal_info **ret,
		  size_t *ret_n, struct s2c_error *err);

/** Free what journal_infos() returned. */
void journal_infos_free(struct journal_info *v, size_t n);

/** "applied", "already done", … (for people) */
const char *apply_event_name(enum apply_event e);

/**
 * The stable name of @e for machine-readable output: "applied", "already",
 * "skipped", "failed", "smoke-ok", "rolled-back", "restored", "not-restored",
 * "recovered"; "invalid" out of range.
 */
const char *apply_event_id(enum apply_event e);

#endif /* S2C_PLAN_APPLY_H */
