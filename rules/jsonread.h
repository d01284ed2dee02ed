/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strict reading of trusted JSON inputs (rules database, plans, journals).
 *
 * Every error names the file and the JSON path of the offending value, e.g.
 * "db/network.json: $.rules[3].match.paths[0]: expected a string".  Unknown
 * keys are errors, duplicate keys are errors, the text must be valid UTF-8,
 * and files are size-bounded.  The object borrowed from the tree stays valid
 * as long as the root returned by jsonread_parse_*() is held.
 */
#ifndef S2C_RULES_JSONREAD_H
#define S2C_RULES_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct s2c_error;

/** Largest JSON file accepted. */
#define JSONREAD_MAX_SIZE (16u << 20)

/** Where we are in a document, for messages. */
struct jpath {
	const char *file;          /**< file name for messages */
	char path[512];            /**< "$.rules[3].match" */
};

/**
 * Parse @size bytes at @text strictly (valid UTF-8, no trailing garbage,
 * no duplicate keys).
 * @file   name used in messages.
 * @ret    a new tree, release with json_object_put().
 * Returns 0 or -EINVAL with "file:LINE:COL: message" in @err.
 */
int jsonread_parse_mem(const char *text, size_t size, const char *file, struct json_object **ret,
		       struct s2c_error *err);

/**
 * Read and parse the regular file @name relative to @dirfd (O_NOFOLLOW).
 * @st_out  optional: receives the file's uid, gid and mode for trust checks
 *          (taken from the opened fd).
 * Returns 0 or -errno with a message in @err.
 */
int jsonread_parse_file(int dirfd, const char *name, const char *display,
			struct json_object **ret, uint32_t *ret_uid, uint32_t *ret_mode,
			struct s2c_error *err);

/**
 * Read the regular file @name relative to @dirfd (O_NOFOLLOW, at most
 * JSONREAD_MAX_SIZE bytes) into a new NUL-terminated buffer.
 * @ret_uid, @ret_mode  optional: owner and mode of the opened file.
 * Returns 0 or -errno with a message naming @display in @err.
 */
int jsonread_slurp(int dirfd, const char *name, const char *display, char **ret_buf,
		   size_t *ret_len, uint32_t *ret_uid, uint32_t *ret_mode, struct s2c_error *err);

/** Start a path at "$". */
void jpath_init(struct jpath *p, const char *file);

/** A child path: "<parent>.key".  */
struct jpath jpath_key(const struct jpath *p, const char *key);

/** A child path: "<parent>[i]". */
struct jpath jpath_index(const struct jpath *p, size_t i);

/** Record "file: path: message" in @err; returns -EINVAL. */
int jpath_error(const struct jpath *p, struct s2c_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * Check that @obj is an object whose keys are all in the NULL-terminated
 * @allowed list and that every key of @required is present.
 * Returns 0 or -EINVAL with the first unknown or missing key.
 */
int jsonread_keys(struct json_object *obj, const struct jpath *p, const char *const *allowed,
		  const char *const *required, struct s2c_error *err);

/**
 * Typed getters.  Each looks up @key in the object @obj; a missing key
 * returns 0 and leaves *ret untouched unless @required; a value of the wrong
 * type is an error.  Strings are borrowed from the tree.
 */
int jsonread_string(struct json_object *obj, const struct jpath *p, const char *key,
		    bool required, const char **ret, struct s2c_error *err);
int jsonread_bool(struct json_object *obj, const struct jpath *p, const char *key, bool required,
		  bool *ret, struct s2c_error *err);
int jsonread_int(struct json_object *obj, const struct jpath *p, const char *key, bool required,
		 int64_t min, int64_t max, int64_t *ret, struct s2c_error *err);
/** An object member (borrowed); NULL when absent and not required. */
int jsonread_object(struct json_object *obj, const struct jpath *p, const char *key,
		    bool required, struct json_object **ret, struct s2c_error *err);
/** An array member (borrowed); NULL when absent and not required. */
int jsonread_array(struct json_object *obj, const struct jpath *p, const char *key,
		   bool required, struct json_object **ret, struct s2c_error *err);

/**
 * An array of strings as a new NULL-terminated vector of borrowed pointers
 * (free() the vector only).  @min_len: minimum element count.
 */
int jsonread_strv(struct json_object *obj, const struct jpath *p, const char *key, bool required,
		  size_t min_len, const char ***ret, size_t *ret_n, struct s2c_error *err);

#endif /* S2C_RULES_JSONREAD_H */
