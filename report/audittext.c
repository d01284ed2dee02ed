/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "audithead.h"
#include "audittext.h"
#include "engine.h"
#include "db.h"
#include "decisionout.h"
#include "facts.h"
#include "fcaps.h"
#include "host.h"
#include "learnout.h"
#include "targetout.h"
#include "textwrap.h"
#include "util.h"
#include "waiver.h"
#include "common.h"

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

/* The cells of the file at @c, made when they are measured or written and released at
 * once: a table of many files costs the memory of one row. */
static int text_row_fill(const struct audit *a, const struct audit_cursor *c, struct text_row *row)
{
	struct audit_row ar;
	int r = audit_row_fill(a, c, &ar);

	*row = (struct text_row){ 0 };
	if (r < 0)
		return r;
	row->path = escape_text(ar.path);
	row->owner = change(ar.owner, ar.owner_after ? ar.owner_after : ar.owner, "-");
	row->mode = change(ar.mode, ar.mode_after, "-");
	row->caps = change(ar.caps, ar.caps_after, "-");
	row->risk = change(risk_name(ar.risk), risk_name(ar.risk_after), "-");
	row->rule = escape_text(ar.rule ? ar.rule : "-");
	audit_row_release(&ar);
	if (row->path && row->owner && row->mode && row->caps && row->risk && row->rule)
		return 0;
	text_row_release(row);
	return -ENOMEM;
}

/* The columns after PATH, in the order they are shown. */
enum text_col { COL_OWNER, COL_MODE, COL_RISK, COL_RULE, COL_CAPS, _COL_MAX };

static const char *const col_title[_COL_MAX] = {
	[COL_OWNER] = "OWNER:GROUP", [COL_MODE] = "MODE", [COL_RISK] = "RISK", [COL_RULE] = "RULE",
	[COL_CAPS] = "CAPABILITIES",
};

static const char *cell(const struct text_row *r, enum text_col c)
{
	switch (c) {
	case COL_OWNER: return r->owner;
	case COL_MODE: return r->mode;
	case COL_RISK: return r->risk;
	case COL_RULE: return r->rule;
	default: return r->caps;
	}
}

/* Widest path column; longer paths take a line of their own. */
#define PATH_COLUMN_MAX ((size_t)36)
/* How far the path column narrows before the capabilities leave the table. */
#define PATH_COLUMN_NARROW ((size_t)24)

/*
 * How the file tables are laid out: the same for every verdict's table, so their
 * columns line up.
 */
struct text_layout {
	bool path_w[PATH_COLUMN_MAX + 1]; /* the path widths of at most PATH_COLUMN_MAX that
					     some row has, for narrow_path() */
	size_t path;                /* width of the path column */
	size_t w[_COL_MAX];         /* width of each column */
	bool shown[_COL_MAX];       /* in the table, else on a line of its own under each row */
	unsigned wrap;              /* where reasons and notes are wrapped */
};

/* The widest path of at most @max columns, and at least "PATH". */
static size_t path_width(const struct text_layout *l, size_t max)
{
	for (size_t w = S2C_MIN(max, PATH_COLUMN_MAX); w > 4; w--)
		if (l->path_w[w])
			return w;
	return 4;
}

static size_t row_width(const struct text_layout *l)
{
	size_t w = 2 + l->path;

	for (size_t c = 0; c < _COL_MAX; c++)
		if (l->shown[c])
			w += 2 + l->w[c];
	return w;
}

/* The path column as wide as the room the others leave, within [@floor, PATH_COLUMN_MAX]. */
static void narrow_path(struct text_layout *l, unsigned width, size_t floor)
{
	size_t rest = row_width(l) - l->path;
	size_t room = width > rest ? width - rest : 0;

	l->path = path_width(l, S2C_MIN(S2C_MAX(room, floor), PATH_COLUMN_MAX));
}

/*
 * Fit the table in @width (0: no limit): first the rule leaves the table, then
 * owner:group, then the path column narrows, then the capabilities go, and last
 * the path column narrows to what is left.  Mode and risk always stay.
 */
static int text_layout(const struct audit *a, unsigned width, struct text_layout *l)
{
	_cleanup_(audit_cursor_release) struct audit_cursor cur = { 0 };
	int r;

	*l = (struct text_layout){ .wrap = width ? width : AUDITTEXT_WRAP };
	for (size_t c = 0; c < _COL_MAX; c++) {
		l->shown[c] = true;
		l->w[c] = textwrap_width(col_title[c]);
	}
	for (r = audit_cursor_start(a, &cur); r == 0 && cur.d; r = audit_cursor_next(a, &cur)) {
		struct text_row row;
		size_t pw;

		r = text_row_fill(a, &cur, &row);
		if (r < 0)
			return r;
		pw = textwrap_width(row.path);
		if (pw <= PATH_COLUMN_MAX)
			l->path_w[pw] = true;
		for (size_t c = 0; c < _COL_MAX; c++)
			l->w[c] = S2C_MAX(l->w[c], textwrap_width(cell(&row, (enum text_col)c)));
		text_row_release(&row);
	}
	if (r < 0)
		return r;
	l->path = path_width(l, PATH_COLUMN_MAX);
	for (unsigned step = 0; width && row_width(l) > width && step < 5; step++) {
		switch (step) {
		case 0: l->shown[COL_RULE] = false; break;
		case 1: l->shown[COL_OWNER] = false; break;
		case 2: narrow_path(l, width, PATH_COLUMN_NARROW); break;
		case 3:
			l->shown[COL_CAPS] = false;
			narrow_path(l, width, PATH_COLUMN_NARROW);
			break;
		default: narrow_path(l, width, (size_t)4); break;
		}
	}
	return 0;
}

static void text_row(const struct decision *d, const struct text_row *r,
		     const struct text_layout *l, const struct audittext_options *o, FILE *out)
{
	/* The cells that left the table, most important first. */
	static const enum text_col below[] = { COL_CAPS, COL_OWNER, COL_RULE };
	static const char *const label[] = { "capabilities: ", "owner: ", "rule: " };
	const char *rc = o->color ? audit_risk_color(d->risk) : "";
	size_t pw = textwrap_width(r->path), last = 0;

	for (size_t c = 0; c < _COL_MAX; c++)
		if (l->shown[c])
			last = c;
	(void)fputs("  ", out);
	(void)fputs(r->path, out);
	if (pw > l->path) {
		/* A long path gets its own line; the columns follow on the next. */
		(void)fputc('\n', out);
		textwrap_pad(out, 0, 2 + l->path);
	} else {
		textwrap_pad(out, pw, l->path);
	}
	for (size_t c = 0; c < _COL_MAX; c++) {
		const char *s = cell(r, (enum text_col)c);
		bool risk = c == COL_RISK;

		if (!l->shown[c])
			continue;
		(void)fprintf(out, "  %s%s%s", risk ? rc : "", s, risk && *rc ? TEXTWRAP_RESET : "");
		if (c != last)
			textwrap_pad(out, textwrap_width(s), l->w[c]);
	}
	(void)fputc('\n', out);
	for (size_t i = 0; i < S2C_ELEMENTSOF(below); i++)
		if (!l->shown[below[i]] && !s2c_streq(cell(r, below[i]), "-"))
			textwrap_wrap(out, "", label[i], cell(r, below[i]), 6, l->wrap);
}

/* audit_waiver_text(), escaped. */
static char *waiver_text(const struct waiver *w)
{
	_cleanup_free_ char *raw = audit_waiver_text(w);

	return raw ? escape_text(raw) : NULL;
}

struct waived_out {
	FILE *out;
	unsigned width;
	bool color;
};

/* One waived finding of the file, for audit_waived_each(). */
static int text_waived_item(void *userdata, const char *label, const char *raw)
{
	const struct waived_out *w = userdata;
	_cleanup_free_ char *text = escape_text(raw);
	char lead[32];

	if (!text)
		return -ENOMEM;
	(void)snprintf(lead, sizeof(lead), "%s: ", label);
	textwrap_wrap(w->out, w->color ? "\033[2m" : "", lead, text, 6, w->width);
	return 0;
}

/* The file's waived findings, and those whose waiver expired. */
static int text_waived(const struct audit *a, const struct decision *d, unsigned width,
		       const struct audittext_options *o, FILE *out)
{
	struct waived_out w = { .out = out, .width = width, .color = o->color };

	return audit_waived_each(a, d, text_waived_item, &w);
}

/* Waivers that waive nothing: stale ones and expired ones. */
static int text_waivers(const struct audit *a, const struct audit_summary *s,
			const struct audittext_options *o, FILE *out)
{
	unsigned width = o->width ? o->width : AUDITTEXT_WRAP;

	if (!a->waivers || (!s->waivers_stale && !s->waivers_expired))
		return 0;
	(void)fputs("\nWaivers that waive nothing\n", out);
	for (size_t i = 0; i < a->waivers->n; i++) {
		const struct waiver *w = &a->waivers->v[i];
		enum audit_waiver_status st;
		_cleanup_free_ char *text = NULL;
		char lead[64];
		int r = audit_waiver_status(a, w, &st, NULL);

		if (r < 0)
			return r;
		if (st == AUDIT_WAIVER_USED)
			continue;
		text = waiver_text(w);
		if (!text)
			return -ENOMEM;
		(void)snprintf(lead, sizeof(lead), "%s %s: ", audit_waiver_status_name(st),
			       st == AUDIT_WAIVER_STALE ? "(no such finding)" : "(past its date)");
		textwrap_wrap(out, o->color ? "\033[33m" : "", lead, text, 2, width);
		{
			_cleanup_free_ char *pat = escape_text(w->pattern);
			if (!pat)
				return -ENOMEM;
			textwrap_wrap(out, "", "path: ", pat, 6, width);
		}
	}
	return 0;
}

static int text_notes(const struct audit *a, const struct audit_cursor *c, unsigned width,
		      const struct audittext_options *o, FILE *out)
{
	const struct decision *d = c->d;
	_cleanup_free_ char *reason = escape_text(d->reason ? d->reason : "");
	struct targetout_line *lines = NULL;
	size_t n_lines = 0;
	int r;

	if (!reason || targetout_lines(a, c->origin, &lines, &n_lines) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n_lines; i++) {
		_cleanup_free_ char *text = escape_text(lines[i].text);
		char lead[32];
		if (!text) {
			targetout_lines_free(lines, n_lines);
			return -ENOMEM;
		}
		(void)snprintf(lead, sizeof(lead), "%s: ", lines[i].label);
		textwrap_wrap(out, "", lead, text, 6, width);
	}
	targetout_lines_free(lines, n_lines);
	if (d->override) {
		_cleanup_free_ char *raw = decisionout_override_text(d);
		_cleanup_free_ char *text = raw ? escape_text(raw) : NULL;
		if (!text)
			return -ENOMEM;
		textwrap_wrap(out, o->color ? "\033[1m" : "", "override: ", text, 6, width);
	}
	textwrap_wrap(out, "", "", reason, 6, width);
	r = text_waived(a, d, width, o, out);
	if (r < 0)
		return r;
	/* A migration to a root-equivalent set already carries the engine's warning. */
	if ((audit_findings(a, d) & (1u << AUDIT_DISGUISE)) && !d->disguise)
		textwrap_wrap(out, o->color ? "\033[1;31m" : "", "setuid in disguise: ",
		     "its capabilities are root-equivalent", 6, width);
	for (size_t i = 0; i < d->n_warnings; i++) {
		_cleanup_free_ char *w = escape_text(d->warnings[i]);
		if (!w)
			return -ENOMEM;
		textwrap_wrap(out, o->color ? "\033[33m" : "", "warning: ", w, 6, width);
	}
	if (c->learned) {
		_cleanup_free_ char *seen = learnout_audit_line(c->learned);
		if (!seen)
			return -ENOMEM;
		textwrap_wrap(out, o->color ? "\033[36m" : "", "observed: ", seen, 6, width);
	}
	return 0;
}

static void text_table_header(const struct text_layout *l, FILE *out)
{
	size_t last = 0;

	for (size_t c = 0; c < _COL_MAX; c++)
		if (l->shown[c])
			last = c;
	(void)fprintf(out, "  %-*s", (int)l->path, "PATH");
	for (size_t c = 0; c < _COL_MAX; c++) {
		if (!l->shown[c])
			continue;
		if (c == last)
			(void)fprintf(out, "  %s", col_title[c]);
		else
			(void)fprintf(out, "  %-*s", (int)l->w[c], col_title[c]);
	}
	(void)fputc('\n', out);
}

/* The rows of the files in state @st. */
static int text_group(const struct audit *a, enum audit_state st, const struct audittext_options *o,
		      const struct text_layout *l, FILE *out)
{
	_cleanup_(audit_cursor_release) struct audit_cursor c = { 0 };
	int r;

	for (r = audit_cursor_start(a, &c); r == 0 && c.d; r = audit_cursor_next(a, &c)) {
		struct text_row row;

		if (audit_state(c.d) != st)
			continue;
		r = text_row_fill(a, &c, &row);
		if (r < 0)
			return r;
		text_row(c.d, &row, l, o, out);
		text_row_release(&row);
		r = text_notes(a, &c, l->wrap, o, out);
		if (r < 0)
			return r;
	}
	return r;
}

static int text_groups(const struct audit *a, const struct audit_summary *s,
		       const struct audittext_options *o, const struct text_layout *lp, FILE *out)
{
	const struct text_layout l = *lp;
	int r;

	for (size_t g = 0; g < _AUDIT_STATE_MAX; g++) {
		enum audit_state st = audit_state_order[g];
		size_t n = s->states[st];
		_cleanup_free_ char *upper = strdup(audit_state_name(st)), *title = NULL;

		if (n == 0)
			continue;
		if (!upper)
			return -ENOMEM;
		for (char *c = upper; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
		title = strdup_printf("%zu file%s, %s", n, n == 1 ? "" : "s", audit_state_title(st));
		if (!title)
			return -ENOMEM;
		/* "MIGRATE:" and the title, wrapped below the title's first word */
		(void)fprintf(out, "\n%s%s%s:", o->color ? audit_state_color(st) : "", upper,
			      o->color ? TEXTWRAP_RESET : "");
		textwrap_words_from(out, title, strlen(upper) + 1, strlen(upper) + 2, l.wrap);
		text_table_header(&l, out);
		r = text_group(a, st, o, &l, out);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The findings that ask for a person: everything but the verdicts migrate, drop and keep. */
#define PROBLEMS (((1u << _AUDIT_FINDING_MAX) - 1) & \
		  ~((1u << AUDIT_MIGRATE) | (1u << AUDIT_DROP) | (1u << AUDIT_KEEP)))

/* audit --quiet: the summary line, INCOMPLETE, and each file's problems. */
static int text_quiet(const struct audit *a, const struct audit_summary *s,
		      const struct audittext_options *o, FILE *out)
{
	_cleanup_(audit_cursor_release) struct audit_cursor c = { 0 };
	_cleanup_free_ char *root = escape_text(a->root);
	int r;

	if (!root)
		return -ENOMEM;
	if (a->targets)
		(void)fprintf(out, "suid2cap audit of %zu %s", a->n_targets,
			      targetout_noun(a, a->n_targets));
	else
		(void)fprintf(out, "suid2cap audit of %s", root);
	for (size_t i = 0; !a->targets && a->paths && a->paths[i]; i++) {
		_cleanup_free_ char *p = escape_text(a->paths[i]);
		(void)fprintf(out, "%s%s", i ? ", " : ", paths ", p ? p : "?");
	}
	(void)fprintf(out, ": %zu privileged file%s: %zu migrate, %zu drop, %zu review, %zu keep, "
		      "%zu nothing to change; %zu would change; %zu setuid in disguise", s->files,
		      s->files == 1 ? "" : "s", s->states[AUDIT_STATE_MIGRATE],
		      s->states[AUDIT_STATE_DROP], s->states[AUDIT_STATE_REVIEW],
		      s->states[AUDIT_STATE_KEEP], s->states[AUDIT_STATE_DONE], s->changes,
		      s->disguise);
	if (a->waivers)
		(void)fprintf(out, "; %zu waived; waivers: %zu stale, %zu expired", s->waived,
			      s->waivers_stale, s->waivers_expired);
	(void)fputc('\n', out);
	if (!a->complete && a->targets) {
		_cleanup_free_ char *why = targetout_incomplete(a);
		if (!why)
			return -ENOMEM;
		(void)fprintf(out, "INCOMPLETE: %s; see the warnings on standard error\n", why);
	} else if (!a->complete) {
		(void)fprintf(out, "INCOMPLETE: %" PRIu64 " part%s could not be read (see the "
			      "warnings on standard error)\n", a->scan_warnings,
			      a->scan_warnings == 1 ? "" : "s");
	}
	for (r = audit_cursor_start(a, &c); r == 0 && c.d; r = audit_cursor_next(a, &c)) {
		const struct decision *d = c.d;
		/* A waived finding has had its person. */
		unsigned f = audit_findings(a, d) & PROBLEMS & ~audit_waived(a, d);
		_cleanup_free_ char *path = f ? escape_text(d->facts->path) : NULL;

		if (!f)
			continue;
		if (!path)
			return -ENOMEM;
		(void)fprintf(out, "%s\n", path);
		for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++) {
			const struct audit_finding_info *fi = audit_finding_info((enum audit_finding)k);
			enum audit_level lv;

			if (!(f & (1u << k)))
				continue;
			lv = audit_finding_level(a, d, (enum audit_finding)k);
			(void)fprintf(out, "    %s%s%s %s\n",
				      !o->color ? "" : lv == AUDIT_LEVEL_ERROR ? "\033[1;31m" :
				      lv == AUDIT_LEVEL_WARNING ? "\033[33m" : "",
				      fi->id, o->color && lv != AUDIT_LEVEL_NOTE ? TEXTWRAP_RESET : "",
				      fi->title);
		}
	}
	return r;
}

int audittext_write(const struct audit *a, const struct audittext_options *o, FILE *out)
{
	struct audittext_options opt = *o;
	struct text_layout l = { 0 };
	struct audit_summary s;
	int r = 0;

	if (opt.width)
		opt.width = S2C_MAX(opt.width, AUDITTEXT_MIN_WIDTH);
	r = audit_summarise(a, &s);
	if (r < 0)
		return r;
	if (opt.quiet) {
		r = text_quiet(a, &s, &opt, out);
		return r < 0 ? r : ferror(out) ? -EIO : 0;
	}
	r = text_layout(a, opt.width, &l);
	if (r == 0)
		r = audithead_write(a, &s, &opt, out);
	if (r == 0)
		r = text_groups(a, &s, &opt, &l, out);
	if (r == 0)
		r = text_waivers(a, &s, &opt, out);
	if (r == 0)
		r = targetout_text(a, out);
	if (r < 0)
		return r;
	return ferror(out) ? -EIO : 0;
}
