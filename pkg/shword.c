/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shell words: literal text, quotes, escapes, parameter expansions, command
 * substitutions (parsed recursively, `…` after unescaping as a text of its
 * own) and arithmetic (kept opaque), each a part of the word.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shlex.h"
#include "shtree.h"
#include "shword.h"
#include "common.h"

/* Append byte @c to a literal part of quotedness @quoted (a new one if needed). */
static int lit_add(struct shlex *p, struct sh_word *w, int c, bool quoted)
{
	struct sh_part *last = w->n ? &w->parts[w->n - 1] : NULL;
	size_t len;
	char *t;
	int r;

	if (c == 0)
		return shlex_fail(p, "a NUL byte");
	if (!last || last->kind != SH_PART_LIT || last->quoted != quoted) {
		r = shtree_part_add(p, w, &last);
		if (r < 0)
			return r;
		last->kind = SH_PART_LIT;
		last->quoted = quoted;
	}
	len = last->room ? last->len : last->text ? strlen(last->text) : 0;
	if (len + 2 > last->room) {
		/* grown by doubling: a literal of n bytes costs O(n), not a realloc a byte */
		size_t room = S2C_MAX(2 * len + 2, (size_t)16);
		t = realloc(last->text, room);
		if (!t)
			return -ENOMEM;
		last->text = t;
		last->room = room;
	}
	last->text[len] = (char)c;
	last->text[len + 1] = '\0';
	last->len = len + 1;
	return 0;
}

/* $((…)): skip to the matching "))", counting parentheses. */
static int parse_arith(struct shlex *p, struct sh_word *w, bool quoted)
{
	struct sh_part *part;
	int depth = 0, r;
	size_t start;

	shlex_advance(p, 3);
	start = p->pos;
	for (;;) {
		int c = shlex_peekc(p, 0);
		if (c < 0)
			return shlex_fail(p, "unterminated $((");
		if (c == '(')
			depth++;
		if (c == ')') {
			if (depth == 0 && shlex_peekc(p, 1) == ')')
				break;
			depth--;
		}
		shlex_advance(p, 1);
	}
	r = shtree_part_add(p, w, &part);
	if (r < 0)
		return r;
	part->kind = SH_PART_ARITH;
	part->quoted = quoted;
	part->text = strndup(p->s + start, p->pos - start);
	shlex_advance(p, 2);
	return part->text ? 0 : -ENOMEM;
}

/* $(…): a command list up to the matching ")". */
static int parse_cmdsub(struct shlex *p, struct sh_word *w, bool quoted)
{
	struct sh_part *part;
	struct sh_node *sub = NULL;
	int r;

	shlex_advance(p, 2);
	r = shlex_enter(p);
	if (r < 0)
		return r;
	r = shparse_list(p, &sub);
	p->depth--;
	if (r < 0)
		return r;
	r = shlex_skip_newlines(p);
	if (r == 0 && !shlex_at_op(p, ")"))
		r = shlex_fail(p, "unterminated $(");
	if (r < 0) {
		shtree_node_free(sub);
		return r;
	}
	shlex_advance(p, 1);
	r = shtree_part_add(p, w, &part);
	if (r < 0) {
		shtree_node_free(sub);
		return r;
	}
	part->kind = SH_PART_CMDSUB;
	part->quoted = quoted;
	part->sub = sub;
	return 0;
}

/* `…`: unescape \` \\ \$ (and \" inside double quotes), then parse the text on its own. */
static int parse_backquote(struct shlex *p, struct sh_word *w, bool quoted)
{
	_cleanup_free_ char *text = malloc(p->len - p->pos + 1);
	struct shlex sub;
	struct sh_part *part;
	struct sh_node *list = NULL;
	size_t n = 0;
	unsigned line = p->line;
	char **v;
	int r;

	if (!text)
		return -ENOMEM;
	shlex_advance(p, 1);
	for (;;) {
		int c = shlex_peekc(p, 0);
		if (c < 0)
			return shlex_fail(p, "unterminated `");
		if (c == '`') {
			shlex_advance(p, 1);
			break;
		}
		if (c == '\\' && (shlex_peekc(p, 1) == '`' || shlex_peekc(p, 1) == '\\' ||
				  shlex_peekc(p, 1) == '$' ||
				  (quoted && shlex_peekc(p, 1) == '"'))) {
			shlex_advance(p, 1);
			c = shlex_peekc(p, 0);
		}
		text[n++] = (char)c;
		shlex_advance(p, 1);
	}
	text[n] = '\0';
	v = realloc(p->bufs->v, (p->bufs->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->bufs->v = v;
	v[p->bufs->n++] = text;
	sub = (struct shlex){ .s = text, .len = n, .line = line, .depth = p->depth + 1,
			       .nodes = p->nodes, .bufs = p->bufs, .err = p->err };
	TAKE_PTR(text);
	if (sub.depth > SHPARSE_DEPTH_MAX)
		return shlex_fail(p, "nested more than %d deep", SHPARSE_DEPTH_MAX);
	r = shparse_list(&sub, &list);
	if (r == 0)
		r = shlex_skip_newlines(&sub);
	if (r == 0 && sub.pos < sub.len)
		r = shlex_fail(&sub, "unexpected '%c' in `…`", sub.s[sub.pos]);
	for (size_t i = 0; i < sub.n_here; i++)
		free(sub.here[i].delim);
	if (r < 0) {
		shtree_node_free(list);
		return r;
	}
	r = shtree_part_add(p, w, &part);
	if (r < 0) {
		shtree_node_free(list);
		return r;
	}
	part->kind = SH_PART_CMDSUB;
	part->quoted = quoted;
	part->sub = list;
	return 0;
}


static int param_name(struct shlex *p, char **ret)
{
	size_t start = p->pos;
	int c = shlex_peekc(p, 0);

	if (shlex_is_name_start(c)) {
		while (shlex_is_name_char(shlex_peekc(p, 0)))
			shlex_advance(p, 1);
	} else if (c >= '0' && c <= '9') {
		shlex_advance(p, 1);
		/* Inside ${…} several digits form one number. */
	} else if (c >= 0 && strchr("@*#?-$!", c)) {
		shlex_advance(p, 1);
	} else {
		return shlex_fail(p, "bad parameter name");
	}
	*ret = strndup(p->s + start, p->pos - start);
	return *ret ? 0 : -ENOMEM;
}

/* ${…} */
static int parse_brace(struct shlex *p, struct sh_word *w, bool quoted)
{
	static const char *const ops[] = { ":-", ":=", ":+", ":?", "##", "%%", "-", "=", "+", "?",
					   "#", "%" };
	struct sh_part *part;
	_cleanup_free_ char *name = NULL;
	bool length = false;
	int r;

	shlex_advance(p, 2);
	if (shlex_peekc(p, 0) == '#' && shlex_peekc(p, 1) != '}') {
		length = true;
		shlex_advance(p, 1);
	}
	if (shlex_peekc(p, 0) >= '0' && shlex_peekc(p, 0) <= '9') {
		size_t start = p->pos;
		while (shlex_peekc(p, 0) >= '0' && shlex_peekc(p, 0) <= '9')
			shlex_advance(p, 1);
		name = strndup(p->s + start, p->pos - start);
		if (!name)
			return -ENOMEM;
	} else {
		r = param_name(p, &name);
		if (r < 0)
			return r;
	}
	r = shtree_part_add(p, w, &part);
	if (r < 0)
		return r;
	part->kind = SH_PART_PARAM;
	part->quoted = quoted;
	part->text = TAKE_PTR(name);
	if (length)
		memcpy(part->op, "L", 2);
	if (shlex_peekc(p, 0) == '}') {
		shlex_advance(p, 1);
		return 0;
	}
	if (length)
		return shlex_fail(p, "bad ${#…}");
	for (size_t i = 0; i < S2C_ELEMENTSOF(ops); i++) {
		size_t n = strlen(ops[i]);
		if (p->pos + n <= p->len && memcmp(p->s + p->pos, ops[i], n) == 0) {
			struct sh_word *arg = calloc(1, sizeof(*arg));
			if (!arg)
				return -ENOMEM;
			memcpy(part->op, ops[i], n + 1);
			part->arg = arg;
			shlex_advance(p, n);
			r = shword_parse(p, arg, '}');
			if (r < 0)
				return r;
			if (shlex_peekc(p, 0) != '}')
				return shlex_fail(p, "unterminated ${");
			shlex_advance(p, 1);
			return 0;
		}
	}
	return shlex_fail(p, "unsupported ${…} form");
}

/* A "$" at the current position. */
static int parse_dollar(struct shlex *p, struct sh_word *w, bool quoted)
{
	struct sh_part *part;
	int c = shlex_peekc(p, 1), r;

	if (c == '{')
		return parse_brace(p, w, quoted);
	if (c == '(' && shlex_peekc(p, 2) == '(')
		return parse_arith(p, w, quoted);
	if (c == '(')
		return parse_cmdsub(p, w, quoted);
	if (shlex_is_name_start(c) || (c >= '0' && c <= '9') || (c >= 0 && strchr("@*#?-$!", c))) {
		shlex_advance(p, 1);
		r = shtree_part_add(p, w, &part);
		if (r < 0)
			return r;
		part->kind = SH_PART_PARAM;
		part->quoted = quoted;
		return param_name(p, &part->text);
	}
	shlex_advance(p, 1);
	return lit_add(p, w, '$', quoted);
}

/* A "$", a "`" or a literal character @c at the position, inside double quotes or not. */
static int parse_char(struct shlex *p, struct sh_word *w, int c, bool quoted)
{
	if (c == '$')
		return parse_dollar(p, w, quoted);
	if (c == '`')
		return parse_backquote(p, w, quoted);
	shlex_advance(p, 1);
	return lit_add(p, w, c, quoted);
}

static int parse_dquote(struct shlex *p, struct sh_word *w)
{
	int r;

	shlex_advance(p, 1);
	for (;;) {
		int c = shlex_peekc(p, 0);
		if (c < 0)
			return shlex_fail(p, "unterminated double quote");
		if (c == '"') {
			shlex_advance(p, 1);
			return 0;
		}
		if (c == '\\' && shlex_peekc(p, 1) >= 0 && strchr("$`\"\\\n", shlex_peekc(p, 1))) {
			int e = shlex_peekc(p, 1);
			shlex_advance(p, 2);
			if (e == '\n')
				continue;
			r = lit_add(p, w, e, true);
		} else {
			r = parse_char(p, w, c, true);
		}
		if (r < 0)
			return r;
	}
}

/* An empty quoted literal part: "" or '' is an empty word, not nothing. */
static int empty_quoted(struct shlex *p, struct sh_word *w)
{
	struct sh_part *part;
	int r = shtree_part_add(p, w, &part);

	if (r < 0)
		return r;
	part->kind = SH_PART_LIT;
	part->quoted = true;
	part->text = strdup("");
	return part->text ? 0 : -ENOMEM;
}

/*
 * A word up to an unquoted metacharacter; with @end ('}'), up to that
 * character instead (the argument of ${x:-word}, where blanks are part of it).
 */
int shword_parse(struct shlex *p, struct sh_word *w, int end)
{
	int r;

	w->line = p->line;
	r = shlex_enter(p);
	if (r < 0)
		return r;
	for (;;) {
		int c = shlex_peekc(p, 0);
		if (end ? (c == end || c < 0) : shlex_is_meta(c))
			break;
		if (c == '\\') {
			if (shlex_peekc(p, 1) == '\n') {
				shlex_advance(p, 2);
				continue;
			}
			if (shlex_peekc(p, 1) < 0)
				return shlex_fail(p, "backslash at the end of the input");
			shlex_advance(p, 1);
			r = lit_add(p, w, shlex_peekc(p, 0), true);
			shlex_advance(p, 1);
		} else if (c == '\'') {
			shlex_advance(p, 1);
			while (shlex_peekc(p, 0) != '\'') {
				if (shlex_peekc(p, 0) < 0)
					return shlex_fail(p, "unterminated single quote");
				r = lit_add(p, w, shlex_peekc(p, 0), true);
				if (r < 0)
					return r;
				shlex_advance(p, 1);
			}
			shlex_advance(p, 1);
			/* '' is an empty quoted word, not nothing. */
			if (w->n == 0 || w->parts[w->n - 1].kind != SH_PART_LIT ||
			    !w->parts[w->n - 1].quoted)
				r = empty_quoted(p, w);
		} else if (c == '"') {
			size_t before = w->n;
			r = parse_dquote(p, w);
			if (r == 0 && w->n == before)
				r = empty_quoted(p, w);
		} else {
			r = parse_char(p, w, c, false);
		}
		if (r < 0)
			return r;
	}
	p->depth--;
	return 0;
}
