/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the POSIX sh parser (pkg/shparse): the tree it builds, and what it refuses. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "shparse.h"
#include "suites.h"

static struct sh_script *parse(const char *text)
{
	struct s2c_error err = { 0 };
	struct sh_script *s = NULL;
	int r = sh_parse(text, strlen(text), &s, &err);

	ck_assert_msg(r == 0, "%s: %s", text, err.msg);
	return s;
}

static int parse_error(const char *text, char *msg, size_t n)
{
	struct s2c_error err = { 0 };
	struct sh_script *s = NULL;
	int r = sh_parse(text, strlen(text), &s, &err);

	ck_assert_ptr_null(s);
	(void)snprintf(msg, n, "%.*s", (int)(n - 1), err.msg);
	return r;
}

/* The only command of the only pipeline of @s's first and-or list. */
static const struct sh_node *first_simple(const struct sh_script *s)
{
	const struct sh_node *n = s->root->kids[0];

	ck_assert_int_eq(n->kind, SH_PIPE);
	ck_assert_uint_eq(n->n_kids, 1);
	return n->kids[0];
}

START_TEST(test_simple_words_and_parts)
{
	struct sh_script *s = parse("X=1 chmod \"$MODE\" '/a b'${Y:-d}$(echo z)`echo w`$((1+2))\n");
	const struct sh_node *n = first_simple(s);

	ck_assert_int_eq(n->kind, SH_SIMPLE);
	ck_assert_uint_eq(n->n_assigns, 1);
	ck_assert_str_eq(n->assigns[0].name, "X");
	ck_assert_uint_eq(n->n_words, 3);
	ck_assert_int_eq(n->words[1].parts[0].kind, SH_PART_PARAM);
	ck_assert(n->words[1].parts[0].quoted);
	ck_assert_str_eq(n->words[1].parts[0].text, "MODE");
	ck_assert_int_eq(n->words[2].parts[0].kind, SH_PART_LIT);
	ck_assert_str_eq(n->words[2].parts[0].text, "/a b");
	ck_assert_str_eq(n->words[2].parts[1].op, ":-");
	ck_assert_int_eq(n->words[2].parts[2].kind, SH_PART_CMDSUB);
	ck_assert_int_eq(n->words[2].parts[3].kind, SH_PART_CMDSUB);
	ck_assert_int_eq(n->words[2].parts[4].kind, SH_PART_ARITH);
	ck_assert_str_eq(n->words[2].parts[4].text, "1+2");
	sh_script_free(s);
}
END_TEST

START_TEST(test_compound)
{
	struct sh_script *s = parse("if a; then b; elif c; then d; else e; fi\n"
				    "case $1 in configure|x) f;; *) ;; esac\n"
				    "for i in 1 2; do g; done\nwhile h; do :; done\n"
				    "until h; do :; done\n{ i; }\n( j )\nk() { l; }\n"
				    "function m { n; }\na && b || ! c | d &\n");
	static const enum sh_kind want[] = { SH_IF, SH_CASE, SH_FOR, SH_WHILE, SH_UNTIL, SH_GROUP,
					     SH_SUBSHELL, SH_FUNC, SH_FUNC, SH_OR };

	ck_assert_uint_eq(s->root->n_kids, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < s->root->n_kids; i++) {
		const struct sh_node *n = s->root->kids[i];
		if (n->kind == SH_PIPE && n->n_kids == 1)
			n = n->kids[0];
		ck_assert_msg(n->kind == want[i], "item %zu: kind %d, want %d", i, n->kind, want[i]);
	}
	ck_assert_uint_eq(s->root->kids[1]->kids[0]->n_arms, 2);
	ck_assert_str_eq(s->root->kids[8]->kids[0]->name, "m");
	sh_script_free(s);
}
END_TEST

/* @w's text when it is literal throughout (quoted or not), else NULL. */
static const char *literal(const struct sh_word *w, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < w->n; i++) {
		if (w->parts[i].kind != SH_PART_LIT)
			return NULL;
		len += (size_t)snprintf(buf + len, n - len, "%s", w->parts[i].text);
		ck_assert_uint_lt(len, n);
	}
	return buf;
}

/* The shape of compound commands: elif chains, case arms, loops, negation, and-or lists. */
START_TEST(test_tree_shape)
{
	struct sh_script *s = parse("if a; then b; elif c; then d; else e; fi\n"
				    "case $1 in configure|x) f;; *) ;; esac\n"
				    "for i in 1 2; do g; done\nfor j; do :; done\n"
				    "while h; do k; done\n! a | b\na && b || c\n");
	const struct sh_node *const *k = (const struct sh_node *const *)s->root->kids;
	const struct sh_node *n;

	ck_assert_uint_eq(s->root->n_kids, 7);
	n = k[0]->kids[0];                                     /* if … elif … else … fi */
	ck_assert_int_eq(n->kind, SH_IF);
	ck_assert_uint_eq(n->n_kids, 3);
	ck_assert_int_eq(n->kids[2]->kind, SH_IF);             /* the elif */
	ck_assert_ptr_nonnull(n->kids[2]->kids[2]);            /* its else */
	ck_assert_uint_eq(n->line, 1);
	n = k[1]->kids[0];                                     /* case */
	ck_assert_str_eq(n->word->parts[0].text, "1");
	ck_assert_uint_eq(n->arms[0].n_patterns, 2);
	ck_assert_str_eq(n->arms[0].patterns[0].parts[0].text, "configure");
	ck_assert_str_eq(n->arms[0].patterns[1].parts[0].text, "x");
	ck_assert_ptr_nonnull(n->arms[0].body);
	ck_assert(!n->arms[1].body || n->arms[1].body->n_kids == 0);   /* an empty arm */
	n = k[2]->kids[0];                                     /* for with a list */
	ck_assert_str_eq(n->name, "i");
	ck_assert(n->has_words);
	ck_assert_uint_eq(n->n_words, 2);
	n = k[3]->kids[0];                                     /* for over "$@" */
	ck_assert_str_eq(n->name, "j");
	ck_assert(!n->has_words);
	n = k[4]->kids[0];                                     /* while: condition, body */
	ck_assert_int_eq(n->kind, SH_WHILE);
	ck_assert_uint_eq(n->n_kids, 2);
	n = k[5];                                              /* ! a | b */
	ck_assert_int_eq(n->kind, SH_PIPE);
	ck_assert(n->negated);
	ck_assert_uint_eq(n->n_kids, 2);
	n = k[6];                                              /* (a && b) || c */
	ck_assert_int_eq(n->kind, SH_OR);
	ck_assert_int_eq(n->kids[0]->kind, SH_AND);
	ck_assert_uint_eq(n->line, 7);
	sh_script_free(s);
}
END_TEST

/* Quotes and escapes, parameter operators, reserved words as arguments, assignments. */
START_TEST(test_quoting_and_params)
{
	struct sh_script *s = parse("echo \\$x '$y' \"\\$z\" ${#v} ${w%%.*} \"$@\"\n"
				    "echo if then fi\ncmd a=1\nA=1 B=\"$A\"\necho $(f $(g))\n");
	const struct sh_node *n = first_simple(s);
	const struct sh_part *p;
	char buf[64];

	ck_assert_uint_eq(n->n_words, 7);
	ck_assert_str_eq(literal(&n->words[1], buf, sizeof(buf)), "$x");   /* \$x */
	ck_assert(n->words[2].parts[0].quoted);                          /* '$y' */
	ck_assert_str_eq(literal(&n->words[2], buf, sizeof(buf)), "$y");
	ck_assert_str_eq(literal(&n->words[3], buf, sizeof(buf)), "$z");   /* "\$z" */
	ck_assert_str_eq(n->words[4].parts[0].op, "L");                 /* ${#v} */
	ck_assert_str_eq(n->words[4].parts[0].text, "v");
	p = &n->words[5].parts[0];                                      /* ${w%%.*} */
	ck_assert_str_eq(p->op, "%%");
	ck_assert_str_eq(p->arg->parts[0].text, ".*");
	ck_assert_str_eq(n->words[6].parts[0].text, "@");
	ck_assert(n->words[6].parts[0].quoted);
	n = s->root->kids[1]->kids[0];                                  /* reserved words */
	ck_assert_int_eq(n->kind, SH_SIMPLE);
	ck_assert_uint_eq(n->n_words, 4);
	n = s->root->kids[2]->kids[0];                                  /* after the command */
	ck_assert_uint_eq(n->n_assigns, 0);
	ck_assert_uint_eq(n->n_words, 2);
	n = s->root->kids[3]->kids[0];                                  /* assignments only */
	ck_assert_uint_eq(n->n_assigns, 2);
	ck_assert_uint_eq(n->n_words, 0);
	ck_assert_int_eq(n->assigns[1].value.parts[0].kind, SH_PART_PARAM);
	n = s->root->kids[4]->kids[0];                                  /* nested substitution */
	p = &n->words[1].parts[0];
	ck_assert_int_eq(p->kind, SH_PART_CMDSUB);
	n = p->sub->kids[0]->kids[0];
	ck_assert_str_eq(n->words[0].parts[0].text, "f");
	ck_assert_int_eq(n->words[1].parts[0].kind, SH_PART_CMDSUB);
	sh_script_free(s);
}
END_TEST

START_TEST(test_redirections_kept)
{
	struct sh_script *s = parse("cat > /etc/x 2>&1 < $IN\n{ a; } >> /var/log/y\n");
	const struct sh_node *n = first_simple(s);
	const struct sh_node *g = s->root->kids[1]->kids[0];

	ck_assert_uint_eq(n->n_redirs, 3);
	ck_assert_str_eq(n->redirs[0].op, ">");
	ck_assert_str_eq(n->redirs[0].target.parts[0].text, "/etc/x");
	ck_assert_str_eq(n->redirs[1].op, ">&");
	ck_assert_str_eq(n->redirs[2].op, "<");
	ck_assert_int_eq(n->redirs[2].target.parts[0].kind, SH_PART_PARAM);
	ck_assert_int_eq(g->kind, SH_GROUP);
	ck_assert_uint_eq(g->n_redirs, 1);
	ck_assert_str_eq(g->redirs[0].op, ">>");
	sh_script_free(s);
}
END_TEST

START_TEST(test_heredocs)
{
	/* an expanded body with a command substitution is kept; quoted or plain ones are not */
	struct sh_script *s = parse("cat <<EOF\nhello $(chmod 4755 /x)\nEOF\n"
				    "cat <<'EOF'\n$(not run)\nEOF\n"
				    "cat <<-EOF\n\tplain\n\tEOF\n"
				    "cat <<EOF\n``empty``\nEOF\n");
	const struct sh_node *a = s->root->kids[0]->kids[0], *b = s->root->kids[1]->kids[0];
	const struct sh_node *c = s->root->kids[2]->kids[0], *d = s->root->kids[3]->kids[0];

	ck_assert_uint_eq(s->root->n_kids, 4);
	ck_assert_ptr_nonnull(a->redirs[0].heredoc);
	ck_assert_ptr_nonnull(strstr(a->redirs[0].heredoc, "$(chmod 4755 /x)"));
	ck_assert_ptr_null(b->redirs[0].heredoc);
	ck_assert_ptr_null(c->redirs[0].heredoc);
	ck_assert_ptr_nonnull(d->redirs[0].heredoc);
	sh_script_free(s);
}
END_TEST

START_TEST(test_lines_and_source)
{
	struct sh_script *s = parse("# comment\n\nchmod \\\n  4755 /x # tail\n");
	const struct sh_node *n = first_simple(s);

	ck_assert_uint_eq(n->line, 3);
	ck_assert_uint_eq(n->n_words, 3);
	ck_assert_ptr_nonnull(n->src);
	ck_assert_int_eq(strncmp(n->src, "chmod", 5), 0);
	sh_script_free(s);
}
END_TEST

START_TEST(test_errors)
{
	static const char *const bad[] = {
		"if true; then\n", "echo \"unterminated\n", "case x in\n", "cat <<EOF\nno end\n",
		"$(((((\n", "a |\n", ")\n", "fi\n", "x=${\n",
	};
	char msg[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(parse_error(bad[i], msg, sizeof(msg)), -EINVAL);
		ck_assert_msg(strncmp(msg, "line ", 5) == 0, "%s: %s", bad[i], msg);
	}
}
END_TEST

START_TEST(test_limits)
{
	/* nesting beyond the bound is an error, not a stack overflow */
	size_t n = 0;
	char *deep = malloc(200000), msg[256];

	for (int i = 0; i < 20000; i++)
		n += (size_t)sprintf(deep + n, "$(");
	ck_assert_int_eq(parse_error(deep, msg, sizeof(msg)), -EINVAL);
	free(deep);
	deep = calloc(1, SHPARSE_INPUT_MAX + 2);
	memset(deep, ':', SHPARSE_INPUT_MAX + 1);
	ck_assert_int_eq(parse_error(deep, msg, sizeof(msg)), -EFBIG);
	free(deep);
}
END_TEST

Suite *shparse_suite(void)
{
	Suite *s = suite_create("shparse");
	TCase *tc = tcase_create("shparse");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_simple_words_and_parts);
	tcase_add_test(tc, test_compound);
	tcase_add_test(tc, test_tree_shape);
	tcase_add_test(tc, test_quoting_and_params);
	tcase_add_test(tc, test_redirections_kept);
	tcase_add_test(tc, test_heredocs);
	tcase_add_test(tc, test_lines_and_source);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_limits);
	suite_add_tcase(s, tc);
	return s;
}
