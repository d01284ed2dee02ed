/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the reading of `report merge`: any bytes, read as one report, must join
 * the fleet or be refused with a message naming the report, leaving the fleet
 * exactly as it was; a fleet that took the report (twice, as two shards
 * would) must finish and be written in every format.  The reader of report
 * files, which parses the files one at a time, must agree with the reader of
 * documents: the same refusal, or the same fleet.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "error.h"
#include "fleet.h"
#include "fuzz.h"
#include "jsonread.h"

/* The JSON form of @f, finished; abort on OOM (a fuzzer does not run out). */
static char *finished_json(struct fleet *f)
{
	struct json_object *o;
	char *s;

	if (fleet_finish(f) < 0 || !(o = fleet_json(f)))
		abort();
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	if (!s)
		abort();
	return s;
}

static struct fleet *fleet_or_abort(void)
{
	struct fleet *f = NULL;

	if (fleet_new(&f) < 0)
		abort();
	return f;
}

/* Every writer must write the fleet. */
static void write_all(const struct fleet *f)
{
	for (int k = 0; k < 5; k++) {
		char *buf = NULL;
		size_t size = 0;
		FILE *out = open_memstream(&buf, &size);
		int r;

		if (!out)
			abort();
		r = k == 0 ? fleet_text(f, false, out) : k == 1 ? fleet_text(f, true, out) :
		    k == 2 ? fleet_markdown(f, out) : k == 3 ? fleet_html(f, out) :
		    fleet_sarif(f, out);
		if (r < 0 || fclose(out) != 0) {
			fprintf(stderr, "writer %d failed: %d\n", k, r);
			abort();
		}
		free(buf);
	}
}

/* Refused: a message naming the report, and a fleet as if the report had never come. */
static void check_refused(struct fleet *f, int r, const struct s2c_error *err)
{
	struct fleet *empty = fleet_or_abort();
	char *a, *b;

	if (r != -EINVAL || strncmp(err->msg, "fuzz", 4) != 0) {
		fprintf(stderr, "refused with %d: %s\n", r, err->msg);
		abort();
	}
	a = finished_json(f);
	b = finished_json(empty);
	if (strcmp(a, b) != 0) {
		fprintf(stderr, "a refused report left something:\n%s\n", a);
		abort();
	}
	free(a);
	free(b);
	fleet_free(empty);
}

/* fleet_read() of the same bytes: refused when @want is, else the same fleet as @want_f. */
static void read_text(const uint8_t *data, size_t size, bool parsed, int want,
		      struct fleet *want_f, const struct s2c_error *want_err)
{
	struct fleet *f = fleet_or_abort();
	struct s2c_error err = { 0 };
	int r = fleet_read(f, "fuzz", "fuzz", (const char *)data, size, &err);

	if (r < 0 && (strncmp(err.msg, "fuzz", 4) != 0 || (parsed && r != want) ||
		      (parsed && strcmp(err.msg, want_err->msg) != 0))) {
		fprintf(stderr, "fleet_read refused with %d: %s\n", r, err.msg);
		abort();
	}
	if (r == 0 && (!parsed || want < 0))
		abort();                /* took what the document reader refused */
	if (r == 0) {
		char *a = finished_json(f), *b = finished_json(want_f);
		if (strcmp(a, b) != 0)
			abort();
		free(a);
		free(b);
	}
	fleet_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *doc = NULL;
	struct s2c_error err = { 0 };
	struct fleet *f;
	int r;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	if (jsonread_parse_mem((const char *)data, size, "fuzz", &doc, &err) < 0) {
		read_text(data, size, false, -1, NULL, NULL);
		return 0;
	}
	f = fleet_or_abort();
	r = fleet_add(f, "fuzz", doc, &err);
	if (r == 0) {
		/* compared before the second shard below; fleet_finish() is idempotent */
		struct fleet *g = fleet_or_abort();
		if (fleet_add(g, "fuzz", doc, &err) < 0)
			abort();
		read_text(data, size, true, 0, g, &err);
		fleet_free(g);
	} else {
		read_text(data, size, true, r, NULL, &err);
	}
	if (r < 0) {
		check_refused(f, r, &err);
	} else {
		/* the same report again, as a second shard: counted twice, with a note */
		if (fleet_add(f, "fuzz-again", doc, &err) < 0) {
			fprintf(stderr, "a report read once is refused the second time: %s\n",
				err.msg);
			abort();
		}
		free(finished_json(f));
		(void)fleet_drift(f);
		write_all(f);
	}
	fleet_free(f);
	json_object_put(doc);
	return 0;
}
