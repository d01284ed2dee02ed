/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report options every auditing verb shares (audit, audit-pkg,
 * audit-image, report merge): --format, --output, --fail-on, --color,
 * --quiet, --allow-incomplete, as one table for the option driver; writing
 * the report atomically; the exit status a CI job gates on, and one line on
 * standard error for every file or target that made --fail-on fail.
 */
#ifndef S2C_CLI_AUDITARGS_H
#define S2C_CLI_AUDITARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "opts.h"

struct audit;
struct decision;
struct s2c_ctx;
struct waiver_list;

/** A target's own waivers file, read beneath its root. */
#define AUDITARGS_WAIVERS_FILE "/etc/suid2cap/waivers"

/** Report formats, in the order of the --format words. */
enum audit_format {
	AUDIT_FORMAT_TEXT,
	AUDIT_FORMAT_JSON,
	AUDIT_FORMAT_MARKDOWN,
	AUDIT_FORMAT_HTML,
	AUDIT_FORMAT_SARIF,
	_AUDIT_FORMAT_MAX,
};

/** Which verb the report options are for. */
enum auditargs_kind {
	AUDITARGS_TREE,               /**< audit: a host or a root */
	AUDITARGS_TARGETS,            /**< audit-pkg, audit-image: also --allow-incomplete */
	AUDITARGS_FLEET,              /**< report merge: its own gate, no colour */
};

/** What --fail-on can name. */
enum audit_fail_on {
	AUDIT_FAIL_REVIEW = 1 << 0,   /**< a file has the verdict review */
	AUDIT_FAIL_MIGRATE = 1 << 1,  /**< the migration would change a file (migrate or drop) */
	AUDIT_FAIL_RISK = 1 << 2,     /**< a file's risk after the verdict is root (setuid in
				           disguise included) */
	AUDIT_FAIL_INCOMPLETE = 1 << 3, /**< the audit of a package or image is incomplete */
};

/** The --fail-on bit of finding id k (enum audit_finding): a file has that finding. */
#define AUDIT_FAIL_FINDING(k) (1u << (8 + (k)))

/** Parsed report options. */
struct auditargs {
	int format;                   /**< enum audit_format */
	const char *output;
	const char *label;            /**< --label, or NULL */
	unsigned fail_on;             /**< enum audit_fail_on and AUDIT_FAIL_FINDING() bits */
	bool quiet;                   /**< text: only the summary and the problems (-q) */
	bool allow_incomplete;        /**< incomplete packages and images do not make the exit
				           status 3 (--allow-incomplete) */
	struct opt_list waivers;      /**< --waivers files, in order */
	enum auditargs_kind kind;
	struct opt opts[10];           /**< the options above, for a verb's table (OPT_TABLE) */
};

/**
 * Defaults and the table @a->opts for a verb of @kind: --format, --output and
 * --quiet for all; --fail-on, --waivers, --color and --no-color for the audits;
 * --allow-incomplete for packages and images.
 */
void auditargs_init(struct auditargs *a, enum auditargs_kind kind);

/**
 * After parsing: the options that exclude each other by value (--quiet shapes
 * only the text report).  Returns 0, or S2C_EXIT_USAGE after printing.
 */
int auditargs_check(const struct auditargs *a, const char *verb);

/** The words of --format, NULL-terminated, indexed by enum audit_format. */
extern const char *const auditargs_formats[];

/**
 * Read the waivers: the target's own AUDITARGS_WAIVERS_FILE beneath @rootfd
 * (@rootfd < 0: the target has none, as packages; @display names it in
 * messages and reports)
 * and each --waivers file, trust-checked when running as root.  @ret is
 * zero-initialised by the caller; free it with waiver_list_release() also on
 * failure.  @ret_any: some waiver was read (the report then shows the waivers).
 * Returns 0, or an exit code after printing: 2 for a malformed or missing
 * file, 5 for an untrusted one, 4 when one cannot be read.
 */
int auditargs_waivers(const struct auditargs *a, int rootfd, const char *display,
		      struct waiver_list *ret, bool *ret_any);

/**
 * Call @fn for every file of @au that matches a condition of @fail_on, once per
 * condition: @word is the --fail-on word ("review", "S2C005"), @d the file's
 * decision, @target its target's index (SIZE_MAX in a tree) and @finding the
 * finding that made it match; and for every target whose audit is incomplete
 * with "incomplete", @d NULL and @finding -1 (@au->targets[@target]).  A waived
 * finding (audit_waived()) never counts.  Returns 0 with how many matched in
 * *@ret_n, or -errno of reading the files.
 */
int auditargs_triggers(const struct audit *au, unsigned fail_on,
		       void (*fn)(void *userdata, const struct audit *au, const char *word,
				  const struct decision *d, size_t target, int finding),
		       void *userdata, size_t *ret_n);

/**
 * Render @au in the chosen format to the chosen output (atomically for -o),
 * then name on standard error every file or target that made --fail-on match.
 * @incomplete: parts could not be read, or a target's audit is incomplete and
 * --allow-incomplete was not given (exit 3, which wins over --fail-on).
 * Returns the exit code: 0, 1 (--fail-on matched), 3, or 4 after printing.
 */
int auditargs_write(const struct auditargs *a, const struct audit *au, const struct s2c_ctx *ctx,
		    bool incomplete);

#endif /* S2C_CLI_AUDITARGS_H */
