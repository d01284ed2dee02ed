/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"
#include "plan.h"
#include "progress.h"
#include "resolve.h"
#include "db.h"
#include "scanargs.h"
#include "scanout.h"
#include "skip.h"
#include "util.h"
#include "common.h"

#define MAX_THREADS 256

static int opt_root(const struct opt *o, const char *arg, const char *verb)
{
	struct scanargs *a = o->value;

	if (s2c_isempty(arg))
		return usage_error(verb, "--root needs a directory");
	a->root = arg;
	return 0;
}

static int opt_threads(const struct opt *o, const char *arg, const char *verb)
{
	struct scanargs *a = o->value;
	unsigned n;

	if (parse_uint(arg, MAX_THREADS, &n) < 0 || n == 0)
		return usage_error(verb, "invalid --threads '%s': expected 1..%d", arg, MAX_THREADS);
	a->threads = n;
	return 0;
}

/* --xdev, --all-caps, --cross-pseudo, --other-roots: a scan flag each. */
static int opt_flag(const struct opt *o, const char *arg, const char *verb)
{
	struct scanargs *a = o->value;

	(void)arg;
	(void)verb;
	a->flags |= s2c_streq(o->long_name, "xdev") ? SCAN_XDEV :
		    s2c_streq(o->long_name, "all-caps") ? SCAN_ALL_CAPS :
		    s2c_streq(o->long_name, "cross-pseudo") ? SCAN_CROSS_PSEUDO : SCAN_OTHER_ROOTS;
	return 0;
}

static int opt_exclude(const struct opt *o, const char *arg, const char *verb)
{
	struct scanargs *a = o->value;
	struct s2c_error err = { 0 };
	_cleanup_free_ char *norm = NULL;
	int r = skip_pattern_normalise(arg, &norm, &err);

	if (r == -ENOMEM) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	if (r < 0)
		return usage_error(verb, "invalid --exclude '%s': %s", arg, err.msg);
	if (a->n_exclude == SCANARGS_MAX_EXCLUDE)
		return usage_error(verb, "too many --exclude options (at most %d; use %s)",
				   SCANARGS_MAX_EXCLUDE, SCANARGS_EXCLUDE_FILE);
	a->exclude[a->n_exclude++] = arg;
	return 0;
}

void scanargs_init(struct scanargs *a, const struct s2c_ctx *ctx, enum scanargs_flags flags)
{
	*a = (struct scanargs){
		.root = "/",
		.opts = {
			OPT_CALLBACK("root", a, "DIR", "treat DIR as the system root (an image or "
				     "chroot);\nPATH is then beneath DIR, and a relative one is\n"
				     "read from a current directory inside DIR", opt_root),
			OPT_CALLBACK("threads", a, "N", "worker threads (default: 4 per CPU, at "
				     "least 16, at most 64)", opt_threads),
			OPT_CALLBACK("xdev", a, NULL, "stay on the filesystem of each PATH", opt_flag),
			OPT_CALLBACK("all-caps", a, NULL, "read capabilities of every regular file, "
				     "not only executables", opt_flag),
			OPT_CALLBACK("cross-pseudo", a, NULL, "also walk proc, sysfs and other pseudo "
				     "filesystems", opt_flag),
			OPT_CALLBACK("exclude", a, "PATH", "do not walk PATH, a path or fnmatch glob "
				     "under the root\n(repeatable; also read from ROOT"
				     SCANARGS_EXCLUDE_FILE ")", opt_exclude),
			OPT_CALLBACK("other-roots", a, NULL, "on the running system, also walk other "
				     "OS roots, container\nstorage and overlayfs layers (skipped "
				     "and listed by default)", opt_flag),
			OPT_END(),
		},
	};
	if (flags & SCANARGS_PLANNING)
		a->opts[7] = (struct opt)OPT_BOOL(0, "include-unpackaged", &a->include_unpackaged,
						  "on the running system, also change files no "
						  "package owns\n(by default only packaged files "
						  "change)");
	/* Warm scans are CPU-bound (threads = CPUs is enough, more cost nothing);
	 * cold scans wait on inode reads, and more requests in flight hide that
	 * latency: on two CPUs 16 threads walked / cold in 0.29x find's time
	 * where 8 took 0.34x, and as fast warm (docs/PERFORMANCE.md). */
	a->threads = S2C_MIN(S2C_MAX(4 * ctx->ncpus, 16u), 64u);
}

/*
 * The operands as scanargs_finish() resolved them, and the start paths among them,
 * kept for the life of the process as the root's path is.
 */
static char **resolved, **start;

/* Where the relative operand @arg lies beneath the root @root, from the current directory. */
static int beneath_cwd(const char *root, const char *arg, const char *verb, char **ret)
{
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	size_t rlen = strlen(root);
	const char *rest;

	if (!cwd) {
		log_error("cannot read the current directory for '%s': %s", arg, strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	if (s2c_streq(root, "/"))
		rest = cwd;
	else if (strncmp(cwd, root, rlen) == 0 && (cwd[rlen] == '\0' || cwd[rlen] == '/'))
		rest = cwd + rlen;
	else
		return usage_error(verb, "'%s' is relative to the current directory '%s', which is "
				   "not inside the root '%s': give PATH beneath the root as an "
				   "absolute path, or change to a directory inside the root", arg,
				   cwd, root);
	*ret = path_join(*rest ? rest : "/", arg);
	if (!*ret) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

/*
 * The file the operand @arg names beneath the root (@rootfd, @root): its links are
 * followed, beneath the root, and the walk starts at what they lead to.  An operand
 * that names nothing is a usage error; one that cannot be looked at for another
 * reason (a directory on the way not searchable) is passed on for the walk to report.
 */
static int resolve_operand(int rootfd, const char *root, const char *arg, const char *verb,
			   char **ret)
{
	_cleanup_free_ char *rel = NULL;
	const char *where = arg;
	bool host = s2c_streq(root, "/"), followed = false;
	char *path = NULL;
	int r;

	if (arg[0] != '/') {
		r = beneath_cwd(root, arg, verb, &rel);
		if (r)
			return r;
		where = rel;
	}
	r = resolve_chase(rootfd, where, host ? 0 : RESOLVE_CHASE_NO_CLIMB, &path, &followed);
	if (r == -ENOMEM) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	if (r == -EXDEV)
		return usage_error(verb, "'%s' leads out of the root '%s'", arg, root);
	if (r == -ENOENT || r == -ENOTDIR || r == -ELOOP || r == -ENAMETOOLONG || r == -EINVAL) {
		_cleanup_free_ char *norm = resolve_normalise(where), *detail = NULL;
		int fd = norm ? resolve_open(rootfd, norm, O_PATH) : -EINVAL;
		bool link = fd == -ELOOP && r != -ELOOP, given_rel = where != arg;

		if (fd >= 0)
			(void)close(fd);
		/* " (/usr/bin/pnig beneath the root '/srv/img')": where a relative PATH led */
		if ((!host || given_rel) && asprintf(&detail, " (%s%s%s%s%s)", given_rel ? where : "",
					       given_rel && !host ? " " : "", host ? "" : "beneath the root '",
					       host ? "" : root, host ? "" : "'") < 0)
			detail = NULL;
		return usage_error(verb, "cannot use '%s'%s: %s%s", arg, detail ? detail : "",
				   strerror(-r), link ? " (it leads through a symbolic link)" : "");
	}
	if (r < 0) {
		/* Not ours to judge: the walk says what it cannot open. */
		path = strdup(where);
		if (!path) {
			log_error("out of memory");
			return S2C_EXIT_FAILURE;
		}
	} else if (followed) {
		log_notice("'%s' is or passes through a symbolic link: walking '%s' instead", arg,
			   path);
	}
	*ret = path;
	return 0;
}

/* Whether @path is @dir or lies below it. */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (s2c_streq(dir, "/"))
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Whether @a and @b (beneath @rootfd) are on one filesystem, so --xdev walks both from @b. */
static bool same_device(int rootfd, const char *a, const char *b)
{
	_cleanup_close_ int fa = resolve_open(rootfd, a, O_PATH);
	_cleanup_close_ int fb = resolve_open(rootfd, b, O_PATH);
	struct stat sa, sb;

	return fa >= 0 && fb >= 0 && fstat(fa, &sa) == 0 && fstat(fb, &sb) == 0 &&
	       sa.st_dev == sb.st_dev;
}

int scanargs_finish(struct scanargs *a, int argc, char **argv, int first, const char *verb)
{
	static char real[PATH_MAX];
	_cleanup_close_ int rootfd = -1;
	size_t n = first < argc ? (size_t)(argc - first) : 0, k = 0;
	const char *why = NULL;
	struct stat st;

	if (stat(a->root, &st) < 0 || !realpath(a->root, real))
		why = strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = strerror(ENOTDIR);
	if (why) {
		_cleanup_free_ char *shown = shown_path(a->root);
		return usage_error(verb, "cannot use root '%s': %s", shown ? shown : a->root, why);
	}
	/* Plans, journals and reports name the root absolutely. */
	a->root = real;
	a->paths = NULL;
	a->operands = NULL;
	if (!n)
		return 0;
	rootfd = open(a->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return usage_error(verb, "cannot use root '%s': %s", a->root, strerror(errno));
	resolved = strv_free(resolved);
	start = strv_free(start);
	resolved = calloc(n + 1, sizeof(*resolved));
	start = calloc(n + 1, sizeof(*start));
	if (!resolved || !start) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	for (size_t i = 0; i < n; i++) {
		int ex = resolve_operand(rootfd, a->root, argv[first + i], verb, &resolved[i]);
		if (ex)
			return ex;
	}
	/*
	 * Each file is walked once: an operand named twice (/bin and /usr/bin on a merged-/usr
	 * system), or inside another one, is left out of the start paths; with --xdev one
	 * inside another is kept when it is on another filesystem.
	 */
	for (size_t i = 0; i < n; i++) {
		bool dup = false;

		for (size_t j = 0; j < n && !dup; j++) {
			if (j == i || !path_within(resolved[i], resolved[j]))
				continue;
			if (s2c_streq(resolved[i], resolved[j]))
				dup = j < i;
			else
				dup = !(a->flags & SCAN_XDEV) ||
				      same_device(rootfd, resolved[i], resolved[j]);
		}
		if (!dup && !(start[k++] = strdup(resolved[i]))) {
			log_error("out of memory");
			return S2C_EXIT_FAILURE;
		}
	}
	a->operands = (const char *const *)resolved;
	a->paths = (const char *const *)start;
	return 0;
}

/* What the walk's warnings need to name a path: the root it is beneath. */
struct warn_ctx {
	const char *root;
};

static void on_warning(void *userdata, const char *path, int error, const char *what)
{
	const struct warn_ctx *w = userdata;

	if (w && w->root && !s2c_streq(w->root, "/"))
		log_warning("%s '%s' beneath the root '%s': %s", what, path, w->root,
			    strerror(-error));
	else
		log_warning("%s '%s': %s", what, path, strerror(-error));
}

int scanargs_run(const struct scanargs *a, const struct s2c_ctx *ctx, const struct rules_db *db,
		 struct scan_result **ret)
{
	struct walk_stats stats = { 0 };
	struct warn_ctx w = { .root = a->root };
	struct scan_options o = {
		.root = a->root,
		.paths = a->paths,
		.threads = a->threads,
		.flags = a->flags | (db ? SCAN_CONTENT : 0),
		.strings = db ? db->strings : NULL,
		.prefixes = db ? db->prefixes : NULL,
		.exclude = a->n_exclude ? a->exclude : NULL,
		.exclude_file = SCANARGS_EXCLUDE_FILE,
		.trusted = geteuid() == 0,
		.on_warning = on_warning,
		.userdata = &w,
		.stats = &stats,
	};
	struct s2c_error err = { 0 };
	struct progress *p = progress_start(&stats, ctx->stderr_tty);
	int r = scan_run(&o, ret, &err);

	progress_stop(p);
	if (r < 0) {
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return r == -ENOENT || r == -ENOTDIR ? S2C_EXIT_USAGE
		       : r == -EPERM		     ? S2C_EXIT_PRIVILEGE
						     : S2C_EXIT_FAILURE;
	}
	return 0;
}

int scanargs_plan_limits(const struct scanargs *a, const struct scan_result *res,
			 const struct host *h, struct plan *p)
{
	int held = 0, r;

	r = plan_set_not_scanned(p, res->skipped, res->n_skipped);
	if (r == 0 && !a->include_unpackaged)
		r = held = plan_only_packaged(p, h);
	if (r < 0) {
		log_error("cannot make the plan: %s", strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	for (int other = 1; other >= 0; other--) {
		bool none;
		_cleanup_free_ char *line = scanout_skipped_line(res->skipped, res->n_skipped, other,
								 &none);
		if (line)
			log_notice("%s", line);
	}
	if (held)
		log_notice("%d file%s no package owns left as %s (on the running system only "
			   "packaged files are changed; --include-unpackaged changes them too)",
			   held, held == 1 ? "" : "s", held == 1 ? "it is" : "they are");
	return 0;
}

/* --- -o FILE ------------------------------------------------------------------------- */

/*
 * The stream under -o writes straight to the fd and keeps the first error, so the
 * message can say why (stdio's error flag forgets errno, and the renderers only
 * see "an error happened").
 */
static ssize_t outfile_write(void *cookie, const char *buf, size_t size)
{
	struct outfile *o = cookie;
	size_t done = 0;

	while (done < size && !o->error) {
		ssize_t n = write(o->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->error = n < 0 ? errno : EIO;
		else
			done += (size_t)n;
	}
	return o->error ? 0 : (ssize_t)done;    /* 0 tells stdio it failed */
}

/* Forget everything the outfile holds; the temporary file must be gone already. */
static void outfile_release(struct outfile *o)
{
	if (o->fd >= 0)
		(void)close(o->fd);
	if (o->dirfd >= 0)
		(void)close(o->dirfd);
	free(o->path);
	free(o->shown);
	free(o->dir);
	free(o->tmp);
	*o = (struct outfile){ .f = stdout, .fd = -1, .dirfd = -1 };
}

/* Split o->path into its directory (opened as o->dirfd) and o->base. */
static int open_dir(struct outfile *o)
{
	char *slash = strrchr(o->path, '/');

	o->base = slash ? slash + 1 : o->path;
	if (!*o->base || s2c_streq(o->base, ".") || s2c_streq(o->base, "..")) {
		log_error("cannot write '%s': %s", o->shown, strerror(EISDIR));
		return S2C_EXIT_FAILURE;
	}
	o->dir = slash == o->path ? strdup("/") :
		 slash ? strndup(o->path, (size_t)(slash - o->path)) : strdup(".");
	if (!o->dir) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	/* Read access lets us fsync the directory after the rename; search access is enough
	 * for everything else. */
	o->dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	o->sync_dir = o->dirfd >= 0;
	if (o->dirfd < 0 && errno == EACCES)
		o->dirfd = open(o->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0) {
		log_error("cannot write '%s': opening its directory: %s", o->shown, strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

/*
 * A character device, FIFO or socket is written into, never replaced: opened without
 * O_CREAT or O_TRUNC (a FIFO waits for its reader, as a shell's ">" does), then checked to
 * be the node that was looked at.  A socket is reached through an O_PATH fd of that very
 * node, so a symlink swapped in meanwhile is not followed.
 */
static int open_stream(struct outfile *o, const struct stat *st)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat now;
	_cleanup_close_ int pfd = -1;

	if (!S_ISSOCK(st->st_mode)) {
		o->fd = openat(o->dirfd, o->base, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
		if (o->fd < 0 || fstat(o->fd, &now) < 0) {
			log_error("cannot write '%s': opening it: %s", o->shown, strerror(errno));
			return S2C_EXIT_FAILURE;
		}
	} else {
		pfd = openat(o->dirfd, o->base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pfd < 0 || fstat(pfd, &now) < 0) {
			log_error("cannot write '%s': opening it: %s", o->shown, strerror(errno));
			return S2C_EXIT_FAILURE;
		}
	}
	if ((now.st_mode & S_IFMT) != (st->st_mode & S_IFMT) || now.st_dev != st->st_dev ||
	    now.st_ino != st->st_ino) {
		log_error("'%s' changed while it was opened, not writing it", o->shown);
		return S2C_EXIT_FAILURE;
	}
	if (pfd < 0)
		return 0;
	(void)snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", pfd);
	o->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (o->fd < 0 || connect(o->fd, (const struct sockaddr *)&sa, sizeof(sa)) < 0) {
		log_error("cannot write '%s': connecting to the socket: %s", o->shown,
			  strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

/* A new name in o->dirfd for the temporary file: ".<base>.XXXXXXXX", created with O_EXCL. */
static int create_tmp(struct outfile *o, mode_t mode)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[8];
	char suffix[sizeof(rnd) + 1];

	for (unsigned attempt = 0; attempt < 100; attempt++) {
		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -errno;
		for (size_t i = 0; i < sizeof(rnd); i++)
			suffix[i] = alnum[rnd[i] % (sizeof(alnum) - 1)];
		suffix[sizeof(rnd)] = '\0';
		free(o->tmp);
		/* A long base is cut so the name stays under NAME_MAX. */
		if (asprintf(&o->tmp, ".%.200s.%s", o->base, suffix) < 0) {
			o->tmp = NULL;
			return -ENOMEM;
		}
		o->fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       mode);
		if (o->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	free(o->tmp);
	o->tmp = NULL;
	return -errno;
}

/*
 * A regular file, or a name that does not exist yet: written to a temporary file in the
 * same directory and renamed over it by outfile_close().  A new file is created 0666
 * under the umask (and a default ACL), like a shell's ">" would; an existing one's owner,
 * group and permission bits are put on the temporary file before anything is written to
 * it (it starts as 0600), and when they cannot be (no CAP_CHOWN), nothing is written.
 */
static int open_replacement(struct outfile *o, const struct stat *st)
{
	struct stat tst;
	int r = create_tmp(o, st ? 0600 : 0666);

	if (r < 0) {
		log_error("cannot write '%s': creating a temporary file beside it: %s", o->shown,
			  strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	if (!st)
		return 0;
	o->replace = true;
	o->dev = st->st_dev;
	o->ino = st->st_ino;
	if (fstat(o->fd, &tst) < 0) {
		log_error("cannot write '%s': reading back its temporary file: %s", o->shown,
			  strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	if ((tst.st_uid != st->st_uid || tst.st_gid != st->st_gid) &&
	    fchown(o->fd, st->st_uid, st->st_gid) < 0) {
		log_error("cannot replace '%s' keeping its owner and group (%u:%u): %s; remove it "
			  "first or write elsewhere", o->shown, (unsigned)st->st_uid,
			  (unsigned)st->st_gid, strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	/* The permission bits; a report never needs set-ID or sticky bits. */
	if (fchmod(o->fd, st->st_mode & 0777) < 0) {
		log_error("cannot replace '%s' keeping its mode %04o: %s", o->shown,
			  (unsigned)(st->st_mode & 0777), strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

static int open_target(struct outfile *o)
{
	struct stat st;
	int ex = open_dir(o);

	if (ex)
		return ex;
	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return open_replacement(o, NULL);
		log_error("cannot write '%s': %s", o->shown, strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		return open_replacement(o, &st);
	case S_IFCHR:
	case S_IFIFO:
	case S_IFSOCK:
		return open_stream(o, &st);
	case S_IFLNK:
		log_error("'%s' is a symbolic link: -o neither follows nor replaces one", o->shown);
		return S2C_EXIT_FAILURE;
	case S_IFDIR:
		log_error("cannot write '%s': %s", o->shown, strerror(EISDIR));
		return S2C_EXIT_FAILURE;
	default:
		log_error("'%s' is a %s: -o writes only to a regular file, a character device, a "
			  "FIFO or a socket", o->shown, S_ISBLK(st.st_mode) ? "block device" :
			  "special file");
		return S2C_EXIT_FAILURE;
	}
}

int outfile_open(struct outfile *o, const char *path)
{
	static const cookie_io_functions_t io = { .write = outfile_write };
	int ex;

	*o = (struct outfile){ .f = stdout, .fd = -1, .dirfd = -1 };
	if (!path || s2c_streq(path, "-"))
		return 0;
	o->path = strdup(path);
	o->shown = shown_path(path);
	if (!o->path || !o->shown) {
		log_error("out of memory");
		outfile_release(o);
		return S2C_EXIT_FAILURE;
	}
	ex = open_target(o);
	if (!ex) {
		o->f = fopencookie(o, "w", io);
		if (!o->f) {
			log_error("cannot write '%s': %s", o->shown, strerror(errno));
			ex = S2C_EXIT_FAILURE;
		}
	}
	if (ex) {
		o->f = NULL;    /* stdout or nothing: not ours to close */
		(void)outfile_close(o, false);
	}
	return ex;
}

/*
 * Put the finished temporary file in place of o->base, but only over what was there when
 * the report began: the same regular file, or nothing.
 */
static int put_in_place(struct outfile *o)
{
	struct stat st;
	int r;

	if (o->replace) {
		if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_dev != o->dev || st.st_ino != o->ino) {
			log_error("'%s' changed while the report was written, leaving it alone",
				  o->shown);
			return S2C_EXIT_FAILURE;
		}
		r = renameat(o->dirfd, o->tmp, o->dirfd, o->base);
	} else {
		r = renameat2(o->dirfd, o->tmp, o->dirfd, o->base, RENAME_NOREPLACE);
		if (r < 0 && (errno == EINVAL || errno == ENOSYS)) {
			/* A filesystem without RENAME_NOREPLACE: look, then rename. */
			if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) == 0)
				errno = EEXIST;
			else if (errno == ENOENT)
				r = renameat(o->dirfd, o->tmp, o->dirfd, o->base);
		}
		if (r < 0 && errno == EEXIST) {
			log_error("'%s' was created while the report was written, leaving it alone",
				  o->shown);
			return S2C_EXIT_FAILURE;
		}
	}
	if (r < 0) {
		log_error("cannot write '%s': renaming its temporary file into place: %s", o->shown,
			  strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

int outfile_close(struct outfile *o, bool ok)
{
	int ex = 0;

	if (!o->path)
		return 0;       /* stdout is checked at exit */
	if (o->f) {
		if (ok && fflush(o->f) != 0 && !o->error)
			o->error = EIO;
		(void)fclose(o->f);     /* no close function: the fd stays ours */
		o->f = NULL;
	}
	if (o->error) {
		log_error("cannot write '%s': writing: %s", o->shown, strerror(o->error));
		ok = false;
	}
	if (ok && o->tmp && fsync(o->fd) < 0) {
		log_error("cannot write '%s': syncing it to disk: %s", o->shown, strerror(errno));
		ok = false;
	}
	if (o->fd >= 0 && close(TAKE_FD(o->fd)) < 0 && ok && o->tmp) {
		log_error("cannot write '%s': closing it: %s", o->shown, strerror(errno));
		ok = false;
	}
	if (ok && o->tmp) {
		ex = put_in_place(o);
		if (!ex) {
			free(TAKE_PTR(o->tmp));
			/* The rename is durable only once the directory is. */
			if (o->sync_dir && fsync(o->dirfd) < 0 && errno != EINVAL) {
				log_error("cannot write '%s': syncing its directory: %s", o->shown,
					  strerror(errno));
				ex = S2C_EXIT_FAILURE;
			}
		}
	} else if (!ok) {
		ex = S2C_EXIT_FAILURE;
	}
	if (o->tmp)
		(void)unlinkat(o->dirfd, o->tmp, 0);
	outfile_release(o);
	return ex;
}
