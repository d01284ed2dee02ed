/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every Check suite of the unit-test runner. */
#ifndef S2C_TESTS_SUITES_H
#define S2C_TESTS_SUITES_H

#include <check.h>

Suite *util_suite(void);
Suite *fcaps_suite(void);
Suite *fcaps_priv_suite(void);
Suite *mounts_suite(void);
Suite *resolve_suite(void);
Suite *walk_suite(void);
Suite *walk_priv_suite(void);
Suite *scanout_suite(void);
Suite *elfinfo_suite(void);
Suite *rules_suite(void);
Suite *engine_suite(void);
Suite *decide_priv_suite(void);
Suite *journal_suite(void);
Suite *fileop_suite(void);
Suite *plan_suite(void);
Suite *plan_priv_suite(void);
Suite *privcheck_suite(void);
Suite *pkgdb_suite(void);
Suite *learnrec_suite(void);
Suite *resultjson_suite(void);
Suite *pkg_suite(void);
Suite *pkgindex_suite(void);
Suite *shparse_suite(void);
Suite *mscommand_suite(void);
Suite *msread_suite(void);
Suite *msgrep_suite(void);
Suite *override_suite(void);
Suite *waiver_suite(void);
Suite *rpmlua_suite(void);
Suite *verify_suite(void);
Suite *harness_fail_suite(void);

#endif
