/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the maintainer-script analysis: the shell parser and the symbolic
 * evaluator.  Any text is analysed or becomes a note; every action found has
 * an absolute, normalised path, a known kind and scenario, and applying it
 * to a file state never fails in a way chmod would not.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "maintscript.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const args[] = { "configure", "" };
	const struct ms_context ctx = { .args = args, .n_args = 2, .arch = "amd64",
					.package = "s2c-fuzz", .stagefd = -1 };
	struct ms_analysis a = { 0 };

	if (size > FUZZ_MAX_INPUT)
		return 0;
	if (maintscript_analyse("postinst", (const char *)data, size, &ctx, &a) < 0)
		abort();
	for (size_t i = 0; i < a.n; i++) {
		const struct ms_action *x = &a.v[i];
		struct ms_state st = { .mode = 0755, .owner = "root", .group = "root" };
		if (x->kind >= _MS_KIND_MAX || x->when >= _MS_WHEN_MAX || !x->path ||
		    x->path[0] != '/' || strstr(x->path, "/../") || !x->command || !x->script)
			abort();
		if (x->seq[MS_SCENARIO_WORKS] == SIZE_MAX && x->seq[MS_SCENARIO_FAILS] == SIZE_MAX)
			abort();
		(void)ms_apply(x, false, &st);
		if (st.mode & ~07777u)
			abort();
	}
	for (size_t i = 0; i < a.n_incomplete; i++)
		if (!a.incomplete[i] || !a.incomplete[i][0])
			abort();
	ms_analysis_release(&a);
	return 0;
}
