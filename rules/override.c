/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "db.h"
#include "engine.h"
#include "jsonread.h"
#include "override.h"
#include "ruleparse.h"
#include "util.h"
#include "common.h"

/* Shortest accepted_risk, as for a rule: a sentence, not a token. */
#define ACCEPTED_RISK_MIN 20

/* With a collector (rules lint), record the problem and go on; else fail with it. */
static int problem(struct rules_problems *collect, int r, struct s2c_error *err)
{
	if (r >= 0 || !collect || r == -ENOMEM)
		return r;
	r = rules_problems_add(collect, err->msg);
	s2c_error_clear(err);
	return r;
}

/* One override object at @p. */
static int parse_one(struct json_object *o, const struct jpath *p, struct rule_override *ov,
		     struct s2c_error *err)
{
	static const char *const keys[] = { "override", "verdict", "caps", "reason",
					    "accepted_risk", NULL };
	static const char *const req[] = { "override", "verdict", "reason", NULL };
	int r = jsonread_keys(o, p, keys, req, err);

	if (r == 0)
		r = jsonread_string(o, p, "override", true, &ov->rule_id, err);
	if (r == 0 && !*ov->rule_id) {
		struct jpath kp = jpath_key(p, "override");
		r = jpath_error(&kp, err, "names no rule: give the id of the rule to override");
	}
	if (r == 0)
		r = ruleparse_verdict(o, p, false, &ov->verdict, err);
	if (r == 0)
		r = ruleparse_caps(o, p, "caps", &ov->caps_text, &ov->caps, &ov->has_caps, err);
	if (r == 0 && ov->verdict == VERDICT_MIGRATE && !ov->has_caps)
		r = jpath_error(p, err, "verdict 'migrate' needs 'caps'");
	if (r == 0 && ov->verdict != VERDICT_MIGRATE && ov->has_caps)
		r = jpath_error(p, err, "'caps' belongs to verdict 'migrate' only");
	if (r == 0)
		r = jsonread_string(o, p, "reason", true, &ov->reason, err);
	if (r == 0 && !ov->reason[strspn(ov->reason, " \t")]) {
		struct jpath kp = jpath_key(p, "reason");
		r = jpath_error(&kp, err, "empty: say why this site decides differently");
	}
	if (r == 0)
		r = jsonread_string(o, p, "accepted_risk", false, &ov->accepted_risk, err);
	if (r == 0 && ov->accepted_risk && strlen(ov->accepted_risk) < ACCEPTED_RISK_MIN) {
		struct jpath kp = jpath_key(p, "accepted_risk");
		r = jpath_error(&kp, err, "give the reason the risk is accepted, in a sentence");
	}
	return r;
}

static int append(struct rules_db *db, const struct rule_override *ov)
{
	struct rule_override *nv = realloc(db->overrides, (db->n_overrides + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	db->overrides = nv;
	nv[db->n_overrides++] = *ov;
	return 0;
}

/* Two overrides of one rule in one layer: which one was meant is not known. */
static int check_duplicate(const struct rules_db *db, const struct rule_override *ov,
			   const struct jpath *p, struct s2c_error *err)
{
	for (size_t i = 0; i < db->n_overrides; i++) {
		const struct rule_override *o = &db->overrides[i];
		if (o->layer == ov->layer && s2c_streq(o->rule_id, ov->rule_id))
			return jpath_error(p, err, "a second override of rule '%s' (also in %s %s)",
					   ov->rule_id, o->file, o->where);
	}
	return 0;
}

int override_load_file(struct rules_db *db, struct json_object *doc, const struct jpath *p,
		       const char *display, size_t layer, bool has_rules,
		       struct rules_problems *collect, struct s2c_error *err)
{
	struct json_object *arr = NULL;
	struct jpath ap = jpath_key(p, "overrides");
	int r = jsonread_array(doc, p, "overrides", false, &arr, err);

	if (r < 0)
		return r;
	if (!arr && !has_rules)
		return jpath_error(p, err, "needs 'rules' or 'overrides'");
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		struct jpath ip = jpath_index(&ap, i);
		struct rule_override ov = { .file = display, .layer = layer };

		(void)snprintf(ov.where, sizeof(ov.where), "$.overrides[%zu]", i);
		r = parse_one(json_object_array_get_idx(arr, i), &ip, &ov, err);
		if (r == 0)
			r = check_duplicate(db, &ov, &ip, err);
		if (r == 0)
			r = append(db, &ov);
		r = problem(collect, r, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Every capability the override names is in the capability table. */
static int check_caps_known(const struct rules_db *db, const struct rule_override *ov,
			    struct s2c_error *err)
{
	uint64_t m = ov->caps.permitted | ov->caps.inheritable;

	for (unsigned b = 0; b < 64; b++)
		if ((m & S2C_CAPMASK(b)) && !db->caps.caps[b].known)
			return s2c_error_set(err, -EINVAL, "%s: %s.caps: capability %u is not in the "
					     "capability table", ov->file, ov->where, b);
	return 0;
}

/* A later layer's override of the same rule replaces it. */
static bool replaced_later(const struct rules_db *db, size_t i)
{
	for (size_t j = i + 1; j < db->n_overrides; j++)
		if (db->overrides[j].layer > db->overrides[i].layer &&
		    s2c_streq(db->overrides[j].rule_id, db->overrides[i].rule_id))
			return true;
	return false;
}

int override_resolve(struct rules_db *db, struct rules_problems *collect, struct s2c_error *err)
{
	size_t kept = 0;
	int r = 0;

	for (size_t i = 0; i < db->n_overrides; i++) {
		struct rule_override *ov = &db->overrides[i];

		if (replaced_later(db, i))
			continue;
		ov->rule = rules_db_find(db, ov->rule_id);
		if (!ov->rule)
			r = s2c_error_set(err, -EINVAL, "%s: %s.override: no rule '%s' to override "
					  "(suid2cap rules list shows the ids)", ov->file, ov->where,
					  ov->rule_id);
		else
			r = check_caps_known(db, ov, err);
		if (r == 0) {
			db->overrides[kept++] = *ov;
			continue;
		}
		r = problem(collect, r, err);
		if (r < 0)
			return r;
	}
	db->n_overrides = kept;
	return 0;
}

const struct rule_override *override_find(const struct rules_db *db, const char *rule_id)
{
	for (size_t i = 0; i < db->n_overrides; i++)
		if (db->overrides[i].rule && s2c_streq(db->overrides[i].rule_id, rule_id))
			return &db->overrides[i];
	return NULL;
}

static int add_warning(struct decision *d, const char *fmt, ...) S2C_PRINTF(2, 3);
static int add_warning(struct decision *d, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = strdup_vprintf(fmt, ap);
	va_end(ap);
	return strv_push(&d->warnings, &d->n_warnings, s);
}

/* The override's set, with the effective bit for a program that cannot raise it. */
static int set_caps(struct decision *d, const struct rule_override *ov, bool aware)
{
	struct fcaps c = ov->caps;
	char *text;

	if (!c.effective && !aware && d->rule->aware != 1)
		c.effective = true;
	text = fcaps_to_text(&c);
	if (!text)
		return -ENOMEM;
	free(d->caps_text);
	d->caps = c;
	d->caps_text = text;
	d->has_caps = true;
	if (c.effective == ov->caps.effective)
		return 0;
	return add_warning(d, "the local override gives '%s' but the program is capability-dumb (it "
			   "does not link libcap or libcap-ng), so the effective bit is set: '%s'",
			   ov->caps_text, d->caps_text);
}

int override_apply(const struct rules_db *db, struct decision *d, bool aware)
{
	const struct rule_override *ov = d->rule ? override_find(db, d->rule->id) : NULL;
	char *reason;

	if (!ov)
		return 0;
	reason = strdup(ov->reason);
	if (!reason)
		return -ENOMEM;
	d->override = ov;
	d->overridden = d->verdict;
	d->verdict = ov->verdict;
	free(d->reason);
	d->reason = reason;
	d->confidence = CONFIDENCE_HIGH;
	/* The override decides, not a condition: the state after is the rule's own. */
	d->cond = NULL;
	for (size_t i = 0; i < d->n_conditions; i++)
		d->conditions[i].chosen = false;
	if (ov->verdict == VERDICT_MIGRATE)
		return set_caps(d, ov, aware);
	free(d->caps_text);
	d->caps_text = NULL;
	d->caps = (struct fcaps){ 0 };
	d->has_caps = false;
	return 0;
}
