/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Waivers files: the line format, every refusal with its file and line, expiry, matching,
 * and reading beneath a root. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <check.h>

#include "audit.h"
#include "error.h"
#include "fixture.h"
#include "suites.h"
#include "waiver.h"

static struct waiver_list parse_ok(const char *text)
{
	struct waiver_list l = { 0 };
	struct s2c_error err = { 0 };
	int r = waiver_parse(&l, text, strlen(text), "w", &err);

	ck_assert_msg(r == 0, "'%s': %d %s", text, r, err.msg);
	return l;
}

/* The message of refusing @text (@len bytes), or fails. */
static void refused(const char *text, size_t len, const char *msg)
{
	struct waiver_list l = { 0 };
	struct s2c_error err = { 0 };
	int r = waiver_parse(&l, text, len, "w", &err);

	ck_assert_int_eq(r, -EINVAL);
	ck_assert_msg(strcmp(err.msg, msg) == 0, "got '%s', want '%s'", err.msg, msg);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_ptr_null(l.v);
	waiver_list_release(&l);        /* the problems it names */
}

START_TEST(test_format)
{
	struct waiver_list l = parse_ok(
		"# site waivers\n"
		"\n"
		"S2C003 /usr/bin/su   su must switch users  \n"
		"\t  # an indented comment\n"
		"S2C001\t/usr/local/bin/ping*\texpires=2027-06-30\tvendor fix # pending\r\n"
		"S2C008 /opt/a\\ b/prog a blank in the path");

	ck_assert_uint_eq(l.n, 3);
	ck_assert_uint_eq(l.v[0].finding, AUDIT_KEEP);
	ck_assert_str_eq(l.v[0].pattern, "/usr/bin/su");
	ck_assert_str_eq(l.v[0].reason, "su must switch users");
	ck_assert_str_eq(l.v[0].expires, "");
	ck_assert_str_eq(l.v[0].source, "w line 3");
	ck_assert_uint_eq(l.v[1].finding, AUDIT_MIGRATE);
	ck_assert_str_eq(l.v[1].pattern, "/usr/local/bin/ping*");
	ck_assert_str_eq(l.v[1].expires, "2027-06-30");
	/* '#' after the start of a line is part of the reason. */
	ck_assert_str_eq(l.v[1].reason, "vendor fix # pending");
	ck_assert_str_eq(l.v[1].source, "w line 5");
	ck_assert_uint_eq(l.v[2].finding, AUDIT_WRITABLE);
	ck_assert_str_eq(l.v[2].pattern, "/opt/a\\ b/prog");
	ck_assert_str_eq(l.v[2].reason, "a blank in the path");
	ck_assert(waiver_matches(&l.v[2], AUDIT_WRITABLE, "/opt/a b/prog"));
	{
		char *text = audit_waiver_text(&l.v[1]);
		ck_assert_str_eq(text, "S2C001 (w line 5, expires 2027-06-30): vendor fix # pending");
		free(text);
	}
	/* A second file appends. */
	{
		struct s2c_error err = { 0 };
		ck_assert_int_eq(waiver_parse(&l, "S2C004 /x y\n", 12, "v", &err), 0);
		ck_assert_uint_eq(l.n, 4);
		ck_assert_str_eq(l.v[3].source, "v line 1");
	}
	waiver_list_release(&l);
	ck_assert_uint_eq(l.n, 0);
	l = parse_ok("");
	ck_assert_uint_eq(l.n, 0);
	l = parse_ok("# nothing\n\n   \n");
	ck_assert_uint_eq(l.n, 0);
}
END_TEST

START_TEST(test_refused)
{
	refused("S2C099 /usr/bin/su x\n", 21,
		"'w' line 1: expected a finding id (S2C001 to S2C008) first");
	refused("s2c003 /usr/bin/su x\n", 21,
		"'w' line 1: expected a finding id (S2C001 to S2C008) first");
	refused("# ok\nS2C003\n", 12, "'w' line 2: a path or glob must follow the finding id");
	refused("S2C003 /usr/bin/su\n", 19, "'w' line 1: a waiver needs a reason after the path");
	refused("S2C003 /usr/bin/su expires=2027-01-01\n", 38,
		"'w' line 1: a waiver needs a reason after the path");
	refused("S2C003 usr/bin/su x\n", 20, "'w' line 1: 'usr/bin/su': not an absolute path");
	refused("S2C003 /usr/bin/[su x\n", 22, "'w' line 1: '/usr/bin/[su': unclosed '['");
	refused("S2C003 /usr/../su x\n", 20,
		"'w' line 1: '/usr/../su': has a '.' or '..' component");
	refused("S2C003 /su expires=2027-02-29 x\n", 32,
		"'w' line 1: '/su': the expiry date must be a day written YYYY-MM-DD");
	refused("S2C003 /su expires=27-01-01 x\n", 30,
		"'w' line 1: '/su': the expiry date must be a day written YYYY-MM-DD");
	refused("S2C003 /su expires=2027-13-01 x\n", 32,
		"'w' line 1: '/su': the expiry date must be a day written YYYY-MM-DD");
	refused("S2C003 /su a\x01 b\n", 16, "'w' line 1: a control character in the line");
	refused("S2C003 /su \xff\n", 13, "'w' line 1: not valid UTF-8");
	refused("\n\nS2C003 /su a\0b\n", 17, "'w' line 3: a NUL byte in the line");
	/* A refusal keeps what earlier files gave. */
	{
		struct waiver_list l = parse_ok("S2C003 /su ok\n");
		struct s2c_error err = { 0 };
		ck_assert_int_eq(waiver_parse(&l, "S2C003 /a ok\nbad\n", 17, "v", &err), -EINVAL);
		ck_assert_str_eq(err.msg, "'v' line 2: expected a finding id (S2C001 to S2C008) first");
		ck_assert_uint_eq(l.n, 1);
		waiver_list_release(&l);
	}
	/* Every malformed line is named, not only the first; none of the file's waivers count. */
	{
		static const char text[] = "S2C003 /a ok\nbad\n\nS2C003 rel why\n# c\nS2C003 /b\n"
					   "S2C003 /c fine\n\0\n";
		struct waiver_list l = { 0 };
		struct s2c_error err = { 0 };
		ck_assert_int_eq(waiver_parse(&l, text, sizeof(text) - 1, "v", &err), -EINVAL);
		ck_assert_str_eq(err.msg, "'v' line 2: expected a finding id (S2C001 to S2C008) first");
		ck_assert_uint_eq(l.n, 0);
		ck_assert_uint_eq(l.n_problems, 4);
		ck_assert_str_eq(l.problems[0], err.msg);
		ck_assert_str_eq(l.problems[1], "'v' line 4: 'rel': not an absolute path");
		ck_assert_str_eq(l.problems[2], "'v' line 6: a waiver needs a reason after the path");
		ck_assert_str_eq(l.problems[3], "'v' line 8: a NUL byte in the line");
		ck_assert_ptr_null(l.problems[4]);
		waiver_list_release(&l);
		ck_assert_ptr_null(l.problems);
	}
}
END_TEST

START_TEST(test_expiry_and_match)
{
	struct waiver_list l = parse_ok("S2C001 /usr/bin/* expires=2024-02-29 leap day\n"
					"S2C003 /usr/bin/su forever\n");

	ck_assert(!waiver_expired(&l.v[0], "2024-02-29T23:59:59Z"));
	ck_assert(waiver_expired(&l.v[0], "2024-03-01T00:00:00Z"));
	ck_assert(!waiver_expired(&l.v[0], NULL));
	ck_assert(!waiver_expired(&l.v[1], "9999-12-31"));
	ck_assert(waiver_matches(&l.v[0], AUDIT_MIGRATE, "/usr/bin/ping"));
	ck_assert(!waiver_matches(&l.v[0], AUDIT_MIGRATE, "/usr/bin/sub/ping"));
	ck_assert(!waiver_matches(&l.v[0], AUDIT_KEEP, "/usr/bin/ping"));
	ck_assert(waiver_matches(&l.v[1], AUDIT_KEEP, "/usr/bin/su"));
	ck_assert(!waiver_matches(&l.v[1], AUDIT_KEEP, "/usr/bin/sudo"));
	waiver_list_release(&l);
}
END_TEST

START_TEST(test_load)
{
	char *root = fx_tempdir();
	struct waiver_list l = { 0 };
	struct s2c_error err = { 0 };
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(rootfd, 0);
	/* Missing beneath the root: nothing to read, no error. */
	ck_assert_int_eq(waiver_load(&l, rootfd, "/etc/suid2cap/waivers", "W", true, false, &err), 0);
	fx_mkdirs(root, "etc/suid2cap");
	fx_file(root, "etc/suid2cap/real", 0644, "S2C003 /usr/bin/su ok\n");
	fx_symlink(root, "etc/suid2cap/waivers", "real");
	ck_assert_int_eq(waiver_load(&l, rootfd, "/etc/suid2cap/waivers", "W", true, false, &err),
			 -ELOOP);
	ck_assert_str_eq(err.msg, "waivers file 'W' is or passes through a symbolic link, "
			 "refusing it");
	ck_assert_int_eq(waiver_load(&l, rootfd, "/etc/suid2cap/real", "W", true, false, &err), 1);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.v[0].source, "W line 1");
	if (geteuid() == 0) {
		/* Trusted: written by someone other than root, it is refused. */
		fx_chown(root, "etc/suid2cap/real", 1, 0);
		s2c_error_clear(&err);
		ck_assert_int_eq(waiver_load(&l, rootfd, "/etc/suid2cap/real", "W", true, true, &err),
				 -EPERM);
		ck_assert_str_eq(err.msg, "waivers file 'W' is not owned by root, refusing it");
		fx_chown(root, "etc/suid2cap/real", 0, 0);
	}
	{
		char *open_path = fx_path(root, "etc/suid2cap/open");
		fx_file(root, "etc/suid2cap/open", 0666, "S2C003 /usr/bin/su ok\n");
		ck_assert_int_eq(chmod(open_path, 0666), 0);
		free(open_path);
	}
	/* Writable by others (or, not root, not owned by root): refused when trusted. */
	ck_assert_int_eq(waiver_load(&l, rootfd, "/etc/suid2cap/open", "O", true, true, &err),
			 -EPERM);
	/* Given by name, a missing file is an error. */
	ck_assert_int_eq(waiver_load(&l, AT_FDCWD, "/nonexistent/waivers", "/nonexistent/waivers",
				     false, false, &err), -ENOENT);
	ck_assert_uint_eq(l.n, 1);
	waiver_list_release(&l);
	close(rootfd);
	fx_rmrf(root);
	free(root);
}
END_TEST

Suite *waiver_suite(void)
{
	Suite *s = suite_create("waiver");
	TCase *tc = tcase_create("waiver");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_expiry_and_match);
	tcase_add_test(tc, test_load);
	suite_add_tcase(s, tc);
	return s;
}
