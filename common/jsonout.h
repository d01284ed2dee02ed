/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON helpers shared by every machine-readable output and every layer that
 * builds JSON (plans, journals, the state file, reports).
 *
 * json-c writes bytes as they are, so a file name with invalid UTF-8 would
 * make the whole document invalid.  Paths therefore go out as a valid UTF-8
 * string (invalid bytes replaced by U+FFFD) plus, only when something was
 * replaced, the exact bytes in hex under "<key>_hex".
 *
 * json-c ownership, once for the project: json_object_object_add() and
 * json_object_array_add() TAKE the reference passed in; json_object_object_get()
 * and json_object_array_get_idx() BORROW it.
 */
#ifndef S2C_COMMON_JSONOUT_H
#define S2C_COMMON_JSONOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

/** Release a json_object on scope exit (json_object_put accepts NULL). */
void jsonout_putp(struct json_object **o);
#define _cleanup_jsonput_ __attribute__((cleanup(jsonout_putp)))

/**
 * Add @value under @key in @obj as a JSON string that is always valid UTF-8;
 * when @value is not, also add "<key>_hex" with its exact bytes.
 * Returns 0 or -ENOMEM.
 */
int jsonout_add_string(struct json_object *obj, const char *key, const char *value);

/**
 * Add @v under @key, taking the reference.  A NULL @v is a failed
 * allocation, not a JSON null: -ENOMEM (use jsonout_add_null() for null).
 * Returns 0 or -ENOMEM (@v is released on failure).
 */
int jsonout_add(struct json_object *obj, const char *key, struct json_object *v);

/** Append @v to @array, taking it; NULL @v or a failure gives -ENOMEM. */
int jsonout_push(struct json_object *array, struct json_object *v);

/** Add a JSON null under @key.  Returns 0 or -ENOMEM. */
int jsonout_add_null(struct json_object *obj, const char *key);

/** jsonout_add_string() for @s, or a JSON null when @s is NULL. */
int jsonout_add_name(struct json_object *obj, const char *key, const char *s);

/** A new JSON string that is valid UTF-8 whatever @s holds (NULL on OOM). */
struct json_object *jsonout_string(const char *s);

/**
 * A new JSON array of the strings of @v (each as jsonout_string()): the
 * first @n, or with @n SIZE_MAX those before the first NULL; an empty array
 * for a NULL @v.  Returns the array or NULL on OOM.
 */
struct json_object *jsonout_strv(char *const *v, size_t n);

/** Add an int64 under @key.  Returns 0 or -ENOMEM. */
int jsonout_add_int(struct json_object *obj, const char *key, int64_t value);

/** Add a user or group id to @obj under @key, or null when @later (not assigned yet). */
int jsonout_add_id(struct json_object *obj, const char *key, uint32_t id, bool later);

/** Add a boolean under @key.  Returns 0 or -ENOMEM. */
int jsonout_add_bool(struct json_object *obj, const char *key, int value);

/**
 * Serialise @obj to @out (pretty, two-space indent, "/" not escaped) with a
 * final newline.  Returns 0, or -EIO when the stream reports an error.
 */
int jsonout_write(struct json_object *obj, FILE *out);

/**
 * Write what jsonout_write() would write for @doc with the @n elements @element makes
 * (each a new object, or NULL on OOM) in the array @key, which must be @doc's last member
 * and empty: byte for byte the same document, but only one element in memory at a time,
 * so a report of many files costs the memory of its largest file, not of all of them.
 * Returns 0, -ENOMEM, -EINVAL (@key not @doc's last member) or -EIO.
 */
int jsonout_write_array(struct json_object *doc, const char *key, size_t n,
			struct json_object *(*element)(size_t i, const void *userdata), const void *userdata,
			FILE *out);

/**
 * jsonout_write_array() for an empty @array anywhere in @doc, as long as nothing of
 * @doc comes after it (the last member at every level: SARIF's runs[0].results).
 * Returns 0, -ENOMEM, -EINVAL (@array not empty, or not last) or -EIO.
 */
int jsonout_write_stream(struct json_object *doc, struct json_object *array, size_t n,
			 struct json_object *(*element)(size_t i, const void *userdata),
			 const void *userdata, FILE *out);

#endif /* S2C_COMMON_JSONOUT_H */
