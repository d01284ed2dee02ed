/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Walker internals.
 *
 * Each queued directory is a dnode holding its full path and a reference to
 * its parent dnode, whose fd it is opened relative to.  A dnode's fd stays
 * open while unopened children still need it; the reference count covers the
 * worker processing it plus one per queued child.  With a LIFO queue the live
 * dnodes are the ancestors of pending work, so open fds and memory grow with
 * depth times fan-out, not with the size of the tree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/magic.h>

#include "fcaps.h"
#include "mounts.h"
#include "resolve.h"
#include "skip.h"
#include "walk.h"
#include "util.h"
#include "common.h"

#define GETDENTS_BUF (64 << 10)
#define DEFAULT_MAX_DEPTH 4096

struct dnode {
	struct dnode *parent;   /* held until this directory is opened */
	int fd;
	unsigned refs;
	unsigned depth;
	dev_t dev;              /* st_dev of this directory (image mode) */
	dev_t xdev;             /* st_dev of the start path, for WALK_XDEV */
	bool check_mounts;      /* host mode: a mount point lies below */
	bool check_skip;        /* a skip rule can match below */
	bool eof_mark;          /* on ext4: see last_of_directory() */
	unsigned comps;         /* components of path ("/" has 0) */
	size_t name_off;        /* offset of the last component in path */
	size_t pathlen;
	char path[];
};

struct walker {
	const struct walk_options *o;
	unsigned max_depth;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct dnode **stack;
	size_t n, alloc;
	unsigned busy;          /* workers not waiting for work */
	unsigned waiting;       /* workers waiting (read without the lock) */
	bool stop;
	int error;
};

/* A candidate held back until its directory is known not to be an OS root. */
struct deferred {
	char *name;
	int caps_len;
	unsigned char caps[FCAPS_BLOB_MAX + 1];
};

struct worker {
	struct walker *w;
	char *buf;
	struct dnode **batch;
	size_t nbatch, abatch;
	bool deferring;         /* found_file() holds candidates back */
	struct deferred *defer;
	size_t ndefer, adefer;
};

static void dnode_unref(struct dnode *d)
{
	while (d && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct dnode *parent = d->parent;

		if (d->fd >= 0)
			(void)close(d->fd);
		free(d);
		d = parent;
	}
}

static struct dnode *dnode_new(struct dnode *parent, const char *name, size_t namelen)
{
	size_t plen = parent->pathlen;
	bool slash = !(plen == 1 && parent->path[0] == '/');
	struct dnode *d = malloc(sizeof(*d) + plen + slash + namelen + 1);

	if (!d)
		return NULL;
	memcpy(d->path, parent->path, plen);
	if (slash)
		d->path[plen] = '/';
	memcpy(d->path + plen + slash, name, namelen + 1);
	d->pathlen = plen + slash + namelen;
	d->name_off = plen + slash;
	d->parent = parent;
	__atomic_add_fetch(&parent->refs, 1, __ATOMIC_RELAXED);
	d->fd = -1;
	d->refs = 1;
	d->depth = parent->depth + 1;
	d->dev = parent->dev;
	d->xdev = parent->xdev;
	d->check_mounts = false;
	d->check_skip = false;
	d->eof_mark = parent->eof_mark;
	d->comps = parent->comps + 1;
	return d;
}

static void report(struct walker *w, const char *dir, const char *name, int error,
		   const char *what)
{
	_cleanup_free_ char *path = name ? path_join(dir, name) : NULL;

	if (w->o->stats)
		__atomic_add_fetch(&w->o->stats->errors, 1, __ATOMIC_RELAXED);
	if (w->o->on_error)
		w->o->on_error(w->o->userdata, path ? path : dir, error, what);
}

static void fail(struct walker *w, int error)
{
	pthread_mutex_lock(&w->lock);
	if (!w->stop) {
		w->stop = true;
		w->error = error;
	}
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Take work from the shared stack, waiting while other workers are busy.
 * Returns NULL when everything is done (or the walk stopped).
 */
static struct dnode *pop_shared(struct walker *w)
{
	struct dnode *d = NULL;

	pthread_mutex_lock(&w->lock);
	if (w->n == 0) {
		w->busy--;
		__atomic_add_fetch(&w->waiting, 1, __ATOMIC_RELAXED);
		if (w->busy == 0)
			pthread_cond_broadcast(&w->cond);
		while (!w->stop && w->n == 0 && w->busy > 0)
			pthread_cond_wait(&w->cond, &w->lock);
		__atomic_sub_fetch(&w->waiting, 1, __ATOMIC_RELAXED);
		if (w->stop || w->n == 0) {
			pthread_cond_broadcast(&w->cond);
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		w->busy++;
	}
	if (!w->stop)
		d = w->stack[--w->n];
	pthread_mutex_unlock(&w->lock);
	return d;
}

/*
 * Each worker keeps the subdirectories it finds on its own stack and works
 * depth-first from it without any lock; only when another worker is idle
 * does it give away the older half (the larger subtrees) through the shared
 * stack.  On small machines this keeps the mutex out of the hot path.
 */
static int share(struct walker *w, struct worker *t)
{
	size_t give;
	int r = 0;

	if (t->nbatch < 2 || __atomic_load_n(&w->waiting, __ATOMIC_RELAXED) == 0)
		return 0;
	give = t->nbatch / 2;
	pthread_mutex_lock(&w->lock);
	if (w->n + give > w->alloc) {
		size_t na = S2C_MAX(w->alloc * 2, w->n + give);
		struct dnode **ns = realloc(w->stack, na * sizeof(*ns));
		if (ns) {
			w->stack = ns;
			w->alloc = na;
		} else {
			r = -ENOMEM;
		}
	}
	if (r == 0) {
		memcpy(w->stack + w->n, t->batch, give * sizeof(*t->batch));
		w->n += give;
		memmove(t->batch, t->batch + give, (t->nbatch - give) * sizeof(*t->batch));
		t->nbatch -= give;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return r;
}

static int batch_add(struct worker *t, struct dnode *d)
{
	if (S2C_ARRAY_RESERVE(t->batch, t->abatch, t->nbatch + 1, 64) < 0)
		return -ENOMEM;
	t->batch[t->nbatch++] = d;
	return 0;
}

/* A subdirectory was found: decide whether to descend, and queue it. */
static int found_dir(struct walker *w, struct worker *t, struct dnode *d, const char *name)
{
	size_t namelen = strlen(name);
	struct dnode *c;

	if (d->depth + 1 > w->max_depth) {
		report(w, d->path, name, -ELOOP, "directory nested too deeply, skipping");
		return 0;
	}
	c = dnode_new(d, name, namelen);
	if (!c)
		return -ENOMEM;
	if (d->check_skip) {
		const struct skip_rule *rule = skip_list_match(w->o->skip, c->path, c->comps);

		if (rule) {
			int r = w->o->on_skip(w->o->userdata, c->path, rule);
			dnode_unref(c);
			return r;
		}
		c->check_skip = skip_list_below(w->o->skip, c->path, c->comps);
	}
	if (d->check_mounts) {
		const struct mount_entry *m = mounts_at(w->o->mounts, c->path);

		if (m) {
			bool skip = (m->pseudo && !(w->o->flags & WALK_CROSS_PSEUDO)) ||
				    ((w->o->flags & WALK_XDEV) && makedev(m->major, m->minor) != d->xdev);
			if (skip) {
				dnode_unref(c);
				return 0;
			}
			c->eof_mark = s2c_streq(m->fstype, "ext4");
		}
		c->check_mounts = mounts_below(w->o->mounts, c->path);
	}
	return batch_add(t, c);
}

static int emit(struct walker *w, struct dnode *d, const char *name,
		const unsigned char *caps, int caps_len)
{
	struct statx stx;
	_cleanup_free_ char *path = path_join(d->path, name);
	struct walk_entry e;

	if (!path)
		return -ENOMEM;
	if (d->check_skip) {
		const struct skip_rule *rule = skip_list_match(w->o->skip, path, d->comps + 1);
		if (rule)
			return w->o->on_skip(w->o->userdata, path, rule);
	}
	if (statx(d->fd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_BASIC_STATS | STATX_MNT_ID, &stx) < 0) {
		if (errno != ENOENT)
			report(w, d->path, name, -errno, "cannot stat");
		return 0;
	}
	if (!S_ISREG(stx.stx_mode))
		return 0;       /* replaced while we looked; nothing privileged to report */
	e = (struct walk_entry){
		.path = path, .dirfd = d->fd, .name = name, .stx = &stx,
		.caps = caps_len >= 0 ? caps : NULL, .caps_len = caps_len,
		.mnt_id = (stx.stx_mask & STATX_MNT_ID) ? stx.stx_mnt_id : 0,
	};
	if (w->o->stats)
		__atomic_add_fetch(&w->o->stats->candidates, 1, __ATOMIC_RELAXED);
	return w->o->on_candidate(w->o->userdata, &e);
}

static int defer(struct worker *t, const char *name, const unsigned char *caps, int caps_len)
{
	struct deferred *x;

	if (S2C_ARRAY_RESERVE(t->defer, t->adefer, t->ndefer + 1, 8) < 0)
		return -ENOMEM;
	x = &t->defer[t->ndefer];
	x->name = strdup(name);
	if (!x->name)
		return -ENOMEM;
	x->caps_len = caps_len;
	if (caps_len > 0)
		memcpy(x->caps, caps, (size_t)caps_len);
	t->ndefer++;
	return 0;
}

/* Hand on (or, for an OS root, drop) the candidates held back for @d. */
static int flush_deferred(struct walker *w, struct worker *t, struct dnode *d, bool drop)
{
	int r = 0;

	for (size_t i = 0; i < t->ndefer; i++) {
		if (r == 0 && !drop)
			r = emit(w, d, t->defer[i].name, t->defer[i].caps, t->defer[i].caps_len);
		free(t->defer[i].name);
	}
	t->ndefer = 0;
	return r;
}

/*
 * dpkg unpacks a new version beside the old one as NAME.dpkg-new, and keeps
 * the old one as NAME.dpkg-tmp, until it renames them: not a file of the
 * system yet, or no more.  Skipped only when root owns it and its directory,
 * and nobody else can write there, so that nobody else can hide a file by
 * its name.
 */
static bool dpkg_temporary(const struct dnode *d, const char *name)
{
	static const char *const suffixes[] = { ".dpkg-new", ".dpkg-tmp" };
	size_t n = strlen(name);
	struct statx stx;
	struct stat dir;
	bool named = false;

	for (size_t i = 0; i < S2C_ELEMENTSOF(suffixes) && !named; i++) {
		size_t k = strlen(suffixes[i]);
		named = n > k && s2c_streq(name + n - k, suffixes[i]);
	}
	if (!named || statx(d->fd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_UID,
			    &stx) < 0 || stx.stx_uid != 0)
		return false;
	return fstat(d->fd, &dir) == 0 && dir.st_uid == 0 && !(dir.st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * A regular file, or an entry of unknown type.  One minimal statx decides;
 * the caps xattr is read only for executables.
 */
static int found_file(struct walker *w, struct worker *t, struct dnode *d, const char *name,
		      bool force_caps)
{
	unsigned char caps[FCAPS_BLOB_MAX + 1];
	int caps_len = -ENODATA;
	struct statx stx;
	bool want_caps;

	if (statx(d->fd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
		  STATX_TYPE | STATX_MODE, &stx) < 0) {
		/* Gone since getdents64 listed it (a package manager at work): nothing to
		 * report, as find -ignore_readdir_race does. */
		if (errno != ENOENT)
			report(w, d->path, name, -errno, "cannot stat");
		return 0;
	}
	if (S_ISDIR(stx.stx_mode))
		return t ? found_dir(w, t, d, name) : 0;
	if (!S_ISREG(stx.stx_mode))
		return 0;
	want_caps = force_caps || (w->o->flags & WALK_ALL_CAPS) || (stx.stx_mode & 0111);
	if (want_caps) {
		caps_len = fcaps_read_at(d->fd, name, caps, sizeof(caps));
		if (caps_len == -ENOENT)
			return 0;       /* gone meanwhile */
		if (caps_len == -EOPNOTSUPP)
			caps_len = -ENODATA;
		else if (caps_len < 0 && caps_len != -ENODATA && caps_len != -ERANGE) {
			report(w, d->path, name, caps_len, "cannot read capabilities");
			caps_len = -ENODATA;
		}
	}
	if (!(stx.stx_mode & (S_ISUID | S_ISGID)) && caps_len == -ENODATA)
		return 0;
	if (dpkg_temporary(d, name))
		return 0;
	if (t && t->deferring)
		return defer(t, name, caps, caps_len);
	return emit(w, d, name, caps, caps_len);
}

/* Open a queued directory relative to its parent and check mount crossings. */
static int open_dir(struct walker *w, struct dnode *d)
{
	struct dnode *parent = d->parent;
	struct stat st;
	int fd;

	fd = openat(parent->fd, d->path + d->name_off,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	d->parent = NULL;
	dnode_unref(parent);
	if (fd < 0) {
		int e = errno;
		/* Gone since its parent was read: nothing below it to report. */
		if (e != ENOENT)
			report(w, d->path, NULL, -e, e == ELOOP || e == ENOTDIR ?
			       "directory replaced during the scan, skipping" : "cannot open directory");
		return -1;
	}
	d->fd = fd;
	if (w->o->mounts)
		return 0;       /* host mode: mount points are known from the table */
	if (!(w->o->flags & WALK_XDEV) && (w->o->flags & WALK_CROSS_PSEUDO))
		return 0;       /* nothing to skip at mount points */
	/* Image mode: no mount table, so a change of st_dev marks a mount point. */
	if (fstat(fd, &st) < 0) {
		report(w, d->path, NULL, -errno, "cannot stat directory");
		return -1;
	}
	if (st.st_dev != d->dev) {
		struct statfs sfs;
		bool known;

		if (w->o->flags & WALK_XDEV)
			return -1;
		known = fstatfs(fd, &sfs) == 0;
		if (!(w->o->flags & WALK_CROSS_PSEUDO) && known &&
		    mounts_magic_is_pseudo((long)sfs.f_type))
			return -1;
		d->dev = st.st_dev;
		d->eof_mark = known && sfs.f_type == EXT4_SUPER_MAGIC;
	}
	return 0;
}

/*
 * Whether the walk knows the filesystem of every directory it reads: from the
 * mount table, or from a change of st_dev seen at each directory.
 */
static bool knows_filesystems(const struct walk_options *o)
{
	return o->mounts || (o->flags & WALK_XDEV) || !(o->flags & WALK_CROSS_PSEUDO);
}

/*
 * Whether @de, the last entry getdents64 returned, is the directory's last.
 * ext4 lists a directory in hash order and gives the entry that ends it the
 * offset EXT4_HTREE_EOF_64BIT, INT64_MAX, which no entry's hash can take
 * (ext4fs_dirhash moves the one hash that would); in a directory it lists in
 * block order the offsets are byte positions.  So on ext4 a last offset of
 * INT64_MAX means the next call would return 0: one getdents64 a directory
 * instead of two.  Any other filesystem, or one the walk does not know, reads
 * on until 0.
 */
static bool last_of_directory(const struct dnode *d, const struct dirent64 *de)
{
	return d->eof_mark && de->d_off == INT64_MAX;
}

/* "usr" and "etc": cheap enough to test for every entry. */
static bool is_usr(const char *n)
{
	return n[0] == 'u' && n[1] == 's' && n[2] == 'r' && !n[3];
}

static bool is_etc(const char *n)
{
	return n[0] == 'e' && n[1] == 't' && n[2] == 'c' && !n[3];
}

static int read_dir(struct walker *w, struct worker *t, struct dnode *d)
{
	/* The root itself is this system; any other directory may be another one. */
	bool detect = (w->o->flags & WALK_SKIP_OS_ROOTS) && d->comps > 0;
	bool usr = false, etc = false;
	size_t first = t->nbatch;
	uint64_t entries = 0;
	int r = 0;

	t->deferring = detect;

	for (bool last = false; !last;) {
		ssize_t n = getdents64(d->fd, t->buf, GETDENTS_BUF);

		if (n == 0)
			break;
		if (n < 0) {
			/* Removed since it was opened (a package manager at work): the
			 * kernel lists nothing of a dead directory, and nothing was lost. */
			if (errno != ENOENT)
				report(w, d->path, NULL, -errno, "cannot read directory");
			break;
		}
		for (ssize_t off = 0; off < n && r == 0;) {
			struct dirent64 *de = (struct dirent64 *)(t->buf + off);
			const char *name = de->d_name;

			off += de->d_reclen;
			last = off >= n && last_of_directory(d, de);
			if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
				continue;
			entries++;
			if (detect && (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN)) {
				usr = usr || is_usr(name);
				etc = etc || is_etc(name);
			}
			switch (de->d_type) {
			case DT_DIR: r = found_dir(w, t, d, name); break;
			case DT_REG:
			case DT_UNKNOWN: r = found_file(w, t, d, name, false); break;
			default: break;
			}
		}
		if (r < 0)
			break;
	}
	if (w->o->stats) {
		__atomic_add_fetch(&w->o->stats->dirs, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&w->o->stats->files, entries, __ATOMIC_RELAXED);
	}
	t->deferring = false;
	if (r == 0 && usr && etc && skip_is_os_root(d->fd)) {
		/* Nothing of it was handed on yet: drop its queued subdirectories too. */
		while (t->nbatch > first)
			dnode_unref(t->batch[--t->nbatch]);
		(void)flush_deferred(w, t, d, true);
		return w->o->on_skip(w->o->userdata, d->path, NULL);
	}
	{
		int k = flush_deferred(w, t, d, r < 0);
		return r < 0 ? r : k;
	}
}

static void *worker_main(void *arg)
{
	struct worker *t = arg;
	struct walker *w = t->w;

	for (;;) {
		struct dnode *d = t->nbatch ? t->batch[--t->nbatch] : pop_shared(w);
		int r = 0;

		if (!d)
			break;
		if (d->fd >= 0 || open_dir(w, d) == 0)
			r = read_dir(w, t, d);
		dnode_unref(d);
		if (r == 0)
			r = share(w, t);
		if (r < 0) {
			fail(w, r);
			break;
		}
		if (__atomic_load_n(&w->stop, __ATOMIC_RELAXED))
			break;
	}
	return NULL;
}

/*
 * A start path at or below a path not to walk: report that path and leave the
 * start path out.  Each ancestor is matched against the rules and, when OS
 * roots are left out, checked like a walked directory (@is_dir: @path itself
 * is a directory).  Returns 1 when skipped, 0 to go on, or a negative errno.
 */
static int start_skipped(struct walker *w, const char *path, bool is_dir)
{
	bool detect = w->o->flags & WALK_SKIP_OS_ROOTS;
	_cleanup_free_ char *buf = NULL;
	size_t len = strlen(path);
	unsigned depth = 0;

	if ((!w->o->skip || !w->o->skip->n) && !detect)
		return 0;
	if (len <= 1)
		return 0;       /* the root */
	buf = strdup(path);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 1; i <= len; i++) {
		const struct skip_rule *rule;

		if (i < len && path[i] != '/')
			continue;
		buf[i] = '\0';
		depth++;
		rule = skip_list_match(w->o->skip, buf, depth);
		if (rule) {
			int r = w->o->on_skip(w->o->userdata, buf, rule);
			return r < 0 ? r : 1;
		}
		if (detect && (i < len || is_dir)) {
			_cleanup_close_ int fd = resolve_open(w->o->rootfd, buf, O_PATH | O_DIRECTORY);
			if (fd >= 0 && skip_is_os_root(fd)) {
				int r = w->o->on_skip(w->o->userdata, buf, NULL);
				return r < 0 ? r : 1;
			}
		}
		buf[i] = path[i];
	}
	return 0;
}

/* A start path that is a file rather than a directory. */
static int start_file(struct walker *w, const char *path)
{
	struct dnode *d;
	const char *name;
	size_t plen;
	int fd, r;

	r = start_skipped(w, path, false);
	if (r != 0)
		return r < 0 ? r : 0;
	fd = resolve_open_parent(w->o->rootfd, path, &name);
	if (fd < 0) {
		report(w, path, NULL, fd, "cannot open");
		return 0;
	}
	plen = (size_t)(name - path) - 1;
	d = calloc(1, sizeof(*d) + plen + 2);
	if (!d) {
		(void)close(fd);
		return -ENOMEM;
	}
	d->fd = fd;
	d->refs = 1;
	if (plen == 0)
		d->path[0] = '/', d->pathlen = 1;
	else
		memcpy(d->path, path, plen), d->pathlen = plen;
	r = found_file(w, NULL, d, name, true);
	dnode_unref(d);
	return r;
}

static int start_path(struct walker *w, const char *raw)
{
	_cleanup_free_ char *path = resolve_normalise(raw);
	struct dnode *d;
	struct statfs sfs;
	struct stat st;
	size_t len;
	int fd, r;

	if (!path) {
		report(w, raw, NULL, -errno, "invalid path");
		return errno == ENOMEM ? -ENOMEM : 0;
	}
	fd = resolve_open(w->o->rootfd, path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
	if (fd == -ENOTDIR)
		return start_file(w, path);
	if (fd < 0) {
		report(w, path, NULL, fd, fd == -ELOOP ? "is or passes through a symbolic link, "
							 "not followed" : "cannot open");
		return 0;
	}
	if (fstat(fd, &st) < 0) {
		int e = -errno;
		(void)close(fd);
		report(w, path, NULL, e, "cannot stat");
		return 0;
	}
	r = start_skipped(w, path, true);
	if (r != 0) {
		(void)close(fd);
		return r < 0 ? r : 0;
	}
	len = strlen(path);
	d = calloc(1, sizeof(*d) + len + 1);
	if (!d) {
		(void)close(fd);
		return -ENOMEM;
	}
	memcpy(d->path, path, len + 1);
	d->pathlen = len;
	d->fd = fd;
	d->refs = 1;
	d->dev = d->xdev = st.st_dev;
	d->eof_mark = knows_filesystems(w->o) && fstatfs(fd, &sfs) == 0 &&
		      sfs.f_type == EXT4_SUPER_MAGIC;
	d->check_mounts = mounts_below(w->o->mounts, path);
	d->comps = skip_path_depth(path);
	d->check_skip = skip_list_below(w->o->skip, path, d->comps);
	if (S2C_ARRAY_RESERVE(w->stack, w->alloc, w->n + 1, 64) < 0) {
		dnode_unref(d);
		return -ENOMEM;
	}
	w->stack[w->n++] = d;
	return 0;
}

int walk_run(const struct walk_options *opts)
{
	struct walker w = { .o = opts };
	unsigned nthreads = opts->threads ? opts->threads : 1;
	_cleanup_free_ pthread_t *tids = calloc(nthreads, sizeof(*tids));
	_cleanup_free_ struct worker *workers = calloc(nthreads, sizeof(*workers));
	unsigned started = 0;
	int r = 0;

	if (!tids || !workers)
		return -ENOMEM;
	w.max_depth = opts->max_depth ? opts->max_depth : DEFAULT_MAX_DEPTH;
	w.busy = nthreads;
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);

	/* Start paths are queued in reverse so they are walked in the given order. */
	{
		size_t count = 0;

		while (opts->paths[count])
			count++;
		for (size_t i = count; i-- > 0 && r == 0;)
			r = start_path(&w, opts->paths[i]);
	}

	for (unsigned i = 0; i < nthreads && r == 0; i++) {
		workers[i].w = &w;
		workers[i].buf = malloc(GETDENTS_BUF);
		if (!workers[i].buf) {
			r = -ENOMEM;
			break;
		}
		r = -pthread_create(&tids[i], NULL, worker_main, &workers[i]);
		if (r == 0)
			started++;
	}
	if (r < 0) {
		pthread_mutex_lock(&w.lock);
		w.busy -= nthreads - started;   /* those never started wait for nothing */
		pthread_mutex_unlock(&w.lock);
		fail(&w, r);
	}
	for (unsigned i = 0; i < started; i++)
		(void)pthread_join(tids[i], NULL);
	for (unsigned i = 0; i < nthreads; i++) {
		free(workers[i].buf);
		for (size_t j = 0; j < workers[i].nbatch; j++)
			dnode_unref(workers[i].batch[j]);
		free(workers[i].batch);
		free(workers[i].defer);
	}
	while (w.n > 0)
		dnode_unref(w.stack[--w.n]);
	free(w.stack);
	pthread_mutex_destroy(&w.lock);
	pthread_cond_destroy(&w.cond);
	return w.error ? w.error : r;
}
