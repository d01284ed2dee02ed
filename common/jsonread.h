/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one strict JSON reader: rules databases and overrides, plans, journals, the
 * state file, learn records, merged audit reports and the documents of container
 * images are all parsed here, through json-c, and the same way.
 *
 * Strict means: valid UTF-8 without NUL or raw control characters, no trailing
 * data, at most 64 levels of nesting, no object with the same key twice (json-c
 * would keep the last one silently), inputs bounded in size; then, where the
 * schema is closed, unknown keys, wrong types and numbers out of range are errors
 * too.  Every problem names the file and the JSON path of the value (or the line
 * and column of a syntax error), e.g.
 * "db/network.json: $.rules[3].match.paths[0]: expected a string".
 *
 * Two modes share the parser, the paths and the message format:
 *  - stop at the first problem (jsonread_*(): the problem in a struct s2c_error),
 *    for inputs a developer fixes one message at a time;
 *  - record every problem and go on (jcheck_*(): a struct jcheck, whose optional
 *    sink struct jcheck_problems keeps them all), for `plan --check`, which lists
 *    everything wrong with a plan at once.
 * Documents whose schema is open (OCI, reports of other versions) look members up
 * with jget(), which reads only what it knows.
 *
 * The objects borrowed from the tree stay valid as long as the root returned by
 * jsonread_parse_*() is held.
 */
#ifndef S2C_COMMON_JSONREAD_H
#define S2C_COMMON_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct json_object;
struct s2c_error;

/** Largest JSON file accepted. */
#define JSONREAD_MAX_SIZE (16u << 20)

/** Deepest nesting of arrays and objects accepted. */
#define JSONREAD_MAX_DEPTH 64

/** Where we are in a document, for messages. */
struct jpath {
	const char *file;          /**< file name for messages */
	char path[512];            /**< "$.rules[3].match" */
};

/**
 * Parse @size bytes at @text strictly (valid UTF-8 without NUL or control
 * characters, no trailing garbage, no duplicate keys, at most
 * JSONREAD_MAX_DEPTH levels).
 * @file   name used in messages.
 * @ret    a new tree, release with json_object_put().
 * Returns 0, -EFBIG or -EINVAL with "file:LINE:COL: message" in @err (an object
 * with a key twice: "file: $.path: message").
 */
int jsonread_parse_mem(const char *text, size_t size, const char *file, struct json_object **ret,
		       struct s2c_error *err);

/** An element of the array jsonread_parse_stream() hands over. */
struct jsonread_element {
	struct json_object *value;  /**< borrowed, released after the call; NULL for a JSON null */
	const struct jpath *path;   /**< "$.entries[3]" */
	size_t index;
	size_t offset, length;      /**< its text in the document, for jsonread_parse_mem()
				         of it again later */
};

/**
 * jsonread_parse_mem() of a document of up to @max bytes whose top-level object holds
 * one array too large to hold as json-c objects: the array under @key (a plan's
 * entries, the state's files, a report's files) goes to @element one element at a
 * time, each checked as strictly as a whole document and released after the call,
 * and the tree returned holds an empty array in its place.  Everything else is
 * parsed whole.
 * @element  a negative return stops the parse and is returned.
 * A document that is not an object is parsed by jsonread_parse_mem() (when
 * within JSONREAD_MAX_SIZE), so that its messages are the same.
 * Returns 0, -EFBIG, -EINVAL, -ENOMEM or @element's error, with @err.
 */
int jsonread_parse_stream(const char *text, size_t size, size_t max, const char *file,
			  const char *key,
			  int (*element)(const struct jsonread_element *e, void *userdata),
			  void *userdata, struct json_object **ret, struct s2c_error *err);

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

/** jsonread_slurp() of a file of at most @max bytes. */
int jsonread_slurp_max(int dirfd, const char *name, const char *display, size_t max,
		       char **ret_buf, size_t *ret_len, uint32_t *ret_uid, uint32_t *ret_mode,
		       struct s2c_error *err);

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
 * A string member as a new string: NULL when absent or null, an error when
 * missing and @required or of another type.  Returns 0, -EINVAL or -ENOMEM.
 */
int jsonread_strdup(struct json_object *obj, const struct jpath *p, const char *key,
		    bool required, char **ret, struct s2c_error *err);

/**
 * An array of strings as a new NULL-terminated vector of borrowed pointers
 * (free() the vector only).  @min_len: minimum element count.
 */
int jsonread_strv(struct json_object *obj, const struct jpath *p, const char *key, bool required,
		  size_t min_len, const char ***ret, size_t *ret_n, struct s2c_error *err);

/**
 * The member @key of the object @o when it has the type @type, borrowed; NULL
 * when @o is not an object, @key is absent or of another type.  For documents
 * whose schema is open, where what is not understood is left alone.
 */
struct json_object *jget(struct json_object *o, const char *key, int type);

/** jget() of a string, as its text (borrowed), or NULL. */
const char *jget_str(struct json_object *o, const char *key);

/* --- the mode that records every problem ------------------------------------------------ */

/** Most problems kept in a struct jcheck_problems; later ones are only counted. */
#define JCHECK_PROBLEMS_MAX 200

/**
 * One problem, in fields; the one place that prints it joins them as
 * "file: $.path: message".  All three are owned, and hold names as they are
 * (escape them before printing).
 */
struct jcheck_problem {
	char *file;        /**< the file the problem is in */
	char *path;        /**< "$.entries[3].mode"; NULL when the problem is the document's
				as a whole (a syntax error), whose @message is then complete,
				naming the file and the line */
	char *message;     /**< "'4755x' is not a mode: expected ..." */
};

/** Every problem found, in reading order. */
struct jcheck_problems {
	struct jcheck_problem *v;
	size_t n;
	size_t dropped;    /**< problems found beyond JCHECK_PROBLEMS_MAX */
};

/** Free what @p holds and zero it (accepts a zeroed struct). */
void jcheck_problems_release(struct jcheck_problems *p);

/** The state of one check.  Zero-initialise, then set @out if wanted. */
struct jcheck {
	struct jcheck_problems *out;   /**< optional: receives every problem */
	struct s2c_error first;        /**< the first problem */
	size_t count;                  /**< problems so far */
	bool oom;                      /**< an allocation failed: the result is void */
};

/**
 * Record a problem of @file at the JSON path @path (NULL: of the document as a
 * whole, @message complete, e.g. a JSON syntax error) with @message.
 */
void jcheck_record(struct jcheck *jc, const char *file, const char *path, const char *message);

/** Record "file: <p>: message"; returns -EINVAL. */
int jcheck_problem(struct jcheck *jc, const struct jpath *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * Record again in @jc what @from recorded (its kept problems, in order, and the
 * count of those it did not keep): problems found apart, told in their place.
 */
void jcheck_replay(struct jcheck *jc, const struct jcheck *from);

/** Record "file: <p>.<key>: message". */
void jcheck_problem_at(struct jcheck *jc, const struct jpath *p, const char *key,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/**
 * The result of a check: 0 when nothing was found, -ENOMEM after an
 * allocation failure, else -EINVAL with the first problem in @err followed by
 * "(and N more problems)" when there were several.
 */
int jcheck_finish(const struct jcheck *jc, struct s2c_error *err);

/**
 * The member @key of @o, borrowed; NULL with *ret_present false when absent
 * (a JSON null gives NULL with *ret_present true).
 */
struct json_object *jcheck_get(struct json_object *o, const char *key, bool *ret_present);

/**
 * Check that @o is an object (else one problem and -EINVAL), then report each
 * key not in the NULL-terminated @allowed and each key of @required that is
 * missing.  Returns 0 when @o is an object, whatever its keys.
 */
int jcheck_keys(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		const char *const *allowed, const char *const *required);

/**
 * Typed members of the object @o at @p.  Each returns 0 with the value in
 * *ret, -ENOENT when @key is absent, -EINVAL after recording a problem, or
 * -ENOMEM.
 *
 * jcheck_string: a string (borrowed from the tree), not empty unless
 * @nullable, where a JSON null gives NULL.
 */
int jcheck_string(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		  const char *key, bool nullable, const char **ret);

/** true or false. */
int jcheck_bool(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		const char *key, bool *ret);

/**
 * An integer in [@min, @max] (values above INT64_MAX are read as unsigned).
 * @ret_s, @ret_u  either may be NULL; @ret_u gets 0 for a negative value.
 */
int jcheck_int(struct jcheck *jc, struct json_object *o, const struct jpath *p,
	       const char *key, int64_t min, uint64_t max, int64_t *ret_s, uint64_t *ret_u);

/**
 * A name that may not be valid UTF-8: the string @key (with U+FFFD where a
 * byte was not UTF-8) and, only then, "<key>_hex" with its exact bytes, which
 * must match it.  *ret is a new string with the exact bytes (NULL for null
 * when @nullable).
 */
int jcheck_name(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		const char *key, bool nullable, char **ret);

/**
 * An array of strings as a new NULL-terminated vector of new strings, with
 * its length in *ret_n (strings of the wrong type are reported and left
 * out).  A JSON null leaves *ret and *ret_n alone when @nullable.
 */
int jcheck_strv(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		const char *key, bool nullable, char ***ret, size_t *ret_n);

/** True when @s is exactly @len lowercase hex digits. */
bool jcheck_lower_hex(const char *s, size_t len);

#endif /* S2C_COMMON_JSONREAD_H */
