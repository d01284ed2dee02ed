/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileop.h"
#include "hook.h"
#include "resolve.h"
#include "trust.h"
#include "common.h"

#define MARKER "# Installed by suid2cap verify --install-hook; remove with --remove-hook."

static const struct {
	const char *name, *dir, *file;
} hooks[_HOOK_KIND_MAX] = {
	[HOOK_DPKG] = { "dpkg", "/etc/dpkg/dpkg.cfg.d", "suid2cap" },
	[HOOK_APT] = { "apt", "/etc/apt/apt.conf.d", "80suid2cap" },
	[HOOK_RPM] = { "rpm", "/etc/dnf/plugins/post-transaction-actions.d", "suid2cap.action" },
};

enum hook_kind hook_kind_from_name(const char *s)
{
	for (int i = 0; i < _HOOK_KIND_MAX; i++)
		if (s2c_streq(hooks[i].name, s))
			return (enum hook_kind)i;
	return _HOOK_KIND_INVALID;
}

const char *hook_path(enum hook_kind kind)
{
	static char buf[_HOOK_KIND_MAX][128];

	(void)snprintf(buf[kind], sizeof(buf[kind]), "%s/%s", hooks[kind].dir, hooks[kind].file);
	return buf[kind];
}

/* The program is put in single quotes for the shells that run these hooks. */
static int quoted(const char *program, char **ret)
{
	if (strchr(program, '\'') || strchr(program, '\n') || strchr(program, '"'))
		return -EINVAL;
	return asprintf(ret, "'%s'", program) < 0 ? -ENOMEM : 0;
}

static int content(enum hook_kind kind, const char *program, char **ret)
{
	_cleanup_free_ char *q = NULL;
	int r = quoted(program, &q);

	if (r < 0)
		return r;
	switch (kind) {
	case HOOK_DPKG:
		r = asprintf(ret, "%s\n# Restore file capabilities lost when a package replaced a file.\n"
			     "post-invoke=if [ -x %s ]; then %s verify --fix --quiet || true; fi\n",
			     MARKER, q, q);
		break;
	case HOOK_APT:
		r = asprintf(ret, "%s\n// Restore file capabilities lost when a package replaced a file.\n"
			     "DPkg::Post-Invoke { \"if [ -x %s ]; then %s verify --fix --quiet || true; fi\"; };\n",
			     MARKER, q, q);
		break;
	case HOOK_RPM:
		r = asprintf(ret, "%s\n# Restore file capabilities lost when a package replaced a file.\n"
			     "*:any:%s verify --fix --quiet\n", MARKER, program);
		break;
	default:
		return -EINVAL;
	}
	return r < 0 ? -ENOMEM : 0;
}

/*
 * The program a hook runs must be there, beneath the root, when the package
 * manager runs the hook: a path that is missing makes the hook a silent
 * no-op.  It runs as root after every package operation, so as root it must
 * also be a file only root can change, reached through directories only
 * root can change.
 */
int hook_check_program(int rootfd, const char *program, bool trusted, struct s2c_error *err)
{
	struct s2c_error why = { 0 };
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (program[0] != '/')
		return s2c_error_set(err, -EINVAL, "the program a hook runs must be an absolute "
				     "path, not '%s'", program);
	if (trusted) {
		fd = fileop_open(rootfd, program, &st, &why);
		if (fd < 0)
			return s2c_error_set(err, fd, "%s", why.msg);
		r = trust_check(st.st_uid, st.st_mode, TRUST_SHARED, "program", program, err);
		if (r < 0)
			return r;
	} else {
		fd = resolve_open(rootfd, program, O_RDONLY | O_NONBLOCK | O_NOCTTY);
		if (fd < 0)
			return s2c_error_errno(err, fd, "cannot open '%s'", program);
		if (fstat(fd, &st) < 0)
			return s2c_error_errno(err, -errno, "cannot stat '%s'", program);
		if (!S_ISREG(st.st_mode))
			return s2c_error_set(err, -EINVAL, "'%s' is not a regular file", program);
	}
	if (!(st.st_mode & S_IXUSR))
		return s2c_error_set(err, -EACCES, "'%s' is not executable", program);
	return 0;
}

int hook_install(int rootfd, enum hook_kind kind, const char *program, bool trusted,
		 struct s2c_error *err)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int dfd = -1;
	char tmp[64];
	size_t len;
	int fd, r;

	if (kind < 0 || kind >= _HOOK_KIND_MAX)
		return -EINVAL;
	r = content(kind, program, &text);
	if (r < 0)
		return s2c_error_set(err, r, "cannot quote the program path '%s' for a hook", program);
	r = hook_check_program(rootfd, program, trusted, err);
	if (r < 0)
		return r;
	dfd = resolve_open(rootfd, hooks[kind].dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return s2c_error_errno(err, dfd, "cannot open '%s' (is %s installed?)", hooks[kind].dir,
				       hooks[kind].name);
	(void)snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", hooks[kind].file, (int)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return s2c_error_errno(err, -errno, "cannot write '%s': cannot create a temporary "
				       "file beside it", hook_path(kind));
	len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len || fchmod(fd, 0644) < 0 || fsync(fd) < 0) {
		r = -errno;
		(void)close(fd);
		(void)unlinkat(dfd, tmp, 0);
		return s2c_error_errno(err, r ? r : -EIO, "cannot write '%s'", hook_path(kind));
	}
	(void)close(fd);
	if (renameat(dfd, tmp, dfd, hooks[kind].file) < 0) {
		r = -errno;
		(void)unlinkat(dfd, tmp, 0);
		return s2c_error_errno(err, r, "cannot rename the new '%s' into place",
				       hook_path(kind));
	}
	(void)fsync(dfd);
	return 0;
}

int hook_remove(int rootfd, enum hook_kind kind, struct s2c_error *err)
{
	_cleanup_close_ int dfd = -1, fd = -1;
	char buf[256];
	ssize_t n;

	if (kind < 0 || kind >= _HOOK_KIND_MAX)
		return -EINVAL;
	dfd = resolve_open(rootfd, hooks[kind].dir, O_RDONLY | O_DIRECTORY);
	if (dfd == -ENOENT)
		return 0;  /* no package manager, no hook */
	if (dfd < 0)
		return s2c_error_errno(err, dfd, "cannot open '%s'", hooks[kind].dir);
	fd = openat(dfd, hooks[kind].file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : s2c_error_errno(err, -errno, "cannot open '%s'", hook_path(kind));
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (strncmp(buf, MARKER, strlen(MARKER)) != 0)
		return s2c_error_set(err, -EPERM, "'%s' was not installed by suid2cap, leaving it",
				     hook_path(kind));
	if (unlinkat(dfd, hooks[kind].file, 0) < 0)
		return s2c_error_errno(err, -errno, "cannot remove '%s'", hook_path(kind));
	(void)fsync(dfd);
	return 1;
}
