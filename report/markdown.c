/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "compliance.h"
#include "decisionout.h"
#include "engine.h"
#include "facts.h"
#include "host.h"
#include "markdown.h"
#include "targetout.h"
#include "util.h"
#include "waiver.h"
#include "common.h"

/*
 * Characters that can start Markdown syntax inside inline text or a table
 * cell: emphasis, code, links and images, HTML, cell boundaries,
 * strikethrough, math.  Line-start syntax (headings, lists, quotes) cannot
 * occur: every escaped text follows other text on its line and contains no
 * line break after escape_text().
 */
static const char md_special[] = "\\`*_{}[]#|~$";

int markdown_escape(FILE *out, const char *s)
{
	_cleanup_free_ char *e = escape_text(s ? s : "");

	if (!e)
		return -ENOMEM;
	for (const char *p = e; *p; p++) {
		switch (*p) {
		case '<':
			(void)fputs("&lt;", out);
			break;
		case '>':
			(void)fputs("&gt;", out);
			break;
		case '&':
			(void)fputs("&amp;", out);
			break;
		default:
			if (strchr(md_special, *p))
				(void)fputc('\\', out);
			(void)fputc(*p, out);
		}
	}
	return 0;
}

/* An https URL that can be an autolink as it is: no blank, control, quote or angle bracket. */
static bool plain_https(const char *s)
{
	if (strncmp(s, "https://", 8) != 0 || !s[8])
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || strchr("<>\"'`\\|", *p))
			return false;
	return true;
}


/* The rows about the target: what it is, its host name, machine and when it was audited. */
static int md_target(const struct audit *a, FILE *out)
{
	const struct host *h = a->host;
	int r = 0;

	(void)fputs("| target | ", out);
	if (r == 0 && h) {
		(void)fprintf(out, "%s, kernel ", a->targets ? targetout_noun(a, a->n_targets) :
			      h->live ? "this host" : "image");
		r = markdown_escape(out, h->kernel_release);
		if (r == 0 && h->os_pretty) {
			(void)fputs(", ", out);
			r = markdown_escape(out, h->os_pretty);
		}
	}
	(void)fputs(" |\n", out);
	if (r == 0 && a->identity) {
		const struct audit_identity *id = a->identity;
		if (id->hostname) {
			(void)fputs("| host name | ", out);
			r = markdown_escape(out, id->hostname);
			(void)fputs(" |\n", out);
		}
		if (id->machine_id)
			(void)fprintf(out, "| machine | `%.12s` |\n", id->machine_id);
		if (r == 0 && id->label) {
			(void)fputs("| label | ", out);
			r = markdown_escape(out, id->label);
			(void)fputs(" |\n", out);
		}
		if (r == 0 && id->time) {
			(void)fprintf(out, "| audited | %s", id->time);
			if (id->auditor) {
				(void)fputs(" on ", out);
				r = markdown_escape(out, id->auditor);
			}
			if (r == 0 && id->shard) {
				(void)fputs(", shard ", out);
				r = markdown_escape(out, id->shard);
			}
			(void)fprintf(out, ", suid2cap %s |\n", S2C_VERSION);
		}
	}
	return r;
}

/* The summary: counts, then verdicts, risk and findings as tables. */
static void md_summary(const struct audit *a, const struct audit_summary *s, FILE *out)
{
	(void)fprintf(out, "\n## Summary\n\n%zu privileged file%s; setuid in disguise: **%zu**; "
		      "the migration would change **%zu**.\n\n", s->files, s->files == 1 ? "" : "s",
		      s->disguise, s->changes);
	(void)fprintf(out, "Findings: **%zu** error%s, **%zu** warning%s, %zu note%s.\n\n",
		      s->levels[AUDIT_LEVEL_ERROR], s->levels[AUDIT_LEVEL_ERROR] == 1 ? "" : "s",
		      s->levels[AUDIT_LEVEL_WARNING], s->levels[AUDIT_LEVEL_WARNING] == 1 ? "" : "s",
		      s->levels[AUDIT_LEVEL_NOTE], s->levels[AUDIT_LEVEL_NOTE] == 1 ? "" : "s");
	if (a->waivers)
		(void)fprintf(out, "Waived: **%zu** finding%s (not counted above); waivers: %zu stale, "
			      "%zu expired.\n\n", s->waived, s->waived == 1 ? "" : "s",
			      s->waivers_stale, s->waivers_expired);
	(void)fputs("| verdict | files |\n|---|---:|\n", out);
	for (size_t i = 0; i < _AUDIT_STATE_MAX; i++)
		(void)fprintf(out, "| %s | %zu |\n", audit_state_name(audit_state_order[i]),
			      s->states[audit_state_order[i]]);
	(void)fputs("\n| risk | now | after |\n|---|---:|---:|\n", out);
	for (int k = RISK_ROOT; k >= RISK_NONE; k--)
		(void)fprintf(out, "| %s | %zu | %zu |\n", risk_name((enum risk)k), s->risk_now[k],
			      s->risk_after[k]);
	(void)fputs("\n| finding | name | files |\n|---|---|---:|\n", out);
	for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++) {
		const struct audit_finding_info *fi = audit_finding_info((enum audit_finding)k);
		(void)fprintf(out, "| %s | %s | %zu |\n", fi->id, fi->title, s->findings[k]);
	}
}

/* A control's id linked to the source it was checked against (a URL of the table). */
static int md_link(FILE *out, const char *text, const char *url)
{
	int r;

	(void)fputs("[", out);
	r = markdown_escape(out, text);
	(void)fprintf(out, "](%s)", url);
	return r;
}

/* The controls the findings concern, one a row, linked to where each was checked. */
static const struct compliance_cells md_compliance = {
	.head = "\n## Compliance\n\nThe controls of the benchmarks auditors ask about, the "
		"findings that concern each, and the source each was checked against.\n\n"
		"| benchmark | version | control | title | findings |\n|---|---|---|---|---|\n",
	.foot = "",
	.row_start = "| ", .sep = " | ", .findings = " |", .finding = { " ", "" }, .row_end = " |\n",
	.text = markdown_escape, .link = md_link,
};

static int md_header(const struct audit *a, const struct audit_summary *s, FILE *out)
{
	int r;

	(void)fputs("# suid2cap audit of ", out);
	if (a->targets) {
		(void)fprintf(out, "%zu %s", a->n_targets, targetout_noun(a, a->n_targets));
		r = 0;
	} else {
		r = markdown_escape(out, a->root);
	}
	(void)fputs("\n\n| | |\n|---|---|\n", out);
	for (size_t i = 0; r == 0 && !a->targets && a->paths && a->paths[i]; i++) {
		(void)fputs(i ? ", " : "| paths | ", out);
		r = markdown_escape(out, a->paths[i]);
		(void)fputs(a->paths[i + 1] ? "" : " |\n", out);
	}
	if (r == 0)
		r = md_target(a, out);
	(void)fprintf(out, "| rules | %zu rules, database `%.12s` |\n", a->db->n, a->db->hash);
	if (r == 0 && a->host) {
		_cleanup_free_ char *b = audit_bounding_text(a->host);
		if (!b)
			return -ENOMEM;
		(void)fputs("| bounding set | ", out);
		r = markdown_escape(out, b);
		if (r == 0 && a->host->bounding_what && !s2c_streq(b, "full")) {
			(void)fputs("; from ", out);
			r = markdown_escape(out, a->host->bounding_what);
		}
		(void)fputs(" |\n", out);
	}
	if (a->ping_group_range) {
		(void)fputs("| net.ipv4.ping\\_group\\_range | ", out);
		if (r == 0)
			r = markdown_escape(out, a->ping_group_range);
		(void)fputs(" |\n", out);
	}
	if (a->complete)
		(void)fputs("| scan | complete |\n", out);
	else if (a->targets) {
		_cleanup_free_ char *why = targetout_incomplete(a);
		if (!why)
			return -ENOMEM;
		(void)fprintf(out, "| scan | **incomplete**: %s |\n", why);
	} else
		(void)fprintf(out, "| scan | **incomplete**: %" PRIu64 " part%s could not be read |\n",
			      a->scan_warnings, a->scan_warnings == 1 ? "" : "s");
	md_summary(a, s, out);
	if (r == 0)
		r = compliance_table(a, &md_compliance, out);
	return r;
}

static void md_finding_ids(const struct audit *a, const struct decision *d, FILE *out)
{
	unsigned m = audit_findings(a, d);
	bool first = true;

	for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
		if (m & (1u << k)) {
			(void)fprintf(out, "%s%s%s", first ? "" : " ",
				      audit_finding_info((enum audit_finding)k)->id,
				      audit_waiver(a, d, (enum audit_finding)k) ? " (waived)" : "");
			first = false;
		}
}

/* "now → after", or just "now" when both are the same; escaped. */
static int md_change(FILE *out, const char *now, const char *after)
{
	int r = markdown_escape(out, now);

	if (r == 0 && !s2c_streq(now, after)) {
		(void)fputs(" → ", out);
		r = markdown_escape(out, after);
	}
	return r;
}

static int md_row(const struct audit *a, const struct audit_row *row, FILE *out)
{
	int r;

	(void)fprintf(out, "| %zu | ", row->number);
	r = markdown_escape(out, row->path);
	(void)fputs(" | ", out);
	if (r == 0)
		r = md_change(out, row->owner, row->owner_after ? row->owner_after : row->owner);
	(void)fputs(" | ", out);
	if (r == 0)
		r = md_change(out, row->mode, row->mode_after);
	(void)fputs(" | ", out);
	if (r == 0)
		r = md_change(out, row->caps ? row->caps : "–", row->caps_after ? row->caps_after : "–");
	(void)fputs(" | ", out);
	if (r == 0)
		r = md_change(out, risk_name(row->risk), risk_name(row->risk_after));
	(void)fputs(" | ", out);
	if (r == 0)
		r = markdown_escape(out, row->rule ? row->rule : "–");
	(void)fputs(" | ", out);
	md_finding_ids(a, row->d, out);
	(void)fputs(" |\n", out);
	return r;
}

/* The rows of the files in state @st. */
static int md_table(const struct audit *a, enum audit_state st, FILE *out)
{
	_cleanup_(audit_cursor_release) struct audit_cursor c = { 0 };
	int r;

	for (r = audit_cursor_start(a, &c); r == 0 && c.d; r = audit_cursor_next(a, &c)) {
		struct audit_row row;

		if (audit_state(c.d) != st)
			continue;
		r = audit_row_fill(a, &c, &row);
		if (r == 0)
			r = md_row(a, &row, out);
		audit_row_release(&row);
		if (r < 0)
			return r;
	}
	return r;
}

static int md_tables(const struct audit *a, const struct audit_summary *s, FILE *out)
{
	int r = 0;

	for (size_t g = 0; g < _AUDIT_STATE_MAX && r == 0; g++) {
		enum audit_state st = audit_state_order[g];
		const char *name = audit_state_name(st);

		if (!s->states[st])
			continue;
		/* "Nothing to change: already in the state the verdict asks for (5)" */
		(void)fprintf(out, "\n## %c%s: %s (%zu)\n\n", name[0] - 'a' + 'A', name + 1,
			      audit_state_title(st), s->states[st]);
		(void)fputs("| # | path | owner:group | mode | capabilities | risk | rule | findings |\n"
			    "|---:|---|---|---|---|---|---|---|\n", out);
		r = md_table(a, st, out);
	}
	return r;
}

/* "- **label**: text" with the text escaped. */
static int md_item(FILE *out, const char *label, const char *text)
{
	(void)fprintf(out, "- **%s**: ", label);
	if (markdown_escape(out, text) < 0)
		return -ENOMEM;
	(void)fputc('\n', out);
	return 0;
}

static int md_evidence(const struct decision *d, FILE *out)
{
	static const char *const kinds[] = { "needs", "aware", "unknown", "drops" };
	int r = 0;

	if (!d->n_evidence)
		return 0;
	(void)fputs("\nEvidence:\n\n| strength | kind | what | capabilities |\n"
		    "|---|---|---|---|\n", out);
	for (size_t i = 0; i < d->n_evidence && r == 0; i++) {
		const struct evidence_item *ev = &d->evidence[i];
		_cleanup_free_ char *caps = ev->caps ? fcaps_mask_names(ev->caps) : strdup("–");

		if (!caps)
			return -ENOMEM;
		(void)fprintf(out, "| %s | %s | ", strength_name(ev->strength), kinds[ev->kind]);
		r = markdown_escape(out, ev->what);
		(void)fputs(" | ", out);
		if (r == 0)
			r = markdown_escape(out, caps);
		(void)fputs(" |\n", out);
	}
	return r;
}

static int md_lists(const struct decision *d, FILE *out)
{
	int r = 0;

	if (d->n_conditions)
		(void)fputs("\nConditions:\n\n", out);
	for (size_t i = 0; i < d->n_conditions && r == 0; i++) {
		const struct condition_result *c = &d->conditions[i];
		(void)fprintf(out, "%zu. ", i + 1);
		r = markdown_escape(out, c->text);
		(void)fprintf(out, " — %s%s\n", c->holds < 0 ? "unknown" : c->holds ? "holds" : "does not hold",
			      c->chosen ? " (**applies**)" : "");
	}
	if (d->n_warnings)
		(void)fputs("\nWarnings:\n\n", out);
	for (size_t i = 0; i < d->n_warnings && r == 0; i++) {
		(void)fputs("- ", out);
		r = markdown_escape(out, d->warnings[i]);
		(void)fputc('\n', out);
	}
	if (d->rule && d->rule->sources && d->rule->sources[0])
		(void)fputs("\nSources:\n\n", out);
	for (size_t i = 0; r == 0 && d->rule && d->rule->sources && d->rule->sources[i]; i++) {
		const char *src = d->rule->sources[i];
		if (plain_https(src)) {
			(void)fprintf(out, "- <%s>\n", src);
		} else {
			(void)fputs("- ", out);
			r = markdown_escape(out, src);
			(void)fputc('\n', out);
		}
	}
	return r;
}

/* md_item() for audit_waived_each(): one waived finding of the file. */
static int md_waived_item(void *out, const char *label, const char *text)
{
	return md_item(out, label, text);
}

/* Every waiver with what became of it. */
static int md_waivers(const struct audit *a, FILE *out)
{
	int r = 0;

	if (!a->waivers)
		return 0;
	(void)fputs("\n## Waivers\n\n| finding | path | status | findings | expires | reason | "
		    "source |\n|---|---|---|---:|---|---|---|\n", out);
	for (size_t i = 0; i < a->waivers->n && r == 0; i++) {
		const struct waiver *w = &a->waivers->v[i];
		size_t n = 0;
		enum audit_waiver_status st;

		r = audit_waiver_status(a, w, &st, &n);
		if (r < 0)
			break;
		(void)fprintf(out, "| %s | ", audit_finding_info(w->finding)->id);
		r = markdown_escape(out, w->pattern);
		(void)fprintf(out, " | %s | %zu | %s | ", audit_waiver_status_name(st), n,
			      w->expires[0] ? w->expires : "never");
		if (r == 0)
			r = markdown_escape(out, w->reason);
		(void)fputs(" | ", out);
		if (r == 0)
			r = markdown_escape(out, w->source);
		(void)fputs(" |\n", out);
	}
	return r;
}

static int md_file(const struct audit *a, const struct audit_cursor *c, FILE *out)
{
	const struct decision *d = c->d;
	const struct facts *f = d->facts;
	_cleanup_free_ char *after = NULL;
	char m2[5];
	int r;

	facts_mode_octal(d->mode, m2);
	(void)fprintf(out, "\n### %zu. ", c->i + 1);
	r = markdown_escape(out, f->path);
	(void)fprintf(out, "\n\n- **verdict**: %s (confidence %s)%s\n", verdict_name(d->verdict),
		      confidence_name(d->confidence), d->changes ? "" : ", nothing to change");
	if (r == 0)
		r = md_item(out, "reason", d->reason);
	if (r == 0) {
		struct targetout_line *lines = NULL;
		size_t n = 0;
		r = targetout_lines(a, c->origin, &lines, &n);
		for (size_t k = 0; k < n && r == 0; k++)
			r = md_item(out, lines[k].label, lines[k].text);
		targetout_lines_free(lines, n);
	}
	if (r == 0 && !a->targets)
		r = md_item(out, "package", d->package ? d->package : "(unknown)");
	if (r == 0 && d->sha256)
		(void)fprintf(out, "- **sha256**: `%s`\n", d->sha256);
	if (r == 0)
		r = md_item(out, "rule", d->rule ? d->rule->id : d->n_ambiguous ? "(ambiguous)" : "(none)");
	if (r == 0 && d->override) {
		_cleanup_free_ char *text = decisionout_override_text(d);
		r = text ? md_item(out, "override", text) : -ENOMEM;
	}
	if (r == 0) {
		char ids[160];
		if (asprintf(&after, "mode %s, owner %s, capabilities %s, risk %s%s",
			     m2, audit_ids_after(d, ids, sizeof(ids)), d->has_caps ? d->caps_text : "none",
			     risk_name(d->risk), d->disguise ? " (setuid in disguise)" : "") < 0) {
			after = NULL;
			return -ENOMEM;
		}
		r = md_item(out, "after", after);
	}
	if (r == 0) {
		unsigned m = audit_findings(a, d);
		(void)fputs("- **findings**:", out);
		for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
			if (m & (1u << k))
				(void)fprintf(out, " %s (%s%s)", audit_finding_info((enum audit_finding)k)->id,
					      audit_level_name(audit_finding_level(a, d, (enum audit_finding)k)),
					      audit_waiver(a, d, (enum audit_finding)k) ? ", waived" : "");
		(void)fputc('\n', out);
		r = audit_waived_each(a, d, md_waived_item, out);
	}
	if (r == 0)
		r = md_evidence(d, out);
	if (r == 0)
		r = md_lists(d, out);
	return r;
}

int markdown_audit(const struct audit *a, FILE *out)
{
	_cleanup_(audit_cursor_release) struct audit_cursor c = { 0 };
	struct audit_summary s;
	int r;

	r = audit_summarise(a, &s);
	if (r == 0)
		r = md_header(a, &s, out);
	if (r == 0)
		r = md_tables(a, &s, out);
	if (r == 0 && a->n)
		(void)fputs("\n## Files\n", out);
	for (r = r ? r : audit_cursor_start(a, &c); r == 0 && c.d; r = audit_cursor_next(a, &c)) {
		r = md_file(a, &c, out);
		if (r < 0)
			break;
	}
	if (r == 0)
		r = md_waivers(a, out);
	if (r == 0)
		r = targetout_markdown(a, out);
	if (r < 0)
		return r;
	return ferror(out) ? -EIO : 0;
}
