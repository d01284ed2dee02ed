/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit-test runner: `s2c-unit SUITE` runs one Check suite (CTest runs each
 * as its own test).  A suite that needs a capability the runner lacks exits
 * 77, which CTest reports as skipped; CI runs as root and runs them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <check.h>

#include "fixture.h"
#include "suites.h"

static const struct {
	const char *name;
	Suite *(*make)(void);
	int need_cap;   /* -1: none */
} suites[] = {
	{ "util", util_suite, -1 },
	{ "fcaps", fcaps_suite, -1 },
	{ "fcaps_priv", fcaps_priv_suite, CAP_SETFCAP },
	{ "mounts", mounts_suite, -1 },
	{ "resolve", resolve_suite, -1 },
	{ "walk", walk_suite, -1 },
	{ "walk_priv", walk_priv_suite, CAP_SYS_ADMIN },
	{ "scanout", scanout_suite, -1 },
	{ "elfinfo", elfinfo_suite, -1 },
	{ "rules", rules_suite, -1 },
	{ "engine", engine_suite, -1 },
	{ "decide_priv", decide_priv_suite, CAP_SETFCAP },
	{ "journal", journal_suite, -1 },
	{ "fileop", fileop_suite, CAP_SETFCAP },
	{ "plan", plan_suite, -1 },
	{ "plan_priv", plan_priv_suite, CAP_SETFCAP },
	{ "privcheck", privcheck_suite, -1 },
	{ "pkgdb", pkgdb_suite, -1 },
	{ "learnrec", learnrec_suite, -1 },
	{ "resultjson", resultjson_suite, -1 },
	{ "pkg", pkg_suite, -1 },
	{ "pkgindex", pkgindex_suite, -1 },
	{ "shparse", shparse_suite, -1 },
	{ "mscommand", mscommand_suite, -1 },
	{ "msread", msread_suite, -1 },
	{ "msgrep", msgrep_suite, -1 },
	{ "rpmlua", rpmlua_suite, -1 },
	{ "override", override_suite, -1 },
	{ "waiver", waiver_suite, -1 },
	{ "verify", verify_suite, -1 },
};

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SUITE\nsuites:", argv[0]);
		for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
			fprintf(stderr, " %s", suites[i].name);
		fputc('\n', stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		SRunner *sr;
		int failed;

		if (strcmp(suites[i].name, argv[1]) != 0)
			continue;
		if (suites[i].need_cap >= 0 && !fx_have_cap(suites[i].need_cap)) {
			char *name = cap_to_name(suites[i].need_cap);
			printf("%s: skipped, needs %s\n", argv[1], name ? name : "a capability");
			cap_free(name);
			return 77;
		}
		sr = srunner_create(suites[i].make());
		srunner_run_all(sr, CK_NORMAL);
		failed = srunner_ntests_failed(sr);
		srunner_free(sr);
		return failed ? 1 : 0;
	}
	fprintf(stderr, "%s: unknown suite '%s'\n", argv[0], argv[1]);
	return 2;
}
