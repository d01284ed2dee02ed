/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Simple commands of the maintainer-script evaluator: expansion, aliases,
 * the lookup the shell does (special built-ins, functions, the package's
 * own programs on dpkg's PATH, the table of models), function calls and
 * set -e.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "member.h"
#include "mscommand.h"
#include "msexpand.h"
#include "shparse.h"
#include "util.h"
#include "common.h"

/* dpkg runs maintainer scripts with this PATH. */
static const char *const dpkg_path[] = { "/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
					 "/usr/bin", "/sbin", "/bin" };

char *mscommand_text(const struct sh_node *n)
{
	size_t len = S2C_MIN(n->src_len, (size_t)MSEVAL_COMMAND_TEXT_MAX);
	char *s = strndup(n->src ? n->src : "", len);

	if (!s)
		return NULL;
	for (char *c = s; *c; c++)
		if (*c == '\n' || *c == '\t' || *c == '\r')
			*c = ' ';
	if (n->src_len > MSEVAL_COMMAND_TEXT_MAX) {
		char *longer = strdup_printf("%s…", s);
		free(s);
		s = longer;
	}
	return s;
}

void mscommand_incomplete(struct ms_eval *e, const struct ms_call *c, const char *reason)
{
	_cleanup_free_ char *text = mscommand_text(c->n);
	_cleanup_free_ char *shown = text ? escape_text(text) : NULL;

	if (!shown) {
		mseval_oom(e);
		return;
	}
	mseval_incomplete(e, c->n->line, "'%s': %s", shown, reason);
}

bool mscommand_is_option(const struct ms_field *f)
{
	return f->known && f->s[0] == '-' && f->s[1] != '\0';
}

struct ms_call mscommand_shift(const struct ms_call *c, size_t i)
{
	return (struct ms_call){ .n = c->n, .v = c->v + S2C_MIN(i, c->argc),
				 .argc = c->argc - S2C_MIN(i, c->argc) };
}

/* --- functions ------------------------------------------------------------------------------ */

static const struct ms_func *func_find(const struct ms_eval *e, const char *name)
{
	const struct ms_func *f = msfuncs_find(&e->funcs, name);

	return f && f->body ? f : NULL;   /* unset -f */
}

/* Put back what `local` hid since @start. */
static void locals_restore(struct ms_eval *e, size_t start)
{
	while (e->n_locals > start) {
		struct ms_var *l = &e->locals[--e->n_locals];
		if (l->was_unset)
			mseval_env_unset(e, &e->env, l->name);
		else
			mseval_env_set(e, &e->env, l->name, TAKE_PTR(l->value));
		free(l->name);
		free(l->value);
	}
}

static enum ms_st call_func(struct ms_eval *e, const struct ms_func *fn, const struct ms_call *c)
{
	const char *const *saved = e->pos;
	size_t n_saved = e->n_pos, locals = e->n_locals;
	bool maybe_returned = e->maybe_returned, pos_unknown = e->pos_unknown;
	const char **args;
	enum ms_st r;

	if (e->calls >= MSEVAL_CALLS_MAX) {
		mseval_incomplete(e, c->n->line, "function calls nested more than %d deep; "
				  "not followed", MSEVAL_CALLS_MAX);
		return MS_UNKNOWN;
	}
	args = calloc(c->argc ? c->argc : 1, sizeof(*args));
	if (!args) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	e->pos_unknown = false;
	for (size_t i = 1; i < c->argc; i++) {
		args[i - 1] = c->v[i].s;
		e->pos_unknown = e->pos_unknown || !c->v[i].known;  /* then none is known */
	}
	e->pos = args;
	e->n_pos = c->argc - 1;
	e->calls++;
	r = maintscript_eval(e, fn->body);
	e->calls--;
	e->returning = false;
	e->maybe_returned = maybe_returned;
	locals_restore(e, locals);
	e->pos = saved;
	e->n_pos = n_saved;
	e->pos_unknown = pos_unknown;
	free(args);
	return r;
}

/* --- lookup --------------------------------------------------------------------------------- */

/* Whether @row models the program the package itself ships: it is one of the row's packages. */
static bool provided(const struct ms_eval *e, const struct mscmd *row)
{
	const char *pkg = e->ctx->package, *p;
	size_t n;

	if (!row || !row->by || !pkg)
		return false;
	n = strlen(pkg);
	for (p = row->by; (p = strstr(p, pkg)); p += n)
		if ((p == row->by || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

static enum ms_st run_row(struct ms_eval *e, const struct mscmd *row, const struct ms_call *c)
{
	if (row->fn)
		return row->fn(e, c);
	return row->flags & MSCMD_STATUS ? MS_UNKNOWN : MS_TRUE;
}

/* The directories of PATH: dpkg's, or what the script set; false when not known. */
static bool search_path(struct ms_eval *e, const struct ms_call *c, char ***ret, size_t *ret_n)
{
	const struct ms_var *v = mseval_env_find(&e->env, "PATH");
	const char *p;

	*ret = NULL;
	*ret_n = 0;
	if (!v) {
		for (size_t i = 0; i < S2C_ELEMENTSOF(dpkg_path); i++)
			if (strv_push(ret, ret_n, strdup(dpkg_path[i])) < 0)
				mseval_oom(e);
		return !e->error;
	}
	if (!v->value) {
		mscommand_incomplete(e, c, "PATH is not known here");
		return false;
	}
	for (p = v->value; !e->error;) {
		size_t n = strcspn(p, ":");
		char *dir = strndup(p, n);
		if (!dir || dir[0] != '/') {
			free(dir);
			mscommand_incomplete(e, c, "PATH holds a relative directory");
			strv_freen(*ret, *ret_n);
			*ret = NULL;
			return false;
		}
		if (strv_push(ret, ret_n, dir) < 0)
			mseval_oom(e);
		if (!p[n])
			break;
		p += n + 1;
	}
	return !e->error;
}

static bool standard_dir(const char *dir)
{
	for (size_t i = 0; i < S2C_ELEMENTSOF(dpkg_path); i++)
		if (s2c_streq(dir, dpkg_path[i]))
			return true;
	return false;
}

/* Whether the shells run @name as their own (dash's and bash's regular built-ins) before PATH. */
static bool shell_builtin(const char *name)
{
	static const char *const builtins[] = {
		"[", "echo", "false", "kill", "printf", "pwd", "test", "true",
	};

	for (size_t i = 0; i < S2C_ELEMENTSOF(builtins); i++)
		if (s2c_streq(builtins[i], name))
			return true;
	return false;
}

/*
 * Whether @path goes through a symbolic link the script made, of a name known
 * or not: then a program of the script's choosing may stand there.
 */
static bool linked(struct ms_eval *e, const char *name, const char *path)
{
	_cleanup_free_ char *copy = NULL, *through = NULL;
	struct ms_field f = { .len = strlen(path), .known = true };

	if (shell_builtin(name))
		return false;
	f.s = copy = strdup(path);
	if (!copy) {
		mseval_oom(e);
		return false;
	}
	through = msfile_path(e, &f);
	return !e->error && (!through || !s2c_streq(through, path));
}

/*
 * A program by name: the package's own on PATH comes first (it shadows the
 * system's), then the table; a directory off dpkg's PATH may hold anything.
 */
static enum ms_st run_program(struct ms_eval *e, const struct ms_call *c, const char *name)
{
	const struct mscmd *row = mscmd_find(name);
	char **dirs = NULL;
	size_t n = 0;
	enum ms_st r = MS_UNKNOWN;
	bool done = false;

	if (!search_path(e, c, &dirs, &n))
		return MS_UNKNOWN;
	for (size_t i = 0; i < n && !done && !e->error; i++) {
		_cleanup_free_ char *path = path_join(dirs[i], name);
		if (!path) {
			mseval_oom(e);
			break;
		}
		if (linked(e, name, path)) {
			mscommand_incomplete(e, c, "a link the script made may stand in for it on PATH");
			done = true;
		} else if (msfile_unpacked(e, path)) {
			r = provided(e, row) ? run_row(e, row, c) : msrun_member(e, c, path);
			done = true;
		} else if (!standard_dir(dirs[i])) {
			mscommand_incomplete(e, c, "PATH holds a directory the audit cannot see into");
			done = true;
		}
	}
	strv_freen(dirs, n);
	if (done || e->error)
		return r;
	if (row && !(row->flags & MSCMD_BUILTIN))
		return run_row(e, row, c);
	if (row)
		mscommand_incomplete(e, c, "not a program: only the shell has it");
	else
		mscommand_incomplete(e, c, "this command is not modelled");
	return MS_UNKNOWN;
}

/* A command named by a path: the package's own program, or a system one in the table. */
static enum ms_st run_path(struct ms_eval *e, const struct ms_call *c)
{
	_cleanup_free_ char *path = msfile_path(e, &c->v[0]);
	_cleanup_free_ char *dir = NULL;
	const struct mscmd *row;

	if (!path) {
		if (!e->error)
			mscommand_incomplete(e, c, "runs a program whose path is not known");
		return MS_UNKNOWN;
	}
	row = mscmd_find(member_base_name(path));
	if (msfile_unpacked(e, path))
		return provided(e, row) ? run_row(e, row, c) : msrun_member(e, c, path);
	/* a helper known by its full path (another package's) */
	if (mscmd_find(path) && !(mscmd_find(path)->flags & MSCMD_BUILTIN))
		return run_row(e, mscmd_find(path), c);
	dir = strndup(path, (size_t)(member_base_name(path) - path - 1));
	if (!dir) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	if ((standard_dir(dir) || !*dir) && row && !(row->flags & MSCMD_BUILTIN))
		return run_row(e, row, c);
	if (!msfile_members_known(e)) {
		/* maybe the package's: keep it, and look again once the members are known */
		mseval_strset_add(e, &e->wants, &e->n_wants, path);
		return MS_UNKNOWN;
	}
	mscommand_incomplete(e, c, "runs a program that is neither the package's nor modelled");
	return MS_UNKNOWN;
}

/* A function that may or may not be defined here: both what it does and the command. */
static enum ms_st call_maybe(struct ms_eval *e, const struct ms_func *fn, const struct ms_call *c,
			     unsigned how)
{
	e->cond++;
	(void)call_func(e, fn, c);
	(void)mscommand_call(e, c, how | MSCALL_NO_FUNCS);
	e->cond--;
	return MS_UNKNOWN;
}

enum ms_st mscommand_call(struct ms_eval *e, const struct ms_call *c, unsigned how)
{
	const char *name;
	const struct mscmd *row;
	const struct ms_func *fn;

	if (c->argc == 0)
		return MS_TRUE;
	if (!c->v[0].known) {
		mscommand_incomplete(e, c, "runs a command whose name is not known");
		return MS_UNKNOWN;
	}
	name = c->v[0].s;
	if (e->input_loops)
		msread_check_call(e, c);
	if (strchr(name, '/'))
		return run_path(e, c);
	row = mscmd_find(name);
	if (!(how & MSCALL_PROGRAM) && row && (row->flags & MSCMD_SPECIAL))
		return run_row(e, row, c);
	fn = how & (MSCALL_PROGRAM | MSCALL_NO_FUNCS) ? NULL : func_find(e, name);
	if (fn)
		return fn->maybe ? call_maybe(e, fn, c, how) : call_func(e, fn, c);
	if (!(how & MSCALL_PROGRAM) && row && (row->flags & MSCMD_BUILTIN))
		return run_row(e, row, c);
	return run_program(e, c, name);
}

/* --- simple commands ------------------------------------------------------------------------ */

static const char *alias_of(const struct ms_eval *e, const char *name)
{
	for (size_t i = e->n_aliases; i-- > 0;)
		if (s2c_streq(e->aliases[i].name, name))
			return e->aliases[i].value;
	return NULL;
}

/*
 * The words of the alias @value, when it is one simple command of words only
 * (parsed and kept in @e, as dash reads it where the alias is used); NULL
 * otherwise.
 */
static const struct sh_node *alias_words(struct ms_eval *e, const char *value)
{
	struct sh_script *script = NULL;
	const struct sh_node *n;
	struct sh_script **v;

	if (sh_parse(value, strlen(value), &script, NULL) < 0)
		return NULL;
	n = script->root;
	if (n->n_kids == 1 && n->kids[0]->kind == SH_PIPE && n->kids[0]->n_kids == 1 &&
	    !n->kids[0]->negated)
		n = n->kids[0]->kids[0];
	if (n->kind != SH_SIMPLE || n->n_assigns || n->n_redirs || !n->n_words) {
		sh_script_free(script);
		return NULL;
	}
	v = realloc(e->subs, (e->n_subs + 1) * sizeof(*v));
	if (!v) {
		sh_script_free(script);
		mseval_oom(e);
		return NULL;
	}
	e->subs = v;
	v[e->n_subs++] = script;
	return n;
}

/* dash expands an alias in the first word of a command: its words come first. */
static void expand_alias(struct ms_eval *e, const struct sh_node *n, struct ms_fields *f)
{
	const struct sh_word *w0 = &n->words[0];
	const char *plain = w0->n == 1 && !w0->parts[0].quoted && w0->parts[0].kind == SH_PART_LIT ?
			    w0->parts[0].text : NULL;
	const char *value = plain && !e->bash ? alias_of(e, plain) : NULL;
	const struct sh_node *a;

	if (!value || !*value) {
		msexpand_word(e, w0, true, f);
		return;
	}
	a = alias_words(e, value);
	if (!a) {
		if (!e->error)
			mseval_incomplete(e, n->line, "the alias '%s' is more than a command with "
					  "words; not followed", plain);
		return;
	}
	for (size_t i = 0; i < a->n_words && !e->error; i++)
		msexpand_word(e, &a->words[i], true, f);
}

/*
 * A here-document the shell expands: its command substitutions run.  Its body
 * reads as a double-quoted word in which '"' is a plain character.
 */
static void heredoc(struct ms_eval *e, const struct sh_node *n, const char *body)
{
	size_t len = strlen(body), k = 0;
	_cleanup_free_ char *text = malloc(4 * len + 8);

	if (!text) {
		mseval_oom(e);
		return;
	}
	memcpy(text, ": \"", 3);
	k = 3;
	for (const char *c = body; *c; c++) {
		if (*c == '\\' && c[1] == '"') {
			/* a literal backslash and quote */
			memcpy(text + k, "\\\\\\\"", 4);
			k += 4;
			c++;
			continue;
		}
		if (*c == '"')
			text[k++] = '\\';
		text[k++] = *c;
	}
	text[k++] = '"';
	text[k] = '\0';
	(void)maintscript_eval_text(e, n->line, "a here-document", text, k);
}

void mscommand_redirects(struct ms_eval *e, const struct sh_node *n)
{
	for (size_t i = 0; i < n->n_redirs && !e->error; i++) {
		const struct sh_redir *rd = &n->redirs[i];
		_cleanup_free_ char *target = NULL, *path = NULL;
		bool writes = rd->op[0] == '>' || s2c_streq(rd->op, "<>");

		if (rd->heredoc) {
			heredoc(e, n, rd->heredoc);
			continue;
		}
		if (s2c_streq(rd->op, "<<") || s2c_streq(rd->op, "<<-"))
			continue;
		target = msexpand_string(e, &rd->target);
		if (!writes || s2c_streq(rd->op, ">&") || (target && (s2c_streq(target, "/dev/null") ||
						       s2c_streq(target, "-"))))
			continue;
		if (target) {
			struct ms_field f = { .s = target, .len = strlen(target), .known = true };
			path = msfile_path(e, &f);
		}
		mseval_touch(e, n->line, path, false, "writes to");
	}
}

/* Assignments before a command, or alone. */
static void assign(struct ms_eval *e, const struct sh_node *n)
{
	for (size_t i = 0; i < n->n_assigns && !e->error; i++)
		msexpand_assign(e, n->assigns[i].name, &n->assigns[i].value);
}

/* set -e: a command that fails stops the script; one whose status is not known may. */
static void errexit(struct ms_eval *e, const struct sh_node *n, enum ms_st r)
{
	if (!e->errexit || e->exempt || e->exited || e->error)
		return;
	if (r == MS_FALSE && !mseval_uncertain(e)) {
		mseval_note(e, n->line, "set -e stops the script here: the installation fails");
		e->exited = true;
	} else if (r != MS_TRUE) {
		e->maybe_stopped = true;
	}
}

enum ms_st mscommand_simple(struct ms_eval *e, const struct sh_node *n)
{
	struct ms_fields f = { 0 };
	struct ms_call c;
	enum ms_st r;

	e->cmdsub_status = MS_TRUE;
	mscommand_redirects(e, n);
	if (n->n_words == 0) {
		assign(e, n);
		r = e->cmdsub_status;
		errexit(e, n, r);
		return r;
	}
	expand_alias(e, n, &f);
	for (size_t i = 1; i < n->n_words && !e->error; i++)
		msexpand_word(e, &n->words[i], true, &f);
	/* Assignments before a command: kept for the command (and after it, as dash does for
	 * special built-ins and functions). */
	assign(e, n);
	if (e->error) {
		mseval_fields_release(&f);
		return MS_UNKNOWN;
	}
	c = (struct ms_call){ .n = n, .v = f.v, .argc = f.n };
	r = mscommand_call(e, &c, 0);
	mseval_fields_release(&f);
	errexit(e, n, r);
	return r;
}
