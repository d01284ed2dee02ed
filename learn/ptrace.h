/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ptrace mechanism of `suid2cap learn`, for kernels or builds without
 * BPF: follow the run's every process and thread (PTRACE_SEIZE with
 * TRACEFORK, TRACEVFORK, TRACECLONE, TRACEEXEC and EXITKILL), stop each at
 * every syscall once the command has been executed, and let learn/sysmap
 * turn the syscalls and their results into capability checks.
 *
 * The run's init is seized before it starts the command; it is followed but
 * never stopped at syscalls, and the command's set-up between fork and exec
 * is not looked at either.
 *
 * ptrace cannot follow a child started with clone(CLONE_UNTRACED): such a
 * task is counted, never hidden.  It shows as a fork, vfork, clone or
 * clone3 that returned a child's pid with no event for it (or a tracee that
 * died inside a clone with CLONE_UNTRACED), and as tasks of the run's PID
 * namespace beyond the ones followed (ptracer_untraced()).
 *
 * Internal: run ptrace sysmap bpf ksyms sysnames capable.
 */
#ifndef S2C_LEARN_PTRACE_H
#define S2C_LEARN_PTRACE_H

#include <stdint.h>
#include <sys/types.h>

struct learn_record;
struct ptracer;

/** A tracer that counts into @rec (borrowed).  Returns 0 or -ENOMEM. */
int ptracer_new(struct learn_record *rec, struct ptracer **ret);

/**
 * Seize the run's init @pid (stopped or blocked, not yet forked).
 * Returns 0 or -errno.
 */
int ptracer_seize(struct ptracer *t, pid_t pid);

/**
 * Handle the wait status @status that waitpid(__WALL) reported for the
 * tracee @pid, and resume it.  Returns 0, or -ENOMEM when counting failed.
 */
int ptracer_event(struct ptracer *t, pid_t pid, int status);

/** Processes of the run started so far, the command included. */
uint64_t ptracer_started(const struct ptracer *t);

/**
 * Tasks (processes or threads) of the run that were not followed: those
 * seen starting without an event, or, when @allocated (the last pid the
 * run's PID namespace handed out, every task of the run having one there; 0
 * when unknown) is larger, the difference to the tasks followed and the
 * forks that failed (a failed fork may have taken a pid).
 */
uint64_t ptracer_untraced(const struct ptracer *t, uint64_t allocated);

/** Processes of the run still running (the init not counted). */
uint64_t ptracer_running(const struct ptracer *t);

/** Free; accepts NULL; returns NULL.  Tracees are not touched. */
struct ptracer *ptracer_free(struct ptracer *t);

#endif /* S2C_LEARN_PTRACE_H */
