/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drift: how a migrated file differs today from what apply recorded, and
 * whether repairing it is safe.
 *
 * A file is compared with its state record (plan/state.h) through the one file
 * identity (scanner/fileid.h): the same inode and content with another state
 * (the set-ID bit back, capabilities gone or changed); new content on the same
 * or a new inode, told apart by the package database into an update (the
 * package's own content) and tampering (anything else); or no file at all.
 * Only an update, or the same content with the set-ID bit back, may be
 * repaired by applying the recorded state again.
 */
#ifndef S2C_PLAN_VERIFY_H
#define S2C_PLAN_VERIFY_H

#include <stdbool.h>

#include "fileid.h"

struct host;
struct state_entry;

/** What happened to a migrated file. */
enum drift_kind {
	DRIFT_NONE,          /**< as recorded */
	DRIFT_GONE,          /**< missing, not a regular file, or not reachable safely */
	DRIFT_STATE,         /**< same inode and content, another owner, group, mode or caps */
	DRIFT_UPDATED,       /**< new content that the owning package shipped (an update) */
	DRIFT_TAMPERED,      /**< new content that the owning package did not ship */
	DRIFT_UNVERIFIED,    /**< new content no package database can vouch for */
	_DRIFT_KIND_MAX,
};

/** The drift of one recorded file. */
struct drift {
	const struct state_entry *entry;   /**< borrowed */
	enum drift_kind kind;
	bool fixable;                      /**< verify --fix may apply the recorded state again */
	struct file_id now;                /**< what the file is now (sha256 set when read) */
	char what[512];                    /**< what drifted, one sentence for people */
	const char *repair;                /**< how to repair it (static): "'suid2cap verify
					        --fix' repairs it" when @fixable, else what a
					        person does (plan and apply again, reinstall the
					        package, 'verify --forget') */
};

/**
 * Compare the file of @e beneath @rootfd with the record.  @h (the target's
 * facts, packages loaded for @e->path) tells updates from tampering.
 * Returns 0 with @ret filled (kind DRIFT_NONE when nothing drifted), or
 * -ENOMEM.
 */
int verify_entry(int rootfd, const struct host *h, const struct state_entry *e,
		 struct drift *ret);

/** "none", "gone", "state", "updated", "tampered", "unverified". */
const char *drift_kind_name(enum drift_kind k);

#endif /* S2C_PLAN_VERIFY_H */
