/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One candidate's facts as JSON: the same object in scan, audit, explain and
 * plan, so the same file reads the same everywhere.
 */
#ifndef S2C_REPORT_FACTSJSON_H
#define S2C_REPORT_FACTSJSON_H

struct facts;
struct json_object;

/**
 * The JSON object describing @f (path, ids, names, mode, size, mtime,
 * identity, capabilities, mount, flags).  Paths that are not valid UTF-8 come
 * with their exact bytes in "path_hex" (common/jsonout.h).
 * Returns a new object (json_object_put() it) or NULL on OOM.
 */
struct json_object *factsjson_new(const struct facts *f);

#endif /* S2C_REPORT_FACTSJSON_H */
