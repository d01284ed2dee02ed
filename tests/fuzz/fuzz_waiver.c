/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the waivers file parser: any bytes must parse or be refused with a
 * message naming the file and line, leaving the list as it was; whatever
 * parses must have what every report relies on (a known finding, a valid
 * glob, a non-empty reason, a well-formed expiry, a source).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "error.h"
#include "fuzz.h"
#include "glob.h"
#include "waiver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct waiver_list l = { 0 };
	struct s2c_error err = { 0 };
	int r;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	r = waiver_parse(&l, (const char *)data, size, "fuzz", &err);
	if (r < 0) {
		if (r != -EINVAL || strncmp(err.msg, "'fuzz' line ", 12) != 0 || l.n || l.v)
			abort();        /* a refusal names the line and adds nothing */
		waiver_list_release(&l);        /* the problems it names */
		return 0;
	}
	for (size_t i = 0; i < l.n; i++) {
		const struct waiver *w = &l.v[i];
		if (w->finding >= _AUDIT_FINDING_MAX || glob_invalid(w->pattern) || !w->reason[0] ||
		    strncmp(w->source, "fuzz line ", 10) != 0)
			abort();
		if (w->expires[0] && (strlen(w->expires) != 10 || w->expires[4] != '-'))
			abort();
		(void)waiver_matches(w, w->finding, "/usr/bin/su");
		(void)waiver_expired(w, "2026-12-03");
		free(audit_waiver_text(w));
	}
	waiver_list_release(&l);
	return 0;
}
