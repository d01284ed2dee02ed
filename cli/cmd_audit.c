/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap audit: the report of every privileged file with its verdict,
 * evidence and risk, as text, JSON, Markdown, HTML or SARIF, and an exit
 * status a CI job can gate on (--fail-on).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "auditargs.h"
#include "auditout.h"
#include "cli.h"
#include "dbargs.h"
#include "engine.h"
#include "host.h"
#include "identity.h"
#include "scan.h"
#include "scanargs.h"
#include "common.h"

static const char help_text[] =
	"Audit every setuid, setgid and capability-carrying file: the verdict about each\n"
	"(migrate, drop, keep, review), the capabilities it needs, the evidence and the\n"
	"risk, as a report for people or machines.\n"
	"\n"
	"  --root DIR        treat DIR as the system root (an image or chroot)\n"
	"  --db DIR          add a rules directory on top of the bundled and /etc ones\n"
	"  --kernel VER      evaluate kernel conditions for VER instead of the running kernel\n"
	AUDITARGS_HELP
	"  --threads N       worker threads (default: max(CPUs, 8), at most 16)\n"
	"  --xdev            stay on the filesystem of each PATH\n"
	"  --all-caps        read capabilities of every regular file, not only executables\n"
	"  --cross-pseudo    also walk proc, sysfs and other pseudo filesystems\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 success, 1 --fail-on matched, 2 usage error, 3 incomplete scan\n"
	"(wins over 1), 4 operation failed, 5 privilege error.\n";

struct audit_args {
	struct scanargs s;
	struct dbargs db;
	struct auditargs out;
};

/* Returns 1 to go on, 0 after --help, or -exit code. */
static int parse_argv(int argc, char **argv, struct audit_args *a, const struct s2c_ctx *ctx)
{
	static const struct option opts[] = {
		SCANARGS_OPTIONS,
		DBARGS_OPTIONS,
		AUDITARGS_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, r;

	scanargs_init(&a->s, ctx);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		r = scanargs_option(&a->s, c, optarg, "audit");
		if (r == 0)
			r = dbargs_option(&a->db, c, optarg, "audit");
		if (r == 0)
			r = auditargs_option(&a->out, c, optarg, "audit");
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		switch (c) {
		case 'h':
			cmd_print_usage(cmd_lookup("audit"), stdout);
			(void)fputs(help_text, stdout);
			return 0;
		case '?':
			return -usage_error("audit", "unknown or incomplete option '%s'",
					    argv[optind - 1]);
		default:
			return -usage_error("audit", "unexpected option");
		}
	}
	r = scanargs_finish(&a->s, argc, argv, optind, "audit");
	return r < 0 ? r : 1;
}

int cmd_audit(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct audit_args a = { 0 };
	struct scan_result *res = NULL;
	struct decisions ds;
	struct identity id;
	struct audit au;
	_cleanup_free_ char *pgr = NULL;
	char root_abs[PATH_MAX];
	int r, ex;

	r = parse_argv(argc, argv, &a, ctx);
	if (r <= 0)
		return -r;
	if (!realpath(a.s.root, root_abs)) {
		log_error("cannot resolve root '%s': %s", esc(a.s.root), strerror(errno));
		return S2C_EXIT_USAGE;
	}
	ex = decide_scan(&a.db, &a.s, ctx, &res, &ds);
	if (ex)
		return ex;
	(void)host_sysctl(ds.host, "net.ipv4.ping_group_range", &pgr);
	identity_init(&id, res->rootfd, res->host, NULL);
	au = (struct audit){
		.root = res->root,
		.paths = a.s.paths,
		.root_abs = root_abs,
		.complete = res->warnings == 0,
		.scan_warnings = res->warnings,
		.directories = res->stats.dirs,
		.entries = res->stats.files,
		.db = ds.db,
		.host = ds.host,
		.ping_group_range = pgr,
		.v = ds.v,
		.n = ds.n,
		.argv = (const char *const *)argv,
		.identity = &id.id,
	};
	ex = auditargs_write(&a.out, &au, ctx, res->warnings > 0);
	identity_release(&id);
	decisions_release(&ds);
	scan_result_free(res);
	return ex;
}
