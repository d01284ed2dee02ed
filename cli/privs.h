/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-verb privilege narrowing, after OpenBSD's per-mode pledge.
 *
 * At dispatch every verb keeps only the capabilities its table entry names.
 * Read-only verbs also lose the rest of the bounding set and set
 * no_new_privs, so nothing they run or read can regain privilege.  Verbs that
 * must execute migrated programs (the smoke test) keep the bounding set and
 * leave no_new_privs clear, because either would stop the kernel from
 * granting the file capabilities being tested.
 */
#ifndef S2C_CLI_PRIVS_H
#define S2C_CLI_PRIVS_H

#include <stdbool.h>
#include <stdint.h>

/** How far to narrow. */
enum privs_flags {
	PRIVS_KEEP_BOUNDING = 1 << 0, /**< keep the bounding set and skip no_new_privs */
};

/**
 * Reduce the permitted and effective sets to @keep (intersected with what the
 * process has), clear the inheritable and ambient sets, and unless
 * PRIVS_KEEP_BOUNDING, drop every other capability from the bounding set and
 * set PR_SET_NO_NEW_PRIVS.
 * Returns 0 or -errno.
 */
int privs_restrict(uint64_t keep, enum privs_flags flags);

/** The effective capability mask of this process (0 on error). */
uint64_t privs_effective(void);

/** True when @cap is in the effective set. */
bool privs_have(int cap);

#endif /* S2C_CLI_PRIVS_H */
