/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SHA-256 (and, for the digests package databases record, MD5, SHA-1 and SHA-2)
 * of files, through Nettle (never hand-rolled): a small library, where OpenSSL's
 * libcrypto would add megabytes of mapped pages to every audit.
 */
#ifndef S2C_SCANNER_HASH_H
#define S2C_SCANNER_HASH_H

#include <stddef.h>

/** Hex digest length plus NUL. */
#define HASH_HEX_LEN 65

/**
 * Hash the whole content of the open file @fd from offset 0 (pread, so the
 * file offset is untouched) into @hex (lowercase, NUL-terminated).
 * Returns 0 or -errno.
 */
int hash_fd_sha256(int fd, char hex[static HASH_HEX_LEN]);

/** MD5 hex digest length plus NUL (dpkg's md5sums files use MD5). */
#define HASH_MD5_HEX_LEN 33

/**
 * MD5 of the whole content of @fd, as dpkg records it in md5sums files: only
 * to recognise a package's own content, never as a security boundary (the
 * SHA-256 is what identifies content everywhere else).  Returns 0 or -errno.
 */
int hash_fd_md5(int fd, char hex[static HASH_MD5_HEX_LEN]);

/** Digest algorithms package databases record for their files. */
enum hash_algo {
	HASH_NONE,            /**< no digest */
	HASH_MD5,             /**< dpkg md5sums, old rpm, apk's hex checksums */
	HASH_SHA1,            /**< apk's "Q1" checksums */
	HASH_SHA256,          /**< rpm (default since 4.14), pacman mtree, apk "Q2" */
	HASH_SHA384,
	HASH_SHA512,
	_HASH_ALGO_MAX,
};

/** Longest hex digest of any algorithm, plus NUL (SHA-512). */
#define HASH_ANY_HEX_LEN 129

/** "md5", "sha1", "sha256", "sha384", "sha512"; "none" for HASH_NONE. */
const char *hash_algo_name(enum hash_algo a);

/** Number of hex digits of a digest of @a (0 for HASH_NONE). */
unsigned hash_algo_hex_len(enum hash_algo a);

/**
 * Digest of the whole content of @fd with @a, as hash_fd_sha256() does.
 * Returns 0, -EINVAL for HASH_NONE, or -errno.
 */
int hash_fd_algo(int fd, enum hash_algo a, char hex[static HASH_ANY_HEX_LEN]);

/** The algorithm named @name ("sha256"), or HASH_NONE. */
enum hash_algo hash_algo_from_name(const char *name);

/** A digest computed as data streams past (an image blob while it is read).  Opaque. */
struct hash_stream;

/** A new stream of algorithm @a.  Returns 0, -EINVAL for HASH_NONE, or -ENOMEM. */
int hash_stream_new(enum hash_algo a, struct hash_stream **ret);

/** Hash @len more bytes at @data.  Returns 0 or -EIO. */
int hash_stream_update(struct hash_stream *h, const void *data, size_t len);

/** The digest of everything hashed, lowercase hex; the stream is spent.  Returns 0 or -EIO. */
int hash_stream_final(struct hash_stream *h, char hex[static HASH_ANY_HEX_LEN]);

/** Free; accepts NULL; returns NULL. */
struct hash_stream *hash_stream_free(struct hash_stream *h);

/** Hash @len bytes at @data. Returns 0 or -ENOMEM/-EIO. */
int hash_mem_sha256(const void *data, size_t len, char hex[static HASH_HEX_LEN]);

#endif /* S2C_SCANNER_HASH_H */
