/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The result document of apply, migrate, rollback and verify
 * (docs/schema/result.schema.json); see resultjson.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "fcaps.h"
#include "fileid.h"
#include "idmap.h"
#include "jsonout.h"
#include "resultjson.h"
#include "util.h"
#include "common.h"

struct entry {
	char *action, *path, *outcome, *reason;   /* outcome NULL while open */
	enum resultjson_smoke smoke;
	bool has_before, has_after, has_recorded;
	struct file_state before, after, recorded;
	char *drift, *drift_reason;               /* verify only */
};

struct resultjson {
	char *verb, *root, *journal;
	char **outcomes, **drifts;                /* what the summary counts */
	size_t n_outcomes, n_drifts;
	bool verify;                              /* drifts were given */
	struct entry *v;
	size_t n, cap;
	int error;                                /* first failure, 0 when none */
};

static const char *const smoke_names[_RESULTJSON_SMOKE_MAX] = { NULL, "passed", "failed" };

/* --- the state object ------------------------------------------------------------------ */

/* Text for people: U+FFFD for bytes that are not UTF-8; or null. */
static int add_text(struct json_object *o, const char *key, const char *s)
{
	return s ? jsonout_add(o, key, jsonout_string(s)) : jsonout_add_null(o, key);
}

static int add_u64(struct json_object *o, const char *key, uint64_t v)
{
	return jsonout_add(o, key, json_object_new_uint64(v));
}

/* @s as a state object, names from @ids, capability text decoded from the bytes. */
static struct json_object *file_state_json(const struct file_state *s, struct idmap *ids)
{
	_cleanup_free_ char *text = NULL;
	struct fcaps caps;

	if (s->has_xattr && fcaps_decode(s->xattr, s->xattr_len, &caps, NULL) == 0) {
		text = fcaps_to_text(&caps);
		if (!text)
			return NULL;
	}
	return filestate_json(s, ids ? idmap_user(ids, s->uid) : NULL,
			      ids ? idmap_group(ids, s->gid) : NULL, text, true);
}

static int add_state(struct json_object *o, const char *key, bool has, const struct file_state *s,
		     struct idmap *ids)
{
	return has ? jsonout_add(o, key, file_state_json(s, ids)) : jsonout_add_null(o, key);
}

/* --- collecting ------------------------------------------------------------------------ */

static void entry_release(struct entry *e)
{
	free(e->action);
	free(e->path);
	free(e->outcome);
	free(e->reason);
	free(e->drift);
	free(e->drift_reason);
}

struct resultjson *resultjson_free(struct resultjson *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->n; i++)
		entry_release(&r->v[i]);
	free(r->v);
	free(r->verb);
	free(r->root);
	free(r->journal);
	strv_freen(r->outcomes, r->n_outcomes);
	strv_freen(r->drifts, r->n_drifts);
	free(r);
	return NULL;
}

/* Copy the NULL-terminated @names into @ret. */
static int copy_names(const char *const *names, char ***ret, size_t *ret_n)
{
	for (size_t i = 0; names && names[i]; i++)
		if (strv_push(ret, ret_n, strdup(names[i])) < 0)
			return -ENOMEM;
	return 0;
}

int resultjson_new(const char *verb, const char *root, const char *const *outcomes,
		   const char *const *drifts, struct resultjson **ret)
{
	_cleanup_(resultjson_freep) struct resultjson *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->verify = drifts != NULL;
	r->verb = strdup(verb);
	r->root = strdup(root);
	if (!r->verb || !r->root || copy_names(outcomes, &r->outcomes, &r->n_outcomes) < 0 ||
	    copy_names(drifts, &r->drifts, &r->n_drifts) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(r);
	return 0;
}

/* Remember the first failure; returns @err. */
static int failed(struct resultjson *r, int err)
{
	if (err < 0 && !r->error)
		r->error = err;
	return err;
}

/* Replace *@dst by a copy of @s (NULL and "" both mean none). */
static int set_text(char **dst, const char *s)
{
	char *copy = NULL;

	if (s && *s && !(copy = strdup(s)))
		return -ENOMEM;
	free(*dst);
	*dst = copy;
	return 0;
}

/* The last open entry of @action and @path, or a new one at the end. */
static struct entry *entry_for(struct resultjson *r, const char *action, const char *path)
{
	struct entry *e;

	for (size_t i = r->n; i-- > 0;)
		if (!r->v[i].outcome && s2c_streq(r->v[i].action, action) &&
		    s2c_streq(r->v[i].path, path))
			return &r->v[i];
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct entry *v = reallocarray(r->v, cap, sizeof(*v));
		if (!v)
			return NULL;
		r->v = v;
		r->cap = cap;
	}
	e = &r->v[r->n];
	*e = (struct entry){ .action = strdup(action), .path = strdup(path) };
	if (!e->action || !e->path) {
		entry_release(e);
		return NULL;
	}
	r->n++;
	return e;
}

int resultjson_event(struct resultjson *r, const struct resultjson_event *ev)
{
	struct entry *e = entry_for(r, ev->action, ev->path);

	if (!e)
		return failed(r, -ENOMEM);
	if (ev->before && !e->has_before) {
		e->before = *ev->before;
		e->has_before = true;
	}
	if (ev->after) {
		e->after = *ev->after;
		e->has_after = true;
	}
	if (ev->recorded) {
		e->recorded = *ev->recorded;
		e->has_recorded = true;
	}
	if (ev->smoke != RESULTJSON_SMOKE_NONE && ev->smoke < _RESULTJSON_SMOKE_MAX)
		e->smoke = ev->smoke;
	if ((ev->drift && set_text(&e->drift, ev->drift) < 0) ||
	    (ev->drift && set_text(&e->drift_reason, ev->drift_reason) < 0))
		return failed(r, -ENOMEM);
	if (ev->outcome && (set_text(&e->reason, ev->reason) < 0 ||
			    set_text(&e->outcome, ev->outcome) < 0))
		return failed(r, -ENOMEM);
	return 0;
}

int resultjson_set_journal(struct resultjson *r, const char *journal)
{
	return set_text(&r->journal, journal) < 0 ? failed(r, -ENOMEM) : 0;
}

int resultjson_close_open(struct resultjson *r, const char *outcome, const char *reason)
{
	int n = 0;

	for (size_t i = 0; i < r->n; i++) {
		struct entry *e = &r->v[i];
		if (e->outcome)
			continue;
		if (set_text(&e->reason, reason) < 0 || set_text(&e->outcome, outcome) < 0)
			return failed(r, -ENOMEM);
		n++;
	}
	return n;
}

/* --- writing --------------------------------------------------------------------------- */

static struct json_object *entry_json(const struct entry *e, struct idmap *ids)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || jsonout_add_name(o, "path", e->path) < 0 ||
	    add_text(o, "action", e->action) < 0 ||
	    add_text(o, "outcome", e->outcome) < 0 || add_text(o, "reason", e->reason) < 0 ||
	    add_text(o, "smoke", smoke_names[e->smoke]) < 0 ||
	    add_state(o, "before", e->has_before, &e->before, ids) < 0 ||
	    add_state(o, "after", e->has_after, &e->after, ids) < 0)
		return NULL;
	if (e->drift) {
		struct json_object *d = json_object_new_object();
		if (jsonout_add(o, "drift", d) < 0 || add_text(d, "kind", e->drift) < 0 ||
		    add_text(d, "reason", e->drift_reason) < 0 ||
		    add_state(o, "recorded", e->has_recorded, &e->recorded, ids) < 0)
			return NULL;
	}
	return TAKE_PTR(o);
}

static struct json_object *entries_json(const struct resultjson *r, struct idmap *ids)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < r->n; i++)
		if (jsonout_push(a, entry_json(&r->v[i], ids)) < 0)
			return NULL;
	return TAKE_PTR(a);
}

static size_t count(const struct resultjson *r, bool drift, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++) {
		const char *v = drift ? r->v[i].drift : r->v[i].outcome;
		n += v && s2c_streq(v, name);
	}
	return n;
}

/* {name: count} for @names in order, then any other name the entries carry. */
static struct json_object *counts_json(const struct resultjson *r, bool drift, char *const *names,
				       size_t n_names)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < n_names; i++)
		if (add_u64(o, names[i], count(r, drift, names[i])) < 0)
			return NULL;
	for (size_t i = 0; o && i < r->n; i++) {
		const char *v = drift ? r->v[i].drift : r->v[i].outcome;
		if (v && !json_object_object_get_ex(o, v, NULL) &&
		    add_u64(o, v, count(r, drift, v)) < 0)
			return NULL;
	}
	return TAKE_PTR(o);
}

static struct json_object *summary_json(const struct resultjson *r, int exit_status)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || add_u64(o, "entries", r->n) < 0 ||
	    jsonout_add(o, "outcomes", counts_json(r, false, r->outcomes, r->n_outcomes)) < 0 ||
	    (r->verify &&
	     jsonout_add(o, "drift", counts_json(r, true, r->drifts, r->n_drifts)) < 0) ||
	    jsonout_add_int(o, "exit_status", exit_status) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *tool_json(void)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || add_text(o, "name", "suid2cap") < 0 || add_text(o, "version", S2C_VERSION) < 0)
		return NULL;
	return TAKE_PTR(o);
}

int resultjson_write(const struct resultjson *r, int exit_status, struct idmap *ids, FILE *out)
{
	_cleanup_jsonput_ struct json_object *o = NULL;

	if (r->error)
		return r->error;
	for (size_t i = 0; i < r->n; i++)
		if (!r->v[i].outcome)
			return -EINVAL;
	o = json_object_new_object();
	if (!o || jsonout_add_int(o, "schema", RESULTJSON_SCHEMA) < 0 ||
	    add_text(o, "kind", RESULTJSON_KIND) < 0 || jsonout_add(o, "tool", tool_json()) < 0 ||
	    add_text(o, "verb", r->verb) < 0 || jsonout_add_name(o, "root", r->root) < 0 ||
	    add_text(o, "journal", r->journal) < 0 ||
	    jsonout_add(o, "entries", entries_json(r, ids)) < 0 ||
	    jsonout_add(o, "summary", summary_json(r, exit_status)) < 0)
		return -ENOMEM;
	return jsonout_write(o, out);
}
