/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plan model: built from decisions (plan_build), limited to what may be
 * changed (plan_set_not_scanned, plan_only_packaged), summarised and freed.
 * Checks live in plancheck.c, the JSON writer in planjson.c and the reader
 * in planload.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "engine.h"
#include "facts.h"
#include "host.h"
#include "plan.h"
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

void plan_names_release(struct plan_names *n)
{
	free(n->owner);
	free(n->group);
	free(n->caps_text);
	memset(n, 0, sizeof(*n));
}

void plan_entry_release(struct plan_entry *e)
{
	free(e->path);
	free(e->rule_id);
	free(e->reason);
	free(e->package);
	plan_names_release(&e->before_names);
	plan_names_release(&e->after_names);
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

static int names_before(const struct facts *f, struct plan_names *n)
{
	bool oom = false;

	n->owner = dup_or_null(f->owner, &oom);
	n->group = dup_or_null(f->group, &oom);
	if (f->has_caps && !f->caps_error)
		n->caps_text = dup_or_null(f->caps_text, &oom);
	return oom ? -ENOMEM : 0;
}

/*
 * The state after: ids and mode from the decision; a name changes only when
 * the rule asked for another owner or group, so the rule names it.
 */
static int state_after(const struct decision *d, const struct plan_entry *e,
		       struct file_state *s, struct plan_names *n)
{
	const char *owner = d->uid == e->id.state.uid ? e->before_names.owner : d->owner_after;
	const char *group = d->gid == e->id.state.gid ? e->before_names.group : d->group_after;
	bool oom = false;

	*s = (struct file_state){ .uid = d->uid, .gid = d->gid, .mode = d->mode & 07777 };
	n->owner = dup_or_null(owner, &oom);
	n->group = dup_or_null(group, &oom);
	if (d->has_caps && d->caps_text) {
		filestate_set_caps(s, &d->caps);
		n->caps_text = dup_or_null(d->caps_text, &oom);
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
			      strdup_printf("%s %s: %s%s%s", strength_name(ev->strength),
					    k >= 0 && k < _EVIDENCE_KIND_MAX ? evidence_kinds[k] : "?",
					    ev->what, caps ? " -> " : "", caps ? caps : ""));
	}
	for (size_t i = 0; i < d->n_conditions && r == 0; i++)
		r = strv_push(&e->evidence, &e->n_evidence,
			      strdup_printf("condition: %s%s", d->conditions[i].text,
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
		return strdup_printf("%s It is already in that state, so nothing changes.",
				     d->reason);
	return strdup_printf("%s; it is already in that state, so nothing changes", d->reason);
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
	facts_file_id(f, d->sha256, &e->id);
	if (oom || !e->path || !e->reason)
		return -ENOMEM;
	r = names_before(f, &e->before_names);
	if (r == 0)
		r = state_after(d, e, &e->after, &e->after_names);
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

/* --- what a plan may change -------------------------------------------------------------- */

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

static int names_copy(const struct plan_names *from, struct plan_names *to)
{
	bool oom = false;

	to->owner = dup_or_null(from->owner, &oom);
	to->group = dup_or_null(from->group, &oom);
	to->caps_text = dup_or_null(from->caps_text, &oom);
	if (oom)
		plan_names_release(to);
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
		struct plan_names after = { 0 };
		char *why;

		if (!e->change || e->package)
			continue;
		why = strdup(h->pkg_db ? reason : reason_nodb);
		if (!why || names_copy(&e->before_names, &after) < 0) {
			free(why);
			return -ENOMEM;
		}
		plan_names_release(&e->after_names);
		e->after_names = after;
		e->after = e->id.state;
		free(e->reason);
		e->reason = why;
		e->change = false;
		e->risk = e->risk_now;
		e->disguise = false;   /* nothing is migrated to the root-equivalent set */
		held++;
	}
	return held;
}
