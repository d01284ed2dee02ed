/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include <openssl/evp.h>

#include "hash.h"
#include "util.h"
#include "common.h"

static void md_freep(EVP_MD_CTX **md)
{
	EVP_MD_CTX_free(*md);
}

/* The digest as lowercase hex into @hex (2 * the digest size + 1 bytes). */
static int finish(EVP_MD_CTX *md, char *hex)
{
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned len = 0;

	if (EVP_DigestFinal_ex(md, digest, &len) != 1 ||
	    len != (unsigned)EVP_MD_CTX_get_size(md))
		return -EIO;
	hex_encode(digest, len, hex);
	return 0;
}

static int hash_fd(int fd, const EVP_MD *type, char *hex)
{
	_cleanup_(md_freep) EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char buf[64 << 10];
	off_t off = 0;

	if (!md || EVP_DigestInit_ex(md, type, NULL) != 1)
		return -ENOMEM;
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		if (EVP_DigestUpdate(md, buf, (size_t)n) != 1)
			return -EIO;
		off += n;
	}
	return finish(md, hex);
}

int hash_fd_sha256(int fd, char hex[static HASH_HEX_LEN])
{
	return hash_fd(fd, EVP_sha256(), hex);
}

int hash_fd_md5(int fd, char hex[static HASH_MD5_HEX_LEN])
{
	return hash_fd(fd, EVP_md5(), hex);
}

static const struct {
	const char *name;
	unsigned hex;
} algos[_HASH_ALGO_MAX] = {
	[HASH_NONE] = { "none", 0 },     [HASH_MD5] = { "md5", 32 },
	[HASH_SHA1] = { "sha1", 40 },     [HASH_SHA256] = { "sha256", 64 },
	[HASH_SHA384] = { "sha384", 96 }, [HASH_SHA512] = { "sha512", 128 },
};

const char *hash_algo_name(enum hash_algo a)
{
	return (unsigned)a < _HASH_ALGO_MAX ? algos[a].name : "invalid";
}

unsigned hash_algo_hex_len(enum hash_algo a)
{
	return (unsigned)a < _HASH_ALGO_MAX ? algos[a].hex : 0;
}

int hash_fd_algo(int fd, enum hash_algo a, char hex[static HASH_ANY_HEX_LEN])
{
	switch (a) {
	case HASH_MD5: return hash_fd(fd, EVP_md5(), hex);
	case HASH_SHA1: return hash_fd(fd, EVP_sha1(), hex);
	case HASH_SHA256: return hash_fd(fd, EVP_sha256(), hex);
	case HASH_SHA384: return hash_fd(fd, EVP_sha384(), hex);
	case HASH_SHA512: return hash_fd(fd, EVP_sha512(), hex);
	default: return -EINVAL;
	}
}

int hash_mem_sha256(const void *data, size_t len, char hex[static HASH_HEX_LEN])
{
	_cleanup_(md_freep) EVP_MD_CTX *md = EVP_MD_CTX_new();

	if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(md, data, len) != 1)
		return -ENOMEM;
	return finish(md, hex);
}
