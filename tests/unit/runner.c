/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit-test runner: `s2c-unit SUITE` runs one Check suite (CTest runs each
 * as its own test).  A suite that needs a capability the runner lacks exits
 * 77, which CTest reports as skipped; CI runs as root and runs them all.
 *
 * The suite's temporary trees go into a directory of its own, removed when
 * the suite ends, whatever became of its tests: a test that fails in its
 * forked child never reaches its teardown, and its tree (set-ID files
 * included) would otherwise stay behind in $TMPDIR.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
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
	{ "harness_fail", harness_fail_suite, -1 },    /* fails on purpose: tempdirs.sh */
};

/* Run @s with $TMPDIR a new directory, removed afterwards.  Returns the failures. */
static int run_suite(Suite *s)
{
	const char *tmp = getenv("TMPDIR");
	char *outer = tmp && *tmp ? strdup(tmp) : NULL;
	char *dir = NULL;
	SRunner *sr;
	int failed;

	/* Resolved, as fx_tempdir()'s are; as traversable as $TMPDIR itself, for
	 * the tests that drop to nobody. */
	if (asprintf(&dir, "%s/s2c-unit-XXXXXX", outer ? outer : "/tmp") < 0 || !mkdtemp(dir) ||
	    chmod(dir, 0755) < 0 || setenv("TMPDIR", dir, 1) < 0) {
		perror(dir ? dir : "s2c-unit");
		exit(2);
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	fx_rmrf(dir);
	if (outer)
		setenv("TMPDIR", outer, 1);
	else
		unsetenv("TMPDIR");
	free(outer);
	free(dir);
	return failed;
}

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
		if (strcmp(suites[i].name, argv[1]) != 0)
			continue;
		if (suites[i].need_cap >= 0 && !fx_have_cap(suites[i].need_cap)) {
			char *name = cap_to_name(suites[i].need_cap);
			printf("%s: skipped, needs %s\n", argv[1], name ? name : "a capability");
			cap_free(name);
			return 77;
		}
		return run_suite(suites[i].make()) ? 1 : 0;
	}
	fprintf(stderr, "%s: unknown suite '%s'\n", argv[0], argv[1]);
	return 2;
}
