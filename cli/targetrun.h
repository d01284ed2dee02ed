/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What audit-pkg and audit-image share: their options (--tmpdir,
 * --max-unpacked, --max-memory, --threads and the report options), the hooks
 * through which a run of pipeline/auditrun.h loads the rules database and has
 * a signal remove its stage, and what comes of the run: what stopped it or
 * could not be read named on stderr, and the audit written in the chosen
 * format.
 */
#ifndef S2C_CLI_TARGETRUN_H
#define S2C_CLI_TARGETRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "auditargs.h"
#include "auditrun.h"
#include "dbargs.h"
#include "opts.h"

struct s2c_ctx;

/** Options of a package or image audit. */
struct targetrun {
	struct dbargs db;
	struct auditargs out;
	unsigned threads;
	const char *tmpdir;
	struct stage_limits lim;
	const char *shard;            /**< "K/N" of --shard, or NULL */
	const char *verb;             /**< for messages */
	const struct s2c_ctx *ctx;
	bool trust_image;             /**< audit-image: use the image's own waivers */
	struct opt opts[5];           /**< --tmpdir, --max-unpacked, --max-memory, --threads
				       (OPT_TABLE) */
	int stage_guard;              /**< the stage's registration (cli/interrupt.h) */
	int hook_exit;                /**< the exit code of the hook that failed */
	struct auditrun_hooks hooks;  /**< targetrun_hooks() */
	struct auditrun_opts settings; /**< targetrun_opts() */
};

/**
 * Defaults (threads from the CPU count, limits STAGE_LIMITS_DEFAULT, $TMPDIR or
 * /tmp) and the option tables: @tr->opts for the options above, @tr->db.opts
 * and @tr->out.opts for the database and report ones.  @threads: offer
 * --threads (audit-image reads one image).
 */
void targetrun_init(struct targetrun *tr, const struct s2c_ctx *ctx, const char *verb,
		    bool threads);

/**
 * Refuse, before anything is read or written, an input that the other verb
 * reads: a container image (a tar archive, an OCI layout directory) given to
 * audit-pkg (@want_image false), a .deb or .rpm given to audit-image.  The
 * error names the file, what it is and the verb that reads it.  Anything else
 * (a corrupt package, a file of no known kind) is left to the readers, which
 * report it as the target's error.  Returns 0 or S2C_EXIT_USAGE after printing.
 */
int targetrun_check_input(const char *verb, const char *path, bool want_image);

/**
 * The hooks of a run (pipeline/auditrun.h) for @tr: the rules database loaded
 * as its options say (errors printed), the stage registered so that a signal
 * removes it (cli/interrupt.h), @progress (NULL: none) called with @tr.
 * Points into @tr.
 */
const struct auditrun_hooks *targetrun_hooks(struct targetrun *tr, batch_progress_fn progress);

/** The settings of a run from the options of @tr.  Points into @tr. */
const struct auditrun_opts *targetrun_opts(struct targetrun *tr);

/**
 * What came of the run @ar that returned @r (and @err): say what stopped it,
 * else name each target that could not be read or whose audit is incomplete
 * and write the report as the options say.  Returns the exit status: 0, 1 for
 * --fail-on, 3 when a target could not be read (each is named on stderr and
 * in the report), 4 on failure; 2 with nothing written when a target passed
 * the memory budget (--max-memory) or a blob does not match its digest.
 */
int targetrun_report(const struct targetrun *tr, struct auditrun *ar, int r,
		     const struct s2c_error *err, char **argv, const struct s2c_ctx *ctx);

#endif /* S2C_CLI_TARGETRUN_H */
