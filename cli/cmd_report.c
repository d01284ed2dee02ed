/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap report merge: join JSON audit reports (of hosts, images or shards
 * of a package run) into one fleet report, in every audit format.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "auditargs.h"
#include "cli.h"
#include "fleet.h"
#include "jsonout.h"
#include "jsonread.h"
#include "scanargs.h"
#include "common.h"

enum {
	ARG_FAIL_ON_DRIFT = 0x200,
};

static const char help_text[] =
	"Join JSON audit reports (suid2cap audit, audit-pkg or audit-image --format json)\n"
	"of many hosts, images or package shards into one report: for every program, how\n"
	"many targets have it, their verdicts, the state most agree on, the targets that\n"
	"differ from it (drift between hosts) and the package versions seen.\n"
	"\n"
	"  merge FILE ...    the reports to join\n"
	"  --format FMT      text (default), json, markdown, html or sarif\n"
	"  -o, --output FILE write to FILE (atomically) instead of standard output\n"
	"  --fail-on-drift   exit 1 when a program differs between targets\n"
	"  -h, --help        show this help\n"
	"\n"
	"A report that cannot be read is named and left out; the exit status is then 3.\n"
	"Exit status: 0 success, 1 drift with --fail-on-drift, 2 usage error, 3 a report\n"
	"could not be read, 4 operation failed.\n";

static int render(struct fleet *f, enum audit_format format, FILE *out)
{
	struct json_object *doc;
	int r;

	switch (format) {
	case AUDIT_FORMAT_JSON:
		doc = fleet_json(f);
		if (!doc)
			return -ENOMEM;
		r = jsonout_write(doc, out);
		json_object_put(doc);
		return r;
	case AUDIT_FORMAT_MARKDOWN:
		return fleet_markdown(f, out);
	case AUDIT_FORMAT_HTML:
		return fleet_html(f, out);
	case AUDIT_FORMAT_SARIF:
		return fleet_sarif(f, out);
	case AUDIT_FORMAT_TEXT:
	default:
		return fleet_text(f, out);
	}
}

static int merge(int argc, char **argv)
{
	static const struct option opts[] = {
		AUDITARGS_OPTIONS,
		{ "fail-on-drift", no_argument, NULL, ARG_FAIL_ON_DRIFT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct auditargs a = { 0 };
	struct fleet *f = NULL;
	struct outfile out;
	bool fail_on_drift = false;
	size_t failed = 0;
	int c, r, ex;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		r = auditargs_option(&a, c, optarg, "report");
		if (r < 0)
			return -r;
		if (r > 0)
			continue;
		switch (c) {
		case 'h':
			cmd_print_usage(cmd_lookup("report"), stdout);
			(void)fputs(help_text, stdout);
			return S2C_EXIT_OK;
		case ARG_FAIL_ON_DRIFT:
			fail_on_drift = true;
			break;
		case '?':
			return usage_error("report", "unknown or incomplete option '%s'",
					   argv[optind - 1]);
		default:
			return usage_error("report", "unexpected option");
		}
	}
	if (a.fail_on)
		return usage_error("report", "--fail-on is for audits; use --fail-on-drift");
	if (optind >= argc)
		return usage_error("report", "merge needs at least one report");
	if (fleet_new(&f) < 0) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	for (int i = optind; i < argc; i++) {
		struct s2c_error err = { 0 };
		struct json_object *doc = NULL;
		_cleanup_free_ char *text = NULL, *note = NULL;
		size_t len;

		r = jsonread_slurp(AT_FDCWD, argv[i], argv[i], &text, &len, NULL, NULL, &err);
		if (r == 0)
			r = jsonread_parse_mem(text, len, argv[i], &doc, &err);
		if (r == 0)
			r = fleet_add(f, argv[i], doc, &err);
		json_object_put(doc);
		if (r == -ENOMEM) {
			log_error("out of memory");
			fleet_free(f);
			return S2C_EXIT_FAILURE;
		}
		if (r < 0) {
			failed++;
			log_error("cannot read '%s': %s, skipping", esc(argv[i]),
				  err.msg[0] ? esc(err.msg) : strerror(-r));
			if (asprintf(&note, "'%s' could not be read: %s", argv[i],
				     err.msg[0] ? err.msg : strerror(-r)) < 0 ||
			    fleet_note(f, note) < 0) {
				log_error("out of memory");
				fleet_free(f);
				return S2C_EXIT_FAILURE;
			}
		}
	}
	(void)fleet_finish(f);
	ex = outfile_open(&out, a.output);
	if (ex == 0) {
		r = render(f, a.format, out.f);
		if (r < 0)
			log_error("cannot write the report: %s", strerror(-r));
		ex = outfile_close(&out, r == 0);
		if (r < 0 || ex)
			ex = S2C_EXIT_FAILURE;
		else if (failed)
			ex = S2C_EXIT_INCOMPLETE;
		else if (fail_on_drift && fleet_drift(f))
			ex = S2C_EXIT_FINDINGS;
	}
	fleet_free(f);
	return ex;
}

int cmd_report(int argc, char **argv, struct s2c_ctx *ctx)
{
	(void)ctx;
	if (argc >= 2 && s2c_streq(argv[1], "merge"))
		return merge(argc - 1, argv + 1);
	if (argc >= 2 && (s2c_streq(argv[1], "--help") || s2c_streq(argv[1], "-h"))) {
		cmd_print_usage(cmd_lookup("report"), stdout);
		(void)fputs(help_text, stdout);
		return S2C_EXIT_OK;
	}
	if (argc >= 2)
		return usage_error("report", "unknown subcommand '%s': expected merge", esc(argv[1]));
	return usage_error("report", "missing subcommand: expected merge");
}
