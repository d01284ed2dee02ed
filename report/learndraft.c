/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "conditions.h"
#include "db.h"
#include "fcaps.h"
#include "jsonout.h"
#include "learndraft.h"
#include "learnout.h"
#include "common.h"

/* "local.<basename>" in the id alphabet: lowercase letters, digits, _ + -. */
static char *local_id(const char *path)
{
	const char *base = strrchr(path, '/');
	char *id;
	size_t n = 0;

	base = base ? base + 1 : path;
	id = malloc(strlen("local.") + strlen(base) + strlen("program") + 1);
	if (!id)
		return NULL;
	memcpy(id, "local.", 6);
	n = 6;
	for (const char *p = base; *p; p++) {
		char c = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '+' ||
			  c == '-';
		id[n++] = ok ? c : '-';
	}
	if (n == 6) {
		memcpy(id + n, "program", 7);
		n += 7;
	}
	id[n] = '\0';
	return id;
}

/* local_id(), with "-2", "-3"… while @db has a rule of that id. */
static char *fresh_id(const char *path, const struct rules_db *db)
{
	_cleanup_free_ char *base = local_id(path);
	char *id;

	if (!base || !(id = strdup(base)))
		return NULL;
	for (unsigned k = 2; db && rules_db_find(db, id); k++) {
		free(id);
		if (asprintf(&id, "%s-%u", base, k) < 0)
			return NULL;
	}
	return id;
}

/* The path as a literal glob: backslash before the glob characters. */
static char *literal_glob(const char *path)
{
	char *g = malloc(2 * strlen(path) + 1), *q = g;

	if (!g)
		return NULL;
	for (const char *p = path; *p; p++) {
		if (strchr("*?[]\\", *p))
			*q++ = '\\';
		*q++ = *p;
	}
	*q = '\0';
	return g;
}

static char *caps_clause(uint64_t mask, bool aware)
{
	_cleanup_free_ char *names = fcaps_mask_names(mask);
	char *out = NULL;

	if (!names || asprintf(&out, "%s=%s", names, aware ? "p" : "ep") < 0)
		return NULL;
	return out;
}

/* What the run could not see, as a clause of the reason ("" when it saw everything). */
static char *unseen(const struct learn_record *r)
{
	_cleanup_free_ char *untraced = NULL, *lost = NULL;
	char *s = NULL;

	if (learn_record_complete(r))
		return strdup("");
	if (r->untraced && asprintf(&untraced, "ptrace could not follow %" PRIu64 " of its "
				    "processes or threads (clone with CLONE_UNTRACED; learn "
				    "--mechanism bpf sees them)", r->untraced) < 0)
		return NULL;
	if (r->lost && asprintf(&lost, "%" PRIu64 " capability checks could not be counted",
				r->lost) < 0)
		return NULL;
	if (asprintf(&s, "; but %s%s%s, and what went unseen may have used more",
		     untraced ? untraced : "", untraced && lost ? " and " : "", lost ? lost : "") < 0)
		return NULL;
	return s;
}

static char *draft_reason(const struct learn_record *r, const char *verdict)
{
	_cleanup_free_ char *used = fcaps_mask_names(r->used);
	_cleanup_free_ char *denied = fcaps_mask_names(r->denied);
	_cleanup_free_ char *missed = unseen(r);
	char *s = NULL;
	int n;

	if (!used || !denied || !missed)
		return NULL;
	n = asprintf(&s, "Observed by suid2cap learn (%s, %s): run as %s, the program %s, used %s "
		     "and was denied %s%s%s.", learn_mechanism_name(r->mechanism),
		     r->time ? r->time : "?", r->user ? r->user : "?",
		     learn_record_succeeded(r) ? "succeeded" :
		     r->timed_out ? "hit the time limit" : "failed",
		     *used ? used : "no capability", *denied ? denied : "nothing", missed,
		     r->script ? "; it is a #! script, and the kernel ignores set-ID bits and "
				 "capabilities on scripts, so its interpreter is what would need them" :
		     s2c_streq(verdict, "review") ? ", so a person must check what it needs" : "");
	return n < 0 ? NULL : s;
}

/* Drop for a script; review unless the run succeeded, was denied nothing and was seen whole. */
static const char *draft_verdict(const struct learn_record *r)
{
	if (r->script)
		return "drop";      /* privilege on a script is never honoured */
	if (!learn_record_succeeded(r) || r->denied || !learn_record_complete(r))
		return "review";
	return r->used ? "migrate" : "drop";
}

/*
 * The draft's description: to be reviewed; with @matching, that it is about
 * this build only, goes before @matching, and lacks @matching's conditions.
 */
static char *description(const struct rule *matching)
{
	char *s = NULL, *more, cond[512];

	if (asprintf(&s, "Rules drafted by suid2cap learn from observed runs, to be reviewed before "
		     "use.") < 0)
		return NULL;
	if (!matching)
		return s;
	more = s;
	if (asprintf(&s, "%s This one is about the build that ran (match.sha256): for it, it goes "
		     "before rule '%s' (%s), which still decides every other build.%s", more,
		     matching->id, matching->file ? matching->file : "?",
		     matching->n_conditions ? " It lacks that rule's conditions, which the run did "
					      "not test; add those that hold for this build:" : "") < 0)
		s = NULL;
	free(more);
	for (size_t i = 0; s && i < matching->n_conditions; i++) {
		conditions_describe(&matching->conditions[i], cond, sizeof(cond));
		more = s;
		if (asprintf(&s, "%s %s%s", more, cond, i + 1 < matching->n_conditions ? ";" : ".") < 0)
			s = NULL;
		free(more);
	}
	return s;
}

/* The match of the draft: the path, and the build's SHA-256 when another rule matches it. */
static struct json_object *draft_match(const struct learn_record *r, const struct rule *matching)
{
	_cleanup_jsonput_ struct json_object *match = json_object_new_object();
	_cleanup_jsonput_ struct json_object *paths = json_object_new_array();
	_cleanup_jsonput_ struct json_object *builds = NULL;
	_cleanup_free_ char *glob = literal_glob(r->path);

	if (!match || !paths || !glob || jsonout_push(paths, jsonout_string(glob)) < 0 ||
	    jsonout_add(match, "paths", TAKE_PTR(paths)) < 0)
		return NULL;
	if (matching && (!(builds = json_object_new_array()) ||
			 jsonout_push(builds, json_object_new_string(r->sha256)) < 0 ||
			 jsonout_add(match, "sha256", TAKE_PTR(builds)) < 0))
		return NULL;
	return TAKE_PTR(match);
}

struct json_object *learndraft_build(const struct learn_record *r, const struct rule *matching,
				     const struct rules_db *db)
{
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
	_cleanup_jsonput_ struct json_object *rules = json_object_new_array();
	_cleanup_jsonput_ struct json_object *rule = json_object_new_object();
	_cleanup_jsonput_ struct json_object *sources = json_object_new_array();
	_cleanup_free_ char *id = fresh_id(r->path, db);
	_cleanup_free_ char *caps = NULL, *reason = NULL, *desc = description(matching);
	const char *base = strrchr(r->path, '/');
	const char *verdict = draft_verdict(r);
	bool migrate = s2c_streq(verdict, "migrate");

	if (!doc || !rules || !rule || !sources || !id || !desc)
		return NULL;
	if (!s2c_streq(verdict, "drop") && (r->used | r->denied) &&
	    !(caps = caps_clause(migrate ? r->used : r->used | r->denied, r->aware)))
		return NULL;
	if (!(reason = draft_reason(r, verdict)))
		return NULL;
	if (jsonout_push(sources, json_object_new_string("man:suid2cap(8)")) < 0 ||
	    jsonout_add_string(rule, "id", id) < 0 ||
	    jsonout_add_string(rule, "program", base ? base + 1 : r->path) < 0 ||
	    jsonout_add(rule, "match", draft_match(r, matching)) < 0 ||
	    jsonout_add_string(rule, "verdict", verdict) < 0 ||
	    (caps && jsonout_add_string(rule, migrate ? "caps" : "needs", caps) < 0) ||
	    jsonout_add_string(rule, "reason", reason) < 0 ||
	    jsonout_add(rule, "sources", TAKE_PTR(sources)) < 0 ||
	    jsonout_push(rules, TAKE_PTR(rule)) < 0 ||
	    jsonout_add_int(doc, "schema", 1) < 0 ||
	    jsonout_add_string(doc, "area", "local") < 0 ||
	    jsonout_add_string(doc, "description", desc) < 0 ||
	    jsonout_add(doc, "rules", TAKE_PTR(rules)) < 0)
		return NULL;
	return TAKE_PTR(doc);
}
