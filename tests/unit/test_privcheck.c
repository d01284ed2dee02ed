/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The privilege order: every way a change could add privilege is refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <check.h>

#include "captable.h"
#include "db.h"
#include "error.h"
#include "fcaps.h"
#include "fileid.h"
#include "privcheck.h"
#include "suites.h"

static struct rules_db *db;

static void setup(void)
{
	char *dir = NULL;
	const char *dirs[2];
	struct s2c_error err = { 0 };

	ck_assert_int_gt(asprintf(&dir, "%s/db", S2C_TEST_SRCDIR), 0);
	dirs[0] = dir;
	dirs[1] = NULL;
	ck_assert_msg(rules_db_load(dirs, 0, &db, &err) == 0, "%s", err.msg);
	free(dir);
}

static void teardown(void)
{
	db = rules_db_free(db);
}

static struct file_state st(uint32_t uid, uint32_t gid, uint32_t mode, const char *caps)
{
	struct file_state s = { .uid = uid, .gid = gid, .mode = mode };
	struct fcaps c;

	if (caps) {
		ck_assert_int_eq(fcaps_from_text(caps, &c, NULL), 0);
		filestate_set_caps(&s, &c);
	}
	return s;
}

static int check(struct file_state b, struct file_state a, enum privcheck_flags flags,
		 const char *want_msg)
{
	struct s2c_error err = { 0 };
	int r = privcheck(&db->caps, &b, &a, flags, &err);

	if (want_msg)
		ck_assert_msg(strstr(err.msg, want_msg), "'%s' not in '%s'", want_msg, err.msg);
	return r;
}

START_TEST(test_migrations_allowed)
{
	/* setuid root to narrower capabilities; drops; narrowing existing caps */
	ck_assert_int_eq(check(st(0, 0, 04755, NULL), st(0, 0, 0755, "cap_net_raw=ep"), 0, NULL), 0);
	ck_assert_int_eq(check(st(0, 0, 04755, NULL), st(0, 0, 0755, NULL), 0, NULL), 0);
	ck_assert_int_eq(check(st(0, 0, 04755, NULL), st(0, 42, 0750, "cap_net_raw=p"), 0, NULL), 0);
	ck_assert_int_eq(check(st(0, 60, 06755, NULL), st(0, 60, 02755, "cap_net_raw=ep"), 0, NULL), 0);
	ck_assert_int_eq(check(st(0, 0, 0755, "cap_net_raw,cap_net_admin=ep"),
			       st(0, 0, 0755, "cap_net_raw=p"), 0, NULL), 0);
	ck_assert_int_eq(check(st(0, 42, 02755, NULL), st(0, 42, 0755, NULL), 0, NULL), 0);
	ck_assert_int_eq(check(st(10, 0, 04755, NULL), st(10, 0, 0755, NULL), 0, NULL), 0);
	/* the same state is no change at all */
	ck_assert_int_eq(check(st(0, 0, 0755, "cap_sys_admin=ep"), st(0, 0, 0755, "cap_sys_admin=ep"),
			       0, NULL), 0);
}
END_TEST

START_TEST(test_gains_refused)
{
	/* only root's set-user-ID programs gain capabilities */
	ck_assert_int_eq(check(st(0, 42, 02755, NULL), st(0, 42, 02755, "cap_dac_read_search=ep"),
			       PRIVCHECK_ROOT_EQUIVALENT, "set-group-ID only"), -EPERM);
	ck_assert_int_eq(check(st(10, 0, 04755, NULL), st(10, 0, 0755, "cap_net_raw=ep"), 0,
			       "only files owned by root"), -EPERM);
	ck_assert_int_eq(check(st(65534, 0, 04755, NULL), st(0, 0, 0755, "cap_net_raw=ep"), 0,
			       "set-user-ID to another user"), -EPERM);
	ck_assert_int_eq(check(st(0, 0, 0755, NULL), st(0, 0, 0755, "cap_net_raw=ep"), 0,
			       "without set-ID bits or capabilities"), -EPERM);
	/* existing capabilities only narrow */
	ck_assert_int_eq(check(st(0, 0, 0755, "cap_net_raw=ep"), st(0, 0, 0755, "cap_net_raw,cap_sys_nice=ep"),
			       0, "would gain cap_sys_nice"), -EPERM);
	/* bits, owners, groups */
	ck_assert_int_eq(check(st(0, 0, 0755, NULL), st(0, 0, 04755, NULL), 0, "set-user-ID bit"), -EPERM);
	ck_assert_int_eq(check(st(0, 42, 0755, NULL), st(0, 42, 02755, NULL), 0, "set-group-ID bit"), -EPERM);
	ck_assert_int_eq(check(st(0, 42, 02755, NULL), st(0, 0, 02755, NULL), 0, "set-group-ID bit"), -EPERM);
	ck_assert_int_eq(check(st(0, 0, 04750, NULL), st(0, 0, 0755, "cap_net_raw=ep"), 0,
			       "permission bits 0005"), -EPERM);
	ck_assert_int_eq(check(st(0, 0, 04755, NULL), st(0, 0, 0777, NULL), 0, "0022"), -EPERM);
	ck_assert_int_eq(check(st(0, 0, 04755, NULL), st(65534, 0, 0755, "cap_net_raw=ep"), 0,
			       "given to uid 65534"), -EPERM);
	ck_assert_int_eq(check(st(0, 0, 04770, NULL), st(0, 42, 0770, "cap_net_raw=ep"), 0,
			       "group 42"), -EPERM);
	/* capabilities bound to another user namespace grant nothing here */
	{
		struct file_state b = st(0, 0, 0755, NULL), a = st(0, 0, 0755, NULL);
		struct fcaps c = { .version = 3, .effective = true, .permitted = 1ULL << 13,
				   .has_rootid = true, .rootid = 100000 };
		filestate_set_caps(&b, &c);
		c.has_rootid = false;
		c.version = 2;
		filestate_set_caps(&a, &c);
		ck_assert_int_eq(check(b, a, 0, "without set-ID bits or capabilities"), -EPERM);
	}
}
END_TEST

START_TEST(test_root_equivalent_needs_acceptance)
{
	ck_assert_int_eq(check(st(0, 0, 04755, NULL), st(0, 0, 0755, "cap_sys_admin=ep"), 0,
			       "setuid in disguise"), -EACCES);
	ck_assert_int_eq(check(st(0, 0, 04755, NULL), st(0, 0, 0755, "cap_sys_admin=ep"),
			       PRIVCHECK_ROOT_EQUIVALENT, NULL), 0);
	/* a capability the table does not know counts as root-equivalent */
	{
		struct file_state a = st(0, 0, 0755, NULL);
		struct fcaps c = { .version = 2, .effective = true, .permitted = 1ULL << 62 };
		filestate_set_caps(&a, &c);
		ck_assert_int_eq(check(st(0, 0, 04755, NULL), a, 0, "root-equivalent"), -EACCES);
	}
}
END_TEST

/*
 * An independent statement of the order, checked against privcheck() for
 * every combination of a small universe of states: owners {0, 10}, groups
 * {0, 42}, modes built from set-ID bits and a few permission sets, and
 * capability sets {none, net_raw, net_raw+sys_nice}.  Who could run what with
 * which privilege must never grow.
 */
struct universe_state {
	uint32_t uid, gid, mode;
	uint64_t caps;
};

/*
 * What a state hands out to owner, group members and others (rows 0, 1, 2):
 * bit 0 run it, bit 1 root, bit 2 cap_net_raw, bit 3 cap_sys_nice, bit 4
 * become uid 10, bit 5 group 0, bit 6 group 42.  Root implies all of them.
 */
static void grants(const struct universe_state *s, unsigned rows[3])
{
	for (int who = 0; who < 3; who++) {
		uint32_t x = who == 0 ? 0100 : who == 1 ? 010 : 01;
		unsigned row = 0;

		if (s->mode & x) {
			row = 1;
			if ((s->mode & S_ISUID) && s->uid == 0)
				row |= 0x7e;
			if ((s->mode & S_ISUID) && s->uid != 0)
				row |= 0x10;
			if (s->mode & S_ISGID)
				row |= s->gid == 0 ? 0x20 : 0x40;
			if (s->caps & (1ULL << 13))
				row |= 0x4;
			if (s->caps & (1ULL << 23))
				row |= 0x8;
		}
		rows[who] = row;
	}
}

START_TEST(test_exhaustive_order)
{
	static const uint32_t uids[] = { 0, 10 }, gids[] = { 0, 42 };
	static const uint32_t perms[] = { 0755, 0750, 0711, 0700 };
	static const uint32_t setid[] = { 0, S_ISUID, S_ISGID, S_ISUID | S_ISGID };
	static const uint64_t caps[] = { 0, 1ULL << 13, (1ULL << 13) | (1ULL << 23) };
	struct universe_state all[2 * 2 * 4 * 4 * 3];
	size_t n = 0, accepted = 0;

	for (size_t a = 0; a < 2; a++)
		for (size_t b = 0; b < 2; b++)
			for (size_t c = 0; c < 4; c++)
				for (size_t d = 0; d < 4; d++)
					for (size_t e = 0; e < 3; e++)
						all[n++] = (struct universe_state){ uids[a], gids[b],
										    perms[c] | setid[d],
										    caps[e] };
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			struct file_state b = { .uid = all[i].uid, .gid = all[i].gid, .mode = all[i].mode };
			struct file_state a = { .uid = all[j].uid, .gid = all[j].gid, .mode = all[j].mode };
			struct fcaps fc = { .version = 2, .effective = true };
			struct s2c_error err = { 0 };
			unsigned gb[3], ga[3];
			int r;

			fc.permitted = all[i].caps;
			filestate_set_caps(&b, all[i].caps ? &fc : NULL);
			fc.permitted = all[j].caps;
			filestate_set_caps(&a, all[j].caps ? &fc : NULL);
			r = privcheck(&db->caps, &b, &a, 0, &err);
			if (r < 0)
				continue;
			accepted++;
			grants(&all[i], gb);
			grants(&all[j], ga);
			/* A new owner other than root could rewrite it: only root may take over. */
			ck_assert_msg(all[j].uid == all[i].uid || all[j].uid == 0,
				      "owner %u -> %u accepted", all[i].uid, all[j].uid);
			/* Members of a new group were "others" before. */
			if (all[j].gid != all[i].gid)
				gb[1] &= gb[2];
			for (int w = 0; w < 3; w++)
				ck_assert_msg((ga[w] & ~gb[w]) == 0,
					      "%u:%u %04o caps %jx -> %u:%u %04o caps %jx grants more",
					      all[i].uid, all[i].gid, all[i].mode, (uintmax_t)all[i].caps,
					      all[j].uid, all[j].gid, all[j].mode,
					      (uintmax_t)all[j].caps);
		}
	}
	/* the order is not empty: migrations and drops exist in it */
	ck_assert_uint_gt(accepted, n);
}
END_TEST

Suite *privcheck_suite(void)
{
	Suite *s = suite_create("privcheck");
	TCase *tc = tcase_create("privcheck");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_migrations_allowed);
	tcase_add_test(tc, test_gains_refused);
	tcase_add_test(tc, test_root_equivalent_needs_acceptance);
	tcase_add_test(tc, test_exhaustive_order);
	suite_add_tcase(s, tc);
	return s;
}
