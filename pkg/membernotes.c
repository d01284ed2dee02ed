/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "membernotes.h"
#include "strhash.h"

struct note *membernotes_find(const struct membernotes *x, uint64_t h)
{
	size_t mask = x->n_slots - 1;

	if (!x->n_slots)
		return NULL;
	for (size_t i = (size_t)h & mask; x->index[i]; i = (i + 1) & mask)
		if (x->v[x->index[i] - 1].hash == h)
			return &x->v[x->index[i] - 1];
	return NULL;
}

static void seat(uint32_t *index, size_t n_slots, uint64_t h, size_t pos)
{
	size_t i;

	for (i = (size_t)h & (n_slots - 1); index[i]; i = (i + 1) & (n_slots - 1))
		;
	index[i] = (uint32_t)(pos + 1);
}

/* Room for one more note: the array doubles, the index stays twice its size. */
static int grow(struct membernotes *x, size_t room)
{
	size_t alloc = x->alloc ? x->alloc * 2 : 64, slots = alloc * 2;
	size_t more = (alloc - x->alloc) * sizeof(*x->v) + (slots - x->n_slots) * sizeof(*x->index);
	struct note *v;
	uint32_t *index;

	if (alloc >= UINT32_MAX || more > room)
		return -ENOBUFS;
	index = calloc(slots, sizeof(*index));
	if (!index)
		return -ENOMEM;
	v = realloc(x->v, alloc * sizeof(*v));
	if (!v) {
		free(index);
		return -ENOMEM;
	}
	for (size_t k = 0; k < x->n; k++)
		seat(index, slots, v[k].hash, k);
	free(x->index);
	x->v = v;
	x->alloc = alloc;
	x->index = index;
	x->n_slots = slots;
	x->bytes += more;
	return 0;
}

int membernotes_put(struct membernotes *x, uint64_t h, size_t room, struct note **ret)
{
	struct note *e = membernotes_find(x, h);
	int r;

	if (!e) {
		if (x->n == x->alloc && (r = grow(x, room)) < 0)
			return r;
		seat(x->index, x->n_slots, h, x->n);
		e = &x->v[x->n++];
	}
	*e = (struct note){ .hash = h, .seq = ++x->seq };
	*ret = e;
	return 0;
}

struct hide_key {
	const struct membernotes *x;
	uint64_t hash;
};

static bool same_hide(size_t pos, const void *userdata)
{
	const struct hide_key *k = userdata;

	return pos < k->x->n_hides && k->x->hides[pos].hash == k->hash;
}

/* The record of the path hashed @h, or NULL. */
static struct note_hide *find_hide(const struct membernotes *x, uint64_t h)
{
	struct hide_key k = { x, h };
	size_t pos = x->n_hides ? hashindex_find(&x->hide_index, h, same_hide, &k) : SIZE_MAX;

	return pos == SIZE_MAX ? NULL : &x->hides[pos];
}

/* A new record of the path hashed @h. */
static int add_hide(struct membernotes *x, uint64_t h, size_t room, struct note_hide **ret)
{
	size_t before = x->hide_index.n_slots * sizeof(*x->hide_index.v);
	int r;

	if (x->n_hides == x->alloc_hides) {
		size_t alloc = x->alloc_hides ? x->alloc_hides * 2 : 16;
		size_t more = (alloc - x->alloc_hides) * sizeof(*x->hides);
		struct note_hide *v;
		if (more > room)
			return -ENOBUFS;
		v = realloc(x->hides, alloc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		x->hides = v;
		x->alloc_hides = alloc;
		x->bytes += more;
		room -= more;
	}
	/* the index doubles when it is half full: at most twice its size now */
	if ((x->hide_index.n + 1) * 2 > x->hide_index.n_slots && before * 2 + 1024 > room)
		return -ENOBUFS;
	r = hashindex_add(&x->hide_index, h, x->n_hides);
	if (r < 0)
		return r;
	x->bytes += x->hide_index.n_slots * sizeof(*x->hide_index.v) - before;
	*ret = &x->hides[x->n_hides++];
	**ret = (struct note_hide){ .hash = h };
	return 0;
}

int membernotes_hide(struct membernotes *x, const char *path, bool self, unsigned layer,
		     size_t room)
{
	uint64_t h = strhash(path);
	struct note_hide *e = find_hide(x, h);
	int r;

	if (!e && (r = add_hide(x, h, room, &e)) < 0)
		return r;
	if (self) {
		e->self_seq = ++x->seq;
		e->self_layer = layer;
	} else {
		e->below_seq = ++x->seq;
		e->below_layer = layer;
	}
	return 0;
}

bool membernotes_hidden(const struct membernotes *x, const char *path, const struct note *n)
{
	size_t len = strlen(path);

	if (!x->n_hides)
		return false;
	/* the path itself, then each directory above it up to "/" */
	for (bool self = true;; self = false) {
		const struct note_hide *e = find_hide(x, strhash_n(path, len ? len : 1));
		if (e && e->self_seq > n->seq && n->layer < e->self_layer)
			return true;
		if (e && !self && e->below_seq > n->seq && n->layer < e->below_layer)
			return true;
		if (len <= 1)
			return false;
		while (len > 0 && path[len - 1] != '/')
			len--;
		len = len > 1 ? len - 1 : 1;
	}
}

void membernotes_release(struct membernotes *x)
{
	free(x->v);
	free(x->index);
	free(x->hides);
	hashindex_release(&x->hide_index);
	*x = (struct membernotes){ 0 };
}
