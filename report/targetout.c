/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "audit.h"
#include "host.h"
#include "html.h"
#include "jsonout.h"
#include "markdown.h"
#include "targetout.h"
#include "util.h"
#include "common.h"

const struct audit_target *targetout_of(const struct audit *a, const struct audit_origin *o)
{
	if (!a->targets || !o || o->target >= a->n_targets)
		return NULL;
	return &a->targets[o->target];
}

const char *targetout_noun(const struct audit *a, size_t n)
{
	bool image;

	if (!a->targets)
		return NULL;
	/* An image run has its one image, read or not; only a package run can have none. */
	image = a->n_targets > 0 && s2c_streq(a->targets[0].kind, "image");
	if (image)
		return n == 1 ? "image" : "images";
	return n == 1 ? "package" : "packages";
}

char *targetout_incomplete(const struct audit *a)
{
	size_t failed = (size_t)a->scan_warnings, inc = a->targets_incomplete;
	_cleanup_free_ char *unread = NULL, *partly = NULL;

	if (!a->targets || a->complete)
		return NULL;
	unread = strdup_printf("%zu %s could not be read", failed, targetout_noun(a, failed));
	partly = strdup_printf("the audit of %zu %s is incomplete%s", inc, targetout_noun(a, inc),
			       a->incomplete_allowed ? ", allowed by the user with --allow-incomplete "
			       "(not counted in the exit status)" : "");
	if (!unread || !partly)
		return NULL;
	if (failed && inc)
		return strdup_printf("%s, %s", unread, partly);
	return strdup(failed ? unread : partly);
}

void targetout_lines_free(struct targetout_line *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

static int push(struct targetout_line **v, size_t *n, const char *label, char *text)
{
	struct targetout_line *nv;

	if (!text)
		return -ENOMEM;
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv) {
		free(text);
		return -ENOMEM;
	}
	*v = nv;
	nv[(*n)++] = (struct targetout_line){ label, text };
	return 0;
}

int targetout_lines(const struct audit *a, const struct audit_origin *o, struct targetout_line **ret,
		    size_t *ret_n)
{
	const struct audit_target *t = targetout_of(a, o);
	struct targetout_line *v = NULL;
	size_t n = 0;
	int r = 0;

	*ret = NULL;
	*ret_n = 0;
	if (!t)
		return 0;
	if (s2c_streq(t->kind, "image")) {
		r = push(&v, &n, "image", strdup(t->name ? t->name : t->source));
		if (r == 0 && o->layer >= 0 && (size_t)o->layer < t->n_layers) {
			const char *digest = t->layers[o->layer], *cmd = t->layer_commands ?
				t->layer_commands[o->layer] : NULL;
			r = push(&v, &n, "layer", strdup_printf("%ld %s%s%s%s", o->layer + 1,
						      digest ? digest : "(no digest)", cmd ? " (" : "",
						      cmd ? cmd : "", cmd ? ")" : ""));
		}
	} else {
		r = push(&v, &n, "package", strdup_printf("%s %s %s (%s)", t->name, t->version, t->arch,
						  t->source));
	}
	if (r == 0 && o->packed)
		r = push(&v, &n, "packed", strdup(o->packed));
	for (size_t k = 0; r == 0 && o->install && o->install[k]; k++)
		r = push(&v, &n, "installed", strdup(o->install[k]));
	if (r == 0 && o->fallback)
		r = push(&v, &n, "fallback", strdup_printf("%s where setcap fails", o->fallback));
	if (r == 0 && o->n_libs) {
		char *text = NULL;
		size_t len = 0, missing = 0, found = 0;
		FILE *f = open_memstream(&text, &len);
		if (!f)
			r = -ENOMEM;
		/* Who has each library; the ones no package of the run has, together. */
		for (size_t k = 0; r == 0 && k < o->n_libs; k++) {
			const struct audit_lib *l = &o->libs[k];
			if (!l->provider)
				continue;
			(void)fprintf(f, "%s%s (%s)", found++ ? ", " : "", l->soname,
				      s2c_streq(l->provider, t->name) ? "this package" : l->provider);
		}
		for (size_t k = 0; r == 0 && k < o->n_libs; k++)
			if (!o->libs[k].provider)
				(void)fprintf(f, "%s%s", missing++ ? ", " : found ? "; " : "",
					      o->libs[k].soname);
		if (r == 0 && missing)
			(void)fprintf(f, " not in this run");
		if (f && fclose(f) != 0)
			r = -ENOMEM;
		if (r == 0)
			r = push(&v, &n, "libraries", text);
		else
			free(text);
	}
	if (r < 0) {
		targetout_lines_free(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* --- text ----------------------------------------------------------------------------------- */

static void put_escaped(FILE *out, const char *s)
{
	_cleanup_free_ char *e = escape_text(s ? s : "");
	(void)fputs(e ? e : "?", out);
}

/* Length of the valid UTF-8 sequence at @s that is not a C1 control, or 0. */
static size_t utf8_char(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (n == 0 || !utf8_valid((const char *)s, strnlen((const char *)s, n)) ||
	    strnlen((const char *)s, n) < n)
		return 0;
	if (s[0] == 0xc2 && s[1] < 0xa0)
		return 0;       /* U+0080..U+009F */
	return n;
}

/*
 * A snippet, indented: our own emitters wrote it (names single-quoted for the
 * shell), so it is shown as it is, tabs and backslashes included, except for
 * control characters and invalid UTF-8, which become \xNN so that no name in
 * it can reach the terminal raw.
 */
static void put_block(FILE *out, const char *text, const char *indent)
{
	bool bol = true;

	for (const unsigned char *p = (const unsigned char *)text; *p;) {
		size_t n;
		if (bol)
			(void)fputs(indent, out);
		bol = *p == '\n';
		if (*p == '\n' || *p == '\t' || (*p >= 0x20 && *p < 0x7f)) {
			(void)fputc(*p++, out);
		} else if (*p >= 0x80 && (n = utf8_char(p)) > 0) {
			(void)fwrite(p, 1, n, out);
			p += n;
		} else {
			(void)fprintf(out, "\\x%02x", *p++);
		}
	}
	if (!bol)
		(void)fputc('\n', out);
}

static void target_title(const struct audit_target *t, FILE *out)
{
	if (t->name) {
		put_escaped(out, t->name);
		if (t->version && !s2c_streq(t->kind, "image")) {
			(void)fputc(' ', out);
			put_escaped(out, t->version);
		}
		if (t->arch) {
			(void)fputc(' ', out);
			put_escaped(out, t->arch);
		}
		(void)fputs(" (", out);
		put_escaped(out, t->source);
		(void)fputc(')', out);
	} else {
		put_escaped(out, t->source);
	}
}

int targetout_text(const struct audit *a, FILE *out)
{
	size_t failed = 0, with = 0, partly = 0;
	_cleanup_free_ char *upper = NULL;

	if (!a->targets)
		return 0;
	for (size_t i = 0; i < a->n_targets; i++) {
		failed += a->targets[i].error != NULL;
		with += a->targets[i].files > 0;
		partly += a->targets[i].incomplete != NULL;
	}
	upper = strdup(targetout_noun(a, 2));
	if (!upper)
		return -ENOMEM;
	for (char *c = upper; *c; c++)
		*c = (char)(*c - 'a' + 'A');
	(void)fprintf(out, "\n%s: %zu, %zu with privileged files, %zu could not be read, "
		      "%zu incomplete\n", upper, a->n_targets, with, failed, partly);
	for (size_t i = 0; i < a->n_targets; i++) {
		const struct audit_target *t = &a->targets[i];

		/* Packages without anything to say stay out of the list. */
		if (!t->error && !t->files && !t->notes && !t->incomplete && a->n_targets > 1)
			continue;
		(void)fputs("  ", out);
		target_title(t, out);
		if (t->error) {
			(void)fputs("\n      error: ", out);
			put_escaped(out, t->error);
			(void)fputc('\n', out);
			continue;
		}
		(void)fprintf(out, ": %zu privileged file%s%s\n", t->files, t->files == 1 ? "" : "s",
			      !t->incomplete ? "" : a->incomplete_allowed ? ", INCOMPLETE (allowed)" :
			      ", INCOMPLETE");
		for (size_t k = 0; t->incomplete && t->incomplete[k]; k++) {
			(void)fputs("      incomplete: ", out);
			put_escaped(out, t->incomplete[k]);
			(void)fputc('\n', out);
		}
		for (size_t k = 0; t->notes && t->notes[k]; k++) {
			(void)fputs("      note: ", out);
			put_escaped(out, t->notes[k]);
			(void)fputc('\n', out);
		}
		if (t->plan) {
			(void)fprintf(out, "      plan (%s):\n", t->plan_format);
			put_block(out, t->plan, "        ");
		}
	}
	return ferror(out) ? -EIO : 0;
}

/* --- Markdown ------------------------------------------------------------------------------- */

int targetout_markdown(const struct audit *a, FILE *out)
{
	const char *noun = targetout_noun(a, 2);
	int r = 0;

	if (!a->targets)
		return 0;
	(void)fprintf(out, "\n## %c%s\n\n| %s | version | architecture | source | privileged files "
		      "| error |\n|---|---|---|---|---:|---|\n", noun[0] - 'a' + 'A', noun + 1,
		      s2c_streq(noun, "images") ? "image" : "package");
	for (size_t i = 0; i < a->n_targets && r == 0; i++) {
		const struct audit_target *t = &a->targets[i];
		(void)fputs("| ", out);
		r = markdown_escape(out, t->name ? t->name : "–");
		(void)fputs(" | ", out);
		if (r == 0)
			r = markdown_escape(out, t->version ? t->version : "–");
		(void)fputs(" | ", out);
		if (r == 0)
			r = markdown_escape(out, t->arch ? t->arch : "–");
		(void)fputs(" | ", out);
		if (r == 0)
			r = markdown_escape(out, t->source);
		(void)fprintf(out, " | %zu | ", t->files);
		if (r == 0)
			r = markdown_escape(out, t->error ? t->error : "");
		(void)fputs(" |\n", out);
	}
	for (size_t i = 0; i < a->n_targets && r == 0; i++) {
		const struct audit_target *t = &a->targets[i];
		if (!t->plan && !t->notes && !t->incomplete)
			continue;
		(void)fputs("\n### ", out);
		r = markdown_escape(out, t->name ? t->name : t->source);
		(void)fputs("\n\n", out);
		for (size_t k = 0; r == 0 && t->incomplete && t->incomplete[k]; k++) {
			(void)fputs("- **incomplete**: ", out);
			r = markdown_escape(out, t->incomplete[k]);
			(void)fputc('\n', out);
		}
		for (size_t k = 0; r == 0 && t->notes && t->notes[k]; k++) {
			(void)fputs("- note: ", out);
			r = markdown_escape(out, t->notes[k]);
			(void)fputc('\n', out);
		}
		if (r == 0 && t->plan) {
			/* A fence longer than any run of backticks in the snippet. */
			size_t run = 0, longest = 0;
			for (const char *c = t->plan; *c; c++) {
				run = *c == '`' ? run + 1 : 0;
				longest = S2C_MAX(longest, run);
			}
			(void)fprintf(out, "%sPlan (%s):\n\n", t->notes || t->incomplete ? "\n" : "",
				      t->plan_format);
			for (size_t k = 0; k < S2C_MAX(longest + 1, (size_t)3); k++)
				(void)fputc('`', out);
			(void)fputc('\n', out);
			/* Keep the line structure, escape everything else. */
			for (const char *p = t->plan; *p;) {
				size_t n = strcspn(p, "\n");
				_cleanup_free_ char *line = strndup(p, n);
				_cleanup_free_ char *e = line ? escape_text(line) : NULL;
				(void)fprintf(out, "%s\n", e ? e : "");
				p += n + (p[n] == '\n');
			}
			for (size_t k = 0; k < S2C_MAX(longest + 1, (size_t)3); k++)
				(void)fputc('`', out);
			(void)fputc('\n', out);
		}
	}
	return r < 0 ? r : ferror(out) ? -EIO : 0;
}

/* --- HTML ----------------------------------------------------------------------------------- */

int targetout_html(const struct audit *a, FILE *out)
{
	const char *noun = targetout_noun(a, 2);
	int r = 0;

	if (!a->targets)
		return 0;
	(void)fprintf(out, "<section id=\"targets\">\n<h2>%c%s</h2>\n<table>\n<thead><tr><th>%s</th>"
		      "<th>version</th><th>architecture</th><th>source</th><th>privileged files</th>"
		      "<th>error</th></tr></thead>\n<tbody>\n", noun[0] - 'a' + 'A', noun + 1,
		      s2c_streq(noun, "images") ? "image" : "package");
	for (size_t i = 0; i < a->n_targets && r == 0; i++) {
		const struct audit_target *t = &a->targets[i];
		(void)fputs("<tr><td>", out);
		r = html_escape(out, t->name ? t->name : "–");
		(void)fputs("</td><td>", out);
		if (r == 0)
			r = html_escape(out, t->version ? t->version : "–");
		(void)fputs("</td><td>", out);
		if (r == 0)
			r = html_escape(out, t->arch ? t->arch : "–");
		(void)fputs("</td><td><code>", out);
		if (r == 0)
			r = html_escape(out, t->source);
		(void)fprintf(out, "</code></td><td>%zu</td><td>", t->files);
		if (r == 0)
			r = html_escape(out, t->error ? t->error : "");
		(void)fputs("</td></tr>\n", out);
	}
	(void)fputs("</tbody>\n</table>\n", out);
	for (size_t i = 0; i < a->n_targets && r == 0; i++) {
		const struct audit_target *t = &a->targets[i];
		if (!t->plan && !t->notes && !t->incomplete)
			continue;
		(void)fprintf(out, "<details%s>\n<summary>", t->incomplete ? " open" : "");
		r = html_escape(out, t->name ? t->name : t->source);
		(void)fputs("</summary>\n", out);
		for (size_t k = 0; r == 0 && t->incomplete && t->incomplete[k]; k++) {
			(void)fputs("<p class=\"incomplete\">incomplete: ", out);
			r = html_escape(out, t->incomplete[k]);
			(void)fputs("</p>\n", out);
		}
		for (size_t k = 0; r == 0 && t->notes && t->notes[k]; k++) {
			(void)fputs("<p>note: ", out);
			r = html_escape(out, t->notes[k]);
			(void)fputs("</p>\n", out);
		}
		if (r == 0 && t->plan) {
			(void)fprintf(out, "<p>Plan (%s):</p>\n<pre>", t->plan_format);
			for (const char *p = t->plan; *p && r == 0;) {
				size_t n = strcspn(p, "\n");
				_cleanup_free_ char *line = strndup(p, n);
				if (!line)
					return -ENOMEM;
				r = html_escape(out, line);
				(void)fputs("\n", out);
				p += n + (p[n] == '\n');
			}
			(void)fputs("</pre>\n", out);
		}
		(void)fputs("</details>\n", out);
	}
	(void)fputs("</section>\n", out);
	return r < 0 ? r : ferror(out) ? -EIO : 0;
}

/* --- JSON ----------------------------------------------------------------------------------- */

static struct json_object *strv_json(const char *const *v, size_t n)
{
	_cleanup_jsonput_ struct json_object *arr = json_object_new_array();

	if (!arr)
		return NULL;
	for (size_t i = 0; v && (n == SIZE_MAX ? v[i] != NULL : i < n); i++) {
		struct json_object *s = v[i] ? jsonout_string(v[i]) : NULL;
		if ((v[i] && jsonout_push(arr, s) < 0) ||
		    (!v[i] && json_object_array_add(arr, NULL) < 0))
			return NULL;
	}
	return TAKE_PTR(arr);
}

struct json_object *targetout_json_targets(const struct audit *a)
{
	_cleanup_jsonput_ struct json_object *arr = json_object_new_array();

	if (!arr)
		return NULL;
	for (size_t i = 0; i < a->n_targets; i++) {
		const struct audit_target *t = &a->targets[i];
		struct json_object *o = json_object_new_object(), *layers;

		if (jsonout_push(arr, o) < 0 || jsonout_add_string(o, "kind", t->kind) < 0 ||
		    jsonout_add_name(o, "source", t->source) < 0 ||
		    jsonout_add_name(o, "name", t->name) < 0 ||
		    jsonout_add_name(o, "version", t->version) < 0 ||
		    jsonout_add_name(o, "architecture", t->arch) < 0 ||
		    jsonout_add_name(o, "error", t->error) < 0 ||
		    jsonout_add_int(o, "files", (int64_t)t->files) < 0 ||
		    jsonout_add_bool(o, "complete", !t->error && !t->incomplete) < 0 ||
		    jsonout_add(o, "incomplete", strv_json(t->incomplete, SIZE_MAX)) < 0 ||
		    jsonout_add(o, "notes", strv_json(t->notes, SIZE_MAX)) < 0)
			return NULL;
		if (s2c_streq(t->kind, "image")) {
			layers = json_object_new_array();
			if (jsonout_add(o, "layers", layers) < 0)
				return NULL;
			for (size_t k = 0; k < t->n_layers; k++) {
				struct json_object *l = json_object_new_object();
				if (jsonout_push(layers, l) < 0 ||
				    jsonout_add_name(l, "digest", t->layers[k]) < 0 ||
				    jsonout_add_name(l, "created_by", t->layer_commands ?
						     t->layer_commands[k] : NULL) < 0)
					return NULL;
			}
		}
		if (t->plan) {
			struct json_object *p = json_object_new_object();
			if (jsonout_add(o, "plan", p) < 0 ||
			    jsonout_add_string(p, "format", t->plan_format) < 0 ||
			    jsonout_add_string(p, "text", t->plan) < 0)
				return NULL;
		} else if (jsonout_add_null(o, "plan") < 0) {
			return NULL;
		}
	}
	return TAKE_PTR(arr);
}

struct json_object *targetout_json_origin(const struct audit *a, const struct audit_origin *o)
{
	const struct audit_target *t = targetout_of(a, o);
	_cleanup_jsonput_ struct json_object *obj = json_object_new_object();

	if (!obj || !t || jsonout_add_int(obj, "target", (int64_t)o->target) < 0 ||
	    jsonout_add_string(obj, "kind", t->kind) < 0 ||
	    jsonout_add_name(obj, "name", t->name) < 0 ||
	    jsonout_add_name(obj, "version", t->version) < 0 ||
	    jsonout_add_name(obj, "architecture", t->arch) < 0)
		return NULL;
	if (o->layer >= 0) {
		struct json_object *l = json_object_new_object();
		if (jsonout_add(obj, "layer", l) < 0 || jsonout_add_int(l, "index", o->layer + 1) < 0 ||
		    jsonout_add_name(l, "digest", (size_t)o->layer < t->n_layers ?
				     t->layers[o->layer] : NULL) < 0 ||
		    jsonout_add_name(l, "created_by", t->layer_commands &&
				     (size_t)o->layer < t->n_layers ?
				     t->layer_commands[o->layer] : NULL) < 0)
			return NULL;
	} else if (jsonout_add_null(obj, "layer") < 0) {
		return NULL;
	}
	if (jsonout_add_name(obj, "packed", o->packed) < 0 ||
	    jsonout_add_name(obj, "fallback", o->fallback) < 0 ||
	    jsonout_add(obj, "installed", strv_json(o->install, SIZE_MAX)) < 0)
		return NULL;
	if (o->libs) {
		struct json_object *libs = json_object_new_array();
		if (jsonout_add(obj, "libraries", libs) < 0)
			return NULL;
		for (size_t k = 0; k < o->n_libs; k++) {
			struct json_object *l = json_object_new_object();
			if (jsonout_push(libs, l) < 0 ||
			    jsonout_add_name(l, "soname", o->libs[k].soname) < 0 ||
			    jsonout_add_name(l, "provider", o->libs[k].provider) < 0 ||
			    jsonout_add_name(l, "path", o->libs[k].path) < 0)
				return NULL;
		}
	}
	return TAKE_PTR(obj);
}

struct json_object *targetout_json_identity(const struct audit *a)
{
	const struct audit_identity *id = a->identity;
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || jsonout_add_name(o, "hostname", id ? id->hostname : NULL) < 0 ||
	    jsonout_add_name(o, "machine_id", id ? id->machine_id : NULL) < 0 ||
	    jsonout_add_name(o, "time", id ? id->time : NULL) < 0 ||
	    jsonout_add_name(o, "auditor", id ? id->auditor : NULL) < 0 ||
	    jsonout_add_name(o, "shard", id ? id->shard : NULL) < 0 ||
	    jsonout_add_name(o, "label", id ? id->label : NULL) < 0 ||
	    jsonout_add_string(o, "kind", !a->targets ? (a->host && a->host->live ? "host" : "root") :
				s2c_streq(targetout_noun(a, 1), "image") ? "image" : "packages") < 0)
		return NULL;
	return TAKE_PTR(o);
}
