/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include <openssl/evp.h>

#include "db.h"
#include "dirlist.h"
#include "glob.h"
#include "jsonread.h"
#include "resolve.h"
#include "util.h"
#include "trust.h"
#include "common.h"

#define CAPS_FILE "capabilities.json"
#define MAX_FILES 1024

static const char *const verdict_names[_VERDICT_MAX] = { "migrate", "drop", "keep", "review" };

const char *verdict_name(enum verdict v)
{
	return v >= 0 && v < _VERDICT_MAX ? verdict_names[v] : "invalid";
}

enum verdict verdict_from_name(const char *s)
{
	for (int i = 0; i < _VERDICT_MAX; i++)
		if (s2c_streq(verdict_names[i], s))
			return (enum verdict)i;
	return _VERDICT_INVALID;
}

struct rules_db *rules_db_free(struct rules_db *db)
{
	if (!db)
		return NULL;
	for (size_t i = 0; i < db->n_storage; i++) {
		struct rule *r = &db->storage[i];
		free(r->paths);
		free(r->names);
		free(r->packages);
		free(r->sha256);
		free(r->sources);
		free(r->smoke);
		for (size_t j = 0; j < r->n_conditions; j++)
			free(r->conditions[j].when.os);
		free(r->conditions);
		free(r->distros);
		free(r->identify.needed);
		free(r->identify.soname);
		free(r->identify.strings);
	}
	free(db->storage);
	free(db->strings);
	free(db->prefixes);
	for (size_t i = 0; i < db->n_layers; i++)
		free(db->layers[i].dir);
	free(db->layers);
	free(db->rules);
	if (db->have_caps)
		captable_release(&db->caps);
	for (size_t i = 0; i < db->n_files; i++)
		free(db->files[i]);
	free(db->files);
	for (size_t i = 0; i < db->n_docs; i++)
		json_object_put(db->docs[i]);
	free(db->docs);
	free(db);
	return NULL;
}

/* --- problems ------------------------------------------------------------------- */

void rules_problems_release(struct rules_problems *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

int rules_problems_add(struct rules_problems *p, const char *msg)
{
	char **nv;

	for (size_t i = 0; i < p->n; i++)
		if (s2c_streq(p->v[i], msg))
			return 0;
	nv = realloc(p->v, (p->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	p->v = nv;
	if (!(p->v[p->n] = strdup(msg)))
		return -ENOMEM;
	p->n++;
	return 0;
}

/*
 * A problem found while loading: with a collector (rules lint), record it and
 * go on (return 0); without, fail with it.  -ENOMEM always fails.
 */
static int problem(struct rules_problems *collect, int r, struct s2c_error *err,
		   struct s2c_error *local)
{
	if (r >= 0)
		return r;
	if (!collect || r == -ENOMEM) {
		if (err && local != err)
			*err = *local;
		return r;
	}
	r = rules_problems_add(collect, local->msg[0] ? local->msg : strerror(-r));
	s2c_error_clear(local);
	return r;
}

/* --- rule fields -------------------------------------------------------------- */

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

static int parse_caps(struct json_object *o, const struct jpath *p, const char *key,
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

static int parse_verdict(struct json_object *o, const struct jpath *p, enum verdict *ret,
			 struct s2c_error *err)
{
	const char *s = NULL;
	int r = jsonread_string(o, p, "verdict", true, &s, err);

	if (r < 0)
		return r;
	*ret = verdict_from_name(s);
	if ((int)*ret < 0) {
		struct jpath vp = jpath_key(p, "verdict");
		return jpath_error(&vp, err, "unknown verdict '%s': expected migrate, drop, keep or review", s);
	}
	return 0;
}

static int parse_mode_key(struct json_object *o, const struct jpath *p, int *ret,
			  struct s2c_error *err);

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
			r = parse_verdict(o, &p, &c->verdict, err);
		if (r == 0)
			r = parse_caps(o, &p, "caps", &c->caps_text, &c->caps, &c->has_caps, err);
		if (r == 0) {
			const char *dummy = NULL;
			r = parse_caps(o, &p, "needs", &dummy, &c->needs, &c->has_needs, err);
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
	static const char *const keys[] = { "paths", "names", "packages", "sha256", NULL };
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
	if (r < 0)
		return r;
	if (!rule->paths && !rule->names)
		return jpath_error(p, err, "needs 'paths' or 'names'");
	for (size_t i = 0; rule->paths && rule->paths[i]; i++) {
		const char *why = glob_invalid(rule->paths[i]);
		if (why) {
			struct jpath kp = jpath_key(p, "paths"), ip = jpath_index(&kp, i);
			return jpath_error(&ip, err, "bad glob '%s': %s", rule->paths[i], why);
		}
	}
	for (size_t i = 0; rule->names && rule->names[i]; i++)
		if (!*rule->names[i] || strchr(rule->names[i], '/')) {
			struct jpath kp = jpath_key(p, "names"), ip = jpath_index(&kp, i);
			return jpath_error(&ip, err, "a name is a file name without '/'");
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

static int parse_mode(struct json_object *o, const struct jpath *p, struct rule *rule,
		      struct s2c_error *err)
{
	return parse_mode_key(o, p, &rule->mode, err);
}

static int parse_rule(struct json_object *o, const struct jpath *p, struct rule *rule,
		      struct s2c_error *err)
{
	static const char *const keys[] = { "id", "program", "match", "verdict", "caps", "needs",
					    "owner", "group", "mode", "reason", "sources",
					    "conditions", "smoke", "distros", "breaks", "aware",
					    "identify", "version", "accepted_risk", NULL };
	static const char *const req[] = { "id", "program", "match", "verdict", "reason",
					   "sources", NULL };
	struct json_object *match = NULL, *conds = NULL, *distros = NULL, *identify = NULL,
			   *version = NULL;
	struct jpath mp = jpath_key(p, "match");
	bool aware = false;
	int r;

	rule->aware = -1;
	r = jsonread_keys(o, p, keys, req, err);
	if (r == 0)
		r = jsonread_string(o, p, "id", true, &rule->id, err);
	if (r == 0 && !valid_id(rule->id))
		r = jpath_error(p, err, "invalid id '%s': expected 'project.program' in lowercase",
				rule->id);
	if (r == 0)
		r = jsonread_string(o, p, "program", true, &rule->program, err);
	if (r == 0)
		r = jsonread_object(o, p, "match", true, &match, err);
	if (r == 0)
		r = parse_match(match, &mp, rule, err);
	if (r == 0)
		r = parse_verdict(o, p, &rule->verdict, err);
	if (r == 0)
		r = parse_caps(o, p, "caps", &rule->caps_text, &rule->caps, &rule->has_caps, err);
	if (r == 0)
		r = parse_caps(o, p, "needs", &rule->needs_text, &rule->needs, &rule->has_needs, err);
	if (r == 0)
		r = check_verdict_caps(p, rule->verdict, rule->has_caps, err);
	if (r == 0)
		r = jsonread_string(o, p, "owner", false, &rule->owner, err);
	if (r == 0)
		r = jsonread_string(o, p, "group", false, &rule->group, err);
	if (r == 0)
		r = parse_mode(o, p, rule, err);
	if (r == 0)
		r = jsonread_string(o, p, "reason", true, &rule->reason, err);
	if (r == 0)
		r = jsonread_strv(o, p, "sources", true, 1, &rule->sources, NULL, err);
	for (size_t i = 0; r == 0 && rule->sources[i]; i++)
		if (!valid_source(rule->sources[i])) {
			struct jpath sp = jpath_key(p, "sources"), ip = jpath_index(&sp, i);
			r = jpath_error(&ip, err, "'%s' is not an https:// URL or a known "
					"packaging reference (debian:, fedora:, …)", rule->sources[i]);
		}
	if (r == 0)
		r = jsonread_array(o, p, "conditions", false, &conds, err);
	if (r == 0 && conds) {
		struct jpath cp = jpath_key(p, "conditions");
		r = parse_conditions(conds, &cp, rule, err);
	}
	if (r == 0)
		r = parse_smoke(o, p, rule, err);
	if (r == 0)
		r = jsonread_object(o, p, "distros", false, &distros, err);
	if (r == 0 && distros) {
		struct jpath dp = jpath_key(p, "distros");
		r = parse_distros(distros, &dp, rule, err);
	}
	if (r == 0)
		r = jsonread_string(o, p, "breaks", false, &rule->breaks, err);
	if (r == 0 && json_object_object_get_ex(o, "aware", NULL)) {
		r = jsonread_bool(o, p, "aware", true, &aware, err);
		rule->aware = aware;
	}
	if (r == 0)
		r = jsonread_object(o, p, "identify", false, &identify, err);
	if (r == 0 && identify) {
		struct jpath ip = jpath_key(p, "identify");
		r = parse_identify(identify, &ip, rule, err);
	}
	if (r == 0)
		r = jsonread_object(o, p, "version", false, &version, err);
	if (r == 0 && version) {
		struct jpath vp = jpath_key(p, "version");
		r = parse_version_key(version, &vp, rule, err);
	}
	if (r == 0)
		r = jsonread_string(o, p, "accepted_risk", false, &rule->accepted_risk, err);
	if (r == 0 && rule->accepted_risk && strlen(rule->accepted_risk) < 20) {
		struct jpath ap = jpath_key(p, "accepted_risk");
		r = jpath_error(&ap, err, "give the reason the risk is accepted, in a sentence");
	}
	return r;
}

/* --- files and directories ---------------------------------------------------- */

static int keep_doc(struct rules_db *db, struct json_object *doc)
{
	struct json_object **nd = realloc(db->docs, (db->n_docs + 1) * sizeof(*nd));

	if (!nd)
		return -ENOMEM;
	db->docs = nd;
	db->docs[db->n_docs++] = doc;
	return 0;
}

static struct rule *new_rule(struct rules_db *db)
{
	if (db->n_storage == db->alloc_storage) {
		size_t na = db->alloc_storage ? db->alloc_storage * 2 : 256;
		struct rule *ns = realloc(db->storage, na * sizeof(*ns));
		if (!ns)
			return NULL;
		db->storage = ns;
		db->alloc_storage = na;
	}
	memset(&db->storage[db->n_storage], 0, sizeof(db->storage[0]));
	return &db->storage[db->n_storage++];
}

static int check_trust(const struct stat *st, const char *what, const char *path,
		       struct s2c_error *err)
{
	return trust_check(st->st_uid, st->st_mode, TRUST_SHARED, what, path, err);
}

static int hash_update(EVP_MD_CTX *md, const char *name, const char *buf, size_t len)
{
	if (EVP_DigestUpdate(md, name, strlen(name) + 1) != 1 ||
	    EVP_DigestUpdate(md, buf, len) != 1)
		return -EIO;
	return 0;
}

/* Parse one rules file; rules go to @layer (ids unique within the layer).  With
 * @collect, a bad rule is recorded there and skipped. */
static int load_rules_file(struct rules_db *db, struct json_object *doc, const char *display,
			   struct rule ***layer, size_t *n_layer, struct rules_problems *collect,
			   struct s2c_error *err)
{
	static const char *const keys[] = { "schema", "area", "description", "rules", NULL };
	static const char *const req[] = { "schema", "area", "rules", NULL };
	struct json_object *arr = NULL;
	const char *area = NULL, *descr = NULL;
	int64_t schema;
	struct jpath p, rp;
	int r;

	jpath_init(&p, display);
	r = jsonread_keys(doc, &p, keys, req, err);
	if (r == 0)
		r = jsonread_int(doc, &p, "schema", true, 1, 1, &schema, err);
	if (r == 0)
		r = jsonread_string(doc, &p, "area", true, &area, err);
	if (r == 0)
		r = jsonread_string(doc, &p, "description", false, &descr, err);
	if (r == 0)
		r = jsonread_array(doc, &p, "rules", true, &arr, err);
	if (r < 0)
		return r;
	{
		/* the area names the file: network.json holds area "network" */
		const char *base = strrchr(display, '/');
		size_t len;
		base = base ? base + 1 : display;
		len = strlen(base) - 5;   /* without ".json" */
		if (strlen(area) != len || strncmp(area, base, len) != 0) {
			struct jpath ap = jpath_key(&p, "area");
			return jpath_error(&ap, err, "area '%s' differs from the file name '%s'", area,
					   base);
		}
	}
	rp = jpath_key(&p, "rules");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct jpath ip = jpath_index(&rp, i);
		struct rule *rule = new_rule(db), **nl;

		if (!rule)
			return -ENOMEM;
		rule->file = display;
		(void)snprintf(rule->where, sizeof(rule->where), "%s", ip.path);
		r = parse_rule(json_object_array_get_idx(arr, i), &ip, rule, err);
		if (r < 0 && collect && r != -ENOMEM) {
			r = rules_problems_add(collect, err->msg);
			s2c_error_clear(err);
			if (r < 0)
				return r;
			continue;
		}
		if (r < 0)
			return r;
		for (size_t j = 0; j < *n_layer && r == 0; j++)
			if (s2c_streq((*layer)[j]->id, rule->id))
				r = jpath_error(&ip, err, "duplicate id '%s' (also in %s %s)",
						rule->id, (*layer)[j]->file, (*layer)[j]->where);
		if (r < 0 && collect) {
			r = rules_problems_add(collect, err->msg);
			s2c_error_clear(err);
			if (r < 0)
				return r;
			continue;
		}
		if (r < 0)
			return r;
		nl = realloc(*layer, (*n_layer + 1) * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		*layer = nl;
		(*layer)[(*n_layer)++] = rule;
	}
	return 0;
}

static int add_file_name(struct rules_db *db, char *display)
{
	char **nf = realloc(db->files, (db->n_files + 1) * sizeof(*nf));

	if (!nf) {
		free(display);
		return -ENOMEM;
	}
	db->files = nf;
	db->files[db->n_files++] = display;
	return 0;
}

/* Read, trust-check, hash and parse dfd/name; the document is kept in db. */
static int read_doc(struct rules_db *db, int dfd, const char *dir, const char *name,
		    enum rules_load_flags flags, EVP_MD_CTX *md, struct json_object **ret,
		    const char **ret_display, struct s2c_error *err)
{
	_cleanup_free_ char *buf = NULL;
	char *display = path_join(dir, name);
	uint32_t uid, mode;
	size_t len;
	int r;

	if (!display)
		return -ENOMEM;
	r = add_file_name(db, display);
	if (r < 0)
		return r;
	r = jsonread_slurp(dfd, name, display, &buf, &len, &uid, &mode, err);
	if (r < 0)
		return r;
	if (flags & RULES_LOAD_TRUSTED) {
		struct stat st = { .st_uid = uid, .st_mode = mode };
		r = check_trust(&st, "rules file", display, err);
		if (r < 0)
			return r;
	}
	r = hash_update(md, name, buf, len);
	if (r == 0)
		r = jsonread_parse_mem(buf, len, display, ret, err);
	if (r == 0)
		r = keep_doc(db, *ret);
	if (r < 0)
		return r;
	*ret_display = display;
	return 0;
}

static int load_dir(struct rules_db *db, const char *dir, int dirfd, enum rules_load_flags flags,
		    EVP_MD_CTX *md, struct rule ***layer, size_t *n_layer,
		    struct rules_problems *collect, struct s2c_error *err)
{
	_cleanup_close_ int dfd = dirfd >= 0 ? fcntl(dirfd, F_DUPFD_CLOEXEC, 3) :
					       open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_(strv_freep) char **names = NULL;
	struct s2c_error local = { 0 };
	struct stat st;
	int r;

	if (dfd < 0)
		return s2c_error_errno(err, -errno, "cannot open rules directory '%s'", dir);
	if (fstat(dfd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat '%s'", dir);
	if (flags & RULES_LOAD_TRUSTED) {
		r = check_trust(&st, "rules directory", dir, err);
		if (r < 0)
			return r;
	}
	if (faccessat(dfd, CAPS_FILE, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		struct json_object *doc;
		const char *display;

		r = read_doc(db, dfd, dir, CAPS_FILE, flags, md, &doc, &display, err);
		if (r < 0)
			return r;
		if (db->have_caps)
			captable_release(&db->caps);
		db->have_caps = false;
		r = captable_load(&db->caps, doc, display, err);
		if (r < 0)
			return r;
		db->have_caps = true;
	}
	r = dirlist(dfd, "*.json", MAX_FILES, &names);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot list '%s'", dir);
	r = 0;
	for (size_t i = 0; names[i] && r == 0; i++) {
		struct json_object *doc;
		const char *display;

		if (s2c_streq(names[i], CAPS_FILE))
			continue;
		r = read_doc(db, dfd, dir, names[i], flags, md, &doc, &display, &local);
		if (r == 0)
			r = load_rules_file(db, doc, display, layer, n_layer, collect, &local);
		/* rules lint: a file that cannot be read or parsed is one problem; go on */
		r = problem(collect, r, err, &local);
	}
	return r;
}

static int cmp_rule_id(const void *a, const void *b)
{
	return strcmp((*(struct rule *const *)a)->id, (*(struct rule *const *)b)->id);
}

/* Put the layer's rules into db->rules, replacing earlier rules by id. */
static int merge_layer(struct rules_db *db, struct rule **layer, size_t n_layer)
{
	struct rule **nr = realloc(db->rules, (db->n + n_layer + 1) * sizeof(*nr));

	if (!nr)
		return -ENOMEM;
	db->rules = nr;
	for (size_t i = 0; i < n_layer; i++) {
		bool replaced = false;
		for (size_t j = 0; j < db->n; j++)
			if (s2c_streq(db->rules[j]->id, layer[i]->id)) {
				db->rules[j] = layer[i];
				replaced = true;
				break;
			}
		if (!replaced)
			db->rules[db->n++] = layer[i];
	}
	return 0;
}

/* The literals the engine looks for in binaries: breaker strings first (their
 * indexes stay those of caps.all_strings), then identify strings; and the
 * version prefixes. */
static int collect_needles(struct rules_db *db)
{
	size_t ns = db->caps.n_strings, np = 0;

	for (size_t i = 0; i < db->n; i++) {
		const struct rule *r = db->rules[i];
		for (size_t j = 0; r->identify.strings && r->identify.strings[j]; j++)
			ns++;
		np += r->version_prefix != NULL;
	}
	db->strings = calloc(ns + 1, sizeof(*db->strings));
	db->prefixes = calloc(np + 1, sizeof(*db->prefixes));
	if (!db->strings || !db->prefixes)
		return -ENOMEM;
	for (size_t i = 0; i < db->caps.n_strings; i++)
		db->strings[db->n_strings++] = db->caps.all_strings[i];
	for (size_t i = 0; i < db->n; i++) {
		struct rule *r = db->rules[i];
		r->identify.strings_at = db->n_strings;
		for (size_t j = 0; r->identify.strings && r->identify.strings[j]; j++)
			db->strings[db->n_strings++] = r->identify.strings[j];
		if (r->version_prefix) {
			r->version_at = db->n_prefixes;
			db->prefixes[db->n_prefixes++] = r->version_prefix;
		}
	}
	return 0;
}

/* Every capability named by the rules exists in the table. */
static int check_caps_known(const struct rules_db *db, struct rules_problems *collect,
			    struct s2c_error *err)
{
	for (size_t i = 0; i < db->n; i++) {
		const struct rule *r = db->rules[i];
		uint64_t m = r->caps.permitted | r->caps.inheritable | r->needs.permitted |
			     r->needs.inheritable;
		for (size_t c = 0; c < r->n_conditions; c++)
			m |= r->conditions[c].caps.permitted | r->conditions[c].caps.inheritable;
		for (unsigned b = 0; b < 64; b++)
			if ((m & S2C_CAPMASK(b)) && !db->caps.caps[b].known) {
				int e = s2c_error_set(err, -EINVAL,
						      "%s: %s: capability %u is not in the capability table",
						      r->file, r->where, b);
				if (!collect)
					return e;
				e = rules_problems_add(collect, err->msg);
				s2c_error_clear(err);
				if (e < 0)
					return e;
			}
	}
	return 0;
}

static int overlaps(const struct rules_db *db, struct rules_problems *collect,
		    struct s2c_error *err);

/* Remember what each layer contributed, for reports. */
static int note_layer(struct rules_db *db, const char *dir, const char *label, bool present,
		      size_t n_rules)
{
	struct rules_db_layer *nl = realloc(db->layers, (db->n_layers + 1) * sizeof(*nl));

	if (!nl)
		return -ENOMEM;
	db->layers = nl;
	nl[db->n_layers] = (struct rules_db_layer){ .dir = strdup(dir), .present = present,
						    .rules = n_rules, .label = label };
	if (!nl[db->n_layers].dir)
		return -ENOMEM;
	db->n_layers++;
	return 0;
}

static bool layer_absent(const struct rules_layer *l)
{
	struct stat st;

	return l->dirfd == RULES_LAYER_ABSENT ||
	       (l->dirfd < 0 && stat(l->dir, &st) < 0 && errno == ENOENT);
}

int rules_db_load_layers(const struct rules_layer *layers, size_t n, enum rules_load_flags flags,
			 struct rules_problems *collect, struct rules_db **ret, struct s2c_error *err)
{
	_cleanup_(rules_db_freep) struct rules_db *db = calloc(1, sizeof(*db));
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char digest[EVP_MAX_MD_SIZE];
	struct s2c_error local = { 0 };
	unsigned dlen = 0;
	size_t loaded = 0;
	int r = 0;

	if (!db || !md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(md);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		struct rule **layer = NULL;
		size_t n_layer = 0;

		/* Optional layers (e.g. /etc) may be absent; a lone --db may not. */
		if (layers[i].optional && layer_absent(&layers[i])) {
			r = note_layer(db, layers[i].dir, layers[i].label, false, 0);
			continue;
		}
		r = load_dir(db, layers[i].dir, layers[i].dirfd, flags, md, &layer, &n_layer, collect,
			     err);
		if (r == 0)
			r = merge_layer(db, layer, n_layer);
		if (r == 0)
			r = note_layer(db, layers[i].dir, layers[i].label, true, n_layer);
		free(layer);
		loaded++;
	}
	if (r == 0 && EVP_DigestFinal_ex(md, digest, &dlen) != 1)
		r = -EIO;
	EVP_MD_CTX_free(md);
	if (r < 0)
		return r;
	if (loaded == 0)
		return s2c_error_set(err, -ENOENT, "no rules directory found (looked in %s)",
				     n ? layers[0].dir : "nothing");
	if (!db->have_caps)
		return s2c_error_set(err, -ENOENT, "no %s in any rules directory", CAPS_FILE);
	hex_encode(digest, dlen, db->hash);
	if (db->n)
		qsort(db->rules, db->n, sizeof(*db->rules), cmp_rule_id);
	r = problem(collect, check_caps_known(db, collect, &local), err, &local);
	if (r == 0)
		r = collect_needles(db);
	if (r == 0 && (flags & RULES_LOAD_NO_OVERLAP))
		r = problem(collect, overlaps(db, collect, &local), err, &local);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(db);
	return 0;
}

int rules_db_open_target_layer(int rootfd, int *ret_fd, struct s2c_error *err)
{
	int fd = resolve_open(rootfd, S2C_SYSCONF_DBDIR, O_RDONLY | O_DIRECTORY);

	if (fd == -ENOENT) {
		*ret_fd = RULES_LAYER_ABSENT;
		return 0;
	}
	if (fd == -ELOOP)
		return s2c_error_set(err, fd, "'%s' or a directory above it is a symbolic link",
				     S2C_SYSCONF_DBDIR);
	if (fd < 0)
		return s2c_error_errno(err, fd, "cannot open '%s'", S2C_SYSCONF_DBDIR);
	*ret_fd = fd;
	return 0;
}

int rules_db_load(const char *const *dirs, enum rules_load_flags flags, struct rules_db **ret,
		  struct s2c_error *err)
{
	struct rules_layer layers[64];
	size_t n = 0;

	while (dirs[n] && n < S2C_ELEMENTSOF(layers)) {
		layers[n] = (struct rules_layer){ .dir = dirs[n], .dirfd = -1 };
		n++;
	}
	/* Optional layers (e.g. /etc) may be absent; a lone --db may not. */
	for (size_t i = 0; n > 1 && i < n; i++)
		layers[i].optional = true;
	return rules_db_load_layers(layers, n, flags, NULL, ret, err);
}

const struct rule *rules_db_find(const struct rules_db *db, const char *id)
{
	size_t lo = 0, hi = db->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(db->rules[mid]->id, id);
		if (c == 0)
			return db->rules[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool packages_disjoint(const struct rule *a, const struct rule *b)
{
	if (!a->packages || !b->packages)
		return false;
	for (size_t i = 0; a->packages[i]; i++)
		for (size_t j = 0; b->packages[j]; j++)
			if (s2c_streq(a->packages[i], b->packages[j]))
				return false;
	return true;
}

/* Record an overlap (collecting) or fail with it. */
static int overlap_found(struct rules_problems *collect, struct s2c_error *err)
{
	int r;

	if (!collect)
		return -EINVAL;
	r = rules_problems_add(collect, err->msg);
	s2c_error_clear(err);
	return r;
}

static int overlaps(const struct rules_db *db, struct rules_problems *collect,
		    struct s2c_error *err)
{
	for (size_t i = 0; i < db->n; i++)
		for (size_t j = i + 1; j < db->n; j++) {
			const struct rule *a = db->rules[i], *b = db->rules[j];

			if (packages_disjoint(a, b))
				continue;
			for (size_t x = 0; a->paths && a->paths[x]; x++)
				for (size_t y = 0; b->paths && b->paths[y]; y++) {
					int hit = glob_intersect(a->paths[x], b->paths[y]);
					if (hit < 0)
						return hit;
					if (!hit)
						continue;
					(void)s2c_error_set(
						err, -EINVAL,
						"%s: %s.match.paths[%zu]: '%s' overlaps '%s' of rule '%s' "
						"(%s %s); give both disjoint match.packages or narrow the globs",
						a->file, a->where, x, a->paths[x], b->paths[y], b->id,
						b->file, b->where);
					hit = overlap_found(collect, err);
					if (hit < 0)
						return hit;
				}
			for (size_t x = 0; a->names && a->names[x]; x++)
				for (size_t y = 0; b->names && b->names[y]; y++) {
					int e;
					if (!s2c_streq(a->names[x], b->names[y]))
						continue;
					(void)s2c_error_set(
						err, -EINVAL,
						"%s: %s.match.names[%zu]: '%s' is also a name of rule '%s' (%s %s)",
						a->file, a->where, x, a->names[x], b->id, b->file, b->where);
					e = overlap_found(collect, err);
					if (e < 0)
						return e;
				}
		}
	return 0;
}

int rules_db_check_overlaps(const struct rules_db *db, struct s2c_error *err)
{
	return overlaps(db, NULL, err);
}
