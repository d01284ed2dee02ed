/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the shell parser (pkg/shparse.h): compound commands.  if/elif/else,
 * case, for, while, until, "{ }", "( )" with the redirections after them, and
 * bash's "function name" definitions; their lists go back through
 * shparse_list().  Not for use outside pkg/sh*.c.
 *
 * Internal: shparse shlex shword shcompound shtree.
 */
#ifndef S2C_PKG_SHCOMPOUND_H
#define S2C_PKG_SHCOMPOUND_H

struct shlex;
struct sh_node;

/**
 * A compound command at @p's position (it starts with a reserved word, "{"
 * or "("): the body of a function, or a command of a pipeline.  Returns 0
 * with a new node in @ret (free with shtree_node_free()), or -errno.
 */
int shcompound_parse(struct shlex *p, struct sh_node **ret);

/**
 * bash's "function name [()] compound", the caller having consumed
 * "function".  Returns 0 with a new SH_FUNC node in @ret, or -errno.
 */
int shcompound_function(struct shlex *p, struct sh_node **ret);

#endif /* S2C_PKG_SHCOMPOUND_H */
