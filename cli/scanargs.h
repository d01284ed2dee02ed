/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Options shared by the verbs that scan (scan, audit, plan, explain, migrate,
 * verify): --root, --threads, --xdev, --all-caps, --cross-pseudo, --exclude,
 * --other-roots, --include-unpackaged and the PATH operands, so each verb's
 * parser handles them the same way.
 */
#ifndef S2C_CLI_SCANARGS_H
#define S2C_CLI_SCANARGS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "opts.h"
#include "scan.h"

struct host;
struct plan;
struct facts;
struct rules_db;
struct s2c_ctx;

/** The exclude file, beneath the root (the target's own for --root DIR). */
#define SCANARGS_EXCLUDE_FILE "/etc/suid2cap/exclude"

/** Most --exclude options one command line may give. */
#define SCANARGS_MAX_EXCLUDE 64

/** What scanargs_init() offers. */
enum scanargs_flags {
	SCANARGS_PLANNING = 1 << 0,  /**< the verb plans changes: --include-unpackaged */
};

/** Parsed shared options. */
struct scanargs {
	const char *root;
	unsigned threads;
	enum scan_flags flags;
	const char *const *paths;   /**< start paths beneath the root, NULL for "/" */
	const char *const *operands; /**< each PATH operand as resolved, parallel to them, or NULL */
	const char *exclude[SCANARGS_MAX_EXCLUDE + 1]; /**< --exclude, into argv, NULL-terminated */
	size_t n_exclude;
	bool include_unpackaged;    /**< --include-unpackaged: plans may change unowned files */
	const char *records_dir;    /**< keep the candidates as records there, past
				         CLI_RECORDS_MEMORY (scan_options::records_dir), or NULL */
	enum facts_flags count_any; /**< scan_result::n_any counts the candidates with
					 any of these flags */
	struct opt opts[10];        /**< the options above, for a verb's table (OPT_TABLE) */
};

/**
 * Defaults (root "/", threads from the CPU count) and the option table
 * @a->opts: --root, --threads, --xdev, --all-caps, --cross-pseudo, --exclude
 * (checked as it is parsed: absolute, no "..", a valid glob), --other-roots,
 * and with SCANARGS_PLANNING --include-unpackaged.
 */
void scanargs_init(struct scanargs *a, const struct s2c_ctx *ctx, enum scanargs_flags flags);

/**
 * Check --root exists (and make it absolute), then take the operands
 * argv[first..] as start paths, resolved beneath the root:
 *
 * - a relative PATH is read from the current directory; under --root DIR the
 *   current directory must be DIR or inside it, and PATH is the same file
 *   beneath the root (/srv/img/usr/bin with --root /srv/img: "ping" is
 *   /usr/bin/ping); a ".." of PATH that would climb above DIR is refused;
 * - its symbolic links are followed, beneath the root only (resolve_chase()),
 *   and a notice says which path is walked instead; the walk itself never
 *   follows a link, and results name the real paths;
 * - a PATH that names nothing is a usage error naming it, before anything is
 *   written; one that cannot be looked at (permissions) is left to the walk;
 * - a PATH named twice, or inside another (with --xdev: on the same
 *   filesystem), is walked once.
 *
 * Sets @a->paths (the start paths) and @a->operands (each operand resolved, in
 * the order given).  Returns 0, or an exit code after printing the error.
 */
int scanargs_finish(struct scanargs *a, int argc, char **argv, int first, const char *verb);

/**
 * Run the scan with warnings on stderr and a progress line when stderr is a
 * terminal.  The exclude patterns and SCANARGS_EXCLUDE_FILE beneath the root
 * (checked for trust when running as root) are left out, and on the running
 * system other roots too unless --other-roots.
 * @db  the database decide_all() is to use: each candidate's content is then
 *      read during the walk (SCAN_CONTENT) for it; NULL for the inventory only.
 * Returns 0 with @ret set, or an exit code > 0 after printing.
 */
int scanargs_run(const struct scanargs *a, const struct s2c_ctx *ctx, const struct rules_db *db,
		 struct scan_result **ret);

/**
 * scanargs_run() handing the candidates over to @on_batch @batch at a time, as
 * scan_options::on_batch says (with @userdata); the result then holds none.
 */
int scanargs_run_batches(const struct scanargs *a, const struct s2c_ctx *ctx,
			 const struct rules_db *db,
			 int (*on_batch)(void *userdata, const struct scan_result *res,
					 struct facts **v, size_t n),
			 void *userdata, size_t batch, struct scan_result **ret);

/**
 * What every verb that plans does right after plan_build(): record in @p what
 * the scan @res left out, and on the running system hold back changes to
 * files no package owns (plan_only_packaged() with the facts @h) unless
 * --include-unpackaged; say both on stderr.
 * Returns 0 or an exit code after printing.
 */
int scanargs_plan_limits(const struct scanargs *a, const struct scan_result *res,
			 const struct host *h, struct plan *p);

#endif /* S2C_CLI_SCANARGS_H */
