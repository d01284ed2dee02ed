/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symbolic evaluation of a parsed maintainer script.  Values are strings
 * that are either known or unknown; statuses are true, false or unknown.
 * An undecided condition evaluates both branches from the same variables
 * and merges them afterwards (a variable the branches set differently
 * becomes unknown).  Work is bounded by a step count and a call depth.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "maintscript.h"
#include "mscommand.h"
#include "mseval.h"
#include "msexpand.h"
#include "shparse.h"
#include "util.h"
#include "common.h"

/* --- small helpers -------------------------------------------------------------------------- */

const char *ms_kind_name(enum ms_kind k)
{
	static const char *const names[_MS_KIND_MAX] = {
		[MS_CHMOD] = "chmod", [MS_CHOWN] = "chown", [MS_SETCAP] = "setcap",
		[MS_SETCAP_REMOVE] = "setcap -r", [MS_STATOVERRIDE] = "dpkg-statoverride",
	};
	return k < _MS_KIND_MAX ? names[k] : "?";
}

const char *ms_when_name(enum ms_when w)
{
	static const char *const names[_MS_WHEN_MAX] = {
		[MS_ALWAYS] = "always", [MS_SETCAP_WORKS] = "setcap-works",
		[MS_SETCAP_FAILS] = "setcap-fails",
	};
	return w < _MS_WHEN_MAX ? names[w] : "?";
}

void ms_analysis_release(struct ms_analysis *a)
{
	for (size_t i = 0; i < a->n; i++)
		mseval_action_release(&a->v[i]);
	free(a->v);
	for (size_t i = 0; i < a->n_incomplete; i++)
		free(a->incomplete[i]);
	free(a->incomplete);
	*a = (struct ms_analysis){ 0 };
}

/* Evaluate both branches of an undecided condition from the same variables. */
static void both(struct ms_eval *e, const struct sh_node *a, const struct sh_node *b)
{
	struct ms_env saved = { 0 }, after_a = { 0 };

	if (mseval_env_copy(&e->env, &saved) < 0) {
		mseval_oom(e);
		return;
	}
	e->cond++;
	if (a)
		(void)maintscript_eval(e, a);
	after_a = e->env;
	e->env = saved;
	if (b)
		(void)maintscript_eval(e, b);
	e->cond--;
	mseval_env_merge(e, &e->env, &after_a);
	mseval_env_release(&after_a);
}

static bool stop(const struct ms_eval *e)
{
	return e->error || e->exited || e->returning;
}

static enum ms_st eval_case(struct ms_eval *e, const struct sh_node *n)
{
	_cleanup_free_ char *word = msexpand_string(e, n->word);

	if (e->error)
		return MS_UNKNOWN;
	for (size_t i = 0; i < n->n_arms && !stop(e); i++) {
		const struct sh_arm *arm = &n->arms[i];
		bool match = false, unsure = !word;

		for (size_t j = 0; j < arm->n_patterns && !match; j++) {
			_cleanup_free_ char *pat = msexpand_string(e, &arm->patterns[j]);
			if (!pat)
				unsure = true;
			else if (word && fnmatch(pat, word, 0) == 0)
				match = true;
		}
		if (match)
			return arm->body ? maintscript_eval(e, arm->body) : MS_TRUE;
		if (unsure && arm->body) {
			e->cond++;
			(void)maintscript_eval(e, arm->body);
			e->cond--;
		}
	}
	return MS_TRUE;
}

static enum ms_st eval_for(struct ms_eval *e, const struct sh_node *n)
{
	struct ms_fields f = { 0 };

	if (n->has_words) {
		for (size_t i = 0; i < n->n_words && !e->error; i++)
			msexpand_word(e, &n->words[i], true, &f);
	} else {
		for (size_t i = 0; i < e->n_pos; i++) {
			struct ms_field *x = mseval_field_new(e, &f);
			if (x)
				mseval_field_append(e, x, e->pos[i], strlen(e->pos[i]));
		}
	}
	for (size_t i = 0; i < f.n && i < MSEVAL_LOOP_MAX && !stop(e); i++) {
		mseval_env_set(e, &e->env, n->name, f.v[i].known ? strdup(f.v[i].s) : NULL);
		(void)maintscript_eval(e, n->kids[0]);
	}
	mseval_fields_release(&f);
	return MS_TRUE;
}

static enum ms_st negate(enum ms_st s)
{
	return s == MS_UNKNOWN ? s : s == MS_TRUE ? MS_FALSE : MS_TRUE;
}

/* Commands in sequence: the status is the last one's. */
static enum ms_st eval_list(struct ms_eval *e, const struct sh_node *n)
{
	enum ms_st r = MS_TRUE;

	for (size_t i = 0; i < n->n_kids && !stop(e); i++)
		r = maintscript_eval(e, n->kids[i]);
	return r;
}

/* A pipeline: its status is its last command's, and not known for more than one. */
static enum ms_st eval_pipe(struct ms_eval *e, const struct sh_node *n)
{
	enum ms_st r = eval_list(e, n);

	if (n->n_kids > 1 && r != MS_UNKNOWN && !n->negated)
		r = MS_UNKNOWN;     /* the pipeline's status is its last command's */
	return n->negated ? negate(r) : r;
}

/* a && b, a || b: b runs as decided by a, or under a condition when a is not known. */
static enum ms_st eval_andor(struct ms_eval *e, const struct sh_node *n)
{
	bool is_and = n->kind == SH_AND;
	enum ms_st r = maintscript_eval(e, n->kids[0]);

	if (stop(e))
		return r;
	if (r == MS_UNKNOWN) {
		both(e, n->kids[1], NULL);
		return MS_UNKNOWN;
	}
	if ((r == MS_TRUE) == is_and)
		return maintscript_eval(e, n->kids[1]);
	return r;
}

static enum ms_st eval_if(struct ms_eval *e, const struct sh_node *n)
{
	enum ms_st r = maintscript_eval(e, n->kids[0]);

	if (stop(e))
		return r;
	if (r == MS_TRUE)
		return maintscript_eval(e, n->kids[1]);
	if (r == MS_FALSE)
		return n->kids[2] ? maintscript_eval(e, n->kids[2]) : MS_TRUE;
	both(e, n->kids[1], n->kids[2]);
	return MS_UNKNOWN;
}

/* while and until: the body once, as if it may run; loops are not iterated. */
static enum ms_st eval_loop(struct ms_eval *e, const struct sh_node *n)
{
	enum ms_st r = maintscript_eval(e, n->kids[0]);

	if (n->kind == SH_UNTIL)
		r = negate(r);
	if (r == MS_FALSE || stop(e))
		return MS_TRUE;
	e->cond++;
	(void)maintscript_eval(e, n->kids[1]);
	e->cond--;
	return MS_TRUE;
}

/* ( … ): variables set and exit inside stay inside. */
static enum ms_st eval_subshell(struct ms_eval *e, const struct sh_node *n)
{
	struct ms_env saved = { 0 };
	enum ms_st r;

	if (mseval_env_copy(&e->env, &saved) < 0) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	r = maintscript_eval(e, n->kids[0]);
	mseval_env_release(&e->env);
	e->env = saved;
	e->exited = false;      /* exit leaves only the subshell */
	return r;
}

/* A function definition: remembered for the calls that follow. */
static enum ms_st eval_funcdef(struct ms_eval *e, const struct sh_node *n)
{
	struct ms_func *v = realloc(e->funcs, (e->n_funcs + 1) * sizeof(*v));

	if (!v) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	e->funcs = v;
	v[e->n_funcs].name = strdup(n->name);
	if (!v[e->n_funcs].name) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	v[e->n_funcs++].body = n->kids[0];
	return MS_TRUE;
}

enum ms_st maintscript_eval(struct ms_eval *e, const struct sh_node *n)
{
	if (!n || stop(e))
		return MS_TRUE;
	if (++e->steps > MSEVAL_STEPS_MAX) {
		if (e->steps == MSEVAL_STEPS_MAX + 1)
			mseval_incomplete(e, n->line, "more than %d steps; the rest is not analysed",
				    MSEVAL_STEPS_MAX);
		e->exited = true;
		return MS_UNKNOWN;
	}
	switch (n->kind) {
	case SH_SIMPLE:
		return mscommand_simple(e, n);
	case SH_PIPE:
		return eval_pipe(e, n);
	case SH_AND:
	case SH_OR:
		return eval_andor(e, n);
	case SH_LIST:
		return eval_list(e, n);
	case SH_IF:
		return eval_if(e, n);
	case SH_CASE:
		return eval_case(e, n);
	case SH_FOR:
		return eval_for(e, n);
	case SH_WHILE:
	case SH_UNTIL:
		return eval_loop(e, n);
	case SH_GROUP:
		return maintscript_eval(e, n->kids[0]);
	case SH_SUBSHELL:
		return eval_subshell(e, n);
	case SH_FUNC:
		return eval_funcdef(e, n);
	}
	return MS_UNKNOWN;
}

/* --- the two passes ------------------------------------------------------------------------- */

static void eval_release(struct ms_eval *e)
{
	mseval_env_release(&e->env);
	for (size_t i = 0; i < e->n_funcs; i++)
		free(e->funcs[i].name);
	free(e->funcs);
	for (size_t i = 0; i < e->n_acts; i++)
		mseval_action_release(&e->acts[i]);
	free(e->acts);
	for (size_t i = 0; i < e->n_incomplete; i++)
		free(e->incomplete[i]);
	free(e->incomplete);
}

static int take_incomplete(struct ms_eval *e, struct ms_analysis *out)
{
	for (size_t i = 0; i < e->n_incomplete; i++) {
		char **v;
		bool dup = false;
		for (size_t j = 0; j < out->n_incomplete && !dup; j++)
			dup = s2c_streq(out->incomplete[j], e->incomplete[i]);
		if (dup)
			continue;
		v = realloc(out->incomplete, (out->n_incomplete + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		out->incomplete = v;
		v[out->n_incomplete++] = TAKE_PTR(e->incomplete[i]);
	}
	return 0;
}

static int add_incomplete(struct ms_analysis *out, const char *fmt, ...) S2C_PRINTF(2, 3);
static int add_incomplete(struct ms_analysis *out, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = strdup_vprintf(fmt, ap);
	va_end(ap);
	return strv_push(&out->incomplete, &out->n_incomplete, s);
}

static bool kind_needs_setcap(enum ms_kind k)
{
	return k == MS_SETCAP || k == MS_SETCAP_REMOVE;
}

int maintscript_analyse(const char *name, const char *text, size_t len,
			const struct ms_context *ctx, struct ms_analysis *out)
{
	struct s2c_error err = { 0 };
	struct sh_script *script = NULL;
	struct ms_eval pass[_MS_SCENARIO_MAX];
	size_t first = out->n;
	int r;

	r = sh_parse(text, len, &script, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return add_incomplete(out, "%s: %s; not analysed", name, err.msg);
	for (unsigned sc = 0; sc < _MS_SCENARIO_MAX; sc++) {
		struct ms_eval *e = &pass[sc];
		*e = (struct ms_eval){ .name = name, .ctx = ctx, .sc = (enum ms_scenario)sc };
		e->pos = ctx->args;
		e->n_pos = ctx->n_args;
		(void)maintscript_eval(e, script->root);
	}
	sh_script_free(script);
	r = pass[0].error ? pass[0].error : pass[1].error;
	if (r == -E2BIG)
		r = add_incomplete(out, "%s: a command with more than %d words; not analysed", name,
			     MSEVAL_FIELDS_MAX);
	if (r == 0) {
		/* Merge: an action of both passes happens always; of one, in that scenario. */
		for (unsigned sc = 0; sc < _MS_SCENARIO_MAX && r == 0; sc++) {
			for (size_t i = 0; i < pass[sc].n_acts && r == 0; i++) {
				struct ms_action *a = &pass[sc].acts[i];
				struct ms_action *v;
				size_t found = SIZE_MAX;

				for (size_t j = first; j < out->n && found == SIZE_MAX; j++)
					if (mseval_action_same(&out->v[j], a))
						found = j;
				if (found != SIZE_MAX) {
					out->v[found].seq[sc] = i;
					/* setcap is tried in both, but has an effect only where
					 * it works. */
					out->v[found].when = kind_needs_setcap(a->kind) ?
						MS_SETCAP_WORKS : MS_ALWAYS;
					continue;
				}
				v = realloc(out->v, (out->n + 1) * sizeof(*v));
				if (!v) {
					r = -ENOMEM;
					break;
				}
				out->v = v;
				v[out->n] = *a;
				*a = (struct ms_action){ 0 };
				v[out->n].seq[0] = v[out->n].seq[1] = SIZE_MAX;
				v[out->n].seq[sc] = i;
				v[out->n].when = sc == MS_SCENARIO_WORKS ? MS_SETCAP_WORKS :
									   MS_SETCAP_FAILS;
				out->n++;
			}
			if (r == 0)
				r = take_incomplete(&pass[sc], out);
		}
	}
	for (unsigned sc = 0; sc < _MS_SCENARIO_MAX; sc++)
		eval_release(&pass[sc]);
	return r == -E2BIG ? 0 : r;
}

/* --- applying ------------------------------------------------------------------------------- */

/* chmod's symbolic modes: [ugoa]*([-+=]([rwxXst]*|[ugo]))+ , comma separated. */
static int chmod_symbolic(const char *spec, uint32_t mode, bool is_dir, uint32_t *ret)
{
	const char *p = spec;

	while (*p) {
		uint32_t who = 0;
		bool who_given = false;

		for (; *p && strchr("ugoa", *p); p++) {
			who_given = true;
			who |= *p == 'u' ? 04700 : *p == 'g' ? 02070 : *p == 'o' ? 01007 : 07777;
		}
		if (!who_given)
			who = 07777;
		if (!*p || !strchr("+-=", *p))
			return -EINVAL;
		while (*p && strchr("+-=", *p)) {
			char op = *p++;
			uint32_t bits = 0;

			if (*p && strchr("ugo", *p)) {
				uint32_t src = mode;
				uint32_t r = *p == 'u' ? (src >> 6) & 7 : *p == 'g' ? (src >> 3) & 7 : src & 7;
				bits = r | (r << 3) | (r << 6);
				p++;
			} else {
				for (; *p && strchr("rwxXst", *p); p++) {
					switch (*p) {
					case 'r': bits |= 0444; break;
					case 'w': bits |= 0222; break;
					case 'x': bits |= 0111; break;
					case 'X':
						if (is_dir || (mode & 0111))
							bits |= 0111;
						break;
					case 's': bits |= 06000; break;
					case 't': bits |= 01000; break;
					}
				}
			}
			bits &= who;
			/* Without "who", rwx obey the umask (022); s and t do not. */
			if (!who_given)
				bits &= ~(uint32_t)022 | 07000;
			if (op == '+') {
				mode |= bits;
			} else if (op == '-') {
				mode &= ~bits;
			} else {
				uint32_t clear = who & 0777;
				/* = keeps a directory's set-ID bits unless named (GNU chmod). */
				if (!is_dir)
					clear |= who & 07000;
				mode = (mode & ~clear) | bits;
			}
		}
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -EINVAL;
	}
	*ret = mode & 07777;
	return 0;
}

int ms_chmod(const char *spec, uint32_t mode, bool is_dir, uint32_t *ret)
{
	size_t n = strlen(spec);

	if (n == 0)
		return -EINVAL;
	if (strspn(spec, "01234567") == n) {
		unsigned long v;
		if (n > 5)
			return -EINVAL;
		v = strtoul(spec, NULL, 8);
		if (v > 07777)
			return -EINVAL;
		/* GNU chmod keeps a directory's set-ID bits when fewer than 5 digits name them. */
		if (is_dir && n < 5)
			v |= mode & 06000;
		*ret = (uint32_t)v;
		return 0;
	}
	return chmod_symbolic(spec, mode, is_dir, ret);
}

bool ms_applies(const struct ms_action *a, enum ms_scenario sc)
{
	if (a->seq[sc] == SIZE_MAX)
		return false;
	return sc == MS_SCENARIO_WORKS || !kind_needs_setcap(a->kind);
}

int ms_apply(const struct ms_action *a, bool is_dir, struct ms_state *st)
{
	uint32_t mode;
	int r;

	switch (a->kind) {
	case MS_CHMOD:
		r = ms_chmod(a->mode, st->mode, is_dir, &mode);
		if (r < 0)
			return r;
		st->mode = mode;
		return 0;
	case MS_CHOWN:
		if (a->owner)
			st->owner = a->owner;
		if (a->group)
			st->group = a->group;
		/* The kernel clears set-user-ID (and set-group-ID with group execute) and
		 * drops security.capability when a regular file changes owner. */
		if (!is_dir) {
			st->mode &= ~(uint32_t)S_ISUID;
			if (st->mode & S_IXGRP)
				st->mode &= ~(uint32_t)S_ISGID;
			st->has_caps = false;
			st->caps = NULL;
		}
		return 0;
	case MS_SETCAP:
		st->has_caps = true;
		st->caps = a->caps;
		return 0;
	case MS_SETCAP_REMOVE:
		st->has_caps = false;
		st->caps = NULL;
		return 0;
	case MS_STATOVERRIDE: {
		unsigned long v;
		char *end;
		errno = 0;
		v = strtoul(a->mode, &end, 8);
		if (errno || *end || end == a->mode || v > 07777)
			return -EINVAL;
		st->owner = a->owner;
		st->group = a->group;
		st->mode = (uint32_t)v;
		/* dpkg applies an override with chown, then chmod: capabilities go. */
		st->has_caps = false;
		st->caps = NULL;
		return 0;
	}
	default:
		return -EINVAL;
	}
}
