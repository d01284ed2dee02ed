/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A suite that fails on purpose, after making a tree with a set-ID file:
 * tempdirs.sh runs it to prove that s2c-unit removes the trees of failed
 * tests.  Not one of the suites CTest runs as unit.*.
 */
#include <stdlib.h>
#include <check.h>

#include "fixture.h"
#include "suites.h"

START_TEST(test_fails_with_a_tree)
{
	char *root = fx_tempdir();

	fx_file(root, "usr/bin/left-behind", 04755, "#!/bin/sh\n");
	ck_abort_msg("fails on purpose, leaving %s to the runner", root);
}
END_TEST

Suite *harness_fail_suite(void)
{
	Suite *s = suite_create("harness_fail");
	TCase *tc = tcase_create("harness_fail");

	tcase_add_test(tc, test_fails_with_a_tree);
	suite_add_tcase(s, tc);
	return s;
}
