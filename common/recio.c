/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recio.h"
#include "util.h"
#include "common.h"

void rec_put(struct rec_out *o, const void *v, size_t len)
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

void rec_put_u64(struct rec_out *o, uint64_t v)
{
	rec_put(o, &v, sizeof(v));
}

void rec_put_u32(struct rec_out *o, uint32_t v)
{
	rec_put(o, &v, sizeof(v));
}

void rec_put_bool(struct rec_out *o, bool v)
{
	uint8_t b = v;

	rec_put(o, &b, 1);
}

void rec_put_ptr(struct rec_out *o, const void *v)
{
	rec_put_u64(o, (uint64_t)(uintptr_t)v);
}

/* Its length plus one and its bytes, or 0 for NULL. */
void rec_put_str(struct rec_out *o, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n >= UINT32_MAX) {
		o->error = -ENOMEM;
		return;
	}
	rec_put_u32(o, s ? (uint32_t)n + 1 : 0);
	if (s)
		rec_put(o, s, n);
}

int rec_out_finish(struct rec_out *o, void **ret, size_t *ret_len)
{
	int r = o->error;

	if (r) {
		free(o->p);
	} else {
		*ret = o->p;
		*ret_len = o->n;
	}
	*o = (struct rec_out){ 0 };
	return r;
}

void rec_get(struct rec_in *i, void *v, size_t len)
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

uint64_t rec_get_u64(struct rec_in *i)
{
	uint64_t v;

	rec_get(i, &v, sizeof(v));
	return v;
}

uint32_t rec_get_u32(struct rec_in *i)
{
	uint32_t v;

	rec_get(i, &v, sizeof(v));
	return v;
}

bool rec_get_bool(struct rec_in *i)
{
	uint8_t b;

	rec_get(i, &b, 1);
	return b != 0;
}

const void *rec_get_ptr(struct rec_in *i)
{
	return (const void *)(uintptr_t)rec_get_u64(i);
}

char *rec_get_str(struct rec_in *i)
{
	uint32_t n = rec_get_u32(i);
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

size_t rec_get_count(struct rec_in *i, size_t min)
{
	uint32_t n = rec_get_u32(i);

	if (!i->error && (size_t)n > (i->n - i->pos) / min)
		i->error = -EBADMSG;
	return i->error ? 0 : n;
}

void *rec_get_array(struct rec_in *i, size_t n, size_t size)
{
	void *v = i->error ? NULL : calloc(n ? n : 1, size);

	if (!v && !i->error)
		i->error = -ENOMEM;
	return v;
}

int rec_in_finish(struct rec_in *i)
{
	if (!i->error && i->pos != i->n)
		i->error = -EBADMSG;
	return i->error;
}
