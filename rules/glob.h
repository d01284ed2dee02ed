/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Path globs of the rules database: fnmatch(3) patterns with FNM_PATHNAME,
 * so '*', '?' and bracket expressions never match '/'.  Besides matching,
 * the loader needs to know whether two globs can match the same path, to
 * refuse overlapping rules.
 */
#ifndef S2C_RULES_GLOB_H
#define S2C_RULES_GLOB_H

#include <stdbool.h>

/** True when @path matches @pattern (fnmatch with FNM_PATHNAME). */
bool glob_match(const char *pattern, const char *path);

/**
 * Check that @pattern is a well-formed glob: absolute, no empty or "."/".."
 * components, brackets closed, no trailing backslash.
 * Returns NULL when valid, else a static description of the problem.
 */
const char *glob_invalid(const char *pattern);

/**
 * True when some path matches both @a and @b.  Exact for the supported
 * syntax (literals, '?', '*', bracket expressions with ranges and negation,
 * backslash escapes); POSIX character classes like [[:alpha:]] are treated
 * as "any character but '/'", which can only report more overlaps.
 * Returns -ENOMEM (as a negative int) on allocation failure, else 0 or 1.
 */
int glob_intersect(const char *a, const char *b);

#endif /* S2C_RULES_GLOB_H */
