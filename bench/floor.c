/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The floor of a setuid scan, for bench/bench.sh: the system calls no scan can
 * do without, on as many threads, and nothing else.  Every directory is opened
 * relative to its parent, read with getdents64 until it returns 0 and closed;
 * every regular file (or entry of unknown type) gets one statx of its type and
 * mode, relative to its directory.  Mount points from /proc/self/mountinfo are
 * not entered (-xdev).  It prints how many files are setuid or setgid.  No
 * capabilities, no names kept, no output of the files, no order: what is left
 * between it and `suid2cap scan --xdev` is the scanner's own work.
 *
 *	s2c-floor ROOT [THREADS]
 */
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* An open directory, shared by the subdirectories still to be opened relative to it. */
struct dirfd {
	int fd;
	unsigned refs;
};

struct dir {
	struct dir *next;
	struct dirfd *parent;   /* NULL for the root */
	char *path;
};

static bool ext4;               /* the root is ext4: one getdents64 a directory, as the
				   scanner reads it (scanner/walk.c, last_of_directory()) */

static void dirfd_unref(struct dirfd *f)
{
	if (f && __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		close(f->fd);
		free(f);
	}
}

static struct {
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct dir *stack;
	unsigned busy;          /* threads with a directory in hand */
	char **mounts;          /* mount points under the root, sorted */
	size_t n_mounts;
	unsigned long found;
} q = { .lock = PTHREAD_MUTEX_INITIALIZER, .more = PTHREAD_COND_INITIALIZER };

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_mounts(const char *root)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, mp[4096];
	size_t size = 0;

	while (f && getline(&line, &size, f) > 0) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 || strcmp(mp, root) == 0)
			continue;
		q.mounts = realloc(q.mounts, (q.n_mounts + 1) * sizeof(*q.mounts));
		if (!q.mounts || !(q.mounts[q.n_mounts++] = strdup(mp)))
			abort();
	}
	free(line);
	if (f)
		fclose(f);
	qsort(q.mounts, q.n_mounts, sizeof(*q.mounts), cmp_str);
}

static void push(struct dirfd *parent, char *path)
{
	struct dir *d = malloc(sizeof(*d));

	if (!d)
		abort();
	*d = (struct dir){ .parent = parent, .path = path };
	pthread_mutex_lock(&q.lock);
	d->next = q.stack;
	q.stack = d;
	pthread_cond_signal(&q.more);
	pthread_mutex_unlock(&q.lock);
}

/* Read @d; its subdirectories are pushed with a reference to this directory's fd.
 * Returns how many setuid or setgid files it holds. */
static unsigned long read_dir(struct dir *d)
{
	char buf[65536], *sub;
	unsigned long found = 0;
	int fd = !d->parent ? open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
			    : openat(d->parent->fd, strrchr(d->path, '/') + 1,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct dirfd *self;
	bool last = false;
	long n;

	if (fd < 0)
		return 0;
	if (!(self = malloc(sizeof(*self))))
		abort();
	*self = (struct dirfd){ .fd = fd, .refs = 1 };
	while (!last && (n = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);
			struct statx stx;
			const char *name = de->d_name;
			off += de->d_reclen;
			last = off >= n && ext4 && de->d_off == INT64_MAX;
			if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
				continue;
			if (de->d_type == DT_DIR) {
				if (asprintf(&sub, "%s/%s", strcmp(d->path, "/") ? d->path : "",
					     name) < 0)
					abort();
				if (bsearch(&sub, q.mounts, q.n_mounts, sizeof(*q.mounts), cmp_str)) {
					free(sub);
					continue;
				}
				__atomic_add_fetch(&self->refs, 1, __ATOMIC_RELAXED);
				push(self, sub);
			} else if ((de->d_type == DT_REG || de->d_type == DT_UNKNOWN) &&
				   statx(fd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT |
					 AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MODE, &stx) == 0 &&
				   S_ISREG(stx.stx_mode) && (stx.stx_mode & (S_ISUID | S_ISGID))) {
				found++;
			}
		}
	}
	dirfd_unref(self);
	return found;
}

static void *worker(void *unused)
{
	(void)unused;
	for (;;) {
		struct dir *d;
		unsigned long found;

		pthread_mutex_lock(&q.lock);
		while (!q.stack && q.busy)
			pthread_cond_wait(&q.more, &q.lock);
		if (!q.stack) {
			pthread_cond_broadcast(&q.more);
			pthread_mutex_unlock(&q.lock);
			return NULL;
		}
		d = q.stack;
		q.stack = d->next;
		q.busy++;
		pthread_mutex_unlock(&q.lock);

		found = read_dir(d);
		dirfd_unref(d->parent);
		free(d->path);
		free(d);

		pthread_mutex_lock(&q.lock);
		q.found += found;
		q.busy--;
		if (!q.busy && !q.stack)
			pthread_cond_broadcast(&q.more);
		pthread_mutex_unlock(&q.lock);
	}
}

int main(int argc, char **argv)
{
	unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 16;
	pthread_t *t;
	struct statfs sfs;
	char *root;

	if (argc < 2 || threads < 1 || threads > 256) {
		fprintf(stderr, "usage: s2c-floor ROOT [THREADS]\n");
		return 2;
	}
	root = strdup(argv[1]);
	t = calloc(threads, sizeof(*t));
	if (!root || !t)
		return 1;
	load_mounts(root);
	ext4 = statfs(root, &sfs) == 0 && sfs.f_type == EXT4_SUPER_MAGIC;
	push(NULL, root);
	for (unsigned i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	for (unsigned i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("%lu\n", q.found);
	return 0;
}
