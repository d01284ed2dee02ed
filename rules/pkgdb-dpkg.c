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

static int read_list(int dfd, const char *fname, struct pkgdb_query *q, struct claim *claims,
		     struct pkgdb_text *t)
{
	size_t len = strlen(fname) - 5;      /* without ".list" */
	const char *line;
	size_t n;

	if (pkgdb_text_read(openat(dfd, fname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK),
			    t) < 0)
		return 0;
	while ((line = pkgdb_text_line(t, &n))) {
		long i = pkgdb_query_find(q, line, n, false);
		const char *colon;
		struct claim *c;

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
		       const char *arch, const char *version, bool installed)
{
	if (!pkg[0] || !version[0] || !installed)
		return 0;
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

static int read_status(int rootfd, struct pkgdb_query *q, struct claim *claims,
		       struct pkgdb_text *t)
{
	char pkg[256] = "", arch[64] = "", version[256] = "";
	bool installed = false;
	const char *line;
	size_t n;
	int r = 0;

	if (pkgdb_text_read(resolve_open(rootfd, "/var/lib/dpkg/status", O_RDONLY | O_NONBLOCK),
			    t) < 0)
		return 0;
	while (r == 0 && (line = pkgdb_text_line(t, &n))) {
		const char *v;
		if (n == 0) {
			r = stanza_done(q, claims, pkg, arch, version, installed);
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
	if (r == 0)
		r = stanza_done(q, claims, pkg, arch, version, installed);
	return r;
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
		if (pkgdb_text_read(openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK),
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

int pkgdb_dpkg_lookup(int rootfd, struct pkgdb_query *q)
{
	struct claim *claims = calloc(q->n ? q->n : 1, sizeof(*claims));
	_cleanup_(pkgdb_text_release) struct pkgdb_text t = { 0 };
	_cleanup_(strv_freep) char **lists = NULL;
	_cleanup_close_ int fd = -1;
	int r = 0;

	if (!claims)
		return -ENOMEM;
	fd = resolve_open(rootfd, INFO, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || dirlist(fd, "*.list", 0, &lists) < 0) {
		claims_free(claims, q->n);
		return 0;
	}
	for (size_t k = 0; r == 0 && lists[k]; k++)
		r = read_list(fd, lists[k], q, claims, &t);
	if (r == 0)
		r = read_status(rootfd, q, claims, &t);
	/* A package the status file does not list (or no status file) still owns its files. */
	for (size_t i = 0; r == 0 && i < q->n; i++)
		if (claims[i].base && !q->want[i].entry->package)
			r = pkgdb_query_own(q, i, claims[i].name, NULL) < 0 ? -ENOMEM : 0;
	if (r == 0)
		r = read_md5sums(fd, q, claims, &t);
	claims_free(claims, q->n);
	return r;
}
