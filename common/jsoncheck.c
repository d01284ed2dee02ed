/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mode of common/jsonread that records every problem and goes on (jsonread.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "jsonread.h"
#include "util.h"
#include "common.h"

static void problem_release(struct jcheck_problem *p)
{
	free(p->file);
	free(p->path);
	free(p->message);
}

void jcheck_problems_release(struct jcheck_problems *p)
{
	for (size_t i = 0; i < p->n; i++)
		problem_release(&p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

void jcheck_record(struct jcheck *jc, const char *file, const char *path, const char *message)
{
	struct jcheck_problem *nv, pr;

	if (jc->count++ == 0 && path)
		(void)s2c_error_set(&jc->first, -EINVAL, "%s: %s: %s", file, path, message);
	else if (jc->count == 1)    /* the first, and complete */
		(void)s2c_error_set(&jc->first, -EINVAL, "%s", message);
	if (!jc->out)
		return;
	if (jc->out->n >= JCHECK_PROBLEMS_MAX) {
		jc->out->dropped++;
		return;
	}
	pr = (struct jcheck_problem){ .file = strdup(file), .path = path ? strdup(path) : NULL,
				      .message = strdup(message) };
	nv = reallocarray(jc->out->v, jc->out->n + 1, sizeof(*nv));
	if (nv)
		jc->out->v = nv;
	if (!nv || !pr.file || (path && !pr.path) || !pr.message) {
		problem_release(&pr);
		jc->oom = true;
		return;
	}
	nv[jc->out->n++] = pr;
}

void jcheck_replay(struct jcheck *jc, const struct jcheck *from)
{
	size_t kept = from->out ? from->out->n : 0;

	for (size_t i = 0; i < kept; i++)
		jcheck_record(jc, from->out->v[i].file, from->out->v[i].path,
			      from->out->v[i].message);
	if (from->count > kept) {
		/* beyond what @from kept: counted, as jcheck_record() counts what it drops */
		if (jc->count == 0)
			jc->first = from->first;
		jc->count += from->count - kept;
		if (jc->out)
			jc->out->dropped += from->count - kept;
	}
	jc->oom |= from->oom;
}

int jcheck_problem(struct jcheck *jc, const struct jpath *p, const char *fmt, ...)
{
	char msg[S2C_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	jcheck_record(jc, p->file, p->path, msg);
	return -EINVAL;
}

void jcheck_problem_at(struct jcheck *jc, const struct jpath *p, const char *key,
		       const char *fmt, ...)
{
	struct jpath kp = jpath_key(p, key);
	char msg[S2C_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(void)jcheck_problem(jc, &kp, "%s", msg);
}

int jcheck_finish(const struct jcheck *jc, struct s2c_error *err)
{
	if (jc->oom)
		return -ENOMEM;
	if (!jc->count)
		return 0;
	if (jc->count == 1)
		return s2c_error_set(err, -EINVAL, "%s", jc->first.msg);
	return s2c_error_set(err, -EINVAL, "%s (and %zu more problem%s)", jc->first.msg,
			     jc->count - 1, jc->count == 2 ? "" : "s");
}

/* --- typed members ------------------------------------------------------------------- */

struct json_object *jcheck_get(struct json_object *o, const char *key, bool *ret_present)
{
	struct json_object *v = NULL;

	*ret_present = json_object_object_get_ex(o, key, &v);
	return v;
}

int jcheck_keys(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		const char *const *allowed, const char *const *required)
{
	if (!json_object_is_type(o, json_type_object))
		return jcheck_problem(jc, p, "expected an object");
	json_object_object_foreach(o, key, val) {
		bool ok = false;
		(void)val;
		for (size_t i = 0; allowed[i] && !ok; i++)
			ok = s2c_streq(allowed[i], key);
		if (!ok)
			(void)jcheck_problem(jc, p, "unknown key '%s'", key);
	}
	for (size_t i = 0; required[i]; i++)
		if (!json_object_object_get_ex(o, required[i], NULL))
			(void)jcheck_problem(jc, p, "missing key '%s'", required[i]);
	return 0;
}

/*
 * Text must be valid UTF-8 without NUL: exact bytes only come through
 * "<key>_hex".  json-c lets a \u0000 escape through (a string shorter than
 * its length) and, even with JSON_TOKENER_VALIDATE_UTF8, overlong sequences
 * (found by fuzzing), so check again with the project's strict validator.
 */
static int check_text(struct jcheck *jc, const struct jpath *p, struct json_object *v)
{
	const char *s = json_object_get_string(v);
	size_t len = (size_t)json_object_get_string_len(v);

	if (strlen(s) != len)
		return jcheck_problem(jc, p, "holds a NUL character");
	if (!utf8_valid(s, len))
		return jcheck_problem(jc, p, "is not valid UTF-8");
	return 0;
}

int jcheck_string(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		  const char *key, bool nullable, const char **ret)
{
	bool present;
	struct json_object *v = jcheck_get(o, key, &present);
	struct jpath kp = jpath_key(p, key);

	if (!present)
		return -ENOENT;
	if (!v && nullable) {
		*ret = NULL;
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return jcheck_problem(jc, &kp, "%s",
				      nullable ? "expected a string or null" : "expected a string");
	if (check_text(jc, &kp, v) < 0)
		return -EINVAL;
	*ret = json_object_get_string(v);
	if (!nullable && !**ret)
		return jcheck_problem(jc, &kp, "must not be empty");
	return 0;
}

int jcheck_bool(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		const char *key, bool *ret)
{
	bool present;
	struct json_object *v = jcheck_get(o, key, &present);
	struct jpath kp = jpath_key(p, key);

	if (!present)
		return -ENOENT;
	if (!json_object_is_type(v, json_type_boolean))
		return jcheck_problem(jc, &kp, "expected true or false");
	*ret = json_object_get_boolean(v);
	return 0;
}

int jcheck_int(struct jcheck *jc, struct json_object *o, const struct jpath *p,
	       const char *key, int64_t min, uint64_t max, int64_t *ret_s, uint64_t *ret_u)
{
	bool present;
	struct json_object *v = jcheck_get(o, key, &present);
	struct jpath kp = jpath_key(p, key);
	int64_t s;
	uint64_t u;

	if (!present)
		return -ENOENT;
	if (!json_object_is_type(v, json_type_int))
		return jcheck_problem(jc, &kp, "expected an integer");
	s = json_object_get_int64(v);
	u = json_object_get_uint64(v);
	if (s < 0 ? s < min : (u > max || (min > 0 && u < (uint64_t)min)))
		return jcheck_problem(jc, &kp, "integer out of range %lld..%llu", (long long)min,
				      (unsigned long long)max);
	if (ret_s)
		*ret_s = s;
	if (ret_u)
		*ret_u = s < 0 ? 0 : u;
	return 0;
}

bool jcheck_lower_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return !s[len];
}

int jcheck_name(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		const char *key, bool nullable, char **ret)
{
	char hexkey[64];
	const char *s = NULL, *hex = NULL;
	_cleanup_free_ char *bytes = NULL, *clean = NULL;
	size_t len;
	struct jpath hp;
	int r = jcheck_string(jc, o, p, key, nullable, &s);

	(void)snprintf(hexkey, sizeof(hexkey), "%s_hex", key);
	hp = jpath_key(p, hexkey);
	if (r < 0 || jcheck_string(jc, o, p, hexkey, false, &hex) < 0) {
		if (r == 0 && !(*ret = s ? strdup(s) : NULL) && s)
			jc->oom = true;
		return r;
	}
	if (!s)
		return jcheck_problem(jc, &hp, "given for a null '%s'", key);
	if (!jcheck_lower_hex(hex, strlen(hex)) || hex_decode(hex, &bytes, &len) < 0)
		return jcheck_problem(jc, &hp, "expected lowercase hex digits, two per byte");
	if (strlen(bytes) != len)
		return jcheck_problem(jc, &hp, "holds a NUL byte");
	if (utf8_valid(bytes, len))
		return jcheck_problem(jc, &hp, "only allowed when '%s' is not valid UTF-8", key);
	clean = utf8_sanitise(bytes);
	if (!clean) {
		jc->oom = true;
		return -ENOMEM;
	}
	if (!s2c_streq(clean, s))
		return jcheck_problem(jc, &hp, "does not match '%s'", key);
	*ret = TAKE_PTR(bytes);
	return 0;
}

int jcheck_strv(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		const char *key, bool nullable, char ***ret, size_t *ret_n)
{
	bool present;
	struct json_object *a = jcheck_get(o, key, &present);
	struct jpath kp = jpath_key(p, key);
	size_t n;
	int r = 0;

	if (!present)
		return -ENOENT;
	if (!a && nullable)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return jcheck_problem(jc, &kp, "%s", nullable ?
				      "expected an array of strings or null" :
				      "expected an array of strings");
	n = json_object_array_length(a);
	*ret = calloc(n + 1, sizeof(char *));
	if (!*ret) {
		jc->oom = true;
		return -ENOMEM;
	}
	*ret_n = 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		struct jpath ip = jpath_index(&kp, i);
		if (!json_object_is_type(e, json_type_string)) {
			r = jcheck_problem(jc, &ip, "expected a string");
			continue;
		}
		if (check_text(jc, &ip, e) < 0) {
			r = -EINVAL;
			continue;
		}
		if (!((*ret)[(*ret_n)++] = strdup(json_object_get_string(e))))
			jc->oom = true;
	}
	return jc->oom ? -ENOMEM : r;
}
