/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "error.h"
#include "mounts.h"
#include "suites.h"

static const char sample[] =
	"22 27 0:21 / /proc rw,relatime shared:5 - proc proc rw\n"
	"27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
	"28 27 0:25 / /mnt/with\\040space ro,nosuid,nodev,relatime - tmpfs my\\040src ro\n"
	"29 27 8:1 / /usr-local rw,noexec master:3 - xfs /dev/sda1 rw\n"
	"30 27 8:2 / /usr/local rw - ext4 /dev/sda2 rw\n"
	"31 30 8:3 / /usr/local rw,nosuid - ext4 /dev/sda3 rw\n"
	"32 27 0:30 / /sys rw - sysfs sysfs rw\n";

static struct mounts *parse(const char *text)
{
	FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
	struct mounts *m = NULL;
	struct s2c_error err = { 0 };

	ck_assert_ptr_nonnull(f);
	ck_assert_msg(mounts_parse(f, &m, &err) == 0, "%s", err.msg);
	fclose(f);
	return m;
}

START_TEST(test_parse)
{
	struct mounts *m = parse(sample);
	const struct mount_entry *e;

	ck_assert_uint_eq(m->n, 7);
	e = mounts_at(m, "/mnt/with space");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->fstype, "tmpfs");
	ck_assert_str_eq(e->source, "my src");
	ck_assert(e->flags & MOUNT_NOSUID);
	ck_assert(e->flags & MOUNT_RDONLY);
	ck_assert(!(e->flags & MOUNT_NOEXEC));
	ck_assert(!e->pseudo);
	ck_assert(mounts_at(m, "/proc")->pseudo);
	ck_assert(mounts_at(m, "/sys")->pseudo);
	ck_assert(mounts_at(m, "/usr-local")->flags & MOUNT_NOEXEC);
	ck_assert_uint_eq(mounts_at(m, "/usr-local")->major, 8);
	ck_assert_uint_eq(mounts_at(m, "/usr-local")->minor, 1);
	/* Stacked mounts: the later one is on top. */
	ck_assert_uint_eq(mounts_at(m, "/usr/local")->id, 31);
	ck_assert_ptr_null(mounts_at(m, "/usr"));
	ck_assert_uint_eq(mounts_by_id(m, 29)->id, 29);
	ck_assert_ptr_null(mounts_by_id(m, 99));
	mounts_free(m);
}
END_TEST

START_TEST(test_below_and_containing)
{
	struct mounts *m = parse(sample);

	ck_assert(mounts_below(m, "/"));
	ck_assert(mounts_below(m, "/usr"));          /* /usr/local, not fooled by /usr-local */
	ck_assert(!mounts_below(m, "/usr/local"));
	ck_assert(mounts_below(m, "/mnt"));
	ck_assert(!mounts_below(m, "/mn"));
	ck_assert(!mounts_below(m, "/etc"));
	ck_assert_uint_eq(mounts_containing(m, "/usr/local/bin/x")->id, 31);
	ck_assert_uint_eq(mounts_containing(m, "/usr/bin/x")->id, 27);
	ck_assert_uint_eq(mounts_containing(m, "/usr-local/x")->id, 29);
	ck_assert_uint_eq(mounts_containing(m, "/usr-localx")->id, 27);
	mounts_free(m);
}
END_TEST

START_TEST(test_malformed)
{
	static const char *const bad[] = {
		"22 27 0:21 / /proc rw\n",                       /* no separator */
		"x 27 0:21 / /proc rw - proc proc rw\n",         /* bad id */
		"22 27 021 / /proc rw - proc proc rw\n",         /* bad dev */
		"22 27 0:21 / proc rw - proc proc rw\n",         /* relative target */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fmemopen((void *)(uintptr_t)bad[i], strlen(bad[i]), "r");
		struct mounts *m = NULL;
		struct s2c_error err = { 0 };

		ck_assert_int_eq(mounts_parse(f, &m, &err), -EINVAL);
		ck_assert_str_eq(err.msg, "malformed mountinfo line 1");
		ck_assert_ptr_null(m);
		fclose(f);
	}
}
END_TEST

START_TEST(test_live)
{
	struct mounts *m = NULL;

	ck_assert_int_eq(mounts_load("/proc/self/mountinfo", &m, NULL), 0);
	ck_assert_ptr_nonnull(mounts_containing(m, "/etc/passwd"));
	mounts_free(m);
	ck_assert_int_eq(mounts_load("/nonexistent/mountinfo", &m, NULL), -ENOENT);
}
END_TEST

/* The layers of overlayfs mounts, as the kernel shows them in the super options. */
START_TEST(test_overlay_layers)
{
	/* Taken from a 6.18 kernel: mount -o "lowerdir=/t/lo\:w\,er:/t/lo2,upperdir=/t/up per,..." */
	static const char text[] =
		"69 46 0:40 / /t/merged rw,relatime - overlay overlay rw,lowerdir=/t/lo\\134:w"
		"\\134\\054er:/t/lo2,upperdir=/t/up\\040per,workdir=/t/work,uuid=on\n"
		"70 46 0:41 / /c rw - overlay overlay ro,lowerdir=/l1::/data1,datadir+=/d2,"
		"lowerdir+=/l3\n"
		"71 46 0:42 / /x rw - ext4 /dev/x rw,lowerdir=/not-overlay\n";
	struct mounts *m = parse(text);
	const struct mount_entry *e = mounts_at(m, "/t/merged");
	static const char *const want[][2] = {
		{ "/t/lo:w,er", "lowerdir" }, { "/t/lo2", "lowerdir" },
		{ "/t/up per", "upperdir" }, { "/t/work", "workdir" },
	};

	for (size_t i = 0; i < 4; i++) {
		ck_assert_ptr_nonnull(e->overlay_dirs[i]);
		ck_assert_str_eq(e->overlay_dirs[i], want[i][0]);
		ck_assert_str_eq(e->overlay_kinds[i], want[i][1]);
	}
	ck_assert_ptr_null(e->overlay_dirs[4]);
	e = mounts_at(m, "/c");
	ck_assert_str_eq(e->overlay_dirs[0], "/l1");
	ck_assert_str_eq(e->overlay_dirs[1], "/data1");   /* "::" adds no empty layer */
	ck_assert_str_eq(e->overlay_dirs[2], "/d2");
	ck_assert_str_eq(e->overlay_kinds[2], "datadir+");
	ck_assert_str_eq(e->overlay_dirs[3], "/l3");
	ck_assert_ptr_null(e->overlay_dirs[4]);
	ck_assert_ptr_null(mounts_at(m, "/x")->overlay_dirs);
	mounts_free(m);
}
END_TEST

START_TEST(test_pseudo_names)
{
	ck_assert(mounts_fstype_is_pseudo("proc"));
	ck_assert(mounts_fstype_is_pseudo("cgroup2"));
	ck_assert(!mounts_fstype_is_pseudo("tmpfs"));
	ck_assert(!mounts_fstype_is_pseudo("ext4"));
	ck_assert(mounts_magic_is_pseudo(0x9fa0));
	ck_assert_str_eq(mounts_magic_name(0xef53), "ext4");
	ck_assert_ptr_null(mounts_magic_name(0x1234));
}
END_TEST

Suite *mounts_suite(void)
{
	Suite *s = suite_create("mounts");
	TCase *tc = tcase_create("mounts");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_below_and_containing);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_live);
	tcase_add_test(tc, test_pseudo_names);
	tcase_add_test(tc, test_overlay_layers);
	suite_add_tcase(s, tc);
	return s;
}
