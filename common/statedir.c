/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "statedir.h"
#include "trust.h"
#include "util.h"
#include "common.h"

/* @len bytes of @path beneath @root, for messages: "/tmp/img" + "/var/lib". */
static char *beneath(const char *root, const char *path, size_t len)
{
	size_t rl = root ? strlen(root) : 0;
	char *out;

	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	if (asprintf(&out, "%.*s%.*s", (int)rl, rl ? root : "", (int)len, path) < 0)
		return NULL;
	return out;
}

char *statedir_shown(const char *root, const char *name)
{
	_cleanup_free_ char *dir = beneath(root, S2C_STATEDIR, strlen(S2C_STATEDIR));

	return dir && name ? path_join(dir, name) : TAKE_PTR(dir);
}

/*
 * One directory on the way to, of or in the state directory: @name in @parent, made with
 * @mode when it is absent and @create, the way a package manager makes its directories
 * (exactly @mode, whatever the umask or a set-group-ID parent says).  A symbolic link or
 * anything but a directory is refused; with @trusted so is a directory that fails
 * @policy.  @shown names it in messages.
 */
static int open_component(int parent, const char *name, mode_t mode, enum trust_policy policy,
			  const char *what, bool create, bool trusted, const char *shown,
			  int *ret, struct s2c_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	bool made = false;

	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(parent, name, mode) == 0)
			made = true;
		else if (errno != EEXIST)
			return s2c_error_errno(err, -errno, "cannot create %s '%s'", what, shown);
		fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		int e = errno;

		if ((e == ELOOP || e == ENOTDIR) &&
		    fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return s2c_error_set(err, S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR,
					     "%s '%s' is %s, refusing it", what, shown,
					     S_ISLNK(st.st_mode) ? "a symbolic link" :
					     "not a directory");
		return s2c_error_errno(err, -e, "cannot open %s '%s'", what, shown);
	}
	if (made) {
		if (fchmod(fd, mode) < 0)
			return s2c_error_errno(err, -errno, "cannot set the mode of %s '%s'", what,
					       shown);
		(void)fsync(parent);
	}
	if (fstat(fd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat %s '%s'", what, shown);
	if (!S_ISDIR(st.st_mode))
		return s2c_error_set(err, -ENOTDIR, "%s '%s' is not a directory, refusing it", what,
				     shown);
	if (trusted) {
		int r = trust_check(st.st_uid, st.st_mode, policy, what, shown, err);
		if (r < 0)
			return r;
	}
	*ret = TAKE_FD(fd);
	return 0;
}

int statedir_open(int rootfd, const char *root, bool create, bool trusted, int *ret_fd,
		  struct s2c_error *err)
{
	const char *p = S2C_STATEDIR;
	_cleanup_close_ int cur = -1;
	int r;

	/* A real fd, not O_PATH: a directory made in it is made durable with fsync. */
	cur = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return s2c_error_errno(err, -errno, "cannot open the root '%s'", root ? root : "/");
	while (*p) {
		_cleanup_free_ char *name = NULL, *shown = NULL;
		size_t n;
		bool last;
		int next;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			break;
		last = !p[n + strspn(p + n, "/")];
		name = strndup(p, n);
		shown = beneath(root, S2C_STATEDIR, (size_t)(p + n - S2C_STATEDIR));
		if (!name || !shown)
			return -ENOMEM;
		if (s2c_streq(name, ".") || s2c_streq(name, ".."))
			return s2c_error_set(err, -EINVAL, "the state directory '%s' is not a "
					     "normalised path", S2C_STATEDIR);
		r = open_component(cur, name, last ? 0700 : 0755,
				   last ? TRUST_PRIVATE : TRUST_SHARED,
				   last ? "state directory" : "directory", create, trusted, shown,
				   &next, err);
		if (r < 0)
			return r;
		(void)close(cur);
		cur = next;
		p += n;
	}
	/* An existing state directory made with another umask is put right when writing. */
	if (create && fchmod(cur, 0700) < 0) {
		_cleanup_free_ char *shown = statedir_shown(root, NULL);
		return s2c_error_errno(err, -errno, "cannot set the mode of the state directory "
				       "'%s'", shown ? shown : S2C_STATEDIR);
	}
	*ret_fd = TAKE_FD(cur);
	return 0;
}

int statedir_open_sub(int dirfd, const char *root, const char *name, const char *what,
		      bool create, bool trusted, int *ret_fd, struct s2c_error *err)
{
	_cleanup_free_ char *shown = statedir_shown(root, name);
	struct s2c_error e = { 0 };
	int r;

	if (!shown)
		return -ENOMEM;
	r = open_component(dirfd, name, 0700, TRUST_PRIVATE, what, create, trusted, shown, ret_fd,
			   &e);
	if (r == -ENOENT && !create)
		return r;
	if (r < 0 && err)
		*err = e;
	return r;
}

int statedir_lock(int dirfd, const char *shown, struct s2c_error *err)
{
	if (flock(dirfd, LOCK_EX | LOCK_NB) < 0)
		return s2c_error_errno(err, -errno, "another apply, rollback or verify is running "
				       "on '%s'", shown);
	return 0;
}
