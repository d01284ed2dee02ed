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
#include "facts.h"
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

/* The words of --fail-on besides the finding ids, with their bits. */
static const struct {
	const char *word;
	unsigned bit;
} fail_words[] = {
	{ "review", AUDIT_FAIL_REVIEW },
	{ "migrate", AUDIT_FAIL_MIGRATE },
	{ "risk", AUDIT_FAIL_RISK },
	{ "incomplete", AUDIT_FAIL_INCOMPLETE },
};

/* The bit of one --fail-on word, or 0. */
static unsigned fail_on_bit(const char *w)
{
	for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
		if (strcasecmp(w, audit_finding_info((enum audit_finding)k)->id) == 0)
			return AUDIT_FAIL_FINDING(k);
	for (size_t i = 0; i < S2C_ELEMENTSOF(fail_words); i++)
		if (s2c_streq(w, fail_words[i].word))
			return fail_words[i].bit;
	return 0;
}

static int unknown_fail_on(const char *w, const char *verb)
{
	/* Only the words: a finding id one digit away is another finding, not a slip. */
	const char *words[S2C_ELEMENTSOF(fail_words) + 1];
	const char *best;
	size_t n = 0;

	for (size_t i = 0; i < S2C_ELEMENTSOF(fail_words); i++)
		words[n++] = fail_words[i].word;
	words[n] = NULL;
	best = str_closest(w, words);
	if (best)
		return usage_error(verb, "unknown --fail-on '%s'; did you mean '%s'? (expected "
				   "review, migrate, risk, incomplete or a finding id)", w, best);
	return usage_error(verb, "unknown --fail-on '%s': expected review, migrate, risk, "
			   "incomplete or a finding id (S2C001 to %s)", w,
			   audit_finding_info(_AUDIT_FINDING_MAX - 1)->id);
}

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
		return usage_error(verb, "--fail-on needs review, migrate, risk, incomplete or a "
				   "finding id");
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned bit = fail_on_bit(w);

		if (!bit)
			return unknown_fail_on(w, verb);
		*fail_on |= bit;
	}
	return 0;
}

/*
 * The help of --fail-on: each word and each finding id on a line of its own
 * (the completion scripts read them from there), written once from the
 * findings' table.  @targets: with "incomplete".
 */
static const char *fail_on_help(bool targets)
{
	static char help[2][2048];
	char *h = help[targets];
	size_t n = 0;

	if (*h)
		return h;
	n += (size_t)snprintf(h + n, sizeof(help[0]) - n,
			      "exit 1 when a file matches WHAT, a comma list of:\n"
			      "  review      a file has the verdict review\n"
			      "  migrate     the migration would change a file\n"
			      "  risk        a file's risk after the verdict is root\n"
			      "              (setuid in disguise and setuid-root\n"
			      "              programs kept count)\n%s",
			      targets ? "  incomplete  the audit of a package or image is\n"
			      "              incomplete (with --allow-incomplete;\n"
			      "              without, the exit status is 3 anyway)\n" : "");
	n += (size_t)snprintf(h + n, sizeof(help[0]) - n, "or a finding id, when a file has it:\n");
	for (unsigned k = 0; k < _AUDIT_FINDING_MAX && n < sizeof(help[0]); k++)
		n += (size_t)snprintf(h + n, sizeof(help[0]) - n, "  %-10s  %s\n",
				      audit_finding_info((enum audit_finding)k)->id,
				      audit_finding_info((enum audit_finding)k)->name);
	if (n < sizeof(help[0]))
		(void)snprintf(h + n, sizeof(help[0]) - n, "waived findings never count; each match "
			       "is named on\nstandard error");
	return h;
}

/* A label is one line of printable text people read in every format. */
static int opt_label(const struct opt *o, const char *arg, const char *verb)
{
	for (const unsigned char *c = (const unsigned char *)arg; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return usage_error(verb, "invalid --label: a control character in it");
	if (s2c_isempty(arg) || strlen(arg) > 128 || !utf8_valid(arg, strlen(arg)))
		return usage_error(verb, "invalid --label '%s': expected 1 to 128 bytes of UTF-8 text",
				   arg);
	*(const char **)o->value = arg;
	return 0;
}

void auditargs_init(struct auditargs *a, enum auditargs_kind kind)
{
	bool audit = kind != AUDITARGS_FLEET;
	size_t n = 0;

	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->opts[n++] = (struct opt)OPT_CHOICE("format", &a->format, auditargs_formats, "FMT",
					      "text (default), json, markdown, html or sarif");
	a->opts[n++] = (struct opt)OPT_STRING('o', "output", &a->output, "FILE",
					      "write to FILE instead of standard output");
	if (audit)
		a->opts[n++] = (struct opt)OPT_CALLBACK(
			"fail-on", &a->fail_on, "WHAT", fail_on_help(kind == AUDITARGS_TARGETS),
			opt_fail_on);
	if (kind == AUDITARGS_TARGETS)
		a->opts[n++] = (struct opt)OPT_BOOL(
			0, "allow-incomplete", &a->allow_incomplete, "accept packages or images "
			"whose audit is incomplete:\nthe report says they were allowed, and the "
			"exit\nstatus follows --fail-on and the findings only");
	if (kind == AUDITARGS_FLEET)
		a->opts[n++] = (struct opt)OPT_BOOL(
			0, "allow-incomplete", &a->allow_incomplete, "accept targets whose audit "
			"was incomplete: the\nreport still says so, and the exit status is not 3\n"
			"for them (a report that cannot be read still is)");
	if (audit)
		a->opts[n++] = (struct opt)OPT_CALLBACK(
			"label", &a->label, "NAME", "name the target in the report's identity,\n"
			"so that merged reports tell it apart from others\nof its host name",
			opt_label);
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
	a->opts[n++] = (struct opt)OPT_BOOL(
		'q', "quiet", &a->quiet, audit ? "text: only the summary line, INCOMPLETE, and the "
		"files with\na finding for a person (review, setuid in disguise,\ndangerous "
		"capabilities, likely to break, writable)" : "text: only the summary line and the "
		"programs that\ndiffer between targets");
	a->opts[n] = (struct opt)OPT_END();
}

int auditargs_check(const struct auditargs *a, const char *verb)
{
	if (a->quiet && a->format != AUDIT_FORMAT_TEXT)
		return usage_error(verb, "--quiet shapes the text report; --format %s has no quiet "
				   "form", auditargs_formats[a->format]);
	if ((a->fail_on & AUDIT_FAIL_INCOMPLETE) && a->kind != AUDITARGS_TARGETS)
		return usage_error(verb, "--fail-on incomplete is for audit-pkg and audit-image; an "
				   "incomplete scan always exits 3");
	return 0;
}

static int waivers_error(int r, const struct s2c_error *err)
{
	log_error("%s", err->msg[0] ? err->msg : strerror(-r));
	if (r == -EPERM || r == -ELOOP)
		return S2C_EXIT_PRIVILEGE;
	return r == -EINVAL || r == -ENOENT ? S2C_EXIT_USAGE : S2C_EXIT_FAILURE;
}

/*
 * Load one waivers file into @ret.  A malformed one is not an error yet: its
 * lines are in ret->problems, so that every bad line of every file is named.
 * Returns 0, or an exit code after printing.
 */
static int waivers_one(struct waiver_list *ret, int dirfd, const char *path, const char *display,
		       bool beneath, bool trusted)
{
	struct s2c_error err = { 0 };
	size_t had = ret->n_problems;
	int r = waiver_load(ret, dirfd, path, display, beneath, trusted, &err);

	if (r == -EINVAL && ret->n_problems > had)
		return 0;
	return r < 0 ? waivers_error(r, &err) : 0;
}

int auditargs_waivers(const struct auditargs *a, int rootfd, const char *display,
		      struct waiver_list *ret, bool *ret_any)
{
	bool trusted = geteuid() == 0;
	int ex = 0;

	if (rootfd >= 0)
		ex = waivers_one(ret, rootfd, AUDITARGS_WAIVERS_FILE, display, true, trusted);
	for (size_t i = 0; ex == 0 && i < a->waivers.n; i++)
		ex = waivers_one(ret, AT_FDCWD, a->waivers.v[i], a->waivers.v[i], false, trusted);
	if (ex)
		return ex;
	for (size_t i = 0; i < ret->n_problems; i++)
		log_error("%s", ret->problems[i]);
	if (ret->n_problems)
		return S2C_EXIT_USAGE;
	/* A file of comments only (the installed one) changes no report. */
	*ret_any = ret->n > 0;
	return 0;
}

/* The verdict finding of @d among @m (audit_findings()), or -1 when it has none. */
static int verdict_finding(unsigned m)
{
	for (unsigned k = AUDIT_MIGRATE; k <= AUDIT_REVIEW; k++)
		if (m & (1u << k))
			return (int)k;
	return -1;
}

/*
 * The finding that makes @d match the --fail-on word of @bit, among its unwaived
 * findings @m, or -1 when it does not match.
 */
static int matches(const struct decision *d, unsigned m, unsigned bit)
{
	int v = verdict_finding(m);

	switch (bit) {
	case AUDIT_FAIL_REVIEW:
		return d->verdict == VERDICT_REVIEW ? v : -1;
	case AUDIT_FAIL_MIGRATE:
		return d->changes ? v : -1;
	case AUDIT_FAIL_RISK:
		if (m & (1u << AUDIT_DISGUISE))
			return AUDIT_DISGUISE;
		return d->risk == RISK_ROOT ? v : -1;
	default:
		for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
			if (bit == AUDIT_FAIL_FINDING(k))
				return (m & (1u << k)) ? (int)k : -1;
		return -1;
	}
}

int auditargs_triggers(const struct audit *au, unsigned fail_on,
		       void (*fn)(void *userdata, const struct audit *au, const char *word,
				  const struct decision *d, size_t target, int finding),
		       void *userdata, size_t *ret_n)
{
	_cleanup_(audit_cursor_release) struct audit_cursor c = { 0 };
	size_t n = 0;
	int r;

	for (r = audit_cursor_start(au, &c); r == 0 && c.d; r = audit_cursor_next(au, &c)) {
		const struct decision *d = c.d;
		unsigned m = audit_findings(au, d) & ~audit_waived(au, d);

		for (unsigned b = 0; b < 8 + _AUDIT_FINDING_MAX; b++) {
			unsigned bit = 1u << b;
			int k = (fail_on & bit) && bit != AUDIT_FAIL_INCOMPLETE ? matches(d, m, bit)
										  : -1;
			const char *word = bit >= AUDIT_FAIL_FINDING(0) ?
				audit_finding_info((enum audit_finding)(b - 8))->id : NULL;

			if (k < 0)
				continue;
			for (size_t w = 0; !word && w < S2C_ELEMENTSOF(fail_words); w++)
				if (fail_words[w].bit == bit)
					word = fail_words[w].word;
			n++;
			if (fn)
				fn(userdata, au, word, d, c.origin ? c.origin->target : SIZE_MAX, k);
		}
	}
	if (r < 0)
		return r;
	for (size_t t = 0; (fail_on & AUDIT_FAIL_INCOMPLETE) && t < au->n_targets; t++) {
		if (!au->targets[t].incomplete)
			continue;
		n++;
		if (fn)
			fn(userdata, au, "incomplete", NULL, t, -1);
	}
	*ret_n = n;
	return 0;
}

/*
 * One line on standard error for what made --fail-on match, as lintian and
 * Dockle name each tag: "--fail-on review: '/usr/bin/x': S2C004 Privileged program
 * that needs a person's review", with the package or image of a file, and for an
 * incomplete target its first reason.
 */
static void print_trigger(void *userdata, const struct audit *au, const char *word,
			  const struct decision *d, size_t target, int finding)
{
	const struct audit_target *t = target != SIZE_MAX ? &au->targets[target] : NULL;
	const char *kind = t && s2c_streq(t->kind, "image") ? "image" : "package";
	const char *name = t ? (t->name ? t->name : t->source) : NULL;
	const struct audit_finding_info *fi;
	_cleanup_free_ char *in = NULL;

	(void)userdata;
	if (!d) {
		log_notice("--fail-on %s: %s '%s': %s", word, kind, name,
			   t->incomplete ? t->incomplete[0] : "incomplete");
		return;
	}
	fi = audit_finding_info((enum audit_finding)finding);
	if (t)
		in = strdup_printf(" in %s '%s'", kind, name);
	log_notice("--fail-on %s: '%s'%s: %s %s%s", word, d->facts->path, in ? in : "", fi->id,
		   fi->title,
		   s2c_streq(word, "risk") && finding != AUDIT_DISGUISE ? " (risk after: root)" : "");
}

/* @fd: where @out writes, for its width and whether it takes colour (cli/term.h). */
static int render(const struct auditargs *a, const struct audit *au, int fd, FILE *out)
{
	struct audittext_options o = {
		.width = term_width(fd),
		.color = term_color(fd),
		.quiet = a->quiet,
	};

	switch ((enum audit_format)a->format) {
	case AUDIT_FORMAT_JSON:
		return auditjson_write(au, out);
	case AUDIT_FORMAT_MARKDOWN:
		return markdown_audit(au, out);
	case AUDIT_FORMAT_HTML:
		return html_audit(au, out);
	case AUDIT_FORMAT_SARIF:
		return sarif_audit(au, out);
	case AUDIT_FORMAT_TEXT:
		return audittext_write(au, &o, out);
	case _AUDIT_FORMAT_MAX:
		break;
	}
	return -EINVAL;         /* no default: a new format is a case the compiler asks for */
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
	/* Named whatever the exit status: an incomplete run still says what it found. */
	if (a->fail_on) {
		size_t n = 0;

		r = auditargs_triggers(au, a->fail_on, print_trigger, NULL, &n);
		if (r < 0) {
			log_error("cannot read the audit's files: %s", strerror(-r));
			return S2C_EXIT_FAILURE;
		}
		if (n > 0 && !incomplete)
			return S2C_EXIT_FINDINGS;
	}
	return incomplete ? S2C_EXIT_INCOMPLETE : S2C_EXIT_OK;  /* largest wins: 3 over 1 */
}
