/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Commands that run a command on names they find, in the maintainer-script
 * evaluator: xargs and find -exec.  A name found is not known; a name find
 * finds below its one starting point is known to lie there, so that what
 * the command does to it matters only when a privileged file lies there too.
 */
#include <stdlib.h>
#include <string.h>

#include "member.h"
#include "mscommand.h"
#include "shparse.h"
#include "util.h"
#include "common.h"

/* The field of a name find found below @start (NULL: anywhere). */
static void found_name(struct ms_eval *e, struct ms_field *x, const char *start)
{
	x->known = false;
	if (!start)
		return;
	mseval_field_append(e, x, start, strlen(start));
	if (!s2c_streq(start, "/"))
		mseval_field_append(e, x, "/", 1);
	x->prefix = x->tail = x->len;
	x->below = true;
}

/*
 * Run @c's fields from @from to @to: "{}" is the name found (below @start),
 * and without one a name found comes last.
 */
static enum ms_st run_with_found(struct ms_eval *e, const struct ms_call *c, size_t from,
				 size_t to, const char *start)
{
	struct ms_fields f = { 0 };
	bool braces = false;
	enum ms_st r;

	for (size_t i = from; i < to && !e->error; i++) {
		struct ms_field *x = mseval_field_new(e, &f);
		bool exact = c->v[i].known && s2c_streq(c->v[i].s, "{}");
		bool in = c->v[i].known && strstr(c->v[i].s, "{}");
		if (!x)
			break;
		braces = braces || in;
		if (exact) {
			found_name(e, x, start);
			continue;
		}
		mseval_field_append(e, x, c->v[i].s, c->v[i].len);
		x->known = c->v[i].known && !in;
		x->glob = c->v[i].glob;
	}
	if (!e->error && !braces) {
		struct ms_field *x = mseval_field_new(e, &f);
		if (x)
			found_name(e, x, NULL);
	}
	if (e->error) {
		mseval_fields_release(&f);
		return MS_UNKNOWN;
	}
	struct ms_call inner = { .n = c->n, .v = f.v, .argc = f.n };
	r = mscommand_call(e, &inner, MSCALL_PROGRAM);
	mseval_fields_release(&f);
	return r == MS_FALSE ? MS_UNKNOWN : r;
}

/* xargs [opts] [COMMAND [ARGS]]: COMMAND with names read from its input. */
enum ms_st msrun_xargs(struct ms_eval *e, const struct ms_call *c)
{
	size_t i = 1;

	for (; i < c->argc && mscommand_is_option(&c->v[i]); i++) {
		const char *o = c->v[i].s;
		if (s2c_streq(o, "--")) {
			i++;
			break;
		}
		if (o[1] != '-' && !o[2] && strchr("adEILnPs", o[1]))
			i++;
	}
	if (i >= c->argc)
		return MS_UNKNOWN;      /* echo */
	return run_with_found(e, c, i, c->argc, NULL);
}

/*
 * @path (taken) with the links among the members resolved: the member it
 * reaches, or @path itself when no component of it is one of their links;
 * NULL otherwise.
 */
static char *through_members(struct ms_eval *e, char *path)
{
	const struct memberset *ms = e->ctx->members;
	struct member *m = NULL;

	if (!path || !ms)
		return path;
	if (memberset_reach(ms, path, &m) == 0) {
		free(path);
		path = strdup(m->path);
		if (!path)
			mseval_oom(e);
		return path;
	}
	for (char *slash = path; slash; slash = strchr(slash + 1, '/')) {
		const struct member *l;
		*slash = '\0';
		l = slash == path ? NULL : memberset_get(ms, path);
		*slash = '/';
		if (l && l->type == MEMBER_SYMLINK) {
			free(path);
			return NULL;
		}
	}
	m = memberset_get(ms, path);
	if (m && m->type == MEMBER_SYMLINK) {
		free(path);
		return NULL;
	}
	return path;
}

/*
 * The one starting point of find, through the links the audit knows, when
 * no option makes find follow links: what it finds lies below it.  NULL
 * otherwise.
 */
static char *find_start(struct ms_eval *e, const struct ms_call *c)
{
	size_t i = 1;

	for (; i < c->argc && c->v[i].known && c->v[i].s[0] == '-' && c->v[i].s[1]; i++)
		if (!s2c_streq(c->v[i].s, "-P"))
			return NULL;            /* -H, -L, -D, -O and anything else */
	if (i + 1 < c->argc && !(c->v[i + 1].known && strchr("-(!", c->v[i + 1].s[0])))
		return NULL;                    /* more than one starting point */
	for (size_t j = i; j < c->argc; j++)
		if (!c->v[j].known || s2c_streq(c->v[j].s, "-follow"))
			return NULL;
	if (i >= c->argc || c->v[i].glob)
		return NULL;
	return through_members(e, msfile_path(e, &c->v[i]));
}

/* find PATH… EXPR: -exec, -execdir, -ok, -okdir run a command on what it finds. */
enum ms_st msrun_find(struct ms_eval *e, const struct ms_call *c)
{
	_cleanup_free_ char *start = find_start(e, c);

	for (size_t i = 1; i < c->argc && !e->error; i++) {
		const struct ms_field *f = &c->v[i];
		size_t end = i + 1;
		if (!f->known)
			continue;
		if (s2c_streq(f->s, "-delete")) {
			mseval_touch(e, c->n->line, start, true, "removes");
		} else if (s2c_streq(f->s, "-fprint") || s2c_streq(f->s, "-fprintf") ||
			   s2c_streq(f->s, "-fprint0") || s2c_streq(f->s, "-fls")) {
			mseval_touch(e, c->n->line, NULL, false, "writes to");
		} else if (s2c_streq(f->s, "-exec") || s2c_streq(f->s, "-execdir") ||
			   s2c_streq(f->s, "-ok") || s2c_streq(f->s, "-okdir")) {
			bool dir = s2c_streq(f->s, "-execdir") || s2c_streq(f->s, "-okdir");
			while (end < c->argc && !(c->v[end].known && (s2c_streq(c->v[end].s, ";") ||
								      s2c_streq(c->v[end].s, "+"))))
				end++;
			if (end == i + 1)
				return MS_FALSE;
			/* -execdir names it ./NAME in its own directory */
			(void)run_with_found(e, c, i + 1, end, dir ? NULL : start);
			i = end;
		}
	}
	return MS_UNKNOWN;
}
