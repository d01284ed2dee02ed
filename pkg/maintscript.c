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
#include "member.h"
#include "shparse.h"
#include "util.h"
#include "common.h"

#define STEPS_MAX 200000
#define CALLS_MAX 16
#define LOOP_MAX 256
#define FIELDS_MAX 4096
#define VALUE_MAX 65536
#define COMMAND_TEXT_MAX 200

enum st { ST_TRUE, ST_FALSE, ST_UNKNOWN };

struct var {
	char *name;
	char *value;            /* NULL: unknown */
};

struct env {
	struct var *v;
	size_t n;
};

struct func {
	char *name;
	const struct sh_node *body;
};

/* One field of an expanded word. */
struct field {
	char *s;
	size_t len;
	bool known;
	bool glob;              /* unquoted glob characters */
};

struct fields {
	struct field *v;
	size_t n;
};

struct eval {
	const char *name;       /* script name */
	const struct ms_context *ctx;
	enum ms_scenario sc;
	struct env env;
	const char *const *pos; /* positional parameters */
	size_t n_pos;
	struct func *funcs;
	size_t n_funcs;
	unsigned cond;          /* > 0: inside an undecided branch */
	unsigned calls;
	size_t steps;
	bool exited, returning;
	int error;              /* -ENOMEM sticks */
	char numbuf[32];        /* $# */
	struct ms_action *acts; /* this pass */
	size_t n_acts;
	char **notes;
	size_t n_notes;
};

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

static void action_release(struct ms_action *a)
{
	free(a->path);
	free(a->mode);
	free(a->owner);
	free(a->group);
	free(a->caps);
	free(a->script);
	free(a->command);
	*a = (struct ms_action){ 0 };
}

void ms_analysis_release(struct ms_analysis *a)
{
	for (size_t i = 0; i < a->n; i++)
		action_release(&a->v[i]);
	free(a->v);
	for (size_t i = 0; i < a->n_notes; i++)
		free(a->notes[i]);
	free(a->notes);
	*a = (struct ms_analysis){ 0 };
}

static void oom(struct eval *e)
{
	e->error = -ENOMEM;
}

static void note(struct eval *e, unsigned line, const char *fmt, ...) S2C_PRINTF(3, 4);
static void note(struct eval *e, unsigned line, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL, *full = NULL;
	char **v;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg || asprintf(&full, "%s:%u: %s", e->name, line, msg) < 0) {
		oom(e);
		return;
	}
	for (size_t i = 0; i < e->n_notes; i++)
		if (s2c_streq(e->notes[i], full))
			return;
	v = realloc(e->notes, (e->n_notes + 1) * sizeof(*v));
	if (!v) {
		oom(e);
		return;
	}
	e->notes = v;
	v[e->n_notes++] = TAKE_PTR(full);
}

/* --- variables ------------------------------------------------------------------------------ */

static void env_release(struct env *env)
{
	for (size_t i = 0; i < env->n; i++) {
		free(env->v[i].name);
		free(env->v[i].value);
	}
	free(env->v);
	*env = (struct env){ 0 };
}

static int env_copy(const struct env *src, struct env *dst)
{
	*dst = (struct env){ .v = calloc(src->n ? src->n : 1, sizeof(*dst->v)) };
	if (!dst->v)
		return -ENOMEM;
	for (size_t i = 0; i < src->n; i++) {
		dst->v[i].name = strdup(src->v[i].name);
		dst->v[i].value = src->v[i].value ? strdup(src->v[i].value) : NULL;
		dst->n = i + 1;
		if (!dst->v[i].name || (src->v[i].value && !dst->v[i].value)) {
			env_release(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

static struct var *env_find(const struct env *env, const char *name)
{
	for (size_t i = 0; i < env->n; i++)
		if (s2c_streq(env->v[i].name, name))
			return &env->v[i];
	return NULL;
}

/* Set @name to @value (NULL: unknown); takes @value. */
static void env_set(struct eval *e, struct env *env, const char *name, char *value)
{
	struct var *v = env_find(env, name);

	if (!v) {
		struct var *nv = realloc(env->v, (env->n + 1) * sizeof(*nv));
		if (!nv) {
			free(value);
			oom(e);
			return;
		}
		env->v = nv;
		v = &nv[env->n];
		*v = (struct var){ .name = strdup(name) };
		if (!v->name) {
			free(value);
			oom(e);
			return;
		}
		env->n++;
	}
	free(v->value);
	v->value = value;
}

/* After two branches: what they agree on stays, the rest becomes unknown. */
static void env_merge(struct eval *e, struct env *into, const struct env *other)
{
	for (size_t i = 0; i < into->n; i++) {
		const struct var *o = env_find(other, into->v[i].name);
		if (!o || !o->value || !into->v[i].value || !s2c_streq(o->value, into->v[i].value)) {
			free(into->v[i].value);
			into->v[i].value = NULL;
		}
	}
	for (size_t i = 0; i < other->n; i++)
		if (!env_find(into, other->v[i].name))
			env_set(e, into, other->v[i].name, NULL);
}

/* --- expansion ------------------------------------------------------------------------------ */

static void fields_release(struct fields *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].s);
	free(f->v);
	*f = (struct fields){ 0 };
}

static struct field *field_new(struct eval *e, struct fields *f)
{
	struct field *v;

	if (f->n >= FIELDS_MAX) {
		e->error = e->error ? e->error : -E2BIG;
		return NULL;
	}
	v = realloc(f->v, (f->n + 1) * sizeof(*v));
	if (!v) {
		oom(e);
		return NULL;
	}
	f->v = v;
	v[f->n] = (struct field){ .s = calloc(1, 1), .known = true };
	if (!v[f->n].s) {
		oom(e);
		return NULL;
	}
	return &v[f->n++];
}

static void field_append(struct eval *e, struct field *f, const char *s, size_t n)
{
	char *b;

	if (f->len + n > VALUE_MAX) {
		f->known = false;
		return;
	}
	b = realloc(f->s, f->len + n + 1);
	if (!b) {
		oom(e);
		return;
	}
	memcpy(b + f->len, s, n);
	f->len += n;
	b[f->len] = '\0';
	f->s = b;
}

static enum st eval_node(struct eval *e, const struct sh_node *n);
static char *cmdsub_output(struct eval *e, const struct sh_node *list);
static void expand(struct eval *e, const struct sh_word *w, bool split, struct fields *out);

/* The whole word as one string (assignments, case words, patterns); NULL when unknown. */
static char *expand_string(struct eval *e, const struct sh_word *w)
{
	struct fields f = { 0 };
	char *s = NULL;

	expand(e, w, false, &f);
	if (!e->error && f.n == 1 && f.v[0].known)
		s = TAKE_PTR(f.v[0].s);
	else if (!e->error && f.n == 0)
		s = strdup("");
	fields_release(&f);
	return s;
}

/* A parameter's value: positional, special or a variable.  Sets *known. */
static const char *param_value(struct eval *e, const char *name, bool *known)
{
	unsigned idx;
	struct var *v;

	*known = true;
	if (parse_uint(name, 1000, &idx) == 0) {
		if (idx == 0)
			return e->name;
		return idx <= e->n_pos ? e->pos[idx - 1] : "";
	}
	if (s2c_streq(name, "#")) {
		(void)snprintf(e->numbuf, sizeof(e->numbuf), "%zu", e->n_pos);
		return e->numbuf;
	}
	if (s2c_streq(name, "?") || s2c_streq(name, "$") || s2c_streq(name, "!") ||
	    s2c_streq(name, "-")) {
		*known = false;
		return "";
	}
	v = env_find(&e->env, name);
	if (!v)
		return "";      /* unset: empty (DPKG_ROOT, DPKG_MAINTSCRIPT_*) */
	if (!v->value) {
		*known = false;
		return "";
	}
	return v->value;
}

/* Add @s to the fields, splitting on blanks when @split. */
static void add_text(struct eval *e, struct fields *out, struct field **cur, const char *s,
		     bool known, bool split, bool quoted)
{
	if (!split || quoted) {
		field_append(e, *cur, s, strlen(s));
		if (!known)
			(*cur)->known = false;
		return;
	}
	while (*s) {
		size_t n = strcspn(s, " \t\n");
		field_append(e, *cur, s, n);
		if (!known)
			(*cur)->known = false;
		for (size_t i = 0; i < n; i++)
			if (strchr("*?[", s[i]))
				(*cur)->glob = true;
		s += n;
		if (*s) {
			s += strspn(s, " \t\n");
			if (*s && !(*cur = field_new(e, out)))
				return;
		}
	}
}

static void expand_param(struct eval *e, const struct sh_part *p, bool split, struct fields *out,
			 struct field **cur)
{
	bool known;
	const char *v;
	_cleanup_free_ char *alt = NULL;

	if (s2c_streq(p->text, "@") || s2c_streq(p->text, "*")) {
		for (size_t i = 0; i < e->n_pos; i++) {
			if (i > 0 && (p->quoted ? s2c_streq(p->text, "@") : split)) {
				if (!(*cur = field_new(e, out)))
					return;
			} else if (i > 0) {
				field_append(e, *cur, " ", 1);
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
		bool set = env_find(&e->env, p->text) || !known ||
			   (parse_uint(p->text, 1000, &(unsigned){ 0 }) == 0 && *v);
		bool empty = known && !*v;
		bool use_arg = false;

		if (op[0] == '-' || op[0] == '=' || op[0] == '?')
			use_arg = !set || (colon && empty);
		else if (op[0] == '+')
			use_arg = set && !(colon && empty);
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
			alt = p->arg ? expand_string(e, p->arg) : strdup("");
			if (e->error)
				return;
			if (op[0] == '=' && alt)
				env_set(e, &e->env, p->text, strdup(alt));
			add_text(e, out, cur, alt ? alt : "", alt != NULL, split, p->quoted);
			return;
		}
	}
	add_text(e, out, cur, v, known, split, p->quoted);
}

static void expand(struct eval *e, const struct sh_word *w, bool split, struct fields *out)
{
	struct field *cur = field_new(e, out);
	bool any = false;

	if (!cur)
		return;
	for (size_t i = 0; i < w->n && !e->error; i++) {
		const struct sh_part *p = &w->parts[i];
		switch (p->kind) {
		case SH_PART_LIT:
			field_append(e, cur, p->text, strlen(p->text));
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
			cur->known = false;
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

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');
	return slash ? slash + 1 : s;
}

/* What the few commands whose output the analysis knows would print.  NULL: unknown. */
static char *cmdsub_output(struct eval *e, const struct sh_node *list)
{
	const struct sh_node *c = only_simple(list);
	struct fields f = { 0 };
	char *out = NULL;
	const char *cmd;

	if (!c || c->n_words == 0)
		return NULL;
	for (size_t i = 0; i < c->n_words && !e->error; i++)
		expand(e, &c->words[i], true, &f);
	for (size_t i = 0; i < f.n; i++)
		if (!f.v[i].known) {
			fields_release(&f);
			return NULL;
		}
	cmd = f.n ? base_name(f.v[0].s) : "";
	if (s2c_streq(cmd, "dpkg-divert") && f.n == 3 && s2c_streq(f.v[1].s, "--truename"))
		out = strdup(f.v[2].s);
	else if (s2c_streq(cmd, "uname") && (f.n == 1 || (f.n == 2 && s2c_streq(f.v[1].s, "-s"))))
		out = strdup("Linux");
	else if (s2c_streq(cmd, "dpkg") && f.n == 2 && s2c_streq(f.v[1].s, "--print-architecture") &&
		 e->ctx->arch)
		out = strdup(e->ctx->arch);
	else if ((s2c_streq(cmd, "command") && f.n == 3 && s2c_streq(f.v[1].s, "-v") &&
		  s2c_streq(f.v[2].s, "setcap")) ||
		 (s2c_streq(cmd, "which") && f.n == 2 && s2c_streq(f.v[1].s, "setcap")))
		out = strdup(e->sc == MS_SCENARIO_WORKS ? "/sbin/setcap" : "");
	else if (s2c_streq(cmd, "echo")) {
		size_t first = f.n > 1 && s2c_streq(f.v[1].s, "-n") ? 2 : 1;
		out = strdup("");
		for (size_t i = first; out && i < f.n; i++) {
			char *joined = NULL;
			if (asprintf(&joined, "%s%s%s", out, i > first ? " " : "", f.v[i].s) < 0)
				joined = NULL;
			free(out);
			out = joined;
		}
	} else if (s2c_streq(cmd, "basename") && f.n == 2) {
		out = strdup(base_name(f.v[1].s));
	}
	fields_release(&f);
	if (!out && e->error == 0 && c)
		return NULL;
	return out;
}

/* --- actions -------------------------------------------------------------------------------- */

/* The command's source on one line, shortened. */
static char *command_text(const struct sh_node *n)
{
	size_t len = S2C_MIN(n->src_len, (size_t)COMMAND_TEXT_MAX);
	char *s = strndup(n->src ? n->src : "", len);

	if (!s)
		return NULL;
	for (char *c = s; *c; c++)
		if (*c == '\n' || *c == '\t' || *c == '\r')
			*c = ' ';
	if (n->src_len > COMMAND_TEXT_MAX) {
		char *longer = NULL;
		if (asprintf(&longer, "%s…", s) < 0)
			longer = NULL;
		free(s);
		s = longer;
	}
	return s;
}

static bool action_same(const struct ms_action *a, const struct ms_action *b)
{
#define SAME(x) ((!a->x && !b->x) || (a->x && b->x && s2c_streq(a->x, b->x)))
	return a->kind == b->kind && a->line == b->line && a->conditional == b->conditional &&
	       a->recursive == b->recursive && SAME(path) && SAME(mode) && SAME(owner) &&
	       SAME(group) && SAME(caps);
#undef SAME
}

/* Record one action on @path (a field); a path that is not known is a note. */
static void act(struct eval *e, const struct sh_node *n, enum ms_kind kind,
		const struct field *path, const char *mode, const char *owner, const char *group,
		const char *caps, bool recursive)
{
	struct ms_action a = { .kind = kind, .line = n->line, .recursive = recursive,
			       .conditional = e->cond > 0, .glob = path->glob };
	_cleanup_free_ char *cmd = command_text(n);
	struct ms_action *v;
	int r;

	if (!cmd) {
		oom(e);
		return;
	}
	if (!path->known || path->s[0] != '/') {
		_cleanup_free_ char *shown = escape_text(cmd);
		note(e, n->line, "%s: cannot tell which file it changes%s", shown ? shown : "?",
		     e->cond ? " (under a condition)" : "");
		return;
	}
	r = member_path(path->s + 1, &a.path, NULL);
	if (r < 0 && r != -ENOMEM) {
		_cleanup_free_ char *shown = escape_text(cmd);
		note(e, n->line, "%s: the file name is not usable", shown ? shown : "?");
		return;
	}
	if (r < 0 || (mode && !(a.mode = strdup(mode))) || (owner && !(a.owner = strdup(owner))) ||
	    (group && !(a.group = strdup(group))) || (caps && !(a.caps = strdup(caps))) ||
	    !(a.script = strdup(e->name))) {
		action_release(&a);
		oom(e);
		return;
	}
	a.command = TAKE_PTR(cmd);
	for (size_t i = 0; i < e->n_acts; i++)
		if (action_same(&e->acts[i], &a)) {
			action_release(&a);
			return;     /* a loop or a second call: the same change again */
		}
	v = realloc(e->acts, (e->n_acts + 1) * sizeof(*v));
	if (!v) {
		action_release(&a);
		oom(e);
		return;
	}
	e->acts = v;
	v[e->n_acts++] = a;
}

static bool is_option(const struct field *f)
{
	return f->known && f->s[0] == '-' && f->s[1] != '\0';
}

/* chmod [-R -f -v -c …] MODE FILE… */
static enum st cmd_chmod(struct eval *e, const struct sh_node *n, const struct fields *f)
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
		return ST_UNKNOWN;
	if (!f->v[i].known) {
		note(e, n->line, "chmod with a mode that is not known");
		return ST_UNKNOWN;
	}
	for (size_t j = i + 1; j < f->n; j++)
		act(e, n, MS_CHMOD, &f->v[j], f->v[i].s, NULL, NULL, NULL, recursive);
	return ST_TRUE;
}

/* chown [opts] OWNER[:GROUP] FILE…, chgrp [opts] GROUP FILE… */
static enum st cmd_chown(struct eval *e, const struct sh_node *n, const struct fields *f,
			 bool chgrp)
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
		return ST_UNKNOWN;
	if (!f->v[i].known) {
		note(e, n->line, "%s with an owner that is not known", chgrp ? "chgrp" : "chown");
		return ST_UNKNOWN;
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
			oom(e);
	}
	if (e->error)
		return ST_UNKNOWN;
	for (size_t j = i + 1; j < f->n; j++)
		act(e, n, MS_CHOWN, &f->v[j], NULL, owner, group, NULL, recursive);
	return ST_TRUE;
}

/* setcap [-q] [-v] [-n ROOTID] (CAPS|-r) FILE [(CAPS|-r) FILE …] */
static enum st cmd_setcap(struct eval *e, const struct sh_node *n, const struct fields *f)
{
	size_t i = 1;

	while (i < f->n && f->v[i].known &&
	       (s2c_streq(f->v[i].s, "-q") || s2c_streq(f->v[i].s, "-v") ||
		s2c_streq(f->v[i].s, "-n")))
		i += s2c_streq(f->v[i].s, "-n") ? 2 : 1;
	for (; i + 1 < f->n; i += 2) {
		if (!f->v[i].known) {
			note(e, n->line, "setcap with capabilities that are not known");
			continue;
		}
		if (s2c_streq(f->v[i].s, "-r"))
			act(e, n, MS_SETCAP_REMOVE, &f->v[i + 1], NULL, NULL, NULL, NULL, false);
		else
			act(e, n, MS_SETCAP, &f->v[i + 1], NULL, NULL, NULL, f->v[i].s, false);
	}
	return e->sc == MS_SCENARIO_WORKS ? ST_TRUE : ST_FALSE;
}

/* dpkg-statoverride [opts] --add USER GROUP MODE FILE; --list: none on a fresh system */
static enum st cmd_statoverride(struct eval *e, const struct sh_node *n, const struct fields *f)
{
	for (size_t i = 1; i < f->n; i++) {
		if (!f->v[i].known)
			continue;
		if (s2c_streq(f->v[i].s, "--list"))
			return ST_FALSE;
		if (s2c_streq(f->v[i].s, "--add")) {
			if (i + 4 >= f->n) {
				note(e, n->line, "dpkg-statoverride --add with too few arguments");
				return ST_UNKNOWN;
			}
			if (!f->v[i + 1].known || !f->v[i + 2].known || !f->v[i + 3].known) {
				note(e, n->line, "dpkg-statoverride --add with an owner, group or "
				     "mode that is not known");
				return ST_UNKNOWN;
			}
			act(e, n, MS_STATOVERRIDE, &f->v[i + 4], f->v[i + 3].s, f->v[i + 1].s,
			    f->v[i + 2].s, NULL, false);
			return ST_TRUE;
		}
	}
	return ST_UNKNOWN;
}

static bool is_setcap_path(const char *s)
{
	return s2c_streq(base_name(s), "setcap");
}

/* test / [ … ] */
static enum st cmd_test(struct eval *e, const struct fields *f, bool bracket)
{
	size_t n = f->n - (bracket ? 1 : 0);
	const struct field *a = f->v + 1;
	size_t argc = n - 1;
	bool negate = false;
	enum st r = ST_UNKNOWN;

	if (bracket && (f->n < 2 || !f->v[f->n - 1].known || !s2c_streq(f->v[f->n - 1].s, "]")))
		return ST_UNKNOWN;
	if (argc >= 1 && a[0].known && s2c_streq(a[0].s, "!")) {
		negate = true;
		a++;
		argc--;
	}
	if (argc == 0) {
		r = ST_FALSE;
	} else if (argc == 1) {
		r = a[0].known ? (a[0].len ? ST_TRUE : ST_FALSE) : ST_UNKNOWN;
	} else if (argc == 2 && a[0].known) {
		if (s2c_streq(a[0].s, "-n") || s2c_streq(a[0].s, "-z")) {
			if (a[1].known)
				r = (a[1].len > 0) == s2c_streq(a[0].s, "-n") ? ST_TRUE : ST_FALSE;
		} else if ((s2c_streq(a[0].s, "-x") || s2c_streq(a[0].s, "-e") ||
			    s2c_streq(a[0].s, "-f")) && a[1].known) {
			if (!a[1].len)
				r = ST_FALSE;
			else if (is_setcap_path(a[1].s))
				r = e->sc == MS_SCENARIO_WORKS ? ST_TRUE : ST_FALSE;
		}
	} else if (argc == 3 && a[1].known && a[0].known && a[2].known) {
		if (s2c_streq(a[1].s, "=") || s2c_streq(a[1].s, "=="))
			r = s2c_streq(a[0].s, a[2].s) ? ST_TRUE : ST_FALSE;
		else if (s2c_streq(a[1].s, "!="))
			r = s2c_streq(a[0].s, a[2].s) ? ST_FALSE : ST_TRUE;
	}
	if (negate && r != ST_UNKNOWN)
		r = r == ST_TRUE ? ST_FALSE : ST_TRUE;
	return r;
}

static const struct func *func_find(const struct eval *e, const char *name)
{
	for (size_t i = e->n_funcs; i-- > 0;)
		if (s2c_streq(e->funcs[i].name, name))
			return &e->funcs[i];
	return NULL;
}

static enum st call_func(struct eval *e, const struct func *fn, const struct fields *f)
{
	const char *const *saved = e->pos;
	size_t n_saved = e->n_pos;
	const char **args;
	enum st r;

	if (e->calls >= CALLS_MAX) {
		note(e, fn->body->line, "function calls nested more than %d deep; not followed",
		     CALLS_MAX);
		return ST_UNKNOWN;
	}
	args = calloc(f->n ? f->n : 1, sizeof(*args));
	if (!args) {
		oom(e);
		return ST_UNKNOWN;
	}
	for (size_t i = 1; i < f->n; i++)
		args[i - 1] = f->v[i].s;     /* unknown arguments read as their text so far */
	e->pos = args;
	e->n_pos = f->n - 1;
	e->calls++;
	r = eval_node(e, fn->body);
	e->calls--;
	e->returning = false;
	e->pos = saved;
	e->n_pos = n_saved;
	free(args);
	return r;
}

static enum st eval_simple(struct eval *e, const struct sh_node *n)
{
	struct fields f = { 0 };
	const char *cmd;
	const struct func *fn;
	enum st r = ST_UNKNOWN;
	bool unknown_arg = false;

	if (n->n_words == 0) {
		for (size_t i = 0; i < n->n_assigns && !e->error; i++)
			env_set(e, &e->env, n->assigns[i].name,
				expand_string(e, &n->assigns[i].value));
		return ST_TRUE;
	}
	for (size_t i = 0; i < n->n_words && !e->error; i++)
		expand(e, &n->words[i], true, &f);
	if (e->error || f.n == 0 || !f.v[0].known) {
		fields_release(&f);
		return ST_UNKNOWN;
	}
	for (size_t i = 1; i < f.n; i++)
		unknown_arg = unknown_arg || !f.v[i].known;
	cmd = base_name(f.v[0].s);
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
		r = ST_TRUE;
	} else if (s2c_streq(cmd, "false")) {
		r = ST_FALSE;
	} else if (s2c_streq(cmd, "[") || s2c_streq(cmd, "test")) {
		r = cmd_test(e, &f, s2c_streq(cmd, "["));
	} else if ((s2c_streq(cmd, "command") || s2c_streq(cmd, "which") ||
		    s2c_streq(cmd, "type") || s2c_streq(cmd, "hash")) && f.n >= 2) {
		const struct field *what = &f.v[f.n - 1];
		if (what->known && is_setcap_path(what->s))
			r = e->sc == MS_SCENARIO_WORKS ? ST_TRUE : ST_FALSE;
	} else if (s2c_streq(cmd, "exit")) {
		if (!e->cond)
			e->exited = true;
		r = ST_TRUE;
	} else if (s2c_streq(cmd, "return")) {
		if (!e->cond && e->calls)
			e->returning = true;
		r = ST_TRUE;
	} else if (s2c_streq(cmd, "shift")) {
		if (e->n_pos) {
			e->pos++;
			e->n_pos--;
		}
		r = ST_TRUE;
	} else if (s2c_streq(cmd, "local") || s2c_streq(cmd, "export") ||
		   s2c_streq(cmd, "readonly")) {
		for (size_t i = 1; i < f.n; i++) {
			const char *eq = f.v[i].known ? strchr(f.v[i].s, '=') : NULL;
			_cleanup_free_ char *name = eq ? strndup(f.v[i].s, (size_t)(eq - f.v[i].s)) : NULL;
			if (eq && name)
				env_set(e, &e->env, name, strdup(eq + 1));
		}
		r = ST_TRUE;
	} else if (s2c_streq(cmd, "echo") || s2c_streq(cmd, "printf") || s2c_streq(cmd, "set")) {
		r = ST_TRUE;
	}
	(void)unknown_arg;
	fields_release(&f);
	return r;
}

/* Evaluate both branches of an undecided condition from the same variables. */
static void both(struct eval *e, const struct sh_node *a, const struct sh_node *b)
{
	struct env saved = { 0 }, after_a = { 0 };

	if (env_copy(&e->env, &saved) < 0) {
		oom(e);
		return;
	}
	e->cond++;
	if (a)
		(void)eval_node(e, a);
	after_a = e->env;
	e->env = saved;
	if (b)
		(void)eval_node(e, b);
	e->cond--;
	env_merge(e, &e->env, &after_a);
	env_release(&after_a);
}

static bool stop(const struct eval *e)
{
	return e->error || e->exited || e->returning;
}

static enum st eval_case(struct eval *e, const struct sh_node *n)
{
	_cleanup_free_ char *word = expand_string(e, n->word);

	if (e->error)
		return ST_UNKNOWN;
	for (size_t i = 0; i < n->n_arms && !stop(e); i++) {
		const struct sh_arm *arm = &n->arms[i];
		bool match = false, unsure = !word;

		for (size_t j = 0; j < arm->n_patterns && !match; j++) {
			_cleanup_free_ char *pat = expand_string(e, &arm->patterns[j]);
			if (!pat)
				unsure = true;
			else if (word && fnmatch(pat, word, 0) == 0)
				match = true;
		}
		if (match)
			return arm->body ? eval_node(e, arm->body) : ST_TRUE;
		if (unsure && arm->body) {
			e->cond++;
			(void)eval_node(e, arm->body);
			e->cond--;
		}
	}
	return ST_TRUE;
}

static enum st eval_for(struct eval *e, const struct sh_node *n)
{
	struct fields f = { 0 };

	if (n->has_words) {
		for (size_t i = 0; i < n->n_words && !e->error; i++)
			expand(e, &n->words[i], true, &f);
	} else {
		for (size_t i = 0; i < e->n_pos; i++) {
			struct field *x = field_new(e, &f);
			if (x)
				field_append(e, x, e->pos[i], strlen(e->pos[i]));
		}
	}
	for (size_t i = 0; i < f.n && i < LOOP_MAX && !stop(e); i++) {
		env_set(e, &e->env, n->name, f.v[i].known ? strdup(f.v[i].s) : NULL);
		(void)eval_node(e, n->kids[0]);
	}
	fields_release(&f);
	return ST_TRUE;
}

static enum st negate(enum st s)
{
	return s == ST_UNKNOWN ? s : s == ST_TRUE ? ST_FALSE : ST_TRUE;
}

static enum st eval_node(struct eval *e, const struct sh_node *n)
{
	enum st r = ST_TRUE;

	if (!n || stop(e))
		return ST_TRUE;
	if (++e->steps > STEPS_MAX) {
		if (e->steps == STEPS_MAX + 1)
			note(e, n->line, "more than %d steps; the rest is not analysed", STEPS_MAX);
		e->exited = true;
		return ST_UNKNOWN;
	}
	switch (n->kind) {
	case SH_SIMPLE:
		return eval_simple(e, n);
	case SH_PIPE:
		for (size_t i = 0; i < n->n_kids && !stop(e); i++)
			r = eval_node(e, n->kids[i]);
		if (n->n_kids > 1 && r != ST_UNKNOWN && !n->negated)
			r = ST_UNKNOWN;     /* the pipeline's status is its last command's */
		return n->negated ? negate(r) : r;
	case SH_AND:
	case SH_OR: {
		bool is_and = n->kind == SH_AND;
		r = eval_node(e, n->kids[0]);
		if (stop(e))
			return r;
		if (r == ST_UNKNOWN) {
			both(e, n->kids[1], NULL);
			return ST_UNKNOWN;
		}
		if ((r == ST_TRUE) == is_and)
			return eval_node(e, n->kids[1]);
		return r;
	}
	case SH_LIST:
		for (size_t i = 0; i < n->n_kids && !stop(e); i++)
			r = eval_node(e, n->kids[i]);
		return r;
	case SH_IF:
		r = eval_node(e, n->kids[0]);
		if (stop(e))
			return r;
		if (r == ST_TRUE)
			return eval_node(e, n->kids[1]);
		if (r == ST_FALSE)
			return n->kids[2] ? eval_node(e, n->kids[2]) : ST_TRUE;
		both(e, n->kids[1], n->kids[2]);
		return ST_UNKNOWN;
	case SH_CASE:
		return eval_case(e, n);
	case SH_FOR:
		return eval_for(e, n);
	case SH_WHILE:
	case SH_UNTIL:
		r = eval_node(e, n->kids[0]);
		if (n->kind == SH_UNTIL)
			r = negate(r);
		if (r == ST_FALSE || stop(e))
			return ST_TRUE;
		/* Once, as if the body may run: loops are not iterated. */
		e->cond++;
		(void)eval_node(e, n->kids[1]);
		e->cond--;
		return ST_TRUE;
	case SH_GROUP:
		return eval_node(e, n->kids[0]);
	case SH_SUBSHELL: {
		struct env saved = { 0 };
		if (env_copy(&e->env, &saved) < 0) {
			oom(e);
			return ST_UNKNOWN;
		}
		r = eval_node(e, n->kids[0]);
		env_release(&e->env);
		e->env = saved;
		e->exited = false;      /* exit leaves only the subshell */
		return r;
	}
	case SH_FUNC: {
		struct func *v = realloc(e->funcs, (e->n_funcs + 1) * sizeof(*v));
		if (!v) {
			oom(e);
			return ST_UNKNOWN;
		}
		e->funcs = v;
		v[e->n_funcs].name = strdup(n->name);
		if (!v[e->n_funcs].name) {
			oom(e);
			return ST_UNKNOWN;
		}
		v[e->n_funcs++].body = n->kids[0];
		return ST_TRUE;
	}
	}
	return ST_UNKNOWN;
}

/* --- the two passes ------------------------------------------------------------------------- */

static void eval_release(struct eval *e)
{
	env_release(&e->env);
	for (size_t i = 0; i < e->n_funcs; i++)
		free(e->funcs[i].name);
	free(e->funcs);
	for (size_t i = 0; i < e->n_acts; i++)
		action_release(&e->acts[i]);
	free(e->acts);
	for (size_t i = 0; i < e->n_notes; i++)
		free(e->notes[i]);
	free(e->notes);
}

static int take_notes(struct eval *e, struct ms_analysis *out)
{
	for (size_t i = 0; i < e->n_notes; i++) {
		char **v;
		bool dup = false;
		for (size_t j = 0; j < out->n_notes && !dup; j++)
			dup = s2c_streq(out->notes[j], e->notes[i]);
		if (dup)
			continue;
		v = realloc(out->notes, (out->n_notes + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		out->notes = v;
		v[out->n_notes++] = TAKE_PTR(e->notes[i]);
	}
	return 0;
}

static int add_note(struct ms_analysis *out, const char *fmt, ...) S2C_PRINTF(2, 3);
static int add_note(struct ms_analysis *out, const char *fmt, ...)
{
	char *s = NULL;
	char **v;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return -ENOMEM;
	v = realloc(out->notes, (out->n_notes + 1) * sizeof(*v));
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	out->notes = v;
	v[out->n_notes++] = s;
	return 0;
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
	struct eval pass[_MS_SCENARIO_MAX];
	size_t first = out->n;
	int r;

	r = sh_parse(text, len, &script, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return add_note(out, "%s: %s; not analysed", name, err.msg);
	for (unsigned sc = 0; sc < _MS_SCENARIO_MAX; sc++) {
		struct eval *e = &pass[sc];
		*e = (struct eval){ .name = name, .ctx = ctx, .sc = (enum ms_scenario)sc };
		e->pos = ctx->args;
		e->n_pos = ctx->n_args;
		(void)eval_node(e, script->root);
	}
	sh_script_free(script);
	r = pass[0].error ? pass[0].error : pass[1].error;
	if (r == -E2BIG)
		r = add_note(out, "%s: a command with more than %d words; not analysed", name,
			     FIELDS_MAX);
	if (r == 0) {
		/* Merge: an action of both passes happens always; of one, in that scenario. */
		for (unsigned sc = 0; sc < _MS_SCENARIO_MAX && r == 0; sc++) {
			for (size_t i = 0; i < pass[sc].n_acts && r == 0; i++) {
				struct ms_action *a = &pass[sc].acts[i];
				struct ms_action *v;
				size_t found = SIZE_MAX;

				for (size_t j = first; j < out->n && found == SIZE_MAX; j++)
					if (action_same(&out->v[j], a))
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
				r = take_notes(&pass[sc], out);
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
