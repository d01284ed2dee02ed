/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A plan as the JSON document of docs/schema/plan.schema.json (plan_to_json,
 * declared in plan.h); planload.c reads it back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "engine.h"
#include "fileid.h"
#include "jsonout.h"
#include "plan.h"
#include "skip.h"
#include "util.h"
#include "common.h"

/* Text for people (reasons, versions): U+FFFD for bytes that are not UTF-8; or null. */
static int add_text(struct json_object *o, const char *key, const char *s)
{
	return s ? jsonout_add(o, key, jsonout_string(s)) : jsonout_add_null(o, key);
}

static int add_u64(struct json_object *o, const char *key, uint64_t v)
{
	return jsonout_add(o, key, json_object_new_uint64(v));
}

static struct json_object *identity_json(const struct file_id *id)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	char dev[32];

	if (!o)
		return NULL;
	(void)snprintf(dev, sizeof(dev), "%" PRIu32 ":%" PRIu32, id->dev_major, id->dev_minor);
	if (add_text(o, "dev", dev) < 0 || add_u64(o, "ino", id->ino) < 0 ||
	    add_u64(o, "size", id->size) < 0 || jsonout_add_int(o, "mtime_ns", id->mtime_ns) < 0 ||
	    add_text(o, "sha256", id->sha256[0] ? id->sha256 : NULL) < 0 ||
	    add_u64(o, "nlink", id->nlink) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *entry_json(const struct plan_entry *e)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o ||
	    jsonout_add_name(o, "path", e->path) < 0 ||
	    add_text(o, "action", plan_action_name(e->change)) < 0 ||
	    add_text(o, "verdict", verdict_name(e->verdict)) < 0 ||
	    add_text(o, "rule", e->rule_id) < 0 ||
	    add_text(o, "reason", e->reason) < 0 ||
	    add_text(o, "confidence", confidence_name(e->confidence)) < 0 ||
	    add_text(o, "risk", risk_name(e->risk)) < 0 ||
	    add_text(o, "risk_now", risk_name(e->risk_now)) < 0 ||
	    jsonout_add_bool(o, "setuid_in_disguise", e->disguise) < 0 ||
	    jsonout_add_name(o, "package", e->package) < 0 ||
	    jsonout_add(o, "identity", identity_json(&e->id)) < 0 ||
	    jsonout_add(o, "before", filestate_json(&e->id.state, e->before_names.owner,
						    e->before_names.group,
						    e->before_names.caps_text, true)) < 0 ||
	    jsonout_add(o, "after", filestate_json(&e->after, e->after_names.owner,
						   e->after_names.group, e->after_names.caps_text,
						   false)) < 0 ||
	    (e->smoke ? jsonout_add(o, "smoke", jsonout_strv(e->smoke, e->n_smoke))
		      : jsonout_add_null(o, "smoke")) < 0 ||
	    jsonout_add(o, "evidence", jsonout_strv(e->evidence, e->n_evidence)) < 0 ||
	    jsonout_add(o, "warnings", jsonout_strv(e->warnings, e->n_warnings)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *tool_json(const struct plan *p)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || add_text(o, "name", "suid2cap") < 0 || add_text(o, "version", p->tool_version) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *host_json(const struct plan *p)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || jsonout_add_bool(o, "live", p->live) < 0 || add_text(o, "kernel", p->kernel) < 0 ||
	    add_text(o, "os_id", p->os_id) < 0 || add_text(o, "os_pretty", p->os_pretty) < 0 ||
	    add_text(o, "ping_group_range", p->ping_group_range) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *database_json(const struct plan *p)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || add_text(o, "hash", p->db_hash) < 0 ||
	    add_u64(o, "rules", p->db_rules) < 0 ||
	    jsonout_add(o, "files", jsonout_strv(p->db_files, p->n_db_files)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *mounts_json(const struct plan *p)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < p->n_mounts; i++) {
		const struct plan_mount *m = &p->mounts[i];
		struct json_object *o = json_object_new_object();

		if (!o || json_object_array_add(a, o) < 0) {
			json_object_put(o);
			return NULL;
		}
		if (jsonout_add_name(o, "target", m->target) < 0 || add_text(o, "fstype", m->fstype) < 0 ||
		    jsonout_add_bool(o, "nosuid", m->nosuid) < 0 ||
		    jsonout_add_bool(o, "readonly", m->rdonly) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}

static struct json_object *summary_json(const struct plan *p)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct plan_summary s;

	plan_summarise(p, &s);
	if (!o || add_u64(o, "change", s.change) < 0 || add_u64(o, "unchanged", s.unchanged) < 0)
		return NULL;
	for (int v = 0; v < _VERDICT_MAX; v++)
		if (add_u64(o, verdict_name(v), s.by_verdict[v]) < 0)
			return NULL;
	return TAKE_PTR(o);
}

/* The document without its entries: "entries" is there, empty, and last. */
static struct json_object *head_json(const struct plan *p)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || jsonout_add_int(o, "schema", p->schema) < 0 ||
	    add_text(o, "kind", PLAN_KIND) < 0 ||
	    jsonout_add(o, "tool", tool_json(p)) < 0 ||
	    (p->created && add_text(o, "created", p->created) < 0) ||
	    jsonout_add_name(o, "root", p->root) < 0 ||
	    jsonout_add(o, "host", host_json(p)) < 0 ||
	    jsonout_add(o, "database", database_json(p)) < 0 ||
	    jsonout_add(o, "mounts", mounts_json(p)) < 0 ||
	    jsonout_add(o, "not_scanned", skip_json(p->not_scanned,
							       p->n_not_scanned)) < 0 ||
	    jsonout_add(o, "summary", summary_json(p)) < 0 ||
	    jsonout_add(o, "entries", json_object_new_array()) < 0)
		return NULL;
	return TAKE_PTR(o);
}

struct json_object *plan_to_json(const struct plan *p)
{
	_cleanup_jsonput_ struct json_object *o = head_json(p);
	struct json_object *a;

	if (!o || !json_object_object_get_ex(o, "entries", &a))
		return NULL;
	for (size_t i = 0; i < p->n; i++) {
		struct json_object *e = entry_json(&p->v[i]);
		if (!e || json_object_array_add(a, e) < 0) {
			json_object_put(e);
			return NULL;
		}
	}
	return TAKE_PTR(o);
}

static struct json_object *entry_at(size_t i, const void *userdata)
{
	const struct plan *p = userdata;

	return entry_json(&p->v[i]);
}

int plan_write_json(const struct plan *p, FILE *out)
{
	_cleanup_jsonput_ struct json_object *o = head_json(p);

	return o ? jsonout_write_array(o, "entries", p->n, entry_at, p, out) : -ENOMEM;
}
