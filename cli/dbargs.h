/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Options shared by the verbs that decide (explain, audit, plan, migrate):
 * which rules database layers to load and facts about the target that the
 * caller may override, and the set-up of the decision engine for a scan.
 */
#ifndef S2C_CLI_DBARGS_H
#define S2C_CLI_DBARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decide.h"
#include "opts.h"

struct decision;
struct engine;
struct host;
struct idmap;
struct rules_db;
struct scan_result;

/** Parsed options. */
struct dbargs {
	struct opt_list extra;        /**< --db directories, in order */
	const char *kernel;           /**< --kernel VERSION or NULL */
	bool has_bounding;            /**< --bounding-set was given */
	uint64_t bounding;            /**< its capabilities (all bits for "all") */
	const char *bounding_what;    /**< its description, NULL for "all" */
	struct opt opts[4];           /**< --db, --kernel and --bounding-set, for a verb's table
					   (OPT_TABLE) */
};

/** Empty options and their table @a->opts. */
void dbargs_init(struct dbargs *a);

/** The bundled database directory: installed, or staged next to the binary. */
const char *dbargs_bundled_dir(void);

/**
 * Load the layers: bundled, /etc/suid2cap/rules.d, then each --db.  When
 * running as root every file must be root-owned and not writable by group or
 * others.  Returns 0 or an exit code after printing the error.
 */
int dbargs_load(const struct dbargs *a, struct rules_db **ret);

/**
 * Like dbargs_load() for the target at @root (NULL or this system's "/": the
 * host): for an image the local layer is the image's own
 * etc/suid2cap/rules.d, opened beneath the root without following symbolic
 * links, with the same trust checks, instead of the host's.
 */
int dbargs_load_root(const struct dbargs *a, const char *root, struct rules_db **ret);

struct decisions;
struct scanargs;

/**
 * decide_all() (rules/decide.h) with --kernel and --bounding-set from @a,
 * printing a failure.
 * @db is taken over (even on failure): @out->own_db holds it.  @res: its candidates'
 * content is taken over, as decide_all() says.  Returns 0, or an exit code after printing.
 */
int decide_run(const struct dbargs *a, struct rules_db *db, struct scan_result *res,
	       struct decisions *out);

struct s2c_ctx;

/**
 * The pipeline every deciding verb starts with: load the database (with the
 * local layer of the target scanned, dbargs_load_root()), scan
 * (progress and warnings on stderr), decide about every candidate
 * (rules/decide.h decide_all()).
 * @ret_res  the scan, free with scan_result_free() (after decisions_release()).
 * Returns 0, or an exit code after printing (nothing to free then).
 */
int decide_scan(const struct dbargs *db, const struct scanargs *s, struct s2c_ctx *ctx,
		struct scan_result **ret_res, struct decisions *out);

struct decide_stream;

/**
 * decide_scan() deciding about the candidates while the walk goes on, a batch
 * at a time (rules/decide.h decide_batch()): the decisions go to @out->spill
 * as records, sorted when it returns, and @out->ds holds the host and names.
 * @out is set up by the caller but for its database, which is loaded here
 * (@out->ds.own_db holds it).  Returns 0, or an exit code after printing (then
 * release @out with decide_stream_release() all the same).
 */
int decide_scan_stream(const struct dbargs *db, const struct scanargs *s, struct s2c_ctx *ctx,
		       struct scan_result **ret_res, struct decide_stream *out);

#endif /* S2C_CLI_DBARGS_H */
