/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A rule's conditions on the target, for the engine (rules/engine.h): each
 * `when` is evaluated against the target's facts (rules/host.h: kernel
 * release, sysctl values, distribution, files) and the file's (set-user-ID
 * root, the program's version), with three-valued logic for what cannot be
 * known (common/tri.h); the first condition that holds replaces the rule's
 * verdict, capabilities, needs and state after.
 */
#ifndef S2C_RULES_CONDITIONS_H
#define S2C_RULES_CONDITIONS_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

struct decision;
struct engine;

/** What a rule decides about a file once its conditions are evaluated. */
struct rule_outcome {
	enum verdict verdict;
	const struct fcaps *caps;     /**< the capability set, NULL for none (always for drop) */
	const char *caps_text;        /**< its text in the rule, or NULL */
	uint64_t needs;               /**< capabilities a migration would need (keep, review) */
	const char *reason;
	const char *owner, *group;    /**< the state after a migration, or NULL */
	int mode;                     /**< ... or -1 */
};

/**
 * What @rule decides when its condition @c (one of its conditions, or NULL
 * when none holds) holds: @c's verdict, reason and, where @c gives them,
 * capabilities, needs, owner, group and mode; the rule's otherwise.
 * Everything in @ret is borrowed from @rule.
 */
void conditions_outcome(const struct rule *rule, const struct rule_condition *c,
			struct rule_outcome *ret);

/**
 * Evaluate every condition of @rule for @d and record each in
 * d->conditions, with the text saying what was compared and its result.
 * @ret  the first condition that holds (marked chosen), or NULL.
 * Returns 0 or -ENOMEM.
 */
int conditions_eval(const struct engine *e, const struct rule *rule, struct decision *d,
		    const struct rule_condition **ret);

/**
 * The first condition of @rule that holds for @d, evaluated as
 * conditions_eval() does but without recording anything (for comparing
 * rules that tie).  @ret gets it, or NULL.  Returns 0 or -ENOMEM.
 */
int conditions_first(const struct engine *e, const struct decision *d, const struct rule *rule,
		     const struct rule_condition **ret);

/**
 * The program's version for @rule (or NULL): the version after the rule's
 * prefix in the binary, else the upstream part of the owning package's
 * version (d->package_version).
 * @ret         a new string, or NULL when neither is known.
 * @ret_source  "binary" or "package" (static), or NULL with @ret.
 * Returns 0 or -ENOMEM.
 */
int conditions_program_version(const struct decision *d, const struct rule *rule, char **ret,
			       const char **ret_source);

/**
 * The condition @c in words, as a rule states it, without evaluating it:
 * "when net.ipv4.ping_group_range covers 0..2147483647: drop", "when the
 * kernel is below 5.17: migrate cap_net_raw,cap_net_admin=p".  Into @buf
 * (cut at @size).
 */
void conditions_describe(const struct rule_condition *c, char *buf, size_t size);

#endif /* S2C_RULES_CONDITIONS_H */
