/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "audittext.h"
#include "engine.h"
#include "db.h"
#include "facts.h"
#include "fcaps.h"
#include "host.h"
#include "learnout.h"
#include "pkgdb.h"
#include "scanout.h"
#include "targetout.h"
#include "util.h"
#include "common.h"


/* Order of the verdict tables: what to act on first. */
static const enum verdict text_order[] = { VERDICT_MIGRATE, VERDICT_DROP, VERDICT_REVIEW,
					   VERDICT_KEEP };

#define C_BOLD "\033[1m"
#define C_RESET "\033[0m"

/* Columns @len bytes of @s take on a terminal: one per UTF-8 sequence (escaped text is printable). */
static size_t width_n(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

static size_t text_width(const char *s)
{
	return width_n(s, strlen(s));
}

static void pad(FILE *out, size_t have, size_t want)
{
	for (; have < want; have++)
		(void)fputc(' ', out);
}

/*
 * Write @text (already escaped: no controls) wrapped at @width columns, every
 * line starting with @indent spaces and the first one with @lead after them,
 * in colour @color (an escape sequence, or "").
 */
static void wrap(FILE *out, const char *color, const char *lead, const char *text,
		 unsigned indent, unsigned width)
{
	size_t start = indent + text_width(lead), col = start;
	const char *p = text;

	pad(out, 0, indent);
	(void)fprintf(out, "%s%s%s", color, lead, *color ? C_RESET : "");
	while (*p) {
		const char *w = p;
		size_t len, wlen;

		while (*p && *p != ' ')
			p++;
		len = (size_t)(p - w);
		wlen = width_n(w, len);
		if (col > start && col + 1 + wlen > width) {
			(void)fputc('\n', out);
			pad(out, 0, start);
			col = start;
		} else if (col > start) {
			(void)fputc(' ', out);
			col++;
		}
		(void)fwrite(w, 1, len, out);
		col += wlen;
		while (*p == ' ')
			p++;
	}
	(void)fputc('\n', out);
}

struct text_row {
	char *path, *owner, *mode, *caps, *risk, *rule;
};

static void text_row_release(struct text_row *r)
{
	free(r->path);
	free(r->owner);
	free(r->mode);
	free(r->caps);
	free(r->risk);
	free(r->rule);
}

/* "now -> after" (escaped), or just "now" when nothing changes; @none for NULL. */
static char *change(const char *now, const char *after, const char *none)
{
	_cleanup_free_ char *n = escape_text(now ? now : none);
	_cleanup_free_ char *a = escape_text(after ? after : none);
	char *s = NULL;

	if (!n || !a)
		return NULL;
	if (s2c_streq(n, a))
		return TAKE_PTR(n);
	return asprintf(&s, "%s -> %s", n, a) < 0 ? NULL : s;
}

static int text_row_fill(struct text_row *row, const struct audit_row *ar)
{
	row->path = escape_text(ar->path);
	row->owner = change(ar->owner, ar->owner_after ? ar->owner_after : ar->owner, "-");
	row->mode = change(ar->mode, ar->mode_after, "-");
	row->caps = change(ar->caps, ar->caps_after, "-");
	row->risk = change(risk_name(ar->risk), risk_name(ar->risk_after), "-");
	row->rule = escape_text(ar->rule ? ar->rule : "-");
	return row->path && row->owner && row->mode && row->caps && row->risk && row->rule ?
		       0 : -ENOMEM;
}

struct text_widths {
	size_t path, owner, mode, risk, rule;
};

/* Widest path column; longer paths take a line of their own. */
#define PATH_COLUMN_MAX 36

static int text_header(const struct audit *a, const struct audit_summary *s,
		       const struct audittext_options *o, FILE *out)
{
	const struct host *h = a->host;
	const struct audit_identity *id = a->identity;
	_cleanup_free_ char *root = escape_text(a->root);
	_cleanup_free_ char *os = h && h->os_pretty ? escape_text(h->os_pretty) : NULL;
	_cleanup_free_ char *host = id && id->hostname ? escape_text(id->hostname) : NULL;
	_cleanup_free_ char *auditor = id && id->auditor ? escape_text(id->auditor) : NULL;
	char machine[32] = "";

	if (id && id->machine_id)
		(void)snprintf(machine, sizeof(machine), " (machine %.12s)", id->machine_id);
	if (a->targets)
		(void)fprintf(out, "%ssuid2cap audit of %zu %s%s", o->color ? C_BOLD : "",
			      a->n_targets, targetout_noun(a, a->n_targets), o->color ? C_RESET : "");
	else
		(void)fprintf(out, "%ssuid2cap audit of %s%s", o->color ? C_BOLD : "",
			      root ? root : "?", o->color ? C_RESET : "");
	for (size_t i = 0; !a->targets && a->paths && a->paths[i]; i++) {
		_cleanup_free_ char *p = escape_text(a->paths[i]);
		(void)fprintf(out, "%s%s", i ? ", " : ", paths ", p ? p : "?");
	}
	(void)fputc('\n', out);
	if (h)
		(void)fprintf(out, "target: %s%s%s%s, kernel %s%s%s\n",
			      a->targets ? targetout_noun(a, a->n_targets) :
			      h->live ? "this host" : "image", host ? " " : "", host ? host : "",
			      machine, h->kernel_release, os ? ", " : "", os ? os : "");
	if (id && id->time)
		(void)fprintf(out, "audited: %s%s%s%s%s, suid2cap %s\n", id->time,
			      auditor ? " on " : "", auditor ? auditor : "",
			      id->shard ? ", shard " : "", id->shard ? id->shard : "", S2C_VERSION);
	if (h && h->pkgdb) {
		const char *problem = pkgdb_problem(h->pkgdb);
		_cleanup_free_ char *p = problem ? escape_text(problem) : NULL;
		(void)fputs("package database:", out);
		for (size_t i = 0; i < pkgdb_count(h->pkgdb); i++)
			(void)fprintf(out, "%s %s", i ? "," : "",
				      pkgdb_format_name(pkgdb_format_of(h->pkgdb, i)));
		if (!pkgdb_count(h->pkgdb))
			(void)fputs(" none (owners unknown: programs are told apart by their binaries)",
				    out);
		if (p)
			(void)fprintf(out, "; %s", p);
		(void)fputc('\n', out);
	}
	if (h && h->bounding != HOST_BOUNDING_ALL) {
		_cleanup_free_ char *caps = fcaps_mask_names(h->bounding);
		(void)fprintf(out, "container: %s: %s\n", h->bounding_what ? h->bounding_what : "?",
			      caps && *caps ? caps : "no capabilities");
	}
	(void)fprintf(out, "rules: %zu rules, database %.12s\n", a->db->n, a->db->hash);
	for (size_t i = 0; i < a->db->n_layers; i++) {
		const struct rules_db_layer *l = &a->db->layers[i];
		_cleanup_free_ char *dir = escape_text(l->dir);
		const char *what = !l->label || s2c_streq(l->label, "bundled") ? NULL :
				   s2c_streq(l->label, "local") ? "local rules" :
				   s2c_streq(l->label, "target") ? "local rules (the target's)" : "--db";
		if (!what)
			continue;
		if (l->present)
			(void)fprintf(out, "%s: %s: %zu rule%s\n", what, dir ? dir : "?", l->rules,
				      l->rules == 1 ? "" : "s");
		else
			(void)fprintf(out, "%s: %s: none\n", what, dir ? dir : "?");
	}
	if (scanout_skipped_text(a->not_scanned, a->n_not_scanned, "", out) < 0)
		return -ENOMEM;
	if (!a->complete && a->targets)
		(void)fprintf(out, "INCOMPLETE: %" PRIu64 " %s could not be read (named below and on "
			      "standard error)\n", a->scan_warnings,
			      targetout_noun(a, (size_t)a->scan_warnings));
	else if (!a->complete)
		(void)fprintf(out, "INCOMPLETE: %" PRIu64 " part%s of the tree could not be read "
			      "(see the warnings on standard error)\n",
			      a->scan_warnings, a->scan_warnings == 1 ? "" : "s");
	(void)fprintf(out, "\n%sSummary:%s %zu privileged file%s\n", o->color ? C_BOLD : "",
		      o->color ? C_RESET : "", s->files, s->files == 1 ? "" : "s");
	(void)fprintf(out, "  verdict     %zu migrate, %zu drop, %zu review, %zu keep\n",
		      s->verdicts[VERDICT_MIGRATE], s->verdicts[VERDICT_DROP],
		      s->verdicts[VERDICT_REVIEW], s->verdicts[VERDICT_KEEP]);
	(void)fprintf(out, "  risk now    %zu root, %zu dangerous, %zu low, %zu none\n",
		      s->risk_now[RISK_ROOT], s->risk_now[RISK_DANGEROUS], s->risk_now[RISK_LOW],
		      s->risk_now[RISK_NONE]);
	(void)fprintf(out, "  risk after  %zu root, %zu dangerous, %zu low, %zu none\n",
		      s->risk_after[RISK_ROOT], s->risk_after[RISK_DANGEROUS],
		      s->risk_after[RISK_LOW], s->risk_after[RISK_NONE]);
	(void)fprintf(out, "  setuid in disguise  %zu\n", s->disguise);
	(void)fprintf(out, "  would change        %zu file%s\n", s->changes, s->changes == 1 ? "" : "s");
	return 0;
}

static const char *group_title(enum verdict v)
{
	switch (v) {
	case VERDICT_MIGRATE: return "file capabilities replace the set-ID bit";
	case VERDICT_DROP: return "the privilege is not needed or never honoured";
	case VERDICT_KEEP: return "must stay as it is";
	default: return "a person decides";
	}
}

static void text_row(const struct decision *d, const struct text_row *r,
		     const struct text_widths *w, const struct audittext_options *o, FILE *out)
{
	const char *rc = o->color ? audit_risk_color(d->risk) : "";
	size_t pw = text_width(r->path);

	(void)fputs("  ", out);
	(void)fputs(r->path, out);
	if (pw > w->path) {
		/* A long path gets its own line; the columns follow on the next. */
		(void)fputc('\n', out);
		pad(out, 0, 2 + w->path);
	} else {
		pad(out, pw, w->path);
	}
	(void)fprintf(out, "  %s", r->owner);
	pad(out, text_width(r->owner), w->owner);
	(void)fprintf(out, "  %s", r->mode);
	pad(out, text_width(r->mode), w->mode);
	(void)fprintf(out, "  %s%s%s", rc, r->risk, *rc ? C_RESET : "");
	pad(out, text_width(r->risk), w->risk);
	(void)fprintf(out, "  %s", r->rule);
	pad(out, text_width(r->rule), w->rule);
	(void)fprintf(out, "  %s\n", r->caps);
}

static int text_notes(const struct audit *a, size_t idx, const struct audittext_options *o,
		      FILE *out)
{
	const struct decision *d = a->v[idx];
	_cleanup_free_ char *reason = escape_text(d->reason ? d->reason : "");
	struct targetout_line *lines = NULL;
	size_t n_lines = 0;

	if (!reason || targetout_lines(a, idx, &lines, &n_lines) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n_lines; i++) {
		_cleanup_free_ char *text = escape_text(lines[i].text);
		char lead[32];
		if (!text) {
			targetout_lines_free(lines, n_lines);
			return -ENOMEM;
		}
		(void)snprintf(lead, sizeof(lead), "%s: ", lines[i].label);
		wrap(out, "", lead, text, 6, o->width);
	}
	targetout_lines_free(lines, n_lines);
	wrap(out, "", "", reason, 6, o->width);
	/* A migration to a root-equivalent set already carries the engine's warning. */
	if ((audit_findings(a, d) & (1u << AUDIT_DISGUISE)) && !d->disguise)
		wrap(out, o->color ? "\033[1;31m" : "", "setuid in disguise: ",
		     "its capabilities are root-equivalent", 6, o->width);
	for (size_t i = 0; i < d->n_warnings; i++) {
		_cleanup_free_ char *w = escape_text(d->warnings[i]);
		if (!w)
			return -ENOMEM;
		wrap(out, o->color ? "\033[33m" : "", "warning: ", w, 6, o->width);
	}
	if (audit_learned(a, d)) {
		_cleanup_free_ char *seen = learnout_audit_line(audit_learned(a, d));
		if (!seen)
			return -ENOMEM;
		wrap(out, o->color ? "\033[36m" : "", "observed: ", seen, 6, o->width);
	}
	return 0;
}

static size_t changes_in(const struct audit *a, enum verdict v)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		n += a->v[i]->verdict == v && a->v[i]->changes;
	return n;
}

static int text_groups(const struct audit *a, const struct audit_summary *s,
		       const struct audittext_options *o, struct text_row *rows, FILE *out)
{
	struct text_widths w = { 4, 11, 4, 4, 4 };
	int r;

	for (size_t i = 0; i < a->n; i++) {
		size_t pw = text_width(rows[i].path);
		if (pw <= PATH_COLUMN_MAX)
			w.path = S2C_MAX(w.path, pw);
		w.owner = S2C_MAX(w.owner, text_width(rows[i].owner));
		w.mode = S2C_MAX(w.mode, text_width(rows[i].mode));
		w.risk = S2C_MAX(w.risk, text_width(rows[i].risk));
		w.rule = S2C_MAX(w.rule, text_width(rows[i].rule));
	}
	for (size_t g = 0; g < S2C_ELEMENTSOF(text_order); g++) {
		enum verdict v = text_order[g];
		size_t n = s->verdicts[v];
		_cleanup_free_ char *upper = strdup(verdict_name(v));

		if (n == 0)
			continue;
		if (!upper)
			return -ENOMEM;
		for (char *c = upper; *c; c++)
			*c = (char)(*c - 'a' + 'A');
		(void)fprintf(out, "\n%s%s%s: %zu file%s", o->color ? audit_verdict_color(v) : "", upper,
			      o->color ? C_RESET : "", n, n == 1 ? "" : "s");
		if (v == VERDICT_MIGRATE || v == VERDICT_DROP)
			(void)fprintf(out, " (%zu would change)", changes_in(a, v));
		(void)fprintf(out, ", %s\n", group_title(v));
		(void)fprintf(out, "  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", (int)w.path, "PATH",
			      (int)w.owner, "OWNER:GROUP", (int)w.mode, "MODE", (int)w.risk, "RISK",
			      (int)w.rule, "RULE", "CAPABILITIES");
		for (size_t i = 0; i < a->n; i++) {
			if (a->v[i]->verdict != v)
				continue;
			text_row(a->v[i], &rows[i], &w, o, out);
			r = text_notes(a, i, o, out);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int audittext_write(const struct audit *a, const struct audittext_options *o, FILE *out)
{
	_cleanup_free_ struct text_row *rows = calloc(a->n ? a->n : 1, sizeof(*rows));
	struct audit_row *model = NULL;
	struct audittext_options opt = *o;
	struct audit_summary s;
	int r = 0;

	if (!rows)
		return -ENOMEM;
	opt.width = S2C_MAX(opt.width, 40u);
	audit_summarise(a, &s);
	r = audit_rows(a, &model);
	for (size_t i = 0; i < a->n && r == 0; i++)
		r = text_row_fill(&rows[i], &model[i]);
	audit_rows_free(model, model ? a->n : 0);
	if (r == 0)
		r = text_header(a, &s, &opt, out);
	if (r == 0)
		r = text_groups(a, &s, &opt, rows, out);
	if (r == 0)
		r = targetout_text(a, out);
	for (size_t i = 0; i < a->n; i++)
		text_row_release(&rows[i]);
	if (r < 0)
		return r;
	return ferror(out) ? -EIO : 0;
}
