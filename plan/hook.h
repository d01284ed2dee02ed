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
#include <stdbool.h>

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
 * Check that @program (an absolute path beneath @rootfd) can be run by a hook:
 * an executable regular file reached without symbolic links; with @trusted
 * (running as root) also owned by root and not writable by group or others,
 * and so is every directory on its way.
 * Returns 0, or -errno with @err (-ENOENT when it is missing, -EPERM when it
 * is not trusted, -ELOOP for a symbolic link, -EACCES when not executable).
 */
int hook_check_program(int rootfd, const char *program, bool trusted, struct s2c_error *err);

/**
 * Install the hook beneath @rootfd, running @program with "verify --fix
 * --quiet".  @program is the absolute path of the installed tool as the
 * package manager will see it (beneath @rootfd), checked with
 * hook_check_program() first: a missing program would make the hook a silent
 * no-op.  The hook's directory must exist (the package manager is installed); the
 * file is written atomically with mode 0644.
 * Returns 0, or -errno with @err: -ENOENT when @program or the package
 * manager's directory is missing, -EPERM when @program is not trusted.
 */
int hook_install(int rootfd, enum hook_kind kind, const char *program, bool trusted,
		 struct s2c_error *err);

/**
 * Remove the hook beneath @rootfd if it is ours (has the marker).
 * Returns 1 when it was removed, 0 when there was none, -EPERM when the file
 * is not ours, or another -errno with @err.
 */
int hook_remove(int rootfd, enum hook_kind kind, struct s2c_error *err);

#endif /* S2C_PLAN_HOOK_H */
