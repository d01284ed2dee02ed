/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "captable.h"
#include "db.h"
#include "lint.h"
#include "override.h"
#include "common.h"

/* A set written without capability names ("=eip", "=ep") names them all. */
static bool names_none(const char *text)
{
	return text && !strstr(text, "cap_");
}

/* Does @text name @cap ("cap_sys_admin", in any case) as a word of its own? */
static bool names_cap(const char *text, const char *cap)
{
	size_t n = strlen(cap);

	for (const char *p = text; (p = strcasestr(p, cap)); p++) {
		bool before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
		if (!before && !after)
			return true;
	}
	return false;
}

/*
 * @accepted_risk accepts a set whose root-equivalent capabilities are @root:
 * it must name each of them, so that a capability added to the set later is
 * not accepted by a sentence written for the others.  Returns the names it
 * leaves out ("cap_a,cap_b"), "" when none, or NULL when memory ran out.
 */
static char *unnamed_caps(const struct rules_db *db, const char *accepted_risk, uint64_t root)
{
	uint64_t missing = 0;

	for (unsigned b = 0; b < 64; b++) {
		const char *name = db->caps.caps[b].name;
		if ((root & S2C_CAPMASK(b)) && (!name || !names_cap(accepted_risk, name)))
			missing |= S2C_CAPMASK(b);
	}
	return missing ? fcaps_mask_names(missing) : strdup("");
}

/* One migration to @caps (@text as written) at @where in @file: a problem unless
 * @accepted_risk says why, naming each root-equivalent capability it accepts. */
static int check_set(const struct rules_db *db, const char *file, const char *accepted_risk,
		     const char *where, const struct fcaps *caps, const char *text, bool *risky,
		     struct rules_problems *out)
{
	uint64_t mask = caps->permitted | caps->inheritable;
	enum risk risk = captable_risk(&db->caps, mask);
	_cleanup_free_ char *names = NULL, *msg = NULL;
	int n;

	if (risk < RISK_DANGEROUS)
		return 0;
	*risky = true;
	if (accepted_risk) {
		names = unnamed_caps(db, accepted_risk, captable_with_risk(&db->caps, mask, RISK_ROOT));
		if (!names)
			return -ENOMEM;
		if (!*names)
			return 0;
		n = asprintf(&msg, "%s: %s: accepted_risk does not name %s, which '%s' grants "
			     "(root-equivalent); say why each root-equivalent capability is accepted",
			     file, where, names, text);
	} else if (names_none(text)) {
		n = asprintf(&msg, "%s: %s: '%s' names no capability, so it grants every one of "
			     "them: setuid in disguise; name the capabilities the program needs", file,
			     where, text);
	} else {
		names = fcaps_mask_names(captable_with_risk(&db->caps, mask, risk));
		if (!names)
			return -ENOMEM;
		n = asprintf(&msg, "%s: %s: migrating to '%s' gives %s %s%s; keep the program "
			     "set-ID, or say in accepted_risk why the risk is accepted", file, where,
			     text, names, risk == RISK_ROOT ? "(root-equivalent)" : "(graded dangerous)",
			     risk == RISK_ROOT ? ": setuid in disguise" : "");
	}
	if (n < 0)
		return -ENOMEM;
	return rules_problems_add(out, msg);
}

static int lint_rule(const struct rules_db *db, const struct rule *r, struct rules_problems *out)
{
	char where[600];
	bool risky = false;
	int ret = 0;

	if (r->verdict == VERDICT_MIGRATE && r->has_caps) {
		(void)snprintf(where, sizeof(where), "%s.caps", r->where);
		ret = check_set(db, r->file, r->accepted_risk, where, &r->caps, r->caps_text,
				&risky, out);
	}
	for (size_t i = 0; ret == 0 && i < r->n_conditions; i++) {
		const struct rule_condition *c = &r->conditions[i];
		if (c->verdict != VERDICT_MIGRATE)
			continue;
		(void)snprintf(where, sizeof(where), "%s.conditions[%zu]%s", r->where, i,
			       c->has_caps ? ".caps" : " (the rule's caps)");
		ret = c->has_caps ? check_set(db, r->file, r->accepted_risk, where, &c->caps,
					      c->caps_text, &risky, out) :
		      r->has_caps ? check_set(db, r->file, r->accepted_risk, where, &r->caps,
					      r->caps_text, &risky, out) : 0;
	}
	if (ret == 0 && r->accepted_risk && !risky) {
		_cleanup_free_ char *msg = NULL;
		if (asprintf(&msg, "%s: %s.accepted_risk: the rule migrates to no root-equivalent or "
			     "dangerous set, so there is no risk to accept; remove it", r->file,
			     r->where) < 0)
			return -ENOMEM;
		ret = rules_problems_add(out, msg);
	}
	return ret;
}

/* An override is checked as a rule is: its own accepted_risk for its own set. */
static int lint_override(const struct rules_db *db, const struct rule_override *o,
			 struct rules_problems *out)
{
	_cleanup_free_ char *msg = NULL;
	char where[96];
	bool risky = false;
	int ret = 0;

	if (o->verdict == VERDICT_MIGRATE && o->has_caps) {
		(void)snprintf(where, sizeof(where), "%s.caps", o->where);
		ret = check_set(db, o->file, o->accepted_risk, where, &o->caps, o->caps_text, &risky,
				out);
	}
	if (ret < 0 || !o->accepted_risk || risky)
		return ret;
	if (asprintf(&msg, "%s: %s.accepted_risk: the override migrates to no root-equivalent or "
		     "dangerous set, so there is no risk to accept; remove it", o->file, o->where) < 0)
		return -ENOMEM;
	return rules_problems_add(out, msg);
}

int lint_rules(const struct rules_db *db, struct rules_problems *out)
{
	int r = 0;

	for (size_t i = 0; i < db->n && r == 0; i++)
		r = lint_rule(db, db->rules[i], out);
	for (size_t i = 0; i < db->n_overrides && r == 0; i++)
		r = lint_override(db, &db->overrides[i], out);
	return r;
}
