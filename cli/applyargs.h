/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What apply, migrate, rollback and verify share: the capabilities a change
 * needs, smoke-test options, the root of a plan, and the printing of each
 * entry's outcome.
 */
#ifndef S2C_CLI_APPLYARGS_H
#define S2C_CLI_APPLYARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "apply.h"
#include "opts.h"

struct captable;
struct plan;

/** Parsed options of the apply family. */
struct applyargs {
	struct opt_list only;          /**< --only paths */
	int smoke;                     /**< -1 default (live root only), 0, 1 */
	const char *smoke_user;
	unsigned smoke_timeout;
	bool allow_hardlinks;
	bool allow_root_equivalent;    /**< accept root-equivalent sets (journalled) */
	const char *fault;
	bool quiet;
	bool verbose;                  /**< also print the capabilities kept */
	struct opt opts[12];           /**< the options above, for a verb's table (OPT_TABLE) */
	struct opt smoke_opts[4];      /**< the smoke-test options alone (verify --fix) */
	struct opt undo_opts[4];       /**< --only, --quiet and --fault (rollback) */
};

/**
 * Defaults and the option tables: @a->opts (--only, --no-smoke, --smoke,
 * --smoke-user, --smoke-timeout, --allow-hardlinks, --allow-root-equivalent,
 * --quiet, --verbose, and --fault in test builds), @a->smoke_opts and
 * @a->undo_opts.
 */
void applyargs_init(struct applyargs *a);

/**
 * The capabilities changing files needs, for @p (CAP_CHOWN only when an
 * owner or group changes; the smoke-test ones only with @smoke).
 */
uint64_t applyargs_caps(const struct plan *p, bool smoke);

/**
 * Run @p beneath @rootfd: narrow privileges, resolve the smoke user, apply
 * (every change checked against the privilege order with @caps), print each
 * outcome and a summary.  @only, when not NULL, replaces --only (verify --fix).
 * Returns an exit code.
 */
int applyargs_apply(const struct applyargs *a, int rootfd, const struct plan *p,
		    const char *plan_sha256, const struct captable *caps,
		    const char *const *only);

/** How applyargs_report() prints: its userdata (NULL for the defaults). */
struct applyargs_reporter {
	bool quiet;                    /**< only what went wrong */
	const char *root;              /**< named in warnings when it is not "/" */
};

/**
 * Print one outcome line (report callback); what went wrong as a warning that
 * names the root the path is beneath, when that is not "/".
 */
void applyargs_report(void *userdata, const char *path, enum apply_event ev, const char *msg);

/** Exit code for the counts of a run. */
int applyargs_exit(const struct apply_result *r);

#endif /* S2C_CLI_APPLYARGS_H */
