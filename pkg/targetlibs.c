/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Libraries shared between the targets of one run: a sibling's kept
 * libraries copied into a target's stage, and the index of every target's
 * libraries by file name.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "member.h"
#include "stage.h"
#include "target.h"
#include "targetkeep.h"
#include "common.h"

int target_share_libs(struct target *t, struct target *const *all, size_t n)
{
	int shared = 0;

	if (!t->stage)
		return 0;
	for (size_t k = 0; k < n; k++) {
		const struct target *u = all[k];
		if (u == t || !u || !u->stage || u->error)
			continue;
		for (size_t i = 0; i < u->members.n_slots; i++) {
			const struct member *m = u->members.slots[i];
			int r;
			if (!m || !m->staged || m->candidate)
				continue;
			r = stage_share(t->stage, u->stage, m->path);
			if (r == -ENOMEM)
				return r;
			shared += r == 0;
		}
	}
	return shared;
}

void libindex_release(struct libindex *x)
{
	free(x->slots);
	*x = (struct libindex){ 0 };
}

int libindex_build(struct libindex *x, struct target *const *all, size_t n)
{
	size_t count = 0;

	*x = (struct libindex){ 0 };
	for (size_t k = 0; k < n; k++)
		if (all[k] && !all[k]->error)
			count += all[k]->members.n;
	x->n_slots = 64;
	while (x->n_slots < 2 * count + 2)
		x->n_slots *= 2;
	x->slots = calloc(x->n_slots, sizeof(*x->slots));
	if (!x->slots)
		return -ENOMEM;
	/*
	 * Each name once per target: several targets may provide the same library.  Within
	 * one, the first path in byte order, whatever order the table holds them in.
	 */
	for (size_t k = 0; k < n; k++) {
		if (!all[k] || all[k]->error)
			continue;
		for (size_t i = 0; i < all[k]->members.n_slots; i++) {
			const struct member *m = all[k]->members.slots[i];
			const char *b;
			size_t j;
			if (!m || (m->type != MEMBER_FILE && m->type != MEMBER_SYMLINK) ||
			    !targetkeep_in_lib_dir(m->path) || !targetkeep_is_shared_lib(m->path))
				continue;
			b = member_base_name(m->path);
			j = (size_t)member_hash(b) & (x->n_slots - 1);
			while (x->slots[j].name &&
			       !(x->slots[j].target == k && s2c_streq(x->slots[j].name, b)))
				j = (j + 1) & (x->n_slots - 1);
			if (x->slots[j].name) {
				if (strcmp(m->path, x->slots[j].path) < 0)
					x->slots[j] = (struct libentry){ b, m->path, k };
				continue;
			}
			x->slots[j] = (struct libentry){ b, m->path, k };
			x->n++;
		}
	}
	return 0;
}

size_t libindex_find(const struct libindex *x, size_t self, const char *soname,
		     const char **ret_path)
{
	size_t best = SIZE_MAX;
	const char *path = NULL;

	if (!x->n_slots)
		return SIZE_MAX;
	for (size_t j = (size_t)member_hash(soname) & (x->n_slots - 1); x->slots[j].name;
	     j = (j + 1) & (x->n_slots - 1)) {
		const struct libentry *e = &x->slots[j];
		if (!s2c_streq(e->name, soname))
			continue;
		if (e->target == self) {
			*ret_path = e->path;
			return self;
		}
		if (e->target < best) {
			best = e->target;
			path = e->path;
		}
	}
	if (best != SIZE_MAX)
		*ret_path = path;
	return best;
}
