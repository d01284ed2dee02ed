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
#include <stddef.h>

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

/**
 * What glob_intersect() looks at first in a pattern, worked out once for a
 * pattern compared with many: its length and the lengths of its literal
 * prefix and suffix.  @glob is borrowed.
 */
struct glob_shape {
	const char *glob;
	size_t len, prefix, suffix;
};

/** Fill @s for @glob. */
void glob_shape_init(struct glob_shape *s, const char *glob);

/** glob_intersect() of the patterns of @a and @b; pairs whose literal prefixes or
 * suffixes disagree (nearly every pair of a database) are settled at once. */
int glob_shapes_intersect(const struct glob_shape *a, const struct glob_shape *b);

#endif /* S2C_RULES_GLOB_H */
