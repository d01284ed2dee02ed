/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "auditargs.h"
#include "auditout.h"
#include "cli.h"
#include "engine.h"
#include "html.h"
#include "markdown.h"
#include "sarif.h"
#include "scanargs.h"
#include "common.h"

#define TEXT_WIDTH 100

static int parse_format(const char *arg, enum audit_format *ret, const char *verb)
{
	static const char *const names[] = {
		[AUDIT_FORMAT_TEXT] = "text", [AUDIT_FORMAT_JSON] = "json",
		[AUDIT_FORMAT_MARKDOWN] = "markdown", [AUDIT_FORMAT_HTML] = "html",
		[AUDIT_FORMAT_SARIF] = "sarif",
	};

	for (size_t i = 0; i < S2C_ELEMENTSOF(names); i++)
		if (s2c_streq(arg, names[i])) {
			*ret = (enum audit_format)i;
			return 0;
		}
	return -usage_error(verb, "unknown format '%s': expected text, json, markdown, html "
			    "or sarif", arg);
}

static int parse_fail_on(const char *arg, unsigned *fail_on, const char *verb)
{
	_cleanup_free_ char *copy = strdup(arg);
	char *save = NULL;

	if (!copy) {
		log_error("out of memory");
		return -S2C_EXIT_FAILURE;
	}
	if (s2c_isempty(arg))
		return -usage_error(verb, "--fail-on needs review, migrate or risk");
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (s2c_streq(w, "review"))
			*fail_on |= AUDIT_FAIL_REVIEW;
		else if (s2c_streq(w, "migrate"))
			*fail_on |= AUDIT_FAIL_MIGRATE;
		else if (s2c_streq(w, "risk"))
			*fail_on |= AUDIT_FAIL_RISK;
		else
			return -usage_error(verb, "unknown --fail-on '%s': expected review, "
					    "migrate or risk", w);
	}
	return 0;
}

int auditargs_option(struct auditargs *a, int opt, const char *arg, const char *verb)
{
	int r;

	switch (opt) {
	case 'o':
		a->output = arg;
		return 1;
	case ARG_AUDIT_FORMAT:
		r = parse_format(arg, &a->format, verb);
		return r < 0 ? r : 1;
	case ARG_AUDIT_FAIL_ON:
		r = parse_fail_on(arg, &a->fail_on, verb);
		return r < 0 ? r : 1;
	case ARG_AUDIT_NO_COLOR:
		a->no_color = true;
		return 1;
	default:
		return 0;
	}
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

static int render(const struct auditargs *a, const struct audit *au, const struct s2c_ctx *ctx,
		  FILE *out)
{
	bool to_stdout = out == stdout;
	struct auditout_text_options o = {
		.width = terminal_width(ctx, to_stdout),
		.color = to_stdout && ctx->color && !a->no_color,
	};

	switch (a->format) {
	case AUDIT_FORMAT_JSON:
		return auditout_json(au, out);
	case AUDIT_FORMAT_MARKDOWN:
		return markdown_audit(au, out);
	case AUDIT_FORMAT_HTML:
		return html_audit(au, out);
	case AUDIT_FORMAT_SARIF:
		return sarif_audit(au, out);
	case AUDIT_FORMAT_TEXT:
	default:
		return auditout_text(au, &o, out);
	}
}

int auditargs_write(const struct auditargs *a, const struct audit *au, const struct s2c_ctx *ctx,
		    bool incomplete)
{
	struct outfile out;
	int ex = outfile_open(&out, a->output), r;

	if (ex)
		return ex;
	r = render(a, au, ctx, out.f);
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
