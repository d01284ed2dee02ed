/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SHA-256 (and, for dpkg's md5sums, MD5) of files, through OpenSSL's libcrypto
 * (never hand-rolled).
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

/** Hash @len bytes at @data. Returns 0 or -ENOMEM/-EIO. */
int hash_mem_sha256(const void *data, size_t len, char hex[static HASH_HEX_LEN]);

#endif /* S2C_SCANNER_HASH_H */
