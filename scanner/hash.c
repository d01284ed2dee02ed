/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

static const EVP_MD *algo_md(enum hash_algo a)
{
	switch (a) {
	case HASH_MD5: return EVP_md5();
	case HASH_SHA1: return EVP_sha1();
	case HASH_SHA256: return EVP_sha256();
	case HASH_SHA384: return EVP_sha384();
	case HASH_SHA512: return EVP_sha512();
	default: return NULL;
	}
}

int hash_fd_algo(int fd, enum hash_algo a, char hex[static HASH_ANY_HEX_LEN])
{
	const EVP_MD *md = algo_md(a);

	return md ? hash_fd(fd, md, hex) : -EINVAL;
}

enum hash_algo hash_algo_from_name(const char *name)
{
	for (unsigned a = HASH_NONE + 1; a < _HASH_ALGO_MAX; a++)
		if (s2c_streq(algos[a].name, name))
			return (enum hash_algo)a;
	return HASH_NONE;
}

struct hash_stream {
	EVP_MD_CTX *md;
};

int hash_stream_new(enum hash_algo a, struct hash_stream **ret)
{
	const EVP_MD *type = algo_md(a);
	struct hash_stream *h;

	if (!type)
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->md = EVP_MD_CTX_new();
	if (!h->md || EVP_DigestInit_ex(h->md, type, NULL) != 1) {
		hash_stream_free(h);
		return -ENOMEM;
	}
	*ret = h;
	return 0;
}

int hash_stream_update(struct hash_stream *h, const void *data, size_t len)
{
	return EVP_DigestUpdate(h->md, data, len) == 1 ? 0 : -EIO;
}

int hash_stream_final(struct hash_stream *h, char hex[static HASH_ANY_HEX_LEN])
{
	return finish(h->md, hex);
}

struct hash_stream *hash_stream_free(struct hash_stream *h)
{
	if (h) {
		EVP_MD_CTX_free(h->md);
		free(h);
	}
	return NULL;
}

int hash_mem_sha256(const void *data, size_t len, char hex[static HASH_HEX_LEN])
{
	_cleanup_(md_freep) EVP_MD_CTX *md = EVP_MD_CTX_new();

	if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(md, data, len) != 1)
		return -ENOMEM;
	return finish(md, hex);
}
