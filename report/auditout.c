/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "auditout.h"
#include "decisionout.h"
#include "engine.h"
#include "facts.h"
#include "host.h"
#include "jsonout.h"
#include "targetout.h"
#include "util.h"
#include "common.h"

/* --- the model ------------------------------------------------------------------------------ */

/* Ids are stable: never renumber, never reuse; append new kinds at the end. */
static const struct audit_finding_info findings[_AUDIT_FINDING_MAX] = {
	[AUDIT_MIGRATE] = {
		"S2C001", "SetuidCanMigrate",
		"Privileged program that can move to minimal file capabilities",
		"The program is set-ID (or carries capabilities) and a rule or strong ELF evidence "
		"says which file capabilities let it work without the set-ID bit: migrating shrinks "
		"what an exploit of it gains.",
		"7.0", AUDIT_LEVEL_WARNING },
	[AUDIT_DROP] = {
		"S2C002", "PrivilegeCanBeDropped",
		"Privilege that is not needed or never honoured",
		"The program needs no privilege on this system (for example ping when "
		"net.ipv4.ping_group_range admits every group), or the privilege is inert (a script, "
		"a nosuid mount, no execute bit): the set-ID bit or capabilities can simply be "
		"removed.",
		"6.0", AUDIT_LEVEL_WARNING },
	[AUDIT_KEEP] = {
		"S2C003", "MustStaySetuid",
		"Privileged program that must stay as it is",
		"The program switches users or needs a root-equivalent set (su, passwd, mount…), so "
		"file capabilities would only be setuid in disguise or would break it; it is listed "
		"for the inventory, with the reason.",
		"2.0", AUDIT_LEVEL_NOTE },
	[AUDIT_REVIEW] = {
		"S2C004", "NeedsReview",
		"Privileged program that needs a person's review",
		"No rule describes the program and its ELF imports are not conclusive, or several "
		"rules match: the proposed capabilities, if any, come with a confidence, and a "
		"person decides.",
		"5.0", AUDIT_LEVEL_WARNING },
	[AUDIT_DISGUISE] = {
		"S2C005", "SetuidInDisguise",
		"Root-equivalent file capabilities (setuid in disguise)",
		"The capability set the file keeps or would get contains a root-equivalent "
		"capability (cap_sys_admin, cap_setuid, cap_dac_override, …): removing the set-ID bit "
		"for it is not a win, and such capabilities already present grant root to whoever "
		"exploits the program.",
		"8.0", AUDIT_LEVEL_ERROR },
	[AUDIT_DANGEROUS_CAPS] = {
		"S2C006", "DangerousFileCapabilities",
		"File capabilities graded dangerous or root",
		"The file carries effective file capabilities today, and at least one of them is "
		"graded dangerous (a short way from root: cap_net_raw, cap_net_admin, cap_kill…) or "
		"root-equivalent.",
		"6.5", AUDIT_LEVEL_WARNING },
	[AUDIT_BREAKS] = {
		"S2C007", "LikelyToBreak",
		"Proposed change likely to break the program",
		"A change is proposed, but the binary contains strings or imports showing it insists "
		"on running as root (for example a getuid() == 0 check): test it before migrating.",
		"4.0", AUDIT_LEVEL_WARNING },
	[AUDIT_WRITABLE] = {
		"S2C008", "WritablePrivilegedFile",
		"Privileged file writable by group or others",
		"Anyone allowed to write the file can replace the program and inherit its set-ID bit "
		"or capabilities.",
		"9.0", AUDIT_LEVEL_ERROR },
};

const struct audit_finding_info *auditout_finding_info(enum audit_finding f)
{
	return &findings[f];
}

const char *auditout_level_name(enum audit_level l)
{
	static const char *const names[] = { "note", "warning", "error" };

	return l >= 0 && l < _AUDIT_LEVEL_MAX ? names[l] : "note";
}

const char *auditout_breaker(const struct decision *d)
{
	/* The engine words breaker evidence this way (rules/engine.c, breakers_from_elf). */
	static const char prefix[] = "likely to break without setuid root";

	for (size_t i = 0; i < d->n_warnings; i++)
		if (strncmp(d->warnings[i], prefix, sizeof(prefix) - 1) == 0)
			return d->warnings[i];
	return NULL;
}

static enum risk caps_risk(const struct audit *a, const struct fcaps *c)
{
	return captable_risk(&a->db->caps, c->permitted | c->inheritable);
}

/* The capability set the file keeps or would get is root-equivalent and effective. */
static bool disguised(const struct audit *a, const struct decision *d)
{
	if (d->disguise)
		return true;
	return (d->verdict == VERDICT_KEEP || d->verdict == VERDICT_REVIEW) && d->has_caps &&
	       d->risk == RISK_ROOT && caps_risk(a, &d->caps) == RISK_ROOT;
}

static bool dangerous_caps(const struct audit *a, const struct decision *d)
{
	const struct facts *f = d->facts;

	return f->has_caps && !f->caps_error && d->risk_now >= RISK_DANGEROUS &&
	       caps_risk(a, &f->caps) >= RISK_DANGEROUS;
}

unsigned auditout_findings(const struct audit *a, const struct decision *d)
{
	static const enum audit_finding by_verdict[_VERDICT_MAX] = {
		[VERDICT_MIGRATE] = AUDIT_MIGRATE,
		[VERDICT_DROP] = AUDIT_DROP,
		[VERDICT_KEEP] = AUDIT_KEEP,
		[VERDICT_REVIEW] = AUDIT_REVIEW,
	};
	const struct facts *f = d->facts;
	unsigned m = 1u << by_verdict[d->verdict];

	if (disguised(a, d))
		m |= 1u << AUDIT_DISGUISE;
	if (dangerous_caps(a, d))
		m |= 1u << AUDIT_DANGEROUS_CAPS;
	if ((d->verdict == VERDICT_MIGRATE || d->verdict == VERDICT_DROP) && d->changes &&
	    auditout_breaker(d))
		m |= 1u << AUDIT_BREAKS;
	if ((f->flags & FACT_WRITABLE) && d->risk_now > RISK_NONE)
		m |= 1u << AUDIT_WRITABLE;
	return m;
}

static enum audit_level level_of_risk(enum risk r)
{
	return r == RISK_ROOT ? AUDIT_LEVEL_ERROR :
	       r == RISK_DANGEROUS ? AUDIT_LEVEL_WARNING : AUDIT_LEVEL_NOTE;
}

enum audit_level auditout_level(const struct audit *a, const struct decision *d,
			     enum audit_finding f)
{
	switch (f) {
	case AUDIT_MIGRATE:
	case AUDIT_DROP:
	case AUDIT_REVIEW:
		return level_of_risk(d->risk_now);
	case AUDIT_DANGEROUS_CAPS:
		return level_of_risk(caps_risk(a, &d->facts->caps));
	case AUDIT_KEEP:
	case AUDIT_BREAKS:
	case AUDIT_DISGUISE:
	case AUDIT_WRITABLE:
	default:
		return findings[f].level;
	}
}

void auditout_summarise(const struct audit *a, struct audit_summary *ret)
{
	struct audit_summary s = { .files = a->n };

	for (size_t i = 0; i < a->n; i++) {
		const struct decision *d = a->v[i];
		unsigned m = auditout_findings(a, d);

		s.verdicts[d->verdict]++;
		s.risk_now[d->risk_now]++;
		s.risk_after[d->risk]++;
		s.changes += d->changes;
		for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
			s.findings[k] += !!(m & (1u << k));
	}
	s.disguise = s.findings[AUDIT_DISGUISE];
	*ret = s;
}

/* --- text ----------------------------------------------------------------------------------- */

/* Order of the verdict tables: what to act on first. */
static const enum verdict text_order[] = { VERDICT_MIGRATE, VERDICT_DROP, VERDICT_REVIEW,
					   VERDICT_KEEP };

#define C_BOLD "\033[1m"
#define C_RESET "\033[0m"

static const char *verdict_color(enum verdict v)
{
	switch (v) {
	case VERDICT_MIGRATE: return "\033[1;32m";
	case VERDICT_DROP: return "\033[1;36m";
	case VERDICT_KEEP: return "\033[1;33m";
	default: return "\033[1;35m";
	}
}

static const char *risk_color(enum risk r)
{
	return r == RISK_ROOT ? "\033[31m" : r == RISK_DANGEROUS ? "\033[33m" : "";
}

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

S2C_PRINTF(1, 2) static char *fmt(const char *format, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, format);
	n = vasprintf(&s, format, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

static char *id_name(const char *name, uint32_t id)
{
	return name ? escape_text(name) : fmt("%" PRIu32, id);
}

static int owner_cell(const struct decision *d, char **ret)
{
	const struct facts *f = d->facts;
	_cleanup_free_ char *o = id_name(f->owner, f->uid), *g = id_name(f->group, f->gid);
	_cleanup_free_ char *oa = NULL, *ga = NULL;
	char *s;

	if (!o || !g)
		return -ENOMEM;
	if (d->uid == f->uid && d->gid == f->gid) {
		s = fmt("%s:%s", o, g);
	} else {
		oa = d->uid == f->uid ? strdup(o) : id_name(NULL, d->uid);
		ga = d->gid == f->gid ? strdup(g) : id_name(NULL, d->gid);
		s = oa && ga ? fmt("%s:%s -> %s:%s", o, g, oa, ga) : NULL;
	}
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

const char *auditout_caps_now(const struct decision *d)
{
	const struct facts *f = d->facts;

	if (!f->has_caps)
		return NULL;
	return f->caps_error ? "(malformed)" : f->caps_text;
}

/* "now -> after", or just "now" when nothing changes. */
static char *change(const char *now, const char *after)
{
	return s2c_streq(now, after) ? strdup(now) : fmt("%s -> %s", now, after);
}

static int text_row_fill(struct text_row *row, const struct decision *d)
{
	const struct facts *f = d->facts;
	const char *now = auditout_caps_now(d);
	char m1[5], m2[5];
	int r;

	facts_mode_octal(f->mode, m1);
	facts_mode_octal(d->mode, m2);
	row->path = escape_text(f->path);
	r = owner_cell(d, &row->owner);
	if (r < 0 || !row->path)
		return -ENOMEM;
	row->mode = change(m1, m2);
	row->caps = change(now ? now : "-", d->has_caps ? d->caps_text : "-");
	row->risk = change(risk_name(d->risk_now), risk_name(d->risk));
	row->rule = strdup(d->rule ? d->rule->id : d->n_ambiguous ? "(ambiguous)" : "-");
	return row->mode && row->caps && row->risk && row->rule ? 0 : -ENOMEM;
}

struct text_widths {
	size_t path, owner, mode, risk, rule;
};

/* Widest path column; longer paths take a line of their own. */
#define PATH_COLUMN_MAX 36

static void text_header(const struct audit *a, const struct audit_summary *s,
			const struct auditout_text_options *o, FILE *out)
{
	const struct host *h = a->host;
	const struct audit_identity *id = a->identity;
	_cleanup_free_ char *root = escape_text(a->root);
	_cleanup_free_ char *os = h && h->os_pretty ? escape_text(h->os_pretty) : NULL;
	_cleanup_free_ char *host = id && id->hostname ? escape_text(id->hostname) : NULL;
	_cleanup_free_ char *auditor = id && id->auditor ? escape_text(id->auditor) : NULL;
	_cleanup_free_ char *machine = id && id->machine_id ?
		fmt(" (machine %.12s)", id->machine_id) : NULL;

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
			      machine ? machine : "", h->kernel_release, os ? ", " : "", os ? os : "");
	if (id && id->time)
		(void)fprintf(out, "audited: %s%s%s%s%s, suid2cap %s\n", id->time,
			      auditor ? " on " : "", auditor ? auditor : "",
			      id->shard ? ", shard " : "", id->shard ? id->shard : "", S2C_VERSION);
	(void)fprintf(out, "rules: %zu rules, database %.12s\n", a->db->n, a->db->hash);
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
		     const struct text_widths *w, const struct auditout_text_options *o, FILE *out)
{
	const char *rc = o->color ? risk_color(d->risk) : "";
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

static int text_notes(const struct audit *a, size_t idx, const struct auditout_text_options *o,
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
		_cleanup_free_ char *lead = fmt("%s: ", lines[i].label);
		if (!text || !lead) {
			targetout_lines_free(lines, n_lines);
			return -ENOMEM;
		}
		wrap(out, "", lead, text, 6, o->width);
	}
	targetout_lines_free(lines, n_lines);
	wrap(out, "", "", reason, 6, o->width);
	/* A migration to a root-equivalent set already carries the engine's warning. */
	if (disguised(a, d) && !d->disguise)
		wrap(out, o->color ? "\033[1;31m" : "", "setuid in disguise: ",
		     "its capabilities are root-equivalent", 6, o->width);
	for (size_t i = 0; i < d->n_warnings; i++) {
		_cleanup_free_ char *w = escape_text(d->warnings[i]);
		if (!w)
			return -ENOMEM;
		wrap(out, o->color ? "\033[33m" : "", "warning: ", w, 6, o->width);
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
		       const struct auditout_text_options *o, struct text_row *rows, FILE *out)
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
		(void)fprintf(out, "\n%s%s%s: %zu file%s", o->color ? verdict_color(v) : "", upper,
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

int auditout_text(const struct audit *a, const struct auditout_text_options *o, FILE *out)
{
	_cleanup_free_ struct text_row *rows = calloc(a->n ? a->n : 1, sizeof(*rows));
	struct auditout_text_options opt = *o;
	struct audit_summary s;
	int r = 0;

	if (!rows)
		return -ENOMEM;
	opt.width = S2C_MAX(opt.width, 40u);
	auditout_summarise(a, &s);
	for (size_t i = 0; i < a->n && r == 0; i++)
		r = text_row_fill(&rows[i], a->v[i]);
	if (r == 0) {
		text_header(a, &s, &opt, out);
		r = text_groups(a, &s, &opt, rows, out);
	}
	if (r == 0)
		r = targetout_text(a, out);
	for (size_t i = 0; i < a->n; i++)
		text_row_release(&rows[i]);
	if (r < 0)
		return r;
	return ferror(out) ? -EIO : 0;
}

/* --- JSON ----------------------------------------------------------------------------------- */





struct json_object *auditout_host_json(const struct audit *a)
{
	const struct host *h = a->host;
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	char ver[64];

	if (!o)
		return NULL;
	(void)snprintf(ver, sizeof(ver), "%u.%u.%u", h->kernel[0], h->kernel[1], h->kernel[2]);
	if (jsonout_add_bool(o, "live", h->live) < 0 ||
	    jsonout_add_name(o, "kernel", h->kernel_release) < 0 ||
	    jsonout_add_string(o, "kernel_version", ver) < 0 ||
	    jsonout_add_name(o, "os_id", h->os_id) < 0 ||
	    jsonout_add_name(o, "os", h->os_pretty) < 0 ||
	    jsonout_add_name(o, "ping_group_range", a->ping_group_range) < 0 ||
	    jsonout_add_bool(o, "package_database", h->pkg_db) < 0)
		return NULL;
	return TAKE_PTR(o);
}

struct json_object *auditout_paths_json(const struct audit *a)
{
	_cleanup_jsonput_ struct json_object *arr = json_object_new_array();

	if (!arr)
		return NULL;
	if (!a->paths)
		return jsonout_push(arr, json_object_new_string("/")) < 0 ? NULL : TAKE_PTR(arr);
	for (size_t i = 0; a->paths[i]; i++)
		if (jsonout_push(arr, jsonout_string(a->paths[i])) < 0)
			return NULL;
	return TAKE_PTR(arr);
}

struct json_object *auditout_database_json(const struct rules_db *db)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *files;

	if (!o || jsonout_add_string(o, "hash", db->hash) < 0 ||
	    jsonout_add_int(o, "rules", (int64_t)db->n) < 0)
		return NULL;
	files = json_object_new_array();
	if (jsonout_add(o, "files", files) < 0)
		return NULL;
	/* Base names only: the directories differ between installs and machines. */
	for (size_t i = 0; i < db->n_files; i++) {
		const char *slash = strrchr(db->files[i], '/');
		if (jsonout_push(files, jsonout_string(slash ? slash + 1 : db->files[i])) < 0)
			return NULL;
	}
	return TAKE_PTR(o);
}

static struct json_object *counts_json(const size_t *v, size_t n, const char *(*name)(int))
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (jsonout_add_int(o, name((int)i), (int64_t)v[i]) < 0)
			return NULL;
	return TAKE_PTR(o);
}

static const char *verdict_name_i(int v)
{
	return verdict_name((enum verdict)v);
}

static const char *risk_name_i(int r)
{
	return risk_name((enum risk)r);
}

static const char *finding_id_i(int f)
{
	return findings[f].id;
}

static struct json_object *summary_json(const struct audit_summary *s)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || jsonout_add_int(o, "files", (int64_t)s->files) < 0 ||
	    jsonout_add(o, "verdicts", counts_json(s->verdicts, _VERDICT_MAX, verdict_name_i)) < 0 ||
	    jsonout_add(o, "risk_now", counts_json(s->risk_now, _RISK_MAX, risk_name_i)) < 0 ||
	    jsonout_add(o, "risk", counts_json(s->risk_after, _RISK_MAX, risk_name_i)) < 0 ||
	    jsonout_add_int(o, "setuid_in_disguise", (int64_t)s->disguise) < 0 ||
	    jsonout_add_int(o, "changes", (int64_t)s->changes) < 0 ||
	    jsonout_add(o, "findings", counts_json(s->findings, _AUDIT_FINDING_MAX, finding_id_i)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *kinds_json(void)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < _AUDIT_FINDING_MAX; i++) {
		struct json_object *o = json_object_new_object();

		if (jsonout_push(a, o) < 0 || jsonout_add_string(o, "id", findings[i].id) < 0 ||
		    jsonout_add_string(o, "name", findings[i].name) < 0 ||
		    jsonout_add_string(o, "title", findings[i].title) < 0 ||
		    jsonout_add_string(o, "level", auditout_level_name(findings[i].level)) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}

static struct json_object *file_json(const struct audit *a, const struct decision *d)
{
	_cleanup_jsonput_ struct json_object *o = decisionout_json(d);
	struct json_object *ids;
	unsigned m = auditout_findings(a, d);

	if (!o)
		return NULL;
	ids = json_object_new_array();
	if (jsonout_add(o, "findings", ids) < 0)
		return NULL;
	for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
		if ((m & (1u << k)) && jsonout_push(ids, json_object_new_string(findings[k].id)) < 0)
			return NULL;
	return TAKE_PTR(o);
}

struct json_object *auditout_json_object(const struct audit *a)
{
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
	struct json_object *tool, *scan, *files;
	struct audit_summary s;

	if (!doc)
		return NULL;
	auditout_summarise(a, &s);
	tool = json_object_new_object();
	if (jsonout_add(doc, "schema", json_object_new_int(AUDITOUT_SCHEMA)) < 0 ||
	    jsonout_add_string(doc, "kind", "suid2cap-audit") < 0 || jsonout_add(doc, "tool", tool) < 0 ||
	    jsonout_add_string(tool, "name", "suid2cap") < 0 ||
	    jsonout_add_string(tool, "version", S2C_VERSION) < 0 ||
	    jsonout_add_string(doc, "root", a->root) < 0 ||
	    jsonout_add(doc, "paths", auditout_paths_json(a)) < 0 ||
	    jsonout_add(doc, "target", targetout_json_identity(a)) < 0 ||
	    jsonout_add(doc, "host", auditout_host_json(a)) < 0 ||
	    jsonout_add(doc, "database", auditout_database_json(a->db)) < 0 ||
	    jsonout_add_bool(doc, "complete", a->complete) < 0)
		return NULL;
	scan = json_object_new_object();
	if (jsonout_add(doc, "scan", scan) < 0 ||
	    jsonout_add_int(scan, "directories", (int64_t)a->directories) < 0 ||
	    jsonout_add_int(scan, "entries", (int64_t)a->entries) < 0 ||
	    jsonout_add_int(scan, "warnings", (int64_t)a->scan_warnings) < 0 ||
	    jsonout_add(doc, "summary", summary_json(&s)) < 0 || jsonout_add(doc, "findings", kinds_json()) < 0)
		return NULL;
	if (a->targets && jsonout_add(doc, "targets", targetout_json_targets(a)) < 0)
		return NULL;
	files = json_object_new_array();
	if (jsonout_add(doc, "files", files) < 0)
		return NULL;
	for (size_t i = 0; i < a->n; i++) {
		struct json_object *f = file_json(a, a->v[i]);
		if (jsonout_push(files, f) < 0 ||
		    (a->targets && jsonout_add(f, "origin", targetout_json_origin(a, i)) < 0))
			return NULL;
	}
	return TAKE_PTR(doc);
}

int auditout_json(const struct audit *a, FILE *out)
{
	_cleanup_jsonput_ struct json_object *doc = auditout_json_object(a);

	return doc ? jsonout_write(doc, out) : -ENOMEM;
}
