/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rpm's lua scriptlets: harmless, modelled, or not analysed. */
#include <string.h>
#include <check.h>

#include "maintscript.h"
#include "rpmscript.h"
#include "suites.h"

static const char *const one[] = { "1" };

static struct ms_analysis lua(const char *text)
{
	struct ms_context ctx = { .args = one, .n_args = 1, .arch = "x86_64", .stagefd = -1 };
	struct ms_analysis a = { 0 };

	ck_assert_int_eq(rpmscript_lua("%post", text, strlen(text), &ctx, &a), 0);
	return a;
}

START_TEST(test_lua_harmless)
{
	static const char *const ok[] = {
		"print(\"hello\")",
		"-- os.execute('chmod 4755 /x') only in a comment\nprint('posix.chmod')",
		"--[==[ io.open ]==] local t = { a = 1 } print(string.format('%d', t.a))",
		"local s = [[os.execute(\"x\")]] print(s:upper())",
		"#!<lua>\nfor i = 1, 3 do print(i) end",
		"",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		struct ms_analysis a = lua(ok[i]);
		ck_assert_msg(a.n == 0 && a.n_incomplete == 0, "%s", ok[i]);
		ms_analysis_release(&a);
	}
}
END_TEST

START_TEST(test_lua_modelled)
{
	struct ms_analysis a = lua("posix.chmod(\"/usr/bin/x\", \"4755\")\n"
				   "posix.chown('/usr/bin/y', 'daemon', 'bin');\n"
				   "rpm.execute('/usr/sbin/setcap', 'cap_net_raw+ep', '/usr/bin/z')\n"
				   "os.execute(\"chmod g+s /usr/bin/w\")\n"
				   "print('done')");

	ck_assert_uint_eq(a.n_incomplete, 0);
	ck_assert_uint_eq(a.n, 4);
	ck_assert_int_eq(a.v[0].kind, MS_CHMOD);
	ck_assert_str_eq(a.v[0].path, "/usr/bin/x");
	ck_assert_str_eq(a.v[0].mode, "4755");
	ck_assert_int_eq(a.v[1].kind, MS_CHOWN);
	ck_assert_str_eq(a.v[1].owner, "daemon");
	ck_assert_str_eq(a.v[1].group, "bin");
	ck_assert_int_eq(a.v[2].kind, MS_SETCAP);
	ck_assert_str_eq(a.v[3].path, "/usr/bin/w");
	ms_analysis_release(&a);
}
END_TEST

START_TEST(test_lua_not_analysed)
{
	static const char *const bad[] = {
		"local p = '/x' posix.chmod(p, '4755')",          /* not a literal */
		"if x then posix.chmod('/x', '4755') end",         /* not a plain list */
		"posix.chmod('/x', 2541)",                        /* a number */
		"posix.chmod('/x', '+s')",                        /* no who: umask rules differ */
		"local o = os o.execute('chmod 4755 /x')",        /* an alias */
		"_G['o'..'s'].execute('x')",
		"load('return 1')()",
		"require('posix')",
		"x = io.open('/etc/passwd', 'w')",
		"print('unterminated)",
		"posix.chmod('/x\\65', '4755')",                  /* an escape */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct ms_analysis a = lua(bad[i]);
		ck_assert_msg(a.n == 0 && a.n_incomplete == 1, "%s", bad[i]);
		ck_assert_msg(strstr(a.incomplete[0], "%post: a lua scriptlet") != NULL, "%s",
			      a.incomplete[0]);
		ms_analysis_release(&a);
	}
}
END_TEST

Suite *rpmlua_suite(void)
{
	Suite *s = suite_create("rpmlua");
	TCase *tc = tcase_create("lua");

	tcase_add_test(tc, test_lua_harmless);
	tcase_add_test(tc, test_lua_modelled);
	tcase_add_test(tc, test_lua_not_analysed);
	suite_add_tcase(s, tc);
	return s;
}
