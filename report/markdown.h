/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audit report as Markdown (CommonMark with GitHub tables): the summary,
 * one table per verdict, then a section per file with its evidence,
 * conditions, warnings and sources.
 *
 * Every name and text from the scanned system is untrusted.  It is first made
 * printable with escape_text() (controls, line breaks and invalid UTF-8 become
 * visible "\n" or "\xNN", bidi and other format controls "\u{202e}"), then
 * the characters that can start Markdown syntax are backslash-escaped and
 * "<", ">" and "&" become character references, so no emphasis, link,
 * heading, HTML tag or table cell boundary in a file name takes effect.
 */
#ifndef S2C_REPORT_MARKDOWN_H
#define S2C_REPORT_MARKDOWN_H

#include <stdio.h>

struct audit;

/**
 * Write the Markdown report of @a to @out (borrowed; not closed).
 * Returns 0, -ENOMEM, or -EIO when @out reports an error.
 */
int markdown_audit(const struct audit *a, FILE *out);

/**
 * Write @s to @out escaped for Markdown inline text as described above; the
 * result is safe inside a table cell.  Returns 0 or -ENOMEM.
 */
int markdown_escape(FILE *out, const char *s);

#endif /* S2C_REPORT_MARKDOWN_H */
