/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of `while read … done < FILE` in the maintainer-script evaluator
 * (pkg/msread.c): read's line and field splitting against what dash does, and
 * loops over a file of the package whose content is kept in a stage.
 */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "member.h"
#include "mscommand.h"
#include "suites.h"
#include "util.h"

static struct memberset members;
static char *stage;
static int stagefd = -1;

static void add(const char *path, enum member_type type, uint32_t mode, const char *content)
{
	fx_member(&members, stage, path, type, mode, NULL, content);
}

static void setup(void)
{
	members = (struct memberset){ 0 };
	stage = fx_tempdir();
	stagefd = open(stage, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(stagefd, 0);
	add("/usr", MEMBER_DIR, 0755, NULL);
	add("/usr/bin", MEMBER_DIR, 0755, NULL);
	add("/usr/bin/prog", MEMBER_FILE, 0755, NULL);
	add("/usr/bin/tool", MEMBER_FILE, 0755, NULL);
	add("/usr/share", MEMBER_DIR, 0755, NULL);
	add("/usr/share/t", MEMBER_DIR, 0755, NULL);
	add("/usr/share/t/modes", MEMBER_FILE, 0644, "prog 4755\ntool  2755 \n");
	add("/usr/share/t/slashed", MEMBER_FILE, 0644, "4755/usr/bin/prog\n");
	add("/usr/share/t/escaped", MEMBER_FILE, 0644, "pr\\og 4755\n");
	add("/usr/share/t/joined", MEMBER_FILE, 0644, "prog \\\n4755\n");
	add("/usr/share/t/unended", MEMBER_FILE, 0644, "prog 4755");
	add("/usr/share/t/empty", MEMBER_FILE, 0644, "");
	add("/usr/share/t/opts", MEMBER_FILE, 0644, "-fi 4755\n");
}

static void teardown(void)
{
	memberset_release(&members);
	close(stagefd);
	fx_rmrf(stage);
	free(stage);
}

static const char *const configure[] = { "configure", "" };

static struct ms_analysis run(const char *text)
{
	struct ms_context ctx = { .args = configure, .n_args = 2, .arch = "amd64",
				  .package = "s2c-test", .members = &members, .stagefd = stagefd };
	struct ms_analysis a = { 0 };

	ck_assert_int_eq(maintscript_analyse("postinst", text, strlen(text), &ctx, &a), 0);
	ck_assert_int_eq(maintscript_check(&a, &members), 0);
	return a;
}

/* The mode of @path after the actions where setcap works (its packed one before). */
static uint32_t mode_of(const struct ms_analysis *a, const char *path)
{
	const struct member *m = memberset_get(&members, path);
	struct ms_state st = { .mode = m->mode, .owner = "root", .group = "root" };

	for (size_t seq = 0; seq < 256; seq++)
		for (size_t i = 0; i < a->n; i++)
			if (a->v[i].seq[MS_SCENARIO_WORKS] == seq &&
			    ms_applies(&a->v[i], MS_SCENARIO_WORKS) && strcmp(a->v[i].path, path) == 0)
				(void)ms_apply(&a->v[i], false, &st);
	return st.mode;
}

/* @text is complete and leaves prog and tool with @prog and @tool. */
static void expect_modes(const char *text, uint32_t prog, uint32_t tool)
{
	struct ms_analysis a = run(text);

	ck_assert_msg(a.n_incomplete == 0, "%s: %s", text, a.n_incomplete ? a.incomplete[0] : "");
	ck_assert_msg(mode_of(&a, "/usr/bin/prog") == prog, "%s: prog %o", text,
		      mode_of(&a, "/usr/bin/prog"));
	ck_assert_msg(mode_of(&a, "/usr/bin/tool") == tool, "%s: tool %o", text,
		      mode_of(&a, "/usr/bin/tool"));
	ms_analysis_release(&a);
}

static void expect_incomplete(const char *text)
{
	struct ms_analysis a = run(text);

	ck_assert_msg(a.n_incomplete > 0, "%s: complete", text);
	ms_analysis_release(&a);
}

/* read with @ifs (@raw: -r) of the first line of @text into three variables. */
static void expect_split(const char *text, bool raw, const char *ifs, const char *v0,
			 const char *v1, const char *v2, bool newline)
{
	struct msread_line l;
	char *vals[3] = { 0 };
	const char *want[3] = { v0, v1, v2 };
	size_t pos = 0, n = v2 ? 3 : v1 ? 2 : 1;

	ck_assert_int_eq(msread_next(text, strlen(text), &pos, raw, &l), 0);
	ck_assert_int_eq(msread_split(&l, ifs, n, vals), 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(strcmp(vals[i], want[i]) == 0, "'%s' [%zu]: '%s', not '%s'", text, i,
			      vals[i], want[i]);
		free(vals[i]);
	}
	ck_assert_msg(l.newline == newline, "'%s': newline %d", text, l.newline);
	msread_line_release(&l);
}

/* Each case as dash 0.5 reads it: printf '…' | dash -c 'IFS=… read a b c'. */
START_TEST(test_split)
{
	expect_split("x/y/z\n", false, "/", "x", "y/z", NULL, true);
	expect_split("x/y/\n", false, "/", "x", "y", NULL, true);
	expect_split("x/y//\n", false, "/", "x", "y//", NULL, true);
	expect_split("x/y/ \n", false, "/", "x", "y/ ", NULL, true);
	expect_split("/x\n", false, "/", "", "x", NULL, true);
	expect_split("x\n", false, "/", "x", "", NULL, true);
	expect_split(" x / y \n", false, "/", " x ", " y ", NULL, true);
	expect_split("  x   y  z  \n", false, " \t\n", "x", "y  z", NULL, true);
	expect_split("x\\/y\\ z w\n", false, " \t\n", "x/y z", "w", NULL, true);
	expect_split("x\\\ny z\n", false, " \t\n", "xy", "z", NULL, true);
	expect_split("x\\ y\n", true, " \t\n", "x\\", "y", NULL, true);
	expect_split("x\\/y/z\n", false, "/", "x/y", "z", NULL, true);
	expect_split("x/y\\/\n", false, "/", "x", "y/", NULL, true);
	expect_split("x y", false, " \t\n", "x", "y", NULL, false);
	expect_split("x / / y\n", false, " /", "x", "", "y", true);
	expect_split("x//y\n", false, "/", "x", "", "y", true);
	expect_split("x y / \n", false, " /", "x", "y", NULL, true);
	expect_split("  x y  \n", false, " \t\n", "x y", NULL, NULL, true);
	expect_split("x y\n", false, "", "x y", "", NULL, true);
	expect_split("x\\", false, " \t\n", "x", "", NULL, false);
	expect_split("x y\\\n", false, " \t\n", "x", "y", NULL, false);
}
END_TEST

START_TEST(test_loop)
{
	/* every line of a file of the package, as read splits it */
	expect_modes("while read f m; do chmod \"$m\" \"/usr/bin/$f\"; done < /usr/share/t/modes",
		     04755, 02755);
	expect_modes("cd /usr/share/t\nwhile read f m; do chmod $m /usr/bin/$f; done < modes",
		     04755, 02755);
	expect_modes("while IFS=/ read m f; do chmod $m /$f; done < /usr/share/t/slashed",
		     04755, 0755);
	/* a backslash quotes the next byte; backslash-newline joins the lines */
	expect_modes("while read f m; do chmod $m /usr/bin/$f; done < /usr/share/t/escaped",
		     04755, 0755);
	expect_modes("while read f m; do chmod $m /usr/bin/$f; done < /usr/share/t/joined",
		     04755, 0755);
	/* a last line without a newline: read fails and the body does not run */
	expect_modes("while read f m; do chmod $m /usr/bin/$f; done < /usr/share/t/unended",
		     0755, 0755);
	expect_modes("while read f m; do chmod 4755 /usr/bin/prog; done < /usr/share/t/empty",
		     0755, 0755);
	/* break leaves the loop after the first line */
	expect_modes("while read f m; do chmod $m /usr/bin/$f; break; done < /usr/share/t/modes",
		     04755, 0755);
	/* commands that do not ask */
	expect_modes("while read f m; do rm -f /tmp/s2c-$f; ln -sf /a /tmp/s2c-$f; "
		     "setcap -r /usr/bin/$f; chmod $m /usr/bin/$f; done < /usr/share/t/modes",
		     04755, 02755);
	/* the body's functions are looked through */
	expect_modes("set_mode() { chmod \"$2\" \"/usr/bin/$1\"; }\n"
		     "while read f m; do set_mode \"$f\" \"$m\"; done < /usr/share/t/modes",
		     04755, 02755);
}
END_TEST

START_TEST(test_loop_not_followed)
{
	/* with -r the backslash stays: a file that is not the package's made set-ID */
	expect_incomplete("while read -r f m; do chmod $m /usr/bin/$f; done < /usr/share/t/escaped");
	/* a file that is not the package's, one it wrote, one whose content was not kept */
	expect_incomplete("while read f m; do chmod $m /usr/bin/$f; done < /etc/modes");
	expect_incomplete("echo prog 4755 > /usr/share/t/modes\n"
			  "while read f m; do chmod $m /usr/bin/$f; done < /usr/share/t/modes");
	expect_incomplete("while read f m; do chmod $m /usr/bin/$f; done < /usr/bin/prog");
	/* a body that may read the input itself, or another function of that name */
	expect_incomplete("while read f m; do read x; chmod $m /usr/bin/$f; done "
			  "< /usr/share/t/modes");
	expect_incomplete("while read f m; do cat; chmod $m /usr/bin/$f; done < /usr/share/t/modes");
	expect_incomplete("f() { cat; }\n"
			  "while read f m; do f; chmod $m /usr/bin/$f; done < /usr/share/t/modes");
	expect_incomplete("while read f m; do chmod $m /usr/bin/$(cat); done < /usr/share/t/modes");
	/* commands that read their input with these arguments: -i asks, setcap - reads */
	expect_incomplete("while read f m; do rm -i /tmp/s2c; chmod $m /usr/bin/$f; done "
			  "< /usr/share/t/modes");
	expect_incomplete("while read f m; do cp --inter /a /b; chmod $m /usr/bin/$f; done "
			  "< /usr/share/t/modes");
	expect_incomplete("while read f m; do setcap - /usr/bin/prog; chmod $m /usr/bin/$f; done "
			  "< /usr/share/t/modes");
	expect_incomplete("while read o m; do ln -s $o /a /tmp/b; chmod $m /usr/bin/prog; done "
			  "< /usr/share/t/opts");
	/* a read that is not plain */
	expect_incomplete("while read -u 3 f m; do chmod $m /usr/bin/$f; done < /usr/share/t/modes");
	expect_incomplete("while X=1 read f m; do chmod $m /usr/bin/$f; done < /usr/share/t/modes");
	expect_incomplete("read() { f=$(cat /etc/f); m=4755; }\n"
			  "while read f m; do chmod $m /usr/bin/$f; done < /usr/share/t/modes");
	expect_incomplete("IFS=$(cat /etc/ifs)\n"
			  "while read f m; do chmod $m /usr/bin/$f; done < /usr/share/t/modes");
}
END_TEST

/* More lines than are followed one by one: incomplete, named. */
START_TEST(test_loop_bound)
{
	_cleanup_free_ char *text = malloc(5000 * 10 + 1);
	struct ms_analysis a;
	bool named = false;

	ck_assert_ptr_nonnull(text);
	text[0] = '\0';
	for (int i = 0; i < 5000; i++)
		strcat(text + strlen(text), "prog 4755\n");
	fx_write(stage, "usr/share/t/modes", text);
	a = run("while read f m; do chmod $m /usr/bin/$f; done < /usr/share/t/modes");
	for (size_t i = 0; i < a.n_incomplete; i++)
		named = named || strstr(a.incomplete[i], "while read loop over more than");
	ck_assert_msg(named, "%s", a.n_incomplete ? a.incomplete[0] : "complete");
	ms_analysis_release(&a);
}
END_TEST

Suite *msread_suite(void)
{
	Suite *s = suite_create("msread");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_split);
	tcase_add_test(tc, test_loop);
	tcase_add_test(tc, test_loop_not_followed);
	tcase_add_test(tc, test_loop_bound);
	suite_add_tcase(s, tc);
	return s;
}
