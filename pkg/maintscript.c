/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symbolic evaluation of a parsed maintainer script.  Values are strings
 * that are either known or unknown; statuses are true, false or unknown.
 * An undecided condition evaluates both branches from the same variables
 * and merges them afterwards (a variable the branches set differently
 * becomes unknown); a loop runs until its variables settle.  set -e stops
 * the script at a command that fails, and makes the rest uncertain after
 * one whose status is not known.  Work is bounded by a step count, a call
 * depth and a nesting depth.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actindex.h"
#include "maintscript.h"
#include "member.h"
#include "mscommand.h"
#include "mseval.h"
#include "msexpand.h"
#include "shparse.h"
#include "strhash.h"
#include "util.h"
#include "common.h"

/* The status of one of two branches: known when both agree. */
static enum ms_st either(enum ms_st a, enum ms_st b)
{
	return a == b ? a : MS_UNKNOWN;
}

/*
 * Account for copying, merging or comparing the variables @times at @line:
 * false, with the rest of the pass not analysed, past MSEVAL_COPIES_MAX.
 */
static bool charge(struct ms_eval *e, size_t times, unsigned line)
{
	if (e->copied > MSEVAL_COPIES_MAX)
		return false;
	e->copied += times * e->env.n;
	if (e->copied <= MSEVAL_COPIES_MAX)
		return true;
	mseval_incomplete(e, line, "more than %d variables copied at branches and loops; the "
			  "rest is not analysed", MSEVAL_COPIES_MAX);
	e->exited = true;
	return false;
}

/*
 * Evaluate both branches of an undecided condition from the same variables
 * (a missing branch is true, as a missing else is).  Returns their status.
 */
static enum ms_st both(struct ms_eval *e, const struct sh_node *a, const struct sh_node *b)
{
	struct ms_env saved = { 0 }, after_a = { 0 };
	enum ms_st ra = MS_TRUE, rb = MS_TRUE;

	if (!charge(e, 2, a ? a->line : b ? b->line : 0))
		return MS_UNKNOWN;
	if (mseval_env_copy(&e->env, &saved) < 0) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	e->cond++;
	if (a)
		ra = maintscript_eval(e, a);
	after_a = e->env;
	e->env = saved;
	if (b)
		rb = maintscript_eval(e, b);
	e->cond--;
	mseval_env_merge(e, &e->env, &after_a);
	mseval_env_release(&after_a);
	return either(ra, rb);
}

static bool stop(const struct ms_eval *e)
{
	return e->error || e->exited || e->returning || e->breaking;
}

/* A condition: set -e does not stop the script where it fails. */
static enum ms_st eval_condition(struct ms_eval *e, const struct sh_node *n)
{
	enum ms_st r;

	e->exempt++;
	r = maintscript_eval(e, n);
	e->exempt--;
	return r;
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
		if (unsure && arm->body)
			(void)both(e, arm->body, NULL);
	}
	return MS_TRUE;
}

/* After one pass of a loop body: break leaves it, continue goes on. */
static bool loop_left(struct ms_eval *e)
{
	bool left = e->breaking == 1;

	e->breaking = 0;
	return left;
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

/*
 * A pipeline: each command of several runs in a subshell; its status is the
 * last one's (not known for several, whose input is not).  set -e does not
 * stop the script for the commands before the last, nor under "!".
 */
static enum ms_st eval_pipe(struct ms_eval *e, const struct sh_node *n)
{
	enum ms_st r = MS_TRUE;

	if (n->negated)
		e->exempt++;
	for (size_t i = 0; i < n->n_kids && !stop(e); i++) {
		bool last = i + 1 == n->n_kids;
		if (!last)
			e->exempt++;
		r = n->n_kids > 1 ? maintscript_eval_subshell(e, n->kids[i]) :
				    maintscript_eval(e, n->kids[i]);
		if (!last)
			e->exempt--;
	}
	if (n->negated)
		e->exempt--;
	if (n->n_kids > 1)
		r = MS_UNKNOWN;
	return n->negated ? negate(r) : r;
}

/* a && b, a || b: b runs as decided by a, or under a condition when a is not known. */
static enum ms_st eval_andor(struct ms_eval *e, const struct sh_node *n)
{
	bool is_and = n->kind == SH_AND;
	enum ms_st r = eval_condition(e, n->kids[0]);

	if (stop(e))
		return r;
	if (r == MS_UNKNOWN) {
		/* a || b: true when a is, else b's; a && b: a's failure, else b's */
		enum ms_st rb = both(e, n->kids[1], NULL);
		return is_and ? MS_UNKNOWN : either(rb, MS_TRUE);
	}
	if ((r == MS_TRUE) == is_and)
		return maintscript_eval(e, n->kids[1]);
	return r;
}

static enum ms_st eval_if(struct ms_eval *e, const struct sh_node *n)
{
	enum ms_st r = eval_condition(e, n->kids[0]);

	if (stop(e))
		return r;
	if (r == MS_TRUE)
		return maintscript_eval(e, n->kids[1]);
	if (r == MS_FALSE)
		return n->kids[2] ? maintscript_eval(e, n->kids[2]) : MS_TRUE;
	return both(e, n->kids[1], n->kids[2]);
}

/*
 * The body @body of the loop @n from where it stands, as if it may run any
 * number of times: pass after pass under its condition @cond (NULL: a for
 * loop over words whose number is not known), until the variables settle;
 * those a pass changes become unknown, as do the positional parameters when
 * it shifts or sets them, and the for loop's variable @var is not known in it.
 */
static void loop_rounds(struct ms_eval *e, const struct sh_node *n, const struct sh_node *cond,
			const struct sh_node *body, const char *var)
{
	for (unsigned round = 0; round < MSEVAL_LOOP_ROUNDS && !stop(e); round++) {
		const char *const *pos = e->pos;
		size_t n_pos = e->n_pos;
		struct ms_env before = { 0 };
		enum ms_st r = cond ? eval_condition(e, cond) : MS_UNKNOWN;
		bool settled, shifted;

		if (cond && n->kind == SH_UNTIL)
			r = negate(r);
		if (r == MS_FALSE || stop(e) || !charge(e, 3, n->line))
			break;
		if (mseval_env_copy(&e->env, &before) < 0) {
			mseval_oom(e);
			break;
		}
		e->cond++;
		if (var)
			mseval_env_set(e, &e->env, var, NULL);
		(void)maintscript_eval(e, body);
		e->cond--;
		e->breaking = 0;
		mseval_env_merge(e, &e->env, &before);
		settled = mseval_env_same(&e->env, &before);
		mseval_env_release(&before);
		/* positional parameters a pass may have shifted or set: not known since */
		shifted = !e->pos_unknown && (e->pos != pos || e->n_pos != n_pos);
		if (shifted)
			e->pos_unknown = true;
		if (settled && !shifted)
			break;
		if (round + 1 == MSEVAL_LOOP_ROUNDS)
			mseval_incomplete(e, n->line, "the variables of a loop do not settle");
	}
}

/*
 * A loop whose condition is decided runs as the shell runs it, pass after
 * pass, while each pass changes a variable or the positional parameters
 * (`while [ $# -ge 4 ]; do …; shift 4; done`).  Returns true when it ended
 * so; false to follow it as eval_loop() does from where it stands: the
 * condition not decided, a pass that may have left the loop, or one that
 * changed nothing (it would run alike for ever, unless a break it may not
 * take ends it).
 */
static bool loop_decided(struct ms_eval *e, const struct sh_node *n)
{
	if (e->maybe_broken)
		return false;
	for (unsigned pass = 0; pass < MSEVAL_LOOP_MAX; pass++) {
		const char *const *pos = e->pos;
		size_t n_pos = e->n_pos;
		bool pos_unknown = e->pos_unknown, same;
		struct ms_env before = { 0 };
		enum ms_st r = eval_condition(e, n->kids[0]);

		if (n->kind == SH_UNTIL)
			r = negate(r);
		if (stop(e) || r == MS_FALSE)
			return true;
		if (r == MS_UNKNOWN)
			return false;
		if (!charge(e, 2, n->line))
			return true;
		if (mseval_env_copy(&e->env, &before) < 0) {
			mseval_oom(e);
			return true;
		}
		(void)maintscript_eval(e, n->kids[1]);
		same = mseval_env_same(&e->env, &before) && e->pos == pos && e->n_pos == n_pos &&
		       e->pos_unknown == pos_unknown;
		mseval_env_release(&before);
		if (loop_left(e))
			return true;
		if (same || e->maybe_broken)
			return false;
	}
	mseval_incomplete(e, n->line, "a loop that runs more than %d times; not followed",
			  MSEVAL_LOOP_MAX);
	return true;
}

/*
 * while and until: as the shell runs them while the condition is decided
 * (loop_decided()); from there, the body as if it may run, again and again
 * until the variables it changes settle (those that change become unknown, as
 * do the positional parameters when it shifts or sets them); a while read
 * over a file of the package runs once per line (msread.c).
 */
static enum ms_st eval_loop(struct ms_eval *e, const struct sh_node *n)
{
	bool broken = e->maybe_broken;
	enum ms_st r_read;

	if (msread_loop(e, n, &r_read))
		return r_read;
	e->loops++;
	if (!loop_decided(e, n))
		loop_rounds(e, n, n->kids[0], n->kids[1], NULL);
	e->loops--;
	e->maybe_broken = broken;
	return MS_TRUE;
}

static enum ms_st eval_for(struct ms_eval *e, const struct sh_node *n)
{
	struct ms_fields f = { 0 };
	bool broken = e->maybe_broken;

	if (n->has_words) {
		for (size_t i = 0; i < n->n_words && !e->error; i++)
			msexpand_word(e, &n->words[i], true, &f);
	} else if (e->pos_unknown) {
		struct ms_field *x = mseval_field_new(e, &f);
		if (x) {
			mseval_field_unknown(x);
			x->vague = true;
		}
	} else {
		for (size_t i = 0; i < e->n_pos; i++) {
			struct ms_field *x = mseval_field_new(e, &f);
			if (x)
				mseval_field_append(e, x, e->pos[i], strlen(e->pos[i]));
		}
	}
	if (f.n > MSEVAL_LOOP_MAX)
		mseval_incomplete(e, n->line, "a for loop over more than %d words; not followed",
				  MSEVAL_LOOP_MAX);
	for (size_t i = 0; i < f.n; i++)
		if (f.v[i].vague) {
			/* no pass, or many: as a loop whose condition is not known */
			mseval_fields_release(&f);
			e->loops++;
			loop_rounds(e, n, NULL, n->kids[0], n->name);
			e->loops--;
			e->maybe_broken = broken;
			return MS_TRUE;
		}
	e->loops++;
	for (size_t i = 0; i < f.n && i < MSEVAL_LOOP_MAX && !stop(e); i++) {
		mseval_env_set(e, &e->env, n->name, f.v[i].known ? strdup(f.v[i].s) : NULL);
		(void)maintscript_eval(e, n->kids[0]);
		if (loop_left(e))
			break;
	}
	e->loops--;
	e->maybe_broken = broken;
	mseval_fields_release(&f);
	return MS_TRUE;
}

/* What a subshell keeps to itself, to be put back afterwards. */
struct saved_shell {
	struct ms_env env;
	size_t n_funcs, n_aliases, n_links;
	char *cwd;
	char *trap_exit;
	bool errexit, maybe_stopped, maybe_returned;
};

static int shell_save(struct ms_eval *e, struct saved_shell *s)
{
	*s = (struct saved_shell){ .n_funcs = e->funcs.n, .n_aliases = e->n_aliases,
				   .n_links = e->n_links, .errexit = e->errexit,
				   .maybe_stopped = e->maybe_stopped,
				   .maybe_returned = e->maybe_returned };
	if (mseval_env_copy(&e->env, &s->env) < 0)
		return -ENOMEM;
	if ((e->cwd && !(s->cwd = strdup(e->cwd))) ||
	    (e->trap_exit && !(s->trap_exit = strdup(e->trap_exit)))) {
		mseval_env_release(&s->env);
		free(s->cwd);
		return -ENOMEM;
	}
	return 0;
}

/* Put @s back; functions and aliases defined since are forgotten. */
static void shell_restore(struct ms_eval *e, struct saved_shell *s)
{
	mseval_env_release(&e->env);
	e->env = s->env;
	msfuncs_truncate(&e->funcs, s->n_funcs);
	for (size_t i = s->n_aliases; i < e->n_aliases; i++) {
		free(e->aliases[i].name);
		free(e->aliases[i].value);
	}
	e->n_aliases = S2C_MIN(e->n_aliases, s->n_aliases);
	free(e->cwd);
	e->cwd = s->cwd;
	free(e->trap_exit);
	e->trap_exit = s->trap_exit;
	e->errexit = s->errexit;
	/* An exit inside leaves only the subshell; whether it may have stopped does not. */
	e->exited = false;
	e->maybe_stopped = s->maybe_stopped;
	e->maybe_returned = s->maybe_returned;
}

enum ms_st maintscript_eval_subshell(struct ms_eval *e, const struct sh_node *n)
{
	struct saved_shell s;
	bool returning = e->returning;
	enum ms_st r;

	if (!charge(e, 1, n ? n->line : 0))
		return MS_UNKNOWN;
	if (shell_save(e, &s) < 0) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	r = maintscript_eval(e, n);
	if (e->exited && e->trap_exit && !e->error) {
		/* the subshell's own EXIT trap */
		_cleanup_free_ char *text = TAKE_PTR(e->trap_exit);
		e->exited = false;
		(void)maintscript_eval_text(e, n->line, "the EXIT trap", text, strlen(text));
	}
	shell_restore(e, &s);
	e->returning = returning;
	return r;
}

/* A function definition: remembered for the calls that follow. */
static enum ms_st eval_funcdef(struct ms_eval *e, const struct sh_node *n)
{
	if (e->funcs.n >= MSEVAL_FUNCS_MAX) {
		_Static_assert(MSEVAL_FUNCS_MAX == 1024, "the message names the limit");
		mseval_incomplete(e, n->line, "more than 1024 function definitions; the rest is "
				  "not analysed");
		e->exited = true;
		return MS_UNKNOWN;
	}
	/* Defined in a branch that may not run: the command of that name may run instead.  (Where
	 * the rest of the script may not run, a later call runs only after the definition.) */
	if (msfuncs_add(&e->funcs, n->name, n->kids[0], e->cond > e->cond_base) < 0) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
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
	if (n->n_redirs && n->kind != SH_SIMPLE)
		mscommand_redirects(e, n);
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
		return maintscript_eval_subshell(e, n->kids[0]);
	case SH_FUNC:
		return eval_funcdef(e, n);
	}
	return MS_UNKNOWN;
}

enum ms_st maintscript_eval_text(struct ms_eval *e, unsigned line, const char *what,
				 const char *text, size_t len)
{
	struct s2c_error err = { 0 };
	struct sh_script *script = NULL;
	unsigned at_line = e->at_line;
	const char *where = e->where;
	enum ms_st r;
	int k;

	if (e->nest >= MSEVAL_NEST_MAX) {
		mseval_incomplete(e, line, "%s nested more than %d deep; not followed", what,
				  MSEVAL_NEST_MAX);
		return MS_UNKNOWN;
	}
	k = sh_parse(text, len, &script, &err);
	if (k == -ENOMEM) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	if (k < 0) {
		mseval_incomplete(e, line, "%s does not parse (%s)", what, err.msg);
		return MS_UNKNOWN;
	}
	{
		struct sh_script **v = realloc(e->subs, (e->n_subs + 1) * sizeof(*v));
		if (!v) {
			sh_script_free(script);
			mseval_oom(e);
			return MS_UNKNOWN;
		}
		e->subs = v;
		v[e->n_subs++] = script;
	}
	e->nest++;
	if (!e->at_line)
		e->at_line = line;
	e->where = what;
	r = maintscript_eval(e, script->root);
	e->where = where;
	e->at_line = at_line;
	e->nest--;
	return r;
}

/* --- the two passes ------------------------------------------------------------------------- */

static void eval_release(struct ms_eval *e)
{
	mseval_env_release(&e->env);
	msfuncs_release(&e->funcs);
	for (size_t i = 0; i < e->n_aliases; i++) {
		free(e->aliases[i].name);
		free(e->aliases[i].value);
	}
	free(e->aliases);
	for (size_t i = 0; i < e->n_links; i++) {
		free(e->links[i].path);
		free(e->links[i].target);
		free(e->links[i].base);
	}
	free(e->links);
	hashindex_release(&e->links_index);
	for (size_t i = 0; i < e->n_acts; i++)
		mseval_action_release(&e->acts[i]);
	free(e->acts);
	hashindex_release(&e->acts_same);
	free(e->set_refs);
	hashindex_release(&e->set_index);
	hashindex_release(&e->acts_paths);
	for (size_t i = 0; i < e->n_touches; i++) {
		free(e->touches[i].path);
		free(e->touches[i].base);
		free(e->touches[i].what);
		free(e->touches[i].script);
	}
	free(e->touches);
	for (size_t i = 0; i < e->n_subs; i++)
		sh_script_free(e->subs[i]);
	free(e->subs);
	strv_freen(e->incomplete, e->n_incomplete);
	strv_freen(e->notes, e->n_notes);
	strv_freen(e->groups, e->n_groups);
	strv_freen(e->asked, e->n_asked);
	strv_freen(e->conffiles, e->n_conffiles);
	strv_freen(e->wants, e->n_wants);
	for (size_t i = 0; i < e->n_locals; i++) {
		free(e->locals[i].name);
		free(e->locals[i].value);
	}
	free(e->locals);
	strv_freen(e->made, e->n_made);
	strv_freen(e->made_dirs, e->n_made_dirs);
	strv_freen(e->overrides, e->n_overrides);
	strv_freen(e->traps, e->n_traps);
	strv_freen(e->owned, e->n_owned);
	free(e->trap_exit);
	free(e->cwd);
}

struct take_key {
	char *const *v;
	size_t n;
	const char *s;
};

static bool take_same(size_t pos, const void *userdata)
{
	const struct take_key *k = userdata;

	return pos < k->n && s2c_streq(k->v[pos], k->s);
}

/* Move the strings of @from that @to lacks to its end (indexed, so linear in both). */
static int strset_take(char ***to, size_t *n_to, char **from, size_t n_from)
{
	_cleanup_(hashindex_release) struct hashindex index = { 0 };

	for (size_t j = 0; j < *n_to; j++)
		if (hashindex_add(&index, strhash((*to)[j]), j) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < n_from; i++) {
		uint64_t h = strhash(from[i]);

		if (hashindex_find(&index, h, take_same,
				   &(struct take_key){ *to, *n_to, from[i] }) != SIZE_MAX)
			continue;
		if (hashindex_add(&index, h, *n_to) < 0 ||
		    strv_push(to, n_to, TAKE_PTR(from[i])) < 0)
			return -ENOMEM;
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

/* An action of a pass looked up among those of the script taken so far. */
struct taken_key {
	const struct ms_analysis *out;
	const struct ms_action *a;
};

static bool same_taken(size_t pos, const void *userdata)
{
	const struct taken_key *k = userdata;

	return pos < k->out->n && mseval_action_same(&k->out->v[pos], k->a);
}

/* Index out->v from @first by mseval_action_hash().  0 or -ENOMEM. */
static int index_taken(const struct ms_analysis *out, size_t first, struct hashindex *x)
{
	int r = 0;

	for (size_t j = first; j < out->n && r == 0; j++)
		r = hashindex_add(x, mseval_action_hash(&out->v[j]), j);
	return r;
}

/* Merge the actions of pass @sc: those of both passes happen always; of one, in that scenario.
 * Those of the script (from @first) are indexed, so that it costs the actions, not their
 * square. */
static int take_actions(struct ms_eval *e, enum ms_scenario sc, size_t first,
			struct ms_analysis *out)
{
	_cleanup_(hashindex_release) struct hashindex taken = { 0 };
	int r = index_taken(out, first, &taken);

	for (size_t i = 0; i < e->n_acts && r == 0; i++) {
		struct ms_action *a = &e->acts[i];
		struct taken_key k = { .out = out, .a = a };
		uint64_t h = mseval_action_hash(a);
		size_t found = hashindex_find(&taken, h, same_taken, &k);
		struct ms_action *v;

		if (found != SIZE_MAX) {
			out->v[found].seq[sc] = i;
			/* setcap is tried in both, but has an effect only where it works. */
			out->v[found].when = kind_needs_setcap(a->kind) ? MS_SETCAP_WORKS : MS_ALWAYS;
			continue;
		}
		v = realloc(out->v, (out->n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		out->v = v;
		r = hashindex_add(&taken, h, out->n);
		if (r < 0)
			return r;
		v[out->n] = *a;
		*a = (struct ms_action){ 0 };
		v[out->n].seq[0] = v[out->n].seq[1] = SIZE_MAX;
		v[out->n].seq[sc] = i;
		v[out->n].when = sc == MS_SCENARIO_WORKS ? MS_SETCAP_WORKS : MS_SETCAP_FAILS;
		out->n++;
	}
	return r;
}

static int take_touches(struct ms_eval *e, struct ms_analysis *out)
{
	for (size_t i = 0; i < e->n_touches; i++) {
		struct ms_touch *v = realloc(out->touches, (out->n_touches + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		out->touches = v;
		v[out->n_touches++] = e->touches[i];
		e->touches[i] = (struct ms_touch){ 0 };
	}
	return 0;
}

/* The debconf answers at the end of pass @e, merged into @out (a difference: unknown). */
static int take_answers(const struct ms_eval *e, struct ms_analysis *out, bool first_pass)
{
	size_t plen = strlen(MSEVAL_DEBCONF_PREFIX);

	for (size_t i = 0; i < e->env.n; i++) {
		const struct ms_var *v = &e->env.v[i];
		struct ms_answer *a = NULL;

		if (strncmp(v->name, MSEVAL_DEBCONF_PREFIX, plen) != 0)
			continue;
		for (size_t j = 0; j < out->n_answers && !a; j++)
			if (s2c_streq(out->answers[j].template, v->name + plen))
				a = &out->answers[j];
		if (!a) {
			a = realloc(out->answers, (out->n_answers + 1) * sizeof(*a));
			if (!a)
				return -ENOMEM;
			out->answers = a;
			a = &a[out->n_answers];
			*a = (struct ms_answer){ .template = strdup(v->name + plen) };
			if (!a->template)
				return -ENOMEM;
			out->n_answers++;
			first_pass = true;
		}
		if (first_pass || (a->value && v->value && s2c_streq(a->value, v->value))) {
			char *nv = v->value ? strdup(v->value) : NULL;
			if (v->value && !nv)
				return -ENOMEM;
			free(a->value);
			a->value = nv;
		} else {
			free(a->value);
			a->value = NULL;
		}
	}
	return 0;
}

/* What pass @e found, into @out. */
static int take_pass(struct ms_eval *e, size_t first, struct ms_analysis *out)
{
	int r = take_actions(e, e->sc, first, out);

	if (r == 0)
		r = take_touches(e, out);
	if (r == 0)
		r = strset_take(&out->incomplete, &out->n_incomplete, e->incomplete, e->n_incomplete);
	if (r == 0)
		r = strset_take(&out->notes, &out->n_notes, e->notes, e->n_notes);
	if (r == 0)
		r = strset_take(&out->groups, &out->n_groups, e->groups, e->n_groups);
	if (r == 0)
		r = strset_take(&out->asked, &out->n_asked, e->asked, e->n_asked);
	if (r == 0)
		r = strset_take(&out->conffiles, &out->n_conffiles, e->conffiles, e->n_conffiles);
	if (r == 0)
		r = strset_take(&out->wants, &out->n_wants, e->wants, e->n_wants);
	return r;
}

/* The traps when the script ends: EXIT's, and those of signals as may happen. */
static void run_traps(struct ms_eval *e, unsigned line)
{
	_cleanup_free_ char *text = TAKE_PTR(e->trap_exit);

	e->exited = e->returning = false;
	e->breaking = 0;
	if (text)
		(void)maintscript_eval_text(e, line, "the EXIT trap", text, strlen(text));
	e->exited = false;
	e->cond++;
	for (size_t i = 0; i < e->n_traps && !e->error; i++) {
		_cleanup_free_ char *t = strdup(e->traps[i]);
		if (!t) {
			mseval_oom(e);
			break;
		}
		(void)maintscript_eval_text(e, line, "a signal trap", t, strlen(t));
		e->exited = false;
	}
	e->cond--;
}

/* The interpreter of the #! line: sh, dash or bash (and whether -e is given), else the name. */
static int interpreter(const char *text, size_t len, bool *bash, bool *errexit, char **other)
{
	const char *end = memchr(text, '\n', len), *p;
	_cleanup_free_ char *line = NULL;
	char *prog, *arg, *save = NULL;

	*bash = *errexit = false;
	*other = NULL;
	if (len < 2 || text[0] != '#' || text[1] != '!')
		return 0;       /* no #!: dpkg's exec falls back to /bin/sh */
	p = text + 2;
	line = strndup(p, end ? (size_t)(end - p) : len - 2);
	if (!line)
		return -ENOMEM;
	prog = strtok_r(line, " \t\r", &save);
	if (prog && (s2c_streq(prog, "/usr/bin/env") || s2c_streq(prog, "/bin/env")))
		prog = strtok_r(NULL, " \t\r", &save);
	if (prog && (s2c_streq(member_base_name(prog), "sh") ||
		     s2c_streq(member_base_name(prog), "dash") ||
		     s2c_streq(member_base_name(prog), "bash")) &&
	    (prog[0] != '/' || s2c_streq(prog, "/bin/sh") || s2c_streq(prog, "/usr/bin/sh") ||
	     s2c_streq(prog, "/bin/dash") || s2c_streq(prog, "/usr/bin/dash") ||
	     s2c_streq(prog, "/bin/bash") || s2c_streq(prog, "/usr/bin/bash"))) {
		*bash = s2c_streq(member_base_name(prog), "bash");
		while ((arg = strtok_r(NULL, " \t\r", &save)))
			if (arg[0] == '-' && strchr(arg, 'e'))
				*errexit = true;
		return 0;
	}
	*other = strdup(prog ? prog : "");
	return *other ? 0 : -ENOMEM;
}

/*
 * What dpkg exports to the scripts it runs (dpkg(1), "Environment"), on the
 * host's root: the package, its architecture, the script, an empty DPKG_ROOT.
 * Its version is not known.  Only dpkg's own scripts: debconf runs a config
 * script once before dpkg does (dpkg-preconfigure) and once from the postinst,
 * and rpm's scriptlets ("%post") have none of them.
 */
static void dpkg_env(struct ms_eval *e, const char *name, const struct ms_context *ctx)
{
	const struct {
		const char *name, *value;
		bool known;
	} vars[] = {
		{ "DPKG_MAINTSCRIPT_PACKAGE", ctx->package, ctx->package != NULL },
		{ "DPKG_MAINTSCRIPT_ARCH", ctx->arch, ctx->arch != NULL },
		{ "DPKG_MAINTSCRIPT_NAME", name, true },
		{ "DPKG_ROOT", "", true },
		{ "DPKG_ADMINDIR", "/var/lib/dpkg", true },
		{ "DPKG_RUNNING_VERSION", NULL, false },
	};

	if (!s2c_streq(name, "preinst") && !s2c_streq(name, "postinst") &&
	    !s2c_streq(name, "prerm") && !s2c_streq(name, "postrm"))
		return;
	for (size_t i = 0; i < S2C_ELEMENTSOF(vars) && !e->error; i++) {
		char *value = vars[i].known ? strdup(vars[i].value) : NULL;
		if (vars[i].known && !value) {
			mseval_oom(e);
			return;
		}
		mseval_env_set(e, &e->env, vars[i].name, value);
		if (!e->error)
			mseval_env_find(&e->env, vars[i].name)->exported = true;
	}
}

/* One pass of @script in scenario @sc. */
static void run_pass(struct ms_eval *e, const struct sh_script *script, const char *name,
		     const struct ms_context *ctx, enum ms_scenario sc, bool bash, bool errexit,
		     const struct ms_analysis *before)
{
	*e = (struct ms_eval){ .name = name, .ctx = ctx, .sc = sc, .bash = bash,
			       .errexit = errexit, .pos = ctx->args, .n_pos = ctx->n_args,
			       .cwd = strdup("/"), .cmdsub_status = MS_TRUE };
	if (!e->cwd)
		mseval_oom(e);
	/* dpkg's environment: PATH, exported */
	mseval_env_set(e, &e->env, "PATH", strdup(MSEVAL_DPKG_PATH));
	if (!e->error)
		mseval_env_find(&e->env, "PATH")->exported = true;
	dpkg_env(e, name, ctx);
	for (size_t i = 0; i < before->n_answers && !e->error; i++) {
		_cleanup_free_ char *var = strdup_printf("%s%s", MSEVAL_DEBCONF_PREFIX,
							 before->answers[i].template);
		char *value = before->answers[i].value ? strdup(before->answers[i].value) : NULL;
		if (!var || (before->answers[i].value && !value)) {
			free(value);
			mseval_oom(e);
			break;
		}
		mseval_env_set(e, &e->env, var, value);
	}
	(void)maintscript_eval(e, script->root);
	if (!e->error)
		run_traps(e, script->root->line_end);
}

int maintscript_analyse(const char *name, const char *text, size_t len,
			const struct ms_context *ctx, struct ms_analysis *out)
{
	struct s2c_error err = { 0 };
	struct sh_script *script = NULL;
	struct ms_eval pass[_MS_SCENARIO_MAX];
	_cleanup_free_ char *other = NULL;
	const char *class;
	bool bash, errexit;
	size_t first = out->n;
	int r = interpreter(text, len, &bash, &errexit, &other);

	if (r < 0)
		return r;
	if (other && s2c_streq(name, "config") && (class = msdebconf_dictionary_config(text, len)))
		return strv_push(&out->notes, &out->n_notes, strdup_printf(
			"config:1: dictionaries-common's debconf config for a dictionary: it asks "
			"for the default %s and changes no file's mode, owner or capability",
			s2c_streq(class, "ispell") ? "ispell dictionary" : "word list"));
	if (other) {
		_cleanup_free_ char *shown = escape_text(other);
		return add_incomplete(out, "%s:1: run by '%s', which is not analysed", name,
				      shown ? shown : "?");
	}
	r = sh_parse(text, len, &script, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return add_incomplete(out, "%s: %s; not analysed", name, err.msg);
	for (unsigned sc = 0; sc < _MS_SCENARIO_MAX; sc++)
		run_pass(&pass[sc], script, name, ctx, (enum ms_scenario)sc, bash, errexit, out);
	r = pass[0].error ? pass[0].error : pass[1].error;
	if (r == -E2BIG)
		r = add_incomplete(out, "%s: a command with more than %d words; not analysed", name,
				   MSEVAL_FIELDS_MAX);
	for (unsigned sc = 0; sc < _MS_SCENARIO_MAX && r == 0; sc++)
		r = take_answers(&pass[sc], out, sc == 0);
	for (unsigned sc = 0; sc < _MS_SCENARIO_MAX && r == 0; sc++)
		r = take_pass(&pass[sc], first, out);
	for (unsigned sc = 0; sc < _MS_SCENARIO_MAX; sc++)
		eval_release(&pass[sc]);
	sh_script_free(script);
	return r == -E2BIG ? 0 : r;
}

void ms_analysis_release(struct ms_analysis *a)
{
	ms_analysis_unindex(a);
	for (size_t i = 0; i < a->n; i++)
		mseval_action_release(&a->v[i]);
	free(a->v);
	for (size_t i = 0; i < a->n_touches; i++) {
		free(a->touches[i].path);
		free(a->touches[i].base);
		free(a->touches[i].what);
		free(a->touches[i].script);
	}
	free(a->touches);
	for (size_t i = 0; i < a->n_answers; i++) {
		free(a->answers[i].template);
		free(a->answers[i].value);
	}
	free(a->answers);
	strv_freen(a->incomplete, a->n_incomplete);
	strv_freen(a->notes, a->n_notes);
	strv_freen(a->groups, a->n_groups);
	strv_freen(a->asked, a->n_asked);
	strv_freen(a->conffiles, a->n_conffiles);
	strv_freen(a->wants, a->n_wants);
	*a = (struct ms_analysis){ 0 };
}
