/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audit page's sections shared between report/html.c (summary, table,
 * waivers) and report/htmldetail.c (the detail of each program).
 *
 * Internal: html htmldetail.
 */
#ifndef S2C_REPORT_HTMLDETAIL_H
#define S2C_REPORT_HTMLDETAIL_H

#include <stdio.h>

#include "audit.h"

struct decision;

/**
 * The "Details" section of @a's page: one <details> element per program, to
 * @out (borrowed).  Returns 0 or -ENOMEM.
 */
int htmldetail_write(const struct audit *a, FILE *out);

/** The CSS class of @st: its name, "done" for nothing to change (a class has no spaces). */
const char *html_state_class(enum audit_state st);

/** The finding IDs of @d (waived ones marked) as <code> elements, to @out. */
void html_finding_ids(const struct audit *a, const struct decision *d, FILE *out);

#endif /* S2C_REPORT_HTMLDETAIL_H */
