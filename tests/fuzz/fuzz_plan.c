/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the strict plan loader: any bytes must load or be refused with a
 * message.  Whatever loads must survive plan_to_json() and load again to the
 * same document, and every emitter must write it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "emit.h"
#include "error.h"
#include "fuzz.h"
#include "jsonread.h"
#include "plan.h"
#include "planload.h"

/* Serialise @p; abort on OOM (a fuzzer does not run out). */
static char *text_of(const struct plan *p)
{
	struct json_object *o = plan_to_json(p);
	char *s;

	if (!o)
		abort();
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	if (!s)
		abort();
	return s;
}

static void round_trip(const struct plan *p)
{
	char *a = text_of(p), *b;
	struct json_object *doc = NULL;
	struct plan *q = NULL;
	struct s2c_error err = { 0 };

	if (jsonread_parse_mem(a, strlen(a), "again", &doc, &err) < 0 ||
	    plan_from_json(doc, "again", &q, &err) < 0) {
		fprintf(stderr, "written plan does not load: %s\n", err.msg);
		abort();
	}
	b = text_of(q);
	if (strcmp(a, b) != 0)
		abort();
	free(a);
	free(b);
	plan_free(q);
	json_object_put(doc);
}

static void emit_all(const struct plan *p)
{
	for (int f = 0; f < _EMIT_MAX; f++) {
		char *buf = NULL;
		size_t size = 0;
		FILE *out = open_memstream(&buf, &size);

		if (!out)
			abort();
		if (emit_plan(p, f, NULL, out) < 0)
			abort();
		fclose(out);
		free(buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *doc = NULL;
	struct plan *p = NULL;
	struct jcheck_problems problems = { 0 };
	struct s2c_error err = { 0 };
	int r;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	if (jsonread_parse_mem((const char *)data, size, "fuzz", &doc, &err) < 0) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	r = plan_from_json_all(doc, "fuzz", &p, &problems, &err);
	if (r < 0 && (!err.msg[0] || !problems.n))
		abort();                /* every refusal says why */
	if (r == 0) {
		round_trip(p);
		emit_all(p);
	}
	jcheck_problems_release(&problems);
	plan_free(p);
	json_object_put(doc);
	return 0;
}
