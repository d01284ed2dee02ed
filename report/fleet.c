/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "audit.h"
#include "fleet.h"
#include "hash.h"
#include "html.h"
#include "jsonout.h"
#include "markdown.h"
#include "sarif.h"
#include "util.h"
#include "common.h"

/* Most drifting targets listed per program in text, Markdown and HTML (JSON has them all). */
#define DRIFT_SHOWN 20

/* One target of the fleet: a host, a root, an image or a package. */
struct ftarget {
	char *name;             /* "web1", "image s2c/test:1", "iputils-ping 3:20221126 amd64" */
	char *kind;             /* "host", "root", "image", "package" */
	char *machine_id, *time, *source, *error, *tool;
	size_t files;
};

/* What one target says about one program. */
struct fstate {
	size_t target;
	char *verdict, *mode, *owner, *group, *caps, *caps_after, *risk, *package, *version;
	unsigned findings;      /* bit k: finding S2C00(k+1) */
	char *key;              /* the fields that make two states the same, joined */
};

struct fprog {
	char *path;
	struct fstate *v;
	size_t n;
	size_t major;           /* index in v of a state of the majority */
	size_t n_major;         /* how many agree with it */
};

struct fleet {
	struct ftarget *t;
	size_t n_t;
	struct fprog *p;
	size_t n_p;
	char **reports;         /* sources */
	size_t n_reports;
	char **notes;
	size_t n_notes;
};

static void state_release(struct fstate *s)
{
	free(s->verdict);
	free(s->mode);
	free(s->owner);
	free(s->group);
	free(s->caps);
	free(s->caps_after);
	free(s->risk);
	free(s->package);
	free(s->version);
	free(s->key);
}

struct fleet *fleet_free(struct fleet *f)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < f->n_t; i++) {
		struct ftarget *t = &f->t[i];
		free(t->name);
		free(t->kind);
		free(t->machine_id);
		free(t->time);
		free(t->source);
		free(t->error);
		free(t->tool);
	}
	free(f->t);
	for (size_t i = 0; i < f->n_p; i++) {
		for (size_t j = 0; j < f->p[i].n; j++)
			state_release(&f->p[i].v[j]);
		free(f->p[i].v);
		free(f->p[i].path);
	}
	free(f->p);
	for (size_t i = 0; i < f->n_reports; i++)
		free(f->reports[i]);
	free(f->reports);
	for (size_t i = 0; i < f->n_notes; i++)
		free(f->notes[i]);
	free(f->notes);
	free(f);
	return NULL;
}

int fleet_new(struct fleet **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
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

static int strv_add(char ***v, size_t *n, char *s)
{
	char **nv;

	if (!s)
		return -ENOMEM;
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	*v = nv;
	nv[(*n)++] = s;
	return 0;
}

/* --- reading -------------------------------------------------------------------------------- */

static struct json_object *get(struct json_object *o, const char *key, json_type type)
{
	struct json_object *v;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

/* A string member (NULL for null or absent); -EINVAL when present with another type. */
static int str(struct json_object *o, const char *key, bool required, char **ret,
	       const char *source, const char *where, struct s2c_error *err)
{
	struct json_object *v;

	*ret = NULL;
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
		if (required)
			return s2c_error_set(err, -EINVAL, "%s: %s.%s: missing", source, where, key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return s2c_error_set(err, -EINVAL, "%s: %s.%s: not a string", source, where, key);
	*ret = strdup(json_object_get_string(v));
	return *ret ? 0 : -ENOMEM;
}

static int add_target(struct fleet *f, struct ftarget *t, size_t *ret)
{
	struct ftarget *v = realloc(f->t, (f->n_t + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	f->t = v;
	v[f->n_t] = *t;
	*ret = f->n_t++;
	return 0;
}

static struct fprog *prog_get(struct fleet *f, const char *path)
{
	struct fprog *v;

	for (size_t i = 0; i < f->n_p; i++)
		if (s2c_streq(f->p[i].path, path))
			return &f->p[i];
	v = realloc(f->p, (f->n_p + 1) * sizeof(*v));
	if (!v)
		return NULL;
	f->p = v;
	v[f->n_p] = (struct fprog){ .path = strdup(path) };
	if (!v[f->n_p].path)
		return NULL;
	return &v[f->n_p++];
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

/* One file of a report into its program. */
static int add_file(struct fleet *f, const char *source, struct json_object *file, size_t idx,
		    const size_t *target_of, size_t n_targets, size_t report_target,
		    struct s2c_error *err)
{
	struct json_object *fa = get(file, "file", json_type_object), *caps, *origin;
	_cleanup_free_ char *path = NULL;
	char where[64];
	struct fstate s = { 0 };
	struct fprog *p;
	int r;

	(void)snprintf(where, sizeof(where), "$.files[%zu]", idx);
	if (!fa)
		return s2c_error_set(err, -EINVAL, "%s: %s.file: missing", source, where);
	r = str(fa, "path", true, &path, source, where, err);
	if (r == 0)
		r = str(fa, "mode", true, &s.mode, source, where, err);
	if (r == 0)
		r = str(fa, "owner", false, &s.owner, source, where, err);
	if (r == 0)
		r = str(fa, "group", false, &s.group, source, where, err);
	if (r == 0)
		r = str(file, "verdict", true, &s.verdict, source, where, err);
	if (r == 0)
		r = str(file, "caps_after", false, &s.caps_after, source, where, err);
	if (r == 0)
		r = str(file, "risk", false, &s.risk, source, where, err);
	if (r == 0)
		r = str(file, "package", false, &s.package, source, where, err);
	caps = get(fa, "caps", json_type_object);
	if (r == 0 && caps)
		r = str(caps, "text", false, &s.caps, source, where, err);
	s.findings = finding_bits(get(file, "findings", json_type_array));
	s.target = report_target;
	origin = get(file, "origin", json_type_object);
	if (r == 0 && origin) {
		struct json_object *ti = get(origin, "target", json_type_int);
		struct json_object *ok = get(origin, "kind", json_type_string);
		int64_t k = ti ? json_object_get_int64(ti) : -1;
		if (k < 0 || (uint64_t)k >= n_targets) {
			r = s2c_error_set(err, -EINVAL, "%s: %s.origin.target: not a target of the "
					  "report", source, where);
		} else {
			s.target = target_of[k];
			/* A package's files belong to it and its version; an image's to the
			 * package that owns them in the image. */
			if (!ok || !s2c_streq(json_object_get_string(ok), "image")) {
				free(s.package);
				s.package = NULL;
				r = str(origin, "name", false, &s.package, source, where, err);
				if (r == 0)
					r = str(origin, "version", false, &s.version, source, where,
						err);
			}
		}
	}
	if (r == 0 && !s2c_streq(s.verdict, "migrate") && !s2c_streq(s.verdict, "drop") &&
	    !s2c_streq(s.verdict, "keep") && !s2c_streq(s.verdict, "review"))
		r = s2c_error_set(err, -EINVAL, "%s: %s.verdict: not a verdict", source, where);
	if (r == 0 && (strlen(s.mode) != 4 || strspn(s.mode, "01234567") != 4))
		r = s2c_error_set(err, -EINVAL, "%s: %s.file.mode: not an octal mode", source, where);
	if (r == 0) {
		s.key = fmt("%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", s.verdict, s.mode,
			    s.owner ? s.owner : "?", s.group ? s.group : "?", s.caps ? s.caps : "-",
			    s.caps_after ? s.caps_after : "-");
		if (!s.key)
			r = -ENOMEM;
	}
	if (r == 0 && !(p = prog_get(f, path)))
		r = -ENOMEM;
	if (r == 0) {
		struct fstate *v = realloc(p->v, (p->n + 1) * sizeof(*v));
		if (!v) {
			r = -ENOMEM;
		} else {
			p->v = v;
			v[p->n++] = s;
			f->t[s.target].files++;
			return 0;
		}
	}
	state_release(&s);
	return r;
}

/* The target a whole report stands for (a host or a root). */
static int report_target(struct fleet *f, const char *source, struct json_object *doc,
			 size_t *ret, struct s2c_error *err)
{
	struct json_object *id = get(doc, "target", json_type_object);
	struct json_object *tool = get(doc, "tool", json_type_object);
	struct ftarget t = { 0 };
	_cleanup_free_ char *host = NULL, *kind = NULL, *root = NULL, *auditor = NULL;
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
			r = str(id, "auditor", false, &auditor, source, "$.target", err);
	}
	if (r == 0)
		r = str(doc, "root", false, &root, source, "$", err);
	if (r == 0 && tool)
		r = str(tool, "version", false, &t.tool, source, "$.tool", err);
	if (r == 0) {
		const char *base = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
		/* A host by its name; a root by its name if it has one, else where it was. */
		if (host)
			t.name = strdup(host);
		else if (root && !s2c_streq(root, "/") && auditor)
			t.name = fmt("%s:%s", auditor, root);
		else
			t.name = strdup(base);
		t.kind = strdup(kind ? kind : "host");
		t.source = strdup(source);
		if (!t.name || !t.kind || !t.source)
			r = -ENOMEM;
	}
	if (r == 0)
		r = add_target(f, &t, ret);
	if (r < 0) {
		free(t.name);
		free(t.kind);
		free(t.source);
		free(t.machine_id);
		free(t.time);
		free(t.tool);
	}
	return r;
}

static bool same_target(const struct ftarget *a, const struct ftarget *b)
{
	return s2c_streq(a->kind, b->kind) && s2c_streq(a->name, b->name) &&
	       ((!a->machine_id && !b->machine_id) ||
		(a->machine_id && b->machine_id && s2c_streq(a->machine_id, b->machine_id)));
}

int fleet_note(struct fleet *f, const char *note)
{
	return strv_add(&f->notes, &f->n_notes, strdup(note));
}

static int fleet_add_one(struct fleet *f, const char *source, struct json_object *doc,
			 struct s2c_error *err);

/* Undo everything a failed fleet_add_one() added: the fleet is as before. */
static void rollback(struct fleet *f, size_t n_t, size_t n_reports, size_t n_p, const size_t *n_states)
{
	for (size_t i = 0; i < f->n_p; i++) {
		struct fprog *p = &f->p[i];
		size_t keep = i < n_p ? n_states[i] : 0;
		for (size_t j = keep; j < p->n; j++)
			state_release(&p->v[j]);
		p->n = keep;
		if (i >= n_p) {
			free(p->v);
			free(p->path);
		}
	}
	f->n_p = n_p;
	for (size_t i = n_t; i < f->n_t; i++) {
		struct ftarget *t = &f->t[i];
		free(t->name);
		free(t->kind);
		free(t->machine_id);
		free(t->time);
		free(t->source);
		free(t->error);
		free(t->tool);
	}
	f->n_t = n_t;
	for (size_t i = n_reports; i < f->n_reports; i++)
		free(f->reports[i]);
	f->n_reports = n_reports;
}

int fleet_add(struct fleet *f, const char *source, struct json_object *doc, struct s2c_error *err)
{
	_cleanup_free_ size_t *n_states = calloc(f->n_p + 1, sizeof(*n_states));
	size_t n_t = f->n_t, n_reports = f->n_reports, n_p = f->n_p, n_notes = f->n_notes;
	int r;

	if (!n_states)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_p; i++)
		n_states[i] = f->p[i].n;
	r = fleet_add_one(f, source, doc, err);
	if (r < 0) {
		rollback(f, n_t, n_reports, n_p, n_states);
		for (size_t i = n_notes; i < f->n_notes; i++)
			free(f->notes[i]);
		f->n_notes = n_notes;
	}
	return r;
}

static int fleet_add_one(struct fleet *f, const char *source, struct json_object *doc,
			 struct s2c_error *err)
{
	struct json_object *kind = get(doc, "kind", json_type_string);
	struct json_object *schema = get(doc, "schema", json_type_int);
	struct json_object *files = get(doc, "files", json_type_array);
	struct json_object *targets = get(doc, "targets", json_type_array);
	struct json_object *id = get(doc, "target", json_type_object);
	_cleanup_free_ size_t *target_of = NULL;
	size_t n_targets = targets ? json_object_array_length(targets) : 0, whole = SIZE_MAX;
	size_t first = f->n_t;
	_cleanup_free_ char *time = NULL, *machine = NULL, *tool = NULL;
	int r;

	if (!kind || !s2c_streq(json_object_get_string(kind), "suid2cap-audit"))
		return s2c_error_set(err, -EINVAL, "%s: $.kind: not a suid2cap audit report", source);
	if (!schema || json_object_get_int(schema) != AUDIT_SCHEMA)
		return s2c_error_set(err, -EINVAL, "%s: $.schema: not version %d", source,
				     AUDIT_SCHEMA);
	if (!files)
		return s2c_error_set(err, -EINVAL, "%s: $.files: missing", source);
	r = strv_add(&f->reports, &f->n_reports, strdup(source));
	if (r < 0)
		return r;
	if (!targets) {
		r = report_target(f, source, doc, &whole, err);
		if (r < 0)
			return r;
	} else {
		target_of = calloc(n_targets ? n_targets : 1, sizeof(*target_of));
		if (!target_of)
			return -ENOMEM;
		if (id) {
			r = str(id, "time", false, &time, source, "$.target", err);
			if (r == 0)
				r = str(id, "machine_id", false, &machine, source, "$.target", err);
			if (r < 0)
				return r;
		}
		if (get(doc, "tool", json_type_object))
			(void)str(get(doc, "tool", json_type_object), "version", false, &tool, source,
				  "$.tool", err);
		for (size_t i = 0; i < n_targets; i++) {
			struct json_object *x = json_object_array_get_idx(targets, i);
			_cleanup_free_ char *name = NULL, *version = NULL, *arch = NULL, *tkind = NULL;
			_cleanup_free_ char *src = NULL;
			char where[48];
			struct ftarget t = { 0 };
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
			if (r < 0) {
				free(t.error);
				return r;
			}
			if (s2c_streq(tkind, "image"))
				t.name = fmt("image %s", name ? name : src);
			else if (name)
				t.name = fmt("%s %s %s", name, version ? version : "?", arch ? arch : "?");
			else
				t.name = strdup(src);
			t.kind = strdup(s2c_streq(tkind, "image") ? "image" : "package");
			t.source = strdup(source);
			t.time = time ? strdup(time) : NULL;
			t.machine_id = machine ? strdup(machine) : NULL;
			t.tool = tool ? strdup(tool) : NULL;
			if (!t.name || !t.kind || !t.source || (time && !t.time) ||
			    (machine && !t.machine_id) || (tool && !t.tool) ||
			    add_target(f, &t, &target_of[i]) < 0) {
				free(t.name);
				free(t.kind);
				free(t.source);
				free(t.time);
				free(t.machine_id);
				free(t.tool);
				free(t.error);
				return -ENOMEM;
			}
		}
	}
	for (size_t i = 0; i < json_object_array_length(files); i++) {
		struct json_object *x = json_object_array_get_idx(files, i);
		if (!json_object_is_type(x, json_type_object))
			return s2c_error_set(err, -EINVAL, "%s: $.files[%zu]: not an object", source, i);
		if (targets && !get(x, "origin", json_type_object))
			return s2c_error_set(err, -EINVAL, "%s: $.files[%zu].origin: missing", source, i);
		r = add_file(f, source, x, i, target_of, n_targets, whole, err);
		if (r < 0)
			return r;
	}
	/* The same target twice (a host audited twice, a package in two shards): keep both. */
	for (size_t i = first; i < f->n_t; i++)
		for (size_t j = 0; j < first; j++)
			if (same_target(&f->t[i], &f->t[j])) {
				r = strv_add(&f->notes, &f->n_notes,
					     fmt("'%s' is in '%s' and in '%s'; both are counted",
						 f->t[i].name, f->t[j].source, f->t[i].source));
				if (r < 0)
					return r;
				break;
			}
	return 0;
}

/* --- majorities ----------------------------------------------------------------------------- */

static int cmp_prog(const void *a, const void *b)
{
	return strcmp(((const struct fprog *)a)->path, ((const struct fprog *)b)->path);
}

int fleet_finish(struct fleet *f)
{
	qsort(f->p, f->n_p, sizeof(*f->p), cmp_prog);
	for (size_t i = 0; i < f->n_p; i++) {
		struct fprog *p = &f->p[i];
		p->major = 0;
		p->n_major = 0;
		for (size_t a = 0; a < p->n; a++) {
			size_t n = 0;
			for (size_t b = 0; b < p->n; b++)
				n += s2c_streq(p->v[a].key, p->v[b].key);
			/* Most targets win; a tie goes to the smaller state, so the result is stable. */
			if (n > p->n_major ||
			    (n == p->n_major && strcmp(p->v[a].key, p->v[p->major].key) < 0)) {
				p->major = a;
				p->n_major = n;
			}
		}
	}
	return 0;
}

int fleet_drift(const struct fleet *f)
{
	for (size_t i = 0; i < f->n_p; i++)
		if (f->p[i].n_major != f->p[i].n)
			return 1;
	return 0;
}

static bool drifts(const struct fprog *p, size_t k)
{
	return !s2c_streq(p->v[k].key, p->v[p->major].key);
}

/* "verdict migrate, 4755 root:root, caps -, after cap_net_raw=p" */
static char *state_text(const struct fstate *s)
{
	return fmt("%s, %s %s:%s, caps %s -> %s", s->verdict, s->mode, s->owner ? s->owner : "?",
		   s->group ? s->group : "?", s->caps ? s->caps : "-",
		   s->caps_after ? s->caps_after : "-");
}

/* Package versions of @p: "iputils-ping 3:20221126 (2)"; NULL-terminated, owned. */
static char **versions(const struct fprog *p)
{
	char **v = calloc(p->n + 1, sizeof(*v));
	size_t *count = calloc(p->n + 1, sizeof(*count));
	size_t n = 0;

	if (!v || !count) {
		free(v);
		free(count);
		return NULL;
	}
	for (size_t k = 0; k < p->n; k++) {
		_cleanup_free_ char *name = NULL;
		size_t j;
		if (!p->v[k].package)
			continue;
		name = p->v[k].version ? fmt("%s %s", p->v[k].package, p->v[k].version) :
					 strdup(p->v[k].package);
		if (!name)
			continue;
		for (j = 0; j < n && !s2c_streq(v[j], name); j++)
			;
		if (j == n)
			v[n++] = TAKE_PTR(name);
		count[j]++;
	}
	for (size_t j = 0; j < n; j++) {
		char *with = fmt("%s (%zu)", v[j], count[j]);
		if (with) {
			free(v[j]);
			v[j] = with;
		}
	}
	free(count);
	return v;
}

static size_t targets_read(const struct fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_t; i++)
		n += !f->t[i].error;
	return n;
}

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
	    add_str(o, "verdict", s->verdict) < 0 || add_str(o, "mode", s->mode) < 0 ||
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
	return TAKE_PTR(o);
}

struct json_object *fleet_json(const struct fleet *f)
{
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
	struct json_object *tool, *reports, *targets, *programs, *summary, *notes;
	size_t drifting = 0;

	for (size_t i = 0; i < f->n_p; i++)
		drifting += f->p[i].n_major != f->p[i].n;
	tool = json_object_new_object();
	if (!doc || jsonout_add(doc, "schema", json_object_new_int(FLEET_SCHEMA)) < 0 ||
	    jsonout_add_string(doc, "kind", "suid2cap-fleet") < 0 ||
	    jsonout_add(doc, "tool", tool) < 0 || jsonout_add_string(tool, "name", "suid2cap") < 0 ||
	    jsonout_add_string(tool, "version", S2C_VERSION) < 0)
		return NULL;
	summary = json_object_new_object();
	if (jsonout_add(doc, "summary", summary) < 0 ||
	    jsonout_add_int(summary, "reports", (int64_t)f->n_reports) < 0 ||
	    jsonout_add_int(summary, "targets", (int64_t)f->n_t) < 0 ||
	    jsonout_add_int(summary, "unreadable", (int64_t)(f->n_t - targets_read(f))) < 0 ||
	    jsonout_add_int(summary, "programs", (int64_t)f->n_p) < 0 ||
	    jsonout_add_int(summary, "drifting", (int64_t)drifting) < 0)
		return NULL;
	reports = json_object_new_array();
	notes = json_object_new_array();
	if (jsonout_add(doc, "reports", reports) < 0 || jsonout_add(doc, "notes", notes) < 0)
		return NULL;
	for (size_t i = 0; i < f->n_reports; i++)
		if (jsonout_push(reports, jsonout_string(f->reports[i])) < 0)
			return NULL;
	for (size_t i = 0; i < f->n_notes; i++)
		if (jsonout_push(notes, jsonout_string(f->notes[i])) < 0)
			return NULL;
	targets = json_object_new_array();
	if (jsonout_add(doc, "targets", targets) < 0)
		return NULL;
	for (size_t i = 0; i < f->n_t; i++) {
		const struct ftarget *t = &f->t[i];
		struct json_object *o = json_object_new_object();
		if (jsonout_push(targets, o) < 0 || add_str(o, "name", t->name) < 0 ||
		    add_str(o, "kind", t->kind) < 0 || add_str(o, "machine_id", t->machine_id) < 0 ||
		    add_str(o, "time", t->time) < 0 || add_str(o, "report", t->source) < 0 ||
		    add_str(o, "tool_version", t->tool) < 0 || add_str(o, "error", t->error) < 0 ||
		    jsonout_add_int(o, "files", (int64_t)t->files) < 0)
			return NULL;
	}
	programs = json_object_new_array();
	if (jsonout_add(doc, "programs", programs) < 0)
		return NULL;
	for (size_t i = 0; i < f->n_p; i++) {
		const struct fprog *p = &f->p[i];
		struct json_object *o = json_object_new_object(), *verdicts, *drift, *vers;
		char **vv = versions(p);
		size_t counts[4] = { 0 };
		static const char *const names[4] = { "migrate", "drop", "keep", "review" };

		if (!vv || jsonout_push(programs, o) < 0 || add_str(o, "path", p->path) < 0 ||
		    jsonout_add_int(o, "targets", (int64_t)p->n) < 0 ||
		    jsonout_add_int(o, "agree", (int64_t)p->n_major) < 0 ||
		    jsonout_add(o, "majority", state_json(f, &p->v[p->major])) < 0) {
			strv_free(vv);
			return NULL;
		}
		for (size_t k = 0; k < p->n; k++)
			for (size_t j = 0; j < 4; j++)
				counts[j] += s2c_streq(p->v[k].verdict, names[j]);
		verdicts = json_object_new_object();
		drift = json_object_new_array();
		vers = json_object_new_array();
		if (jsonout_add(o, "verdicts", verdicts) < 0 || jsonout_add(o, "drift", drift) < 0 ||
		    jsonout_add(o, "versions", vers) < 0) {
			strv_free(vv);
			return NULL;
		}
		for (size_t j = 0; j < 4; j++)
			if (jsonout_add_int(verdicts, names[j], (int64_t)counts[j]) < 0) {
				strv_free(vv);
				return NULL;
			}
		for (size_t k = 0; k < p->n; k++)
			if (drifts(p, k) && jsonout_push(drift, state_json(f, &p->v[k])) < 0) {
				strv_free(vv);
				return NULL;
			}
		for (size_t k = 0; vv[k]; k++)
			if (jsonout_push(vers, jsonout_string(vv[k])) < 0) {
				strv_free(vv);
				return NULL;
			}
		strv_free(vv);
	}
	return TAKE_PTR(doc);
}

/* --- text ----------------------------------------------------------------------------------- */

static void put_esc(FILE *out, const char *s)
{
	_cleanup_free_ char *e = escape_text(s ? s : "");
	(void)fputs(e ? e : "?", out);
}

int fleet_text(const struct fleet *f, FILE *out)
{
	size_t drifting = 0;

	for (size_t i = 0; i < f->n_p; i++)
		drifting += f->p[i].n_major != f->p[i].n;
	(void)fprintf(out, "suid2cap fleet report: %zu report%s, %zu target%s (%zu could not be "
		      "read), %zu program%s, %zu differ%s between targets\n",
		      f->n_reports, f->n_reports == 1 ? "" : "s", f->n_t, f->n_t == 1 ? "" : "s",
		      f->n_t - targets_read(f), f->n_p, f->n_p == 1 ? "" : "s", drifting,
		      drifting == 1 ? "s" : "");
	for (size_t i = 0; i < f->n_notes; i++) {
		(void)fputs("note: ", out);
		put_esc(out, f->notes[i]);
		(void)fputc('\n', out);
	}
	(void)fputs("\nTARGETS\n", out);
	for (size_t i = 0; i < f->n_t; i++) {
		const struct ftarget *t = &f->t[i];
		(void)fputs("  ", out);
		put_esc(out, t->name);
		(void)fprintf(out, " (%s", t->kind);
		if (t->machine_id)
			(void)fprintf(out, ", machine %.12s", t->machine_id);
		if (t->time) {
			(void)fputs(", ", out);
			put_esc(out, t->time);
		}
		(void)fputs("): ", out);
		if (t->error) {
			(void)fputs("could not be read: ", out);
			put_esc(out, t->error);
			(void)fputc('\n', out);
		} else {
			(void)fprintf(out, "%zu privileged file%s\n", t->files, t->files == 1 ? "" : "s");
		}
	}
	(void)fputs("\nPROGRAMS\n", out);
	for (size_t i = 0; i < f->n_p; i++) {
		const struct fprog *p = &f->p[i];
		_cleanup_free_ char *major = state_text(&p->v[p->major]);
		char **vv = versions(p);
		size_t shown = 0;

		if (!major || !vv) {
			strv_free(vv);
			return -ENOMEM;
		}
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
		strv_free(vv);
		for (size_t k = 0; k < p->n; k++) {
			_cleanup_free_ char *st = NULL;
			if (!drifts(p, k))
				continue;
			if (++shown > DRIFT_SHOWN) {
				(void)fprintf(out, "      … and %zu more that differ (see the JSON report)\n",
					      p->n - p->n_major - DRIFT_SHOWN);
				break;
			}
			st = state_text(&p->v[k]);
			if (!st)
				return -ENOMEM;
			(void)fputs("      differs on ", out);
			put_esc(out, f->t[p->v[k].target].name);
			(void)fputs(": ", out);
			put_esc(out, st);
			(void)fputc('\n', out);
		}
	}
	return ferror(out) ? -EIO : 0;
}

/* --- Markdown ------------------------------------------------------------------------------- */

int fleet_markdown(const struct fleet *f, FILE *out)
{
	int r = 0;

	(void)fprintf(out, "# suid2cap fleet report\n\n%zu reports, %zu targets (%zu could not be "
		      "read), %zu programs.\n", f->n_reports, f->n_t, f->n_t - targets_read(f),
		      f->n_p);
	for (size_t i = 0; i < f->n_notes && r == 0; i++) {
		(void)fputs(i ? "\n- " : "\n- ", out);
		r = markdown_escape(out, f->notes[i]);
		(void)fputs(i + 1 == f->n_notes ? "\n" : "", out);
	}
	(void)fputs("\n## Targets\n\n| target | kind | machine | time | files | error |\n"
		    "|---|---|---|---|---:|---|\n", out);
	for (size_t i = 0; i < f->n_t && r == 0; i++) {
		const struct ftarget *t = &f->t[i];
		(void)fputs("| ", out);
		r = markdown_escape(out, t->name);
		(void)fprintf(out, " | %s | %s%.12s%s | ", t->kind, t->machine_id ? "`" : "",
			      t->machine_id ? t->machine_id : "–", t->machine_id ? "`" : "");
		if (r == 0)
			r = markdown_escape(out, t->time ? t->time : "–");
		(void)fprintf(out, " | %zu | ", t->files);
		if (r == 0)
			r = markdown_escape(out, t->error ? t->error : "");
		(void)fputs(" |\n", out);
	}
	(void)fputs("\n## Programs\n\n| program | targets | agree | majority | versions |\n"
		    "|---|---:|---:|---|---|\n", out);
	for (size_t i = 0; i < f->n_p && r == 0; i++) {
		const struct fprog *p = &f->p[i];
		_cleanup_free_ char *major = state_text(&p->v[p->major]);
		char **vv = versions(p);
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
		size_t shown = 0;
		if (p->n_major == p->n)
			continue;
		(void)fputs("\n### ", out);
		r = markdown_escape(out, p->path);
		(void)fputs("\n\n", out);
		for (size_t k = 0; k < p->n && r == 0; k++) {
			_cleanup_free_ char *st = NULL;
			if (!drifts(p, k))
				continue;
			if (++shown > DRIFT_SHOWN) {
				(void)fprintf(out, "- … and %zu more\n", p->n - p->n_major - DRIFT_SHOWN);
				break;
			}
			st = state_text(&p->v[k]);
			if (!st)
				return -ENOMEM;
			(void)fputs("- ", out);
			r = markdown_escape(out, f->t[p->v[k].target].name);
			(void)fputs(": ", out);
			if (r == 0)
				r = markdown_escape(out, st);
			(void)fputc('\n', out);
		}
	}
	return r < 0 ? r : ferror(out) ? -EIO : 0;
}

/* --- HTML ----------------------------------------------------------------------------------- */

static const char fleet_style[] =
	"body{font-family:sans-serif;margin:2em;max-width:80em}"
	"table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;"
	"text-align:left;vertical-align:top}.drift{color:#a00}code{font-size:.95em}";

int fleet_html(const struct fleet *f, FILE *out)
{
	char hs[64];
	int r = html_csp_hash(fleet_style, hs, sizeof(hs));

	if (r < 0)
		return r;
	(void)fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		      "style-src %s; img-src 'none'; script-src 'none'; base-uri 'none'; "
		      "form-action 'none'\">\n<meta name=\"referrer\" content=\"no-referrer\">\n"
		      "<meta name=\"generator\" content=\"suid2cap %s\">\n<title>suid2cap fleet report"
		      "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>suid2cap fleet report</h1>\n"
		      "<p>%zu reports, %zu targets (%zu could not be read), %zu programs.</p>\n",
		      hs, S2C_VERSION, fleet_style, f->n_reports, f->n_t, f->n_t - targets_read(f),
		      f->n_p);
	for (size_t i = 0; i < f->n_notes && r == 0; i++) {
		(void)fputs("<p>note: ", out);
		r = html_escape(out, f->notes[i]);
		(void)fputs("</p>\n", out);
	}
	(void)fputs("<h2>Targets</h2>\n<table>\n<thead><tr><th>target</th><th>kind</th><th>machine"
		    "</th><th>time</th><th>files</th><th>error</th></tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < f->n_t && r == 0; i++) {
		const struct ftarget *t = &f->t[i];
		(void)fputs("<tr><td>", out);
		r = html_escape(out, t->name);
		(void)fprintf(out, "</td><td>%s</td><td><code>%.12s</code></td><td>", t->kind,
			      t->machine_id ? t->machine_id : "");
		if (r == 0)
			r = html_escape(out, t->time ? t->time : "");
		(void)fprintf(out, "</td><td>%zu</td><td>", t->files);
		if (r == 0)
			r = html_escape(out, t->error ? t->error : "");
		(void)fputs("</td></tr>\n", out);
	}
	(void)fputs("</tbody>\n</table>\n<h2>Programs</h2>\n<table>\n<thead><tr><th>program</th>"
		    "<th>targets</th><th>agree</th><th>majority</th><th>versions</th>"
		    "<th>differs on</th></tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < f->n_p && r == 0; i++) {
		const struct fprog *p = &f->p[i];
		_cleanup_free_ char *major = state_text(&p->v[p->major]);
		char **vv = versions(p);
		size_t shown = 0;
		if (!major || !vv) {
			strv_free(vv);
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
		for (size_t k = 0; k < p->n && r == 0; k++) {
			_cleanup_free_ char *st = NULL;
			if (!drifts(p, k))
				continue;
			if (++shown > DRIFT_SHOWN) {
				(void)fprintf(out, "… and %zu more", p->n - p->n_major - DRIFT_SHOWN);
				break;
			}
			st = state_text(&p->v[k]);
			if (!st)
				return -ENOMEM;
			r = html_escape(out, f->t[p->v[k].target].name);
			(void)fputs(": ", out);
			if (r == 0)
				r = html_escape(out, st);
			(void)fputs("<br>", out);
		}
		(void)fputs("</td></tr>\n", out);
	}
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
	_cleanup_free_ char *key = fmt("fleet:%s:%s", id, path);
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

int fleet_sarif(const struct fleet *f, FILE *out)
{
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
	struct json_object *runs, *run, *tool, *driver, *rules, *results, *base, *root;

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
	base = json_object_new_object();
	root = json_object_new_object();
	results = json_object_new_array();
	if (jsonout_add(run, "originalUriBaseIds", base) < 0 || jsonout_add(base, "ROOT", root) < 0 ||
	    jsonout_add_string(root, "uri", "file:///") < 0 || jsonout_add(run, "results", results) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_p; i++) {
		const struct fprog *p = &f->p[i];
		const struct fstate *m = &p->v[p->major];
		_cleanup_free_ char *major = state_text(m);
		if (!major)
			return -ENOMEM;
		for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++) {
			const struct audit_finding_info *fi = audit_finding_info(k);
			_cleanup_free_ char *msg = NULL;
			if (!(m->findings & (1u << k)))
				continue;
			msg = fmt("%s on %zu of %zu targets: %s", fi->title, p->n_major, p->n, major);
			if (!msg || jsonout_push(results, result(fi->id, (int)k,
								 audit_level_name(fi->level), msg,
								 p->path)) < 0)
				return -ENOMEM;
		}
		if (p->n_major != p->n) {
			_cleanup_free_ char *msg = NULL;
			size_t first = 0;
			while (first < p->n && !drifts(p, first))
				first++;
			msg = fmt("%zu of %zu targets differ from the majority (%s), for instance %s",
				  p->n - p->n_major, p->n, major, f->t[p->v[first].target].name);
			if (!msg || jsonout_push(results, result(FLEET_DRIFT_ID, _AUDIT_FINDING_MAX,
								 "warning", msg, p->path)) < 0)
				return -ENOMEM;
		}
	}
	return jsonout_write(doc, out);
}
