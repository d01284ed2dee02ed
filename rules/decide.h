/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Deciding about every candidate of a scan, a package or an image: the one
 * entry point that audit, plan, explain, verify --fix, migrate, learn and the
 * audits of packages and images (pipeline/targetaudit.h) share.  It gathers the target's facts (rules/host.h) and names
 * (scanner/idmap.h), reads each candidate's content (scanner/binary.h) and
 * asks the engine (rules/engine.h).
 */
#ifndef S2C_RULES_DECIDE_H
#define S2C_RULES_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strpool.h"

struct decision;
struct facts;
struct host;
struct idmap;
struct rule;
struct rules_db;
struct s2c_error;
struct scan_result;
struct spill;

/** Every decision about a scan, with what it was made with. */
struct decisions {
	const struct rules_db *db;    /**< borrowed: the database decided with */
	struct rules_db *own_db;      /**< freed with the decisions: the database a caller
					   handed over with them (e.g. @db), or NULL */
	struct host *host;            /**< owned */
	struct idmap *ids;            /**< owned */
	struct decision **v;          /**< one per candidate, same order as the scan */
	size_t n;
	struct strpool sentences;     /**< the decisions' sentences, each kept once: many
					   files get the same (decision_share()) */
};

/**
 * What the user says about the target, in place of what would be read from it, and what
 * the target is when it is not a scanned root.
 */
struct decide_target {
	const char *kernel;           /**< "major.minor[.patch]" to evaluate kernel conditions
					   for instead of the running kernel, or NULL */
	bool has_bounding;            /**< @bounding replaces the detected bounding set */
	uint64_t bounding;            /**< capabilities programs there can hold at most */
	const char *bounding_what;    /**< where that set comes from, NULL for no limit */
	const char *package;          /**< a package's own files (audit-pkg): every candidate
					   belongs to it, at @package_version; NULL: the
					   target's package databases say */
	const char *package_version;
	bool set_names;               /**< name owners and groups from the target's passwd and
					   group files (an image's files come unnamed from
					   pkg/; a scan names its own) */
};

/**
 * Decide about every candidate of @res with @db (borrowed: the decisions point into it),
 * with @t (or NULL) in place of the target's own kernel and bounding set and for what the
 * target is.  @res is changed: a candidate's content read during the scan
 * (facts::content, SCAN_CONTENT) is taken over and freed, and with @t->set_names its
 * owner and group names are filled in; one without content is read now.  For
 * SCAN_CONTENT the scan must have looked for @db's strings and version prefixes
 * (rules_db::strings, rules_db::prefixes).  The candidates of a package or an image are
 * handed over as a scan_result too: its rootfd, host, v and n are all that is read.
 * Returns 0 with @out filled (release with decisions_release(); @out->own_db is NULL), or
 * -errno with @err naming what failed (@out is then empty).
 */
int decide_all(const struct rules_db *db, struct scan_result *res, const struct decide_target *t,
	       struct decisions *out, struct s2c_error *err);

/**
 * decide_all() for a scan that hands its candidates over a batch at a time
 * (scan_options::on_batch): each batch is decided and every decision, with the
 * facts of its file, is kept as a record (rules/decisionrec.h) in @spill under
 * its path, then freed; what stays is the records, within the spill's budget,
 * whatever the number of files.
 */
struct decide_stream {
	const struct rules_db *db;    /**< as for decide_all(), borrowed */
	struct decide_target t;       /**< zero: the target's own kernel and bounding set */
	struct spill *spill;          /**< borrowed: where the records go */
	/** Called with each decision before it is kept, when set: 0 or -errno. */
	int (*each)(void *userdata, const struct decision *d);
	void *userdata;
	struct decisions ds;          /**< its host and names after the first batch; ds.v stays
					   empty */
	bool started;
	size_t n;                     /**< decisions kept */
	struct s2c_error *err;        /**< where what failed is said */
};

/**
 * Decide about the @n candidates @v of @res (its rootfd and host are read; the facts
 * are taken over and freed, @v is not) into @s.  Call it once more with none after
 * the scan: a scan without candidates still has a target.  Returns 0, or -errno with
 * *@s->err naming what failed.
 */
int decide_batch(struct decide_stream *s, const struct scan_result *res, struct facts **v,
		 size_t n);

/** Free what decide_batch() made (not the spill); @s->ds is zeroed. */
void decide_stream_release(struct decide_stream *s);

/**
 * What decide_all() says of a program that is not one of the candidates @ds was made
 * for (learn runs programs that need not be privileged): the rule that matches it
 * (or NULL) and whether it is capability-aware (engine_aware()).  The program is
 * @path beneath @rootfd (the root @ds was made for) with content hash @sha256,
 * open as @fd; @script: it is a script, whose ELF facts are not read.
 * Returns 0 or -ENOMEM.
 */
int decide_program(const struct decisions *ds, int rootfd, const char *path, const char *sha256,
		   int fd, bool script, const struct rule **ret_rule, bool *ret_aware);

/** Free what decide_all() made, and @d->own_db; the struct is zeroed. */
void decisions_release(struct decisions *d);

#endif /* S2C_RULES_DECIDE_H */
