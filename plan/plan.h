/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plan: what a migration would change, file by file, and its JSON form.
 *
 * A plan is built from the decisions of the engine (rules/engine.h) and
 * records, for every privileged file, the identity the file had when the plan
 * was made (device, inode, size, mtime, link count, SHA-256), its state before
 * (owner, group, mode, exact capability attribute) and the state after.
 * Entries are sorted by path.  The same system gives a byte-identical plan:
 * nothing in it depends on time (unless a timestamp is asked for), on thread
 * scheduling or on where the rules database is installed.
 *
 * The JSON document (docs/schema/plan.schema.json) is written by
 * plan_to_json() and read back, strictly, by planload.h.
 */
#ifndef S2C_PLAN_PLAN_H
#define S2C_PLAN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "captable.h"
#include "db.h"
#include "engine.h"
#include "fileid.h"
#include "cleanup.h"

struct decision;
struct host;
struct json_object;
struct rules_db;
struct s2c_error;
struct skip_entry;

/** Version of the JSON document ("schema" key). */
#define PLAN_SCHEMA 1

/** Value of the "kind" key, so a plan is not mistaken for another document. */
#define PLAN_KIND "suid2cap-plan"

/**
 * How the plan names a state: owner and group names and the capability text,
 * beside the state itself (a struct file_state).
 */
struct plan_names {
	char *owner, *group;                    /**< names, NULL when unknown */
	char *caps_text;                        /**< getcap(8) text of its capabilities; NULL when
						     none or malformed */
};

/** One file of the plan.  Every string is owned by the plan. */
struct plan_entry {
	char *path;                  /**< absolute within the plan's root, any bytes but NUL */
	bool change;                 /**< "action": "change"; false: "none" */
	enum verdict verdict;
	char *rule_id;               /**< NULL without a rule */
	char *reason;                /**< one sentence, says why nothing changes for "none" */
	enum confidence confidence;
	enum risk risk, risk_now;
	bool disguise;               /**< migrates to a root-equivalent set */
	char *package;               /**< owning package, NULL when unknown */
	struct file_id id;           /**< the file when planned: device, inode, size, mtime, links,
				          SHA-256 ("" when not known, never for a change), and in
				          id.state the state before (the exact capability bytes) */
	struct file_state after;     /**< the state after; its capabilities as the v2 bytes a
				          change writes */
	struct plan_names before_names, after_names; /**< how the plan names id.state and after */
	char **smoke;                /**< argv, "{}" stands for the file; NULL when none */
	size_t n_smoke;
	char **evidence;             /**< "strong needs: imports socket -> cap_net_raw", … */
	size_t n_evidence;
	char **warnings;
	size_t n_warnings;
};

/** A mount one of the entries lives on. */
struct plan_mount {
	char *target;                /**< mount point, NULL when unknown (images) */
	char *fstype;                /**< NULL when unknown */
	bool nosuid, rdonly;
};

/** Counts of the "summary" object. */
struct plan_summary {
	size_t change, unchanged;
	size_t by_verdict[_VERDICT_MAX];
};

/** A whole plan.  Free with plan_free(). */
struct plan {
	int schema;                  /**< PLAN_SCHEMA */
	char *tool_version;
	char *root;                  /**< "/" for the host */
	bool live;                   /**< made on the running system, not an image */
	char *kernel;                /**< kernel release the conditions were evaluated for */
	char *os_id, *os_pretty;     /**< os-release ID and PRETTY_NAME, NULL when unknown */
	char *ping_group_range;      /**< net.ipv4.ping_group_range, NULL when unknown */
	char *db_hash;               /**< SHA-256 of the rules database */
	size_t db_rules;
	char **db_files;             /**< base names of the database files, in load order */
	size_t n_db_files;
	char *created;               /**< "YYYY-MM-DDTHH:MM:SSZ", NULL unless asked for */
	struct plan_mount *mounts;   /**< unique, sorted */
	size_t n_mounts;
	struct skip_entry *not_scanned; /**< what the scan left out, sorted by path, unique */
	size_t n_not_scanned;
	struct plan_entry *v;        /**< sorted by path (bytes), unique */
	size_t n;
};

/**
 * Build a plan from @n decisions.
 * @v      the decisions (borrowed; their facts must be alive); any order.
 * @h      facts of the target (kernel, os-release, sysctl).
 * @db     the rules database the decisions were made with (hash, files).
 * @root   the root the scan ran on, absolute ("/" for the host): the loader
 *         refuses a relative one, and the shell script uses it as ROOT.
 * @live   the root is the running system.
 * @ret    on success a new plan, free with plan_free().
 * Returns 0, -ENOMEM, or -EINVAL with a message in @err when a decision
 * cannot be planned safely: a change without the file's SHA-256 (apply and
 * the shell script refuse a file whose content differs from the plan, so a
 * change the content of which is unknown could be applied to a replaced
 * file), or the same path twice.
 */
int plan_build(const struct decision *const *v, size_t n, const struct host *h,
	       const struct rules_db *db, const char *root, bool live, struct plan **ret,
	       struct s2c_error *err);

/**
 * Record in @p what the scan left out (@n entries of @v, sorted by path and
 * unique, as scan_result::skipped is), copied, so the plan says which parts
 * of the root it does not cover.  Returns 0 or -ENOMEM.
 */
int plan_set_not_scanned(struct plan *p, const struct skip_entry *v, size_t n);

/**
 * On the running system, change only files the package database owns: each
 * change entry of a live plan whose file no package owns (per @h, the facts
 * the decisions were made with) gets the action "none", the state after
 * equal to the state before, the risk after equal to the risk now, and a
 * reason that says so and how to include such files
 * (--include-unpackaged), noting when the target has no package database
 * suid2cap can read.  Plans of an image are left alone.
 * Returns the number of entries held back, or -ENOMEM.
 */
int plan_only_packaged(struct plan *p, const struct host *h);

/**
 * Count the entries of @p by action and verdict into @ret.
 */
void plan_summarise(const struct plan *p, struct plan_summary *ret);

/**
 * The JSON document of @p (fixed key order, so the same plan always gives the
 * same bytes).  Paths and names that are not valid UTF-8 come with their exact
 * bytes in "<key>_hex".
 * Returns a new object (release with json_object_put()), or NULL on OOM.
 */
struct json_object *plan_to_json(const struct plan *p);

/**
 * Write plan_to_json() of @p to @out as jsonout_write() would, byte for byte,
 * with only one entry's object in memory at a time.
 * Returns 0, -ENOMEM or -EIO.
 */
int plan_write_json(const struct plan *p, FILE *out);

/**
 * Order of the "mounts" array: by target (unknown first), fstype (unknown
 * first), nosuid, readonly.  Returns <0, 0 (the same mount) or >0.
 */
int plan_mount_cmp(const struct plan_mount *a, const struct plan_mount *b);

/**
 * Check the changes of @p (a plan file, untrusted) against @fresh (the same
 * files decided again now with the loaded rules).  For every entry of @p that
 * changes a file which @fresh saw with the same identity (device, inode,
 * SHA-256, state before), the verdict and the state after (owner, group,
 * mode, capabilities) must be what @fresh decides, and @fresh must change it
 * too.  Entries whose file changed since the plan are left to apply's
 * identity check.
 * @ret      NULL-terminated array of messages, one per mismatch, or NULL when
 *          there is none; free with strv_free().
 * Returns the number of mismatches, or -ENOMEM.
 */
int plan_mismatches(const struct plan *p, const struct plan *fresh, char ***ret);

/**
 * Check every change of @p against the privilege order (rules/privcheck.h)
 * on the plan's own before and after states, with the risk grades of @t: the
 * plan's risk and "setuid_in_disguise" fields are not trusted.
 * @ret              NULL-terminated messages about changes that grant more, or NULL
 * @ret_disguised    how many changes set a root-equivalent capability set
 *                  (apply needs --allow-root-equivalent for them)
 * Returns the number of messages, or -ENOMEM.
 */
int plan_privilege_problems(const struct plan *p, const struct captable *t, char ***ret,
			    size_t *ret_disguised);

/** "change" or "none". */
const char *plan_action_name(bool change);

/** Free @p and everything it owns; accepts NULL; returns NULL. */
struct plan *plan_free(struct plan *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct plan *, plan_free)

/** Release what @n owns; the struct is zeroed. */
void plan_names_release(struct plan_names *n);

/** Release what @e owns; the struct is zeroed. */
void plan_entry_release(struct plan_entry *e);

#endif /* S2C_PLAN_PLAN_H */
