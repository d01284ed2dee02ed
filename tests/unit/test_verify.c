/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify: a whole record checked, what --fix may repair and approves, --forget. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>

#include "error.h"
#include "fcaps.h"
#include "fixture.h"
#include "plan.h"
#include "state.h"
#include "statedir.h"
#include "suites.h"
#include "verify.h"

#define SHA_X "1111111111111111111111111111111111111111111111111111111111111111"
#define SHA_Y "2222222222222222222222222222222222222222222222222222222222222222"

static char *root;
static int rootfd = -1;

static void setup(void)
{
	root = fx_tempdir();
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(rootfd, 0);
}

static void teardown(void)
{
	close(rootfd);
	fx_rmrf(root);
	free(root);
}

static struct file_state st(uint32_t mode, const char *caps)
{
	struct file_state s = { .mode = mode };
	struct fcaps c;

	if (caps) {
		ck_assert_int_eq(fcaps_from_text(caps, &c, NULL), 0);
		filestate_set_caps(&s, &c);
	}
	return s;
}

/* What verify_fixable() and verify_approve() refused, one "path: why" per line. */
static char refusals[4096];

static void refused(void *userdata, const char *path, const char *why)
{
	size_t len = strlen(refusals);

	ck_assert_ptr_eq(userdata, refusals);
	(void)snprintf(refusals + len, sizeof(refusals) - len, "%s: %s\n", path, why);
}

/* A record of @n files, each migrated to cap_net_raw=ep, 0755. */
static struct state *record(const char *const *paths, size_t n)
{
	struct state *s = calloc(1, sizeof(*s));

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(s->root = strdup("/"));
	for (size_t i = 0; i < n; i++) {
		struct state_entry e = { .path = strdup(paths[i]),
					 .left = { .state = st(0755, "cap_net_raw=ep") } };

		memcpy(e.left.sha256, SHA_X, sizeof(SHA_X));
		ck_assert_int_eq(state_put(s, &e), 0);  /* a copy */
		free(e.path);
	}
	return s;
}

/* A plan entry for @path on content @sha: a change to @after (NULL: nothing changes). */
static void plan_add(struct plan *p, const char *path, const char *sha,
		     const struct file_state *after)
{
	struct plan_entry *e = &p->v[p->n++];

	ck_assert_ptr_nonnull(e->path = strdup(path));
	e->verdict = VERDICT_MIGRATE;
	e->change = after != NULL;
	e->id.state = st(04755, NULL);
	e->after = after ? *after : e->id.state;
	memcpy(e->id.sha256, sha, strlen(sha) + 1);
}

START_TEST(test_approval)
{
	static const char *const paths[] = { "/a", "/b", "/c", "/d", "/f" };
	struct verify_run v = { .state = record(paths, 5) };
	struct file_state same = st(0755, "cap_net_raw=ep"), other = st(0755, "cap_net_admin=ep");
	struct plan *p = calloc(1, sizeof(*p));
	const char **fixable = NULL, **approved = NULL;
	size_t n_refused = 0;
	int n;

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(p->v = calloc(8, sizeof(*p->v)));
	ck_assert_ptr_nonnull(v.drifts = calloc(5, sizeof(*v.drifts)));
	for (size_t i = 0; i < 5; i++) {
		v.drifts[i] = (struct drift){ .entry = &v.state->v[i], .kind = DRIFT_UPDATED,
					      .fixable = true };
		memcpy(v.drifts[i].now.sha256, SHA_Y, sizeof(SHA_Y));
	}
	v.drifts[1].kind = DRIFT_TAMPERED;
	v.drifts[1].fixable = false;
	(void)snprintf(v.drifts[1].what, sizeof(v.drifts[1].what), "possible tampering");
	v.drifts[1].repair = "reinstall the package";
	v.n_drifted = 5;

	refusals[0] = '\0';
	n = verify_fixable(&v, refused, refusals, &fixable, &n_refused);
	ck_assert_int_eq(n, 4);
	ck_assert_uint_eq(n_refused, 1);
	ck_assert_str_eq(fixable[0], "/a");
	ck_assert_str_eq(fixable[3], "/f");
	ck_assert_ptr_null(fixable[4]);
	ck_assert_str_eq(refusals, "/b: possible tampering; reinstall the package\n");

	plan_add(p, "/a", SHA_Y, &same);        /* exactly the recorded state: repaired */
	plan_add(p, "/c", SHA_Y, &other);       /* the rules decide another state */
	plan_add(p, "/e", SHA_Y, &same);        /* not drifted: never changed */
	plan_add(p, "/f", SHA_X, &same);        /* its content changed again */
	refusals[0] = '\0';
	n = verify_approve(&v, p, refused, refusals, &approved);
	ck_assert_int_eq(n, 3);                 /* /c, /d (gone from the plan), /f */
	ck_assert_str_eq(approved[0], "/a");
	ck_assert_ptr_null(approved[1]);
	ck_assert(p->v[0].change);
	ck_assert(!p->v[1].change && !p->v[2].change && !p->v[3].change);
	ck_assert_str_eq(refusals,
			 "/c: the rules no longer decide the recorded state '0755 0:0 "
			 "cap_net_raw=ep' (now migrate, no rule)\n"
			 "/d: it is not privileged any more, so there is nothing to repair\n"
			 "/f: its content changed again while it was checked\n");
	free(fixable);
	free(approved);
	plan_free(p);
	free(v.drifts);
	state_free(v.state);
}
END_TEST

START_TEST(test_check_and_forget)
{
	static const char *const paths[] = { "/usr/bin/gone", "/usr/bin/kept" };
	const char *forget[] = { "/usr/bin/gone", "/usr/bin/never" };
	struct verify_run *v = NULL;
	struct state *s = record(paths, 2), *back = NULL;
	struct s2c_error err = { 0 };
	bool found[2];
	int sfd = -1;

	/* Nothing was ever migrated here. */
	ck_assert_int_eq(verify_run_check(rootfd, root, root, false, false, &v, &err), 1);
	ck_assert_int_eq(verify_forget(rootfd, root, forget, 2, false, found, &err), -ENOENT);
	ck_assert_int_eq(statedir_open(rootfd, root, true, false, &sfd, &err), 0);
	ck_assert_int_eq(state_save(sfd, NULL, s, &err), 0);
	ck_assert_msg(verify_run_check(rootfd, root, root, false, false, &v, &err) == 0, "%s",
		      err.msg);
	ck_assert_uint_eq(v->state->n, 2);
	ck_assert_uint_eq(v->n_drifted, 2);
	ck_assert_int_eq(v->drifts[0].kind, DRIFT_GONE);
	ck_assert(!v->drifts[0].fixable);
	v = verify_run_free(v);
	/* --forget drops one record, says the other was never there, and saves. */
	ck_assert_msg(verify_forget(rootfd, root, forget, 2, false, found, &err) == 0, "%s",
		      err.msg);
	ck_assert(found[0] && !found[1]);
	ck_assert_int_eq(state_load(sfd, NULL, "/", false, &back, &err), 0);
	ck_assert_uint_eq(back->n, 1);
	ck_assert_str_eq(back->v[0].path, "/usr/bin/kept");
	/* The state directory's lock keeps a second writer out. */
	ck_assert_int_eq(statedir_lock(sfd, "state", &err), 0);
	ck_assert_int_eq(verify_forget(rootfd, root, forget, 1, false, found, &err), -EWOULDBLOCK);
	ck_assert_ptr_nonnull(strstr(err.msg, "another apply, rollback or verify is running"));
	close(sfd);
	state_free(back);
	state_free(s);
}
END_TEST

Suite *verify_suite(void)
{
	Suite *s = suite_create("verify");
	TCase *tc = tcase_create("verify");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_approval);
	tcase_add_test(tc, test_check_and_forget);
	suite_add_tcase(s, tc);
	return s;
}
