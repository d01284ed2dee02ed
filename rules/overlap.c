/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The overlap check of the rules database: no file may match two rules'
 * paths, or names, unless their packages, groups or builds keep them apart.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "glob.h"
#include "util.h"
#include "common.h"

/* Two match lists (packages, groups) that both restrict and share no entry. */
static bool lists_disjoint(const char *const *a, const char *const *b)
{
	if (!a || !b)
		return false;
	for (size_t i = 0; a[i]; i++)
		for (size_t j = 0; b[j]; j++)
			if (s2c_streq(a[i], b[j]))
				return false;
	return true;
}

/*
 * A rule about exact builds (match.sha256) and one about every build of a path
 * do not collide: the exact one goes first for its builds (rules/match.c).  Two
 * rules about exact builds collide only over a build both name.
 */
static bool builds_apart(const struct rule *a, const struct rule *b)
{
	return !a->sha256 != !b->sha256 || lists_disjoint(a->sha256, b->sha256);
}

/*
 * Path @x of @a is a pattern narrowed to groups that @b does not name: it may
 * cover @b's files too, whose own path, being narrower, decides for them
 * (the games of a distribution that puts them in /usr/bin).
 */
static bool group_pattern(const struct rule *a, size_t x, const struct rule *b)
{
	return a->groups && !b->groups && a->paths[x][strcspn(a->paths[x], "*?[")];
}

/*
 * Can one file match path @x of @a and path @y of @b?  A file matches a glob as
 * written or in its layout form (rules/match.h), so every pairing counts.
 * @sa and @sb: the shapes of each rule's paths, then of their layout forms.
 */
static int paths_intersect(const struct glob_shape *sa, size_t na, size_t x,
			   const struct glob_shape *sb, size_t nb, size_t y)
{
	for (size_t i = 0; i < 2; i++)
		for (size_t j = 0; j < 2; j++) {
			int hit = glob_shapes_intersect(&sa[i * na + x], &sb[j * nb + y]);
			if (hit != 0)
				return hit;
		}
	return 0;
}

static size_t count_paths(const struct rule *r)
{
	size_t n = 0;

	while (r->paths && r->paths[n])
		n++;
	return n;
}

static void shapes_free(struct glob_shape **shapes, size_t n)
{
	for (size_t i = 0; shapes && i < n; i++)
		free(shapes[i]);
	free(shapes);
}

/* For each rule, the shapes of its paths then of their layout forms: every pair
 * of rules is compared, each pattern is measured once.  NULL without memory. */
static struct glob_shape **shapes_new(const struct rules_db *db)
{
	struct glob_shape **shapes = calloc(db->n ? db->n : 1, sizeof(*shapes));

	for (size_t i = 0; shapes && i < db->n; i++) {
		const struct rule *r = db->rules[i];
		size_t n = count_paths(r);

		shapes[i] = calloc(2 * n + 1, sizeof(**shapes));
		if (!shapes[i]) {
			shapes_free(shapes, db->n);
			return NULL;
		}
		for (size_t x = 0; x < n; x++) {
			glob_shape_init(&shapes[i][x], r->paths[x]);
			glob_shape_init(&shapes[i][n + x], r->layout[x]);
		}
	}
	return shapes;
}

/* Report every overlap of rules @a and @b, with @sa and @sb the shapes of their paths. */
static int pair_overlaps(const struct rule *a, const struct glob_shape *sa,
			 const struct rule *b, const struct glob_shape *sb,
			 struct rules_problems *collect, struct s2c_error *err)
{
	size_t na = count_paths(a), nb = count_paths(b);

	for (size_t x = 0; x < na; x++)
		for (size_t y = 0; y < nb; y++) {
			int hit = group_pattern(a, x, b) || group_pattern(b, y, a) ? 0 :
				  paths_intersect(sa, na, x, sb, nb, y);
			if (hit < 0)
				return hit;
			if (!hit)
				continue;
			hit = s2c_error_set(
				err, -EINVAL,
				"%s: %s.match.paths[%zu]: '%s' overlaps '%s' of rule '%s' "
				"(%s %s); give both disjoint match.packages or narrow the globs",
				a->file, a->where, x, a->paths[x], b->paths[y], b->id,
				b->file, b->where);
			hit = rules_problem(collect, hit, err, err);
			if (hit < 0)
				return hit;
		}
	for (size_t x = 0; a->names && a->names[x]; x++)
		for (size_t y = 0; b->names && b->names[y]; y++) {
			int e;
			if (!s2c_streq(a->names[x], b->names[y]))
				continue;
			e = s2c_error_set(
				err, -EINVAL,
				"%s: %s.match.names[%zu]: '%s' is also a name of rule '%s' (%s %s)",
				a->file, a->where, x, a->names[x], b->id, b->file, b->where);
			e = rules_problem(collect, e, err, err);
			if (e < 0)
				return e;
		}
	return 0;
}

/* A literal prefix of a rule's path (or layout form), or one of its names. */
struct pair_key {
	const char *text;
	size_t len;
	size_t rule;
};

static int cmp_pair_key(const void *a, const void *b)
{
	const struct pair_key *x = a, *y = b;
	int c = memcmp(x->text, y->text, S2C_MIN(x->len, y->len));

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int cmp_rule_pair(const void *a, const void *b)
{
	const size_t *x = a, *y = b;

	return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/*
 * Sorted, the keys that start with a key (@exact: equal it) follow it: add a
 * pair (lower rule index first) of @pairs for every two rules with such keys.
 */
static int pairs_from_keys(struct pair_key *k, size_t n, bool exact, size_t (**pairs)[2],
			   size_t *npairs, size_t *alloc)
{
	qsort(k, n, sizeof(*k), cmp_pair_key);
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; b < n && (exact ? k[b].len == k[a].len : k[b].len >= k[a].len) &&
				       memcmp(k[b].text, k[a].text, k[a].len) == 0; b++) {
			if (k[a].rule == k[b].rule)
				continue;
			if (S2C_ARRAY_RESERVE(*pairs, *alloc, *npairs + 1, 256) < 0)
				return -ENOMEM;
			(*pairs)[*npairs][0] = S2C_MIN(k[a].rule, k[b].rule);
			(*pairs)[(*npairs)++][1] = S2C_MAX(k[a].rule, k[b].rule);
		}
	return 0;
}

/*
 * The pairs of rules that may overlap, in order, each once: two globs share a
 * path only when the literal prefix of one starts the other
 * (glob_shapes_intersect()), two names only when equal.  Sorting the keys
 * finds them without comparing every pair of rules.
 */
static int pairs_new(const struct rules_db *db, struct glob_shape **shapes, size_t (**ret)[2],
		     size_t *ret_n)
{
	_cleanup_free_ struct pair_key *keys = NULL;
	size_t n = 0, npaths = 0, alloc = 0, total = 0;
	int r;

	for (size_t i = 0; i < db->n; i++) {
		total += 2 * count_paths(db->rules[i]);
		for (size_t x = 0; db->rules[i]->names && db->rules[i]->names[x]; x++)
			total++;
	}
	keys = calloc(total ? total : 1, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < db->n; i++)
		for (size_t x = 0; x < 2 * count_paths(db->rules[i]); x++)
			keys[npaths++] = (struct pair_key){ shapes[i][x].glob, shapes[i][x].prefix, i };
	n = npaths;
	for (size_t i = 0; i < db->n; i++)
		for (size_t x = 0; db->rules[i]->names && db->rules[i]->names[x]; x++)
			keys[n++] = (struct pair_key){ db->rules[i]->names[x],
						       strlen(db->rules[i]->names[x]), i };
	*ret = NULL;
	*ret_n = 0;
	r = pairs_from_keys(keys, npaths, false, ret, ret_n, &alloc);
	if (r == 0)
		r = pairs_from_keys(keys + npaths, n - npaths, true, ret, ret_n, &alloc);
	if (r == 0 && *ret_n)
		qsort(*ret, *ret_n, sizeof(**ret), cmp_rule_pair);
	return r;
}

/* Every pair of rules in order, as the pairs compared: those pairs_new() leaves
 * out could report nothing. */
int rules_db_overlaps(const struct rules_db *db, struct rules_problems *collect,
		      struct s2c_error *err)
{
	struct glob_shape **shapes = shapes_new(db);
	_cleanup_free_ size_t (*pairs)[2] = NULL;
	size_t n = 0;
	int r = shapes ? pairs_new(db, shapes, &pairs, &n) : -ENOMEM;

	for (size_t k = 0; r == 0 && k < n; k++) {
		size_t i = pairs[k][0], j = pairs[k][1];
		const struct rule *a = db->rules[i], *b = db->rules[j];

		if ((k > 0 && cmp_rule_pair(pairs[k - 1], pairs[k]) == 0) ||
		    lists_disjoint(a->packages, b->packages) ||
		    lists_disjoint(a->groups, b->groups) || builds_apart(a, b))
			continue;
		r = pair_overlaps(a, shapes[i], b, shapes[j], collect, err);
	}
	shapes_free(shapes, db->n);
	return r;
}

int rules_db_check_overlaps(const struct rules_db *db, struct s2c_error *err)
{
	return rules_db_overlaps(db, NULL, err);
}
