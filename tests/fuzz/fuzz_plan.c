/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the strict plan loader: any bytes must load or be refused with a
 * message.  Whatever loads must survive plan_to_json() and load again to the
 * same document, and every emitter must write it.  The loader of files, which
 * reads the entries as the parser meets them, must agree with the loader of
 * whole documents: the same refusals, the same problems in the same order,
 * the same plan.
 */
#include <stdbool.h>
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

static bool same_problems(const struct jcheck_problems *a, const struct jcheck_problems *b)
{
	if (a->n != b->n || a->dropped != b->dropped)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].file, b->v[i].file) != 0 ||
		    strcmp(a->v[i].message, b->v[i].message) != 0 ||
		    !a->v[i].path != !b->v[i].path ||
		    (a->v[i].path && strcmp(a->v[i].path, b->v[i].path) != 0))
			return false;
	return true;
}

/* The streaming loader on the same bytes: refuses what the whole parser refuses,
 * and otherwise says exactly what plan_from_json_all() said. */
static void streamed(const uint8_t *data, size_t size, bool parsed, int want,
		     const struct plan *want_plan, const struct jcheck_problems *want_problems)
{
	struct jcheck_problems problems = { 0 };
	struct s2c_error err = { 0 };
	struct plan *p = NULL;
	int r = plan_from_mem_all((const char *)data, size, "fuzz", &p, &problems, &err);

	if (r < 0 && (!err.msg[0] || !problems.n))
		abort();
	if (!parsed && r == 0)
		abort();                /* the whole parser refused it */
	if (parsed && ((r < 0) != (want < 0) || !same_problems(&problems, want_problems)))
		abort();
	if (parsed && r == 0) {
		char *a = text_of(p), *b = text_of(want_plan);
		if (strcmp(a, b) != 0)
			abort();
		free(a);
		free(b);
	}
	jcheck_problems_release(&problems);
	plan_free(p);
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
		streamed(data, size, false, -1, NULL, NULL);
		return 0;
	}
	r = plan_from_json_all(doc, "fuzz", &p, &problems, &err);
	if (r < 0 && (!err.msg[0] || !problems.n))
		abort();                /* every refusal says why */
	streamed(data, size, true, r, p, &problems);
	if (r == 0) {
		round_trip(p);
		emit_all(p);
	}
	jcheck_problems_release(&problems);
	plan_free(p);
	json_object_put(doc);
	return 0;
}
