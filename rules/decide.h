/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Deciding about every candidate of a scan: the one entry point that audit,
 * plan, explain, verify --fix, migrate and the readers of packages and images
 * share.  It gathers the target's facts (rules/host.h) and names
 * (scanner/idmap.h), reads each candidate's content (scanner/binary.h) and
 * asks the engine (rules/engine.h).
 */
#ifndef S2C_RULES_DECIDE_H
#define S2C_RULES_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct decision;
struct host;
struct idmap;
struct rules_db;
struct s2c_error;
struct scan_result;

/** Every decision about a scan, with what it was made with. */
struct decisions {
	struct rules_db *db;          /**< owned */
	struct host *host;            /**< owned */
	struct idmap *ids;            /**< owned */
	struct decision **v;          /**< one per candidate, same order as the scan */
	size_t n;
};

/** What the user says about the target, in place of what would be read from it. */
struct decide_target {
	const char *kernel;           /**< "major.minor[.patch]" to evaluate kernel conditions
					   for instead of the running kernel, or NULL */
	bool has_bounding;            /**< @bounding replaces the detected bounding set */
	uint64_t bounding;            /**< capabilities programs there can hold at most */
	const char *bounding_what;    /**< where that set comes from, NULL for no limit */
};

/**
 * Decide about every candidate of @res with @db (taken over, even on error),
 * with @t (or NULL) in place of the target's own kernel and bounding set.
 * A candidate's content read during the scan (facts::content, SCAN_CONTENT)
 * is taken over; one without is read now.  For SCAN_CONTENT the scan must
 * have looked for @db's strings and version prefixes (rules_db::strings,
 * rules_db::prefixes).
 * Returns 0 with @out filled (release with decisions_release()), or -errno
 * with @err naming what failed (@out is then empty).
 */
int decide_all(struct rules_db *db, const struct scan_result *res, const struct decide_target *t,
	       struct decisions *out, struct s2c_error *err);

/** Free what decide_all() made, the database included; the struct is zeroed. */
void decisions_release(struct decisions *d);

#endif /* S2C_RULES_DECIDE_H */
