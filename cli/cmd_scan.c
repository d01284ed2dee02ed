/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap scan: the inventory of privileged files.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "facts.h"
#include "outfile.h"
#include "scan.h"
#include "scanargs.h"
#include "scanout.h"
#include "term.h"
#include "common.h"

enum scan_format { FORMAT_TEXT, FORMAT_JSON };

static const char intro[] =
	"List every regular file that is setuid, setgid or has file capabilities.\n"
	"A PATH that is a symbolic link is followed (beneath the root), as find -H\n"
	"does; no link met during the walk is.\n"
	"Past 4 MiB, the files found wait in an unnamed file in $TMPDIR (else /tmp).\n"
	"Exit status 1 when a file has a problem flag (writable, suid-and-caps,\n"
	"caps-malformed, hardlinks), 3 when the scan was incomplete (which wins).\n";

/*
 * The flags that say something is wrong with a file, not only what it is: privilege
 * others can rewrite, keep under another name, or that contradicts itself.  They are
 * scan's findings (exit 1), as README and suid2cap(8) say; the others describe.
 */
static const enum facts_flags problems[] = { FACT_WRITABLE, FACT_SUID_AND_CAPS,
					     FACT_CAPS_MALFORMED, FACT_HARDLINKS };

static enum facts_flags problem_mask(void)
{
	enum facts_flags m = 0;

	for (size_t k = 0; k < S2C_ELEMENTSOF(problems); k++)
		m |= problems[k];
	return m;
}

/* Say on stderr how many files have each problem flag. */
static void report_problems(const struct scan_result *res)
{
	char line[256] = "";
	size_t len = 0;

	for (size_t k = 0; k < S2C_ELEMENTSOF(problems) && len < sizeof(line); k++) {
		size_t n = res->n_flag[FACT_BIT(problems[k])];
		if (n)
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s (%zu)",
						len ? ", " : "", facts_flag_name(problems[k]), n);
	}
	if (res->n_any)
		log_notice("%zu file%s with findings: %s", res->n_any, res->n_any == 1 ? "" : "s",
			   line);
}

static const char *const formats[] = { "text", "json", NULL };

struct scan_args {
	struct scanargs s;
	int format;
	const char *output;
	bool quiet;
};

/* Returns an exit code; @ret_done is set when nothing is left to do (--help). */
static int parse_argv(int argc, char **argv, struct scan_args *a, const struct s2c_ctx *ctx,
		      bool *ret_done)
{
	struct opt opts[] = {
		OPT_TABLE(a->s.opts),
		OPT_CHOICE("format", &a->format, formats, "FMT", "text (default) or json"),
		OPT_STRING('o', "output", &a->output, "FILE", "write to FILE instead of standard "
			   "output"),
		OPT_BOOL('q', "quiet", &a->quiet, "text: the table alone, without what was not "
			 "scanned and\nthe summary line (nothing when no file is privileged)"),
		OPT_END(),
	};
	int r, first;

	scanargs_init(&a->s, ctx, 0);
	r = opts_parse(cmd_lookup("scan"), opts, intro, argc, argv, &first);
	*ret_done = r || !first;
	if (r || !first)
		return r;
	if (a->quiet && a->format != FORMAT_TEXT)
		return usage_error("scan", "--quiet shapes the text table; --format json has no "
				   "quiet form");
	return scanargs_finish(&a->s, argc, argv, first, "scan") ? S2C_EXIT_USAGE : 0;
}

int cmd_scan(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct scan_args a = { 0 };
	struct scan_result *res = NULL;
	struct outfile out;
	bool done = false;
	int r, ex;

	ex = parse_argv(argc, argv, &a, ctx, &done);
	if (ex || done)
		return ex;
	/* The candidates wait as records, not in memory: what the scan holds does not grow
	 * with their number. */
	a.s.records_dir = tmp_dir();
	a.s.count_any = problem_mask();
	ex = scanargs_run(&a.s, ctx, NULL, &res);
	if (ex)
		return ex;
	ex = outfile_open(&out, a.output);
	if (ex) {
		scan_result_free(res);
		return ex;
	}
	if (a.format == FORMAT_JSON) {
		r = scanout_json(res, out.f);
	} else {
		struct scanout_text_options to = {
			.width = term_width(out.fd >= 0 ? out.fd : STDOUT_FILENO),
			.quiet = a.quiet,
		};
		r = scanout_text(res, &to, out.f);
	}
	if (r < 0)
		log_error("cannot write the scan: %s", strerror(-r));
	ex = outfile_close(&out, r == 0);
	if (r < 0 || ex)
		ex = S2C_EXIT_FAILURE;
	else if (res->warnings)
		ex = S2C_EXIT_INCOMPLETE;
	/* The findings are said even when an incomplete scan's status (3) wins. */
	if (ex != S2C_EXIT_FAILURE) {
		report_problems(res);
		if (res->n_any && ex == S2C_EXIT_OK)
			ex = S2C_EXIT_FINDINGS;
	}
	scan_result_free(res);
	return ex;
}
