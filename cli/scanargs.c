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
#include "plan.h"
#include "progress.h"
#include "scanargs.h"
#include "scanout.h"
#include "skip.h"
#include "util.h"
#include "common.h"

#define MAX_THREADS 256

void scanargs_init(struct scanargs *a, const struct s2c_ctx *ctx)
{
	*a = (struct scanargs){ .root = "/" };
	/* Warm scans are CPU-bound (threads = CPUs is enough); cold scans wait on
	 * inode reads, and more requests in flight hide that latency.  Eight
	 * threads measured best for both on small machines. */
	a->threads = S2C_MIN(S2C_MAX(ctx->ncpus, 8u), 16u);
}

int scanargs_option(struct scanargs *a, int opt, const char *arg, const char *verb)
{
	unsigned n;

	switch (opt) {
	case ARG_ROOT:
		if (s2c_isempty(arg))
			return -usage_error(verb, "--root needs a directory");
		a->root = arg;
		return 1;
	case ARG_THREADS:
		if (parse_uint(arg, MAX_THREADS, &n) < 0 || n == 0)
			return -usage_error(verb, "invalid --threads '%s': expected 1..%d", arg,
					    MAX_THREADS);
		a->threads = n;
		return 1;
	case ARG_XDEV:
		a->flags |= SCAN_XDEV;
		return 1;
	case ARG_ALL_CAPS:
		a->flags |= SCAN_ALL_CAPS;
		return 1;
	case ARG_CROSS_PSEUDO:
		a->flags |= SCAN_CROSS_PSEUDO;
		return 1;
	case ARG_EXCLUDE: {
		struct s2c_error err = { 0 };
		_cleanup_free_ char *norm = NULL;
		int r = skip_pattern_normalise(arg, &norm, &err);

		if (r == -ENOMEM) {
			log_error("out of memory");
			return -S2C_EXIT_FAILURE;
		}
		if (r < 0)
			return -usage_error(verb, "invalid --exclude '%s': %s", esc(arg), err.msg);
		if (a->n_exclude == SCANARGS_MAX_EXCLUDE)
			return -usage_error(verb, "too many --exclude options (at most %d; use %s)",
					    SCANARGS_MAX_EXCLUDE, SCANARGS_EXCLUDE_FILE);
		a->exclude[a->n_exclude++] = arg;
		return 1;
	}
	case ARG_OTHER_ROOTS:
		a->flags |= SCAN_OTHER_ROOTS;
		return 1;
	case ARG_INCLUDE_UNPACKAGED:
		if (s2c_streq(verb, "scan") || s2c_streq(verb, "audit") || s2c_streq(verb, "explain"))
			return -usage_error(verb, "--include-unpackaged applies to plan, migrate and "
					    "verify --fix, which change files");
		a->include_unpackaged = true;
		return 1;
	default:
		return 0;
	}
}

int scanargs_finish(struct scanargs *a, int argc, char **argv, int first, const char *verb)
{
	struct stat st;

	if (stat(a->root, &st) < 0)
		return -usage_error(verb, "cannot use root '%s': %s", a->root, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return -usage_error(verb, "root '%s' is not a directory", a->root);
	/* Plans, journals and reports name the root absolutely. */
	{
		static char real[PATH_MAX];
		if (!realpath(a->root, real))
			return -usage_error(verb, "cannot use root '%s': %s", a->root, strerror(errno));
		a->root = real;
	}
	for (int i = first; i < argc; i++)
		if (s2c_isempty(argv[i]))
			return -usage_error(verb, "empty path operand");
	a->paths = first < argc ? (const char *const *)&argv[first] : NULL;
	return 0;
}

static void on_warning(void *userdata, const char *path, int error, const char *what)
{
	_cleanup_free_ char *esc = escape_text(path);

	(void)userdata;
	log_warning("%s '%s': %s", what, esc ? esc : "?", strerror(-error));
}

int scanargs_run(const struct scanargs *a, const struct s2c_ctx *ctx, struct scan_result **ret)
{
	struct walk_stats stats = { 0 };
	struct scan_options o = {
		.root = a->root,
		.paths = a->paths,
		.threads = a->threads,
		.flags = a->flags,
		.exclude = a->n_exclude ? a->exclude : NULL,
		.exclude_file = SCANARGS_EXCLUDE_FILE,
		.trusted = geteuid() == 0,
		.on_warning = on_warning,
		.stats = &stats,
	};
	struct s2c_error err = { 0 };
	struct progress *p = progress_start(&stats, ctx->stderr_tty);
	int r = scan_run(&o, ret, &err);

	progress_stop(p);
	if (r < 0) {
		log_error("%s", err.msg[0] ? esc(err.msg) : strerror(-r));
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

int outfile_open(struct outfile *o, const char *path)
{
	_cleanup_free_ char *tmp = NULL;
	int fd;

	*o = (struct outfile){ .f = stdout };
	if (!path || s2c_streq(path, "-"))
		return 0;
	if (asprintf(&tmp, "%s.tmpXXXXXX", path) < 0) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		log_error("cannot create '%s': %s", tmp, strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	if (fchmod(fd, 0644) < 0 || !(o->f = fdopen(fd, "w"))) {
		log_error("cannot open '%s': %s", tmp, strerror(errno));
		(void)close(fd);
		(void)unlink(tmp);
		return S2C_EXIT_FAILURE;
	}
	o->path = strdup(path);
	o->tmp = TAKE_PTR(tmp);
	if (!o->path) {
		(void)outfile_close(o, false);
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

int outfile_close(struct outfile *o, bool ok)
{
	int ex = 0;

	if (!o->tmp)
		return 0;       /* stdout is checked at exit */
	if (ok && (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) < 0)) {
		log_error("cannot write '%s': %s", o->tmp, strerror(errno ? errno : EIO));
		ok = false;
		ex = S2C_EXIT_FAILURE;
	}
	if (fclose(o->f) != 0 && ok) {
		log_error("cannot write '%s': %s", o->tmp, strerror(errno));
		ok = false;
		ex = S2C_EXIT_FAILURE;
	}
	/* rename(2) replaces a symlink at the destination rather than following it. */
	if (ok && rename(o->tmp, o->path) < 0) {
		log_error("cannot rename '%s' to '%s': %s", o->tmp, o->path, strerror(errno));
		ok = false;
		ex = S2C_EXIT_FAILURE;
	}
	if (!ok)
		(void)unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	*o = (struct outfile){ 0 };
	return ex;
}
