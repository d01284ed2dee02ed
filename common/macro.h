/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small macros shared by every module.  GNU extensions used by the project
 * (statement expressions, typeof, the cleanup attribute) appear only here and
 * in cleanup.h, so the rest of the code reads as plain C.
 */
#ifndef S2C_COMMON_MACRO_H
#define S2C_COMMON_MACRO_H

#include <stddef.h>

/** Number of elements of a true array (not a pointer). */
#define S2C_ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/** Hint for branches that are almost never taken (error paths). */
#define s2c_unlikely(x) __builtin_expect(!!(x), 0)
#define s2c_likely(x) __builtin_expect(!!(x), 1)

/** Mark printf-like functions so the compiler checks their format strings. */
#define S2C_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/** Mark a result the caller must not ignore. */
#define S2C_NODISCARD __attribute__((warn_unused_result))

/** Larger/smaller of two values of the same type, each evaluated once. */
#define S2C_MAX(a, b) S2C_MAX_(a, b, S2C_UNIQ(_a), S2C_UNIQ(_b))
#define S2C_MIN(a, b) S2C_MIN_(a, b, S2C_UNIQ(_a), S2C_UNIQ(_b))
#define S2C_MAX_(a, b, x, y) ({ __typeof__(a) x = (a); __typeof__(b) y = (b); x > y ? x : y; })
#define S2C_MIN_(a, b, x, y) ({ __typeof__(a) x = (a); __typeof__(b) y = (b); x < y ? x : y; })
#define S2C_CONCAT_(a, b) a##b
#define S2C_CONCAT(a, b) S2C_CONCAT_(a, b)
#define S2C_UNIQ(name) S2C_CONCAT(name, __COUNTER__)

/** array_reserve() (common/util.h) of the typed array @v with its room @alloc, both
 *  lvalues: 0 or -ENOMEM. */
#define S2C_ARRAY_RESERVE(v, alloc, need, first)                                           \
	({                                                                                  \
		void *_ar_v = (v);                                                          \
		int _ar_r = array_reserve(&_ar_v, &(alloc), (need), sizeof(*(v)), (first)); \
		(v) = _ar_v;                                                                \
		_ar_r;                                                                      \
	})

/** Capability bit mask for capability number @c (see capset_* helpers). */
#define S2C_CAPMASK(c) (UINT64_C(1) << (c))

/** Nonzero when @s is NULL or the empty string. */
#define s2c_isempty(s) (!(s) || !*(s))

/** Equality of two NUL-terminated strings. */
#define s2c_streq(a, b) (strcmp((a), (b)) == 0)

/** Whether the NUL-terminated string @s begins with @prefix. */
#define s2c_startswith(s, prefix) (strncmp((s), (prefix), strlen(prefix)) == 0)

#endif /* S2C_COMMON_MACRO_H */
