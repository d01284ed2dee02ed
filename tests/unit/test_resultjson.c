/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The result document: events of one file merge into one entry, an entry
 * left open is refused until closed, the summary counts every outcome, and
 * names that are not UTF-8 keep their bytes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <check.h>

#include "fcaps.h"
#include "fileid.h"
#include "resultjson.h"
#include "suites.h"
#include "util.h"

static const char *const outcomes[] = { "applied", "skipped", "rolled-back", NULL };

/* 4755 root:root, no capabilities */
static const struct file_state setuid_root = { .uid = 0, .gid = 0, .mode = 04755 };

/* 0755 root:root with cap_net_raw=ep (v2) */
static struct file_state with_caps(void)
{
	struct file_state s = { .uid = 0, .gid = 0, .mode = 0755 };
	struct fcaps caps = { .version = 2, .effective = true,
			      .permitted = 1ULL << 13 /* CAP_NET_RAW */ };
	int len = fcaps_encode(&caps, s.xattr);

	ck_assert_int_eq(len, 20);
	s.has_xattr = true;
	s.xattr_len = (size_t)len;
	return s;
}

/* The document of @r with @exit_status, parsed strictly; NULL when writing fails with *ret_r. */
static struct json_object *render(struct resultjson *r, int exit_status, int *ret_r)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	struct json_tokener *tok = json_tokener_new();
	struct json_object *doc = NULL;

	ck_assert_ptr_nonnull(f);
	*ret_r = resultjson_write(r, exit_status, NULL, f);
	fclose(f);
	if (*ret_r == 0) {
		ck_assert(utf8_valid(buf, strlen(buf)));
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
		doc = json_tokener_parse_ex(tok, buf, (int)strlen(buf) + 1);
		ck_assert_msg(doc != NULL, "invalid JSON: %s", buf);
	}
	json_tokener_free(tok);
	free(buf);
	return doc;
}

static struct json_object *get(struct json_object *o, const char *path)
{
	char *copy = strdup(path), *save = NULL;

	for (char *k = strtok_r(copy, ".", &save); o && k; k = strtok_r(NULL, ".", &save))
		o = isdigit((unsigned char)k[0]) ?
			    json_object_array_get_idx(o, strtoul(k, NULL, 10)) :
			    json_object_object_get(o, k);
	free(copy);
	return o;
}

static const char *str(struct json_object *o, const char *path)
{
	struct json_object *v = get(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int64_t num(struct json_object *o, const char *path)
{
	return json_object_get_int64(get(o, path));
}

START_TEST(test_events_merge)
{
	struct file_state caps = with_caps(), other = setuid_root;
	struct resultjson *r = NULL;
	struct json_object *doc;
	int w;

	other.mode = 04711;
	ck_assert_int_eq(resultjson_new("apply", "/srv/img", outcomes, NULL, &r), 0);
	/* a recovered entry first, of another action on the same path */
	ck_assert_int_eq(resultjson_event(r, &(struct resultjson_event){
		.action = "recover", .path = "/usr/bin/ping", .outcome = "recovered",
		.reason = "an interrupted change was undone", .before = &other,
		.after = &other }), 0);
	/* a passed smoke test leaves the entry open: the states it carries are early ones */
	ck_assert_int_eq(resultjson_event(r, &(struct resultjson_event){
		.action = "change", .path = "/usr/bin/ping", .smoke = RESULTJSON_SMOKE_PASSED,
		.before = &setuid_root, .after = &other }), 0);
	ck_assert_int_eq(resultjson_event(r, &(struct resultjson_event){
		.action = "change", .path = "/usr/bin/ping", .outcome = "applied", .reason = "",
		.before = &other, .after = &caps }), 0);
	doc = render(r, 0, &w);
	ck_assert_int_eq(w, 0);
	ck_assert_str_eq(str(doc, "kind"), "suid2cap-result");
	ck_assert_str_eq(str(doc, "verb"), "apply");
	ck_assert_str_eq(str(doc, "root"), "/srv/img");
	ck_assert(json_object_is_type(get(doc, "journal"), json_type_null));
	ck_assert_int_eq((int)json_object_array_length(get(doc, "entries")), 2);
	ck_assert_str_eq(str(doc, "entries.0.action"), "recover");
	ck_assert_str_eq(str(doc, "entries.0.before.mode"), "4711");
	ck_assert_str_eq(str(doc, "entries.1.action"), "change");
	ck_assert_str_eq(str(doc, "entries.1.outcome"), "applied");
	ck_assert_str_eq(str(doc, "entries.1.smoke"), "passed");
	/* "" is no reason; the first state found and the last one left */
	ck_assert(json_object_is_type(get(doc, "entries.1.reason"), json_type_null));
	ck_assert_str_eq(str(doc, "entries.1.before.mode"), "4755");
	ck_assert(json_object_is_type(get(doc, "entries.1.before.caps_raw"), json_type_null));
	ck_assert_str_eq(str(doc, "entries.1.after.mode"), "0755");
	ck_assert_str_eq(str(doc, "entries.1.after.caps"), "cap_net_raw=ep");
	ck_assert_str_eq(str(doc, "entries.1.after.caps_raw"),
			 "0100000200200000000000000000000000000000");
	ck_assert(json_object_is_type(get(doc, "entries.1.after.owner"), json_type_null));
	ck_assert_ptr_null(get(doc, "entries.1.drift"));
	ck_assert_ptr_null(get(doc, "summary.drift"));
	json_object_put(doc);
	resultjson_free(r);
}
END_TEST

START_TEST(test_open_entries)
{
	struct resultjson *r = NULL;
	struct json_object *doc;
	int w;

	ck_assert_int_eq(resultjson_new("apply", "/", outcomes, NULL, &r), 0);
	ck_assert_int_eq(resultjson_set_journal(r, "20261203T101112.123456789Z.journal"), 0);
	ck_assert_int_eq(resultjson_event(r, &(struct resultjson_event){
		.action = "change", .path = "/usr/bin/ping", .smoke = RESULTJSON_SMOKE_PASSED,
		.before = &setuid_root }), 0);
	/* an entry without an outcome is no document */
	ck_assert_ptr_null(render(r, 4, &w));
	ck_assert_int_eq(w, -EINVAL);
	ck_assert_int_eq(resultjson_close_open(r, "interrupted", "the run stopped"), 1);
	ck_assert_int_eq(resultjson_close_open(r, "interrupted", "the run stopped"), 0);
	doc = render(r, 4, &w);
	ck_assert_int_eq(w, 0);
	ck_assert_str_eq(str(doc, "journal"), "20261203T101112.123456789Z.journal");
	ck_assert_str_eq(str(doc, "entries.0.outcome"), "interrupted");
	ck_assert_str_eq(str(doc, "entries.0.reason"), "the run stopped");
	ck_assert(json_object_is_type(get(doc, "entries.0.after"), json_type_null));
	ck_assert_int_eq(num(doc, "summary.exit_status"), 4);
	/* every outcome counted, zero counts included, the unexpected one after them */
	ck_assert_int_eq(json_object_object_length(get(doc, "summary.outcomes")), 4);
	ck_assert_int_eq(num(doc, "summary.outcomes.applied"), 0);
	ck_assert_int_eq(num(doc, "summary.outcomes.interrupted"), 1);
	json_object_put(doc);
	resultjson_free(r);
}
END_TEST

START_TEST(test_verify_entries)
{
	static const char *const drifts[] = { "none", "state", NULL };
	static const char *const vocab[] = { "none", "state", "applied", "not-repaired", NULL };
	struct file_state caps = with_caps();
	struct resultjson *r = NULL;
	struct json_object *doc;
	int w;

	ck_assert_int_eq(resultjson_new("verify", "/", vocab, drifts, &r), 0);
	ck_assert_int_eq(resultjson_event(r, &(struct resultjson_event){
		.action = "check", .path = "/usr/bin/fping", .outcome = "none", .before = &caps,
		.after = &caps, .recorded = &caps, .drift = "none" }), 0);
	ck_assert_int_eq(resultjson_event(r, &(struct resultjson_event){
		.action = "repair", .path = "/usr/bin/ping", .before = &setuid_root,
		.after = &setuid_root, .recorded = &caps, .drift = "state",
		.drift_reason = "the set-ID bit is back (mode 4755)" }), 0);
	/* the repair's apply run closes the open entry; its own "before" comes later */
	ck_assert_int_eq(resultjson_event(r, &(struct resultjson_event){
		.action = "repair", .path = "/usr/bin/ping", .outcome = "applied", .before = &caps,
		.after = &caps }), 0);
	doc = render(r, 0, &w);
	ck_assert_int_eq(w, 0);
	ck_assert_int_eq((int)json_object_array_length(get(doc, "entries")), 2);
	ck_assert_str_eq(str(doc, "entries.0.drift.kind"), "none");
	ck_assert(json_object_is_type(get(doc, "entries.0.drift.reason"), json_type_null));
	ck_assert_str_eq(str(doc, "entries.1.outcome"), "applied");
	ck_assert_str_eq(str(doc, "entries.1.drift.kind"), "state");
	ck_assert_str_eq(str(doc, "entries.1.drift.reason"), "the set-ID bit is back (mode 4755)");
	ck_assert_str_eq(str(doc, "entries.1.before.mode"), "4755");
	ck_assert_str_eq(str(doc, "entries.1.after.mode"), "0755");
	ck_assert_str_eq(str(doc, "entries.1.recorded.caps"), "cap_net_raw=ep");
	ck_assert_int_eq(num(doc, "summary.outcomes.none"), 1);
	ck_assert_int_eq(num(doc, "summary.outcomes.applied"), 1);
	ck_assert_int_eq(num(doc, "summary.outcomes.not-repaired"), 0);
	ck_assert_int_eq(num(doc, "summary.drift.none"), 1);
	ck_assert_int_eq(num(doc, "summary.drift.state"), 1);
	json_object_put(doc);
	resultjson_free(r);
}
END_TEST

START_TEST(test_names_not_utf8)
{
	struct resultjson *r = NULL;
	struct json_object *doc;
	int w;

	ck_assert_int_eq(resultjson_new("rollback", "/srv/\xff", outcomes, NULL, &r), 0);
	ck_assert_int_eq(resultjson_event(r, &(struct resultjson_event){
		.action = "restore", .path = "/usr/bin/a\xfe" "b", .outcome = "not-restored",
		.reason = "its content changed \xff" }), 0);
	doc = render(r, 4, &w);
	ck_assert_int_eq(w, 0);
	ck_assert_str_eq(str(doc, "root"), "/srv/\xef\xbf\xbd");
	ck_assert_str_eq(str(doc, "root_hex"), "2f7372762fff");
	ck_assert_str_eq(str(doc, "entries.0.path"), "/usr/bin/a\xef\xbf\xbd" "b");
	ck_assert_str_eq(str(doc, "entries.0.path_hex"), "2f7573722f62696e2f61fe62");
	ck_assert_str_eq(str(doc, "entries.0.reason"), "its content changed \xef\xbf\xbd");
	ck_assert(json_object_is_type(get(doc, "entries.0.before"), json_type_null));
	json_object_put(doc);
	resultjson_free(r);
}
END_TEST

/* The state object results share with plans: caps_raw only when asked, null without an
 * attribute. */
START_TEST(test_state_object)
{
	struct file_state s = { .uid = 0, .gid = 5, .mode = 04755, .has_xattr = true,
				.xattr = { 1, 2, 3 }, .xattr_len = 3 };
	struct json_object *o = filestate_json(&s, "root", NULL, NULL, true);

	ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			 "{\"uid\":0,\"gid\":5,\"owner\":\"root\",\"group\":null,\"mode\":\"4755\","
			 "\"caps\":null,\"caps_raw\":\"010203\"}");
	json_object_put(o);
	o = filestate_json(&s, "root", NULL, NULL, false);
	ck_assert_ptr_null(json_object_object_get(o, "caps_raw"));
	json_object_put(o);
	s.has_xattr = false;
	o = filestate_json(&s, NULL, NULL, NULL, true);
	ck_assert(json_object_is_type(json_object_object_get(o, "caps_raw"), json_type_null));
	json_object_put(o);
}
END_TEST

Suite *resultjson_suite(void)
{
	Suite *s = suite_create("resultjson");
	TCase *tc = tcase_create("resultjson");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_events_merge);
	tcase_add_test(tc, test_open_entries);
	tcase_add_test(tc, test_verify_entries);
	tcase_add_test(tc, test_names_not_utf8);
	tcase_add_test(tc, test_state_object);
	suite_add_tcase(s, tc);
	return s;
}
