/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "common.h"

struct ksym {
	uint64_t addr;
	size_t name;            /* offset into names */
};

struct ksyms {
	struct ksym *v;
	size_t n;
	char *names;
};

struct ksyms *ksyms_free(struct ksyms *k)
{
	if (!k)
		return NULL;
	free(k->v);
	free(k->names);
	free(k);
	return NULL;
}

static void ksyms_freep(struct ksyms **k)
{
	ksyms_free(*k);
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Append @name (up to the first '.' or blank) to the name buffer. */
static int add(struct ksyms *k, size_t *cap_v, size_t *cap_names, size_t *used, uint64_t addr,
	       const char *name)
{
	size_t len = strcspn(name, ". \t\n");

	if (k->n == *cap_v) {
		size_t nc = *cap_v ? 2 * *cap_v : 4096;
		struct ksym *nv = realloc(k->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		k->v = nv;
		*cap_v = nc;
	}
	if (*used + len + 1 > *cap_names) {
		size_t nc = *cap_names ? 2 * *cap_names : 65536;
		char *nn;
		while (nc < *used + len + 1)
			nc *= 2;
		nn = realloc(k->names, nc);
		if (!nn)
			return -ENOMEM;
		k->names = nn;
		*cap_names = nc;
	}
	memcpy(k->names + *used, name, len);
	k->names[*used + len] = '\0';
	k->v[k->n++] = (struct ksym){ addr, *used };
	*used += len + 1;
	return 0;
}

int ksyms_load(struct ksyms **ret)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/kallsyms", "re");
	_cleanup_(ksyms_freep) struct ksyms *k = calloc(1, sizeof(*k));
	_cleanup_free_ char *line = NULL;
	size_t cap_line = 0, cap_v = 0, cap_names = 0, used = 0;
	bool nonzero = false;

	if (!f)
		return -errno;
	if (!k)
		return -ENOMEM;
	while (getline(&line, &cap_line, f) > 0) {
		char *end, *p;
		uint64_t addr = strtoull(line, &end, 16);
		int r;

		if (end == line || end[0] != ' ' || (end[1] != 't' && end[1] != 'T') || end[2] != ' ')
			continue;
		p = end + 3;
		nonzero |= addr != 0;
		r = add(k, &cap_v, &cap_names, &used, addr, p);
		if (r < 0)
			return r;
	}
	if (!nonzero)
		return -EPERM;
	qsort(k->v, k->n, sizeof(*k->v), cmp_addr);
	*ret = TAKE_PTR(k);
	return 0;
}

const char *ksyms_name(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	if (!k->n || addr < k->v[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return k->names + k->v[lo].name;
}
