/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Package-manager hooks that run `suid2cap verify --fix` after every package
 * operation, so capabilities lost when a package update replaces a file are
 * restored at once.
 *
 * - dpkg: /etc/dpkg/dpkg.cfg.d/suid2cap, a "post-invoke" command run after
 *   every dpkg run (apt, dpkg -i, unattended upgrades alike);
 * - apt:  /etc/apt/apt.conf.d/80suid2cap, a DPkg::Post-Invoke command;
 * - rpm:  /etc/dnf/plugins/post-transaction-actions.d/suid2cap.action, for
 *   dnf's post-transaction-actions plugin (rpm itself has no local hooks).
 *
 * Each file carries a marker line; removal only deletes a file that has it.
 */
#ifndef S2C_PLAN_HOOK_H
#define S2C_PLAN_HOOK_H

#include <errno.h>

struct s2c_error;

/** Package managers with a hook. */
enum hook_kind {
	HOOK_DPKG,
	HOOK_APT,
	HOOK_RPM,
	_HOOK_KIND_MAX,
	_HOOK_KIND_INVALID = -EINVAL,
};

/** Parse "dpkg", "apt" or "rpm"; _HOOK_KIND_INVALID otherwise. */
enum hook_kind hook_kind_from_name(const char *s);

/** The hook file's path for @kind ("/etc/dpkg/dpkg.cfg.d/suid2cap"). */
const char *hook_path(enum hook_kind kind);

/**
 * Install the hook beneath @rootfd, running @program (absolute path of this
 * tool) with "verify --fix --quiet".  The directory must exist (the package
 * manager is installed); the file is written atomically with mode 0644.
 * Returns 0, -ENOENT when the package manager's directory is missing, or
 * another -errno with @err.
 */
int hook_install(int rootfd, enum hook_kind kind, const char *program, struct s2c_error *err);

/**
 * Remove the hook beneath @rootfd if it is ours (has the marker).
 * Returns 0 (also when absent), -EPERM when the file is not ours, or -errno.
 */
int hook_remove(int rootfd, enum hook_kind kind, struct s2c_error *err);

#endif /* S2C_PLAN_HOOK_H */
