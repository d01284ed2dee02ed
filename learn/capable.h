/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the BPF program (capable.bpf.c) and its loader (bpf.c) exchange: the
 * keys and values of its maps.  Plain fixed-size types only, because this
 * header is compiled both for the BPF target and for the host.
 *
 * Internal: run ptrace sysmap bpf ksyms sysnames capable capable.bpf.
 */
#ifndef S2C_LEARN_CAPABLE_H
#define S2C_LEARN_CAPABLE_H

/** Flag bits of struct capable_key. */
enum {
	CAPABLE_GRANTED = 1 << 0,  /**< cap_capable() returned 0 */
	CAPABLE_QUIET = 1 << 1,    /**< the caller passed CAP_OPT_NOAUDIT: a probe, not a demand */
	CAPABLE_OPTS_KNOWN = 1 << 2, /**< the hook saw the opts argument, so CAPABLE_QUIET is exact */
};

/** Frames kept of each kernel stack ("stacks" map). */
#define CAPABLE_STACK_DEPTH 16

/** One kind of capability check, counted in the "checks" map. */
struct capable_key {
	int cap;                   /**< capability number */
	int nr;                    /**< syscall number, -1 outside a syscall */
	unsigned int flags;        /**< CAPABLE_* */
	int stack;                 /**< id in the "stacks" map, or negative: no kernel stack */
};

/** A syscall that failed after a capability was denied in it ("failures" map). */
struct capable_fail_key {
	int nr;                    /**< syscall number */
	int err;                   /**< positive errno it returned */
	unsigned long long denied; /**< capabilities denied during it (audited checks) */
};

/** Per-thread state of the syscall in progress ("inflight" map). */
struct capable_inflight {
	int nr;
	unsigned int pad;
	unsigned long long denied;
};

#endif /* S2C_LEARN_CAPABLE_H */
