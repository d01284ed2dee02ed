/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "hashindex.h"

void hashindex_release(struct hashindex *x)
{
	free(x->v);
	*x = (struct hashindex){ 0 };
}

static void seat(struct hashindex_slot *v, size_t n_slots, struct hashindex_slot e)
{
	size_t i;

	for (i = (size_t)e.hash & (n_slots - 1); v[i].pos1; i = (i + 1) & (n_slots - 1))
		;
	v[i] = e;
}

int hashindex_add(struct hashindex *x, uint64_t hash, size_t pos)
{
	/* Keep the load under 1/2 so probes stay short. */
	if ((x->n + 1) * 2 > x->n_slots) {
		size_t n = x->n_slots ? x->n_slots * 2 : 64;
		struct hashindex_slot *v = calloc(n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < x->n_slots; i++)
			if (x->v[i].pos1)
				seat(v, n, x->v[i]);
		free(x->v);
		x->v = v;
		x->n_slots = n;
	}
	seat(x->v, x->n_slots, (struct hashindex_slot){ hash, pos + 1 });
	x->n++;
	return 0;
}

size_t hashindex_find(const struct hashindex *x, uint64_t hash,
		      bool (*same)(size_t pos, const void *userdata), const void *userdata)
{
	size_t mask = x->n_slots - 1, first = SIZE_MAX;

	if (!x->n_slots)
		return SIZE_MAX;
	/* The whole run of slots: after a rehash the first added need not come first. */
	for (size_t i = (size_t)hash & mask; x->v[i].pos1; i = (i + 1) & mask)
		if (x->v[i].hash == hash && x->v[i].pos1 - 1 < first &&
		    same(x->v[i].pos1 - 1, userdata))
			first = x->v[i].pos1 - 1;
	return first;
}

void hashindex_each(const struct hashindex *x, uint64_t hash, void (*fn)(size_t pos, void *userdata),
		    void *userdata)
{
	size_t mask = x->n_slots - 1;

	if (!x->n_slots)
		return;
	for (size_t i = (size_t)hash & mask; x->v[i].pos1; i = (i + 1) & mask)
		if (x->v[i].hash == hash)
			fn(x->v[i].pos1 - 1, userdata);
}
