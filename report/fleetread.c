/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the audit reports of `report merge` into the fleet (fleet_add()):
 * strictly (a report that is not one suid2cap wrote is refused with its name
 * and JSON path, and leaves the fleet as it was, at the cost of what it
 * added), the targets each stands for (a host, a root, or every package and
 * image of a package run), and the state every target gives each program.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "audit.h"
#include "fleet.h"
#include "fleetmodel.h"
#include "jsonout.h"
#include "jsonread.h"
#include "strhash.h"
#include "util.h"
#include "common.h"

/* The string member @key of @o, at @where of @source (see jsonread_strdup()). */
static int str(struct json_object *o, const char *key, bool required, char **ret,
	       const char *source, const char *where, struct s2c_error *err)
{
	struct jpath p = { .file = source };

	(void)snprintf(p.path, sizeof(p.path), "%s", where);
	return jsonread_strdup(o, &p, key, required, ret, err);
}

/*
 * Whether @o (a report, or one target of a package or image report) says its audit was
 * complete, and why not: its "complete" and, when given, its "incomplete" reasons (strings,
 * or objects with "reasons" for a report's run-level list); a report older than them that
 * says only "complete": false gets a reason saying so.
 */
static int read_complete(struct json_object *o, struct ftarget *t)
{
	struct json_object *c = jget(o, "complete", json_type_boolean);
	struct json_object *why = jget(o, "incomplete", json_type_array);
	int r = 0;

	t->complete = !c || json_object_get_boolean(c);
	for (size_t i = 0; why && i < json_object_array_length(why) && r == 0; i++) {
		struct json_object *x = json_object_array_get_idx(why, i);
		struct json_object *rs = jget(x, "reasons", json_type_array);

		if (json_object_is_type(x, json_type_string))
			r = strv_push(&t->incomplete, &t->n_incomplete,
				      strdup(json_object_get_string(x)));
		for (size_t k = 0; rs && k < json_object_array_length(rs) && r == 0; k++)
			if (json_object_is_type(json_object_array_get_idx(rs, k), json_type_string))
				r = strv_push(&t->incomplete, &t->n_incomplete, strdup(
					json_object_get_string(json_object_array_get_idx(rs, k))));
	}
	if (r == 0 && !t->complete && !t->n_incomplete)
		r = strv_push(&t->incomplete, &t->n_incomplete,
			      strdup("its report says the audit was incomplete"));
	return r;
}

/*
 * Room for one more of the @n elements of @size at *@v, grown by half at a
 * time from one: most programs of a fleet have few states, many have one.
 */
static int room(void **v, size_t n, size_t *alloc, size_t size)
{
	size_t want = *alloc + *alloc / 2 + 1;
	void *bigger;

	if (n < *alloc)
		return 0;
	bigger = reallocarray(*v, want, size);
	if (!bigger)
		return -ENOMEM;
	*v = bigger;
	*alloc = want;
	return 0;
}

static int add_target(struct fleet *f, struct ftarget *t, size_t *ret)
{
	if (room((void **)&f->t, f->n_t, &f->alloc_t, sizeof(*f->t)) < 0)
		return -ENOMEM;
	f->t[f->n_t] = *t;
	*ret = f->n_t++;
	return 0;
}

struct lookup {
	const struct fleet *f;
	const char *path;
};

static bool same_path(size_t pos, const void *userdata)
{
	const struct lookup *l = userdata;

	return pos < l->f->n_p && s2c_streq(l->f->p[pos].path, l->path);
}

static struct fprog *prog_get(struct fleet *f, const char *path)
{
	uint64_t h = strhash(path);
	size_t i = hashindex_find(&f->by_path, h, same_path, &(struct lookup){ f, path });

	if (i != SIZE_MAX)
		return &f->p[i];
	if (room((void **)&f->p, f->n_p, &f->alloc_p, sizeof(*f->p)) < 0)
		return NULL;
	f->p[f->n_p] = (struct fprog){ .path = strdup(path) };
	if (!f->p[f->n_p].path || hashindex_add(&f->by_path, h, f->n_p) < 0) {
		free(f->p[f->n_p].path);
		return NULL;
	}
	return &f->p[f->n_p++];
}

static unsigned finding_bits(struct json_object *ids)
{
	unsigned bits = 0;

	for (size_t i = 0; ids && i < json_object_array_length(ids); i++) {
		struct json_object *x = json_object_array_get_idx(ids, i);
		const char *s = json_object_is_type(x, json_type_string) ? json_object_get_string(x) : "";
		unsigned n;
		if (strncmp(s, "S2C", 3) == 0 && parse_uint(s + 3, 8, &n) == 0 && n >= 1)
			bits |= 1u << (n - 1);
	}
	return bits;
}

/*
 * Where a file of a package or image report comes from: its target, and for a
 * package's file that package and its version.
 */
static int file_origin(struct fstate *s, struct json_object *origin, const size_t *target_of,
		       size_t n_targets, const char *source, const char *where,
		       struct s2c_error *err)
{
	struct json_object *ti = jget(origin, "target", json_type_int);
	struct json_object *ok = jget(origin, "kind", json_type_string);
	int64_t k = ti ? json_object_get_int64(ti) : -1;
	char owhere[80];
	int r = 0;

	if (k < 0 || (uint64_t)k >= n_targets)
		return s2c_error_set(err, -EINVAL, "%s: %s.origin.target: not a target of the "
				     "report", source, where);
	s->target = target_of[k];
	/* A package's files belong to it and its version; an image's to the
	 * package that owns them in the image. */
	if (!ok || !s2c_streq(json_object_get_string(ok), "image")) {
		free(s->package);
		free(s->version);       /* the host's version of a package of that name */
		s->package = s->version = NULL;
		(void)snprintf(owhere, sizeof(owhere), "%s.origin", where);
		r = str(origin, "name", false, &s->package, source, owhere, err);
		if (r == 0)
			r = str(origin, "version", false, &s->version, source, owhere, err);
	}
	return r;
}

/* The string fields of state @s: the reader's until state_pool(), then the fleet's. */
#define STATE_STRINGS(s) { &(s)->verdict, &(s)->mode, &(s)->owner, &(s)->group, &(s)->caps, \
			   &(s)->caps_after, &(s)->risk, &(s)->package, &(s)->version, \
			   &(s)->state, &(s)->key }

static void state_free_strings(struct fstate *s)
{
	char **v[] = STATE_STRINGS(s);

	for (size_t i = 0; i < S2C_ELEMENTSOF(v); i++) {
		free(*v[i]);
		*v[i] = NULL;
	}
}

/* The strings of @s made the fleet's; on -ENOMEM, those not pooled are freed (NULL). */
static int state_pool(struct fleet *f, struct fstate *s)
{
	char **v[] = STATE_STRINGS(s);
	int r = 0;

	for (size_t i = 0; i < S2C_ELEMENTSOF(v); i++) {
		if (r == 0) {
			r = strpool_take(&f->strings, v[i]);
			continue;
		}
		free(*v[i]);
		*v[i] = NULL;
	}
	return r;
}

/* @s as what its target says about @path; the fleet's on success, still the caller's on failure. */
static int prog_add(struct fleet *f, const char *path, const struct fstate *s)
{
	struct fprog *p = prog_get(f, path);

	if (!p || room((void **)&p->v, p->n, &p->alloc, sizeof(*p->v)) < 0 ||
	    room((void **)&f->touched, f->n_touched, &f->alloc_touched, sizeof(*f->touched)) < 0)
		return -ENOMEM;
	f->touched[f->n_touched++] = (size_t)(p - f->p);
	p->v[p->n++] = *s;
	f->t[s->target].files++;
	return 0;
}

/* One file of a report into its program. */
static int add_file(struct fleet *f, const char *source, struct json_object *file, size_t idx,
		    const size_t *target_of, size_t n_targets, size_t report_target,
		    struct s2c_error *err)
{
	struct json_object *fa = jget(file, "file", json_type_object), *caps, *origin;
	_cleanup_free_ char *path = NULL;
	char where[64], fwhere[80];
	struct fstate s = { 0 };
	int r;

	(void)snprintf(where, sizeof(where), "$.files[%zu]", idx);
	(void)snprintf(fwhere, sizeof(fwhere), "%s.file", where);
	if (!fa)
		return s2c_error_set(err, -EINVAL, "%s: %s.file: missing", source, where);
	r = str(fa, "path", true, &path, source, fwhere, err);
	if (r == 0)
		r = str(file, "state", false, &s.state, source, where, err);
	if (r == 0)
		r = str(fa, "mode", true, &s.mode, source, fwhere, err);
	if (r == 0)
		r = str(fa, "owner", false, &s.owner, source, fwhere, err);
	if (r == 0)
		r = str(fa, "group", false, &s.group, source, fwhere, err);
	if (r == 0)
		r = str(file, "verdict", true, &s.verdict, source, where, err);
	if (r == 0)
		r = str(file, "caps_after", false, &s.caps_after, source, where, err);
	if (r == 0)
		r = str(file, "risk", false, &s.risk, source, where, err);
	if (r == 0)
		r = str(file, "package", false, &s.package, source, where, err);
	/* the version the host's package database gives; a package's own comes with its origin */
	if (r == 0)
		r = str(file, "package_version", false, &s.version, source, where, err);
	caps = jget(fa, "caps", json_type_object);
	if (r == 0 && caps) {
		char cwhere[96];
		(void)snprintf(cwhere, sizeof(cwhere), "%s.caps", fwhere);
		r = str(caps, "text", false, &s.caps, source, cwhere, err);
	}
	s.findings = finding_bits(jget(file, "findings", json_type_array));
	s.waived = json_object_get(jget(file, "waived", json_type_object));
	s.target = report_target;
	origin = jget(file, "origin", json_type_object);
	if (r == 0 && origin)
		r = file_origin(&s, origin, target_of, n_targets, source, where, err);
	if (r == 0 && !s2c_streq(s.verdict, "migrate") && !s2c_streq(s.verdict, "drop") &&
	    !s2c_streq(s.verdict, "keep") && !s2c_streq(s.verdict, "review"))
		r = s2c_error_set(err, -EINVAL, "%s: %s.verdict: not a verdict", source, where);
	if (r == 0 && (strlen(s.mode) != 4 || strspn(s.mode, "01234567") != 4))
		r = s2c_error_set(err, -EINVAL, "%s: %s.file.mode: not an octal mode", source, where);
	if (r == 0 && s.state && !s2c_streq(s.state, s.verdict) &&
	    !s2c_streq(s.state, "nothing to change"))
		r = s2c_error_set(err, -EINVAL, "%s: %s.state: not a state of its verdict", source, where);
	if (r == 0 && !s.state && !(s.state = strdup(s.verdict)))
		r = -ENOMEM;
	if (r == 0) {
		s.key = strdup_printf("%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", s.verdict, s.mode,
				      s.owner ? s.owner : "?", s.group ? s.group : "?",
				      s.caps ? s.caps : "-", s.caps_after ? s.caps_after : "-");
		if (!s.key)
			r = -ENOMEM;
	}
	if (r == 0)
		r = state_pool(f, &s);
	else
		state_free_strings(&s);
	if (r == 0)
		r = prog_add(f, path, &s);
	if (r < 0)
		fstate_release(&s);
	return r;
}

/* The target a whole report stands for (a host or a root). */
static int report_target(struct fleet *f, const char *source, struct json_object *doc,
			 size_t *ret, struct s2c_error *err)
{
	struct json_object *id = jget(doc, "target", json_type_object);
	struct json_object *tool = jget(doc, "tool", json_type_object);
	struct ftarget t = { 0 };
	_cleanup_free_ char *host = NULL, *kind = NULL, *root = NULL;
	int r = 0;

	if (id) {
		r = str(id, "hostname", false, &host, source, "$.target", err);
		if (r == 0)
			r = str(id, "kind", false, &kind, source, "$.target", err);
		if (r == 0)
			r = str(id, "machine_id", false, &t.machine_id, source, "$.target", err);
		if (r == 0)
			r = str(id, "time", false, &t.time, source, "$.target", err);
		if (r == 0)
			r = str(id, "auditor", false, &t.auditor, source, "$.target", err);
		if (r == 0)
			r = str(id, "label", false, &t.label, source, "$.target", err);
	}
	if (r == 0)
		r = str(doc, "root", false, &root, source, "$", err);
	if (r == 0 && tool)
		r = str(tool, "version", false, &t.tool, source, "$.tool", err);
	if (r == 0)
		r = read_complete(doc, &t);
	t.incomplete_allowed = jget(doc, "incomplete_allowed", json_type_boolean) &&
			       json_object_get_boolean(jget(doc, "incomplete_allowed",
							   json_type_boolean));
	if (r == 0) {
		const char *base = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
		/* Its label; a host by its name; a root by its name if it has one, else where
		 * it was.  fleet_finish() tells apart those that share a name. */
		if (t.label)
			t.name = strdup(t.label);
		else if (host)
			t.name = strdup(host);
		else if (root && !s2c_streq(root, "/") && t.auditor)
			t.name = strdup_printf("%s:%s", t.auditor, root);
		else
			t.name = strdup(base);
		t.kind = strdup(kind ? kind : "host");
		t.source = strdup(source);
		t.root = root && !s2c_streq(root, "/") ? strdup(root) : NULL;
		if (!t.name || !t.kind || !t.source || (root && !s2c_streq(root, "/") && !t.root))
			r = -ENOMEM;
	}
	if (r == 0)
		r = add_target(f, &t, ret);
	if (r < 0)
		ftarget_release(&t);
	return r;
}

static bool same_target(const struct ftarget *a, const struct ftarget *b)
{
	return s2c_streq(a->kind, b->kind) && s2c_streq(a->name, b->name) &&
	       ((!a->machine_id && !b->machine_id) ||
		(a->machine_id && b->machine_id && s2c_streq(a->machine_id, b->machine_id)));
}

/*
 * The files of a report: the array of a document parsed whole, or the places in its
 * text of those fleet_read() checked as it parsed (each parsed again when its turn
 * comes, so that a report of many files costs its text, not json-c's objects of all).
 */
struct file_list {
	struct json_object *files;
	const char *text;
	const size_t (*span)[2]; /* offset and length of each, in @text */
	size_t n;
};

static int fleet_add_one(struct fleet *f, const char *source, struct json_object *doc,
			 const struct file_list *l, struct s2c_error *err);

/* Free the strings of @v from @keep on, so that it holds its first @keep again. */
static void strv_truncate(char **v, size_t *n, size_t keep)
{
	for (size_t i = keep; i < *n; i++)
		free(v[i]);
	if (*n > keep)
		v[keep] = NULL;
	*n = keep;
}

/*
 * Undo everything a failed fleet_add_one() added: the fleet is as before.  The
 * states it added are those of its own targets (@n_t on), on the programs it
 * touched; the cost is what it added, not the size of the fleet.
 */
static void rollback(struct fleet *f, size_t n_t, size_t n_reports, size_t n_notes, size_t n_p)
{
	for (size_t k = 0; k < f->n_touched; k++) {
		struct fprog *p = &f->p[f->touched[k]];
		size_t keep = p->n;
		while (keep > 0 && p->v[keep - 1].target >= n_t)
			keep--;
		fprog_truncate(p, keep);
	}
	for (size_t i = n_p; i < f->n_p; i++)
		fprog_release(&f->p[i]);
	f->n_p = n_p;
	for (size_t i = n_t; i < f->n_t; i++)
		ftarget_release(&f->t[i]);
	f->n_t = n_t;
	strv_truncate(f->reports, &f->n_reports, n_reports);
	strv_truncate(f->notes, &f->n_notes, n_notes);
}

/* fleet_add_one(), undone when it fails. */
static int add_report(struct fleet *f, const char *source, struct json_object *doc,
		      const struct file_list *l, struct s2c_error *err)
{
	size_t n_t = f->n_t, n_reports = f->n_reports, n_p = f->n_p, n_notes = f->n_notes;
	int r;

	f->n_touched = 0;
	r = fleet_add_one(f, source, doc, l, err);
	if (r < 0)
		rollback(f, n_t, n_reports, n_notes, n_p);
	return r;
}

int fleet_add(struct fleet *f, const char *source, struct json_object *doc, struct s2c_error *err)
{
	struct json_object *files = jget(doc, "files", json_type_array);
	struct file_list l = { .files = files, .n = files ? json_object_array_length(files) : 0 };

	return add_report(f, source, doc, &l, err);
}

/* The places of the files in the text, as the parser meets them. */
struct span_list {
	size_t (*v)[2];         /* offset and length of each */
	size_t n, alloc;
};

static int keep_span(const struct jsonread_element *e, void *userdata)
{
	struct span_list *l = userdata;

	if (S2C_ARRAY_RESERVE(l->v, l->alloc, l->n + 1, 64) < 0)
		return -ENOMEM;
	l->v[l->n][0] = e->offset;
	l->v[l->n++][1] = e->length;
	return 0;
}

int fleet_read(struct fleet *f, const char *source, const char *display, const char *text,
	       size_t len, struct s2c_error *err)
{
	_cleanup_jsonput_ struct json_object *doc = NULL;
	struct span_list spans = { 0 };
	struct file_list l;
	int r = jsonread_parse_stream(text, len, FLEET_REPORT_MAX, display, "files", keep_span,
				      &spans, &doc, err);

	l = (struct file_list){ .text = text, .span = spans.v, .n = spans.n };
	if (r == 0)
		r = add_report(f, source, doc, &l, err);
	free(spans.v);
	return r;
}

/* The document is an audit report of the version this reads, with files. */
static int check_doc(const char *source, struct json_object *doc, struct s2c_error *err)
{
	struct json_object *kind = jget(doc, "kind", json_type_string);
	struct json_object *schema = jget(doc, "schema", json_type_int);
	struct json_object *files = jget(doc, "files", json_type_array);

	if (!kind || !s2c_streq(json_object_get_string(kind), "suid2cap-audit"))
		return s2c_error_set(err, -EINVAL, "%s: $.kind: not a suid2cap audit report", source);
	if (!schema || json_object_get_int(schema) != AUDIT_SCHEMA)
		return s2c_error_set(err, -EINVAL, "%s: $.schema: not version %d", source,
				     AUDIT_SCHEMA);
	if (!files)
		return s2c_error_set(err, -EINVAL, "%s: $.files: missing", source);
	return 0;
}

/* What every target of a package or image report shares: when, where, by which version. */
struct shared {
	char *time, *machine, *tool, *auditor;
	bool allowed;           /* the report allowed incomplete targets */
};

static void shared_release(struct shared *sh)
{
	free(sh->time);
	free(sh->machine);
	free(sh->tool);
	free(sh->auditor);
}

/*
 * Read them from the report @doc into @sh, which the caller releases, also on
 * failure.  A tool version that is not a string is left out.
 */
static int shared_read(const char *source, struct json_object *doc, struct shared *sh,
		       struct s2c_error *err)
{
	struct json_object *id = jget(doc, "target", json_type_object);
	int r = 0;

	if (id) {
		r = str(id, "time", false, &sh->time, source, "$.target", err);
		if (r == 0)
			r = str(id, "machine_id", false, &sh->machine, source, "$.target", err);
		if (r == 0)
			r = str(id, "auditor", false, &sh->auditor, source, "$.target", err);
		if (r < 0)
			return r;
	}
	sh->allowed = jget(doc, "incomplete_allowed", json_type_boolean) &&
		      json_object_get_boolean(jget(doc, "incomplete_allowed", json_type_boolean));
	if (jget(doc, "tool", json_type_object))
		(void)str(jget(doc, "tool", json_type_object), "version", false, &sh->tool, source,
			  "$.tool", err);
	return 0;
}

/* Target @i of a package or image report, @x, into the fleet at *@ret. */
static int package_target(struct fleet *f, const char *source, struct json_object *x, size_t i,
			  const struct shared *sh, size_t *ret, struct s2c_error *err)
{
	_cleanup_free_ char *name = NULL, *version = NULL, *arch = NULL, *tkind = NULL;
	_cleanup_free_ char *src = NULL;
	char where[48];
	struct ftarget t = { 0 };
	int r;

	(void)snprintf(where, sizeof(where), "$.targets[%zu]", i);
	if (!json_object_is_type(x, json_type_object))
		return s2c_error_set(err, -EINVAL, "%s: %s: not an object", source, where);
	r = str(x, "kind", true, &tkind, source, where, err);
	if (r == 0)
		r = str(x, "name", false, &name, source, where, err);
	if (r == 0)
		r = str(x, "version", false, &version, source, where, err);
	if (r == 0)
		r = str(x, "architecture", false, &arch, source, where, err);
	if (r == 0)
		r = str(x, "source", true, &src, source, where, err);
	if (r == 0)
		r = str(x, "error", false, &t.error, source, where, err);
	/* A target that could not be read is incomplete, whatever its report's version says. */
	if (r == 0 && t.error)
		r = strv_push(&t.incomplete, &t.n_incomplete, strdup_printf("could not be read: %s",
									    t.error));
	else if (r == 0)
		r = read_complete(x, &t);
	t.incomplete_allowed = sh->allowed;
	if (r < 0) {
		ftarget_release(&t);
		return r;
	}
	if (s2c_streq(tkind, "image"))
		t.name = strdup_printf("image %s", name ? name : src);
	else if (name)
		t.name = strdup_printf("%s %s %s", name, version ? version : "?", arch ? arch : "?");
	else
		t.name = strdup(src);
	t.kind = strdup(s2c_streq(tkind, "image") ? "image" : "package");
	t.source = strdup(source);
	t.time = sh->time ? strdup(sh->time) : NULL;
	t.machine_id = sh->machine ? strdup(sh->machine) : NULL;
	t.tool = sh->tool ? strdup(sh->tool) : NULL;
	t.auditor = sh->auditor ? strdup(sh->auditor) : NULL;
	if (!t.name || !t.kind || !t.source || (sh->time && !t.time) ||
	    (sh->machine && !t.machine_id) || (sh->tool && !t.tool) ||
	    (sh->auditor && !t.auditor) || add_target(f, &t, ret) < 0) {
		ftarget_release(&t);
		return -ENOMEM;
	}
	return 0;
}

/* The targets of a package or image report; *@ret_target_of maps each to its fleet target. */
static int package_targets(struct fleet *f, const char *source, struct json_object *doc,
			   struct json_object *targets, size_t **ret_target_of,
			   struct s2c_error *err)
{
	size_t n_targets = json_object_array_length(targets);
	_cleanup_free_ size_t *target_of = calloc(n_targets ? n_targets : 1, sizeof(*target_of));
	_cleanup_(shared_release) struct shared sh = { 0 };
	int r;

	if (!target_of)
		return -ENOMEM;
	r = shared_read(source, doc, &sh, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_targets; i++) {
		r = package_target(f, source, json_object_array_get_idx(targets, i), i, &sh,
				   &target_of[i], err);
		if (r < 0)
			return r;
	}
	*ret_target_of = TAKE_PTR(target_of);
	return 0;
}

/* File @i of @l: a new reference. */
static int file_at(const struct file_list *l, size_t i, const char *source,
		   struct json_object **ret, struct s2c_error *err)
{
	if (l->files) {
		*ret = json_object_get(json_object_array_get_idx(l->files, i));
		return 0;
	}
	/* checked when first parsed; a JSON null, which is no document, stays NULL */
	*ret = NULL;
	if (l->span[i][1] == 4 && memcmp(l->text + l->span[i][0], "null", 4) == 0)
		return 0;
	return jsonread_parse_mem(l->text + l->span[i][0], l->span[i][1], source, ret, err);
}

/* Every file of the report; a package or image report's each from one of its targets. */
static int add_files(struct fleet *f, const char *source, const struct file_list *l,
		     bool by_target, const size_t *target_of, size_t n_targets, size_t whole,
		     struct s2c_error *err)
{
	int r = 0;

	for (size_t i = 0; i < l->n && r == 0; i++) {
		_cleanup_jsonput_ struct json_object *x = NULL;

		r = file_at(l, i, source, &x, err);
		if (r < 0)
			return r;
		if (!json_object_is_type(x, json_type_object))
			return s2c_error_set(err, -EINVAL, "%s: $.files[%zu]: not an object", source, i);
		if (by_target && !jget(x, "origin", json_type_object))
			return s2c_error_set(err, -EINVAL, "%s: $.files[%zu].origin: missing", source, i);
		r = add_file(f, source, x, i, target_of, n_targets, whole, err);
	}
	return r;
}

static uint64_t target_hash(const struct ftarget *t)
{
	uint64_t h = strhash(t->kind) ^ strhash(t->name) * 0x9e3779b97f4a7c15ULL;

	return t->machine_id ? h ^ strhash(t->machine_id) * 0xc2b2ae3d27d4eb4fULL : h;
}

struct target_lookup {
	const struct fleet *f;
	const struct ftarget *t;
	size_t before;          /* only targets of earlier reports */
};

static bool same_target_at(size_t pos, const void *userdata)
{
	const struct target_lookup *l = userdata;

	return pos < l->before && same_target(&l->f->t[pos], l->t);
}

/*
 * The same target twice (a host audited twice, a package in two shards): keep
 * both, with a note naming the report that had it first.
 */
static int note_duplicates(struct fleet *f, size_t first)
{
	int r;

	for (size_t i = first; i < f->n_t; i++) {
		struct target_lookup l = { f, &f->t[i], first };
		size_t j = hashindex_find(&f->by_target, target_hash(&f->t[i]), same_target_at, &l);
		if (j == SIZE_MAX)
			continue;
		r = strv_push(&f->notes, &f->n_notes,
			      strdup_printf("'%s' is in '%s' and in '%s'; both are counted",
					    f->t[i].name, f->t[j].source, f->t[i].source));
		if (r < 0)
			return r;
	}
	for (size_t i = first; i < f->n_t; i++)
		if (hashindex_add(&f->by_target, target_hash(&f->t[i]), i) < 0)
			return -ENOMEM;
	return 0;
}

/* What a report said about its waivers, kept as it said it; the last step of a report. */
static int keep_waivers(struct fleet *f, const char *source, struct json_object *waivers)
{
	struct json_object *o;

	if (!waivers)
		return 0;
	if (!f->waivers && !(f->waivers = json_object_new_array()))
		return -ENOMEM;
	o = json_object_new_object();
	if (jsonout_push(f->waivers, o) < 0 || jsonout_add_string(o, "report", source) < 0 ||
	    jsonout_add(o, "waivers", json_object_get(waivers)) < 0)
		return -ENOMEM;
	return 0;
}

static int fleet_add_one(struct fleet *f, const char *source, struct json_object *doc,
			 const struct file_list *l, struct s2c_error *err)
{
	struct json_object *targets = jget(doc, "targets", json_type_array);
	_cleanup_free_ size_t *target_of = NULL;
	size_t n_targets = targets ? json_object_array_length(targets) : 0, whole = SIZE_MAX;
	size_t first = f->n_t;
	int r;

	r = check_doc(source, doc, err);
	if (r < 0)
		return r;
	r = strv_push(&f->reports, &f->n_reports, strdup(source));
	if (r < 0)
		return r;
	if (!targets)
		r = report_target(f, source, doc, &whole, err);
	else
		r = package_targets(f, source, doc, targets, &target_of, err);
	if (r == 0)
		r = add_files(f, source, l, targets != NULL, target_of, n_targets, whole, err);
	if (r == 0)
		r = note_duplicates(f, first);
	if (r == 0)
		r = keep_waivers(f, source, jget(doc, "waivers", json_type_array));
	return r;
}
