/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap scan: the inventory of privileged files.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "scanargs.h"
#include "scanout.h"
#include "common.h"

enum scan_format { FORMAT_TEXT, FORMAT_JSON };

enum {
	ARG_FORMAT = 0x200,
};

static const char help_text[] =
	"List every regular file that is setuid, setgid or has file capabilities.\n"
	"\n"
	"  --root DIR       treat DIR as the system root (an image or chroot)\n"
	"  --format FMT     text (default) or json\n"
	"  --threads N      worker threads (default: max(CPUs, 8), at most 16)\n"
	"  --xdev           stay on the filesystem of each PATH\n"
	"  --all-caps       read capabilities of every regular file, not only executables\n"
	"  --cross-pseudo   also walk proc, sysfs and other pseudo filesystems\n"
	"  --exclude PATH   do not walk PATH, a path or fnmatch glob under the root\n"
	"                   (repeatable; also read from ROOT/etc/suid2cap/exclude)\n"
	"  --other-roots    on the running system, also walk other OS roots, container\n"
	"                   storage and overlayfs layers (skipped and listed by default)\n"
	"  -o, --output FILE  write to FILE (atomically) instead of standard output\n"
	"  -h, --help       show this help\n";

struct scan_args {
	struct scanargs s;
	enum scan_format format;
	const char *output;
};

static int parse_argv(int argc, char **argv, struct scan_args *a, const struct s2c_ctx *ctx)
{
	static const struct option opts[] = {
		SCANARGS_OPTIONS,
		{ "format", required_argument, NULL, ARG_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, r;

	scanargs_init(&a->s, ctx);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		r = scanargs_option(&a->s, c, optarg, "scan");
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		switch (c) {
		case 'h':
			cmd_print_usage(cmd_lookup("scan"), stdout);
			(void)fputs(help_text, stdout);
			return 0;
		case 'o':
			a->output = optarg;
			break;
		case ARG_FORMAT:
			if (s2c_streq(optarg, "text"))
				a->format = FORMAT_TEXT;
			else if (s2c_streq(optarg, "json"))
				a->format = FORMAT_JSON;
			else
				return -usage_error("scan", "unknown format '%s': expected text or json",
						    optarg);
			break;
		case '?':
			return -usage_error("scan", "unknown or incomplete option '%s'",
					    argv[optind - 1]);
		default:
			return -usage_error("scan", "unexpected option");
		}
	}
	r = scanargs_finish(&a->s, argc, argv, optind, "scan");
	return r < 0 ? r : 1;
}

int cmd_scan(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct scan_args a = { 0 };
	struct scan_result *res = NULL;
	struct outfile out;
	int r, ex;

	r = parse_argv(argc, argv, &a, ctx);
	if (r <= 0)
		return -r;
	ex = scanargs_run(&a.s, ctx, &res);
	if (ex)
		return ex;
	ex = outfile_open(&out, a.output);
	if (ex) {
		scan_result_free(res);
		return ex;
	}
	r = a.format == FORMAT_JSON ? scanout_json(res, out.f) : scanout_text(res, out.f);
	if (r < 0)
		log_error("cannot write the scan: %s", strerror(-r));
	ex = outfile_close(&out, r == 0);
	if (r < 0 || ex)
		ex = S2C_EXIT_FAILURE;
	else if (res->warnings)
		ex = S2C_EXIT_INCOMPLETE;
	scan_result_free(res);
	return ex;
}
