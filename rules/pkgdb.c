/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkgdb.h"
#include "pkgdb-backend.h"
#include "resolve.h"
#include "strtable.h"
#include "util.h"
#include "common.h"

static const char *const format_names[_PKGDB_FORMAT_MAX] = { "dpkg", "rpm", "apk", "pacman" };

DEFINE_STRING_TABLE_TO_NAME(pkgdb_format_name, enum pkgdb_format, format_names, "invalid")

void pkgdb_entry_release(struct pkgdb_entry *e)
{
	free(e->package);
	free(e->version);
	free(e->digest);
	memset(e, 0, sizeof(*e));
}

struct pkgdb {
	int rootfd;
	enum pkgdb_format found[_PKGDB_FORMAT_MAX];
	size_t n;
	int rpm_dirfd;               /* the rpm database's directory, or -1 */
	char *problem;
	unsigned lookups;            /* made so far: the second makes the indexes */
	struct pkgdb_dpkg_index *dpkg_index;
	struct pkgdb_pacman_index *pacman_index;
};

struct pkgdb *pkgdb_free(struct pkgdb *db)
{
	if (!db)
		return NULL;
	if (db->rpm_dirfd >= 0)
		(void)close(db->rpm_dirfd);
	free(db->problem);
	pkgdb_dpkg_index_free(db->dpkg_index);
	pkgdb_pacman_index_free(db->pacman_index);
	free(db);
	return NULL;
}

static void pkgdb_freep(struct pkgdb **db)
{
	pkgdb_free(*db);
}

size_t pkgdb_count(const struct pkgdb *db)
{
	return db->n;
}

enum pkgdb_format pkgdb_format_of(const struct pkgdb *db, size_t i)
{
	return db->found[i];
}

const char *pkgdb_problem(const struct pkgdb *db)
{
	return db->problem;
}

/* True when @path under the root is a directory (no symlink followed). */
static bool is_dir(int rootfd, const char *path)
{
	int fd = resolve_open(rootfd, path, O_PATH | O_DIRECTORY);

	if (fd < 0)
		return false;
	(void)close(fd);
	return true;
}

static bool is_file_at(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

static bool is_file(int rootfd, const char *path)
{
	int fd = resolve_open(rootfd, path, O_PATH);
	struct stat st;
	bool ok;

	if (fd < 0)
		return false;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	(void)close(fd);
	return ok;
}

/* Fedora keeps the database in /usr/lib/sysimage/rpm, with /var/lib/rpm a
 * symbolic link to it; older systems have /var/lib/rpm itself. */
static int find_rpm(struct pkgdb *db)
{
	static const char *const dirs[] = { "/usr/lib/sysimage/rpm", "/var/lib/rpm" };

	for (size_t i = 0; i < S2C_ELEMENTSOF(dirs); i++) {
		_cleanup_close_ int fd = resolve_open(db->rootfd, dirs[i], O_PATH | O_DIRECTORY);
		const char *what = NULL;

		if (fd < 0)
			continue;
		if (is_file_at(fd, "rpmdb.sqlite")) {
			if (!pkgdb_rpm_supported()) {
				what = "this build of suid2cap reads no rpm database (built without "
				       "librpm and sqlite3)";
			} else {
				db->rpm_dirfd = TAKE_FD(fd);
				db->found[db->n++] = PKGDB_RPM;
				return 0;
			}
		} else if (is_file_at(fd, "Packages.db")) {
			what = "the rpm database is in the ndb format (Packages.db), which suid2cap "
			       "does not read; 'rpmdb --rebuilddb' with %_db_backend sqlite converts it";
		} else if (is_file_at(fd, "Packages")) {
			what = "the rpm database is in the Berkeley DB format (Packages), which "
			       "suid2cap does not read; 'rpmdb --rebuilddb' with %_db_backend sqlite "
			       "converts it";
		} else {
			continue;
		}
		if (!db->problem && asprintf(&db->problem, "%s: %s", dirs[i], what) < 0) {
			db->problem = NULL;
			return -ENOMEM;
		}
		return 0;
	}
	return 0;
}

int pkgdb_open(int rootfd, struct pkgdb **ret)
{
	_cleanup_(pkgdb_freep) struct pkgdb *db = calloc(1, sizeof(*db));
	int r;

	if (!db)
		return -ENOMEM;
	db->rootfd = rootfd;
	db->rpm_dirfd = -1;
	if (is_dir(rootfd, "/var/lib/dpkg/info"))
		db->found[db->n++] = PKGDB_DPKG;
	r = find_rpm(db);
	if (r < 0)
		return r;
	if (is_file(rootfd, "/lib/apk/db/installed") || is_file(rootfd, "/usr/lib/apk/db/installed"))
		db->found[db->n++] = PKGDB_APK;
	if (is_dir(rootfd, "/var/lib/pacman/local"))
		db->found[db->n++] = PKGDB_PACMAN;
	*ret = TAKE_PTR(db);
	return 0;
}

/* --- the query --------------------------------------------------------------------- */

/* /usr/bin/x <-> /bin/x and the like, for merged-/usr systems: 0 with the
 * alias or NULL in @ret, or -ENOMEM. */
static int usrmerge_alias(const char *path, char **ret)
{
	static const char *const dirs[] = { "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/",
					    "/libx32/" };

	*ret = NULL;
	for (size_t i = 0; i < S2C_ELEMENTSOF(dirs); i++) {
		size_t n = strlen(dirs[i]);
		if (strncmp(path, dirs[i], n) == 0)
			return asprintf(ret, "/usr%s", path) < 0 ? (*ret = NULL, -ENOMEM) : 0;
		if (strncmp(path, "/usr", 4) == 0 && strncmp(path + 4, dirs[i], n) == 0)
			return (*ret = strdup(path + 4)) ? 0 : -ENOMEM;
	}
	return 0;
}

/* FNV-1a over @len bytes, with an implied leading slash when @slash. */
uint64_t pkgdb_path_hash(const char *s, size_t len, bool slash)
{
	uint64_t h = 1469598103934665603ULL;

	if (slash)
		h = (h ^ (unsigned char)'/') * 1099511628211ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/*
 * A database lists every file of every package, a query asks for a few: a
 * bit per length and last two bytes of the wanted paths (@slash as in
 * pkgdb_path_hash()) turns most lines away before they are hashed.  Returns the
 * bit, or -1 for paths too short to tell.
 */
static long quick_key(const char *s, size_t len, bool slash)
{
	size_t n = len + slash;
	unsigned last, prev;

	if (n < 2)
		return -1;
	last = (unsigned char)s[len - 1];
	prev = len >= 2 ? (unsigned char)s[len - 2] : '/';
	return (long)((n * 2654435761u ^ last * 131u ^ prev * 7u) & 4095u);
}

static bool maybe_wanted(const struct pkgdb_query *q, const char *path, size_t len, bool slash)
{
	long k = quick_key(path, len, slash);

	return k < 0 || (q->seen[k / 64] >> (k % 64) & 1);
}

static bool same_path(const char *want, const char *path, size_t len, bool slash)
{
	if (slash) {
		if (want[0] != '/')
			return false;
		want++;
	}
	return strlen(want) == len && memcmp(want, path, len) == 0;
}

long pkgdb_query_find(const struct pkgdb_query *q, const char *path, size_t len, bool slash)
{
	long alias = -1;

	if (!q->table || !maybe_wanted(q, path, len, slash))
		return -1;
	for (size_t b = (size_t)pkgdb_path_hash(path, len, slash) & q->mask; q->table[b];
	     b = (b + 1) & q->mask) {
		const struct pkgdb_want *w = &q->want[q->table[b] - 1];
		if (same_path(w->path, path, len, slash))
			return (long)(q->table[b] - 1);
		if (alias < 0 && w->alias && same_path(w->alias, path, len, slash))
			alias = (long)(q->table[b] - 1);
	}
	return alias;
}

int pkgdb_query_own(struct pkgdb_query *q, size_t i, const char *package, const char *version)
{
	struct pkgdb_entry *e = q->want[i].entry;

	if (e->package)
		return 0;
	if (!(e->package = strdup(package)))
		return -ENOMEM;
	if (version && !(e->version = strdup(version)))
		return -ENOMEM;
	e->format = q->format;
	return 1;
}

int pkgdb_query_digest(struct pkgdb_query *q, size_t i, enum hash_algo algo, const char *hex,
		       size_t len)
{
	struct pkgdb_entry *e = q->want[i].entry;
	char *d;

	if (len != hash_algo_hex_len(algo) || strspn(hex, "0123456789abcdefABCDEF") < len)
		return 0;
	d = strndup(hex, len);
	if (!d)
		return -ENOMEM;
	for (char *p = d; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	free(e->digest);
	e->digest = d;
	e->algo = algo;
	return 0;
}

/* --- the index of a database's paths ------------------------------------------------- */

#define UNIT_MASK ((uint64_t)PKGDB_PATHINDEX_UNITS - 1)

int pkgdb_pathindex_add(struct pkgdb_pathindex *x, const char *path, size_t len, bool slash,
			size_t unit)
{
	if (S2C_ARRAY_RESERVE(x->keys, x->alloc, x->n + 1, 4096) < 0)
		return -ENOMEM;
	x->keys[x->n++] = (pkgdb_path_hash(path, len, slash) & ~UNIT_MASK) | (unit & UNIT_MASK);
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void pkgdb_pathindex_seal(struct pkgdb_pathindex *x)
{
	if (x->n)
		qsort(x->keys, x->n, sizeof(*x->keys), cmp_key);
}

/* Set the bit of every unit that may name @path. */
static void mark_path(const struct pkgdb_pathindex *x, const char *path, uint64_t *mark)
{
	uint64_t h;
	size_t lo = 0, hi = x->n;

	if (!path)
		return;
	h = pkgdb_path_hash(path, strlen(path), false) & ~UNIT_MASK;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->keys[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x->n && (x->keys[lo] & ~UNIT_MASK) == h; lo++) {
		size_t unit = (size_t)(x->keys[lo] & UNIT_MASK);
		mark[unit / 64] |= UINT64_C(1) << (unit % 64);
	}
}

int pkgdb_pathindex_mark(const struct pkgdb_pathindex *x, size_t units,
			 const struct pkgdb_query *q, uint64_t **ret)
{
	uint64_t *mark = calloc(units / 64 + 1, sizeof(*mark));

	if (!mark)
		return -ENOMEM;
	for (size_t i = 0; i < q->n; i++) {
		mark_path(x, q->want[i].path, mark);
		mark_path(x, q->want[i].alias, mark);
	}
	*ret = mark;
	return 0;
}

void pkgdb_pathindex_release(struct pkgdb_pathindex *x)
{
	free(x->keys);
	*x = (struct pkgdb_pathindex){ 0 };
}

static void text_close(struct pkgdb_text *t)
{
	if (t->open)
		(void)close(t->fd);
	t->open = false;
}

int pkgdb_text_open(int fd, struct pkgdb_text *t)
{
	text_close(t);
	t->len = t->off = t->scanned = t->total = 0;
	t->error = 0;
	if (fd < 0)
		return fd;
	t->fd = fd;
	t->open = true;
	return 0;
}

/* Read more of the file after the line begun at t->off, moving it to the front and
 * growing the buffer when the line fills it.  Returns 0, or -errno: reading ended. */
static int text_fill(struct pkgdb_text *t)
{
	ssize_t n;

	if (t->off) {
		memmove(t->buf, t->buf + t->off, t->len - t->off);
		t->len -= t->off;
		t->off = 0;
	}
	if (t->len == t->size) {
		size_t grown = t->size ? 2 * t->size : (size_t)65536;
		char *nb;
		if (grown > PKGDB_TEXT_MAX)
			return -EFBIG;
		nb = realloc(t->buf, grown + 1);
		if (!nb)
			return -ENOMEM;
		t->buf = nb;
		t->size = grown;
	}
	do
		n = read(t->fd, t->buf + t->len, t->size - t->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0) {
		text_close(t);
		return 0;
	}
	t->total += (size_t)n;
	t->len += (size_t)n;
	return t->total > PKGDB_TEXT_MAX ? -EFBIG : 0;
}

char *pkgdb_text_line(struct pkgdb_text *t, size_t *ret_len)
{
	for (;;) {
		size_t left = t->len - t->off;
		char *line = left ? t->buf + t->off : NULL;
		char *nl = left > t->scanned ? memchr(line + t->scanned, '\n', left - t->scanned)
					     : NULL;
		int r;

		if (!nl && t->open) {
			t->scanned = left;
			r = text_fill(t);
			if (r < 0) {
				/* the lines read were the file's; what is left of one is not a line */
				text_close(t);
				t->error = r;
				t->off = t->len = t->scanned = 0;
			}
			continue;
		}
		if (!left)
			return NULL;
		*ret_len = nl ? (size_t)(nl - line) : left;
		line[*ret_len] = '\0';      /* the newline, or the spare byte after the file */
		t->off += *ret_len + !!nl;
		t->scanned = 0;
		return line;
	}
}

void pkgdb_text_release(struct pkgdb_text *t)
{
	text_close(t);
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

static void query_release(struct pkgdb_query *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->want[i].alias);
	free(q->want);
	free(q->table);
}

static int query_init(struct pkgdb_query *q, const char *const *paths, size_t n,
		      struct pkgdb_entry *ret)
{
	size_t mask = 15;

	memset(q, 0, sizeof(*q));
	q->want = calloc(n ? n : 1, sizeof(*q->want));
	if (!q->want)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		q->want[i].path = paths[i];
		q->want[i].entry = &ret[i];
		q->n = i + 1;
		if (usrmerge_alias(paths[i], &q->want[i].alias) < 0)
			return -ENOMEM;
	}
	while (mask + 1 < 4 * (n + 1))
		mask = mask * 2 + 1;
	q->mask = mask;
	q->table = calloc(mask + 1, sizeof(*q->table));
	if (!q->table)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 2; k++) {
			const char *p = k ? q->want[i].alias : q->want[i].path;
			size_t b;
			long bit;
			if (!p)
				continue;
			bit = quick_key(p, strlen(p), false);
			if (bit >= 0)
				q->seen[bit / 64] |= 1ULL << (bit % 64);
			b = (size_t)pkgdb_path_hash(p, strlen(p), false) & mask;
			while (q->table[b])
				b = (b + 1) & mask;
			q->table[b] = i + 1;
		}
	return 0;
}

int pkgdb_lookup(struct pkgdb *db, const char *const *paths, size_t n, struct pkgdb_entry *ret)
{
	struct pkgdb_query q;
	int r;

	if (!db->n || !n)
		return 0;
	r = query_init(&q, paths, n, ret);
	db->lookups++;
	for (size_t i = 0; i < db->n && r == 0; i++) {
		q.format = db->found[i];
		switch (db->found[i]) {
		case PKGDB_DPKG:
			/* one lookup reads the lists; a second indexes them for the rest */
			r = pkgdb_dpkg_lookup(db->rootfd, &q, &db->dpkg_index, db->lookups == 2);
			break;
		case PKGDB_RPM: r = pkgdb_rpm_lookup(db->rootfd, db->rpm_dirfd, &q); break;
		case PKGDB_APK: r = pkgdb_apk_lookup(db->rootfd, &q); break;
		case PKGDB_PACMAN:
			r = pkgdb_pacman_lookup(db->rootfd, &q, &db->pacman_index,
						db->lookups == 2);
			break;
		default: break;
		}
	}
	query_release(&q);
	return r;
}

/* --- versions ------------------------------------------------------------------------ */

char *pkgdb_upstream_version(const char *version)
{
	const char *colon = strchr(version, ':'), *start = version, *dash;

	/* an epoch is digits before the first colon */
	if (colon && colon > version && strspn(version, "0123456789") == (size_t)(colon - version))
		start = colon + 1;
	dash = strrchr(start, '-');
	return strndup(start, dash && dash > start ? (size_t)(dash - start) : strlen(start));
}

int pkgdb_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		if (*a == '~' || *b == '~') {
			if (*a != *b)
				return *a == '~' ? -1 : 1;
			a++, b++;
			continue;
		}
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			size_t la, lb;
			int c;
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			la = strspn(a, "0123456789");
			lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			c = strncmp(a, b, la);
			if (c)
				return c < 0 ? -1 : 1;
			a += la, b += lb;
			continue;
		}
		/* a number is newer than a separator or the end: 1.4.1 > 1.4 */
		if (isdigit((unsigned char)*a) != isdigit((unsigned char)*b)) {
			if (!*a || !*b)
				return *a ? 1 : -1;
			return isdigit((unsigned char)*a) ? 1 : -1;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++, b++;
	}
	return 0;
}
