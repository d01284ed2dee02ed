/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Renderers for `suid2cap scan`: an aligned text table and a JSON document.
 */
#ifndef S2C_REPORT_SCANOUT_H
#define S2C_REPORT_SCANOUT_H

#include <stdbool.h>
#include <stdio.h>

struct json_object;
struct scan_result;
struct skip_entry;

/** Version of the scan JSON document ("schema" key). */
#define SCANOUT_SCHEMA 1

/** Text table options. */
struct scanout_text_options {
	unsigned width;     /**< columns the table may take (at least SCANOUT_MIN_WIDTH), 0: no limit */
	bool quiet;         /**< the table alone: no lines about what was not scanned, no summary */
};

/** The narrowest layout: a smaller width is taken as this one. */
#define SCANOUT_MIN_WIDTH 40u

/**
 * Write the text table: MODE, OWNER, GROUP, CAPABILITIES, FLAGS, PATH, then a
 * summary line; before them, the lines of scanout_skipped_line() for what was
 * not scanned.  File names are escaped (escape_text()) so no name can forge
 * a line or send terminal controls.
 *
 * When a row would not fit in @o->width, the table is laid out for a narrow
 * terminal: PATH first, then MODE, OWNER:GROUP, CAPABILITIES and FLAGS; FLAGS
 * leave the table first, then the path column narrows, then CAPABILITIES
 * leave it; what left it is shown on "label: value" lines under the row (the
 * capabilities unless "-", the flags when the row has one beyond set-ID and
 * capabilities, which the other columns show).  A path is never cut: one
 * wider than its column takes a line of its own and the cells follow on the
 * next.  With a width, the summary line is wrapped between words too, the
 * rest of it indented by two spaces.  @o may be NULL (no limit, not quiet).
 * Returns 0 or -EIO/-ENOMEM.
 */
int scanout_text(const struct scan_result *r, const struct scanout_text_options *o, FILE *out);

/**
 * Write the JSON document: {"schema", "tool", "root", "complete", "stats",
 * "not_scanned": [...], "files": [...]}.  Returns 0 or -EIO/-ENOMEM.
 */
int scanout_json(const struct scan_result *r, FILE *out);

/**
 * One line (no newline) listing the entries of @v (@n, sorted) that are other
 * roots when @other_roots, else the excluded ones:
 * "other roots (not scanned; audit them with --root): /var/lib/docker
 * (container storage), /srv/bookworm (OS root)" or "excluded (not scanned):
 * /srv/data".  Paths are escaped with escape_text().
 * Returns a new string, NULL with @ret_none set when there is none of that
 * kind, or NULL on OOM.
 */
char *scanout_skipped_line(const struct skip_entry *v, size_t n, bool other_roots, bool *ret_none);

/**
 * Write both lines of scanout_skipped_line() that have entries, each with
 * @prefix before it and a newline after it.  Returns 0 or -ENOMEM.
 */
int scanout_skipped_text(const struct skip_entry *v, size_t n, const char *prefix, FILE *out);

#endif /* S2C_REPORT_SCANOUT_H */
