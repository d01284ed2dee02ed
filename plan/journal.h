/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The write-ahead journal of apply and rollback.
 *
 * One file per apply run in the root-only state directory, one JSON record
 * per line, each line sealed with the SHA-256 of its own text so a damaged
 * record is noticed.  Before a file is touched, an "intent" record holding its
 * exact previous state (owner, group, mode, the security.capability bytes or
 * their absence) and the state it is about to get is appended and fsync'd;
 * after the change a "done" record says how it ended.  Rollback appends
 * "undo" before and "undone" after restoring an entry.  A crash can only leave
 * a partial last line, which is ignored (and cut off before anything is
 * appended again).
 */
#ifndef S2C_PLAN_JOURNAL_H
#define S2C_PLAN_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fileid.h"
#include "cleanup.h"

struct s2c_error;

/** Name of the journal directory inside the state directory. */
#define JOURNAL_DIR "journals"

/** The names of journal files in it ("20261203T101112.123456789Z.journal"). */
#define JOURNAL_GLOB "*.journal"


/** How an entry ended. */
enum journal_outcome {
	JOURNAL_PENDING,        /**< intent written, no "done": interrupted */
	JOURNAL_APPLIED,
	JOURNAL_SKIPPED,        /**< nothing was changed */
	JOURNAL_FAILED,         /**< the change failed and was undone */
	JOURNAL_ROLLED_BACK,    /**< applied, then undone (smoke test failure) */
	_JOURNAL_OUTCOME_MAX,
	_JOURNAL_OUTCOME_INVALID = -22,
};

/** Version of the journal format written by this build. */
#define JOURNAL_VERSION 3

/** Largest journal read: about 400,000 changes (it is read a record at a time). */
#define JOURNAL_MAX_SIZE ((size_t)256 << 20)

/** What the person who ran apply accepted, recorded in the "begin" record. */
enum journal_flags {
	JOURNAL_ROOT_EQUIVALENT = 1 << 0,   /**< root-equivalent capability sets accepted */
};

/** One journalled change. */
struct journal_entry {
	unsigned seq;
	char *path;
	struct file_id before;              /**< the file when the change began: device, inode,
					         content ("" in version 1) and state (size, mtime
					         and links are not journalled: 0) */
	struct file_state after;            /**< the state the change gives it */
	char *rule_id;                      /**< the rule that decided it, NULL for none (and
					         before version 3, which did not say) */
	char sha256_after[HASH_HEX_LEN];    /**< content read back after it; "" when not recorded */
	enum journal_outcome outcome;
	char *reason;           /**< for skipped/failed/rolled back */
	bool undo_started;      /**< an "undo" record exists */
	bool undone;            /**< an "undone" record exists */
};

/** An open journal. */
struct journal {
	int fd;                 /**< open for appending; -1 when read-only */
	char *name;             /**< file name in the journal directory */
	char *shown;            /**< the journal as messages name it (journal_create(), _open()) */
	char *root;             /**< root the journal applies to */
	char *plan_sha256;      /**< hash of the plan it applied */
	unsigned version;       /**< format version of the file (1 to 3) */
	enum journal_flags flags;
	bool ended;             /**< an "end" record exists */
	bool truncated;         /**< a partial last line was found (and cut on open for write) */
	struct journal_entry *v;
	size_t n, alloc;
};

/**
 * Create a new journal in @dirfd (the journal directory) for @root and the
 * plan whose SHA-256 is @plan_sha256, recording @flags: O_CREAT|O_EXCL|O_NOFOLLOW,
 * mode 0600, a "begin" record, fsync of the file and the directory.
 * @dir: the journal directory as messages name it (statedir_shown()), or NULL
 * to name a journal by its file name alone.
 * Returns 0 with @ret set, or -errno (-ENOSPC on a full disk) with @err.
 */
int journal_create(int dirfd, const char *dir, const char *root, const char *plan_sha256,
		   enum journal_flags flags, struct journal **ret, struct s2c_error *err);

/**
 * Open and parse the journal @name in @dirfd (@dir as in journal_create()).
 * With @trusted, refuse a file not owned by root or accessible by group or
 * others.  With @writable, open it for appending (a partial last line is cut
 * off first).
 * Returns 0 or -errno with "DIR/name: line N: message" in @err.
 */
int journal_open(int dirfd, const char *dir, const char *name, bool trusted, bool writable,
		 struct journal **ret, struct s2c_error *err);

/**
 * Parse journal text (for tests and the fuzzer); @display names it in
 * messages.  Returns 0 or -EINVAL.
 */
int journal_parse(const char *text, size_t len, const char *display, struct journal **ret,
		  struct s2c_error *err);

/** Close and free; accepts NULL; returns NULL. */
struct journal *journal_free(struct journal *j);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct journal *, journal_free)

/**
 * Append the intent to change the file @id (at @path, with content @id->sha256,
 * which must be set) from @id->state to @after, as the rule @rule_id (NULL: no
 * rule) decided; fsync'd before returning.
 * @ret_seq receives the entry's number.  Returns 0 or -errno.
 */
int journal_intent(struct journal *j, const char *path, const char *rule_id,
		   const struct file_id *id, const struct file_state *after, unsigned *ret_seq,
		   struct s2c_error *err);

/**
 * Append how entry @seq ended, with an optional @reason and the content hash
 * read back after the change (@sha256_after, or NULL); fsync'd.
 */
int journal_done(struct journal *j, unsigned seq, enum journal_outcome outcome, const char *reason,
		 const char *sha256_after, struct s2c_error *err);

/** Append "undo" (before restoring) or "undone" (after) for entry @seq; fsync'd. */
int journal_undo(struct journal *j, unsigned seq, bool finished, struct s2c_error *err);

/** Append the "end" record; fsync'd. */
int journal_end(struct journal *j, struct s2c_error *err);

/** The entry with number @seq, or NULL. */
struct journal_entry *journal_find(struct journal *j, unsigned seq);

/** "pending", "applied", "skipped", "failed", "rolled-back". */
const char *journal_outcome_name(enum journal_outcome o);

#endif /* S2C_PLAN_JOURNAL_H */
