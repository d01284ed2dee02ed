/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Renderers for `suid2cap scan`: an aligned text table and a JSON document.
 */
#ifndef S2C_REPORT_SCANOUT_H
#define S2C_REPORT_SCANOUT_H

#include <stdbool.h>
#include <stdio.h>

struct scan_result;

/** Version of the scan JSON document ("schema" key). */
#define SCANOUT_SCHEMA 1

/**
 * Write the text table: MODE, OWNER, GROUP, CAPABILITIES, FLAGS, PATH, then a
 * summary line.  File names are escaped (escape_text()) so no name can forge
 * a line or send terminal controls.
 * Returns 0 or -EIO/-ENOMEM.
 */
int scanout_text(const struct scan_result *r, FILE *out);

/**
 * Write the JSON document: {"schema", "tool", "root", "complete", "stats",
 * "files": [...]}.  Returns 0 or -EIO/-ENOMEM.
 */
int scanout_json(const struct scan_result *r, FILE *out);

#endif /* S2C_REPORT_SCANOUT_H */
