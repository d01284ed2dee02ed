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

#include "mseval.h"
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

void mseval_incomplete(struct ms_eval *e, unsigned line, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL, *full = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = strdup_vprintf(fmt, ap);
	va_end(ap);
	full = msg ? strdup_printf("%s:%u: %s", e->name, line, msg) : NULL;
	if (!full) {
		mseval_oom(e);
		return;
	}
	for (size_t i = 0; i < e->n_incomplete; i++)
		if (s2c_streq(e->incomplete[i], full))
			return;
	if (strv_push(&e->incomplete, &e->n_incomplete, TAKE_PTR(full)) < 0)
		mseval_oom(e);
}

/* --- variables ------------------------------------------------------------------------------ */

void mseval_env_release(struct ms_env *env)
{
	for (size_t i = 0; i < env->n; i++) {
		free(env->v[i].name);
		free(env->v[i].value);
	}
	free(env->v);
	*env = (struct ms_env){ 0 };
}

int mseval_env_copy(const struct ms_env *src, struct ms_env *dst)
{
	*dst = (struct ms_env){ .v = calloc(src->n ? src->n : 1, sizeof(*dst->v)) };
	if (!dst->v)
		return -ENOMEM;
	for (size_t i = 0; i < src->n; i++) {
		dst->v[i].name = strdup(src->v[i].name);
		dst->v[i].value = src->v[i].value ? strdup(src->v[i].value) : NULL;
		dst->n = i + 1;
		if (!dst->v[i].name || (src->v[i].value && !dst->v[i].value)) {
			mseval_env_release(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

struct ms_var *mseval_env_find(const struct ms_env *env, const char *name)
{
	for (size_t i = 0; i < env->n; i++)
		if (s2c_streq(env->v[i].name, name))
			return &env->v[i];
	return NULL;
}

/* Set @name to @value (NULL: unknown); takes @value. */
void mseval_env_set(struct ms_eval *e, struct ms_env *env, const char *name, char *value)
{
	struct ms_var *v = mseval_env_find(env, name);

	if (!v) {
		struct ms_var *nv = realloc(env->v, (env->n + 1) * sizeof(*nv));
		if (!nv) {
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
	free(v->value);
	v->value = value;
}

/* After two branches: what they agree on stays, the rest becomes unknown. */
void mseval_env_merge(struct ms_eval *e, struct ms_env *into, const struct ms_env *other)
{
	for (size_t i = 0; i < into->n; i++) {
		const struct ms_var *o = mseval_env_find(other, into->v[i].name);
		if (!o || !o->value || !into->v[i].value || !s2c_streq(o->value, into->v[i].value)) {
			free(into->v[i].value);
			into->v[i].value = NULL;
		}
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

void mseval_field_append(struct ms_eval *e, struct ms_field *f, const char *s, size_t n)
{
	char *b;

	if (f->len + n > MSEVAL_VALUE_MAX) {
		f->known = false;
		return;
	}
	b = realloc(f->s, f->len + n + 1);
	if (!b) {
		mseval_oom(e);
		return;
	}
	memcpy(b + f->len, s, n);
	f->len += n;
	b[f->len] = '\0';
	f->s = b;
}

bool mseval_action_same(const struct ms_action *a, const struct ms_action *b)
{
#define SAME(x) ((!a->x && !b->x) || (a->x && b->x && s2c_streq(a->x, b->x)))
	return a->kind == b->kind && a->line == b->line && a->conditional == b->conditional &&
	       a->recursive == b->recursive && SAME(path) && SAME(mode) && SAME(owner) &&
	       SAME(group) && SAME(caps);
#undef SAME
}
