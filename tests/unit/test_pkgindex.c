/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the indexes that keep the checks of a package's scripts
 * linear (pkg/maintcheck.c, the kernel modules of pkg/member.c): each answers
 * as the pass over every member it replaces did, for exact paths, trees,
 * globs by their directory and with a wildcard in it, "below" in byte order,
 * and module names as members come and go.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maintscript.h"
#include "member.h"
#include "suites.h"

static struct memberset members;

static void add(const char *path, enum member_type type, uint32_t mode)
{
	struct member *m = member_new(path);

	ck_assert_ptr_nonnull(m);
	m->type = type;
	m->mode = mode;
	ck_assert_int_eq(memberset_put(&members, m), 0);
}

static void setup(void)
{
	static const char *const plain[] = { "/usr/bin/tool", "/opt/tree/sub/f", "/opt/treex/f",
					     "/usr/lib/plug/a.so", "/usr/lib/plug/sub/b.so",
					     "/usr/lib/x/f", "/usr/lib/y/f" };
	static const char *const setuid[] = { "/a/s", "/a/b/t", "/ab/s", "/usr/bin/suid" };

	members = (struct memberset){ 0 };
	for (size_t i = 0; i < sizeof(plain) / sizeof(*plain); i++)
		add(plain[i], MEMBER_FILE, 0755);
	for (size_t i = 0; i < sizeof(setuid) / sizeof(*setuid); i++)
		add(setuid[i], MEMBER_FILE, 04755);
	add("/a/dir", MEMBER_DIR, 04755);       /* set-ID bits on a directory: not a file */
}

static void teardown(void)
{
	memberset_release(&members);
}

/* How many of what @text as a postinst could not work out contain @what. */
static size_t count(const char *text, const char *what)
{
	static const char *const configure[] = { "configure", "" };
	struct ms_context ctx = { .args = configure, .n_args = 2, .arch = "amd64",
				  .package = "s2c-test", .members = &members, .stagefd = -1 };
	struct ms_analysis a = { 0 };
	size_t n = 0;

	ck_assert_int_eq(maintscript_analyse("postinst", text, strlen(text), &ctx, &a), 0);
	ck_assert_int_eq(maintscript_check(&a, &members), 0);
	for (size_t i = 0; i < a.n_incomplete; i++)
		n += strstr(a.incomplete[i], what) != NULL;
	ms_analysis_release(&a);
	return n;
}

#define PRIV(p) "'" p "', which is privileged"

START_TEST(test_check_named)
{
	/* exact */
	ck_assert_uint_eq(count("chmod 4755 /usr/bin/tool\nrm -f /usr/bin/tool\n",
				PRIV("/usr/bin/tool")), 1);
	ck_assert_uint_eq(count("chmod 0755 /usr/bin/tool\nrm -f /usr/bin/tool\n", "privileged"),
			  0);
	/* a tree: below its root only, not a sibling that starts alike */
	ck_assert_uint_eq(count("chmod -R u+s /opt/tree\nrm -f /opt/tree/sub/f\n",
				PRIV("/opt/tree/sub/f")), 1);
	ck_assert_uint_eq(count("chmod -R u+s /opt/tree\nrm -f /opt/treex/f\n", "privileged"), 0);
	/* a glob by its directory: not below it */
	ck_assert_uint_eq(count("chmod u+s /usr/lib/plug/*.so\nrm -f /usr/lib/plug/a.so\n",
				PRIV("/usr/lib/plug/a.so")), 1);
	ck_assert_uint_eq(count("chmod u+s /usr/lib/plug/*.so\nrm -f /usr/lib/plug/sub/b.so\n",
				"privileged"), 0);
	/* a glob with a wildcard in its directory */
	ck_assert_uint_eq(count("chmod u+s /usr/l?b/[xz]/f\nrm -f /usr/lib/x/f\n",
				PRIV("/usr/lib/x/f")), 1);
	ck_assert_uint_eq(count("chmod u+s /usr/l?b/[xz]/f\nrm -f /usr/lib/y/f\n", "privileged"),
			  0);
	/* a directory is never a privileged file */
	ck_assert_uint_eq(count("rm -f /a/dir\n", "privileged"), 0);
}
END_TEST

START_TEST(test_check_below)
{
	/* the first privileged member below, in byte order */
	ck_assert_uint_eq(count("rm -rf /a\n", PRIV("/a/b/t")), 1);
	ck_assert_uint_eq(count("rm -rf /ab\n", PRIV("/ab/s")), 1);
	ck_assert_uint_eq(count("rm -rf /abc\n", "privileged"), 0);
	ck_assert_uint_eq(count("rm -rf /\n", PRIV("/a/b/t")), 1);
	ck_assert_uint_eq(count("rm -rf /opt\n", "privileged"), 0);
	ck_assert_uint_eq(count("chmod -R u+s /opt/tree\nrm -rf /opt\n", PRIV("/opt/tree/sub/f")),
			  1);
	/* a file it cannot name, with privileged files */
	ck_assert_uint_eq(count("rm -f \"$(cat /etc/x)\"\n", "and the package has privileged"), 1);
	/* said once, however often the line runs */
	ck_assert_uint_eq(count("for i in 1 2 3; do rm -f /usr/bin/suid; done\n",
				PRIV("/usr/bin/suid")), 1);
}
END_TEST

START_TEST(test_check_unprivileged)
{
	memberset_release(&members);
	add("/usr/bin/tool", MEMBER_FILE, 0755);
	ck_assert_uint_eq(count("rm -f \"$(cat /etc/x)\"\nrm -rf /\n", "privileged"), 0);
	ck_assert_uint_eq(count("chmod u+s /usr/bin/*\nrm -rf /\n", PRIV("/usr/bin/tool")), 1);
}
END_TEST

START_TEST(test_modules)
{
	static const char *const load = "modprobe s2cmod\n";
	static const char *const ships = "a kernel module the package ships";

	ck_assert(!memberset_ships_module(&members, "s2cmod"));
	add("/lib/modules/6.1.0/extra/s2cmod.ko.xz", MEMBER_FILE, 0644);
	add("/usr/share/s2cother.ko", MEMBER_FILE, 0644);       /* not a module directory */
	ck_assert(memberset_ships_module(&members, "s2cmod"));
	ck_assert(!memberset_ships_module(&members, "s2cmo"));
	ck_assert(!memberset_ships_module(&members, "s2cother"));
	ck_assert_uint_eq(count(load, ships), 1);
	ck_assert_uint_eq(count("modprobe s2cmo\n", ships), 0);
	/* every ".ko" a name ends before counts, and the names go with their member */
	add("/usr/lib/modules/6.1.0/a.ko.b.ko", MEMBER_DIR, 0755);
	ck_assert(memberset_ships_module(&members, "a"));
	ck_assert(memberset_ships_module(&members, "a.ko.b"));
	add("/usr/lib/modules/6.1.0/a.ko.b.ko", MEMBER_FILE, 0644);     /* replaced: still there */
	ck_assert(memberset_ships_module(&members, "a.ko.b"));
	add("/lib/modules/6.1.0/extra/a.ko", MEMBER_FILE, 0644);
	ck_assert_uint_eq(memberset_remove(&members, "/usr/lib/modules", true), 1);
	ck_assert(memberset_ships_module(&members, "a"));
	ck_assert(!memberset_ships_module(&members, "a.ko.b"));
	ck_assert_uint_eq(memberset_remove(&members, "/lib/modules/6.1.0/extra/s2cmod.ko.xz",
					   false), 1);
	ck_assert(!memberset_ships_module(&members, "s2cmod"));
	ck_assert_uint_eq(count(load, ships), 0);
	/* many of them: each found */
	for (int i = 0; i < 2000; i++) {
		char path[64];
		(void)snprintf(path, sizeof(path), "/lib/modules/6.1.0/m%d.ko", i);
		add(path, MEMBER_FILE, 0644);
	}
	ck_assert(memberset_ships_module(&members, "m0") && memberset_ships_module(&members, "m1999"));
	ck_assert(!memberset_ships_module(&members, "m2000"));
}
END_TEST

Suite *pkgindex_suite(void)
{
	Suite *s = suite_create("pkgindex");
	TCase *tc = tcase_create("pkgindex");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_check_named);
	tcase_add_test(tc, test_check_below);
	tcase_add_test(tc, test_check_unprivileged);
	tcase_add_test(tc, test_modules);
	suite_add_tcase(s, tc);
	return s;
}
