/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet model behind `report merge`: its life (made, notes, freed) and,
 * once every report is in, per program the majority state and the targets
 * that drift from it, and the targets named apart.  The reports are read in
 * report/fleetread.c, the writers are in report/fleetout.c; the structs all
 * share in report/fleetmodel.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "fleet.h"
#include "fleetmodel.h"
#include "util.h"
#include "common.h"

void fstate_release(struct fstate *s)
{
	json_object_put(s->waived);
	s->waived = NULL;
}

void fprog_truncate(struct fprog *p, size_t keep)
{
	for (size_t j = keep; j < p->n; j++)
		fstate_release(&p->v[j]);
	p->n = keep;
}

void fprog_release(struct fprog *p)
{
	fprog_truncate(p, 0);
	free(p->v);
	free(p->path);
}

void ftarget_release(struct ftarget *t)
{
	free(t->name);
	free(t->kind);
	free(t->machine_id);
	free(t->time);
	free(t->source);
	free(t->error);
	free(t->tool);
	free(t->label);
	free(t->root);
	free(t->auditor);
	strv_free(t->incomplete);
}

struct fleet *fleet_free(struct fleet *f)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < f->n_t; i++)
		ftarget_release(&f->t[i]);
	free(f->t);
	for (size_t i = 0; i < f->n_p; i++)
		fprog_release(&f->p[i]);
	free(f->p);
	strv_freen(f->reports, f->n_reports);
	strv_freen(f->notes, f->n_notes);
	json_object_put(f->waivers);
	hashindex_release(&f->by_path);
	hashindex_release(&f->by_target);
	strpool_release(&f->strings);
	free(f->touched);
	free(f);
	return NULL;
}

int fleet_new(struct fleet **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

int fleet_note(struct fleet *f, const char *note)
{
	return strv_push(&f->notes, &f->n_notes, strdup(note));
}

int fleet_unread(struct fleet *f, const char *note)
{
	int r = fleet_note(f, note);

	f->reports_unread += r == 0;
	return r;
}

/* --- majorities ----------------------------------------------------------------------------- */

static int cmp_prog(const void *a, const void *b)
{
	return strcmp(((const struct fprog *)a)->path, ((const struct fprog *)b)->path);
}

/*
 * @t as people tell it apart from others of its name, at detail @level: 0 its name, 1 with
 * what it is (a root and the host that audited it, a host's machine), 2 with a root's
 * machine too, 3 with the report it comes from.  A new string, or NULL on OOM.
 */
static char *target_text(const struct ftarget *t, int level)
{
	const char *base = strrchr(t->source, '/') ? strrchr(t->source, '/') + 1 : t->source;
	_cleanup_free_ char *what = NULL, *machine = NULL;

	if (level == 0)
		return strdup(t->name);
	/* a root by where it is, a host by its machine, the others by what they are */
	if (t->root)
		what = strdup_printf("root %s%s%s", t->root, t->auditor ? " on " : "",
				     t->auditor ? t->auditor : "");
	else if (s2c_streq(t->kind, "host"))
		what = t->machine_id ? strdup_printf("machine %.12s", t->machine_id) :
				       strdup("no machine id");
	else
		what = strdup(t->kind);
	machine = level < 2 || !t->root ? strdup("") : t->machine_id ?
		  strdup_printf(", machine %.12s", t->machine_id) : strdup(", no machine id");
	if (!what || !machine)
		return NULL;
	return strdup_printf("%s (%s%s%s%s)", t->name, what, machine, level < 3 ? "" : ", ",
			     level < 3 ? "" : base);
}

/*
 * Targets that share a name ('vm', and an mmdebstrap root that copied its hostname) get the
 * least detail that tells them apart, the same for each of them.  Returns 0 or -ENOMEM.
 */
static int name_apart(struct fleet *f)
{
	for (size_t i = 0; i < f->n_t; i++) {
		size_t same[64], n = 0;
		char *names[64];
		int level = 0;
		bool apart = false;

		for (size_t j = i; j < f->n_t && n < S2C_ELEMENTSOF(same); j++)
			if (s2c_streq(f->t[j].name, f->t[i].name))
				same[n++] = j;
		/* the first of a name does it for all of them */
		for (size_t j = 0; j < i && n > 1; j++)
			if (s2c_streq(f->t[j].name, f->t[i].name))
				n = 1;
		for (level = 1; n > 1 && level <= 3 && !apart; level++) {
			apart = true;
			for (size_t k = 0; k < n; k++)
				if (!(names[k] = target_text(&f->t[same[k]], level))) {
					while (k--)
						free(names[k]);
					return -ENOMEM;
				}
			for (size_t a = 0; a < n && apart; a++)
				for (size_t b = a + 1; b < n && apart; b++)
					apart = !s2c_streq(names[a], names[b]);
			if (apart || level == 3)
				for (size_t k = 0; k < n; k++) {
					free(f->t[same[k]].name);
					f->t[same[k]].name = TAKE_PTR(names[k]);
				}
			for (size_t k = 0; k < n; k++)
				free(names[k]);
		}
	}
	return 0;
}

/* States by key, then by position: equal states next to each other, each run in order. */
static int cmp_state(const void *a, const void *b, void *userdata)
{
	const struct fprog *p = userdata;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(p->v[x].key, p->v[y].key);

	return c ? c : (x > y) - (x < y);
}

/* The majority of @p: the most targets, a tie to the smaller state, its first target. */
static int majority(struct fprog *p, size_t **order, size_t *alloc)
{
	size_t best = 0, best_n = 0;

	if (p->n > *alloc) {
		size_t *bigger = reallocarray(*order, p->n, sizeof(**order));
		if (!bigger)
			return -ENOMEM;
		*order = bigger;
		*alloc = p->n;
	}
	for (size_t k = 0; k < p->n; k++)
		(*order)[k] = k;
	qsort_r(*order, p->n, sizeof(**order), cmp_state, p);
	for (size_t k = 0, run; k < p->n; k += run) {
		for (run = 1; k + run < p->n && s2c_streq(p->v[(*order)[k]].key,
							   p->v[(*order)[k + run]].key); run++)
			;
		if (run > best_n) {
			best_n = run;
			best = (*order)[k];
		}
	}
	p->major = best;
	p->n_major = best_n;
	return 0;
}

int fleet_finish(struct fleet *f)
{
	_cleanup_free_ size_t *order = NULL;
	size_t alloc = 0;
	int r = name_apart(f);

	if (r < 0)
		return r;
	if (f->n_p)
		qsort(f->p, f->n_p, sizeof(*f->p), cmp_prog);
	/* Sorted, the positions changed: the index by path is of no use any more. */
	hashindex_release(&f->by_path);
	for (size_t i = 0; i < f->n_p && r == 0; i++)
		r = majority(&f->p[i], &order, &alloc);
	return r;
}

int fleet_drift(const struct fleet *f)
{
	for (size_t i = 0; i < f->n_p; i++)
		if (f->p[i].n_major != f->p[i].n)
			return 1;
	return 0;
}

size_t fleet_targets_incomplete(const struct fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_t; i++)
		n += !f->t[i].complete || f->t[i].error;
	return n;
}

bool fleet_complete(const struct fleet *f, bool allowed_too)
{
	for (size_t i = 0; i < f->n_t; i++)
		if ((!f->t[i].complete || f->t[i].error) &&
		    (!allowed_too || !f->t[i].incomplete_allowed || f->t[i].error))
			return false;
	return f->reports_unread == 0;
}

void fleet_each_incomplete(const struct fleet *f,
			   void (*fn)(void *userdata, const char *name, const char *report,
				      const char *reason, size_t more, bool allowed),
			   void *userdata)
{
	for (size_t i = 0; i < f->n_t; i++) {
		const struct ftarget *t = &f->t[i];

		if (!t->complete && !t->error)
			fn(userdata, t->name, t->source, t->incomplete ? t->incomplete[0] : "",
			   t->n_incomplete ? t->n_incomplete - 1 : 0, t->incomplete_allowed);
	}
}

bool fleet_incomplete(const struct fleet *f, bool allow)
{
	if (f->reports_unread)
		return true;
	for (size_t i = 0; i < f->n_t; i++)
		if (f->t[i].error || (!f->t[i].complete && !allow && !f->t[i].incomplete_allowed))
			return true;
	return false;
}

char *fleet_incomplete_text(const struct fleet *f)
{
	size_t inc = fleet_targets_incomplete(f), allowed = 0;
	_cleanup_free_ char *reports = NULL, *targets = NULL;

	if (fleet_complete(f, false))
		return NULL;
	for (size_t i = 0; i < f->n_t; i++)
		allowed += !f->t[i].complete && !f->t[i].error && f->t[i].incomplete_allowed;
	reports = f->reports_unread ? strdup_printf("%zu report%s could not be read",
						    f->reports_unread,
						    f->reports_unread == 1 ? "" : "s") : strdup("");
	targets = !inc ? strdup("") : allowed ?
		  strdup_printf("%zu target%s incomplete (%zu allowed by its audit's "
				"--allow-incomplete)", inc, inc == 1 ? " is" : "s are", allowed) :
		  strdup_printf("%zu target%s incomplete", inc, inc == 1 ? " is" : "s are");
	if (!reports || !targets)
		return NULL;
	return strdup_printf("%s%s%s", reports, *reports && *targets ? ", " : "", targets);
}
