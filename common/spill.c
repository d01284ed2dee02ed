/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spill.h"
#include "util.h"
#include "common.h"

/* A key or record longer than this is refused (-EFBIG). */
#define SPILL_ITEM_MAX ((size_t)1 << 30)
/* Bytes read or written at once. */
#define SPILL_IO 65536

/* A record as kept, in memory and in the file: this, the key and its NUL, the bytes. */
struct head {
	uint32_t key_len;
	uint32_t len;
	uint64_t seq;           /* order of spill_add(): equal keys keep it */
};

struct run {
	off_t start, end;
};

/* One run as it is read: a window of the file. */
struct reader {
	off_t pos, end;         /* next byte of the file to read; end of the run */
	char *buf;
	size_t cap, lo, hi;     /* bytes [lo, hi) of buf are read and not consumed */
	struct head h;          /* the current record, when @have */
	const char *key;        /* into buf */
	const void *rec;
	bool have;
};

/* What is written, buffered. */
struct writer {
	int fd;
	off_t pos;
	char buf[SPILL_IO];
	size_t n;
};

struct spill {
	char *dir;
	size_t budget;
	int fd;                 /* -1 before the first run */
	off_t size;             /* bytes written to the file */
	char *mem;              /* records in memory, one after another */
	size_t used, cap;
	size_t *off;            /* where each record in memory starts */
	size_t n_mem, cap_off;
	uint64_t n;             /* records added */
	struct run *runs;
	size_t n_runs, cap_runs;
	bool sorted;
	int error;              /* once set, every call returns it */
};

struct spill_cursor {
	const struct spill *s;
	size_t mem_pos;         /* reading from memory: the next record */
	struct reader *rd;      /* reading runs: one reader each */
	size_t n_rd;
	struct reader *last;    /* whose record spill_cursor_next() returned last */
	int error;
};

int spill_new(const char *dir, size_t budget, struct spill **ret)
{
	struct spill *s = calloc(1, sizeof(*s));

	if (!s || !(s->dir = strdup(dir))) {
		free(s);
		return -ENOMEM;
	}
	s->budget = budget;
	s->fd = -1;
	*ret = s;
	return 0;
}

static void reader_release(struct reader *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

struct spill *spill_free(struct spill *s)
{
	if (!s)
		return NULL;
	free(s->runs);
	free(s->off);
	free(s->mem);
	if (s->fd >= 0)
		close(s->fd);
	free(s->dir);
	free(s);
	return NULL;
}

size_t spill_count(const struct spill *s)
{
	return (size_t)s->n;
}

bool spill_on_disk(const struct spill *s)
{
	return s->fd >= 0;
}

const char *spill_dir(const struct spill *s)
{
	return s->dir;
}

static int fail(struct spill *s, int r)
{
	if (!s->error)
		s->error = r;
	return s->error;
}

static int cmp_items(const char *ka, uint64_t sa, const char *kb, uint64_t sb)
{
	int c = strcmp(ka, kb);

	return c ? c : (sa > sb) - (sa < sb);
}

static const struct head *mem_head(const struct spill *s, size_t off, struct head *h)
{
	memcpy(h, s->mem + off, sizeof(*h));
	return h;
}

static const char *mem_key(const struct spill *s, size_t off)
{
	return s->mem + off + sizeof(struct head);
}

static int cmp_mem(const void *a, const void *b, void *userdata)
{
	const struct spill *s = userdata;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	struct head hx, hy;

	return cmp_items(mem_key(s, x), mem_head(s, x, &hx)->seq,
			 mem_key(s, y), mem_head(s, y, &hy)->seq);
}

/* The file, made the first time a run is written: unnamed, or unlinked at once. */
static int open_file(struct spill *s)
{
	_cleanup_free_ char *name = NULL;
	int fd;

	if (s->fd >= 0)
		return 0;
	fd = open(s->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* no O_TMPFILE here (vfat, some network filesystems) */
		name = strdup_printf("%s/.s2c-spill-XXXXXX", s->dir);
		if (!name)
			return -ENOMEM;
		fd = mkostemp(name, O_CLOEXEC);
		if (fd >= 0 && unlink(name) < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
	}
	if (fd < 0)
		return -errno;
	s->fd = fd;
	return 0;
}

static int writer_flush(struct writer *w)
{
	for (size_t done = 0; done < w->n;) {
		ssize_t k = pwrite(w->fd, w->buf + done, w->n - done, w->pos);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO;
		done += (size_t)k;
		w->pos += k;
	}
	w->n = 0;
	return 0;
}

static int writer_put(struct writer *w, const void *p, size_t len)
{
	const char *c = p;

	while (len > 0) {
		size_t k;
		if (w->n == sizeof(w->buf)) {
			int r = writer_flush(w);
			if (r < 0)
				return r;
		}
		k = S2C_MIN(len, sizeof(w->buf) - w->n);
		memcpy(w->buf + w->n, c, k);
		w->n += k;
		c += k;
		len -= k;
	}
	return 0;
}

static int add_run(struct spill *s, off_t start, off_t end)
{
	if (S2C_ARRAY_RESERVE(s->runs, s->cap_runs, s->n_runs + 1, 8) < 0)
		return -ENOMEM;
	s->runs[s->n_runs++] = (struct run){ start, end };
	return 0;
}

/* Write the records in memory, sorted, as one run, and forget them. */
static int flush_memory(struct spill *s)
{
	struct writer *w;
	int r;

	if (s->n_mem == 0)
		return 0;
	r = open_file(s);
	if (r < 0)
		return r;
	w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct writer){ .fd = s->fd, .pos = s->size };
	qsort_r(s->off, s->n_mem, sizeof(*s->off), cmp_mem, s);
	for (size_t i = 0; i < s->n_mem && r == 0; i++) {
		struct head h;
		mem_head(s, s->off[i], &h);
		r = writer_put(w, s->mem + s->off[i], sizeof(h) + h.key_len + 1 + h.len);
	}
	if (r == 0)
		r = writer_flush(w);
	if (r == 0)
		r = add_run(s, s->size, w->pos);
	if (r == 0) {
		s->size = w->pos;
		s->used = s->n_mem = 0;
	}
	free(w);
	return r;
}

int spill_add(struct spill *s, const char *key, const void *rec, size_t len)
{
	size_t key_len = strlen(key), need;
	struct head h;
	int r;

	if (s->error)
		return s->error;
	if (s->sorted)
		return -EINVAL;
	if (key_len >= SPILL_ITEM_MAX || len >= SPILL_ITEM_MAX)
		return -EFBIG;
	need = sizeof(h) + key_len + 1 + len;
	if (S2C_ARRAY_RESERVE(s->mem, s->cap, s->used + need, 4096) < 0 ||
	    S2C_ARRAY_RESERVE(s->off, s->cap_off, s->n_mem + 1, 64) < 0)
		return -ENOMEM;
	h = (struct head){ .key_len = (uint32_t)key_len, .len = (uint32_t)len, .seq = s->n };
	memcpy(s->mem + s->used, &h, sizeof(h));
	memcpy(s->mem + s->used + sizeof(h), key, key_len + 1);
	if (len)
		memcpy(s->mem + s->used + sizeof(h) + key_len + 1, rec, len);
	s->off[s->n_mem++] = s->used;
	s->used += need;
	s->n++;
	if (s->used + s->n_mem * sizeof(*s->off) > s->budget) {
		r = flush_memory(s);
		if (r < 0)
			return fail(s, r);
	}
	return 0;
}

/* Have @need bytes of the run buffered.  Returns 0, or -EBADMSG when the run ends first. */
static int reader_fill(int fd, struct reader *r, size_t need)
{
	if (r->hi - r->lo >= need)
		return 0;
	if (r->lo > 0) {
		memmove(r->buf, r->buf + r->lo, r->hi - r->lo);
		r->hi -= r->lo;
		r->lo = 0;
	}
	if (need > r->cap) {
		size_t cap = S2C_MAX(need, (size_t)SPILL_IO);
		char *b = realloc(r->buf, cap);
		if (!b)
			return -ENOMEM;
		r->buf = b;
		r->cap = cap;
	}
	while (r->hi < need) {
		size_t want = S2C_MIN(r->cap - r->hi, (size_t)(r->end - r->pos));
		ssize_t k;

		if (want == 0)
			return -EBADMSG;
		k = pread(fd, r->buf + r->hi, want, r->pos);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EBADMSG;
		r->hi += (size_t)k;
		r->pos += k;
	}
	return 0;
}

/* Read the run's next record into r->h, r->key, r->rec, or r->have false at its end. */
static int reader_next(int fd, struct reader *r)
{
	int e;

	if (r->have) {
		r->lo += sizeof(r->h) + r->h.key_len + 1 + r->h.len;
		r->have = false;
	}
	if (r->lo == r->hi && r->pos == r->end)
		return 0;
	e = reader_fill(fd, r, sizeof(r->h));
	if (e < 0)
		return e;
	memcpy(&r->h, r->buf + r->lo, sizeof(r->h));
	if (r->h.key_len >= SPILL_ITEM_MAX || r->h.len >= SPILL_ITEM_MAX)
		return -EBADMSG;
	e = reader_fill(fd, r, sizeof(r->h) + r->h.key_len + 1 + r->h.len);
	if (e < 0)
		return e;
	r->key = r->buf + r->lo + sizeof(r->h);
	if (r->key[r->h.key_len] != '\0' || strlen(r->key) != r->h.key_len)
		return -EBADMSG;
	r->rec = r->key + r->h.key_len + 1;
	r->have = true;
	return 0;
}

static int reader_start(int fd, struct reader *r, const struct run *run)
{
	r->pos = run->start;
	r->end = run->end;
	r->lo = r->hi = 0;
	r->have = false;
	return reader_next(fd, r);
}

/* The reader holding the least record, or NULL when all are at their end. */
static struct reader *least(struct reader *v, size_t n)
{
	struct reader *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (v[i].have && (!best || cmp_items(v[i].key, v[i].h.seq, best->key,
						     best->h.seq) < 0))
			best = &v[i];
	return best;
}

/* Merge runs [@first, @first + @k) into one run at the end of the file, in their place. */
static int merge_runs(struct spill *s, size_t first, size_t k)
{
	struct reader *v = calloc(k, sizeof(*v));
	struct writer *w = malloc(sizeof(*w));
	struct reader *m;
	int r = v && w ? 0 : -ENOMEM;

	if (w)
		*w = (struct writer){ .fd = s->fd, .pos = s->size };
	for (size_t i = 0; i < k && r == 0; i++)
		r = reader_start(s->fd, &v[i], &s->runs[first + i]);
	while (r == 0 && (m = least(v, k))) {
		r = writer_put(w, m->buf + m->lo, sizeof(m->h) + m->h.key_len + 1 + m->h.len);
		if (r == 0)
			r = reader_next(s->fd, m);
	}
	if (r == 0)
		r = writer_flush(w);
	if (r == 0) {
		/* The merged runs' space is given back where the filesystem can. */
		for (size_t i = 0; i < k; i++)
			(void)fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					s->runs[first + i].start,
					s->runs[first + i].end - s->runs[first + i].start);
		s->runs[first] = (struct run){ s->size, w->pos };
		memmove(&s->runs[first + 1], &s->runs[first + k],
			(s->n_runs - first - k) * sizeof(*s->runs));
		s->n_runs -= k - 1;
		s->size = w->pos;
	}
	for (size_t i = 0; v && i < k; i++)
		reader_release(&v[i]);
	free(v);
	free(w);
	return r;
}

int spill_sort(struct spill *s)
{
	int r;

	if (s->error)
		return s->error;
	if (s->sorted)
		return 0;
	s->sorted = true;
	if (s->fd < 0) {
		if (s->n_mem)
			qsort_r(s->off, s->n_mem, sizeof(*s->off), cmp_mem, s);
		return 0;
	}
	r = flush_memory(s);
	free(s->mem);
	free(s->off);
	s->mem = NULL;
	s->off = NULL;
	s->cap = s->cap_off = 0;
	while (r == 0 && s->n_runs > SPILL_FANIN)
		r = merge_runs(s, 0, SPILL_FANIN);
	return r < 0 ? fail(s, r) : 0;
}

struct spill_cursor *spill_cursor_free(struct spill_cursor *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_rd; i++)
		reader_release(&c->rd[i]);
	free(c->rd);
	free(c);
	return NULL;
}

int spill_cursor_new(struct spill *s, struct spill_cursor **ret)
{
	_cleanup_(spill_cursor_freep) struct spill_cursor *c = NULL;
	int r = spill_sort(s);

	if (r < 0)
		return r;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->s = s;
	if (s->fd >= 0) {
		c->rd = calloc(s->n_runs ? s->n_runs : 1, sizeof(*c->rd));
		if (!c->rd)
			return -ENOMEM;
		c->n_rd = s->n_runs;
		for (size_t i = 0; i < c->n_rd; i++) {
			r = reader_start(s->fd, &c->rd[i], &s->runs[i]);
			if (r < 0)
				return r;
		}
	}
	*ret = TAKE_PTR(c);
	return 0;
}

int spill_cursor_next(struct spill_cursor *c, const char **ret_key, const void **ret_rec,
		      size_t *ret_len)
{
	const struct spill *s = c->s;
	struct reader *m;
	struct head h;

	if (c->error)
		return c->error;
	if (s->fd < 0) {
		size_t off;
		if (c->mem_pos == s->n_mem)
			return 0;
		off = s->off[c->mem_pos++];
		mem_head(s, off, &h);
		*ret_key = mem_key(s, off);
		*ret_rec = *ret_key + h.key_len + 1;
		*ret_len = h.len;
		return 1;
	}
	if (c->last) {
		int r = reader_next(s->fd, c->last);
		c->last = NULL;
		if (r < 0)
			return c->error = r;
	}
	m = least(c->rd, c->n_rd);
	if (!m)
		return 0;
	c->last = m;
	*ret_key = m->key;
	*ret_rec = m->rec;
	*ret_len = m->h.len;
	return 1;
}
