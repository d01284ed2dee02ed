/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the shell parser (pkg/shparse.h): words.  Literal text, single and
 * double quotes, backslash escapes, parameter expansions ($x, ${x},
 * ${x:-word} …), command substitutions ($(…) and `…`, parsed recursively
 * through shparse_list()) and arithmetic ($((…)), kept opaque), each a part
 * of the word.  Not for use outside pkg/sh*.c.
 *
 * Internal: shparse shlex shword shcompound shtree.
 */
#ifndef S2C_PKG_SHWORD_H
#define S2C_PKG_SHWORD_H

struct shlex;
struct sh_word;

/**
 * Parse a word at @p's position into @w (zeroed by the caller), up to an
 * unquoted metacharacter; with @end (as '}'), up to that character instead
 * (the argument of ${x:-word}, where blanks are part of it).  An empty word
 * (no parts) means there was none.  Returns 0 or -errno; on error @w holds
 * what was parsed so far, for the caller to release.
 */
int shword_parse(struct shlex *p, struct sh_word *w, int end);

#endif /* S2C_PKG_SHWORD_H */
