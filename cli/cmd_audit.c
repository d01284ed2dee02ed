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

#include "auditout.h"
#include "cli.h"
#include "dbargs.h"
#include "engine.h"
#include "host.h"
#include "html.h"
#include "markdown.h"
#include "sarif.h"
#include "scan.h"
#include "scanargs.h"
#include "common.h"

enum audit_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_MARKDOWN, FORMAT_HTML, FORMAT_SARIF };

/** What --fail-on can name. */
enum fail_on {
	FAIL_REVIEW = 1 << 0,   /**< a file has the verdict review */
	FAIL_MIGRATE = 1 << 1,  /**< the migration would change a file (verdict migrate or drop) */
	FAIL_RISK = 1 << 2,     /**< a file's risk after the verdict is root (setuid in disguise
				     included) */
};

enum {
	ARG_FORMAT = 0x200,
	ARG_FAIL_ON,
	ARG_NO_COLOR,
};

#define TEXT_WIDTH 100

static const char help_text[] =
	"Audit every setuid, setgid and capability-carrying file: the verdict about each\n"
	"(migrate, drop, keep, review), the capabilities it needs, the evidence and the\n"
	"risk, as a report for people or machines.\n"
	"\n"
	"  --root DIR        treat DIR as the system root (an image or chroot)\n"
	"  --db DIR          add a rules directory on top of the bundled and /etc ones\n"
	"  --kernel VER      evaluate kernel conditions for VER instead of the running kernel\n"
	"  --bounding-set SET   the bounding set programs run with there: docker, podman,\n"
	"                       all, or capability names separated by commas; a migration\n"
	"                       outside it cannot work (default: from the target)\n"
	"  --format FMT      text (default), json, markdown, html or sarif\n"
	"  -o, --output FILE write to FILE (atomically) instead of standard output\n"
	"  --fail-on WHAT    exit 1 when a file matches WHAT, a comma list of:\n"
	"                      review   a file has the verdict review\n"
	"                      migrate  the migration would change a file\n"
	"                      risk     a file's risk after the verdict is root (this includes\n"
	"                               setuid in disguise and setuid-root programs kept)\n"
	"  --no-color        no colour, even on a terminal\n"
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
	enum audit_format format;
	const char *output;
	unsigned fail_on;
	bool no_color;
};

static int parse_format(const char *arg, enum audit_format *ret)
{
	static const char *const names[] = {
		[FORMAT_TEXT] = "text", [FORMAT_JSON] = "json", [FORMAT_MARKDOWN] = "markdown",
		[FORMAT_HTML] = "html", [FORMAT_SARIF] = "sarif",
	};

	for (size_t i = 0; i < S2C_ELEMENTSOF(names); i++)
		if (s2c_streq(arg, names[i])) {
			*ret = (enum audit_format)i;
			return 0;
		}
	return -usage_error("audit", "unknown format '%s': expected text, json, markdown, html "
			    "or sarif", arg);
}

static int parse_fail_on(const char *arg, unsigned *fail_on)
{
	_cleanup_free_ char *copy = strdup(arg);
	char *save = NULL;

	if (!copy) {
		log_error("out of memory");
		return -S2C_EXIT_FAILURE;
	}
	if (s2c_isempty(arg))
		return -usage_error("audit", "--fail-on needs review, migrate or risk");
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (s2c_streq(w, "review"))
			*fail_on |= FAIL_REVIEW;
		else if (s2c_streq(w, "migrate"))
			*fail_on |= FAIL_MIGRATE;
		else if (s2c_streq(w, "risk"))
			*fail_on |= FAIL_RISK;
		else
			return -usage_error("audit", "unknown --fail-on '%s': expected review, "
					    "migrate or risk", w);
	}
	return 0;
}

/* Returns 1 to go on, 0 after --help, or -exit code. */
static int parse_argv(int argc, char **argv, struct audit_args *a, const struct s2c_ctx *ctx)
{
	static const struct option opts[] = {
		SCANARGS_OPTIONS,
		DBARGS_OPTIONS,
		{ "format", required_argument, NULL, ARG_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "fail-on", required_argument, NULL, ARG_FAIL_ON },
		{ "no-color", no_argument, NULL, ARG_NO_COLOR },
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
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		switch (c) {
		case 'h':
			cmd_print_usage(cmd_lookup("audit"), stdout);
			(void)fputs(help_text, stdout);
			return 0;
		case 'o':
			a->output = optarg;
			break;
		case ARG_FORMAT:
			r = parse_format(optarg, &a->format);
			if (r < 0)
				return r;
			break;
		case ARG_FAIL_ON:
			r = parse_fail_on(optarg, &a->fail_on);
			if (r < 0)
				return r;
			break;
		case ARG_NO_COLOR:
			a->no_color = true;
			break;
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

/* Whether any file matches a --fail-on condition. */
static bool failed(const struct audit *au, unsigned fail_on)
{
	for (size_t i = 0; i < au->n; i++) {
		const struct decision *d = au->v[i];

		if ((fail_on & FAIL_REVIEW) && d->verdict == VERDICT_REVIEW)
			return true;
		if ((fail_on & FAIL_MIGRATE) && d->changes)
			return true;
		if ((fail_on & FAIL_RISK) &&
		    (d->risk == RISK_ROOT || (auditout_findings(au, d) & (1u << AUDIT_DISGUISE))))
			return true;
	}
	return false;
}

static unsigned terminal_width(const struct s2c_ctx *ctx, bool to_stdout)
{
	struct winsize ws;

	if (to_stdout && ctx->stdout_tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col >= 40)
		return ws.ws_col;
	return TEXT_WIDTH;
}

static int render(const struct audit_args *a, const struct audit *au, const struct s2c_ctx *ctx,
		  FILE *out)
{
	bool to_stdout = out == stdout;
	struct auditout_text_options o = {
		.width = terminal_width(ctx, to_stdout),
		.color = to_stdout && ctx->color && !a->no_color,
	};

	switch (a->format) {
	case FORMAT_JSON:
		return auditout_json(au, out);
	case FORMAT_MARKDOWN:
		return markdown_audit(au, out);
	case FORMAT_HTML:
		return html_audit(au, out);
	case FORMAT_SARIF:
		return sarif_audit(au, out);
	case FORMAT_TEXT:
	default:
		return auditout_text(au, &o, out);
	}
}

int cmd_audit(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct audit_args a = { 0 };
	struct scan_result *res = NULL;
	struct decisions ds;
	struct outfile out;
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
	};
	ex = outfile_open(&out, a.output);
	if (ex == 0) {
		r = render(&a, &au, ctx, out.f);
		if (r < 0)
			log_error("cannot write the audit: %s", strerror(-r));
		ex = outfile_close(&out, r == 0);
		if (r < 0 || ex)
			ex = S2C_EXIT_FAILURE;
		else if (res->warnings)
			ex = S2C_EXIT_INCOMPLETE;   /* largest wins: 3 over 1 */
		else if (a.fail_on && failed(&au, a.fail_on))
			ex = S2C_EXIT_FINDINGS;
	}
	decisions_release(&ds);
	scan_result_free(res);
	return ex;
}
