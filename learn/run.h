/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One observed run of a command, as `suid2cap learn` makes it.
 *
 * The command runs in a PID namespace of its own, as the child of a small
 * init of ours, so that it and everything it starts end together: when the
 * command exits, at the time limit, on an error, or when suid2cap itself dies
 * (the init has PR_SET_PDEATHSIG), the init exits and the kernel kills every
 * process left in the namespace.  Before executing the command through the
 * file descriptor the caller opened, its process
 *
 *   - leaves our session (setsid), takes standard input from the caller's
 *     descriptor and sends standard output to the caller's error stream;
 *   - keeps only the candidate capabilities in its bounding set;
 *   - becomes the user (groups, gid, uid) with PR_SET_KEEPCAPS;
 *   - sets its permitted, inheritable, effective and ambient sets to the
 *     candidates, so that the program runs with them as after a migration
 *     (a program that has file capabilities gets them capped to the
 *     candidates instead);
 *   - sets no_new_privs, so nothing it executes can gain more;
 *   - reads its credentials back and refuses to run unless they are exactly
 *     that.
 *
 * The mechanism (learn/bpf or learn/ptrace) is armed before the command
 * starts and counts from its exec on.
 */
#ifndef S2C_LEARN_RUN_H
#define S2C_LEARN_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "observed.h"

struct learn_bpf;
struct s2c_error;

/** What to run, as whom, how long, and how to watch it. */
struct learn_spec {
	int exe_fd;                 /**< the program, executed through this fd (execveat) */
	bool script;                /**< a #! script: the fd stays open for its interpreter */
	char *const *argv;          /**< argv of the command, NULL-terminated */
	char *const *envp;          /**< its whole environment, NULL-terminated */
	uid_t uid;
	gid_t gid;
	const gid_t *groups;        /**< supplementary groups */
	size_t n_groups;
	uint64_t caps;              /**< the candidate capabilities */
	unsigned timeout;           /**< seconds, at least 1 */
	int stdin_fd;               /**< the command's standard input */
	int output_fd;              /**< its standard output and error */
	enum learn_mechanism mechanism;
	struct learn_bpf *bpf;      /**< loaded and attached (LEARN_BPF), borrowed */
};

/**
 * Run the command of @spec and fill @rec: its outcome (exit status or signal,
 * time limit, elapsed time, processes started and killed) and what the
 * mechanism observed.  The signal mask is restored and every process of the
 * run is gone when this returns.
 * Returns 0, or -errno with @err when the run could not be made (no PID
 * namespace, ptrace refused, the command could not be executed: "cannot
 * execute: Permission denied").
 */
int learn_run(const struct learn_spec *spec, struct learn_record *rec, struct s2c_error *err);

#endif /* S2C_LEARN_RUN_H */
