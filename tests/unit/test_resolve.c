/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>

#include "fixture.h"
#include "resolve.h"
#include "suites.h"

static char *root;
static int rootfd = -1;

static void setup(void)
{
	root = fx_tempdir();
	fx_file(root, "usr/bin/su", 04755, "x");
	fx_symlink(root, "bin", "usr/bin");                 /* usrmerge */
	fx_symlink(root, "usr/bin/evil", "/etc/shadow");     /* final symlink */
	fx_symlink(root, "usr/escape", "../../..");
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(rootfd, 0);
}

static void teardown(void)
{
	close(rootfd);
	fx_rmrf(root);
	free(root);
}

typedef int (*opener)(int, const char *, int);

static void check_opener(opener fn)
{
	struct stat st;
	int fd;

	fd = fn(rootfd, "/usr/bin/su", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(st.st_mode & S_ISUID);
	close(fd);
	fd = fn(rootfd, "usr//bin/./su", O_PATH);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* A symlink anywhere is refused, with the parent or as the file. */
	ck_assert_int_eq(fn(rootfd, "/bin/su", O_RDONLY), -ELOOP);
	ck_assert_int_eq(fn(rootfd, "/usr/bin/evil", O_RDONLY), -ELOOP);
	ck_assert_int_eq(fn(rootfd, "/usr/bin/evil", O_PATH), -ELOOP);
	ck_assert_int_eq(fn(rootfd, "/usr/escape/etc", O_PATH), -ELOOP);
	ck_assert_int_eq(fn(rootfd, "/usr/../etc", O_PATH), -EINVAL);
	ck_assert_int_eq(fn(rootfd, "/usr/bin/missing", O_RDONLY), -ENOENT);
	fd = fn(rootfd, "/", O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

START_TEST(test_openat2)
{
	check_opener(resolve_open);
}
END_TEST

START_TEST(test_walk_fallback)
{
	check_opener(resolve_open_walk);
}
END_TEST

START_TEST(test_normalise)
{
	char *p = resolve_normalise("usr//bin/./");

	ck_assert_str_eq(p, "/usr/bin");
	free(p);
	p = resolve_normalise("///");
	ck_assert_str_eq(p, "/");
	free(p);
	ck_assert_ptr_null(resolve_normalise("/a/../b"));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(resolve_normalise(""));
}
END_TEST

START_TEST(test_parent)
{
	const char *name = NULL;
	int fd = resolve_open_parent(rootfd, "/usr/bin/su", &name);

	ck_assert_int_ge(fd, 0);
	ck_assert_str_eq(name, "su");
	close(fd);
	ck_assert_int_eq(resolve_open_parent(rootfd, "/bin/su", &name), -ELOOP);
	ck_assert_int_eq(resolve_open_parent(rootfd, "/", &name), -EINVAL);
}
END_TEST

Suite *resolve_suite(void)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("resolve");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_openat2);
	tcase_add_test(tc, test_walk_fallback);
	tcase_add_test(tc, test_normalise);
	tcase_add_test(tc, test_parent);
	suite_add_tcase(s, tc);
	return s;
}
