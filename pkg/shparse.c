/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recursive descent over the POSIX sh grammar, reading characters directly
 * (shlex.c): words need context (quotes, substitutions) that a separate
 * tokenizer would have to duplicate.  Here: the script, lists, pipelines,
 * simple commands and redirections; words are in shword.c, compound commands
 * in shcompound.c, the tree in shtree.c.  Every function returns 0 or
 * -errno; the first error sticks in p->err with its line number.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shcompound.h"
#include "shlex.h"
#include "shparse.h"
#include "shtree.h"
#include "shword.h"
#include "common.h"

struct sh_script *sh_script_free(struct sh_script *s)
{
	if (!s)
		return NULL;
	shtree_node_free(s->root);
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

/* The delimiter of a here-document: @target with its quotes removed; *@quoted when any. */
static int heredoc_delim(struct shlex *p, const struct sh_word *target, char **ret, bool *quoted)
{
	size_t len = 0;
	char *d;

	*quoted = false;
	for (size_t i = 0; i < target->n; i++) {
		const struct sh_part *pt = &target->parts[i];
		if (pt->kind != SH_PART_LIT)
			return shlex_fail(p, "here-document delimiter with an expansion");
		len += strlen(pt->text);
		*quoted = *quoted || pt->quoted;
	}
	d = calloc(1, len + 1);
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < target->n; i++)
		memcpy(d + strlen(d), target->parts[i].text, strlen(target->parts[i].text) + 1);
	*ret = d;
	return 0;
}

/* Queue the here-document whose delimiter is @target (operator @op). */
static int queue_heredoc(struct shlex *p, const char *op, const struct sh_word *target,
			 struct sh_node *n)
{
	char *d = NULL;
	bool quoted;
	int r;

	if (p->n_here == SHLEX_HEREDOCS_MAX)
		return shlex_fail(p, "more than %d here-documents on a line", SHLEX_HEREDOCS_MAX);
	r = heredoc_delim(p, target, &d, &quoted);
	if (r < 0)
		return r;
	p->here[p->n_here++] = (struct shlex_heredoc){ .delim = d,
						       .strip_tabs = s2c_streq(op, "<<-"),
						       .expands = !quoted, .node = n,
						       .redir = n->n_redirs };
	return 0;
}

/* One redirection at the current position (the operator is next), kept on @n. */
int shparse_redirect(struct shlex *p, struct sh_node *n)
{
	const char *op = shlex_peek_op(p);
	bool heredoc = s2c_streq(op, "<<") || s2c_streq(op, "<<-");
	struct sh_redir rd = { 0 };
	struct sh_redir *v;
	int r;

	(void)snprintf(rd.op, sizeof(rd.op), "%s", op);
	shlex_advance(p, strlen(op));
	shlex_skip_blank(p);
	r = shword_parse(p, &rd.target, 0);
	if (r == 0 && rd.target.n == 0)
		r = shlex_fail(p, "redirection without a target");
	if (r == 0 && heredoc)
		r = queue_heredoc(p, op, &rd.target, n);
	v = r == 0 ? realloc(n->redirs, (n->n_redirs + 1) * sizeof(*v)) : NULL;
	if (r == 0 && !v)
		r = -ENOMEM;
	if (r < 0) {
		shtree_word_release(&rd.target);
		return r;
	}
	n->redirs = v;
	v[n->n_redirs++] = rd;
	return 0;
}

/* "name=value" when @w starts with an unquoted name and '='. */
static int as_assignment(struct sh_word *w, struct sh_assign *ret)
{
	const struct sh_part *first = w->n ? &w->parts[0] : NULL;
	const char *eq;
	struct sh_word value = { .line = w->line };

	if (!first || first->kind != SH_PART_LIT || first->quoted ||
	    !shlex_is_name_start(first->text[0]))
		return 0;
	eq = strchr(first->text, '=');
	if (!eq)
		return 0;
	for (const char *c = first->text; c < eq; c++)
		if (!shlex_is_name_char(*c))
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

/* An io number: digits right before a redirection (then consumed), or nothing (then untouched). */
static bool skip_io_number(struct shlex *p)
{
	size_t save = p->pos;

	while (shlex_peekc(p, 0) >= '0' && shlex_peekc(p, 0) <= '9')
		shlex_advance(p, 1);
	if (p->pos > save && shlex_is_redirect(shlex_peek_op(p)))
		return true;
	p->pos = save;
	return false;
}

/*
 * Append @w to @n's assignments when it is one ("name=value" before the
 * command name).  Returns 1 when it was (its parts taken over), 0 when not
 * (@w untouched), or -errno (@w released).
 */
static int add_assignment(struct sh_node *n, struct sh_word *w)
{
	struct sh_assign a = { 0 };
	struct sh_assign *v;
	int r = as_assignment(w, &a);

	if (r < 0)
		shtree_word_release(w);
	if (r <= 0)
		return r;
	v = realloc(n->assigns, (n->n_assigns + 1) * sizeof(*v));
	if (!v) {
		free(a.name);
		shtree_word_release(&a.value);
		return -ENOMEM;
	}
	n->assigns = v;
	v[n->n_assigns++] = a;
	return 1;
}

/*
 * "name ( )" after the first word of @n starts a function definition: @n
 * becomes SH_FUNC named after it, with the compound command as its kid.
 * Returns 1 when it was one, 0 when not (the position back where it was), or
 * -errno.
 */
static int parse_funcdef(struct shlex *p, struct sh_node *n)
{
	struct sh_node *body = NULL;
	size_t pos = p->pos;
	unsigned line = p->line;
	int r;

	shlex_skip_blank(p);
	if (!shlex_at_op(p, "(")) {
		p->pos = pos;
		p->line = line;
		return 0;
	}
	shlex_advance(p, 1);
	shlex_skip_blank(p);
	if (!shlex_at_op(p, ")"))
		return shlex_fail(p, "expected ')' in a function definition");
	shlex_advance(p, 1);
	n->kind = SH_FUNC;
	n->name = strdup(shtree_plain(&n->words[0]));
	if (!n->name)
		return -ENOMEM;
	r = shlex_skip_newlines(p);
	if (r == 0)
		r = shcompound_parse(p, &body);
	if (r == 0)
		r = shtree_kid_add(n, body);
	return r < 0 ? r : 1;
}

/* Assignments, words and redirections up to an operator or a newline; or "name ( )" and a body. */
static int parse_simple(struct shlex *p, struct sh_node **ret)
{
	struct sh_node *n = NULL;
	size_t start;
	int r = shtree_node_new(p, SH_SIMPLE, &n);

	if (r < 0)
		return r;
	shlex_skip_blank(p);
	start = p->pos;
	n->src = p->s + start;
	for (;;) {
		struct sh_word w = { 0 };
		const char *op;

		shlex_skip_blank(p);
		op = shlex_peek_op(p);
		if (shlex_is_redirect(op)) {
			r = shparse_redirect(p, n);
			if (r < 0)
				break;
			continue;
		}
		if (*op || shlex_peekc(p, 0) < 0 || shlex_peekc(p, 0) == '\n')
			break;
		if (skip_io_number(p))
			continue;
		r = shword_parse(p, &w, 0);
		if (r < 0) {
			shtree_word_release(&w);
			break;
		}
		n->src_len = p->pos - start;
		n->line_end = p->line;
		if (n->n_words == 0) {
			r = add_assignment(n, &w);
			if (r < 0)
				break;
			if (r > 0)
				continue;
		}
		r = shtree_words_add(&n->words, &n->n_words, &w);
		if (r < 0)
			break;
		if (n->n_words == 1 && n->n_assigns == 0 && shtree_plain(&n->words[0])) {
			r = parse_funcdef(p, n);
			if (r != 0)
				break;  /* an error, or the definition is complete */
		}
	}
	if (r < 0) {
		shtree_node_free(n);
		return r;
	}
	*ret = n;
	return 0;
}

static int parse_pipeline(struct shlex *p, struct sh_node **ret);

static bool at_end_word(const struct shlex *p)
{
	static const char *const ends[] = { "then", "else", "elif", "fi", "do", "done", "esac", "}" };

	for (size_t i = 0; i < S2C_ELEMENTSOF(ends); i++)
		if (shlex_at_word(p, ends[i]))
			return true;
	return false;
}

/* A compound list: and-or lists separated by ";", "&" or newlines, up to a closing word. */
int shparse_list(struct shlex *p, struct sh_node **ret)
{
	struct sh_node *list = NULL;
	int r = shtree_node_new(p, SH_LIST, &list);

	if (r < 0)
		return r;
	for (;;) {
		struct sh_node *item = NULL;

		r = shlex_skip_newlines(p);
		if (r < 0)
			break;
		if (shlex_peekc(p, 0) < 0 || shlex_at_op(p, ")") || shlex_at_op(p, ";;") ||
		    shlex_at_op(p, ";&") || at_end_word(p))
			break;
		r = parse_pipeline(p, &item);
		for (;;) {
			if (r < 0)
				break;
			shlex_skip_blank(p);
			if (shlex_at_op(p, "&&") || shlex_at_op(p, "||")) {
				struct sh_node *andor = NULL, *right = NULL;
				bool is_and = shlex_at_op(p, "&&");
				shlex_advance(p, 2);
				r = shlex_skip_newlines(p);
				if (r == 0 && shlex_peekc(p, 0) < 0)
					r = shlex_fail(p, "a command is missing after '%s'",
						       is_and ? "&&" : "||");
				if (r == 0)
					r = parse_pipeline(p, &right);
				if (r == 0)
					r = shtree_node_new(p, is_and ? SH_AND : SH_OR, &andor);
				if (r == 0)
					r = shtree_kid_add(andor, item);
				else
					shtree_node_free(item);
				item = NULL;
				if (r == 0)
					r = shtree_kid_add(andor, right);
				else
					shtree_node_free(right);
				item = andor;
				continue;
			}
			break;
		}
		if (r < 0) {
			shtree_node_free(item);
			break;
		}
		r = shtree_kid_add(list, item);
		if (r < 0)
			break;
		list->line_end = p->line;
		shlex_skip_blank(p);
		if (shlex_at_op(p, ";") || shlex_at_op(p, "&")) {
			shlex_advance(p, 1);
			continue;
		}
		if (shlex_peekc(p, 0) == '\n')
			continue;
		break;
	}
	if (r < 0) {
		shtree_node_free(list);
		return r;
	}
	*ret = list;
	return 0;
}

static int parse_command(struct shlex *p, struct sh_node **ret)
{
	shlex_skip_blank(p);
	if (shlex_at_word(p, "if") || shlex_at_word(p, "case") || shlex_at_word(p, "for") ||
	    shlex_at_word(p, "while") || shlex_at_word(p, "until") || shlex_at_word(p, "{") ||
	    shlex_at_op(p, "("))
		return shcompound_parse(p, ret);
	if (shlex_at_word(p, "function")) {
		shlex_advance(p, 8);
		return shcompound_function(p, ret);
	}
	if (at_end_word(p) || shlex_at_word(p, "in"))
		return shlex_fail(p, "unexpected '%.*s'", (int)strcspn(p->s + p->pos, " \t\n;"),
				  p->s + p->pos);
	if (*shlex_peek_op(p) && !shlex_is_redirect(shlex_peek_op(p)))
		return shlex_fail(p, "unexpected '%s'", shlex_peek_op(p));
	return parse_simple(p, ret);
}

static int parse_pipeline(struct shlex *p, struct sh_node **ret)
{
	struct sh_node *pipe = NULL;
	int r = shtree_node_new(p, SH_PIPE, &pipe);

	if (r < 0)
		return r;
	shlex_skip_blank(p);
	if (shlex_at_word(p, "!")) {
		pipe->negated = true;
		shlex_advance(p, 1);
	}
	for (;;) {
		struct sh_node *cmd = NULL;
		r = parse_command(p, &cmd);
		if (r == 0)
			r = shtree_kid_add(pipe, cmd);
		if (r < 0)
			break;
		shlex_skip_blank(p);
		if (shlex_at_op(p, "|")) {
			shlex_advance(p, 1);
			r = shlex_skip_newlines(p);
			if (r == 0 && shlex_peekc(p, 0) < 0)
				r = shlex_fail(p, "a command is missing after '|'");
			if (r < 0)
				break;
			continue;
		}
		break;
	}
	if (r < 0) {
		shtree_node_free(pipe);
		return r;
	}
	pipe->line_end = p->line;
	*ret = pipe;
	return 0;
}

int sh_parse(const char *text, size_t len, struct sh_script **ret, struct s2c_error *err)
{
	_cleanup_(sh_script_freep) struct sh_script *s = NULL;
	struct shlex_buffers bufs = { 0 };
	size_t nodes = 0;
	struct shlex p;
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
	p = (struct shlex){ .s = s->text, .len = len, .line = 1, .nodes = &nodes, .bufs = &bufs,
			     .err = err };
	r = shparse_list(&p, &s->root);
	if (r == 0)
		r = shlex_skip_newlines(&p);
	if (r == 0 && p.pos < p.len)
		r = shlex_fail(&p, "unexpected '%.*s'",
			       (int)S2C_MIN(strcspn(p.s + p.pos, " \t\n"), (size_t)20),
			       p.s + p.pos);
	if (r == 0 && p.n_here)
		r = shlex_fail(&p, "here-document without its end");
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
