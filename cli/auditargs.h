/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report options every auditing verb shares (audit, audit-pkg,
 * audit-image): --format, --output, --fail-on, --color, as one table for
 * the option driver; writing the report atomically; and the exit status a CI
 * job gates on.
 */
#ifndef S2C_CLI_AUDITARGS_H
#define S2C_CLI_AUDITARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "opts.h"

struct audit;
struct s2c_ctx;

/** Report formats, in the order of the --format words. */
enum audit_format {
	AUDIT_FORMAT_TEXT,
	AUDIT_FORMAT_JSON,
	AUDIT_FORMAT_MARKDOWN,
	AUDIT_FORMAT_HTML,
	AUDIT_FORMAT_SARIF,
};

/** What --fail-on can name. */
enum audit_fail_on {
	AUDIT_FAIL_REVIEW = 1 << 0,   /**< a file has the verdict review */
	AUDIT_FAIL_MIGRATE = 1 << 1,  /**< the migration would change a file (migrate or drop) */
	AUDIT_FAIL_RISK = 1 << 2,     /**< a file's risk after the verdict is root (setuid in
				           disguise included) */
};

/** Parsed report options. */
struct auditargs {
	int format;                   /**< enum audit_format */
	const char *output;
	unsigned fail_on;             /**< enum audit_fail_on bits */
	bool quiet;                   /**< text: only the summary and the problems (audit -q) */
	struct opt opts[6];           /**< the options above, for a verb's table (OPT_TABLE) */
};

/**
 * Defaults and the table @a->opts.  @audit: the options of an audit report
 * (--fail-on, --color, --no-color) besides --format and --output; report merge has its
 * own gate and no colour.
 */
void auditargs_init(struct auditargs *a, bool audit);

/** The words of --format, NULL-terminated, indexed by enum audit_format. */
extern const char *const auditargs_formats[];

/** Whether any file of @au matches a --fail-on condition of @fail_on. */
bool auditargs_failed(const struct audit *au, unsigned fail_on);

/**
 * Render @au in the chosen format to the chosen output (atomically for -o).
 * @incomplete: parts could not be read (exit 3, which wins over --fail-on).
 * Returns the exit code: 0, 1 (--fail-on matched), 3, or 4 after printing.
 */
int auditargs_write(const struct auditargs *a, const struct audit *au, const struct s2c_ctx *ctx,
		    bool incomplete);

#endif /* S2C_CLI_AUDITARGS_H */
