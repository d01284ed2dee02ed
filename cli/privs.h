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
#include <linux/capability.h>

#include "macro.h"

/*
 * The sets each phase of a verb keeps (suid2cap privileges VERB shows them).
 * Reading: walking, hashing and parsing files, deciding.  Applying: setting
 * capabilities (SETFCAP), changing modes of files we do not own (FOWNER),
 * keeping a set-group-ID bit for a group we are not in (FSETID), opening
 * them (DAC_READ_SEARCH); CHOWN only for owner changes; SETUID, SETGID and
 * KILL only to run and stop smoke tests as an unprivileged user.
 */
#define PRIVS_READ S2C_CAPMASK(CAP_DAC_READ_SEARCH)
#define PRIVS_APPLY (S2C_CAPMASK(CAP_SETFCAP) | S2C_CAPMASK(CAP_FOWNER) | \
		     S2C_CAPMASK(CAP_FSETID) | S2C_CAPMASK(CAP_DAC_READ_SEARCH))
#define PRIVS_APPLY_CHOWN S2C_CAPMASK(CAP_CHOWN)
#define PRIVS_SMOKE (S2C_CAPMASK(CAP_SETUID) | S2C_CAPMASK(CAP_SETGID) | S2C_CAPMASK(CAP_KILL))
#define PRIVS_ROLLBACK (PRIVS_APPLY | PRIVS_APPLY_CHOWN)
/* learn: a PID namespace for the run (SYS_ADMIN) and the command's user and
 * capabilities (SETUID, SETGID, SETPCAP); BPF to load and attach its program
 * (BPF, PERFMON) and name kernel functions (SYSLOG); ptrace to follow the run
 * where ptrace is restricted.  The candidate capabilities come on top. */
#define PRIVS_LEARN_RUN (S2C_CAPMASK(CAP_SYS_ADMIN) | S2C_CAPMASK(CAP_SETUID) | \
			 S2C_CAPMASK(CAP_SETGID) | S2C_CAPMASK(CAP_SETPCAP))
#define PRIVS_LEARN_BPF (S2C_CAPMASK(CAP_BPF) | S2C_CAPMASK(CAP_PERFMON) | \
			 S2C_CAPMASK(CAP_SYSLOG))
#define PRIVS_LEARN_PTRACE S2C_CAPMASK(CAP_SYS_PTRACE)

/** How far to narrow. */
enum privs_flags {
	PRIVS_KEEP_BOUNDING = 1 << 0, /**< keep the bounding set and skip no_new_privs */
};

/** One phase of a verb and the privileges it keeps (for `privileges VERB`). */
struct privs_phase {
	const char *name;             /**< "read", "decide", "apply", …; NULL ends a list */
	uint64_t caps;                /**< capabilities kept (at most) */
	enum privs_flags flags;
	const char *what;             /**< what runs in it */
};

/**
 * Reduce the permitted and effective sets to @keep (intersected with what the
 * process has), clear the inheritable and ambient sets, and unless
 * PRIVS_KEEP_BOUNDING, drop every other capability from the bounding set and
 * set PR_SET_NO_NEW_PRIVS.
 * @what  NULL, or whose privileges for the message ("for 'learn'").
 * Returns 0, or S2C_EXIT_PRIVILEGE after printing why.
 */
int privs_restrict(uint64_t keep, enum privs_flags flags, const char *what);

/**
 * "effective cap_x,…; bounding cap_x,…; no_new_privs yes" for this process,
 * as the kernel reports it.  Returns a new string or NULL on OOM.
 */
char *privs_describe(void);

/** The effective capability mask of this process (0 on error). */
uint64_t privs_effective(void);

/** True when @cap is in the effective set. */
bool privs_have(int cap);

#endif /* S2C_CLI_PRIVS_H */
