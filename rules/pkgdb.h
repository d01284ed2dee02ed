/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target's package databases: which package owns a file, at which
 * version, and the digest the package recorded for the file's content.
 *
 * Every database is read beneath the target's root without following a
 * symbolic link, read-only, and never changed (not even a lock or journal
 * file is created).  Four formats are read, each by its own backend:
 *
 *   dpkg    var/lib/dpkg: info/PKG[:ARCH].list for owners, status for
 *           versions, info/PKG[:ARCH].md5sums for digests (MD5);
 *   rpm     usr/lib/sysimage/rpm or var/lib/rpm: the sqlite database
 *           (rpmdb.sqlite), opened immutable, headers parsed by librpm;
 *           digests are RPMTAG_FILEDIGESTS in RPMTAG_FILEDIGESTALGO (SHA-256
 *           since rpm 4.14, MD5 before);
 *   apk     lib/apk/db/installed: P: V: F: R: Z: records; Z: is "Q1" and
 *           base64 SHA-1 (apk-tools 2), "Q2" and base64 SHA-256, or 32 hex
 *           digits of MD5;
 *   pacman  var/lib/pacman/local/NAME-VERSION/{desc,files,mtree}: owners
 *           from files, versions from desc, digests from the gzip-compressed
 *           mtree (sha256digest).
 *
 * A root may hold several of them (a Debian host with an rpm database): each
 * is asked in that order for the files the earlier ones do not own.  Paths
 * are compared with their merged-/usr alias too (/bin/ping and
 * /usr/bin/ping).
 *
 * A run that looks up more than once (an audit decides its files in batches)
 * pays for reading every dpkg list or pacman package once more, on its second
 * lookup, to index which of them may name each path; the lookups after it
 * read only those, and answer as the database was when the index was made.
 * rpm's database has an index of its own, apk's is one file.
 */
#ifndef S2C_RULES_PKGDB_H
#define S2C_RULES_PKGDB_H

#include <stdbool.h>
#include <stddef.h>

#include "hash.h"

struct s2c_error;

/** The formats read. */
enum pkgdb_format {
	PKGDB_DPKG,
	PKGDB_RPM,
	PKGDB_APK,
	PKGDB_PACMAN,
	_PKGDB_FORMAT_MAX,
};

/** "dpkg", "rpm", "apk", "pacman". */
const char *pkgdb_format_name(enum pkgdb_format f);

/** What a package database says about one file.  All strings owned. */
struct pkgdb_entry {
	char *package;               /**< owning package, NULL when none owns the file */
	char *version;               /**< its version as the database spells it
					  ("1:4.13+dfsg1-1", "20240905-1.fc41"), or NULL */
	enum hash_algo algo;         /**< algorithm of @digest, HASH_NONE when none recorded */
	char *digest;                /**< lowercase hex digest of the file's content, or NULL */
	enum pkgdb_format format;    /**< which database answered (when @package is set) */
};

/** Free the strings of @e and reset it. */
void pkgdb_entry_release(struct pkgdb_entry *e);

/** The databases found under a root. */
struct pkgdb;

/**
 * Find the package databases under @rootfd (borrowed, an O_PATH directory
 * fd; it must outlive the result).  Finding none is not an error.
 * @ret  a new object, free with pkgdb_free().
 * Returns 0 or -ENOMEM.
 */
int pkgdb_open(int rootfd, struct pkgdb **ret);

/** Free; accepts NULL; returns NULL. */
struct pkgdb *pkgdb_free(struct pkgdb *db);

/** Number of databases found. */
size_t pkgdb_count(const struct pkgdb *db);

/** Format of the @i-th database found. */
enum pkgdb_format pkgdb_format_of(const struct pkgdb *db, size_t i);

/**
 * A database that exists but cannot be read by this build or is damaged, as
 * a sentence ("the rpm database is in the Berkeley DB format ..."), or NULL.
 * Borrowed; valid until pkgdb_free().
 */
const char *pkgdb_problem(const struct pkgdb *db);

/**
 * Look up the @n distinct absolute paths @paths in one pass over each database
 * and fill @ret (@n entries, which must be zeroed; entries already owned are left
 * alone).  A damaged database entry is skipped, not an error.
 * Returns 0 or -ENOMEM.
 */
int pkgdb_lookup(struct pkgdb *db, const char *const *paths, size_t n, struct pkgdb_entry *ret);

/**
 * The upstream part of a package version, for comparing with a program's
 * version: the epoch ("1:") and the packaging revision (the last "-…":
 * Debian revision, rpm release, apk "-rN", pacman pkgrel) removed.
 * Returns a new string or NULL (ENOMEM).
 */
char *pkgdb_upstream_version(const char *version);

/**
 * Compare two versions component by component: runs of digits numerically,
 * anything else byte by byte, a "~" before anything (as dpkg and rpm do).
 * Returns <0, 0 or >0.
 */
int pkgdb_version_cmp(const char *a, const char *b);

#endif /* S2C_RULES_PKGDB_H */
