/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names of the syscalls of the architecture suid2cap is built for, from the
 * SYS_* macros of <sys/syscall.h> (the table is generated at configure time,
 * see learn/CMakeLists.txt), for the learn report.
 *
 * Internal: run ptrace sysmap bpf ksyms sysnames capable.
 */
#ifndef S2C_LEARN_SYSNAMES_H
#define S2C_LEARN_SYSNAMES_H

/** The name of syscall @nr ("socket"), or NULL when it has none here. */
const char *sysnames_name(long nr);

#endif /* S2C_LEARN_SYSNAMES_H */
