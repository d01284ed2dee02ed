/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rpm: the sqlite database (rpmdb.sqlite, rpm >= 4.16) of
 * usr/lib/sysimage/rpm or var/lib/rpm.
 *
 * librpm's own database layer is not used: opened read-only it still creates
 * the -wal and -shm files of sqlite next to the database, which would change
 * the image.  Instead the file is opened beneath the root (no symbolic link),
 * and sqlite reads it through /proc/self/fd/N with immutable=1, which takes
 * no lock and creates nothing.  The index table Basenames gives the packages
 * that have a file of a base name; each package's header (the Packages
 * table's blob) is parsed by librpm's headerImport(), which checks it.
 *
 * Digests: RPMTAG_FILEDIGESTS in the algorithm RPMTAG_FILEDIGESTALGO names
 * (PGPHASHALGO_*: SHA-256 by default since rpm 4.14), MD5 when the tag is
 * absent.  Versions: [EPOCH:]VERSION-RELEASE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "pkgdb-backend.h"

#ifdef HAVE_RPMDB
#include <sqlite3.h>
#include <rpm/header.h>
#include <rpm/rpmpgp.h>
#include <rpm/rpmtag.h>
#include <rpm/rpmtd.h>
#endif

#include "common.h"

#ifndef HAVE_RPMDB

bool pkgdb_rpm_supported(void)
{
	return false;
}

int pkgdb_rpm_lookup(int rootfd, int dbdirfd, struct pkgdb_query *q)
{
	(void)rootfd, (void)dbdirfd, (void)q;
	return 0;
}

#else

/* A header blob larger than this is damaged (rpm's own limit is 256 MiB for
 * the whole header; real ones are below a few MiB). */
#define BLOB_MAX (64u << 20)

bool pkgdb_rpm_supported(void)
{
	return true;
}

static enum hash_algo algo_of(uint32_t pgp)
{
	switch (pgp) {
	case PGPHASHALGO_MD5: return HASH_MD5;
	case PGPHASHALGO_SHA1: return HASH_SHA1;
	case PGPHASHALGO_SHA256: return HASH_SHA256;
	case PGPHASHALGO_SHA384: return HASH_SHA384;
	case PGPHASHALGO_SHA512: return HASH_SHA512;
	default: return HASH_NONE;
	}
}

/* The @idx-th entry of a string array tag, or NULL. */
static const char *str_at(Header h, rpmTagVal tag, uint32_t idx, rpmtd td)
{
	const char *s = NULL;

	if (!headerGet(h, tag, td, HEADERGET_MINMEM))
		return NULL;
	if (rpmtdSetIndex(td, (int)idx) >= 0)
		s = rpmtdGetString(td);
	rpmtdFreeData(td);
	return s;
}

/* The directory of file @idx in @h: DIRNAMES[DIRINDEXES[idx]]. */
static const char *dir_of(Header h, uint32_t idx, rpmtd td)
{
	const uint32_t *di;
	uint32_t d;

	if (!headerGet(h, RPMTAG_DIRINDEXES, td, HEADERGET_MINMEM))
		return NULL;
	if (rpmtdSetIndex(td, (int)idx) < 0 || !(di = rpmtdGetUint32(td))) {
		rpmtdFreeData(td);
		return NULL;
	}
	d = *di;
	rpmtdFreeData(td);
	return str_at(h, RPMTAG_DIRNAMES, d, td);
}

/* Package @h has the wanted path @i at file index @idx: record it. */
static int record(struct pkgdb_query *q, size_t i, Header h, uint32_t idx)
{
	rpmtd td = rpmtdNew();
	_cleanup_free_ char *evr = NULL;
	const char *name = headerGetString(h, RPMTAG_NAME), *digest;
	enum hash_algo algo = HASH_MD5;
	int r;

	if (!td)
		return -ENOMEM;
	if (!name) {
		rpmtdFree(td);
		return 0;
	}
	evr = headerGetAsString(h, RPMTAG_EVR);
	r = pkgdb_query_own(q, i, name, evr);
	if (r > 0 && headerGet(h, RPMTAG_FILEDIGESTALGO, td, HEADERGET_MINMEM)) {
		const uint32_t *a = rpmtdGetUint32(td);
		algo = a ? algo_of(*a) : HASH_NONE;
		rpmtdFreeData(td);
	}
	if (r > 0 && algo != HASH_NONE && (digest = str_at(h, RPMTAG_FILEDIGESTS, idx, td)) && *digest)
		r = pkgdb_query_digest(q, i, algo, digest, strlen(digest));
	rpmtdFree(td);
	return r < 0 ? r : 0;
}

/* Is file @idx of the package in blob @blob the wanted path @i?  Record it if so. */
static int check_blob(struct pkgdb_query *q, size_t i, const void *blob, int len, uint32_t idx)
{
	Header h;
	rpmtd td;
	const char *dir, *base;
	const struct pkgdb_want *w = &q->want[i];
	int r = 0;

	if (len <= 0 || (unsigned)len > BLOB_MAX)
		return 0;
	h = headerImport((void *)(uintptr_t)blob, (unsigned)len, HEADERIMPORT_COPY);
	if (!h)
		return 0;   /* damaged: skipped */
	td = rpmtdNew();
	if (!td) {
		headerFree(h);
		return -ENOMEM;
	}
	dir = dir_of(h, idx, td);
	base = dir ? str_at(h, RPMTAG_BASENAMES, idx, td) : NULL;
	if (dir && base) {
		_cleanup_free_ char *full = NULL;
		if (asprintf(&full, "%s%s", dir, base) < 0) {
			full = NULL;
			r = -ENOMEM;
		} else if (s2c_streq(full, w->path) || (w->alias && s2c_streq(full, w->alias))) {
			r = record(q, i, h, idx);
		}
	}
	rpmtdFree(td);
	headerFree(h);
	return r;
}

static void finalize(sqlite3_stmt **s)
{
	if (*s)
		(void)sqlite3_finalize(*s);
}

static void close_db(sqlite3 **db)
{
	if (*db)
		(void)sqlite3_close_v2(*db);
}

int pkgdb_rpm_lookup(int rootfd, int dbdirfd, struct pkgdb_query *q)
{
	_cleanup_close_ int fd = -1;
	_cleanup_(close_db) sqlite3 *db = NULL;
	_cleanup_(finalize) sqlite3_stmt *names = NULL, *blobs = NULL;
	char uri[64];
	struct stat st;
	int r = 0, rc;

	(void)rootfd;
	fd = openat(dbdirfd, "rpmdb.sqlite", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	(void)snprintf(uri, sizeof(uri), "file:/proc/self/fd/%d?immutable=1", fd);
	rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
			     NULL);
	if (rc == SQLITE_NOMEM)
		return -ENOMEM;
	if (rc != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT hnum, idx FROM Basenames WHERE key = ?1", -1, &names,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT blob FROM Packages WHERE hnum = ?1", -1, &blobs,
			       NULL) != SQLITE_OK)
		return 0;   /* not an rpm database: nothing known */
	for (size_t i = 0; i < q->n && r == 0; i++)
		for (int k = 0; k < 2 && r == 0 && !q->want[i].entry->package; k++) {
			const char *p = k ? q->want[i].alias : q->want[i].path;
			const char *base = p ? strrchr(p, '/') : NULL;

			if (!base)
				continue;
			(void)sqlite3_reset(names);
			if (sqlite3_bind_text(names, 1, base + 1, -1, SQLITE_STATIC) != SQLITE_OK)
				break;
			while (r == 0 && !q->want[i].entry->package &&
			       (rc = sqlite3_step(names)) == SQLITE_ROW) {
				sqlite3_int64 hnum = sqlite3_column_int64(names, 0);
				sqlite3_int64 idx = sqlite3_column_int64(names, 1);

				if (idx < 0 || idx > UINT32_MAX)
					continue;
				(void)sqlite3_reset(blobs);
				if (sqlite3_bind_int64(blobs, 1, hnum) != SQLITE_OK)
					break;
				if (sqlite3_step(blobs) == SQLITE_ROW)
					r = check_blob(q, i, sqlite3_column_blob(blobs, 0),
						       sqlite3_column_bytes(blobs, 0), (uint32_t)idx);
			}
			if (rc == SQLITE_NOMEM)
				r = -ENOMEM;
		}
	return r;
}

#endif /* HAVE_RPMDB */
