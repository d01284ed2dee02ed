/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report options every auditing verb shares (audit, audit-pkg,
 * audit-image): --format, --output, --fail-on, --no-color; writing the report
 * atomically; and the exit status a CI job gates on.
 */
#ifndef S2C_CLI_AUDITARGS_H
#define S2C_CLI_AUDITARGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

struct audit;
struct s2c_ctx;

/** Report formats. */
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

/** Long-option ids (after scanargs' 0x100 and dbargs' 0x180 ranges). */
enum {
	ARG_AUDIT_FORMAT = 0x1c0,
	ARG_AUDIT_FAIL_ON,
	ARG_AUDIT_NO_COLOR,
};

/** getopt_long entries of the shared report options (-o is 'o'). */
#define AUDITARGS_OPTIONS \
	{ "format", required_argument, NULL, ARG_AUDIT_FORMAT }, \
	{ "output", required_argument, NULL, 'o' }, \
	{ "fail-on", required_argument, NULL, ARG_AUDIT_FAIL_ON }, \
	{ "no-color", no_argument, NULL, ARG_AUDIT_NO_COLOR }

/** The help lines of the shared report options. */
#define AUDITARGS_HELP \
	"  --format FMT      text (default), json, markdown, html or sarif\n" \
	"  -o, --output FILE write to FILE (atomically) instead of standard output\n" \
	"  --fail-on WHAT    exit 1 when a file matches WHAT, a comma list of:\n" \
	"                      review   a file has the verdict review\n" \
	"                      migrate  the migration would change a file\n" \
	"                      risk     a file's risk after the verdict is root (this includes\n" \
	"                               setuid in disguise and setuid-root programs kept)\n" \
	"  --no-color        no colour, even on a terminal\n"

/** Parsed report options. */
struct auditargs {
	enum audit_format format;
	const char *output;
	unsigned fail_on;             /**< enum audit_fail_on bits */
	bool no_color;
};

/**
 * Handle option @opt with @arg if it is a report option.
 * Returns 1 when handled, 0 when not, or -S2C_EXIT_USAGE after printing a
 * usage error for @verb.
 */
int auditargs_option(struct auditargs *a, int opt, const char *arg, const char *verb);

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
