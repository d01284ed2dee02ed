/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rpm's lua scriptlets (rpmscript.h): tokens, never evaluation.  A script is
 * either a plain list of literal calls this file models, or harmless (it
 * names nothing that reaches a file or a program), or not analysed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maintscript.h"
#include "rpmscript.h"
#include "util.h"
#include "common.h"

/* Most tokens read from one script; a longer one is not analysed. */
#define LUA_TOKENS_MAX 65536

enum tok_kind { TOK_NAME, TOK_STRING, TOK_NUMBER, TOK_PUNCT };

struct tok {
	enum tok_kind kind;
	const char *s;          /* NAME, PUNCT: in the text; STRING: the literal's content */
	size_t len;
	bool literal;           /* STRING: content with no escape to decode */
};

struct toks {
	struct tok *v;
	size_t n;
	const char *bad;        /* why the text was not tokenised, or NULL */
};

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

/* A long bracket "[==[" at @p: its level (number of '='), or -1. */
static int long_open(const char *p, const char *end)
{
	const char *q = p + 1;

	if (p >= end || *p != '[')
		return -1;
	while (q < end && *q == '=')
		q++;
	return q < end && *q == '[' ? (int)(q - p - 1) : -1;
}

/* The end of the long bracket of @level whose content starts at @p, or NULL. */
static const char *long_close(const char *p, const char *end, int level)
{
	for (; p < end; p++) {
		const char *q = p + 1;
		if (*p != ']')
			continue;
		while (q < end && *q == '=')
			q++;
		if (q < end && *q == ']' && q - p - 1 == level)
			return p;
	}
	return NULL;
}

static int push(struct toks *t, struct tok k)
{
	struct tok *v;

	if (t->n >= LUA_TOKENS_MAX) {
		t->bad = "more tokens than are read";
		return 0;
	}
	v = realloc(t->v, (t->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->v = v;
	v[t->n++] = k;
	return 0;
}

/* A quoted string at @p ('…' or "…"); sets *@next past it.  NULL when unterminated. */
static const char *quoted(const char *p, const char *end, bool *literal)
{
	char q = *p++;

	*literal = true;
	for (; p < end && *p != q; p++) {
		if (*p == '\n')
			return NULL;
		if (*p == '\\') {
			*literal = false;
			if (++p == end)
				return NULL;
		}
	}
	return p < end ? p : NULL;
}

/* One token at *@pp, appended to @t; comments and blanks are skipped. */
static int lex_one(struct toks *t, const char **pp, const char *end)
{
	static const char *const two[] = { "...", "..", "==", "~=", "<=", ">=", "//", "::", "<<",
					   ">>" };
	const char *p = *pp, *q;
	int level;

	if (strchr(" \t\r\n\f\v", *p)) {
		*pp = p + 1;
		return 0;
	}
	if (end - p >= 2 && p[0] == '-' && p[1] == '-') {
		level = long_open(p + 2, end);
		if (level >= 0) {
			q = long_close(p + 4 + level, end, level);
			*pp = q ? q + level + 2 : end;
			if (!q)
				t->bad = "an unterminated comment";
		} else {
			q = memchr(p, '\n', (size_t)(end - p));
			*pp = q ? q : end;
		}
		return 0;
	}
	if (name_char(*p, true)) {
		for (q = p; q < end && name_char(*q, false); q++)
			;
		*pp = q;
		return push(t, (struct tok){ TOK_NAME, p, (size_t)(q - p), false });
	}
	if (*p >= '0' && *p <= '9') {
		for (q = p; q < end && (name_char(*q, false) || *q == '.'); q++)
			;
		*pp = q;
		return push(t, (struct tok){ TOK_NUMBER, p, (size_t)(q - p), false });
	}
	if (*p == '\'' || *p == '"') {
		bool literal;
		q = quoted(p, end, &literal);
		if (!q) {
			t->bad = "an unterminated string";
			*pp = end;
			return 0;
		}
		*pp = q + 1;
		return push(t, (struct tok){ TOK_STRING, p + 1, (size_t)(q - p - 1), literal });
	}
	level = long_open(p, end);
	if (level >= 0) {
		const char *body = p + level + 2;
		/* A newline right after the opening bracket is not part of the string. */
		body += body < end && *body == '\n';
		q = long_close(body, end, level);
		if (!q) {
			t->bad = "an unterminated string";
			*pp = end;
			return 0;
		}
		*pp = q + level + 2;
		return push(t, (struct tok){ TOK_STRING, body, (size_t)(q - body), true });
	}
	for (size_t i = 0; i < S2C_ELEMENTSOF(two); i++)
		if ((size_t)(end - p) >= strlen(two[i]) && strncmp(p, two[i], strlen(two[i])) == 0) {
			*pp = p + strlen(two[i]);
			return push(t, (struct tok){ TOK_PUNCT, p, strlen(two[i]), false });
		}
	*pp = p + 1;
	return push(t, (struct tok){ TOK_PUNCT, p, 1, false });
}

static int lex(const char *text, size_t len, struct toks *t)
{
	const char *p = text, *end = text + len;
	int r = 0;

	/* A first line "#!…" is skipped by lua. */
	if (len > 0 && *p == '#')
		while (p < end && *p != '\n')
			p++;
	while (p < end && r == 0 && !t->bad)
		r = lex_one(t, &p, end);
	return r;
}

static bool tok_is(const struct tok *k, enum tok_kind kind, const char *s)
{
	return k->kind == kind && (!s || (k->len == strlen(s) && strncmp(k->s, s, k->len) == 0));
}

/*
 * Whether the name at token @i is a variable (global or local), not a field
 * ("t.os", "t:os") or a table key ("{ os = 1 }" still reads as a name: it
 * counts, which is the safe side).
 */
static bool is_variable(const struct toks *t, size_t i)
{
	return i == 0 || !(tok_is(&t->v[i - 1], TOK_PUNCT, ".") ||
			   tok_is(&t->v[i - 1], TOK_PUNCT, ":"));
}

/*
 * The first variable that can reach a file, a program or the global table:
 * the libraries os, io, posix, rpm, debug and package, the loaders, the
 * environment, and raw or metatable access.  NULL when there is none.
 */
static const struct tok *reaching_name(const struct toks *t)
{
	static const char *const names[] = {
		"os", "io", "posix", "rpm", "lfs", "debug", "package", "require", "module",
		"load", "loadfile", "loadstring", "dofile", "_G", "_ENV", "getfenv", "setfenv",
		"getmetatable", "setmetatable", "rawget", "rawset", "collectgarbage",
	};

	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].kind != TOK_NAME || !is_variable(t, i))
			continue;
		for (size_t j = 0; j < S2C_ELEMENTSOF(names); j++)
			if (tok_is(&t->v[i], TOK_NAME, names[j]))
				return &t->v[i];
	}
	return NULL;
}

/* --- the modelled calls --------------------------------------------------------------------- */

/* One call "LIB.FUNC(ARGS)" with literal string arguments: its tokens [@i, *@next). */
struct call {
	const struct tok *lib, *fn;
	const struct tok *args[8];
	size_t n_args;
};

static bool parse_call(const struct toks *t, size_t i, struct call *c, size_t *next)
{
	size_t k = i;

	*c = (struct call){ 0 };
	if (k + 3 > t->n || t->v[k].kind != TOK_NAME)
		return false;
	c->lib = &t->v[k++];
	if (tok_is(&t->v[k], TOK_PUNCT, ".")) {
		if (k + 2 > t->n || t->v[k + 1].kind != TOK_NAME)
			return false;
		c->fn = &t->v[k + 1];
		k += 2;
	}
	if (k >= t->n || !tok_is(&t->v[k++], TOK_PUNCT, "("))
		return false;
	while (k < t->n && !tok_is(&t->v[k], TOK_PUNCT, ")")) {
		if (c->n_args > 0 && !tok_is(&t->v[k++], TOK_PUNCT, ","))
			return false;
		if (k >= t->n || t->v[k].kind != TOK_STRING || !t->v[k].literal ||
		    c->n_args == S2C_ELEMENTSOF(c->args))
			return false;
		c->args[c->n_args++] = &t->v[k++];
	}
	if (k >= t->n)
		return false;
	k++;
	if (k < t->n && tok_is(&t->v[k], TOK_PUNCT, ";"))
		k++;
	*next = k;
	return true;
}

/* A literal fit for a shell word: no NUL, as lua would pass it. */
static int append_word(FILE *f, const struct tok *k)
{
	if (memchr(k->s, '\0', k->len))
		return -EINVAL;
	(void)fputc('\'', f);
	for (size_t i = 0; i < k->len; i++) {
		if (k->s[i] == '\'')
			(void)fputs("'\\''", f);
		else
			(void)fputc(k->s[i], f);
	}
	(void)fputc('\'', f);
	return 0;
}

/* rpm's posix.chmod takes an octal mode or a symbolic one with its "who". */
static bool plain_mode(const struct tok *k)
{
	size_t i = 0;

	if (k->len >= 3 && k->len <= 4 && strspn(k->s, "01234567") >= k->len)
		return true;
	while (i < k->len && strchr("ugoa", k->s[i]))
		i++;
	if (i == 0 || i == k->len)
		return false;
	for (; i < k->len; i++)
		if (!strchr("ugoa+-=rwxst,", k->s[i]))
			return false;
	return true;
}

/*
 * The shell command line equivalent to call @c, written to @f; -EINVAL when
 * @c is not one this file models.
 */
static int call_to_shell(const struct call *c, FILE *f)
{
	bool has_fn = c->fn != NULL;
	int r = 0;

	if (tok_is(c->lib, TOK_NAME, "print") && !has_fn)
		return 0;
	if (!has_fn)
		return -EINVAL;
	if (tok_is(c->lib, TOK_NAME, "posix") && tok_is(c->fn, TOK_NAME, "chmod") &&
	    c->n_args == 2 && plain_mode(c->args[1])) {
		(void)fputs("chmod ", f);
		r = append_word(f, c->args[1]);
	} else if (tok_is(c->lib, TOK_NAME, "posix") && tok_is(c->fn, TOK_NAME, "chown") &&
		   c->n_args == 3 && !memchr(c->args[1]->s, ':', c->args[1]->len)) {
		(void)fprintf(f, "chown '%.*s':", (int)c->args[1]->len, c->args[1]->s);
		r = memchr(c->args[1]->s, '\'', c->args[1]->len) ? -EINVAL :
		    append_word(f, c->args[2]);
	} else if (tok_is(c->lib, TOK_NAME, "os") && tok_is(c->fn, TOK_NAME, "execute") &&
		   c->n_args == 1) {
		/* os.execute runs its text with /bin/sh -c: the text is the script. */
		(void)fprintf(f, "%.*s\n", (int)c->args[0]->len, c->args[0]->s);
		return memchr(c->args[0]->s, '\0', c->args[0]->len) ? -EINVAL : 0;
	} else if (tok_is(c->lib, TOK_NAME, "rpm") && tok_is(c->fn, TOK_NAME, "execute") &&
		   c->n_args >= 1) {
		for (size_t i = 0; i < c->n_args && r == 0; i++) {
			r = append_word(f, c->args[i]);
			(void)fputc(' ', f);
		}
		(void)fputc('\n', f);
		return r;
	} else {
		return -EINVAL;
	}
	if (r == 0) {
		(void)fputc(' ', f);
		r = append_word(f, c->args[0]);
	}
	(void)fputc('\n', f);
	return r;
}

/*
 * A script that is only calls this file models, with literal arguments, as
 * the shell script doing the same: 0 with a new text in @ret, -EINVAL when
 * the script is anything else.
 */
static int as_shell(const struct toks *t, char **ret)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0, i = 0;
	FILE *f = open_memstream(&text, &len);
	int r = f ? 0 : -ENOMEM;

	while (r == 0 && i < t->n) {
		struct call c;
		r = parse_call(t, i, &c, &i) ? call_to_shell(&c, f) : -EINVAL;
	}
	if (f && fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r == 0)
		*ret = TAKE_PTR(text);
	return r;
}

static int lua_incomplete(struct ms_analysis *out, const char *name, const char *fmt,
			  const struct tok *k)
{
	_cleanup_free_ char *what = k ? strndup(k->s, k->len) : NULL;

	if (k && !what)
		return -ENOMEM;
	return strv_push(&out->incomplete, &out->n_incomplete,
			 strdup_printf("%s: a lua scriptlet %s%s%s; not analysed", name, fmt,
				       what ? what : "", what ? ")" : ""));
}

int rpmscript_lua(const char *name, const char *text, size_t len, const struct ms_context *ctx,
		  struct ms_analysis *out)
{
	struct toks t = { 0 };
	_cleanup_free_ char *sh = NULL;
	const struct tok *reach;
	int r = lex(text, len, &t);

	if (r < 0 || t.bad) {
		free(t.v);
		return r < 0 ? r : lua_incomplete(out, name, t.bad, NULL);
	}
	reach = reaching_name(&t);
	if (!reach) {
		free(t.v);
		return 0;               /* it can print and compute, nothing else */
	}
	r = as_shell(&t, &sh);
	if (r == -EINVAL)
		r = lua_incomplete(out, name, "that can reach files or programs (", reach);
	else if (r == 0)
		r = maintscript_analyse(name, sh, strlen(sh), ctx, out);
	free(t.v);
	return r;
}
