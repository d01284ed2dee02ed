/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What audit-pkg and audit-image share: their options (--tmpdir,
 * --max-unpacked, --threads and the report options), the private stage of a
 * run, and the step from targets read by pkg/ to a report: deciding about
 * every privileged file of every target with the rules, the packaging
 * snippet of each target, and the audit rendered in the chosen format.
 */
#ifndef S2C_CLI_TARGETRUN_H
#define S2C_CLI_TARGETRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "auditargs.h"
#include "dbargs.h"
#include "stage.h"

struct rules_db;
struct s2c_ctx;
struct target;

/** Long-option ids of the shared options (after auditargs' 0x1c0 range). */
enum {
	ARG_TR_TMPDIR = 0x1e0,
	ARG_TR_MAX_UNPACKED,
	ARG_TR_THREADS,
};

/** getopt_long entries of the shared options. */
#define TARGETRUN_OPTIONS \
	{ "tmpdir", required_argument, NULL, ARG_TR_TMPDIR }, \
	{ "max-unpacked", required_argument, NULL, ARG_TR_MAX_UNPACKED }, \
	{ "threads", required_argument, NULL, ARG_TR_THREADS }

/** The help lines of the shared options. */
#define TARGETRUN_HELP \
	"  --tmpdir DIR      make the private 0700 directory for unpacked members in DIR\n" \
	"                    (default: $TMPDIR, else /tmp)\n" \
	"  --max-unpacked N  refuse a package or image that unpacks to more than N bytes\n" \
	"                    (suffix K, M, G; default 16G): the decompression-bomb limit\n"

/** Options of a package or image audit. */
struct targetrun {
	struct dbargs db;
	struct auditargs out;
	unsigned threads;
	const char *tmpdir;
	struct stage_limits lim;
	const char *shard;            /**< "K/N" of --shard, or NULL */
	const char *verb;             /**< for messages */
};

/** Defaults: threads from the CPU count, limits STAGE_LIMITS_DEFAULT, $TMPDIR or /tmp. */
void targetrun_init(struct targetrun *tr, const struct s2c_ctx *ctx, const char *verb);

/**
 * Handle a shared option (report, database and the ones above).
 * Returns 1 when handled, 0 when not, or -S2C_EXIT_USAGE after printing.
 */
int targetrun_option(struct targetrun *tr, int opt, const char *arg);

/**
 * Create the run's private stage in tr->tmpdir.  Returns 0 or an exit code
 * after printing.
 */
int targetrun_stage(const struct targetrun *tr, struct stage **ret);

/**
 * Load the rules database (printing any error) and the library globs its
 * capability table names as evidence ("libpcap.so*"), which the readers keep
 * from every target.  @ret_globs is NULL-terminated and borrows from the
 * database; free() the array.  Returns 0 or an exit code after printing.
 */
int targetrun_load(const struct targetrun *tr, struct rules_db **ret_db, const char ***ret_globs);

/**
 * Decide about the privileged files of @n targets (taken over and freed) with
 * @db (taken over),
 * report them as the options say and return the exit status: 0, 1 for
 * --fail-on, 3 when a target could not be read (each is named on stderr
 * and in the report), 4 on failure.
 */
int targetrun_audit(const struct targetrun *tr, struct rules_db *db, struct target **targets,
		    size_t n, struct stage *run, char **argv, const struct s2c_ctx *ctx);

#endif /* S2C_CLI_TARGETRUN_H */
