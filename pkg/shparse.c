/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recursive descent over the POSIX sh grammar, reading characters directly:
 * words need context (quotes, substitutions) that a separate tokenizer would
 * have to duplicate.  Every function returns 0 or -errno; the first error
 * sticks in p->err with its line number.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shparse.h"
#include "common.h"

#define HEREDOCS_MAX 16

struct heredoc {
	char *delim;
	bool strip_tabs;
};

struct buffers {
	char **v;               /* backquote texts, owned by the script */
	size_t n;
};

struct parser {
	const char *s;
	size_t len, pos;
	unsigned line;
	unsigned depth;
	size_t *nodes;          /* shared with nested parsers of backquotes */
	struct buffers *bufs;
	struct heredoc here[HEREDOCS_MAX];
	size_t n_here;
	struct s2c_error *err;
};

static void node_free(struct sh_node *n);

static void word_release(struct sh_word *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct sh_part *p = &w->parts[i];
		free(p->text);
		if (p->arg) {
			word_release(p->arg);
			free(p->arg);
		}
		node_free(p->sub);
	}
	free(w->parts);
	*w = (struct sh_word){ 0 };
}

static void node_free(struct sh_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_kids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	for (size_t i = 0; i < n->n_assigns; i++) {
		free(n->assigns[i].name);
		word_release(&n->assigns[i].value);
	}
	free(n->assigns);
	for (size_t i = 0; i < n->n_words; i++)
		word_release(&n->words[i]);
	free(n->words);
	free(n->name);
	if (n->word) {
		word_release(n->word);
		free(n->word);
	}
	for (size_t i = 0; i < n->n_arms; i++) {
		for (size_t j = 0; j < n->arms[i].n_patterns; j++)
			word_release(&n->arms[i].patterns[j]);
		free(n->arms[i].patterns);
		node_free(n->arms[i].body);
	}
	free(n->arms);
	free(n);
}

struct sh_script *sh_script_free(struct sh_script *s)
{
	if (!s)
		return NULL;
	node_free(s->root);
	for (size_t i = 0; i < s->n_bufs; i++)
		free(s->bufs[i]);
	free(s->bufs);
	free(s->text);
	free(s);
	return NULL;
}

static void sh_script_freep(struct sh_script **s)
{
	sh_script_free(*s);
}

static int fail(struct parser *p, const char *fmt, ...) S2C_PRINTF(2, 3);
static int fail(struct parser *p, const char *fmt, ...)
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

static int count_node(struct parser *p)
{
	if (++*p->nodes > SHPARSE_NODES_MAX)
		return fail(p, "more than %d syntax nodes", SHPARSE_NODES_MAX);
	return 0;
}

static int enter(struct parser *p)
{
	if (++p->depth > SHPARSE_DEPTH_MAX)
		return fail(p, "nested more than %d deep", SHPARSE_DEPTH_MAX);
	return 0;
}

/* --- characters ----------------------------------------------------------------------------- */

static int peekc(const struct parser *p, size_t ahead)
{
	return p->pos + ahead < p->len ? (unsigned char)p->s[p->pos + ahead] : -1;
}

static void advance(struct parser *p, size_t n)
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
static bool is_meta(int c)
{
	return c < 0 || c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
	       c == '(' || c == ')' || c == '<' || c == '>';
}

/* Skip blanks, line continuations and a comment (up to, not over, the newline). */
static void skip_blank(struct parser *p)
{
	for (;;) {
		int c = peekc(p, 0);
		if (is_blank(c) || c == '\r') {
			advance(p, 1);
		} else if (c == '\\' && peekc(p, 1) == '\n') {
			advance(p, 2);
		} else if (c == '#') {
			while (peekc(p, 0) >= 0 && peekc(p, 0) != '\n')
				advance(p, 1);
		} else {
			return;
		}
	}
}

/* Skip the bodies of pending here-documents after a newline was consumed. */
static int skip_heredocs(struct parser *p)
{
	for (size_t i = 0; i < p->n_here; i++) {
		struct heredoc *h = &p->here[i];
		size_t dl = strlen(h->delim);
		bool found = false;

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
		}
		if (!found)
			return fail(p, "here-document without its end '%s'", h->delim);
	}
	for (size_t i = 0; i < p->n_here; i++)
		free(p->here[i].delim);
	p->n_here = 0;
	return 0;
}

/* Consume newlines (and blanks, comments, here-document bodies). */
static int skip_newlines(struct parser *p)
{
	for (;;) {
		skip_blank(p);
		if (peekc(p, 0) != '\n')
			return 0;
		advance(p, 1);
		if (p->n_here) {
			int r = skip_heredocs(p);
			if (r < 0)
				return r;
		}
	}
}

/* The operator at the current position ("" when none). */
static const char *peek_op(const struct parser *p)
{
	static const char *const ops[] = { ";;", ";&", "&&", "||", "<<-", "<<", "<&", "<>", ">>",
					   ">&", ">|", ";", "&", "|", "(", ")", "<", ">" };

	for (size_t i = 0; i < S2C_ELEMENTSOF(ops); i++) {
		size_t n = strlen(ops[i]);
		if (p->pos + n <= p->len && memcmp(p->s + p->pos, ops[i], n) == 0)
			return ops[i];
	}
	return "";
}

static bool at_op(const struct parser *p, const char *op)
{
	return s2c_streq(peek_op(p), op);
}

/* Whether the text at the current position is the reserved word @w as a whole word. */
static bool at_word(const struct parser *p, const char *w)
{
	size_t n = strlen(w);

	return p->pos + n <= p->len && memcmp(p->s + p->pos, w, n) == 0 &&
	       (is_meta(peekc(p, n)) || (n == 1 && (w[0] == '{' || w[0] == '}')));
}

/* --- words ---------------------------------------------------------------------------------- */

static int word_add(struct parser *p, struct sh_word *w, struct sh_part **ret)
{
	struct sh_part *v;

	if (count_node(p) < 0)
		return -EINVAL;
	v = realloc(w->parts, (w->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	w->parts = v;
	v[w->n] = (struct sh_part){ 0 };
	*ret = &v[w->n++];
	return 0;
}

/* Append byte @c to a literal part of quotedness @quoted (a new one if needed). */
static int lit_add(struct parser *p, struct sh_word *w, int c, bool quoted)
{
	struct sh_part *last = w->n ? &w->parts[w->n - 1] : NULL;
	size_t len;
	char *t;
	int r;

	if (c == 0)
		return fail(p, "a NUL byte");
	if (!last || last->kind != SH_PART_LIT || last->quoted != quoted) {
		r = word_add(p, w, &last);
		if (r < 0)
			return r;
		last->kind = SH_PART_LIT;
		last->quoted = quoted;
	}
	len = last->text ? strlen(last->text) : 0;
	t = realloc(last->text, len + 2);
	if (!t)
		return -ENOMEM;
	t[len] = (char)c;
	t[len + 1] = '\0';
	last->text = t;
	return 0;
}

static int parse_list(struct parser *p, struct sh_node **ret);
static int parse_word(struct parser *p, struct sh_word *w, int end);

/* $((…)): skip to the matching "))", counting parentheses. */
static int parse_arith(struct parser *p, struct sh_word *w, bool quoted)
{
	struct sh_part *part;
	int depth = 0, r;

	advance(p, 3);
	for (;;) {
		int c = peekc(p, 0);
		if (c < 0)
			return fail(p, "unterminated $((");
		if (c == '(')
			depth++;
		if (c == ')') {
			if (depth == 0 && peekc(p, 1) == ')') {
				advance(p, 2);
				break;
			}
			depth--;
		}
		advance(p, 1);
	}
	r = word_add(p, w, &part);
	if (r < 0)
		return r;
	part->kind = SH_PART_ARITH;
	part->quoted = quoted;
	return 0;
}

/* $(…): a command list up to the matching ")". */
static int parse_cmdsub(struct parser *p, struct sh_word *w, bool quoted)
{
	struct sh_part *part;
	struct sh_node *sub = NULL;
	int r;

	advance(p, 2);
	r = enter(p);
	if (r < 0)
		return r;
	r = parse_list(p, &sub);
	p->depth--;
	if (r < 0)
		return r;
	r = skip_newlines(p);
	if (r == 0 && !at_op(p, ")"))
		r = fail(p, "unterminated $(");
	if (r < 0) {
		node_free(sub);
		return r;
	}
	advance(p, 1);
	r = word_add(p, w, &part);
	if (r < 0) {
		node_free(sub);
		return r;
	}
	part->kind = SH_PART_CMDSUB;
	part->quoted = quoted;
	part->sub = sub;
	return 0;
}

/* `…`: unescape \` \\ \$ (and \" inside double quotes), then parse the text on its own. */
static int parse_backquote(struct parser *p, struct sh_word *w, bool quoted)
{
	_cleanup_free_ char *text = malloc(p->len - p->pos + 1);
	struct parser sub;
	struct sh_part *part;
	struct sh_node *list = NULL;
	size_t n = 0;
	unsigned line = p->line;
	char **v;
	int r;

	if (!text)
		return -ENOMEM;
	advance(p, 1);
	for (;;) {
		int c = peekc(p, 0);
		if (c < 0)
			return fail(p, "unterminated `");
		if (c == '`') {
			advance(p, 1);
			break;
		}
		if (c == '\\' && (peekc(p, 1) == '`' || peekc(p, 1) == '\\' || peekc(p, 1) == '$' ||
				  (quoted && peekc(p, 1) == '"'))) {
			advance(p, 1);
			c = peekc(p, 0);
		}
		text[n++] = (char)c;
		advance(p, 1);
	}
	text[n] = '\0';
	v = realloc(p->bufs->v, (p->bufs->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->bufs->v = v;
	v[p->bufs->n++] = text;
	sub = (struct parser){ .s = text, .len = n, .line = line, .depth = p->depth + 1,
			       .nodes = p->nodes, .bufs = p->bufs, .err = p->err };
	TAKE_PTR(text);
	if (sub.depth > SHPARSE_DEPTH_MAX)
		return fail(p, "nested more than %d deep", SHPARSE_DEPTH_MAX);
	r = parse_list(&sub, &list);
	if (r == 0)
		r = skip_newlines(&sub);
	if (r == 0 && sub.pos < sub.len)
		r = fail(&sub, "unexpected '%c' in `…`", sub.s[sub.pos]);
	for (size_t i = 0; i < sub.n_here; i++)
		free(sub.here[i].delim);
	if (r < 0) {
		node_free(list);
		return r;
	}
	r = word_add(p, w, &part);
	if (r < 0) {
		node_free(list);
		return r;
	}
	part->kind = SH_PART_CMDSUB;
	part->quoted = quoted;
	part->sub = list;
	return 0;
}

static bool is_name_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static int param_name(struct parser *p, char **ret)
{
	size_t start = p->pos;
	int c = peekc(p, 0);

	if (is_name_start(c)) {
		while (is_name_char(peekc(p, 0)))
			advance(p, 1);
	} else if (c >= '0' && c <= '9') {
		advance(p, 1);
		/* Inside ${…} several digits form one number. */
	} else if (c >= 0 && strchr("@*#?-$!", c)) {
		advance(p, 1);
	} else {
		return fail(p, "bad parameter name");
	}
	*ret = strndup(p->s + start, p->pos - start);
	return *ret ? 0 : -ENOMEM;
}

/* ${…} */
static int parse_brace(struct parser *p, struct sh_word *w, bool quoted)
{
	static const char *const ops[] = { ":-", ":=", ":+", ":?", "##", "%%", "-", "=", "+", "?",
					   "#", "%" };
	struct sh_part *part;
	_cleanup_free_ char *name = NULL;
	bool length = false;
	int r;

	advance(p, 2);
	if (peekc(p, 0) == '#' && peekc(p, 1) != '}') {
		length = true;
		advance(p, 1);
	}
	if (peekc(p, 0) >= '0' && peekc(p, 0) <= '9') {
		size_t start = p->pos;
		while (peekc(p, 0) >= '0' && peekc(p, 0) <= '9')
			advance(p, 1);
		name = strndup(p->s + start, p->pos - start);
		if (!name)
			return -ENOMEM;
	} else {
		r = param_name(p, &name);
		if (r < 0)
			return r;
	}
	r = word_add(p, w, &part);
	if (r < 0)
		return r;
	part->kind = SH_PART_PARAM;
	part->quoted = quoted;
	part->text = TAKE_PTR(name);
	if (length)
		memcpy(part->op, "L", 2);
	if (peekc(p, 0) == '}') {
		advance(p, 1);
		return 0;
	}
	if (length)
		return fail(p, "bad ${#…}");
	for (size_t i = 0; i < S2C_ELEMENTSOF(ops); i++) {
		size_t n = strlen(ops[i]);
		if (p->pos + n <= p->len && memcmp(p->s + p->pos, ops[i], n) == 0) {
			struct sh_word *arg = calloc(1, sizeof(*arg));
			if (!arg)
				return -ENOMEM;
			memcpy(part->op, ops[i], n + 1);
			part->arg = arg;
			advance(p, n);
			r = parse_word(p, arg, '}');
			if (r < 0)
				return r;
			if (peekc(p, 0) != '}')
				return fail(p, "unterminated ${");
			advance(p, 1);
			return 0;
		}
	}
	return fail(p, "unsupported ${…} form");
}

/* A "$" at the current position. */
static int parse_dollar(struct parser *p, struct sh_word *w, bool quoted)
{
	struct sh_part *part;
	int c = peekc(p, 1), r;

	if (c == '{')
		return parse_brace(p, w, quoted);
	if (c == '(' && peekc(p, 2) == '(')
		return parse_arith(p, w, quoted);
	if (c == '(')
		return parse_cmdsub(p, w, quoted);
	if (is_name_start(c) || (c >= '0' && c <= '9') || (c >= 0 && strchr("@*#?-$!", c))) {
		advance(p, 1);
		r = word_add(p, w, &part);
		if (r < 0)
			return r;
		part->kind = SH_PART_PARAM;
		part->quoted = quoted;
		return param_name(p, &part->text);
	}
	advance(p, 1);
	return lit_add(p, w, '$', quoted);
}

static int parse_dquote(struct parser *p, struct sh_word *w)
{
	int r;

	advance(p, 1);
	for (;;) {
		int c = peekc(p, 0);
		if (c < 0)
			return fail(p, "unterminated double quote");
		if (c == '"') {
			advance(p, 1);
			return 0;
		}
		if (c == '\\' && peekc(p, 1) >= 0 && strchr("$`\"\\\n", peekc(p, 1))) {
			int e = peekc(p, 1);
			advance(p, 2);
			if (e == '\n')
				continue;
			r = lit_add(p, w, e, true);
		} else if (c == '$') {
			r = parse_dollar(p, w, true);
		} else if (c == '`') {
			r = parse_backquote(p, w, true);
		} else {
			advance(p, 1);
			r = lit_add(p, w, c, true);
		}
		if (r < 0)
			return r;
	}
}

/*
 * A word up to an unquoted metacharacter; with @end ('}'), up to that
 * character instead (the argument of ${x:-word}, where blanks are part of it).
 */
static int parse_word(struct parser *p, struct sh_word *w, int end)
{
	int r;

	w->line = p->line;
	r = enter(p);
	if (r < 0)
		return r;
	for (;;) {
		int c = peekc(p, 0);
		if (end ? (c == end || c < 0) : is_meta(c))
			break;
		if (c == '\\') {
			if (peekc(p, 1) == '\n') {
				advance(p, 2);
				continue;
			}
			if (peekc(p, 1) < 0)
				return fail(p, "backslash at the end of the input");
			advance(p, 1);
			r = lit_add(p, w, peekc(p, 0), true);
			advance(p, 1);
		} else if (c == '\'') {
			advance(p, 1);
			while (peekc(p, 0) != '\'') {
				if (peekc(p, 0) < 0)
					return fail(p, "unterminated single quote");
				r = lit_add(p, w, peekc(p, 0), true);
				if (r < 0)
					return r;
				advance(p, 1);
			}
			advance(p, 1);
			if (w->n == 0 || w->parts[w->n - 1].kind != SH_PART_LIT ||
			    !w->parts[w->n - 1].quoted) {
				/* '' is an empty quoted word, not nothing. */
				struct sh_part *part;
				r = word_add(p, w, &part);
				if (r == 0) {
					part->kind = SH_PART_LIT;
					part->quoted = true;
					part->text = strdup("");
					r = part->text ? 0 : -ENOMEM;
				}
			}
		} else if (c == '"') {
			size_t before = w->n;
			r = parse_dquote(p, w);
			if (r == 0 && w->n == before) {
				struct sh_part *part;
				r = word_add(p, w, &part);
				if (r == 0) {
					part->kind = SH_PART_LIT;
					part->quoted = true;
					part->text = strdup("");
					r = part->text ? 0 : -ENOMEM;
				}
			}
		} else if (c == '$') {
			r = parse_dollar(p, w, false);
		} else if (c == '`') {
			r = parse_backquote(p, w, false);
		} else {
			advance(p, 1);
			r = lit_add(p, w, c, false);
		}
		if (r < 0)
			return r;
	}
	p->depth--;
	return 0;
}

/* The word's text when it is one unquoted literal, else NULL. */
static const char *plain(const struct sh_word *w)
{
	return w->n == 1 && w->parts[0].kind == SH_PART_LIT && !w->parts[0].quoted ?
		w->parts[0].text : NULL;
}

/* --- commands ------------------------------------------------------------------------------- */

static int node_new(struct parser *p, enum sh_kind kind, struct sh_node **ret)
{
	struct sh_node *n;

	if (count_node(p) < 0)
		return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->kind = kind;
	n->line = n->line_end = p->line;
	*ret = n;
	return 0;
}

static int kid_add(struct sh_node *n, struct sh_node *kid)
{
	struct sh_node **v = realloc(n->kids, (n->n_kids + 1) * sizeof(*v));

	if (!v) {
		node_free(kid);
		return -ENOMEM;
	}
	n->kids = v;
	v[n->n_kids++] = kid;
	return 0;
}

static int words_add(struct sh_word **v, size_t *n, struct sh_word *w)
{
	struct sh_word *nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv) {
		word_release(w);
		return -ENOMEM;
	}
	*v = nv;
	nv[(*n)++] = *w;
	*w = (struct sh_word){ 0 };
	return 0;
}

/* One redirection at the current position (the operator is next). */
static int parse_redirect(struct parser *p)
{
	const char *op = peek_op(p);
	bool heredoc = s2c_streq(op, "<<") || s2c_streq(op, "<<-");
	struct sh_word target = { 0 };
	int r;

	advance(p, strlen(op));
	skip_blank(p);
	r = parse_word(p, &target, 0);
	if (r == 0 && target.n == 0)
		r = fail(p, "redirection without a target");
	if (r == 0 && heredoc) {
		/* The delimiter is the word with its quotes removed. */
		size_t len = 0;
		char *d;
		if (p->n_here == HEREDOCS_MAX)
			r = fail(p, "more than %d here-documents on a line", HEREDOCS_MAX);
		for (size_t i = 0; r == 0 && i < target.n; i++)
			len += target.parts[i].text ? strlen(target.parts[i].text) : 1;
		d = r == 0 ? calloc(1, len + 1) : NULL;
		if (r == 0 && !d)
			r = -ENOMEM;
		for (size_t i = 0; r == 0 && i < target.n; i++) {
			const struct sh_part *pt = &target.parts[i];
			size_t l = strlen(d);
			if (pt->kind == SH_PART_LIT)
				memcpy(d + l, pt->text, strlen(pt->text) + 1);
			else if (pt->kind == SH_PART_PARAM)
				r = fail(p, "here-document delimiter with an expansion");
		}
		if (r == 0) {
			p->here[p->n_here].delim = d;
			p->here[p->n_here++].strip_tabs = s2c_streq(op, "<<-");
		} else {
			free(d);
		}
	}
	word_release(&target);
	return r;
}

static bool is_redirect(const char *op)
{
	return op[0] == '<' || op[0] == '>';
}

/* Redirections after a compound command ("done < file", "} >/dev/null 2>&1"). */
static int skip_redirects(struct parser *p)
{
	for (;;) {
		size_t save = p->pos;
		unsigned line = p->line;
		skip_blank(p);
		while (peekc(p, 0) >= '0' && peekc(p, 0) <= '9')
			advance(p, 1);
		if (!is_redirect(peek_op(p))) {
			p->pos = save;
			p->line = line;
			return 0;
		}
		int r = parse_redirect(p);
		if (r < 0)
			return r;
	}
}

static int parse_compound(struct parser *p, struct sh_node **ret);
static int parse_pipeline(struct parser *p, struct sh_node **ret);

/* "name=value" when @w starts with an unquoted name and '='. */
static int as_assignment(struct sh_word *w, struct sh_assign *ret)
{
	const struct sh_part *first = w->n ? &w->parts[0] : NULL;
	const char *eq;
	struct sh_word value = { .line = w->line };

	if (!first || first->kind != SH_PART_LIT || first->quoted || !is_name_start(first->text[0]))
		return 0;
	eq = strchr(first->text, '=');
	if (!eq)
		return 0;
	for (const char *c = first->text; c < eq; c++)
		if (!is_name_char(*c))
			return 0;
	ret->name = strndup(first->text, (size_t)(eq - first->text));
	if (!ret->name)
		return -ENOMEM;
	/* The value: the rest of the first part, then the other parts. */
	value.parts = calloc(w->n, sizeof(*value.parts));
	if (!value.parts) {
		free(ret->name);
		return -ENOMEM;
	}
	if (eq[1]) {
		value.parts[0] = (struct sh_part){ .kind = SH_PART_LIT };
		value.parts[0].text = strdup(eq + 1);
		if (!value.parts[0].text) {
			free(value.parts);
			free(ret->name);
			return -ENOMEM;
		}
		value.n = 1;
	}
	for (size_t i = 1; i < w->n; i++)
		value.parts[value.n++] = w->parts[i];
	free(w->parts[0].text);
	free(w->parts);
	*w = (struct sh_word){ 0 };
	ret->value = value;
	return 1;
}

static int parse_simple(struct parser *p, struct sh_node **ret)
{
	struct sh_node *n = NULL;
	size_t start;
	int r = node_new(p, SH_SIMPLE, &n);

	if (r < 0)
		return r;
	skip_blank(p);
	start = p->pos;
	n->src = p->s + start;
	for (;;) {
		struct sh_word w = { 0 };
		const char *op;
		size_t save;

		skip_blank(p);
		op = peek_op(p);
		if (is_redirect(op)) {
			r = parse_redirect(p);
			if (r < 0)
				break;
			continue;
		}
		if (*op || peekc(p, 0) < 0 || peekc(p, 0) == '\n')
			break;
		save = p->pos;
		/* An io number: digits right before a redirection. */
		while (peekc(p, 0) >= '0' && peekc(p, 0) <= '9')
			advance(p, 1);
		if (p->pos > save && is_redirect(peek_op(p)))
			continue;
		p->pos = save;
		n->src_len = p->pos - start;
		r = parse_word(p, &w, 0);
		if (r < 0) {
			word_release(&w);
			break;
		}
		n->src_len = p->pos - start;
		n->line_end = p->line;
		if (n->n_words == 0) {
			struct sh_assign a = { 0 };
			r = as_assignment(&w, &a);
			if (r < 0) {
				word_release(&w);
				break;
			}
			if (r > 0) {
				struct sh_assign *v = realloc(n->assigns,
							      (n->n_assigns + 1) * sizeof(*v));
				if (!v) {
					free(a.name);
					word_release(&a.value);
					r = -ENOMEM;
					break;
				}
				n->assigns = v;
				v[n->n_assigns++] = a;
				continue;
			}
		}
		r = words_add(&n->words, &n->n_words, &w);
		if (r < 0)
			break;
		/* "name ( )" starts a function definition. */
		if (n->n_words == 1 && n->n_assigns == 0 && plain(&n->words[0])) {
			size_t s2 = p->pos;
			unsigned l2 = p->line;
			skip_blank(p);
			if (at_op(p, "(")) {
				advance(p, 1);
				skip_blank(p);
				if (!at_op(p, ")")) {
					r = fail(p, "expected ')' in a function definition");
					break;
				}
				advance(p, 1);
				n->kind = SH_FUNC;
				n->name = strdup(plain(&n->words[0]));
				if (!n->name) {
					r = -ENOMEM;
					break;
				}
				r = skip_newlines(p);
				if (r == 0) {
					struct sh_node *body = NULL;
					r = parse_compound(p, &body);
					if (r == 0)
						r = kid_add(n, body);
				}
				if (r < 0)
					break;
				*ret = n;
				return 0;
			}
			p->pos = s2;
			p->line = l2;
		}
	}
	if (r < 0) {
		node_free(n);
		return r;
	}
	*ret = n;
	return 0;
}

static bool at_end_word(const struct parser *p)
{
	static const char *const ends[] = { "then", "else", "elif", "fi", "do", "done", "esac", "}" };

	for (size_t i = 0; i < S2C_ELEMENTSOF(ends); i++)
		if (at_word(p, ends[i]))
			return true;
	return false;
}

/* A compound list: and-or lists separated by ";", "&" or newlines, up to a closing word. */
static int parse_list(struct parser *p, struct sh_node **ret)
{
	struct sh_node *list = NULL;
	int r = node_new(p, SH_LIST, &list);

	if (r < 0)
		return r;
	for (;;) {
		struct sh_node *item = NULL;

		r = skip_newlines(p);
		if (r < 0)
			break;
		if (peekc(p, 0) < 0 || at_op(p, ")") || at_op(p, ";;") || at_op(p, ";&") ||
		    at_end_word(p))
			break;
		r = parse_pipeline(p, &item);
		for (;;) {
			if (r < 0)
				break;
			skip_blank(p);
			if (at_op(p, "&&") || at_op(p, "||")) {
				struct sh_node *andor = NULL, *right = NULL;
				bool is_and = at_op(p, "&&");
				advance(p, 2);
				r = skip_newlines(p);
				if (r == 0)
					r = parse_pipeline(p, &right);
				if (r == 0)
					r = node_new(p, is_and ? SH_AND : SH_OR, &andor);
				if (r == 0)
					r = kid_add(andor, item);
				else
					node_free(item);
				item = NULL;
				if (r == 0)
					r = kid_add(andor, right);
				else
					node_free(right);
				item = andor;
				continue;
			}
			break;
		}
		if (r < 0) {
			node_free(item);
			break;
		}
		r = kid_add(list, item);
		if (r < 0)
			break;
		list->line_end = p->line;
		skip_blank(p);
		if (at_op(p, ";") || at_op(p, "&")) {
			advance(p, 1);
			continue;
		}
		if (peekc(p, 0) == '\n')
			continue;
		break;
	}
	if (r < 0) {
		node_free(list);
		return r;
	}
	*ret = list;
	return 0;
}

static int expect_word(struct parser *p, const char *w)
{
	int r = skip_newlines(p);

	if (r < 0)
		return r;
	if (!at_word(p, w))
		return fail(p, "expected '%s'", w);
	advance(p, strlen(w));
	return 0;
}

/* if … then … [elif … then …] [else …] fi; the caller consumed "if" or "elif". */
static int parse_if(struct parser *p, struct sh_node **ret)
{
	struct sh_node *n = NULL, *cond = NULL, *then = NULL, *els = NULL;
	int r = node_new(p, SH_IF, &n);

	if (r == 0)
		r = parse_list(p, &cond);
	if (r == 0)
		r = kid_add(n, TAKE_PTR(cond));
	if (r == 0)
		r = expect_word(p, "then");
	if (r == 0)
		r = parse_list(p, &then);
	if (r == 0)
		r = kid_add(n, TAKE_PTR(then));
	if (r == 0)
		r = skip_newlines(p);
	if (r == 0 && at_word(p, "elif")) {
		advance(p, 4);
		r = parse_if(p, &els);
		if (r == 0)
			r = kid_add(n, TAKE_PTR(els));
		if (r == 0)
			n->line_end = p->line;
		if (r < 0)
			node_free(n);
		else
			*ret = n;
		return r;
	}
	if (r == 0 && at_word(p, "else")) {
		advance(p, 4);
		r = parse_list(p, &els);
		if (r == 0)
			r = kid_add(n, TAKE_PTR(els));
	} else if (r == 0) {
		r = kid_add(n, NULL);
	}
	if (r == 0)
		r = expect_word(p, "fi");
	node_free(cond);
	node_free(then);
	node_free(els);
	if (r < 0) {
		node_free(n);
		return r;
	}
	n->line_end = p->line;
	*ret = n;
	return 0;
}

static int parse_case(struct parser *p, struct sh_node **ret)
{
	struct sh_node *n = NULL;
	int r = node_new(p, SH_CASE, &n);

	if (r < 0)
		return r;
	skip_blank(p);
	n->word = calloc(1, sizeof(*n->word));
	if (!n->word)
		r = -ENOMEM;
	if (r == 0)
		r = parse_word(p, n->word, 0);
	if (r == 0 && n->word->n == 0)
		r = fail(p, "case without a word");
	if (r == 0)
		r = expect_word(p, "in");
	while (r == 0) {
		struct sh_arm arm = { 0 };
		struct sh_arm *v;

		r = skip_newlines(p);
		if (r < 0 || at_word(p, "esac"))
			break;
		if (at_op(p, "("))
			advance(p, 1);
		for (;;) {
			struct sh_word w = { 0 };
			skip_blank(p);
			r = parse_word(p, &w, 0);
			if (r == 0 && w.n == 0)
				r = fail(p, "case pattern expected");
			if (r == 0)
				r = words_add(&arm.patterns, &arm.n_patterns, &w);
			else
				word_release(&w);
			if (r < 0)
				break;
			skip_blank(p);
			if (at_op(p, "|")) {
				advance(p, 1);
				continue;
			}
			if (!at_op(p, ")"))
				r = fail(p, "expected ')' after a case pattern");
			break;
		}
		if (r == 0) {
			advance(p, 1);
			r = parse_list(p, &arm.body);
		}
		v = r == 0 ? realloc(n->arms, (n->n_arms + 1) * sizeof(*v)) : NULL;
		if (r == 0 && !v)
			r = -ENOMEM;
		if (r < 0) {
			for (size_t j = 0; j < arm.n_patterns; j++)
				word_release(&arm.patterns[j]);
			free(arm.patterns);
			node_free(arm.body);
			break;
		}
		n->arms = v;
		v[n->n_arms++] = arm;
		r = skip_newlines(p);
		if (r == 0 && (at_op(p, ";;") || at_op(p, ";&")))
			advance(p, 2);
		else if (r == 0 && !at_word(p, "esac"))
			r = fail(p, "expected ';;' or 'esac'");
	}
	if (r == 0)
		r = expect_word(p, "esac");
	if (r < 0) {
		node_free(n);
		return r;
	}
	n->line_end = p->line;
	*ret = n;
	return 0;
}

/* while/until LIST do LIST done */
static int parse_loop(struct parser *p, enum sh_kind kind, struct sh_node **ret)
{
	struct sh_node *n = NULL, *a = NULL, *b = NULL;
	int r = node_new(p, kind, &n);

	if (r == 0)
		r = parse_list(p, &a);
	if (r == 0)
		r = kid_add(n, TAKE_PTR(a));
	if (r == 0)
		r = expect_word(p, "do");
	if (r == 0)
		r = parse_list(p, &b);
	if (r == 0)
		r = kid_add(n, TAKE_PTR(b));
	if (r == 0)
		r = expect_word(p, "done");
	node_free(a);
	node_free(b);
	if (r < 0) {
		node_free(n);
		return r;
	}
	n->line_end = p->line;
	*ret = n;
	return 0;
}

static int parse_for(struct parser *p, struct sh_node **ret)
{
	struct sh_node *n = NULL, *body = NULL;
	struct sh_word name = { 0 };
	int r = node_new(p, SH_FOR, &n);

	if (r < 0)
		return r;
	skip_blank(p);
	r = parse_word(p, &name, 0);
	if (r == 0 && !plain(&name))
		r = fail(p, "bad for variable");
	if (r == 0 && !(n->name = strdup(plain(&name))))
		r = -ENOMEM;
	word_release(&name);
	if (r == 0)
		r = skip_newlines(p);
	if (r == 0 && at_word(p, "in")) {
		advance(p, 2);
		n->has_words = true;
		for (;;) {
			struct sh_word w = { 0 };
			skip_blank(p);
			if (at_op(p, ";") || peekc(p, 0) == '\n' || peekc(p, 0) < 0)
				break;
			r = parse_word(p, &w, 0);
			if (r == 0 && w.n == 0)
				r = fail(p, "unexpected '%c' in a for list", peekc(p, 0));
			if (r == 0)
				r = words_add(&n->words, &n->n_words, &w);
			else
				word_release(&w);
			if (r < 0)
				break;
		}
		if (r == 0 && at_op(p, ";"))
			advance(p, 1);
	} else if (r == 0 && at_op(p, ";")) {
		advance(p, 1);
	}
	if (r == 0)
		r = expect_word(p, "do");
	if (r == 0)
		r = parse_list(p, &body);
	if (r == 0)
		r = kid_add(n, TAKE_PTR(body));
	if (r == 0)
		r = expect_word(p, "done");
	node_free(body);
	if (r < 0) {
		node_free(n);
		return r;
	}
	n->line_end = p->line;
	*ret = n;
	return 0;
}

/* { … } or ( … ) */
static int parse_group(struct parser *p, enum sh_kind kind, struct sh_node **ret)
{
	struct sh_node *n = NULL, *body = NULL;
	int r = node_new(p, kind, &n);

	advance(p, 1);
	if (r == 0)
		r = parse_list(p, &body);
	if (r == 0)
		r = kid_add(n, TAKE_PTR(body));
	if (r == 0)
		r = skip_newlines(p);
	if (r == 0) {
		if (kind == SH_GROUP ? at_word(p, "}") : at_op(p, ")"))
			advance(p, 1);
		else
			r = fail(p, "expected '%s'", kind == SH_GROUP ? "}" : ")");
	}
	node_free(body);
	if (r < 0) {
		node_free(n);
		return r;
	}
	n->line_end = p->line;
	*ret = n;
	return 0;
}

/* bash: function name [()] compound */
static int parse_function_kw(struct parser *p, struct sh_node **ret)
{
	struct sh_node *n = NULL, *body = NULL;
	struct sh_word name = { 0 };
	int r = node_new(p, SH_FUNC, &n);

	if (r < 0)
		return r;
	skip_blank(p);
	r = parse_word(p, &name, 0);
	if (r == 0 && !plain(&name))
		r = fail(p, "bad function name");
	if (r == 0 && !(n->name = strdup(plain(&name))))
		r = -ENOMEM;
	word_release(&name);
	skip_blank(p);
	if (r == 0 && at_op(p, "(")) {
		advance(p, 1);
		skip_blank(p);
		if (!at_op(p, ")"))
			r = fail(p, "expected ')'");
		else
			advance(p, 1);
	}
	if (r == 0)
		r = skip_newlines(p);
	if (r == 0)
		r = parse_compound(p, &body);
	if (r == 0)
		r = kid_add(n, TAKE_PTR(body));
	if (r < 0) {
		node_free(n);
		return r;
	}
	*ret = n;
	return 0;
}

/* A compound command (the body of a function, or a command starting with a reserved word). */
static int parse_compound(struct parser *p, struct sh_node **ret)
{
	int r = enter(p);

	if (r < 0)
		return r;
	skip_blank(p);
	if (at_word(p, "if")) {
		advance(p, 2);
		r = parse_if(p, ret);
	} else if (at_word(p, "case")) {
		advance(p, 4);
		r = parse_case(p, ret);
	} else if (at_word(p, "for")) {
		advance(p, 3);
		r = parse_for(p, ret);
	} else if (at_word(p, "while")) {
		advance(p, 5);
		r = parse_loop(p, SH_WHILE, ret);
	} else if (at_word(p, "until")) {
		advance(p, 5);
		r = parse_loop(p, SH_UNTIL, ret);
	} else if (at_word(p, "{")) {
		r = parse_group(p, SH_GROUP, ret);
	} else if (at_op(p, "(")) {
		r = parse_group(p, SH_SUBSHELL, ret);
	} else {
		r = fail(p, "expected a compound command");
	}
	if (r == 0)
		r = skip_redirects(p);
	p->depth--;
	return r;
}

static int parse_command(struct parser *p, struct sh_node **ret)
{
	skip_blank(p);
	if (at_word(p, "if") || at_word(p, "case") || at_word(p, "for") || at_word(p, "while") ||
	    at_word(p, "until") || at_word(p, "{") || at_op(p, "("))
		return parse_compound(p, ret);
	if (at_word(p, "function")) {
		advance(p, 8);
		return parse_function_kw(p, ret);
	}
	if (at_end_word(p) || at_word(p, "in"))
		return fail(p, "unexpected '%.*s'", (int)strcspn(p->s + p->pos, " \t\n;"),
			    p->s + p->pos);
	if (*peek_op(p) && !is_redirect(peek_op(p)))
		return fail(p, "unexpected '%s'", peek_op(p));
	return parse_simple(p, ret);
}

static int parse_pipeline(struct parser *p, struct sh_node **ret)
{
	struct sh_node *pipe = NULL;
	int r = node_new(p, SH_PIPE, &pipe);

	if (r < 0)
		return r;
	skip_blank(p);
	if (at_word(p, "!")) {
		pipe->negated = true;
		advance(p, 1);
	}
	for (;;) {
		struct sh_node *cmd = NULL;
		r = parse_command(p, &cmd);
		if (r == 0)
			r = kid_add(pipe, cmd);
		if (r < 0)
			break;
		skip_blank(p);
		if (at_op(p, "|")) {
			advance(p, 1);
			r = skip_newlines(p);
			if (r < 0)
				break;
			continue;
		}
		break;
	}
	if (r < 0) {
		node_free(pipe);
		return r;
	}
	pipe->line_end = p->line;
	*ret = pipe;
	return 0;
}

int sh_parse(const char *text, size_t len, struct sh_script **ret, struct s2c_error *err)
{
	_cleanup_(sh_script_freep) struct sh_script *s = NULL;
	struct buffers bufs = { 0 };
	size_t nodes = 0;
	struct parser p;
	int r;

	if (len > SHPARSE_INPUT_MAX)
		return s2c_error_set(err, -EFBIG, "larger than %u bytes", SHPARSE_INPUT_MAX);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->text = malloc(len + 1);
	if (!s->text)
		return -ENOMEM;
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->len = len;
	p = (struct parser){ .s = s->text, .len = len, .line = 1, .nodes = &nodes, .bufs = &bufs,
			     .err = err };
	r = parse_list(&p, &s->root);
	if (r == 0)
		r = skip_newlines(&p);
	if (r == 0 && p.pos < p.len)
		r = fail(&p, "unexpected '%.*s'", (int)S2C_MIN(strcspn(p.s + p.pos, " \t\n"),
							      (size_t)20), p.s + p.pos);
	if (r == 0 && p.n_here)
		r = fail(&p, "here-document without its end");
	for (size_t i = 0; i < p.n_here; i++)
		free(p.here[i].delim);
	if (r < 0) {
		for (size_t i = 0; i < bufs.n; i++)
			free(bufs.v[i]);
		free(bufs.v);
		return r;
	}
	/* Backquote texts live as long as the script: nodes point into them. */
	s->bufs = bufs.v;
	s->n_bufs = bufs.n;
	*ret = TAKE_PTR(s);
	return 0;
}
