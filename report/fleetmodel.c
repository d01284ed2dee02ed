/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the fleet model says once built (report/fleetmodel.h): which states
 * drift, a state for people, the package versions of a program, the targets
 * read; for the writers in report/fleetout.c.
 */
#include <stdlib.h>
#include <string.h>

#include "fleetmodel.h"
#include "util.h"
#include "common.h"

bool fprog_drifts(const struct fprog *p, size_t k)
{
	return !s2c_streq(p->v[k].key, p->v[p->major].key);
}

/* "migrate, 4755 root:root, caps - -> cap_net_raw=p" */
char *fstate_text(const struct fstate *s)
{
	return strdup_printf("%s, %s %s:%s, caps %s -> %s", s->state ? s->state : s->verdict,
			     s->mode,
			     s->owner ? s->owner : "?", s->group ? s->group : "?",
			     s->caps ? s->caps : "-", s->caps_after ? s->caps_after : "-");
}

/* "iputils-ping 3:20221126" of state @k of @p, or NULL (no package, or no memory). */
static char *version_name(const struct fprog *p, size_t k)
{
	const struct fstate *s = &p->v[k];

	if (!s->package)
		return NULL;
	return s->version ? strdup_printf("%s %s", s->package, s->version) : strdup(s->package);
}

struct named {
	char *name;
	size_t first;           /* the state it was first seen in */
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->first > y->first) - (x->first < y->first);
}

static int cmp_first(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/* Package versions of @p: "iputils-ping 3:20221126 (2)", in the order first seen; owned. */
char **fprog_versions(const struct fprog *p)
{
	_cleanup_free_ struct named *v = calloc(p->n + 1, sizeof(*v));
	char **out = calloc(p->n + 1, sizeof(*out));
	size_t n = 0, k = 0;

	if (!v || !out) {
		free(out);
		return NULL;
	}
	for (size_t i = 0; i < p->n; i++)
		if ((v[n].name = version_name(p, i)))
			v[n++].first = i;
	/* Sorted by name, each name's run counted and kept once, then back in order seen. */
	qsort(v, n, sizeof(*v), cmp_named);
	for (size_t i = 0, run; i < n; i += run) {
		for (run = 1; i + run < n && s2c_streq(v[i].name, v[i + run].name); run++)
			free(v[i + run].name);
		char *with = strdup_printf("%s (%zu)", v[i].name, run);
		if (with) {
			free(v[i].name);
			v[i].name = with;
		}
		v[k++] = v[i];
	}
	qsort(v, k, sizeof(*v), cmp_first);
	for (size_t i = 0; i < k; i++)
		out[i] = v[i].name;
	return out;
}

size_t fleet_targets_read(const struct fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_t; i++)
		n += !f->t[i].error;
	return n;
}
