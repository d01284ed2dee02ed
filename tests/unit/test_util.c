/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include <fnmatch.h>
#include <json-c/json.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include "dirlist.h"
#include "error.h"
#include "fixture.h"
#include "hashindex.h"
#include "jsonout.h"
#include "jsonread.h"
#include "spill.h"
#include "strhash.h"
#include "suites.h"
#include "tri.h"
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

/* @cp as UTF-8 into @buf (at least 5 bytes). */
static void put_utf8(uint32_t cp, char *buf)
{
	unsigned char *b = (unsigned char *)buf;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp, b[1] = 0;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		b[2] = 0;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f)), b[3] = 0;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f)), b[4] = 0;
	}
}

/* Terminal escape sequences: CSI (colours), OSC (window title), their C1 forms, ST. */
START_TEST(test_escape_terminal_sequences)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "\x1b]0;title\x07name", "\\x1b]0;title\\x07name" },
		{ "\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m" },
		{ "\x1b]8;;https://x\x1b\\link", "\\x1b]8;;https://x\\x1b\\\\link" },
		{ "\xc2\x9b" "31m", "\\xc2\\x9b31m" },                /* C1 CSI */
		{ "\xc2\x9d" "0;t\xc2\x9c", "\\xc2\\x9d0;t\\xc2\\x9c" }, /* C1 OSC ... ST */
		{ "del\x7f", "del\\x7f" },
		{ "\r\n\t\b", "\\r\\n\\t\\x08" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *e = escape_text(cases[i].in);

		ck_assert_str_eq(e, cases[i].out);
		ck_assert_ptr_null(strchr(e, '\x1b'));
		free(e);
	}
}
END_TEST

/* Every bidi control and the other format controls become \u{…}; other characters stay. */
START_TEST(test_escape_format_controls)
{
	static const uint32_t bidi[] = { 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067,
					 0x2068, 0x2069, 0x200e, 0x200f, 0x061c };
	static const uint32_t other[] = { 0x00ad, 0x0600, 0x0605, 0x06dd, 0x070f, 0x180e, 0x200b,
					  0x200c, 0x200d, 0x2028, 0x2029, 0x2060, 0x2064, 0x206a,
					  0x206f, 0xfeff, 0xfff9, 0xfffb, 0x110bd, 0x13430, 0x1343f,
					  0x1bca0, 0x1d173, 0x1d17a, 0xe0001, 0xe0020, 0xe0041,
					  0xe007f };
	static const uint32_t kept[] = { 0x00a0, 0x00e9, 0x0627, 0x05d0, 0x2027, 0x202f, 0x2065,
					 0x4e2d, 0xfe0f, 0xfffd, 0x1f600, 0xe0100 };
	char in[32], want[32], ch[8];

	for (size_t i = 0; i < sizeof(bidi) / sizeof(bidi[0]) + sizeof(other) / sizeof(other[0]);
	     i++) {
		uint32_t cp = i < sizeof(bidi) / sizeof(bidi[0]) ? bidi[i] :
			      other[i - sizeof(bidi) / sizeof(bidi[0])];
		char *e;

		ck_assert_msg(unicode_is_format_control(cp), "U+%04X", (unsigned)cp);
		put_utf8(cp, ch);
		(void)snprintf(in, sizeof(in), "a%sb", ch);
		(void)snprintf(want, sizeof(want), "a\\u{%04x}b", (unsigned)cp);
		e = escape_text(in);
		ck_assert_str_eq(e, want);
		free(e);
	}
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		char *e;

		ck_assert_msg(!unicode_is_format_control(kept[i]), "U+%04X", (unsigned)kept[i]);
		put_utf8(kept[i], ch);
		(void)snprintf(in, sizeof(in), "a%sb", ch);
		e = escape_text(in);
		ck_assert_str_eq(e, in);
		free(e);
	}
	ck_assert(!unicode_is_format_control('a'));
	ck_assert(!unicode_is_format_control(0x1b));    /* C0: escaped as \xNN, not \u{…} */
	ck_assert(!unicode_is_format_control(0x10ffff));
}
END_TEST

/* The worst expansion (four bytes out per byte in) fits: U+00AD is two bytes, eight out. */
START_TEST(test_escape_expansion)
{
	char in[2 * 64 + 1], *e;

	for (size_t i = 0; i < 64; i++)
		memcpy(in + 2 * i, "\xc2\xad", 2);
	in[2 * 64] = '\0';
	e = escape_text(in);
	ck_assert_uint_eq(strlen(e), 8 * 64);
	ck_assert(strncmp(e, "\\u{00ad}\\u{00ad}", 16) == 0);
	free(e);
	e = escape_text("\xf3\xa0\x81\x81\xff");        /* tag LATIN CAPITAL A, invalid byte */
	ck_assert_str_eq(e, "\\u{e0041}\\xff");
	free(e);
}
END_TEST

START_TEST(test_utf8_decode)
{
	uint32_t cp = 7;

	ck_assert_uint_eq(utf8_decode("\xe2\x80\xae", 3, &cp), 3);
	ck_assert_uint_eq(cp, 0x202e);
	ck_assert_uint_eq(utf8_decode("A", 1, &cp), 1);
	ck_assert_uint_eq(cp, 'A');
	cp = 7;
	ck_assert_uint_eq(utf8_decode("\xe2\x80\xae", 2, &cp), 0);   /* truncated */
	ck_assert_uint_eq(utf8_decode("\xc0\xaf", 2, &cp), 0);       /* overlong */
	ck_assert_uint_eq(utf8_decode("", 0, &cp), 0);
	ck_assert_uint_eq(cp, 7);                                    /* untouched on failure */
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

START_TEST(test_endswith)
{
	ck_assert(str_endswith("/usr/lib/a.so", ".so"));
	ck_assert(str_endswith(".so", ".so") && str_endswith("x", ""));
	ck_assert(!str_endswith("/usr/lib/a.so.1", ".so") && !str_endswith("so", ".so"));
}
END_TEST

/* s2c_fnmatch() answers as fnmatch(3) does, with or without a literal start. */
START_TEST(test_fnmatch)
{
	static const char *const patterns[] = { "libcap.so*", "lib*tc.so*", "*.so", "sh", "",
						"a\\*b", "[ab]x", "/usr/*/bin", ".x*" };
	static const char *const names[] = { "libcap.so.2", "libcap.so", "libcap-ng.so.0",
					     "libip4tc.so.2", "x.so", "sh", "shx", "", "a*b",
					     "a\\xb", "bx", "/usr/s/bin", "/usr/s/t/bin", ".xy",
					     "lib\xc3\xa9.so" };
	static const int flags[] = { 0, FNM_PATHNAME, FNM_PERIOD };

	for (size_t f = 0; f < S2C_ELEMENTSOF(flags); f++)
		for (size_t i = 0; i < S2C_ELEMENTSOF(patterns); i++)
			for (size_t j = 0; j < S2C_ELEMENTSOF(names); j++)
				ck_assert_msg(s2c_fnmatch(patterns[i], names[j], flags[f]) ==
					      (fnmatch(patterns[i], names[j], flags[f]) == 0),
					      "%s %s %d", patterns[i], names[j], flags[f]);
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

/* read_all: to the end through a pipe, the limit exact, one byte over refused. */
START_TEST(test_read_all)
{
	static char big[200000];
	size_t len = 1;
	char *buf = NULL;
	int fd[2];

	memset(big, 'x', sizeof(big));
	ck_assert_int_eq(pipe(fd), 0);
	(void)close(fd[1]);
	ck_assert_int_eq(read_all(fd[0], 10, &buf, &len), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(buf, "");
	free(buf);
	(void)close(fd[0]);
	for (int over = 0; over < 2; over++) {
		char *dir = fx_tempdir(), *path = path_join(dir, "f");
		int f;

		fx_file(dir, "f", 0600, "");
		f = open(path, O_WRONLY | O_CLOEXEC);
		ck_assert_int_eq(write(f, big, sizeof(big)), (ssize_t)sizeof(big));
		(void)close(f);
		f = open(path, O_RDONLY | O_CLOEXEC);
		buf = NULL;
		ck_assert_int_eq(read_all(f, sizeof(big) - (size_t)over, &buf, &len),
				 over ? -EFBIG : 0);
		if (!over) {
			ck_assert_uint_eq(len, sizeof(big));
			ck_assert_int_eq(buf[len], '\0');
			ck_assert_int_eq(memcmp(buf, big, len), 0);
		}
		free(buf);
		(void)close(f);
		free(path);
		fx_rmrf(dir);
		free(dir);
	}
}
END_TEST

/* read_all_into: one buffer for a large file then a small one, kept and not shrunk. */
START_TEST(test_read_all_into)
{
	static char big[200000];
	char *dir = fx_tempdir(), *buf = NULL, *p;
	size_t size = 0, len = 0, grown;
	int f;

	memset(big, 'y', sizeof(big) - 1);
	fx_file(dir, "big", 0600, big);
	fx_file(dir, "small", 0600, "abc");
	p = path_join(dir, "big");
	f = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(read_all_into(f, sizeof(big), &buf, &size, &len), 0);
	ck_assert_uint_eq(len, sizeof(big) - 1);
	ck_assert_uint_ge(size, len);
	(void)close(f);
	free(p);
	grown = size;
	p = path_join(dir, "small");
	f = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(read_all_into(f, sizeof(big), &buf, &size, &len), 0);
	ck_assert_uint_eq(len, 3);
	ck_assert_str_eq(buf, "abc");
	ck_assert_uint_eq(size, grown);
	(void)close(f);
	f = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(read_all_into(f, 2, &buf, &size, &len), -EFBIG);
	(void)close(f);
	free(p);
	free(buf);
	fx_rmrf(dir);
	free(dir);
}
END_TEST

/* mountinfo and mtree escapes: \ooo up to \377; anything else stays as it is. */
START_TEST(test_unescape_octal)
{
	char a[] = "/mnt/with\\040space\\011tab\\134";
	char b[] = "no\\escape\\9\\40\\400";

	unescape_octal(a);
	ck_assert_str_eq(a, "/mnt/with space\ttab\\");
	unescape_octal(b);
	ck_assert_str_eq(b, "no\\escape\\9\\40\\400");
}
END_TEST

/* Sorted names; a glob with FNM_PERIOD; NULL lists every name but "." and "..". */
START_TEST(test_dirlist)
{
	_cleanup_free_ char *dir = fx_tempdir();
	char **v = NULL;
	int fd;

	fx_file(dir, "b.json", 0644, "");
	fx_file(dir, "a.json", 0644, "");
	fx_file(dir, ".hidden.json", 0644, "");
	fx_mkdirs(dir, "sub");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dirlist(fd, "*.json", 0, &v), 2);
	ck_assert_str_eq(v[0], "a.json");
	ck_assert_str_eq(v[1], "b.json");
	ck_assert_ptr_null(v[2]);
	strv_free(v);
	ck_assert_int_eq(dirlist(fd, NULL, 0, &v), 4);
	ck_assert_str_eq(v[0], ".hidden.json");
	ck_assert_str_eq(v[3], "sub");
	strv_free(v);
	ck_assert_int_eq(dirlist(fd, "*.none", 0, &v), 0);
	ck_assert_ptr_null(v[0]);
	strv_free(v);
	/* "*" and a literal suffix are matched without fnmatch: the same answers */
	ck_assert_int_eq(dirlist(fd, "*", 0, &v), 3);
	ck_assert_str_eq(v[0], "a.json");
	ck_assert_str_eq(v[2], "sub");
	strv_free(v);
	ck_assert_int_eq(dirlist(fd, "*b", 0, &v), 1);
	ck_assert_str_eq(v[0], "sub");
	strv_free(v);
	ck_assert_int_eq(dirlist(fd, "*[.]json", 0, &v), 2);
	strv_free(v);
	ck_assert_int_eq(dirlist(fd, "*.hidden.json", 0, &v), 0);
	strv_free(v);
	(void)close(fd);
	fx_rmrf(dir);
}
END_TEST

/* Kleene's truth tables, row by row. */
START_TEST(test_tri)
{
	static const int v[] = { TRI_FALSE, TRI_UNKNOWN, TRI_TRUE };
	static const int and_table[3][3] = {
		{ TRI_FALSE, TRI_FALSE, TRI_FALSE },
		{ TRI_FALSE, TRI_UNKNOWN, TRI_UNKNOWN },
		{ TRI_FALSE, TRI_UNKNOWN, TRI_TRUE },
	};
	static const int or_table[3][3] = {
		{ TRI_FALSE, TRI_UNKNOWN, TRI_TRUE },
		{ TRI_UNKNOWN, TRI_UNKNOWN, TRI_TRUE },
		{ TRI_TRUE, TRI_TRUE, TRI_TRUE },
	};

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			ck_assert_int_eq(tri_and(v[i], v[j]), and_table[i][j]);
			ck_assert_int_eq(tri_or(v[i], v[j]), or_table[i][j]);
		}
	ck_assert_int_eq(tri_of(true), TRI_TRUE);
	ck_assert_int_eq(tri_of(false), TRI_FALSE);
}
END_TEST

START_TEST(test_closest)
{
	static const char *const words[] = { "format", "output", "fail-on", "quiet", NULL };
	static const char *const formats[] = { "text", "json", "markdown", "html", "sarif", NULL };

	ck_assert_uint_eq(str_distance("format", "format"), 0);
	ck_assert_uint_eq(str_distance("formt", "format"), 1);
	ck_assert_uint_eq(str_distance("fromat", "format"), 1);     /* a swap is one slip */
	ck_assert_uint_eq(str_distance("", "abc"), 3);
	ck_assert_uint_eq(str_distance("kitten", "sitting"), 3);
	ck_assert_str_eq(str_closest("formt", words), "format");
	ck_assert_str_eq(str_closest("qiuet", words), "quiet");
	ck_assert_str_eq(str_closest("jsno", formats), "json");
	ck_assert_ptr_null(str_closest("yaml", formats));          /* two slips in four letters */
	ck_assert_ptr_null(str_closest("everything", words));
	ck_assert_ptr_null(str_closest("x", NULL));
}
END_TEST

/* SipHash-1-3 is SipHash with one compression and three finalisation rounds; the key matters. */
START_TEST(test_strhash)
{
	static const uint64_t k0[2] = { 0, 0 }, k1[2] = { 1, 0 };
	char a[] = "/usr/bin/ping";

	ck_assert_uint_ne(siphash13(a, strlen(a), k0), siphash13(a, strlen(a), k1));
	ck_assert_uint_eq(siphash13(a, strlen(a), k0), siphash13(a, strlen(a), k0));
	ck_assert_uint_eq(strhash(a), strhash_n(a, strlen(a)));
	ck_assert_uint_ne(strhash("a"), strhash("b"));
	/* component by component: "/a/b" is two steps from the root, not "ab" */
	ck_assert_uint_ne(strhash_step(strhash_step(STRHASH_ROOT, "a", 1), "b", 1),
			  strhash_step(STRHASH_ROOT, "ab", 2));
}
END_TEST

static const char *const idx_keys[] = { "a", "b", "c", "a", "d" };

static bool idx_same(size_t pos, const void *userdata)
{
	const char *const *want = userdata;

	return pos < 4 && s2c_streq(idx_keys[pos], *want);
}

START_TEST(test_hashindex)
{
	struct hashindex x = { 0 };
	const char *key;

	for (size_t i = 0; i < 5; i++)
		ck_assert_int_eq(hashindex_add(&x, strhash(idx_keys[i]), i), 0);
	/* many more, so that the table grows and runs wrap around */
	for (size_t i = 0; i < 5000; i++)
		ck_assert_int_eq(hashindex_add(&x, i * 0x9e3779b97f4a7c15ULL, 100 + i), 0);
	key = "a";
	ck_assert_uint_eq(hashindex_find(&x, strhash(key), idx_same, &key), 0);
	key = "c";
	ck_assert_uint_eq(hashindex_find(&x, strhash(key), idx_same, &key), 2);
	/* position 4 is past what idx_same accepts: dropped from the array */
	key = "d";
	ck_assert_uint_eq(hashindex_find(&x, strhash(key), idx_same, &key), SIZE_MAX);
	key = "e";
	ck_assert_uint_eq(hashindex_find(&x, strhash(key), idx_same, &key), SIZE_MAX);
	hashindex_release(&x);
	ck_assert_uint_eq(hashindex_find(&x, strhash(key), idx_same, &key), SIZE_MAX);
}
END_TEST

/* An element of the streamed array: nested objects and arrays, empty ones, a newline. */
static struct json_object *stream_element(size_t i, const void *userdata)
{
	struct json_object *e = json_object_new_object(), *inner = json_object_new_array();

	(void)userdata;
	json_object_object_add(e, "i", json_object_new_int((int)i));
	json_object_object_add(e, "text", json_object_new_string("a\nb \"q\" /x"));
	json_object_array_add(inner, json_object_new_object());
	json_object_array_add(inner, json_object_new_array());
	json_object_array_add(inner, json_object_new_string("z"));
	json_object_object_add(e, "inner", i % 2 ? inner : json_object_new_array());
	if (!(i % 2))
		json_object_put(inner);
	return e;
}

/* What jsonout_write() gives for the whole document, or the streamed one, as a string. */
static char *written(size_t n, bool streamed)
{
	struct json_object *doc = json_object_new_object(), *files = json_object_new_array();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	json_object_object_add(doc, "schema", json_object_new_int(1));
	json_object_object_add(doc, "head", json_object_new_string("x"));
	json_object_object_add(doc, "files", files);
	if (streamed) {
		ck_assert_int_eq(jsonout_write_array(doc, "files", n, stream_element, NULL, f), 0);
	} else {
		for (size_t i = 0; i < n; i++)
			json_object_array_add(files, stream_element(i, NULL));
		ck_assert_int_eq(jsonout_write(doc, f), 0);
	}
	json_object_put(doc);
	fclose(f);
	return buf;
}

/* Elements handed over by jsonread_parse_stream(), as "path=json" lines. */
struct streamed {
	const char *doc;
	char text[4096];
	size_t n;
	int fail_at;            /* the element whose callback fails with -EDOM, or -1 */
};

static int on_element(const struct jsonread_element *el, void *userdata)
{
	struct streamed *st = userdata;
	size_t used = strlen(st->text);

	ck_assert_uint_eq(el->index, st->n);
	if ((int)st->n++ == st->fail_at)
		return -EDOM;
	/* "path=json" and its text as it is in the document */
	(void)snprintf(st->text + used, sizeof(st->text) - used, "%s=%s <%.*s>\n", el->path->path,
		       el->value ? json_object_to_json_string_ext(el->value, JSON_C_TO_STRING_PLAIN) :
				   "null", (int)el->length, st->doc + el->offset);
	return 0;
}

/* Both parsers on @doc: the same verdict, and the same message when it is not a syntax
 * error (whose position may be told differently); the streamed elements in @st. */
static int both(const char *doc, struct streamed *st, char *msg, size_t msg_size)
{
	struct s2c_error e1 = { 0 }, e2 = { 0 };
	struct json_object *whole = NULL, *part = NULL;

	st->doc = doc;
	int r1 = jsonread_parse_mem(doc, strlen(doc), "t.json", &whole, &e1);
	int r2 = jsonread_parse_stream(doc, strlen(doc), JSONREAD_MAX_SIZE, "t.json", "entries",
				       on_element, st, &part, &e2);

	ck_assert_msg((r1 < 0) == (r2 < 0), "%s: whole %d (%s), streamed %d (%s)", doc, r1, e1.msg,
		      r2, e2.msg);
	if (r1 < 0 && !strstr(e1.msg, "not valid JSON"))
		ck_assert_str_eq(e1.msg, e2.msg);
	if (r1 == 0) {
		struct json_object *a = NULL;
		/* the tree: the document without the array's elements */
		if (json_object_object_get_ex(whole, "entries", &a) &&
		    json_object_is_type(a, json_type_array) && json_object_is_type(part, json_type_object))
			json_object_array_del_idx(a, 0, json_object_array_length(a));
		ck_assert_msg(json_object_equal(whole, part), "%s", doc);
	}
	(void)snprintf(msg, msg_size, "%s", r2 < 0 ? e2.msg : "");
	json_object_put(whole);
	json_object_put(part);
	return r2;
}

START_TEST(test_jsonread_stream)
{
	struct streamed st = { .fail_at = -1 };
	char msg[S2C_ERROR_MAX], deep[256] = "{\"entries\": [", *big;
	struct json_object *doc = NULL;
	struct s2c_error err = { 0 };
	size_t len;

	/* the elements in order, with their paths; the rest of the document whole */
	ck_assert_int_eq(both(" {\"a\": {\"b\": [1, null]}, \"entries\" : [ {\"p\": \"/x\"}, null,\n"
			      "3, [\"y\"] ], \"z\": null}\n", &st, msg, sizeof(msg)), 0);
	ck_assert_str_eq(st.text, "$.entries[0]={\"p\":\"\\/x\"} <{\"p\": \"/x\"}>\n"
				  "$.entries[1]=null <null>\n$.entries[2]=3 <3>\n"
				  "$.entries[3]=[\"y\"] <[\"y\"]>\n");
	st = (struct streamed){ .fail_at = -1 };
	ck_assert_int_eq(both("{\"entries\": []}", &st, msg, sizeof(msg)), 0);
	ck_assert_int_eq(both("{}", &st, msg, sizeof(msg)), 0);
	ck_assert_int_eq(both("{\"entries\": 5}", &st, msg, sizeof(msg)), 0);
	ck_assert_int_eq(both("[1, 2]", &st, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(st.n, 0);
	/* strict as the whole parser, with the same paths */
	ck_assert_int_eq(both("{\"entries\": [{}, {\"k\": 1, \"k\": 2}]}", &st, msg, sizeof(msg)),
			 -EINVAL);
	ck_assert_str_eq(msg, "t.json: $.entries[1]: an object has the same key twice");
	ck_assert_int_eq(both("{\"entries\": [{\"a\": {\"k\": 1, \"k\": 2}}]}", &st, msg,
			      sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "t.json: $.entries[0].a: an object has the same key twice");
	ck_assert_int_eq(both("{\"entries\": [], \"entries\": []}", &st, msg, sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "t.json: $: an object has the same key twice");
	ck_assert_int_eq(both("{\"x\": {\"k\": 1, \"k\": 2}, \"entries\": []}", &st, msg,
			      sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "t.json: $.x: an object has the same key twice");
	{
		static const char *const bad[] = {
			"{\"entries\": [1, 2", "{\"entries\": [1, 2,]}", "{\"entries\": [1 2]}",
			"{\"entries\": [1], }", "{\"entries\": [1]} x", "{\"entries\" [1]}",
			"{entries: [1]}", "{\"entries\": [01]}", "{\"entries\": [\"\\x\"]}",
			"{\"a\": 1 \"b\": 2}", "{", "{\"entries\": [tru]}", "", "{\"entries\": [1]",
		};
		for (size_t i = 0; i < S2C_ELEMENTSOF(bad); i++) {
			st = (struct streamed){ .fail_at = -1 };
			ck_assert_int_lt(both(bad[i], &st, msg, sizeof(msg)), 0);
			ck_assert_ptr_nonnull(strstr(msg, "t.json"));
		}
	}
	/* the nesting limit is the document's, not the element's */
	len = strlen(deep);
	for (int d = 2; d < JSONREAD_MAX_DEPTH; d++)
		deep[len++] = '[';
	for (int d = 2; d < JSONREAD_MAX_DEPTH; d++)
		deep[len++] = ']';
	memcpy(deep + len, "]}", 3);
	st = (struct streamed){ .fail_at = -1 };
	ck_assert_int_eq(both(deep, &st, msg, sizeof(msg)), 0);
	memmove(deep + 14, deep + 13, strlen(deep + 13) + 1);
	deep[13] = '[';
	len = strlen(deep);
	memmove(deep + len - 1, deep + len - 2, 3);
	deep[len - 2] = ']';
	st = (struct streamed){ .fail_at = -1 };
	ck_assert_int_lt(both(deep, &st, msg, sizeof(msg)), 0);
	/* the element's error stops the parse and is returned */
	st = (struct streamed){ .fail_at = 1, .doc = "{\"entries\": [1, 2, 3]}" };
	ck_assert_int_eq(jsonread_parse_stream(st.doc, 22, JSONREAD_MAX_SIZE,
					       "t.json", "entries", on_element, &st, &doc, &err),
			 -EDOM);
	ck_assert_ptr_null(doc);
	ck_assert_uint_eq(st.n, 2);
	/* its own bound, past the whole parser's */
	len = JSONREAD_MAX_SIZE + 100;
	big = malloc(len + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, ' ', len);
	memcpy(big, "{\"entries\": [", 13);
	memcpy(big + len - 2, "]}", 2);
	big[len] = '\0';
	ck_assert_int_eq(jsonread_parse_mem(big, len, "t.json", &doc, &err), -EFBIG);
	st = (struct streamed){ .fail_at = -1, .doc = big };
	ck_assert_int_eq(jsonread_parse_stream(big, len, len, "t.json", "entries", on_element, &st,
					       &doc, &err), 0);
	json_object_put(doc);
	doc = NULL;
	ck_assert_int_eq(jsonread_parse_stream(big, len, len - 1, "t.json", "entries", on_element,
					       &st, &doc, &err), -EFBIG);
	ck_assert_ptr_nonnull(strstr(err.msg, "t.json: larger than"));
	free(big);
}
END_TEST

START_TEST(test_array_reserve)
{
	uint32_t *v = NULL;
	size_t alloc = 0, n = 0;

	/* room doubles from the first size, and appends keep what was there */
	for (uint32_t i = 0; i < 1000; i++) {
		size_t before = alloc;
		ck_assert_int_eq(S2C_ARRAY_RESERVE(v, alloc, n + 1, 8), 0);
		ck_assert(alloc >= n + 1);
		ck_assert(alloc == before || alloc == (before ? 2 * before : 8));
		v[n++] = i;
	}
	ck_assert_uint_eq(alloc, 1024);
	for (uint32_t i = 0; i < 1000; i++)
		ck_assert_uint_eq(v[i], i);
	/* enough room: nothing changes */
	ck_assert_int_eq(S2C_ARRAY_RESERVE(v, alloc, 1024, 8), 0);
	ck_assert_uint_eq(alloc, 1024);
	/* past one doubling: doubled until it fits */
	ck_assert_int_eq(S2C_ARRAY_RESERVE(v, alloc, 5000, 8), 0);
	ck_assert_uint_eq(alloc, 8192);
	/* a size that overflows: refused, the array as it was */
	{
		uint32_t *keep = v;
		ck_assert_int_eq(S2C_ARRAY_RESERVE(v, alloc, SIZE_MAX / 2, 8), -ENOMEM);
		ck_assert_ptr_eq(v, keep);
		ck_assert_uint_eq(alloc, 8192);
		ck_assert_uint_eq(v[999], 999);
	}
	free(v);
	/* a first size of 0 counts as 1 */
	v = NULL;
	alloc = 0;
	ck_assert_int_eq(S2C_ARRAY_RESERVE(v, alloc, 3, 0), 0);
	ck_assert_uint_eq(alloc, 4);
	free(v);
}
END_TEST

START_TEST(test_jsonout_write_array)
{
	struct json_object *doc = json_object_new_object();

	for (size_t n = 0; n < 4; n++) {
		char *whole = written(n, false), *streamed = written(n, true);

		ck_assert_str_eq(streamed, whole);
		free(whole);
		free(streamed);
	}
	/* the array must be the document's last member */
	json_object_object_add(doc, "files", json_object_new_array());
	json_object_object_add(doc, "after", json_object_new_int(1));
	ck_assert_int_eq(jsonout_write_array(doc, "files", 1, stream_element, NULL, stdout),
			 -EINVAL);
	json_object_put(doc);
}
END_TEST

/* A SARIF-like document: the array streamed is runs[0].results, nested, and a string of
 * the document's own holds the text that stands for the elements. */
static char *written_nested(size_t n, bool streamed)
{
	struct json_object *doc = json_object_new_object(), *runs = json_object_new_array();
	struct json_object *run = json_object_new_object(), *results = json_object_new_array();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	json_object_object_add(doc, "name", json_object_new_string("s2c-jsonout-stream\x01"));
	json_object_object_add(doc, "runs", runs);
	json_object_array_add(runs, run);
	json_object_object_add(run, "tool", json_object_new_string("t"));
	json_object_object_add(run, "results", results);
	if (streamed) {
		ck_assert_int_eq(jsonout_write_stream(doc, results, n, stream_element, NULL, f), 0);
		ck_assert_uint_eq(json_object_array_length(results), 0);
	} else {
		for (size_t i = 0; i < n; i++)
			json_object_array_add(results, stream_element(i, NULL));
		ck_assert_int_eq(jsonout_write(doc, f), 0);
	}
	json_object_put(doc);
	fclose(f);
	return buf;
}

START_TEST(test_jsonout_write_stream)
{
	struct json_object *doc = json_object_new_object(), *a = json_object_new_array();

	for (size_t n = 0; n < 4; n++) {
		char *whole = written_nested(n, false), *streamed = written_nested(n, true);

		ck_assert_str_eq(streamed, whole);
		free(whole);
		free(streamed);
	}
	/* not the last thing of the document, or not empty */
	json_object_object_add(doc, "results", a);
	json_object_object_add(doc, "after", json_object_new_int(1));
	ck_assert_int_eq(jsonout_write_stream(doc, a, 1, stream_element, NULL, stdout), -EINVAL);
	ck_assert_uint_eq(json_object_array_length(a), 0);
	json_object_array_add(a, json_object_new_int(1));
	ck_assert_int_eq(jsonout_write_stream(doc, a, 1, stream_element, NULL, stdout), -EINVAL);
	json_object_put(doc);
}
END_TEST

/* --- spill ---------------------------------------------------------------------------------- */

struct sp_item {
	char key[24];
	size_t seq, len;
	unsigned char *rec;
};

static int cmp_sp_item(const void *a, const void *b)
{
	const struct sp_item *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* @n records of keys drawn from @keys values (so that some repeat) and lengths up to
 * @maxlen (one of 100 KiB among them when @big), added to a set of @budget bytes, read
 * twice: both passes in key order, equal keys in the order added, bytes intact. */
static void spill_check(size_t n, unsigned keys, size_t maxlen, bool big, size_t budget,
			bool want_disk)
{
	struct sp_item *v = calloc(n, sizeof(*v));
	struct spill *s = NULL;
	char *dir = fx_tempdir();
	unsigned seed = 12345;

	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(spill_new(dir, budget, &s), 0);
	for (size_t i = 0; i < n; i++) {
		v[i].seq = i;
		snprintf(v[i].key, sizeof(v[i].key), "/k/%u", (unsigned)(rand_r(&seed) % keys));
		v[i].len = big && i == n / 2 ? 100 * 1024 : (size_t)rand_r(&seed) % (maxlen + 1);
		v[i].rec = malloc(v[i].len + 1);
		ck_assert_ptr_nonnull(v[i].rec);
		for (size_t k = 0; k < v[i].len; k++)
			v[i].rec[k] = (unsigned char)rand_r(&seed);   /* NUL bytes too */
		ck_assert_int_eq(spill_add(s, v[i].key, v[i].rec, v[i].len), 0);
	}
	ck_assert_uint_eq(spill_count(s), n);
	qsort(v, n, sizeof(*v), cmp_sp_item);
	ck_assert_int_eq(spill_sort(s), 0);
	{
		/* two cursors at once, one a record ahead, both to the end */
		struct spill_cursor *c[2] = { NULL, NULL };
		size_t at[2] = { 0, 0 };
		int r[2] = { 1, 1 };

		for (int k = 0; k < 2; k++)
			ck_assert_int_eq(spill_cursor_new(s, &c[k]), 0);
		for (size_t step = 0; r[0] == 1 || r[1] == 1; step++)
			for (int k = 0; k < 2; k++) {
				const char *key;
				const void *rec;
				size_t len;

				if (r[k] != 1 || (k == 1 && step == 0))
					continue;
				r[k] = spill_cursor_next(c[k], &key, &rec, &len);
				if (r[k] != 1)
					continue;
				ck_assert_uint_lt(at[k], n);
				ck_assert_str_eq(key, v[at[k]].key);
				ck_assert_uint_eq(len, v[at[k]].len);
				ck_assert(len == 0 || memcmp(rec, v[at[k]].rec, len) == 0);
				at[k]++;
			}
		for (int k = 0; k < 2; k++) {
			ck_assert_int_eq(r[k], 0);
			ck_assert_uint_eq(at[k], n);
			spill_cursor_free(c[k]);
		}
	}
	ck_assert(spill_on_disk(s) == want_disk);
	ck_assert_int_eq(spill_add(s, "/late", "", 0), -EINVAL);
	spill_free(s);
	/* nothing is left in the directory: the file had no name */
	{
		DIR *d = opendir(dir);
		struct dirent *de;
		ck_assert_ptr_nonnull(d);
		while ((de = readdir(d)))
			ck_assert_msg(!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."),
				      "left behind: %s", de->d_name);
		closedir(d);
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].rec);
	free(v);
	fx_rmrf(dir);
	free(dir);
}

START_TEST(test_spill_memory)
{
	/* within the budget: sorted in memory, never on disk; an empty key and record too */
	spill_check(0, 1, 0, false, 1 << 20, false);
	spill_check(1, 1, 0, false, 1 << 20, false);
	spill_check(2000, 300, 40, false, 1 << 20, false);
}
END_TEST

START_TEST(test_spill_disk)
{
	/* a few runs, merged at once */
	spill_check(3000, 1000, 300, false, 64 * 1024, true);
	/* more runs than SPILL_FANIN: merged into longer runs first; a record over the read
	 * buffer, and a budget smaller than one record */
	spill_check(20000, 5000, 200, true, 16 * 1024, true);
	spill_check(300, 50, 5000, false, 100, true);
}
END_TEST

START_TEST(test_spill_errors)
{
	struct spill *s = NULL;
	struct spill_cursor *c = NULL;
	char *dir = fx_tempdir();
	char *gone = fx_path(dir, "gone");
	char buf[512] = { 0 };
	struct rlimit old;
	void (*xfsz)(int);
	int r = 0, sort;

	/* a directory that is not there: said when the first run is written, and after */
	ck_assert_int_eq(spill_new(gone, 1024, &s), 0);
	for (int i = 0; i < 100 && r == 0; i++)
		r = spill_add(s, "/x", buf, sizeof(buf));
	ck_assert_int_eq(r, -ENOENT);
	ck_assert_int_eq(spill_add(s, "/x", buf, 1), -ENOENT);
	ck_assert_int_eq(spill_sort(s), -ENOENT);
	ck_assert_int_eq(spill_cursor_new(s, &c), -ENOENT);
	ck_assert_ptr_null(c);
	spill_free(s);
	/* the file cannot grow (as on a full disk): the write's error, not a short set; the
	 * soft limit only, put back after, for the tests that follow in this process (without
	 * fork, the suite's own summary is written to a log longer than the limit) */
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	xfsz = signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &(struct rlimit){ 8192, old.rlim_max }), 0);
	ck_assert_int_eq(spill_new(dir, 1024, &s), 0);
	r = 0;
	for (int i = 0; i < 100 && r == 0; i++)
		r = spill_add(s, "/x", buf, sizeof(buf));
	sort = spill_sort(s);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	(void)signal(SIGXFSZ, xfsz);
	ck_assert_int_eq(r, -EFBIG);
	ck_assert_int_eq(sort, -EFBIG);
	spill_free(s);
	fx_rmrf(dir);
	free(gone);
	free(dir);
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");

	tcase_add_test(tc, test_parse_u64);
	tcase_add_test(tc, test_utf8);
	tcase_add_test(tc, test_escape_text);
	tcase_add_test(tc, test_escape_terminal_sequences);
	tcase_add_test(tc, test_escape_format_controls);
	tcase_add_test(tc, test_escape_expansion);
	tcase_add_test(tc, test_utf8_decode);
	tcase_add_test(tc, test_sanitise_and_hex);
	tcase_add_test(tc, test_path_join);
	tcase_add_test(tc, test_endswith);
	tcase_add_test(tc, test_fnmatch);
	tcase_add_test(tc, test_error);
	tcase_add_test(tc, test_trust);
	tcase_add_test(tc, test_tri);
	tcase_add_test(tc, test_dirlist);
	tcase_add_test(tc, test_unescape_octal);
	tcase_add_test(tc, test_strhash);
	tcase_add_test(tc, test_hashindex);
	tcase_add_test(tc, test_read_all);
	tcase_add_test(tc, test_read_all_into);
	tcase_add_test(tc, test_closest);
	tcase_add_test(tc, test_jsonout_write_array);
	tcase_add_test(tc, test_jsonout_write_stream);
	tcase_add_test(tc, test_jsonread_stream);
	tcase_add_test(tc, test_array_reserve);
	tcase_add_test(tc, test_spill_memory);
	tcase_add_test(tc, test_spill_disk);
	tcase_add_test(tc, test_spill_errors);
	suite_add_tcase(s, tc);
	return s;
}
