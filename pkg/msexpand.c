/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Word expansion for the maintainer-script evaluator: parameters, field
 * splitting, and the command substitutions whose output is known.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msexpand.h"
#include "member.h"
#include "mscommand.h"
#include "mseval.h"
#include "shparse.h"
#include "util.h"
#include "common.h"

static char *cmdsub_output(struct ms_eval *e, const struct sh_node *list);

void msexpand_assign(struct ms_eval *e, const char *name, const struct sh_word *w)
{
	struct ms_fields f = { 0 };

	msexpand_word(e, w, false, &f);
	if (!e->error && f.n == 1)
		mseval_env_set_field(e, &e->env, name, &f.v[0]);
	else if (!e->error)
		mseval_env_set(e, &e->env, name, NULL);
	mseval_fields_release(&f);
}

/* The whole word as one string (assignments, case words, patterns); NULL when unknown. */
char *msexpand_string(struct ms_eval *e, const struct sh_word *w)
{
	struct ms_fields f = { 0 };
	char *s = NULL;

	msexpand_word(e, w, false, &f);
	if (!e->error && f.n == 1 && f.v[0].known)
		s = TAKE_PTR(f.v[0].s);
	else if (!e->error && f.n == 0)
		s = strdup("");
	mseval_fields_release(&f);
	return s;
}

/* A parameter's value: positional, special or a variable.  Sets *known. */
static const char *param_value(struct ms_eval *e, const char *name, bool *known)
{
	unsigned idx;
	struct ms_var *v;

	*known = true;
	if (parse_uint(name, 1000, &idx) == 0) {
		if (idx == 0)
			return e->name;
		*known = !e->pos_unknown;
		return idx <= e->n_pos ? e->pos[idx - 1] : "";
	}
	if (s2c_streq(name, "#")) {
		*known = !e->pos_unknown;
		(void)snprintf(e->numbuf, sizeof(e->numbuf), "%zu", e->n_pos);
		return e->numbuf;
	}
	if (s2c_streq(name, "?") || s2c_streq(name, "$") || s2c_streq(name, "!") ||
	    s2c_streq(name, "-")) {
		*known = false;
		return "";
	}
	v = mseval_env_find(&e->env, name);
	if (!v)
		return "";      /* unset: empty */
	if (!v->value) {
		*known = false;
		return "";
	}
	return v->value;
}

/* The characters IFS splits on ("" for none), or NULL when IFS is not known. */
static const char *ifs_chars(const struct ms_eval *e)
{
	const struct ms_var *v = mseval_env_find(&e->env, "IFS");

	return v ? v->value : " \t\n";
}

/* Skip a field separator: IFS blanks, at most one other IFS character, IFS blanks. */
static const char *skip_separator(const char *s, const char *ifs)
{
	while (*s && strchr(ifs, *s) && strchr(" \t\n", *s))
		s++;
	if (*s && strchr(ifs, *s)) {
		s++;
		while (*s && strchr(ifs, *s) && strchr(" \t\n", *s))
			s++;
	}
	return s;
}

/* Add @s to the fields, split on IFS when @split and not @quoted. */
static void add_text(struct ms_eval *e, struct ms_fields *out, struct ms_field **cur, const char *s,
		     bool known, bool split, bool quoted)
{
	const char *ifs = split && !quoted ? ifs_chars(e) : "";

	if (!ifs) {
		/* how IFS splits it is not known */
		mseval_field_unknown(*cur);
		mseval_field_append(e, *cur, s, strlen(s));
		(*cur)->tail = (*cur)->len;
		(*cur)->vague = true;
		return;
	}
	if (!known)
		mseval_field_unknown(*cur);
	if (!known && *ifs)
		(*cur)->vague = true;   /* no field, or several */
	if (!*ifs) {
		mseval_field_append(e, *cur, s, strlen(s));
		for (const char *c = s; split && !quoted && *c; c++)
			if (strchr("*?[", *c))
				(*cur)->glob = true;
		return;
	}
	while (*s) {
		size_t n = strcspn(s, ifs);
		mseval_field_append(e, *cur, s, n);
		if (!known)
			mseval_field_unknown(*cur);
		for (size_t i = 0; i < n; i++)
			if (strchr("*?[", s[i]))
				(*cur)->glob = true;
		s += n;
		if (*s) {
			s = skip_separator(s, ifs);
			if (*s && !(*cur = mseval_field_new(e, out)))
				return;
		}
	}
}

/* $((…)): its value is not followed; a command substitution or an assignment inside is not
 * modelled. */
static void check_arith(struct ms_eval *e, const struct sh_part *p, unsigned line)
{
	const char *t = p->text ? p->text : "";

	if (strstr(t, "$(") || strchr(t, '`')) {
		mseval_incomplete(e, line, "arithmetic that runs a command substitution");
		return;
	}
	for (const char *c = t; *c; c++) {
		if ((c[0] == '+' && c[1] == '+') || (c[0] == '-' && c[1] == '-') ||
		    (c[0] == '=' && c[1] != '=' && (c == t || !strchr("=!<>", c[-1])))) {
			mseval_incomplete(e, line, "arithmetic that assigns a variable");
			return;
		}
	}
}

/*
 * Add the value of the unknown variable @name: its known start, then an
 * unknown part, which holds no '/' when the variable's does not and no field
 * splitting can cut it, then its known end.
 */
static void add_partial(struct ms_eval *e, struct ms_fields *out, struct ms_field **cur,
			const char *name, bool split, bool quoted)
{
	const struct ms_var *v = mseval_env_find(&e->env, name);

	if (v && !v->value && v->start)
		add_text(e, out, cur, v->start, true, split, quoted);
	if (!*cur)
		return;
	if (v && !v->value && v->start && v->flat && (quoted || !split))
		mseval_field_unknown_flat(*cur);
	else
		mseval_field_unknown(*cur);
	if (split && !quoted)
		(*cur)->vague = true;   /* its unknown part may hold blanks */
	if (v && !v->value && v->end)
		add_text(e, out, cur, v->end, true, split, quoted);
}

/*
 * Whether @w is the unquoted pattern of a star and a slash, with which
 * ${x##PATTERN} leaves the last part of a name.
 */
static bool base_pattern(const struct sh_word *w)
{
	size_t len = 0;

	for (size_t i = 0; w && i < w->n; i++) {
		if (w->parts[i].kind != SH_PART_LIT || w->parts[i].quoted)
			return false;
		len += strlen(w->parts[i].text);
	}
	if (!w || len != 2)
		return false;
	return w->n == 1 ? s2c_streq(w->parts[0].text, "*/") :
	       w->n == 2 && s2c_streq(w->parts[0].text, "*") && s2c_streq(w->parts[1].text, "/");
}

/*
 * ${x##PATTERN} with the star and slash of base_pattern(), of @value: what follows
 * its last '/'; of a value not known (NULL): a part that holds no '/'.
 */
static void add_base(struct ms_eval *e, struct ms_fields *out, struct ms_field **cur,
		     const char *value, bool split, bool quoted)
{
	const char *slash = value ? strrchr(value, '/') : NULL;

	if (value) {
		add_text(e, out, cur, slash ? slash + 1 : value, true, split, quoted);
	} else if (quoted || !split) {
		mseval_field_unknown_flat(*cur);
	} else {
		mseval_field_unknown(*cur);
	}
}

static void expand_param(struct ms_eval *e, const struct sh_part *p, bool split,
			 struct ms_fields *out, struct ms_field **cur)
{
	bool known;
	const char *v;
	_cleanup_free_ char *alt = NULL;

	if ((s2c_streq(p->text, "@") || s2c_streq(p->text, "*")) && e->pos_unknown) {
		add_text(e, out, cur, "", false, split, p->quoted);
		if (*cur)
			(*cur)->vague = true;
		return;
	}
	if (s2c_streq(p->text, "@") || s2c_streq(p->text, "*")) {
		for (size_t i = 0; i < e->n_pos; i++) {
			if (i > 0 && (p->quoted ? s2c_streq(p->text, "@") : split)) {
				if (!(*cur = mseval_field_new(e, out)))
					return;
			} else if (i > 0) {
				mseval_field_append(e, *cur, " ", 1);
			}
			add_text(e, out, cur, e->pos[i], true, split, p->quoted);
		}
		return;
	}
	v = param_value(e, p->text, &known);
	if (p->op[0] == 'L') {
		char len[32];
		(void)snprintf(len, sizeof(len), "%zu", strlen(v));
		add_text(e, out, cur, len, known, false, true);
		return;
	}
	if (p->op[0]) {
		bool colon = p->op[0] == ':';
		const char *op = colon ? p->op + 1 : p->op;
		bool set = mseval_env_find(&e->env, p->text) || !known ||
			   (parse_uint(p->text, 1000, &(unsigned){ 0 }) == 0 && *v);
		bool empty = known && !*v;
		bool use_arg = false;

		if (op[0] == '-' || op[0] == '=' || op[0] == '?')
			use_arg = !set || (colon && empty);
		else if (op[0] == '+')
			use_arg = set && !(colon && empty);
		if (s2c_streq(op, "##") && base_pattern(p->arg)) {
			add_base(e, out, cur, known ? v : NULL, split, p->quoted);
			return;
		}
		if (op[0] == '#' || op[0] == '%') {
			/* Pattern removal: only the plain case is needed; otherwise unknown. */
			add_text(e, out, cur, "", false, false, true);
			return;
		}
		if (op[0] == '+' && !use_arg) {
			add_text(e, out, cur, "", known, false, true);
			return;
		}
		if (use_arg) {
			alt = p->arg ? msexpand_string(e, p->arg) : strdup("");
			if (e->error)
				return;
			if (op[0] == '=' && alt)
				mseval_env_set(e, &e->env, p->text, strdup(alt));
			add_text(e, out, cur, alt ? alt : "", alt != NULL, split, p->quoted);
			return;
		}
	}
	if (!known)
		add_partial(e, out, cur, p->text, split, p->quoted);
	else
		add_text(e, out, cur, v, known, split, p->quoted);
}

void msexpand_word(struct ms_eval *e, const struct sh_word *w, bool split, struct ms_fields *out)
{
	struct ms_field *cur = mseval_field_new(e, out);
	bool any = false;

	if (!cur)
		return;
	for (size_t i = 0; i < w->n && !e->error; i++) {
		const struct sh_part *p = &w->parts[i];
		switch (p->kind) {
		case SH_PART_LIT:
			mseval_field_append(e, cur, p->text, strlen(p->text));
			if (!p->quoted && strpbrk(p->text, "*?["))
				cur->glob = true;
			any = true;
			break;
		case SH_PART_PARAM:
			expand_param(e, p, split, out, &cur);
			any = any || p->quoted;
			break;
		case SH_PART_CMDSUB: {
			_cleanup_free_ char *o = cmdsub_output(e, p->sub);
			add_text(e, out, &cur, o ? o : "", o != NULL, split, p->quoted);
			any = any || p->quoted;
			break;
		}
		case SH_PART_ARITH:
			check_arith(e, p, w->line);
			mseval_field_unknown(cur);
			any = true;
			break;
		}
		if (!cur)
			return;
	}
	/* An unquoted expansion to nothing is no field at all. */
	if (!any && cur->len == 0 && cur->known && split) {
		free(cur->s);
		out->n--;
	}
}

/* --- command substitution ------------------------------------------------------------------- */

/* The one simple command of @list, or NULL. */
static const struct sh_node *only_simple(const struct sh_node *list)
{
	const struct sh_node *pipe;

	if (!list || list->kind != SH_LIST || list->n_kids != 1)
		return NULL;
	pipe = list->kids[0];
	if (pipe->kind != SH_PIPE || pipe->negated || pipe->n_kids != 1 ||
	    pipe->kids[0]->kind != SH_SIMPLE)
		return NULL;
	return pipe->kids[0];
}

/* The name tempfile prints without options: a new file in /tmp, never the package's. */
static char *tempfile_name(struct ms_eval *e)
{
	char *name = strdup("/tmp/fileXXXXXX");

	if (!name)
		mseval_oom(e);
	else
		msfile_made(e, name);
	return name;
}

/*
 * The name mktemp prints: its template (tmp.XXXXXXXXXX) in its directory
 * ($TMPDIR or /tmp for -t, -p or a template without /), a file it made that
 * is never one of the package's.
 */
static char *mktemp_name(struct ms_eval *e, const struct ms_fields *f)
{
	const char *tmpl = "tmp.XXXXXXXXXX", *dir = NULL;
	bool in_tmp = false, directory = false;
	char *name;

	for (size_t i = 1; i < f->n; i++) {
		const char *o = f->v[i].s;
		if (s2c_streq(o, "-p") && i + 1 < f->n)
			dir = f->v[++i].s;
		else if (strncmp(o, "--tmpdir=", 9) == 0)
			dir = o + 9;
		else if (s2c_streq(o, "-t") || s2c_streq(o, "--tmpdir"))
			in_tmp = true;
		else if (s2c_streq(o, "-d") || s2c_streq(o, "--directory"))
			directory = true;
		else if (o[0] != '-')
			tmpl = o;
	}
	if (!dir && (in_tmp || !strchr(tmpl, '/')))
		dir = "/tmp";
	name = dir && !strchr(tmpl, '/') ? path_join(dir, tmpl) : strdup(tmpl);
	if (name && name[0] == '/' && directory)
		msfile_made_dir(e, name);
	else if (name && name[0] == '/')
		msfile_made(e, name);
	return name;
}

/* The fields of the simple command @c when every one is known; false when not. */
static bool known_fields(struct ms_eval *e, const struct sh_node *c, struct ms_fields *f)
{
	for (size_t i = 0; i < c->n_words && !e->error; i++)
		msexpand_word(e, &c->words[i], true, f);
	for (size_t i = 0; i < f->n; i++)
		if (!f->v[i].known)
			return false;
	return f->n > 0 && !e->error;
}

/* What echo prints for its fields @f (without the newline). */
static char *echo_output(const struct ms_fields *f)
{
	size_t first = f->n > 1 && s2c_streq(f->v[1].s, "-n") ? 2 : 1;
	char *out = strdup("");

	for (size_t i = first; out && i < f->n; i++) {
		char *joined = NULL;
		if (asprintf(&joined, "%s%s%s", out, i > first ? " " : "", f->v[i].s) < 0)
			joined = NULL;
		free(out);
		out = joined;
	}
	return out;
}

/* What the simple command of the known fields @f prints, for the few known; NULL: unknown. */
static char *simple_output(struct ms_eval *e, const struct ms_fields *f)
{
	const char *cmd = member_base_name(f->v[0].s);

	if (s2c_streq(cmd, "dpkg-divert") && f->n == 3 && s2c_streq(f->v[1].s, "--truename"))
		return strdup(f->v[2].s);
	if (s2c_streq(cmd, "uname") && (f->n == 1 || (f->n == 2 && s2c_streq(f->v[1].s, "-s"))))
		return strdup("Linux");
	if (s2c_streq(cmd, "dpkg") && f->n == 2 && s2c_streq(f->v[1].s, "--print-architecture") &&
	    e->ctx->arch)
		return strdup(e->ctx->arch);
	if ((s2c_streq(cmd, "command") && f->n == 3 && s2c_streq(f->v[1].s, "-v") &&
	     s2c_streq(f->v[2].s, "setcap")) ||
	    (s2c_streq(cmd, "which") && f->n == 2 && s2c_streq(f->v[1].s, "setcap")))
		return strdup(e->sc == MS_SCENARIO_WORKS ? "/sbin/setcap" : "");
	if (s2c_streq(cmd, "echo"))
		return echo_output(f);
	if (s2c_streq(cmd, "basename") && f->n == 2)
		return strdup(member_base_name(f->v[1].s));
	if (s2c_streq(cmd, "mktemp"))
		return mktemp_name(e, f);
	if (s2c_streq(cmd, "tempfile") && f->n == 1)
		return tempfile_name(e);
	return NULL;
}

/*
 * What the pipeline @pipe prints when it is a command whose output is known
 * (one line, no backslash dash's echo would read, no leading "-" bash's would
 * take for an option) into one sed substitution, neither redirected; NULL:
 * unknown.
 */
static char *sed_pipe_output(struct ms_eval *e, const struct sh_node *pipe)
{
	const struct sh_node *from, *sed;
	struct ms_fields f = { 0 }, g = { 0 };
	_cleanup_free_ const char **args = NULL;
	_cleanup_free_ char *line = NULL;
	char *out = NULL;

	if (pipe->kind != SH_PIPE || pipe->negated || pipe->n_kids != 2)
		return NULL;
	from = pipe->kids[0];
	sed = pipe->kids[1];
	if (from->kind != SH_SIMPLE || sed->kind != SH_SIMPLE || from->n_redirs || sed->n_redirs)
		return NULL;
	if (known_fields(e, from, &f))
		line = simple_output(e, &f);
	if (line && line[0] != '-' && !strpbrk(line, "\\\n") && known_fields(e, sed, &g) &&
	    (args = calloc(g.n, sizeof(*args)))) {
		for (size_t i = 1; i < g.n; i++)
			args[i - 1] = g.v[i].s;
		if (s2c_streq(member_base_name(g.v[0].s), "sed"))
			out = mssed_subst(args, g.n - 1, line);
		else if (s2c_streq(member_base_name(g.v[0].s), "cut"))
			out = mssed_cut(args, g.n - 1, line);
	}
	mseval_fields_release(&f);
	mseval_fields_release(&g);
	return out;
}

/*
 * Run the command substitution @list (in a subshell: what it does to files
 * counts), then what the few commands whose output the analysis knows would
 * print, or a sed substitution of one's.  NULL: unknown.
 */
static char *cmdsub_output(struct ms_eval *e, const struct sh_node *list)
{
	const struct sh_node *c = only_simple(list);
	struct ms_fields f = { 0 };
	char *out = NULL;

	e->cmdsub_status = maintscript_eval_subshell(e, list);
	if (e->error)
		return NULL;
	if (!c && list && list->kind == SH_LIST && list->n_kids == 1)
		return sed_pipe_output(e, list->kids[0]);
	if (c && c->n_words > 0 && known_fields(e, c, &f))
		out = simple_output(e, &f);
	mseval_fields_release(&f);
	return out;
}
