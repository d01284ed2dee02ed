/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rules database loader (every error class), globs, matching, host facts. */
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>

#include "db.h"
#include "error.h"
#include "fixture.h"
#include "glob.h"
#include "host.h"
#include "layout.h"
#include "match.h"
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

/* A database directory holding the bundled capability table and, if given,
 * @rules as test.json. */
static char *make_db(const char *name, const char *rules)
{
	char *dir = fx_path(root, name);
	char *src = NULL, *rel = NULL, *buf;
	FILE *in;
	long len;

	fx_mkdirs(root, name);
	ck_assert_int_gt(asprintf(&src, "%s/db/capabilities.json", S2C_TEST_SRCDIR), 0);
	in = fopen(src, "r");
	ck_assert_ptr_nonnull(in);
	fseek(in, 0, SEEK_END);
	len = ftell(in);
	fseek(in, 0, SEEK_SET);
	buf = calloc(1, (size_t)len + 1);
	ck_assert_int_eq(fread(buf, 1, (size_t)len, in), len);
	fclose(in);
	ck_assert_int_gt(asprintf(&rel, "%s/capabilities.json", name), 0);
	fx_write(root, rel, buf);
	free(rel);
	free(buf);
	free(src);
	if (rules) {
		ck_assert_int_gt(asprintf(&rel, "%s/test.json", name), 0);
		fx_write(root, rel, rules);
		free(rel);
	}
	return dir;
}

/* One rules file with the rules @body (a JSON array's contents). */
static char *file_of(const char *body)
{
	char *s = NULL;

	ck_assert_int_gt(asprintf(&s, "{\"schema\": 1, \"area\": \"test\", \"rules\": [%s]}", body), 0);
	return s;
}

/* A valid rule with @extra appended inside the object and @id/@path/@verdict/@caps. */
static char *rule(const char *id, const char *path, const char *verdict, const char *caps,
		  const char *extra)
{
	char *s = NULL;

	ck_assert_int_gt(asprintf(&s,
		"{\"id\": \"%s\", \"program\": \"p\", \"match\": {\"paths\": [\"%s\"]},"
		" \"verdict\": \"%s\"%s%s%s, \"reason\": \"r\", \"sources\": [\"man:ping(8)\"]%s}",
		id, path, verdict, caps ? ", \"caps\": \"" : "", caps ? caps : "",
		caps ? "\"" : "", extra ? extra : ""), 0);
	return s;
}

static int load_text(const char *text, struct rules_db **db, struct s2c_error *err)
{
	char *dir = make_db("db", text);
	const char *dirs[] = { dir, NULL };
	int r = rules_db_load(dirs, RULES_LOAD_NO_OVERLAP, db, err);

	free(dir);
	return r;
}

static void expect_error_text(const char *text, const char *needle)
{
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };
	int r = load_text(text, &db, &err);

	ck_assert_msg(r < 0, "loaded; expected an error containing \"%s\"", needle);
	ck_assert_ptr_null(db);
	ck_assert_msg(strstr(err.msg, needle), "error \"%s\" lacks \"%s\"", err.msg, needle);
	ck_assert_msg(strstr(err.msg, "/db/test.json"), "error \"%s\" does not name the file",
		      err.msg);
}

/* Wrap one rule in a file and expect an error. */
static void expect_error(char *one_rule, const char *needle)
{
	char *text = file_of(one_rule);

	expect_error_text(text, needle);
	free(text);
	free(one_rule);
}

START_TEST(test_valid_and_hash)
{
	char *r1 = rule("x.ping", "/usr/bin/ping", "migrate", "cap_net_raw=p", NULL);
	char *t1 = file_of(r1);
	char *r2 = rule("x.ping", "/usr/bin/ping", "migrate", "cap_net_raw=p", ", \"breaks\": \"b\"");
	char *t2 = file_of(r2);
	struct rules_db *a = NULL, *b = NULL, *c = NULL;
	struct s2c_error err = { 0 };
	const struct rule *r;

	ck_assert_msg(load_text(t1, &a, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(a->n, 1);
	r = rules_db_find(a, "x.ping");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->caps_text, "cap_net_raw=p");
	ck_assert_int_eq(r->mode, -1);
	ck_assert_uint_eq(strlen(a->hash), 64);
	ck_assert_int_eq(load_text(t1, &b, &err), 0);
	ck_assert_str_eq(a->hash, b->hash);          /* same bytes, same hash */
	ck_assert_int_eq(load_text(t2, &c, &err), 0);
	ck_assert_str_ne(a->hash, c->hash);          /* any change shows */
	rules_db_free(a);
	rules_db_free(b);
	rules_db_free(c);
	free(r1), free(r2), free(t1), free(t2);
}
END_TEST

START_TEST(test_error_classes)
{
	/* unknown keys, at every level */
	expect_error(rule("x.a", "/a", "migrate", "cap_net_raw=p", ", \"pathz\": 1"),
		     "$.rules[0]: unknown key 'pathz'");
	expect_error_text("{\"schema\": 1, \"area\": \"test\", \"extra\": 1, \"rules\": []}",
			  "$: unknown key 'extra'");
	/* bad capability names and flags */
	expect_error(rule("x.a", "/a", "migrate", "cap_bogus=p", NULL),
		     "$.rules[0].caps: invalid capability text 'cap_bogus=p'");
	expect_error(rule("x.a", "/a", "migrate", "cap_net_raw=p cap_sys_nice=ep", NULL),
		     "$.rules[0].caps: capability text");
	/* verdicts and their capabilities */
	expect_error(rule("x.a", "/a", "migrate", NULL, NULL), "verdict 'migrate' needs 'caps'");
	expect_error(rule("x.a", "/a", "drop", "cap_net_raw=p", NULL), "verdict 'drop' cannot have 'caps'");
	expect_error(rule("x.a", "/a", "maybe", NULL, NULL), "unknown verdict 'maybe'");
	/* ids */
	expect_error(rule("NoDot", "/a", "keep", NULL, NULL), "invalid id 'NoDot'");
	/* globs */
	expect_error(rule("x.a", "usr/bin/a", "keep", NULL, NULL), "not an absolute path");
	expect_error(rule("x.a", "/usr/[bin/a", "keep", NULL, NULL), "unclosed '['");
	expect_error(rule("x.a", "/usr/../a", "keep", NULL, NULL), "'.' or '..' component");
	/* types, required keys, sources, modes, conditions, smoke */
	expect_error(rule("x.a", "/a", "keep", NULL, ", \"aware\": \"yes\""), "$.rules[0].aware: expected true or false");
	expect_error(rule("x.a", "/a", "keep", NULL, ", \"mode\": \"755\""), "$.rules[0].mode: expected 4 octal digits");
	expect_error_text("{\"schema\": 1, \"area\": \"test\", \"rules\": [{\"id\": \"x.a\", \"program\": \"p\","
			  " \"match\": {\"paths\": [\"/a\"]}, \"verdict\": \"keep\", \"reason\": \"r\","
			  " \"sources\": [\"ftp://x\"]}]}",
			  "$.rules[0].sources[0]: 'ftp://x' is not an https:// URL");
	expect_error(rule("x.a", "/a", "keep", NULL, ", \"smoke\": [\"/bin/true\"]"), "needs \"{}\"");
	expect_error(rule("x.a", "/a", "keep", NULL,
			  ", \"conditions\": [{\"when\": {\"kernel_below\": \"five\"}, \"verdict\": \"drop\", \"reason\": \"r\"}]"),
		     "bad kernel version 'five'");
	expect_error(rule("x.a", "/a", "keep", NULL,
			  ", \"conditions\": [{\"when\": {\"sysctl\": {\"name\": \"a.b\"}}, \"verdict\": \"drop\", \"reason\": \"r\"}]"),
		     "needs exactly one of range_covers");
	expect_error(rule("x.a", "/a", "keep", NULL,
			  ", \"conditions\": [{\"when\": {}, \"verdict\": \"drop\", \"reason\": \"r\"}]"),
		     "empty condition");
	expect_error_text("{\"schema\": 1, \"area\": \"test\", \"rules\": [{\"id\": \"x.a\"}]}",
			  "$.rules[0]: missing key 'program'");
	/* JSON itself */
	expect_error_text("{\"schema\": 1, \"area\": \"test\", \"rules\": [", "unexpected end of file");
	expect_error_text("{\"schema\": 1,\n \"area\": 't', \"rules\": []}", "test.json:2:");
	expect_error_text("{\"schema\": 1, \"area\": \"test\", \"area\": \"u\", \"rules\": []}", "same key twice");
	/* the object with a key twice is named by its path, whatever the strings hold */
	expect_error_text("{\"schema\": 1, \"area\": \"test\", \"rules\": [{\"id\": \"a:{b\"}, "
			  "{\"id\": \"x\", \"when\": {\"k\": [1, {\"v\": 1, \"v\": 2}]}}]}",
			  "test.json: $.rules[1].when.k[1]: an object has the same key twice");
	expect_error_text("{\"schema\": 1, \"area\": \"test\", \"rules\": [], \"rules\": [{}]}",
			  "test.json: $: an object has the same key twice");
	expect_error_text("{\"schema\": 2, \"area\": \"test\", \"rules\": []}", "$.schema: integer out of range");
	expect_error_text("{\"schema\": 1, \"area\": \"test\", \"rules\": []} x", "test.json:1:");
	/* the area names the file */
	expect_error_text("{\"schema\": 1, \"area\": \"network\", \"rules\": []}",
			  "$.area: area 'network' differs from the file name 'test.json'");
	/* identify, version, accepted_risk */
	expect_error(rule("x.a", "/a", "keep", NULL, ", \"identify\": {}"), "empty identify");
	expect_error(rule("x.a", "/a", "keep", NULL, ", \"identify\": {\"strings\": [\"ab\"]}"),
		     "$.rules[0].identify.strings[0]: 'ab' is too short");
	expect_error(rule("x.a", "/a", "keep", NULL, ", \"identify\": {\"needed\": [\"/lib/x.so\"]}"),
		     "$.rules[0].identify.needed[0]: expected a library name");
	expect_error(rule("x.a", "/a", "keep", NULL, ", \"identify\": {\"soneme\": [\"x\"]}"),
		     "$.rules[0].identify: unknown key 'soneme'");
	expect_error(rule("x.a", "/a", "keep", NULL, ", \"version\": {}"),
		     "$.rules[0].version: missing key 'prefix'");
	expect_error(rule("x.a", "/a", "keep", NULL,
			  ", \"conditions\": [{\"when\": {\"version_at_least\": \"1.x\"}, \"verdict\": \"drop\", \"reason\": \"r\"}]"),
		     "bad program version '1.x'");
	expect_error(rule("x.a", "/a", "keep", NULL, ", \"accepted_risk\": \"ok\""),
		     "$.rules[0].accepted_risk: give the reason");
}
END_TEST

START_TEST(test_duplicates_and_overlaps)
{
	char *a = rule("x.a", "/usr/bin/ping", "keep", NULL, NULL);
	char *b = rule("x.a", "/usr/bin/other", "keep", NULL, NULL);
	char *c = rule("x.c", "/usr/bin/p*g", "keep", NULL, NULL);
	char *d = rule("x.d", "/usr/bin/ping", "keep", NULL, ", \"match\": {\"paths\": [\"/usr/bin/ping\"], \"packages\": [\"one\"]}");
	char *body = NULL, *text;
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };

	ck_assert_int_gt(asprintf(&body, "%s, %s", a, b), 0);
	expect_error_text(text = file_of(body), "duplicate id 'x.a'");
	free(text), free(body);
	ck_assert_int_gt(asprintf(&body, "%s, %s", a, c), 0);
	expect_error_text(text = file_of(body), "overlaps '/usr/bin/p*g' of rule 'x.c'");
	free(text), free(body);
	/* disjoint package lists make the same path legal (inetutils vs iputils ping) */
	free(d);
	d = strdup("{\"id\": \"x.d\", \"program\": \"p\", \"match\": {\"paths\": [\"/usr/bin/ping\"],"
		   " \"packages\": [\"one\"]}, \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]}");
	{
		char *e = strdup("{\"id\": \"x.e\", \"program\": \"p\", \"match\": {\"paths\": [\"/usr/bin/ping\"],"
				 " \"packages\": [\"two\"]}, \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]}");
		ck_assert_int_gt(asprintf(&body, "%s, %s", d, e), 0);
		text = file_of(body);
		ck_assert_msg(load_text(text, &db, &err) == 0, "%s", err.msg);
		rules_db_free(db);
		free(text), free(body), free(e);
	}
	free(a), free(b), free(c), free(d);
}
END_TEST

START_TEST(test_layers_override)
{
	char *r1 = rule("x.a", "/usr/bin/a", "keep", NULL, NULL);
	char *r2 = rule("x.a", "/usr/bin/a", "drop", NULL, NULL);
	char *t1 = file_of(r1), *t2 = file_of(r2);
	char *d1 = make_db("one", t1), *d2 = make_db("two", t2);
	const char *dirs[] = { d1, "/nonexistent-layer", d2, NULL };
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };

	ck_assert_msg(rules_db_load(dirs, RULES_LOAD_NO_OVERLAP, &db, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(db->n, 1);
	ck_assert_int_eq(rules_db_find(db, "x.a")->verdict, VERDICT_DROP);
	ck_assert_uint_eq(db->n_files, 4);
	rules_db_free(db);
	free(r1), free(r2), free(t1), free(t2), free(d1), free(d2);
}
END_TEST

START_TEST(test_trust)
{
	char *r1 = rule("x.a", "/usr/bin/a", "keep", NULL, NULL);
	char *t1 = file_of(r1);
	char *dir = make_db("db", t1), *file = NULL;
	const char *dirs[] = { dir, NULL };
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };

	ck_assert_int_gt(asprintf(&file, "%s/test.json", dir), 0);
	ck_assert_int_eq(chmod(file, 0664), 0);
	ck_assert_int_eq(rules_db_load(dirs, RULES_LOAD_TRUSTED, &db, &err), -EPERM);
	/* the owner is checked first: only root's own files get to the mode check */
	ck_assert_ptr_nonnull(strstr(err.msg, getuid() == 0 ? "writable by group or others" :
				     "not owned by root"));
	ck_assert_int_eq(chmod(file, 0644), 0);
	if (getuid() != 0) {
		ck_assert_int_eq(rules_db_load(dirs, RULES_LOAD_TRUSTED, &db, &err), -EPERM);
		ck_assert_ptr_nonnull(strstr(err.msg, "not owned by root"));
	} else {
		ck_assert_int_eq(rules_db_load(dirs, RULES_LOAD_TRUSTED, &db, &err), 0);
		rules_db_free(db);
	}
	free(r1), free(t1), free(dir), free(file);
}
END_TEST

START_TEST(test_missing_table)
{
	const char *dirs[] = { root, NULL };
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };

	ck_assert_int_eq(rules_db_load(dirs, 0, &db, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.msg, "capabilities.json"));
}
END_TEST

START_TEST(test_bundled_db_lints)
{
	char *dir = NULL;
	const char *dirs[2];
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };

	ck_assert_int_gt(asprintf(&dir, "%s/db", S2C_TEST_SRCDIR), 0);
	dirs[0] = dir;
	dirs[1] = NULL;
	ck_assert_msg(rules_db_load(dirs, RULES_LOAD_NO_OVERLAP, &db, &err) == 0, "%s", err.msg);
	ck_assert_uint_gt(db->n, 100);
	for (size_t i = 0; i < db->n; i++) {
		const struct rule *r = db->rules[i];
		ck_assert_msg(r->sources && r->sources[0], "%s has no source", r->id);
		/* the matcher finds a path in every layout: one form of it is enough */
		for (size_t x = 0; r->layout && r->layout[x]; x++)
			for (size_t y = x + 1; r->layout[y]; y++)
				ck_assert_msg(strcmp(r->layout[x], r->layout[y]) != 0,
					      "%s lists '%s' and '%s', one file in another layout",
					      r->id, r->paths[x], r->paths[y]);
	}
	rules_db_free(db);
	free(dir);
}
END_TEST

/* glob_match() answers as fnmatch(FNM_PATHNAME) does, shortcuts and all. */
START_TEST(test_glob_like_fnmatch)
{
	static const char *const patterns[] = {
		"/usr/bin/ping", "/usr/bin/p*", "/usr/lib/*/gst-ptp-helper", "/usr/*/x",
		"/a/[abc]", "/a/[!a]/b", "/a/?", "/a/*", "/a/\\*", "/a/b\\[c", "*", "/*/*/ping",
		"/usr/lib/polkit-1/polkit-agent-helper-[0-9]", "/a/*b", "/a*/b", "/", "", NULL,
	};
	static const char *const paths[] = {
		"/usr/bin/ping", "/usr/bin/pong", "/usr/bin/ping6", "/usr/lib/x86_64-linux-gnu/gst-ptp-helper",
		"/usr/lib/a/b/gst-ptp-helper", "/usr/lib/x", "/usr/lib/x/y", "/a/a", "/a/b", "/a/c/b",
		"/a/a/b", "/a/", "/a/*", "/a/b[c", "/a/bc", "ping", "/x/y/ping", "/x/ping",
		"/usr/lib/polkit-1/polkit-agent-helper-1", "/a/xb", "/ab/b", "/", "", "/a/\xc3\xa9" "b", NULL,
	};

	for (size_t i = 0; patterns[i]; i++)
		for (size_t j = 0; paths[j]; j++)
			ck_assert_msg(glob_match(patterns[i], paths[j]) ==
				      (fnmatch(patterns[i], paths[j], FNM_PATHNAME) == 0),
				      "'%s' against '%s'", patterns[i], paths[j]);
}
END_TEST

START_TEST(test_glob)
{
	ck_assert(glob_match("/usr/lib/*/gst-ptp-helper", "/usr/lib/x86_64-linux-gnu/gst-ptp-helper"));
	ck_assert(!glob_match("/usr/lib/*/gst", "/usr/lib/a/b/gst"));
	ck_assert_int_eq(glob_intersect("/usr/bin/ping", "/usr/bin/p*"), 1);
	ck_assert_int_eq(glob_intersect("/usr/bin/ping", "/usr/bin/pong"), 0);
	ck_assert_int_eq(glob_intersect("/usr/lib/*/x", "/usr/lib/a/b/x"), 0);
	ck_assert_int_eq(glob_intersect("/usr/*/x", "/usr/lib/*"), 1);
	ck_assert_int_eq(glob_intersect("/a/[abc]", "/a/[def]"), 0);
	ck_assert_int_eq(glob_intersect("/a/[a-c]", "/a/[c-e]"), 1);
	ck_assert_int_eq(glob_intersect("/a/[!a]", "/a/a"), 0);
	ck_assert_int_eq(glob_intersect("/a/?", "/a/"), 0);
	ck_assert_int_eq(glob_intersect("/a/*", "/a/b/c"), 0);
	ck_assert_int_eq(glob_intersect("/a/*b*", "/a/*c*"), 1);
	ck_assert_int_eq(glob_intersect("/a/x*", "/a/*y"), 1);
	ck_assert_int_eq(glob_intersect("/a/x?", "/a/?y"), 1);
	ck_assert_int_eq(glob_intersect("/a/x\\*", "/a/x*"), 1);
	ck_assert_int_eq(glob_intersect("/a/x\\*", "/a/xy"), 0);
	ck_assert_ptr_null(glob_invalid("/usr/lib/*/x"));
	ck_assert_ptr_nonnull(glob_invalid("/usr/lib/"));
	ck_assert_ptr_nonnull(glob_invalid("/usr//lib"));
}
END_TEST

START_TEST(test_match)
{
	const char *text =
		"{\"schema\": 1, \"area\": \"test\", \"rules\": ["
		"{\"id\": \"iputils.ping\", \"program\": \"p\", \"match\": {\"paths\": [\"/usr/bin/ping\"], \"packages\": [\"iputils-ping\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]},"
		"{\"id\": \"inetutils.ping\", \"program\": \"p\", \"match\": {\"paths\": [\"/usr/bin/ping\"], \"packages\": [\"inetutils-ping\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]},"
		"{\"id\": \"gst.helper\", \"program\": \"p\", \"match\": {\"paths\": [\"/usr/lib/*/gst-ptp-helper\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]},"
		"{\"id\": \"x.named\", \"program\": \"p\", \"match\": {\"names\": [\"named-only\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]},"
		"{\"id\": \"x.hashed\", \"program\": \"p\", \"match\": {\"paths\": [\"/opt/h\"], \"sha256\": [\"" 
		"0000000000000000000000000000000000000000000000000000000000000000\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]}"
		"]}";
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };
	struct match_result m;

	ck_assert_msg(load_text(text, &db, &err) == 0, "%s", err.msg);
	match_file(db, "/usr/bin/ping", "iputils-ping", NULL, NULL, &m);
	ck_assert_str_eq(m.rule->id, "iputils.ping");
	match_file(db, "/usr/bin/ping", "inetutils-ping", NULL, NULL, &m);
	ck_assert_str_eq(m.rule->id, "inetutils.ping");
	match_file(db, "/usr/bin/ping", "busybox", NULL, NULL, &m);
	ck_assert_ptr_null(m.rule);
	ck_assert_uint_eq(m.n_tied, 0);
	match_file(db, "/usr/bin/ping", NULL, NULL, NULL, &m);     /* unknown owner: ambiguous */
	ck_assert_ptr_null(m.rule);
	ck_assert_uint_eq(m.n_tied, 2);
	match_file(db, "/usr/lib/x86_64-linux-gnu/gst-ptp-helper", NULL, NULL, NULL, &m);
	ck_assert_str_eq(m.rule->id, "gst.helper");
	match_file(db, "/somewhere/else/named-only", NULL, NULL, NULL, &m);
	ck_assert_str_eq(m.rule->id, "x.named");
	ck_assert_ptr_nonnull(strstr(m.how, "file name"));
	match_file(db, "/opt/h", NULL, NULL, "1111111111111111111111111111111111111111111111111111111111111111", &m);
	ck_assert_ptr_null(m.rule);
	match_file(db, "/opt/h", NULL, NULL, "0000000000000000000000000000000000000000000000000000000000000000", &m);
	ck_assert_str_eq(m.rule->id, "x.hashed");
	rules_db_free(db);
}
END_TEST

/* A rule about one exact build (sha256) goes before the rule of every build at its path. */
START_TEST(test_exact_build)
{
	static const char zero[] = "0000000000000000000000000000000000000000000000000000000000000000";
	static const char one[] = "1111111111111111111111111111111111111111111111111111111111111111";
	char *general, *exact = NULL, *again = NULL, *body = NULL, *text;
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };
	struct match_result m;

	general = strdup("{\"id\": \"iputils.ping\", \"program\": \"p\", \"match\": {\"paths\": "
			 "[\"/usr/bin/ping\"], \"packages\": [\"iputils-ping\"]}, \"verdict\": \"keep\", "
			 "\"reason\": \"r\", \"sources\": [\"man:a(1)\"]}");
	ck_assert_int_gt(asprintf(&exact, "{\"id\": \"local.ping\", \"program\": \"p\", \"match\": "
				  "{\"paths\": [\"/usr/bin/ping\"], \"sha256\": [\"%s\"]}, \"verdict\": "
				  "\"drop\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]}", zero), 0);
	ck_assert_int_gt(asprintf(&body, "%s, %s", general, exact), 0);
	text = file_of(body);
	ck_assert_msg(load_text(text, &db, &err) == 0, "%s", err.msg);
	match_file(db, "/usr/bin/ping", "iputils-ping", NULL, zero, &m);
	ck_assert_str_eq(m.rule->id, "local.ping");
	ck_assert_ptr_nonnull(strstr(m.how, "SHA-256 is listed"));
	match_file(db, "/usr/bin/ping", "iputils-ping", NULL, one, &m);
	ck_assert_str_eq(m.rule->id, "iputils.ping");
	match_file(db, "/usr/bin/ping", NULL, NULL, NULL, &m);
	ck_assert_str_eq(m.rule->id, "iputils.ping");
	rules_db_free(db);
	free(text), free(body);
	/* two rules about the same build collide */
	again = strdup(exact);
	memcpy(strstr(again, "local.ping"), "local.pong", 10);
	ck_assert_int_gt(asprintf(&body, "%s, %s", exact, again), 0);
	expect_error_text(text = file_of(body), "overlaps '/usr/bin/ping' of rule");
	free(text), free(body);
	free(general), free(exact), free(again);
}
END_TEST

/* The layout form: merged /usr, merged sbin, lib64, libexec and multiarch folded into lib. */
START_TEST(test_layout_form)
{
	static const char *const cases[][2] = {
		{ "/bin/ping", "/usr/bin/ping" },
		{ "/sbin/mount.nfs", "/usr/bin/mount.nfs" },
		{ "/usr/sbin/mount.nfs", "/usr/bin/mount.nfs" },
		{ "/usr/bin/ping", "/usr/bin/ping" },
		{ "/lib64/vte/gnome-pty-helper", "/usr/lib/vte/gnome-pty-helper" },
		{ "/usr/lib64/vte/gnome-pty-helper", "/usr/lib/vte/gnome-pty-helper" },
		{ "/usr/libexec/gvfsd-nfs", "/usr/lib/gvfsd-nfs" },
		{ "/usr/lib/x86_64-linux-gnu/libexec/kf5/start_kdeinit", "/usr/lib/kf5/start_kdeinit" },
		{ "/usr/lib64/libexec/kf5/start_kdeinit", "/usr/lib/kf5/start_kdeinit" },
		{ "/usr/lib/arm-linux-gnueabihf/utempter/utempter", "/usr/lib/utempter/utempter" },
		{ "/lib/x86_64-linux-musl/x", "/usr/lib/x" },
		{ "/usr/lib/*/gstreamer1.0/gst-ptp-helper", "/usr/lib/gstreamer1.0/gst-ptp-helper" },
		/* the last component is the file, never a directory to fold */
		{ "/usr/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu" },
		{ "/usr/lib/libexec", "/usr/lib/libexec" },
		{ "/usr/lib/*", "/usr/lib/*" },
		{ "/usr/sbin", "/usr/sbin" },
		/* not layout directories, or not literal */
		{ "/usr/games/hack", "/usr/games/hack" },
		{ "/usr/local/bin/x", "/usr/local/bin/x" },
		{ "/usr/lib*/x", "/usr/lib*/x" },
		{ "/usr/lib/x86_64-linux/x", "/usr/lib/x86_64-linux/x" },
		{ "/usr/lib/linux-gnu/x", "/usr/lib/linux-gnu/x" },
		{ "/opt/bin/x", "/opt/bin/x" },
		{ "/binx/y", "/binx/y" },
	};
	char buf[64];
	const char *flat, *dir;
	size_t len;

	for (size_t i = 0; i < S2C_ELEMENTSOF(cases); i++) {
		ck_assert_int_ge(layout_form(cases[i][0], buf, sizeof(buf)), 0);
		ck_assert_msg(strcmp(buf, cases[i][1]) == 0, "'%s' gave '%s', not '%s'", cases[i][0],
			      buf, cases[i][1]);
	}
	ck_assert_int_eq(layout_form("/usr/lib/a-very-long-name-that-does-not-fit-the-buffer/x",
				     buf, 16), -ENAMETOOLONG);
	ck_assert(layout_package_dir("/usr/lib/gvfs/gvfsd-nfs", &flat, &dir, &len));
	ck_assert_str_eq(flat, "gvfsd-nfs");
	ck_assert_uint_eq(len, 4);
	ck_assert(strncmp(dir, "gvfs", 4) == 0);
	ck_assert(layout_package_dir("/usr/lib/gvfsd-nfs", &flat, &dir, &len));
	ck_assert_str_eq(flat, "gvfsd-nfs");
	ck_assert_ptr_null(dir);
	ck_assert(!layout_package_dir("/usr/lib/news/bin/innbind", &flat, &dir, &len));
	ck_assert(!layout_package_dir("/usr/bin/ping", &flat, &dir, &len));
}
END_TEST

/* A rule written for one layout finds its program in every other; a package directory
 * counts only when it is the rule's; literal overlaps are overlaps in every layout. */
START_TEST(test_match_layouts)
{
	const char *text =
		"{\"schema\": 1, \"area\": \"test\", \"rules\": ["
		"{\"id\": \"nfs-utils.mount.nfs\", \"program\": \"p\", \"match\": {\"paths\": [\"/sbin/mount.nfs\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]},"
		"{\"id\": \"gvfs.gvfsd-nfs\", \"program\": \"p\", \"match\": {\"paths\": [\"/usr/libexec/gvfsd-nfs\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]},"
		"{\"id\": \"dma.mbox\", \"program\": \"p\", \"match\": {\"paths\": [\"/usr/lib/dma/dma-mbox-create\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]},"
		"{\"id\": \"kinit.start_kdeinit\", \"program\": \"p\", \"match\": {\"paths\": [\"/usr/lib/*/libexec/kf5/start_kdeinit\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]},"
		"{\"id\": \"vte.helper\", \"program\": \"p\", \"match\": {\"paths\": [\"/usr/lib/vte/gnome-pty-helper\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]}"
		"]}";
	static const char *const found[][2] = {
		{ "/sbin/mount.nfs", "nfs-utils.mount.nfs" },
		{ "/usr/sbin/mount.nfs", "nfs-utils.mount.nfs" },
		{ "/usr/bin/mount.nfs", "nfs-utils.mount.nfs" },
		{ "/bin/mount.nfs", "nfs-utils.mount.nfs" },
		{ "/usr/libexec/gvfsd-nfs", "gvfs.gvfsd-nfs" },
		{ "/usr/lib/gvfs/gvfsd-nfs", "gvfs.gvfsd-nfs" },
		{ "/usr/lib/x86_64-linux-gnu/gvfs/gvfsd-nfs", "gvfs.gvfsd-nfs" },
		{ "/usr/libexec/dma-mbox-create", "dma.mbox" },
		{ "/usr/libexec/dma/dma-mbox-create", "dma.mbox" },
		{ "/usr/libexec/kf5/start_kdeinit", "kinit.start_kdeinit" },
		{ "/usr/lib64/libexec/kf5/start_kdeinit", "kinit.start_kdeinit" },
		{ "/usr/lib/aarch64-linux-gnu/libexec/kf5/start_kdeinit", "kinit.start_kdeinit" },
		{ "/usr/lib64/vte/gnome-pty-helper", "vte.helper" },
		{ "/usr/libexec/vte/gnome-pty-helper", "vte.helper" },
		{ "/usr/libexec/gnome-pty-helper", "vte.helper" },     /* 'vte' is the project */
	};
	static const char *const missed[] = {
		"/usr/local/sbin/mount.nfs", "/usr/lib/other/gvfsd-nfs", "/usr/lib/gvfs/x/gvfsd-nfs",
		"/usr/lib/other/dma-mbox-create", "/usr/libexec/kf6/start_kdeinit",
		"/usr/lib/x86_64-linux-gnu/other/gvfsd-nfs",
	};
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };
	struct match_result m;
	char *a, *b, *body = NULL, *t;

	ck_assert_msg(load_text(text, &db, &err) == 0, "%s", err.msg);
	for (size_t i = 0; i < S2C_ELEMENTSOF(found); i++) {
		match_file(db, found[i][0], NULL, NULL, NULL, &m);
		ck_assert_msg(m.rule && strcmp(m.rule->id, found[i][1]) == 0, "'%s' matched %s", found[i][0],
			      m.rule ? m.rule->id : "nothing");
	}
	for (size_t i = 0; i < S2C_ELEMENTSOF(missed); i++) {
		match_file(db, missed[i], NULL, NULL, NULL, &m);
		ck_assert_msg(!m.rule && !m.n_tied, "'%s' matched %s", missed[i], m.rule ? m.rule->id : "");
	}
	match_file(db, "/sbin/mount.nfs", NULL, NULL, NULL, &m);
	ck_assert_str_eq(m.how, "path matches '/sbin/mount.nfs'");
	match_file(db, "/usr/bin/mount.nfs", NULL, NULL, NULL, &m);
	ck_assert_ptr_nonnull(strstr(m.how, "in another layout (both are '/usr/bin/mount.nfs'"));
	match_file(db, "/usr/lib/gvfs/gvfsd-nfs", NULL, NULL, NULL, &m);
	ck_assert_ptr_nonnull(strstr(m.how, "but for the package directory"));
	rules_db_free(db);

	/* /sbin/x and /usr/bin/x are one file on a merged system: an overlap */
	a = rule("x.a", "/sbin/x", "keep", NULL, NULL);
	b = rule("x.b", "/usr/bin/x", "keep", NULL, NULL);
	ck_assert_int_gt(asprintf(&body, "%s, %s", a, b), 0);
	expect_error_text(t = file_of(body), "'/sbin/x' overlaps '/usr/bin/x' of rule 'x.b'");
	free(t), free(body), free(a), free(b);
	a = rule("x.a", "/usr/lib/*/x/y", "keep", NULL, NULL);
	b = rule("x.b", "/usr/lib64/x/y", "keep", NULL, NULL);
	ck_assert_int_gt(asprintf(&body, "%s, %s", a, b), 0);
	expect_error_text(t = file_of(body), "overlaps '/usr/lib64/x/y'");
	free(t), free(body), free(a), free(b);
}
END_TEST

/* A rule of the files of @group under @path. */
static char *grouped(const char *id, const char *path, const char *group)
{
	char *s = NULL;

	ck_assert_int_gt(asprintf(&s, "{\"id\": \"%s\", \"program\": \"p\", \"match\": {\"paths\": "
				  "[\"%s\"], \"groups\": [\"%s\"]}, \"verdict\": \"keep\", \"reason\": "
				  "\"r\", \"sources\": [\"man:a(1)\"]}", id, path, group), 0);
	return s;
}

/* match.groups: only files of those groups; such a pattern may cover other rules' paths. */
START_TEST(test_match_groups)
{
	const char *text =
		"{\"schema\": 1, \"area\": \"test\", \"rules\": ["
		"{\"id\": \"games.any\", \"program\": \"p\", \"match\": {\"paths\": [\"/usr/bin/*\"], \"groups\": [\"games\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]},"
		"{\"id\": \"x.ping\", \"program\": \"p\", \"match\": {\"paths\": [\"/usr/bin/ping\"]},"
		" \"verdict\": \"keep\", \"reason\": \"r\", \"sources\": [\"man:a(1)\"]}"
		"]}";
	struct rules_db *db = NULL;
	struct s2c_error err = { 0 };
	struct match_result m;
	char *a, *b, *body = NULL, *t;

	ck_assert_msg(load_text(text, &db, &err) == 0, "%s", err.msg);
	match_file(db, "/usr/bin/nethack", NULL, "games", NULL, &m);
	ck_assert_str_eq(m.rule->id, "games.any");
	match_file(db, "/usr/sbin/robots", NULL, "games", NULL, &m);      /* in another layout */
	ck_assert_str_eq(m.rule->id, "games.any");
	match_file(db, "/usr/bin/nethack", NULL, "root", NULL, &m);
	ck_assert_ptr_null(m.rule);
	match_file(db, "/usr/bin/nethack", NULL, NULL, NULL, &m);         /* group unknown */
	ck_assert_ptr_null(m.rule);
	match_file(db, "/usr/bin/ping", NULL, "games", NULL, &m);         /* the exact path wins */
	ck_assert_str_eq(m.rule->id, "x.ping");
	rules_db_free(db);
	/* a literal path narrowed to a group still overlaps; disjoint groups do not */
	a = rule("x.a", "/usr/bin/x", "keep", NULL, NULL);
	b = grouped("x.b", "/usr/bin/x", "games");
	ck_assert_int_gt(asprintf(&body, "%s, %s", a, b), 0);
	expect_error_text(t = file_of(body), "overlaps '/usr/bin/x'");
	free(t), free(body), free(a), free(b);
	a = grouped("x.a", "/usr/bin/*", "mail");
	b = grouped("x.b", "/usr/bin/*", "games");
	ck_assert_int_gt(asprintf(&body, "%s, %s", a, b), 0);
	t = file_of(body);
	ck_assert_msg(load_text(t, &db, &err) == 0, "%s", err.msg);
	rules_db_free(db);
	free(t), free(body), free(a), free(b);
	expect_error(grouped("x.a", "/usr/bin/x", "a:b"), "a group is a name without");
}
END_TEST

START_TEST(test_host_image)
{
	struct host *h = NULL;
	char *v = NULL;
	int fd;
	/* a file a package owns asked twice in one call, and one none owns */
	const char *paths[] = { "/usr/bin/ping", "/usr/bin/nobody-owns-me", "/usr/bin/ping" };

	fx_write(root, "etc/os-release", "NAME=\"Fedora Linux\"\nID=fedora\nID_LIKE=\"rhel centos\"\n");
	fx_write(root, "usr/lib/sysctl.d/50-default.conf",
		 "# comment\n-net.ipv4.ping_group_range = 0 2147483647\n");
	fx_write(root, "etc/sysctl.d/99-local.conf", "net/ipv4/ip_unprivileged_port_start=80\n");
	fx_write(root, "var/lib/dpkg/info/iputils-ping.list", "/.\n/bin\n/bin/ping\n");
	fx_write(root, "var/lib/dpkg/info/libc6:amd64.list", "/lib/x86_64-linux-gnu/libc.so.6\n");
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(host_new(fd, false, "5.10.0", &h, NULL), 0);
	ck_assert(host_os_is(h, "fedora"));
	ck_assert(host_os_is(h, "rhel"));
	ck_assert(!host_os_is(h, "debian"));
	ck_assert_int_eq(host_sysctl(h, "net.ipv4.ping_group_range", &v), 0);
	ck_assert_str_eq(v, "0 2147483647");
	free(v);
	ck_assert_int_eq(host_sysctl(h, "net.ipv4.ip_unprivileged_port_start", &v), 0);
	ck_assert_str_eq(v, "80");
	free(v);
	ck_assert_int_eq(host_sysctl(h, "kernel.nonexistent", &v), -ENOENT);
	{
		unsigned want[3] = { 5, 17, 0 };
		ck_assert_int_lt(host_kernel_cmp(h, want), 0);
	}
	ck_assert(host_file_exists(h, "/etc/os-release"));
	ck_assert(!host_file_exists(h, "/etc/missing"));
	/* merged /usr: dpkg lists /bin/ping, the file is /usr/bin/ping */
	ck_assert_int_eq(host_load_packages(h, paths, 3), 0);
	ck_assert_str_eq(host_package_of(h, "/usr/bin/ping"), "iputils-ping");
	ck_assert_ptr_null(host_package_of(h, "/usr/bin/nobody-owns-me"));
	ck_assert_uint_eq(h->n_pkg, 1);
	/* A cache of many paths: only the files a package owns take a slot, each once,
	 * whatever is asked twice or set again. */
	{
		enum { N = 5000 };
		const char **many = calloc(2 * N + 1, sizeof(*many));
		char *own[N], buf[64];

		ck_assert_ptr_nonnull(many);
		for (size_t i = 0; i < N; i++) {
			ck_assert_int_gt(asprintf(&own[i], "/usr/lib/p%zu", i), 0);
			many[i] = many[N + i] = own[i];
		}
		many[2 * N] = "/usr/bin/ping";
		ck_assert_int_eq(host_load_packages(h, many, 2 * N + 1), 0);
		ck_assert_uint_eq(h->n_pkg, 1);
		for (size_t i = 0; i < N + N / 2; i += 2) {
			snprintf(buf, sizeof(buf), "/usr/lib/p%zu", i);
			ck_assert_int_eq(host_set_package(h, buf, i % 4 ? "odd" : "even", NULL), 0);
		}
		ck_assert_uint_eq(h->n_pkg, 1 + N / 2 + N / 4);
		for (size_t i = 0; i < N + N / 2; i++) {
			snprintf(buf, sizeof(buf), "/usr/lib/p%zu", i);
			if (i % 2)
				ck_assert_ptr_null(host_package_of(h, buf));
			else
				ck_assert_str_eq(host_package_of(h, buf), i % 4 ? "odd" : "even");
		}
		ck_assert_str_eq(host_package_of(h, "/usr/bin/ping"), "iputils-ping");
		for (size_t i = 0; i < N; i++)
			free(own[i]);
		free(many);
	}
	host_free(h);
	/* without configuration the kernel default applies */
	fx_rmrf(root);
	ck_assert_int_eq(mkdir(root, 0700), 0);
	close(fd);
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(host_new(fd, false, NULL, &h, NULL), 0);
	ck_assert_int_eq(host_sysctl(h, "net.ipv4.ping_group_range", &v), 0);
	ck_assert_str_eq(v, "1 0");
	free(v);
	ck_assert_ptr_null(h->os_id);
	host_free(h);
	close(fd);
}
END_TEST

START_TEST(test_host_live)
{
	struct host *h = NULL;
	char *v = NULL;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_eq(host_new(fd, true, NULL, &h, NULL), 0);
	ck_assert_uint_gt(h->kernel[0], 2);
	ck_assert_int_eq(host_sysctl(h, "net.ipv4.ping_group_range", &v), 0);
	ck_assert_ptr_nonnull(strchr(v, ' '));
	free(v);
	host_free(h);
	close(fd);
}
END_TEST

Suite *rules_suite(void)
{
	Suite *s = suite_create("rules");
	TCase *tc = tcase_create("rules");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_valid_and_hash);
	tcase_add_test(tc, test_error_classes);
	tcase_add_test(tc, test_duplicates_and_overlaps);
	tcase_add_test(tc, test_exact_build);
	tcase_add_test(tc, test_layers_override);
	tcase_add_test(tc, test_trust);
	tcase_add_test(tc, test_missing_table);
	tcase_add_test(tc, test_bundled_db_lints);
	tcase_add_test(tc, test_glob);
	tcase_add_test(tc, test_glob_like_fnmatch);
	tcase_add_test(tc, test_match);
	tcase_add_test(tc, test_layout_form);
	tcase_add_test(tc, test_match_layouts);
	tcase_add_test(tc, test_match_groups);
	tcase_add_test(tc, test_host_image);
	tcase_add_test(tc, test_host_live);
	suite_add_tcase(s, tc);
	return s;
}
