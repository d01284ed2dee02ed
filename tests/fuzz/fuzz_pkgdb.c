/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the package database readers (rules/pkgdb: dpkg, apk, pacman) with an
 * image's database files, which are as untrusted as the image.
 *
 * The input is a set of files: a line "@@N" starts file N of the table below, and
 * what follows, up to the next such line, is its content.  Every line that starts
 * with '/' is also a path to look up, with a few fixed ones (each once).
 *
 * Checks: the same paths looked up three times, reading every list, making the
 * index, and using it, get the same answers; an answer names its database, and a
 * digest is lowercase hex of its algorithm's length.  Nothing is left behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "hash.h"
#include "pkgdb.h"
#include "rmtree.h"
#include "util.h"

static const char *const files[] = {
	"var/lib/dpkg/status",
	"var/lib/dpkg/info/a.list",
	"var/lib/dpkg/info/b:amd64.list",
	"var/lib/dpkg/info/a.md5sums",
	"lib/apk/db/installed",
	"var/lib/pacman/local/p-1/files",
	"var/lib/pacman/local/p-1/desc",
	"var/lib/dpkg/info/c.list",
};
#define N_FILES (sizeof(files) / sizeof(files[0]))
#define MAX_PATHS 64

static const char *const fixed[] = { "/usr/bin/ping", "/bin/ping", "/usr/bin/su", "/x" };

static void write_file(const char *root, const char *rel, const char *data, size_t len)
{
	char path[4096], *slash;
	int fd;

	(void)snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			abort();
		*slash = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len) || close(fd) < 0)
		abort();
}

/* Whether @path is one of the @n @paths (pkgdb_lookup() takes distinct paths). */
static bool known(char *const *paths, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(paths[i], path) == 0)
			return true;
	return false;
}

/* Write the input's files under @root; collect its paths in @paths. */
static size_t unpack(const char *root, const char *data, size_t size, char **paths)
{
	const char *end = data + size, *line = data, *body = NULL;
	size_t n = 0, file = 0;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *next = nl ? nl + 1 : end;
		size_t len = (size_t)(next - line);

		if (len >= 3 && line[0] == '@' && line[1] == '@' && line[2] >= '0' && line[2] <= '9') {
			if (body)
				write_file(root, files[file], body, (size_t)(line - body));
			file = (size_t)(line[2] - '0') % N_FILES;
			body = next;
		} else if (line[0] == '/' && n < MAX_PATHS) {
			size_t plen = (size_t)((nl ? nl : end) - line);
			char *p = memchr(line, '\0', plen) ? NULL : strndup(line, plen);
			if (p && known(paths, n, p))
				free(p);
			else if (p)
				paths[n++] = p;
		}
		line = next;
	}
	if (body)
		write_file(root, files[file], body, (size_t)(end - body));
	return n;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_entry(const struct pkgdb_entry *e)
{
	if (!e->package && (e->version || e->digest))
		abort();
	if (e->package && e->format != PKGDB_DPKG && e->format != PKGDB_APK &&
	    e->format != PKGDB_PACMAN)
		abort();
	if ((e->digest == NULL) != (e->algo == HASH_NONE))
		abort();
	if (e->digest) {
		if (strlen(e->digest) != hash_algo_hex_len(e->algo))
			abort();
		for (const char *p = e->digest; *p; p++)
			if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char tmpl[] = "/tmp/s2c-fuzz-XXXXXX", *root;
	char *paths[MAX_PATHS + S2C_ELEMENTSOF(fixed)] = { 0 };
	struct pkgdb_entry e[3][S2C_ELEMENTSOF(paths)];
	struct pkgdb *db = NULL;
	size_t n;
	int rootfd;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	if (!(root = mkdtemp(tmpl)))
		abort();
	n = unpack(root, (const char *)data, size, paths);
	for (size_t i = 0; i < S2C_ELEMENTSOF(fixed); i++)
		if (!known(paths, n, fixed[i]) && !(paths[n++] = strdup(fixed[i])))
			abort();
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || pkgdb_open(rootfd, &db) < 0)
		abort();
	memset(e, 0, sizeof(e));
	for (int k = 0; k < 3; k++)
		if (pkgdb_lookup(db, (const char *const *)paths, n, e[k]) < 0)
			abort();
	for (size_t i = 0; i < n; i++) {
		check_entry(&e[0][i]);
		for (int k = 1; k < 3; k++)
			if (!same(e[0][i].package, e[k][i].package) ||
			    !same(e[0][i].version, e[k][i].version) ||
			    !same(e[0][i].digest, e[k][i].digest) || e[0][i].algo != e[k][i].algo ||
			    (e[0][i].package && e[0][i].format != e[k][i].format))
				abort();
		for (int k = 0; k < 3; k++)
			pkgdb_entry_release(&e[k][i]);
		free(paths[i]);
	}
	pkgdb_free(db);
	(void)close(rootfd);
	if (rmtree_at(AT_FDCWD, root, 16) < 0)
		abort();
	return 0;
}
