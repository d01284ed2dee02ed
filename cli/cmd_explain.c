/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap explain: the full reasoning about one file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "cli.h"
#include "dbargs.h"
#include "decisionout.h"
#include "engine.h"
#include "facts.h"
#include "resolve.h"
#include "jsonout.h"
#include "scan.h"
#include "scanargs.h"
#include "common.h"

enum {
	ARG_FORMAT = 0x200,
};

static const char help_text[] =
	"Explain the decision about each PATH: facts, matched rule and why, ELF\n"
	"evidence, conditions evaluated, verdict, capabilities, risk and sources.\n"
	"\n"
	"  --root DIR      treat DIR as the system root\n"
	"  --db DIR        add a rules directory on top of the bundled and /etc ones\n"
	"  --kernel VER    evaluate kernel conditions for VER instead of the running kernel\n"
	"  --bounding-set SET   the bounding set programs run with there: docker, podman,\n"
	"                       all, or capability names separated by commas; a migration\n"
	"                       outside it cannot work (default: from the target)\n"
	"  --format FMT    text (default) or json\n"
	"  -h, --help      show this help\n";

int cmd_explain(int argc, char **argv, struct s2c_ctx *ctx)
{
	static const struct option opts[] = {
		SCANARGS_OPTIONS,
		DBARGS_OPTIONS,
		{ "format", required_argument, NULL, ARG_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct scanargs s;
	struct dbargs db = { 0 };
	struct scan_result *res = NULL;
	struct decisions ds;
	bool json = false;
	int c, r, ex;

	scanargs_init(&s, ctx);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if ((r = scanargs_option(&s, c, optarg, "explain")) || (r = dbargs_option(&db, c, optarg, "explain"))) {
			if (r < 0)
				return -r;
			continue;
		}
		switch (c) {
		case 'h':
			cmd_print_usage(cmd_lookup("explain"), stdout);
			(void)fputs(help_text, stdout);
			return S2C_EXIT_OK;
		case ARG_FORMAT:
			if (!s2c_streq(optarg, "text") && !s2c_streq(optarg, "json"))
				return usage_error("explain", "unknown format '%s': expected text or json", optarg);
			json = s2c_streq(optarg, "json");
			break;
		default:
			return usage_error("explain", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("explain", "missing PATH");
	r = scanargs_finish(&s, argc, argv, optind, "explain");
	if (r < 0)
		return -r;
	ex = decide_scan(&db, &s, ctx, &res, &ds);
	if (ex)
		return ex;
	if (json) {
		_cleanup_jsonput_ struct json_object *a = json_object_new_array();
		for (size_t i = 0; a && i < ds.n; i++)
			(void)json_object_array_add(a, decisionout_json(ds.v[i]));
		r = a ? jsonout_write(a, stdout) : -ENOMEM;
	} else {
		r = 0;
		for (size_t i = 0; i < ds.n && r == 0; i++) {
			if (i)
				(void)fputc('\n', stdout);
			r = decisionout_explain(ds.v[i], ctx->color, stdout);
		}
	}
	for (int i = optind; i < argc; i++) {
		bool found = false;
		_cleanup_free_ char *norm = resolve_normalise(argv[i]);
		for (size_t j = 0; norm && j < res->n && !found; j++)
			found = strcmp(res->v[j]->path, norm) == 0;
		if (!found && !res->warnings)
			log_notice("'%s' is not setuid, not setgid and has no capabilities (or is not "
				   "a regular file): nothing to decide", esc(argv[i]));
	}
	ex = r < 0 ? S2C_EXIT_FAILURE : res->warnings ? S2C_EXIT_INCOMPLETE : S2C_EXIT_OK;
	decisions_release(&ds);
	scan_result_free(res);
	return ex;
}
