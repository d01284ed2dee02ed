/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mount table, from /proc/self/mountinfo.
 *
 * The walker uses it to know mount points without a stat per directory
 * (crossing checks, pseudo filesystems to skip); the facts code uses it to say
 * which mount a candidate lives on (fstype, nosuid, ro).
 */
#ifndef S2C_SCANNER_MOUNTS_H
#define S2C_SCANNER_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "cleanup.h"

struct s2c_error;

/** Per-mount flags (from the per-mount options column). */
enum mount_flags {
	MOUNT_RDONLY = 1 << 0,
	MOUNT_NOSUID = 1 << 1,
	MOUNT_NOEXEC = 1 << 2,
	MOUNT_NODEV = 1 << 3,
};

/** One line of mountinfo. */
struct mount_entry {
	uint64_t id;            /**< mount id (statx STATX_MNT_ID) */
	uint64_t parent_id;     /**< parent mount id */
	unsigned major, minor;  /**< st_dev of files on this mount */
	char *target;           /**< mount point, unescaped, absolute */
	char *fstype;           /**< filesystem type, e.g. "ext4", "fuse.sshfs" */
	char *source;           /**< mount source, unescaped */
	enum mount_flags flags; /**< per-mount flags */
	bool pseudo;            /**< a pseudo filesystem (proc, sysfs, …) */
	/**
	 * For an overlayfs mount, the directories it is made of, from the super
	 * options (lowerdir, lowerdir+, datadir+, upperdir, workdir), unescaped:
	 * NULL-terminated, with the option each came from in the same place of
	 * @overlay_kinds ("lowerdir", "upperdir", …).  NULL for other mounts.
	 */
	char **overlay_dirs;
	const char **overlay_kinds;
};

/** The whole table, in mountinfo order (later entries mount over earlier ones). */
struct mounts {
	struct mount_entry *v;
	size_t n;
	char **targets_sorted;  /**< distinct targets, sorted, for prefix queries */
	size_t n_targets;
};

/**
 * Parse mountinfo text from @f.
 * @ret  on success a new table, free with mounts_free().
 * Returns 0, -ENOMEM, or -EINVAL with the line number in @err.
 */
int mounts_parse(FILE *f, struct mounts **ret, struct s2c_error *err);

/** Open and parse @path (normally "/proc/self/mountinfo"). */
int mounts_load(const char *path, struct mounts **ret, struct s2c_error *err);

/** Free a table; accepts NULL; returns NULL. */
struct mounts *mounts_free(struct mounts *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct mounts *, mounts_free)

/**
 * The mount whose mount point is exactly @path (the topmost one when several
 * are stacked), or NULL when @path is not a mount point.  Borrowed pointer.
 */
const struct mount_entry *mounts_at(const struct mounts *m, const char *path);

/** True when some mount point lies strictly below directory @path. */
bool mounts_below(const struct mounts *m, const char *path);

/** The mount with id @id, or NULL.  Borrowed pointer. */
const struct mount_entry *mounts_by_id(const struct mounts *m, uint64_t id);

/**
 * The mount containing @path by longest mount-point prefix (topmost when
 * stacked); "/" always matches when present.  Borrowed pointer or NULL.
 */
const struct mount_entry *mounts_containing(const struct mounts *m, const char *path);

/** True when @fstype names a pseudo filesystem the walker skips by default. */
bool mounts_fstype_is_pseudo(const char *fstype);

/** True when statfs(2) magic @magic is a pseudo filesystem. */
bool mounts_magic_is_pseudo(long magic);

/** A filesystem type name for statfs(2) magic @magic ("ext4", …) or NULL. */
const char *mounts_magic_name(long magic);

#endif /* S2C_SCANNER_MOUNTS_H */
