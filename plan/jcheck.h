/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strict JSON reading that keeps going: every problem of a document, not
 * just the first.
 *
 * rules/jsonread stops at the first error, which suits a rules database that
 * a developer fixes one message at a time.  A plan is often edited by a
 * reviewer, and `plan --check` should list everything wrong with it at once.
 * These readers record each problem as "file: $.path: message" (the format of
 * jsonread, whose jpath they use) in a struct jcheck and return a negative
 * number when they produced no value, so the caller skips whatever depended
 * on it and goes on with the next member.
 *
 * A member that is absent is not reported by the typed readers (they return
 * -ENOENT): jcheck_keys() reports each missing required key once.
 *
 * Internal: planload planentry jcheck.
 */
#ifndef S2C_PLAN_JCHECK_H
#define S2C_PLAN_JCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "jsonread.h"

struct json_object;

/** Most problems kept in a struct jcheck_problems; later ones are only counted. */
#define JCHECK_PROBLEMS_MAX 200

/** Every problem found, in reading order. */
struct jcheck_problems {
	char **v;          /**< "file: $.path: message", owned; names as they are
			        (escape them before printing) */
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

/** Record the complete message @msg (e.g. a JSON syntax error) as a problem. */
void jcheck_record(struct jcheck *jc, const char *msg);

/** Record "file: <p>: message"; returns -EINVAL. */
int jcheck_problem(struct jcheck *jc, const struct jpath *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

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

#endif /* S2C_PLAN_JCHECK_H */
