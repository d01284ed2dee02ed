/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz the learn-record reader (read by explain and audit). */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "error.h"
#include "fuzz.h"
#include "observed.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct learn_record *r = NULL, *again = NULL;
	struct s2c_error err = { 0 };
	struct json_object *o, *o2;
	const char *text;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	if (learn_record_parse((const char *)data, size, "fuzz", &r, &err) < 0) {
		if (!err.msg[0] && err.code != 0)
			abort();
		return 0;
	}
	/* What loads is written back and reads the same. */
	o = learn_record_json(r);
	if (!o)
		abort();
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (learn_record_parse(text, strlen(text), "fuzz", &again, &err) < 0)
		abort();
	o2 = learn_record_json(again);
	if (!o2 || strcmp(text, json_object_to_json_string_ext(o2, JSON_C_TO_STRING_PLAIN)) != 0)
		abort();
	json_object_put(o2);
	json_object_put(o);
	learn_record_free(again);
	learn_record_free(r);
	return 0;
}
