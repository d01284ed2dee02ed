/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audit report as SARIF 2.1.0, for code-scanning dashboards.
 *
 * One run; one reportingDescriptor per finding kind of audit.h, with its
 * stable id (S2C001…), descriptions, default level and "security-severity";
 * one result per finding of each file.  Locations are relative URIs
 * (percent-encoded bytes of the path without its leading "/") against the
 * uriBaseId "ROOT", which originalUriBaseIds maps to the scanned root as a
 * file: URI, so a live host and an image of it give the same URIs.  Each
 * result has region.startLine 1 (binary files have no lines, but consumers
 * need one), a level from the file's risk, partialFingerprints from the rule
 * id and path (stable across runs and binary updates), and properties with
 * mode, owner, capabilities now and after, rule and package (exact data, as
 * in the JSON report).  Message texts are for people: escaped with
 * escape_text() (controls, bidi and other format controls, invalid UTF-8 made
 * visible), with "{" and "}" doubled.  The invocation's
 * executionSuccessful is false when the scan was incomplete.
 */
#ifndef S2C_REPORT_SARIF_H
#define S2C_REPORT_SARIF_H

#include <stdio.h>

struct audit;

/** Value of the "$schema" key. */
#define SARIF_SCHEMA_URI \
	"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

/**
 * Write the SARIF log of @a to @out (borrowed; not closed), pretty-printed, one
 * result at a time: the memory of the largest result, not of all of them.
 * Returns 0, -ENOMEM, -E2BIG or -EIO.
 */
int sarif_audit(const struct audit *a, FILE *out);

/**
 * Percent-encode @path (any bytes) for a URI path: unreserved characters and
 * "/" stay, every other byte becomes %XX (uppercase hex).
 * Returns a new string (free() it) or NULL on OOM.
 */
char *sarif_uri_encode(const char *path);

#endif /* S2C_REPORT_SARIF_H */
