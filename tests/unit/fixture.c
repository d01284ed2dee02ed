/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <check.h>

#include "facts.h"
#include "engine.h"
#include "error.h"
#include "fcaps.h"
#include "fixture.h"
#include "member.h"
#include "scan.h"
#include "util.h"

#define FX_ASSERT(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

char *fx_tempdir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = NULL;

	FX_ASSERT(asprintf(&dir, "%s/s2c-test-XXXXXX", tmp && *tmp ? tmp : "/tmp") > 0, "asprintf");
	FX_ASSERT(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
	/* The walker reports paths; a resolved tempdir keeps them predictable. */
	{
		char *real = realpath(dir, NULL);
		FX_ASSERT(real, "realpath");
		free(dir);
		dir = real;
	}
	return dir;
}

/* Remove @name in @dfd recursively, fd-relative so trees deeper than
 * PATH_MAX go too; directories made unreadable by a test are opened up. */
static void rm_at(int dfd, const char *name)
{
	struct stat st;
	int fd;
	DIR *d;
	struct dirent *de;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		(void)unlinkat(dfd, name, 0);
		return;
	}
	if (fchmodat(dfd, name, 0700, 0) < 0) {
		/* removal below reports nothing either: best effort */
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (d = fdopendir(fd))) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				rm_at(dirfd(d), de->d_name);
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	(void)unlinkat(dfd, name, AT_REMOVEDIR);
}

void fx_rmrf(const char *dir)
{
	rm_at(AT_FDCWD, dir);
}

char *fx_path(const char *root, const char *rel)
{
	char *p = path_join(root, rel);

	FX_ASSERT(p, "oom");
	return p;
}

void fx_mkdirs(const char *root, const char *rel)
{
	char *p = fx_path(root, rel);

	for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		FX_ASSERT(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
		*s = '/';
	}
	FX_ASSERT(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
	free(p);
}

static void mkparents(const char *root, const char *rel)
{
	char *copy = strdup(rel);
	char *slash = strrchr(copy, '/');

	if (slash && slash != copy) {
		*slash = '\0';
		fx_mkdirs(root, copy);
	}
	free(copy);
}

void fx_file(const char *root, const char *rel, mode_t mode, const char *content)
{
	char *p = fx_path(root, rel);
	int fd;

	mkparents(root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FX_ASSERT(fd >= 0, "create %s: %s", p, strerror(errno));
	if (content)
		FX_ASSERT(write(fd, content, strlen(content)) == (ssize_t)strlen(content), "write");
	FX_ASSERT(fchmod(fd, mode) == 0, "fchmod %s: %s", p, strerror(errno));
	(void)close(fd);
	free(p);
}

void fx_symlink(const char *root, const char *rel, const char *target)
{
	char *p = fx_path(root, rel);

	mkparents(root, rel);
	FX_ASSERT(symlink(target, p) == 0, "symlink %s: %s", p, strerror(errno));
	free(p);
}

void fx_hardlink(const char *root, const char *existing, const char *rel)
{
	char *a = fx_path(root, existing), *b = fx_path(root, rel);

	mkparents(root, rel);
	FX_ASSERT(link(a, b) == 0, "link %s: %s", b, strerror(errno));
	free(a);
	free(b);
}

void fx_chown(const char *root, const char *rel, uid_t uid, gid_t gid)
{
	char *p = fx_path(root, rel);

	FX_ASSERT(lchown(p, uid, gid) == 0, "lchown %s: %s", p, strerror(errno));
	free(p);
}

int fx_setcaps(const char *root, const char *rel, const char *text)
{
	char *p = fx_path(root, rel);
	cap_t cap = cap_from_text(text);
	int fd, r = 0;

	FX_ASSERT(cap, "cap_from_text '%s'", text);
	fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FX_ASSERT(fd >= 0, "open %s: %s", p, strerror(errno));
	if (cap_set_fd(fd, cap) < 0)
		r = -errno;
	(void)close(fd);
	(void)cap_free(cap);
	free(p);
	return r;
}

int fx_setcaps_raw(const char *root, const char *rel, const void *blob, size_t len)
{
	char *p = fx_path(root, rel);
	int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), r = 0;

	FX_ASSERT(fd >= 0, "open %s: %s", p, strerror(errno));
	if (fsetxattr(fd, FCAPS_XATTR, blob, len, 0) < 0)
		r = -errno;
	(void)close(fd);
	free(p);
	return r;
}

int fx_compile(const char *root, const char *rel, const char *source, mode_t mode,
	       const char *const *flags)
{
	char *out = fx_path(root, rel);
	char *src = NULL;
	const char *argv[64];
	size_t n = 0;
	int status = -1, fd;
	pid_t pid;

	mkparents(root, rel);
	FX_ASSERT(asprintf(&src, "%s.c", out) > 0, "asprintf");
	fd = open(src, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	FX_ASSERT(fd >= 0, "create %s", src);
	FX_ASSERT(write(fd, source, strlen(source)) == (ssize_t)strlen(source), "write");
	close(fd);
	argv[n++] = "cc";
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = src;
	for (size_t i = 0; flags && flags[i] && n < 60; i++)
		argv[n++] = flags[i];
	argv[n] = NULL;
	pid = fork();
	FX_ASSERT(pid >= 0, "fork");
	if (pid == 0) {
		execvp("cc", (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	FX_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
	unlink(src);
	free(src);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(out);
		return -1;
	}
	FX_ASSERT(chmod(out, mode) == 0, "chmod %s", out);
	free(out);
	return 0;
}

void fx_write(const char *root, const char *rel, const char *content)
{
	char *p = fx_path(root, rel);
	int fd;

	mkparents(root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	FX_ASSERT(fd >= 0, "create %s: %s", p, strerror(errno));
	FX_ASSERT(write(fd, content, strlen(content)) == (ssize_t)strlen(content), "write");
	(void)close(fd);
	free(p);
}

bool fx_have_cap(int cap)
{
	cap_t c = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (c) {
		(void)cap_get_flag(c, cap, CAP_EFFECTIVE, &v);
		(void)cap_free(c);
	}
	return v == CAP_SET;
}

static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;

static void collect(void *userdata, const char *path, int error, const char *what)
{
	struct fx_warnings *w = userdata;

	(void)what;
	if (!w)
		return;
	pthread_mutex_lock(&warn_lock);
	if (w->n < 64) {
		w->paths[w->n] = strdup(path);
		w->errors[w->n] = error;
	}
	w->n++;
	pthread_mutex_unlock(&warn_lock);
}

void fx_warnings_release(struct fx_warnings *w)
{
	for (size_t i = 0; i < w->n && i < 64; i++)
		free(w->paths[i]);
	w->n = 0;
}

struct scan_result *fx_scan(const char *root, const char *const *paths, unsigned flags,
			    unsigned threads, struct fx_warnings *w)
{
	struct scan_options o = {
		.root = root,
		.paths = paths,
		.threads = threads,
		.flags = flags,
		.on_warning = collect,
		.userdata = w,
	};
	struct scan_result *r = NULL;
	struct s2c_error err = { 0 };
	int ret = scan_run(&o, &r, &err);

	FX_ASSERT(ret == 0, "scan_run: %s (%s)", err.msg, strerror(-ret));
	return r;
}

int fx_find(const struct scan_result *r, const char *path)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i]->path, path) == 0)
			return (int)i;
	return -1;
}

bool fx_has_evidence(const struct decision *d, const char *what)
{
	for (size_t i = 0; i < d->n_evidence; i++)
		if (strstr(d->evidence[i].what, what))
			return true;
	return false;
}

bool fx_has_warning(const struct decision *d, const char *text)
{
	for (size_t i = 0; i < d->n_warnings; i++)
		if (strstr(d->warnings[i], text))
			return true;
	return false;
}

void fx_member(struct memberset *set, const char *stage, const char *path, int type,
	       unsigned mode, const char *target, const char *content)
{
	struct member *m = member_new(path);

	ck_assert_ptr_nonnull(m);
	m->type = (enum member_type)type;
	m->mode = mode;
	ck_assert_int_eq(member_set_owner(m, "root", "root", 0, 0), 0);
	if (target)
		ck_assert_ptr_nonnull(m->target = strdup(target));
	if (content) {
		fx_file(stage, path + 1, 0644, content);
		m->staged = true;
	}
	ck_assert_int_eq(memberset_put(set, m), 0);
}
