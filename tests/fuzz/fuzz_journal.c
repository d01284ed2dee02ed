/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the journal reader: any bytes must parse or be refused with a message,
 * never crash; whatever parses must be consistent.
 */
#include <stdlib.h>

#include "error.h"
#include "fuzz.h"
#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal *j = NULL;
	struct s2c_error err = { 0 };

	if (size > FUZZ_MAX_INPUT)
		return 0;
	if (journal_parse((const char *)data, size, "fuzz", &j, &err) < 0) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	for (size_t i = 0; i < j->n; i++)
		if (j->v[i].seq != i + 1 || !j->v[i].path || j->v[i].path[0] != '/' ||
		    (j->v[i].undone && !j->v[i].undo_started))
			abort();
	journal_free(j);
	return 0;
}
