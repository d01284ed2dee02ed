/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <check.h>

#include <errno.h>

#include "error.h"
#include "facts.h"
#include "factsjson.h"
#include "factsrec.h"
#include "fixture.h"
#include "scan.h"
#include "scanout.h"
#include "spill.h"
#include "suites.h"
#include "util.h"

static char *root;

static void setup(void)
{
	root = fx_tempdir();
	fx_file(root, "ok/su", 04755, "x");
	fx_file(root, "bad\xff" "name/x\ny", 02755, "x");
	fx_file(root, "\x1b]0;owned\x07", 04755, "x");
}

static void teardown(void)
{
	fx_rmrf(root);
	free(root);
}

static char *render(int (*fn)(const struct scan_result *, FILE *), struct scan_result *r)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	ck_assert_int_eq(fn(r, f), 0);
	fclose(f);
	return buf;
}

static char *render_text(struct scan_result *r, unsigned width, bool quiet)
{
	struct scanout_text_options o = { .width = width, .quiet = quiet };
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	ck_assert_int_eq(scanout_text(r, &o, f), 0);
	fclose(f);
	return buf;
}

START_TEST(test_json_valid)
{
	struct scan_result *r = fx_scan(root, NULL, 0, 2, NULL);
	char *out = render(scanout_json, r);
	struct json_tokener *tok = json_tokener_new();
	struct json_object *doc, *files, *f;
	bool saw_hex = false;

	/* Strict parsing and UTF-8 validation of the whole document. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	doc = json_tokener_parse_ex(tok, out, (int)strlen(out) + 1);
	ck_assert_msg(doc != NULL, "invalid JSON: %s",
		      json_tokener_error_desc(json_tokener_get_error(tok)));
	ck_assert(utf8_valid(out, strlen(out)));
	ck_assert_int_eq(json_object_get_int(json_object_object_get(doc, "schema")), 1);
	ck_assert(json_object_get_boolean(json_object_object_get(doc, "complete")));
	files = json_object_object_get(doc, "files");
	ck_assert_int_eq((int)json_object_array_length(files), 3);
	for (size_t i = 0; i < 3; i++) {
		struct json_object *hex;
		f = json_object_array_get_idx(files, i);
		if (json_object_object_get_ex(f, "path_hex", &hex)) {
			char *raw;
			size_t len;
			ck_assert_int_eq(hex_decode(json_object_get_string(hex), &raw, &len), 0);
			ck_assert_str_eq(raw, "/bad\xff" "name/x\ny");   /* exact bytes back */
			free(raw);
			saw_hex = true;
		}
	}
	ck_assert(saw_hex);
	json_object_put(doc);
	json_tokener_free(tok);
	free(out);
	scan_result_free(r);
}
END_TEST

START_TEST(test_text_escaped)
{
	struct scan_result *r = fx_scan(root, NULL, 0, 2, NULL);
	char *out = render_text(r, 0, false);
	size_t lines = 0;

	ck_assert_ptr_null(strchr(out, '\x1b'));     /* no terminal controls */
	ck_assert_ptr_null(strchr(out, '\x07'));
	ck_assert_ptr_nonnull(strstr(out, "/bad\\xffname/x\\ny"));
	ck_assert_ptr_nonnull(strstr(out, "/\\x1b]0;owned\\x07"));
	for (char *p = out; *p; p++)
		lines += *p == '\n';
	ck_assert_uint_eq(lines, 1 + 3 + 1 + 1);     /* header, rows, blank, summary */
	ck_assert_ptr_nonnull(strstr(out, "3 privileged files"));
	free(out);
	scan_result_free(r);
}
END_TEST

/* The facts as JSON, for comparing two of them whole. */
static char *facts_string(const struct facts *f)
{
	struct json_object *o = factsjson_new(f);
	char *s;

	ck_assert_ptr_nonnull(o);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

/* Every candidate, with capabilities (raw and decoded), hostile names and mounts, is the same
 * after its bytes and back; packing again gives the same bytes; a short or damaged record is
 * refused, never half read. */
START_TEST(test_facts_record_round_trip)
{
	struct scan_result *r;

	if (fx_setcaps(root, "ok/su", "cap_net_raw,cap_setuid=ep") < 0)
		fx_file(root, "ok/plain-caps", 0755, "x");    /* no CAP_SETFCAP: the rest still */
	r = fx_scan(root, NULL, SCAN_ALL_CAPS, 2, NULL);
	ck_assert_uint_eq(r->n, 3);
	for (size_t k = 0; k < r->n; k++) {
		struct facts *f = r->v[k], *back = NULL, *bad = NULL;
		void *p, *q;
		size_t len, len2;
		char *a, *b;

		f->interpreter = strdup("/bin/sh");
		ck_assert_int_eq(factsrec_pack(f, &p, &len), 0);
		ck_assert_int_eq(factsrec_unpack(p, len, &back), 0);
		a = facts_string(f);
		b = facts_string(back);
		ck_assert_str_eq(a, b);
		ck_assert_str_eq(back->path, f->path);
		ck_assert_uint_eq(back->caps_len, f->caps_len);
		ck_assert_int_eq(memcmp(back->caps_raw, f->caps_raw, f->caps_len), 0);
		ck_assert_uint_eq(back->ino, f->ino);
		ck_assert_uint_eq(back->mnt_id, f->mnt_id);
		ck_assert_int_eq(factsrec_pack(back, &q, &len2), 0);
		ck_assert_uint_eq(len2, len);
		ck_assert_int_eq(memcmp(p, q, len), 0);
		for (size_t n = 0; n < len; n++) {
			struct facts *none = NULL;
			ck_assert_int_eq(factsrec_unpack(p, n, &none), -EBADMSG);
			ck_assert_ptr_null(none);
		}
		memset((char *)p + 8, 0xff, 4);             /* the path's length */
		ck_assert_int_eq(factsrec_unpack(p, len, &bad), -EBADMSG);
		ck_assert_ptr_null(bad);
		free(a);
		free(b);
		free(p);
		free(q);
		facts_free(back);
	}
	scan_result_free(r);
}
END_TEST

/* The counts kept beside a scan are those of its candidates, read one by one. */
static void check_counts(const struct scan_result *r, enum facts_flags any)
{
	struct scan_cursor c = { 0 };
	size_t n_flag[_FACT_MAX] = { 0 }, n_any = 0, n = 0;
	int ret;

	for (ret = scan_cursor_start(r, &c); ret == 0 && c.f; ret = scan_cursor_next(r, &c)) {
		for (unsigned i = 0; i < _FACT_MAX; i++)
			n_flag[i] += !!(c.f->flags & (1u << i));
		n_any += !!(c.f->flags & any);
		n++;
	}
	ck_assert_int_eq(ret, 0);
	scan_cursor_release(&c);
	ck_assert_uint_eq(n, r->n);
	for (unsigned i = 0; i < _FACT_MAX; i++)
		ck_assert_msg(n_flag[i] == r->n_flag[i], "%s: %zu counted, %zu kept",
			      facts_flag_name(1u << i), n_flag[i], r->n_flag[i]);
	ck_assert_uint_eq(n_any, r->n_any);
	ck_assert_uint_gt(n_flag[FACT_BIT(FACT_WRITABLE)], 0);
	ck_assert_uint_gt(n_flag[FACT_BIT(FACT_HARDLINKS)], 0);
	if (any)
		ck_assert_uint_ge(n_any, 3);
}

/* A scan kept as records, read back from the file (a budget of one byte spills every
 * record), writes what a scan kept in memory writes, in both formats. */
START_TEST(test_records_same_output)
{
	struct scan_result *mem, *rec = NULL;
	struct scan_options o = { .root = root, .threads = 2, .records_dir = getenv("TMPDIR"),
				  .records_memory = 1, .count_any = FACT_WRITABLE | FACT_HARDLINKS };
	struct s2c_error err = { 0 };
	char *a, *b;

	/* every flag the counts are asked about, and some the summary line counts */
	fx_file(root, "srv/open", 04777, "x");
	fx_file(root, "srv/linked", 02755, "x");
	fx_hardlink(root, "srv/linked", "srv/linked2");
	if (getuid() == 0) {
		fx_file(root, "srv/games", 04755, "x");
		fx_chown(root, "srv/games", 5, 60);
		fx_file(root, "srv/ping", 0755, "x");
		ck_assert_int_eq(fx_setcaps(root, "srv/ping", "cap_net_raw=ep"), 0);
	}
	mem = fx_scan(root, NULL, 0, 2, NULL);
	if (!o.records_dir)
		o.records_dir = "/tmp";
	ck_assert_int_eq(scan_run(&o, &rec, &err), 0);
	ck_assert_ptr_null(rec->v);
	ck_assert(spill_on_disk(rec->files));
	ck_assert_uint_eq(rec->n, mem->n);
	check_counts(mem, 0);
	check_counts(rec, FACT_WRITABLE | FACT_HARDLINKS);
	a = render(scanout_json, mem);
	b = render(scanout_json, rec);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	a = render_text(mem, 60, false);
	b = render_text(rec, 60, false);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	scan_result_free(mem);
	scan_result_free(rec);
}
END_TEST

Suite *scanout_suite(void)
{
	Suite *s = suite_create("scanout");
	TCase *tc = tcase_create("scanout");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_json_valid);
	tcase_add_test(tc, test_text_escaped);
	tcase_add_test(tc, test_facts_record_round_trip);
	tcase_add_test(tc, test_records_same_output);
	suite_add_tcase(s, tc);
	return s;
}
