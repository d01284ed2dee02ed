/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The characters of the shell language, read straight off the text: errors
 * with their line, the depth and node budgets, blanks, comments, line
 * continuations, here-document bodies, operators and reserved words.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shlex.h"
#include "shparse.h"
#include "common.h"

int shlex_fail(struct shlex *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!s2c_error_isset(p->err))
		(void)s2c_error_set(p->err, -EINVAL, "line %u: %s", p->line, msg);
	return -EINVAL;
}

int shlex_count_node(struct shlex *p)
{
	if (++*p->nodes > SHPARSE_NODES_MAX)
		return shlex_fail(p, "more than %d syntax nodes", SHPARSE_NODES_MAX);
	return 0;
}

int shlex_enter(struct shlex *p)
{
	if (++p->depth > SHPARSE_DEPTH_MAX)
		return shlex_fail(p, "nested more than %d deep", SHPARSE_DEPTH_MAX);
	return 0;
}

/* --- characters ----------------------------------------------------------------------------- */

int shlex_peekc(const struct shlex *p, size_t ahead)
{
	return p->pos + ahead < p->len ? (unsigned char)p->s[p->pos + ahead] : -1;
}

void shlex_advance(struct shlex *p, size_t n)
{
	for (size_t i = 0; i < n && p->pos < p->len; i++)
		if (p->s[p->pos++] == '\n')
			p->line++;
}

static bool is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* Characters that end an unquoted word. */
bool shlex_is_meta(int c)
{
	return c < 0 || c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
	       c == '(' || c == ')' || c == '<' || c == '>';
}

/* Skip blanks, line continuations and a comment (up to, not over, the newline). */
void shlex_skip_blank(struct shlex *p)
{
	for (;;) {
		int c = shlex_peekc(p, 0);
		if (is_blank(c) || c == '\r') {
			shlex_advance(p, 1);
		} else if (c == '\\' && shlex_peekc(p, 1) == '\n') {
			shlex_advance(p, 2);
		} else if (c == '#') {
			while (shlex_peekc(p, 0) >= 0 && shlex_peekc(p, 0) != '\n')
				shlex_advance(p, 1);
		} else {
			return;
		}
	}
}

/* Skip the bodies of pending here-documents after a newline was consumed. */
static int skip_heredocs(struct shlex *p)
{
	for (size_t i = 0; i < p->n_here; i++) {
		struct shlex_heredoc *h = &p->here[i];
		size_t dl = strlen(h->delim);
		bool found = false, cmdsub = false;
		size_t body = p->pos, body_end = p->pos;

		while (p->pos < p->len) {
			size_t start = p->pos, end;
			while (p->pos < p->len && p->s[p->pos] != '\n')
				p->pos++;
			end = p->pos;
			if (p->pos < p->len) {
				p->pos++;
				p->line++;
			}
			if (h->strip_tabs)
				while (start < end && p->s[start] == '\t')
					start++;
			if (end - start == dl && memcmp(p->s + start, h->delim, dl) == 0) {
				found = true;
				break;
			}
			body_end = p->pos;
			/* An expanded body runs its command substitutions. */
			for (size_t k = start; h->expands && !cmdsub && k < end; k++)
				cmdsub = p->s[k] == '`' || (p->s[k] == '$' && k + 1 < end &&
							    p->s[k + 1] == '(');
		}
		if (cmdsub && h->node) {
			char **slot = &h->node->redirs[h->redir].heredoc;
			free(*slot);
			*slot = strndup(p->s + body, body_end - body);
			if (!*slot)
				return -ENOMEM;
		}
		if (!found)
			return shlex_fail(p, "here-document without its end '%s'", h->delim);
	}
	for (size_t i = 0; i < p->n_here; i++)
		free(p->here[i].delim);
	p->n_here = 0;
	return 0;
}

/* Consume newlines (and blanks, comments, here-document bodies). */
int shlex_skip_newlines(struct shlex *p)
{
	for (;;) {
		shlex_skip_blank(p);
		if (shlex_peekc(p, 0) != '\n')
			return 0;
		shlex_advance(p, 1);
		if (p->n_here) {
			int r = skip_heredocs(p);
			if (r < 0)
				return r;
		}
	}
}

/* The operator at the current position ("" when none). */
const char *shlex_peek_op(const struct shlex *p)
{
	static const char *const ops[] = { ";;", ";&", "&&", "||", "<<-", "<<", "<&", "<>", ">>",
					   ">&", ">|", ";", "&", "|", "(", ")", "<", ">" };
	int c = shlex_peekc(p, 0);

	/* Most positions start a word: no operator starts with anything else. */
	if (c <= 0 || !strchr(";&|()<>", c))
		return "";
	for (size_t i = 0; i < S2C_ELEMENTSOF(ops); i++) {
		size_t n = strlen(ops[i]);
		if (p->pos + n <= p->len && memcmp(p->s + p->pos, ops[i], n) == 0)
			return ops[i];
	}
	return "";
}

bool shlex_at_op(const struct shlex *p, const char *op)
{
	return s2c_streq(shlex_peek_op(p), op);
}

/* Whether the text at the current position is the reserved word @w as a whole word. */
bool shlex_at_word(const struct shlex *p, const char *w)
{
	size_t n;

	if (p->pos >= p->len || p->s[p->pos] != w[0])
		return false;  /* the common case, before measuring @w */
	n = strlen(w);
	return p->pos + n <= p->len && memcmp(p->s + p->pos, w, n) == 0 &&
	       (shlex_is_meta(shlex_peekc(p, n)) || (n == 1 && (w[0] == '{' || w[0] == '}')));
}

bool shlex_is_name_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool shlex_is_name_char(int c)
{
	return shlex_is_name_start(c) || (c >= '0' && c <= '9');
}

bool shlex_is_redirect(const char *op)
{
	return op[0] == '<' || op[0] == '>';
}
