/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What audit-pkg and audit-image share: their options (--tmpdir,
 * --max-unpacked, --max-memory, --threads and the report options), the private stage of a
 * run, and the step from targets read by pkg/ to a report: pipeline/targetaudit.h
 * decides and plans, what could not be read is named on stderr, and the audit is
 * written in the chosen format.
 */
#ifndef S2C_CLI_TARGETRUN_H
#define S2C_CLI_TARGETRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "auditargs.h"
#include "dbargs.h"
#include "opts.h"
#include "stage.h"

struct rules_db;
struct s2c_ctx;
struct target;

/** Options of a package or image audit. */
struct targetrun {
	struct dbargs db;
	struct auditargs out;
	unsigned threads;
	const char *tmpdir;
	struct stage_limits lim;
	const char *shard;            /**< "K/N" of --shard, or NULL */
	const char *verb;             /**< for messages */
	bool trust_image;             /**< audit-image: use the image's own waivers */
	struct opt opts[5];           /**< --tmpdir, --max-unpacked, --max-memory, --threads
				       (OPT_TABLE) */
	int stage_guard;              /**< the stage's registration (cli/interrupt.h) */
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
 * Create the run's private stage in tr->tmpdir, registered so that a signal
 * removes it (cli/interrupt.h).  Returns 0 or an exit code after printing.
 */
int targetrun_stage(struct targetrun *tr, struct stage **ret);

/** Remove the run's stage (NULL: none) and its registration. */
void targetrun_unstage(struct targetrun *tr, struct stage *run);

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
 * and in the report), 4 on failure; 2 with nothing written when a target
 * passed the memory budget (--max-memory).
 */
int targetrun_audit(const struct targetrun *tr, struct rules_db *db, struct target **targets,
		    size_t n, struct stage *run, char **argv, const struct s2c_ctx *ctx);

#endif /* S2C_CLI_TARGETRUN_H */
