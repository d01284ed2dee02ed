/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "audit.h"
#include "auditjson.h"
#include "compliance.h"
#include "decisionout.h"
#include "engine.h"
#include "facts.h"
#include "hash.h"
#include "jsonout.h"
#include "sarif.h"
#include "targetout.h"
#include "util.h"
#include "waiver.h"
#include "common.h"

/* Key of partialFingerprints; bump the suffix if the way it is computed ever changes. */
#define FINGERPRINT_KEY "suid2cap/v1"

char *sarif_uri_encode(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = strlen(path);
	char *out = malloc(3 * len + 1), *o = out;

	if (!out)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		/* RFC 3986 unreserved characters, and "/" as the path separator. */
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p)) {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return out;
}


/* Append @v (taken) to @array; a NULL @v (failed allocation) is an error, not a JSON null. */

/* {"text": s}: valid UTF-8, and no "text_hex" (a SARIF message has no such property). */
static struct json_object *text_object(const char *s)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();

	if (!o || jsonout_add(o, "text", jsonout_string(s)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* The index in run.taxonomies of the benchmark of @c: the benchmarks of @v (@n controls
 * that apply), each once, in order. */
static size_t taxonomy_of(const struct compliance_control *const *v, size_t n,
			  const struct compliance_control *c)
{
	size_t index = 0;

	for (size_t i = 0; i < n && v[i]->benchmark != c->benchmark; i++)
		index += i == 0 || v[i]->benchmark != v[i - 1]->benchmark;
	return index;
}

/*
 * The rule's relationships to the controls of finding @k that apply (taxa of
 * run.taxonomies), and the "compliance" property a dashboard shows of them ("CIS Debian 12
 * 1.1.0 7.1.13"); NULL on OOM.
 */
static struct json_object *relationships_json(const struct audit *a, enum audit_finding k,
					      bool names)
{
	_cleanup_jsonput_ struct json_object *arr = json_object_new_array();
	const struct compliance_control *v[COMPLIANCE_MAX];
	size_t n = compliance_applying(a, v);

	for (size_t i = 0; arr && i < n; i++) {
		struct json_object *o, *target, *tc, *kinds;
		_cleanup_free_ char *name = NULL;

		if (!(v[i]->findings & (1u << k)))
			continue;
		if (names) {
			name = strdup_printf("%s %s %s", v[i]->benchmark->short_name,
					     v[i]->benchmark->version, v[i]->id);
			if (!name || jsonout_push(arr, json_object_new_string(name)) < 0)
				return NULL;
			continue;
		}
		o = json_object_new_object();
		target = json_object_new_object();
		tc = json_object_new_object();
		kinds = json_object_new_array();
		if (jsonout_push(arr, o) < 0 || jsonout_add(o, "target", target) < 0 ||
		    jsonout_add_string(target, "id", v[i]->id) < 0 ||
		    jsonout_add(target, "toolComponent", tc) < 0 ||
		    jsonout_add_string(tc, "name", v[i]->benchmark->short_name) < 0 ||
		    jsonout_add_int(tc, "index", (int64_t)taxonomy_of(v, n, v[i])) < 0 ||
		    jsonout_add(o, "kinds", kinds) < 0 ||
		    jsonout_push(kinds, json_object_new_string("relevant")) < 0)
			return NULL;
	}
	return TAKE_PTR(arr);
}

/* run.taxonomies: one per benchmark that applies, its controls as taxa. */
static struct json_object *taxonomies_json(const struct audit *a)
{
	_cleanup_jsonput_ struct json_object *arr = json_object_new_array();
	const struct compliance_control *v[COMPLIANCE_MAX];
	size_t n = compliance_applying(a, v);
	struct json_object *taxa = NULL;

	for (size_t i = 0; arr && i < n; i++) {
		const struct compliance_benchmark *bm = v[i]->benchmark;
		struct json_object *t;

		if (i == 0 || bm != v[i - 1]->benchmark) {
			struct json_object *o = json_object_new_object();
			if (jsonout_push(arr, o) < 0 ||
			    jsonout_add_string(o, "name", bm->short_name) < 0 ||
			    jsonout_add_string(o, "fullName", bm->name) < 0 ||
			    jsonout_add_string(o, "version", bm->version) < 0 ||
			    jsonout_add(o, "taxa", taxa = json_object_new_array()) < 0)
				return NULL;
		}
		t = json_object_new_object();
		if (jsonout_push(taxa, t) < 0 || jsonout_add_string(t, "id", v[i]->id) < 0 ||
		    jsonout_add(t, "shortDescription", text_object(v[i]->title)) < 0 ||
		    jsonout_add_string(t, "helpUri", v[i]->source) < 0)
			return NULL;
	}
	return TAKE_PTR(arr);
}

static struct json_object *rule_json(const struct audit *a, enum audit_finding k)
{
	const struct audit_finding_info *fi = audit_finding_info(k);
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *conf, *props, *tags;
	const char *cwe = k == AUDIT_WRITABLE ? "external/cwe/cwe-732" : "external/cwe/cwe-250";

	if (!o || jsonout_add_string(o, "id", fi->id) < 0 ||
	    jsonout_add_string(o, "name", fi->name) < 0 ||
	    jsonout_add(o, "shortDescription", text_object(fi->title)) < 0 ||
	    jsonout_add(o, "fullDescription", text_object(fi->description)) < 0 ||
	    jsonout_add(o, "help", text_object(fi->description)) < 0)
		return NULL;
	conf = json_object_new_object();
	props = json_object_new_object();
	tags = json_object_new_array();
	if (jsonout_add(o, "defaultConfiguration", conf) < 0 || jsonout_add(o, "properties", props) < 0 ||
	    jsonout_add(props, "tags", tags) < 0 ||
	    jsonout_add_string(conf, "level", audit_level_name(fi->level)) < 0 ||
	    jsonout_push(tags, json_object_new_string("security")) < 0 ||
	    jsonout_push(tags, json_object_new_string(cwe)) < 0 ||
	    jsonout_add_string(props, "security-severity", fi->severity) < 0 ||
	    jsonout_add_string(props, "precision", k == AUDIT_REVIEW ? "medium" : "high") < 0 ||
	    jsonout_add(props, "compliance", relationships_json(a, k, true)) < 0 ||
	    jsonout_add(o, "relationships", relationships_json(a, k, false)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *driver_json(const struct audit *a)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *rules;

	if (!o || jsonout_add_string(o, "name", "suid2cap") < 0 ||
	    jsonout_add_string(o, "version", S2C_VERSION) < 0 ||
	    jsonout_add_string(o, "semanticVersion", S2C_VERSION) < 0)
		return NULL;
	rules = json_object_new_array();
	if (jsonout_add(o, "rules", rules) < 0)
		return NULL;
	for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
		if (jsonout_push(rules, rule_json(a, (enum audit_finding)k)) < 0)
			return NULL;
	return TAKE_PTR(o);
}

/*
 * The SARIF text of a message built from our words and the scanned system's names:
 * escape_text() first (controls, bidi and other format controls, invalid UTF-8 made
 * visible; viewers show message texts as they are), then "{" and "}" doubled, because
 * single ones are placeholders (§3.11.5).  NULL on OOM.
 */
static char *message_text(const char *raw)
{
	_cleanup_free_ char *e = escape_text(raw);
	char *out, *o;

	if (!e)
		return NULL;
	out = malloc(2 * strlen(e) + 1);
	if (!out)
		return NULL;
	o = out;
	for (const char *c = e; *c; c++) {
		if (*c == '{' || *c == '}')
			*o++ = *c;
		*o++ = *c;
	}
	*o = '\0';
	return out;
}

/* The privilege the file has today, e.g. "setuid root, mode 4755" (raw, see message_text()). */
static void put_state(FILE *f, const struct decision *d)
{
	const struct facts *fa = d->facts;
	const char *caps = audit_caps_now(d);
	char mode[5];

	facts_mode_octal(fa->mode, mode);
	if (fa->mode & S_ISUID) {
		(void)fputs("setuid ", f);
		(void)fputs(fa->owner ? fa->owner : "?", f);
		(void)fputs(", ", f);
	}
	if (fa->mode & S_ISGID) {
		(void)fputs("setgid ", f);
		(void)fputs(fa->group ? fa->group : "?", f);
		(void)fputs(", ", f);
	}
	if (caps) {
		(void)fputs("capabilities ", f);
		(void)fputs(caps, f);
		(void)fputs(", ", f);
	}
	(void)fprintf(f, "mode %s", mode);
}

/* The message of finding @k about @d, ready for a SARIF "text" (see message_text()). */
static char *message(const struct audit *a, const struct decision *d, enum audit_finding k)
{
	const struct facts *fa = d->facts;
	char *buf = NULL, *text;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	char m2[5];

	if (!f)
		return NULL;
	facts_mode_octal(d->mode, m2);
	(void)fputs(fa->path, f);
	(void)fputs(" (", f);
	put_state(f, d);
	(void)fputs(")", f);
	switch (k) {
	case AUDIT_MIGRATE:
		(void)fprintf(f, " can migrate to mode %s with ", m2);
		(void)fputs(d->has_caps ? d->caps_text : "no capabilities", f);
		(void)fprintf(f, " (risk %s -> %s): ", risk_name(d->risk_now), risk_name(d->risk));
		(void)fputs(d->reason ? d->reason : "", f);
		break;
	case AUDIT_DROP:
		(void)fprintf(f, " can lose its privilege (mode %s, no capabilities): ", m2);
		(void)fputs(d->reason ? d->reason : "", f);
		break;
	case AUDIT_KEEP:
		(void)fputs(" must stay as it is: ", f);
		(void)fputs(d->reason ? d->reason : "", f);
		break;
	case AUDIT_REVIEW:
		(void)fprintf(f, " needs review (confidence %s): ", confidence_name(d->confidence));
		(void)fputs(d->reason ? d->reason : "", f);
		break;
	case AUDIT_DISGUISE:
		(void)fputs(d->verdict == VERDICT_MIGRATE ? " would get " : " keeps ", f);
		(void)fputs(d->caps_text ? d->caps_text : "?", f);
		(void)fputs(", a root-equivalent capability set: setuid in disguise", f);
		break;
	case AUDIT_DANGEROUS_CAPS:
		(void)fprintf(f, " has file capabilities graded %s",
			      risk_name(captable_risk(&a->db->caps,
						      fa->caps.permitted | fa->caps.inheritable)));
		break;
	case AUDIT_BREAKS:
		(void)fputs(": ", f);
		(void)fputs(audit_breaker(d), f);
		break;
	case AUDIT_WRITABLE:
	default:
		(void)fputs(" is writable by group or others: anyone allowed to write it can replace "
			    "the program and keep its privilege", f);
		break;
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	text = message_text(buf);
	free(buf);
	return text;
}

static struct json_object *location_json(const struct decision *d)
{
	_cleanup_jsonput_ struct json_object *loc = json_object_new_object();
	_cleanup_free_ char *uri = NULL;
	struct json_object *phys, *art, *region;
	const char *path = d->facts->path;

	while (*path == '/')
		path++;
	uri = sarif_uri_encode(path);
	phys = json_object_new_object();
	if (!uri || !loc || jsonout_add(loc, "physicalLocation", phys) < 0)
		return NULL;
	art = json_object_new_object();
	region = json_object_new_object();
	if (jsonout_add(phys, "artifactLocation", art) < 0 || jsonout_add(phys, "region", region) < 0 ||
	    jsonout_add_string(art, "uri", uri) < 0 ||
	    jsonout_add_string(art, "uriBaseId", "ROOT") < 0 ||
	    jsonout_add_int(region, "startLine", 1) < 0)
		return NULL;
	return TAKE_PTR(loc);
}

static int add_str_or_null(struct json_object *o, const char *key, const char *v)
{
	if (v)
		return jsonout_add_string(o, key, v);
	return json_object_object_add(o, key, NULL) < 0 ? -ENOMEM : 0;
}

static struct json_object *properties_json(const struct decision *d)
{
	const struct facts *f = d->facts;
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	_cleanup_free_ char *override = decisionout_override_text(d);
	char m1[5], m2[5];

	if (d->override && !override)
		return NULL;
	facts_mode_octal(f->mode, m1);
	facts_mode_octal(d->mode, m2);
	if (!o || jsonout_add_string(o, "verdict", verdict_name(d->verdict)) < 0 ||
	    jsonout_add_string(o, "state", audit_state_name(audit_state(d))) < 0 ||
	    jsonout_add_string(o, "mode", m1) < 0 || jsonout_add_string(o, "mode_after", m2) < 0 ||
	    jsonout_add_id(o, "uid", f->uid, f->uid_later) < 0 ||
	    jsonout_add_id(o, "gid", f->gid, f->gid_later) < 0 ||
	    add_str_or_null(o, "owner", f->owner) < 0 || add_str_or_null(o, "group", f->group) < 0 ||
	    jsonout_add_id(o, "uid_after", d->uid, f->uid_later && d->uid == f->uid) < 0 ||
	    jsonout_add_id(o, "gid_after", d->gid, f->gid_later && d->gid == f->gid) < 0 ||
	    add_str_or_null(o, "caps", audit_caps_now(d)) < 0 ||
	    add_str_or_null(o, "caps_after", d->has_caps ? d->caps_text : NULL) < 0 ||
	    jsonout_add_string(o, "risk_now", risk_name(d->risk_now)) < 0 ||
	    jsonout_add_string(o, "risk", risk_name(d->risk)) < 0 ||
	    jsonout_add_string(o, "confidence", confidence_name(d->confidence)) < 0 ||
	    add_str_or_null(o, "rule", d->rule ? d->rule->id : NULL) < 0 ||
	    add_str_or_null(o, "override", override) < 0 ||
	    add_str_or_null(o, "package", d->package) < 0 ||
	    add_str_or_null(o, "sha256", d->sha256) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* A waived finding: suppressed outside the code (SARIF 2.1.0 §3.35), with the waiver's reason. */
static struct json_object *suppressions_json(const struct audit *a, const struct decision *d,
					     enum audit_finding k)
{
	const struct waiver *w = audit_waiver(a, d, k);
	_cleanup_jsonput_ struct json_object *arr = json_object_new_array();
	struct json_object *o = json_object_new_object();

	if (!arr || jsonout_push(arr, o) < 0 || jsonout_add_string(o, "kind", "external") < 0 ||
	    jsonout_add_string(o, "status", "accepted") < 0 ||
	    jsonout_add_string(o, "justification", w->reason) < 0 ||
	    jsonout_add(o, "properties", auditjson_waiver(NULL, w)) < 0)
		return NULL;
	return TAKE_PTR(arr);
}

static struct json_object *result_json(const struct audit *a, const struct audit_cursor *c,
				       enum audit_finding k)
{
	const struct decision *d = c->d;
	const struct audit_target *t = targetout_of(a, c->origin);
	const struct audit_finding_info *fi = audit_finding_info(k);
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	_cleanup_free_ char *msg = message(a, d, k), *key = NULL;
	struct json_object *locs, *fp, *props;
	char digest[HASH_HEX_LEN];

	/* Rule, path (and package or image) identify a finding across runs, whatever the
	 * binary's version. */
	if (!o || !msg ||
	    (t ? asprintf(&key, "%s:%s:%s", fi->id, t->name ? t->name : t->source, d->facts->path) :
		 asprintf(&key, "%s:%s", fi->id, d->facts->path)) < 0 ||
	    hash_mem_sha256(key, strlen(key), digest) < 0)
		return NULL;
	locs = json_object_new_array();
	fp = json_object_new_object();
	if (jsonout_add_string(o, "ruleId", fi->id) < 0 ||
	    jsonout_add_int(o, "ruleIndex", k) < 0 ||
	    jsonout_add_string(o, "level", audit_level_name(audit_finding_level(a, d, k))) < 0 ||
	    jsonout_add(o, "message", text_object(msg)) < 0 || jsonout_add(o, "locations", locs) < 0 ||
	    jsonout_push(locs, location_json(d)) < 0 ||
	    jsonout_add(o, "partialFingerprints", fp) < 0 ||
	    jsonout_add_string(fp, FINGERPRINT_KEY, digest) < 0 ||
	    jsonout_add(o, "properties", props = properties_json(d)) < 0 ||
	    (t && jsonout_add(props, "origin", targetout_json_origin(a, c->origin)) < 0))
		return NULL;
	if (audit_waiver(a, d, k) && jsonout_add(o, "suppressions", suppressions_json(a, d, k)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *invocation_json(const struct audit *a)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *args, *notes, *n;
	_cleanup_free_ char *why = NULL;
	char text[384];

	if (!o || jsonout_add_bool(o, "executionSuccessful", a->complete) < 0)
		return NULL;
	if (a->argv) {
		args = json_object_new_array();
		if (jsonout_add(o, "arguments", args) < 0)
			return NULL;
		for (size_t i = 0; a->argv[i]; i++)
			if (jsonout_push(args, jsonout_string(a->argv[i])) < 0)
				return NULL;
	}
	if (a->complete)
		return TAKE_PTR(o);
	if (a->targets) {
		why = targetout_incomplete(a);
		if (!why)
			return NULL;
		(void)snprintf(text, sizeof(text), "incomplete: %s", why);
	} else
		(void)snprintf(text, sizeof(text), "incomplete scan: %" PRIu64 " part%s of the tree "
			       "could not be read", a->scan_warnings, a->scan_warnings == 1 ? "" : "s");
	notes = json_object_new_array();
	n = json_object_new_object();
	if (jsonout_add(o, "toolExecutionNotifications", notes) < 0 ||
	    jsonout_push(notes, n) < 0 || jsonout_add_string(n, "level", "warning") < 0 ||
	    jsonout_add(n, "message", text_object(text)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *base_ids_json(const struct audit *a)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	_cleanup_free_ char *enc = sarif_uri_encode(a->root_abs ? a->root_abs : "/");
	_cleanup_free_ char *uri = NULL;
	struct json_object *root;
	bool slash = enc && *enc && enc[strlen(enc) - 1] == '/';

	if (!o || !enc || asprintf(&uri, "file://%s%s", enc, slash ? "" : "/") < 0)
		return NULL;
	root = json_object_new_object();
	if (jsonout_add(o, "ROOT", root) < 0 || jsonout_add_string(root, "uri", uri) < 0 ||
	    jsonout_add(root, "description", text_object("the scanned root directory")) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* The (file, finding) pairs of the report in order, as the SARIF results list them: read
 * a file at a time, its findings lowest id first. */
struct sarif_results {
	const struct audit *a;
	struct audit_cursor c;
	unsigned left;              /* findings of c.d not yet written */
	size_t at;                  /* results written */
	int error;
	struct sarif_results *self; /* what the const userdata reaches */
};

static struct json_object *sarif_element(size_t i, const void *userdata)
{
	struct sarif_results *r = ((const struct sarif_results *)userdata)->self;
	struct json_object *o;
	unsigned k;

	while (r->error == 0 && r->c.d && !r->left && (r->error = audit_cursor_next(r->a, &r->c)) == 0)
		r->left = r->c.d ? audit_findings(r->a, r->c.d) : 0;
	if (r->error || !r->c.d || !r->left || i != r->at) {
		if (!r->error)
			r->error = -EIO;
		return NULL;
	}
	k = (unsigned)__builtin_ctz(r->left);
	r->left &= r->left - 1;
	r->at++;
	o = result_json(r->a, &r->c, (enum audit_finding)k);
	if (!o)
		r->error = -ENOMEM;
	return o;
}

/* How many results there are: a pass over the files.  Returns 0 or -errno. */
static int sarif_count(const struct audit *a, size_t *ret)
{
	_cleanup_(audit_cursor_release) struct audit_cursor c = { 0 };
	size_t n = 0;
	int r;

	for (r = audit_cursor_start(a, &c); r == 0 && c.d; r = audit_cursor_next(a, &c))
		n += (size_t)__builtin_popcount(audit_findings(a, c.d));
	*ret = n;
	return r;
}

/* The run without its results, which go last (an empty array) so that they can be
 * written one at a time. */
static struct json_object *run_json(const struct audit *a)
{
	_cleanup_jsonput_ struct json_object *run = json_object_new_object();
	struct json_object *tool, *invs, *props;

	tool = json_object_new_object();
	if (!run || jsonout_add(run, "tool", tool) < 0 ||
	    jsonout_add(tool, "driver", driver_json(a)) < 0 ||
	    jsonout_add(run, "taxonomies", taxonomies_json(a)) < 0)
		return NULL;
	invs = json_object_new_array();
	if (jsonout_add(run, "invocations", invs) < 0 ||
	    jsonout_push(invs, invocation_json(a)) < 0 ||
	    jsonout_add(run, "originalUriBaseIds", base_ids_json(a)) < 0)
		return NULL;
	props = json_object_new_object();
	if (jsonout_add(run, "properties", props) < 0 || jsonout_add_string(props, "root", a->root) < 0 ||
	    jsonout_add(props, "paths", auditjson_paths(a)) < 0 ||
	    jsonout_add_bool(props, "complete", a->complete) < 0 ||
	    jsonout_add(props, "incomplete", auditjson_incomplete(a)) < 0 ||
	    jsonout_add_bool(props, "incomplete_allowed", a->incomplete_allowed) < 0 ||
	    jsonout_add(props, "host", auditjson_host(a)) < 0 ||
	    jsonout_add(props, "target", targetout_json_identity(a)) < 0 ||
	    jsonout_add(props, "database", auditjson_database(a->db)) < 0 ||
	    (a->targets && jsonout_add(props, "targets", targetout_json_targets(a)) < 0) ||
	    (a->waivers && jsonout_add(props, "waivers", auditjson_waivers(a)) < 0) ||
	    jsonout_add(run, "results", json_object_new_array()) < 0)
		return NULL;
	return TAKE_PTR(run);
}

/* The document with its one run; *ret_results is that run's (empty) results array. */
static struct json_object *sarif_doc(const struct audit *a, struct json_object **ret_results)
{
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
	struct json_object *runs, *run;

	if (!doc || jsonout_add_string(doc, "$schema", SARIF_SCHEMA_URI) < 0 ||
	    jsonout_add_string(doc, "version", "2.1.0") < 0)
		return NULL;
	runs = json_object_new_array();
	if (jsonout_add(doc, "runs", runs) < 0 || jsonout_push(runs, run = run_json(a)) < 0 ||
	    !json_object_object_get_ex(run, "results", ret_results))
		return NULL;
	return TAKE_PTR(doc);
}

int sarif_audit(const struct audit *a, FILE *out)
{
	struct json_object *results;
	_cleanup_jsonput_ struct json_object *doc = sarif_doc(a, &results);
	struct sarif_results r = { .a = a };
	size_t n = 0;
	int ret;

	if (!doc)
		return -ENOMEM;
	r.self = &r;
	ret = sarif_count(a, &n);
	if (ret == 0)
		ret = audit_cursor_start(a, &r.c);
	if (ret == 0 && r.c.d)
		r.left = audit_findings(a, r.c.d);
	if (ret == 0)
		ret = jsonout_write_stream(doc, results, n, sarif_element, &r, out);
	audit_cursor_release(&r.c);
	return r.error ? r.error : ret;
}
