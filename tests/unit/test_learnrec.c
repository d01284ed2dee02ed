/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Learn records: the model's summary, the draft rule, and strict storage. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>
#include <json-c/json.h>

#include "candidates.h"
#include "captable.h"
#include "db.h"
#include "engine.h"
#include "error.h"
#include "fixture.h"
#include "learndraft.h"
#include "learnout.h"
#include "program.h"
#include "record.h"
#include "suites.h"

#define SHA "79c87c89129d55fcf2daf29ba1f38eb8d1c57a2bc8ac67a948f10e15dd9c6862"
#define CAP_NET_RAW 13
#define CAP_NET_ADMIN 12
#define CAP_SETUID 7
#define CAP_SYS_ADMIN 21

static char *root;
static int rootfd = -1;

static void setup(void)
{
	root = fx_tempdir();
	fx_mkdirs(root, "var/lib");
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(rootfd, 0);
}

static void teardown(void)
{
	close(rootfd);
	fx_rmrf(root);
	free(root);
}

/* A ping that used cap_net_raw, was refused cap_net_admin by a failing
 * setsockopt, asked for cap_setuid in a setuid(2) that succeeded, and made
 * the kernel's quiet cap_sys_admin probe. */
static struct learn_record *sample(void)
{
	struct learn_record *r = learn_record_new();
	static const char *const argv[] = { "/usr/bin/ping", "-c", "1", "127.0.0.1", NULL };

	ck_assert_ptr_nonnull(r);
	r->path = strdup("/usr/bin/ping");
	memcpy(r->sha256, SHA, sizeof(SHA));
	r->argv = calloc(5, sizeof(char *));
	for (size_t i = 0; argv[i]; i++)
		r->argv[i] = strdup(argv[i]);
	r->user = strdup("nobody");
	r->uid = r->gid = 65534;
	r->mechanism = LEARN_BPF;
	r->attach = strdup("tracepoint cap_capable");
	r->candidates = 1ULL << CAP_NET_RAW;
	r->aware = true;
	r->time = strdup("2026-12-03T10:00:00Z");
	r->timeout = 30;
	r->elapsed_ms = 42;
	r->processes = 1;
	ck_assert_int_eq(learn_record_add_check(r, CAP_NET_RAW, true, false, "socket",
						"inet_create", 1), 0);
	ck_assert_int_eq(learn_record_add_check(r, CAP_NET_RAW, true, false, "socket",
						"inet_create", 2), 0);
	ck_assert_int_eq(learn_record_add_check(r, CAP_NET_ADMIN, false, false, "setsockopt",
						"sk_setsockopt", 1), 0);
	ck_assert_int_eq(learn_record_add_check(r, CAP_SETUID, false, false, "setuid",
						"__sys_setuid", 1), 0);
	ck_assert_int_eq(learn_record_add_check(r, CAP_SYS_ADMIN, false, true, "mmap",
						"security_vm_enough_memory_mm", 7), 0);
	ck_assert_int_eq(learn_record_add_failure(r, "setsockopt", EPERM, 1ULL << CAP_NET_ADMIN, 1), 0);
	learn_record_finish(r);
	return r;
}

static char *text_of(const struct learn_record *r)
{
	struct json_object *o = learn_record_json(r);
	char *s;

	ck_assert_ptr_nonnull(o);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

START_TEST(test_summary)
{
	struct learn_record *r = sample();

	ck_assert_uint_eq(r->n_checks, 4);          /* equal checks were merged */
	ck_assert_uint_eq(r->used, 1ULL << CAP_NET_RAW);
	ck_assert_uint_eq(r->denied, 1ULL << CAP_NET_ADMIN);
	ck_assert_uint_eq(r->denied_harmless, 1ULL << CAP_SETUID);
	ck_assert_uint_eq(r->quiet, 1ULL << CAP_SYS_ADMIN);
	ck_assert(learn_record_succeeded(r));
	r->timed_out = true;
	ck_assert(!learn_record_succeeded(r));
	learn_record_free(r);
}
END_TEST

static const char *str_at(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

START_TEST(test_draft)
{
	struct learn_record *r = sample();
	struct json_object *d, *rule, *v, *match;
	const char *packages[] = { "iputils-ping", "iputils", NULL };
	struct rule_condition conds[2] = {
		{ .when = { .sysctl_name = "net.ipv4.ping_group_range",
			    .sysctl_op = SYSCTL_RANGE_COVERS, .sysctl_a = 0, .sysctl_b = 2147483647,
			    .setuid_root = -1 },
		  .verdict = VERDICT_DROP, .mode = -1 },
		{ .when = { .has_kernel_max = true, .kernel_max_text = "5.17", .setuid_root = -1 },
		  .verdict = VERDICT_MIGRATE, .has_caps = true,
		  .caps_text = "cap_net_raw,cap_net_admin=p", .mode = -1 },
	};
	struct rule replaced = { .id = "iputils.ping", .file = "db/network.json",
				 .packages = packages, .conditions = conds, .n_conditions = 2 };
	struct rule taken = { .id = "local.ping" };
	struct rule *in_db[] = { &replaced, &taken };
	struct rules_db db = { .rules = in_db, .n = 2 };

	/* Denied something: a person reviews, with what it would need. */
	d = learndraft_build(r, &replaced, NULL);
	ck_assert_ptr_nonnull(d);
	rule = json_object_array_get_idx(json_object_object_get(d, "rules"), 0);
	/* Never the matching rule's id: saved, it would replace that rule and its conditions. */
	ck_assert_str_eq(str_at(rule, "id"), "local.ping");
	/* About this build only, which it takes from the matching rule. */
	match = json_object_object_get(rule, "match");
	ck_assert_str_eq(json_object_to_json_string_ext(json_object_object_get(match, "sha256"),
							JSON_C_TO_STRING_PLAIN), "[\"" SHA "\"]");
	ck_assert(!json_object_object_get_ex(match, "packages", &v));
	ck_assert_msg(strstr(str_at(d, "description"), "goes before rule 'iputils.ping' "
			     "(db/network.json), which still decides every other build. It lacks "
			     "that rule's conditions, which the run did not test; add those that "
			     "hold for this build: when net.ipv4.ping_group_range covers "
			     "0..2147483647: drop; when the kernel is below 5.17: migrate "
			     "cap_net_raw,cap_net_admin=p."), "%s", str_at(d, "description"));
	ck_assert_str_eq(str_at(rule, "verdict"), "review");
	ck_assert_str_eq(str_at(rule, "needs"), "cap_net_admin,cap_net_raw=p");
	ck_assert(!json_object_object_get_ex(rule, "caps", &v));
	json_object_put(d);
	/* A fresh id: local.ping is taken. */
	d = learndraft_build(r, &replaced, &db);
	rule = json_object_array_get_idx(json_object_object_get(d, "rules"), 0);
	ck_assert_str_eq(str_at(rule, "id"), "local.ping-2");
	json_object_put(d);
	/* Succeeded, denied nothing: migrate; =ep for a capability-dumb program. */
	free(r->failures[0].syscall);
	r->n_failures = 0;
	r->aware = false;
	learn_record_finish(r);
	d = learndraft_build(r, NULL, NULL);
	rule = json_object_array_get_idx(json_object_object_get(d, "rules"), 0);
	ck_assert_str_eq(str_at(rule, "id"), "local.ping");
	ck_assert(!json_object_object_get_ex(json_object_object_get(rule, "match"), "sha256", &v));
	ck_assert_str_eq(str_at(d, "description"), "Rules drafted by suid2cap learn from observed "
			 "runs, to be reviewed before use.");
	ck_assert_str_eq(str_at(rule, "verdict"), "migrate");
	ck_assert_str_eq(str_at(rule, "caps"), "cap_net_raw=ep");
	json_object_put(d);
	/* A run ptrace did not see whole: review, and the reason says what was missed. */
	r->untraced = 1;
	d = learndraft_build(r, NULL, NULL);
	rule = json_object_array_get_idx(json_object_object_get(d, "rules"), 0);
	ck_assert_str_eq(str_at(rule, "verdict"), "review");
	ck_assert_str_eq(str_at(rule, "needs"), "cap_net_raw=ep");
	ck_assert_msg(strstr(str_at(rule, "reason"), "but ptrace could not follow 1 of its processes "
			     "or threads (clone with CLONE_UNTRACED; learn --mechanism bpf sees "
			     "them), and what went unseen may have used more"), "%s",
		      str_at(rule, "reason"));
	json_object_put(d);
	learn_record_free(r);
}
END_TEST

START_TEST(test_roundtrip)
{
	struct learn_record *r = sample(), *back = NULL;
	struct s2c_error err = { 0 };
	char *a = text_of(r), *b;

	ck_assert_int_eq(learn_record_parse(a, strlen(a), "x.json", &back, &err), 0);
	b = text_of(back);
	ck_assert_str_eq(a, b);
	ck_assert_uint_eq(back->denied_harmless, r->denied_harmless);
	learn_record_free(back);
	back = NULL;
	/* A record written before "untraced" and "complete" existed still reads. */
	{
		char *at = strstr(a, "\"untraced\":0,\"complete\":true,");
		ck_assert_ptr_nonnull(at);
		memmove(at, at + strlen("\"untraced\":0,\"complete\":true,"),
			strlen(at + strlen("\"untraced\":0,\"complete\":true,")) + 1);
		ck_assert_msg(learn_record_parse(a, strlen(a), "old.json", &back, &err) == 0, "%s",
			      err.msg);
		ck_assert(learn_record_complete(back));
	}
	free(a);
	free(b);
	learn_record_free(back);
	learn_record_free(r);
}
END_TEST

/* Replace the first @from in the record's JSON by @to; the parser must refuse it with @msg. */
static void refused(const char *from, const char *to, const char *msg)
{
	struct learn_record *r = sample(), *back = NULL;
	struct s2c_error err = { 0 };
	char *text = text_of(r), *at = strstr(text, from), *bad;

	ck_assert_msg(at != NULL, "'%s' not in the record", from);
	ck_assert_int_ge(asprintf(&bad, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)), 0);
	ck_assert_int_lt(learn_record_parse(bad, strlen(bad), "x.json", &back, &err), 0);
	ck_assert_ptr_null(back);
	ck_assert_msg(strstr(err.msg, msg) != NULL, "'%s' does not say '%s'", err.msg, msg);
	free(bad);
	free(text);
	learn_record_free(r);
}

START_TEST(test_refused)
{
	refused("\"kind\"", "\"kinds\"", "kinds");
	refused("\"suid2cap-learn\"", "\"suid2cap-plan\"", "not a suid2cap learn record");
	refused("\"sha256\":\"79c8", "\"sha256\":\"zz", "bad sha256");
	refused("\"cap_net_raw\"", "\"cap_net_rew\"", "unknown capability");
	refused("\"used\":\"cap_net_raw\"", "\"used\":\"cap_net_raw,cap_kill\"", "does not follow");
	refused("\"denied_without_effect\":\"cap_setuid\"", "\"denied_without_effect\":null",
		"does not follow");
	refused("\"signal\":null", "\"signal\":\"KILL\"", "exactly one of exit_code and signal");
	refused("\"succeeded\":true", "\"succeeded\":false", "succeeded does not follow");
	refused("\"complete\":true", "\"complete\":false", "complete does not follow");
	refused("\"untraced\":0", "\"untraced\":2", "complete does not follow");
	refused("\"EPERM\"", "\"EWHAT\"", "unknown errno");
	refused("\"granted\"", "\"maybe\"", "granted or denied");
	refused("\"name\":\"bpf\"", "\"name\":\"strace\"", "unknown mechanism");
	refused("\"path\":\"\\/usr", "\"path\":\"usr", "not absolute");
	refused("\"count\":3", "\"count\":0", "count");
}
END_TEST

START_TEST(test_store)
{
	struct learn_record *r = sample(), *back = NULL;
	struct s2c_error err = { 0 };
	char *name = NULL, *other, *other_name;
	int dfd = -1;
	struct stat st;

	ck_assert_int_eq(learn_dir_open(rootfd, NULL, false, false, &dfd, &err), -ENOENT);
	ck_assert_int_eq(learn_dir_open(rootfd, NULL, true, false, &dfd, &err), 0);
	ck_assert_int_eq(fstat(dfd, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	ck_assert_int_eq(learn_record_save(dfd, r, &name, &err), 0);
	ck_assert_str_eq(name, SHA ".json");
	ck_assert_int_eq(fstatat(dfd, name, &st, 0), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(learn_record_load(dfd, SHA, false, &back, &err), 0);
	ck_assert_uint_eq(back->used, r->used);
	learn_record_free(back);
	back = NULL;
	/* Another program has no record. */
	other = strdup(SHA);
	other[0] = '0';
	ck_assert_int_ge(asprintf(&other_name, "%s.json", other), 0);
	ck_assert_int_eq(learn_record_load(dfd, other, false, &back, &err), -ENOENT);
	/* A record under another program's name is refused. */
	ck_assert_int_eq(renameat(dfd, name, dfd, other_name), 0);
	ck_assert_int_eq(learn_record_load(dfd, other, false, &back, &err), -EINVAL);
	ck_assert(strstr(err.msg, "does not match the file name") != NULL);
	ck_assert_int_eq(renameat(dfd, other_name, dfd, name), 0);
	/* One others could have written is refused when trusted. */
	ck_assert_int_eq(fchmodat(dfd, name, 0640, 0), 0);
	ck_assert_int_eq(learn_record_load(dfd, SHA, true, &back, &err), -EPERM);
	ck_assert_ptr_null(back);
	close(dfd);
	free(other);
	free(other_name);
	free(name);
	learn_record_free(r);
}
END_TEST

START_TEST(test_untrusted_dir)
{
	struct s2c_error err = { 0 };
	char *dir = fx_path(root, "var/lib/suid2cap/learn");
	int dfd = -1;

	ck_assert_int_eq(learn_dir_open(rootfd, NULL, true, false, &dfd, &err), 0);
	close(dfd);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(learn_dir_open(rootfd, NULL, false, true, &dfd, &err), -EPERM);
	free(dir);
}
END_TEST

/* The candidates of a run: --caps, the proposal, or every capability that is not root. */
START_TEST(test_candidates)
{
	struct captable t = { 0 };
	struct decision d = { .verdict = VERDICT_MIGRATE, .has_caps = true };
	const uint64_t raw = S2C_CAPMASK(CAP_NET_RAW), admin = S2C_CAPMASK(CAP_SYS_ADMIN);
	struct learn_candidates c;
	struct s2c_error err = { 0 };

	t.caps[CAP_NET_RAW] = (struct cap_info){ .known = true, .risk = RISK_LOW };
	t.caps[CAP_SYS_ADMIN] = (struct cap_info){ .known = true, .risk = RISK_ROOT };
	ck_assert_int_eq(learn_candidates("cap_net_raw,cap_sys_admin", NULL, &t, ~0ull, &c, &err),
			 0);
	ck_assert_uint_eq(c.caps, raw | admin);
	ck_assert_uint_eq(c.root, admin);
	ck_assert(!c.proposed);
	ck_assert_int_eq(learn_candidates("all", NULL, &t, ~0ull, &c, &err), 0);
	ck_assert_uint_eq(c.caps, raw);         /* never a root-equivalent one */
	ck_assert_int_eq(learn_candidates("none", NULL, &t, ~0ull, &c, &err), 0);
	ck_assert_uint_eq(c.caps, 0);
	ck_assert_int_eq(learn_candidates("net_raw", NULL, &t, ~0ull, &c, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "unknown capability 'net_raw' in --caps");
	ck_assert_int_eq(learn_candidates(",", NULL, &t, ~0ull, &c, &err), -EINVAL);
	ck_assert_int_eq(learn_candidates("cap_net_raw", NULL, &t, 0, &c, &err), -EPERM);
	ck_assert_str_eq(err.msg, "cannot grant cap_net_raw: suid2cap does not have it itself");
	/* The proposal: what a migrate verdict gives, less what suid2cap lacks. */
	d.caps.permitted = raw | admin;
	ck_assert_int_eq(learn_candidates(NULL, &d, &t, raw, &c, &err), 0);
	ck_assert(c.proposed);
	ck_assert_uint_eq(c.caps, raw);
	ck_assert_uint_eq(c.lacking, admin);
	d.verdict = VERDICT_DROP;
	ck_assert_int_eq(learn_candidates(NULL, &d, &t, ~0ull, &c, &err), 0);
	ck_assert(c.proposed && c.caps == 0);
	ck_assert_int_eq(learn_candidates(NULL, NULL, &t, ~0ull, &c, &err), 0);
	ck_assert(!c.proposed);
	ck_assert_uint_eq(c.caps, raw);
}
END_TEST

/* The program: found by name in the search path beneath the root, or by path; read. */
START_TEST(test_program)
{
	struct learn_program p = { .fd = -1 };
	struct s2c_error err = { 0 };
	char *real = realpath(root, NULL);

	fx_file(root, "usr/bin/tool", 0755, "#!/bin/sh\nexit 0\n");
	fx_file(root, "usr/bin/data", 0644, "not a program\n");
	ck_assert_int_eq(learn_program_find(rootfd, real, "tool", NULL, &p, &err), 0);
	ck_assert_str_eq(p.path, "/usr/bin/tool");
	ck_assert_int_eq(learn_program_inspect(&p, &err), 0);
	ck_assert(p.script);
	ck_assert_uint_eq(strlen(p.sha256), 64);
	learn_program_release(&p);
	ck_assert_int_eq(learn_program_find(rootfd, real, "data", NULL, &p, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.msg, "command 'data' not found beneath '"));
	ck_assert_int_eq(learn_program_find(rootfd, real, "usr/bin/tool", NULL, &p, &err), -EINVAL);
	ck_assert_int_eq(learn_program_find(rootfd, real, "/usr/bin/data", NULL, &p, &err), 0);
	ck_assert_int_eq(learn_program_inspect(&p, &err), -ENOEXEC);
	ck_assert_str_eq(err.msg, "'/usr/bin/data' is not an executable file");
	learn_program_release(&p);
	free(real);
}
END_TEST

Suite *learnrec_suite(void)
{
	Suite *s = suite_create("learnrec");
	TCase *tc = tcase_create("learnrec");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_summary);
	tcase_add_test(tc, test_draft);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_store);
	tcase_add_test(tc, test_untrusted_dir);
	tcase_add_test(tc, test_candidates);
	tcase_add_test(tc, test_program);
	suite_add_tcase(s, tc);
	return s;
}
