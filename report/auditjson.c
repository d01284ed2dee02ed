/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <json-c/json.h>

#include "audit.h"
#include "auditjson.h"
#include "compliance.h"
#include "decisionout.h"
#include "engine.h"
#include "db.h"
#include "facts.h"
#include "fcaps.h"
#include "host.h"
#include "jsonout.h"
#include "learnout.h"
#include "pkgdb.h"
#include "skip.h"
#include "targetout.h"
#include "util.h"
#include "waiver.h"
#include "common.h"

struct json_object *auditjson_host(const struct audit *a)
{
	const struct host *h = a->host;
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *dbs;
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
	    jsonout_add_bool(o, "package_database", h->pkg_db) < 0 ||
	    jsonout_add_name(o, "package_database_problem",
			     h->pkgdb ? pkgdb_problem(h->pkgdb) : NULL) < 0)
		return NULL;
	dbs = json_object_new_array();
	if (jsonout_add(o, "package_databases", dbs) < 0)
		return NULL;
	if (h->bounding == HOST_BOUNDING_ALL) {
		if (jsonout_add_null(o, "bounding_set") < 0)
			return NULL;
	} else {
		/* only what libcap can name: a bit the kernel does not know narrows nothing */
		_cleanup_free_ char *caps = fcaps_mask_names(h->bounding &
							     (S2C_CAPMASK(CAP_LAST_CAP) * 2 - 1));
		struct json_object *b = json_object_new_object();
		if (!caps || jsonout_add(o, "bounding_set", b) < 0 ||
		    jsonout_add_name(b, "source", h->bounding_what) < 0 ||
		    jsonout_add_name(b, "caps", *caps ? caps : NULL) < 0)
			return NULL;
	}
	for (size_t i = 0; h->pkgdb && i < pkgdb_count(h->pkgdb); i++)
		if (jsonout_push(dbs, json_object_new_string(
					      pkgdb_format_name(pkgdb_format_of(h->pkgdb, i)))) < 0)
			return NULL;
	return TAKE_PTR(o);
}

struct json_object *auditjson_paths(const struct audit *a)
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

/* {"target": @index or null, "source": @source, "name": @name, "reasons": [...]} */
static struct json_object *incomplete_item(int64_t index, const char *source, const char *name,
					   const char *const *reasons, const char *reason)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *v;

	if (!o || (index < 0 ? jsonout_add_null(o, "target") : jsonout_add_int(o, "target", index)) < 0 ||
	    jsonout_add_string(o, "source", source) < 0 || jsonout_add_name(o, "name", name) < 0)
		return NULL;
	v = json_object_new_array();
	if (jsonout_add(o, "reasons", v) < 0)
		return NULL;
	if (reason && jsonout_push(v, jsonout_string(reason)) < 0)
		return NULL;
	for (size_t i = 0; reasons && reasons[i]; i++)
		if (jsonout_push(v, jsonout_string(reasons[i])) < 0)
			return NULL;
	return TAKE_PTR(o);
}

struct json_object *auditjson_incomplete(const struct audit *a)
{
	_cleanup_jsonput_ struct json_object *arr = json_object_new_array();
	_cleanup_free_ char *parts = NULL;

	if (!arr)
		return NULL;
	if (!a->targets && !a->complete) {
		parts = strdup_printf("%" PRIu64 " part%s of the tree could not be read",
				      a->scan_warnings, a->scan_warnings == 1 ? "" : "s");
		if (!parts || jsonout_push(arr, incomplete_item(-1, a->root, NULL, NULL, parts)) < 0)
			return NULL;
	}
	for (size_t i = 0; a->targets && i < a->n_targets; i++) {
		const struct audit_target *t = &a->targets[i];

		if ((t->error || t->incomplete) &&
		    jsonout_push(arr, incomplete_item((int64_t)i, t->source, t->name, t->incomplete,
						      t->error)) < 0)
			return NULL;
	}
	return TAKE_PTR(arr);
}

struct json_object *auditjson_database(const struct rules_db *db)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *files, *layers;

	if (!o || jsonout_add_string(o, "hash", db->hash) < 0 ||
	    jsonout_add_int(o, "rules", (int64_t)db->n) < 0)
		return NULL;
	files = json_object_new_array();
	if (jsonout_add(o, "files", files) < 0)
		return NULL;
	layers = json_object_new_array();
	if (jsonout_add(o, "layers", layers) < 0)
		return NULL;
	for (size_t i = 0; i < db->n_layers; i++) {
		const struct rules_db_layer *l = &db->layers[i];
		bool bundled = !l->label || s2c_streq(l->label, "bundled");
		struct json_object *lo = json_object_new_object();
		/* the bundled directory differs between installs: not named */
		if (jsonout_push(layers, lo) < 0 ||
		    jsonout_add_name(lo, "kind", l->label ? l->label : "bundled") < 0 ||
		    jsonout_add_name(lo, "dir", bundled ? NULL : l->dir) < 0 ||
		    jsonout_add_bool(lo, "present", l->present) < 0 ||
		    jsonout_add_int(lo, "rules", (int64_t)l->rules) < 0)
			return NULL;
	}
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

static const char *state_name_i(int st)
{
	return audit_state_name((enum audit_state)st);
}

static const char *risk_name_i(int r)
{
	return risk_name((enum risk)r);
}

static const char *finding_id_i(int f)
{
	return audit_finding_info((enum audit_finding)f)->id;
}

static const char *level_name_i(int l)
{
	return audit_level_name((enum audit_level)l);
}

struct json_object *auditjson_waiver(const struct audit *a, const struct waiver *w)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	enum audit_waiver_status st;
	size_t n = 0;

	if (!o || jsonout_add_string(o, "finding", audit_finding_info(w->finding)->id) < 0 ||
	    jsonout_add_string(o, "path", w->pattern) < 0 ||
	    jsonout_add_string(o, "reason", w->reason) < 0 ||
	    jsonout_add_name(o, "expires", w->expires[0] ? w->expires : NULL) < 0 ||
	    jsonout_add_string(o, "source", w->source) < 0)
		return NULL;
	if (a && (audit_waiver_status(a, w, &st, &n) < 0 ||
		  jsonout_add_string(o, "status", audit_waiver_status_name(st)) < 0 ||
		  jsonout_add_int(o, "findings", (int64_t)n) < 0))
		return NULL;
	return TAKE_PTR(o);
}

struct json_object *auditjson_waivers(const struct audit *a)
{
	_cleanup_jsonput_ struct json_object *arr = json_object_new_array();

	for (size_t i = 0; arr && a->waivers && i < a->waivers->n; i++)
		if (jsonout_push(arr, auditjson_waiver(a, &a->waivers->v[i])) < 0)
			return NULL;
	return TAKE_PTR(arr);
}

static struct json_object *summary_json(const struct audit *a, const struct audit_summary *s)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || jsonout_add_int(o, "files", (int64_t)s->files) < 0 ||
	    jsonout_add(o, "verdicts", counts_json(s->verdicts, _VERDICT_MAX, verdict_name_i)) < 0 ||
	    jsonout_add(o, "states", counts_json(s->states, _AUDIT_STATE_MAX, state_name_i)) < 0 ||
	    jsonout_add(o, "risk_now", counts_json(s->risk_now, _RISK_MAX, risk_name_i)) < 0 ||
	    jsonout_add(o, "risk", counts_json(s->risk_after, _RISK_MAX, risk_name_i)) < 0 ||
	    jsonout_add_int(o, "setuid_in_disguise", (int64_t)s->disguise) < 0 ||
	    jsonout_add_int(o, "changes", (int64_t)s->changes) < 0 ||
	    jsonout_add(o, "findings", counts_json(s->findings, _AUDIT_FINDING_MAX, finding_id_i)) < 0 ||
	    jsonout_add(o, "levels", counts_json(s->levels, _AUDIT_LEVEL_MAX, level_name_i)) < 0)
		return NULL;
	/* Only with waivers: the levels above leave the waived findings out. */
	if (a->waivers && (jsonout_add_int(o, "waived", (int64_t)s->waived) < 0 ||
			   jsonout_add_int(o, "waivers_stale", (int64_t)s->waivers_stale) < 0 ||
			   jsonout_add_int(o, "waivers_expired", (int64_t)s->waivers_expired) < 0))
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *kinds_json(const struct audit *au)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < _AUDIT_FINDING_MAX; i++) {
		const struct audit_finding_info *fi = audit_finding_info((enum audit_finding)i);
		struct json_object *o = json_object_new_object();

		if (jsonout_push(a, o) < 0 || jsonout_add_string(o, "id", fi->id) < 0 ||
		    jsonout_add_string(o, "name", fi->name) < 0 ||
		    jsonout_add_string(o, "title", fi->title) < 0 ||
		    jsonout_add_string(o, "level", audit_level_name(fi->level)) < 0 ||
		    jsonout_add(o, "controls", compliance_json(au, (unsigned)i)) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}

static struct json_object *file_json(const struct audit *a, const struct audit_cursor *c)
{
	const struct decision *d = c->d;
	_cleanup_jsonput_ struct json_object *o = decisionout_json(d);
	struct json_object *ids, *fa;
	unsigned m = audit_findings(a, d);

	if (!o || jsonout_add_string(o, "state", audit_state_name(audit_state(d))) < 0)
		return NULL;
	/* A file of a package or image was read from a private staging copy: its device, inode
	 * and mount are that copy's and mean nothing for the package or image. */
	if (a->targets && json_object_object_get_ex(o, "file", &fa)) {
		json_object_object_del(fa, "dev");
		json_object_object_del(fa, "ino");
		json_object_object_del(fa, "mount");
	}
	ids = json_object_new_array();
	if (jsonout_add(o, "findings", ids) < 0)
		return NULL;
	for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
		if ((m & (1u << k)) && jsonout_push(ids, json_object_new_string(audit_finding_info((enum audit_finding)k)->id)) < 0)
			return NULL;
	if (audit_waived(a, d)) {
		struct json_object *w = json_object_new_object();
		if (jsonout_add(o, "waived", w) < 0)
			return NULL;
		for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++) {
			const struct waiver *wv = (m & (1u << k)) ?
				audit_waiver(a, d, (enum audit_finding)k) : NULL;
			if (wv && jsonout_add(w, audit_finding_info((enum audit_finding)k)->id,
					      auditjson_waiver(NULL, wv)) < 0)
				return NULL;
		}
	}
	if (c->learned && jsonout_add(o, "learned", learnout_evidence_json(c->learned)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* Every member of the document but the files, which come last: "files" is empty. */
static struct json_object *auditjson_head(const struct audit *a, int *ret)
{
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
	struct json_object *tool, *scan;
	struct audit_summary s;

	*ret = -ENOMEM;
	if (!doc)
		return NULL;
	*ret = audit_summarise(a, &s);
	if (*ret < 0)
		return NULL;
	*ret = -ENOMEM;
	tool = json_object_new_object();
	if (jsonout_add(doc, "schema", json_object_new_int(AUDIT_SCHEMA)) < 0 ||
	    jsonout_add_string(doc, "kind", "suid2cap-audit") < 0 || jsonout_add(doc, "tool", tool) < 0 ||
	    jsonout_add_string(tool, "name", "suid2cap") < 0 ||
	    jsonout_add_string(tool, "version", S2C_VERSION) < 0 ||
	    jsonout_add_string(doc, "root", a->root) < 0 ||
	    jsonout_add(doc, "paths", auditjson_paths(a)) < 0 ||
	    jsonout_add(doc, "target", targetout_json_identity(a)) < 0 ||
	    jsonout_add(doc, "host", auditjson_host(a)) < 0 ||
	    jsonout_add(doc, "database", auditjson_database(a->db)) < 0 ||
	    jsonout_add_bool(doc, "complete", a->complete) < 0 ||
	    jsonout_add(doc, "incomplete", auditjson_incomplete(a)) < 0 ||
	    jsonout_add_bool(doc, "incomplete_allowed", a->incomplete_allowed) < 0)
		return NULL;
	scan = json_object_new_object();
	if (jsonout_add(doc, "scan", scan) < 0 ||
	    jsonout_add_int(scan, "directories", (int64_t)a->directories) < 0 ||
	    jsonout_add_int(scan, "entries", (int64_t)a->entries) < 0 ||
	    jsonout_add_int(scan, "warnings", (int64_t)a->scan_warnings) < 0 ||
	    jsonout_add(doc, "not_scanned", skip_json(a->not_scanned,
								 a->n_not_scanned)) < 0 ||
	    jsonout_add(doc, "summary", summary_json(a, &s)) < 0 || jsonout_add(doc, "findings", kinds_json(a)) < 0)
		return NULL;
	if (a->targets && jsonout_add(doc, "targets", targetout_json_targets(a)) < 0)
		return NULL;
	if (a->waivers && jsonout_add(doc, "waivers", auditjson_waivers(a)) < 0)
		return NULL;
	if (jsonout_add(doc, "files", json_object_new_array()) < 0)
		return NULL;
	*ret = 0;
	return TAKE_PTR(doc);
}

/* Reading the files for jsonout_write_array(), which asks for them in order. */
struct file_reader {
	const struct audit *a;
	struct audit_cursor c;
	int error;
	struct file_reader *self;   /* what the const userdata reaches */
};

/* The element of "files" for the audit's file @i, with its origin in a package or image. */
static struct json_object *file_element(size_t i, const void *userdata)
{
	struct file_reader *fr = ((const struct file_reader *)userdata)->self;
	const struct audit *a = fr->a;
	struct json_object *f;

	if (fr->c.i < i)
		fr->error = audit_cursor_next(a, &fr->c);
	if (fr->error || !fr->c.d || fr->c.i != i) {
		if (!fr->error)
			fr->error = -EIO;
		return NULL;
	}
	f = file_json(a, &fr->c);
	if (f && a->targets && jsonout_add(f, "origin", targetout_json_origin(a, fr->c.origin)) < 0) {
		json_object_put(f);
		f = NULL;
	}
	if (!f)
		fr->error = -ENOMEM;
	return f;
}

int auditjson_write(const struct audit *a, FILE *out)
{
	int r;
	_cleanup_jsonput_ struct json_object *doc = auditjson_head(a, &r);
	struct file_reader fr = { .a = a };

	fr.self = &fr;

	if (!doc)
		return r;
	/* the files one at a time: the document whole would cost many times the audit */
	fr.error = audit_cursor_start(a, &fr.c);
	if (fr.error == 0)
		r = jsonout_write_array(doc, "files", a->n, file_element, &fr, out);
	audit_cursor_release(&fr.c);
	return fr.error ? fr.error : r;
}
