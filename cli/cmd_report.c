/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap report merge: join JSON audit reports (of hosts, images or shards
 * of a package run) into one fleet report, in every audit format.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "auditargs.h"
#include "cli.h"
#include "fleet.h"
#include "jsonread.h"
#include "opts.h"
#include "outfile.h"
#include "common.h"

static const char intro[] =
	"Join JSON audit reports (suid2cap audit, audit-pkg or audit-image --format json)\n"
	"of many hosts, images or package shards into one report: for every program, how\n"
	"many targets have it, their verdicts, the state most agree on, the targets that\n"
	"differ from it (drift between hosts) and the package versions seen.\n"
	"The only command is 'merge', followed by the report files.\n"
	"\f"
	"A report that cannot be read is named and left out; the exit status is then 3.\n"
	"Exit status: 0 success, 1 drift with --fail-on-drift, 2 usage error, 3 a report\n"
	"could not be read, 4 operation failed.\n";

static int render(struct fleet *f, enum audit_format format, bool quiet, FILE *out)
{
	switch (format) {
	case AUDIT_FORMAT_JSON:
		return fleet_json_write(f, out);
	case AUDIT_FORMAT_MARKDOWN:
		return fleet_markdown(f, out);
	case AUDIT_FORMAT_HTML:
		return fleet_html(f, out);
	case AUDIT_FORMAT_SARIF:
		return fleet_sarif(f, out);
	case AUDIT_FORMAT_TEXT:
		return fleet_text(f, quiet, out);
	case _AUDIT_FORMAT_MAX:
		break;
	}
	return -EINVAL;         /* no default: a new format is a case the compiler asks for */
}

/* A target whose audit was incomplete, on standard error, and whether it was allowed. */
static void warn_incomplete(void *userdata, const char *name, const char *report,
			    const char *reason, size_t more, bool allowed)
{
	const bool *allow = userdata;

	log_warning("the audit of '%s' (in '%s') is incomplete: %s%s%s", name, report, reason,
		    more ? " (and more in the report)" : "",
		    allowed ? "; its audit allowed it with --allow-incomplete" :
		    *allow ? "; allowed with --allow-incomplete" : "");
}

static int merge(const struct auditargs *a, bool fail_on_drift, int argc, char **argv)
{
	struct fleet *f = NULL;
	struct outfile out;
	size_t failed = 0;
	bool allow;
	int r, ex;

	if (fleet_new(&f) < 0) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	for (int i = 0; i < argc; i++) {
		struct s2c_error err = { 0 };
		/* Messages and notes name the report as the user can find it. */
		_cleanup_free_ char *text = NULL, *note = NULL, *shown = shown_path(argv[i]);
		size_t len;

		r = shown ? jsonread_slurp_max(AT_FDCWD, argv[i], shown, FLEET_REPORT_MAX, &text, &len,
					       NULL, NULL, &err)
			  : -ENOMEM;
		if (r == 0)
			r = fleet_read(f, argv[i], shown, text, len, &err);
		if (r == -ENOMEM) {
			log_error("out of memory");
			fleet_free(f);
			return S2C_EXIT_FAILURE;
		}
		if (r < 0) {
			failed++;
			log_error("cannot read '%s': %s, skipping", shown,
				  err.msg[0] ? err.msg : strerror(-r));
			if (asprintf(&note, "'%s' could not be read: %s", shown,
				     err.msg[0] ? err.msg : strerror(-r)) < 0 ||
			    fleet_unread(f, note) < 0) {
				log_error("out of memory");
				fleet_free(f);
				return S2C_EXIT_FAILURE;
			}
		}
	}
	if (fleet_finish(f) < 0) {
		log_error("out of memory");
		fleet_free(f);
		return S2C_EXIT_FAILURE;
	}
	allow = a->allow_incomplete;
	fleet_each_incomplete(f, warn_incomplete, &allow);
	ex = outfile_open(&out, a->output);
	if (ex == 0) {
		r = render(f, a->format, a->quiet, out.f);
		if (r < 0)
			log_error("cannot write the report: %s", strerror(-r));
		ex = outfile_close(&out, r == 0);
		if (r < 0 || ex)
			ex = S2C_EXIT_FAILURE;
		else if (failed || fleet_incomplete(f, a->allow_incomplete))
			ex = S2C_EXIT_INCOMPLETE;
		else if (fail_on_drift && fleet_drift(f))
			ex = S2C_EXIT_FINDINGS;
	}
	fleet_free(f);
	return ex;
}

int cmd_report(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct auditargs a;
	bool fail_on_drift = false;
	struct opt opts[] = {
		OPT_TABLE(a.opts),
		OPT_BOOL(0, "fail-on-drift", &fail_on_drift, "exit 1 when a program differs between "
			 "targets"),
		OPT_END(),
	};
	int first, ex;

	(void)ctx;
	auditargs_init(&a, AUDITARGS_FLEET);
	ex = opts_parse(cmd_lookup("report"), opts, intro, argc, argv, &first);
	if (ex || !first)
		return ex;
	if (auditargs_check(&a, "report"))
		return S2C_EXIT_USAGE;
	if (!s2c_streq(argv[first], "merge"))
		return usage_error("report", "unknown report command '%s': expected merge",
				   argv[first]);
	if (first + 1 >= argc)
		return usage_error("report", "merge needs at least one report");
	return merge(&a, fail_on_drift, argc - first - 1, argv + first + 1);
}
