/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "binary.h"
#include "facts.h"
#include "factsrec.h"
#include "idmap.h"
#include "mounts.h"
#include "scan.h"
#include "skip.h"
#include "spill.h"
#include "util.h"
#include "common.h"

struct collector {
	pthread_mutex_t lock;
	/* With on_batch: the walk's threads fill @v; a full one waits in @ready for the
	 * thread that called scan_run(), which names it and hands it over while the walk
	 * goes on.  A thread with a candidate waits while @ready is taken and @v full. */
	pthread_cond_t ready_cond;      /* a batch is ready, or the walk ended */
	pthread_cond_t space_cond;      /* the ready batch was taken, or handing over failed */
	struct facts **ready;
	size_t n_ready;
	size_t batch;                   /* candidates a batch, growing to BATCH_GROWTH times
					   scan_options::batch */
	bool walk_done;
	const struct scan_result *res;
	struct idmap *ids;              /* names the batches */
	int batch_error;                /* what on_batch() returned: the walk stops */
	int name_error;                 /* what naming a batch or a record returned */
	struct spill *records;          /* with records_dir: where the candidates go */
	int records_error;              /* what keeping one returned: the walk stops */
	struct facts **v;
	size_t n, alloc;
	size_t n_flag[_FACT_MAX];       /* scan_result::n_flag, n_any */
	size_t n_any;
	const struct mounts *mounts;
	const struct scan_options *o;
	int rootfd;
	uint64_t warnings;
	struct skip_entry *skipped;
	size_t n_skipped, alloc_skipped;
};

/*
 * A batch costs a look-up in the package database whatever its size, and holds its
 * candidates' content until it is decided: batches start at scan_options::batch and
 * double up to this many times that.
 */
#define BATCH_GROWTH 4

/* Name the @n facts of @v and hand them to on_batch(), after a failure only free them;
 * @v is freed.  On the thread that called scan_run(). */
static void hand_over(struct collector *c, struct facts **v, size_t n)
{
	int r = c->batch_error || c->name_error ? -ECANCELED : 0;
	bool named = false;

	for (size_t i = 0; i < n && r == 0; i++)
		r = facts_set_names(v[i], c->ids);
	if (r == 0) {
		named = true;
		r = c->o->on_batch(c->o->batch_userdata, c->res, v, n);
	} else {
		for (size_t i = 0; i < n; i++)
			facts_free(v[i]);
	}
	free(v);
	if (r < 0 && r != -ECANCELED) {
		/* the walk's threads stop at their next candidate, those waiting for room too */
		pthread_mutex_lock(&c->lock);
		if (named)
			c->batch_error = r;
		else
			c->name_error = r;
		pthread_cond_broadcast(&c->space_cond);
		pthread_mutex_unlock(&c->lock);
	}
}

/* Count @f's flags; under the lock. */
static void tally(struct collector *c, const struct facts *f)
{
	for (unsigned i = 0; i < _FACT_MAX; i++)
		c->n_flag[i] += !!(f->flags & (1u << i));
	c->n_any += !!(f->flags & c->o->count_any);
}

/* Add @f to the batch being filled (on a walk thread).  Returns 0, or the error that
 * stops the walk. */
static int add_to_batch(struct collector *c, struct facts *f)
{
	int r = 0;

	pthread_mutex_lock(&c->lock);
	while (c->ready && c->n >= c->batch && !c->batch_error && !c->name_error)
		pthread_cond_wait(&c->space_cond, &c->lock);
	if (c->batch_error || c->name_error)
		r = -ECANCELED;
	else if (S2C_ARRAY_RESERVE(c->v, c->alloc, c->n + 1, 64) < 0)
		r = -ENOMEM;
	if (r < 0) {
		pthread_mutex_unlock(&c->lock);
		facts_free(f);
		return r;
	}
	tally(c, f);
	c->v[c->n++] = f;
	if (c->n >= c->batch && !c->ready) {
		c->ready = TAKE_PTR(c->v);
		c->n_ready = c->n;
		c->n = c->alloc = 0;
		c->batch = S2C_MIN(2 * c->batch, BATCH_GROWTH * c->o->batch);
		pthread_cond_signal(&c->ready_cond);
	}
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/*
 * Name @f and keep it as a record (on a walk thread).  Done under the lock that
 * collecting it in memory would take anyway, so that a scan kept as records walks as
 * fast: handing records over to another thread costs more in wake-ups than the
 * naming and copying that thread would do.
 */
static int keep_record(struct collector *c, struct facts *f)
{
	void *p = NULL;
	size_t len;
	int r;

	pthread_mutex_lock(&c->lock);
	r = c->records_error ? -ECANCELED : c->name_error ? -ECANCELED : 0;
	if (r == 0 && (r = facts_set_names(f, c->ids)) < 0)
		c->name_error = r;
	if (r == 0 && (r = factsrec_pack(f, &p, &len)) == 0 &&
	    (r = spill_add(c->records, f->path, p, len)) == 0)
		tally(c, f);
	if (r < 0 && r != -ECANCELED && !c->name_error)
		c->records_error = r;
	pthread_mutex_unlock(&c->lock);
	free(p);
	facts_free(f);
	return r;
}

static int on_candidate(void *userdata, const struct walk_entry *e)
{
	struct collector *c = userdata;
	struct facts *f = NULL;
	int r = facts_from_entry(e, c->mounts, &f);

	if (r < 0)
		return r;
	/* Hashing and ELF parsing cost more than the walk around them: done
	 * here, they run on every worker and overlap the walk's I/O. */
	if (c->o->flags & SCAN_CONTENT) {
		r = -ENOMEM;
		if (!(f->content = calloc(1, sizeof(*f->content))) ||
		    (r = binary_read_at(c->rootfd, e->dirfd, e->name, f, c->o->want,
					f->content)) < 0) {
			facts_free(f);
			return r;
		}
	}
	if (c->o->on_batch)
		return add_to_batch(c, f);
	if (c->records)
		return keep_record(c, f);
	pthread_mutex_lock(&c->lock);
	if (S2C_ARRAY_RESERVE(c->v, c->alloc, c->n + 1, 64) < 0) {
		pthread_mutex_unlock(&c->lock);
		facts_free(f);
		return -ENOMEM;
	}
	tally(c, f);
	c->v[c->n++] = f;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

struct walk_job {
	struct collector *c;
	const struct walk_options *w;
	int r;
};

static void *walk_thread(void *userdata)
{
	struct walk_job *j = userdata;

	j->r = walk_run(j->w);
	pthread_mutex_lock(&j->c->lock);
	j->c->walk_done = true;
	pthread_cond_signal(&j->c->ready_cond);
	pthread_mutex_unlock(&j->c->lock);
	return NULL;
}

/*
 * Walk on another thread and hand the batches over on this one as they fill, the
 * last when the walk ends.  Returns what walk_run() returned, or the error that
 * stopped handing over.
 */
static int walk_in_batches(struct collector *c, const struct walk_options *w)
{
	struct walk_job j = { .c = c, .w = w };
	pthread_t tid;
	bool last = false;
	int r = -pthread_create(&tid, NULL, walk_thread, &j);

	if (r < 0)
		return r;
	while (!last) {
		struct facts **v = NULL;
		size_t n = 0;

		pthread_mutex_lock(&c->lock);
		while (!c->ready && !c->walk_done)
			pthread_cond_wait(&c->ready_cond, &c->lock);
		if (c->ready) {
			v = TAKE_PTR(c->ready);
			n = c->n_ready;
			pthread_cond_broadcast(&c->space_cond);
		} else {
			last = true;
			if (j.r == 0 && c->n) {
				v = TAKE_PTR(c->v);
				n = c->n;
				c->n = c->alloc = 0;
			}
		}
		pthread_mutex_unlock(&c->lock);
		if (v)
			hand_over(c, v, n);
	}
	(void)pthread_join(tid, NULL);
	if (c->batch_error || c->name_error)
		return c->batch_error ? c->batch_error : c->name_error;
	return j.r;
}

static int on_skip(void *userdata, const char *path, const struct skip_rule *rule)
{
	struct collector *c = userdata;
	struct skip_entry e = {
		.path = strdup(path),
		.reason = rule ? rule->reason : SKIP_OS_ROOT,
		.source = rule && rule->source ? strdup(rule->source) : NULL,
	};

	if (!e.path || (rule && rule->source && !e.source)) {
		skip_entry_release(&e);
		return -ENOMEM;
	}
	pthread_mutex_lock(&c->lock);
	if (S2C_ARRAY_RESERVE(c->skipped, c->alloc_skipped, c->n_skipped + 1, 16) < 0) {
		pthread_mutex_unlock(&c->lock);
		skip_entry_release(&e);
		return -ENOMEM;
	}
	c->skipped[c->n_skipped++] = e;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

static void on_error(void *userdata, const char *path, int error, const char *what)
{
	struct collector *c = userdata;

	__atomic_add_fetch(&c->warnings, 1, __ATOMIC_RELAXED);
	if (c->o->on_warning)
		c->o->on_warning(c->o->userdata, path, error, what);
}

static int cmp_path(const void *a, const void *b)
{
	const struct facts *x = *(struct facts *const *)a, *y = *(struct facts *const *)b;

	return strcmp(x->path, y->path);
}

static int cmp_skipped(const void *a, const void *b)
{
	return strcmp(((const struct skip_entry *)a)->path, ((const struct skip_entry *)b)->path);
}

/* Sort by path and keep the first report of each path. */
static void sort_skipped(struct scan_result *res)
{
	size_t k = 0;

	if (res->n_skipped == 0)
		return;
	qsort(res->skipped, res->n_skipped, sizeof(*res->skipped), cmp_skipped);
	for (size_t i = 0; i < res->n_skipped; i++) {
		if (k && s2c_streq(res->skipped[k - 1].path, res->skipped[i].path))
			skip_entry_release(&res->skipped[i]);
		else
			res->skipped[k++] = res->skipped[i];
	}
	res->n_skipped = k;
}

const struct skip_entry *scan_result_skipped(const struct scan_result *r, const char *path)
{
	for (size_t i = 0; i < r->n_skipped; i++) {
		const char *s = r->skipped[i].path;
		size_t len = strlen(s);

		if (strncmp(path, s, len) == 0 && (path[len] == '/' || path[len] == '\0'))
			return &r->skipped[i];
	}
	return NULL;
}

int scan_open_root(const char *root, bool *ret_host, struct s2c_error *err)
{
	struct stat st, slash;
	int fd;

	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return s2c_error_errno(err, -errno, "cannot open root directory '%s'", root);
	if (fstat(fd, &st) < 0 || stat("/", &slash) < 0) {
		int e = -errno;
		(void)close(fd);
		return s2c_error_errno(err, e, "cannot stat root directory '%s'", root);
	}
	*ret_host = st.st_dev == slash.st_dev && st.st_ino == slash.st_ino;
	return fd;
}

void scan_cursor_release(struct scan_cursor *c)
{
	facts_free(c->rec);
	spill_cursor_free(c->sc);
	memset(c, 0, sizeof(*c));
}

static int cursor_fill(const struct scan_result *r, struct scan_cursor *c)
{
	const char *key;
	const void *p;
	size_t len;
	int ret;

	c->f = NULL;
	c->rec = facts_free(c->rec);
	if (!r->files) {
		c->f = c->i < r->n ? r->v[c->i] : NULL;
		return 0;
	}
	ret = spill_cursor_next(c->sc, &key, &p, &len);
	if (ret <= 0)
		return ret;
	ret = factsrec_unpack(p, len, &c->rec);
	if (ret < 0)
		return ret;
	c->f = c->rec;
	return 0;
}

int scan_cursor_start(const struct scan_result *r, struct scan_cursor *c)
{
	int ret;

	scan_cursor_release(c);
	if (r->files) {
		ret = spill_cursor_new(r->files, &c->sc);
		if (ret < 0)
			return ret;
	}
	return cursor_fill(r, c);
}

int scan_cursor_next(const struct scan_result *r, struct scan_cursor *c)
{
	c->i++;
	return cursor_fill(r, c);
}

struct scan_result *scan_result_free(struct scan_result *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; r->v && i < r->n; i++)
		facts_free(r->v[i]);
	free(r->v);
	spill_free(r->files);
	for (size_t i = 0; i < r->n_skipped; i++)
		skip_entry_release(&r->skipped[i]);
	free(r->skipped);
	free(r->root);
	mounts_free(r->mounts);
	if (r->rootfd >= 0)
		(void)close(r->rootfd);
	free(r);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int name_all(struct scan_result *res)
{
	struct idmap *ids = NULL;
	int r = idmap_new(res->host ? -1 : res->rootfd, &ids);

	for (size_t i = 0; r == 0 && i < res->n; i++)
		r = facts_set_names(res->v[i], ids);
	idmap_free(ids);
	return r;
}

/*
 * What not to walk: on the running system its other roots (unless
 * SCAN_OTHER_ROOTS), then the exclude patterns and the exclude file.
 */
static int build_skip(const struct scan_options *o, const struct scan_result *res,
		      struct skip_list *l, struct s2c_error *err)
{
	int r;

	if (res->host && !(o->flags & SCAN_OTHER_ROOTS)) {
		r = skip_list_add_live(l, res->mounts);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; o->exclude && o->exclude[i]; i++) {
		_cleanup_free_ char *source = NULL;
		struct s2c_error e = { 0 };

		if (asprintf(&source, "--exclude %s", o->exclude[i]) < 0)
			return -ENOMEM;
		r = skip_list_add(l, o->exclude[i], SKIP_EXCLUDED, source, &e);
		if (r == -EINVAL)
			return s2c_error_set(err, r, "invalid exclude pattern '%s': %s", o->exclude[i],
					     e.msg);
		if (r < 0)
			return r;
	}
	if (o->exclude_file) {
		_cleanup_free_ char *display = res->host ? strdup(o->exclude_file)
							 : path_join(res->root, o->exclude_file);
		if (!display)
			return -ENOMEM;
		r = skip_list_load(l, res->rootfd, o->exclude_file, display, o->trusted, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Say which part of the scan failed, where the caller asked; returns @r. */
static int failed(const struct scan_options *o, enum scan_part part, int r)
{
	if (o->failed)
		*o->failed = part;
	return r;
}

/* The records could not be kept: say why. */
static int records_error(const struct scan_options *o, int r, struct s2c_error *err)
{
	return failed(o, SCAN_PART_RECORDS,
		      s2c_error_errno(err, r, "cannot keep the scan's records in '%s'",
				      o->records_dir));
}

int scan_run(const struct scan_options *o, struct scan_result **ret, struct s2c_error *err)
{
	static const char *const default_paths[] = { "/", NULL };
	_cleanup_(scan_result_freep) struct scan_result *res = calloc(1, sizeof(*res));
	struct collector c = { .o = o };
	struct walk_stats local = { 0 };
	struct skip_list skip = { 0 };
	struct walk_options w;
	double t0;
	int r;

	if (!res)
		return -ENOMEM;
	res->rootfd = -1;
	res->root = strdup(o->root ? o->root : "/");
	if (!res->root)
		return -ENOMEM;
	r = scan_open_root(res->root, &res->host, err);
	if (r < 0)
		return failed(o, SCAN_PART_ROOT, r);
	res->rootfd = r;
	if (res->host) {
		r = mounts_load(o->mountinfo ? o->mountinfo : "/proc/self/mountinfo", &res->mounts, err);
		if (r < 0)
			return failed(o, SCAN_PART_ROOT, r);
	}
	r = build_skip(o, res, &skip, err);
	if (r < 0) {
		skip_list_release(&skip);
		return failed(o, SCAN_PART_EXCLUDE, r);
	}
	c.mounts = res->mounts;
	c.rootfd = res->rootfd;
	c.res = res;
	c.batch = o->batch;
	if (!o->on_batch && o->records_dir) {
		r = spill_new(o->records_dir, o->records_memory, &res->files);
		if (r < 0) {
			skip_list_release(&skip);
			return records_error(o, r, err);
		}
		c.records = res->files;
	}
	if ((o->on_batch || c.records) &&
	    (r = idmap_new(res->host ? -1 : res->rootfd, &c.ids)) < 0) {
		skip_list_release(&skip);
		return failed(o, SCAN_PART_WALK, s2c_error_errno(err, r, "cannot name owners"));
	}
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.ready_cond, NULL);
	pthread_cond_init(&c.space_cond, NULL);
	w = (struct walk_options){
		.rootfd = res->rootfd,
		.paths = o->paths ? o->paths : default_paths,
		.mounts = res->mounts,
		.threads = o->threads ? o->threads : 1,
		.max_depth = o->max_depth,
		.flags = ((o->flags & SCAN_XDEV) ? WALK_XDEV : 0) |
			 ((o->flags & SCAN_ALL_CAPS) ? WALK_ALL_CAPS : 0) |
			 ((o->flags & SCAN_CROSS_PSEUDO) ? WALK_CROSS_PSEUDO : 0) |
			 (res->host && !(o->flags & SCAN_OTHER_ROOTS) ? WALK_SKIP_OS_ROOTS : 0),
		.on_candidate = on_candidate,
		.on_error = on_error,
		.skip = &skip,
		.on_skip = on_skip,
		.userdata = &c,
		.stats = o->stats ? o->stats : &local,
	};
	t0 = now();
	r = o->on_batch ? walk_in_batches(&c, &w) : walk_run(&w);
	res->seconds = now() - t0;
	idmap_free(c.ids);
	pthread_cond_destroy(&c.space_cond);
	pthread_cond_destroy(&c.ready_cond);
	pthread_mutex_destroy(&c.lock);
	skip_list_release(&skip);
	res->v = c.v;
	res->n = res->files ? spill_count(res->files) : c.n;
	memcpy(res->n_flag, c.n_flag, sizeof(res->n_flag));
	res->n_any = c.n_any;
	res->skipped = c.skipped;
	res->n_skipped = c.n_skipped;
	sort_skipped(res);
	res->warnings = c.warnings;
	res->stats = *w.stats;
	if (r < 0 && c.records_error)
		return records_error(o, c.records_error, err);
	if (r < 0 && c.batch_error)
		return failed(o, SCAN_PART_WALK, c.batch_error);   /* said by on_batch() */
	if (r < 0 && c.name_error)
		return failed(o, SCAN_PART_WALK, s2c_error_errno(err, r, "cannot name owners"));
	if (r < 0)
		return failed(o, SCAN_PART_WALK,
			      s2c_error_errno(err, r, "scan of '%s' failed", res->root));
	if (res->files) {
		r = spill_sort(res->files);
		if (r < 0)
			return records_error(o, r, err);
		*ret = TAKE_PTR(res);
		return 0;   /* named as they were kept */
	}
	if (res->n)
		qsort(res->v, res->n, sizeof(*res->v), cmp_path);
	r = name_all(res);
	if (r < 0)
		return failed(o, SCAN_PART_WALK, s2c_error_errno(err, r, "cannot name owners"));
	*ret = TAKE_PTR(res);
	return 0;
}
