/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audit report as a JSON document (docs/schema/audit.schema.json), and
 * the header objects (host, paths, database) the SARIF log shares.
 */
#ifndef S2C_REPORT_AUDITJSON_H
#define S2C_REPORT_AUDITJSON_H

#include <stdio.h>

struct audit;
struct json_object;
struct rules_db;

/**
 * The "host" object of the JSON document: live, kernel, kernel_version,
 * os_id, os, ping_group_range, package_database.  Returns a new object or NULL.
 */
struct json_object *auditjson_host(const struct audit *a);

/** The "paths" array: the start paths, or ["/"] for the whole root.  NULL on OOM. */
struct json_object *auditjson_paths(const struct audit *a);

/**
 * Why the audit is incomplete, for the run: one object per target that could
 * not be read or whose audit is incomplete ({"target": its index, "source",
 * "name", "reasons"}), or for a tree one with "target" null and the parts the
 * scan could not read; an empty array when the audit is complete.  NULL on OOM.
 */
struct json_object *auditjson_incomplete(const struct audit *a);

/**
 * The "database" object: hash, number of rules, base names of the files
 * loaded (directories differ between machines).  Returns a new object or NULL.
 */
struct json_object *auditjson_database(const struct rules_db *db);

struct waiver;

/**
 * One waiver as JSON: finding, path, reason, expires (or null), source, and
 * with @a also its status and the number of findings it names.  NULL on OOM
 * or when the files could not be read.
 */
struct json_object *auditjson_waiver(const struct audit *a, const struct waiver *w);

/** The "waivers" array: every waiver of @a with its status.  NULL on error. */
struct json_object *auditjson_waivers(const struct audit *a);

/**
 * Write the JSON document of the audit to @out: {"schema", "kind":
 * "suid2cap-audit", "tool", "root", "paths", "host", "database", "complete",
 * "scan", "not_scanned" (what the scan left out), "summary", "findings" (the
 * finding kinds), "files": [decisionout_json() plus "findings": [ids] and,
 * for a file with a learn record, "learned": learnout_evidence_json()]}, as
 * docs/schema/audit.schema.json describes.  Deterministic: no time stamps,
 * files in path order.  Pretty-printed, one file at a time
 * (jsonout_write_array()), so that the document is never whole in memory.
 * Returns 0, -ENOMEM, -EIO, or -errno of reading the files.
 */
int auditjson_write(const struct audit *a, FILE *out);

#endif /* S2C_REPORT_AUDITJSON_H */
