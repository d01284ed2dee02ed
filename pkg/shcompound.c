/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Compound commands of the shell: if, case, for, while, until, groups and
 * subshells with the redirections after them, and "function name" bodies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shcompound.h"
#include "shlex.h"
#include "shtree.h"
#include "shword.h"
#include "common.h"

/* Redirections after the compound command @n ("done < file", "} >/dev/null 2>&1"). */
static int parse_redirects(struct shlex *p, struct sh_node *n)
{
	for (;;) {
		size_t save = p->pos;
		unsigned line = p->line;
		shlex_skip_blank(p);
		while (shlex_peekc(p, 0) >= '0' && shlex_peekc(p, 0) <= '9')
			shlex_advance(p, 1);
		if (!shlex_is_redirect(shlex_peek_op(p))) {
			p->pos = save;
			p->line = line;
			return 0;
		}
		int r = shparse_redirect(p, n);
		if (r < 0)
			return r;
	}
}

static int expect_word(struct shlex *p, const char *w)
{
	int r = shlex_skip_newlines(p);

	if (r < 0)
		return r;
	if (!shlex_at_word(p, w))
		return shlex_fail(p, "expected '%s'", w);
	shlex_advance(p, strlen(w));
	return 0;
}

/* The end of a compound command: @n with its last line in @ret, or freed after an error @r. */
static int finish(struct shlex *p, struct sh_node *n, int r, struct sh_node **ret)
{
	if (r < 0) {
		shtree_node_free(n);
		return r;
	}
	n->line_end = p->line;
	*ret = n;
	return 0;
}

/* "do LIST done": the body of a loop, added to @n's kids. */
static int parse_do_done(struct shlex *p, struct sh_node *n)
{
	struct sh_node *body = NULL;
	int r = expect_word(p, "do");

	if (r == 0)
		r = shparse_list(p, &body);
	if (r == 0)
		r = shtree_kid_add(n, TAKE_PTR(body));
	if (r == 0)
		r = expect_word(p, "done");
	shtree_node_free(body);
	return r;
}

/* if … then … [elif … then …] [else …] fi; the caller consumed "if" or "elif". */
static int parse_if(struct shlex *p, struct sh_node **ret)
{
	struct sh_node *n = NULL, *cond = NULL, *then = NULL, *els = NULL;
	int r = shtree_node_new(p, SH_IF, &n);

	if (r == 0)
		r = shparse_list(p, &cond);
	if (r == 0)
		r = shtree_kid_add(n, TAKE_PTR(cond));
	if (r == 0)
		r = expect_word(p, "then");
	if (r == 0)
		r = shparse_list(p, &then);
	if (r == 0)
		r = shtree_kid_add(n, TAKE_PTR(then));
	if (r == 0)
		r = shlex_skip_newlines(p);
	if (r == 0 && shlex_at_word(p, "elif")) {
		shlex_advance(p, 4);
		r = parse_if(p, &els);
		if (r == 0)
			r = shtree_kid_add(n, TAKE_PTR(els));
		if (r == 0)
			n->line_end = p->line;
		if (r < 0)
			shtree_node_free(n);
		else
			*ret = n;
		return r;
	}
	if (r == 0 && shlex_at_word(p, "else")) {
		shlex_advance(p, 4);
		r = shparse_list(p, &els);
		if (r == 0)
			r = shtree_kid_add(n, TAKE_PTR(els));
	} else if (r == 0) {
		r = shtree_kid_add(n, NULL);
	}
	if (r == 0)
		r = expect_word(p, "fi");
	shtree_node_free(cond);
	shtree_node_free(then);
	shtree_node_free(els);
	return finish(p, n, r, ret);
}

static int parse_case(struct shlex *p, struct sh_node **ret)
{
	struct sh_node *n = NULL;
	int r = shtree_node_new(p, SH_CASE, &n);

	if (r < 0)
		return r;
	shlex_skip_blank(p);
	n->word = calloc(1, sizeof(*n->word));
	if (!n->word)
		r = -ENOMEM;
	if (r == 0)
		r = shword_parse(p, n->word, 0);
	if (r == 0 && n->word->n == 0)
		r = shlex_fail(p, "case without a word");
	if (r == 0)
		r = expect_word(p, "in");
	while (r == 0) {
		struct sh_arm arm = { 0 };
		struct sh_arm *v;

		r = shlex_skip_newlines(p);
		if (r < 0 || shlex_at_word(p, "esac"))
			break;
		if (shlex_at_op(p, "("))
			shlex_advance(p, 1);
		for (;;) {
			struct sh_word w = { 0 };
			shlex_skip_blank(p);
			r = shword_parse(p, &w, 0);
			if (r == 0 && w.n == 0)
				r = shlex_fail(p, "case pattern expected");
			if (r == 0)
				r = shtree_words_add(&arm.patterns, &arm.n_patterns, &w);
			else
				shtree_word_release(&w);
			if (r < 0)
				break;
			shlex_skip_blank(p);
			if (shlex_at_op(p, "|")) {
				shlex_advance(p, 1);
				continue;
			}
			if (!shlex_at_op(p, ")"))
				r = shlex_fail(p, "expected ')' after a case pattern");
			break;
		}
		if (r == 0) {
			shlex_advance(p, 1);
			r = shparse_list(p, &arm.body);
		}
		v = r == 0 ? realloc(n->arms, (n->n_arms + 1) * sizeof(*v)) : NULL;
		if (r == 0 && !v)
			r = -ENOMEM;
		if (r < 0) {
			for (size_t j = 0; j < arm.n_patterns; j++)
				shtree_word_release(&arm.patterns[j]);
			free(arm.patterns);
			shtree_node_free(arm.body);
			break;
		}
		n->arms = v;
		v[n->n_arms++] = arm;
		r = shlex_skip_newlines(p);
		if (r == 0 && (shlex_at_op(p, ";;") || shlex_at_op(p, ";&")))
			shlex_advance(p, 2);
		else if (r == 0 && !shlex_at_word(p, "esac"))
			r = shlex_fail(p, "expected ';;' or 'esac'");
	}
	if (r == 0)
		r = expect_word(p, "esac");
	return finish(p, n, r, ret);
}

/* while/until LIST do LIST done */
static int parse_loop(struct shlex *p, enum sh_kind kind, struct sh_node **ret)
{
	struct sh_node *n = NULL, *a = NULL;
	int r = shtree_node_new(p, kind, &n);

	if (r == 0)
		r = shparse_list(p, &a);
	if (r == 0)
		r = shtree_kid_add(n, TAKE_PTR(a));
	if (r == 0)
		r = parse_do_done(p, n);
	shtree_node_free(a);
	return finish(p, n, r, ret);
}

static int parse_for(struct shlex *p, struct sh_node **ret)
{
	struct sh_node *n = NULL;
	struct sh_word name = { 0 };
	int r = shtree_node_new(p, SH_FOR, &n);

	if (r < 0)
		return r;
	shlex_skip_blank(p);
	r = shword_parse(p, &name, 0);
	if (r == 0 && !shtree_plain(&name))
		r = shlex_fail(p, "bad for variable");
	if (r == 0 && !(n->name = strdup(shtree_plain(&name))))
		r = -ENOMEM;
	shtree_word_release(&name);
	if (r == 0)
		r = shlex_skip_newlines(p);
	if (r == 0 && shlex_at_word(p, "in")) {
		shlex_advance(p, 2);
		n->has_words = true;
		for (;;) {
			struct sh_word w = { 0 };
			shlex_skip_blank(p);
			if (shlex_at_op(p, ";") || shlex_peekc(p, 0) == '\n' ||
			    shlex_peekc(p, 0) < 0)
				break;
			r = shword_parse(p, &w, 0);
			if (r == 0 && w.n == 0)
				r = shlex_fail(p, "unexpected '%c' in a for list",
					       shlex_peekc(p, 0));
			if (r == 0)
				r = shtree_words_add(&n->words, &n->n_words, &w);
			else
				shtree_word_release(&w);
			if (r < 0)
				break;
		}
		if (r == 0 && shlex_at_op(p, ";"))
			shlex_advance(p, 1);
	} else if (r == 0 && shlex_at_op(p, ";")) {
		shlex_advance(p, 1);
	}
	if (r == 0)
		r = parse_do_done(p, n);
	return finish(p, n, r, ret);
}

/* { … } or ( … ) */
static int parse_group(struct shlex *p, enum sh_kind kind, struct sh_node **ret)
{
	struct sh_node *n = NULL, *body = NULL;
	int r = shtree_node_new(p, kind, &n);

	shlex_advance(p, 1);
	if (r == 0)
		r = shparse_list(p, &body);
	if (r == 0)
		r = shtree_kid_add(n, TAKE_PTR(body));
	if (r == 0)
		r = shlex_skip_newlines(p);
	if (r == 0) {
		if (kind == SH_GROUP ? shlex_at_word(p, "}") : shlex_at_op(p, ")"))
			shlex_advance(p, 1);
		else
			r = shlex_fail(p, "expected '%s'", kind == SH_GROUP ? "}" : ")");
	}
	shtree_node_free(body);
	return finish(p, n, r, ret);
}

/* bash: function name [()] compound */
int shcompound_function(struct shlex *p, struct sh_node **ret)
{
	struct sh_node *n = NULL, *body = NULL;
	struct sh_word name = { 0 };
	int r = shtree_node_new(p, SH_FUNC, &n);

	if (r < 0)
		return r;
	shlex_skip_blank(p);
	r = shword_parse(p, &name, 0);
	if (r == 0 && !shtree_plain(&name))
		r = shlex_fail(p, "bad function name");
	if (r == 0 && !(n->name = strdup(shtree_plain(&name))))
		r = -ENOMEM;
	shtree_word_release(&name);
	shlex_skip_blank(p);
	if (r == 0 && shlex_at_op(p, "(")) {
		shlex_advance(p, 1);
		shlex_skip_blank(p);
		if (!shlex_at_op(p, ")"))
			r = shlex_fail(p, "expected ')'");
		else
			shlex_advance(p, 1);
	}
	if (r == 0)
		r = shlex_skip_newlines(p);
	if (r == 0)
		r = shcompound_parse(p, &body);
	if (r == 0)
		r = shtree_kid_add(n, TAKE_PTR(body));
	if (r < 0) {
		shtree_node_free(n);
		return r;
	}
	*ret = n;
	return 0;
}

/* A compound command (the body of a function, or a command starting with a reserved word). */
int shcompound_parse(struct shlex *p, struct sh_node **ret)
{
	int r = shlex_enter(p);

	if (r < 0)
		return r;
	shlex_skip_blank(p);
	if (shlex_at_word(p, "if")) {
		shlex_advance(p, 2);
		r = parse_if(p, ret);
	} else if (shlex_at_word(p, "case")) {
		shlex_advance(p, 4);
		r = parse_case(p, ret);
	} else if (shlex_at_word(p, "for")) {
		shlex_advance(p, 3);
		r = parse_for(p, ret);
	} else if (shlex_at_word(p, "while")) {
		shlex_advance(p, 5);
		r = parse_loop(p, SH_WHILE, ret);
	} else if (shlex_at_word(p, "until")) {
		shlex_advance(p, 5);
		r = parse_loop(p, SH_UNTIL, ret);
	} else if (shlex_at_word(p, "{")) {
		r = parse_group(p, SH_GROUP, ret);
	} else if (shlex_at_op(p, "(")) {
		r = parse_group(p, SH_SUBSHELL, ret);
	} else {
		r = shlex_fail(p, "expected a compound command");
	}
	if (r == 0) {
		r = parse_redirects(p, *ret);
		if (r < 0) {
			shtree_node_free(*ret);
			*ret = NULL;
		}
	}
	p->depth--;
	return r;
}
