/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The identity an audit report carries (struct audit_identity): the target's
 * host name and machine id — hashed, because machine-id(5) asks that the id
 * itself never leave the machine — the time and the host that ran the
 * audit.  The time honours SOURCE_DATE_EPOCH, so reproducible runs and the
 * tests get the same report twice.
 */
#ifndef S2C_CLI_IDENTITY_H
#define S2C_CLI_IDENTITY_H

#include "audit.h"

/** Owned strings behind a struct audit_identity. */
struct identity {
	struct audit_identity id;     /**< points into the strings below */
	char *hostname, *machine_id, *auditor, *shard;
	char time[32];
};

/**
 * Fill @out for the target at @rootfd: the running system when @live (host
 * name from uname(2), /etc/machine-id), else the root's own /etc/hostname
 * and /etc/machine-id read beneath it (missing files leave them NULL, and
 * the auditor is this host).  @rootfd < 0: no target files (packages).
 * @shard: "K/N" or NULL.  Never fails; unknown parts stay NULL.
 */
void identity_init(struct identity *out, int rootfd, bool live, const char *shard);

/** Free the strings. */
void identity_release(struct identity *i);

#endif /* S2C_CLI_IDENTITY_H */
