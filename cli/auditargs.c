/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
#include "outfile.h"
#include "util.h"
#include "waiver.h"
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
		return usage_error(verb, "--fail-on needs review, migrate, risk or a finding id");
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned k = 0;

		while (k < _AUDIT_FINDING_MAX &&
		       strcasecmp(w, audit_finding_info((enum audit_finding)k)->id) != 0)
			k++;
		if (k < _AUDIT_FINDING_MAX)
			*fail_on |= AUDIT_FAIL_FINDING(k);
		else if (s2c_streq(w, "review"))
			*fail_on |= AUDIT_FAIL_REVIEW;
		else if (s2c_streq(w, "migrate"))
			*fail_on |= AUDIT_FAIL_MIGRATE;
		else if (s2c_streq(w, "risk"))
			*fail_on |= AUDIT_FAIL_RISK;
		else
			return usage_error(verb, "unknown --fail-on '%s': expected review, migrate, "
					   "risk or a finding id (S2C001 to %s)", w,
					   audit_finding_info(_AUDIT_FINDING_MAX - 1)->id);
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
			"           programs kept)\n  S2C001   a file has this finding (any id of the\n"
			"           audit's findings)\nwaived findings never count", opt_fail_on);
	if (audit)
		a->opts[n++] = (struct opt)OPT_LIST(
			"waivers", &a->waivers, "FILE", "accept the findings FILE waives: reported as "
			"waived,\nnot counted by --fail-on (repeatable; read after the\n"
			"target's own " AUDITARGS_WAIVERS_FILE ")");
	if (audit) {
		a->opts[n++] = (struct opt)TERM_OPT_COLOR;
		a->opts[n++] = (struct opt)OPT_CALLBACK("no-color", NULL, NULL, "the same as "
							"--color=never", term_opt_color);
	}
	a->opts[n] = (struct opt)OPT_END();
}

static int waivers_error(int r, const struct s2c_error *err)
{
	log_error("%s", err->msg[0] ? err->msg : strerror(-r));
	if (r == -EPERM || r == -ELOOP)
		return S2C_EXIT_PRIVILEGE;
	return r == -EINVAL || r == -ENOENT ? S2C_EXIT_USAGE : S2C_EXIT_FAILURE;
}

int auditargs_waivers(const struct auditargs *a, int rootfd, const char *display,
		      struct waiver_list *ret, bool *ret_any)
{
	bool trusted = geteuid() == 0;
	struct s2c_error err = { 0 };
	int r;

	if (rootfd >= 0) {
		r = waiver_load(ret, rootfd, AUDITARGS_WAIVERS_FILE, display, true, trusted, &err);
		if (r < 0)
			return waivers_error(r, &err);
	}
	for (size_t i = 0; i < a->waivers.n; i++) {
		r = waiver_load(ret, AT_FDCWD, a->waivers.v[i], a->waivers.v[i], false, trusted, &err);
		if (r < 0)
			return waivers_error(r, &err);
	}
	/* A file of comments only (the installed one) changes no report. */
	*ret_any = ret->n > 0;
	return 0;
}

bool auditargs_failed(const struct audit *au, unsigned fail_on)
{
	/* The verdict findings: a file's verdict condition counts through its own. */
	const unsigned verdicts = (1u << AUDIT_MIGRATE) | (1u << AUDIT_DROP) | (1u << AUDIT_KEEP) |
				  (1u << AUDIT_REVIEW);

	for (size_t i = 0; i < au->n; i++) {
		const struct decision *d = au->v[i];
		unsigned unwaived = audit_findings(au, d) & ~audit_waived(au, d);

		if ((fail_on & AUDIT_FAIL_REVIEW) && d->verdict == VERDICT_REVIEW &&
		    (unwaived & verdicts))
			return true;
		if ((fail_on & AUDIT_FAIL_MIGRATE) && d->changes && (unwaived & verdicts))
			return true;
		if ((fail_on & AUDIT_FAIL_RISK) &&
		    ((d->risk == RISK_ROOT && (unwaived & verdicts)) || (unwaived & (1u << AUDIT_DISGUISE))))
			return true;
		for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
			if ((fail_on & AUDIT_FAIL_FINDING(k)) && (unwaived & (1u << k)))
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
