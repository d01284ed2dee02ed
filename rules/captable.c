/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "captable.h"
#include "fcaps.h"
#include "jsonread.h"
#include "strtable.h"
#include "util.h"
#include "common.h"

static const char *const risk_names[_RISK_MAX] = { "none", "low", "dangerous", "root" };
static const char *const strength_names[_STRENGTH_MAX] = { "weak", "medium", "strong" };
static const char *const kind_names[_EVIDENCE_KIND_MAX] = { "needs", "aware", "unknown", "drops" };

DEFINE_STRING_TABLE_TO_NAME(risk_name, enum risk, risk_names, "invalid")

DEFINE_STRING_TABLE_TO_NAME(strength_name, enum strength, strength_names, "invalid")

DEFINE_STRING_TABLE_FROM_NAME(risk_from_name, enum risk, risk_names)

/* A capability the table does not know (a newer kernel's) is taken as root-equivalent. */
static enum risk cap_risk(const struct captable *t, unsigned i)
{
	return t->caps[i].known ? t->caps[i].risk : RISK_ROOT;
}

enum risk captable_risk(const struct captable *t, uint64_t mask)
{
	enum risk r = RISK_NONE;

	for (unsigned i = 0; i < 64; i++)
		if ((mask & S2C_CAPMASK(i)) && cap_risk(t, i) > r)
			r = cap_risk(t, i);
	return r;
}

uint64_t captable_with_risk(const struct captable *t, uint64_t mask, enum risk risk)
{
	uint64_t out = 0;

	for (unsigned i = 0; i < 64; i++)
		if ((mask & S2C_CAPMASK(i)) && cap_risk(t, i) == risk)
			out |= S2C_CAPMASK(i);
	return out;
}

/* "cap_net_raw,cap_net_admin" (names only, no flags) into a mask. */
static int parse_names(const char *s, const struct jpath *p, uint64_t *ret, struct s2c_error *err)
{
	uint64_t mask = 0;
	const char *q = s;

	if (!*s)
		return jpath_error(p, err, "empty capability list");
	while (*q) {
		size_t len = strcspn(q, ",");
		char name[64];
		int c;

		if (len == 0 || len >= sizeof(name))
			return jpath_error(p, err, "malformed capability list '%s'", s);
		memcpy(name, q, len);
		name[len] = '\0';
		c = fcaps_from_name(name);
		if (c < 0 || strncmp(name, "cap_", 4) != 0)
			return jpath_error(p, err, "unknown capability '%s'", name);
		mask |= S2C_CAPMASK(c);
		q += len;
		if (*q == ',')
			q++;
	}
	*ret = mask;
	return 0;
}

static int load_caps(struct captable *t, struct json_object *arr, const struct jpath *ap,
		     struct s2c_error *err)
{
	static const char *const keys[] = { "name", "number", "risk", "situational", "reason",
					    "sources", NULL };
	static const char *const req[] = { "name", "number", "risk", "reason", "sources", NULL };
	size_t n = json_object_array_length(arr);

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct jpath p = jpath_index(ap, i);
		const char *name = NULL, *risk = NULL, *reason = NULL;
		const char **sources = NULL;
		int64_t number = -1;
		bool situational = false;
		int c, r;

		r = jsonread_keys(o, &p, keys, req, err);
		if (r == 0)
			r = jsonread_string(o, &p, "name", true, &name, err);
		if (r == 0)
			r = jsonread_int(o, &p, "number", true, 0, 63, &number, err);
		if (r == 0)
			r = jsonread_string(o, &p, "risk", true, &risk, err);
		if (r == 0)
			r = jsonread_bool(o, &p, "situational", false, &situational, err);
		if (r == 0)
			r = jsonread_string(o, &p, "reason", true, &reason, err);
		if (r == 0)
			r = jsonread_strv(o, &p, "sources", true, 1, &sources, NULL, err);
		free(sources);
		if (r < 0)
			return r;
		c = fcaps_from_name(name);
		if (c < 0 || strncmp(name, "cap_", 4) != 0)
			return jpath_error(&p, err, "unknown capability '%s'", name);
		if (c != number)
			return jpath_error(&p, err, "'%s' is capability %d, not %lld", name, c,
					   (long long)number);
		if (t->caps[c].known)
			return jpath_error(&p, err, "capability '%s' listed twice", name);
		if (risk_from_name(risk) < RISK_LOW)
			return jpath_error(&p, err, "unknown risk '%s': expected low, dangerous or root",
					   risk);
		t->caps[c] = (struct cap_info){ .name = name, .risk = risk_from_name(risk),
						.situational = situational, .reason = reason,
						.known = true };
	}
	return 0;
}

static int load_evidence(struct captable *t, struct json_object *arr, const struct jpath *ap,
			 struct s2c_error *err)
{
	static const char *const keys[] = { "symbols", "library", "caps", "strength", "kind",
					    "note", NULL };
	static const char *const req[] = { "strength", "kind", "note", NULL };
	size_t n = json_object_array_length(arr);

	t->evidence = calloc(n ? n : 1, sizeof(*t->evidence));
	if (!t->evidence)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct jpath p = jpath_index(ap, i);
		struct evidence_rule *e = &t->evidence[i];
		const char *caps = NULL, *strength = NULL, *kind = NULL;
		int r;

		r = jsonread_keys(o, &p, keys, req, err);
		if (r == 0)
			r = jsonread_strv(o, &p, "symbols", false, 1, &e->symbols, NULL, err);
		t->n_evidence = i + 1;  /* so release frees symbols */
		if (r == 0)
			r = jsonread_string(o, &p, "library", false, &e->library, err);
		if (r == 0)
			r = jsonread_string(o, &p, "caps", false, &caps, err);
		if (r == 0)
			r = jsonread_string(o, &p, "strength", true, &strength, err);
		if (r == 0)
			r = jsonread_string(o, &p, "kind", true, &kind, err);
		if (r == 0)
			r = jsonread_string(o, &p, "note", true, &e->note, err);
		if (r < 0)
			return r;
		if (caps) {
			struct jpath cp = jpath_key(&p, "caps");
			r = parse_names(caps, &cp, &e->caps, err);
			if (r < 0)
				return r;
		}
		e->strength = (enum strength)strtable_index(strength_names, _STRENGTH_MAX, strength);
		if ((int)e->strength < 0)
			return jpath_error(&p, err, "unknown strength '%s'", strength);
		e->kind = (enum evidence_kind)strtable_index(kind_names, _EVIDENCE_KIND_MAX, kind);
		if ((int)e->kind < 0)
			return jpath_error(&p, err, "unknown kind '%s'", kind);
		if (!e->symbols && !e->library)
			return jpath_error(&p, err, "needs 'symbols' or 'library'");
		if (e->kind == EVIDENCE_NEEDS && !e->caps)
			return jpath_error(&p, err, "kind 'needs' requires 'caps'");
	}
	return 0;
}

static int load_breakers(struct captable *t, struct json_object *arr, const struct jpath *ap,
			 struct s2c_error *err)
{
	static const char *const keys[] = { "strings", "symbols", "note", NULL };
	static const char *const req[] = { "note", NULL };
	size_t n = json_object_array_length(arr), total = 0;

	t->breakers = calloc(n ? n : 1, sizeof(*t->breakers));
	if (!t->breakers)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct jpath p = jpath_index(ap, i);
		struct breaker *b = &t->breakers[i];
		size_t ns = 0;
		int r;

		r = jsonread_keys(o, &p, keys, req, err);
		if (r == 0)
			r = jsonread_strv(o, &p, "strings", false, 1, &b->strings, &ns, err);
		t->n_breakers = i + 1;
		if (r == 0)
			r = jsonread_strv(o, &p, "symbols", false, 1, &b->symbols, NULL, err);
		if (r == 0)
			r = jsonread_string(o, &p, "note", true, &b->note, err);
		if (r < 0)
			return r;
		if (!b->strings && !b->symbols)
			return jpath_error(&p, err, "needs 'strings' or 'symbols'");
		total += ns;
	}
	t->all_strings = calloc(total + 1, sizeof(char *));
	if (!t->all_strings)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_breakers; i++)
		for (size_t j = 0; t->breakers[i].strings && t->breakers[i].strings[j]; j++)
			t->all_strings[t->n_strings++] = t->breakers[i].strings[j];
	return 0;
}

int captable_load(struct captable *t, struct json_object *doc, const char *file,
		  struct s2c_error *err)
{
	static const char *const keys[] = { "schema", "capabilities", "evidence", "breakers",
					    "general_libraries", NULL };
	static const char *const req[] = { "schema", "capabilities", NULL };
	struct json_object *caps = NULL, *ev = NULL, *br = NULL;
	struct jpath p, cp;
	int64_t schema = 0;
	int r;

	memset(t, 0, sizeof(*t));
	jpath_init(&p, file);
	r = jsonread_keys(doc, &p, keys, req, err);
	if (r == 0)
		r = jsonread_int(doc, &p, "schema", true, 1, 1, &schema, err);
	if (r == 0)
		r = jsonread_array(doc, &p, "capabilities", true, &caps, err);
	if (r == 0)
		r = jsonread_array(doc, &p, "evidence", false, &ev, err);
	if (r == 0)
		r = jsonread_array(doc, &p, "breakers", false, &br, err);
	if (r == 0)
		r = jsonread_strv(doc, &p, "general_libraries", false, 1, &t->general, NULL, err);
	for (size_t i = 0; r == 0 && t->general && t->general[i]; i++)
		if (!*t->general[i] || strchr(t->general[i], '/')) {
			struct jpath gp = jpath_key(&p, "general_libraries"), ip = jpath_index(&gp, i);
			r = jpath_error(&ip, err, "expected a library name or glob without '/'");
		}
	if (r < 0) {
		captable_release(t);
		return r;
	}
	cp = jpath_key(&p, "capabilities");
	r = load_caps(t, caps, &cp, err);
	if (r == 0 && ev) {
		cp = jpath_key(&p, "evidence");
		r = load_evidence(t, ev, &cp, err);
	}
	if (r == 0 && br) {
		cp = jpath_key(&p, "breakers");
		r = load_breakers(t, br, &cp, err);
	}
	if (r == 0 && !t->all_strings)
		t->all_strings = calloc(1, sizeof(char *));
	if (r == 0 && !t->all_strings)
		r = -ENOMEM;
	if (r < 0)
		captable_release(t);
	return r;
}

bool captable_general_library(const struct captable *t, const char *soname)
{
	for (size_t i = 0; t->general && t->general[i]; i++)
		if (s2c_fnmatch(t->general[i], soname, 0))
			return true;
	return false;
}

void captable_release(struct captable *t)
{
	for (size_t i = 0; i < t->n_evidence; i++)
		free(t->evidence[i].symbols);
	free(t->evidence);
	for (size_t i = 0; i < t->n_breakers; i++) {
		free(t->breakers[i].strings);
		free(t->breakers[i].symbols);
	}
	free(t->breakers);
	free(t->all_strings);
	free(t->general);
	memset(t, 0, sizeof(*t));
}
