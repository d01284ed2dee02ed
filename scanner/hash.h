/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SHA-256 of files, through OpenSSL's libcrypto (never hand-rolled).
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

/** Hash @len bytes at @data. Returns 0 or -ENOMEM/-EIO. */
int hash_mem_sha256(const void *data, size_t len, char hex[static HASH_HEX_LEN]);

#endif /* S2C_SCANNER_HASH_H */
