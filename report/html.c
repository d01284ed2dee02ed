/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit.h"
#include "compliance.h"
#include "engine.h"
#include "hash.h"
#include "host.h"
#include "html.h"
#include "htmldetail.h"
#include "targetout.h"
#include "util.h"
#include "waiver.h"
#include "common.h"

/* The page's only style and script; the CSP allows exactly these by hash. */
static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em auto;"
	"max-width:78em;padding:0 1em;color:#1b1b1b;background:#fff}"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}"
	"code,.path{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.95em;"
	"overflow-wrap:anywhere}"
	"table{border-collapse:collapse;margin:.6em 0}"
	"th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}"
	"thead th{background:#f3f3f3}"
	"html[data-sortable] #files-table thead th{cursor:pointer;user-select:none}"
	"th[aria-sort=ascending]::after{content:' \\25B2'}"
	"th[aria-sort=descending]::after{content:' \\25BC'}"
	"td.n{text-align:right}"
	".v{font-weight:600}.v-migrate{color:#2e7d32}.v-drop{color:#00838f}"
	".v-review{color:#6a1b9a}.v-keep{color:#9a6700}.v-done{color:#455a64}"
	".r-root{color:#c62828;font-weight:600}.r-dangerous{color:#e65100}"
	".incomplete{background:#fdecea;border:1px solid #c62828;padding:.4em .6em}"
	".disguise{color:#c62828;font-weight:600}"
	"details{border:1px solid #ddd;border-radius:4px;margin:.5em 0;padding:.3em .7em}"
	"summary{cursor:pointer}"
	"dl{display:grid;grid-template-columns:max-content auto;gap:.15em 1em}"
	"dt{font-weight:600}dd{margin:0}"
	"svg text{font-family:system-ui,sans-serif;font-size:12px}"
	".overview{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}"
	".overview table{margin:0}";

static const char script[] =
	"(function(){"
	"var t=document.getElementById('files-table');if(!t||!t.tHead)return;"
	"document.documentElement.setAttribute('data-sortable','1');"
	"var hs=t.tHead.rows[0].cells;"
	"function key(td){var v=td.getAttribute('data-sort');"
	"return v===null?td.textContent.toLowerCase():parseFloat(v);}"
	"function sort(i){var th=hs[i],asc=th.getAttribute('aria-sort')!=='ascending';"
	"for(var j=0;j<hs.length;j++)hs[j].removeAttribute('aria-sort');"
	"th.setAttribute('aria-sort',asc?'ascending':'descending');"
	"var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);"
	"rows.sort(function(x,y){var a=key(x.cells[i]),c=key(y.cells[i]);"
	"var r=a<c?-1:a>c?1:0;return asc?r:-r;});"
	"rows.forEach(function(r){b.appendChild(r);});}"
	"Array.prototype.forEach.call(hs,function(th,i){th.tabIndex=0;"
	"th.title='Sort by this column';"
	"th.addEventListener('click',function(){sort(i);});"
	"th.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' ')"
	"{e.preventDefault();sort(i);}});});"
	"})();";

int html_escape(FILE *out, const char *s)
{
	_cleanup_free_ char *clean = utf8_sanitise(s ? s : "");
	const unsigned char *end;

	if (!clean)
		return -ENOMEM;
	end = (const unsigned char *)clean + strlen(clean);
	for (const unsigned char *p = (const unsigned char *)clean; *p; p++) {
		uint32_t cp;
		size_t n;

		if (*p >= 0xc0) {
			/* Bidi and other format controls would reorder or hide what is shown. */
			n = utf8_decode((const char *)p, (size_t)(end - p), &cp);
			if (n > 1 && unicode_is_format_control(cp)) {
				(void)fprintf(out, "\\u{%04" PRIx32 "}", cp);
				p += n - 1;
				continue;
			}
		}
		switch (*p) {
		case '&': (void)fputs("&amp;", out); break;
		case '<': (void)fputs("&lt;", out); break;
		case '>': (void)fputs("&gt;", out); break;
		case '"': (void)fputs("&quot;", out); break;
		case '\'': (void)fputs("&#39;", out); break;
		case '\\': (void)fputs("\\\\", out); break;
		case '\n': (void)fputs("\\n", out); break;
		case '\t': (void)fputs("\\t", out); break;
		case '\r': (void)fputs("\\r", out); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				(void)fprintf(out, "\\x%02x", *p);
			} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
				/* C1 controls are not allowed as characters in HTML either. */
				(void)fprintf(out, "\\u%04x", p[1]);
				p++;
			} else {
				(void)fputc(*p, out);
			}
		}
	}
	return 0;
}

int html_csp_hash(const char *s, char *buf, size_t size)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char hex[HASH_HEX_LEN];
	_cleanup_free_ char *raw = NULL;
	size_t len, o = 0;
	int r;

	r = hash_mem_sha256(s, strlen(s), hex);
	if (r < 0)
		return r;
	r = hex_decode(hex, &raw, &len);
	if (r < 0)
		return r;
	o = (size_t)snprintf(buf, size, "'sha256-");
	for (size_t i = 0; i < len && o + 5 < size; i += 3) {
		unsigned v = (unsigned char)raw[i] << 16;
		v |= i + 1 < len ? (unsigned char)raw[i + 1] << 8 : 0;
		v |= i + 2 < len ? (unsigned char)raw[i + 2] : 0;
		buf[o++] = b64[(v >> 18) & 63];
		buf[o++] = b64[(v >> 12) & 63];
		buf[o++] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
		buf[o++] = i + 2 < len ? b64[v & 63] : '=';
	}
	if (o + 2 > size)
		return -ENOBUFS;
	buf[o++] = '\'';
	buf[o] = '\0';
	return 0;
}

const char *html_state_class(enum audit_state st)
{
	return st == AUDIT_STATE_DONE ? "done" : audit_state_name(st);
}

/* "Bounding set: all but <code>cap_sys_resource</code>; from …<br>" */
static int html_bounding(const struct host *h, FILE *out)
{
	_cleanup_free_ char *b = audit_bounding_text(h);
	int r;

	if (!b)
		return -ENOMEM;
	(void)fputs("Bounding set: ", out);
	r = html_escape(out, b);
	if (r == 0 && h->bounding_what && !s2c_streq(b, "full")) {
		(void)fputs("; from ", out);
		r = html_escape(out, h->bounding_what);
	}
	(void)fputs(".<br>\n", out);
	return r;
}

static int head(const struct audit *a, FILE *out)
{
	char hs[64], hj[64];
	int r;

	r = html_csp_hash(style, hs, sizeof(hs));
	if (r == 0)
		r = html_csp_hash(script, hj, sizeof(hj));
	if (r < 0)
		return r;
	(void)fprintf(out,
		      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		      "style-src %s; script-src %s; img-src 'none'; font-src 'none'; "
		      "connect-src 'none'; base-uri 'none'; form-action 'none'\">\n"
		      "<meta name=\"referrer\" content=\"no-referrer\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<meta name=\"generator\" content=\"suid2cap %s\">\n<title>suid2cap audit of ",
		      hs, hj, S2C_VERSION);
	if (a->targets) {
		(void)fprintf(out, "%zu %s", a->n_targets, targetout_noun(a, a->n_targets));
		r = 0;
	} else {
		r = html_escape(out, a->root);
	}
	(void)fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	return r;
}

/* "Audited TIME, host name H, machine M, label L, on A, shard S.<br>" of @id. */
static int identity(const struct audit_identity *id, FILE *out)
{
	int r = 0;

	(void)fprintf(out, "Audited %s", id->time);
	if (id->hostname) {
		(void)fputs(", host name <code>", out);
		r = html_escape(out, id->hostname);
		(void)fputs("</code>", out);
	}
	if (id->machine_id)
		(void)fprintf(out, ", machine <code>%.12s</code>", id->machine_id);
	if (r == 0 && id->label) {
		(void)fputs(", label <code>", out);
		r = html_escape(out, id->label);
		(void)fputs("</code>", out);
	}
	if (r == 0 && id->auditor) {
		(void)fputs(", on <code>", out);
		r = html_escape(out, id->auditor);
		(void)fputs("</code>", out);
	}
	if (r == 0 && id->shard) {
		(void)fputs(", shard ", out);
		r = html_escape(out, id->shard);
	}
	(void)fputs(".<br>\n", out);
	return r;
}

static int header(const struct audit *a, const struct audit_summary *s, FILE *out)
{
	const struct host *h = a->host;
	int r;

	(void)fputs("<header>\n<h1>suid2cap audit of <code>", out);
	if (a->targets) {
		(void)fprintf(out, "%zu %s", a->n_targets, targetout_noun(a, a->n_targets));
		r = 0;
	} else {
		r = html_escape(out, a->root);
	}
	(void)fputs("</code></h1>\n<p>", out);
	for (size_t i = 0; r == 0 && !a->targets && a->paths && a->paths[i]; i++) {
		(void)fputs(i ? ", <code>" : "Paths: <code>", out);
		r = html_escape(out, a->paths[i]);
		(void)fputs(a->paths[i + 1] ? "</code>" : "</code>.<br>\n", out);
	}
	if (r == 0 && h) {
		(void)fprintf(out, "Target: %s, kernel <code>", a->targets ?
			      targetout_noun(a, a->n_targets) : h->live ? "this host" : "an image");
		r = html_escape(out, h->kernel_release);
		(void)fputs("</code>", out);
		if (r == 0 && h->os_pretty) {
			(void)fputs(", ", out);
			r = html_escape(out, h->os_pretty);
		}
		if (r == 0 && a->ping_group_range) {
			(void)fputs(", <code>net.ipv4.ping_group_range</code> = <code>", out);
			r = html_escape(out, a->ping_group_range);
			(void)fputs("</code>", out);
		}
		(void)fputs(".<br>\n", out);
		if (r == 0)
			r = html_bounding(h, out);
	}
	if (r == 0 && a->identity && a->identity->time)
		r = identity(a->identity, out);
	(void)fprintf(out, "Rules: %zu rules, database <code>%.12s</code>.</p>\n", a->db->n,
		      a->db->hash);
	if (!a->complete && a->targets) {
		_cleanup_free_ char *why = targetout_incomplete(a);
		if (!why)
			return -ENOMEM;
		(void)fprintf(out, "<p class=\"incomplete\"><strong>Incomplete:</strong> %s; see the "
			      "list below.</p>\n", why);
	} else if (!a->complete)
		(void)fprintf(out, "<p class=\"incomplete\"><strong>Incomplete scan:</strong> %" PRIu64
			      " part%s of the tree could not be read; files there are missing from "
			      "this report.</p>\n", a->scan_warnings, a->scan_warnings == 1 ? "" : "s");
	(void)fprintf(out, "</header>\n<section id=\"summary\">\n<h2>Summary</h2>\n<p>%zu privileged "
		      "file%s. Setuid in disguise: <strong>%zu</strong>. The migration would "
		      "change <strong>%zu</strong>. Findings: <strong>%zu</strong> error%s, "
		      "<strong>%zu</strong> warning%s, %zu note%s.</p>\n", s->files,
		      s->files == 1 ? "" : "s", s->disguise, s->changes, s->levels[AUDIT_LEVEL_ERROR],
		      s->levels[AUDIT_LEVEL_ERROR] == 1 ? "" : "s", s->levels[AUDIT_LEVEL_WARNING],
		      s->levels[AUDIT_LEVEL_WARNING] == 1 ? "" : "s", s->levels[AUDIT_LEVEL_NOTE],
		      s->levels[AUDIT_LEVEL_NOTE] == 1 ? "" : "s");
	return r;
}

/* One horizontal bar of the chart. */
static void bar(FILE *out, unsigned y, const char *label, size_t n, size_t max, const char *fill)
{
	unsigned w = max ? (unsigned)((n * 400 + max / 2) / max) : 0;

	(void)fprintf(out, "<text x=\"150\" y=\"%u\" text-anchor=\"end\">%s</text>\n", y + 13, label);
	(void)fprintf(out, "<rect x=\"158\" y=\"%u\" width=\"%u\" height=\"16\" fill=\"%s\">"
		      "<title>%s: %zu</title></rect>\n", y, w ? w : 1, fill, label, n);
	(void)fprintf(out, "<text x=\"%u\" y=\"%u\">%zu</text>\n", 164 + w, y + 13, n);
}

static void chart(const struct audit_summary *s, FILE *out)
{
	static const char *const vfill[_AUDIT_STATE_MAX] = {
		[AUDIT_STATE_MIGRATE] = "#2e7d32", [AUDIT_STATE_DROP] = "#00838f",
		[AUDIT_STATE_KEEP] = "#c79100", [AUDIT_STATE_REVIEW] = "#6a1b9a",
		[AUDIT_STATE_DONE] = "#90a4ae",
	};
	static const char *const rfill[_RISK_MAX] = {
		[RISK_ROOT] = "#c62828", [RISK_DANGEROUS] = "#ef6c00",
		[RISK_LOW] = "#9e9d24", [RISK_NONE] = "#78909c",
	};
	size_t max = 1;
	unsigned y = 0;

	for (int i = 0; i < _AUDIT_STATE_MAX; i++)
		max = S2C_MAX(max, s->states[i]);
	for (int i = 0; i < _RISK_MAX; i++)
		max = S2C_MAX(max, S2C_MAX(s->risk_now[i], s->risk_after[i]));
	(void)fputs("<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" "
		    "height=\"356\" viewBox=\"0 0 640 356\" role=\"img\" "
		    "aria-labelledby=\"chart-title\">\n<title id=\"chart-title\">Files by verdict, "
		    "by risk today and by risk after the verdict</title>\n", out);
	(void)fprintf(out, "<text x=\"0\" y=\"%u\" font-weight=\"bold\">Verdict</text>\n", y + 14);
	y += 22;
	for (size_t i = 0; i < _AUDIT_STATE_MAX; i++, y += 20)
		bar(out, y, audit_state_name(audit_state_order[i]), s->states[audit_state_order[i]],
		    max, vfill[audit_state_order[i]]);
	for (int g = 0; g < 2; g++) {
		const size_t *v = g ? s->risk_after : s->risk_now;
		y += 8;
		(void)fprintf(out, "<text x=\"0\" y=\"%u\" font-weight=\"bold\">%s</text>\n", y + 14,
			      g ? "Risk after the verdict" : "Risk today");
		y += 22;
		for (int k = RISK_ROOT; k >= RISK_NONE; k--, y += 20)
			bar(out, y, risk_name((enum risk)k), v[k], max, rfill[k]);
	}
	(void)fputs("</svg>\n", out);
}

/* A control's id linked to the source it was checked against. */
static int html_link(FILE *out, const char *text, const char *url)
{
	int r;

	(void)fputs("<a href=\"", out);
	r = html_escape(out, url);
	(void)fputs("\" rel=\"noopener noreferrer\">", out);
	if (r == 0)
		r = html_escape(out, text);
	(void)fputs("</a>", out);
	return r;
}

/* The controls the findings concern, one a row, linked to where each was checked. */
static const struct compliance_cells html_compliance = {
	.head = "<section id=\"compliance\">\n<h2>Compliance</h2>\n<p>The controls of the "
		"benchmarks auditors ask about, the findings that concern each, linked to the "
		"source each was checked against.</p>\n<table>\n<thead><tr><th>benchmark</th>"
		"<th>version</th><th>control</th><th>title</th><th>findings</th></tr></thead>\n"
		"<tbody>\n",
	.foot = "</tbody>\n</table>\n</section>\n",
	.row_start = "<tr><td>", .sep = "</td><td>", .findings = "</td><td>",
	.finding = { "<code>", "</code> " }, .row_end = "</td></tr>\n",
	.text = html_escape, .link = html_link,
};

static void counts(const struct audit_summary *s, FILE *out)
{
	(void)fputs("<table class=\"counts\">\n<thead><tr><th>verdict</th><th>files</th></tr>"
		    "</thead>\n<tbody>\n", out);
	for (size_t i = 0; i < _AUDIT_STATE_MAX; i++)
		(void)fprintf(out, "<tr><td class=\"v v-%s\">%s</td><td class=\"n\">%zu</td></tr>\n",
			      html_state_class(audit_state_order[i]), audit_state_name(audit_state_order[i]),
			      s->states[audit_state_order[i]]);
	(void)fputs("</tbody>\n</table>\n<table class=\"counts\">\n<thead><tr><th>risk</th>"
		    "<th>today</th><th>after</th></tr></thead>\n<tbody>\n", out);
	for (int k = RISK_ROOT; k >= RISK_NONE; k--)
		(void)fprintf(out, "<tr><td class=\"r-%s\">%s</td><td class=\"n\">%zu</td>"
			      "<td class=\"n\">%zu</td></tr>\n", risk_name((enum risk)k),
			      risk_name((enum risk)k), s->risk_now[k], s->risk_after[k]);
	(void)fputs("</tbody>\n</table>\n<table class=\"counts\">\n<thead><tr><th>finding</th>"
		    "<th>what</th><th>files</th></tr></thead>\n<tbody>\n", out);
	for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++) {
		const struct audit_finding_info *fi = audit_finding_info((enum audit_finding)k);
		(void)fprintf(out, "<tr><td><code>%s</code></td><td>%s</td><td class=\"n\">%zu</td>"
			      "</tr>\n", fi->id, fi->title, s->findings[k]);
	}
	(void)fputs("</tbody>\n</table>\n</div>\n</section>\n", out);
}

static int state_rank(enum audit_state st)
{
	for (size_t i = 0; i < _AUDIT_STATE_MAX; i++)
		if (audit_state_order[i] == st)
			return (int)i;
	return 0;
}

void html_finding_ids(const struct audit *a, const struct decision *d, FILE *out)
{
	unsigned m = audit_findings(a, d);
	bool first = true;

	for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
		if (m & (1u << k)) {
			enum audit_finding f = (enum audit_finding)k;
			(void)fprintf(out, "%s<code title=\"%s (%s)\">%s</code>%s", first ? "" : " ",
				      audit_finding_info(f)->title,
				      audit_level_name(audit_finding_level(a, d, f)), audit_finding_info(f)->id,
				      audit_waiver(a, d, f) ? " <em class=\"waived\">waived</em>" : "");
			first = false;
		}
}

/* "now → after", or just "now" when both are the same; escaped. */
static int change(FILE *out, const char *now, const char *after)
{
	int r = html_escape(out, now);

	if (r == 0 && !s2c_streq(now, after)) {
		(void)fputs(" → ", out);
		r = html_escape(out, after);
	}
	return r;
}

static int table_row(const struct audit *a, const struct audit_row *row, FILE *out)
{
	const struct decision *d = row->d;
	int r;

	(void)fprintf(out, "<tr><td class=\"n\" data-sort=\"%zu\">%zu</td><td class=\"path\">"
		      "<a href=\"#f%zu\">", row->number, row->number, row->number);
	r = html_escape(out, row->path);
	(void)fputs("</a></td><td>", out);
	if (r == 0)
		r = change(out, row->owner, row->owner_after ? row->owner_after : row->owner);
	(void)fprintf(out, "</td><td class=\"v v-%s\" data-sort=\"%d\">%s</td>",
		      html_state_class(audit_state(d)), state_rank(audit_state(d)),
		      audit_state_name(audit_state(d)));
	(void)fputs("<td><code>", out);
	if (r == 0)
		r = change(out, row->mode, row->mode_after);
	(void)fputs("</code></td><td><code>", out);
	if (r == 0)
		r = change(out, row->caps ? row->caps : "–", row->caps_after ? row->caps_after : "–");
	(void)fprintf(out, "</code></td><td data-sort=\"%d\"><span class=\"r-%s\">%s</span>",
		      (int)row->risk * 4 + (int)row->risk_after, risk_name(row->risk),
		      risk_name(row->risk));
	if (row->risk_after != row->risk)
		(void)fprintf(out, " → <span class=\"r-%s\">%s</span>", risk_name(row->risk_after),
			      risk_name(row->risk_after));
	(void)fputs("</td><td>", out);
	if (r == 0)
		r = html_escape(out, row->rule ? row->rule : "–");
	(void)fputs("</td><td>", out);
	html_finding_ids(a, d, out);
	(void)fputs("</td></tr>\n", out);
	return r;
}

static int table(const struct audit *a, FILE *out)
{
	_cleanup_(audit_cursor_release) struct audit_cursor c = { 0 };
	int r;

	(void)fputs("<section id=\"files\">\n<h2>Files</h2>\n<table id=\"files-table\">\n"
		    "<thead><tr><th>#</th><th>path</th><th>owner:group</th><th>verdict</th>"
		    "<th>mode</th><th>capabilities</th><th>risk</th><th>rule</th><th>findings</th>"
		    "</tr></thead>\n<tbody>\n", out);
	for (r = audit_cursor_start(a, &c); r == 0 && c.d; r = audit_cursor_next(a, &c)) {
		struct audit_row row;

		r = audit_row_fill(a, &c, &row);
		if (r == 0)
			r = table_row(a, &row, out);
		audit_row_release(&row);
		if (r < 0)
			break;
	}
	(void)fputs("</tbody>\n</table>\n</section>\n", out);
	return r;
}

/* Every waiver with what became of it. */
static int waivers(const struct audit *a, FILE *out)
{
	int r = 0;

	if (!a->waivers)
		return 0;
	(void)fputs("<section id=\"waivers\">\n<h2>Waivers</h2>\n<table>\n<thead><tr><th>finding"
		    "</th><th>path</th><th>status</th><th>findings</th><th>expires</th><th>reason"
		    "</th><th>source</th></tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < a->waivers->n && r == 0; i++) {
		const struct waiver *w = &a->waivers->v[i];
		size_t n = 0;
		enum audit_waiver_status st;

		r = audit_waiver_status(a, w, &st, &n);
		if (r < 0)
			break;
		(void)fprintf(out, "<tr><td><code>%s</code></td><td class=\"path\">",
			      audit_finding_info(w->finding)->id);
		r = html_escape(out, w->pattern);
		(void)fprintf(out, "</td><td>%s</td><td class=\"n\">%zu</td><td>%s</td><td>",
			      audit_waiver_status_name(st), n, w->expires[0] ? w->expires : "never");
		if (r == 0)
			r = html_escape(out, w->reason);
		(void)fputs("</td><td>", out);
		if (r == 0)
			r = html_escape(out, w->source);
		(void)fputs("</td></tr>\n", out);
	}
	(void)fputs("</tbody>\n</table>\n</section>\n", out);
	return r;
}

int html_audit(const struct audit *a, FILE *out)
{
	struct audit_summary s;
	int r;

	r = audit_summarise(a, &s);
	if (r == 0)
		r = head(a, out);
	if (r == 0)
		r = header(a, &s, out);
	if (r == 0 && a->waivers)
		(void)fprintf(out, "<p>Waived: <strong>%zu</strong> finding%s (not counted above); "
			      "waivers: %zu stale, %zu expired.</p>\n", s.waived,
			      s.waived == 1 ? "" : "s", s.waivers_stale, s.waivers_expired);
	if (r == 0) {
		(void)fputs("<div class=\"overview\">\n", out);
		chart(&s, out);
		counts(&s, out);
		r = compliance_table(a, &html_compliance, out);
	}
	if (r == 0) {
		r = table(a, out);
	}
	if (r == 0)
		r = htmldetail_write(a, out);
	if (r == 0)
		r = waivers(a, out);
	if (r == 0)
		r = targetout_html(a, out);
	if (r < 0)
		return r;
	(void)fprintf(out, "<footer><p>Generated by suid2cap %s.</p></footer>\n<script>%s</script>\n"
		      "</body>\n</html>\n", S2C_VERSION, script);
	return ferror(out) ? -EIO : 0;
}
