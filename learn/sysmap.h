/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ptrace mechanism's knowledge: which syscalls, with which arguments,
 * need which capability, and which errors mean the kernel refused one.
 *
 * At a syscall's entry its arguments (and, where the rule depends on them,
 * the tracee's limits, ids and locked memory from /proc) give the
 * capabilities the call needs to succeed: a raw or packet socket
 * cap_net_raw, a bind below net.ipv4.ip_unprivileged_port_start
 * cap_net_bind_service, a real-time policy beyond RLIMIT_RTPRIO
 * cap_sys_nice, locking memory beyond RLIMIT_MEMLOCK cap_ipc_lock, raising
 * a hard limit cap_sys_resource, switching to ids the process does not
 * hold cap_setuid/cap_setgid, mount and namespaces cap_sys_admin, and so on.
 * At its exit a success counts as granted checks; a refusal (EPERM, EACCES,
 * and for memory locking ENOMEM and EAGAIN) as denied checks and a failed
 * syscall.  Other EPERM and EACCES failures are listed with no capability.
 *
 * This sees only what arguments imply; the BPF mechanism sees the kernel's
 * own checks.
 *
 * Internal: run ptrace sysmap bpf ksyms sysnames capable.
 */
#ifndef S2C_LEARN_SYSMAP_H
#define S2C_LEARN_SYSMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct learn_record;

/** Errors that mean the kernel refused the privileged operation. */
enum {
	SYSMAP_EPERM = 1 << 0,
	SYSMAP_EACCES = 1 << 1,
	SYSMAP_ENOMEM = 1 << 2,
	SYSMAP_EAGAIN = 1 << 3,
};

/** One syscall as seen at its entry. */
struct sysmap_call {
	long nr;
	const char *name;     /**< its name (static), or NULL when unknown */
	uint64_t needs;       /**< capabilities it needs to succeed with these arguments */
	uint64_t explains;    /**< capabilities a refusal points at (needs, or the candidates
				   of a refusal that cannot be predicted) */
	unsigned refusals;    /**< SYSMAP_* errors that mean "refused" for this call */
	bool spawns;          /**< fork, vfork, clone or clone3: it starts a process or thread */
	uint64_t clone_flags; /**< their flags (clone3's read from the tracee; fork: none) */
};

/**
 * Examine syscall @nr with @args, made by the stopped tracee @pid (whose
 * memory is read with PTRACE_PEEKDATA and whose /proc entries are read).
 * Fills @ret in full; unknown syscalls need nothing.
 */
void sysmap_enter(pid_t pid, long nr, const uint64_t args[6], struct sysmap_call *ret);

/**
 * Count the outcome of @c in @rec: granted checks when it succeeded, denied
 * checks and a failure when it was refused, a failure without capability
 * for another EPERM or EACCES.  @rval is the return value, @is_error whether
 * it is an error (-errno).  Returns 0 or -ENOMEM.
 */
int sysmap_exit(const struct sysmap_call *c, long rval, bool is_error, struct learn_record *rec);

#endif /* S2C_LEARN_SYSMAP_H */
