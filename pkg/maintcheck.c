/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * maintscript_check(): once every script of a package is analysed with its
 * members known, what the scripts write, move, copy or remove is checked
 * against the privileged files.  An index built once per check makes it cost
 * the members plus the actions and touches, not their product: the actions
 * that add privilege by the path they name (actindex.h), the privileged
 * members in byte order ("the first privileged member below P" is a binary
 * search), and what the analysis already says by its text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "actindex.h"
#include "hashindex.h"
#include "maintscript.h"
#include "member.h"
#include "util.h"
#include "common.h"

/* Whether @a can leave a file set-ID or with capabilities. */
static bool adds_privilege(const struct ms_action *a)
{
	uint32_t x = 0, y = 0;

	switch (a->kind) {
	case MS_SETCAP:
		return true;
	case MS_CHMOD:
		return (ms_chmod(a->mode, 0755, false, &x) == 0 && (x & 06000)) ||
		       (ms_chmod(a->mode, 0, false, &y) == 0 && (y & 06000));
	case MS_STATOVERRIDE:
	case MS_INSTALL:
		return strtoul(a->mode, NULL, 8) & 06000;
	default:
		return false;
	}
}

/*
 * What maintscript_check() asks of the members, built once per check so that
 * it costs the members plus the actions, not their product: the actions that
 * add privilege by the path they name, and the privileged members in byte
 * order.
 */
struct privindex {
	const struct ms_analysis *a;
	struct actindex acts;           /* the actions that add privilege */
	const struct member **priv;     /* the privileged members, sorted by path */
	size_t n_priv;
};

/* Whether @m is privileged as packed or made so by an action. */
static bool privileged_member(const struct privindex *x, const struct member *m)
{
	if (m->type != MEMBER_FILE && m->type != MEMBER_HARDLINK)
		return false;
	if ((m->mode & 06000) || m->has_caps)
		return true;
	return actindex_names(&x->acts, x->a, m->path);
}

static int cmp_member_path(const void *a, const void *b)
{
	const struct member *x = *(const struct member *const *)a;
	const struct member *y = *(const struct member *const *)b;

	return strcmp(x->path, y->path);
}

static void privindex_release(struct privindex *x)
{
	actindex_release(&x->acts);
	free(x->priv);
	*x = (struct privindex){ 0 };
}

/* Index the actions of @a that add privilege, then the privileged @members.  0 or -ENOMEM. */
static int privindex_build(struct privindex *x, const struct ms_analysis *a,
			   const struct memberset *members)
{
	int r;

	*x = (struct privindex){ .a = a };
	r = actindex_build(&x->acts, a, adds_privilege);
	/* counted first: a few privileged files among a million members */
	for (size_t i = 0; i < members->n_slots && r == 0; i++)
		if (members->slots[i] && privileged_member(x, members->slots[i]))
			x->n_priv++;
	if (r == 0 && x->n_priv) {
		x->priv = calloc(x->n_priv, sizeof(*x->priv));
		r = x->priv ? 0 : -ENOMEM;
		x->n_priv = 0;
	}
	for (size_t i = 0; i < members->n_slots && r == 0 && x->priv; i++)
		if (members->slots[i] && privileged_member(x, members->slots[i]))
			x->priv[x->n_priv++] = members->slots[i];
	if (r == 0 && x->n_priv > 1)
		qsort(x->priv, x->n_priv, sizeof(*x->priv), cmp_member_path);
	if (r < 0)
		privindex_release(x);
	return r;
}

/*
 * Where @path sorts against the paths that start with the @n bytes at @dir
 * and then, with @slash, a '/': before them (< 0), among them (0) or after.
 */
static int cmp_prefix(const char *path, const char *dir, size_t n, bool slash)
{
	int c = strncmp(path, dir, n);

	if (c || !slash)
		return c;
	return (int)(unsigned char)path[n] - '/';
}

/* The first privileged member in byte order that cmp_prefix() puts among them, or NULL. */
static const struct member *first_below(const struct privindex *x, const char *dir, size_t n,
					bool slash)
{
	size_t lo = 0, hi = x->n_priv;

	/* they are contiguous, and the first is where the prefix itself would go */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_prefix(x->priv[mid]->path, dir, n, slash) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n_priv && cmp_prefix(x->priv[lo]->path, dir, n, slash) == 0 ? x->priv[lo] :
										     NULL;
}

/* The privileged member @t reaches, or NULL. */
static const struct member *touched(const struct privindex *x, const struct memberset *members,
				    const struct ms_touch *t)
{
	struct member *m = memberset_get(members, t->path);
	size_t n = strlen(t->path);

	/* rm, mv and a new file put there act on a link itself; the others follow it */
	if (!m || (m->type == MEMBER_SYMLINK && !s2c_streq(t->what, "removes") &&
		   !s2c_streq(t->what, "replaces") && !s2c_streq(t->what, "moves")))
		(void)memberset_reach(members, t->path, &m);
	if (m && privileged_member(x, m) && (!t->base || member_has_part(m->path, t->base)))
		return m;
	if (!t->below)
		return NULL;
	/* only what has a part of a name: a few privileged files, looked at one by one */
	for (size_t i = 0; t->base && i < x->n_priv; i++)
		if (cmp_prefix(x->priv[i]->path, t->path, n, n != 1) == 0 &&
		    member_has_part(x->priv[i]->path, t->base))
			return x->priv[i];
	/* below it: the paths that start with "P/" (with "/" or one byte, with P) */
	return t->base ? NULL : first_below(x, t->path, n, n != 1);
}

/*
 * Whether @t may leave a file that is not the package's running what it did not run,
 * set-ID: a write into it in place keeping its mode (a redirection, tee, dd, a plain cp
 * over it, sed -i: root keeps a set-ID file's bits when it writes into it, having
 * CAP_FSETID; only capabilities go), or a copy with its mode or a hard link of it
 * (a set-ID program copied or kept under another name), or an ACL that lets others
 * write it (setfacl).
 */
static bool may_raise_other(const struct ms_touch *t)
{
	return s2c_streq(t->what, "writes to") || s2c_streq(t->what, "rewrites") ||
	       s2c_streq(t->what, "copies with its mode") || s2c_streq(t->what, "links to") ||
	       s2c_streq(t->what, "opens to others");
}

/* Whether @path, or where the members' links take it, is in a directory of programs. */
static bool lands_in_program_dir(const struct memberset *members, const char *path)
{
	_cleanup_free_ char *landing = NULL;

	if (member_in_program_dir(path))
		return true;
	/* a loop fails the command; without memory, say what may be */
	return memberset_landing(members, path, &landing) == -ENOMEM ||
	       (landing && member_in_program_dir(landing));
}

/*
 * What the touch @t makes the analysis miss, in *@ret_why (NULL: nothing): a privileged
 * file of the package it changes, or a file that is not the package's that it writes
 * into in place, copies with its mode or links, which may be a set-ID program of the
 * system (may_raise_other()).  Returns 0 or -ENOMEM.
 */
static int missed(const struct privindex *x, const struct memberset *members,
		  const struct ms_touch *t, char **ret_why)
{
	_cleanup_free_ char *shown = NULL;
	struct member *m = NULL;
	const struct member *priv;
	const char *what = NULL;

	*ret_why = NULL;
	if (!t->path) {
		if (x->n_priv)
			what = "and the package has privileged files";
		else if (may_raise_other(t))
			what = "which may be a set-ID program of the system";
		if (what)
			*ret_why = strdup_printf("%s:%u: it %s a file it cannot name, %s",
						 t->script, t->line, t->what, what);
		return what && !*ret_why ? -ENOMEM : 0;
	}
	priv = touched(x, members, t);
	if (priv)
		what = "which is privileged: not modelled";
	else if (may_raise_other(t) && memberset_reach(members, t->path, &m) < 0 &&
		 lands_in_program_dir(members, t->path))
		what = "which is not the package's and may be a set-ID program of the system";
	if (!what)
		return 0;
	shown = escape_text(priv ? priv->path : t->path);
	*ret_why = shown ? strdup_printf("%s:%u: it %s '%s', %s", t->script, t->line, t->what,
					 shown, what) : NULL;
	return *ret_why ? 0 : -ENOMEM;
}

/* A text looked up among what an analysis could not work out. */
struct said_key {
	const struct ms_analysis *a;
	const char *s;
};

static bool same_said(size_t pos, const void *userdata)
{
	const struct said_key *k = userdata;

	return pos < k->a->n_incomplete && s2c_streq(k->a->incomplete[pos], k->s);
}

/* add_incomplete() unless it is there: @said indexes a->incomplete by text. */
static int add_incomplete_once(struct ms_analysis *a, struct hashindex *said, char *s)
{
	struct said_key k = { .a = a, .s = s };
	uint64_t h;
	int r;

	if (!s)
		return -ENOMEM;
	h = member_hash(s);
	if (hashindex_find(said, h, same_said, &k) != SIZE_MAX) {
		free(s);
		return 0;
	}
	r = hashindex_add(said, h, a->n_incomplete);
	if (r < 0) {
		free(s);
		return r;
	}
	return strv_push(&a->incomplete, &a->n_incomplete, s);
}

/* Index what @a could not work out by its text.  Returns 0 or -ENOMEM. */
static int said_build(const struct ms_analysis *a, struct hashindex *said)
{
	int r = 0;

	for (size_t i = 0; i < a->n_incomplete && r == 0; i++)
		r = hashindex_add(said, member_hash(a->incomplete[i]), i);
	return r;
}

int maintscript_check(struct ms_analysis *a, const struct memberset *members)
{
	struct privindex x;
	struct hashindex said = { 0 };
	int r = privindex_build(&x, a, members);

	if (r == 0)
		r = said_build(a, &said);
	for (size_t i = 0; i < a->n_touches && r == 0; i++) {
		char *why;
		r = missed(&x, members, &a->touches[i], &why);
		if (r == 0 && why)
			r = add_incomplete_once(a, &said, why);
	}
	hashindex_release(&said);
	privindex_release(&x);
	return r;
}
