/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsing one rule of the database: every member checked (ids, globs,
 * capability texts, conditions, identify blocks, versions, sources), each
 * error naming the file and the JSON path.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "db.h"
#include "glob.h"
#include "jsonread.h"
#include "layout.h"
#include "ruleparse.h"
#include "util.h"
#include "common.h"

static bool valid_id(const char *id)
{
	/* ^[a-z0-9][a-z0-9_+-]*(\.[a-z0-9][a-z0-9_+-]*)+$ */
	bool start = true;
	unsigned dots = 0;

	for (const char *p = id; *p; p++) {
		bool alnum = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9');
		if (start) {
			if (!alnum)
				return false;
			start = false;
		} else if (*p == '.') {
			dots++;
			start = true;
		} else if (!alnum && *p != '_' && *p != '+' && *p != '-') {
			return false;
		}
	}
	return !start && dots > 0;
}

static bool valid_source(const char *s)
{
	static const char *const prefixes[] = {
		"https://", "debian:", "fedora:", "opensuse:", "arch:", "gentoo:", "upstream:",
		"man:", "kernel:", "ubuntu:", "alpine:",
	};
	for (size_t i = 0; i < S2C_ELEMENTSOF(prefixes); i++) {
		size_t n = strlen(prefixes[i]);
		if (strncmp(s, prefixes[i], n) == 0 && s[n])
			return true;
	}
	return false;
}

static int parse_version(const char *s, unsigned v[3])
{
	unsigned a = 0, b = 0, c = 0;
	int n = 0;

	if (sscanf(s, "%u.%u.%u%n", &a, &b, &c, &n) == 3 && !s[n]) {
		/* ok */
	} else if (n = 0, c = 0, sscanf(s, "%u.%u%n", &a, &b, &n) == 2 && !s[n]) {
		/* ok */
	} else {
		return -EINVAL;
	}
	v[0] = a, v[1] = b, v[2] = c;
	return 0;
}

int ruleparse_caps(struct json_object *o, const struct jpath *p, const char *key,
		   const char **ret_text, struct fcaps *ret_caps, bool *ret_has,
		   struct s2c_error *err)
{
	const char *text = NULL;
	struct s2c_error e = { 0 };
	int r = jsonread_string(o, p, key, false, &text, err);

	if (r < 0 || !text)
		return r;
	if (fcaps_from_text(text, ret_caps, &e) < 0) {
		struct jpath kp = jpath_key(p, key);
		return jpath_error(&kp, err, "%s", e.msg);
	}
	if (ret_caps->permitted == 0 && ret_caps->inheritable == 0) {
		struct jpath kp = jpath_key(p, key);
		return jpath_error(&kp, err, "empty capability set '%s'", text);
	}
	*ret_text = text;
	*ret_has = true;
	return 0;
}

static int parse_sysctl(struct json_object *o, const struct jpath *p, struct rule_when *w,
			struct s2c_error *err)
{
	static const char *const keys[] = { "name", "range_covers", "equals", "at_least",
					    "at_most", NULL };
	static const char *const req[] = { "name", NULL };
	struct json_object *range = NULL;
	int64_t v = 0;
	int ops = 0, r;

	r = jsonread_keys(o, p, keys, req, err);
	if (r == 0)
		r = jsonread_string(o, p, "name", true, &w->sysctl_name, err);
	if (r == 0)
		r = jsonread_array(o, p, "range_covers", false, &range, err);
	if (r < 0)
		return r;
	if (range) {
		struct jpath rp = jpath_key(p, "range_covers");
		struct json_object *a, *b;
		ops++;
		if (json_object_array_length(range) != 2 ||
		    !json_object_is_type(a = json_object_array_get_idx(range, 0), json_type_int) ||
		    !json_object_is_type(b = json_object_array_get_idx(range, 1), json_type_int))
			return jpath_error(&rp, err, "expected two integers");
		w->sysctl_op = SYSCTL_RANGE_COVERS;
		w->sysctl_a = json_object_get_int64(a);
		w->sysctl_b = json_object_get_int64(b);
		if (w->sysctl_a > w->sysctl_b)
			return jpath_error(&rp, err, "empty range");
	}
	if (json_object_object_get_ex(o, "equals", NULL)) {
		ops++;
		w->sysctl_op = SYSCTL_EQUALS;
		r = jsonread_string(o, p, "equals", true, &w->sysctl_equals, err);
	}
	if (r == 0 && json_object_object_get_ex(o, "at_least", NULL)) {
		ops++;
		w->sysctl_op = SYSCTL_AT_LEAST;
		r = jsonread_int(o, p, "at_least", true, INT64_MIN, INT64_MAX, &v, err);
		w->sysctl_a = v;
	}
	if (r == 0 && json_object_object_get_ex(o, "at_most", NULL)) {
		ops++;
		w->sysctl_op = SYSCTL_AT_MOST;
		r = jsonread_int(o, p, "at_most", true, INT64_MIN, INT64_MAX, &v, err);
		w->sysctl_a = v;
	}
	if (r < 0)
		return r;
	if (ops != 1)
		return jpath_error(p, err, "needs exactly one of range_covers, equals, at_least, at_most");
	if (strspn(w->sysctl_name, "abcdefghijklmnopqrstuvwxyz0123456789_.-/") !=
	    strlen(w->sysctl_name) || strstr(w->sysctl_name, ".."))
		return jpath_error(p, err, "invalid sysctl name '%s'", w->sysctl_name);
	return 0;
}

/* "1.4", "5.27.80", "330": digits separated by single dots. */
static bool valid_version(const char *s)
{
	bool digit = false;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digit = true;
		else if (*s == '.' && digit)
			digit = false;
		else
			return false;
	}
	return digit;
}

static int parse_when(struct json_object *o, const struct jpath *p, struct rule_when *w,
		      struct s2c_error *err)
{
	static const char *const keys[] = { "kernel_at_least", "kernel_below", "sysctl", "os",
					    "file_exists", "version_at_least", "version_below",
					    "setuid_root", NULL };
	struct json_object *sysctl = NULL;
	int r;

	w->setuid_root = -1;
	r = jsonread_keys(o, p, keys, NULL, err);
	if (r == 0 && json_object_object_length(o) == 0)
		r = jpath_error(p, err, "empty condition");
	if (r == 0 && json_object_object_get_ex(o, "setuid_root", NULL)) {
		bool b = false;
		r = jsonread_bool(o, p, "setuid_root", true, &b, err);
		w->setuid_root = b;
	}
	if (r == 0)
		r = jsonread_string(o, p, "kernel_at_least", false, &w->kernel_min_text, err);
	if (r == 0)
		r = jsonread_string(o, p, "kernel_below", false, &w->kernel_max_text, err);
	if (r == 0)
		r = jsonread_object(o, p, "sysctl", false, &sysctl, err);
	if (r == 0)
		r = jsonread_strv(o, p, "os", false, 1, &w->os, NULL, err);
	if (r == 0)
		r = jsonread_string(o, p, "file_exists", false, &w->file_exists, err);
	if (r == 0)
		r = jsonread_string(o, p, "version_at_least", false, &w->version_min, err);
	if (r == 0)
		r = jsonread_string(o, p, "version_below", false, &w->version_max, err);
	if (r < 0)
		return r;
	if ((w->version_min && !valid_version(w->version_min)) ||
	    (w->version_max && !valid_version(w->version_max)))
		return jpath_error(p, err, "bad program version '%s': expected digits and dots, "
				   "e.g. \"1.4\"", w->version_min && !valid_version(w->version_min) ?
				   w->version_min : w->version_max);
	if (w->kernel_min_text) {
		if (parse_version(w->kernel_min_text, w->kernel_min) < 0)
			return jpath_error(p, err, "bad kernel version '%s'", w->kernel_min_text);
		w->has_kernel_min = true;
	}
	if (w->kernel_max_text) {
		if (parse_version(w->kernel_max_text, w->kernel_max) < 0)
			return jpath_error(p, err, "bad kernel version '%s'", w->kernel_max_text);
		w->has_kernel_max = true;
	}
	if (w->file_exists && glob_invalid(w->file_exists))
		return jpath_error(p, err, "file_exists: %s", glob_invalid(w->file_exists));
	if (sysctl) {
		struct jpath sp = jpath_key(p, "sysctl");
		r = parse_sysctl(sysctl, &sp, w, err);
	}
	return r;
}

static int check_verdict_caps(const struct jpath *p, enum verdict v, bool has_caps,
			      struct s2c_error *err)
{
	if (v == VERDICT_MIGRATE && !has_caps)
		return jpath_error(p, err, "verdict 'migrate' needs 'caps'");
	if (v == VERDICT_DROP && has_caps)
		return jpath_error(p, err, "verdict 'drop' cannot have 'caps'");
	return 0;
}

int ruleparse_verdict(struct json_object *o, const struct jpath *p, bool review,
		      enum verdict *ret, struct s2c_error *err)
{
	const char *s = NULL;
	int r = jsonread_string(o, p, "verdict", true, &s, err);

	if (r < 0)
		return r;
	*ret = verdict_from_name(s);
	if ((int)*ret < 0 || (!review && *ret == VERDICT_REVIEW)) {
		struct jpath vp = jpath_key(p, "verdict");
		return jpath_error(&vp, err, "unknown verdict '%s': %s", s, review ?
				   "expected migrate, drop, keep or review" :
				   "an override decides keep, drop or migrate");
	}
	return 0;
}

static int parse_mode_key(struct json_object *o, const struct jpath *p, int *ret,
			  struct s2c_error *err)
{
	const char *s = NULL;
	uint64_t v;
	int r = jsonread_string(o, p, "mode", false, &s, err);

	*ret = -1;
	if (r < 0 || !s)
		return r;
	if (strlen(s) != 4 || parse_u64(s, 8, 07777, &v) < 0) {
		struct jpath mp = jpath_key(p, "mode");
		return jpath_error(&mp, err, "expected 4 octal digits, e.g. \"0755\"");
	}
	*ret = (int)v;
	return 0;
}

static int parse_conditions(struct json_object *arr, const struct jpath *ap, struct rule *rule,
			    struct s2c_error *err)
{
	static const char *const keys[] = { "when", "verdict", "caps", "needs", "reason", "owner",
					    "group", "mode", NULL };
	static const char *const req[] = { "when", "verdict", "reason", NULL };
	size_t n = json_object_array_length(arr);

	rule->conditions = calloc(n ? n : 1, sizeof(*rule->conditions));
	if (!rule->conditions)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i), *when = NULL;
		struct jpath p = jpath_index(ap, i), wp = jpath_key(&p, "when");
		struct rule_condition *c = &rule->conditions[i];
		int r;

		rule->n_conditions = i + 1;
		r = jsonread_keys(o, &p, keys, req, err);
		if (r == 0)
			r = jsonread_object(o, &p, "when", true, &when, err);
		if (r == 0)
			r = parse_when(when, &wp, &c->when, err);
		if (r == 0)
			r = ruleparse_verdict(o, &p, true, &c->verdict, err);
		if (r == 0)
			r = ruleparse_caps(o, &p, "caps", &c->caps_text, &c->caps, &c->has_caps, err);
		if (r == 0) {
			const char *dummy = NULL;
			r = ruleparse_caps(o, &p, "needs", &dummy, &c->needs, &c->has_needs, err);
		}
		if (r == 0)
			r = jsonread_string(o, &p, "reason", true, &c->reason, err);
		if (r == 0)
			r = jsonread_string(o, &p, "owner", false, &c->owner, err);
		if (r == 0)
			r = jsonread_string(o, &p, "group", false, &c->group, err);
		if (r == 0)
			r = parse_mode_key(o, &p, &c->mode, err);
		if (r == 0 && (c->owner || c->group || c->mode >= 0) && c->verdict != VERDICT_MIGRATE)
			r = jpath_error(&p, err, "owner, group and mode belong to a 'migrate' condition");
		if (r == 0 && c->verdict == VERDICT_DROP && c->has_caps)
			r = jpath_error(&p, err, "verdict 'drop' cannot have 'caps'");
		if (r == 0 && c->verdict == VERDICT_MIGRATE && !c->has_caps && !rule->has_caps)
			r = jpath_error(&p, err, "verdict 'migrate' needs 'caps' here or in the rule");
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_match(struct json_object *o, const struct jpath *p, struct rule *rule,
		       struct s2c_error *err)
{
	static const char *const keys[] = { "paths", "names", "packages", "sha256", "groups",
					    NULL };
	int r;

	r = jsonread_keys(o, p, keys, NULL, err);
	if (r == 0)
		r = jsonread_strv(o, p, "paths", false, 1, &rule->paths, NULL, err);
	if (r == 0)
		r = jsonread_strv(o, p, "names", false, 1, &rule->names, NULL, err);
	if (r == 0)
		r = jsonread_strv(o, p, "packages", false, 1, &rule->packages, NULL, err);
	if (r == 0)
		r = jsonread_strv(o, p, "sha256", false, 1, &rule->sha256, NULL, err);
	if (r == 0)
		r = jsonread_strv(o, p, "groups", false, 1, &rule->groups, NULL, err);
	if (r < 0)
		return r;
	if (!rule->paths && !rule->names)
		return jpath_error(p, err, "needs 'paths' or 'names'");
	for (size_t i = 0, n = 0; rule->paths && rule->paths[i]; i++) {
		const char *why = glob_invalid(rule->paths[i]);
		char form[PATH_MAX];

		if (!why && layout_form(rule->paths[i], form, sizeof(form)) < 0)
			why = "too long";
		if (why) {
			struct jpath kp = jpath_key(p, "paths"), ip = jpath_index(&kp, i);
			return jpath_error(&ip, err, "bad glob '%s': %s", rule->paths[i], why);
		}
		r = strv_push(&rule->layout, &n, strdup(form));
		if (r < 0)
			return r;
	}
	for (size_t i = 0; rule->names && rule->names[i]; i++)
		if (!*rule->names[i] || strchr(rule->names[i], '/')) {
			struct jpath kp = jpath_key(p, "names"), ip = jpath_index(&kp, i);
			return jpath_error(&ip, err, "a name is a file name without '/'");
		}
	for (size_t i = 0; rule->groups && rule->groups[i]; i++)
		if (!*rule->groups[i] || strpbrk(rule->groups[i], ":/ \t\n")) {
			struct jpath kp = jpath_key(p, "groups"), ip = jpath_index(&kp, i);
			return jpath_error(&ip, err, "a group is a name without ':', '/' or blanks");
		}
	for (size_t i = 0; rule->sha256 && rule->sha256[i]; i++) {
		const char *h = rule->sha256[i];
		if (strlen(h) != 64 || strspn(h, "0123456789abcdef") != 64) {
			struct jpath kp = jpath_key(p, "sha256"), ip = jpath_index(&kp, i);
			return jpath_error(&ip, err, "expected 64 lowercase hex digits");
		}
	}
	return 0;
}

static int check_globs(const char **v, const struct jpath *p, const char *key,
		       struct s2c_error *err)
{
	for (size_t i = 0; v && v[i]; i++)
		if (!*v[i] || strchr(v[i], '/')) {
			struct jpath kp = jpath_key(p, key), ip = jpath_index(&kp, i);
			return jpath_error(&ip, err, "expected a library name or glob without '/'");
		}
	return 0;
}

static int parse_identify(struct json_object *o, const struct jpath *p, struct rule *rule,
			  struct s2c_error *err)
{
	static const char *const keys[] = { "needed", "soname", "strings", NULL };
	struct rule_identify *id = &rule->identify;
	int r = jsonread_keys(o, p, keys, NULL, err);

	if (r == 0 && json_object_object_length(o) == 0)
		r = jpath_error(p, err, "empty identify: give needed, soname or strings");
	if (r == 0)
		r = jsonread_strv(o, p, "needed", false, 1, &id->needed, NULL, err);
	if (r == 0)
		r = jsonread_strv(o, p, "soname", false, 1, &id->soname, NULL, err);
	if (r == 0)
		r = jsonread_strv(o, p, "strings", false, 1, &id->strings, NULL, err);
	if (r == 0)
		r = check_globs(id->needed, p, "needed", err);
	if (r == 0)
		r = check_globs(id->soname, p, "soname", err);
	for (size_t i = 0; r == 0 && id->strings && id->strings[i]; i++)
		if (strlen(id->strings[i]) < 4) {
			struct jpath kp = jpath_key(p, "strings"), ip = jpath_index(&kp, i);
			r = jpath_error(&ip, err, "'%s' is too short to tell programs apart (at least "
					"4 bytes)", id->strings[i]);
		}
	if (r == 0)
		rule->has_identify = true;
	return r;
}

static int parse_version_key(struct json_object *o, const struct jpath *p, struct rule *rule,
			     struct s2c_error *err)
{
	static const char *const keys[] = { "prefix", NULL };
	int r = jsonread_keys(o, p, keys, keys, err);

	if (r == 0)
		r = jsonread_string(o, p, "prefix", true, &rule->version_prefix, err);
	if (r == 0 && strlen(rule->version_prefix) < 3) {
		struct jpath kp = jpath_key(p, "prefix");
		r = jpath_error(&kp, err, "a prefix of at least 3 bytes, e.g. \"beep \"");
	}
	return r;
}

static int parse_distros(struct json_object *o, const struct jpath *p, struct rule *rule,
			 struct s2c_error *err)
{
	static const char *const keys[] = { "debian", "fedora", "opensuse", "arch", "gentoo",
					    "ubuntu", "upstream", NULL };
	size_t n = 0;
	int r = jsonread_keys(o, p, keys, NULL, err);

	if (r < 0)
		return r;
	rule->distros = calloc(S2C_ELEMENTSOF(keys), sizeof(*rule->distros));
	if (!rule->distros)
		return -ENOMEM;
	for (size_t i = 0; keys[i]; i++) {
		const char *v = NULL;
		r = jsonread_string(o, p, keys[i], false, &v, err);
		if (r < 0)
			return r;
		if (v)
			rule->distros[n++] = (struct rule_note){ keys[i], v };
	}
	rule->n_distros = n;
	return 0;
}

static int parse_smoke(struct json_object *o, const struct jpath *p, struct rule *rule,
		       struct s2c_error *err)
{
	bool placeholder = false;
	int r = jsonread_strv(o, p, "smoke", false, 1, &rule->smoke, NULL, err);

	if (r < 0 || !rule->smoke)
		return r;
	for (size_t i = 0; rule->smoke[i]; i++)
		placeholder |= s2c_streq(rule->smoke[i], "{}");
	if (!placeholder) {
		struct jpath sp = jpath_key(p, "smoke");
		return jpath_error(&sp, err, "needs \"{}\" for the program's path");
	}
	return 0;
}

/* A parser of one member of a rule (@o is the member, @p its path). */
typedef int (*member_parser)(struct json_object *o, const struct jpath *p, struct rule *rule,
			     struct s2c_error *err);

/* The object (or, with @array, the array) at @key of @o, when there is one or
 * it is @required, parsed by @parse at its own path. */
static int parse_member(struct json_object *o, const struct jpath *p, const char *key,
			bool array, bool required, member_parser parse, struct rule *rule,
			struct s2c_error *err)
{
	struct json_object *member = NULL;
	struct jpath mp;
	int r = array ? jsonread_array(o, p, key, required, &member, err) :
			jsonread_object(o, p, key, required, &member, err);

	if (r < 0 || !member)
		return r;
	mp = jpath_key(p, key);
	return parse(member, &mp, rule, err);
}

/* id, program and match: what the rule is about. */
static int parse_subject(struct json_object *o, const struct jpath *p, struct rule *rule,
			 struct s2c_error *err)
{
	int r = jsonread_string(o, p, "id", true, &rule->id, err);

	if (r == 0 && !valid_id(rule->id))
		r = jpath_error(p, err, "invalid id '%s': expected 'project.program' in lowercase",
				rule->id);
	if (r == 0)
		r = jsonread_string(o, p, "program", true, &rule->program, err);
	if (r == 0)
		r = parse_member(o, p, "match", false, true, parse_match, rule, err);
	return r;
}

/* verdict, caps, needs, owner, group, mode and reason: what the rule decides. */
static int parse_decision(struct json_object *o, const struct jpath *p, struct rule *rule,
			  struct s2c_error *err)
{
	int r = ruleparse_verdict(o, p, true, &rule->verdict, err);

	if (r == 0)
		r = ruleparse_caps(o, p, "caps", &rule->caps_text, &rule->caps, &rule->has_caps, err);
	if (r == 0)
		r = ruleparse_caps(o, p, "needs", &rule->needs_text, &rule->needs, &rule->has_needs, err);
	if (r == 0)
		r = check_verdict_caps(p, rule->verdict, rule->has_caps, err);
	if (r == 0)
		r = jsonread_string(o, p, "owner", false, &rule->owner, err);
	if (r == 0)
		r = jsonread_string(o, p, "group", false, &rule->group, err);
	if (r == 0)
		r = parse_mode_key(o, p, &rule->mode, err);
	if (r == 0)
		r = jsonread_string(o, p, "reason", true, &rule->reason, err);
	return r;
}

static int parse_sources(struct json_object *o, const struct jpath *p, struct rule *rule,
			 struct s2c_error *err)
{
	int r = jsonread_strv(o, p, "sources", true, 1, &rule->sources, NULL, err);

	for (size_t i = 0; r == 0 && rule->sources[i]; i++)
		if (!valid_source(rule->sources[i])) {
			struct jpath sp = jpath_key(p, "sources"), ip = jpath_index(&sp, i);
			r = jpath_error(&ip, err, "'%s' is not an https:// URL or a known "
					"packaging reference (debian:, fedora:, …)", rule->sources[i]);
		}
	return r;
}

/* The optional members: conditions, smoke, distros, breaks, aware, identify,
 * version and accepted_risk. */
static int parse_options(struct json_object *o, const struct jpath *p, struct rule *rule,
			 struct s2c_error *err)
{
	bool aware = false;
	int r = parse_member(o, p, "conditions", true, false, parse_conditions, rule, err);

	if (r == 0)
		r = parse_smoke(o, p, rule, err);
	if (r == 0)
		r = parse_member(o, p, "distros", false, false, parse_distros, rule, err);
	if (r == 0)
		r = jsonread_string(o, p, "breaks", false, &rule->breaks, err);
	if (r == 0 && json_object_object_get_ex(o, "aware", NULL)) {
		r = jsonread_bool(o, p, "aware", true, &aware, err);
		rule->aware = aware;
	}
	if (r == 0)
		r = parse_member(o, p, "identify", false, false, parse_identify, rule, err);
	if (r == 0)
		r = parse_member(o, p, "version", false, false, parse_version_key, rule, err);
	if (r == 0)
		r = jsonread_string(o, p, "accepted_risk", false, &rule->accepted_risk, err);
	if (r == 0 && rule->accepted_risk && strlen(rule->accepted_risk) < 20) {
		struct jpath ap = jpath_key(p, "accepted_risk");
		r = jpath_error(&ap, err, "give the reason the risk is accepted, in a sentence");
	}
	return r;
}

int ruleparse_rule(struct json_object *o, const struct jpath *p, struct rule *rule,
		   struct s2c_error *err)
{
	static const char *const keys[] = { "id", "program", "match", "verdict", "caps", "needs",
					    "owner", "group", "mode", "reason", "sources",
					    "conditions", "smoke", "distros", "breaks", "aware",
					    "identify", "version", "accepted_risk", NULL };
	static const char *const req[] = { "id", "program", "match", "verdict", "reason",
					   "sources", NULL };
	int r;

	rule->aware = -1;
	r = jsonread_keys(o, p, keys, req, err);
	if (r == 0)
		r = parse_subject(o, p, rule, err);
	if (r == 0)
		r = parse_decision(o, p, rule, err);
	if (r == 0)
		r = parse_sources(o, p, rule, err);
	if (r == 0)
		r = parse_options(o, p, rule, err);
	return r;
}
