/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plan: built from engine decisions on compiled fixture binaries, written
 * as JSON and read back (round trip, determinism), every class of problem the
 * strict loader reports with its exact JSON path, the trust check, and the
 * quoting of the shell emitter.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>
#include <json-c/json.h>

#include "db.h"
#include "decide.h"
#include "emit.h"
#include "error.h"
#include "facts.h"
#include "fixture.h"
#include "host.h"
#include "jsonread.h"
#include "parents.h"
#include "plan.h"
#include "planload.h"
#include "scan.h"
#include "skip.h"
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

/* --- decisions on a fixture image ---------------------------------------------------- */

struct world {
	struct rules_db *db;
	struct scan_result *res;
	struct decisions ds;          /* decide_all()'s */
};

static const char prog_socket[] =
	"#include <sys/socket.h>\n#include <netinet/in.h>\n"
	"int main(void) { int s = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP); int one = 1;"
	" return setsockopt(s, SOL_SOCKET, SO_DEBUG, &one, sizeof one); }\n";
static const char prog_plain[] = "int main(void) { return 0; }\n";

/* An image with a rule-matched program to migrate, a script to drop, a program to keep
 * and one without a rule. */
static void make_image(void)
{
	static const char *const none[] = { NULL };

	ck_assert_int_eq(fx_compile(root, "usr/bin/clockdiff", prog_socket, 04755, none), 0);
	ck_assert_int_eq(fx_compile(root, "usr/bin/su", prog_plain, 04755, none), 0);
	ck_assert_int_eq(fx_compile(root, "opt/tool/helper", prog_plain, 04755, none), 0);
	fx_file(root, "usr/local/bin/script.sh", 04755, "#!/bin/sh\necho hi\n");
	fx_write(root, "etc/os-release", "ID=debian\nPRETTY_NAME=\"Debian test\"\n");
}

static struct world decide(void)
{
	struct world w = { 0 };
	char *dir = NULL;
	const char *dirs[2];
	struct s2c_error err = { 0 };

	ck_assert_int_gt(asprintf(&dir, "%s/db", S2C_TEST_SRCDIR), 0);
	dirs[0] = dir;
	dirs[1] = NULL;
	ck_assert_msg(rules_db_load(dirs, 0, &w.db, &err) == 0, "%s", err.msg);
	free(dir);
	w.res = fx_scan(root, NULL, 0, 2, NULL);
	ck_assert_msg(decide_all(w.db, w.res, &(struct decide_target){ .kernel = "6.1.0" }, &w.ds,
				 &err) == 0, "%s", err.msg);
	return w;
}

static void world_free(struct world *w)
{
	decisions_release(&w->ds);
	scan_result_free(w->res);
	rules_db_free(w->db);
}

static struct plan *build(const struct world *w)
{
	struct plan *p = NULL;
	struct s2c_error err = { 0 };

	ck_assert_msg(plan_build((const struct decision *const *)w->ds.v, w->res->n, w->ds.host, w->db,
				 "/srv/image", false, &p, &err) == 0, "%s", err.msg);
	return p;
}

static char *to_text(const struct plan *p)
{
	struct json_object *o = plan_to_json(p);
	char *s;

	ck_assert_ptr_nonnull(o);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
	return s;
}

static const struct plan_entry *entry(const struct plan *p, const char *path)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].path, path) == 0)
			return &p->v[i];
	ck_abort_msg("no entry %s", path);
	return NULL;
}

/* --- loading text --------------------------------------------------------------------- */

static int load_text(const char *text, struct plan **ret, struct jcheck_problems *problems,
		     struct s2c_error *err)
{
	struct json_object *doc = NULL;
	int r = jsonread_parse_mem(text, strlen(text), "plan.json", &doc, err);

	if (r < 0)
		return r;
	r = plan_from_json_all(doc, "plan.json", ret, problems, err);
	json_object_put(doc);
	return r;
}

START_TEST(test_build_and_round_trip)
{
	struct world w;
	struct plan *p, *q = NULL;
	struct s2c_error err = { 0 };
	const struct plan_entry *e;
	char *a, *b;

	make_image();
	w = decide();
	p = build(&w);
	ck_assert_uint_eq(p->n, 4);
	for (size_t i = 1; i < p->n; i++)
		ck_assert_int_lt(strcmp(p->v[i - 1].path, p->v[i].path), 0);
	e = entry(p, "/usr/bin/clockdiff");
	ck_assert(e->change);
	ck_assert_int_eq(e->verdict, VERDICT_MIGRATE);
	ck_assert_str_eq(e->rule_id, "iputils.clockdiff");
	ck_assert_uint_eq(strlen(e->id.sha256), 64);
	ck_assert_uint_eq(e->id.state.mode, 04755);
	ck_assert_uint_eq(e->after.mode & 06000, 0);
	ck_assert_ptr_nonnull(e->after_names.caps_text);
	ck_assert_uint_eq(e->after.xattr_len, 20);   /* v2 blob: what apply writes */
	e = entry(p, "/usr/local/bin/script.sh");
	ck_assert(e->change);
	ck_assert_int_eq(e->verdict, VERDICT_DROP);
	ck_assert_uint_eq(e->after.mode, 0755);
	e = entry(p, "/usr/bin/su");
	ck_assert(!e->change);
	ck_assert_str_eq(p->os_id, "debian");
	ck_assert_str_eq(p->kernel, "6.1.0");
	ck_assert_str_eq(p->db_files[0], "capabilities.json");   /* base names only */
	ck_assert_ptr_null(p->created);

	a = to_text(p);
	ck_assert_msg(load_text(a, &q, NULL, &err) == 0, "%s", err.msg);
	b = to_text(q);
	ck_assert_str_eq(a, b);
	ck_assert_str_eq(q->v[0].path, p->v[0].path);
	ck_assert_uint_eq(q->v[0].id.ino, p->v[0].id.ino);
	ck_assert_int_eq(q->v[0].id.mtime_ns, p->v[0].id.mtime_ns);
	free(a);
	free(b);
	plan_free(q);
	plan_free(p);
	world_free(&w);
}
END_TEST

START_TEST(test_deterministic)
{
	struct world w1, w2;
	struct plan *p1, *p2;
	char *a, *b;

	make_image();
	w1 = decide();
	w2 = decide();
	p1 = build(&w1);
	p2 = build(&w2);
	a = to_text(p1);
	b = to_text(p2);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_null(strstr(a, "\"created\""));
	ck_assert_ptr_null(strstr(a, S2C_TEST_SRCDIR));       /* no database location */
	free(a);
	free(b);
	plan_free(p1);
	plan_free(p2);
	world_free(&w1);
	world_free(&w2);
}
END_TEST

START_TEST(test_change_needs_sha256)
{
	struct world w;
	struct plan *p = NULL;
	struct s2c_error err = { 0 };
	struct decision *d = NULL;

	make_image();
	w = decide();
	for (size_t i = 0; i < w.res->n; i++)
		if (strcmp(w.res->v[i]->path, "/usr/bin/clockdiff") == 0)
			d = w.ds.v[i];
	ck_assert_ptr_nonnull(d);
	ck_assert(d->changes);
	free(d->sha256);
	d->sha256 = NULL;     /* as when the file could not be read */
	ck_assert_int_eq(plan_build((const struct decision *const *)w.ds.v, w.res->n, w.ds.host, w.db,
				    "/", false, &p, &err), -EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot plan a change of '/usr/bin/clockdiff' "
					      "without its SHA-256"));
	world_free(&w);
}
END_TEST

/* --- the running system: only packaged files change ------------------------------------ */

static struct plan *build_live(const struct world *w)
{
	struct plan *p = NULL;
	struct s2c_error err = { 0 };

	ck_assert_msg(plan_build((const struct decision *const *)w->ds.v, w->res->n, w->ds.host, w->db,
				 "/", true, &p, &err) == 0, "%s", err.msg);
	return p;
}

START_TEST(test_only_packaged)
{
	static const char owned[] = "not owned by any package: on the running system only packaged "
				    "files are changed; use --include-unpackaged";
	struct world w;
	struct plan *p, *q = NULL;
	struct s2c_error err = { 0 };
	const struct plan_entry *e;
	char *a, *b;

	make_image();
	fx_write(root, "var/lib/dpkg/info/iputils-clockdiff.list", "/.\n/usr\n/usr/bin/clockdiff\n");
	w = decide();
	ck_assert(w.ds.host->pkg_db);

	/* An image: nothing is held back. */
	p = build(&w);
	ck_assert_int_eq(plan_only_packaged(p, w.ds.host), 0);
	ck_assert(entry(p, "/usr/local/bin/script.sh")->change);
	plan_free(p);

	/* The running system: the packaged program changes, the others are left alone. */
	p = build_live(&w);
	ck_assert_int_eq(plan_only_packaged(p, w.ds.host), 1);
	e = entry(p, "/usr/bin/clockdiff");
	ck_assert(e->change);
	ck_assert_str_eq(e->package, "iputils-clockdiff");
	e = entry(p, "/usr/local/bin/script.sh");
	ck_assert(!e->change);
	ck_assert_int_eq(e->verdict, VERDICT_DROP);
	ck_assert_str_eq(e->reason, owned);
	ck_assert_uint_eq(e->after.mode, 04755);          /* stays as it is */
	ck_assert(filestate_equal(&e->after, &e->id.state));
	ck_assert_int_eq(e->risk, e->risk_now);
	/* Such a plan is what apply and plan --check accept, and it reads back the same. */
	a = to_text(p);
	ck_assert_msg(load_text(a, &q, NULL, &err) == 0, "%s", err.msg);
	b = to_text(q);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	plan_free(q);
	/* A second call finds nothing more to hold back. */
	ck_assert_int_eq(plan_only_packaged(p, w.ds.host), 0);
	plan_free(p);
	world_free(&w);
}
END_TEST

START_TEST(test_only_packaged_without_database)
{
	struct world w;
	struct plan *p;
	size_t held = 0;

	make_image();
	w = decide();
	ck_assert(!w.ds.host->pkg_db);
	p = build_live(&w);
	ck_assert_int_eq(plan_only_packaged(p, w.ds.host), 2);
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_entry *e = &p->v[i];
		ck_assert(!e->change);
		if (strstr(e->reason, "not owned by any package (this system has no package database "
				      "suid2cap can read; it reads dpkg's)")) {
			held++;
			ck_assert_int_eq(e->risk, e->risk_now);
			ck_assert(!e->disguise);
		}
	}
	ck_assert_uint_eq(held, 2);
	plan_free(p);
	world_free(&w);
}
END_TEST


/* --- the strict loader ------------------------------------------------------------------ */

/* A valid plan: a change, an entry already migrated, a keep. */
static const char valid_plan[] =
	"{\"schema\": 1, \"kind\": \"suid2cap-plan\","
	" \"tool\": {\"name\": \"suid2cap\", \"version\": \"0.1.0\"}, \"root\": \"/\","
	" \"host\": {\"live\": true, \"kernel\": \"6.1.0\", \"os_id\": \"debian\","
	"  \"os_pretty\": null, \"ping_group_range\": \"1 0\"},"
	" \"database\": {\"hash\": \"" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	"\", \"rules\": 3, \"files\": [\"capabilities.json\", \"network.json\"]},"
	" \"mounts\": [{\"target\": \"/\", \"fstype\": \"ext4\", \"nosuid\": false, \"readonly\": false}],"
	" \"summary\": {\"change\": 1, \"unchanged\": 2, \"migrate\": 2, \"drop\": 0, \"keep\": 1,"
	"  \"review\": 0},"
	" \"entries\": ["
	"  {\"path\": \"/usr/bin/arping\", \"action\": \"change\", \"verdict\": \"migrate\","
	"   \"rule\": \"iputils.arping\", \"reason\": \"r\", \"confidence\": \"high\","
	"   \"risk\": \"dangerous\", \"risk_now\": \"root\", \"setuid_in_disguise\": false,"
	"   \"package\": \"iputils-arping\","
	"   \"identity\": {\"dev\": \"254:0\", \"ino\": 12, \"size\": 27296, \"mtime_ns\": 1,"
	"    \"sha256\": \"" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" "\","
	"    \"nlink\": 1},"
	"   \"before\": {\"uid\": 0, \"gid\": 0, \"owner\": \"root\", \"group\": \"root\","
	"    \"mode\": \"4755\", \"caps\": null, \"caps_raw\": null},"
	"   \"after\": {\"uid\": 0, \"gid\": 0, \"owner\": \"root\", \"group\": \"root\","
	"    \"mode\": \"0755\", \"caps\": \"cap_net_raw=p\"},"
	"   \"smoke\": [\"{}\", \"-V\"], \"evidence\": [\"strong needs: imports socket\"],"
	"   \"warnings\": []},"
	"  {\"path\": \"/usr/bin/ping\", \"action\": \"none\", \"verdict\": \"migrate\","
	"   \"rule\": \"iputils.ping\", \"reason\": \"r\", \"confidence\": \"high\","
	"   \"risk\": \"dangerous\", \"risk_now\": \"dangerous\", \"setuid_in_disguise\": false,"
	"   \"package\": null,"
	"   \"identity\": {\"dev\": \"254:0\", \"ino\": 13, \"size\": 9, \"mtime_ns\": -5,"
	"    \"sha256\": null, \"nlink\": 1},"
	"   \"before\": {\"uid\": 0, \"gid\": 0, \"owner\": \"root\", \"group\": \"root\","
	"    \"mode\": \"0755\", \"caps\": \"cap_net_raw=ep\","
	"    \"caps_raw\": \"0100000200200000000000000000000000000000\"},"
	"   \"after\": {\"uid\": 0, \"gid\": 0, \"owner\": \"root\", \"group\": \"root\","
	"    \"mode\": \"0755\", \"caps\": \"cap_net_raw+ep\"},"
	"   \"smoke\": null, \"evidence\": [], \"warnings\": []},"
	"  {\"path\": \"/usr/bin/su\", \"action\": \"none\", \"verdict\": \"keep\","
	"   \"rule\": \"util-linux.su\", \"reason\": \"r\", \"confidence\": \"high\","
	"   \"risk\": \"root\", \"risk_now\": \"root\", \"setuid_in_disguise\": false,"
	"   \"package\": null,"
	"   \"identity\": {\"dev\": \"254:0\", \"ino\": 14, \"size\": 9, \"mtime_ns\": 0,"
	"    \"sha256\": null, \"nlink\": 1},"
	"   \"before\": {\"uid\": 0, \"gid\": 0, \"owner\": null, \"group\": null,"
	"    \"mode\": \"4755\", \"caps\": null, \"caps_raw\": null},"
	"   \"after\": {\"uid\": 0, \"gid\": 0, \"owner\": null, \"group\": null,"
	"    \"mode\": \"4755\", \"caps\": null},"
	"   \"smoke\": null, \"evidence\": [], \"warnings\": [\"w\"]}"
	" ]}";

/* @pointer like "entries/0/after/mode": set it to the JSON @value, or remove it (NULL). */
static char *mutate(const char *pointer, const char *value)
{
	struct json_object *doc = json_tokener_parse(valid_plan), *o = doc;
	char *copy = strdup(pointer), *save = NULL, *last;
	char *out;

	ck_assert_ptr_nonnull(doc);
	last = strrchr(copy, '/');
	if (last)
		*last++ = '\0';
	else
		last = copy;
	for (char *tok = last == copy ? NULL : strtok_r(copy, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save))
		o = json_object_is_type(o, json_type_array) ?
			    json_object_array_get_idx(o, (size_t)strtoul(tok, NULL, 10)) :
			    json_object_object_get(o, tok);
	ck_assert_ptr_nonnull(o);
	if (json_object_is_type(o, json_type_array)) {
		size_t i = strtoul(last, NULL, 10);
		if (value)
			json_object_array_put_idx(o, i, json_tokener_parse(value));
		else
			json_object_array_del_idx(o, i, 1);
	} else if (value) {
		struct json_object *v = json_tokener_parse(value);
		ck_assert_msg(v || strcmp(value, "null") == 0, "bad test value %s", value);
		json_object_object_add(o, last, v);
	} else {
		json_object_object_del(o, last);
	}
	out = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	json_object_put(doc);
	free(copy);
	return out;
}

/* Loading @text must fail and report exactly "plan.json: @want" among its problems. */
static void expect_text(const char *text, const char *want)
{
	struct plan *p = NULL;
	struct jcheck_problems problems = { 0 };
	struct s2c_error err = { 0 };
	char *full = NULL;
	bool found = false;

	ck_assert_int_gt(asprintf(&full, "plan.json: %s", want), 0);
	ck_assert_int_eq(load_text(text, &p, &problems, &err), -EINVAL);
	ck_assert_ptr_null(p);
	for (size_t i = 0; i < problems.n; i++) {
		char *one = NULL;

		ck_assert_int_gt(asprintf(&one, "%s: %s: %s", problems.v[i].file, problems.v[i].path,
					  problems.v[i].message), 0);
		found |= strcmp(one, full) == 0;
		free(one);
	}
	ck_assert_msg(found || strcmp(err.msg, full) == 0, "no problem \"%s\"; first: \"%s\"", full,
		      err.msg);
	free(full);
	jcheck_problems_release(&problems);
}

static void expect(const char *pointer, const char *value, const char *want)
{
	char *text = mutate(pointer, value);

	expect_text(text, want);
	free(text);
}

/* Invalid UTF-8 anywhere is refused while reading, with its line and column. */
static void expect_bad_utf8(const char *pointer, const char *value)
{
	char *text = mutate(pointer, value);
	struct plan *p = NULL;
	struct jcheck_problems problems = { 0 };
	struct s2c_error err = { 0 };

	ck_assert_int_eq(load_text(text, &p, &problems, &err), -EINVAL);
	ck_assert_msg(strncmp(err.msg, "plan.json:1:", 12) == 0 && strstr(err.msg, "not valid UTF-8"),
		      "unexpected error \"%s\"", err.msg);
	jcheck_problems_release(&problems);
	free(text);
}

START_TEST(test_not_scanned)
{
	static char home[] = "/home/al\xffice/.local/share/containers",
		    user[] = "rootless containers of user al\xffice", data[] = "/srv/data",
		    pattern[] = "--exclude /srv/*", bookworm[] = "/var/tmp/bookworm";
	const struct skip_entry v[] = {
		{ .path = home, .reason = SKIP_CONTAINERS, .source = user },
		{ .path = data, .reason = SKIP_EXCLUDED, .source = pattern },
		{ .path = bookworm, .reason = SKIP_OS_ROOT, .source = NULL },
	};
	struct world w;
	struct plan *p, *q = NULL;
	struct s2c_error err = { 0 };
	char *a, *b;

	make_image();
	w = decide();
	p = build(&w);
	ck_assert_int_eq(plan_set_not_scanned(p, v, 3), 0);
	a = to_text(p);
	ck_assert_ptr_nonnull(strstr(a, "\"path_hex\""));
	ck_assert_msg(load_text(a, &q, NULL, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(q->n_not_scanned, 3);
	ck_assert_str_eq(q->not_scanned[0].path, v[0].path);     /* exact bytes back */
	ck_assert_str_eq(q->not_scanned[0].source, v[0].source);
	ck_assert_int_eq(q->not_scanned[2].reason, SKIP_OS_ROOT);
	ck_assert_ptr_null(q->not_scanned[2].source);
	b = to_text(q);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	plan_free(q);
	plan_free(p);
	world_free(&w);

	/* The loader refuses a list that is not what plan writes. */
	expect("not_scanned", "{}", "$.not_scanned: expected an array");
	expect("not_scanned", "[{\"path\": \"/b\", \"reason\": \"excluded\", \"source\": null},"
	       " {\"path\": \"/a\", \"reason\": \"excluded\", \"source\": null}]",
	       "$.not_scanned[1].path: not sorted by path");
	expect("not_scanned", "[{\"path\": \"/a\", \"reason\": \"excluded\", \"source\": null},"
	       " {\"path\": \"/a\", \"reason\": \"os-root\", \"source\": null}]",
	       "$.not_scanned[1].path: the same path twice");
	expect("not_scanned", "[{\"path\": \"/a\", \"reason\": \"elsewhere\", \"source\": null}]",
	       "$.not_scanned[0].reason: expected \"os-root\", \"container-storage\", \"overlay\" "
	       "or \"excluded\"");
	expect("not_scanned", "[{\"path\": \"a\", \"reason\": \"excluded\", \"source\": null}]",
	       "$.not_scanned[0].path: 'a' is not an absolute path");
	expect("not_scanned", "[{\"path\": \"/a\", \"reason\": \"excluded\"}]",
	       "$.not_scanned[0]: missing key 'source'");
}
END_TEST

START_TEST(test_valid_plan_loads)
{
	struct fcaps caps;
	struct plan *p = NULL;
	struct jcheck_problems problems = { 0 };
	struct s2c_error err = { 0 };

	ck_assert_msg(load_text(valid_plan, &p, &problems, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(problems.n, 0);
	ck_assert_uint_eq(p->n, 3);
	ck_assert(p->v[0].change);
	ck_assert_uint_eq(p->v[0].after.mode, 0755);
	ck_assert_uint_eq(p->v[0].after.xattr_len, 20);
	ck_assert_uint_eq(p->v[1].id.state.xattr_len, 20);
	ck_assert_int_eq(fcaps_decode(p->v[1].id.state.xattr, 20, &caps, NULL), 0);
	ck_assert(caps.effective);
	ck_assert_int_eq(p->v[1].id.mtime_ns, -5);
	ck_assert_str_eq(p->v[0].smoke[0], "{}");
	p = plan_free(p);
	/* an untouched file keeps its v3 attribute (root id 1000), which no text can carry */
	{
		char *t = mutate("entries/1/before/caps_raw",
				 "\"0100000300200000000000000000000000000000e8030000\"");
		ck_assert_msg(load_text(t, &p, NULL, &err) == 0, "%s", err.msg);
		ck_assert_uint_eq(p->v[1].id.state.xattr_len, 24);
		ck_assert_int_eq(fcaps_decode(p->v[1].id.state.xattr, 24, &caps, NULL), 0);
		ck_assert(caps.has_rootid);
		ck_assert_uint_eq(caps.rootid, 1000);
		ck_assert_uint_eq(p->v[1].after.xattr_len, 20);   /* v2: no root id */
		p = plan_free(p);
		free(t);
	}
}
END_TEST

START_TEST(test_loader_unknown_and_missing_keys)
{
	expect("extra", "1", "$: unknown key 'extra'");
	expect("entries/0/pathz", "\"x\"", "$.entries[0]: unknown key 'pathz'");
	expect("entries/0/after/caps_raw", "null", "$.entries[0].after: unknown key 'caps_raw'");
	expect("host/kernel", NULL, "$.host: missing key 'kernel'");
	expect("entries/2/reason", NULL, "$.entries[2]: missing key 'reason'");
	expect("entries/0/identity", NULL, "$.entries[0]: missing key 'identity'");
	expect("entries/1/identity/nlink", NULL, "$.entries[1].identity: missing key 'nlink'");
}
END_TEST

START_TEST(test_loader_types)
{
	expect("schema", "\"1\"", "$.schema: expected an integer");
	expect("host/live", "1", "$.host.live: expected true or false");
	expect("entries/0/before/uid", "\"0\"", "$.entries[0].before.uid: expected an integer");
	expect("entries/0/before/mode", "4755", "$.entries[0].before.mode: expected a string");
	expect("entries/1/package", "3", "$.entries[1].package: expected a string or null");
	expect("entries/2/warnings", "\"w\"", "$.entries[2].warnings: expected an array of strings");
	expect("entries/2/warnings/0", "7", "$.entries[2].warnings[0]: expected a string");
	expect("entries/0/identity", "[]", "$.entries[0].identity: expected an object");
	expect("entries", "{}", "$.entries: expected an array");
	expect("entries/1/identity/size", "1.5", "$.entries[1].identity.size: expected an integer");
	expect("entries/0/reason", "\"\"", "$.entries[0].reason: must not be empty");
	expect("entries/0/reason", "\"a\\u0000b\"", "$.entries[0].reason: holds a NUL character");
	/* an overlong sequence: json-c's own UTF-8 check lets it through (found by fuzzing) */
	expect_bad_utf8("entries/0/reason", "\"a\xe0\x98\x96" "b\"");
	expect_bad_utf8("entries/0/evidence/0", "\"\xc0\xaf\"");
}
END_TEST

START_TEST(test_loader_values)
{
	expect("schema", "2", "$.schema: plan schema 2 is not supported (this suid2cap reads schema 1)");
	expect("kind", "\"suid2cap-audit\"", "$.kind: expected \"suid2cap-plan\"");
	expect("entries/0/after/mode", "\"755\"",
	       "$.entries[0].after.mode: '755' is not a mode: expected 4 octal digits such as \"4755\"");
	expect("entries/0/after/mode", "\"0855\"",
	       "$.entries[0].after.mode: '0855' is not a mode: expected 4 octal digits such as \"4755\"");
	expect("entries/0/after/uid", "4294967295",
	       "$.entries[0].after.uid: integer out of range 0..4294967294");
	expect("entries/0/before/gid", "-1", "$.entries[0].before.gid: integer out of range 0..4294967294");
	expect("entries/0/identity/nlink", "0",
	       "$.entries[0].identity.nlink: integer out of range 1..4294967295");
	expect("entries/0/identity/dev", "\"254\"",
	       "$.entries[0].identity.dev: '254' is not a device number: expected MAJOR:MINOR");
	expect("entries/0/identity/sha256", "\"ABC\"",
	       "$.entries[0].identity.sha256: expected 64 lowercase hex digits");
	expect("entries/0/verdict", "\"maybe\"", "$.entries[0].verdict: unknown verdict 'maybe'");
	expect("entries/0/risk_now", "\"high\"", "$.entries[0].risk_now: unknown risk 'high'");
	expect("entries/0/confidence", "\"sure\"", "$.entries[0].confidence: unknown confidence 'sure'");
	expect("entries/0/action", "\"apply\"", "$.entries[0].action: expected \"change\" or \"none\"");
	expect("entries/0/path", "\"usr/bin/arping\"",
	       "$.entries[0].path: 'usr/bin/arping' is not an absolute path to a file");
	expect("entries/0/path", "\"/usr/../bin/arping\"",
	       "$.entries[0].path: '/usr/../bin/arping' has an empty, '.' or '..' component");
	expect("database/files/1", "\"../x.json\"",
	       "$.database.files[1]: '../x.json' is not a file name (base names only)");
	expect("created", "\"yesterday\"",
	       "$.created: expected a UTC time such as \"2026-01-31T12:00:00Z\"");
	expect("entries/0/smoke", "[\"-V\"]", "$.entries[0].smoke: needs \"{}\" where the file's path goes");
}
END_TEST

START_TEST(test_loader_caps)
{
	expect("entries/0/after/caps", "\"cap_bogus=p\"",
	       "$.entries[0].after.caps: invalid capability text 'cap_bogus=p'");
	expect("entries/0/after/caps", "\"cap_net_raw=p\\ncap_kill=p\"",
	       "$.entries[0].after.caps: holds a control character");
	expect("entries/1/before/caps", "\"cap_net_admin=ep\"",
	       "$.entries[1].before.caps_raw: holds 'cap_net_raw=ep', which disagrees with 'caps' "
	       "'cap_net_admin=ep'");
	expect("entries/1/before/caps_raw", "null", "$.entries[1].before.caps_raw: null, but 'caps' is set");
	expect("entries/1/before/caps", "null",
	       "$.entries[1].before.caps_raw: holds 'cap_net_raw=ep', but 'caps' is null");
	expect("entries/1/before/caps_raw", "\"01000002\"",
	       "$.entries[1].before.caps_raw: malformed, but 'caps' is set");
	expect("entries/1/before/caps_raw", "\"zz\"",
	       "$.entries[1].before.caps_raw: expected lowercase hex of at most 24 bytes");
}
END_TEST

START_TEST(test_loader_semantics)
{
	char *t;

	/* a migrate entry must not keep setuid, and must have capabilities */
	expect("entries/0/after/mode", "\"4755\"",
	       "$.entries[0].after.mode: a migrate entry cannot keep the set-user-ID bit");
	expect("entries/0/after/caps", "null", "$.entries[0].after.caps: a migrate entry needs capabilities");
	expect("entries/0/after/mode", "\"2755\"",
	       "$.entries[0].after.mode: a migrate entry keeps the set-group-ID bit only for the "
	       "non-root group it already had");
	/* a change needs the SHA-256; keep cannot change */
	expect("entries/0/identity/sha256", "null",
	       "$.entries[0].identity.sha256: a change needs the file's SHA-256, to re-check its "
	       "content before changing it");
	expect("entries/2/action", "\"change\"", "$.entries[2].action: a 'keep' entry cannot change anything");
	expect("entries/2/after/mode", "\"0755\"",
	       "$.entries[2].after: differs from 'before', but the action is \"none\"");
	expect("entries/1/action", "\"change\"",
	       "$.entries[1].after: the same as 'before', but the action is \"change\"");
	expect("entries/2/setuid_in_disguise", "true",
	       "$.entries[2].setuid_in_disguise: only a migrate entry can be setuid in disguise");
	/* drop: no caps, no set-ID bits */
	t = mutate("entries/0/verdict", "\"drop\"");
	expect_text(t, "$.entries[0].after.caps: a drop entry cannot have capabilities");
	free(t);
	/* order, duplicates, summary */
	expect("entries/1/path", "\"/usr/bin/arping\"", "$.entries[1].path: '/usr/bin/arping' is in the plan twice");
	expect("entries/1/path", "\"/a\"", "$.entries[1].path: '/a' is out of order: entries are sorted by path");
	expect("summary/keep", "2", "$.summary.keep: says 2, but the entries count 1");
	expect("mounts/1", "{\"target\": \"/\", \"fstype\": \"ext4\", \"nosuid\": false, \"readonly\": false}",
	       "$.mounts[1]: the same mount twice");
}
END_TEST

START_TEST(test_loader_names)
{
	/* "bad\xffname" */
	expect("entries/0/path_hex", "\"2f7573722f62696e2f617270696e67\"",
	       "$.entries[0].path_hex: only allowed when 'path' is not valid UTF-8");
	expect("entries/0/path_hex", "\"2f61ff\"", "$.entries[0].path_hex: does not match 'path'");
	expect("entries/0/path_hex", "\"2f6\"",
	       "$.entries[0].path_hex: expected lowercase hex digits, two per byte");
	{
		char *t = mutate("entries/0/path", "\"/a\\ufffd\"");
		char *u = NULL;
		struct plan *p = NULL;
		struct s2c_error err = { 0 };
		struct json_object *doc = json_tokener_parse(t), *e;

		/* a valid pair: the exact bytes win */
		e = json_object_array_get_idx(json_object_object_get(doc, "entries"), 0);
		json_object_object_add(e, "path_hex", json_object_new_string("2f61ff"));
		u = strdup(json_object_to_json_string(doc));
		ck_assert_msg(load_text(u, &p, NULL, &err) == 0, "%s", err.msg);
		ck_assert_str_eq(p->v[0].path, "/a\xff");
		plan_free(p);
		json_object_put(doc);
		free(t);
		free(u);
	}
}
END_TEST

START_TEST(test_loader_json_and_all_problems)
{
	struct plan *p = NULL;
	struct jcheck_problems problems = { 0 };
	struct s2c_error err = { 0 };
	char *t, *u;
	size_t len = strlen(valid_plan);

	/* truncated file */
	t = strndup(valid_plan, len / 2);
	ck_assert_int_eq(load_text(t, &p, NULL, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "plan.json: not valid JSON: unexpected end of file"));
	free(t);
	/* syntax, duplicate keys, trailing data */
	ck_assert_int_eq(load_text("{\"schema\": 1,}", &p, NULL, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "plan.json:1:"));
	ck_assert_int_eq(load_text("{\"schema\": 1, \"schema\": 1}", &p, NULL, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "same key twice"));
	ck_assert_int_eq(load_text("[] []", &p, NULL, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "plan.json:1:4: not valid JSON: unexpected character");
	ck_assert_int_eq(load_text("[]", &p, NULL, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "plan.json: $: expected an object");
	/* several problems: all reported, the first in err */
	t = mutate("entries/0/after/mode", "\"4755\"");
	{
		struct json_object *doc = json_tokener_parse(t);
		json_object_object_add(doc, "kind", json_object_new_string("x"));
		json_object_object_add(json_object_object_get(doc, "host"), "live",
				       json_object_new_string("yes"));
		u = strdup(json_object_to_json_string(doc));
		json_object_put(doc);
	}
	ck_assert_int_eq(load_text(u, &p, &problems, &err), -EINVAL);
	ck_assert_uint_eq(problems.n, 3);
	for (size_t i = 0; i < 3; i++)
		ck_assert_str_eq(problems.v[i].file, "plan.json");
	ck_assert_str_eq(problems.v[0].path, "$.kind");
	ck_assert_str_eq(problems.v[0].message, "expected \"suid2cap-plan\"");
	ck_assert_str_eq(problems.v[1].path, "$.host.live");
	ck_assert_str_eq(problems.v[1].message, "expected true or false");
	ck_assert_str_eq(problems.v[2].path, "$.entries[0].after.mode");
	ck_assert_str_eq(problems.v[2].message, "a migrate entry cannot keep the set-user-ID bit");
	ck_assert_str_eq(err.msg, "plan.json: $.kind: expected \"suid2cap-plan\" (and 2 more problems)");
	jcheck_problems_release(&problems);
	free(t);
	free(u);
}
END_TEST

/* --- files and trust ---------------------------------------------------------------------- */

START_TEST(test_load_file_and_trust)
{
	int dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct plan *p = NULL;
	struct s2c_error err = { 0 };
	char *path = fx_path(root, "plan.json");

	fx_file(root, "plan.json", 0644, valid_plan);
	ck_assert_msg(plan_load(dfd, "plan.json", path, false, &p, &err) == 0, "%s", err.msg);
	p = plan_free(p);
	/* writable by group or others: refused when trusted (owner checked first) */
	ck_assert_int_eq(chmod(path, 0664), 0);
	ck_assert_int_eq(plan_load(dfd, "plan.json", path, true, &p, &err), -EPERM);
	ck_assert_ptr_nonnull(strstr(err.msg, geteuid() == 0 ?
					      "is writable by group or others, refusing it" :
					      "is not owned by root, refusing it"));
	ck_assert_int_eq(chmod(path, 0644), 0);
	/* not owned by root */
	if (geteuid() == 0)
		fx_chown(root, "plan.json", 1, 1);
	if (geteuid() == 0 || getuid() != 0) {
		ck_assert_int_eq(plan_load(dfd, "plan.json", path, true, &p, &err), -EPERM);
		ck_assert_ptr_nonnull(strstr(err.msg, "is not owned by root, refusing it"));
		ck_assert_msg(plan_load(dfd, "plan.json", path, false, &p, &err) == 0, "%s", err.msg);
		p = plan_free(p);
	}
	if (geteuid() == 0) {
		fx_chown(root, "plan.json", 0, 0);
		ck_assert_msg(plan_load(dfd, "plan.json", path, true, &p, &err) == 0, "%s", err.msg);
		p = plan_free(p);
	}
	/* a symlink is not followed, a directory is not a plan */
	fx_symlink(root, "link.json", "plan.json");
	ck_assert_int_eq(plan_load(dfd, "link.json", "link.json", false, &p, &err), -ELOOP);
	fx_mkdirs(root, "dir.json");
	ck_assert_int_eq(plan_load(dfd, "dir.json", "dir.json", false, &p, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a regular file"));
	ck_assert_ptr_null(p);
	free(path);
	close(dfd);
}
END_TEST

/* --- emitters ------------------------------------------------------------------------------- */

static char *emit_text(const struct plan *p, enum emit_format f)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(emit_plan(p, f, NULL, out), 0);
	fclose(out);
	return buf;
}

START_TEST(test_emit_quoting)
{
	struct plan *p = NULL;
	struct s2c_error err = { 0 };
	char *t = mutate("entries/0/path", "\"/usr/bin/a'b\\nc $(x)\""), *sh, *rpm, *deb, *perm;

	ck_assert_msg(load_text(t, &p, NULL, &err) == 0, "%s", err.msg);
	sh = emit_text(p, EMIT_SH);
	/* the operand keeps every byte, single-quoted; the name in messages is escaped */
	ck_assert_ptr_nonnull(strstr(sh, "change '/usr/bin/a'\\''b'\"\\\\\"'nc '\"\\$\"'(x)' "
					 "'/usr/bin/a'\\''b\nc '\"\\$\"'(x)' aaaaaaaa"));
	/* a newline in a name never ends a comment */
	ck_assert_ptr_nonnull(strstr(sh, "\n# /usr/bin/a'b\\nc $(x): migrate (rule iputils.arping)"));
	ck_assert_ptr_nonnull(strstr(sh, " 4755 0:0 755 0:0 'cap_net_raw=p'\n"));
	ck_assert_ptr_nonnull(strstr(sh, "\tROOT=''\n"));
	/* the directories on the way to every file are checked before the first change */
	ck_assert_ptr_nonnull(strstr(sh, "\nsafe_dirs '/usr/bin/a'\\''b'\"\\\\\"'nc '\"\\$\"'(x)' "
					 "'/usr/bin/a'\\''b\nc '\"\\$\"'(x)'\n"));
	ck_assert(strstr(sh, "\nsafe_dirs '") < strstr(sh, "\nchange '"));
	ck_assert_ptr_nonnull(strstr(sh, "\tsafe_dirs \"$name\" \"$2\"\n\tif [ -L \"$file\" ]"));
	/* packaging formats cannot name it: a comment says so */
	rpm = emit_text(p, EMIT_RPM);
	ck_assert_ptr_nonnull(strstr(rpm, "# migrate /usr/bin/a'b\\nc $(x): a spec file cannot name this "
					  "path literally, skipping it\n"));
	ck_assert_ptr_nonnull(strstr(rpm, "\n%attr(0755,root,root) %caps(cap_net_raw+ep) /usr/bin/ping\n"));
	perm = emit_text(p, EMIT_PERMISSIONS);
	ck_assert_ptr_nonnull(strstr(perm, "cannot name this path or owner, skipping it"));
	deb = emit_text(p, EMIT_DEB);
	ck_assert_ptr_nonnull(strstr(deb, "\t# /usr/bin/a'b\\nc $(x): migrate: dpkg-statoverride cannot "
					  "take this name literally (a newline, or a glob character), "
					  "skipping it\n"));
	ck_assert_ptr_null(strstr(deb, "'/usr/bin/a'"));
	free(deb);
	free(t);
	plan_free(p);
	/* a quote and a command substitution, without a newline */
	t = mutate("entries/0/path", "\"/usr/bin/a'b $(x)\"");
	ck_assert_msg(load_text(t, &p, NULL, &err) == 0, "%s", err.msg);
	deb = emit_text(p, EMIT_DEB);
	ck_assert_ptr_nonnull(strstr(deb, "dpkg-statoverride --list '/usr/bin/a'\\''b '\"\\$\"'(x)' "
					  ">/dev/null"));
	ck_assert_ptr_nonnull(strstr(deb, "\t\tprintf '%s\\n' 'setcap failed on /usr/bin/a'\\''b '\"\\$\"'(x), "
					  "putting back mode 4755 and owner 0:0' >&2\n"));
	free(sh);
	free(rpm);
	free(deb);
	free(perm);
	free(t);
	plan_free(p);
	/* a bidi override or a C1 control: escaped in comments, and packaging formats, which
	 * take a path literally, leave the entry out rather than show it reordered */
	t = mutate("entries/0/path", "\"/usr/bin/a\\u202eb\\u009bc\"");
	ck_assert_msg(load_text(t, &p, NULL, &err) == 0, "%s", err.msg);
	rpm = emit_text(p, EMIT_RPM);
	ck_assert_ptr_nonnull(strstr(rpm, "# migrate /usr/bin/a\\u{202e}b\\xc2\\x9bc: a spec file cannot "
					  "name this path literally, skipping it\n"));
	ck_assert_ptr_null(strstr(rpm, "\xe2\x80\xae"));
	perm = emit_text(p, EMIT_PERMISSIONS);
	ck_assert_ptr_nonnull(strstr(perm, "# migrate /usr/bin/a\\u{202e}b\\xc2\\x9bc: a permissions file "
					   "cannot name this path or owner, skipping it\n"));
	ck_assert_ptr_null(strstr(perm, "\xe2\x80\xae"));
	sh = emit_text(p, EMIT_SH);
	ck_assert_ptr_nonnull(strstr(sh, "\n# /usr/bin/a\\u{202e}b\\xc2\\x9bc: migrate (rule "));
	free(sh);
	free(rpm);
	free(perm);
	free(t);
	plan_free(p);
}
END_TEST

/* The rpm lines of valid_plan with entry 0 changed at @pointer to @value. */
static char *rpm_with(const char *pointer, const char *value)
{
	struct plan *p = NULL;
	struct s2c_error err = { 0 };
	char *t = mutate(pointer, value), *rpm;

	ck_assert_msg(load_text(t, &p, NULL, &err) == 0, "%s: %s", value, err.msg);
	rpm = emit_text(p, EMIT_RPM);
	plan_free(p);
	free(t);
	return rpm;
}

START_TEST(test_emit_rpm)
{
	/* every one of these reaches rpm as something else than itself */
	static const char *const bad[] = {
		"\"/usr/bin/a%caps(cap_sys_admin=ep)\"", "\"/usr/bin/a%%caps(cap_sys_admin=ep)\"",
		"\"/usr/bin/a%{x}\"", "\"/usr/bin/a%\"", "\"/usr/bin/a\\tb\"", "\"/usr/bin/a\\\"b\"",
		"\"/usr/bin/a\\\\b\"", "\"/usr/bin/a*\"", "\"/usr/bin/a?\"", "\"/usr/bin/a[b]\"",
		"\"/usr/bin/a{b,c}\"", "\"/usr/bin/a\\u007f\"", "\"/usr/bin/a\\u0085\"",
		"\"/usr/bin/a\\u001b[31m\"",
	};
	static const char *const bad_names[] = { "\"ro,ot\"", "\"r o\"", "\"-\"", "\"r%x\"",
						 "\"r#x\"", "\"r)\"", "\"\"", "\"1root\"" };
	char *rpm;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rpm = rpm_with("entries/0/path", bad[i]);
		ck_assert_msg(strstr(rpm, ": a spec file cannot name this path literally, "
					  "skipping it\n"), "%s:\n%s", bad[i], rpm);
		ck_assert_msg(!strstr(rpm, "\n%attr(0755,root,root) %caps(cap_net_raw=p)"), "%s:\n%s",
			      bad[i], rpm);
		free(rpm);
	}
	/* the comment doubles '%', or rpm would expand it */
	rpm = rpm_with("entries/0/path", "\"/usr/bin/a%caps(cap_sys_admin=ep)\"");
	ck_assert_ptr_nonnull(strstr(rpm, "\n# migrate /usr/bin/a%%caps(cap_sys_admin=ep): a spec "
					  "file cannot name this path literally, skipping it\n"));
	free(rpm);
	/* spaces survive inside double quotes */
	rpm = rpm_with("entries/0/path", "\"/usr/bin/a  b \"");
	ck_assert_ptr_nonnull(strstr(rpm, "\n%attr(0755,root,root) %caps(cap_net_raw=p) "
					  "\"/usr/bin/a  b \"\n"));
	free(rpm);
	rpm = rpm_with("entries/0/path", "\"/usr/bin/a-b.c_d~e,f#g(h)\\u00fc\"");
	ck_assert_ptr_nonnull(strstr(rpm, "\n%attr(0755,root,root) %caps(cap_net_raw=p) "
					  "/usr/bin/a-b.c_d~e,f#g(h)\xc3\xbc\n"));
	free(rpm);
	/* owner and group: plain names only */
	for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		for (int g = 0; g < 2; g++) {
			rpm = rpm_with(g ? "entries/0/after/group" : "entries/0/after/owner",
				       bad_names[i]);
			ck_assert_msg(strstr(rpm, "\n# migrate /usr/bin/arping: %%attr() cannot carry "
						  "the name of its owner or group, skipping it\n"),
				      "%s:\n%s", bad_names[i], rpm);
			free(rpm);
		}
	}
	rpm = rpm_with("entries/0/after/owner", "null");
	ck_assert_ptr_nonnull(strstr(rpm, "\n# migrate /usr/bin/arping: the owner or group has no "
					  "name, skipping it\n"));
	free(rpm);
	rpm = rpm_with("entries/0/after/group", "\"Wheel_2.x-y\"");
	ck_assert_ptr_nonnull(strstr(rpm, "\n%attr(0755,root,Wheel_2.x-y) %caps(cap_net_raw=p) "
					  "/usr/bin/arping\n"));
	free(rpm);
}
END_TEST

/* valid_plan after @n changes (pointer, value pairs), as text. */
static char *mutate_all(size_t n, const char *const *changes)
{
	char *t = strdup(valid_plan);

	for (size_t i = 0; i < n; i++) {
		struct json_object *doc = json_tokener_parse(t), *o = doc;
		char *path = strdup(changes[2 * i]), *save = NULL, *last = strrchr(path, '/');

		*last++ = '\0';
		for (char *tok = strtok_r(path, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
			o = json_object_is_type(o, json_type_array) ?
				    json_object_array_get_idx(o, strtoul(tok, NULL, 10)) :
				    json_object_object_get(o, tok);
		ck_assert_ptr_nonnull(o);
		json_object_object_add(o, last, json_tokener_parse(changes[2 * i + 1]));
		free(t);
		t = strdup(json_object_to_json_string(doc));
		json_object_put(doc);
		free(path);
	}
	return t;
}

/* The postinst of valid_plan after @n changes (pointer, value pairs). */
static char *deb_with(size_t n, const char *const *changes)
{
	struct plan *p = NULL;
	struct s2c_error err = { 0 };
	char *t = mutate_all(n, changes), *deb;

	ck_assert_msg(load_text(t, &p, NULL, &err) == 0, "%s", err.msg);
	deb = emit_text(p, EMIT_DEB);
	plan_free(p);
	free(t);
	return deb;
}

START_TEST(test_emit_deb)
{
	static const char *const glob_names[] = { "\"/usr/bin/a*\"", "\"/usr/bin/a?\"",
						  "\"/usr/bin/a[b]\"", "\"/usr/bin/a]\"",
						  "\"/usr/bin/a\\\\b\"" };
	/* a setgid-games program that keeps its group (base-passwd's gid 60): shipped 2755
	 * root:games, setcap failing puts back 6755 */
	static const char *const games[] = {
		"entries/0/before/gid", "60", "entries/0/before/group", "\"games\"",
		"entries/0/before/mode", "\"6755\"", "entries/0/after/gid", "60",
		"entries/0/after/group", "\"games\"", "entries/0/after/mode", "\"2755\"",
	};
	static const char *const drop_caps[] = {
		"entries/0/verdict", "\"drop\"", "entries/0/before/caps", "\"cap_net_raw=ep\"",
		"entries/0/before/caps_raw", "\"0100000200200000000000000000000000000000\"",
		"entries/0/after/caps", "null", "summary/migrate", "1", "summary/drop", "1",
		"entries/0/before/gid", "105", "entries/0/before/group", "\"messagebus\"",
		"entries/0/after/gid", "105", "entries/0/after/group", "\"messagebus\"",
	};
	/* a group allocated at install time (gid 105): only a statoverride gives it */
	static const char *const dynamic[] = {
		"entries/0/before/gid", "105", "entries/0/before/group", "\"messagebus\"",
		"entries/0/before/mode", "\"4754\"", "entries/0/after/gid", "105",
		"entries/0/after/group", "\"messagebus\"", "entries/0/after/mode", "\"0754\"",
	};
	static const char *const odd_owner[] = { "entries/0/before/owner", "\"r o\"",
						 "entries/0/before/group", "null",
						 "entries/0/before/uid", "7" };
	char *deb;

	deb = deb_with(6, games);
	ck_assert_msg(strstr(deb,
		"\t# /usr/bin/arping: migrate to cap_net_raw=p\n"
		"\t#   rule iputils.arping\n"
		"\tf=$(dpkg-divert --truename '/usr/bin/arping')\n"
		"\tif dpkg-statoverride --list '/usr/bin/arping' >/dev/null 2>&1; then\n"
		"\t\t: # the administrator's dpkg-statoverride stands\n"
		"\telif command -v setcap >/dev/null 2>&1 && setcap 'cap_net_raw=p' \"$f\"; then\n"
		"\t\tchmod 2755 \"$f\"\n"
		"\telse\n"
		"\t\tprintf '%s\\n' 'setcap failed on /usr/bin/arping, putting back mode 6755 and owner "
		"0:60' >&2\n"
		"\t\tchmod 6755 \"$f\"\n"
		"\tfi\n"), "%s", deb);
	/* what the package ships, and the debian/rules lines that give it */
	ck_assert_msg(strstr(deb, "#   /usr/bin/arping  2755 root:games\n"), "%s", deb);
	ck_assert_msg(strstr(deb, "#   override_dh_fixperms:\n#   \tdh_fixperms\n"
				  "#   \tchown root:games debian/iputils-arping/usr/bin/arping\n"
				  "#   \tchmod 2755 debian/iputils-arping/usr/bin/arping\n"), "%s", deb);
	ck_assert_ptr_nonnull(strstr(deb, "Rules-Requires-Root: binary-targets"));
	ck_assert_ptr_nonnull(strstr(deb, "libcap2-bin"));
	/* no statoverride of its own, never u+s, nothing of the machine the plan was made on */
	ck_assert_ptr_null(strstr(deb, "--add"));
	ck_assert_ptr_null(strstr(deb, "u+s"));
	ck_assert_ptr_null(strstr(deb, "# root:"));
	ck_assert_ptr_null(strstr(deb, "# host:"));
	free(deb);
	/* the state 0755 root:root dh_fixperms leaves needs no debian/rules line */
	deb = deb_with(0, NULL);
	ck_assert_ptr_nonnull(strstr(deb, "#   /usr/bin/arping  0755 root:root\n"));
	ck_assert_ptr_null(strstr(deb, "override_dh_fixperms"));
	free(deb);
	/* an owner that changes back where setcap fails: chown first, names or numbers */
	deb = deb_with(3, odd_owner);
	ck_assert_msg(strstr(deb, "\t\tchown 7:0 \"$f\"\n\t\tchmod 4755 \"$f\"\n"), "%s", deb);
	free(deb);
	/* a group allocated at install time: dpkg-statoverride, undone where setcap fails */
	deb = deb_with(6, dynamic);
	ck_assert_msg(strstr(deb,
		"\tadded=0\n"
		"\tif ! dpkg-statoverride --list '/usr/bin/arping' >/dev/null 2>&1; then\n"
		"\t\tdpkg-statoverride --add root messagebus 0754 '/usr/bin/arping'\n"
		"\t\tadded=1\n"
		"\t\tchown root:messagebus \"$f\"\n"
		"\t\tchmod 0754 \"$f\"\n"
		"\tfi\n"
		"\tif command -v setcap >/dev/null 2>&1 && setcap 'cap_net_raw=p' \"$f\"; then\n"
		"\t\tchmod u-s \"$f\"\n"
		"\telse\n"
		"\t\tprintf '%s\\n' 'setcap failed on /usr/bin/arping, putting back mode 4754 and owner "
		"0:105' >&2\n"
		"\t\tif [ \"$added\" = 1 ]; then\n"
		"\t\t\tdpkg-statoverride --remove '/usr/bin/arping'\n"
		"\t\tfi\n"
		"\t\tchown root:messagebus \"$f\"\n"
		"\t\tchmod 4754 \"$f\"\n"
		"\tfi\n"), "%s", deb);
	ck_assert_ptr_null(strstr(deb, "override_dh_fixperms"));
	/* --update would chown and chmod the package's name, which a diversion gives away */
	ck_assert_ptr_null(strstr(deb, "--update"));
	free(deb);
	/* a drop of a file with capabilities and a group allocated at install time: a
	 * failed setcap -r is said */
	deb = deb_with(10, drop_caps);
	ck_assert_msg(strstr(deb,
		"\tif command -v setcap >/dev/null 2>&1 && [ -n \"$(getcap \"$f\")\" ] &&\n"
		"\t    ! setcap -r \"$f\"; then\n"
		"\t\tprintf '%s\\n' 'setcap -r failed on /usr/bin/arping: it keeps its "
		"capabilities' >&2\n\tfi\n"), "%s", deb);
	ck_assert_ptr_null(strstr(deb, "|| :"));
	free(deb);
	/* dpkg-statoverride --list takes a glob: such names are left out */
	for (size_t i = 0; i < sizeof(glob_names) / sizeof(glob_names[0]); i++) {
		const char *change[] = { "entries/0/path", glob_names[i] };
		deb = deb_with(1, change);
		ck_assert_msg(strstr(deb, ": migrate: dpkg-statoverride cannot take this name literally "
					  "(a newline, or a glob character), skipping it\n"), "%s", deb);
		ck_assert_msg(!strstr(deb, "'/usr/bin/a"), "%s", deb);
		free(deb);
	}
}
END_TEST

/* The postrm of valid_plan after @n changes (pointer, value pairs). */
static char *postrm_with(size_t n, const char *const *changes)
{
	struct plan *p = NULL;
	struct s2c_error err = { 0 };
	char *t = mutate_all(n, changes), *rm;

	ck_assert_msg(load_text(t, &p, NULL, &err) == 0, "%s", err.msg);
	rm = emit_text(p, EMIT_DEB_POSTRM);
	plan_free(p);
	free(t);
	return rm;
}

START_TEST(test_emit_deb_postrm)
{
	/* a group allocated at install time (gid 105): the postinst adds an override */
	static const char *const dynamic[] = {
		"entries/0/before/gid", "105", "entries/0/before/group", "\"messagebus\"",
		"entries/0/before/mode", "\"2755\"", "entries/0/after/gid", "105",
		"entries/0/after/group", "\"messagebus\"", "entries/0/after/mode", "\"2755\"",
	};
	static const char *const nameless[] = { "entries/0/after/owner", "null",
						"entries/0/after/group", "\"r o\"",
						"entries/0/after/gid", "105" };
	static const char *const quote[] = { "entries/0/path", "\"/usr/bin/a'b $(x)\"",
					     "entries/0/after/gid", "105" };
	static const char *const glob[] = { "entries/0/path", "\"/usr/bin/a*\"",
					    "entries/0/after/gid", "105" };
	char *rm;

	/* a file the package ships as it is after (root's): nothing to take back */
	rm = postrm_with(0, NULL);
	ck_assert_msg(strstr(rm, "remove|purge)\n\t: nothing to take back\n"), "%s", rm);
	ck_assert_ptr_null(strstr(rm, "dpkg-statoverride --remove"));
	free(rm);
	/* exactly what the postinst adds, as dpkg-statoverride --list prints it */
	rm = postrm_with(6, dynamic);
	ck_assert_msg(strstr(rm,
		"case \"$1\" in\nremove|purge)\n"
		"\t# /usr/bin/arping\n"
		"\t#   rule iputils.arping\n"
		"\tp='/usr/bin/arping'\n"
		"\tover=$(dpkg-statoverride --list \"$p\" 2>/dev/null) || over=\n"
		"\tif [ \"$over\" = 'root messagebus 2755 '\"$p\" ]; then\n"
		"\t\tdpkg-statoverride --remove \"$p\"\n"
		"\telif [ -n \"$over\" ]; then\n"
		"\t\tprintf '%s\\n' '/usr/bin/arping: keeping its dpkg-statoverride entry, which "
		"is not the one the postinst added' >&2\n"
		"\tfi\n"), "%s", rm);
	ck_assert_ptr_nonnull(strstr(rm, "\n#DEBHELPER#\n\nexit 0\n"));
	free(rm);
	/* an owner without a name is "#ID"; a group with a space is not a name either */
	rm = postrm_with(3, nameless);
	ck_assert_msg(strstr(rm, "\tif [ \"$over\" = '#0 #105 755 '\"$p\" ]; then\n"), "%s", rm);
	free(rm);
	/* a name that tries to steer the script is one quoted word wherever it goes */
	rm = postrm_with(2, quote);
	ck_assert_msg(strstr(rm, "\tp='/usr/bin/a'\\''b '\"\\$\"'(x)'\n"), "%s", rm);
	ck_assert_ptr_null(strstr(rm, "root root 755 /usr/bin/a"));
	free(rm);
	/* a name dpkg-statoverride --list would take for a glob is never handed to it */
	rm = postrm_with(2, glob);
	ck_assert_msg(strstr(rm, "\t# /usr/bin/a*: migrate: dpkg-statoverride cannot take this "
				 "name literally (a newline, or a glob character), skipping it\n"),
		      "%s", rm);
	ck_assert_ptr_null(strstr(rm, "'/usr/bin/a*'"));
	free(rm);
}
END_TEST

/* A migrate entry held back (action "none", state after as the verdict asks) loads; a keep
 * entry whose after differs from before still does not. */
START_TEST(test_loader_held)
{
	static const char *const held[] = { "entries/0/action", "\"none\"", "summary/change", "0",
					    "summary/unchanged", "3" };
	struct plan *p = NULL;
	struct s2c_error err = { 0 };
	char *t = mutate_all(3, held), *sh;

	ck_assert_msg(load_text(t, &p, NULL, &err) == 0, "%s", err.msg);
	ck_assert(!p->v[0].change);
	ck_assert_uint_eq(p->v[0].after.mode, 0755);
	sh = emit_text(p, EMIT_SH);
	ck_assert_ptr_null(strstr(sh, "\nchange '"));
	ck_assert_ptr_null(strstr(sh, "\nsafe_dirs '"));
	ck_assert_ptr_nonnull(strstr(sh, "\n# migrate /usr/bin/arping: r\n"));
	free(sh);
	plan_free(p);
	free(t);
	expect("entries/2/after/mode", "\"0755\"",
	       "$.entries[2].after: differs from 'before', but the action is \"none\"");
}
END_TEST

/* --- holding back what apply would refuse -------------------------------------------------- */

struct held_log {
	size_t n;
	char why[4][256];
};

static void on_held(void *userdata, const struct plan_entry *e, const char *why)
{
	struct held_log *log = userdata;

	(void)e;
	if (log->n < 4)
		(void)snprintf(log->why[log->n], sizeof(log->why[0]), "%s", why);
	log->n++;
}

START_TEST(test_check_parents)
{
	struct world w;
	struct plan *p, *q = NULL;
	struct held_log log = { 0 };
	struct s2c_error err = { 0 };
	const struct plan_entry *e;
	char *path, *text, *sh, *deb;

	make_image();
	w = decide();
	p = build(&w);
	if (geteuid() != 0) {
		/* the tree is ours, not root's: apply would refuse every change */
		ck_assert_int_eq(parents_check(p, w.res->rootfd, on_held, &log), 2);
		ck_assert_str_eq(log.why[0], "directory '/' is not owned by root: its owner could "
					     "replace the file");
		plan_free(p);
		world_free(&w);
		return;
	}
	/* all root's: nothing held */
	ck_assert_int_eq(parents_check(p, w.res->rootfd, on_held, &log), 0);
	ck_assert(entry(p, "/usr/bin/clockdiff")->change);
	plan_free(p);
	/* a group-writable directory, a directory owned by someone else */
	path = fx_path(root, "usr/bin");
	ck_assert_int_eq(chmod(path, 0775), 0);
	free(path);
	fx_chown(root, "usr/local/bin", 1, 1);
	p = build(&w);
	ck_assert_int_eq(parents_check(p, w.res->rootfd, on_held, &log), 2);
	ck_assert_uint_eq(log.n, 2);
	ck_assert_str_eq(log.why[0], "directory '/usr/bin' is writable by group or others: they "
				     "could replace the file");
	ck_assert_str_eq(log.why[1], "directory '/usr/local/bin' is not owned by root: its owner "
				     "could replace the file");
	e = entry(p, "/usr/bin/clockdiff");
	ck_assert(!e->change);
	ck_assert_int_eq(e->verdict, VERDICT_MIGRATE);
	ck_assert_str_eq(e->reason, "directory '/usr/bin' is writable by group or others: they "
				    "could replace the file, so it is not changed (apply would "
				    "refuse it)");
	ck_assert_ptr_nonnull(strstr(e->warnings[e->n_warnings - 1],
				     "Not changed: directory '/usr/bin' is writable by group or "
				     "others: they could replace the file. Once only root can write "
				     "every directory on its path, a new plan changes it ("));
	ck_assert_ptr_nonnull(e->after_names.caps_text); /* the verdict's state after stays */
	ck_assert(!entry(p, "/usr/local/bin/script.sh")->change);
	/* the plan loads, and only the packaging formats still name the file */
	text = to_text(p);
	ck_assert_msg(load_text(text, &q, NULL, &err) == 0, "%s", err.msg);
	ck_assert(!entry(q, "/usr/bin/clockdiff")->change);
	sh = emit_text(q, EMIT_SH);
	ck_assert_ptr_null(strstr(sh, "\nchange '"));
	ck_assert_ptr_nonnull(strstr(sh, "\n# migrate /usr/bin/clockdiff: directory '/usr/bin' is "
					 "writable by group or others"));
	deb = emit_text(q, EMIT_DEB);
	ck_assert_ptr_nonnull(strstr(deb, "f=$(dpkg-divert --truename '/usr/bin/clockdiff')\n"));
	ck_assert_ptr_nonnull(strstr(deb, "setcap 'cap_net_raw,cap_sys_nice=ep' \"$f\""));
	free(deb);
	free(sh);
	free(text);
	plan_free(q);
	plan_free(p);
	world_free(&w);
}
END_TEST

Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *build = tcase_create("build");
	TCase *load = tcase_create("load");

	tcase_add_checked_fixture(build, setup, teardown);
	tcase_set_timeout(build, 60);
	tcase_add_test(build, test_deterministic);
	suite_add_tcase(s, build);
	tcase_add_checked_fixture(load, setup, teardown);
	tcase_set_timeout(load, 30);
	tcase_add_test(load, test_valid_plan_loads);
	tcase_add_test(load, test_loader_unknown_and_missing_keys);
	tcase_add_test(load, test_loader_types);
	tcase_add_test(load, test_loader_values);
	tcase_add_test(load, test_loader_caps);
	tcase_add_test(load, test_loader_semantics);
	tcase_add_test(load, test_loader_names);
	tcase_add_test(load, test_loader_json_and_all_problems);
	tcase_add_test(load, test_load_file_and_trust);
	tcase_add_test(load, test_emit_quoting);
	tcase_add_test(load, test_emit_rpm);
	tcase_add_test(load, test_emit_deb);
	tcase_add_test(load, test_emit_deb_postrm);
	tcase_add_test(load, test_loader_held);
	tcase_add_test(load, test_not_scanned);
	suite_add_tcase(s, load);
	return s;
}

/*
 * Plans that change files: only root's set-ID programs gain capabilities, so these
 * need the fixture's files to be root's (the runner skips them without CAP_SETFCAP,
 * as it does the engine's).
 */
Suite *plan_priv_suite(void)
{
	Suite *s = suite_create("plan_priv");
	TCase *build = tcase_create("build");

	tcase_add_checked_fixture(build, setup, teardown);
	tcase_set_timeout(build, 60);
	tcase_add_test(build, test_build_and_round_trip);
	tcase_add_test(build, test_change_needs_sha256);
	tcase_add_test(build, test_check_parents);
	tcase_add_test(build, test_only_packaged);
	tcase_add_test(build, test_only_packaged_without_database);
	suite_add_tcase(s, build);
	return s;
}
