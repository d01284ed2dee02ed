/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Local overrides of a rule's verdict: loading, layering, errors, rules lint. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "db.h"
#include "error.h"
#include "fixture.h"
#include "lint.h"
#include "override.h"
#include "suites.h"

static char *root;

static void setup(void)
{
	root = fx_tempdir();
}

static void teardown(void)
{
	fx_rmrf(root);
	free(root);
}

/* A layer directory @name holding @text as site.json; its path, free() it. */
static char *layer(const char *name, const char *file, const char *text)
{
	char *rel = NULL;

	fx_mkdirs(root, name);
	ck_assert_int_gt(asprintf(&rel, "%s/%s", name, file), 0);
	fx_write(root, rel, text);
	free(rel);
	return fx_path(root, name);
}

/* A rules file of overrides: @body is the contents of the "overrides" array. */
static char *overrides(const char *area, const char *body)
{
	char *s = NULL;

	ck_assert_int_gt(asprintf(&s, "{\"schema\": 1, \"area\": \"%s\", \"overrides\": [%s]}",
				  area, body), 0);
	return s;
}

/* Load the bundled database with the NULL-terminated extra @dirs on top. */
static int load(const char *const *dirs, struct rules_problems *collect, struct rules_db **ret,
		struct s2c_error *err)
{
	struct rules_layer layers[8];
	char *bundled = NULL;
	size_t n = 0;
	int r;

	ck_assert_int_gt(asprintf(&bundled, "%s/db", S2C_TEST_SRCDIR), 0);
	layers[n++] = (struct rules_layer){ .dir = bundled, .dirfd = -1 };
	for (size_t i = 0; dirs[i]; i++)
		layers[n++] = (struct rules_layer){ .dir = dirs[i], .dirfd = -1 };
	r = rules_db_load_layers(layers, n, RULES_LOAD_NO_OVERLAP, collect, ret, err);
	free(bundled);
	return r;
}

static void expect_error(const char *body, const char *needle)
{
	char *text = overrides("site", body), *dir = layer("bad", "site.json", text);
	const char *dirs[] = { dir, NULL };
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };

	ck_assert_msg(load(dirs, NULL, &db, &err) == -EINVAL, "loaded; expected \"%s\"", needle);
	ck_assert_ptr_null(db);
	ck_assert_msg(strstr(err.msg, needle), "error \"%s\" lacks \"%s\"", err.msg, needle);
	ck_assert_msg(strstr(err.msg, "/bad/site.json: $"), "error \"%s\" does not name the file",
		      err.msg);
	fx_rmrf(dir);
	free(dir);
	free(text);
}

#define KEEP_PING "{\"override\": \"iputils.ping\", \"verdict\": \"keep\", \"reason\": \"keep it\"}"

START_TEST(test_load)
{
	char *text = overrides("site", KEEP_PING ", {\"override\": \"fping.fping\", \"verdict\": "
			       "\"migrate\", \"caps\": \"cap_net_raw=p\", \"reason\": \"aware build\"}");
	char *dir = layer("local", "site.json", text);
	const char *dirs[] = { dir, NULL };
	const struct rule_override *o;
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };

	ck_assert_msg(load(dirs, NULL, &db, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(db->n_overrides, 2);
	o = override_find(db, "iputils.ping");
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->verdict, VERDICT_KEEP);
	ck_assert_ptr_eq(o->rule, rules_db_find(db, "iputils.ping"));
	ck_assert_str_eq(o->reason, "keep it");
	ck_assert_str_eq(o->where, "$.overrides[0]");
	ck_assert_ptr_nonnull(strstr(o->file, "/local/site.json"));
	o = override_find(db, "fping.fping");
	ck_assert_ptr_nonnull(o);
	ck_assert(o->has_caps && o->caps.permitted && !o->caps.effective);
	ck_assert_ptr_null(override_find(db, "util-linux.su"));
	/* the rule itself is untouched: the override applies when deciding */
	ck_assert_int_eq(rules_db_find(db, "iputils.ping")->verdict, VERDICT_MIGRATE);
	rules_db_free(db);
	free(text);
	free(dir);
}
END_TEST

START_TEST(test_layers)
{
	char *t1 = overrides("site", KEEP_PING);
	char *t2 = overrides("site", "{\"override\": \"iputils.ping\", \"verdict\": \"drop\", "
			     "\"reason\": \"open ping sockets\"}");
	char *d1 = layer("one", "site.json", t1), *d2 = layer("two", "site.json", t2);
	const char *dirs[] = { d1, d2, NULL };
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };

	/* a later layer's override of the same rule replaces an earlier one */
	ck_assert_msg(load(dirs, NULL, &db, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(db->n_overrides, 1);
	ck_assert_int_eq(override_find(db, "iputils.ping")->verdict, VERDICT_DROP);
	rules_db_free(db);
	db = NULL;
	/* two files of one layer overriding the same rule: an error, which one is meant is unknown */
	{
		char *zz = overrides("zz", KEEP_PING);
		free(layer("one", "zz.json", zz));
		free(zz);
	}
	dirs[1] = NULL;
	ck_assert_int_eq(load(dirs, NULL, &db, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "zz.json: $.overrides[0]: a second override of rule "
				     "'iputils.ping' (also in "));
	free(t1), free(t2), free(d1), free(d2);
}
END_TEST

START_TEST(test_errors)
{
	expect_error("{\"override\": \"x.nosuch\", \"verdict\": \"keep\", \"reason\": \"r\"}",
		     "$.overrides[0].override: no rule 'x.nosuch' to override");
	expect_error("{\"override\": \"\", \"verdict\": \"keep\", \"reason\": \"r\"}",
		     "$.overrides[0].override: names no rule");
	expect_error("{\"override\": \"iputils.ping\", \"verdict\": \"keep\"}",
		     "$.overrides[0]: missing key 'reason'");
	expect_error("{\"override\": \"iputils.ping\", \"verdict\": \"keep\", \"reason\": \" \"}",
		     "$.overrides[0].reason: empty");
	expect_error("{\"override\": \"iputils.ping\", \"verdict\": \"review\", \"reason\": \"r\"}",
		     "$.overrides[0].verdict: unknown verdict 'review'");
	expect_error("{\"override\": \"iputils.ping\", \"verdict\": \"sometimes\", \"reason\": \"r\"}",
		     "$.overrides[0].verdict: unknown verdict 'sometimes'");
	expect_error("{\"override\": \"iputils.ping\", \"verdict\": \"migrate\", \"reason\": \"r\"}",
		     "$.overrides[0]: verdict 'migrate' needs 'caps'");
	expect_error("{\"override\": \"iputils.ping\", \"verdict\": \"drop\", \"caps\": "
		     "\"cap_net_raw=p\", \"reason\": \"r\"}",
		     "$.overrides[0]: 'caps' belongs to verdict 'migrate' only");
	expect_error("{\"override\": \"iputils.ping\", \"verdict\": \"migrate\", \"caps\": "
		     "\"cap_nosuch=p\", \"reason\": \"r\"}", "$.overrides[0].caps: ");
	expect_error("{\"override\": \"iputils.ping\", \"verdict\": \"migrate\", \"caps\": \"=\", "
		     "\"reason\": \"r\"}", "$.overrides[0].caps: empty capability set");
	expect_error("{\"override\": \"iputils.ping\", \"verdict\": \"keep\", \"reason\": \"r\", "
		     "\"sources\": []}", "$.overrides[0]: unknown key 'sources'");
	expect_error("{\"override\": \"iputils.ping\", \"verdict\": \"keep\", \"reason\": \"r\", "
		     "\"accepted_risk\": \"short\"}", "$.overrides[0].accepted_risk: give the reason");
	expect_error("{\"override\": 7, \"verdict\": \"keep\", \"reason\": \"r\"}",
		     "$.overrides[0].override: expected a string");
}
END_TEST

START_TEST(test_neither_rules_nor_overrides)
{
	char *dir = layer("empty", "site.json", "{\"schema\": 1, \"area\": \"site\"}");
	const char *dirs[] = { dir, NULL };
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };

	ck_assert_int_eq(load(dirs, NULL, &db, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "site.json: $: needs 'rules' or 'overrides'"));
	free(dir);
}
END_TEST

START_TEST(test_collect_and_lint)
{
	char *text = overrides("site",
		"{\"override\": \"x.nosuch\", \"verdict\": \"keep\", \"reason\": \"r\"},"
		"{\"override\": \"iputils.ping\", \"verdict\": \"migrate\", \"caps\": "
		"\"cap_net_raw,cap_sys_admin=ep\", \"reason\": \"r\"},"
		"{\"override\": \"fping.fping\", \"verdict\": \"keep\", \"reason\": \"r\", "
		"\"accepted_risk\": \"nothing is migrated here, so nothing to accept\"},"
		"{\"override\": \"util-linux.su\", \"verdict\": \"review\", \"reason\": \"r\"},"
		"{\"override\": \"util-linux.mount\", \"verdict\": \"migrate\", \"caps\": "
		"\"cap_sys_admin=ep\", \"reason\": \"r\", \"accepted_risk\": \"mount helpers here are "
		"trusted with cap_sys_admin, and the setuid bit they had was worse\"}");
	char *dir = layer("lint", "site.json", text);
	const char *dirs[] = { dir, NULL };
	struct rules_problems problems = { 0 };
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };
	bool unknown = false, risky = false, stale = false, review = false;

	/* rules lint: every problem is recorded and the good overrides stay */
	ck_assert_msg(load(dirs, &problems, &db, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(lint_rules(db, &problems), 0);
	for (size_t i = 0; i < problems.n; i++) {
		const char *p = problems.v[i];
		ck_assert_msg(strstr(p, "/lint/site.json: $.overrides["), "%s", p);
		unknown |= strstr(p, "$.overrides[0].override: no rule 'x.nosuch'") != NULL;
		risky |= strstr(p, "$.overrides[1].caps: migrating to 'cap_net_raw,cap_sys_admin=ep' "
				"gives cap_sys_admin (root-equivalent)") != NULL;
		stale |= strstr(p, "$.overrides[2].accepted_risk: the override migrates to no") != NULL;
		review |= strstr(p, "$.overrides[3].verdict: unknown verdict 'review'") != NULL;
	}
	ck_assert_msg(unknown && risky && stale && review && problems.n == 4, "%zu problems",
		      problems.n);
	ck_assert_uint_eq(db->n_overrides, 3);
	ck_assert_ptr_null(override_find(db, "x.nosuch"));
	ck_assert_ptr_nonnull(override_find(db, "util-linux.mount"));
	rules_problems_release(&problems);
	rules_db_free(db);
	free(text);
	free(dir);
}
END_TEST

Suite *override_suite(void)
{
	Suite *s = suite_create("override");
	TCase *tc = tcase_create("override");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_load);
	tcase_add_test(tc, test_layers);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_neither_rules_nor_overrides);
	tcase_add_test(tc, test_collect_and_lint);
	suite_add_tcase(s, tc);
	return s;
}
