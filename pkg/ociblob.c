/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Image blobs read once and checked against their digests while they
 * stream: the stored bytes, and a layer's decompressed tar.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <archive.h>
#include <archive_entry.h>

#include "arread.h"
#include "hash.h"
#include "ociblob.h"
#include "common.h"

/* "sha256:<hex>": the algorithm, checked to be one we compute and the hex to fit it. */
static int digest_algo(const char *digest, enum hash_algo *ret, struct s2c_error *err)
{
	const char *colon = strchr(digest, ':');
	char name[16];
	enum hash_algo a;

	if (!colon || (size_t)(colon - digest) >= sizeof(name))
		return s2c_error_set(err, -EBADMSG, "'%.80s' is not a digest", digest);
	memcpy(name, digest, (size_t)(colon - digest));
	name[colon - digest] = '\0';
	a = hash_algo_from_name(name);
	if (a != HASH_SHA256 && a != HASH_SHA384 && a != HASH_SHA512)
		return s2c_error_set(err, -EBADMSG, "digest algorithm '%s' cannot be checked", name);
	if (strlen(colon + 1) != hash_algo_hex_len(a) ||
	    strspn(colon + 1, "0123456789abcdef") != hash_algo_hex_len(a))
		return s2c_error_set(err, -EBADMSG, "'%.80s' is not a %s digest", digest, name);
	*ret = a;
	return 0;
}

static int stream_for(const char *digest, struct hash_stream **h, char **copy,
		      struct s2c_error *err)
{
	enum hash_algo a = HASH_SHA256; /* set by digest_algo() when it returns 0 */
	int r;

	if (!digest)
		return 0;
	r = digest_algo(digest, &a, err);
	if (r < 0)
		return r;
	*copy = strdup(digest);
	if (!*copy)
		return -ENOMEM;
	return hash_stream_new(a, h);
}

/* Compare what @h hashed with @want. */
static int compare(struct hash_stream *h, const char *want, const char *what,
		   struct s2c_error *err)
{
	char hex[HASH_ANY_HEX_LEN];
	int r;

	if (!h)
		return 0;
	r = hash_stream_final(h, hex);
	if (r < 0)
		return r;
	if (!s2c_streq(strchr(want, ':') + 1, hex))
		return s2c_error_set(err, -EBADMSG, "%s does not match its digest %s (it is %.*s:%s)",
				     what, want, (int)(strchr(want, ':') - want), want, hex);
	return 0;
}

int ociblob_check(const void *data, size_t len, const char *digest, struct s2c_error *err)
{
	struct hash_stream *h = NULL;
	_cleanup_free_ char *copy = NULL;
	int r = stream_for(digest, &h, &copy, err);

	if (r == 0)
		r = hash_stream_update(h, data, len);
	if (r == 0)
		r = compare(h, digest, "the content", err);
	hash_stream_free(h);
	return r;
}

/* --- the stored bytes ----------------------------------------------------------------------- */

static la_ssize_t source_read(struct archive *a, void *data, const void **buf)
{
	struct ociblob *b = data;
	ssize_t n = 0;

	if (b->src.outer) {
		size_t size;
		la_int64_t off;
		int r = archive_read_data_block(b->src.outer, buf, &size, &off);
		if (r == ARCHIVE_EOF)
			return 0;
		if (r < ARCHIVE_WARN || off != b->outer_off) {
			archive_set_error(a, EIO, "%s", r < ARCHIVE_WARN ?
					  archive_error_string(b->src.outer) : "a sparse blob");
			return -1;
		}
		b->outer_off += (int64_t)size;
		n = (ssize_t)size;
	} else if (b->src.mem) {
		n = (ssize_t)S2C_MIN(b->src.mem_len - b->mem_off, (size_t)OCIBLOB_BLOCK);
		*buf = b->src.mem + b->mem_off;
		b->mem_off += (size_t)n;
	} else {
		do
			n = read(b->src.fd, b->buf, OCIBLOB_BLOCK);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			archive_set_error(a, errno, "cannot read the blob");
			return -1;
		}
		*buf = b->buf;
	}
	if (n > 0 && b->stored && hash_stream_update(b->stored, *buf, (size_t)n) < 0) {
		archive_set_error(a, EIO, "cannot hash the blob");
		return -1;
	}
	return n;
}

/* --- the decompressed bytes ----------------------------------------------------------------- */

static la_ssize_t unpacked_read(struct archive *a, void *data, const void **buf)
{
	struct ociblob *b = data;
	size_t size;
	la_int64_t off;
	int r;

	if (b->raw_done)
		return 0;
	r = archive_read_data_block(b->raw, buf, &size, &off);
	if (r == ARCHIVE_EOF) {
		b->raw_done = true;
		return 0;
	}
	if (r < ARCHIVE_WARN) {
		archive_set_error(a, EIO, "%s", archive_error_string(b->raw));
		return -1;
	}
	if (b->unpacked && hash_stream_update(b->unpacked, *buf, size) < 0) {
		archive_set_error(a, EIO, "cannot hash the layer");
		return -1;
	}
	return (la_ssize_t)size;
}

int ociblob_open(struct ociblob *b, const struct ociblob_source *src, const char *stored,
		 const char *unpacked, struct s2c_error *err)
{
	struct archive_entry *e;
	int r;

	*b = (struct ociblob){ .src = *src };
	r = stream_for(stored, &b->stored, &b->want_stored, err);
	if (r == 0)
		r = stream_for(unpacked, &b->unpacked, &b->want_unpacked, err);
	if (r == 0 && !src->outer && !src->mem && !(b->buf = malloc(OCIBLOB_BLOCK)))
		r = -ENOMEM;
	if (r == 0)
		r = arread_new(ARREAD_RAW, &b->raw);
	if (r < 0)
		return r;
	if (archive_read_open(b->raw, b, NULL, source_read, NULL) != ARCHIVE_OK)
		return arread_error(err, -EIO, b->raw);
	r = archive_read_next_header(b->raw, &e);
	if (r == ARCHIVE_EOF)
		b->raw_done = true;     /* nothing at all: an empty tar, which the tar reader says */
	else if (r < ARCHIVE_WARN)
		return arread_error(err, -EIO, b->raw);
	r = arread_new(ARREAD_TAR, &b->a);
	if (r < 0)
		return r;
	/* The decompressed stream is a plain tar: no second decompression. */
	if (archive_read_open(b->a, b, NULL, unpacked_read, NULL) != ARCHIVE_OK)
		return arread_error(err, -EIO, b->a);
	return 0;
}

int ociblob_finish(struct ociblob *b, struct s2c_error *err)
{
	const void *buf;
	la_ssize_t n;
	int r;

	/* What the tar reader left: padding after its end, then the rest of the stored blob. */
	while ((n = unpacked_read(b->a, b, &buf)) > 0)
		;
	if (n < 0)
		return arread_error(err, -EIO, b->a);
	while ((n = source_read(b->raw, b, &buf)) > 0)
		;
	if (n < 0)
		return arread_error(err, -EIO, b->raw);
	r = compare(b->stored, b->want_stored, "the blob", err);
	if (r == 0)
		r = compare(b->unpacked, b->want_unpacked, "the uncompressed layer", err);
	b->stored = hash_stream_free(b->stored);
	b->unpacked = hash_stream_free(b->unpacked);
	return r;
}

void ociblob_release(struct ociblob *b)
{
	if (b->a)
		archive_read_free(b->a);
	if (b->raw)
		archive_read_free(b->raw);
	hash_stream_free(b->stored);
	hash_stream_free(b->unpacked);
	free(b->want_stored);
	free(b->want_unpacked);
	free(b->buf);
	*b = (struct ociblob){ 0 };
}
