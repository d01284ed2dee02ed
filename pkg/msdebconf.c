/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debconf in the maintainer-script evaluator: the package's templates
 * (their types, defaults and choices), and db_get, db_set, db_reset as they
 * read and write the answers.  A fresh non-interactive installation answers
 * every question with its template's default; a db_get of a boolean or
 * select question is remembered, so that the reader can show what the other
 * answers would install (ms_context::answer_template).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mscommand.h"
#include "shparse.h"
#include "util.h"
#include "common.h"

void ms_templates_release(struct ms_templates *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].type);
		free(t->v[i].def);
		strv_free(t->v[i].choices);
	}
	free(t->v);
	*t = (struct ms_templates){ 0 };
}

const struct ms_template *ms_templates_find(const struct ms_templates *t, const char *name)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (s2c_streq(t->v[i].name, name))
			return &t->v[i];
	return NULL;
}

/* "a, b\, c" -> {"a", "b, c"}. */
static char **split_choices(const char *s)
{
	char **v = NULL;
	size_t n = 0;

	while (*s) {
		char *item = calloc(1, strlen(s) + 1);
		size_t k = 0;
		if (!item) {
			strv_freen(v, n);
			return NULL;
		}
		s += strspn(s, " \t");
		for (; *s && *s != ','; s++) {
			if (*s == '\\' && s[1] == ',')
				s++;
			item[k++] = *s;
		}
		while (k && (item[k - 1] == ' ' || item[k - 1] == '\t'))
			item[--k] = '\0';
		if (strv_push(&v, &n, item) < 0)
			return NULL;
		if (*s == ',')
			s++;
	}
	return v ? v : calloc(1, sizeof(char *));
}

/* One "Field: value" line of a paragraph into @t. */
static int template_field(struct ms_template *t, const char *line, size_t len)
{
	static const char *const fields[] = { "Template", "Type", "Default", "Choices" };
	const char *colon = memchr(line, ':', len);
	_cleanup_free_ char *value = NULL;
	size_t vlen;

	if (!colon)
		return 0;
	vlen = len - (size_t)(colon + 1 - line);
	value = strndup(colon + 1, vlen);
	if (!value)
		return -ENOMEM;
	{
		char *v = value + strspn(value, " \t"), *end = v + strlen(v);
		while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		memmove(value, v, strlen(v) + 1);
	}
	for (size_t i = 0; i < S2C_ELEMENTSOF(fields); i++) {
		if ((size_t)(colon - line) != strlen(fields[i]) ||
		    strncasecmp(line, fields[i], strlen(fields[i])) != 0)
			continue;
		if (i == 3) {
			strv_free(t->choices);
			return (t->choices = split_choices(value)) ? 0 : -ENOMEM;
		}
		char **slot = i == 0 ? &t->name : i == 1 ? &t->type : &t->def;
		free(*slot);
		*slot = TAKE_PTR(value);
	}
	return 0;
}

int ms_templates_parse(const char *text, size_t len, struct ms_templates *ret)
{
	struct ms_template cur = { 0 };
	const char *p = text, *end = text + len;
	int r = 0;

	ms_templates_release(ret);
	while (r == 0 && p <= end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		bool blank = strspn(p, " \t\r") >= l;

		if (!blank && p[0] != ' ' && p[0] != '\t' && p[0] != '#')
			r = template_field(&cur, p, l);
		if ((blank || !nl) && cur.name) {
			struct ms_template *v = realloc(ret->v, (ret->n + 1) * sizeof(*v));
			if (!v) {
				r = -ENOMEM;
				break;
			}
			ret->v = v;
			v[ret->n++] = cur;
			cur = (struct ms_template){ 0 };
		} else if (blank || !nl) {
			free(cur.type);
			free(cur.def);
			strv_free(cur.choices);
			cur = (struct ms_template){ 0 };
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	free(cur.name);
	free(cur.type);
	free(cur.def);
	strv_free(cur.choices);
	if (r < 0)
		ms_templates_release(ret);
	return r;
}

static char *answer_var(const char *template)
{
	return strdup_printf("%s%s", MSEVAL_DEBCONF_PREFIX, template);
}

/* db_get TEMPLATE: RET is the answer, else the default (the other one for an alternative). */
enum ms_st msdebconf_get(struct ms_eval *e, const struct ms_call *c)
{
	const struct ms_template *t;
	_cleanup_free_ char *var = NULL;
	const struct ms_var *v;
	char *ret = NULL;

	if (c->argc < 2 || !c->v[1].known) {
		mseval_env_set(e, &e->env, "RET", NULL);
		return MS_UNKNOWN;
	}
	var = answer_var(c->v[1].s);
	if (!var) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	t = ms_templates_find(e->ctx->templates, c->v[1].s);
	v = mseval_env_find(&e->env, var);
	if (t && t->type && (s2c_streq(t->type, "boolean") || s2c_streq(t->type, "select")))
		mseval_strset_add(e, &e->asked, &e->n_asked, t->name);
	if (v) {
		ret = v->value ? strdup(v->value) : NULL;
	} else if (t && e->ctx->answer_template && s2c_streq(e->ctx->answer_template, t->name)) {
		ret = strdup(e->ctx->answer_value);
	} else if (t) {
		ret = strdup(t->def ? t->def : "");
	} else {
		/* another package's question: not known */
		mseval_env_set(e, &e->env, "RET", NULL);
		return MS_UNKNOWN;
	}
	if ((v && v->value && !ret) || (!v && !ret)) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	mseval_env_set(e, &e->env, "RET", ret);
	return MS_TRUE;
}

/* db_set TEMPLATE VALUE */
enum ms_st msdebconf_set(struct ms_eval *e, const struct ms_call *c)
{
	_cleanup_free_ char *var = NULL, *value = NULL;

	if (c->argc < 2 || !c->v[1].known) {
		/* an answer to a question not known: any of the package's may change */
		for (size_t i = 0; e->ctx->templates && i < e->ctx->templates->n; i++) {
			_cleanup_free_ char *any = answer_var(e->ctx->templates->v[i].name);
			if (any)
				mseval_env_set(e, &e->env, any, NULL);
		}
		return MS_UNKNOWN;
	}
	var = answer_var(c->v[1].s);
	if (!var) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	if (c->argc >= 3) {
		/* db_set joins the rest of its arguments */
		size_t len = 0, at = 0;
		bool known = true;
		for (size_t i = 2; i < c->argc; i++) {
			len += c->v[i].len + 1;
			known = known && c->v[i].known;
		}
		value = known ? calloc(1, len + 1) : NULL;
		for (size_t i = 2; value && i < c->argc; i++) {
			if (i > 2)
				value[at++] = ' ';
			memcpy(value + at, c->v[i].s, c->v[i].len);
			at += c->v[i].len;
		}
		if (known && !value) {
			mseval_oom(e);
			return MS_UNKNOWN;
		}
	} else {
		value = strdup("");
	}
	mseval_env_set(e, &e->env, var, TAKE_PTR(value));
	return MS_TRUE;
}

/* db_reset TEMPLATE: back to the default; debconf-set-selections: any answer may change. */
enum ms_st msdebconf_reset(struct ms_eval *e, const struct ms_call *c)
{
	if (!s2c_streq(c->v[0].s, "db_reset") || c->argc < 2 || !c->v[1].known) {
		struct ms_call none = { .n = c->n, .v = c->v, .argc = 1 };
		return msdebconf_set(e, &none);
	}
	_cleanup_free_ char *var = answer_var(c->v[1].s);
	if (!var) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	mseval_env_unset(e, &e->env, var);
	return MS_TRUE;
}

/*
 * The debconf config that dictionaries-common-dev's installdeb-ispell and
 * installdeb-wordlist write for every ispell dictionary and word list (the same
 * in Debian 12 and 13): Perl that, where dictionaries-common is installed, loads
 * its dc-debconf-select.pl and calls dc_debconf_select() for the class.  That
 * helper (and the dc-debconf-default-value.pl it may load) reads debconf, the
 * locale and /var/cache/dictionaries-common, asks which dictionary is the
 * default (dictionaries-common/default-CLASS, a question of dictionaries-common)
 * and writes only the flag file /var/cache/dictionaries-common/flag-CLASS-new: no
 * mode, owner or capability changes, and no question of the package is set.
 *
 * The script is recognised as a whole: "#!/usr/bin/perl" (with -w or not), then
 * the template's words in order, however they are spaced.  No word differs, none
 * is added (not even a comment), so no other Perl can pass for it.
 */
static const char *const dictionary_config[] = {
	"use", "Debconf::Client::ConfModule", "q(:all);",
	"version", "('2.0');",
	"my", "$class", "=", NULL /* "CLASS"; */,
	"my", "$script", "=", "\"/usr/share/dictionaries-common/dc-debconf-select.pl\";",
	"if", "(", "-e", "$script", "){",
	"require", "$script;",
	"dc_debconf_select($class);",
	"}",
};

/* The next word of @text from *@pos (spaces, tabs and newlines between words), or false. */
static bool next_word(const char *text, size_t len, size_t *pos, const char **w, size_t *n)
{
	while (*pos < len && strchr(" \t\n", text[*pos]))
		(*pos)++;
	*w = text + *pos;
	while (*pos < len && !strchr(" \t\n", text[*pos]) && text[*pos] != '\0')
		(*pos)++;
	*n = (size_t)(text + *pos - *w);
	return *n > 0;
}

static bool word_is(const char *w, size_t n, const char *want)
{
	return n == strlen(want) && memcmp(w, want, n) == 0;
}

const char *msdebconf_dictionary_config(const char *text, size_t len)
{
	static const char *const classes[] = { "\"ispell\";", "\"wordlist\";" };
	const char *nl = memchr(text, '\n', len), *w, *class = NULL;
	size_t pos, n;

	if (!nl || (!word_is(text, (size_t)(nl - text), "#!/usr/bin/perl") &&
		    !word_is(text, (size_t)(nl - text), "#!/usr/bin/perl -w")))
		return NULL;
	pos = (size_t)(nl - text) + 1;
	for (size_t i = 0; i < S2C_ELEMENTSOF(dictionary_config); i++) {
		if (!next_word(text, len, &pos, &w, &n))
			return NULL;
		if (dictionary_config[i]) {
			if (!word_is(w, n, dictionary_config[i]))
				return NULL;
			continue;
		}
		for (size_t k = 0; k < S2C_ELEMENTSOF(classes); k++)
			if (word_is(w, n, classes[k]))
				class = k == 0 ? "ispell" : "wordlist";
		if (!class)
			return NULL;
	}
	return next_word(text, len, &pos, &w, &n) || pos < len ? NULL : class;
}
