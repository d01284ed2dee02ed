/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The head of the text audit report (report/audittext.h): the title naming
 * the root or target, when and by whom it was audited; where owners and
 * versions came from, the bounding set and ping_group_range; the rules
 * database and its local layers; what was not scanned or read; and the
 * summary of verdicts, risks, findings and waivers.
 */
#ifndef S2C_REPORT_AUDITHEAD_H
#define S2C_REPORT_AUDITHEAD_H

#include <stdio.h>

struct audit;
struct audit_summary;
struct audittext_options;

/** Write the head of @a's report with its summary @s to @out.  Returns 0 or -ENOMEM. */
int audithead_write(const struct audit *a, const struct audit_summary *s,
		    const struct audittext_options *o, FILE *out);

#endif /* S2C_REPORT_AUDITHEAD_H */
