/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "dirlist.h"
#include "deb.h"
#include "rpm.h"
#include "target.h"
#include "util.h"
#include "common.h"

/* Deepest directory walked under --from-dir. */
#define FIND_DEPTH_MAX 64

void batch_list_release(struct batch_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	*l = (struct batch_list){ 0 };
}

int batch_list_add(struct batch_list *l, const char *path)
{
	char **v = realloc(l->paths, (l->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->paths = v;
	v[l->n] = strdup(path);
	if (!v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

bool batch_is_package(const char *name)
{
	if (str_endswith(name, ".deb") || str_endswith(name, ".udeb"))
		return true;
	return str_endswith(name, ".rpm") && !str_endswith(name, ".src.rpm") &&
	       !str_endswith(name, ".nosrc.rpm");
}

/* Walk the directory @fd, @path in the list and @shown in messages. */
static int find_at(int fd, const char *path, const char *shown, unsigned depth,
		   struct batch_list *l, struct s2c_error *err)
{
	_cleanup_close_ int dfd = fd;
	_cleanup_(strv_freep) char **names = NULL;
	int r;

	if (depth > FIND_DEPTH_MAX)
		return s2c_error_set(err, -ELOOP, "'%s' is more than %d directories deep", shown,
				     FIND_DEPTH_MAX);
	r = dirlist(dfd, NULL, 0, &names);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot read '%s'", shown);
	r = 0;
	for (size_t i = 0; r == 0 && names[i]; i++) {
		const char *name = names[i];
		_cleanup_free_ char *sub = NULL;
		struct stat st;

		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;       /* gone meanwhile */
		sub = path_join(path, name);
		if (!sub)
			return -ENOMEM;
		if (S_ISLNK(st.st_mode)) {
			l->skipped_links++;
		} else if (S_ISDIR(st.st_mode)) {
			_cleanup_free_ char *shown_sub = path_join(shown, name);
			int subfd;

			if (!shown_sub)
				return -ENOMEM;
			subfd = openat(dfd, name,
				       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (subfd < 0)
				return s2c_error_errno(err, -errno, "cannot open '%s'", shown_sub);
			r = find_at(subfd, sub, shown_sub, depth + 1, l, err);
		} else if (S_ISREG(st.st_mode) && batch_is_package(name)) {
			r = batch_list_add(l, sub);
		}
	}
	return r;
}

int batch_find(const char *dir, const char *shown, struct batch_list *l, struct s2c_error *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	if (!shown)
		shown = dir;
	if (fd < 0)
		return s2c_error_errno(err, -errno, "cannot open '%s'", shown);
	r = find_at(fd, dir, shown, 0, l, err);
	if (r == 0 && l->n)
		qsort(l->paths, l->n, sizeof(*l->paths), strv_cmp);
	return r;
}

unsigned batch_shard_of(const char *path, unsigned n)
{
	const char *slash = strrchr(path, '/');
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const char *c = slash ? slash + 1 : path; *c; c++) {
		h ^= (unsigned char)*c;
		h *= 0x100000001b3ULL;
	}
	return n ? (unsigned)(h % n) : 0;
}

void batch_shard(struct batch_list *l, unsigned k, unsigned n)
{
	size_t o = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (batch_shard_of(l->paths[i], n) == k)
			l->paths[o++] = l->paths[i];
		else
			free(l->paths[i]);
	}
	l->n = o;
}

/* --- the pool ------------------------------------------------------------------------------- */

struct pool {
	const struct batch_list *l;
	size_t *order;          /* indexes into l, largest file first */
	bool follow;
	const struct target_select *sel;
	struct stage *run;
	struct target **out;
	batch_progress_fn progress;
	void *userdata;
	pthread_mutex_t lock;
	size_t next, done;
	size_t kept;            /* bytes the read targets keep, trimmed (memberset::bytes) */
	int error;
};

static int read_one(struct pool *p, size_t i, struct target **ret)
{
	const char *path = p->l->paths[i];
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (p->follow ? 0 : O_NOFOLLOW);
	_cleanup_close_ int fd = open(path, flags);
	char name[32];
	struct stat st;
	struct target *t;

	(void)snprintf(name, sizeof(name), "p%zu", i);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = fd < 0 ? errno : EINVAL;
		struct s2c_error err = { 0 };
		t = target_new(str_endswith(path, ".rpm") ? TARGET_RPM : TARGET_DEB, path);
		if (!t)
			return -ENOMEM;
		if (fd >= 0 || e == ELOOP)
			(void)s2c_error_set(&err, -EINVAL, "%s", e == ELOOP ? "a symbolic link, not "
					    "followed" : "not a regular file");
		else
			(void)s2c_error_errno(&err, -e, "cannot open");
		if (target_fail(t, -e, &err) < 0) {
			target_free(t);
			return -ENOMEM;
		}
		*ret = t;
		return 0;
	}
	/* O_NONBLOCK was only for opening; reads want the normal semantics. */
	(void)fcntl(fd, F_SETFL, 0);
	if (str_endswith(path, ".rpm"))
		return rpm_read(fd, path, p->sel, p->run, name, ret);
	return deb_read(fd, path, p->sel, p->run, name, ret);
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		size_t i;
		struct target *t = NULL;
		int r;

		(void)pthread_mutex_lock(&p->lock);
		i = p->next < p->l->n && !p->error ? p->order[p->next++] : SIZE_MAX;
		(void)pthread_mutex_unlock(&p->lock);
		if (i == SIZE_MAX)
			return NULL;
		r = read_one(p, i, &t);
		if (r == 0 && t->kind != TARGET_IMAGE && (r = target_check_loaded(t)) < 0)
			t = target_free(t);
		if (r == 0)
			target_trim(t);
		(void)pthread_mutex_lock(&p->lock);
		if (r == 0 && !target_run_keeps(t, &p->kept) && (r = target_over_run_budget(t)) < 0)
			t = target_free(t);
		if (r < 0)
			p->error = r;
		else
			p->out[i] = t;
		p->done++;
		if (p->progress)
			p->progress(p->done, p->l->n, p->userdata);
		(void)pthread_mutex_unlock(&p->lock);
	}
}

struct sized {
	size_t index;
	off_t size;
};

static int cmp_sized(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The order to read in: largest first, so that no thread is left with a big
 * package at the end while the others idle (longest processing time first).
 * The results keep the list's order.
 */
static size_t *read_order(const struct batch_list *l)
{
	_cleanup_free_ struct sized *v = calloc(l->n ? l->n : 1, sizeof(*v));
	size_t *order = calloc(l->n ? l->n : 1, sizeof(*order));
	struct stat st;

	if (!v || !order) {
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < l->n; i++)
		v[i] = (struct sized){ i, stat(l->paths[i], &st) == 0 ? st.st_size : 0 };
	qsort(v, l->n, sizeof(*v), cmp_sized);
	for (size_t i = 0; i < l->n; i++)
		order[i] = v[i].index;
	return order;
}

int batch_read(const struct batch_list *l, bool follow, unsigned threads,
	       const struct target_select *sel, struct stage *run, batch_progress_fn progress,
	       void *userdata, struct target ***ret)
{
	struct pool p = { .l = l, .follow = follow, .sel = sel, .run = run, .progress = progress,
			  .userdata = userdata, .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t tids[64];
	size_t started = 0;

	p.out = calloc(l->n ? l->n : 1, sizeof(*p.out));
	p.order = read_order(l);
	if (!p.out || !p.order) {
		free(p.out);
		free(p.order);
		return -ENOMEM;
	}
	threads = S2C_MAX(1u, S2C_MIN(threads, (unsigned)S2C_ELEMENTSOF(tids)));
	if (threads > l->n)
		threads = l->n ? (unsigned)l->n : 1;
	for (unsigned i = 1; i < threads; i++)
		if (pthread_create(&tids[started], NULL, worker, &p) == 0)
			started++;
	(void)worker(&p);
	for (size_t i = 0; i < started; i++)
		(void)pthread_join(tids[i], NULL);
	free(p.order);
	if (p.error) {
		for (size_t i = 0; i < l->n; i++)
			target_free(p.out[i]);
		free(p.out);
		return p.error;
	}
	*ret = p.out;
	return 0;
}
