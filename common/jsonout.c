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

/* How every document is written: pretty, two-space indent, "/" not escaped. */
#define JSONOUT_FLAGS \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

int jsonout_write(struct json_object *obj, FILE *out)
{
	const char *s = json_object_to_json_string_ext(obj, JSONOUT_FLAGS);

	if (!s)
		return -ENOMEM;
	if (fputs(s, out) == EOF || fputc('\n', out) == EOF || ferror(out))
		return -EIO;
	return 0;
}

/* @s with @indent before every line but the first, as json-c indents a nested value. */
static int put_indented(const char *s, const char *indent, FILE *out)
{
	for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1)
		if (fwrite(s, 1, (size_t)(nl + 1 - s), out) != (size_t)(nl + 1 - s) ||
		    fputs(indent, out) == EOF)
			return -EIO;
	return fputs(s, out) == EOF ? -EIO : 0;
}

/* What stands for the elements while the rest of the document is serialised: json-c
 * writes the \x01 as \u0001, which the end of the document is then searched for. */
#define STREAM_SENTINEL "s2c-jsonout-stream\x01"
#define STREAM_SENTINEL_TEXT "\"s2c-jsonout-stream\\u0001\""

int jsonout_write_stream(struct json_object *doc, struct json_object *array, size_t n,
			 struct json_object *(*element)(size_t i, const void *userdata),
			 const void *userdata, FILE *out)
{
	const char *s, *at, *line, *p;
	_cleanup_free_ char *indent = NULL;
	int r = 0;

	if (!json_object_is_type(array, json_type_array) || json_object_array_length(array) != 0)
		return -EINVAL;
	if (jsonout_push(array, json_object_new_string(STREAM_SENTINEL)) < 0)
		return -ENOMEM;
	s = json_object_to_json_string_ext(doc, JSONOUT_FLAGS);
	if (!s) {
		(void)json_object_array_del_idx(array, 0, 1);
		return -ENOMEM;
	}
	/* the last sentinel, with only the ends of arrays and objects after it (an earlier
	 * one is a string of the document's own) */
	for (at = NULL, p = s; (p = strstr(p, STREAM_SENTINEL_TEXT)); p++)
		at = p;
	if (!at || at[strspn(at + strlen(STREAM_SENTINEL_TEXT), " \n]}") +
		      strlen(STREAM_SENTINEL_TEXT)] != '\0') {
		(void)json_object_array_del_idx(array, 0, 1);
		return -EINVAL;
	}
	for (line = at; line > s && line[-1] == ' '; line--)
		;
	indent = strndup(line, (size_t)(at - line));
	if (!indent || line == s || line[-1] != '\n') {
		(void)json_object_array_del_idx(array, 0, 1);
		return indent ? -EINVAL : -ENOMEM;
	}
	/* up to and including the "[\n" of the array; json-c writes an empty one "[\n  ]" */
	if (fwrite(s, 1, (size_t)(line - s), out) != (size_t)(line - s))
		r = -EIO;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct json_object *e = element(i, userdata);
		const char *es = e ? json_object_to_json_string_ext(e, JSONOUT_FLAGS) : NULL;

		if (!es)
			r = -ENOMEM;
		else if (i && fputs(",\n", out) == EOF)
			r = -EIO;
		else if (fputs(indent, out) == EOF)
			r = -EIO;
		else
			r = put_indented(es, indent, out);
		json_object_put(e);
	}
	p = at + strlen(STREAM_SENTINEL_TEXT);
	if (r == 0 && (fputs(n ? p : p + 1, out) == EOF || fputc('\n', out) == EOF || ferror(out)))
		r = -EIO;
	(void)json_object_array_del_idx(array, 0, 1);
	return r;
}

int jsonout_write_array(struct json_object *doc, const char *key, size_t n,
			struct json_object *(*element)(size_t i, const void *userdata), const void *userdata,
			FILE *out)
{
	struct json_object *array;
	const char *last = NULL;

	json_object_object_foreach(doc, k, v) {
		(void)v;
		last = k;
	}
	if (!last || !s2c_streq(last, key) || !json_object_object_get_ex(doc, key, &array))
		return -EINVAL;
	return jsonout_write_stream(doc, array, n, element, userdata, out);
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
