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

struct captable;
struct plan;

/** Long-option ids of the apply family (0x300 range). */
enum {
	ARG_ONLY = 0x300,
	ARG_NO_SMOKE,
	ARG_SMOKE,
	ARG_SMOKE_USER,
	ARG_SMOKE_TIMEOUT,
	ARG_ALLOW_HARDLINKS,
	ARG_FAULT,
	ARG_YES,
	ARG_DRY_RUN,
	ARG_LAST,
	ARG_FIX,
	ARG_INSTALL_HOOK,
	ARG_REMOVE_HOOK,
	ARG_QUIET,
	ARG_VERBOSE,
	ARG_ALLOW_ROOT_EQUIVALENT,
	ARG_LIST,
	ARG_FORGET,
	ARG_HOOK_PROGRAM,
};

/** Parsed options of the apply family. */
struct applyargs {
	const char *only[64];
	size_t n_only;
	int smoke;                     /**< -1 default (live root only), 0, 1 */
	const char *smoke_user;
	unsigned smoke_timeout;
	bool allow_hardlinks;
	bool allow_root_equivalent;    /**< accept root-equivalent sets (journalled) */
	const char *fault;
	bool quiet;
	bool verbose;                  /**< also print the capabilities kept */
};

void applyargs_init(struct applyargs *a);

/** Handle a shared option; 1 handled, 0 not, -S2C_EXIT_USAGE on error. */
int applyargs_option(struct applyargs *a, int opt, const char *arg, const char *verb);

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

/** Print one outcome line (report callback). */
void applyargs_report(void *userdata, const char *path, enum apply_event ev, const char *msg);

/** Exit code for the counts of a run. */
int applyargs_exit(const struct apply_result *r);

#endif /* S2C_CLI_APPLYARGS_H */
