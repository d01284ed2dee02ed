/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "facts.h"
#include "factsjson.h"
#include "jsonout.h"
#include "scan.h"
#include "scanout.h"
#include "skip.h"
#include "util.h"
#include "common.h"

/* Comma-separated flag names into a new string. */
static char *flag_list(enum facts_flags flags)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	bool first = true;

	if (!f)
		return NULL;
	for (unsigned i = 0; i < _FACT_MAX; i++)
		if (flags & (1u << i)) {
			(void)fprintf(f, "%s%s", first ? "" : ",", facts_flag_name(1u << i));
			first = false;
		}
	if (first)
		(void)fputc('-', f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct row {
	char mode[11];
	char *owner, *group, *caps, *flags, *path;
};

static void row_release(struct row *r)
{
	free(r->owner);
	free(r->group);
	free(r->caps);
	free(r->flags);
	free(r->path);
}

static char *id_name(const char *name, uint32_t id)
{
	char *s = NULL;

	if (name)
		return escape_text(name);
	return asprintf(&s, "%" PRIu32, id) < 0 ? NULL : s;
}

static int row_fill(struct row *row, const struct facts *f)
{
	facts_mode_string(f->mode, row->mode);
	row->owner = id_name(f->owner, f->uid);
	row->group = id_name(f->group, f->gid);
	row->caps = strdup(f->caps_error ? "(malformed)" : f->caps_text ? f->caps_text : "-");
	row->flags = flag_list(f->flags);
	row->path = escape_text(f->path);
	if (!row->owner || !row->group || !row->caps || !row->flags || !row->path)
		return -ENOMEM;
	return 0;
}

static void summary_counts(const struct scan_result *r, size_t *suid_root, size_t *suid_user,
			   size_t *sgid, size_t *caps)
{
	*suid_root = *suid_user = *sgid = *caps = 0;
	for (size_t i = 0; i < r->n; i++) {
		enum facts_flags fl = r->v[i]->flags;
		*suid_root += !!(fl & FACT_SETUID_ROOT);
		*suid_user += !!(fl & FACT_SETUID_USER);
		*sgid += !!(fl & FACT_SETGID);
		*caps += !!(fl & FACT_CAPS);
	}
}

char *scanout_skipped_line(const struct skip_entry *v, size_t n, bool other_roots, bool *ret_none)
{
	char *buf = NULL;
	size_t size = 0, count = 0;
	FILE *f;

	*ret_none = false;
	for (size_t i = 0; i < n; i++)
		count += skip_reason_is_other_root(v[i].reason) == other_roots;
	if (count == 0) {
		*ret_none = true;
		return NULL;
	}
	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	(void)fputs(other_roots ? "other roots (not scanned; audit them with --root): "
				: "excluded (not scanned): ", f);
	count = 0;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *path = NULL;

		if (skip_reason_is_other_root(v[i].reason) != other_roots)
			continue;
		path = escape_text(v[i].path);
		if (!path) {
			(void)fclose(f);
			free(buf);
			return NULL;
		}
		(void)fprintf(f, "%s%s", count++ ? ", " : "", path);
		if (other_roots)
			(void)fprintf(f, " (%s)", skip_reason_text(v[i].reason));
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int scanout_skipped_text(const struct skip_entry *v, size_t n, const char *prefix, FILE *out)
{
	for (int other = 1; other >= 0; other--) {
		bool none;
		_cleanup_free_ char *line = scanout_skipped_line(v, n, other, &none);

		if (!line && !none)
			return -ENOMEM;
		if (line)
			(void)fprintf(out, "%s%s\n", prefix, line);
	}
	return 0;
}

struct json_object *scanout_skipped_json(const struct skip_entry *v, size_t n)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++) {
		struct json_object *o = json_object_new_object();

		if (jsonout_push(a, o) < 0 || jsonout_add_string(o, "path", v[i].path) < 0 ||
		    jsonout_add(o, "reason", json_object_new_string(skip_reason_name(v[i].reason))) < 0 ||
		    jsonout_add_name(o, "source", v[i].source) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}

int scanout_text(const struct scan_result *r, FILE *out)
{
	_cleanup_free_ struct row *rows = calloc(r->n ? r->n : 1, sizeof(*rows));
	size_t w_owner = 5, w_group = 5, w_caps = 12, w_flags = 5;
	size_t suid_root, suid_user, sgid, caps;
	int ret = 0;

	if (!rows)
		return -ENOMEM;
	if (r->n_skipped) {
		ret = scanout_skipped_text(r->skipped, r->n_skipped, "", out);
		if (ret < 0)
			return ret;
		(void)fputc('\n', out);
	}
	for (size_t i = 0; i < r->n && ret == 0; i++) {
		ret = row_fill(&rows[i], r->v[i]);
		if (ret == 0) {
			w_owner = S2C_MAX(w_owner, strlen(rows[i].owner));
			w_group = S2C_MAX(w_group, strlen(rows[i].group));
			w_caps = S2C_MAX(w_caps, strlen(rows[i].caps));
			w_flags = S2C_MAX(w_flags, strlen(rows[i].flags));
		}
	}
	if (ret == 0 && r->n > 0) {
		(void)fprintf(out, "%-10s  %-*s  %-*s  %-*s  %-*s  %s\n", "MODE", (int)w_owner, "OWNER",
			      (int)w_group, "GROUP", (int)w_caps, "CAPABILITIES", (int)w_flags,
			      "FLAGS", "PATH");
		for (size_t i = 0; i < r->n; i++)
			(void)fprintf(out, "%-10s  %-*s  %-*s  %-*s  %-*s  %s\n", rows[i].mode,
				      (int)w_owner, rows[i].owner, (int)w_group, rows[i].group,
				      (int)w_caps, rows[i].caps, (int)w_flags, rows[i].flags,
				      rows[i].path);
	}
	for (size_t i = 0; i < r->n; i++)
		row_release(&rows[i]);
	if (ret < 0)
		return ret;
	summary_counts(r, &suid_root, &suid_user, &sgid, &caps);
	(void)fprintf(out, "%s%zu privileged file%s: %zu setuid root, %zu setuid to another user, "
		      "%zu setgid, %zu with capabilities%s\n",
		      r->n ? "\n" : "", r->n, r->n == 1 ? "" : "s", suid_root, suid_user, sgid, caps,
		      r->warnings ? " (incomplete: see warnings)" : "");
	return ferror(out) ? -EIO : 0;
}

int scanout_json(const struct scan_result *r, FILE *out)
{
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
	struct json_object *tool, *stats, *files;

	if (!doc)
		return -ENOMEM;
	tool = json_object_new_object();
	stats = json_object_new_object();
	files = json_object_new_array();
	if (!tool || !stats || !files) {
		json_object_put(tool);
		json_object_put(stats);
		json_object_put(files);
		return -ENOMEM;
	}
	if (json_object_object_add(doc, "schema", json_object_new_int(SCANOUT_SCHEMA)) < 0 ||
	    json_object_object_add(doc, "tool", tool) < 0 ||
	    jsonout_add_string(tool, "name", "suid2cap") < 0 ||
	    jsonout_add_string(tool, "version", S2C_VERSION) < 0 ||
	    jsonout_add_string(doc, "root", r->root) < 0 ||
	    jsonout_add_bool(doc, "complete", r->warnings == 0) < 0 ||
	    json_object_object_add(doc, "stats", stats) < 0 ||
	    jsonout_add_int(stats, "directories", (int64_t)r->stats.dirs) < 0 ||
	    jsonout_add_int(stats, "entries", (int64_t)r->stats.files) < 0 ||
	    jsonout_add_int(stats, "warnings", (int64_t)r->warnings) < 0 ||
	    jsonout_add(doc, "not_scanned", scanout_skipped_json(r->skipped, r->n_skipped)) < 0 ||
	    json_object_object_add(doc, "files", files) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		struct json_object *f = factsjson_new(r->v[i]);
		if (!f || json_object_array_add(files, f) < 0) {
			json_object_put(f);
			return -ENOMEM;
		}
	}
	return jsonout_write(doc, out);
}
