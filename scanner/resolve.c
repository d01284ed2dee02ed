/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
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

/* Whether the ".." components of @path climb above where it starts. */
static bool climbs(const char *path)
{
	size_t depth = 0;

	for (const char *p = path; *p;) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (depth == 0)
				return true;
			depth--;
		} else if (n && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n;
	}
	return false;
}

/* The target of the link open as @fd (O_PATH | O_NOFOLLOW): a new string, or NULL with errno. */
static char *read_link(int fd)
{
	_cleanup_free_ char *buf = malloc(PATH_MAX);
	ssize_t n;

	if (!buf)
		return NULL;
	n = readlinkat(fd, "", buf, PATH_MAX);
	if (n < 0)
		return NULL;
	if (n == 0 || n == PATH_MAX) {
		errno = n ? ENAMETOOLONG : ENOENT;
		return NULL;
	}
	buf[n] = '\0';
	return TAKE_PTR(buf);
}

/* Replace the fd in @cur with the directory @canon ("" for the root) beneath @rootfd. */
static int reopen_dir(int rootfd, const char *canon, int *cur)
{
	int fd = resolve_open(rootfd, *canon ? canon : "/", O_PATH | O_DIRECTORY);

	if (fd < 0)
		return fd;
	(void)close(*cur);
	*cur = fd;
	return 0;
}

/* The longest path resolve_chase() keeps still to resolve (links included). */
#define CHASE_TODO_MAX (4 * PATH_MAX)

int resolve_chase(int rootfd, const char *path, unsigned flags, char **ret_path,
		  bool *ret_followed)
{
	_cleanup_free_ char *todo = NULL, *canon = NULL;
	_cleanup_close_ int cur = -1;
	unsigned links = 0;
	size_t clen = 0;
	bool followed = false;
	const char *p;
	char *out;
	int r;

	if (!*path)
		return -EINVAL;
	if ((flags & RESOLVE_CHASE_NO_CLIMB) && climbs(path))
		return -EXDEV;
	todo = strdup(path);
	canon = malloc(PATH_MAX);
	if (!todo || !canon)
		return -ENOMEM;
	canon[0] = '\0';
	cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	for (p = todo;;) {
		char name[NAME_MAX + 1];
		struct stat st;
		size_t n;
		int fd;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			/* canon has no link in it: its parent is the directory above. */
			char *slash = strrchr(canon, '/');

			p += n;
			if (!slash)
				continue;       /* ".." of the root is the root */
			*slash = '\0';
			clen = (size_t)(slash - canon);
			r = reopen_dir(rootfd, canon, &cur);
			if (r < 0)
				return r;
			continue;
		}
		if (n > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (fstat(fd, &st) < 0) {
			r = -errno;
			(void)close(fd);
			return r;
		}
		if (S_ISLNK(st.st_mode)) {
			_cleanup_free_ char *target = NULL;
			char *next = NULL;

			target = ++links > RESOLVE_CHASE_MAX_LINKS ? NULL : read_link(fd);
			r = links > RESOLVE_CHASE_MAX_LINKS ? -ELOOP : target ? 0 : -errno;
			(void)close(fd);
			if (r < 0)
				return r;
			if (strlen(target) + strlen(p) + 1 > CHASE_TODO_MAX)
				return -ENAMETOOLONG;
			if (asprintf(&next, "%s%s", target, p) < 0)
				return -ENOMEM;
			free(todo);
			p = todo = next;
			followed = true;
			if (target[0] == '/') {
				canon[0] = '\0';
				clen = 0;
				r = reopen_dir(rootfd, canon, &cur);
				if (r < 0)
					return r;
			}
			continue;
		}
		/* "file/..." and "file/" name nothing, as for the kernel. */
		if (!S_ISDIR(st.st_mode) && *p == '/') {
			(void)close(fd);
			return -ENOTDIR;
		}
		if (clen + 1 + n >= PATH_MAX) {
			(void)close(fd);
			return -ENAMETOOLONG;
		}
		canon[clen++] = '/';
		memcpy(canon + clen, name, n + 1);
		clen += n;
		(void)close(cur);
		cur = fd;
	}
	out = strdup(clen ? canon : "/");
	if (!out)
		return -ENOMEM;
	*ret_path = out;
	if (ret_followed)
		*ret_followed = followed;
	return 0;
}
