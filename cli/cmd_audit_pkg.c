/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap audit-pkg: the audit report of packages (.deb, .rpm), read from
 * their archives without installing them: the modes as packed, what the
 * maintainer scripts add, the decision about every privileged file, and per
 * package the snippet of its own packaging that makes the migration durable.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "cli.h"
#include "opts.h"
#include "targetrun.h"
#include "util.h"
#include "common.h"

static const char intro[] =
	"Audit packages without installing them: every set-ID or capability file as\n"
	"packed, the privilege the maintainer scripts add at install time (chmod u+s,\n"
	"setcap with its fallback, dpkg-statoverride), the verdict about each, and per\n"
	"package the plan as a Debian postinst (.deb) or rpm %files lines (.rpm).\n"
	"FILE is a .deb, .udeb or .rpm.\n"
	"\f"
	"Exit status: 0 success, 1 --fail-on matched, 2 usage error, 3 a package could not\n"
	"be read (each is named; the others are audited), 4 operation failed.\n";

struct pkg_args {
	struct targetrun tr;
	const char *from_dir;
	const char *shard;
	unsigned shard_k, shard_n;    /* 1-based K, 0 N: no shard */
	char shard_text[32];
	char **files;
	size_t n_files;
};

static int parse_shard(struct pkg_args *a, const char *arg)
{
	_cleanup_free_ char *k = strdup(arg);
	char *slash = k ? strchr(k, '/') : NULL;

	if (!slash || (*slash = '\0', parse_uint(k, 1u << 20, &a->shard_k) < 0) ||
	    parse_uint(slash + 1, 1u << 20, &a->shard_n) < 0 || a->shard_n == 0 ||
	    a->shard_k == 0 || a->shard_k > a->shard_n)
		return usage_error("audit-pkg", "invalid --shard '%s': expected K/N with 1 <= K <= N",
				   arg);
	(void)snprintf(a->shard_text, sizeof(a->shard_text), "%u/%u", a->shard_k, a->shard_n);
	a->tr.shard = a->shard_text;
	return 0;
}

/* Returns an exit code; @ret_done is set when nothing is left to do (--help). */
static int parse_argv(int argc, char **argv, struct pkg_args *a, const struct s2c_ctx *ctx,
		      bool *ret_done)
{
	struct opt opts[] = {
		OPT_TABLE(a->tr.db.opts),
		OPT_TABLE(a->tr.out.opts),
		OPT_TABLE(a->tr.opts),
		OPT_STRING(0, "from-dir", &a->from_dir, "DIR", "every package below DIR (a "
			   "mirror's pool);\nsymlinks are not followed"),
		OPT_STRING(0, "shard", &a->shard, "K/N", "only the K-th of N stable slices of "
			   "the\npackages (by file name), so that N machines\ncan share an archive; "
			   "join their JSON\nreports with 'suid2cap report merge'"),
		OPT_END(),
	};
	int r, first;

	targetrun_init(&a->tr, ctx, "audit-pkg", true);
	r = opts_parse(cmd_lookup("audit-pkg"), opts, intro, argc, argv, &first);
	*ret_done = r || !first;
	if (r || !first)
		return r;
	if (a->shard && parse_shard(a, a->shard))
		return S2C_EXIT_USAGE;
	a->files = argv + first;
	a->n_files = (size_t)(argc - first);
	if (!a->from_dir && a->n_files == 0)
		return usage_error("audit-pkg", "no package given: name FILE ... or --from-dir DIR");
	if (a->from_dir && a->n_files)
		return usage_error("audit-pkg", "give either FILE ... or --from-dir DIR, not both");
	if (auditargs_check(&a->tr.out, "audit-pkg"))
		return S2C_EXIT_USAGE;
	for (size_t i = 0; i < a->n_files; i++)
		if (targetrun_check_input("audit-pkg", a->files[i], false))
			return S2C_EXIT_USAGE;
	return 0;
}

static void on_progress(size_t done, size_t total, void *userdata)
{
	const struct targetrun *tr = userdata;

	if (tr->ctx->stderr_tty)
		(void)fprintf(stderr, "\r%zu/%zu packages read%s", done, total, done == total ?
			      "\r\033[K" : "");
}

int cmd_audit_pkg(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct pkg_args a = { 0 };
	struct batch_list l = { 0 };
	struct s2c_error err = { 0 };
	struct auditrun run;
	bool done = false;
	int r, ex;

	ex = parse_argv(argc, argv, &a, ctx, &done);
	if (ex || done)
		return ex;
	if (a.from_dir) {
		/* Messages name DIR and what is below it as the user can find them. */
		_cleanup_free_ char *shown = shown_path(a.from_dir);

		r = shown ? batch_find(a.from_dir, shown, &l, &err) : -ENOMEM;
		if (r < 0) {
			log_error("%s", err.msg[0] ? err.msg : strerror(-r));
			batch_list_release(&l);
			return r == -ENOMEM ? S2C_EXIT_FAILURE : S2C_EXIT_USAGE;
		}
		if (l.skipped_links)
			log_notice("%zu symbolic link%s below '%s' not followed", l.skipped_links,
				   l.skipped_links == 1 ? "" : "s", shown);
	} else {
		for (size_t i = 0; i < a.n_files; i++)
			if (batch_list_add(&l, a.files[i]) < 0) {
				log_error("out of memory");
				batch_list_release(&l);
				return S2C_EXIT_FAILURE;
			}
	}
	if (a.shard_n)
		batch_shard(&l, a.shard_k - 1, a.shard_n);
	r = auditrun_pkgs(targetrun_opts(&a.tr), &l, !a.from_dir,
			  targetrun_hooks(&a.tr, on_progress), &run, &err);
	ex = targetrun_report(&a.tr, &run, r, &err, argv, ctx);
	auditrun_release(&run);
	batch_list_release(&l);
	return ex;
}
