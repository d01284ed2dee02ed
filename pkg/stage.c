/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rmtree.h"
#include "stage.h"
#include "util.h"
#include "common.h"

/* Deepest path the stage creates: bounds the descriptors a removal holds. */
#define STAGE_DEPTH_MAX 256

struct stage {
	char *dir;              /* the stage directory */
	int dirfd;              /* its fd */
	int rootfd;             /* dir/root */
	struct stage_limits lim;
	uint64_t used;
	/* The directory the last file was created in, beneath the root, and its fd (or -1):
	 * the members of an archive come directory by directory, so most creations reuse it.
	 * Forgotten by every change that removes, which could remove that directory. */
	char *last_dir;
	size_t last_len;
	int last_fd;
};

static void forget_last(struct stage *s)
{
	if (s->last_fd >= 0)
		(void)close(s->last_fd);
	s->last_fd = -1;
	free(s->last_dir);
	s->last_dir = NULL;
}

static int open_dir_at(int dirfd, const char *name)
{
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static int stage_init(struct stage *s, const char *dir, int dirfd, struct s2c_error *err)
{
	s->dirfd = dirfd;
	s->last_fd = -1;
	s->dir = strdup(dir);
	if (!s->dir)
		return -ENOMEM;
	if (mkdirat(dirfd, "root", 0700) < 0)
		return s2c_error_errno(err, -errno, "cannot create '%s/root'", dir);
	s->rootfd = open_dir_at(dirfd, "root");
	if (s->rootfd < 0)
		return s2c_error_errno(err, -errno, "cannot open '%s/root'", dir);
	return 0;
}

int stage_new_temp(const char *parent, struct stage **ret, struct s2c_error *err)
{
	_cleanup_free_ char *tmpl = NULL;
	struct stage *s;
	int fd, r;

	if (asprintf(&tmpl, "%s/suid2cap-XXXXXX", parent) < 0)
		return -ENOMEM;
	if (!mkdtemp(tmpl))
		return s2c_error_errno(err, -errno, "cannot create a private directory in '%s'",
				       parent);
	fd = open_dir_at(AT_FDCWD, tmpl);
	if (fd < 0) {
		r = s2c_error_errno(err, -errno, "cannot open '%s'", tmpl);
		(void)rmdir(tmpl);
		return r;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		(void)close(fd);
		(void)rmdir(tmpl);
		return -ENOMEM;
	}
	s->rootfd = -1;
	s->lim = STAGE_LIMITS_DEFAULT;
	r = stage_init(s, tmpl, fd, err);
	if (r < 0) {
		stage_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

int stage_new_sub(struct stage *parent, const char *name, struct stage **ret,
		  struct s2c_error *err)
{
	_cleanup_free_ char *dir = NULL;
	struct stage *s;
	int fd, r;

	if (strchr(name, '/') || s2c_streq(name, ".") || s2c_streq(name, "..") || !*name)
		return s2c_error_set(err, -EINVAL, "bad stage name");
	if (asprintf(&dir, "%s/%s", parent->dir, name) < 0)
		return -ENOMEM;
	if (mkdirat(parent->dirfd, name, 0700) < 0)
		return s2c_error_errno(err, -errno, "cannot create '%s'", dir);
	fd = open_dir_at(parent->dirfd, name);
	if (fd < 0) {
		r = s2c_error_errno(err, -errno, "cannot open '%s'", dir);
		(void)unlinkat(parent->dirfd, name, AT_REMOVEDIR);
		return r;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		(void)close(fd);
		(void)unlinkat(parent->dirfd, name, AT_REMOVEDIR);
		return -ENOMEM;
	}
	s->rootfd = -1;
	s->lim = parent->lim;
	r = stage_init(s, dir, fd, err);
	if (r < 0) {
		stage_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

int stage_rootfd(const struct stage *s)
{
	return s->rootfd;
}

const char *stage_dir(const struct stage *s)
{
	return s->dir;
}

void stage_set_limits(struct stage *s, const struct stage_limits *lim)
{
	s->lim = *lim;
}

const struct stage_limits *stage_limits(const struct stage *s)
{
	return &s->lim;
}

uint64_t stage_used(const struct stage *s)
{
	return s->used;
}

int stage_reserve(struct stage *s, uint64_t bytes, struct s2c_error *err)
{
	if (bytes > s->lim.max_total || s->used > s->lim.max_total - bytes)
		return s2c_error_set(err, -EFBIG, "more than %llu bytes to keep for the audit",
				     (unsigned long long)s->lim.max_total);
	s->used += bytes;
	return 0;
}

/* --- removal -------------------------------------------------------------------------------- */

/* Remove @name in @dirfd whatever it is, without following it. */
static int remove_at(int dirfd, const char *name)
{
	return rmtree_at(dirfd, name, STAGE_DEPTH_MAX + 2);
}

struct stage *stage_free(struct stage *s)
{
	if (!s)
		return NULL;
	forget_last(s);
	if (s->rootfd >= 0)
		(void)close(s->rootfd);
	if (s->dirfd >= 0) {
		int fd = dup(s->dirfd);
		if (fd >= 0)
			(void)rmtree_empty(fd, STAGE_DEPTH_MAX + 2);
		(void)close(s->dirfd);
		if (s->dir)
			(void)rmdir(s->dir);
	}
	free(s->dir);
	free(s);
	return NULL;
}

/* --- creating ------------------------------------------------------------------------------- */

/*
 * Open the parent directory of @path (absolute, normalised) beneath the root,
 * creating missing directories when @create, never following a symlink.
 * @ret_name points into @path at the last component.
 */
static int open_parent(const struct stage *s, const char *path, bool create,
		       const char **ret_name, struct s2c_error *err)
{
	_cleanup_close_ int cur = -1;
	const char *p = path;
	unsigned depth = 0;
	char comp[NAME_MAX + 1];

	cur = fcntl(s->rootfd, F_DUPFD_CLOEXEC, 3);
	if (cur < 0)
		return -errno;
	for (;;) {
		size_t n;
		int next;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (n == 0)
			return s2c_error_set(err, -EINVAL, "empty path");
		if (p[n] == '\0')
			break;
		if (n > NAME_MAX)
			return s2c_error_set(err, -ENAMETOOLONG, "path component too long");
		if (++depth > STAGE_DEPTH_MAX)
			return s2c_error_set(err, -ELOOP, "more than %d directories deep",
					     STAGE_DEPTH_MAX);
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (s2c_streq(comp, "..") || s2c_streq(comp, "."))
			return s2c_error_set(err, -EINVAL, "'.' or '..' in a staged path");
		next = open_dir_at(cur, comp);
		if (next < 0 && errno == ENOENT && create) {
			if (mkdirat(cur, comp, 0700) < 0 && errno != EEXIST)
				return s2c_error_errno(err, -errno, "cannot create a directory");
			next = open_dir_at(cur, comp);
		}
		if (next < 0)
			return s2c_error_errno(err, -errno, "cannot open a directory on the way");
		(void)close(cur);
		cur = next;
		p += n;
	}
	if (strlen(p) > NAME_MAX)
		return s2c_error_set(err, -ENAMETOOLONG, "file name too long");
	if (s2c_streq(p, "..") || s2c_streq(p, "."))
		return s2c_error_set(err, -EINVAL, "'.' or '..' in a staged path");
	*ret_name = p;
	return TAKE_FD(cur);
}

/*
 * open_parent() with @create, through the directory of the last creation when @path is
 * in it: the fd returned is the stage's (not to be closed), @ret_name as there.
 */
static int last_parent(struct stage *s, const char *path, const char **ret_name,
		       struct s2c_error *err)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	size_t len = (size_t)(name - path);
	int fd;

	if (s->last_fd >= 0 && len == s->last_len && memcmp(path, s->last_dir, len) == 0 &&
	    *name && strlen(name) <= NAME_MAX && !s2c_streq(name, ".") && !s2c_streq(name, "..")) {
		*ret_name = name;
		return s->last_fd;
	}
	fd = open_parent(s, path, true, ret_name, err);
	if (fd < 0)
		return fd;
	forget_last(s);
	s->last_dir = strndup(path, len);
	if (!s->last_dir) {
		(void)close(fd);
		return -ENOMEM;
	}
	s->last_len = len;
	s->last_fd = fd;
	return fd;
}

void stage_idle(struct stage *s)
{
	if (s)
		forget_last(s);
}

int stage_create(struct stage *s, const char *path, struct s2c_error *err)
{
	const char *name;
	int dfd = last_parent(s, path, &name, err), fd, r;

	if (dfd < 0)
		return dfd;
	/* what is there already, a file or a tree, is replaced (never the directory itself) */
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {
		r = remove_at(dfd, name);
		if (r < 0)
			return s2c_error_errno(err, r, "cannot replace a staged file");
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return s2c_error_errno(err, -errno, "cannot create a staged file");
	return fd;
}

int stage_symlink(struct stage *s, const char *path, const char *target, struct s2c_error *err)
{
	const char *name;
	_cleanup_close_ int dfd = -1;
	int r;

	forget_last(s);
	dfd = open_parent(s, path, true, &name, err);
	if (dfd < 0)
		return dfd;
	r = remove_at(dfd, name);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot replace a staged file");
	if (symlinkat(target, dfd, name) < 0)
		return s2c_error_errno(err, -errno, "cannot create a staged symlink");
	return 0;
}

int stage_link(struct stage *s, const char *path, const char *existing, struct s2c_error *err)
{
	const char *name, *oname;
	_cleanup_close_ int odfd = -1;
	_cleanup_close_ int dfd = -1;
	int r;

	forget_last(s);
	odfd = open_parent(s, existing, false, &oname, err);
	if (odfd < 0)
		return odfd;
	dfd = open_parent(s, path, true, &name, err);
	if (dfd < 0)
		return dfd;
	r = remove_at(dfd, name);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot replace a staged file");
	if (linkat(odfd, oname, dfd, name, 0) < 0)
		return s2c_error_errno(err, -errno, "cannot link a staged file");
	return 0;
}

int stage_share(struct stage *dst, const struct stage *src, const char *path)
{
	const char *sname, *dname;
	_cleanup_close_ int sfd = open_parent(src, path, false, &sname, NULL);
	_cleanup_close_ int dfd = -1;
	struct stat st, there;
	char target[PATH_MAX];
	ssize_t n;

	if (sfd < 0)
		return sfd;
	if (fstatat(sfd, sname, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	dfd = open_parent(dst, path, true, &dname, NULL);
	if (dfd < 0)
		return dfd;
	if (fstatat(dfd, dname, &there, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (!S_ISLNK(st.st_mode))
		return linkat(sfd, sname, dfd, dname, 0) < 0 ? -errno : 0;
	n = readlinkat(sfd, sname, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	return symlinkat(target, dfd, dname) < 0 ? -errno : 0;
}

int stage_remove(struct stage *s, const char *path)
{
	const char *name;
	_cleanup_close_ int dfd = -1;

	forget_last(s);
	if (s2c_streq(path, "/")) {
		int fd = fcntl(s->rootfd, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? -errno : rmtree_empty(fd, STAGE_DEPTH_MAX + 2);
	}
	dfd = open_parent(s, path, false, &name, NULL);
	if (dfd < 0)
		return dfd == -ENOENT || dfd == -ENOTDIR || dfd == -ELOOP ? 0 : dfd;
	return remove_at(dfd, name);
}
