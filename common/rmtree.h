/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Removing a directory tree without following a symbolic link: every entry
 * is unlinked relative to its directory's descriptor, and directories are
 * opened with O_NOFOLLOW, so a link swapped in leads nowhere outside.
 */
#ifndef S2C_COMMON_RMTREE_H
#define S2C_COMMON_RMTREE_H

/**
 * Remove everything inside the directory open at @fd (taken over and closed),
 * at most @max_depth levels down.  Returns 0, or the first -errno met (the
 * rest is still removed as far as it can be).
 */
int rmtree_empty(int fd, unsigned max_depth);

/**
 * Remove @name in @dirfd whatever it is (a directory with all it holds),
 * without following it.  A missing @name is not an error.  Returns 0 or -errno.
 */
int rmtree_at(int dirfd, const char *name, unsigned max_depth);

#endif /* S2C_COMMON_RMTREE_H */
