/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text audit report, for a terminal or a log: header, summary, then one
 * table per verdict built from the rows of the audit model (audit.h), each
 * row followed by its reason and warnings, wrapped.  Every name and text goes
 * through escape_text().
 */
#ifndef S2C_REPORT_AUDITTEXT_H
#define S2C_REPORT_AUDITTEXT_H

#include <stdbool.h>
#include <stdio.h>

struct audit;

/** Text rendering options. */
struct audittext_options {
	unsigned width;             /**< wrap reasons to this many columns (at least 40) */
	bool color;                 /**< ANSI colours for headings, verdicts and risks */
};

/**
 * Write the text report to @out: a header naming the root, host and database
 * and listing what the scan left out (other roots, excluded paths);
 * the summary (counts by verdict and by risk, setuid in disguise, changes);
 * then one table per verdict (migrate, drop, review, keep) whose rows give
 * path, owner:group, mode now -> after, capabilities now -> after, risk now ->
 * after and the rule id, each followed by its reason wrapped to @o->width, its
 * warnings and, for a file with a learn record, what was observed.  Every name
 * and text goes through escape_text().
 * Returns 0, -ENOMEM, or -EIO when @out reports an error.
 */
int audittext_write(const struct audit *a, const struct audittext_options *o, FILE *out);

#endif /* S2C_REPORT_AUDITTEXT_H */
