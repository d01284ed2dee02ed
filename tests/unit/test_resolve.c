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
	fx_symlink(root, "usr/lib/abs", "/bin/su");          /* absolute, through a link */
	fx_symlink(root, "usr/bin/dangling", "nowhere");
	fx_symlink(root, "loop/a", "b");
	fx_symlink(root, "loop/b", "a");
	fx_file(root, "etc/shadow", 0600, "");
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

/* resolve_chase(@path) must succeed with @want (and @followed). */
static void chase_ok(const char *path, unsigned flags, const char *want, bool followed)
{
	char *got = NULL;
	bool f = !followed;
	int r = resolve_chase(rootfd, path, flags, &got, &f);

	ck_assert_msg(r == 0, "chase '%s': %s", path, strerror(-r));
	ck_assert_str_eq(got, want);
	ck_assert_msg(f == followed, "chase '%s': followed %d", path, f);
	free(got);
}

static void chase_fails(const char *path, unsigned flags, int want)
{
	char mark[] = "untouched";
	char *got = mark;
	int r = resolve_chase(rootfd, path, flags, &got, NULL);

	ck_assert_msg(r == want, "chase '%s': %d (%s), want %d", path, r, strerror(-r), want);
	ck_assert_ptr_eq(got, mark);            /* written only on success */
}

START_TEST(test_chase)
{
	/* usrmerge: /bin is a link, and so is what passes through it */
	chase_ok("/bin", 0, "/usr/bin", true);
	chase_ok("/bin/su", 0, "/usr/bin/su", true);
	chase_ok("bin/./su", 0, "/usr/bin/su", true);
	chase_ok("/usr/bin/su", 0, "/usr/bin/su", false);
	chase_ok("/", 0, "/", false);
	/* ".." is physical: after /bin -> usr/bin, ".." is /usr */
	chase_ok("/bin/..", 0, "/usr", true);
	chase_ok("/usr/bin/../bin/su", 0, "/usr/bin/su", false);
	/* an absolute target starts again at the root, not at the host's "/" */
	chase_ok("/usr/lib/abs", 0, "/usr/bin/su", true);
	/* links that climb out stay beneath the root */
	chase_ok("/usr/escape", 0, "/", true);
	chase_ok("/usr/escape/usr/bin/su", 0, "/usr/bin/su", true);
	chase_ok("/usr/bin/evil", 0, "/etc/shadow", true);  /* the root's, not the host's */
	/* ".." of the path itself: stays at the root, or refused with NO_CLIMB */
	chase_ok("/../usr/bin/su", 0, "/usr/bin/su", false);
	chase_fails("/../usr/bin/su", RESOLVE_CHASE_NO_CLIMB, -EXDEV);
	chase_fails("/usr/../../etc", RESOLVE_CHASE_NO_CLIMB, -EXDEV);
	chase_ok("/usr/bin/../../usr", RESOLVE_CHASE_NO_CLIMB, "/usr", false);
	/* NO_CLIMB is about the text given, not about a link's target */
	chase_ok("/usr/escape/etc", RESOLVE_CHASE_NO_CLIMB, "/etc", true);
	/* what does not exist, or is not a directory, or loops */
	chase_fails("/usr/bin/missing", 0, -ENOENT);
	chase_fails("/usr/bin/dangling", 0, -ENOENT);
	chase_fails("/usr/bin/evil/..", 0, -ENOTDIR);
	chase_fails("/usr/bin/su/x", 0, -ENOTDIR);
	chase_fails("/usr/bin/su/", 0, -ENOTDIR);
	chase_fails("/loop/a", 0, -ELOOP);
	chase_fails("", 0, -EINVAL);
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
	tcase_add_test(tc, test_chase);
	suite_add_tcase(s, tc);
	return s;
}
