/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The BPF mechanism of `suid2cap learn`: load capable.bpf.c with libbpf
 * (CO-RE, relocated against the running kernel's BTF), attach it to the
 * kernel's capability check, and read back what it counted.
 *
 * The check is hooked where the kernel allows it, in this order: fexit on
 * cap_capable() (return value and the CAP_OPT_NOAUDIT flag together), the
 * cap_capable tracepoint of Linux 6.14 and later (no flags: the kernel's
 * quiet probes are told by the functions on the kernel stack instead), and a
 * kprobe/kretprobe pair on cap_capable() for kernels without BPF
 * trampolines.  Builds without libbpf have the same functions, which report
 * that BPF support was not built.
 */
#ifndef S2C_LEARN_BPF_H
#define S2C_LEARN_BPF_H

#include <stdbool.h>
#include <stdint.h>

struct learn_bpf;
struct learn_record;
struct s2c_error;

/** True when this build can use BPF (libbpf, bpftool and clang were found). */
bool learn_bpf_built(void);

/**
 * Load and attach the program, trying each hook in turn; nothing is counted
 * until learn_bpf_target() names the run's PID namespace.
 * Returns 0 with a new object in @ret, or -errno with the reason in @err:
 * -EOPNOTSUPP without BPF support, -EPERM when the kernel refuses (missing
 * CAP_BPF/CAP_PERFMON, a user namespace, lockdown, a seccomp filter), other
 * errors when no hook exists.
 */
int learn_bpf_open(struct learn_bpf **ret, struct s2c_error *err);

/** What was hooked: "fexit cap_capable", "tracepoint cap_capable" or "kprobe cap_capable". */
const char *learn_bpf_attach_name(const struct learn_bpf *b);

/**
 * Count the checks of the PID namespace @dev/@ino (the st_dev and st_ino of
 * its /proc/PID/ns/pid), from its first exec on; its pid 1 never counts.
 */
void learn_bpf_target(struct learn_bpf *b, uint64_t dev, uint64_t ino);

/** Processes of the run that started so far, the command included. */
uint64_t learn_bpf_started(const struct learn_bpf *b);

/** Processes of the run still running (started minus ended). */
uint64_t learn_bpf_running(const struct learn_bpf *b);

/**
 * Add what was counted to @rec: the checks (with their syscall and, when
 * /proc/kallsyms shows addresses, the kernel function that asked), the
 * syscalls that failed after a denial, and the checks lost to full maps.
 * Returns 0 or -errno with @err.
 */
int learn_bpf_collect(struct learn_bpf *b, struct learn_record *rec, struct s2c_error *err);

/** Detach and free; accepts NULL; returns NULL. */
struct learn_bpf *learn_bpf_free(struct learn_bpf *b);

#endif /* S2C_LEARN_BPF_H */
