/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "fcaps.h"
#include "jsonout.h"
#include "observed.h"
#include "strtable.h"
#include "util.h"
#include "common.h"

static const char *const mechanism_names[_LEARN_MECHANISM_MAX] = { "bpf", "ptrace" };

DEFINE_STRING_TABLE_TO_NAME(learn_mechanism_name, enum learn_mechanism, mechanism_names, "invalid")

DEFINE_STRING_TABLE_FROM_NAME(learn_mechanism_from_name, int, mechanism_names)

/* --- the model ------------------------------------------------------------------------- */

struct learn_record *learn_record_new(void)
{
	return calloc(1, sizeof(struct learn_record));
}

struct learn_record *learn_record_free(struct learn_record *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; r->argv && r->argv[i]; i++)
		free(r->argv[i]);
	free(r->argv);
	for (size_t i = 0; i < r->n_checks; i++) {
		free(r->checks[i].syscall);
		free(r->checks[i].where);
	}
	free(r->checks);
	for (size_t i = 0; i < r->n_failures; i++)
		free(r->failures[i].syscall);
	free(r->failures);
	free(r->path);
	free(r->user);
	free(r->attach);
	free(r->fallback);
	free(r->time);
	free(r);
	return NULL;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && s2c_streq(a, b));
}

static int dup_or_null(const char *s, char **ret)
{
	*ret = NULL;
	if (s && !(*ret = strdup(s)))
		return -ENOMEM;
	return 0;
}

int learn_record_add_check(struct learn_record *r, int cap, bool granted, bool quiet,
			   const char *syscall, const char *where, uint64_t count)
{
	struct learn_check *nv, c = { .cap = cap, .granted = granted, .quiet = quiet, .count = count };

	for (size_t i = 0; i < r->n_checks; i++) {
		struct learn_check *e = &r->checks[i];
		if (e->cap == cap && e->granted == granted && e->quiet == quiet &&
		    same(e->syscall, syscall) && same(e->where, where)) {
			e->count += count;
			return 0;
		}
	}
	if (dup_or_null(syscall, &c.syscall) < 0 || dup_or_null(where, &c.where) < 0) {
		free(c.syscall);
		return -ENOMEM;
	}
	nv = realloc(r->checks, (r->n_checks + 1) * sizeof(*nv));
	if (!nv) {
		free(c.syscall);
		free(c.where);
		return -ENOMEM;
	}
	r->checks = nv;
	r->checks[r->n_checks++] = c;
	return 0;
}

int learn_record_add_failure(struct learn_record *r, const char *syscall, int err, uint64_t caps,
			     uint64_t count)
{
	struct learn_failure *nv, f = { .err = err, .caps = caps, .count = count };

	for (size_t i = 0; i < r->n_failures; i++) {
		struct learn_failure *e = &r->failures[i];
		if (e->err == err && e->caps == caps && same(e->syscall, syscall)) {
			e->count += count;
			return 0;
		}
	}
	if (dup_or_null(syscall, &f.syscall) < 0)
		return -ENOMEM;
	nv = realloc(r->failures, (r->n_failures + 1) * sizeof(*nv));
	if (!nv) {
		free(f.syscall);
		return -ENOMEM;
	}
	r->failures = nv;
	r->failures[r->n_failures++] = f;
	return 0;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_check(const void *pa, const void *pb)
{
	const struct learn_check *a = pa, *b = pb;
	int c;

	if (a->quiet != b->quiet)
		return a->quiet - b->quiet;            /* probes last */
	if (a->cap != b->cap)
		return a->cap - b->cap;
	if (a->granted != b->granted)
		return b->granted - a->granted;        /* granted first */
	if ((c = cmp_str(a->syscall, b->syscall)))
		return c;
	return cmp_str(a->where, b->where);
}

static int cmp_failure(const void *pa, const void *pb)
{
	const struct learn_failure *a = pa, *b = pb;
	int c = cmp_str(a->syscall, b->syscall);

	if (c)
		return c;
	if (a->err != b->err)
		return a->err - b->err;
	return a->caps < b->caps ? -1 : a->caps > b->caps;
}

void learn_record_finish(struct learn_record *r)
{
	uint64_t asked = 0;

	if (r->n_checks)
		qsort(r->checks, r->n_checks, sizeof(*r->checks), cmp_check);
	if (r->n_failures)
		qsort(r->failures, r->n_failures, sizeof(*r->failures), cmp_failure);
	r->used = r->denied = r->denied_harmless = r->quiet = 0;
	for (size_t i = 0; i < r->n_failures; i++)
		r->denied |= r->failures[i].caps;
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct learn_check *c = &r->checks[i];
		uint64_t bit = c->cap >= 0 && c->cap < 64 ? S2C_CAPMASK(c->cap) : 0;

		if (c->quiet)
			r->quiet |= bit;
		else if (c->granted)
			r->used |= bit;
		else if (!c->syscall)
			r->denied |= bit;              /* outside a syscall: no outcome to judge by */
		else
			asked |= bit;
	}
	r->denied_harmless = asked & ~r->denied;
}

bool learn_record_succeeded(const struct learn_record *r)
{
	return !r->timed_out && !r->signal && r->exit_code == 0;
}

bool learn_record_complete(const struct learn_record *r)
{
	return !r->untraced && !r->lost;
}

/* --- JSON -------------------------------------------------------------------------------- */

/* Capability names ("cap_net_raw,cap_setuid"), or null for none. */
static int add_mask(struct json_object *o, const char *key, uint64_t mask)
{
	_cleanup_free_ char *names = mask ? fcaps_mask_names(mask) : NULL;

	if (mask && !names)
		return -ENOMEM;
	return names ? jsonout_add_string(o, key, names) : jsonout_add_null(o, key);
}

const char *learn_errno_name(int err)
{
	const char *n = err > 0 ? strerrorname_np(err) : NULL;

	return n ? n : "EUNKNOWN";
}

static struct json_object *checks_json(const struct learn_record *r)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct learn_check *c = &r->checks[i];
		_cleanup_jsonput_ struct json_object *o = json_object_new_object();
		_cleanup_free_ char *name = fcaps_mask_names(S2C_CAPMASK(c->cap));

		if (!o || !name || jsonout_add_string(o, "capability", name) < 0 ||
		    jsonout_add_string(o, "result", c->granted ? "granted" : "denied") < 0 ||
		    jsonout_add_bool(o, "quiet", c->quiet) < 0 ||
		    jsonout_add_name(o, "syscall", c->syscall) < 0 ||
		    jsonout_add_name(o, "where", c->where) < 0 ||
		    jsonout_add_int(o, "count", (int64_t)c->count) < 0 ||
		    jsonout_push(a, TAKE_PTR(o)) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}

static struct json_object *failures_json(const struct learn_record *r)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < r->n_failures; i++) {
		const struct learn_failure *f = &r->failures[i];
		_cleanup_jsonput_ struct json_object *o = json_object_new_object();

		if (!o || jsonout_add_name(o, "syscall", f->syscall) < 0 ||
		    jsonout_add_string(o, "errno", learn_errno_name(f->err)) < 0 ||
		    add_mask(o, "capabilities", f->caps) < 0 ||
		    jsonout_add_int(o, "count", (int64_t)f->count) < 0 ||
		    jsonout_push(a, TAKE_PTR(o)) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}

static struct json_object *run_json(const struct learn_record *r)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	const char *sig = r->signal ? sigabbrev_np(r->signal) : NULL;

	if (!o)
		return NULL;
	if ((r->signal ? jsonout_add_null(o, "exit_code") :
			 jsonout_add_int(o, "exit_code", r->exit_code)) < 0 ||
	    jsonout_add_name(o, "signal", r->signal ? (sig ? sig : "?") : NULL) < 0 ||
	    jsonout_add_bool(o, "timed_out", r->timed_out) < 0 ||
	    jsonout_add_int(o, "timeout", r->timeout) < 0 ||
	    jsonout_add_int(o, "elapsed_ms", (int64_t)r->elapsed_ms) < 0 ||
	    jsonout_add_int(o, "processes", (int64_t)r->processes) < 0 ||
	    jsonout_add_int(o, "killed", (int64_t)r->killed) < 0 ||
	    jsonout_add_int(o, "lost", (int64_t)r->lost) < 0 ||
	    jsonout_add_int(o, "untraced", (int64_t)r->untraced) < 0 ||
	    jsonout_add_bool(o, "complete", learn_record_complete(r)) < 0 ||
	    jsonout_add_bool(o, "succeeded", learn_record_succeeded(r)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

struct json_object *learn_record_json(const struct learn_record *r)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	_cleanup_jsonput_ struct json_object *prog = json_object_new_object();
	_cleanup_jsonput_ struct json_object *user = json_object_new_object();
	_cleanup_jsonput_ struct json_object *mech = json_object_new_object();

	if (!o || !prog || !user || !mech)
		return NULL;
	if (jsonout_add_string(prog, "path", r->path) < 0 ||
	    jsonout_add_string(prog, "sha256", r->sha256) < 0 ||
	    jsonout_add_bool(prog, "aware", r->aware) < 0 ||
	    jsonout_add_bool(prog, "script", r->script) < 0 ||
	    jsonout_add_string(user, "name", r->user) < 0 ||
	    jsonout_add_int(user, "uid", r->uid) < 0 || jsonout_add_int(user, "gid", r->gid) < 0 ||
	    jsonout_add_string(mech, "name", learn_mechanism_name(r->mechanism)) < 0 ||
	    jsonout_add_string(mech, "attach", r->attach) < 0 ||
	    jsonout_add_name(mech, "fallback", r->fallback) < 0)
		return NULL;
	if (jsonout_add_int(o, "schema", LEARN_RECORD_SCHEMA) < 0 ||
	    jsonout_add_string(o, "kind", "suid2cap-learn") < 0 ||
	    jsonout_add_string(o, "time", r->time) < 0 ||
	    jsonout_add(o, "program", TAKE_PTR(prog)) < 0 ||
	    jsonout_add(o, "command", jsonout_strv(r->argv, SIZE_MAX)) < 0 ||
	    jsonout_add(o, "user", TAKE_PTR(user)) < 0 ||
	    jsonout_add(o, "mechanism", TAKE_PTR(mech)) < 0 ||
	    add_mask(o, "candidates", r->candidates) < 0 ||
	    jsonout_add(o, "run", run_json(r)) < 0 ||
	    add_mask(o, "used", r->used) < 0 || add_mask(o, "denied", r->denied) < 0 ||
	    add_mask(o, "denied_without_effect", r->denied_harmless) < 0 ||
	    add_mask(o, "quiet", r->quiet) < 0 ||
	    jsonout_add(o, "checks", checks_json(r)) < 0 ||
	    jsonout_add(o, "failures", failures_json(r)) < 0)
		return NULL;
	return TAKE_PTR(o);
}
