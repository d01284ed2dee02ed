/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The few kernel types capable.bpf.c needs, written by hand instead of a
 * vmlinux.h dumped from the build machine's BTF: the build then works where
 * /sys/kernel/btf/vmlinux is absent (chroots, containers, build daemons).
 *
 * Every structure carries preserve_access_index, so libbpf relocates each
 * field access against the running kernel's BTF when the program is loaded
 * (CO-RE): only the names of the fields used here must exist, not their
 * offsets or the rest of the structure.
 */
#ifndef S2C_LEARN_BPFMIN_H
#define S2C_LEARN_BPFMIN_H

/* bpf_tracing.h picks the kernel's register names when this is defined. */
#define __VMLINUX_H__

typedef unsigned char __u8;
typedef short unsigned int __u16;
typedef unsigned int __u32;
typedef long long unsigned int __u64;
typedef signed char __s8;
typedef short int __s16;
typedef int __s32;
typedef long long int __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef int pid_t;
typedef _Bool bool;
#define true 1
#define false 0

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
};

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_LRU_HASH = 9,
};

/** The result of bpf_get_ns_current_pid_tgid(). */
struct bpf_pidns_info {
	__u32 pid;
	__u32 tgid;
};

struct task_struct {
	pid_t pid;
	pid_t tgid;
} __attribute__((preserve_access_index));

struct cred;
struct user_namespace;
struct linux_binprm;

#if defined(__TARGET_ARCH_x86)
struct pt_regs {
	long unsigned int r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	long unsigned int ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
} __attribute__((preserve_access_index));
#elif defined(__TARGET_ARCH_arm64)
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
} __attribute__((preserve_access_index));
struct pt_regs;
#else
#error "capable.bpf.c knows the registers of x86_64 and arm64 only"
#endif

#endif /* S2C_LEARN_BPFMIN_H */
