/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap audit: the report of every privileged file with its verdict,
 * evidence and risk, as text, JSON, Markdown, HTML or SARIF, and an exit
 * status a CI job can gate on (--fail-on).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "audit.h"
#include "auditjson.h"
#include "audittext.h"
#include "cli.h"
#include "dbargs.h"
#include "engine.h"
#include "host.h"
#include "html.h"
#include "learned.h"
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

#define TEXT_WIDTH 100

static const char intro[] =
	"Audit every setuid, setgid and capability-carrying file: the verdict about each\n"
	"(migrate, drop, keep, review), the capabilities it needs, the evidence and the\n"
	"risk, as a report for people or machines.\n"
	"\f"
	"Exit status: 0 success, 1 --fail-on matched, 2 usage error, 3 incomplete scan\n"
	"(wins over 1), 4 operation failed, 5 privilege error.\n";

static const char *const formats[] = {
	[FORMAT_TEXT] = "text", [FORMAT_JSON] = "json", [FORMAT_MARKDOWN] = "markdown",
	[FORMAT_HTML] = "html", [FORMAT_SARIF] = "sarif", NULL,
};

struct audit_args {
	struct scanargs s;
	struct dbargs db;
	int format;
	const char *output;
	unsigned fail_on;
	bool no_color;
};

static int opt_fail_on(const struct opt *o, const char *arg, const char *verb)
{
	unsigned *fail_on = o->value;
	_cleanup_free_ char *copy = strdup(arg);
	char *save = NULL;

	if (!copy) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	if (s2c_isempty(arg))
		return usage_error(verb, "--fail-on needs review, migrate or risk");
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (s2c_streq(w, "review"))
			*fail_on |= FAIL_REVIEW;
		else if (s2c_streq(w, "migrate"))
			*fail_on |= FAIL_MIGRATE;
		else if (s2c_streq(w, "risk"))
			*fail_on |= FAIL_RISK;
		else
			return usage_error(verb, "unknown --fail-on '%s': expected review, migrate "
					   "or risk", w);
	}
	return 0;
}

/* Returns 1 to go on, 0 after --help, or -exit code. */
static int parse_argv(int argc, char **argv, struct audit_args *a, const struct s2c_ctx *ctx)
{
	struct opt opts[] = {
		OPT_TABLE(a->s.opts),
		OPT_TABLE(a->db.opts),
		OPT_CHOICE("format", &a->format, formats, "FMT", "text (default), json, markdown, "
			   "html or sarif"),
		OPT_STRING('o', "output", &a->output, "FILE", "write to FILE instead of standard "
			   "output"),
		OPT_CALLBACK("fail-on", &a->fail_on, "WHAT", "exit 1 when a file matches WHAT, a "
			     "comma list of:\n  review   a file has the verdict review\n  migrate  "
			     "the migration would change a file\n  risk     a file's risk after the "
			     "verdict is root (this\n           includes setuid in disguise and "
			     "setuid-root\n           programs kept)", opt_fail_on),
		OPT_BOOL(0, "no-color", &a->no_color, "no colour, even on a terminal"),
		OPT_END(),
	};
	int r;

	scanargs_init(&a->s, ctx, 0);
	dbargs_init(&a->db);
	r = opts_parse(cmd_lookup("audit"), opts, intro, argc, argv);
	if (r <= 0)
		return r;
	return scanargs_finish(&a->s, argc, argv, r, "audit") ? -S2C_EXIT_USAGE : 1;
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
		    (d->risk == RISK_ROOT || (audit_findings(au, d) & (1u << AUDIT_DISGUISE))))
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
	struct audittext_options o = {
		.width = terminal_width(ctx, to_stdout),
		.color = to_stdout && ctx->color && !a->no_color,
	};

	switch (a->format) {
	case FORMAT_JSON:
		return auditjson_write(au, out);
	case FORMAT_MARKDOWN:
		return markdown_audit(au, out);
	case FORMAT_HTML:
		return html_audit(au, out);
	case FORMAT_SARIF:
		return sarif_audit(au, out);
	case FORMAT_TEXT:
	default:
		return audittext_write(au, &o, out);
	}
}

int cmd_audit(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct audit_args a = { 0 };
	struct scan_result *res = NULL;
	struct decisions ds;
	struct outfile out;
	struct audit au;
	struct learn_record **learned = NULL;
	_cleanup_free_ char *pgr = NULL;
	char root_abs[PATH_MAX];
	int r, ex;

	r = parse_argv(argc, argv, &a, ctx);
	if (r <= 0)
		return -r;
	if (!realpath(a.s.root, root_abs)) {
		log_error("cannot resolve root '%s': %s", a.s.root, strerror(errno));
		return S2C_EXIT_USAGE;
	}
	ex = decide_scan(&a.db, &a.s, ctx, &res, &ds);
	if (ex)
		return ex;
	(void)host_sysctl(ds.host, "net.ipv4.ping_group_range", &pgr);
	learned = learned_load(a.s.root, ds.v, ds.n);
	au = (struct audit){
		.root = res->root,
		.paths = a.s.paths,
		.root_abs = root_abs,
		.complete = res->warnings == 0,
		.scan_warnings = res->warnings,
		.directories = res->stats.dirs,
		.entries = res->stats.files,
		.not_scanned = res->skipped,
		.n_not_scanned = res->n_skipped,
		.db = ds.db,
		.host = ds.host,
		.ping_group_range = pgr,
		.v = ds.v,
		.n = ds.n,
		.argv = (const char *const *)argv,
		.learned = learned,
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
	learned_free(learned, ds.n);
	decisions_release(&ds);
	scan_result_free(res);
	return ex;
}
