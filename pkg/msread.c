/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * while read VARS; do …; done < FILE in the maintainer-script evaluator, where
 * FILE is a file of the package the script has not written, whose content is
 * therefore known: the body runs once per line, with the values read sets as
 * dash reads them (backslashes without -r, IFS splitting, the last variable
 * taking the rest).  Only a body whose commands cannot read the loop's input
 * (so that every line goes to read) is followed so; any other loop is
 * eval_loop's in maintscript.c, where the variables are not known.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "member.h"
#include "mscommand.h"
#include "shparse.h"
#include "util.h"
#include "common.h"

/* Most lines of one loop followed one by one; past it the loop is incomplete. */
#define MSREAD_LINES_MAX 4096
/* Deepest nesting of the body's function calls looked through. */
#define MSREAD_DEPTH_MAX 8
/* The IFS of a shell that has none. */
#define MSREAD_IFS_DEFAULT " \t\n"

/* Commands that never read their standard input, whatever their arguments. */
static const char *const quiet_commands[] = {
	"[", "test", "echo", "printf", ":", "true", "false", "exit", "return", "break",
	"continue", "cd", "local", "export", "unset", "shift", "set", "readlink", "basename",
	"dirname", "ln", "rm", "rmdir", "mkdir", "touch", "chmod", "chown", "chgrp", "setcap",
	"cp", "mv", "install", "dpkg-statoverride", NULL,
};

/* Of quiet_commands, those that read their input with some arguments: -i asks (rm -I too),
 * setcap - reads capabilities. */
static bool asks(const char *name, const char *arg)
{
	if (s2c_streq(name, "setcap"))
		return s2c_streq(arg, "-");
	if (arg[0] != '-' || !arg[1])
		return false;
	if (arg[1] == '-')
		return arg[2] == 'i';   /* --interactive, or a prefix of it */
	return strpbrk(arg + 1, "iI") != NULL;
}

void msread_check_call(struct ms_eval *e, const struct ms_call *c)
{
	const char *name = member_base_name(c->v[0].s);

	if (!s2c_streq(name, "ln") && !s2c_streq(name, "cp") && !s2c_streq(name, "mv") &&
	    !s2c_streq(name, "rm") && !s2c_streq(name, "setcap"))
		return;
	for (size_t i = 1; i < c->argc; i++) {
		if (c->v[i].known && s2c_streq(c->v[i].s, "--") && !s2c_streq(name, "setcap"))
			break;
		if (!c->v[i].known || asks(name, c->v[i].s)) {
			mscommand_incomplete(e, c, "may read the input of the while read loop around "
					     "it, whose lines are then not all read");
			return;
		}
	}
}

/* The read of a loop's condition. */
struct read_cmd {
	char **vars;            /* owned, NULL-terminated */
	size_t n_vars;
	bool raw;               /* -r */
	char *ifs;              /* owned */
};

static void read_cmd_release(struct read_cmd *r)
{
	strv_free(r->vars);
	free(r->ifs);
}

static bool quiet_command(const char *name)
{
	for (size_t i = 0; quiet_commands[i]; i++)
		if (s2c_streq(quiet_commands[i], name))
			return true;
	return false;
}

static bool in_ifs(const char *ifs, char c)
{
	return c && strchr(ifs, c);
}

static bool ifs_space(const char *ifs, char c)
{
	return (c == ' ' || c == '\t' || c == '\n') && in_ifs(ifs, c);
}

/* The first unquoted IFS character of @l from @i, or its end. */
static size_t field_end(const struct msread_line *l, size_t i, const char *ifs)
{
	while (i < l->n && (l->quoted[i] || !in_ifs(ifs, l->s[i])))
		i++;
	return i;
}

/* Past the delimiter at @i: IFS white space, at most one other IFS character, white space. */
static size_t skip_delim(const struct msread_line *l, size_t i, const char *ifs)
{
	while (i < l->n && !l->quoted[i] && ifs_space(ifs, l->s[i]))
		i++;
	if (i < l->n && !l->quoted[i] && in_ifs(ifs, l->s[i])) {
		i++;
		while (i < l->n && !l->quoted[i] && ifs_space(ifs, l->s[i]))
			i++;
	}
	return i;
}

int msread_next(const char *text, size_t len, size_t *pos, bool raw, struct msread_line *l)
{
	size_t i = *pos, k = 0;

	*l = (struct msread_line){ 0 };
	l->s = malloc(len - i + 1);
	l->quoted = calloc(len - i + 1, sizeof(*l->quoted));
	if (!l->s || !l->quoted) {
		msread_line_release(l);
		return -ENOMEM;
	}
	while (i < len) {
		char c = text[i++];
		if (c == '\n') {
			l->newline = true;
			break;
		}
		if (c == '\\' && !raw) {
			if (i == len)
				break;          /* a backslash at the very end is dropped */
			c = text[i++];
			if (c == '\n')
				continue;       /* joins the next line */
			l->quoted[k] = true;
		}
		l->s[k++] = c;
	}
	l->s[k] = '\0';
	l->n = k;
	*pos = i;
	return 0;
}

void msread_line_release(struct msread_line *l)
{
	free(l->s);
	free(l->quoted);
	*l = (struct msread_line){ 0 };
}

int msread_split(const struct msread_line *l, const char *ifs, size_t n_vars, char **vals)
{
	size_t i = 0, end = l->n, f;

	while (i < l->n && !l->quoted[i] && ifs_space(ifs, l->s[i]))
		i++;
	for (size_t v = 0; v + 1 < n_vars; v++) {
		f = field_end(l, i, ifs);
		if (!(vals[v] = strndup(l->s + i, f - i)))
			return -ENOMEM;
		i = f < l->n ? skip_delim(l, f, ifs) : l->n;
	}
	/* the last: the rest, less trailing IFS white space and a lone trailing delimiter */
	while (end > i && !l->quoted[end - 1] && ifs_space(ifs, l->s[end - 1]))
		end--;
	f = field_end(l, i, ifs);
	if (f < end && skip_delim(l, f, ifs) >= end)
		end = f;
	return (vals[n_vars - 1] = strndup(l->s + i, end - i)) ? 0 : -ENOMEM;
}

/* The text of @w when it is literal text only, else NULL. */
static char *literal(const struct sh_word *w)
{
	_cleanup_free_ char *s = strdup("");

	for (size_t i = 0; s && i < w->n; i++) {
		char *t;
		if (w->parts[i].kind != SH_PART_LIT)
			return NULL;
		t = strdup_printf("%s%s", s, w->parts[i].text);
		free(s);
		s = t;
	}
	return TAKE_PTR(s);
}

static bool identifier(const char *s)
{
	if (!*s || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return false;
	return s[strspn(s, "_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")] ==
	       '\0';
}

static const struct ms_func *function(const struct ms_eval *e, const char *name)
{
	return msfuncs_find(&e->funcs, name);
}

/* The IFS read splits with: the assignment before it, or the shell's. */
static char *read_ifs(const struct ms_eval *e, const struct sh_node *c)
{
	const struct ms_var *v = mseval_env_find(&e->env, "IFS");

	if (c->n_assigns)
		return literal(&c->assigns[0].value);
	if (!v)
		return strdup(MSREAD_IFS_DEFAULT);
	return v->value ? strdup(v->value) : NULL;
}

/* Whether @w's words (from the second) are -r and names; fills @r. */
static bool read_words(const struct sh_node *c, struct read_cmd *r)
{
	for (size_t i = 1; i < c->n_words; i++) {
		_cleanup_free_ char *w = literal(&c->words[i]);
		if (!w)
			return false;
		if (s2c_streq(w, "-r") && r->n_vars == 0) {
			r->raw = true;
			continue;
		}
		if (!identifier(w) || strv_push(&r->vars, &r->n_vars, TAKE_PTR(w)) < 0)
			return false;
	}
	return r->n_vars > 0;
}

/* The loop's condition as a plain read VARS (IFS=… before it at most), into @r. */
static bool read_command(const struct ms_eval *e, const struct sh_node *n, struct read_cmd *r)
{
	const struct sh_node *c = n->kids[0];
	_cleanup_free_ char *name = NULL;

	*r = (struct read_cmd){ 0 };
	while (c && (c->kind == SH_LIST || (c->kind == SH_PIPE && !c->negated)) && c->n_kids == 1)
		c = c->kids[0];
	if (!c || c->kind != SH_SIMPLE || c->n_redirs || !c->n_words || c->n_assigns > 1 ||
	    (c->n_assigns && !s2c_streq(c->assigns[0].name, "IFS")) ||
	    (e->n_aliases && !e->bash))
		return false;
	name = literal(&c->words[0]);
	if (!name || !s2c_streq(name, "read") || function(e, "read"))
		return false;
	if (!read_words(c, r) || !(r->ifs = read_ifs(e, c))) {
		read_cmd_release(r);
		return false;
	}
	return true;
}

static bool quiet_node(const struct ms_eval *e, const struct sh_node *n, unsigned depth);

static bool quiet_word(const struct ms_eval *e, const struct sh_word *w, unsigned depth)
{
	for (size_t i = 0; w && i < w->n; i++) {
		const struct sh_part *p = &w->parts[i];
		if ((p->kind == SH_PART_CMDSUB && !quiet_node(e, p->sub, depth)) ||
		    (p->arg && !quiet_word(e, p->arg, depth)))
			return false;
	}
	return true;
}

/* A simple command: one of quiet_commands, or a function whose body is quiet. */
static bool quiet_simple(const struct ms_eval *e, const struct sh_node *n, unsigned depth)
{
	_cleanup_free_ char *name = NULL;
	const struct ms_func *fn;

	for (size_t i = 0; i < n->n_assigns; i++)
		if (!quiet_word(e, &n->assigns[i].value, depth))
			return false;
	for (size_t i = 0; i < n->n_words; i++)
		if (!quiet_word(e, &n->words[i], depth))
			return false;
	if (!n->n_words)
		return true;
	if (!(name = literal(&n->words[0])))
		return false;
	fn = function(e, name);
	if (fn && !quiet_node(e, fn->body, depth + 1))
		return false;
	return (fn && !fn->maybe) || quiet_command(name);
}

/* Whether nothing @n runs reads its standard input. */
static bool quiet_node(const struct ms_eval *e, const struct sh_node *n, unsigned depth)
{
	if (!n)
		return true;
	if (depth > MSREAD_DEPTH_MAX)
		return false;
	for (size_t i = 0; i < n->n_redirs; i++)
		if (!quiet_word(e, &n->redirs[i].target, depth))
			return false;
	if (n->kind == SH_SIMPLE)
		return quiet_simple(e, n, depth);
	if (n->kind == SH_FUNC)
		return true;            /* only defined here */
	for (size_t i = 0; i < n->n_words; i++)
		if (!quiet_word(e, &n->words[i], depth))
			return false;
	if (n->word && !quiet_word(e, n->word, depth))
		return false;
	for (size_t i = 0; i < n->n_arms; i++) {
		for (size_t j = 0; j < n->arms[i].n_patterns; j++)
			if (!quiet_word(e, &n->arms[i].patterns[j], depth))
				return false;
		if (!quiet_node(e, n->arms[i].body, depth))
			return false;
	}
	for (size_t i = 0; i < n->n_kids; i++)
		if (!quiet_node(e, n->kids[i], depth))
			return false;
	return true;
}

/* The content of the loop's input when it is a file of the package the script has not
 * written (msgrep_package_text(): a conffile as packed), or NULL. */
static char *loop_input(struct ms_eval *e, const struct sh_node *n, size_t *len)
{
	_cleanup_free_ char *target = NULL, *path = NULL;
	struct ms_field f;
	char *text;

	if (n->n_redirs != 1 || !s2c_streq(n->redirs[0].op, "<") ||
	    !(target = literal(&n->redirs[0].target)))
		return NULL;
	f = (struct ms_field){ .s = target, .len = strlen(target), .known = true };
	if (!(path = msfile_path(e, &f)) || !(text = msgrep_package_text(e, path, len)))
		return NULL;
	if (memchr(text, '\0', *len)) {
		free(text);
		return NULL;
	}
	return text;
}

static size_t count_lines(const char *text, size_t len)
{
	size_t n = 0;

	for (const char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))); p++)
		n++;
	return n;
}

/* One read: its variables set from the line at *@pos.  Returns whether a line was read. */
static bool read_line(struct ms_eval *e, const struct read_cmd *r, const char *text, size_t len,
		      size_t *pos)
{
	struct msread_line l;
	_cleanup_free_ char **vals = calloc(r->n_vars, sizeof(*vals));

	if (!vals || msread_next(text, len, pos, r->raw, &l) < 0) {
		mseval_oom(e);
		return false;
	}
	if (msread_split(&l, r->ifs, r->n_vars, vals) < 0)
		mseval_oom(e);
	for (size_t i = 0; i < r->n_vars; i++)
		mseval_env_set(e, &e->env, r->vars[i], e->error ? NULL : vals[i]);
	if (e->error)
		for (size_t i = 0; i < r->n_vars; i++)
			free(vals[i]);
	bool newline = l.newline;
	msread_line_release(&l);
	return newline && !e->error;
}

static void run(struct ms_eval *e, const struct sh_node *n, const struct read_cmd *r,
		const char *text, size_t len)
{
	bool broken = e->maybe_broken;
	size_t pos = 0;

	e->loops++;
	e->input_loops++;
	while (read_line(e, r, text, len, &pos)) {
		bool left;
		(void)maintscript_eval(e, n->kids[1]);
		left = e->breaking == 1;
		e->breaking = 0;
		if (left || e->error || e->exited || e->returning)
			break;
	}
	e->input_loops--;
	e->loops--;
	e->maybe_broken = broken;
}

bool msread_loop(struct ms_eval *e, const struct sh_node *n, enum ms_st *ret)
{
	struct read_cmd r;
	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	if (n->kind != SH_WHILE || !read_command(e, n, &r))
		return false;
	text = loop_input(e, n, &len);
	if (!text || !quiet_node(e, n->kids[1], 0)) {
		read_cmd_release(&r);
		return false;
	}
	if (count_lines(text, len) > MSREAD_LINES_MAX) {
		mseval_incomplete(e, n->line, "a while read loop over more than %d lines; its "
				  "values are not followed", MSREAD_LINES_MAX);
		read_cmd_release(&r);
		return false;
	}
	run(e, n, &r, text, len);
	read_cmd_release(&r);
	*ret = MS_TRUE;
	return true;
}
