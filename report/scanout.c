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
	char *owner, *group, *owner_group, *caps, *flags, *path;
};

static void row_release(struct row *r)
{
	free(r->owner);
	free(r->group);
	free(r->owner_group);
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
	row->owner_group = row->owner && row->group ?
		strdup_printf("%s:%s", row->owner, row->group) : NULL;
	if (!row->owner || !row->group || !row->owner_group || !row->caps || !row->flags ||
	    !row->path) {
		row_release(row);
		return -ENOMEM;
	}
	return 0;
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

/* Columns @s takes on a terminal: one per UTF-8 sequence (escaped text is printable). */
static size_t cols(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void pad(FILE *out, size_t have, size_t want)
{
	for (; have < want; have++)
		(void)fputc(' ', out);
}

/*
 * The layout of both tables, measured in a first pass over the rows; the second
 * makes each row again as it writes it, so no more than one row is held.  The narrow
 * table puts PATH first, and owner and group in one column.
 */
enum narrow_col { N_MODE, N_OWNER, N_CAPS, N_FLAGS, _N_MAX };

/* Widest path column of the narrow table; longer paths take a line of their own. */
#define PATH_COLUMN_MAX ((size_t)36)

struct layout {
	size_t owner, group, caps, flags, wide_path; /* the wide table's columns */
	size_t path;                 /* the narrow table's path column */
	size_t w[_N_MAX];            /* and its other columns */
	bool shown[_N_MAX];
	bool path_w[PATH_COLUMN_MAX + 1]; /* a row's path is this many columns wide */
};

/* The flags the MODE, OWNER:GROUP and CAPABILITIES columns show already. */
#define SHOWN_FLAGS (FACT_SETUID_ROOT | FACT_SETUID_USER | FACT_SETGID | FACT_CAPS)

/* How far the path column narrows before the capabilities leave the table. */
#define PATH_COLUMN_NARROW ((size_t)24)

static const char *const narrow_title[_N_MAX] = { "MODE", "OWNER:GROUP", "CAPABILITIES", "FLAGS" };

static const char *narrow_cell(const struct row *row, enum narrow_col c)
{
	switch (c) {
	case N_MODE: return row->mode;
	case N_OWNER: return row->owner_group;
	case N_CAPS: return row->caps;
	default: return row->flags;
	}
}

/* The widest path of at most @max columns, and at least 4 ("PATH"). */
static size_t narrow_path_width(const struct layout *l, size_t max)
{
	size_t w = 4;

	for (size_t i = w + 1; i <= S2C_MIN(max, PATH_COLUMN_MAX); i++)
		if (l->path_w[i])
			w = i;
	return w;
}

static size_t narrow_row_width(const struct layout *l)
{
	size_t w = l->path;

	for (size_t c = 0; c < _N_MAX; c++)
		if (l->shown[c])
			w += 2 + l->w[c];
	return w;
}

/* The path column as wide as the room the others leave, within [@floor, PATH_COLUMN_MAX]. */
static void narrow_path(struct layout *l, unsigned width, size_t floor)
{
	size_t rest = narrow_row_width(l) - l->path;
	size_t room = width > rest ? width - rest : 0;

	l->path = narrow_path_width(l, S2C_MIN(S2C_MAX(room, floor), PATH_COLUMN_MAX));
}

/* Measure every row of @r for both tables. */
static int measure(const struct scan_result *r, struct layout *l)
{
	_cleanup_(scan_cursor_release) struct scan_cursor c = { 0 };
	int ret;

	*l = (struct layout){ .owner = 5, .group = 5, .caps = 12, .flags = 5, .wide_path = 4 };
	for (size_t k = 0; k < _N_MAX; k++) {
		l->shown[k] = true;
		l->w[k] = cols(narrow_title[k]);
	}
	for (ret = scan_cursor_start(r, &c); ret == 0 && c.f; ret = scan_cursor_next(r, &c)) {
		struct row row = { 0 };
		size_t pw;

		ret = row_fill(&row, c.f);
		if (ret < 0)
			return ret;
		pw = cols(row.path);
		if (pw <= PATH_COLUMN_MAX)
			l->path_w[pw] = true;
		/* bytes: the wide table pads with printf */
		l->owner = S2C_MAX(l->owner, strlen(row.owner));
		l->group = S2C_MAX(l->group, strlen(row.group));
		l->caps = S2C_MAX(l->caps, strlen(row.caps));
		l->flags = S2C_MAX(l->flags, strlen(row.flags));
		l->wide_path = S2C_MAX(l->wide_path, pw);
		for (size_t k = 0; k < _N_MAX; k++)
			l->w[k] = S2C_MAX(l->w[k], cols(narrow_cell(&row, (enum narrow_col)k)));
		row_release(&row);
	}
	return ret;
}

/* Fit the narrow table in @width: FLAGS go, the path column narrows, CAPABILITIES go. */
static void narrow_layout(struct layout *l, unsigned width)
{
	l->path = narrow_path_width(l, PATH_COLUMN_MAX);
	for (unsigned step = 0; narrow_row_width(l) > width && step < 4; step++) {
		switch (step) {
		case 0: l->shown[N_FLAGS] = false; break;
		case 1: narrow_path(l, width, PATH_COLUMN_NARROW); break;
		case 2:
			l->shown[N_CAPS] = false;
			narrow_path(l, width, PATH_COLUMN_NARROW);
			break;
		default: narrow_path(l, width, (size_t)4); break;
		}
	}
}

static void narrow_line(const struct layout *l, const char *const *cells, FILE *out)
{
	size_t last = 0;

	for (size_t c = 0; c < _N_MAX; c++)
		if (l->shown[c])
			last = c;
	for (size_t c = 0; c < _N_MAX; c++) {
		if (!l->shown[c])
			continue;
		(void)fprintf(out, "  %s", cells[c]);
		if (c != last)
			pad(out, cols(cells[c]), l->w[c]);
	}
	(void)fputc('\n', out);
}

static void narrow_row(const struct layout *l, const struct row *row, const struct facts *f,
		       FILE *out)
{
	const char *cells[_N_MAX];
	size_t pw = cols(row->path);

	for (size_t c = 0; c < _N_MAX; c++)
		cells[c] = narrow_cell(row, (enum narrow_col)c);
	(void)fputs(row->path, out);
	if (pw > l->path) {
		/* A long path gets its own line; the columns follow on the next. */
		(void)fputc('\n', out);
		pad(out, 0, l->path);
	} else {
		pad(out, pw, l->path);
	}
	narrow_line(l, cells, out);
	if (!l->shown[N_CAPS] && !s2c_streq(row->caps, "-"))
		(void)fprintf(out, "    capabilities: %s\n", row->caps);
	if (!l->shown[N_FLAGS] && (f->flags & ~(enum facts_flags)SHOWN_FLAGS))
		(void)fprintf(out, "    flags: %s\n", row->flags);
}

static void wide_row(const struct layout *l, const struct row *row, FILE *out)
{
	(void)fprintf(out, "%-10s  %-*s  %-*s  %-*s  %-*s  %s\n", row->mode, (int)l->owner,
		      row->owner, (int)l->group, row->group, (int)l->caps, row->caps,
		      (int)l->flags, row->flags, row->path);
}

/* The table of @r's files, wide when its widest row fits in @width (0: no limit). */
static int table(const struct scan_result *r, unsigned width, FILE *out)
{
	_cleanup_(scan_cursor_release) struct scan_cursor c = { 0 };
	struct layout l;
	bool wide;
	int ret = measure(r, &l);

	if (ret < 0)
		return ret;
	wide = !width || 10 + 2 + l.owner + 2 + l.group + 2 + l.caps + 2 + l.flags + 2 +
				 l.wide_path <= width;
	if (wide) {
		(void)fprintf(out, "%-10s  %-*s  %-*s  %-*s  %-*s  %s\n", "MODE", (int)l.owner,
			      "OWNER", (int)l.group, "GROUP", (int)l.caps, "CAPABILITIES",
			      (int)l.flags, "FLAGS", "PATH");
	} else {
		narrow_layout(&l, width);
		(void)fprintf(out, "%-*s", (int)l.path, "PATH");
		narrow_line(&l, narrow_title, out);
	}
	for (ret = scan_cursor_start(r, &c); ret == 0 && c.f; ret = scan_cursor_next(r, &c)) {
		struct row row = { 0 };

		ret = row_fill(&row, c.f);
		if (ret < 0)
			break;
		if (wide)
			wide_row(&l, &row, out);
		else
			narrow_row(&l, &row, c.f, out);
		row_release(&row);
	}
	return ret;
}

/* The summary line, wrapped between words at @width (0: no limit), the rest indented. */
static void summary_line(const char *line, unsigned width, FILE *out)
{
	size_t col = 0;

	for (const char *p = line; *p;) {
		const char *w = p;
		size_t len;

		while (*p && *p != ' ')
			p++;
		len = (size_t)(p - w);
		if (width && col > 2 && col + 1 + len > width) {
			(void)fputs("\n  ", out);
			col = 2;
		} else if (col) {
			(void)fputc(' ', out);
			col++;
		}
		(void)fwrite(w, 1, len, out);
		col += len;
		while (*p == ' ')
			p++;
	}
	(void)fputc('\n', out);
}

int scanout_text(const struct scan_result *r, const struct scanout_text_options *o, FILE *out)
{
	unsigned width = o && o->width ? S2C_MAX(o->width, SCANOUT_MIN_WIDTH) : 0;
	bool quiet = o && o->quiet;
	int ret;

	if (r->n_skipped && !quiet) {
		ret = scanout_skipped_text(r->skipped, r->n_skipped, "", out);
		if (ret < 0)
			return ret;
		(void)fputc('\n', out);
	}
	if (r->n > 0) {
		ret = table(r, width, out);
		if (ret < 0)
			return ret;
	}
	if (!quiet) {
		_cleanup_free_ char *line = NULL;

		if (asprintf(&line, "%zu privileged file%s: %zu setuid root, %zu setuid to another "
			     "user, %zu setgid, %zu with capabilities%s", r->n, r->n == 1 ? "" : "s",
			     r->n_flag[FACT_BIT(FACT_SETUID_ROOT)], r->n_flag[FACT_BIT(FACT_SETUID_USER)],
			     r->n_flag[FACT_BIT(FACT_SETGID)], r->n_flag[FACT_BIT(FACT_CAPS)],
			     r->warnings ? " (incomplete: see warnings)" : "") < 0)
			return -ENOMEM;
		if (r->n)
			(void)fputc('\n', out);
		summary_line(line, width, out);
	}
	return ferror(out) ? -EIO : 0;
}

/* Reading the candidates for jsonout_write_array(), which asks for them in order. */
struct facts_reader {
	const struct scan_result *r;
	struct scan_cursor c;
	int error;
	struct facts_reader *self;  /* what the const userdata reaches */
};

/* The element of "files" for the scan's candidate @i. */
static struct json_object *facts_element(size_t i, const void *userdata)
{
	struct facts_reader *fr = ((const struct facts_reader *)userdata)->self;
	struct json_object *o;

	if (fr->c.i < i)
		fr->error = scan_cursor_next(fr->r, &fr->c);
	if (fr->error || !fr->c.f || fr->c.i != i) {
		if (!fr->error)
			fr->error = -EIO;
		return NULL;
	}
	o = factsjson_new(fr->c.f);
	if (!o)
		fr->error = -ENOMEM;
	return o;
}

int scanout_json(const struct scan_result *r, FILE *out)
{
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
	struct json_object *tool, *stats, *files;
	struct facts_reader fr = { .r = r };
	int ret;

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
	    jsonout_add(doc, "not_scanned", skip_json(r->skipped, r->n_skipped)) < 0 ||
	    json_object_object_add(doc, "files", files) < 0)
		return -ENOMEM;
	/* the files one at a time: the document whole would cost many times the scan */
	fr.self = &fr;
	fr.error = scan_cursor_start(r, &fr.c);
	ret = fr.error ? fr.error
		       : jsonout_write_array(doc, "files", r->n, facts_element, &fr, out);
	scan_cursor_release(&fr.c);
	return fr.error ? fr.error : ret;
}
