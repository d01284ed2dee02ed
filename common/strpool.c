/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "strhash.h"
#include "strpool.h"
#include "util.h"
#include "common.h"

struct lookup {
	const struct strpool *p;
	const char *s;
};

static bool same(size_t pos, const void *userdata)
{
	const struct lookup *l = userdata;

	return pos < l->p->n && s2c_streq(l->p->v[pos], l->s);
}

int strpool_take(struct strpool *p, char **s)
{
	uint64_t h;
	size_t i;

	if (!*s)
		return 0;
	h = strhash(*s);
	i = hashindex_find(&p->index, h, same, &(struct lookup){ p, *s });
	if (i != SIZE_MAX) {
		free(*s);
		*s = p->v[i];
		return 0;
	}
	if (p->n == p->alloc) {
		size_t alloc = p->alloc ? 2 * p->alloc : 64;
		char **v = reallocarray(p->v, alloc, sizeof(*v));
		if (!v)
			goto oom;
		p->v = v;
		p->alloc = alloc;
	}
	if (hashindex_add(&p->index, h, p->n) < 0)
		goto oom;
	p->v[p->n++] = *s;
	return 0;
oom:
	free(*s);
	*s = NULL;
	return -ENOMEM;
}

void strpool_release(struct strpool *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	hashindex_release(&p->index);
	*p = (struct strpool){ 0 };
}
