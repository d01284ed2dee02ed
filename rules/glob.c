/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "common.h"

bool glob_match(const char *pattern, const char *path)
{
	size_t lit = strcspn(pattern, "*?[\\");
	const char *tail;

	/*
	 * Every candidate is matched against every rule's paths, and fnmatch
	 * converts both strings to wide characters in a UTF-8 locale: settle
	 * what plain bytes settle first.  A literal pattern is a comparison;
	 * otherwise the literal part before the first special character must
	 * be the path's prefix, and a last component without special
	 * characters must be the path's last component (FNM_PATHNAME: '*'
	 * and '?' never match a '/').
	 */
	if (!pattern[lit])
		return strcmp(pattern, path) == 0;
	if (strncmp(pattern, path, lit) != 0)
		return false;
	tail = strrchr(pattern, '/');
	if (tail && !tail[strcspn(tail, "*?[\\")]) {
		const char *base = strrchr(path, '/');
		if (!base || strcmp(tail, base) != 0)
			return false;
	}
	return fnmatch(pattern, path, FNM_PATHNAME) == 0;
}

/* One pattern element: '*' or a set of single characters. */
struct tok {
	bool star;
	uint64_t set[4];        /* 256-bit set of bytes this element matches */
};

static void set_add(uint64_t *s, unsigned char c)
{
	s[c >> 6] |= UINT64_C(1) << (c & 63);
}

static void set_all_but_slash(uint64_t *s)
{
	memset(s, 0xff, 4 * sizeof(*s));
	s['/' >> 6] &= ~(UINT64_C(1) << ('/' & 63));
	s[0] &= ~UINT64_C(1);   /* NUL never occurs in a path */
}

/* Parse a bracket expression starting after '['; returns chars consumed or -1. */
static int parse_bracket(const char *p, uint64_t *set)
{
	const char *q = p;
	bool neg = false;
	uint64_t s[4] = { 0 };

	if (*q == '!' || *q == '^') {
		neg = true;
		q++;
	}
	if (*q == ']') {        /* a leading ']' is literal */
		set_add(s, ']');
		q++;
	}
	while (*q && *q != ']') {
		unsigned char lo, hi;

		if (q[0] == '[' && q[1] == ':') {
			const char *end = strstr(q + 2, ":]");
			if (!end)
				return -1;
			uint64_t all[4];
			set_all_but_slash(all);
			for (int i = 0; i < 4; i++)
				s[i] |= all[i];
			q = end + 2;
			continue;
		}
		if (*q == '\\' && q[1])
			q++;
		lo = (unsigned char)*q++;
		hi = lo;
		if (q[0] == '-' && q[1] && q[1] != ']') {
			q++;
			if (*q == '\\' && q[1])
				q++;
			hi = (unsigned char)*q++;
		}
		for (unsigned c = lo; c <= hi; c++)
			set_add(s, (unsigned char)c);
	}
	if (*q != ']')
		return -1;
	if (neg) {
		uint64_t all[4];
		set_all_but_slash(all);
		for (int i = 0; i < 4; i++)
			s[i] = all[i] & ~s[i];
	}
	/* With FNM_PATHNAME a bracket never matches '/'. */
	s['/' >> 6] &= ~(UINT64_C(1) << ('/' & 63));
	memcpy(set, s, sizeof(s));
	return (int)(q - p) + 1;
}

/* Tokenise; returns the count or -1 for malformed patterns. */
static int tokenise(const char *p, struct tok *out, size_t max)
{
	size_t n = 0;

	while (*p) {
		struct tok t = { 0 };

		if (n == max)
			return -1;
		if (*p == '*') {
			t.star = true;
			while (*p == '*')
				p++;
		} else if (*p == '?') {
			set_all_but_slash(t.set);
			p++;
		} else if (*p == '[') {
			int used = parse_bracket(p + 1, t.set);
			if (used < 0) {
				set_add(t.set, '['); /* fnmatch treats an unclosed '[' literally */
				p++;
			} else {
				p += 1 + used;
			}
		} else {
			if (*p == '\\') {
				if (!p[1])
					return -1;
				p++;
			}
			set_add(t.set, (unsigned char)*p++);
		}
		out[n++] = t;
	}
	return (int)n;
}

static bool sets_meet(const uint64_t *a, const uint64_t *b)
{
	for (int i = 0; i < 4; i++)
		if (a[i] & b[i])
			return true;
	return false;
}

static bool star_eats(const struct tok *t)
{
	uint64_t all[4];

	set_all_but_slash(all);
	return sets_meet(all, t->set);
}

/* Length of the literal text before the first special character. */
static size_t literal_prefix(const char *g)
{
	return strcspn(g, "*?[\\");
}

static bool special(char c)
{
	return c == '*' || c == '?' || c == '[' || c == ']' || c == '\\';
}

/* Length of the literal text after the last special character, or all of a
 * pattern without any. */
static size_t literal_suffix(const char *g, size_t len)
{
	size_t n = 0;

	while (n < len && !special(g[len - 1 - n]))
		n++;
	return n;
}

void glob_shape_init(struct glob_shape *s, const char *glob)
{
	s->glob = glob;
	s->len = strlen(glob);
	s->prefix = literal_prefix(glob);
	s->suffix = literal_suffix(glob, s->len);
}

/*
 * Every string matching @a starts with its literal prefix and ends with its
 * literal suffix: two patterns whose prefixes (or suffixes) disagree within
 * their common length share no string.  Cheap, and it settles nearly every
 * pair of a database's paths before the full comparison below.
 */
static bool quick_disjoint(const struct glob_shape *a, const struct glob_shape *b)
{
	size_t n = S2C_MIN(a->suffix, b->suffix);

	if (strncmp(a->glob, b->glob, S2C_MIN(a->prefix, b->prefix)) != 0)
		return true;
	return memcmp(a->glob + a->len - n, b->glob + b->len - n, n) != 0;
}

int glob_intersect(const char *a, const char *b)
{
	struct glob_shape sa, sb;

	glob_shape_init(&sa, a);
	glob_shape_init(&sb, b);
	return glob_shapes_intersect(&sa, &sb);
}

int glob_shapes_intersect(const struct glob_shape *sa, const struct glob_shape *sb)
{
	const char *a = sa->glob, *b = sb->glob;
	size_t la = sa->len, lb = sb->len;
	_cleanup_free_ struct tok *ta = NULL, *tb = NULL;
	_cleanup_free_ unsigned char *can = NULL;
	int na, nb;

	if (quick_disjoint(sa, sb))
		return 0;
	ta = calloc(la + 1, sizeof(*ta));
	tb = calloc(lb + 1, sizeof(*tb));
	if (!ta || !tb)
		return -ENOMEM;
	na = tokenise(a, ta, la + 1);
	nb = tokenise(b, tb, lb + 1);
	if (na < 0 || nb < 0)
		return 0;
	/* can[i][j]: the suffixes from token i of a and j of b share a string. */
	can = calloc((size_t)(na + 1) * (size_t)(nb + 1), 1);
	if (!can)
		return -ENOMEM;
#define CAN(i, j) can[(size_t)(i) * (size_t)(nb + 1) + (size_t)(j)]
	CAN(na, nb) = 1;
	for (int i = na; i >= 0; i--)
		for (int j = nb; j >= 0; j--) {
			bool r = false;

			if (i == na && j == nb)
				continue;
			if (i < na && ta[i].star) {
				r = CAN(i + 1, j) ||                               /* empty */
				    (j < nb && !tb[j].star && star_eats(&tb[j]) && CAN(i, j + 1)) ||
				    (j < nb && tb[j].star && CAN(i, j + 1));
			}
			if (!r && j < nb && tb[j].star) {
				r = CAN(i, j + 1) ||
				    (i < na && !ta[i].star && star_eats(&ta[i]) && CAN(i + 1, j));
			}
			if (!r && i < na && j < nb && !ta[i].star && !tb[j].star)
				r = sets_meet(ta[i].set, tb[j].set) && CAN(i + 1, j + 1);
			CAN(i, j) = r;
		}
	return CAN(0, 0);
#undef CAN
}

const char *glob_invalid(const char *pattern)
{
	size_t len = strlen(pattern);

	if (pattern[0] != '/')
		return "not an absolute path";
	if (len > 1 && pattern[len - 1] == '/')
		return "ends with '/'";
	if (strstr(pattern, "//"))
		return "has an empty component";
	if (strstr(pattern, "/./") || strstr(pattern, "/../") ||
	    (len >= 2 && strcmp(pattern + len - 2, "/.") == 0) ||
	    (len >= 3 && strcmp(pattern + len - 3, "/..") == 0))
		return "has a '.' or '..' component";
	for (const char *p = pattern; *p; p++) {
		if (*p == '\\') {
			if (!p[1])
				return "ends with a backslash";
			p++;
		} else if (*p == '[') {
			uint64_t set[4];
			if (parse_bracket(p + 1, set) < 0)
				return "unclosed '['";
		}
	}
	return NULL;
}
