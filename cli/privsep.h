/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Privilege separation for the verbs that change files (apply, migrate,
 * verify --fix).
 *
 * Walking a tree and reading its binaries with libelf is where untrusted
 * bytes are parsed.  That work runs in a child process that keeps only
 * CAP_DAC_READ_SEARCH, drops the rest of the bounding set and sets
 * no_new_privs; it decides and hands the parent a plan as JSON over a pipe.
 * The parent reads it with the strict plan loader, checks every change again
 * against the privilege order on the file itself, and keeps only what
 * changing files needs.  A compromised child can at most propose changes the
 * parent refuses.
 */
#ifndef S2C_CLI_PRIVSEP_H
#define S2C_CLI_PRIVSEP_H

#include <stdbool.h>
#include <stdio.h>

#include "hash.h"

struct dbargs;
struct plan;
struct rules_db;
struct s2c_ctx;
struct scanargs;

/** What the deciding child does. */
struct privsep_job {
	const struct dbargs *dbargs;    /**< --kernel and friends */
	struct rules_db *db;            /**< loaded (and trust-checked) by the parent */
	const struct scanargs *scan;    /**< root, start paths, walk flags */
	struct s2c_ctx *ctx;
	bool verbose;                   /**< the child says what it kept (on stderr) */
	bool hold_unsafe;               /**< hold back changes below unsafe directories, with a
					     warning (plan/parents.h), as `plan` does */
	bool plan_limits;               /**< record what the scan left out and, on the running
					     system, hold back unpackaged files unless
					     --include-unpackaged (scanargs_plan_limits()) */
};

/**
 * Scan, decide and plan in a narrowed child, and read the plan it hands
 * over.  The child's messages go to stderr as usual.
 * @ret_plan        the plan (free with plan_free())
 * @ret_sha256      SHA-256 of the plan's JSON text (for the journal)
 * @ret_incomplete  the scan could not read everything (its warnings were printed)
 * Returns 0, or an exit code after printing.
 */
int privsep_plan(const struct privsep_job *job, struct plan **ret_plan,
		 char ret_sha256[static HASH_HEX_LEN], bool *ret_incomplete);

#endif /* S2C_CLI_PRIVSEP_H */
