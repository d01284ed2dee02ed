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

/** Reasons are wrapped at this many columns when the width is not limited. */
#define AUDITTEXT_WRAP 100u

/** The narrowest layout: a smaller width is taken as this one. */
#define AUDITTEXT_MIN_WIDTH 40u

/** Text rendering options. */
struct audittext_options {
	unsigned width;             /**< columns the report may take (at least AUDITTEXT_MIN_WIDTH),
				         or 0 for no limit: the tables as wide as their cells,
				         reasons wrapped at AUDITTEXT_WRAP */
	bool color;                 /**< ANSI colours for headings, verdicts and risks */
	bool quiet;                 /**< only the summary line and the problems (see below) */
};

/**
 * Write the text report to @out: a header naming the root, host and database
 * and listing what the scan left out (other roots, excluded paths);
 * the summary (counts by verdict and by risk, setuid in disguise, changes);
 * then one table per verdict (migrate, drop, review, keep) whose rows give
 * path, owner:group, mode now -> after, risk now -> after, the rule id and
 * capabilities now -> after, each followed by its reason wrapped to the width,
 * its warnings and, for a file with a learn record, what was observed.
 *
 * When a row would not fit in @o->width, the table drops columns, the less
 * important first (rule, owner:group, then capabilities), and each row shows
 * what they held on "label: value" lines of its own (none for "-"); the path
 * column narrows too.  A path is never cut: one wider than its column takes a
 * line of its own and the cells follow on the next.  A verdict's heading longer
 * than the width (or AUDITTEXT_WRAP) is wrapped between words.
 *
 * With @o->quiet, only one summary line ("suid2cap audit of ROOT: N privileged
 * files: ..."), the INCOMPLETE line when parts could not be read, and the
 * problems: each file with a finding that asks for a person (S2C004 review,
 * S2C005 setuid in disguise, S2C006 dangerous capabilities, S2C007 likely to
 * break, S2C008 writable), its path on a line and each such finding's id and
 * title on the lines below.  Every name and text goes through escape_text().
 * Returns 0, -ENOMEM, or -EIO when @out reports an error.
 */
int audittext_write(const struct audit *a, const struct audittext_options *o, FILE *out);

#endif /* S2C_REPORT_AUDITTEXT_H */
