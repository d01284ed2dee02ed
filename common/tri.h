/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Three-valued logic for facts that may be unknown (a sysctl an image does
 * not set, a kernel version that cannot be read): Kleene's "and" and "or",
 * written once.  Values are 1 (holds), 0 (does not hold) and -1 (unknown).
 */
#ifndef S2C_COMMON_TRI_H
#define S2C_COMMON_TRI_H

#include <stdbool.h>

/** Holds, does not hold, unknown. */
enum {
	TRI_FALSE = 0,
	TRI_TRUE = 1,
	TRI_UNKNOWN = -1,
};

/** A bool as a three-valued truth. */
static inline int tri_of(bool b)
{
	return b ? TRI_TRUE : TRI_FALSE;
}

/** Kleene and: false wins, then unknown. */
static inline int tri_and(int a, int b)
{
	if (a == TRI_FALSE || b == TRI_FALSE)
		return TRI_FALSE;
	return a == TRI_TRUE && b == TRI_TRUE ? TRI_TRUE : TRI_UNKNOWN;
}

/** Kleene or: true wins, then unknown. */
static inline int tri_or(int a, int b)
{
	if (a == TRI_TRUE || b == TRI_TRUE)
		return TRI_TRUE;
	return a == TRI_FALSE && b == TRI_FALSE ? TRI_FALSE : TRI_UNKNOWN;
}

#endif /* S2C_COMMON_TRI_H */
