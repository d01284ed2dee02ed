/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the shell parser (pkg/shparse.h): the syntax tree as it is built and
 * freed.  New nodes and word parts count against the parse's node budget;
 * every function that adds something takes it over, or frees it when it
 * cannot (so an error path never has two owners).  Not for use outside
 * pkg/sh*.c.
 *
 * Internal: shparse shlex shword shcompound shtree.
 */
#ifndef S2C_PKG_SHTREE_H
#define S2C_PKG_SHTREE_H

#include <stddef.h>

#include "shparse.h"

struct shlex;

/** Free what @w holds (parts, their arguments and substitutions) and zero it. */
void shtree_word_release(struct sh_word *w);

/** Free @n and everything below it; accepts NULL. */
void shtree_node_free(struct sh_node *n);

/**
 * Append a zeroed part to @w, counted against @p's budget.  Returns 0 with
 * the part in @ret (owned by @w; valid until the next part is added), or
 * -EINVAL past the budget, or -ENOMEM.
 */
int shtree_part_add(struct shlex *p, struct sh_word *w, struct sh_part **ret);

/** The word's text when it is one unquoted literal, else NULL (borrowed from @w). */
const char *shtree_plain(const struct sh_word *w);

/**
 * A new node of @kind at the current line, counted against @p's budget.
 * Returns 0 with it in @ret (free with shtree_node_free()), or -errno.
 */
int shtree_node_new(struct shlex *p, enum sh_kind kind, struct sh_node **ret);

/** Append @kid (may be NULL) to @n's kids, taking it over; frees it on -ENOMEM. */
int shtree_kid_add(struct sh_node *n, struct sh_node *kid);

/**
 * Append *@w to the array @v of @n words, taking its parts over (*@w is
 * zeroed); on -ENOMEM releases *@w instead.
 */
int shtree_words_add(struct sh_word **v, size_t *n, struct sh_word *w);

#endif /* S2C_PKG_SHTREE_H */
