/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz the state-file reader (state.json, read by verify). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fuzz.h"
#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct state *s = NULL;
	struct s2c_error err = { 0 };

	if (size > FUZZ_MAX_INPUT)
		return 0;
	if (state_parse((const char *)data, size, "fuzz", &s, &err) < 0) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	for (size_t i = 0; i < s->n; i++)
		if (!s->v[i].path || s->v[i].path[0] != '/' || strlen(s->v[i].left.sha256) != 64 ||
		    (i && strcmp(s->v[i - 1].path, s->v[i].path) >= 0))
			abort();
	state_free(s);
	return 0;
}
