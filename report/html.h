/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audit report as one self-contained HTML page: summary, an inline SVG bar
 * chart of verdicts and risk, a table sortable by clicking its headers (a few
 * lines of inline script; without script it is a plain table), and a
 * <details> section per file with evidence, conditions, warnings and sources.
 *
 * The page loads nothing: no external style, script, font or image.  A
 * Content-Security-Policy meta element forbids every fetch ("default-src
 * 'none'") and allows only the page's own inline style and script, by their
 * SHA-256, so even markup injected through a name could not run script.
 *
 * Every text from the scanned system is escaped: invalid UTF-8 becomes U+FFFD,
 * control characters become visible escapes ("\n", "\x1b"), bidi and other
 * format controls too ("\u{202e}", see unicode_is_format_control()), and "&",
 * "<", ">", '"' and "'" become character references, in text and in attribute
 * values.
 * Links are made only from rule sources that are https URLs.
 */
#ifndef S2C_REPORT_HTML_H
#define S2C_REPORT_HTML_H

#include <stdio.h>

struct audit;

/**
 * Write the HTML page of @a to @out (borrowed; not closed).
 * Returns 0, -ENOMEM, or -EIO when @out reports an error.
 */
int html_audit(const struct audit *a, FILE *out);

/**
 * Write @s to @out escaped for HTML text or a quoted attribute value, as
 * described above.  Returns 0 or -ENOMEM.
 */
int html_escape(FILE *out, const char *s);

/**
 * "'sha256-<base64>'" of the inline text @s, for a Content-Security-Policy
 * that allows exactly that style or script.  @size at least 56.
 * Returns 0, -ENOMEM or -ENOBUFS.
 */
int html_csp_hash(const char *s, char *buf, size_t size);

#endif /* S2C_REPORT_HTML_H */
