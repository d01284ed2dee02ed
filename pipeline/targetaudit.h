/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audit of packages and images after pkg/ read them: every privileged file
 * of every target decided through decide_all() (rules/decide.h), the origin of
 * each (as packed, the fallback, the install-time actions, the libraries and
 * who provides them), the plan of each target in its own packaging, and all of
 * it as the report's model (report/audit.h), which cli/ completes and writes.
 */
#ifndef S2C_PIPELINE_TARGETAUDIT_H
#define S2C_PIPELINE_TARGETAUDIT_H

#include <stddef.h>

#include "audit.h"

struct decide_target;
struct host;
struct rules_db;
struct s2c_error;
struct target;
struct tstate;

/** A package or image audit: the report's model and what it points into. */
struct targetaudit {
	struct audit au;              /**< root, completeness, db, host, decisions, targets and
					   origins; cli/ adds argv, identity, waivers */
	struct target **targets;      /**< the targets (owned; the array borrowed), sorted by
					   name, version, architecture, source */
	size_t n;
	struct tstate *ts;            /**< per target: decisions, origins, plan, notes */
	struct audit_target *at;
	struct decision **v;
	struct audit_origin *origins;
	struct host *own_host;        /**< the facts of an empty root when nothing is privileged */
};

/**
 * Decide about the privileged files of the @n @targets (the targets taken over,
 * even on error; the array is the caller's and is sorted) with @db (borrowed; the result points into it) and @t (the user's
 * --kernel and --bounding-set; its package fields are set here per target).
 * A target whose installed state cannot be worked out is recorded as
 * unreadable (target_fail()).  @empty_rootfd: an empty root whose facts the
 * report carries when no target has a privileged file.
 * Returns 0 with @out filled, -ENOBUFS without deciding when a target passed
 * the memory budget (those with error_code -ENOBUFS in @out->targets to be
 * named), or -errno with @err.  In every case release @out with
 * targetaudit_release().
 */
int targetaudit_build(const struct rules_db *db, struct target **targets, size_t n,
		      const struct decide_target *t, int empty_rootfd, struct targetaudit *out,
		      struct s2c_error *err);

/** Free what targetaudit_build() made, the targets included; the struct is zeroed. */
void targetaudit_release(struct targetaudit *ta);

#endif /* S2C_PIPELINE_TARGETAUDIT_H */
