/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rules lint: the checks beyond what the loader refuses.  The loader accepts
 * any capability set a rule names; a migration to a set graded root-equivalent
 * or dangerous in the capability table (a set written "=eip" with no names is
 * every capability) is a mistake unless the rule says why the risk is
 * accepted (accepted_risk), naming each root-equivalent capability of the set
 * as a word of its own (in any case), so that a capability added to the set
 * later is not accepted by a sentence written for the others; accepted_risk
 * on a rule without such a set is stale.  Local overrides (rules/override.h) are checked the same way, each
 * with its own accepted_risk.
 */
#ifndef S2C_RULES_LINT_H
#define S2C_RULES_LINT_H

struct rules_db;
struct rules_problems;

/**
 * Check every rule and override of @db and record each problem in @out as
 * "file: $.path: message".  Returns 0 or -ENOMEM.
 */
int lint_rules(const struct rules_db *db, struct rules_problems *out);

#endif /* S2C_RULES_LINT_H */
