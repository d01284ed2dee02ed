/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
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
	return scanargs_run_batches(a, ctx, db, NULL, NULL, 0, ret);
}

int scanargs_run_batches(const struct scanargs *a, const struct s2c_ctx *ctx,
			 const struct rules_db *db,
			 int (*on_batch)(void *userdata, const struct scan_result *res,
					 struct facts **v, size_t n),
			 void *userdata, size_t batch, struct scan_result **ret)
{
	struct walk_stats stats = { 0 };
	struct warn_ctx w = { .root = a->root };
	const struct binary_wants want = db ? rules_db_wants(db) : (struct binary_wants){ 0 };
	enum scan_part part = SCAN_PART_NONE;
	struct scan_options o = {
		.root = a->root,
		.paths = a->paths,
		.threads = a->threads,
		.flags = a->flags | (db ? SCAN_CONTENT : 0),
		.want = db ? &want : NULL,
		.exclude = a->n_exclude ? a->exclude : NULL,
		.exclude_file = SCANARGS_EXCLUDE_FILE,
		.trusted = geteuid() == 0,
		.on_warning = on_warning,
		.userdata = &w,
		.stats = &stats,
		.on_batch = on_batch,
		.batch_userdata = userdata,
		.batch = batch,
		.records_dir = a->records_dir,
		.records_memory = CLI_RECORDS_MEMORY,
		.count_any = a->count_any,
		.failed = &part,
	};
	struct s2c_error err = { 0 };
	struct progress *p = progress_start(&stats, ctx->stderr_tty);
	int r = scan_run(&o, ret, &err);

	progress_stop(p);
	if (r < 0 && on_batch && !s2c_error_isset(&err))
		return S2C_EXIT_FAILURE;        /* on_batch() failed, and its caller says why */
	if (r < 0) {
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		if (part == SCAN_PART_ROOT && (r == -ENOENT || r == -ENOTDIR))
			return S2C_EXIT_USAGE;
		return part == SCAN_PART_EXCLUDE && r == -EPERM ? S2C_EXIT_PRIVILEGE
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
