/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One rule of the rules database (rules/db.h), parsed from its JSON object
 * and checked strictly: unknown or missing keys, ids, path globs and names,
 * capability texts (through libcap), verdicts with or without capabilities,
 * conditions and their `when` clauses, identify blocks, version prefixes,
 * smoke commands, distribution notes and sources.  The loader (rules/db.c)
 * does what needs more than one rule: layering, duplicate ids, overlaps.
 */
#ifndef S2C_RULES_RULEPARSE_H
#define S2C_RULES_RULEPARSE_H

#include <stdbool.h>

#include "db.h"

struct fcaps;
struct json_object;
struct jpath;
struct rule;
struct s2c_error;

/**
 * Parse the rule object @o, found at @p (e.g. "db/network.json",
 * "$.rules[3]"), into @rule, which must be zeroed except for rule::file and
 * rule::where.  Strings are borrowed from @o's document, which must outlive
 * @rule; the vectors are allocated (rules_db_free() frees them, also after
 * a failure).
 * Returns 0, -EINVAL with "file: $.path: message" in @err, or -ENOMEM.
 */
int ruleparse_rule(struct json_object *o, const struct jpath *p, struct rule *rule,
		   struct s2c_error *err);

/**
 * The capability text at @key of @o (absent: 0, nothing set), parsed with libcap into
 * @ret_caps; @ret_text borrows it and @ret_has is set.  An empty set is an error.
 * Returns 0, -EINVAL with the path in @err, or -ENOMEM.  Rules and overrides read their
 * capabilities with it.
 */
int ruleparse_caps(struct json_object *o, const struct jpath *p, const char *key,
		   const char **ret_text, struct fcaps *ret_caps, bool *ret_has,
		   struct s2c_error *err);

/**
 * The "verdict" of @o, required; "review" only with @review (an override decides, it
 * cannot ask for a review).  Returns 0, -EINVAL with the path in @err, or -ENOMEM.
 */
int ruleparse_verdict(struct json_object *o, const struct jpath *p, bool review,
		      enum verdict *ret, struct s2c_error *err);

#endif /* S2C_RULES_RULEPARSE_H */
