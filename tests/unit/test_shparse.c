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
	tcase_add_test(tc, test_redirections_kept);
	tcase_add_test(tc, test_heredocs);
	tcase_add_test(tc, test_lines_and_source);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_limits);
	suite_add_tcase(s, tc);
	return s;
}
