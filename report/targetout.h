/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The parts of an audit report that only packages and images have: where
 * each file comes from (package, version, architecture, the layer that added
 * it, the state as packed and what the maintainer scripts change), and one
 * section per package or image with its errors, notes and the packaging
 * snippet that makes the migration durable.  Also the identity of an audit
 * (host name, hashed machine id, time, tool version), which every report
 * carries so that `report merge` can tell reports apart.
 *
 * Every renderer (audittext, auditjson, markdown, html, sarif) takes the content from
 * here, so the formats say the same; each escapes it for itself.
 */
#ifndef S2C_REPORT_TARGETOUT_H
#define S2C_REPORT_TARGETOUT_H

#include <stddef.h>
#include <stdio.h>

struct audit;
struct audit_origin;
struct audit_target;
struct json_object;

/** The target of a file that comes from @o (audit_cursor::origin), or NULL (in an audit of a tree). */
const struct audit_target *targetout_of(const struct audit *a, const struct audit_origin *o);

/** One line about where a file comes from: a label and its text (unescaped). */
struct targetout_line {
	const char *label;          /**< static: "package", "image", "layer", "packed", …  */
	char *text;                 /**< owned */
};

/**
 * The origin lines of a file that comes from @o: "package: NAME VERSION ARCH (SOURCE)" or
 * "image: NAME", "layer: N DIGEST (CREATED_BY)", "packed: MODE OWNER:GROUP",
 * "installed: SCRIPT:LINE [when]: COMMAND" per action, "fallback: …".
 * Returns 0 with @ret_n lines in @ret (none for a tree audit; free with
 * targetout_lines_free()), or -ENOMEM.
 */
int targetout_lines(const struct audit *a, const struct audit_origin *o, struct targetout_line **ret,
		    size_t *ret_n);

/** Free lines from targetout_lines(). */
void targetout_lines_free(struct targetout_line *v, size_t n);

/**
 * "package" or "packages", "image" or "images", for @a's targets: packages when
 * there are none (a package run that found nothing); NULL for a tree.
 */
const char *targetout_noun(const struct audit *a, size_t n);

/**
 * Why an audit of targets is incomplete, in one sentence without a final
 * period: "1 package could not be read, the audit of 2 packages is
 * incomplete", with ", allowed by the user with --allow-incomplete (...)"
 * after the second part when a->incomplete_allowed.  NULL when @a has no targets or is complete; a new string,
 * or NULL on OOM (check @a->complete first).
 */
char *targetout_incomplete(const struct audit *a);

/**
 * The targets as text: one line per package or image with its privileged
 * files, then its error or notes and, where something would change, the
 * snippet (a Debian postinst, rpm %files lines, a Dockerfile RUN line),
 * indented.  Every text goes through escape_text().  Returns 0, -ENOMEM.
 */
int targetout_text(const struct audit *a, FILE *out);

/** The same as a Markdown section ("## Packages"). */
int targetout_markdown(const struct audit *a, FILE *out);

/** The same as an HTML section. */
int targetout_html(const struct audit *a, FILE *out);

/** The "targets" array of the JSON document.  NULL on OOM. */
struct json_object *targetout_json_targets(const struct audit *a);

/** The "origin" object of a file that comes from @o.  NULL on OOM. */
struct json_object *targetout_json_origin(const struct audit *a, const struct audit_origin *o);

/** The "target" object: the identity of the audit.  NULL on OOM. */
struct json_object *targetout_json_identity(const struct audit *a);

#endif /* S2C_REPORT_TARGETOUT_H */
