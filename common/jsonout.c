/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "jsonout.h"
#include "util.h"
#include "common.h"

void jsonout_putp(struct json_object **o)
{
	json_object_put(*o);
}

struct json_object *jsonout_string(const char *s)
{
	_cleanup_free_ char *clean = NULL;

	if (utf8_valid(s, strlen(s)))
		return json_object_new_string(s);
	clean = utf8_sanitise(s);
	return clean ? json_object_new_string(clean) : NULL;
}

int jsonout_add(struct json_object *obj, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(obj, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int jsonout_add_string(struct json_object *obj, const char *key, const char *value)
{
	size_t len;
	_cleanup_free_ char *hex = NULL, *hexkey = NULL;
	int r;

	if (!value)
		return json_object_object_add(obj, key, NULL) < 0 ? -ENOMEM : 0;
	len = strlen(value);
	r = jsonout_add(obj, key, jsonout_string(value));
	if (r < 0 || utf8_valid(value, len))
		return r;
	hex = malloc(2 * len + 1);
	if (!hex || asprintf(&hexkey, "%s_hex", key) < 0)
		return -ENOMEM;
	hex_encode(value, len, hex);
	return jsonout_add(obj, hexkey, json_object_new_string(hex));
}

int jsonout_add_int(struct json_object *obj, const char *key, int64_t value)
{
	return jsonout_add(obj, key, json_object_new_int64(value));
}

int jsonout_add_id(struct json_object *obj, const char *key, uint32_t id, bool later)
{
	return later ? jsonout_add_null(obj, key) : jsonout_add_int(obj, key, id);
}

int jsonout_add_bool(struct json_object *obj, const char *key, int value)
{
	return jsonout_add(obj, key, json_object_new_boolean(value));
}

int jsonout_write(struct json_object *obj, FILE *out)
{
	const char *s = json_object_to_json_string_ext(
		obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!s)
		return -ENOMEM;
	if (fputs(s, out) == EOF || fputc('\n', out) == EOF || ferror(out))
		return -EIO;
	return 0;
}

int jsonout_push(struct json_object *array, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(array, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

struct json_object *jsonout_strv(char *const *v, size_t n)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && v && (n == SIZE_MAX ? v[i] != NULL : i < n); i++)
		if (jsonout_push(a, jsonout_string(v[i])) < 0)
			return NULL;
	return TAKE_PTR(a);
}

int jsonout_add_null(struct json_object *obj, const char *key)
{
	return json_object_object_add(obj, key, NULL) < 0 ? -ENOMEM : 0;
}

int jsonout_add_name(struct json_object *obj, const char *key, const char *s)
{
	return s ? jsonout_add_string(obj, key, s) : jsonout_add_null(obj, key);
}
