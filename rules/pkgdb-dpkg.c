/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dpkg: var/lib/dpkg/info/PKG[:ARCH].list names every file of a package,
 * var/lib/dpkg/status the installed version, and info/PKG[:ARCH].md5sums the
 * MD5 of each file's content ("<32 hex>  <path without leading slash>").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirlist.h"
#include "pkgdb-backend.h"
#include "resolve.h"
#include "util.h"
#include "common.h"

#define INFO "/var/lib/dpkg/info"

/* Per wanted path: the .list base ("ping:amd64") that claimed it. */
struct claim {
	char *base;
	char *name;                  /* "ping" */
	char *arch;                  /* "amd64" or NULL */
};

static void claims_free(struct claim *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		free(c[i].base);
		free(c[i].name);
		free(c[i].arch);
	}
	free(c);
}

/*
 * The index a run of more than one lookup makes on its second: which lists may hold each
 * path (pkgdb_pathindex), and the installed packages of the status file.  A lookup then
 * reads only the lists that may hold a wanted path and the md5sums of those that do, as
 * the database was when the index was made.
 */
struct installed {
	char *name, *arch, *version;
	size_t order;                        /* in the status file */
};

struct pkgdb_dpkg_index {
	char **lists;                        /* the .list names, in the order read */
	size_t n_lists;
	struct pkgdb_pathindex paths;        /* unit: the list's number */
	struct installed *pkgs;              /* sorted by name, then order */
	size_t n_pkgs, alloc_pkgs;
};

static void pkgdb_dpkg_index_freep(struct pkgdb_dpkg_index **x);

struct pkgdb_dpkg_index *pkgdb_dpkg_index_free(struct pkgdb_dpkg_index *x)
{
	if (!x)
		return NULL;
	strv_free(x->lists);
	pkgdb_pathindex_release(&x->paths);
	for (size_t i = 0; i < x->n_pkgs; i++) {
		free(x->pkgs[i].name);
		free(x->pkgs[i].arch);
		free(x->pkgs[i].version);
	}
	free(x->pkgs);
	free(x);
	return NULL;
}

static void pkgdb_dpkg_index_freep(struct pkgdb_dpkg_index **x)
{
	pkgdb_dpkg_index_free(*x);
}

static int index_add_package(void *userdata, const char *pkg, const char *arch,
			     const char *version)
{
	struct pkgdb_dpkg_index *x = userdata;
	struct installed *e;

	if (S2C_ARRAY_RESERVE(x->pkgs, x->alloc_pkgs, x->n_pkgs + 1, 256) < 0)
		return -ENOMEM;
	e = &x->pkgs[x->n_pkgs];
	*e = (struct installed){ .name = strdup(pkg), .arch = strdup(arch),
				 .version = strdup(version), .order = x->n_pkgs };
	x->n_pkgs++;
	return e->name && e->arch && e->version ? 0 : -ENOMEM;
}

static int cmp_installed(const void *a, const void *b)
{
	const struct installed *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* The claims' versions from the installed packages the index keeps, as read_status() would
 * give them: the first package of the claim's name (and architecture, when it has one). */
static int own_indexed(const struct pkgdb_dpkg_index *x, struct pkgdb_query *q,
		       struct claim *claims)
{
	for (size_t i = 0; i < q->n; i++) {
		struct claim *c = &claims[i];
		struct installed key = { .name = c->name };
		size_t lo = 0, hi = x->n_pkgs;

		if (!c->base || q->want[i].entry->package)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (strcmp(x->pkgs[mid].name, key.name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < x->n_pkgs && s2c_streq(x->pkgs[lo].name, c->name); lo++)
			if (!c->arch || s2c_streq(c->arch, x->pkgs[lo].arch)) {
				if (pkgdb_query_own(q, i, c->name, x->pkgs[lo].version) < 0)
					return -ENOMEM;
				break;
			}
	}
	return 0;
}

/*
 * Read list @k, @fname, and give its paths to the wanted ones no list before it claimed;
 * with @x, add every path of it to the index being made.
 */
static int read_list(int dfd, const char *fname, size_t k, struct pkgdb_query *q,
		     struct claim *claims, struct pkgdb_text *t, struct pkgdb_dpkg_index *x)
{
	size_t len = strlen(fname) - 5;      /* without ".list" */
	const char *line;
	size_t n;

	if (pkgdb_text_open(openat(dfd, fname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK),
			    t) < 0)
		return 0;
	while ((line = pkgdb_text_line(t, &n))) {
		long i;
		const char *colon;
		struct claim *c;

		if (x && pkgdb_pathindex_add(&x->paths, line, n, false, k) < 0)
			return -ENOMEM;
		i = pkgdb_query_find(q, line, n, false);
		if (i < 0 || q->want[i].entry->package || claims[i].base)
			continue;
		c = &claims[i];
		colon = memchr(fname, ':', len);
		if (!(c->base = strndup(fname, len)) ||
		    !(c->name = strndup(fname, colon ? (size_t)(colon - fname) : len)) ||
		    (colon && !(c->arch = strndup(colon + 1, len - (size_t)(colon - fname) - 1))))
			return -ENOMEM;
	}
	return 0;
}

/* The value of "Key: value" in @line, or NULL. */
static const char *field(const char *line, const char *key)
{
	size_t k = strlen(key);

	if (strncmp(line, key, k) != 0 || line[k] != ':')
		return NULL;
	line += k + 1;
	return line + strspn(line, " \t");
}

/* One stanza of the status file is complete: give its version to the claims. */
static int stanza_done(struct pkgdb_query *q, struct claim *claims, const char *pkg,
		       const char *arch, const char *version)
{
	for (size_t i = 0; i < q->n; i++) {
		struct claim *c = &claims[i];
		int r;
		if (!c->base || q->want[i].entry->package || !s2c_streq(c->name, pkg) ||
		    (c->arch && !s2c_streq(c->arch, arch)))
			continue;
		r = pkgdb_query_own(q, i, pkg, version);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Read the status file and call @fn for each installed package with a version, in the
 * file's order.  Returns 0 (an unreadable file has no packages) or what @fn returned.
 */
static int read_status(int rootfd, struct pkgdb_text *t,
		       int (*fn)(void *userdata, const char *pkg, const char *arch,
				 const char *version),
		       void *userdata)
{
	char pkg[256] = "", arch[64] = "", version[256] = "";
	bool installed = false;
	const char *line;
	size_t n;
	int r = 0;

	if (pkgdb_text_open(resolve_open(rootfd, "/var/lib/dpkg/status", O_RDONLY | O_NONBLOCK),
			    t) < 0)
		return 0;
	for (bool end = false; r == 0 && !end;) {
		const char *v;
		line = pkgdb_text_line(t, &n);
		end = !line;
		if (end || n == 0) {
			if (pkg[0] && version[0] && installed)
				r = fn(userdata, pkg, arch, version);
			pkg[0] = arch[0] = version[0] = '\0';
			installed = false;
		} else if ((v = field(line, "Package"))) {
			(void)snprintf(pkg, sizeof(pkg), "%s", v);
		} else if ((v = field(line, "Architecture"))) {
			(void)snprintf(arch, sizeof(arch), "%s", v);
		} else if ((v = field(line, "Version"))) {
			(void)snprintf(version, sizeof(version), "%s", v);
		} else if ((v = field(line, "Status"))) {
			/* "install ok installed"; a removed package keeps its config files only */
			size_t l = strlen(v);
			installed = l >= 9 && s2c_streq(v + l - 9, "installed") &&
				    (l == 9 || v[l - 10] == ' ');
		}
	}
	return r;
}

struct status_claims {
	struct pkgdb_query *q;
	struct claim *claims;
};

static int status_to_claims(void *userdata, const char *pkg, const char *arch,
			    const char *version)
{
	struct status_claims *sc = userdata;

	return stanza_done(sc->q, sc->claims, pkg, arch, version);
}

/* The md5sums of every package that claimed a path. */
static int read_md5sums(int dfd, struct pkgdb_query *q, struct claim *claims,
			struct pkgdb_text *t)
{
	for (size_t i = 0; i < q->n; i++) {
		_cleanup_free_ char *name = NULL;
		const char *line;
		size_t n;
		bool done = false;

		if (!claims[i].base || q->want[i].entry->digest)
			continue;
		for (size_t j = 0; j < i && !done; j++)
			done = claims[j].base && s2c_streq(claims[j].base, claims[i].base);
		if (done)
			continue;   /* read already, with path i in it */
		if (asprintf(&name, "%s.md5sums", claims[i].base) < 0) {
			name = NULL;
			return -ENOMEM;
		}
		if (pkgdb_text_open(openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK),
				    t) < 0)
			continue;
		while ((line = pkgdb_text_line(t, &n))) {
			long k;
			/* "<32 hex>  <path>" */
			if (n < 35 || line[32] != ' ' || line[33] != ' ')
				continue;
			k = pkgdb_query_find(q, line + 34, n - 34, true);
			if (k < 0 || !claims[k].base || !s2c_streq(claims[k].base, claims[i].base))
				continue;
			if (pkgdb_query_digest(q, (size_t)k, HASH_MD5, line, 32) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* Make the index while reading every list for @q; when the lists are too many to index,
 * *@ret is left NULL and nothing is read. */
static int make_index(int rootfd, int fd, char **lists, struct pkgdb_query *q,
		      struct claim *claims, struct pkgdb_text *t, struct pkgdb_dpkg_index **ret)
{
	_cleanup_(pkgdb_dpkg_index_freep) struct pkgdb_dpkg_index *x = calloc(1, sizeof(*x));
	int r = 0;

	if (!x)
		return -ENOMEM;
	x->lists = lists;
	while (lists[x->n_lists])
		x->n_lists++;
	if (x->n_lists > PKGDB_PATHINDEX_UNITS) {
		x->lists = NULL;
		return 0;
	}
	for (size_t k = 0; r == 0 && k < x->n_lists; k++)
		r = read_list(fd, lists[k], k, q, claims, t, x);
	if (r == 0)
		r = read_status(rootfd, t, index_add_package, x);
	if (r < 0) {
		x->lists = NULL;    /* the caller's still */
		return r;
	}
	pkgdb_pathindex_seal(&x->paths);
	if (x->n_pkgs)
		qsort(x->pkgs, x->n_pkgs, sizeof(*x->pkgs), cmp_installed);
	*ret = TAKE_PTR(x);
	return 0;
}

/* The lists that may hold a wanted path, read in their order. */
static int read_indexed(int fd, const struct pkgdb_dpkg_index *x, struct pkgdb_query *q,
			struct claim *claims, struct pkgdb_text *t)
{
	_cleanup_free_ uint64_t *mark = NULL;
	int r = pkgdb_pathindex_mark(&x->paths, x->n_lists, q, &mark);

	for (size_t k = 0; r == 0 && k < x->n_lists; k++)
		if (mark[k / 64] >> (k % 64) & 1)
			r = read_list(fd, x->lists[k], k, q, claims, t, NULL);
	return r;
}

int pkgdb_dpkg_lookup(int rootfd, struct pkgdb_query *q, struct pkgdb_dpkg_index **index,
		      bool make_index_now)
{
	struct claim *claims = calloc(q->n ? q->n : 1, sizeof(*claims));
	_cleanup_(pkgdb_text_release) struct pkgdb_text t = { 0 };
	_cleanup_(strv_freep) char **lists = NULL;
	_cleanup_close_ int fd = -1;
	struct status_claims sc = { .q = q, .claims = claims };
	int r = 0;

	if (!claims)
		return -ENOMEM;
	fd = resolve_open(rootfd, INFO, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || (!*index && dirlist(fd, "*.list", 0, &lists) < 0)) {
		claims_free(claims, q->n);
		return 0;
	}
	if (*index) {
		r = read_indexed(fd, *index, q, claims, &t);
		if (r == 0)
			r = own_indexed(*index, q, claims);
	} else {
		if (make_index_now)
			r = make_index(rootfd, fd, lists, q, claims, &t, index);
		if (r == 0 && *index) {
			lists = NULL;   /* the index's */
			r = own_indexed(*index, q, claims);
		} else if (r == 0) {
			for (size_t k = 0; r == 0 && lists[k]; k++)
				r = read_list(fd, lists[k], k, q, claims, &t, NULL);
			if (r == 0)
				r = read_status(rootfd, &t, status_to_claims, &sc);
		}
	}
	/* A package the status file does not list (or no status file) still owns its files. */
	for (size_t i = 0; r == 0 && i < q->n; i++)
		if (claims[i].base && !q->want[i].entry->package)
			r = pkgdb_query_own(q, i, claims[i].name, NULL) < 0 ? -ENOMEM : 0;
	if (r == 0)
		r = read_md5sums(fd, q, claims, &t);
	claims_free(claims, q->n);
	return r;
}
