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

struct decision;
struct engine;
struct host;
struct idmap;
struct rules_db;
struct scan_result;

/** Long-option ids (after scanargs' 0x100 range). */
enum {
	ARG_DB = 0x180,
	ARG_KERNEL,
	ARG_BOUNDING_SET,
};

#define DBARGS_OPTIONS \
	{ "db", required_argument, NULL, ARG_DB }, \
	{ "kernel", required_argument, NULL, ARG_KERNEL }, \
	{ "bounding-set", required_argument, NULL, ARG_BOUNDING_SET }

/** Parsed options. */
struct dbargs {
	const char *extra[16];        /**< --db directories, in order */
	size_t n_extra;
	const char *kernel;           /**< --kernel VERSION or NULL */
	bool has_bounding;            /**< --bounding-set was given */
	uint64_t bounding;            /**< its capabilities (all bits for "all") */
	const char *bounding_what;    /**< its description, NULL for "all" */
};

/** Handle a shared option; returns 1 if handled, 0 if not, -S2C_EXIT_USAGE on error. */
int dbargs_option(struct dbargs *a, int opt, const char *arg, const char *verb);

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

/** Everything the engine needs for one scan result; release with decisions_release(). */
struct decisions {
	struct rules_db *db;
	struct host *host;
	struct idmap *ids;
	struct decision **v;          /**< one per candidate, same order as the scan */
	size_t n;
};

/**
 * Decide about every candidate of @res with @db (taken over).  Returns 0 or
 * an exit code after printing.
 */
int decisions_run(const struct dbargs *a, struct rules_db *db, const struct scan_result *res,
		  struct decisions *out);

struct scanargs;
struct s2c_ctx;

/**
 * The pipeline every deciding verb starts with: load the database, scan
 * (progress and warnings on stderr), decide about every candidate.
 * @ret_res  the scan, free with scan_result_free() (after decisions_release()).
 * Returns 0, or an exit code after printing (nothing to free then).
 */
int decide_scan(const struct dbargs *db, const struct scanargs *s, struct s2c_ctx *ctx,
		struct scan_result **ret_res, struct decisions *out);

/** Free what decisions_run() made (the db included). */
void decisions_release(struct decisions *d);

#endif /* S2C_CLI_DBARGS_H */
