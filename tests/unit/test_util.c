/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "error.h"
#include "suites.h"
#include "trust.h"
#include "util.h"

START_TEST(test_parse_u64)
{
	uint64_t v = 42;

	ck_assert_int_eq(parse_u64("123", 10, 1000, &v), 0);
	ck_assert_uint_eq(v, 123);
	ck_assert_int_eq(parse_u64("0x1f", 0, 1000, &v), 0);
	ck_assert_uint_eq(v, 31);
	v = 7;
	ck_assert_int_eq(parse_u64("", 10, 1000, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("-1", 10, 1000, &v), -EINVAL);
	ck_assert_int_eq(parse_u64(" 1", 10, 1000, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("12x", 10, 1000, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("1001", 10, 1000, &v), -ERANGE);
	ck_assert_int_eq(parse_u64("99999999999999999999999", 10, UINT64_MAX, &v), -ERANGE);
	ck_assert_uint_eq(v, 7); /* untouched on failure */
}
END_TEST

START_TEST(test_utf8)
{
	ck_assert(utf8_valid("plain", 5));
	ck_assert(utf8_valid("caf\xc3\xa9", 5));
	ck_assert(!utf8_valid("\xff", 1));
	ck_assert(!utf8_valid("\xc0\xaf", 2));          /* overlong '/' */
	ck_assert(!utf8_valid("\xed\xa0\x80", 3));      /* surrogate */
	ck_assert(!utf8_valid("\xe2\x82", 2));          /* truncated */
}
END_TEST

START_TEST(test_escape_text)
{
	char *s = escape_text("a\nb\tc\\d\x1b[31m\xff\xc3\xa9");

	ck_assert_str_eq(s, "a\\nb\\tc\\\\d\\x1b[31m\\xff\xc3\xa9");
	free(s);
	s = escape_text("\xc2\x9b"); /* C1 CSI must not reach a terminal */
	ck_assert_str_eq(s, "\\xc2\\x9b");
	free(s);
}
END_TEST

START_TEST(test_sanitise_and_hex)
{
	char *s = utf8_sanitise("a\xffz");
	char hex[16], *buf;
	size_t len;

	ck_assert_str_eq(s, "a\xef\xbf\xbdz");
	free(s);
	hex_encode("\x01\xab", 2, hex);
	ck_assert_str_eq(hex, "01ab");
	ck_assert_int_eq(hex_decode("01AB", &buf, &len), 0);
	ck_assert_uint_eq(len, 2);
	ck_assert_int_eq((unsigned char)buf[1], 0xab);
	free(buf);
	ck_assert_int_eq(hex_decode("0", &buf, &len), -EINVAL);
	ck_assert_int_eq(hex_decode("zz", &buf, &len), -EINVAL);
}
END_TEST

START_TEST(test_path_join)
{
	char *p = path_join("/", "usr");

	ck_assert_str_eq(p, "/usr");
	free(p);
	p = path_join("/usr/", "/bin");
	ck_assert_str_eq(p, "/usr/bin");
	free(p);
}
END_TEST

START_TEST(test_error)
{
	struct s2c_error err = { 0 };

	ck_assert_int_eq(s2c_error_set(&err, EINVAL, "bad %s", "thing"), -EINVAL);
	ck_assert_str_eq(err.msg, "bad thing");
	ck_assert_int_eq(s2c_error_prefix(&err, "file '%s'", "x"), -EINVAL);
	ck_assert_str_eq(err.msg, "file 'x': bad thing");
	ck_assert_int_eq(s2c_error_errno(&err, -ENOENT, "cannot open"), -ENOENT);
	ck_assert_str_eq(err.msg, "cannot open: No such file or directory");
	ck_assert_int_eq(s2c_error_set(NULL, -EIO, "ignored"), -EIO);
}
END_TEST

START_TEST(test_trust)
{
	struct s2c_error err = { 0 };

	ck_assert_int_eq(trust_check(0, 0100644, TRUST_SHARED, "plan", "p", &err), 0);
	ck_assert_int_eq(trust_check(0, 0100755, TRUST_SHARED, "plan", "p", &err), 0);
	ck_assert_int_eq(trust_check(0, 0100600, TRUST_PRIVATE, "journal", "j", &err), 0);
	ck_assert_int_eq(trust_check(1000, 0100644, TRUST_SHARED, "plan", "p", &err), -EPERM);
	ck_assert_str_eq(err.msg, "plan 'p' is not owned by root, refusing it");
	ck_assert_int_eq(trust_check(0, 0100664, TRUST_SHARED, "plan", "p", &err), -EPERM);
	ck_assert_str_eq(err.msg, "plan 'p' is writable by group or others, refusing it");
	ck_assert_int_eq(trust_check(0, 0100602, TRUST_SHARED, "plan", "p", &err), -EPERM);
	/* private records: not even readable by others */
	ck_assert_int_eq(trust_check(0, 0100644, TRUST_PRIVATE, "journal", "j", &err), -EPERM);
	ck_assert_str_eq(err.msg, "journal 'j' is accessible by group or others (mode 0644), "
			 "refusing it");
	ck_assert_int_eq(trust_check(0, 040710, TRUST_PRIVATE, "state directory", "d", &err), -EPERM);
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");

	tcase_add_test(tc, test_parse_u64);
	tcase_add_test(tc, test_utf8);
	tcase_add_test(tc, test_escape_text);
	tcase_add_test(tc, test_sanitise_and_hex);
	tcase_add_test(tc, test_path_join);
	tcase_add_test(tc, test_error);
	tcase_add_test(tc, test_trust);
	suite_add_tcase(s, tc);
	return s;
}
