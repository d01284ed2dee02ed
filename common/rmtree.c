/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "dirlist.h"
#include "rmtree.h"
#include "util.h"
#include "common.h"

static int open_dir_at(int dirfd, const char *name)
{
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int rmtree_empty(int fd, unsigned max_depth)
{
	_cleanup_close_ int dfd = fd;
	_cleanup_(strv_freep) char **names = NULL;
	int r;

	if (max_depth == 0)
		return -ELOOP;
	r = dirlist(dfd, NULL, 0, &names);
	if (r < 0)
		return r;
	r = 0;
	for (size_t i = 0; names[i]; i++) {
		int sub, k;
		if (unlinkat(dfd, names[i], 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			r = r ? r : -errno;
			continue;
		}
		sub = open_dir_at(dfd, names[i]);
		if (sub < 0) {
			if (errno != ENOENT)
				r = r ? r : -errno;
			continue;
		}
		k = rmtree_empty(sub, max_depth - 1);
		if (k < 0 && !r)
			r = k;
		if (unlinkat(dfd, names[i], AT_REMOVEDIR) < 0 && errno != ENOENT && !r)
			r = -errno;
	}
	return r;
}

int rmtree_at(int dirfd, const char *name, unsigned max_depth)
{
	int fd;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	fd = open_dir_at(dirfd, name);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	(void)rmtree_empty(fd, max_depth);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
