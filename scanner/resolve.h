/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening paths beneath a root directory without following symlinks.
 *
 * Every path the tool reads or changes is resolved relative to a root fd:
 * openat2(2) with RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
 * where the kernel has it, otherwise a component-by-component walk that opens
 * each directory with O_NOFOLLOW relative to the previous one.  Either way a
 * symlink anywhere in the path is an error (-ELOOP), ".." cannot climb out of
 * the root, and the result is an fd whose identity the caller then checks.
 */
#ifndef S2C_SCANNER_RESOLVE_H
#define S2C_SCANNER_RESOLVE_H

#include <stdbool.h>

/**
 * Open @path (absolute or relative; both are taken relative to @rootfd) with
 * open(2) @flags (O_NOFOLLOW and O_CLOEXEC are added).  "." components are
 * ignored; ".." components are refused with -EINVAL.
 * Returns the new fd or -errno.
 */
int resolve_open(int rootfd, const char *path, int flags);

/** The component-wise fallback of resolve_open(), exposed for tests. */
int resolve_open_walk(int rootfd, const char *path, int flags);

/**
 * Normalise a user-supplied path to the canonical form used in reports:
 * absolute, no empty or "." components, no trailing slash ("/" stays "/").
 * Returns a new string, or NULL with errno set (EINVAL for ".." components
 * or an empty path, ENOMEM).
 */
char *resolve_normalise(const char *path);

/**
 * Split a normalised path into its parent and last component: opens the
 * parent with resolve_open(@rootfd, parent, O_PATH | O_DIRECTORY) and returns
 * the fd, storing a pointer into @path for the last component in @ret_name.
 * Returns the fd or -errno (-EINVAL for "/").
 */
int resolve_open_parent(int rootfd, const char *path, const char **ret_name);

/** resolve_chase() flags. */
enum resolve_chase_flags {
	/** A ".." of @path itself that would climb above the root is refused (-EXDEV) instead of
	 *  staying at the root; ".." in a link's target always stays beneath the root. */
	RESOLVE_CHASE_NO_CLIMB = 1 << 0,
};

/** Most symbolic links resolve_chase() follows for one path (the kernel's limit). */
#define RESOLVE_CHASE_MAX_LINKS 40

/**
 * Find what @path (taken relative to @rootfd, as resolve_open() does) names when
 * its symbolic links are followed the way a process chrooted to the root would
 * follow them, and return that file's path: absolute, beneath the root, with no
 * symbolic link, "." or ".." in it.  A link's absolute target starts again at
 * the root and ".." never leaves it (openat2 RESOLVE_IN_ROOT semantics), so the
 * result never names anything outside the root.  Nothing is opened but
 * directories and links (O_PATH), and the result is a path, not a promise: a
 * caller opens it again with resolve_open(), which refuses any link swapped in
 * meanwhile.
 * @flags         enum resolve_chase_flags
 * @ret_path      on success, the path (free() it)
 * @ret_followed  on success, whether a link was followed; may be NULL
 * Returns 0, or -errno: -ENOENT (a component does not exist), -ENOTDIR, -ELOOP
 * (more than RESOLVE_CHASE_MAX_LINKS links), -EXDEV (RESOLVE_CHASE_NO_CLIMB),
 * -EINVAL (empty path), -ENAMETOOLONG, -ENOMEM, or what openat() says.
 */
int resolve_chase(int rootfd, const char *path, unsigned flags, char **ret_path,
		  bool *ret_followed);

#endif /* S2C_SCANNER_RESOLVE_H */
