/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "capset.h"
#include "fcaps.h"
#include "fileop.h"
#include "resolve.h"
#include "trust.h"
#include "common.h"

static int check_parent(int fd, const char *path, size_t len, struct s2c_error *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat '%.*s'", (int)len, path);
	if (!S_ISDIR(st.st_mode))
		return s2c_error_set(err, -ENOTDIR, "'%.*s' is not a directory", (int)len, path);
	/* Its owner, group or anyone could swap the file after our checks. */
	switch (trust_test(st.st_uid, st.st_mode, TRUST_SHARED)) {
	case TRUST_NOT_ROOT:
		return s2c_error_set(err, -EPERM, "directory '%.*s' is not owned by root: its owner "
				     "could replace the file", (int)(len ? len : 1), len ? path : "/");
	case TRUST_OK:
		return 0;
	default:
		return s2c_error_set(err, -EPERM, "directory '%.*s' is writable by group or others: "
				     "they could replace the file", (int)(len ? len : 1),
				     len ? path : "/");
	}
}

int fileop_open_parent(int rootfd, const char *path, struct s2c_error *err)
{
	_cleanup_close_ int cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	const char *p = path, *last;
	int r;

	if (cur < 0)
		return s2c_error_errno(err, -errno, "cannot open the root");
	if (path[0] != '/' || !(last = strrchr(path, '/')) || !last[1])
		return s2c_error_set(err, -EINVAL, "'%s' is not an absolute file path", path);
	r = check_parent(cur, "/", 0, err);
	if (r < 0)
		return r;
	while (p < last) {
		size_t n;
		char name[256];
		int next;

		p++;
		n = strcspn(p, "/");
		if (n == 0 || n >= sizeof(name) || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return s2c_error_set(err, -EINVAL, "'%s' is not a normalised path", path);
		memcpy(name, p, n);
		name[n] = '\0';
		next = openat(cur, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int e = errno;
			struct stat st;
			if (e == ENOTDIR && fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				e = ELOOP;
			return s2c_error_errno(err, -e, "cannot open '%.*s'%s", (int)(p + n - path), path,
					       e == ELOOP ? " (a symbolic link, not followed)" : "");
		}
		(void)close(cur);
		cur = next;
		r = check_parent(cur, path, (size_t)(p + n - path), err);
		if (r < 0)
			return r;
		p += n;
	}
	return TAKE_FD(cur);
}

int fileop_open(int rootfd, const char *path, struct stat *ret_st, struct s2c_error *err)
{
	_cleanup_close_ int dfd = fileop_open_parent(rootfd, path, err);
	const char *name = strrchr(path, '/') + 1;
	struct stat st;
	int fd;

	if (dfd < 0)
		return dfd;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP)
			return s2c_error_set(err, -ELOOP, "'%s' is a symbolic link, not followed", path);
		return s2c_error_errno(err, -e, "cannot open '%s'", path);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = errno;
		(void)close(fd);
		if (e && !S_ISREG(st.st_mode) && st.st_mode == 0)
			return s2c_error_errno(err, -e, "cannot stat '%s'", path);
		return s2c_error_set(err, -EINVAL, "'%s' is not a regular file", path);
	}
	if (ret_st)
		*ret_st = st;
	return fd;
}

/* The capability attribute of @want onto @fd. */
static int write_caps(int fd, const struct file_state *want, bool exact, struct s2c_error *err)
{
	_cleanup_capfree_ cap_t cap = NULL;
	struct fcaps c;

	if (!want->has_xattr) {
		if (fremovexattr(fd, FCAPS_XATTR) < 0 && errno != ENODATA)
			return s2c_error_errno(err, -errno, "cannot remove the capabilities");
		return 0;
	}
	if (exact) {
		/* Rollback: the very bytes that were there (v3 rootid included). */
		if (fsetxattr(fd, FCAPS_XATTR, want->xattr, want->xattr_len, 0) < 0)
			return s2c_error_errno(err, -errno, "cannot restore the capabilities");
		return 0;
	}
	if (fcaps_decode(want->xattr, want->xattr_len, &c, NULL) < 0)
		return s2c_error_set(err, -EINVAL, "invalid capability set");
	cap = capset_from_masks(c.permitted, c.inheritable,
				c.effective ? c.permitted | c.inheritable : 0);
	if (!cap)
		return s2c_error_errno(err, -errno, "cannot build the capability set");
	if (cap_set_fd(fd, cap) < 0)
		return s2c_error_errno(err, -errno, "cannot set the capabilities");
	return 0;
}

/*
 * Does the mode go before the capabilities, on the way from @mode to @want?
 * When set-ID bits come back (rollback); when they go (apply), the
 * capabilities come first and the mode last.  Either way the file never has
 * neither.
 */
static bool mode_first(uint32_t mode, const struct file_state *want)
{
	return want->mode & ~mode & (S_ISUID | S_ISGID);
}

/*
 * What root's fchown() leaves of @s, as the owner of @want: no capabilities,
 * no set-user-ID bit, and no set-group-ID bit when the file is
 * group-executable (without it, kernels differ: both are returned).
 * Returns the number of states in @ret.
 */
static size_t chowned(const struct file_state *s, const struct file_state *want,
		      struct file_state ret[2])
{
	struct file_state c = *s;

	c.uid = want->uid;
	c.gid = want->gid;
	c.has_xattr = false;
	c.xattr_len = 0;
	c.mode &= ~(uint32_t)S_ISUID;
	ret[0] = c;
	ret[0].mode &= ~(uint32_t)S_ISGID;
	if (!(c.mode & S_ISGID) || (c.mode & S_IXGRP))
		return 1;
	ret[1] = c;
	return 2;
}

size_t fileop_stops(const struct file_state *from, const struct file_state *want,
		    struct file_state ret[FILEOP_STOPS_MAX])
{
	struct file_state mid[2] = { *from };
	size_t m = 1, n = 0;

	if (from->uid != want->uid || from->gid != want->gid) {
		m = chowned(from, want, mid);
		for (size_t i = 0; i < m; i++)
			ret[n++] = mid[i];
	}
	for (size_t i = 0; i < m; i++) {
		struct file_state s = mid[i];

		if (mode_first(s.mode, want)) {
			s.mode = want->mode;
		} else {
			s.has_xattr = want->has_xattr;
			s.xattr_len = want->xattr_len;
			memcpy(s.xattr, want->xattr, sizeof(s.xattr));
		}
		ret[n++] = s;
	}
	ret[n++] = *want;
	return n;
}

int fileop_write(int fd, const struct file_state *now, const struct file_state *want,
		 bool exact, fileop_step_fn step, void *userdata, struct s2c_error *err)
{
	struct file_state got;
	struct stat st;
	int r;

	/* 1. Ownership first: chown clears capabilities and set-ID bits. */
	if (now->uid != want->uid || now->gid != want->gid) {
		if (fchown(fd, want->uid, want->gid) < 0)
			return s2c_error_errno(err, -errno, "cannot change the owner");
		if (step)
			step(userdata, "chown");
	}
	/*
	 * Never leave a moment with neither privilege (mode_first()).  chmod keeps
	 * capabilities and setting them keeps the mode, so either order is exact;
	 * only the window differs.
	 */
	if (fstat(fd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat the file");
	if (mode_first((uint32_t)st.st_mode, want)) {
		if (fchmod(fd, want->mode) < 0)
			return s2c_error_errno(err, -errno, "cannot change the mode");
		if (step)
			step(userdata, "chmod");
		r = write_caps(fd, want, exact, err);
		if (r < 0)
			return r;
		if (step)
			step(userdata, "setcap");
	} else {
		r = write_caps(fd, want, exact, err);
		if (r < 0)
			return r;
		if (step)
			step(userdata, "setcap");
		if (fchmod(fd, want->mode) < 0)
			return s2c_error_errno(err, -errno, "cannot change the mode");
		if (step)
			step(userdata, "chmod");
	}
	/* 4. Read back. */
	r = filestate_read(fd, &got);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot read the result back");
	/* libcap may write v3 inside a user namespace: then the sets must agree. */
	if (exact ? !filestate_equal(&got, want) : !filestate_same(&got, want)) {
		char a[128], b[128];
		filestate_describe(&got, a, sizeof(a));
		filestate_describe(want, b, sizeof(b));
		return s2c_error_set(err, -EIO, "the result reads back as '%s', not '%s'", a, b);
	}
	return 0;
}
