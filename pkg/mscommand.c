/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The commands the maintainer-script evaluator knows: chmod, chown, chgrp,
 * setcap and dpkg-statoverride become actions on a file; test, function
 * calls and the shell's own commands steer the evaluation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mscommand.h"
#include "msexpand.h"
#include "member.h"
#include "shparse.h"
#include "util.h"
#include "common.h"

/* --- actions -------------------------------------------------------------------------------- */

/* The command's source on one line, shortened. */
static char *command_text(const struct sh_node *n)
{
	size_t len = S2C_MIN(n->src_len, (size_t)MSEVAL_COMMAND_TEXT_MAX);
	char *s = strndup(n->src ? n->src : "", len);

	if (!s)
		return NULL;
	for (char *c = s; *c; c++)
		if (*c == '\n' || *c == '\t' || *c == '\r')
			*c = ' ';
	if (n->src_len > MSEVAL_COMMAND_TEXT_MAX) {
		char *longer = NULL;
		if (asprintf(&longer, "%s…", s) < 0)
			longer = NULL;
		free(s);
		s = longer;
	}
	return s;
}

/* Record one action on @path (a field); a path that is not known is a note. */
static void act(struct ms_eval *e, const struct sh_node *n, enum ms_kind kind,
		const struct ms_field *path, const char *mode, const char *owner, const char *group,
		const char *caps, bool recursive)
{
	struct ms_action a = { .kind = kind, .line = n->line, .recursive = recursive,
			       .conditional = e->cond > 0, .glob = path->glob };
	_cleanup_free_ char *cmd = command_text(n);
	struct ms_action *v;
	int r;

	if (!cmd) {
		mseval_oom(e);
		return;
	}
	if (!path->known || path->s[0] != '/') {
		_cleanup_free_ char *shown = escape_text(cmd);
		mseval_incomplete(e, n->line, "%s: cannot tell which file it changes%s",
			    shown ? shown : "?", e->cond ? " (under a condition)" : "");
		return;
	}
	r = member_path(path->s + 1, &a.path, NULL);
	if (r < 0 && r != -ENOMEM) {
		_cleanup_free_ char *shown = escape_text(cmd);
		mseval_incomplete(e, n->line, "%s: the file name is not usable", shown ? shown : "?");
		return;
	}
	if (r < 0 || (mode && !(a.mode = strdup(mode))) || (owner && !(a.owner = strdup(owner))) ||
	    (group && !(a.group = strdup(group))) || (caps && !(a.caps = strdup(caps))) ||
	    !(a.script = strdup(e->name))) {
		mseval_action_release(&a);
		mseval_oom(e);
		return;
	}
	a.command = TAKE_PTR(cmd);
	for (size_t i = 0; i < e->n_acts; i++)
		if (mseval_action_same(&e->acts[i], &a)) {
			mseval_action_release(&a);
			return;     /* a loop or a second call: the same change again */
		}
	v = realloc(e->acts, (e->n_acts + 1) * sizeof(*v));
	if (!v) {
		mseval_action_release(&a);
		mseval_oom(e);
		return;
	}
	e->acts = v;
	v[e->n_acts++] = a;
}

static bool is_option(const struct ms_field *f)
{
	return f->known && f->s[0] == '-' && f->s[1] != '\0';
}

/* chmod [-R -f -v -c …] MODE FILE… */
static enum ms_st cmd_chmod(struct ms_eval *e, const struct sh_node *n, const struct ms_fields *f)
{
	size_t i = 1;
	bool recursive = false;
	uint32_t dummy;

	for (; i < f->n && is_option(&f->v[i]); i++) {
		const char *o = f->v[i].s;
		if (s2c_streq(o, "--"))  {
			i++;
			break;
		}
		/* "-x", "-w", "-s": a mode, not an option. */
		if (ms_chmod(o, 0755, false, &dummy) == 0)
			break;
		if (s2c_streq(o, "-R") || s2c_streq(o, "--recursive"))
			recursive = true;
	}
	if (i >= f->n)
		return MS_UNKNOWN;
	if (!f->v[i].known) {
		mseval_incomplete(e, n->line, "chmod with a mode that is not known");
		return MS_UNKNOWN;
	}
	for (size_t j = i + 1; j < f->n; j++)
		act(e, n, MS_CHMOD, &f->v[j], f->v[i].s, NULL, NULL, NULL, recursive);
	return MS_TRUE;
}

/* chown [opts] OWNER[:GROUP] FILE…, chgrp [opts] GROUP FILE… */
static enum ms_st cmd_chown(struct ms_eval *e, const struct sh_node *n,
			    const struct ms_fields *f, bool chgrp)
{
	_cleanup_free_ char *owner = NULL, *group = NULL;
	size_t i = 1;
	bool recursive = false;

	for (; i < f->n && is_option(&f->v[i]); i++) {
		if (s2c_streq(f->v[i].s, "--")) {
			i++;
			break;
		}
		if (s2c_streq(f->v[i].s, "-R") || s2c_streq(f->v[i].s, "--recursive"))
			recursive = true;
	}
	if (i >= f->n)
		return MS_UNKNOWN;
	if (!f->v[i].known) {
		mseval_incomplete(e, n->line, "%s with an owner that is not known",
			    chgrp ? "chgrp" : "chown");
		return MS_UNKNOWN;
	}
	if (chgrp) {
		group = strdup(f->v[i].s);
	} else {
		const char *spec = f->v[i].s;
		size_t k = strcspn(spec, ":.");
		if (k)
			owner = strndup(spec, k);
		if (spec[k] && spec[k + 1])
			group = strdup(spec + k + 1);
		if (k && !owner)
			mseval_oom(e);
	}
	if (e->error)
		return MS_UNKNOWN;
	for (size_t j = i + 1; j < f->n; j++)
		act(e, n, MS_CHOWN, &f->v[j], NULL, owner, group, NULL, recursive);
	return MS_TRUE;
}

/* setcap [-q] [-v] [-n ROOTID] (CAPS|-r) FILE [(CAPS|-r) FILE …] */
static enum ms_st cmd_setcap(struct ms_eval *e, const struct sh_node *n, const struct ms_fields *f)
{
	size_t i = 1;

	while (i < f->n && f->v[i].known &&
	       (s2c_streq(f->v[i].s, "-q") || s2c_streq(f->v[i].s, "-v") ||
		s2c_streq(f->v[i].s, "-n")))
		i += s2c_streq(f->v[i].s, "-n") ? 2 : 1;
	for (; i + 1 < f->n; i += 2) {
		if (!f->v[i].known) {
			mseval_incomplete(e, n->line, "setcap with capabilities that are not known");
			continue;
		}
		if (s2c_streq(f->v[i].s, "-r"))
			act(e, n, MS_SETCAP_REMOVE, &f->v[i + 1], NULL, NULL, NULL, NULL, false);
		else
			act(e, n, MS_SETCAP, &f->v[i + 1], NULL, NULL, NULL, f->v[i].s, false);
	}
	return e->sc == MS_SCENARIO_WORKS ? MS_TRUE : MS_FALSE;
}

/* dpkg-statoverride [opts] --add USER GROUP MODE FILE; --list: none on a fresh system */
static enum ms_st cmd_statoverride(struct ms_eval *e, const struct sh_node *n,
				   const struct ms_fields *f)
{
	for (size_t i = 1; i < f->n; i++) {
		if (!f->v[i].known)
			continue;
		if (s2c_streq(f->v[i].s, "--list"))
			return MS_FALSE;
		if (s2c_streq(f->v[i].s, "--add")) {
			if (i + 4 >= f->n) {
				mseval_incomplete(e, n->line,
					    "dpkg-statoverride --add with too few arguments");
				return MS_UNKNOWN;
			}
			if (!f->v[i + 1].known || !f->v[i + 2].known || !f->v[i + 3].known) {
				mseval_incomplete(e, n->line,
					    "dpkg-statoverride --add with an owner, group or "
					    "mode that is not known");
				return MS_UNKNOWN;
			}
			act(e, n, MS_STATOVERRIDE, &f->v[i + 4], f->v[i + 3].s, f->v[i + 1].s,
			    f->v[i + 2].s, NULL, false);
			return MS_TRUE;
		}
	}
	return MS_UNKNOWN;
}

static bool is_setcap_path(const char *s)
{
	return s2c_streq(member_base_name(s), "setcap");
}

/* test / [ … ] */
static enum ms_st cmd_test(struct ms_eval *e, const struct ms_fields *f, bool bracket)
{
	size_t n = f->n - (bracket ? 1 : 0);
	const struct ms_field *a = f->v + 1;
	size_t argc = n - 1;
	bool negate = false;
	enum ms_st r = MS_UNKNOWN;

	if (bracket && (f->n < 2 || !f->v[f->n - 1].known || !s2c_streq(f->v[f->n - 1].s, "]")))
		return MS_UNKNOWN;
	if (argc >= 1 && a[0].known && s2c_streq(a[0].s, "!")) {
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
		} else if ((s2c_streq(a[0].s, "-x") || s2c_streq(a[0].s, "-e") ||
			    s2c_streq(a[0].s, "-f")) && a[1].known) {
			if (!a[1].len)
				r = MS_FALSE;
			else if (is_setcap_path(a[1].s))
				r = e->sc == MS_SCENARIO_WORKS ? MS_TRUE : MS_FALSE;
		}
	} else if (argc == 3 && a[1].known && a[0].known && a[2].known) {
		if (s2c_streq(a[1].s, "=") || s2c_streq(a[1].s, "=="))
			r = s2c_streq(a[0].s, a[2].s) ? MS_TRUE : MS_FALSE;
		else if (s2c_streq(a[1].s, "!="))
			r = s2c_streq(a[0].s, a[2].s) ? MS_FALSE : MS_TRUE;
	}
	if (negate && r != MS_UNKNOWN)
		r = r == MS_TRUE ? MS_FALSE : MS_TRUE;
	return r;
}

static const struct ms_func *func_find(const struct ms_eval *e, const char *name)
{
	for (size_t i = e->n_funcs; i-- > 0;)
		if (s2c_streq(e->funcs[i].name, name))
			return &e->funcs[i];
	return NULL;
}

static enum ms_st call_func(struct ms_eval *e, const struct ms_func *fn, const struct ms_fields *f)
{
	const char *const *saved = e->pos;
	size_t n_saved = e->n_pos;
	const char **args;
	enum ms_st r;

	if (e->calls >= MSEVAL_CALLS_MAX) {
		mseval_incomplete(e, fn->body->line,
			    "function calls nested more than %d deep; not followed",
			    MSEVAL_CALLS_MAX);
		return MS_UNKNOWN;
	}
	args = calloc(f->n ? f->n : 1, sizeof(*args));
	if (!args) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	for (size_t i = 1; i < f->n; i++)
		args[i - 1] = f->v[i].s;     /* unknown arguments read as their text so far */
	e->pos = args;
	e->n_pos = f->n - 1;
	e->calls++;
	r = maintscript_eval(e, fn->body);
	e->calls--;
	e->returning = false;
	e->pos = saved;
	e->n_pos = n_saved;
	free(args);
	return r;
}

enum ms_st mscommand_simple(struct ms_eval *e, const struct sh_node *n)
{
	struct ms_fields f = { 0 };
	const char *cmd;
	const struct ms_func *fn;
	enum ms_st r = MS_UNKNOWN;
	bool unknown_arg = false;

	if (n->n_words == 0) {
		for (size_t i = 0; i < n->n_assigns && !e->error; i++)
			mseval_env_set(e, &e->env, n->assigns[i].name,
				       msexpand_string(e, &n->assigns[i].value));
		return MS_TRUE;
	}
	for (size_t i = 0; i < n->n_words && !e->error; i++)
		msexpand_word(e, &n->words[i], true, &f);
	if (e->error || f.n == 0 || !f.v[0].known) {
		mseval_fields_release(&f);
		return MS_UNKNOWN;
	}
	for (size_t i = 1; i < f.n; i++)
		unknown_arg = unknown_arg || !f.v[i].known;
	cmd = member_base_name(f.v[0].s);
	fn = func_find(e, f.v[0].s);
	if (fn) {
		r = call_func(e, fn, &f);
	} else if (s2c_streq(cmd, "chmod")) {
		r = cmd_chmod(e, n, &f);
	} else if (s2c_streq(cmd, "chown")) {
		r = cmd_chown(e, n, &f, false);
	} else if (s2c_streq(cmd, "chgrp")) {
		r = cmd_chown(e, n, &f, true);
	} else if (s2c_streq(cmd, "setcap")) {
		r = cmd_setcap(e, n, &f);
	} else if (s2c_streq(cmd, "dpkg-statoverride")) {
		r = cmd_statoverride(e, n, &f);
	} else if (s2c_streq(cmd, "true") || s2c_streq(cmd, ":")) {
		r = MS_TRUE;
	} else if (s2c_streq(cmd, "false")) {
		r = MS_FALSE;
	} else if (s2c_streq(cmd, "[") || s2c_streq(cmd, "test")) {
		r = cmd_test(e, &f, s2c_streq(cmd, "["));
	} else if ((s2c_streq(cmd, "command") || s2c_streq(cmd, "which") ||
		    s2c_streq(cmd, "type") || s2c_streq(cmd, "hash")) && f.n >= 2) {
		const struct ms_field *what = &f.v[f.n - 1];
		if (what->known && is_setcap_path(what->s))
			r = e->sc == MS_SCENARIO_WORKS ? MS_TRUE : MS_FALSE;
	} else if (s2c_streq(cmd, "exit")) {
		if (!e->cond)
			e->exited = true;
		r = MS_TRUE;
	} else if (s2c_streq(cmd, "return")) {
		if (!e->cond && e->calls)
			e->returning = true;
		r = MS_TRUE;
	} else if (s2c_streq(cmd, "shift")) {
		if (e->n_pos) {
			e->pos++;
			e->n_pos--;
		}
		r = MS_TRUE;
	} else if (s2c_streq(cmd, "local") || s2c_streq(cmd, "export") ||
		   s2c_streq(cmd, "readonly")) {
		for (size_t i = 1; i < f.n; i++) {
			const char *eq = f.v[i].known ? strchr(f.v[i].s, '=') : NULL;
			_cleanup_free_ char *name = eq ? strndup(f.v[i].s, (size_t)(eq - f.v[i].s)) : NULL;
			if (eq && name)
				mseval_env_set(e, &e->env, name, strdup(eq + 1));
		}
		r = MS_TRUE;
	} else if (s2c_streq(cmd, "echo") || s2c_streq(cmd, "printf") || s2c_streq(cmd, "set")) {
		r = MS_TRUE;
	}
	(void)unknown_arg;
	mseval_fields_release(&f);
	return r;
}
