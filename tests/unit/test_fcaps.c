/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <check.h>

#include "error.h"
#include "fcaps.h"
#include "fixture.h"
#include "suites.h"

/* Blobs as the kernel stores them (little-endian words). */
static const unsigned char v2_raw_ep[20] = { 0x01, 0, 0, 0x02, 0x00, 0x20, 0, 0 };
static const unsigned char v2_raw_p[20] = { 0x00, 0, 0, 0x02, 0x00, 0x20, 0, 0 };
static const unsigned char v3_raw_ep_1000[24] = {
	0x01, 0, 0, 0x03, 0x00, 0x20, 0, 0, [20] = 0xe8, 0x03, 0, 0,
};
static const unsigned char v1_raw_ep[12] = { 0x01, 0, 0, 0x01, 0x00, 0x20, 0, 0 };
/* cap_audit_read (37) permitted + cap_sys_nice (23) inheritable, v2 high word. */
static const unsigned char v2_high[20] = {
	0x00, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0x80, 0, 0x20, 0, 0, 0, 0, 0, 0, 0,
};

START_TEST(test_decode_v2)
{
	struct fcaps c;
	char *t;

	ck_assert_int_eq(fcaps_decode(v2_raw_ep, sizeof(v2_raw_ep), &c, NULL), 0);
	ck_assert_uint_eq(c.version, 2);
	ck_assert(c.effective);
	ck_assert_uint_eq(c.permitted, 1ull << CAP_NET_RAW);
	ck_assert_uint_eq(c.inheritable, 0);
	ck_assert(!c.has_rootid);
	t = fcaps_to_text(&c);
	ck_assert_str_eq(t, "cap_net_raw=ep");
	free(t);

	ck_assert_int_eq(fcaps_decode(v2_raw_p, sizeof(v2_raw_p), &c, NULL), 0);
	ck_assert(!c.effective);
	t = fcaps_to_text(&c);
	ck_assert_str_eq(t, "cap_net_raw=p");
	free(t);

	ck_assert_int_eq(fcaps_decode(v2_high, sizeof(v2_high), &c, NULL), 0);
	ck_assert_uint_eq(c.permitted, 1ull << CAP_AUDIT_READ);
	ck_assert_uint_eq(c.inheritable, 1ull << CAP_SYS_NICE);
	t = fcaps_to_text(&c);
	ck_assert_str_eq(t, "cap_sys_nice=i cap_audit_read+p"); /* as getcap prints it */
	free(t);
}
END_TEST

START_TEST(test_decode_v1_v3)
{
	struct fcaps c;
	char *t;

	ck_assert_int_eq(fcaps_decode(v1_raw_ep, sizeof(v1_raw_ep), &c, NULL), 0);
	ck_assert_uint_eq(c.version, 1);
	ck_assert(c.effective);
	ck_assert_uint_eq(c.permitted, 1ull << CAP_NET_RAW);

	ck_assert_int_eq(fcaps_decode(v3_raw_ep_1000, sizeof(v3_raw_ep_1000), &c, NULL), 0);
	ck_assert_uint_eq(c.version, 3);
	ck_assert(c.has_rootid);
	ck_assert_uint_eq(c.rootid, 1000);
	t = fcaps_to_text(&c);
	ck_assert_str_eq(t, "cap_net_raw=ep");
	free(t);
}
END_TEST

START_TEST(test_decode_malformed)
{
	unsigned char buf[32] = { 0 };
	struct fcaps c = { .version = 99 };
	struct s2c_error err = { 0 };
	static const size_t v2_sizes[] = { 0, 3, 4, 12, 19, 21, 24, 25, 32 };

	memcpy(buf, v2_raw_ep, sizeof(v2_raw_ep));
	for (size_t i = 0; i < sizeof(v2_sizes) / sizeof(v2_sizes[0]); i++)
		ck_assert_msg(fcaps_decode(buf, v2_sizes[i], &c, NULL) == -EINVAL,
			      "v2 with %zu bytes accepted", v2_sizes[i]);
	ck_assert_int_eq(fcaps_decode(buf, 24, &c, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "capability xattr v2 has 24 bytes, expected 20");
	ck_assert_uint_eq(c.version, 99); /* untouched */

	memcpy(buf, v3_raw_ep_1000, sizeof(v3_raw_ep_1000));
	ck_assert_int_eq(fcaps_decode(buf, 20, &c, NULL), -EINVAL);
	memcpy(buf, v1_raw_ep, sizeof(v1_raw_ep));
	ck_assert_int_eq(fcaps_decode(buf, 20, &c, NULL), -EINVAL);

	buf[3] = 0x04; /* revision 4 does not exist */
	ck_assert_int_eq(fcaps_decode(buf, 20, &c, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "unknown capability xattr revision 0x04000000");
	buf[3] = 0x00; /* revision 0 */
	ck_assert_int_eq(fcaps_decode(buf, 20, &c, NULL), -EINVAL);

	memcpy(buf, v2_raw_ep, sizeof(v2_raw_ep));
	buf[0] = 0x03; /* a flag bit other than "effective" */
	ck_assert_int_eq(fcaps_decode(buf, 20, &c, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "capability xattr has unknown flags 0x000002");
}
END_TEST

START_TEST(test_encode_roundtrip)
{
	unsigned char buf[FCAPS_BLOB_MAX];
	struct fcaps c, d;

	ck_assert_int_eq(fcaps_decode(v2_raw_ep, 20, &c, NULL), 0);
	ck_assert_int_eq(fcaps_encode(&c, buf), 20);
	ck_assert_mem_eq(buf, v2_raw_ep, 20);
	ck_assert_int_eq(fcaps_decode(v3_raw_ep_1000, 24, &c, NULL), 0);
	ck_assert_int_eq(fcaps_encode(&c, buf), 24);
	ck_assert_mem_eq(buf, v3_raw_ep_1000, 24);
	ck_assert_int_eq(fcaps_decode(v2_high, 20, &c, NULL), 0);
	ck_assert_int_eq(fcaps_encode(&c, buf), 20);
	ck_assert_int_eq(fcaps_decode(buf, 20, &d, NULL), 0);
	ck_assert(fcaps_equal(&c, &d));
	c.version = 1;
	ck_assert_int_eq(fcaps_encode(&c, buf), -EINVAL);
}
END_TEST

START_TEST(test_text)
{
	struct fcaps c;
	struct s2c_error err = { 0 };
	char *t;

	ck_assert_int_eq(fcaps_from_text("cap_net_raw,cap_net_admin=ep", &c, NULL), 0);
	ck_assert(c.effective);
	ck_assert_uint_eq(c.permitted, (1ull << CAP_NET_RAW) | (1ull << CAP_NET_ADMIN));
	t = fcaps_to_text(&c);
	ck_assert_str_eq(t, "cap_net_admin,cap_net_raw=ep");
	free(t);
	ck_assert_int_eq(fcaps_from_text("cap_net_raw+p", &c, NULL), 0);
	ck_assert(!c.effective);
	ck_assert_int_eq(fcaps_from_text("cap_bogus=p", &c, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "invalid capability text 'cap_bogus=p'");
	ck_assert_int_eq(fcaps_from_text("", &c, NULL), -EINVAL);
	/* One effective bit per file: partial 'e' cannot be stored. */
	ck_assert_int_eq(fcaps_from_text("cap_net_raw=p cap_sys_nice=ep", &c, &err), -EINVAL);
	ck_assert_int_eq(fcaps_from_text("cap_net_raw=e", &c, NULL), -EINVAL);
	memset(&c, 0, sizeof(c));
	t = fcaps_to_text(&c);
	ck_assert_str_eq(t, "=");
	free(t);
}
END_TEST

START_TEST(test_names)
{
	char *s = fcaps_mask_names((1ull << CAP_NET_RAW) | (1ull << CAP_CHOWN));

	ck_assert_str_eq(s, "cap_chown,cap_net_raw");
	free(s);
	s = fcaps_mask_names(0);
	ck_assert_str_eq(s, "");
	free(s);
	ck_assert_int_eq(fcaps_from_name("cap_net_raw"), CAP_NET_RAW);
	ck_assert_int_eq(fcaps_from_name("NET_RAW"), CAP_NET_RAW);
	ck_assert_int_eq(fcaps_from_name("CAP_SYS_ADMIN"), CAP_SYS_ADMIN);
	ck_assert_int_eq(fcaps_from_name("13"), -EINVAL);
	ck_assert_int_eq(fcaps_from_name("bogus"), -EINVAL);
	ck_assert_int_eq(fcaps_from_name(""), -EINVAL);
}
END_TEST

/* --- privileged: real capabilities on real files --------------------------- */

static char *root;

static void setup_tree(void)
{
	root = fx_tempdir();
	fx_file(root, "ping", 0755, "\177ELF-not-really");
	fx_file(root, "nocaps", 0755, "x");
}

static void teardown_tree(void)
{
	fx_rmrf(root);
	free(root);
}

static int read_caps(const char *name, unsigned char *buf)
{
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int n = fcaps_read_at(dfd, name, buf, FCAPS_BLOB_MAX + 1);

	close(dfd);
	return n;
}

START_TEST(test_real_v2)
{
	unsigned char buf[FCAPS_BLOB_MAX + 1];
	struct fcaps c;
	char *t;
	int n;

	ck_assert_int_eq(fx_setcaps(root, "ping", "cap_net_raw+ep"), 0);
	n = read_caps("ping", buf);
	ck_assert_int_eq(n, 20);
	ck_assert_mem_eq(buf, v2_raw_ep, 20);
	ck_assert_int_eq(fcaps_decode(buf, (size_t)n, &c, NULL), 0);
	t = fcaps_to_text(&c);
	ck_assert_str_eq(t, "cap_net_raw=ep");
	free(t);
	ck_assert_int_eq(read_caps("nocaps", buf), -ENODATA);
	ck_assert_int_eq(read_caps("missing", buf), -ENOENT);
}
END_TEST

START_TEST(test_real_v3_rootid)
{
	unsigned char buf[FCAPS_BLOB_MAX + 1];
	struct fcaps c;
	int n;

	/* What `setcap -n 1000` writes: a v3 blob bound to a user namespace. */
	ck_assert_int_eq(fx_setcaps_raw(root, "ping", v3_raw_ep_1000, 24), 0);
	n = read_caps("ping", buf);
	ck_assert_int_eq(n, 24);
	ck_assert_int_eq(fcaps_decode(buf, (size_t)n, &c, NULL), 0);
	ck_assert(c.has_rootid);
	ck_assert_uint_eq(c.rootid, 1000);
}
END_TEST

START_TEST(test_real_kernel_rejects_malformed)
{
	unsigned char bad[21] = { 0x01, 0, 0, 0x02 };

	/* The kernel refuses wrong sizes, so malformed blobs only come from
	 * other namespaces, old kernels or raw disk edits: decode tests cover them. */
	ck_assert_int_ne(fx_setcaps_raw(root, "ping", bad, sizeof(bad)), 0);
}
END_TEST

Suite *fcaps_suite(void)
{
	Suite *s = suite_create("fcaps");
	TCase *tc = tcase_create("decode");

	tcase_add_test(tc, test_decode_v2);
	tcase_add_test(tc, test_decode_v1_v3);
	tcase_add_test(tc, test_decode_malformed);
	tcase_add_test(tc, test_encode_roundtrip);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}

Suite *fcaps_priv_suite(void)
{
	Suite *s = suite_create("fcaps_priv");
	TCase *tc = tcase_create("real");

	tcase_add_checked_fixture(tc, setup_tree, teardown_tree);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_real_v2);
	tcase_add_test(tc, test_real_v3_rootid);
	tcase_add_test(tc, test_real_kernel_rejects_malformed);
	suite_add_tcase(s, tc);
	return s;
}
