/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of grep in the maintainer-script evaluator (pkg/msgrep.c): its
 * status on a file of the package as packed, the conffiles it read, and the
 * status left unknown wherever the packed content does not decide it.
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
	add("/etc", MEMBER_DIR, 0755, NULL);
	add("/etc/t.conf", MEMBER_FILE, 0644, "# set by t-config\nis_suid=no\nMode Quiet\n");
	add("/etc/t.flagged", MEMBER_FILE, 0644, "is_suid=yes\n");
	add("/etc/t.bin", MEMBER_FILE, 0644, "is_suid=yes\n\xc3\xa9\n");
	add("/usr", MEMBER_DIR, 0755, NULL);
	add("/usr/bin", MEMBER_DIR, 0755, NULL);
	add("/usr/bin/prog", MEMBER_FILE, 0755, NULL);
	add("/usr/share", MEMBER_DIR, 0755, NULL);
	add("/usr/share/t.list", MEMBER_FILE, 0644, "is_suid=yes\n");
}

static void teardown(void)
{
	memberset_release(&members);
	close(stagefd);
	fx_rmrf(stage);
	free(stage);
}

static const char *const configure[] = { "configure", "" };
static const char conffiles[] = "/etc/t.conf\nremove-on-upgrade /etc/t.flagged\n/etc/t.bin\n";

static struct ms_analysis run(const char *text, const char *changed)
{
	struct ms_context ctx = { .args = configure, .n_args = 2, .arch = "amd64",
				  .package = "s2c-test", .members = &members, .stagefd = stagefd,
				  .conffiles = conffiles, .changed_conffile = changed };
	struct ms_analysis a = { 0 };

	ck_assert_int_eq(maintscript_analyse("postinst", text, strlen(text), &ctx, &a), 0);
	ck_assert_int_eq(maintscript_check(&a, &members), 0);
	return a;
}

/*
 * "if GREP; then chmod 4755 /usr/bin/prog; fi": with @runs the chmod is
 * there and not under a condition (the status is known and true); with
 * !@runs it is not there at all (known and false).
 */
static void expect_status(const char *grep, bool runs)
{
	_cleanup_free_ char *text = strdup_printf("set -e\nif %s; then chmod 4755 /usr/bin/prog; fi",
						  grep);
	struct ms_analysis a = run(text, NULL);

	ck_assert_msg(a.n_incomplete == 0, "%s: %s", grep, a.n_incomplete ? a.incomplete[0] : "");
	ck_assert_msg(a.n == (runs ? 1u : 0u), "%s: %zu actions", grep, a.n);
	if (runs)
		ck_assert_msg(!a.v[0].conditional, "%s: under a condition", grep);
	ms_analysis_release(&a);
}

/* The same, where the status is not known: the chmod is there, under a condition. */
static void expect_unknown(const char *grep, const char *changed)
{
	_cleanup_free_ char *text = strdup_printf("if %s; then chmod 4755 /usr/bin/prog; fi", grep);
	struct ms_analysis a = run(text, changed);

	ck_assert_msg(a.n == 1 && a.v[0].conditional, "%s: %zu actions, not one under a condition",
		      grep, a.n);
	ms_analysis_release(&a);
}

START_TEST(test_packed_content)
{
	expect_status("grep -q '^is_suid=n.*' /etc/t.conf", true);
	expect_status("grep -q '^is_suid=y.*' /etc/t.conf", false);
	expect_status("grep -qs '^is_suid=y' /etc/t.flagged", true);
	expect_status("grep -q -E '^is_suid=(yes|no)$' /etc/t.conf", true);
	expect_status("egrep -q '^is_suid=(y|x)' /etc/t.conf", false);
	expect_status("grep -q 'is_suid=\\(no\\|yes\\)' /etc/t.conf", true);
	expect_status("grep -qF 'is_suid=n.*' /etc/t.conf", false);
	expect_status("fgrep -q 'is_suid=no' /etc/t.conf", true);
	expect_status("grep -qi '^mode quiet' /etc/t.conf", true);
	expect_status("grep -q '^mode quiet' /etc/t.conf", false);
	expect_status("grep -qv '^#' /etc/t.conf", true);
	expect_status("grep -q -e '^#' -- /etc/t.conf", true);
	expect_status("cd /etc && grep -q is_suid=no t.conf", true);
	/* not a conffile: its content is always as packed */
	expect_status("grep -q '^is_suid=yes' /usr/share/t.list", true);
}
END_TEST

START_TEST(test_conffiles_read)
{
	struct ms_analysis a = run("grep -q x /etc/t.conf || true\n"
				   "grep -q x /etc/t.flagged || true\n"
				   "grep -q x /usr/share/t.list || true\n", NULL);

	/* conffiles, flags such as remove-on-upgrade read past; a plain file is not one */
	ck_assert_uint_eq(a.n_conffiles, 2);
	ck_assert_str_eq(a.conffiles[0], "/etc/t.conf");
	ck_assert_str_eq(a.conffiles[1], "/etc/t.flagged");
	ms_analysis_release(&a);

	/* a while read loop over a conffile reads it as packed too */
	a = run("while read l; do :; done < /etc/t.conf", NULL);
	ck_assert_uint_eq(a.n_conffiles, 1);
	ck_assert_str_eq(a.conffiles[0], "/etc/t.conf");
	ms_analysis_release(&a);
}
END_TEST

START_TEST(test_not_decided)
{
	/* the alternative where the administrator changed the conffile */
	expect_unknown("grep -q '^is_suid=n' /etc/t.conf", "/etc/t.conf");
	/* not the package's file, or one the script wrote first */
	expect_unknown("grep -q '^is_suid=n' /etc/other.conf", NULL);
	expect_unknown("echo is_suid=yes > /etc/t.conf; grep -q '^is_suid=n' /etc/t.conf", NULL);
	/* text or pattern a locale may read differently, a pattern of several lines */
	expect_unknown("grep -q '^is_suid=y' /etc/t.bin", NULL);
	expect_unknown("grep -q '\xc3\xa9' /etc/t.conf", NULL);
	expect_unknown("grep -q 'x\ny' /etc/t.conf", NULL);
	/* standard input, several files, options the model does not read, a bad pattern */
	expect_unknown("grep -q is_suid < /etc/t.conf", NULL);
	expect_unknown("grep -q is_suid - < /etc/t.conf", NULL);
	expect_unknown("grep -q is_suid /etc/t.conf /etc/t.flagged", NULL);
	expect_unknown("grep -qx is_suid=no /etc/t.conf", NULL);
	expect_unknown("grep -qw is_suid /etc/t.conf", NULL);
	expect_unknown("grep -q -f /etc/t.conf /etc/t.conf", NULL);
	expect_unknown("grep -qE '(' /etc/t.conf", NULL);
	/* a name not known */
	expect_unknown("grep -q is_suid \"$(cat /etc/name)\"", NULL);
	expect_unknown("grep -q is_suid /etc/*.conf", NULL);
}
END_TEST

Suite *msgrep_suite(void)
{
	Suite *s = suite_create("msgrep");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_packed_content);
	tcase_add_test(tc, test_conffiles_read);
	tcase_add_test(tc, test_not_decided);
	suite_add_tcase(s, tc);
	return s;
}
