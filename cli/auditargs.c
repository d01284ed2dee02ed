/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auditargs.h"
#include "audit.h"
#include "auditjson.h"
#include "audittext.h"
#include "cli.h"
#include "engine.h"
#include "html.h"
#include "markdown.h"
#include "sarif.h"
#include "term.h"
#include "scanargs.h"
#include "common.h"

const char *const auditargs_formats[] = {
	[AUDIT_FORMAT_TEXT] = "text", [AUDIT_FORMAT_JSON] = "json",
	[AUDIT_FORMAT_MARKDOWN] = "markdown", [AUDIT_FORMAT_HTML] = "html",
	[AUDIT_FORMAT_SARIF] = "sarif", NULL,
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
			*fail_on |= AUDIT_FAIL_REVIEW;
		else if (s2c_streq(w, "migrate"))
			*fail_on |= AUDIT_FAIL_MIGRATE;
		else if (s2c_streq(w, "risk"))
			*fail_on |= AUDIT_FAIL_RISK;
		else
			return usage_error(verb, "unknown --fail-on '%s': expected review, migrate "
					   "or risk", w);
	}
	return 0;
}

void auditargs_init(struct auditargs *a, bool audit)
{
	size_t n = 0;

	memset(a, 0, sizeof(*a));
	a->opts[n++] = (struct opt)OPT_CHOICE("format", &a->format, auditargs_formats, "FMT",
					      "text (default), json, markdown, html or sarif");
	a->opts[n++] = (struct opt)OPT_STRING('o', "output", &a->output, "FILE",
					      "write to FILE instead of standard output");
	if (audit)
		a->opts[n++] = (struct opt)OPT_CALLBACK(
			"fail-on", &a->fail_on, "WHAT", "exit 1 when a file matches WHAT, a comma "
			"list of:\n  review   a file has the verdict review\n  migrate  the "
			"migration would change a file\n  risk     a file's risk after the verdict "
			"is root (this\n           includes setuid in disguise and setuid-root\n"
			"           programs kept)", opt_fail_on);
	if (audit) {
		a->opts[n++] = (struct opt)TERM_OPT_COLOR;
		a->opts[n++] = (struct opt)OPT_CALLBACK("no-color", NULL, NULL, "the same as "
							"--color=never", term_opt_color);
	}
	a->opts[n] = (struct opt)OPT_END();
}

bool auditargs_failed(const struct audit *au, unsigned fail_on)
{
	for (size_t i = 0; i < au->n; i++) {
		const struct decision *d = au->v[i];

		if ((fail_on & AUDIT_FAIL_REVIEW) && d->verdict == VERDICT_REVIEW)
			return true;
		if ((fail_on & AUDIT_FAIL_MIGRATE) && d->changes)
			return true;
		if ((fail_on & AUDIT_FAIL_RISK) &&
		    (d->risk == RISK_ROOT || (audit_findings(au, d) & (1u << AUDIT_DISGUISE))))
			return true;
	}
	return false;
}

/* @fd: where @out writes, for its width and whether it takes colour (cli/term.h). */
static int render(const struct auditargs *a, const struct audit *au, int fd, FILE *out)
{
	struct audittext_options o = {
		.width = term_width(fd),
		.color = term_color(fd),
		.quiet = a->quiet,
	};

	switch (a->format) {
	case AUDIT_FORMAT_JSON:
		return auditjson_write(au, out);
	case AUDIT_FORMAT_MARKDOWN:
		return markdown_audit(au, out);
	case AUDIT_FORMAT_HTML:
		return html_audit(au, out);
	case AUDIT_FORMAT_SARIF:
		return sarif_audit(au, out);
	case AUDIT_FORMAT_TEXT:
	default:
		return audittext_write(au, &o, out);
	}
}

int auditargs_write(const struct auditargs *a, const struct audit *au, const struct s2c_ctx *ctx,
		    bool incomplete)
{
	struct outfile out;
	int ex = outfile_open(&out, a->output), r;

	if (ex)
		return ex;
	(void)ctx;      /* width and colour come from cli/term */
	r = render(a, au, out.fd >= 0 ? out.fd : STDOUT_FILENO, out.f);
	if (r < 0)
		log_error("cannot write the audit: %s", strerror(-r));
	ex = outfile_close(&out, r == 0);
	if (r < 0 || ex)
		return S2C_EXIT_FAILURE;
	if (incomplete)
		return S2C_EXIT_INCOMPLETE;     /* largest wins: 3 over 1 */
	if (a->fail_on && auditargs_failed(au, a->fail_on))
		return S2C_EXIT_FINDINGS;
	return S2C_EXIT_OK;
}
