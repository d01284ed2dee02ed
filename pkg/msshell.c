/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shell's own commands in the maintainer-script evaluator: exit,
 * return, break, shift, set, export and local, unset, read, cd, alias,
 * test, trap, and the lookups (command -v, which, type) whose answer says
 * whether setcap exists.
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

enum ms_st msshell_colon(struct ms_eval *e, const struct ms_call *c)
{
	(void)e;
	(void)c;
	return MS_TRUE;
}

enum ms_st msshell_false(struct ms_eval *e, const struct ms_call *c)
{
	(void)e;
	(void)c;
	return MS_FALSE;
}

/* The status an exit or return gives: its argument, else the last one's (not known). */
static enum ms_st status_arg(const struct ms_call *c)
{
	if (c->argc < 2)
		return MS_UNKNOWN;
	if (!c->v[1].known)
		return MS_UNKNOWN;
	return s2c_streq(c->v[1].s, "0") ? MS_TRUE : MS_FALSE;
}

enum ms_st msshell_exit(struct ms_eval *e, const struct ms_call *c)
{
	if (mseval_uncertain(e))
		e->maybe_stopped = true;
	else
		e->exited = true;
	return status_arg(c);
}

enum ms_st msshell_return(struct ms_eval *e, const struct ms_call *c)
{
	if (!e->calls && !e->nest)
		return msshell_exit(e, c);
	if (mseval_uncertain(e))
		e->maybe_returned = true;
	else
		e->returning = true;
	return status_arg(c);
}

/* break and continue (one level: more are followed as one, which runs the rest anyway) */
enum ms_st msshell_break(struct ms_eval *e, const struct ms_call *c)
{
	if (!e->loops)
		return MS_TRUE;
	if (mseval_uncertain(e))
		e->maybe_broken = true;
	else
		e->breaking = s2c_streq(member_base_name(c->v[0].s), "break") ? 1 : 2;
	return MS_TRUE;
}

enum ms_st msshell_shift(struct ms_eval *e, const struct ms_call *c)
{
	unsigned k = 1;

	if (c->argc > 1 && (!c->v[1].known || parse_uint(c->v[1].s, 1000, &k) < 0)) {
		mscommand_incomplete(e, c, "shift by a count that is not known");
		return MS_UNKNOWN;
	}
	if (k > e->n_pos)
		return MS_FALSE;
	e->pos += k;
	e->n_pos -= k;
	return MS_TRUE;
}

/* set -- ARGS: new positional parameters (kept by @e). */
static enum ms_st set_positional(struct ms_eval *e, const struct ms_call *c, size_t from)
{
	const char **v = calloc(c->argc - from + 1, sizeof(*v));

	if (!v || strv_push(&e->owned, &e->n_owned, (char *)v) < 0) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	e->pos_unknown = false;
	for (size_t i = from; i < c->argc; i++) {
		char *s = strdup(c->v[i].s);
		if (!c->v[i].known)
			e->pos_unknown = true;  /* their number and values are not known */
		if (!s || strv_push(&e->owned, &e->n_owned, s) < 0) {
			mseval_oom(e);
			return MS_UNKNOWN;
		}
		v[i - from] = s;
	}
	e->pos = v;
	e->n_pos = c->argc - from;
	return MS_TRUE;
}

enum ms_st msshell_set(struct ms_eval *e, const struct ms_call *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		const char *o = c->v[i].s;
		if (!c->v[i].known) {
			mscommand_incomplete(e, c, "options that are not known");
			return MS_UNKNOWN;
		}
		if (s2c_streq(o, "--"))
			return set_positional(e, c, i + 1);
		if ((o[0] == '-' || o[0] == '+') && s2c_streq(o + 1, "o") && i + 1 < c->argc) {
			if (c->v[i + 1].known && s2c_streq(c->v[i + 1].s, "errexit"))
				e->errexit = o[0] == '-';
			i++;
			continue;
		}
		if (o[0] != '-' && o[0] != '+')
			return set_positional(e, c, i);
		if (strchr(o, 'e'))
			e->errexit = o[0] == '-';
	}
	return MS_TRUE;
}

static bool shell_name(const char *s, size_t n)
{
	if (!n || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

/* Every variable (but PATH and debconf's answers) becomes unknown. */
static void forget_variables(struct ms_eval *e)
{
	size_t plen = strlen(MSEVAL_DEBCONF_PREFIX);

	for (size_t i = 0; i < e->env.n; i++)
		if (strncmp(e->env.v[i].name, MSEVAL_DEBCONF_PREFIX, plen) != 0 &&
		    !s2c_streq(e->env.v[i].name, "PATH")) {
			mseval_var_forget(&e->env.v[i]);
		}
}

/* Remember what `local` hides, to put it back when the function returns. */
static void hide_local(struct ms_eval *e, const char *name)
{
	const struct ms_var *old = mseval_env_find(&e->env, name);
	struct ms_var *v = realloc(e->locals, (e->n_locals + 1) * sizeof(*v));

	if (!v) {
		mseval_oom(e);
		return;
	}
	e->locals = v;
	v[e->n_locals] = (struct ms_var){ .name = strdup(name), .was_unset = !old };
	if (old && old->value)
		v[e->n_locals].value = strdup(old->value);
	if (!v[e->n_locals].name || (old && old->value && !v[e->n_locals].value)) {
		free(v[e->n_locals].name);
		free(v[e->n_locals].value);
		mseval_oom(e);
		return;
	}
	e->n_locals++;
}

/* export, readonly and local: NAME=VALUE assigns; export marks for the programs run. */
enum ms_st msshell_export(struct ms_eval *e, const struct ms_call *c)
{
	const char *cmd = c->v[0].s;
	bool local = s2c_streq(cmd, "local"), exp = s2c_streq(cmd, "export");

	for (size_t i = 1; i < c->argc && !e->error; i++) {
		const struct ms_field *f = &c->v[i];
		const char *eq = f->known ? strchr(f->s, '=') : NULL;
		_cleanup_free_ char *name = eq ? strndup(f->s, (size_t)(eq - f->s)) : strdup(f->s);
		struct ms_var *v;

		if (!name) {
			mseval_oom(e);
			break;
		}
		if (mscommand_is_option(f))
			continue;
		if (!f->known) {
			/* NAME=… with the name known before the unknown part: that variable is not
			 * known; otherwise any variable may have changed */
			const char *eq2 = memchr(f->s, '=', f->prefix);
			size_t k = eq2 ? (size_t)(eq2 - f->s) : 0;
			bool named = k > 0 && shell_name(f->s, k);
			_cleanup_free_ char *nm = named ? strndup(f->s, k) : NULL;
			if (named && nm) {
				if (local && e->calls)
					hide_local(e, nm);
				mseval_env_set(e, &e->env, nm, NULL);
			} else {
				forget_variables(e);
			}
			continue;
		}
		if (local && e->calls)
			hide_local(e, name);
		if (eq)
			mseval_env_set(e, &e->env, name, strdup(eq + 1));
		else if (local && e->calls)
			mseval_env_unset(e, &e->env, name);
		v = mseval_env_find(&e->env, name);
		if (exp && !v) {
			mseval_env_set(e, &e->env, name, strdup(""));
			mseval_env_unset(e, &e->env, name);   /* exported but unset: stays unset */
		} else if (exp && v) {
			v->exported = true;
		}
	}
	return MS_TRUE;
}

enum ms_st msshell_unset(struct ms_eval *e, const struct ms_call *c)
{
	bool funcs = false;

	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (!f->known) {
			mscommand_incomplete(e, c, "unsets a name that is not known");
			continue;
		}
		if (s2c_streq(f->s, "-f") || s2c_streq(f->s, "-v")) {
			funcs = s2c_streq(f->s, "-f");
			continue;
		}
		if (!funcs) {
			if (mseval_uncertain(e))
				mseval_env_set(e, &e->env, f->s, NULL);
			else
				mseval_env_unset(e, &e->env, f->s);
			continue;
		}
		/* A function is forgotten by a definition without a body. */
		if (e->funcs.n >= MSEVAL_FUNCS_MAX) {
			mscommand_incomplete(e, c, "more than 1024 function definitions");
			break;
		}
		/* Unset in a branch that may not run: the function may still be there. */
		if (e->cond) {
			msfuncs_mark_maybe(&e->funcs, f->s);
		} else if (msfuncs_add(&e->funcs, f->s, NULL, false) < 0) {
			mseval_oom(e);
			break;
		}
	}
	return MS_TRUE;
}

/* read and getopts: the variables they set are not known. */
enum ms_st msshell_read(struct ms_eval *e, const struct ms_call *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		if (mscommand_is_option(&c->v[i])) {
			/* -p PROMPT, -d DELIM … take a value */
			if (strchr("pdntu", c->v[i].s[1]) && !c->v[i].s[2])
				i++;
			continue;
		}
		if (c->v[i].known)
			mseval_env_set(e, &e->env, c->v[i].s, NULL);
	}
	if (c->argc == 1)
		mseval_env_set(e, &e->env, "REPLY", NULL);
	return MS_UNKNOWN;
}

enum ms_st msshell_getopts(struct ms_eval *e, const struct ms_call *c)
{
	if (c->argc > 2 && c->v[2].known)
		mseval_env_set(e, &e->env, c->v[2].s, NULL);
	mseval_env_set(e, &e->env, "OPTARG", NULL);
	mseval_env_set(e, &e->env, "OPTIND", NULL);
	return MS_UNKNOWN;
}

enum ms_st msshell_cd(struct ms_eval *e, const struct ms_call *c)
{
	size_t i = 1;
	char *dir;

	while (i < c->argc && mscommand_is_option(&c->v[i]))
		i++;
	if (i >= c->argc) {
		dir = strdup("/root");
	} else {
		dir = msfile_path(e, &c->v[i]);
		if (!dir && !e->error && c->v[i].known && s2c_streq(c->v[i].s, "-"))
			dir = NULL;
	}
	free(e->cwd);
	e->cwd = dir;           /* NULL: relative names are not known from here on */
	return dir ? MS_TRUE : MS_UNKNOWN;
}

enum ms_st msshell_alias(struct ms_eval *e, const struct ms_call *c)
{
	for (size_t i = 1; i < c->argc && !e->error; i++) {
		const char *eq = c->v[i].known ? strchr(c->v[i].s, '=') : NULL;
		struct ms_alias *v;

		if (!c->v[i].known) {
			mscommand_incomplete(e, c, "an alias that is not known");
			continue;
		}
		if (!eq)
			continue;
		if (mseval_uncertain(e)) {
			mscommand_incomplete(e, c, "an alias defined under a condition");
			continue;
		}
		if (e->n_aliases >= MSEVAL_ALIASES_MAX) {
			_Static_assert(MSEVAL_ALIASES_MAX == 256, "the message names the limit");
			mscommand_incomplete(e, c, "more than 256 aliases");
			break;
		}
		v = realloc(e->aliases, (e->n_aliases + 1) * sizeof(*v));
		if (!v) {
			mseval_oom(e);
			break;
		}
		e->aliases = v;
		v[e->n_aliases] = (struct ms_alias){ .name = strndup(c->v[i].s,
								     (size_t)(eq - c->v[i].s)),
						     .value = strdup(eq + 1) };
		if (!v[e->n_aliases].name || !v[e->n_aliases].value) {
			free(v[e->n_aliases].name);
			free(v[e->n_aliases].value);
			mseval_oom(e);
			break;
		}
		e->n_aliases++;
	}
	return MS_TRUE;
}

enum ms_st msshell_unalias(struct ms_eval *e, const struct ms_call *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		if (!c->v[i].known) {
			mscommand_incomplete(e, c, "unaliases a name that is not known");
			continue;
		}
		/* An alias is forgotten by making its name one no command has. */
		for (size_t k = 0; k < e->n_aliases; k++)
			if (s2c_streq(c->v[i].s, "-a") || s2c_streq(e->aliases[k].name, c->v[i].s))
				e->aliases[k].name[0] = '\0';
	}
	return MS_TRUE;
}

static bool is_setcap_path(const char *s)
{
	return s2c_streq(member_base_name(s), "setcap");
}

/* -e, -f, -d, -x on a file of the package: it is there once unpacked. */
static enum ms_st file_test(struct ms_eval *e, const char *op, const struct ms_field *f)
{
	_cleanup_free_ char *path = NULL;
	const struct member *m;

	if (!f->known)
		return MS_UNKNOWN;
	if (!f->len)
		return MS_FALSE;
	if (is_setcap_path(f->s) && strspn(op, "-efx") == 2)
		return e->sc == MS_SCENARIO_WORKS ? MS_TRUE : MS_FALSE;
	path = msfile_path(e, f);
	m = path ? msfile_unpacked(e, path) : NULL;
	if (!m || e->n_touches)
		return MS_UNKNOWN;      /* not the package's, or the script moved things */
	if (s2c_streq(op, "-e") || s2c_streq(op, "-r"))
		return MS_TRUE;
	if (s2c_streq(op, "-x") && m->type == MEMBER_FILE && !mseval_acted_on(e, m->path))
		return m->mode & 0111 ? MS_TRUE : MS_FALSE;
	if (s2c_streq(op, "-f"))
		return m->type == MEMBER_FILE || m->type == MEMBER_HARDLINK ? MS_TRUE : MS_FALSE;
	if (s2c_streq(op, "-d"))
		return m->type == MEMBER_DIR ? MS_TRUE : MS_FALSE;
	return MS_UNKNOWN;
}

static enum ms_st compare_ints(const char *a, const char *op, const char *b)
{
	long x, y;
	char *end;

	x = strtol(a, &end, 10);
	if (*end || !*a)
		return MS_UNKNOWN;
	y = strtol(b, &end, 10);
	if (*end || !*b)
		return MS_UNKNOWN;
	if (s2c_streq(op, "-eq"))
		return x == y ? MS_TRUE : MS_FALSE;
	if (s2c_streq(op, "-ne"))
		return x != y ? MS_TRUE : MS_FALSE;
	if (s2c_streq(op, "-lt"))
		return x < y ? MS_TRUE : MS_FALSE;
	if (s2c_streq(op, "-gt"))
		return x > y ? MS_TRUE : MS_FALSE;
	if (s2c_streq(op, "-le"))
		return x <= y ? MS_TRUE : MS_FALSE;
	if (s2c_streq(op, "-ge"))
		return x >= y ? MS_TRUE : MS_FALSE;
	return MS_UNKNOWN;
}

static enum ms_st test_expr(struct ms_eval *e, const struct ms_field *a, size_t argc);

/* A test with -a and -o (-a binds tighter), each side evaluated on its own. */
static enum ms_st test_andor(struct ms_eval *e, const struct ms_field *a, size_t argc)
{
	for (size_t i = argc; i-- > 1;)         /* the last -o, then the last -a */
		if (a[i].known && s2c_streq(a[i].s, "-o") && i + 1 < argc) {
			enum ms_st x = test_andor(e, a, i), y = test_expr(e, a + i + 1, argc - i - 1);
			return x == MS_TRUE || y == MS_TRUE ? MS_TRUE :
			       x == MS_FALSE && y == MS_FALSE ? MS_FALSE : MS_UNKNOWN;
		}
	for (size_t i = argc; i-- > 1;)
		if (a[i].known && s2c_streq(a[i].s, "-a") && i + 1 < argc) {
			enum ms_st x = test_andor(e, a, i), y = test_expr(e, a + i + 1, argc - i - 1);
			return x == MS_FALSE || y == MS_FALSE ? MS_FALSE :
			       x == MS_TRUE && y == MS_TRUE ? MS_TRUE : MS_UNKNOWN;
		}
	return test_expr(e, a, argc);
}

/* test / [ … ] */
enum ms_st msshell_test(struct ms_eval *e, const struct ms_call *c)
{
	bool bracket = s2c_streq(c->v[0].s, "[");
	size_t argc = c->argc - 1 - (bracket ? 1 : 0);

	if (bracket && (c->argc < 2 || !c->v[c->argc - 1].known ||
			!s2c_streq(c->v[c->argc - 1].s, "]")))
		return MS_UNKNOWN;
	if (argc > 4)
		return test_andor(e, c->v + 1, argc);
	return test_expr(e, c->v + 1, argc);
}

/* A test of at most four arguments. */
static enum ms_st test_expr(struct ms_eval *e, const struct ms_field *a, size_t argc)
{
	bool negate = false;
	enum ms_st r = MS_UNKNOWN;

	if (argc >= 1 && a[0].known && s2c_streq(a[0].s, "!") && argc != 1) {
		negate = true;
		a++;
		argc--;
	}
	if (argc == 0) {
		r = MS_FALSE;
	} else if (argc == 1) {
		r = a[0].known ? (a[0].len ? MS_TRUE : MS_FALSE) : MS_UNKNOWN;
	} else if (argc == 2 && a[0].known) {
		if (s2c_streq(a[0].s, "-n") || s2c_streq(a[0].s, "-z")) {
			if (a[1].known)
				r = (a[1].len > 0) == s2c_streq(a[0].s, "-n") ? MS_TRUE : MS_FALSE;
			else if (a[1].len > 0)  /* something known was there: not empty */
				r = s2c_streq(a[0].s, "-n") ? MS_TRUE : MS_FALSE;
		} else {
			r = file_test(e, a[0].s, &a[1]);
		}
	} else if (argc == 3 && a[1].known && a[0].known && a[2].known) {
		if (s2c_streq(a[1].s, "=") || s2c_streq(a[1].s, "=="))
			r = s2c_streq(a[0].s, a[2].s) ? MS_TRUE : MS_FALSE;
		else if (s2c_streq(a[1].s, "!="))
			r = s2c_streq(a[0].s, a[2].s) ? MS_FALSE : MS_TRUE;
		else
			r = compare_ints(a[0].s, a[1].s, a[2].s);
	}
	if (negate && r != MS_UNKNOWN)
		r = r == MS_TRUE ? MS_FALSE : MS_TRUE;
	return r;
}

/* command -v, which, type, hash: found exactly when it is setcap and setcap works. */
enum ms_st msshell_lookup(struct ms_eval *e, const struct ms_call *c)
{
	const struct ms_field *what = c->argc >= 2 ? &c->v[c->argc - 1] : NULL;

	if (what && what->known && is_setcap_path(what->s))
		return e->sc == MS_SCENARIO_WORKS ? MS_TRUE : MS_FALSE;
	return MS_UNKNOWN;
}

/* trap ACTION SIGNAL…: EXIT's action runs when the script ends; a signal's may. */
enum ms_st msshell_trap(struct ms_eval *e, const struct ms_call *c)
{
	size_t i = 1;

	if (c->argc > 1 && c->v[1].known && s2c_streq(c->v[1].s, "--"))
		i++;
	if (c->argc <= i + 1)
		return MS_TRUE;         /* trap, trap -p: lists them */
	if (!c->v[i].known) {
		mscommand_incomplete(e, c, "a trap whose action is not known");
		return MS_UNKNOWN;
	}
	for (size_t k = i + 1; k < c->argc; k++) {
		const char *sig = c->v[k].s;
		bool reset = s2c_streq(c->v[i].s, "-") || !*c->v[i].s;
		if (!c->v[k].known) {
			mscommand_incomplete(e, c, "a trap on a signal that is not known");
			continue;
		}
		if (s2c_streq(sig, "EXIT") || s2c_streq(sig, "0")) {
			if (reset && mseval_uncertain(e))
				continue;       /* the trap may stay */
			free(e->trap_exit);
			e->trap_exit = reset ? NULL : strdup(c->v[i].s);
			if (!reset && !e->trap_exit)
				mseval_oom(e);
		} else if (!reset) {
			mseval_strset_add(e, &e->traps, &e->n_traps, c->v[i].s);
		}
	}
	return MS_TRUE;
}
