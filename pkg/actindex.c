/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The actions of an analysis by the path they name (actindex.h).  A path is
 * looked up as itself, as each of its prefixes that a '/' follows (the roots
 * of recursive actions) and by its directory (globs whose directory has no
 * wildcard); the few globs with a wildcard in their directory, and recursive
 * globs, are tried one by one.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "actindex.h"
#include "maintscript.h"
#include "member.h"
#include "strhash.h"
#include "common.h"

/* What ms_analysis_index() makes: every action, and the wanted files. */
struct ms_index {
	struct actindex acts;
	struct hashindex wants;
	size_t n_wants;                 /* the analysis wanted this many */
};

bool ms_action_names(const struct ms_action *a, const char *path)
{
	_cleanup_free_ char *dir = NULL;
	size_t n = strlen(a->path);

	if (!a->glob)
		return s2c_streq(a->path, path) ||
		       (a->recursive && strncmp(path, a->path, n) == 0 && path[n] == '/');
	if (fnmatch(a->path, path, FNM_PATHNAME) == 0)
		return true;
	if (!a->recursive)
		return false;
	/* chmod -R on what a glob matches: below each directory it matches */
	dir = strdup(path);
	if (!dir)
		return true;    /* without memory, it may */
	for (char *p = strrchr(dir, '/'); p && p != dir; p = strrchr(dir, '/')) {
		*p = '\0';
		if (fnmatch(a->path, dir, FNM_PATHNAME) == 0)
			return true;
	}
	return false;
}

/* Where the directory of a glob ends, when nothing before it is a wildcard; else SIZE_MAX. */
static size_t glob_dir_len(const char *pattern)
{
	const char *slash = strrchr(pattern, '/');

	if (!slash || strcspn(pattern, "*?[\\") < (size_t)(slash - pattern))
		return SIZE_MAX;
	return (size_t)(slash - pattern);
}

static int actindex_add(struct actindex *x, const struct ms_action *act, size_t i)
{
	size_t dir = act->glob && !act->recursive ? glob_dir_len(act->path) : SIZE_MAX;
	int r = 0;

	if (act->recursive && !act->glob)
		r = hashindex_add(&x->recursive, member_hash(act->path), i);
	if (r < 0)
		return r;
	if (!act->glob)
		return hashindex_add(&x->exact, member_hash(act->path), i);
	/* a recursive glob reaches below what it matches: one of the few asked one by one */
	if (dir != SIZE_MAX)
		return hashindex_add(&x->globs, strhash_n(act->path, dir), i);
	if (!(x->n_other % 16)) {
		size_t *v = reallocarray(x->other, x->n_other + 16, sizeof(*v));
		if (!v)
			return -ENOMEM;
		x->other = v;
	}
	x->other[x->n_other++] = i;
	return 0;
}

void actindex_release(struct actindex *x)
{
	hashindex_release(&x->exact);
	hashindex_release(&x->recursive);
	hashindex_release(&x->globs);
	free(x->other);
	*x = (struct actindex){ 0 };
}

int actindex_build(struct actindex *x, const struct ms_analysis *a,
		   bool (*pick)(const struct ms_action *))
{
	int r = 0;

	*x = (struct actindex){ .n = a->n };
	for (size_t i = 0; i < a->n && r == 0; i++)
		if (!pick || pick(&a->v[i]))
			r = actindex_add(x, &a->v[i], i);
	if (r < 0)
		actindex_release(x);
	return r;
}

/*
 * One lookup of a path: which key it is at (@len bytes at @path), whether the entry
 * must be a glob that matches the whole path, and what to do with each action found
 * (@hit returns true to stop).
 */
struct lookup {
	const struct ms_analysis *a;
	const char *path;
	size_t len;
	bool glob;
	bool (*hit)(size_t pos, void *userdata);
	void *userdata;
	bool stopped;
};

static void visit(size_t pos, void *userdata)
{
	struct lookup *l = userdata;
	const char *p;

	if (l->stopped || pos >= l->a->n)
		return;
	p = l->a->v[pos].path;
	if (strncmp(p, l->path, l->len) != 0 ||
	    (l->glob ? p[l->len] != '/' || fnmatch(p, l->path, FNM_PATHNAME) != 0 : p[l->len] != '\0'))
		return;
	l->stopped = l->hit(pos, l->userdata);
}

/* Call @hit with each action @x indexes that names @path, until it returns true. */
static void actindex_walk(const struct actindex *x, const struct ms_analysis *a, const char *path,
			  bool (*hit)(size_t pos, void *userdata), void *userdata)
{
	struct lookup l = { .a = a, .path = path, .len = strlen(path), .hit = hit,
			    .userdata = userdata };
	const char *slash = strrchr(path, '/');

	hashindex_each(&x->exact, member_hash(path), visit, &l);
	/* below a tree: every prefix that a '/' follows, "" (the root) first */
	for (const char *p = strchr(path, '/'); p && x->recursive.n && !l.stopped;
	     p = strchr(p + 1, '/')) {
		l.len = (size_t)(p - path);
		hashindex_each(&x->recursive, strhash_n(path, l.len), visit, &l);
	}
	if (slash && !l.stopped) {
		l.len = (size_t)(slash - path);
		l.glob = true;
		hashindex_each(&x->globs, strhash_n(path, l.len), visit, &l);
	}
	for (size_t i = 0; i < x->n_other && !l.stopped; i++)
		if (x->other[i] < a->n && ms_action_names(&a->v[x->other[i]], path))
			l.stopped = hit(x->other[i], userdata);
}

static bool stop(size_t pos, void *userdata)
{
	(void)pos;
	*(bool *)userdata = true;
	return true;
}

bool actindex_names(const struct actindex *x, const struct ms_analysis *a, const char *path)
{
	bool found = false;

	actindex_walk(x, a, path, stop, &found);
	return found;
}

/* What ms_analysis_each() passes on. */
struct each {
	void (*fn)(size_t pos, void *userdata);
	void *userdata;
};

static bool call(size_t pos, void *userdata)
{
	const struct each *e = userdata;

	e->fn(pos, e->userdata);
	return false;
}

/* A wanted file looked up. */
struct wantkey {
	const struct ms_analysis *a;
	const char *path;
};

static bool same_want(size_t pos, const void *userdata)
{
	const struct wantkey *k = userdata;

	return pos < k->a->n_wants && s2c_streq(k->a->wants[pos], k->path);
}

void ms_analysis_unindex(struct ms_analysis *a)
{
	if (a->index) {
		actindex_release(&a->index->acts);
		hashindex_release(&a->index->wants);
		free(a->index);
		a->index = NULL;
	}
}

int ms_analysis_index(struct ms_analysis *a)
{
	struct ms_index *x = calloc(1, sizeof(*x));
	int r = x ? actindex_build(&x->acts, a, NULL) : -ENOMEM;

	ms_analysis_unindex(a);
	if (r < 0) {
		free(x);
		return r;
	}
	x->n_wants = a->n_wants;
	for (size_t i = 0; i < a->n_wants && r == 0; i++)
		r = hashindex_add(&x->wants, member_hash(a->wants[i]), i);
	a->index = x;
	if (r < 0)
		ms_analysis_unindex(a);
	return r;
}

/* Whether the index of @a holds everything @a has. */
static bool index_current(const struct ms_analysis *a)
{
	return a->index && a->index->acts.n == a->n && a->index->n_wants == a->n_wants;
}

bool ms_analysis_names(const struct ms_analysis *a, const char *path)
{
	if (index_current(a))
		return actindex_names(&a->index->acts, a, path);
	for (size_t i = 0; i < a->n; i++)
		if (ms_action_names(&a->v[i], path))
			return true;
	return false;
}

void ms_analysis_each(const struct ms_analysis *a, const char *path,
		      void (*fn)(size_t pos, void *userdata), void *userdata)
{
	struct each e = { .fn = fn, .userdata = userdata };

	if (index_current(a)) {
		actindex_walk(&a->index->acts, a, path, call, &e);
		return;
	}
	for (size_t i = 0; i < a->n; i++)
		if (ms_action_names(&a->v[i], path))
			fn(i, userdata);
}

bool ms_analysis_wants(const struct ms_analysis *a, const char *path)
{
	struct wantkey k = { .a = a, .path = path };

	if (index_current(a))
		return hashindex_find(&a->index->wants, member_hash(path), same_want, &k) != SIZE_MAX;
	for (size_t i = 0; i < a->n_wants; i++)
		if (s2c_streq(a->wants[i], path))
			return true;
	return false;
}
