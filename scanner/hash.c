/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <nettle/md5.h>
#include <nettle/nettle-meta.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>

#include "hash.h"
#include "util.h"
#include "common.h"

/* The context of any algorithm of enum hash_algo (SHA-384 uses SHA-512's). */
union hash_ctx {
	struct md5_ctx md5;
	struct sha1_ctx sha1;
	struct sha256_ctx sha256;
	struct sha512_ctx sha512;
};

/* The digest of @algo over everything hashed into @ctx, as lowercase hex into @hex. */
static void finish(const struct nettle_hash *algo, void *ctx, char *hex)
{
	uint8_t digest[SHA512_DIGEST_SIZE];      /* the largest */

	algo->digest(ctx, algo->digest_size, digest);
	hex_encode(digest, algo->digest_size, hex);
}

static int hash_fd(int fd, const struct nettle_hash *algo, char *hex)
{
	union hash_ctx ctx;
	unsigned char buf[64 << 10];
	off_t off = 0;

	algo->init(&ctx);
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		algo->update(&ctx, (size_t)n, buf);
		off += n;
	}
	finish(algo, &ctx, hex);
	return 0;
}

int hash_fd_sha256(int fd, char hex[static HASH_HEX_LEN])
{
	return hash_fd(fd, &nettle_sha256, hex);
}

int hash_fd_md5(int fd, char hex[static HASH_MD5_HEX_LEN])
{
	return hash_fd(fd, &nettle_md5, hex);
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

static const struct nettle_hash *algo_md(enum hash_algo a)
{
	switch (a) {
	case HASH_MD5: return &nettle_md5;
	case HASH_SHA1: return &nettle_sha1;
	case HASH_SHA256: return &nettle_sha256;
	case HASH_SHA384: return &nettle_sha384;
	case HASH_SHA512: return &nettle_sha512;
	default: return NULL;
	}
}

int hash_fd_algo(int fd, enum hash_algo a, char hex[static HASH_ANY_HEX_LEN])
{
	const struct nettle_hash *md = algo_md(a);

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
	const struct nettle_hash *algo;
	union hash_ctx ctx;
};

int hash_stream_new(enum hash_algo a, struct hash_stream **ret)
{
	const struct nettle_hash *algo = algo_md(a);
	struct hash_stream *h;

	if (!algo)
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->algo = algo;
	algo->init(&h->ctx);
	*ret = h;
	return 0;
}

int hash_stream_update(struct hash_stream *h, const void *data, size_t len)
{
	h->algo->update(&h->ctx, len, data);
	return 0;
}

int hash_stream_final(struct hash_stream *h, char hex[static HASH_ANY_HEX_LEN])
{
	finish(h->algo, &h->ctx, hex);
	return 0;
}

struct hash_stream *hash_stream_free(struct hash_stream *h)
{
	free(h);
	return NULL;
}

int hash_mem_sha256(const void *data, size_t len, char hex[static HASH_HEX_LEN])
{
	union hash_ctx ctx;

	nettle_sha256.init(&ctx);
	nettle_sha256.update(&ctx, len, data);
	finish(&nettle_sha256, &ctx, hex);
	return 0;
}
