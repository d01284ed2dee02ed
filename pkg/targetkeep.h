/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the targets (pkg/target.h): what of a target's members matters.
 * target_wants() (declared in target.h) decides what a reader keeps; these
 * are the tests it shares with the installed files (targetfiles.c), the
 * library index (targetlibs.c) and target_trim().  Not for use outside
 * pkg/target*.c.
 *
 * Internal: target targetkeep targetfiles targetlibs.
 */
#ifndef S2C_PKG_TARGETKEEP_H
#define S2C_PKG_TARGETKEEP_H

#include <stdbool.h>

/**
 * Whether @path is in a directory the dynamic linker searches by default
 * (any multiarch triplet).
 */
bool targetkeep_in_lib_dir(const char *path);

/** Whether the file name of @path looks like a shared library ("….so…"). */
bool targetkeep_is_shared_lib(const char *path);

#endif /* S2C_PKG_TARGETKEEP_H */
