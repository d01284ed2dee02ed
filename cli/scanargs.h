/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Options shared by the verbs that scan (scan, audit, plan, migrate):
 * --root, --threads, --xdev, --all-caps, --output and the PATH operands,
 * so each verb's parser handles them the same way.
 */
#ifndef S2C_CLI_SCANARGS_H
#define S2C_CLI_SCANARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "scan.h"

struct s2c_ctx;

/** Long-option ids shared by the scanning verbs (verb-specific ones start at 0x200). */
enum {
	ARG_ROOT = 0x100,
	ARG_THREADS,
	ARG_XDEV,
	ARG_ALL_CAPS,
	ARG_CROSS_PSEUDO,
};

/** getopt_long entries for the shared options; splice into a verb's table. */
#define SCANARGS_OPTIONS \
	{ "root", required_argument, NULL, ARG_ROOT }, \
	{ "threads", required_argument, NULL, ARG_THREADS }, \
	{ "xdev", no_argument, NULL, ARG_XDEV }, \
	{ "all-caps", no_argument, NULL, ARG_ALL_CAPS }, \
	{ "cross-pseudo", no_argument, NULL, ARG_CROSS_PSEUDO }

/** Parsed shared options. */
struct scanargs {
	const char *root;
	unsigned threads;
	enum scan_flags flags;
	const char *const *paths;   /**< points into argv, NULL for "/" */
};

/** Defaults: root "/", threads from the CPU count. */
void scanargs_init(struct scanargs *a, const struct s2c_ctx *ctx);

/**
 * Handle option @opt with argument @arg if it is a shared one.
 * Returns 1 when handled, 0 when not a shared option, or S2C_EXIT_USAGE
 * (as a negative number) after printing a usage error for @verb.
 */
int scanargs_option(struct scanargs *a, int opt, const char *arg, const char *verb);

/**
 * Take the operands argv[optind..] as start paths and check --root exists.
 * Returns 0, or -S2C_EXIT_USAGE after printing the error.
 */
int scanargs_finish(struct scanargs *a, int argc, char **argv, int first, const char *verb);

/**
 * Run the scan with warnings on stderr and a progress line when stderr is a
 * terminal.  Returns 0 with @ret set, or an exit code > 0 after printing.
 */
int scanargs_run(const struct scanargs *a, const struct s2c_ctx *ctx, struct scan_result **ret);

/**
 * Where a verb writes its document: stdout, or FILE via a temporary file in
 * the same directory renamed into place on success (never a half-written
 * report under the final name; never following a symlink).
 */
struct outfile {
	FILE *f;
	char *path, *tmp;
};

/** Open @path (NULL or "-" for stdout).  Returns 0 or an exit code after printing. */
int outfile_open(struct outfile *o, const char *path);

/**
 * Finish: on @ok flush, fsync and rename into place; otherwise remove the
 * temporary file.  Returns 0 or an exit code after printing.
 */
int outfile_close(struct outfile *o, bool ok);

#endif /* S2C_CLI_SCANARGS_H */
