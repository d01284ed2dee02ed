/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writers of the fleet report (`report merge`): JSON
 * (docs/schema/fleet.schema.json), text, Markdown, HTML and SARIF, each from
 * the model report/fleet.c built (report/fleetmodel.h).  Every text in the
 * model comes from an untrusted report and is escaped for the format here:
 * escape_text() for text, markdown_escape() and html_escape() as the audit
 * renderers do, UTF-8-safe JSON strings.  They change nothing in the fleet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "audit.h"
#include "fleet.h"
#include "fleetmodel.h"
#include "hash.h"
#include "html.h"
#include "jsonout.h"
#include "jsonread.h"
#include "markdown.h"
#include "sarif.h"
#include "util.h"
#include "common.h"

/* --- JSON ----------------------------------------------------------------------------------- */

static int add_str(struct json_object *o, const char *key, const char *v)
{
	return jsonout_add_name(o, key, v);
}

static struct json_object *state_json(const struct fleet *f, const struct fstate *s)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *ids;

	if (!o || add_str(o, "target", f->t[s->target].name) < 0 ||
	    add_str(o, "verdict", s->verdict) < 0 || add_str(o, "state", s->state) < 0 ||
	    add_str(o, "mode", s->mode) < 0 ||
	    add_str(o, "owner", s->owner) < 0 || add_str(o, "group", s->group) < 0 ||
	    add_str(o, "caps", s->caps) < 0 || add_str(o, "caps_after", s->caps_after) < 0 ||
	    add_str(o, "risk", s->risk) < 0 || add_str(o, "package", s->package) < 0 ||
	    add_str(o, "version", s->version) < 0)
		return NULL;
	ids = json_object_new_array();
	if (jsonout_add(o, "findings", ids) < 0)
		return NULL;
	for (unsigned k = 0; k < 8; k++)
		if ((s->findings & (1u << k)) &&
		    jsonout_push(ids, json_object_new_string(audit_finding_info(k)->id)) < 0)
			return NULL;
	if (s->waived && jsonout_add(o, "waived", json_object_get(s->waived)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* How many programs differ between targets. */
static size_t drifting(const struct fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_p; i++)
		n += f->p[i].n_major != f->p[i].n;
	return n;
}

/* Schema, kind, tool and summary of the fleet document @doc. */
static int head_json(struct json_object *doc, const struct fleet *f)
{
	struct json_object *tool, *summary;

	tool = json_object_new_object();
	if (jsonout_add(doc, "schema", json_object_new_int(FLEET_SCHEMA)) < 0 ||
	    jsonout_add_string(doc, "kind", "suid2cap-fleet") < 0 ||
	    jsonout_add(doc, "tool", tool) < 0 || jsonout_add_string(tool, "name", "suid2cap") < 0 ||
	    jsonout_add_string(tool, "version", S2C_VERSION) < 0)
		return -ENOMEM;
	summary = json_object_new_object();
	if (jsonout_add(doc, "summary", summary) < 0 ||
	    jsonout_add_int(summary, "reports", (int64_t)f->n_reports) < 0 ||
	    jsonout_add_int(summary, "targets", (int64_t)f->n_t) < 0 ||
	    jsonout_add_int(summary, "unreadable", (int64_t)(f->n_t - fleet_targets_read(f))) < 0 ||
	    jsonout_add_int(summary, "incomplete", (int64_t)fleet_targets_incomplete(f)) < 0 ||
	    jsonout_add_int(summary, "reports_unread", (int64_t)f->reports_unread) < 0 ||
	    jsonout_add_int(summary, "programs", (int64_t)f->n_p) < 0 ||
	    jsonout_add_int(summary, "drifting", (int64_t)drifting(f)) < 0 ||
	    jsonout_add_bool(doc, "complete", fleet_complete(f, false)) < 0)
		return -ENOMEM;
	return 0;
}

/* The @n strings of @v as a JSON array. */
static struct json_object *strings_json(char *const *v, size_t n)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (jsonout_push(a, jsonout_string(v[i])) < 0)
			return NULL;
	return TAKE_PTR(a);
}

static struct json_object *target_json(const struct ftarget *t)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || add_str(o, "name", t->name) < 0 ||
	    add_str(o, "kind", t->kind) < 0 || add_str(o, "label", t->label) < 0 ||
	    add_str(o, "root", t->root) < 0 || add_str(o, "auditor", t->auditor) < 0 ||
	    add_str(o, "machine_id", t->machine_id) < 0 ||
	    add_str(o, "time", t->time) < 0 || add_str(o, "report", t->source) < 0 ||
	    add_str(o, "tool_version", t->tool) < 0 || add_str(o, "error", t->error) < 0 ||
	    jsonout_add_bool(o, "complete", t->complete && !t->error) < 0 ||
	    jsonout_add(o, "incomplete", strings_json(t->incomplete, t->n_incomplete)) < 0 ||
	    jsonout_add_bool(o, "incomplete_allowed", t->incomplete_allowed) < 0 ||
	    jsonout_add_int(o, "files", (int64_t)t->files) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* One program: its majority, verdicts counted, every state that drifts, versions. */
static struct json_object *program_json(const struct fleet *f, const struct fprog *p)
{
	static const char *const names[4] = { "migrate", "drop", "keep", "review" };
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	_cleanup_(strv_freep) char **vv = fprog_versions(p);
	struct json_object *verdicts, *drift, *vers;
	size_t counts[4] = { 0 };

	if (!o || !vv || add_str(o, "path", p->path) < 0 ||
	    jsonout_add_int(o, "targets", (int64_t)p->n) < 0 ||
	    jsonout_add_int(o, "agree", (int64_t)p->n_major) < 0 ||
	    jsonout_add(o, "majority", state_json(f, &p->v[p->major])) < 0)
		return NULL;
	for (size_t k = 0; k < p->n; k++)
		for (size_t j = 0; j < 4; j++)
			counts[j] += s2c_streq(p->v[k].verdict, names[j]);
	verdicts = json_object_new_object();
	drift = json_object_new_array();
	vers = json_object_new_array();
	if (jsonout_add(o, "verdicts", verdicts) < 0 || jsonout_add(o, "drift", drift) < 0 ||
	    jsonout_add(o, "versions", vers) < 0)
		return NULL;
	for (size_t j = 0; j < 4; j++)
		if (jsonout_add_int(verdicts, names[j], (int64_t)counts[j]) < 0)
			return NULL;
	for (size_t k = 0; k < p->n; k++)
		if (fprog_drifts(p, k) && jsonout_push(drift, state_json(f, &p->v[k])) < 0)
			return NULL;
	for (size_t k = 0; vv[k]; k++)
		if (jsonout_push(vers, jsonout_string(vv[k])) < 0)
			return NULL;
	return TAKE_PTR(o);
}

/* The document with every member but the programs, whose array is its last and empty. */
static struct json_object *fleet_json_head(const struct fleet *f)
{
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
	struct json_object *targets;

	if (!doc || head_json(doc, f) < 0 ||
	    jsonout_add(doc, "reports", strings_json(f->reports, f->n_reports)) < 0 ||
	    jsonout_add(doc, "notes", strings_json(f->notes, f->n_notes)) < 0 ||
	    (f->waivers && jsonout_add(doc, "waivers", json_object_get(f->waivers)) < 0))
		return NULL;
	targets = json_object_new_array();
	if (jsonout_add(doc, "targets", targets) < 0)
		return NULL;
	for (size_t i = 0; i < f->n_t; i++)
		if (jsonout_push(targets, target_json(&f->t[i])) < 0)
			return NULL;
	if (jsonout_add(doc, "programs", json_object_new_array()) < 0)
		return NULL;
	return TAKE_PTR(doc);
}

struct json_object *fleet_json(const struct fleet *f)
{
	_cleanup_jsonput_ struct json_object *doc = fleet_json_head(f);
	struct json_object *programs;

	if (!doc || !json_object_object_get_ex(doc, "programs", &programs))
		return NULL;
	for (size_t i = 0; i < f->n_p; i++)
		if (jsonout_push(programs, program_json(f, &f->p[i])) < 0)
			return NULL;
	return TAKE_PTR(doc);
}

static struct json_object *program_element(size_t i, const void *userdata)
{
	const struct fleet *f = userdata;

	return program_json(f, &f->p[i]);
}

int fleet_json_write(const struct fleet *f, FILE *out)
{
	_cleanup_jsonput_ struct json_object *doc = fleet_json_head(f);

	if (!doc)
		return -ENOMEM;
	return jsonout_write_array(doc, "programs", f->n_p, program_element, f, out);
}

/* --- the targets that differ, in text, Markdown and HTML ------------------------------------- */

/* @s made printable with escape_text(); "?" when memory ran out.  Returns 0. */
static int put_esc(FILE *out, const char *s)
{
	_cleanup_free_ char *e = escape_text(s ? s : "");
	(void)fputs(e ? e : "?", out);
	return 0;
}

/* How a format writes the list of targets that differ from a program's majority. */
struct drift_style {
	int (*escape)(FILE *out, const char *s);        /* 0 or -ENOMEM */
	const char *before, *after;                     /* around "target: state" */
	const char *more, *more_after;                  /* around how many are not shown */
};

/* The first DRIFT_SHOWN targets of @p that differ, then how many more.  0 or -ENOMEM. */
static int drift_list(FILE *out, const struct fleet *f, const struct fprog *p,
		      const struct drift_style *d)
{
	size_t shown = 0;
	int r = 0;

	for (size_t k = 0; k < p->n && r == 0; k++) {
		_cleanup_free_ char *st = NULL;
		if (!fprog_drifts(p, k))
			continue;
		if (++shown > DRIFT_SHOWN) {
			(void)fprintf(out, "%s%zu%s", d->more, p->n - p->n_major - DRIFT_SHOWN,
				      d->more_after);
			break;
		}
		st = fstate_text(&p->v[k]);
		if (!st)
			return -ENOMEM;
		(void)fputs(d->before, out);
		r = d->escape(out, f->t[p->v[k].target].name);
		(void)fputs(": ", out);
		if (r == 0)
			r = d->escape(out, st);
		(void)fputs(d->after, out);
	}
	return r;
}

/* --- text ----------------------------------------------------------------------------------- */

static const struct drift_style text_drift = {
	.escape = put_esc, .before = "      differs on ", .after = "\n",
	.more = "      … and ", .more_after = " more that differ (see the JSON report)\n",
};

/* "  web1 (host, machine 0123456789ab, <time>): 2 privileged files" */
static void text_target(FILE *out, const struct ftarget *t)
{
	char machine[32] = "";

	(void)fputs("  ", out);
	put_esc(out, t->name);
	if (t->machine_id)
		(void)snprintf(machine, sizeof(machine), "machine %.12s", t->machine_id);
	(void)fprintf(out, " (%s", t->kind);
	/* a name made unique by its machine says it already */
	if (t->machine_id && !strstr(t->name, machine))
		(void)fprintf(out, ", %s", machine);
	if (t->time) {
		(void)fputs(", ", out);
		put_esc(out, t->time);
	}
	(void)fputs("): ", out);
	if (t->error) {
		(void)fputs("could not be read: ", out);
		put_esc(out, t->error);
		(void)fputc('\n', out);
		return;
	}
	(void)fprintf(out, "%zu privileged file%s%s\n", t->files, t->files == 1 ? "" : "s",
		      t->complete ? "" : t->incomplete_allowed ? ", INCOMPLETE (allowed by its audit)"
		      : ", INCOMPLETE");
	for (size_t k = 0; !t->complete && k < t->n_incomplete; k++) {
		(void)fputs("      incomplete: ", out);
		put_esc(out, t->incomplete[k]);
		(void)fputc('\n', out);
	}
}

/* A program, its majority and versions, then at most DRIFT_SHOWN targets that differ. */
static int text_program(FILE *out, const struct fleet *f, const struct fprog *p)
{
	_cleanup_free_ char *major = fstate_text(&p->v[p->major]);
	_cleanup_(strv_freep) char **vv = fprog_versions(p);

	if (!major || !vv)
		return -ENOMEM;
	(void)fputs("  ", out);
	put_esc(out, p->path);
	(void)fprintf(out, ": %zu target%s; %zu agree: ", p->n, p->n == 1 ? "" : "s",
		      p->n_major);
	put_esc(out, major);
	(void)fputc('\n', out);
	if (vv[0]) {
		(void)fputs("      versions: ", out);
		for (size_t k = 0; vv[k]; k++) {
			(void)fputs(k ? ", " : "", out);
			put_esc(out, vv[k]);
		}
		(void)fputc('\n', out);
	}
	return drift_list(out, f, p, &text_drift);
}

int fleet_text(const struct fleet *f, bool quiet, FILE *out)
{
	size_t n_drifting = drifting(f);
	int r;

	_cleanup_free_ char *why = fleet_incomplete_text(f);

	(void)fprintf(out, "suid2cap fleet report: %zu report%s, %zu target%s (%zu could not be "
		      "read, %zu incomplete), %zu program%s, %zu differ%s between targets\n",
		      f->n_reports, f->n_reports == 1 ? "" : "s", f->n_t, f->n_t == 1 ? "" : "s",
		      f->n_t - fleet_targets_read(f), fleet_targets_incomplete(f) -
		      (f->n_t - fleet_targets_read(f)), f->n_p, f->n_p == 1 ? "" : "s", n_drifting,
		      n_drifting == 1 ? "s" : "");
	if (why) {
		(void)fputs("INCOMPLETE: ", out);
		put_esc(out, why);
		(void)fputs("; named below and on standard error\n", out);
	}
	for (size_t i = 0; i < f->n_notes; i++) {
		(void)fputs("note: ", out);
		put_esc(out, f->notes[i]);
		(void)fputc('\n', out);
	}
	if (!quiet || why)
		(void)fputs(quiet ? "\nTARGETS INCOMPLETE\n" : "\nTARGETS\n", out);
	for (size_t i = 0; i < f->n_t; i++)
		/* --quiet: only the targets a person must look at */
		if (!quiet || !f->t[i].complete || f->t[i].error)
			text_target(out, &f->t[i]);
	if (!quiet || n_drifting)
		(void)fputs(quiet ? "\nPROGRAMS THAT DIFFER\n" : "\nPROGRAMS\n", out);
	for (size_t i = 0; i < f->n_p; i++) {
		/* --quiet: only what differs between targets asks for a person */
		if (quiet && f->p[i].n_major == f->p[i].n)
			continue;
		r = text_program(out, f, &f->p[i]);
		if (r < 0)
			return r;
	}
	return ferror(out) ? -EIO : 0;
}

/* --- Markdown ------------------------------------------------------------------------------- */

static const struct drift_style markdown_drift = {
	.escape = markdown_escape, .before = "- ", .after = "\n",
	.more = "- … and ", .more_after = " more\n",
};

int fleet_markdown(const struct fleet *f, FILE *out)
{
	int r = 0;

	_cleanup_free_ char *why = fleet_incomplete_text(f);

	(void)fprintf(out, "# suid2cap fleet report\n\n%zu reports, %zu targets (%zu could not be "
		      "read), %zu programs.\n", f->n_reports, f->n_t, f->n_t - fleet_targets_read(f),
		      f->n_p);
	if (why) {
		(void)fputs("\n**Incomplete**: ", out);
		r = markdown_escape(out, why);
		(void)fputs(".\n", out);
	}
	for (size_t i = 0; i < f->n_notes && r == 0; i++) {
		(void)fputs(i ? "\n- " : "\n- ", out);
		r = markdown_escape(out, f->notes[i]);
		(void)fputs(i + 1 == f->n_notes ? "\n" : "", out);
	}
	(void)fputs("\n## Targets\n\n| target | kind | machine | time | files | complete | error |\n"
		    "|---|---|---|---|---:|---|---|\n", out);
	for (size_t i = 0; i < f->n_t && r == 0; i++) {
		const struct ftarget *t = &f->t[i];
		(void)fputs("| ", out);
		r = markdown_escape(out, t->name);
		(void)fprintf(out, " | %s | %s%.12s%s | ", t->kind, t->machine_id ? "`" : "",
			      t->machine_id ? t->machine_id : "–", t->machine_id ? "`" : "");
		if (r == 0)
			r = markdown_escape(out, t->time ? t->time : "–");
		(void)fprintf(out, " | %zu | %s", t->files, t->complete && !t->error ? "yes" :
			      t->incomplete_allowed && !t->error ? "**no** (allowed by its audit): " :
			      "**no**: ");
		for (size_t k = 0; r == 0 && !(t->complete && !t->error) && k < t->n_incomplete; k++) {
			(void)fputs(k ? "; " : "", out);
			r = markdown_escape(out, t->incomplete[k]);
		}
		(void)fputs(" | ", out);
		if (r == 0)
			r = markdown_escape(out, t->error ? t->error : "");
		(void)fputs(" |\n", out);
	}
	(void)fputs("\n## Programs\n\n| program | targets | agree | majority | versions |\n"
		    "|---|---:|---:|---|---|\n", out);
	for (size_t i = 0; i < f->n_p && r == 0; i++) {
		const struct fprog *p = &f->p[i];
		_cleanup_free_ char *major = fstate_text(&p->v[p->major]);
		char **vv = fprog_versions(p);
		if (!major || !vv) {
			strv_free(vv);
			return -ENOMEM;
		}
		(void)fputs("| ", out);
		r = markdown_escape(out, p->path);
		(void)fprintf(out, " | %zu | %zu | ", p->n, p->n_major);
		if (r == 0)
			r = markdown_escape(out, major);
		(void)fputs(" | ", out);
		for (size_t k = 0; vv[k] && r == 0; k++) {
			(void)fputs(k ? ", " : "", out);
			r = markdown_escape(out, vv[k]);
		}
		(void)fputs(" |\n", out);
		strv_free(vv);
	}
	if (fleet_drift(f))
		(void)fputs("\n## Drift between targets\n", out);
	for (size_t i = 0; i < f->n_p && r == 0; i++) {
		const struct fprog *p = &f->p[i];
		if (p->n_major == p->n)
			continue;
		(void)fputs("\n### ", out);
		r = markdown_escape(out, p->path);
		(void)fputs("\n\n", out);
		if (r == 0)
			r = drift_list(out, f, p, &markdown_drift);
	}
	return r < 0 ? r : ferror(out) ? -EIO : 0;
}

/* --- HTML ----------------------------------------------------------------------------------- */

static const char fleet_style[] =
	"body{font-family:sans-serif;margin:2em;max-width:80em}"
	"table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;"
	"text-align:left;vertical-align:top}.drift{color:#a00}code{font-size:.95em}";

static const struct drift_style html_drift = {
	.escape = html_escape, .before = "", .after = "<br>", .more = "… and ", .more_after = " more",
};

/* The page's head, its first line of counts, and what is incomplete or noted; @hs the
 * CSP hash of the style. */
static int html_intro(const struct fleet *f, const char *hs, FILE *out)
{
	_cleanup_free_ char *why = fleet_incomplete_text(f);
	int r = 0;

	(void)fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		      "style-src %s; img-src 'none'; script-src 'none'; base-uri 'none'; "
		      "form-action 'none'\">\n<meta name=\"referrer\" content=\"no-referrer\">\n"
		      "<meta name=\"generator\" content=\"suid2cap %s\">\n<title>suid2cap fleet report"
		      "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>suid2cap fleet report</h1>\n"
		      "<p>%zu reports, %zu targets (%zu could not be read), %zu programs.</p>\n",
		      hs, S2C_VERSION, fleet_style, f->n_reports, f->n_t, f->n_t - fleet_targets_read(f),
		      f->n_p);
	if (why) {
		(void)fputs("<p class=\"drift\"><strong>Incomplete:</strong> ", out);
		r = html_escape(out, why);
		(void)fputs(".</p>\n", out);
	}
	for (size_t i = 0; i < f->n_notes && r == 0; i++) {
		(void)fputs("<p>note: ", out);
		r = html_escape(out, f->notes[i]);
		(void)fputs("</p>\n", out);
	}
	return r;
}

/* One row of the targets' table. */
static int html_target(const struct ftarget *t, FILE *out)
{
	int r;

	(void)fputs("<tr><td>", out);
	r = html_escape(out, t->name);
	(void)fprintf(out, "</td><td>%s</td><td><code>%.12s</code></td><td>", t->kind,
		      t->machine_id ? t->machine_id : "");
	if (r == 0)
		r = html_escape(out, t->time ? t->time : "");
	(void)fprintf(out, "</td><td>%zu</td><td>%s", t->files, t->complete && !t->error ?
		      "yes" : t->incomplete_allowed && !t->error ?
		      "<strong>no</strong> (allowed by its audit): " : "<strong>no</strong>: ");
	for (size_t k = 0; r == 0 && !(t->complete && !t->error) && k < t->n_incomplete; k++) {
		(void)fputs(k ? "<br>" : "", out);
		r = html_escape(out, t->incomplete[k]);
	}
	(void)fputs("</td><td>", out);
	if (r == 0)
		r = html_escape(out, t->error ? t->error : "");
	(void)fputs("</td></tr>\n", out);
	return r;
}

/* One row of the programs' table; @ret_oom set when nothing could be written for lack of
 * memory. */
static int html_program(const struct fleet *f, const struct fprog *p, FILE *out, bool *ret_oom)
{
	_cleanup_free_ char *major = fstate_text(&p->v[p->major]);
	char **vv = fprog_versions(p);
	int r;

	if (!major || !vv) {
		strv_free(vv);
		*ret_oom = true;
		return -ENOMEM;
	}
	(void)fputs("<tr><td><code>", out);
	r = html_escape(out, p->path);
	(void)fprintf(out, "</code></td><td>%zu</td><td>%zu</td><td>", p->n, p->n_major);
	if (r == 0)
		r = html_escape(out, major);
	(void)fputs("</td><td>", out);
	for (size_t k = 0; vv[k] && r == 0; k++) {
		(void)fputs(k ? ", " : "", out);
		r = html_escape(out, vv[k]);
	}
	strv_free(vv);
	(void)fputs("</td><td class=\"drift\">", out);
	if (r == 0)
		r = drift_list(out, f, p, &html_drift);
	(void)fputs("</td></tr>\n", out);
	return r;
}

int fleet_html(const struct fleet *f, FILE *out)
{
	char hs[64];
	bool oom = false;
	int r = html_csp_hash(fleet_style, hs, sizeof(hs));

	if (r < 0)
		return r;
	r = html_intro(f, hs, out);
	(void)fputs("<h2>Targets</h2>\n<table>\n<thead><tr><th>target</th><th>kind</th><th>machine"
		    "</th><th>time</th><th>files</th><th>complete</th><th>error</th></tr></thead>\n"
		    "<tbody>\n", out);
	for (size_t i = 0; i < f->n_t && r == 0; i++)
		r = html_target(&f->t[i], out);
	(void)fputs("</tbody>\n</table>\n<h2>Programs</h2>\n<table>\n<thead><tr><th>program</th>"
		    "<th>targets</th><th>agree</th><th>majority</th><th>versions</th>"
		    "<th>differs on</th></tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < f->n_p && r == 0; i++)
		r = html_program(f, &f->p[i], out, &oom);
	if (oom)
		return r;
	(void)fprintf(out, "</tbody>\n</table>\n<footer><p>Generated by suid2cap %s.</p></footer>\n"
		      "</body>\n</html>\n", S2C_VERSION);
	return r < 0 ? r : ferror(out) ? -EIO : 0;
}

/* --- SARIF ---------------------------------------------------------------------------------- */

static struct json_object *text_obj(const char *s)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	_cleanup_free_ char *clean = utf8_sanitise(s);

	if (!o || !clean || jsonout_add_string(o, "text", clean) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *rule_json(const char *id, const char *name, const char *title,
				     const char *level)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *cfg;

	cfg = json_object_new_object();
	if (!o || jsonout_add_string(o, "id", id) < 0 || jsonout_add_string(o, "name", name) < 0 ||
	    jsonout_add(o, "shortDescription", text_obj(title)) < 0 ||
	    jsonout_add(o, "defaultConfiguration", cfg) < 0 ||
	    jsonout_add_string(cfg, "level", level) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *result(const char *id, int index, const char *level, const char *msg,
				  const char *path)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	_cleanup_free_ char *key = strdup_printf("fleet:%s:%s", id, path);
	const char *rel = path;
	_cleanup_free_ char *uri = NULL;
	struct json_object *locs, *loc, *phys, *art, *fp;
	char digest[HASH_HEX_LEN];

	while (*rel == '/')
		rel++;
	uri = sarif_uri_encode(rel);
	if (!o || !key || !uri || hash_mem_sha256(key, strlen(key), digest) < 0)
		return NULL;
	locs = json_object_new_array();
	loc = json_object_new_object();
	if (jsonout_add_string(o, "ruleId", id) < 0 || jsonout_add_int(o, "ruleIndex", index) < 0 ||
	    jsonout_add_string(o, "level", level) < 0 || jsonout_add(o, "message", text_obj(msg)) < 0 ||
	    jsonout_add(o, "locations", locs) < 0 || jsonout_push(locs, loc) < 0)
		return NULL;
	phys = json_object_new_object();
	art = json_object_new_object();
	fp = json_object_new_object();
	if (jsonout_add(loc, "physicalLocation", phys) < 0 ||
	    jsonout_add(phys, "artifactLocation", art) < 0 || jsonout_add_string(art, "uri", uri) < 0 ||
	    jsonout_add_string(art, "uriBaseId", "ROOT") < 0 ||
	    jsonout_add(o, "partialFingerprints", fp) < 0 ||
	    jsonout_add_string(fp, "suid2cap/v1", digest) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/*
 * How many of the targets in @p's majority waive finding @id, and the reason
 * the first of them gives (@ret_reason, borrowed from its report).
 */
static size_t majority_waived(const struct fprog *p, const char *id, const char **ret_reason)
{
	size_t n = 0;

	*ret_reason = NULL;
	for (size_t j = 0; j < p->n; j++) {
		struct json_object *w = fprog_drifts(p, j) ? NULL :
					jget(p->v[j].waived, id, json_type_object);

		if (!w)
			continue;
		n++;
		if (!*ret_reason)
			*ret_reason = jget_str(w, "reason");
	}
	return n;
}

/*
 * The result of finding @k of @p's majority state @major: suppressed (SARIF
 * 2.1.0 §3.35) when every target of the majority waives it, with the reason
 * of the first; a partial waiver is said in the message.
 */
static struct json_object *finding_result(const struct fprog *p, unsigned k, const char *major)
{
	const struct audit_finding_info *fi = audit_finding_info(k);
	const char *reason;
	size_t waived = majority_waived(p, fi->id, &reason);
	_cleanup_free_ char *msg = NULL;
	_cleanup_jsonput_ struct json_object *o = NULL;
	struct json_object *sup, *s;

	if (waived == 0 || waived == p->n_major)
		msg = strdup_printf("%s on %zu of %zu targets: %s%s", fi->title, p->n_major, p->n,
				    major, waived ? " (waived on each of them)" : "");
	else
		msg = strdup_printf("%s on %zu of %zu targets: %s (waived on %zu of them)", fi->title,
				    p->n_major, p->n, major, waived);
	if (!msg || !(o = result(fi->id, (int)k, audit_level_name(fi->level), msg, p->path)))
		return NULL;
	if (waived == 0 || waived != p->n_major)
		return TAKE_PTR(o);
	sup = json_object_new_array();
	s = json_object_new_object();
	if (jsonout_add(o, "suppressions", sup) < 0 || jsonout_push(sup, s) < 0 ||
	    jsonout_add_string(s, "kind", "external") < 0 ||
	    jsonout_add_string(s, "status", "accepted") < 0 ||
	    jsonout_add_string(s, "justification", reason ? reason : "waived") < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* The run: successful when every report was read and every target's audit was complete. */
static struct json_object *invocations_json(const struct fleet *f)
{
	_cleanup_jsonput_ struct json_object *arr = json_object_new_array();
	_cleanup_free_ char *why = fleet_incomplete_text(f), *msg = NULL;
	struct json_object *inv = json_object_new_object(), *notes, *n;

	if (!arr || jsonout_push(arr, inv) < 0 ||
	    jsonout_add_bool(inv, "executionSuccessful", !why) < 0)
		return NULL;
	if (!why)
		return TAKE_PTR(arr);
	msg = strdup_printf("incomplete: %s", why);
	notes = json_object_new_array();
	n = json_object_new_object();
	if (!msg || jsonout_add(inv, "toolExecutionNotifications", notes) < 0 ||
	    jsonout_push(notes, n) < 0 || jsonout_add_string(n, "level", "warning") < 0 ||
	    jsonout_add(n, "message", text_obj(msg)) < 0)
		return NULL;
	return TAKE_PTR(arr);
}

/* One result of the fleet's SARIF: a finding of a program's majority, or its drift. */
struct sarif_item {
	size_t prog;
	unsigned k;             /* the finding, or _AUDIT_FINDING_MAX: drift */
};

struct sarif_items {
	struct sarif_item *v;
	size_t n, alloc;
};

static void sarif_items_freep(struct sarif_items *items)
{
	free(items->v);
}

static int sarif_item_add(struct sarif_items *items, size_t prog, unsigned k)
{
	if (items->n == items->alloc) {
		size_t alloc = items->alloc ? 2 * items->alloc : 256;
		struct sarif_item *v = reallocarray(items->v, alloc, sizeof(*v));
		if (!v)
			return -ENOMEM;
		items->v = v;
		items->alloc = alloc;
	}
	items->v[items->n++] = (struct sarif_item){ prog, k };
	return 0;
}

/* The results, in order: for each program its majority's findings, then its drift. */
static int sarif_items(const struct fleet *f, struct sarif_items *items)
{
	for (size_t i = 0; i < f->n_p; i++) {
		const struct fprog *p = &f->p[i];
		for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
			if ((p->v[p->major].findings & (1u << k)) && sarif_item_add(items, i, k) < 0)
				return -ENOMEM;
		if (p->n_major != p->n && sarif_item_add(items, i, _AUDIT_FINDING_MAX) < 0)
			return -ENOMEM;
	}
	return 0;
}

struct sarif_results {
	const struct fleet *f;
	const struct sarif_items *items;
};

static struct json_object *sarif_element(size_t i, const void *userdata)
{
	const struct sarif_results *sr = userdata;
	const struct sarif_item *it = &sr->items->v[i];
	const struct fprog *p = &sr->f->p[it->prog];
	_cleanup_free_ char *major = fstate_text(&p->v[p->major]), *msg = NULL;
	size_t first = 0;

	if (!major)
		return NULL;
	if (it->k < _AUDIT_FINDING_MAX)
		return finding_result(p, it->k, major);
	while (first < p->n && !fprog_drifts(p, first))
		first++;
	msg = strdup_printf("%zu of %zu targets differ from the majority (%s), for instance %s",
			    p->n - p->n_major, p->n, major, sr->f->t[p->v[first].target].name);
	return msg ? result(FLEET_DRIFT_ID, _AUDIT_FINDING_MAX, "warning", msg, p->path) : NULL;
}

int fleet_sarif(const struct fleet *f, FILE *out)
{
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
	_cleanup_(sarif_items_freep) struct sarif_items items = { 0 };
	struct json_object *runs, *run, *tool, *driver, *rules, *results, *base, *root;
	int r;

	runs = json_object_new_array();
	run = json_object_new_object();
	if (!doc || jsonout_add_string(doc, "$schema", SARIF_SCHEMA_URI) < 0 ||
	    jsonout_add_string(doc, "version", "2.1.0") < 0 || jsonout_add(doc, "runs", runs) < 0 ||
	    jsonout_push(runs, run) < 0)
		return -ENOMEM;
	tool = json_object_new_object();
	driver = json_object_new_object();
	rules = json_object_new_array();
	if (jsonout_add(run, "tool", tool) < 0 || jsonout_add(tool, "driver", driver) < 0 ||
	    jsonout_add_string(driver, "name", "suid2cap") < 0 ||
	    jsonout_add_string(driver, "version", S2C_VERSION) < 0 ||
	    jsonout_add(driver, "rules", rules) < 0)
		return -ENOMEM;
	for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++) {
		const struct audit_finding_info *fi = audit_finding_info(k);
		if (jsonout_push(rules, rule_json(fi->id, fi->name, fi->title,
						  audit_level_name(fi->level))) < 0)
			return -ENOMEM;
	}
	if (jsonout_push(rules, rule_json(FLEET_DRIFT_ID, "DriftBetweenTargets",
					  "A privileged program differs between targets",
					  "warning")) < 0)
		return -ENOMEM;
	if (jsonout_add(run, "invocations", invocations_json(f)) < 0)
		return -ENOMEM;
	base = json_object_new_object();
	root = json_object_new_object();
	results = json_object_new_array();
	if (jsonout_add(run, "originalUriBaseIds", base) < 0 || jsonout_add(base, "ROOT", root) < 0 ||
	    jsonout_add_string(root, "uri", "file:///") < 0 || jsonout_add(run, "results", results) < 0)
		return -ENOMEM;
	r = sarif_items(f, &items);
	if (r < 0)
		return r;
	return jsonout_write_stream(doc, results, items.n, sarif_element,
				    &(struct sarif_results){ f, &items }, out);
}
