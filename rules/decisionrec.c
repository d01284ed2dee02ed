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
#include "factsrec.h"
#include "recio.h"
#include "util.h"
#include "common.h"

/* The first four bytes: "S2CD" and the layout's version. */
#define REC_MAGIC UINT32_C(0x44433253)
#define REC_VERSION 1

/* --- writing -------------------------------------------------------------------------------- */

/* What the reports show of the ELF facts. */
static void put_elf(struct rec_out *o, const struct elfinfo *e)
{
	rec_put_bool(o, e != NULL);
	if (!e)
		return;
	rec_put_u32(o, (uint32_t)e->kind);
	rec_put_str(o, e->script_interp);
	rec_put_u32(o, e->elf_class);
	rec_put_u32(o, e->machine);
	rec_put_ptr(o, e->machine_name);
	rec_put_u32(o, e->elf_type);
	rec_put_bool(o, e->pie);
	rec_put_bool(o, e->is_static);
	rec_put_str(o, e->interp);
	rec_put_u32(o, (uint32_t)e->n_needed);
	for (size_t i = 0; i < e->n_needed; i++)
		rec_put_str(o, e->needed[i]);
	rec_put_str(o, e->rpath);
	rec_put_str(o, e->runpath);
	rec_put_u64(o, e->n_imports_all);
	rec_put_bool(o, e->links_libcap);
	rec_put_bool(o, e->links_libcap_ng);
	rec_put_str(o, e->soname);
}

int decisionrec_pack(const struct decision *d, void **ret, size_t *ret_len)
{
	struct rec_out o = { 0 };
	uint32_t breaker = UINT32_MAX;

	rec_put_u32(&o, REC_MAGIC);
	rec_put_u32(&o, REC_VERSION);
	factsrec_put(&o, d->facts);
	put_elf(&o, d->elf);
	rec_put_str(&o, d->elf_error);
	rec_put_str(&o, d->sha256);
	rec_put_str(&o, d->package);
	rec_put_str(&o, d->package_version);
	rec_put_str(&o, d->version);
	rec_put_ptr(&o, d->version_source);
	rec_put_ptr(&o, d->rule);
	rec_put_u32(&o, (uint32_t)d->n_ambiguous);
	for (size_t i = 0; i < d->n_ambiguous; i++)
		rec_put_ptr(&o, d->ambiguous[i]);
	rec_put_ptr(&o, d->cond);
	rec_put_ptr(&o, d->owner_after);
	rec_put_ptr(&o, d->group_after);
	rec_put_str(&o, d->match_how);
	rec_put_str(&o, d->reason);
	factsrec_put_fcaps(&o, &d->caps);
	rec_put_str(&o, d->caps_text);
	rec_put_u64(&o, d->needs);
	rec_put_u32(&o, d->uid);
	rec_put_u32(&o, d->gid);
	rec_put_u32(&o, d->mode);
	rec_put_u32(&o, (uint32_t)d->tie);
	rec_put_u32(&o, (uint32_t)d->verdict);
	rec_put_u32(&o, (uint32_t)d->risk_now);
	rec_put_u32(&o, (uint32_t)d->risk);
	rec_put_u32(&o, (uint32_t)d->confidence);
	rec_put_bool(&o, d->has_caps);
	rec_put_bool(&o, d->changes);
	rec_put_bool(&o, d->disguise);
	rec_put_bool(&o, d->aware);
	rec_put_u32(&o, (uint32_t)d->overridden);
	rec_put_u32(&o, (uint32_t)d->n_evidence);
	for (size_t i = 0; i < d->n_evidence; i++) {
		rec_put_str(&o, d->evidence[i].what);
		rec_put_u64(&o, d->evidence[i].caps);
		rec_put_u32(&o, (uint32_t)d->evidence[i].strength);
		rec_put_u32(&o, (uint32_t)d->evidence[i].kind);
		rec_put_ptr(&o, d->evidence[i].note);
	}
	rec_put_u32(&o, (uint32_t)d->n_conditions);
	for (size_t i = 0; i < d->n_conditions; i++) {
		rec_put_str(&o, d->conditions[i].text);
		rec_put_u32(&o, (uint32_t)d->conditions[i].holds);
		rec_put_bool(&o, d->conditions[i].chosen);
	}
	rec_put_u32(&o, (uint32_t)d->n_warnings);
	for (size_t i = 0; i < d->n_warnings; i++) {
		rec_put_str(&o, d->warnings[i]);
		if (d->breaker == d->warnings[i])
			breaker = (uint32_t)i;
	}
	rec_put_u32(&o, breaker);
	rec_put_u64(&o, d->proposed);
	rec_put_ptr(&o, d->override);
	return rec_out_finish(&o, ret, ret_len);
}

/* --- reading -------------------------------------------------------------------------------- */

static struct elfinfo *get_elf(struct rec_in *i)
{
	struct elfinfo *e;

	if (!rec_get_bool(i) || !(e = rec_get_array(i, 1, sizeof(*e))))
		return NULL;
	e->kind = (enum elfinfo_kind)rec_get_u32(i);
	e->script_interp = rec_get_str(i);
	e->elf_class = rec_get_u32(i);
	e->machine = rec_get_u32(i);
	e->machine_name = rec_get_ptr(i);
	e->elf_type = rec_get_u32(i);
	e->pie = rec_get_bool(i);
	e->is_static = rec_get_bool(i);
	e->interp = rec_get_str(i);
	e->n_needed = rec_get_count(i, sizeof(uint32_t));
	e->needed = rec_get_array(i, e->n_needed + 1, sizeof(*e->needed));
	if (!e->needed)
		e->n_needed = 0;
	for (size_t k = 0; k < e->n_needed; k++)
		e->needed[k] = rec_get_str(i);
	e->rpath = rec_get_str(i);
	e->runpath = rec_get_str(i);
	e->n_imports_all = rec_get_u64(i);
	e->links_libcap = rec_get_bool(i);
	e->links_libcap_ng = rec_get_bool(i);
	e->soname = rec_get_str(i);
	return e;
}

int decisionrec_unpack(const void *p, size_t len, struct decision_rec *ret)
{
	struct rec_in i = { .p = p, .n = len };
	struct decision_rec r = { 0 };
	struct decision *d;
	uint32_t breaker;

	if (rec_get_u32(&i) != REC_MAGIC || rec_get_u32(&i) != REC_VERSION)
		return -EBADMSG;
	r.d = d = calloc(1, sizeof(*d));
	r.f = calloc(1, sizeof(*r.f));
	if (!d || !r.f) {
		decisionrec_release(&r);
		return -ENOMEM;
	}
	d->facts = r.f;
	factsrec_get(&i, r.f);
	d->elf = get_elf(&i);
	d->elf_error = rec_get_str(&i);
	d->sha256 = rec_get_str(&i);
	d->package = r.package = rec_get_str(&i);
	d->package_version = r.package_version = rec_get_str(&i);
	d->version = rec_get_str(&i);
	d->version_source = rec_get_ptr(&i);
	d->rule = rec_get_ptr(&i);
	d->n_ambiguous = rec_get_count(&i, sizeof(uint64_t));
	if (d->n_ambiguous &&
	    (d->ambiguous = rec_get_array(&i, d->n_ambiguous, sizeof(*d->ambiguous))))
		for (size_t k = 0; k < d->n_ambiguous; k++)
			d->ambiguous[k] = rec_get_ptr(&i);
	if (!d->ambiguous)
		d->n_ambiguous = 0;
	d->cond = rec_get_ptr(&i);
	d->owner_after = rec_get_ptr(&i);
	d->group_after = rec_get_ptr(&i);
	d->match_how = rec_get_str(&i);
	d->reason = rec_get_str(&i);
	factsrec_get_fcaps(&i, &d->caps);
	d->caps_text = rec_get_str(&i);
	d->needs = rec_get_u64(&i);
	d->uid = rec_get_u32(&i);
	d->gid = rec_get_u32(&i);
	d->mode = rec_get_u32(&i);
	d->tie = (enum tie_outcome)rec_get_u32(&i);
	d->verdict = (enum verdict)rec_get_u32(&i);
	d->risk_now = (enum risk)rec_get_u32(&i);
	d->risk = (enum risk)rec_get_u32(&i);
	d->confidence = (enum confidence)rec_get_u32(&i);
	d->has_caps = rec_get_bool(&i);
	d->changes = rec_get_bool(&i);
	d->disguise = rec_get_bool(&i);
	d->aware = rec_get_bool(&i);
	d->overridden = (enum verdict)rec_get_u32(&i);
	d->n_evidence = rec_get_count(&i, 2 * sizeof(uint32_t) + 2 * sizeof(uint64_t));
	if (d->n_evidence &&
	    !(d->evidence = rec_get_array(&i, d->n_evidence, sizeof(*d->evidence))))
		d->n_evidence = 0;
	for (size_t k = 0; k < d->n_evidence; k++) {
		d->evidence[k].what = rec_get_str(&i);
		d->evidence[k].caps = rec_get_u64(&i);
		d->evidence[k].strength = (enum strength)rec_get_u32(&i);
		d->evidence[k].kind = (enum evidence_kind)rec_get_u32(&i);
		d->evidence[k].note = rec_get_ptr(&i);
	}
	d->n_conditions = rec_get_count(&i, 2 * sizeof(uint32_t) + 1);
	if (d->n_conditions &&
	    !(d->conditions = rec_get_array(&i, d->n_conditions, sizeof(*d->conditions))))
		d->n_conditions = 0;
	for (size_t k = 0; k < d->n_conditions; k++) {
		d->conditions[k].text = rec_get_str(&i);
		d->conditions[k].holds = (int)rec_get_u32(&i);
		d->conditions[k].chosen = rec_get_bool(&i);
	}
	d->n_warnings = rec_get_count(&i, sizeof(uint32_t));
	if (d->n_warnings &&
	    !(d->warnings = rec_get_array(&i, d->n_warnings + 1, sizeof(*d->warnings))))
		d->n_warnings = 0;
	for (size_t k = 0; k < d->n_warnings; k++)
		d->warnings[k] = rec_get_str(&i);
	breaker = rec_get_u32(&i);
	if (breaker != UINT32_MAX && breaker >= d->n_warnings && !i.error)
		i.error = -EBADMSG;
	d->breaker = breaker != UINT32_MAX && !i.error ? d->warnings[breaker] : NULL;
	d->proposed = rec_get_u64(&i);
	d->override = rec_get_ptr(&i);
	if (rec_in_finish(&i) < 0) {
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
