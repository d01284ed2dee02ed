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

/* What resolve_chase() has resolved so far, and what it still has to. */
struct chase {
	int rootfd;
	int cur;                /* the directory reached (O_PATH) */
	char *todo;             /* what is left to resolve, link targets spliced in */
	const char *p;          /* the next component, in todo */
	char *canon;            /* cur's path beneath the root, no link in it; "" for the root */
	size_t clen;
	unsigned links;
	bool followed;
};

/* "..": canon has no link in it, so its parent is the directory above. */
static int chase_up(struct chase *c)
{
	char *slash = strrchr(c->canon, '/');

	if (!slash)
		return 0;       /* ".." of the root is the root */
	*slash = '\0';
	c->clen = (size_t)(slash - c->canon);
	return reopen_dir(c->rootfd, c->canon, &c->cur);
}

/* The link open at @fd (taken over): its target goes in front of what is left. */
static int chase_link(struct chase *c, int fd)
{
	_cleanup_close_ int lfd = fd;
	_cleanup_free_ char *target = NULL;
	char *next = NULL;

	if (++c->links > RESOLVE_CHASE_MAX_LINKS)
		return -ELOOP;
	target = read_link(lfd);
	if (!target)
		return -errno;
	if (strlen(target) + strlen(c->p) + 1 > CHASE_TODO_MAX)
		return -ENAMETOOLONG;
	if (asprintf(&next, "%s%s", target, c->p) < 0)
		return -ENOMEM;
	free(c->todo);
	c->p = c->todo = next;
	c->followed = true;
	if (target[0] != '/')
		return 0;
	c->canon[0] = '\0';
	c->clen = 0;
	return reopen_dir(c->rootfd, c->canon, &c->cur);
}

/* Step into @name (@n bytes), open at @fd (taken over) with the status @st. */
static int chase_enter(struct chase *c, int fd, const struct stat *st, const char *name, size_t n)
{
	_cleanup_close_ int nfd = fd;

	/* "file/..." and "file/" name nothing, as for the kernel. */
	if (!S_ISDIR(st->st_mode) && *c->p == '/')
		return -ENOTDIR;
	if (c->clen + 1 + n >= PATH_MAX)
		return -ENAMETOOLONG;
	c->canon[c->clen++] = '/';
	memcpy(c->canon + c->clen, name, n + 1);
	c->clen += n;
	(void)close(c->cur);
	c->cur = TAKE_FD(nfd);
	return 0;
}

/* Resolve the next component of what is left: 0, 1 when nothing is left, or -errno. */
static int chase_step(struct chase *c)
{
	char name[NAME_MAX + 1];
	struct stat st;
	size_t n;
	int fd;

	while (*c->p == '/')
		c->p++;
	if (!*c->p)
		return 1;
	n = strcspn(c->p, "/");
	if (n == 1 && c->p[0] == '.') {
		c->p += n;
		return 0;
	}
	if (n == 2 && c->p[0] == '.' && c->p[1] == '.') {
		c->p += n;
		return chase_up(c);
	}
	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, c->p, n);
	name[n] = '\0';
	c->p += n;
	fd = openat(c->cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int r = -errno;
		(void)close(fd);
		return r;
	}
	if (S_ISLNK(st.st_mode))
		return chase_link(c, fd);
	return chase_enter(c, fd, &st, name, n);
}

int resolve_chase(int rootfd, const char *path, unsigned flags, char **ret_path,
		  bool *ret_followed)
{
	struct chase c = { .rootfd = rootfd, .cur = -1 };
	char *out = NULL;
	int r = 0;

	if (!*path)
		return -EINVAL;
	if ((flags & RESOLVE_CHASE_NO_CLIMB) && climbs(path))
		return -EXDEV;
	c.todo = strdup(path);
	c.canon = malloc(PATH_MAX);
	if (!c.todo || !c.canon)
		r = -ENOMEM;
	if (r == 0) {
		c.canon[0] = '\0';
		c.p = c.todo;
		c.cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (c.cur < 0)
			r = -errno;
	}
	while (r == 0)
		r = chase_step(&c);
	if (r > 0)
		r = (out = strdup(c.clen ? c.canon : "/")) ? 0 : -ENOMEM;
	free(c.todo);
	free(c.canon);
	if (c.cur >= 0)
		(void)close(c.cur);
	if (r < 0)
		return r;
	*ret_path = out;
	if (ret_followed)
		*ret_followed = c.followed;
	return 0;
}
