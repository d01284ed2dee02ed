/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pacman: var/lib/pacman/local/NAME-VERSION-REL/ for each package, with
 * "files" (a %FILES% section, one path per line without a leading slash,
 * directories ending in '/'), "desc" (%NAME% and %VERSION% sections, the
 * value on the next line) and "mtree" (gzip-compressed mtree(5) text: one
 * line per file, "./usr/bin/ping time=… mode=4755 size=… sha256digest=…",
 * names with special characters written as \ooo octal escapes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "dirlist.h"
#include "pkgdb-backend.h"
#include "resolve.h"
#include "util.h"
#include "common.h"

/* Longest mtree line read; longer ones are skipped. */
#define MTREE_LINE_MAX 8192

/* The value after the line "%KEY%" of desc. */
static int desc_value(int dfd, const char *key, char *out, size_t size, struct pkgdb_text *t)
{
	const char *line;
	size_t n;
	bool next = false;

	out[0] = '\0';
	if (pkgdb_text_open(openat(dfd, "desc", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK),
			    t) < 0)
		return 0;
	while ((line = pkgdb_text_line(t, &n))) {
		if (next) {
			(void)snprintf(out, size, "%s", line);
			return 0;
		}
		next = s2c_streq(line, key);
	}
	return 0;
}

static void gzclosep(gzFile *g)
{
	if (*g)
		(void)gzclose(*g);
}

/* Digests of the wanted paths this package owns (@mine[i]) from its mtree. */
static int read_mtree(int dfd, struct pkgdb_query *q, const bool *mine)
{
	_cleanup_(gzclosep) gzFile g = NULL;
	_cleanup_free_ char *line = malloc(MTREE_LINE_MAX);
	int fd;

	if (!line)
		return -ENOMEM;
	fd = openat(dfd, "mtree", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	g = gzdopen(fd, "rb");
	if (!g) {
		(void)close(fd);
		return 0;
	}
	while (gzgets(g, line, MTREE_LINE_MAX)) {
		size_t len = strlen(line);
		char *sp, *kw, *save = NULL;
		long i;

		if (!len || line[len - 1] != '\n') {
			/* too long: skip the rest of it */
			while (len && line[len - 1] != '\n' && gzgets(g, line, MTREE_LINE_MAX))
				len = strlen(line);
			continue;
		}
		line[--len] = '\0';
		if (strncmp(line, "./", 2) != 0 || !(sp = strchr(line, ' ')))
			continue;
		*sp = '\0';
		unescape_octal(line);
		i = pkgdb_query_find(q, line + 1, strlen(line + 1), false);
		if (i < 0 || !mine[i])
			continue;
		for (kw = strtok_r(sp + 1, " \t", &save); kw; kw = strtok_r(NULL, " \t", &save)) {
			enum hash_algo a = strncmp(kw, "sha256digest=", 13) == 0 ? HASH_SHA256 :
					   strncmp(kw, "md5digest=", 10) == 0 ? HASH_MD5 : HASH_NONE;
			const char *v = a == HASH_NONE ? NULL : strchr(kw, '=') + 1;
			if (v && (a == HASH_SHA256 || !q->want[i].entry->digest) &&
			    pkgdb_query_digest(q, (size_t)i, a, v, strlen(v)) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* Which package directories may list each path (made on a run's second lookup). */
struct pkgdb_pacman_index {
	char **names;                /* the package directories, in the order read */
	size_t n_names;
	struct pkgdb_pathindex paths; /* unit: the directory's number */
};

struct pkgdb_pacman_index *pkgdb_pacman_index_free(struct pkgdb_pacman_index *x)
{
	if (x) {
		strv_free(x->names);
		pkgdb_pathindex_release(&x->paths);
		free(x);
	}
	return NULL;
}

/* One package directory, number @k: does it list a wanted path?  With @x, every path it
 * lists goes into the index being made. */
static int read_package(int localfd, const char *name, size_t k, struct pkgdb_query *q,
			bool *mine, struct pkgdb_text *t, struct pkgdb_pacman_index *x)
{
	_cleanup_close_ int dfd = openat(localfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char pkg[256], version[256];
	bool files = false, any = false;
	const char *line;
	size_t n;

	if (dfd < 0)
		return 0;
	if (pkgdb_text_open(openat(dfd, "files", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK),
			    t) < 0)
		return 0;
	memset(mine, 0, q->n * sizeof(*mine));
	while ((line = pkgdb_text_line(t, &n))) {
		long i;
		if (line[0] == '%') {
			files = s2c_streq(line, "%FILES%");
			continue;
		}
		if (!files || !n || line[n - 1] == '/')
			continue;
		if (x && pkgdb_pathindex_add(&x->paths, line, n, true, k) < 0)
			return -ENOMEM;
		i = pkgdb_query_find(q, line, n, true);
		if (i >= 0 && !q->want[i].entry->package)
			mine[i] = any = true;
	}
	if (!any)
		return 0;
	(void)desc_value(dfd, "%NAME%", pkg, sizeof(pkg), t);
	(void)desc_value(dfd, "%VERSION%", version, sizeof(version), t);
	if (!pkg[0])
		return 0;
	for (size_t i = 0; i < q->n; i++)
		if (mine[i] && pkgdb_query_own(q, i, pkg, version[0] ? version : NULL) < 0)
			return -ENOMEM;
	return read_mtree(dfd, q, mine);
}

int pkgdb_pacman_lookup(int rootfd, struct pkgdb_query *q, struct pkgdb_pacman_index **index,
			bool make_index_now)
{
	_cleanup_free_ bool *mine = calloc(q->n ? q->n : 1, sizeof(*mine));
	_cleanup_(pkgdb_text_release) struct pkgdb_text t = { 0 };
	_cleanup_free_ uint64_t *mark = NULL;
	_cleanup_(strv_freep) char **names = NULL;
	_cleanup_close_ int fd = -1;
	struct pkgdb_pacman_index *x = *index;
	size_t n_names = 0;
	int r = 0;

	if (!mine)
		return -ENOMEM;
	fd = resolve_open(rootfd, "/var/lib/pacman/local", O_RDONLY | O_DIRECTORY);
	if (fd < 0 || (!x && dirlist(fd, "*", 0, &names) < 0))
		return 0;
	if (x) {
		r = pkgdb_pathindex_mark(&x->paths, x->n_names, q, &mark);
		for (size_t k = 0; r == 0 && k < x->n_names; k++)
			if (mark[k / 64] >> (k % 64) & 1)
				r = read_package(fd, x->names[k], k, q, mine, &t, NULL);
		return r;
	}
	while (names[n_names])
		n_names++;
	if (make_index_now && n_names <= PKGDB_PATHINDEX_UNITS &&
	    !(x = calloc(1, sizeof(*x))))
		return -ENOMEM;
	for (size_t k = 0; r == 0 && names[k]; k++)
		r = read_package(fd, names[k], k, q, mine, &t, x);
	if (x && r == 0) {
		pkgdb_pathindex_seal(&x->paths);
		x->names = TAKE_PTR(names);
		x->n_names = n_names;
		*index = x;
	} else {
		pkgdb_pacman_index_free(x);
	}
	return r;
}
