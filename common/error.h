/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rich errors for library code that must not print.
 *
 * Library functions return 0 (or a positive count) on success and -errno on
 * failure.  When the caller needs more than an errno (which file, which JSON
 * path, which line), the function also takes an optional struct s2c_error *,
 * which stays untouched on success and holds one complete message on failure.
 * The CLI layer prints it.
 */
#ifndef S2C_COMMON_ERROR_H
#define S2C_COMMON_ERROR_H

#include <stdbool.h>

#include "macro.h"

/** Longest message kept; longer ones are truncated with "...". */
#define S2C_ERROR_MAX 1024

/** One error: the negative errno and a message without trailing newline. */
struct s2c_error {
	int code;                  /**< negative errno, 0 when unset */
	char msg[S2C_ERROR_MAX];   /**< human-readable message, "" when unset */
};

/**
 * Record a formatted error in @err (which may be NULL).
 * @code  a negative errno; a positive value is negated, 0 becomes -EINVAL.
 * Returns the (negative) code, so callers can write
 * `return s2c_error_set(err, -EINVAL, "...")`.
 */
int s2c_error_set(struct s2c_error *err, int code, const char *fmt, ...) S2C_PRINTF(3, 4);

/**
 * Like s2c_error_set(), then append ": <strerror(code)>" to the message.
 */
int s2c_error_errno(struct s2c_error *err, int code, const char *fmt, ...) S2C_PRINTF(3, 4);

/**
 * Prefix an already set message with a formatted context ("ctx: old msg").
 * Does nothing when @err is NULL or unset.  Returns err->code (or -EINVAL).
 */
int s2c_error_prefix(struct s2c_error *err, const char *fmt, ...) S2C_PRINTF(2, 3);

/** Reset @err to the unset state. */
void s2c_error_clear(struct s2c_error *err);

/** True when @err holds a message. */
static inline bool s2c_error_isset(const struct s2c_error *err)
{
	return err && err->msg[0];
}

#endif /* S2C_COMMON_ERROR_H */
