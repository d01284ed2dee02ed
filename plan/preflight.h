/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Can a filesystem hold the change at all?  Checked once per filesystem
 * before any file on it is touched: the kernel honours file capabilities, the
 * mount is neither nosuid nor read-only, and security.capability can be
 * written there — probed on an anonymous temporary file in the same directory
 * (O_TMPFILE, or a created-and-unlinked file), so nothing is left behind.
 * When it fails, the entries on that filesystem are skipped with the reason
 * and their files keep their set-ID bits: nothing is ever left with neither.
 *
 * Internal: apply applyrun restore smoke preflight.
 */
#ifndef S2C_PLAN_PREFLIGHT_H
#define S2C_PLAN_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/** Results cached per device. */
struct preflight {
	struct preflight_fs {
		dev_t dev;
		int verdict;          /**< 0 usable, else -errno */
		char reason[256];
		bool caps_ok;         /**< security.capability writable */
		bool nosuid;          /**< mounted nosuid */
	} v[64];
	size_t n;
	int kernel;                   /**< 0 file caps honoured, -ENOTSUP when booted with no_file_caps, 1 unknown */
};

/**
 * Check the filesystem of directory @dirfd for an entry that needs to write
 * capabilities (@need_caps) or only to change the mode.
 * Returns 0 when usable, else -errno with a static-lifetime reason in
 * @ret_reason (valid as long as @pf).
 */
int preflight_check(struct preflight *pf, int dirfd, bool need_caps, const char **ret_reason);

#endif /* S2C_PLAN_PREFLIGHT_H */
