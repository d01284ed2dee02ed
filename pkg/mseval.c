/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state of one evaluation pass: actions and what could not be worked out, variables (copied,
 * merged after two branches) and fields of expanded words.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "member.h"
#include "mseval.h"
#include "strhash.h"
#include "util.h"
#include "common.h"

void mseval_action_release(struct ms_action *a)
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

void mseval_oom(struct ms_eval *e)
{
	e->error = -ENOMEM;
}

/* "NAME:LINE: message", inside a text run at run time "NAME:LINE: (WHERE, line N) message". */
S2C_PRINTF(3, 0) static char *located(const struct ms_eval *e, unsigned line, const char *fmt,
				       va_list ap)
{
	_cleanup_free_ char *msg = strdup_vprintf(fmt, ap);

	if (!msg)
		return NULL;
	if (e->at_line && e->where)
		return strdup_printf("%s:%u: (%s, line %u) %s", e->name, e->at_line, e->where, line,
				     msg);
	return strdup_printf("%s:%u: %s", e->name, line, msg);
}

struct set_key {
	const struct ms_eval *e;
	char ***v;
	const char *s;
};

/* Whether @pos of the references is @k's string in @k's set (a string a set dropped or
 * moved is no longer found there: the set may then hold it twice, which costs nothing). */
static bool set_same(size_t pos, const void *userdata)
{
	const struct set_key *k = userdata;
	const struct ms_strset_ref *ref = pos < k->e->n_set_refs ? &k->e->set_refs[pos] : NULL;

	return ref && ref->v == k->v && ref->i < *ref->n && s2c_streq((*ref->v)[ref->i], k->s);
}

static uint64_t set_hash(char ***v, const char *s)
{
	return strhash(s) ^ ((uint64_t)(uintptr_t)v * UINT64_C(0x9e3779b97f4a7c15));
}

void mseval_strset_add(struct ms_eval *e, char ***v, size_t *n, const char *s)
{
	uint64_t h = set_hash(v, s);

	if (hashindex_find(&e->set_index, h, set_same, &(struct set_key){ e, v, s }) != SIZE_MAX)
		return;
	if (S2C_ARRAY_RESERVE(e->set_refs, e->alloc_set_refs, e->n_set_refs + 1, 64) < 0 ||
	    hashindex_add(&e->set_index, h, e->n_set_refs) < 0 || strv_push(v, n, strdup(s)) < 0) {
		mseval_oom(e);
		return;
	}
	e->set_refs[e->n_set_refs++] = (struct ms_strset_ref){ .v = v, .n = n, .i = *n - 1 };
}

void mseval_incomplete(struct ms_eval *e, unsigned line, const char *fmt, ...)
{
	_cleanup_free_ char *full = NULL;
	va_list ap;

	va_start(ap, fmt);
	full = located(e, line, fmt, ap);
	va_end(ap);
	if (!full)
		mseval_oom(e);
	else
		mseval_strset_add(e, &e->incomplete, &e->n_incomplete, full);
}

void mseval_note(struct ms_eval *e, unsigned line, const char *fmt, ...)
{
	_cleanup_free_ char *full = NULL;
	va_list ap;

	va_start(ap, fmt);
	full = located(e, line, fmt, ap);
	va_end(ap);
	if (!full)
		mseval_oom(e);
	else
		mseval_strset_add(e, &e->notes, &e->n_notes, full);
}

void mseval_touch(struct ms_eval *e, unsigned line, const char *path, bool below,
		  const char *what)
{
	mseval_touch_named(e, line, path, below, NULL, what);
}

void mseval_touch_named(struct ms_eval *e, unsigned line, const char *path, bool below,
			const char *base, const char *what)
{
	struct ms_touch t = { .below = below, .line = e->at_line ? e->at_line : line };
	struct ms_touch *v;

	t.path = path ? strdup(path) : NULL;
	t.base = base ? strdup(base) : NULL;
	t.what = strdup(what);
	t.script = strdup(e->name);
	v = realloc(e->touches, (e->n_touches + 1) * sizeof(*v));
	if ((path && !t.path) || (base && !t.base) || !t.what || !t.script || !v) {
		free(t.path);
		free(t.base);
		free(t.what);
		free(t.script);
		if (v)
			e->touches = v;
		mseval_oom(e);
		return;
	}
	e->touches = v;
	v[e->n_touches++] = t;
}

/* --- variables ------------------------------------------------------------------------------ */

void mseval_env_release(struct ms_env *env)
{
	for (size_t i = 0; i < env->n; i++) {
		free(env->v[i].name);
		free(env->v[i].value);
		free(env->v[i].start);
		free(env->v[i].end);
	}
	free(env->v);
	hashindex_release(&env->index);
	*env = (struct ms_env){ 0 };
}

int mseval_env_copy(const struct ms_env *src, struct ms_env *dst)
{
	*dst = (struct ms_env){ .v = calloc(src->n ? src->n : 1, sizeof(*dst->v)) };
	if (!dst->v)
		return -ENOMEM;
	for (size_t i = 0; i < src->n; i++) {
		if (hashindex_add(&dst->index, strhash(src->v[i].name), i) < 0) {
			mseval_env_release(dst);
			return -ENOMEM;
		}
		dst->v[i].name = strdup(src->v[i].name);
		dst->v[i].value = src->v[i].value ? strdup(src->v[i].value) : NULL;
		dst->v[i].start = src->v[i].start ? strdup(src->v[i].start) : NULL;
		dst->v[i].end = src->v[i].end ? strdup(src->v[i].end) : NULL;
		dst->v[i].flat = src->v[i].flat;
		dst->v[i].exported = src->v[i].exported;
		dst->n = i + 1;
		if (!dst->v[i].name || (src->v[i].value && !dst->v[i].value) ||
		    (src->v[i].start && !dst->v[i].start) || (src->v[i].end && !dst->v[i].end)) {
			mseval_env_release(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

struct env_key {
	const struct ms_env *env;
	const char *name;
};

static bool env_same(size_t pos, const void *userdata)
{
	const struct env_key *k = userdata;

	return pos < k->env->n && s2c_streq(k->env->v[pos].name, k->name);
}

struct ms_var *mseval_env_find(const struct ms_env *env, const char *name)
{
	size_t i = hashindex_find(&env->index, strhash(name), env_same,
				  &(struct env_key){ env, name });

	return i == SIZE_MAX ? NULL : &env->v[i];
}

/* Set @name to @value (NULL: unknown); takes @value. */
void mseval_env_set(struct ms_eval *e, struct ms_env *env, const char *name, char *value)
{
	struct ms_var *v = mseval_env_find(env, name);

	if (!v) {
		struct ms_var *nv = realloc(env->v, (env->n + 1) * sizeof(*nv));
		if (!nv || hashindex_add(&env->index, strhash(name), env->n) < 0) {
			if (nv)
				env->v = nv;
			free(value);
			mseval_oom(e);
			return;
		}
		env->v = nv;
		v = &nv[env->n];
		*v = (struct ms_var){ .name = strdup(name) };
		if (!v->name) {
			free(value);
			mseval_oom(e);
			return;
		}
		env->n++;
	}
	mseval_var_forget(v);
	v->value = value;
}

void mseval_var_forget(struct ms_var *v)
{
	free(v->value);
	free(v->start);
	free(v->end);
	v->value = v->start = v->end = NULL;
	v->flat = false;
}

void mseval_env_set_field(struct ms_eval *e, struct ms_env *env, const char *name,
			  const struct ms_field *f)
{
	struct ms_var *v;
	char *start = NULL;

	if (f->known) {
		char *value = strdup(f->s);
		if (!value)
			mseval_oom(e);
		mseval_env_set(e, env, name, value);
		return;
	}
	mseval_env_set(e, env, name, NULL);
	v = mseval_env_find(env, name);
	if (!v || e->error)
		return;
	if (f->tail < f->len && !f->s[f->tail + strcspn(f->s + f->tail, " \t\n*?[\\")] &&
	    !(v->end = strdup(f->s + f->tail))) {
		mseval_oom(e);
		return;
	}
	if (!f->prefix && !f->flat)
		return;
	start = strndup(f->s, f->prefix);
	if (!start) {
		mseval_oom(e);
		return;
	}
	v->start = start;
	v->flat = f->flat;
}

void mseval_env_unset(struct ms_eval *e, struct ms_env *env, const char *name)
{
	struct ms_var *v = mseval_env_find(env, name);

	if (!v)
		return;
	free(v->name);
	mseval_var_forget(v);
	*v = env->v[--env->n];
	/* The last variable moved into the gap: found there too (its old entry no longer
	 * matches, as the position is past the end or holds another name). */
	if (v != &env->v[env->n] && hashindex_add(&env->index, strhash(v->name),
						  (size_t)(v - env->v)) < 0)
		mseval_oom(e);
}

bool mseval_env_same(const struct ms_env *a, const struct ms_env *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct ms_var *o = mseval_env_find(b, a->v[i].name);
		if (!o || !o->value != !a->v[i].value ||
		    (o->value && !s2c_streq(o->value, a->v[i].value)) ||
		    !o->start != !a->v[i].start || o->flat != a->v[i].flat ||
		    (o->start && !s2c_streq(o->start, a->v[i].start)) ||
		    !o->end != !a->v[i].end || (o->end && !s2c_streq(o->end, a->v[i].end)))
			return false;
	}
	return true;
}

/* After two branches: what they agree on stays, the rest becomes unknown. */
void mseval_env_merge(struct ms_eval *e, struct ms_env *into, const struct ms_env *other)
{
	for (size_t i = 0; i < into->n; i++) {
		const struct ms_var *o = mseval_env_find(other, into->v[i].name);
		struct ms_var *v = &into->v[i];
		bool same_start = o && !o->value && !v->value && o->start && v->start &&
				  s2c_streq(o->start, v->start) && o->flat == v->flat &&
				  !o->end == !v->end && (!o->end || s2c_streq(o->end, v->end));
		if ((!o || !o->value || !v->value || !s2c_streq(o->value, v->value)) && !same_start)
			mseval_var_forget(v);
		if (o && o->exported)
			into->v[i].exported = true;
	}
	for (size_t i = 0; i < other->n; i++)
		if (!mseval_env_find(into, other->v[i].name))
			mseval_env_set(e, into, other->v[i].name, NULL);
}

/* --- expansion ------------------------------------------------------------------------------ */

void mseval_fields_release(struct ms_fields *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].s);
	free(f->v);
	*f = (struct ms_fields){ 0 };
}

struct ms_field *mseval_field_new(struct ms_eval *e, struct ms_fields *f)
{
	struct ms_field *v;

	if (f->n >= MSEVAL_FIELDS_MAX) {
		e->error = e->error ? e->error : -E2BIG;
		return NULL;
	}
	v = realloc(f->v, (f->n + 1) * sizeof(*v));
	if (!v) {
		mseval_oom(e);
		return NULL;
	}
	f->v = v;
	v[f->n] = (struct ms_field){ .s = calloc(1, 1), .known = true };
	if (!v[f->n].s) {
		mseval_oom(e);
		return NULL;
	}
	return &v[f->n++];
}

void mseval_field_unknown(struct ms_field *f)
{
	if (f->known)
		f->prefix = f->len;
	f->tail = f->len;
	f->known = false;
	f->flat = false;
}

void mseval_field_unknown_flat(struct ms_field *f)
{
	f->tail = f->len;
	if (!f->known)
		return;
	f->prefix = f->len;
	f->known = false;
	f->flat = true;
}

void mseval_field_append(struct ms_eval *e, struct ms_field *f, const char *s, size_t n)
{
	char *b;

	if (f->len + n > MSEVAL_VALUE_MAX) {
		mseval_field_unknown(f);
		return;
	}
	b = realloc(f->s, f->len + n + 1);
	if (!b) {
		mseval_oom(e);
		return;
	}
	if (!f->known && memchr(s, '/', n))
		f->flat = false;
	memcpy(b + f->len, s, n);
	f->len += n;
	b[f->len] = '\0';
	f->s = b;
}

uint64_t mseval_action_hash(const struct ms_action *a)
{
	uint64_t h = a->path ? member_hash(a->path) : 0;

	if (a->mode)
		h ^= member_hash(a->mode) * 31;
	return h ^ ((uint64_t)a->line << 8) ^ (uint64_t)a->kind;
}

/* An action looked up among this pass's. */
struct act_key {
	const struct ms_eval *e;
	const struct ms_action *a;
	const char *path;
};

static bool same_act(size_t pos, const void *userdata)
{
	const struct act_key *k = userdata;

	return pos < k->e->n_acts && mseval_action_same(&k->e->acts[pos], k->a);
}

static bool same_act_path(size_t pos, const void *userdata)
{
	const struct act_key *k = userdata;
	const char *p = pos < k->e->n_acts ? k->e->acts[pos].path : NULL;

	return p && s2c_streq(p, k->path);
}

static bool wide(const struct ms_action *a)
{
	return !a->path || a->glob || a->recursive;
}

bool mseval_acted_on(const struct ms_eval *e, const char *path)
{
	struct act_key k = { .e = e, .path = path };

	return e->n_acts_wide ||
	       hashindex_find(&e->acts_paths, member_hash(path), same_act_path, &k) != SIZE_MAX;
}

int mseval_action_add(struct ms_eval *e, struct ms_action *a)
{
	struct act_key k = { .e = e, .a = a, .path = a->path };
	uint64_t h = mseval_action_hash(a);
	struct ms_action *v;
	int r;

	if (hashindex_find(&e->acts_same, h, same_act, &k) != SIZE_MAX) {
		mseval_action_release(a);
		return 0;
	}
	v = reallocarray(e->acts, e->n_acts + 1, sizeof(*v));
	if (!v) {
		mseval_action_release(a);
		return -ENOMEM;
	}
	e->acts = v;
	r = hashindex_add(&e->acts_same, h, e->n_acts);
	if (r == 0 && !wide(a) &&
	    hashindex_find(&e->acts_paths, member_hash(a->path), same_act_path, &k) == SIZE_MAX)
		r = hashindex_add(&e->acts_paths, member_hash(a->path), e->n_acts);
	if (r < 0) {
		mseval_action_release(a);
		return r;
	}
	e->n_acts_wide += wide(a);
	v[e->n_acts++] = *a;
	*a = (struct ms_action){ 0 };
	return 0;
}

bool mseval_action_same(const struct ms_action *a, const struct ms_action *b)
{
#define SAME(x) ((!a->x && !b->x) || (a->x && b->x && s2c_streq(a->x, b->x)))
	return a->kind == b->kind && a->line == b->line && a->conditional == b->conditional &&
	       a->glob == b->glob && SAME(script) && SAME(command) &&
	       a->recursive == b->recursive && SAME(path) && SAME(mode) && SAME(owner) &&
	       SAME(group) && SAME(caps);
#undef SAME
}

/* --- functions ------------------------------------------------------------------------------ */

int msfuncs_add(struct ms_funcs *f, const char *name, const struct sh_node *body, bool maybe)
{
	char *copy = strdup(name);

	if (!copy || S2C_ARRAY_RESERVE(f->v, f->alloc, f->n + 1, 16) < 0 ||
	    hashindex_add(&f->index, strhash(name), f->n) < 0) {
		free(copy);
		return -ENOMEM;
	}
	f->v[f->n++] = (struct ms_func){ .name = copy, .body = body, .maybe = maybe };
	return 0;
}

struct func_search {
	const struct ms_funcs *f;
	const char *name;
	size_t found;               /* SIZE_MAX: none */
	bool mark;                  /* msfuncs_mark_maybe(): every one, not the latest */
};

static void func_seen(size_t pos, void *userdata)
{
	struct func_search *s = userdata;

	if (pos >= s->f->n || !s2c_streq(s->f->v[pos].name, s->name))
		return;
	if (s->mark)
		s->f->v[pos].maybe = true;
	else if (s->found == SIZE_MAX || pos > s->found)
		s->found = pos;
}

struct ms_func *msfuncs_find(const struct ms_funcs *f, const char *name)
{
	struct func_search s = { .f = f, .name = name, .found = SIZE_MAX };

	hashindex_each(&f->index, strhash(name), func_seen, &s);
	return s.found == SIZE_MAX ? NULL : &f->v[s.found];
}

void msfuncs_mark_maybe(struct ms_funcs *f, const char *name)
{
	struct func_search s = { .f = f, .name = name, .mark = true };

	hashindex_each(&f->index, strhash(name), func_seen, &s);
}

void msfuncs_truncate(struct ms_funcs *f, size_t n)
{
	for (size_t i = n; i < f->n; i++)
		free(f->v[i].name);
	f->n = S2C_MIN(f->n, n);
}

void msfuncs_release(struct ms_funcs *f)
{
	msfuncs_truncate(f, 0);
	free(f->v);
	hashindex_release(&f->index);
	*f = (struct ms_funcs){ 0 };
}
