/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "resolve.h"
#include "common.h"

char *resolve_normalise(const char *path)
{
	size_t len = strlen(path);
	char *out, *o;
	const char *p = path;

	if (len == 0) {
		errno = EINVAL;
		return NULL;
	}
	out = malloc(len + 2);
	if (!out)
		return NULL;
	o = out;
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			free(out);
			errno = EINVAL;
			return NULL;
		}
		*o++ = '/';
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	return out;
}

int resolve_open_walk(int rootfd, const char *path, int flags)
{
	_cleanup_free_ char *norm = resolve_normalise(path);
	_cleanup_close_ int cur = -1;
	char *p, *slash;

	if (!norm)
		return -errno;
	cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	if (s2c_streq(norm, "/")) {
		int fd = openat(rootfd, ".", (flags | O_CLOEXEC) & ~O_NOFOLLOW);
		return fd < 0 ? -errno : fd;
	}
	p = norm + 1;
	while ((slash = strchr(p, '/'))) {
		int next;

		*slash = '\0';
		next = openat(cur, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			/* O_PATH|O_NOFOLLOW opens a symlink itself: ENOTDIR then. */
			int e = errno;
			struct stat st;
			if (e == ENOTDIR && fstatat(cur, p, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				e = ELOOP;
			return -e;
		}
		(void)close(cur);
		cur = next;
		p = slash + 1;
	}
	{
		int fd = openat(cur, p, flags | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			struct stat st;
			if (errno == ENOTDIR && fstatat(cur, p, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				return -ELOOP;
			return -errno;
		}
		if (flags & O_PATH) {
			/* O_PATH|O_NOFOLLOW succeeds on a symlink; refuse it here. */
			struct stat st;
			if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
				(void)close(fd);
				return -ELOOP;
			}
		}
		return fd;
	}
}

/* O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR: say ELOOP instead. */
static int symlink_or(int rootfd, const char *path, int error)
{
	int fd = resolve_open(rootfd, path, O_PATH);

	if (fd == -ELOOP)
		return -ELOOP;
	if (fd >= 0)
		(void)close(fd);
	return error;
}

int resolve_open(int rootfd, const char *path, int flags)
{
	static int have_openat2 = 1;
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_free_ char *norm = NULL;
	long fd;

	if (!__atomic_load_n(&have_openat2, __ATOMIC_RELAXED))
		return resolve_open_walk(rootfd, path, flags);
	norm = resolve_normalise(path);
	if (!norm)
		return -errno;
	/* O_NOFOLLOW on "/" itself would be meaningless; open the root. */
	fd = syscall(SYS_openat2, rootfd, s2c_streq(norm, "/") ? "." : norm + 1, &how, sizeof(how));
	if (fd >= 0) {
		if (flags & O_PATH) {
			struct stat st;
			if (fstat((int)fd, &st) == 0 && S_ISLNK(st.st_mode)) {
				(void)close((int)fd);
				return -ELOOP;
			}
		}
		return (int)fd;
	}
	if (errno == ENOTDIR && (flags & O_DIRECTORY))
		return symlink_or(rootfd, norm, -ENOTDIR);
	if (errno != ENOSYS)
		return -errno;
	__atomic_store_n(&have_openat2, 0, __ATOMIC_RELAXED);
	return resolve_open_walk(rootfd, path, flags);
}

int resolve_open_parent(int rootfd, const char *path, const char **ret_name)
{
	const char *slash = strrchr(path, '/');
	_cleanup_free_ char *parent = NULL;
	int fd;

	if (!slash || slash[1] == '\0')
		return -EINVAL;
	parent = strndup(path, (size_t)(slash - path));
	if (!parent)
		return -ENOMEM;
	fd = resolve_open(rootfd, *parent ? parent : "/", O_PATH | O_DIRECTORY);
	if (fd < 0)
		return fd;
	*ret_name = slash + 1;
	return fd;
}
