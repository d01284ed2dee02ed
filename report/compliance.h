/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The controls auditors are asked about, for each finding of the audit: the
 * benchmark's own id and version, its title, and the source the mapping was
 * taken from.  One table (report/compliance.c), read by the JSON, Markdown,
 * HTML and SARIF reports.
 *
 * Only controls that exist and could be checked are listed: the CIS
 * distribution benchmarks' review of set-user-ID and set-group-ID files and
 * of world-writable files, the CIS Docker Benchmark's removal of set-ID bits
 * from images, and the DISA UNIX STIG rules that set-ID files be documented.
 * No id is made up; a finding with no such control (S2C006, S2C007) maps to
 * none.
 */
#ifndef S2C_REPORT_COMPLIANCE_H
#define S2C_REPORT_COMPLIANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct audit;
struct host;
struct json_object;

/** A benchmark, at the version its control ids belong to. */
struct compliance_benchmark {
	const char *name;           /**< "CIS Debian Linux 12 Benchmark" */
	const char *short_name;     /**< "CIS Debian 12" (SARIF taxonomy name) */
	const char *version;        /**< "1.1.0", "V1R18" */
	const char *os_id;          /**< os-release ID it is written for ("debian"), or NULL
				         for any system */
	bool image;                 /**< for container images only */
};

/** One control of a benchmark and the findings it concerns. */
struct compliance_control {
	const struct compliance_benchmark *benchmark;
	const char *id;             /**< the benchmark's own id: "7.1.13", "GEN002380" */
	const char *title;          /**< as the benchmark words it */
	const char *source;         /**< where the id, title and version were checked (URL) */
	unsigned findings;          /**< bit k: finding k (enum audit_finding) concerns it */
};

/** Every control of the table, in order; @ret_n gets how many.  Static storage. */
const struct compliance_control *compliance_controls(size_t *ret_n);

/**
 * Whether @c applies to an audit of @h (NULL: unknown) that is an image when
 * @image: a benchmark for one distribution only when the target is that
 * distribution (its os-release ID, else one of its ID_LIKE) or when the
 * target's distribution is unknown; an image benchmark only for images.
 */
bool compliance_applies(const struct compliance_control *c, const struct host *h, bool image);

/** compliance_applies() for the target of audit @a (an image when its targets are). */
bool compliance_for(const struct compliance_control *c, const struct audit *a);

/** Most controls the table holds. */
#define COMPLIANCE_MAX 32

/**
 * The controls of the table that apply to @a (compliance_for()), in table order, into
 * @ret (room for COMPLIANCE_MAX).  Returns how many.
 */
size_t compliance_applying(const struct audit *a, const struct compliance_control **ret);

/**
 * How one format writes the compliance table: the text around it and around each
 * row's cells, and the cells that need the format's escaping.  The row walker is
 * compliance_table(); the cells of a row are, in order, benchmark, version,
 * control (a link to its source), title, findings.
 */
struct compliance_cells {
	const char *head;          /**< before the first row */
	const char *foot;          /**< after the last row (nothing without rows) */
	const char *row_start;     /**< before a row's first cell */
	const char *sep;           /**< between the cells up to the title */
	const char *findings;      /**< between the title and the findings */
	const char *finding[2];    /**< before and after each finding's id */
	const char *row_end;       /**< after a row's findings */
	int (*text)(FILE *out, const char *s);                      /**< escaped text */
	int (*link)(FILE *out, const char *text, const char *url);  /**< escaped link */
};

/**
 * The controls that apply to @a, one a row with the findings that concern each,
 * written by the cell writers of @w; nothing when none applies.
 * Returns 0 or the first error of a cell writer.
 */
int compliance_table(const struct audit *a, const struct compliance_cells *w, FILE *out);

/**
 * The controls of finding @f that apply to @a, as a JSON array of {"benchmark",
 * "version", "id", "title", "source"}.  A new array, or NULL on OOM.
 */
struct json_object *compliance_json(const struct audit *a, unsigned f);

#endif /* S2C_REPORT_COMPLIANCE_H */
