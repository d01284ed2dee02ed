/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hash.h"
#include "program.h"
#include "resolve.h"
#include "util.h"
#include "common.h"

/* Where a command name without a slash is looked for, beneath the root. */
static const char *const search_path[] = {
	"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
};

void learn_program_release(struct learn_program *p)
{
	if (p->fd >= 0)
		(void)close(p->fd);
	p->fd = -1;
	free(p->path);
	p->path = NULL;
}

/* Open @path beneath @rootfd, following symlinks only inside the root. */
static int open_in_root(int rootfd, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS)
		return resolve_open(rootfd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	return fd < 0 ? -errno : (int)fd;
}

/* The path of the open file @fd relative to the root @root_real. */
static char *path_beneath(int fd, const char *root_real)
{
	char link[64], target[PATH_MAX];
	size_t rl = strlen(root_real);
	ssize_t n;

	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	if (s2c_streq(root_real, "/"))
		return strdup(target);
	if (strncmp(target, root_real, rl) != 0 || target[rl] != '/')
		return NULL;
	return strdup(target + rl);
}

/* The first executable regular file @name in the search path beneath @rootfd. */
static int search(int rootfd, const char *name)
{
	int fd = -ENOENT;

	for (size_t i = 0; i < S2C_ELEMENTSOF(search_path) && fd < 0; i++) {
		_cleanup_free_ char *p = path_join(search_path[i], name);
		struct stat st;

		if (!p)
			return -ENOMEM;
		fd = open_in_root(rootfd, p);
		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
				!(st.st_mode & 0111))) {
			(void)close(fd);
			fd = -ENOENT;
		}
	}
	return fd;
}

/* Open @name beneath @rootfd: a path (relative to @cwd), or a name in the search path. */
static int open_named(int rootfd, const char *name, const char *cwd, const char **ret_shown,
		      char **ret_abs)
{
	if (!strchr(name, '/'))
		return search(rootfd, name);
	if (name[0] != '/') {
		if (!(*ret_abs = path_join(cwd, name)))
			return -ENOMEM;
		*ret_shown = *ret_abs;
	}
	return open_in_root(rootfd, *ret_shown);
}

int learn_program_find(int rootfd, const char *root_real, const char *name, const char *cwd,
		       struct learn_program *ret, struct s2c_error *err)
{
	bool live = s2c_streq(root_real, "/");
	_cleanup_free_ char *abs = NULL;
	const char *shown = name;
	int fd;

	if (strchr(name, '/') && name[0] != '/' && !cwd)
		return s2c_error_set(err, -EINVAL, "with --root, COMMAND must be an absolute path "
				     "or a name, not '%s'", name);
	fd = open_named(rootfd, name, cwd, &shown, &abs);
	if (fd == -ENOENT)
		return s2c_error_set(err, fd, "command '%s' not found%s%s%s", name,
				     live ? "" : " beneath '", live ? "" : root_real,
				     live ? "" : "'");
	if (fd == -ENOMEM)
		return fd;
	if (fd < 0 && live)
		return s2c_error_errno(err, fd, "cannot open '%s'", shown);
	if (fd < 0)
		return s2c_error_errno(err, fd, "cannot open '%s' beneath the root '%s'", name,
				       root_real);
	ret->fd = fd;
	ret->path = path_beneath(fd, root_real);
	if (!ret->path)
		return s2c_error_set(err, -EXDEV, "cannot tell where '%s' is beneath the root",
				     name);
	return 0;
}

int learn_program_inspect(struct learn_program *p, struct s2c_error *err)
{
	struct stat st;
	char head[2] = { 0 };
	int r;

	if (fstat(p->fd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat '%s'", p->path);
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
		return s2c_error_set(err, -ENOEXEC, "'%s' is not an executable file", p->path);
	r = hash_fd_sha256(p->fd, p->sha256);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot read '%s'", p->path);
	p->script = pread(p->fd, head, 2, 0) == 2 && head[0] == '#' && head[1] == '!';
	return 0;
}
