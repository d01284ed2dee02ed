/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What apply, migrate, rollback and verify share: the capabilities a change
 * needs, smoke-test options, the root of a plan, and each entry's outcome,
 * printed as a line or, with --format json, collected into the result
 * document (report/resultjson.h) that the verb writes at its end.
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
struct resultjson;

/** --format of the apply family. */
enum applyargs_format {
	APPLYARGS_TEXT,                /**< lines for people (the default) */
	APPLYARGS_JSON,                /**< one result document on stdout */
};

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
	int format;                    /**< enum applyargs_format */
	struct resultjson *result;     /**< with --format json, once started: the outcomes */
	const char *action;            /**< the result action of the verb's own entries */
	const char *root;              /**< the root the reported paths are beneath, as
					    messages name it; NULL or "/" is not named */
	struct opt opts[12];           /**< the options above, for a verb's table (OPT_TABLE) */
	struct opt smoke_opts[4];      /**< the smoke-test options alone (verify --fix) */
	struct opt undo_opts[4];       /**< --only, --quiet and --fault (rollback) */
	struct opt format_opts[2];     /**< --format, for every verb of the family */
};

/**
 * Defaults and the option tables: @a->opts (--only, --no-smoke, --smoke,
 * --smoke-user, --smoke-timeout, --allow-hardlinks, --allow-root-equivalent,
 * --quiet, --verbose, and --fault in test builds), @a->smoke_opts,
 * @a->undo_opts and @a->format_opts (--format text|json).
 */
void applyargs_init(struct applyargs *a);

/**
 * With --format json, start the result document of @verb ("apply",
 * "migrate", "rollback" or "verify") on @root (resolved to an absolute path
 * when it can be); @fix: verify repairs too.  A verb starts it once its
 * plan is read and its root opened: from then on the document is written,
 * whatever happens (applyargs_result_finish()).
 * Without --format json it does nothing.
 * Returns 0, or an exit code after printing.
 */
int applyargs_result_start(struct applyargs *a, const char *verb, const char *root, bool fix);

/**
 * The end of a verb: with a started result, close the entries a failed run
 * left open, write the document to stdout with @ex as its exit status
 * (owner and group names as the target @root has them: from its passwd and
 * group files, or from the system for the running one) and free it.
 * Returns @ex, or S2C_EXIT_FAILURE when the document cannot be written.
 */
int applyargs_result_finish(struct applyargs *a, const char *root, int ex);

/**
 * The capabilities changing files needs, for @p (CAP_CHOWN only when an
 * owner or group changes; the smoke-test ones only with @smoke).
 */
uint64_t applyargs_caps(const struct plan *p, bool smoke);

/**
 * Run @p beneath @rootfd: narrow privileges, resolve the smoke user, apply
 * (every change checked against the privilege order with @caps), print each
 * outcome and a summary, or record them in @a->result; the warnings name
 * the plan's root (@a->root is set to it).  @only, when not NULL, replaces
 * --only (verify --fix).
 * Returns an exit code.
 */
int applyargs_apply(struct applyargs *a, int rootfd, const struct plan *p,
		    const char *plan_sha256, const struct captable *caps,
		    const char *const *only);

/**
 * The report callback (plan/apply.h) with the struct applyargs as @userdata:
 * problems as warnings on stderr, naming @a->root when it is not "/" (the
 * paths are beneath it); every outcome as a line on stdout (unless --quiet)
 * or, with a started result, as an event of @a->action ("recover" for what
 * an interrupted earlier run left).
 */
void applyargs_report(void *userdata, const struct apply_report *r);

/** Exit code for the counts of a run. */
int applyargs_exit(const struct apply_result *r);

#endif /* S2C_CLI_APPLYARGS_H */
