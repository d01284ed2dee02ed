/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The library search list and opening libraries beneath a root.
 *
 * The list models ld.so in secure-execution mode, which is the mode of every
 * program this tool looks at (setuid, setgid or file capabilities all set
 * AT_SECURE): no LD_LIBRARY_PATH, and $ORIGIN only as the whole first part of
 * an RPATH/RUNPATH element whose expansion lies in a trusted system
 * directory (glibc's _dl_dst_substitute() and is_trusted_path_normalize()).
 */
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "dirlist.h"
#include "ldpath.h"
#include "resolve.h"
#include "util.h"
#include "common.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

/* Bounds on what a root's ld.so.conf can make us read. */
#define CONF_DEPTH_MAX 8
#define CONF_FILES_MAX 256
#define CONF_SIZE_MAX (1 << 20)

static const struct arch {
	unsigned machine;
	unsigned elf_class;     /* 0: either class */
	int big_endian;         /* -1: either byte order */
	const char *name;
	const char *triplets[2];
} arches[] = {
	{ EM_X86_64, 64, -1, "x86_64", { "x86_64-linux-gnu" } },
	{ EM_X86_64, 32, -1, "x32", { "x86_64-linux-gnux32" } },
	{ EM_386, 0, -1, "i386", { "i386-linux-gnu" } },
	{ EM_AARCH64, 0, 0, "aarch64", { "aarch64-linux-gnu" } },
	{ EM_AARCH64, 0, 1, "aarch64_be", { "aarch64_be-linux-gnu" } },
	{ EM_ARM, 0, -1, "arm", { "arm-linux-gnueabihf", "arm-linux-gnueabi" } },
	{ EM_PPC64, 0, 0, "ppc64le", { "powerpc64le-linux-gnu" } },
	{ EM_PPC64, 0, 1, "ppc64", { "powerpc64-linux-gnu" } },
	{ EM_PPC, 0, -1, "ppc", { "powerpc-linux-gnu" } },
	{ EM_S390, 64, -1, "s390x", { "s390x-linux-gnu" } },
	{ EM_S390, 32, -1, "s390", { "s390-linux-gnu" } },
	{ EM_RISCV, 64, -1, "riscv64", { "riscv64-linux-gnu" } },
	{ EM_RISCV, 32, -1, "riscv32", { "riscv32-linux-gnu" } },
	{ EM_MIPS, 64, 0, "mips64el", { "mips64el-linux-gnuabi64" } },
	{ EM_MIPS, 64, 1, "mips64", { "mips64-linux-gnuabi64" } },
	{ EM_MIPS, 32, 0, "mipsel", { "mipsel-linux-gnu" } },
	{ EM_MIPS, 32, 1, "mips", { "mips-linux-gnu" } },
	{ EM_LOONGARCH, 0, -1, "loongarch64", { "loongarch64-linux-gnu" } },
	{ EM_SPARCV9, 0, -1, "sparc64", { "sparc64-linux-gnu" } },
	{ EM_ALPHA, 0, -1, "alpha", { "alpha-linux-gnu" } },
	{ EM_68K, 0, -1, "m68k", { "m68k-linux-gnu" } },
	{ EM_SH, 0, -1, "sh4", { "sh4-linux-gnu" } },
	{ EM_IA_64, 0, -1, "ia64", { "ia64-linux-gnu" } },
	{ EM_PARISC, 0, -1, "hppa", { "hppa-linux-gnu" } },
};

/* The generic system directories; ld.so trusts them and what lies below. */
static const char *const system_dirs[] = { "/lib", "/usr/lib", "/lib64", "/usr/lib64" };

static const struct arch *arch_find(unsigned machine, unsigned elf_class, bool big_endian)
{
	for (size_t i = 0; i < S2C_ELEMENTSOF(arches); i++) {
		const struct arch *a = &arches[i];

		if (a->machine == machine && (!a->elf_class || a->elf_class == elf_class) &&
		    (a->big_endian < 0 || a->big_endian == big_endian))
			return a;
	}
	return NULL;
}

const char *ldpath_machine_name(unsigned machine, unsigned elf_class, bool big_endian)
{
	const struct arch *a = arch_find(machine, elf_class, big_endian);

	return a ? a->name : "unknown";
}

char *ldpath_normalise(const char *path)
{
	char *out = malloc(strlen(path) + 2);
	char *o = out;
	const char *p = path;

	if (!out)
		return NULL;
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			/* Drop the last component; at "/" this is a no-op. */
			while (o > out && *--o != '/')
				;
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	return out;
}

void ldpath_release(struct ldpath *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->dirs[i]);
	free(p->dirs);
	p->dirs = NULL;
	p->n = 0;
}

/* Append @dir (normalised, absolute) unless present or the list is full.  Takes @dir. */
static int add_dir(struct ldpath *b, char *dir)
{
	_cleanup_free_ char *d = dir;
	char **v;

	if (b->n >= LDPATH_DIRS_MAX)
		return 0;
	for (size_t i = 0; i < b->n; i++)
		if (s2c_streq(b->dirs[i], d))
			return 0;
	v = realloc(b->dirs, (b->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	b->dirs = v;
	b->dirs[b->n++] = TAKE_PTR(d);
	return 0;
}

/* Add a directory named in a file or by a default; relative names are dropped. */
static int add_path(struct ldpath *b, const char *path)
{
	char *norm;

	if (path[0] != '/')
		return 0;
	norm = ldpath_normalise(path);
	if (!norm)
		return -ENOMEM;
	return add_dir(b, norm);
}

static bool is_trusted(const char *dir)
{
	for (size_t i = 0; i < S2C_ELEMENTSOF(system_dirs); i++) {
		size_t n = strlen(system_dirs[i]);

		if (strncmp(dir, system_dirs[i], n) == 0 && (dir[n] == '/' || dir[n] == '\0'))
			return true;
	}
	return false;
}

/* Length of "$ORIGIN" or "${ORIGIN}" at @p, 0 for anything else. */
static size_t origin_token(const char *p)
{
	if (strncmp(p, "${ORIGIN}", 9) == 0)
		return 9;
	if (strncmp(p, "$ORIGIN", 7) == 0 && !isalnum((unsigned char)p[7]) && p[7] != '_')
		return 7;
	return 0;
}

/*
 * Add one RPATH/RUNPATH element.  In secure-execution mode ld.so expands
 * $ORIGIN only as the start of an element, followed by '/' or the end, and
 * only when the result lies in a trusted directory; other tokens ($LIB,
 * $PLATFORM) depend on the running system and are left out.
 */
static int add_element(struct ldpath *b, const char *elem, const struct ldpath_request *req)
{
	_cleanup_free_ char *joined = NULL;
	size_t tok;
	char *norm;

	if (!strchr(elem, '$'))
		return add_path(b, elem);
	tok = origin_token(elem);
	if (!tok || !req->origin || strchr(elem + tok, '$') || (elem[tok] && elem[tok] != '/'))
		return 0;
	joined = path_join(req->origin, elem + tok);
	if (!joined)
		return -ENOMEM;
	norm = ldpath_normalise(joined);
	if (!norm)
		return -ENOMEM;
	if (!is_trusted(norm)) {
		free(norm);
		return 0;
	}
	return add_dir(b, norm);
}

/* Add the elements of a colon- (or semicolon-) separated DT_RPATH/DT_RUNPATH. */
static int add_list(struct ldpath *b, const char *list, const struct ldpath_request *req)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ":;");
		_cleanup_free_ char *elem = strndup(p, n);
		int r;

		if (!elem)
			return -ENOMEM;
		r = add_element(b, elem, req);
		if (r < 0)
			return r;
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

/* Open @name in @dirfd for reading when it is a regular file (not a symlink, device, FIFO). */
static int open_regular(int dirfd, const char *name)
{
	struct stat st;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* It may have been swapped between the two calls. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		(void)close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Read a whole small file at @path beneath the root; NULL-terminated. */
static int read_conf(int rootfd, const char *path, char **ret)
{
	_cleanup_close_ int dfd = -1, fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, max;
	const char *name;
	struct stat st;
	ssize_t n;

	dfd = resolve_open_parent(rootfd, path, &name);
	if (dfd < 0)
		return dfd;
	fd = open_regular(dfd, name);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	max = (size_t)S2C_MIN(st.st_size, (off_t)CONF_SIZE_MAX);  /* the rest is ignored */
	buf = malloc(max + 1);
	if (!buf)
		return -ENOMEM;
	while (len < max && (n = read(fd, buf + len, max - len)) != 0) {
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	return 0;
}

struct conf {
	int rootfd;
	struct ldpath *b;
	unsigned files;         /* configuration files read so far */
};

static int conf_file(struct conf *c, const char *path, unsigned depth);

/* "include PATTERN": a glob in the last component only, relative to @curdir. */
static int conf_include(struct conf *c, const char *pattern, const char *curdir, unsigned depth)
{
	_cleanup_free_ char *joined = path_join(pattern[0] == '/' ? "/" : curdir, pattern);
	_cleanup_free_ char *full = joined ? ldpath_normalise(joined) : NULL;
	_cleanup_close_ int dfd = -1;
	_cleanup_(strv_freep) char **names = NULL;
	const char *glob;
	char *slash;
	int r;

	if (!full)
		return -ENOMEM;
	slash = strrchr(full, '/');
	*slash = '\0';
	glob = slash + 1;
	if (!*glob)
		return 0;
	dfd = resolve_open(c->rootfd, *full ? full : "/", O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return dfd == -ENOMEM ? -ENOMEM : 0;
	r = dirlist(dfd, glob, CONF_FILES_MAX, &names);
	if (r < 0)
		return r == -ENOMEM ? -ENOMEM : 0;
	for (size_t i = 0; names[i] && r >= 0; i++) {
		_cleanup_free_ char *file = path_join(*full ? full : "/", names[i]);

		r = file ? conf_file(c, file, depth + 1) : -ENOMEM;
	}
	return r < 0 ? r : 0;
}

/* One line of ld.so.conf: a comment, "include PATTERN...", "hwcap ..." or a directory. */
static int conf_line(struct conf *c, char *line, const char *curdir, unsigned depth)
{
	char *end;

	line[strcspn(line, "#")] = '\0';
	line += strspn(line, " \t\r\f\v");
	end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
	if (!*line)
		return 0;
	if (strncmp(line, "include", 7) == 0 && isblank((unsigned char)line[7])) {
		for (char *p = line + 7; *(p += strspn(p, " \t"));) {
			size_t n = strcspn(p, " \t");
			bool last = p[n] == '\0';
			int r;

			p[n] = '\0';
			r = conf_include(c, p, curdir, depth);
			if (r < 0 || last)
				return r;
			p += n + 1;
		}
		return 0;
	}
	if (strncmp(line, "hwcap", 5) == 0 && isblank((unsigned char)line[5]))
		return 0;
	/* Old ldconfig accepted "DIR=TYPE"; the type is long obsolete. */
	line[strcspn(line, "=")] = '\0';
	return add_path(c->b, line);
}

static int conf_file(struct conf *c, const char *path, unsigned depth)
{
	_cleanup_free_ char *buf = NULL, *curdir = NULL;
	int r;

	if (depth > CONF_DEPTH_MAX || c->files >= CONF_FILES_MAX)
		return 0;
	c->files++;
	r = read_conf(c->rootfd, path, &buf);
	if (r < 0)
		return r == -ENOMEM ? r : 0;   /* absent or unreadable: nothing to add */
	curdir = strndup(path, (size_t)(strrchr(path, '/') - path));
	if (!curdir)
		return -ENOMEM;
	for (char *line = buf, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		r = conf_line(c, line, *curdir ? curdir : "/", depth);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The multiarch directories of the machine, then the generic ones. */
static int add_defaults(struct ldpath *b, const struct ldpath_request *req)
{
	const struct arch *a = arch_find(req->machine, req->elf_class, req->big_endian);
	int r = 0;

	for (size_t t = 0; a && t < S2C_ELEMENTSOF(a->triplets) && a->triplets[t]; t++) {
		for (size_t i = 0; i < 2 && r >= 0; i++) {
			char *dir = path_join(system_dirs[i], a->triplets[t]);

			r = dir ? add_dir(b, dir) : -ENOMEM;
		}
	}
	for (size_t i = 0; i < S2C_ELEMENTSOF(system_dirs) && r >= 0; i++)
		r = add_path(b, system_dirs[i]);
	return r;
}

int ldpath_build(int rootfd, const struct ldpath_request *req, struct ldpath *ret)
{
	_cleanup_(ldpath_release) struct ldpath b = { 0 };
	struct conf c = { .rootfd = rootfd, .b = &b };
	int r = 0;

	/* DT_RPATH is ignored when DT_RUNPATH exists, as in ld.so. */
	if (req->rpath && !req->runpath)
		r = add_list(&b, req->rpath, req);
	if (r >= 0 && req->runpath)
		r = add_list(&b, req->runpath, req);
	if (r >= 0)
		r = conf_file(&c, "/etc/ld.so.conf", 0);
	if (r >= 0)
		r = add_defaults(&b, req);
	if (r < 0)
		return r;
	*ret = b;
	b = (struct ldpath){ 0 };
	return 0;
}

/*
 * Open directory @path beneath @rootfd, following symlinks but never out of
 * the root.  This is weaker than resolve_open(), and only used for the
 * target of a library's symlink: RESOLVE_IN_ROOT resolves absolute links and
 * ".." against the root, as ld.so would inside that root, so no file outside
 * the root can be reached; magic links (/proc/PID/fd/...) are refused.
 * Without openat2 the strict resolver is used on the lexically normalised
 * path, which refuses symlinks in it.
 */
static int open_dir_in_root(int rootfd, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_free_ char *norm = NULL;
	long fd;

	fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	if (errno != ENOSYS)
		return -errno;
	norm = ldpath_normalise(path);
	if (!norm)
		return -ENOMEM;
	return resolve_open(rootfd, norm, O_PATH | O_DIRECTORY);
}

/* Open the target of the symlink @name in @dirfd (which is @dir under the root). */
static int open_link_target(int rootfd, int dirfd, const char *dir, const char *name)
{
	_cleanup_free_ char *full = NULL;
	_cleanup_close_ int tfd = -1;
	char target[PATH_MAX];
	char *slash;
	ssize_t n;

	n = readlinkat(dirfd, name, target, sizeof(target));
	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	target[n] = '\0';
	if (!strchr(target, '/'))
		return open_regular(dirfd, target);     /* libx.so.1 -> libx.so.1.2.3 */
	full = target[0] == '/' ? strdup(target) : path_join(dir, target);
	if (!full)
		return -ENOMEM;
	slash = strrchr(full, '/');
	*slash = '\0';
	tfd = open_dir_in_root(rootfd, *full ? full : "/");
	if (tfd < 0)
		return tfd;
	return open_regular(tfd, slash + 1);
}

int ldpath_open(int rootfd, const char *dir, const char *name)
{
	_cleanup_close_ int dfd = -1;
	int fd;

	if (s2c_isempty(name) || strchr(name, '/') || s2c_streq(name, ".") || s2c_streq(name, ".."))
		return -EINVAL;
	dfd = resolve_open(rootfd, dir, O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return dfd;
	fd = open_regular(dfd, name);
	if (fd != -ELOOP)
		return fd;
	return open_link_target(rootfd, dfd, dir, name);
}

/* Offer @dir/@name to @accept: 1 taken, 0 not, -errno. */
static int try_dir(int rootfd, const char *dir, const char *name,
		   int (*accept)(int fd, void *userdata), void *userdata, char **ret_path)
{
	_cleanup_close_ int fd = ldpath_open(rootfd, dir, name);
	_cleanup_free_ char *joined = NULL;
	char *path;
	int r;

	if (fd == -ENOMEM)
		return -ENOMEM;
	if (fd < 0)
		return 0;
	r = accept(fd, userdata);
	if (r <= 0)
		return r;
	joined = path_join(dir, name);
	path = joined ? ldpath_normalise(joined) : NULL;
	if (!path)
		return -ENOMEM;
	*ret_path = path;
	return 1;
}

int ldpath_find(int rootfd, const struct ldpath *lp, const char *name,
		int (*accept)(int fd, void *userdata), void *userdata, char **ret_path)
{
	const char *slash = strrchr(name, '/');

	if (slash) {
		_cleanup_free_ char *dir = NULL;

		if (name[0] != '/')
			return 0;
		dir = strndup(name, (size_t)(slash - name));
		if (!dir)
			return -ENOMEM;
		return try_dir(rootfd, *dir ? dir : "/", slash + 1, accept, userdata, ret_path);
	}
	for (size_t i = 0; i < lp->n; i++) {
		int r = try_dir(rootfd, lp->dirs[i], name, accept, userdata, ret_path);

		if (r != 0)
			return r;
	}
	return 0;
}
