/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "engine.h"
#include "facts.h"
#include "hashindex.h"
#include "learned.h"
#include "learnout.h"
#include "record.h"
#include "strhash.h"
#include "util.h"
#include "common.h"

/* The directory of learn records beneath @root, or -1 when there is none or it cannot
 * be read (a warning says why). */
static int records_open(const char *root)
{
	_cleanup_close_ int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct s2c_error err = { 0 };
	int dfd = -1, r;

	if (rootfd < 0)
		return -1;
	r = learn_dir_open(rootfd, root, false, geteuid() == 0, &dfd, &err);
	if (r < 0 && r != -ENOENT)
		log_warning("cannot read learn records: %s, ignoring them",
			    err.msg[0] ? err.msg : strerror(-r));
	return r < 0 ? -1 : dfd;
}

struct learn_record **learned_load(const char *root, struct decision *const *v, size_t n)
{
	_cleanup_close_ int dfd = n ? records_open(root) : -1;
	struct learn_record **out = NULL;
	struct s2c_error err = { 0 };
	bool any = false;
	int r;

	if (dfd < 0)
		return NULL;
	out = calloc(n, sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!v[i]->sha256)
			continue;
		s2c_error_clear(&err);
		r = learn_record_load(dfd, v[i]->sha256, geteuid() == 0, &out[i], &err);
		if (r < 0 && r != -ENOENT)
			log_warning("cannot use the learn record of '%s': %s, ignoring it",
				    v[i]->facts->path, err.msg[0] ? err.msg : strerror(-r));
		any |= out[i] != NULL;
	}
	if (!any) {
		free(out);
		return NULL;
	}
	return out;
}

void learned_free(struct learn_record **learned, size_t n)
{
	for (size_t i = 0; learned && i < n; i++)
		learn_record_free(learned[i]);
	free(learned);
}

struct learned {
	int dfd;
	struct learned_entry {
		char *sha256;
		struct learn_record *rec;
	} *v;
	size_t n, alloc;
	struct hashindex index;      /* of v by SHA-256: one look-up a file, however many */
};

struct learned *learned_open(const char *root)
{
	int dfd = records_open(root);
	struct learned *l;

	if (dfd < 0)
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		close(dfd);
		return NULL;
	}
	l->dfd = dfd;
	return l;
}

struct entry_key {
	const struct learned *l;
	const char *sha256;
};

static bool same_entry(size_t pos, const void *userdata)
{
	const struct entry_key *k = userdata;

	return pos < k->l->n && s2c_streq(k->l->v[pos].sha256, k->sha256);
}

static struct learned_entry *entry_of(const struct learned *l, const char *sha256)
{
	struct entry_key k = { l, sha256 };
	size_t pos;

	if (!l || !sha256)
		return NULL;
	pos = hashindex_find(&l->index, strhash(sha256), same_entry, &k);
	return pos == SIZE_MAX ? NULL : &l->v[pos];
}

int learned_add(void *userdata, const struct decision *d)
{
	struct learned *l = userdata;
	struct s2c_error err = { 0 };
	struct learn_record *rec = NULL;
	char *sha;
	int r;

	if (!l || !d->sha256 || entry_of(l, d->sha256))
		return 0;
	r = learn_record_load(l->dfd, d->sha256, geteuid() == 0, &rec, &err);
	if (r < 0 && r != -ENOENT)
		log_warning("cannot use the learn record of '%s': %s, ignoring it",
			    d->facts->path, err.msg[0] ? err.msg : strerror(-r));
	if (!rec)
		return 0;
	if (!(sha = strdup(d->sha256)) || S2C_ARRAY_RESERVE(l->v, l->alloc, l->n + 1, 8) < 0 ||
	    hashindex_add(&l->index, strhash(sha), l->n) < 0) {
		free(sha);
		learn_record_free(rec);
		return -ENOMEM;
	}
	l->v[l->n++] = (struct learned_entry){ sha, rec };
	return 0;
}

const struct learn_record *learned_find(const void *userdata, const struct decision *d)
{
	const struct learned_entry *e = entry_of(userdata, d->sha256);

	return e ? e->rec : NULL;
}

void learned_close(struct learned *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].sha256);
		learn_record_free(l->v[i].rec);
	}
	free(l->v);
	hashindex_release(&l->index);
	close(l->dfd);
	free(l);
}
