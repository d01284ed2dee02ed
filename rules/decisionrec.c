/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decisionrec.h"
#include "elfinfo.h"
#include "engine.h"
#include "facts.h"
#include "util.h"
#include "common.h"

/* The first four bytes: "S2CD" and the layout's version. */
#define REC_MAGIC UINT32_C(0x44433253)
#define REC_VERSION 1

/* --- writing -------------------------------------------------------------------------------- */

struct out {
	char *p;
	size_t n, cap;
	int error;
};

static void put(struct out *o, const void *v, size_t len)
{
	if (o->error)
		return;
	if (S2C_ARRAY_RESERVE(o->p, o->cap, o->n + len, 512) < 0) {
		o->error = -ENOMEM;
		return;
	}
	memcpy(o->p + o->n, v, len);
	o->n += len;
}

static void put_u64(struct out *o, uint64_t v)
{
	put(o, &v, sizeof(v));
}

static void put_u32(struct out *o, uint32_t v)
{
	put(o, &v, sizeof(v));
}

static void put_u8(struct out *o, bool v)
{
	uint8_t b = v;

	put(o, &b, 1);
}

static void put_ptr(struct out *o, const void *v)
{
	put_u64(o, (uint64_t)(uintptr_t)v);
}

/* Its length plus one and its bytes, or 0 for NULL. */
static void put_str(struct out *o, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n >= UINT32_MAX) {
		o->error = -ENOMEM;
		return;
	}
	put_u32(o, s ? (uint32_t)n + 1 : 0);
	if (s)
		put(o, s, n);
}

static void put_fcaps(struct out *o, const struct fcaps *c)
{
	put_u32(o, c->version);
	put_u8(o, c->effective);
	put_u64(o, c->permitted);
	put_u64(o, c->inheritable);
	put_u8(o, c->has_rootid);
	put_u32(o, c->rootid);
}

static void put_facts(struct out *o, const struct facts *f)
{
	put_str(o, f->path);
	put_u32(o, f->uid);
	put_u32(o, f->gid);
	put_u8(o, f->uid_later);
	put_u8(o, f->gid_later);
	put_str(o, f->owner);
	put_str(o, f->group);
	put_u32(o, f->mode);
	put_u64(o, f->size);
	put_u64(o, (uint64_t)f->mtime_sec);
	put_u32(o, f->mtime_nsec);
	put_u32(o, f->dev_major);
	put_u32(o, f->dev_minor);
	put_u64(o, f->ino);
	put_u32(o, f->nlink);
	put_u8(o, f->has_caps);
	put_fcaps(o, &f->caps);
	put_str(o, f->caps_text);
	put_str(o, f->caps_error);
	put_u32(o, (uint32_t)S2C_MIN(f->caps_len, sizeof(f->caps_raw)));
	put(o, f->caps_raw, S2C_MIN(f->caps_len, sizeof(f->caps_raw)));
	put_str(o, f->mount.fstype);
	put_str(o, f->mount.target);
	put_u8(o, f->mount.nosuid);
	put_u8(o, f->mount.rdonly);
	put_u8(o, f->mount.noexec);
	put_str(o, f->interpreter);
	put_u64(o, f->mnt_id);
	put_u32(o, (uint32_t)f->flags);
}

/* What the reports show of the ELF facts. */
static void put_elf(struct out *o, const struct elfinfo *e)
{
	put_u8(o, e != NULL);
	if (!e)
		return;
	put_u32(o, (uint32_t)e->kind);
	put_str(o, e->script_interp);
	put_u32(o, e->elf_class);
	put_u32(o, e->machine);
	put_ptr(o, e->machine_name);
	put_u32(o, e->elf_type);
	put_u8(o, e->pie);
	put_u8(o, e->is_static);
	put_str(o, e->interp);
	put_u32(o, (uint32_t)e->n_needed);
	for (size_t i = 0; i < e->n_needed; i++)
		put_str(o, e->needed[i]);
	put_str(o, e->rpath);
	put_str(o, e->runpath);
	put_u64(o, e->n_imports_all);
	put_u8(o, e->links_libcap);
	put_u8(o, e->links_libcap_ng);
	put_str(o, e->soname);
}

int decisionrec_pack(const struct decision *d, void **ret, size_t *ret_len)
{
	struct out o = { 0 };
	uint32_t breaker = UINT32_MAX;

	put_u32(&o, REC_MAGIC);
	put_u32(&o, REC_VERSION);
	put_facts(&o, d->facts);
	put_elf(&o, d->elf);
	put_str(&o, d->elf_error);
	put_str(&o, d->sha256);
	put_str(&o, d->package);
	put_str(&o, d->package_version);
	put_str(&o, d->version);
	put_ptr(&o, d->version_source);
	put_ptr(&o, d->rule);
	put_u32(&o, (uint32_t)d->n_ambiguous);
	for (size_t i = 0; i < d->n_ambiguous; i++)
		put_ptr(&o, d->ambiguous[i]);
	put_ptr(&o, d->cond);
	put_ptr(&o, d->owner_after);
	put_ptr(&o, d->group_after);
	put_str(&o, d->match_how);
	put_str(&o, d->reason);
	put_fcaps(&o, &d->caps);
	put_str(&o, d->caps_text);
	put_u64(&o, d->needs);
	put_u32(&o, d->uid);
	put_u32(&o, d->gid);
	put_u32(&o, d->mode);
	put_u32(&o, (uint32_t)d->tie);
	put_u32(&o, (uint32_t)d->verdict);
	put_u32(&o, (uint32_t)d->risk_now);
	put_u32(&o, (uint32_t)d->risk);
	put_u32(&o, (uint32_t)d->confidence);
	put_u8(&o, d->has_caps);
	put_u8(&o, d->changes);
	put_u8(&o, d->disguise);
	put_u8(&o, d->aware);
	put_u32(&o, (uint32_t)d->overridden);
	put_u32(&o, (uint32_t)d->n_evidence);
	for (size_t i = 0; i < d->n_evidence; i++) {
		put_str(&o, d->evidence[i].what);
		put_u64(&o, d->evidence[i].caps);
		put_u32(&o, (uint32_t)d->evidence[i].strength);
		put_u32(&o, (uint32_t)d->evidence[i].kind);
		put_ptr(&o, d->evidence[i].note);
	}
	put_u32(&o, (uint32_t)d->n_conditions);
	for (size_t i = 0; i < d->n_conditions; i++) {
		put_str(&o, d->conditions[i].text);
		put_u32(&o, (uint32_t)d->conditions[i].holds);
		put_u8(&o, d->conditions[i].chosen);
	}
	put_u32(&o, (uint32_t)d->n_warnings);
	for (size_t i = 0; i < d->n_warnings; i++) {
		put_str(&o, d->warnings[i]);
		if (d->breaker == d->warnings[i])
			breaker = (uint32_t)i;
	}
	put_u32(&o, breaker);
	put_u64(&o, d->proposed);
	put_ptr(&o, d->override);
	if (o.error) {
		free(o.p);
		return o.error;
	}
	*ret = o.p;
	*ret_len = o.n;
	return 0;
}

/* --- reading -------------------------------------------------------------------------------- */

struct in {
	const char *p;
	size_t n, pos;
	int error;              /* -EBADMSG or -ENOMEM, once set kept */
};

static void get(struct in *i, void *v, size_t len)
{
	if (i->error || len > i->n - i->pos) {
		if (!i->error)
			i->error = -EBADMSG;
		memset(v, 0, len);
		return;
	}
	memcpy(v, i->p + i->pos, len);
	i->pos += len;
}

static uint64_t get_u64(struct in *i)
{
	uint64_t v;

	get(i, &v, sizeof(v));
	return v;
}

static uint32_t get_u32(struct in *i)
{
	uint32_t v;

	get(i, &v, sizeof(v));
	return v;
}

static bool get_u8(struct in *i)
{
	uint8_t b;

	get(i, &b, 1);
	return b != 0;
}

static const void *get_ptr(struct in *i)
{
	return (const void *)(uintptr_t)get_u64(i);
}

/* A new copy, or NULL (for NULL, or after an error). */
static char *get_str(struct in *i)
{
	uint32_t n = get_u32(i);
	char *s;

	if (i->error || n == 0)
		return NULL;
	if (n - 1 > i->n - i->pos || memchr(i->p + i->pos, '\0', n - 1)) {
		i->error = -EBADMSG;
		return NULL;
	}
	s = strndup(i->p + i->pos, n - 1);
	if (!s)
		i->error = -ENOMEM;
	i->pos += n - 1;
	return s;
}

/* A count of items of at least @min bytes each that the rest can hold, or 0 after an error. */
static size_t get_count(struct in *i, size_t min)
{
	uint32_t n = get_u32(i);

	if (!i->error && (size_t)n > (i->n - i->pos) / min)
		i->error = -EBADMSG;
	return i->error ? 0 : n;
}

/* calloc() of @n items (one at least), or NULL with the error set. */
static void *get_array(struct in *i, size_t n, size_t size)
{
	void *v = i->error ? NULL : calloc(n ? n : 1, size);

	if (!v && !i->error)
		i->error = -ENOMEM;
	return v;
}

static void get_fcaps(struct in *i, struct fcaps *c)
{
	c->version = get_u32(i);
	c->effective = get_u8(i);
	c->permitted = get_u64(i);
	c->inheritable = get_u64(i);
	c->has_rootid = get_u8(i);
	c->rootid = get_u32(i);
}

static void get_facts(struct in *i, struct facts *f)
{
	size_t caps_len;

	f->path = get_str(i);
	f->uid = get_u32(i);
	f->gid = get_u32(i);
	f->uid_later = get_u8(i);
	f->gid_later = get_u8(i);
	f->owner = get_str(i);
	f->group = get_str(i);
	f->mode = get_u32(i);
	f->size = get_u64(i);
	f->mtime_sec = (int64_t)get_u64(i);
	f->mtime_nsec = get_u32(i);
	f->dev_major = get_u32(i);
	f->dev_minor = get_u32(i);
	f->ino = get_u64(i);
	f->nlink = get_u32(i);
	f->has_caps = get_u8(i);
	get_fcaps(i, &f->caps);
	f->caps_text = get_str(i);
	f->caps_error = get_str(i);
	caps_len = get_u32(i);
	if (caps_len > sizeof(f->caps_raw) && !i->error)
		i->error = -EBADMSG;
	if (!i->error)
		get(i, f->caps_raw, caps_len);
	f->caps_len = i->error ? 0 : caps_len;
	f->mount.fstype = get_str(i);
	f->mount.target = get_str(i);
	f->mount.nosuid = get_u8(i);
	f->mount.rdonly = get_u8(i);
	f->mount.noexec = get_u8(i);
	f->interpreter = get_str(i);
	f->mnt_id = get_u64(i);
	f->flags = (enum facts_flags)get_u32(i);
	if (!i->error && !f->path)
		i->error = -EBADMSG;
}

static struct elfinfo *get_elf(struct in *i)
{
	struct elfinfo *e;

	if (!get_u8(i) || !(e = get_array(i, 1, sizeof(*e))))
		return NULL;
	e->kind = (enum elfinfo_kind)get_u32(i);
	e->script_interp = get_str(i);
	e->elf_class = get_u32(i);
	e->machine = get_u32(i);
	e->machine_name = get_ptr(i);
	e->elf_type = get_u32(i);
	e->pie = get_u8(i);
	e->is_static = get_u8(i);
	e->interp = get_str(i);
	e->n_needed = get_count(i, sizeof(uint32_t));
	e->needed = get_array(i, e->n_needed + 1, sizeof(*e->needed));
	if (!e->needed)
		e->n_needed = 0;
	for (size_t k = 0; k < e->n_needed; k++)
		e->needed[k] = get_str(i);
	e->rpath = get_str(i);
	e->runpath = get_str(i);
	e->n_imports_all = get_u64(i);
	e->links_libcap = get_u8(i);
	e->links_libcap_ng = get_u8(i);
	e->soname = get_str(i);
	return e;
}

int decisionrec_unpack(const void *p, size_t len, struct decision_rec *ret)
{
	struct in i = { .p = p, .n = len };
	struct decision_rec r = { 0 };
	struct decision *d;
	uint32_t breaker;

	if (get_u32(&i) != REC_MAGIC || get_u32(&i) != REC_VERSION)
		return -EBADMSG;
	r.d = d = calloc(1, sizeof(*d));
	r.f = calloc(1, sizeof(*r.f));
	if (!d || !r.f) {
		decisionrec_release(&r);
		return -ENOMEM;
	}
	d->facts = r.f;
	get_facts(&i, r.f);
	d->elf = get_elf(&i);
	d->elf_error = get_str(&i);
	d->sha256 = get_str(&i);
	d->package = r.package = get_str(&i);
	d->package_version = r.package_version = get_str(&i);
	d->version = get_str(&i);
	d->version_source = get_ptr(&i);
	d->rule = get_ptr(&i);
	d->n_ambiguous = get_count(&i, sizeof(uint64_t));
	if (d->n_ambiguous && (d->ambiguous = get_array(&i, d->n_ambiguous, sizeof(*d->ambiguous))))
		for (size_t k = 0; k < d->n_ambiguous; k++)
			d->ambiguous[k] = get_ptr(&i);
	if (!d->ambiguous)
		d->n_ambiguous = 0;
	d->cond = get_ptr(&i);
	d->owner_after = get_ptr(&i);
	d->group_after = get_ptr(&i);
	d->match_how = get_str(&i);
	d->reason = get_str(&i);
	get_fcaps(&i, &d->caps);
	d->caps_text = get_str(&i);
	d->needs = get_u64(&i);
	d->uid = get_u32(&i);
	d->gid = get_u32(&i);
	d->mode = get_u32(&i);
	d->tie = (enum tie_outcome)get_u32(&i);
	d->verdict = (enum verdict)get_u32(&i);
	d->risk_now = (enum risk)get_u32(&i);
	d->risk = (enum risk)get_u32(&i);
	d->confidence = (enum confidence)get_u32(&i);
	d->has_caps = get_u8(&i);
	d->changes = get_u8(&i);
	d->disguise = get_u8(&i);
	d->aware = get_u8(&i);
	d->overridden = (enum verdict)get_u32(&i);
	d->n_evidence = get_count(&i, 2 * sizeof(uint32_t) + 2 * sizeof(uint64_t));
	if (d->n_evidence && !(d->evidence = get_array(&i, d->n_evidence, sizeof(*d->evidence))))
		d->n_evidence = 0;
	for (size_t k = 0; k < d->n_evidence; k++) {
		d->evidence[k].what = get_str(&i);
		d->evidence[k].caps = get_u64(&i);
		d->evidence[k].strength = (enum strength)get_u32(&i);
		d->evidence[k].kind = (enum evidence_kind)get_u32(&i);
		d->evidence[k].note = get_ptr(&i);
	}
	d->n_conditions = get_count(&i, 2 * sizeof(uint32_t) + 1);
	if (d->n_conditions &&
	    !(d->conditions = get_array(&i, d->n_conditions, sizeof(*d->conditions))))
		d->n_conditions = 0;
	for (size_t k = 0; k < d->n_conditions; k++) {
		d->conditions[k].text = get_str(&i);
		d->conditions[k].holds = (int)get_u32(&i);
		d->conditions[k].chosen = get_u8(&i);
	}
	d->n_warnings = get_count(&i, sizeof(uint32_t));
	if (d->n_warnings && !(d->warnings = get_array(&i, d->n_warnings + 1, sizeof(*d->warnings))))
		d->n_warnings = 0;
	for (size_t k = 0; k < d->n_warnings; k++)
		d->warnings[k] = get_str(&i);
	breaker = get_u32(&i);
	if (breaker != UINT32_MAX && breaker >= d->n_warnings && !i.error)
		i.error = -EBADMSG;
	d->breaker = breaker != UINT32_MAX && !i.error ? d->warnings[breaker] : NULL;
	d->proposed = get_u64(&i);
	d->override = get_ptr(&i);
	if (!i.error && i.pos != i.n)
		i.error = -EBADMSG;
	if (i.error) {
		decisionrec_release(&r);
		return i.error;
	}
	*ret = r;
	return 0;
}

void decisionrec_release(struct decision_rec *r)
{
	decision_free(r->d);
	facts_free(r->f);
	free(r->package);
	free(r->package_version);
	memset(r, 0, sizeof(*r));
}
