/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audit page's detail of each program (report/html.c writes the rest of
 * the page): its state now and after the migration, where it comes from, the
 * rule that decided it, its facts, the ELF evidence, and the conditions,
 * warnings and sources, each in a <details> element.  Every text is escaped
 * with html_escape().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "decisionout.h"
#include "elfinfo.h"
#include "engine.h"
#include "facts.h"
#include "html.h"
#include "htmldetail.h"
#include "targetout.h"
#include "util.h"
#include "common.h"

static int owner_group(const struct facts *f, FILE *out)
{
	int r = 0;

	if (f->owner)
		r = html_escape(out, f->owner);
	else
		(void)fprintf(out, "%" PRIu32, f->uid);
	(void)fputc(':', out);
	if (r == 0 && f->group)
		r = html_escape(out, f->group);
	else if (r == 0)
		(void)fprintf(out, "%" PRIu32, f->gid);
	return r;
}

/* <dt>label</dt><dd>escaped text</dd> */
static int item(FILE *out, const char *label, const char *text)
{
	int r;

	(void)fprintf(out, "<dt>%s</dt><dd>", label);
	r = html_escape(out, text);
	(void)fputs("</dd>\n", out);
	return r;
}

/* item() for audit_waived_each(): one waived finding of the file. */
static int waived_item(void *out, const char *label, const char *text)
{
	return item(out, label, text);
}

/* The file's state now and after the migration: mode, owner, capabilities, risk. */
static int detail_states(const struct decision *d, FILE *out)
{
	const struct facts *f = d->facts;
	const char *now = audit_caps_now(d);
	char mode[11], after[11], ids[160];
	int r;

	facts_mode_string(f->mode, mode);
	facts_mode_string((f->mode & ~07777u) | d->mode, after);
	(void)fprintf(out, "<dt>now</dt><dd><code>%s</code> ", mode);
	r = owner_group(f, out);
	if (!f->uid_later && !f->gid_later)
		(void)fprintf(out, " (%" PRIu32 ":%" PRIu32 ")", f->uid, f->gid);
	(void)fprintf(out, ", %" PRIu64 " bytes, %" PRIu32 " link%s, capabilities <code>", f->size,
		      f->nlink, f->nlink == 1 ? "" : "s");
	if (r == 0)
		r = html_escape(out, now ? now : "none");
	(void)fprintf(out, "</code>, risk <span class=\"r-%s\">%s</span></dd>\n",
		      risk_name(d->risk_now), risk_name(d->risk_now));
	(void)fprintf(out, "<dt>after</dt><dd><code>%s</code> ", after);
	r = r == 0 ? html_escape(out, audit_ids_after(d, ids, sizeof(ids))) : r;
	(void)fputs(", capabilities <code>", out);
	if (r == 0)
		r = html_escape(out, d->has_caps ? d->caps_text : "none");
	(void)fprintf(out, "</code>, risk <span class=\"r-%s\">%s</span>%s</dd>\n", risk_name(d->risk),
		      risk_name(d->risk), d->disguise ? " <span class=\"disguise\">setuid in "
		      "disguise</span>" : "");
	return r;
}

/* Where the file is: its bytes when not UTF-8, package, content hash, filesystem. */
static int detail_where(const struct audit *a, const struct decision *d, FILE *out)
{
	const struct facts *f = d->facts;
	int r = 0;

	if (!utf8_valid(f->path, strlen(f->path))) {
		_cleanup_free_ char *hex = malloc(2 * strlen(f->path) + 1);
		if (!hex)
			return -ENOMEM;
		hex_encode(f->path, strlen(f->path), hex);
		(void)fprintf(out, "<dt>path bytes</dt><dd><code>%s</code> (not valid UTF-8)</dd>\n", hex);
	}
	if (r == 0 && !a->targets)
		r = item(out, "package", d->package ? d->package : "(unknown)");
	if (d->sha256)
		(void)fprintf(out, "<dt>sha256</dt><dd><code>%s</code></dd>\n", d->sha256);
	if (r == 0 && f->mount.fstype) {
		(void)fputs("<dt>filesystem</dt><dd>", out);
		r = html_escape(out, f->mount.fstype);
		if (r == 0 && f->mount.target) {
			(void)fputs(" on <code>", out);
			r = html_escape(out, f->mount.target);
			(void)fputs("</code>", out);
		}
		(void)fprintf(out, "%s%s%s</dd>\n", f->mount.nosuid ? ", nosuid" : "",
			      f->mount.rdonly ? ", read-only" : "", f->mount.noexec ? ", noexec" : "");
	}
	return r;
}

/* What decided: the binary's ELF facts, the rule and a local override. */
static int detail_rule(const struct decision *d, FILE *out)
{
	const struct elfinfo *e = d->elf;
	int r = 0;

	if (e)
		(void)fprintf(out, "<dt>binary</dt><dd>ELF %u-bit %s, %s%s, %zu imported symbols%s</dd>\n",
			      e->elf_class, e->machine_name, e->is_static ? "static" : "dynamic",
			      e->pie ? ", PIE" : "", e->n_imports_all,
			      e->links_libcap_ng ? ", links libcap-ng" :
			      e->links_libcap ? ", links libcap" : "");
	else if (r == 0)
		r = item(out, "binary", d->elf_error ? d->elf_error : "not read");
	if (r == 0 && d->rule) {
		(void)fputs("<dt>rule</dt><dd><code>", out);
		r = html_escape(out, d->rule->id);
		(void)fputs("</code> ", out);
		if (r == 0)
			r = html_escape(out, d->rule->program);
		(void)fputs("; ", out);
		if (r == 0)
			r = html_escape(out, d->match_how);
		(void)fputs("</dd>\n", out);
	} else if (r == 0) {
		r = item(out, "rule", d->n_ambiguous ? d->match_how : "(none)");
	}
	if (r == 0 && d->override) {
		_cleanup_free_ char *text = decisionout_override_text(d);
		r = text ? item(out, "override", text) : -ENOMEM;
	}
	return r;
}

static int detail_facts(const struct audit *a, const struct audit_cursor *c, FILE *out)
{
	const struct decision *d = c->d;
	int r;

	(void)fprintf(out, "<dl>\n<dt>verdict</dt><dd><span class=\"v v-%s\">%s</span> (confidence "
		      "%s)%s</dd>\n", verdict_name(d->verdict), verdict_name(d->verdict),
		      confidence_name(d->confidence), d->changes ? "" : ", nothing to change");
	r = item(out, "reason", d->reason);
	if (r == 0) {
		struct targetout_line *lines = NULL;
		size_t n = 0;
		r = targetout_lines(a, c->origin, &lines, &n);
		for (size_t k = 0; k < n && r == 0; k++)
			r = item(out, lines[k].label, lines[k].text);
		targetout_lines_free(lines, n);
	}
	if (r == 0)
		r = detail_states(d, out);
	if (r == 0)
		r = detail_where(a, d, out);
	if (r == 0)
		r = detail_rule(d, out);
	(void)fputs("<dt>findings</dt><dd>", out);
	html_finding_ids(a, d, out);
	(void)fputs("</dd>\n", out);
	if (r == 0)
		r = audit_waived_each(a, d, waived_item, out);
	(void)fputs("</dl>\n", out);
	return r;
}

static int detail_evidence(const struct decision *d, FILE *out)
{
	static const char *const kinds[] = { "needs", "aware", "unknown", "drops" };
	int r = 0;

	if (!d->n_evidence)
		return 0;
	(void)fputs("<h4>Evidence</h4>\n<table>\n<thead><tr><th>strength</th><th>kind</th>"
		    "<th>what</th><th>capabilities</th><th>note</th></tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < d->n_evidence && r == 0; i++) {
		const struct evidence_item *ev = &d->evidence[i];
		_cleanup_free_ char *caps = ev->caps ? fcaps_mask_names(ev->caps) : strdup("–");

		if (!caps)
			return -ENOMEM;
		(void)fprintf(out, "<tr><td>%s</td><td>%s</td><td>", strength_name(ev->strength),
			      kinds[ev->kind]);
		r = html_escape(out, ev->what);
		(void)fputs("</td><td><code>", out);
		if (r == 0)
			r = html_escape(out, caps);
		(void)fputs("</code></td><td>", out);
		if (r == 0)
			r = html_escape(out, ev->note ? ev->note : "");
		(void)fputs("</td></tr>\n", out);
	}
	(void)fputs("</tbody>\n</table>\n", out);
	return r;
}

static int detail_lists(const struct decision *d, FILE *out)
{
	const char *const *src = d->rule ? d->rule->sources : NULL;
	int r = 0;

	if (d->n_conditions)
		(void)fputs("<h4>Conditions</h4>\n<ol>\n", out);
	for (size_t i = 0; i < d->n_conditions && r == 0; i++) {
		const struct condition_result *c = &d->conditions[i];
		(void)fputs("<li>", out);
		r = html_escape(out, c->text);
		(void)fprintf(out, " — %s%s</li>\n",
			      c->holds < 0 ? "unknown" : c->holds ? "holds" : "does not hold",
			      c->chosen ? " <strong>(applies)</strong>" : "");
	}
	if (d->n_conditions)
		(void)fputs("</ol>\n", out);
	if (d->n_warnings)
		(void)fputs("<h4>Warnings</h4>\n<ul>\n", out);
	for (size_t i = 0; i < d->n_warnings && r == 0; i++) {
		(void)fputs("<li>", out);
		r = html_escape(out, d->warnings[i]);
		(void)fputs("</li>\n", out);
	}
	if (d->n_warnings)
		(void)fputs("</ul>\n", out);
	if (src && src[0])
		(void)fputs("<h4>Sources</h4>\n<ul>\n", out);
	for (size_t i = 0; src && src[i] && r == 0; i++) {
		bool link = strncmp(src[i], "https://", 8) == 0 && !strpbrk(src[i], " \t\n");
		(void)fputs("<li>", out);
		if (link) {
			(void)fputs("<a href=\"", out);
			r = html_escape(out, src[i]);
			(void)fputs("\" rel=\"noopener noreferrer\">", out);
		}
		if (r == 0)
			r = html_escape(out, src[i]);
		(void)fputs(link ? "</a></li>\n" : "</li>\n", out);
	}
	if (src && src[0])
		(void)fputs("</ul>\n", out);
	if (r == 0 && d->rule && d->rule->smoke) {
		(void)fputs("<h4>Smoke test</h4>\n<p><code>", out);
		for (size_t i = 0; d->rule->smoke[i] && r == 0; i++) {
			(void)fputs(i ? " " : "", out);
			r = html_escape(out, s2c_streq(d->rule->smoke[i], "{}") ? d->facts->path :
					d->rule->smoke[i]);
		}
		(void)fputs("</code></p>\n", out);
	}
	return r;
}

int htmldetail_write(const struct audit *a, FILE *out)
{
	_cleanup_(audit_cursor_release) struct audit_cursor c = { 0 };
	int r;

	if (a->n)
		(void)fputs("<section id=\"details\">\n<h2>Details</h2>\n", out);
	for (r = audit_cursor_start(a, &c); r == 0 && c.d; r = audit_cursor_next(a, &c)) {
		const struct decision *d = c.d;
		(void)fprintf(out, "<details id=\"f%zu\">\n<summary>%zu. <span class=\"path\">",
			      c.i + 1, c.i + 1);
		r = html_escape(out, d->facts->path);
		(void)fprintf(out, "</span> — <span class=\"v v-%s\">%s</span></summary>\n",
			      html_state_class(audit_state(d)), audit_state_name(audit_state(d)));
		if (r == 0)
			r = detail_facts(a, &c, out);
		if (r == 0)
			r = detail_evidence(d, out);
		if (r == 0)
			r = detail_lists(d, out);
		(void)fputs("</details>\n", out);
		if (r < 0)
			break;
	}
	if (a->n)
		(void)fputs("</section>\n", out);
	return r;
}
