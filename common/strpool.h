/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pool of strings, each kept once: many records that repeat a few values
 * (a verdict, a mode, an owner, a package) point into it instead of holding
 * copies.  Strings are looked up by strhash(), which untrusted text cannot
 * steer into one chain.  Freed all at once with the pool.
 */
#ifndef S2C_COMMON_STRPOOL_H
#define S2C_COMMON_STRPOOL_H

#include <stddef.h>

#include "hashindex.h"

/** The pool; zero-initialised is empty. */
struct strpool {
	char **v;
	size_t n, alloc;
	struct hashindex index;
};

/**
 * The pool's copy of *@s, which it takes (and frees when the pool has one
 * already); *@s is then the pool's.  A NULL *@s stays NULL.  Returns 0, or
 * -ENOMEM with *@s freed and NULL.
 */
int strpool_take(struct strpool *p, char **s);

/** Free every string of the pool; it is empty afterwards. */
void strpool_release(struct strpool *p);

#endif /* S2C_COMMON_STRPOOL_H */
