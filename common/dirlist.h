/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Listing a directory: the names that match a glob, sorted, so that every
 * reader of a configuration or journal directory sees them in the same order.
 */
#ifndef S2C_COMMON_DIRLIST_H
#define S2C_COMMON_DIRLIST_H

#include <stddef.h>

/**
 * The names in the directory open at @dirfd that match the fnmatch(3) @glob
 * (with FNM_PERIOD: a leading dot only matches a literal one), or with a NULL
 * @glob every name but "." and "..", sorted by bytes.  @dirfd itself is left open and unmoved.  At most @max names (0:
 * no limit) are returned; the rest are ignored.
 * @ret  a NULL-terminated array, free with strv_free() (common/util.h).
 * Returns the number of names, or -errno.
 */
int dirlist(int dirfd, const char *glob, size_t max, char ***ret);

#endif /* S2C_COMMON_DIRLIST_H */
