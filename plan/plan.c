/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "captable.h"
#include "db.h"
#include "engine.h"
#include "facts.h"
#include "fileid.h"
#include "host.h"
#include "jsonout.h"
#include "plan.h"
#include "privcheck.h"

#include "scanout.h"
#include "skip.h"
#include "util.h"
#include "common.h"

static const char *const evidence_kinds[_EVIDENCE_KIND_MAX] = { "needs", "aware", "unknown",
								"drops" };

const char *plan_action_name(bool change)
{
	return change ? "change" : "none";
}

/* --- freeing ----------------------------------------------------------------------- */


void plan_state_release(struct plan_state *s)
{
	free(s->owner);
	free(s->group);
	free(s->caps_text);
	memset(s, 0, sizeof(*s));
}

void plan_entry_release(struct plan_entry *e)
{
	free(e->path);
	free(e->rule_id);
	free(e->reason);
	free(e->package);
	plan_state_release(&e->before);
	plan_state_release(&e->after);
	strv_freen(e->smoke, e->n_smoke);
	strv_freen(e->evidence, e->n_evidence);
	strv_freen(e->warnings, e->n_warnings);
	memset(e, 0, sizeof(*e));
}

struct plan *plan_free(struct plan *p)
{
	if (!p)
		return NULL;
	free(p->tool_version);
	free(p->root);
	free(p->kernel);
	free(p->os_id);
	free(p->os_pretty);
	free(p->ping_group_range);
	free(p->db_hash);
	strv_freen(p->db_files, p->n_db_files);
	free(p->created);
	for (size_t i = 0; i < p->n_mounts; i++) {
		free(p->mounts[i].target);
		free(p->mounts[i].fstype);
	}
	free(p->mounts);
	for (size_t i = 0; i < p->n_not_scanned; i++)
		skip_entry_release(&p->not_scanned[i]);
	free(p->not_scanned);
	for (size_t i = 0; i < p->n; i++)
		plan_entry_release(&p->v[i]);
	free(p->v);
	free(p);
	return NULL;
}

void plan_summarise(const struct plan *p, struct plan_summary *ret)
{
	struct plan_summary s = { 0 };

	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].change)
			s.change++;
		else
			s.unchanged++;
		if (p->v[i].verdict >= 0 && p->v[i].verdict < _VERDICT_MAX)
			s.by_verdict[p->v[i].verdict]++;
	}
	*ret = s;
}

/* --- building ---------------------------------------------------------------------- */

/* strdup() that keeps NULL; sets *oom on failure. */
static char *dup_or_null(const char *s, bool *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

S2C_PRINTF(1, 2) static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static int strv_push(char ***v, size_t *n, char *s)
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
	(*v)[(*n)++] = s;
	return 0;
}

static int state_before(const struct facts *f, struct plan_state *s)
{
	bool oom = false;

	s->uid = f->uid;
	s->gid = f->gid;
	s->owner = dup_or_null(f->owner, &oom);
	s->group = dup_or_null(f->group, &oom);
	s->mode = f->mode & 07777;
	s->has_caps = f->has_caps;
	if (f->has_caps && !f->caps_error) {
		s->caps = f->caps;
		s->caps_text = dup_or_null(f->caps_text, &oom);
	}
	if (f->has_caps) {
		memcpy(s->caps_raw, f->caps_raw, sizeof(s->caps_raw));
		s->caps_len = f->caps_len;
	}
	return oom ? -ENOMEM : 0;
}

/*
 * The state after: ids and mode from the decision; a name changes only when
 * the rule asked for another owner or group, so the rule names it.
 */
static int state_after(const struct decision *d, const struct plan_state *before,
		       struct plan_state *s)
{
	const char *owner = d->uid == before->uid ? before->owner : d->rule ? d->rule->owner : NULL;
	const char *group = d->gid == before->gid ? before->group : d->rule ? d->rule->group : NULL;
	bool oom = false;
	int len;

	s->uid = d->uid;
	s->gid = d->gid;
	s->owner = dup_or_null(owner, &oom);
	s->group = dup_or_null(group, &oom);
	s->mode = d->mode & 07777;
	if (d->has_caps && d->caps_text) {
		s->has_caps = true;
		s->caps = d->caps;
		s->caps_text = dup_or_null(d->caps_text, &oom);
		len = fcaps_encode(&s->caps, s->caps_raw);
		s->caps_len = len > 0 ? (size_t)len : 0;
	}
	return oom ? -ENOMEM : 0;
}

static int add_evidence(const struct decision *d, struct plan_entry *e)
{
	int r = 0;

	for (size_t i = 0; i < d->n_evidence && r == 0; i++) {
		const struct evidence_item *ev = &d->evidence[i];
		_cleanup_free_ char *caps = ev->caps ? fcaps_mask_names(ev->caps) : NULL;
		int k = ev->kind;

		if (ev->caps && !caps)
			return -ENOMEM;
		r = strv_push(&e->evidence, &e->n_evidence,
			      fmt("%s %s: %s%s%s", strength_name(ev->strength),
				  k >= 0 && k < _EVIDENCE_KIND_MAX ? evidence_kinds[k] : "?",
				  ev->what, caps ? " -> " : "", caps ? caps : ""));
	}
	for (size_t i = 0; i < d->n_conditions && r == 0; i++)
		r = strv_push(&e->evidence, &e->n_evidence,
			      fmt("condition: %s%s", d->conditions[i].text,
				  d->conditions[i].chosen ? " (chosen)" : ""));
	return r;
}

static int add_lists(const struct decision *d, struct plan_entry *e)
{
	int r = add_evidence(d, e);

	for (size_t i = 0; i < d->n_warnings && r == 0; i++)
		r = strv_push(&e->warnings, &e->n_warnings, strdup(d->warnings[i]));
	/* A smoke test proves a changed program still works; it means nothing otherwise. */
	if (d->rule && d->rule->smoke &&
	    (d->verdict == VERDICT_MIGRATE || d->verdict == VERDICT_DROP))
		for (size_t i = 0; d->rule->smoke[i] && r == 0; i++)
			r = strv_push(&e->smoke, &e->n_smoke, strdup(d->rule->smoke[i]));
	return r;
}

/* The reason, saying so when a migrate or drop verdict finds nothing to do. */
static char *entry_reason(const struct decision *d)
{
	size_t len = d->reason ? strlen(d->reason) : 0;

	if (!d->reason)
		return strdup("no reason given");
	if (d->changes || (d->verdict != VERDICT_MIGRATE && d->verdict != VERDICT_DROP))
		return strdup(d->reason);
	if (len && d->reason[len - 1] == '.')
		return fmt("%s It is already in that state, so nothing changes.", d->reason);
	return fmt("%s; it is already in that state, so nothing changes", d->reason);
}

static int entry_from_decision(const struct decision *d, struct plan_entry *e,
			       struct s2c_error *err)
{
	const struct facts *f = d->facts;
	bool oom = false;
	int r;

	if (d->changes && (d->verdict != VERDICT_MIGRATE && d->verdict != VERDICT_DROP))
		return s2c_error_set(err, -EINVAL, "'%s': verdict '%s' cannot change the file",
				     f->path, verdict_name(d->verdict));
	if (d->changes && (!d->sha256 || strlen(d->sha256) != 64))
		return s2c_error_set(err, -EINVAL,
				     "cannot plan a change of '%s' without its SHA-256 (%s): the "
				     "change is only safe on the content that was decided about, "
				     "and apply re-checks it", f->path,
				     d->elf_error ? d->elf_error : "the file could not be read");
	e->path = dup_or_null(f->path, &oom);
	e->change = d->changes;
	e->verdict = d->verdict;
	e->rule_id = d->rule ? dup_or_null(d->rule->id, &oom) : NULL;
	e->reason = entry_reason(d);
	e->confidence = d->confidence;
	e->risk = d->risk;
	e->risk_now = d->risk_now;
	e->disguise = d->disguise;
	e->package = dup_or_null(d->package, &oom);
	e->dev_major = f->dev_major;
	e->dev_minor = f->dev_minor;
	e->ino = f->ino;
	e->size = f->size;
	e->mtime_ns = f->mtime_sec * INT64_C(1000000000) + f->mtime_nsec;
	e->nlink = f->nlink;
	if (d->sha256 && strlen(d->sha256) == 64)
		memcpy(e->sha256, d->sha256, 65);
	if (oom || !e->path || !e->reason)
		return -ENOMEM;
	r = state_before(f, &e->before);
	if (r == 0)
		r = state_after(d, &e->before, &e->after);
	if (r == 0)
		r = add_lists(d, e);
	return r;
}

int plan_mount_cmp(const struct plan_mount *x, const struct plan_mount *y)
{
	int c;

	if (!x->target != !y->target)
		return x->target ? 1 : -1;
	if (x->target && (c = strcmp(x->target, y->target)))
		return c;
	if (!x->fstype != !y->fstype)
		return x->fstype ? 1 : -1;
	if (x->fstype && (c = strcmp(x->fstype, y->fstype)))
		return c;
	if (x->nosuid != y->nosuid)
		return x->nosuid ? 1 : -1;
	return x->rdonly == y->rdonly ? 0 : x->rdonly ? 1 : -1;
}

static bool streq_null(const char *a, const char *b)
{
	return a == b || (a && b && s2c_streq(a, b));
}

static int add_mount(struct plan *p, const struct facts_mount *fm)
{
	struct plan_mount *nm;
	bool oom = false;

	for (size_t i = 0; i < p->n_mounts; i++) {
		const struct plan_mount *m = &p->mounts[i];
		if (streq_null(m->target, fm->target) && streq_null(m->fstype, fm->fstype) &&
		    m->nosuid == fm->nosuid && m->rdonly == fm->rdonly)
			return 0;
	}
	nm = realloc(p->mounts, (p->n_mounts + 1) * sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	p->mounts = nm;
	p->mounts[p->n_mounts++] = (struct plan_mount){
		.target = dup_or_null(fm->target, &oom),
		.fstype = dup_or_null(fm->fstype, &oom),
		.nosuid = fm->nosuid,
		.rdonly = fm->rdonly,
	};
	return oom ? -ENOMEM : 0;
}

static int cmp_mount(const void *a, const void *b)
{
	return plan_mount_cmp(a, b);
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct plan_entry *)a)->path, ((const struct plan_entry *)b)->path);
}

static int header_from(struct plan *p, const struct host *h, const struct rules_db *db,
		       const char *root, bool live)
{
	bool oom = false;
	int r;

	p->schema = PLAN_SCHEMA;
	p->tool_version = dup_or_null(S2C_VERSION, &oom);
	p->root = dup_or_null(root, &oom);
	p->live = live;
	p->kernel = dup_or_null(h->kernel_release, &oom);
	p->os_id = dup_or_null(h->os_id, &oom);
	p->os_pretty = dup_or_null(h->os_pretty, &oom);
	p->db_hash = dup_or_null(db->hash, &oom);
	p->db_rules = db->n;
	if (oom)
		return -ENOMEM;
	r = host_sysctl(h, "net.ipv4.ping_group_range", &p->ping_group_range);
	if (r < 0 && r != -ENOENT)
		return r;
	/* Base names only: the plan must not depend on where the database lives. */
	for (size_t i = 0; i < db->n_files; i++) {
		const char *slash = strrchr(db->files[i], '/');
		r = strv_push(&p->db_files, &p->n_db_files,
			      strdup(slash ? slash + 1 : db->files[i]));
		if (r < 0)
			return r;
	}
	return 0;
}

int plan_build(const struct decision *const *v, size_t n, const struct host *h,
	       const struct rules_db *db, const char *root, bool live, struct plan **ret,
	       struct s2c_error *err)
{
	_cleanup_(plan_freep) struct plan *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	r = header_from(p, h, db, root, live);
	if (r < 0)
		return r;
	p->v = calloc(n ? n : 1, sizeof(*p->v));
	if (!p->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r = entry_from_decision(v[i], &p->v[i], err);
		p->n = i + 1;
		if (r == 0)
			r = add_mount(p, &v[i]->facts->mount);
		if (r < 0)
			return r;
	}
	if (p->n)
		qsort(p->v, p->n, sizeof(*p->v), cmp_entry);
	if (p->n_mounts)
		qsort(p->mounts, p->n_mounts, sizeof(*p->mounts), cmp_mount);
	for (size_t i = 1; i < p->n; i++)
		if (s2c_streq(p->v[i - 1].path, p->v[i].path))
			return s2c_error_set(err, -EINVAL, "'%s' is in the plan twice",
					     p->v[i].path);
	*ret = TAKE_PTR(p);
	return 0;
}

/* --- checking a plan against a fresh decision ------------------------------------------ */

static const struct plan_entry *find_entry(const struct plan *p, const char *path)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(p->v[mid].path, path);
		if (c == 0)
			return &p->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool same_state(const struct plan_state *a, const struct plan_state *b)
{
	return a->uid == b->uid && a->gid == b->gid && (a->mode & 07777) == (b->mode & 07777) &&
	       a->caps_len == b->caps_len && memcmp(a->caps_raw, b->caps_raw, a->caps_len) == 0;
}

static bool same_file(const struct plan_entry *a, const struct plan_entry *b)
{
	return a->dev_major == b->dev_major && a->dev_minor == b->dev_minor && a->ino == b->ino &&
	       s2c_streq(a->sha256, b->sha256) && same_state(&a->before, &b->before);
}

static char *describe_after(const struct plan_entry *e)
{
	return fmt("%s, %04o %u:%u %s", verdict_name(e->verdict), e->after.mode & 07777, e->after.uid,
		   e->after.gid, e->after.caps_len ? (e->after.caps_text ? e->after.caps_text :
						      "(capabilities)") : "no capabilities");
}

int plan_mismatches(const struct plan *p, const struct plan *fresh, char ***ret)
{
	char **v = NULL;
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; i < p->n && r == 0; i++) {
		const struct plan_entry *e = &p->v[i], *f;
		_cleanup_free_ char *want = NULL, *got = NULL;

		if (!e->change)
			continue;
		f = find_entry(fresh, e->path);
		if (!f || !same_file(e, f))
			continue;
		if (f->verdict == e->verdict && same_state(&f->after, &e->after) &&
		    (f->change || same_state(&f->after, &f->before)))
			continue;
		want = describe_after(e);
		got = describe_after(f);
		if (!want || !got) {
			r = -ENOMEM;
			break;
		}
		r = strv_push(&v, &n, fmt("'%s': the plan says %s; the rules decide %s%s%s%s%s", e->path,
					  want, got, f->rule_id ? " (rule " : "", f->rule_id ? f->rule_id : "",
					  f->rule_id ? ")" : "", f->change ? "" : ", with nothing to change"));
	}
	if (r == 0 && n) {
		char **nv = realloc(v, (n + 1) * sizeof(*v));
		if (nv)
			nv[n] = NULL;
		else
			r = -ENOMEM;
		v = nv ? nv : v;
	}
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return r;
	}
	*ret = v;
	return (int)n;
}

/* The capabilities a state carries (none when malformed). */
static uint64_t file_caps_mask(const struct file_state *s)
{
	struct fcaps c;

	if (!s->has_xattr || fcaps_decode(s->xattr, s->xattr_len, &c, NULL) < 0)
		return 0;
	return c.permitted | c.inheritable;
}

static void file_state_of(const struct plan_state *p, struct file_state *s)
{
	*s = (struct file_state){ .uid = p->uid, .gid = p->gid, .mode = p->mode & 07777,
				  .has_xattr = p->caps_len > 0, .xattr_len = p->caps_len };
	memcpy(s->xattr, p->caps_raw, p->caps_len);
}

int plan_privilege_problems(const struct plan *p, const struct captable *t, char ***ret,
			    size_t *ret_disguised)
{
	char **v = NULL;
	size_t n = 0, disguised = 0;
	int r = 0;

	for (size_t i = 0; i < p->n && r == 0; i++) {
		const struct plan_entry *e = &p->v[i];
		struct s2c_error why = { 0 };
		struct file_state b, a;
		int c;

		if (!e->change)
			continue;
		file_state_of(&e->before, &b);
		file_state_of(&e->after, &a);
		c = privcheck(t, &b, &a, 0, &why);
		if (c == -EACCES) {
			disguised++;
			c = privcheck(t, &b, &a, PRIVCHECK_ROOT_EQUIVALENT, &why);
		}
		if (c == -ENOMEM)
			r = c;
		else if (c < 0)
			r = strv_push(&v, &n, fmt("$.entries[%zu] ('%s'): the change grants more than the "
						  "file has: %s", i, e->path, why.msg));
		else if (e->risk != privcheck_risk(t, &a))
			r = strv_push(&v, &n, fmt("$.entries[%zu] ('%s'): the plan says risk '%s'; what the "
						  "change leaves is '%s'", i, e->path,
						  risk_name(e->risk), risk_name(privcheck_risk(t, &a))));
		else if (e->disguise != (captable_risk(t, file_caps_mask(&a)) == RISK_ROOT))
			r = strv_push(&v, &n, fmt("$.entries[%zu] ('%s'): the plan says setuid_in_disguise "
						  "%s; the capability set says otherwise", i, e->path,
						  e->disguise ? "true" : "false"));
	}
	if (r == 0 && n) {
		char **nv = realloc(v, (n + 1) * sizeof(*v));
		if (nv)
			nv[n] = NULL;
		else
			r = -ENOMEM;
		v = nv ? nv : v;
	}
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return r;
	}
	*ret = v;
	*ret_disguised = disguised;
	return (int)n;
}

int plan_set_not_scanned(struct plan *p, const struct skip_entry *v, size_t n)
{
	struct skip_entry *c = calloc(n ? n : 1, sizeof(*c));
	bool oom = false;

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		c[i].path = dup_or_null(v[i].path, &oom);
		c[i].reason = v[i].reason;
		c[i].source = dup_or_null(v[i].source, &oom);
	}
	if (oom) {
		for (size_t i = 0; i < n; i++)
			skip_entry_release(&c[i]);
		free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_not_scanned; i++)
		skip_entry_release(&p->not_scanned[i]);
	free(p->not_scanned);
	p->not_scanned = c;
	p->n_not_scanned = n;
	return 0;
}

static int state_copy(const struct plan_state *from, struct plan_state *to)
{
	bool oom = false;

	*to = *from;
	to->owner = dup_or_null(from->owner, &oom);
	to->group = dup_or_null(from->group, &oom);
	to->caps_text = dup_or_null(from->caps_text, &oom);
	return oom ? -ENOMEM : 0;
}

/*
 * Only the package database tells this system's files from files someone put
 * there (a copied binary, an unpacked tree): on the running system a change
 * to an unowned file could rewrite something nobody asked to migrate.
 */
int plan_only_packaged(struct plan *p, const struct host *h)
{
	static const char reason[] = "not owned by any package: on the running system only "
				     "packaged files are changed; use --include-unpackaged";
	static const char reason_nodb[] = "not owned by any package (this system has no "
					  "package database suid2cap can read; it reads "
					  "dpkg's): on the running system only packaged files are "
					  "changed; use --include-unpackaged";
	int held = 0;

	if (!p->live)
		return 0;
	for (size_t i = 0; i < p->n; i++) {
		struct plan_entry *e = &p->v[i];
		struct plan_state after;
		char *why;

		if (!e->change || e->package)
			continue;
		why = strdup(h->pkg_db ? reason : reason_nodb);
		if (!why || state_copy(&e->before, &after) < 0) {
			free(why);
			return -ENOMEM;
		}
		plan_state_release(&e->after);
		e->after = after;
		free(e->reason);
		e->reason = why;
		e->change = false;
		e->risk = e->risk_now;
		e->disguise = false;   /* nothing is migrated to the root-equivalent set */
		held++;
	}
	return held;
}

/* --- JSON ----------------------------------------------------------------------------- */

/* Add @v (taken) under @key; NULL @v means out of memory. */

/* A name: a string (with "<key>_hex" when not UTF-8, exact bytes matter), or null. */

/* Text for people (reasons, versions): U+FFFD for bytes that are not UTF-8; or null. */
static int add_text(struct json_object *o, const char *key, const char *s)
{
	return s ? jsonout_add(o, key, jsonout_string(s)) : jsonout_add_null(o, key);
}

static int add_u64(struct json_object *o, const char *key, uint64_t v)
{
	return jsonout_add(o, key, json_object_new_uint64(v));
}

static struct json_object *strv_json(char *const *v, size_t n)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++) {
		struct json_object *s = jsonout_string(v[i]);
		if (!s || json_object_array_add(a, s) < 0) {
			json_object_put(s);
			return NULL;
		}
	}
	return TAKE_PTR(a);
}

static struct json_object *state_json(const struct plan_state *s, bool raw)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	char mode[8], hex[2 * FCAPS_BLOB_MAX + 1];

	if (!o)
		return NULL;
	(void)snprintf(mode, sizeof(mode), "%04" PRIo32, s->mode & 07777);
	if (add_u64(o, "uid", s->uid) < 0 || add_u64(o, "gid", s->gid) < 0 ||
	    jsonout_add_name(o, "owner", s->owner) < 0 || jsonout_add_name(o, "group", s->group) < 0 ||
	    add_text(o, "mode", mode) < 0 || add_text(o, "caps", s->caps_text) < 0)
		return NULL;
	if (raw) {
		hex_encode(s->caps_raw, s->caps_len, hex);
		if (add_text(o, "caps_raw", s->has_caps ? hex : NULL) < 0)
			return NULL;
	}
	return TAKE_PTR(o);
}

static struct json_object *identity_json(const struct plan_entry *e)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	char dev[32];

	if (!o)
		return NULL;
	(void)snprintf(dev, sizeof(dev), "%" PRIu32 ":%" PRIu32, e->dev_major, e->dev_minor);
	if (add_text(o, "dev", dev) < 0 || add_u64(o, "ino", e->ino) < 0 ||
	    add_u64(o, "size", e->size) < 0 || jsonout_add_int(o, "mtime_ns", e->mtime_ns) < 0 ||
	    add_text(o, "sha256", e->sha256[0] ? e->sha256 : NULL) < 0 ||
	    add_u64(o, "nlink", e->nlink) < 0)
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
	    jsonout_add(o, "identity", identity_json(e)) < 0 ||
	    jsonout_add(o, "before", state_json(&e->before, true)) < 0 ||
	    jsonout_add(o, "after", state_json(&e->after, false)) < 0 ||
	    (e->smoke ? jsonout_add(o, "smoke", strv_json(e->smoke, e->n_smoke))
		      : jsonout_add_null(o, "smoke")) < 0 ||
	    jsonout_add(o, "evidence", strv_json(e->evidence, e->n_evidence)) < 0 ||
	    jsonout_add(o, "warnings", strv_json(e->warnings, e->n_warnings)) < 0)
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
	    jsonout_add(o, "files", strv_json(p->db_files, p->n_db_files)) < 0)
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

static struct json_object *entries_json(const struct plan *p)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < p->n; i++) {
		struct json_object *e = entry_json(&p->v[i]);
		if (!e || json_object_array_add(a, e) < 0) {
			json_object_put(e);
			return NULL;
		}
	}
	return TAKE_PTR(a);
}

struct json_object *plan_to_json(const struct plan *p)
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
	    jsonout_add(o, "not_scanned", scanout_skipped_json(p->not_scanned,
							       p->n_not_scanned)) < 0 ||
	    jsonout_add(o, "summary", summary_json(p)) < 0 ||
	    jsonout_add(o, "entries", entries_json(p)) < 0)
		return NULL;
	return TAKE_PTR(o);
}
