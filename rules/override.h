/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Local overrides of a rule's verdict: one line in a rules file of any layer
 * (usually /etc/suid2cap/rules.d) that changes what a rule decides without
 * copying its match, sources and texts:
 *
 *   "overrides": [
 *     {"override": "iputils.ping", "verdict": "keep",
 *      "reason": "This site keeps ping setuid root until the agent is replaced."}
 *   ]
 *
 * An override names the rule by id (an unknown id is an error), a verdict
 * (keep, drop or migrate), the capabilities of a migration ("caps", migrate
 * only), its reason, and "accepted_risk" where a migration's set is graded
 * dangerous or root-equivalent (rules lint checks it as it checks a rule's,
 * rules/lint.h).
 * The override replaces the verdict the rule (with its conditions) reaches
 * for a file; everything after that is the engine's as for a rule: the
 * effective bit for capability-dumb programs, the state after, the
 * container's bounding set and the privilege order of rules/privcheck, which
 * turns an override that would give a file more privilege into keep or
 * review like any rule.  Facts that decide before any rule (a script, a
 * nosuid mount, a malformed attribute) are not overridden.
 *
 * A later layer's override of the same rule replaces an earlier one; two
 * overrides of one rule in one layer are an error.  Overrides are part of the
 * database: they live in rules_db::overrides, their strings borrowed from the
 * loaded documents.
 */
#ifndef S2C_RULES_OVERRIDE_H
#define S2C_RULES_OVERRIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "db.h"
#include "fcaps.h"

struct decision;
struct json_object;
struct jpath;
struct s2c_error;

/** One override.  Strings are borrowed from the loaded JSON and rules_db::files. */
struct rule_override {
	const char *rule_id;        /**< the rule it overrides */
	enum verdict verdict;       /**< keep, drop or migrate */
	bool has_caps;              /**< migrate: the capabilities */
	struct fcaps caps;
	const char *caps_text;
	const char *reason;
	const char *accepted_risk;  /**< why a dangerous or root-equivalent set is accepted, or NULL */
	const char *file;           /**< the rules file it is in, for messages and reports */
	char where[64];             /**< "$.overrides[0]" */
	size_t layer;               /**< index of its layer in rules_db::layers */
	const struct rule *rule;    /**< the rule it overrides, set by override_resolve() */
};

/**
 * Read the optional "overrides" array of the rules file @doc (at @p, the
 * file's root path, named @display, loaded as layer @layer) into
 * @db->overrides.  @has_rules: the file has a "rules" array; a file with
 * neither is an error.  With @collect (rules lint) a bad override is
 * recorded there and skipped.
 * Returns 0, -EINVAL with "file: $.overrides[i]...: message" in @err, or -ENOMEM.
 */
int override_load_file(struct rules_db *db, struct json_object *doc, const struct jpath *p,
		       const char *display, size_t layer, bool has_rules,
		       struct rules_problems *collect, struct s2c_error *err);

/**
 * After every layer is loaded and the rules sorted: find each override's
 * rule (an unknown id is an error), check its capabilities against the
 * capability table, and keep only the last layer's override of each rule.
 * With @collect, problems are recorded and the bad overrides dropped.
 * Returns 0, -EINVAL with the message in @err, or -ENOMEM.
 */
int override_resolve(struct rules_db *db, struct rules_problems *collect, struct s2c_error *err);

/** The override in force for the rule @rule_id, or NULL. */
const struct rule_override *override_find(const struct rules_db *db, const char *rule_id);

/**
 * Apply the override of @d's rule, if there is one, to the decision the rule
 * made: verdict, reason, confidence and capabilities (with the effective bit
 * when the program is not capability-aware, @aware, as for a rule);
 * d->override and d->overridden record it.  Call it after the rule decided
 * and before the state after is worked out.
 * Returns 0 or -ENOMEM.
 */
int override_apply(const struct rules_db *db, struct decision *d, bool aware);

#endif /* S2C_RULES_OVERRIDE_H */
