/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel function names for the addresses of a kernel stack, from
 * /proc/kallsyms (which shows real addresses only to a reader the kernel
 * trusts: kernel.kptr_restrict 0, or 1 with CAP_SYSLOG).
 *
 * Internal: run ptrace sysmap bpf ksyms sysnames capable.
 */
#ifndef S2C_LEARN_KSYMS_H
#define S2C_LEARN_KSYMS_H

#include <stdint.h>

struct ksyms;

/**
 * Read the text symbols of /proc/kallsyms.
 * Returns 0 with a new table in @ret, -EPERM when the kernel hides the
 * addresses, or another -errno.
 */
int ksyms_load(struct ksyms **ret);

/**
 * The function containing @addr, without the compiler's ".cold",
 * ".isra.0"… suffixes; NULL when unknown.  Points into @k.
 */
const char *ksyms_name(const struct ksyms *k, uint64_t addr);

/** Free; accepts NULL; returns NULL. */
struct ksyms *ksyms_free(struct ksyms *k);

#endif /* S2C_LEARN_KSYMS_H */
