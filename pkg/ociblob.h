/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the image reader (pkg/oci.h): a blob read once, its digests checked
 * as it streams past.  A layer blob is hashed as stored (its descriptor's
 * digest) and, once decompressed by libarchive, as the tar it is (the
 * config's diff_id); the tar reader reads that decompressed stream.  When
 * the layer has been applied, ociblob_finish() reads what the tar reader
 * left (padding after the end of the archive, the rest of the compressed
 * stream) and compares both digests.  Documents (JSON) are checked whole
 * with ociblob_check().  Not for use outside pkg/oci*.c.
 *
 * Internal: oci ocisrc ociblob ocimanifest.
 */
#ifndef S2C_PKG_OCIBLOB_H
#define S2C_PKG_OCIBLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct archive;
struct hash_stream;
struct s2c_error;

/** Bytes read from a file at once. */
#define OCIBLOB_BLOCK (256u << 10)

/** Where a blob's stored bytes come from: exactly one of these. */
struct ociblob_source {
	int fd;                 /**< a file (borrowed), read from its offset, or -1 */
	const char *mem;        /**< bytes in memory (borrowed), or NULL */
	size_t mem_len;
	struct archive *outer;  /**< the current entry of an outer tar (borrowed), or NULL */
};

/** A layer being read. */
struct ociblob {
	struct ociblob_source src;
	struct hash_stream *stored;   /**< of the bytes as stored, or NULL when not checked */
	struct hash_stream *unpacked; /**< of the decompressed tar, or NULL */
	char *want_stored, *want_unpacked; /**< "sha256:…" */
	struct archive *raw;    /**< the decompressor */
	struct archive *a;      /**< the layer's tar: what the caller reads */
	bool raw_done;          /**< the decompressed stream is at its end */
	int64_t outer_off;
	size_t mem_off;
	char *buf;              /**< OCIBLOB_BLOCK bytes for reading a file */
};

/**
 * Open the tar of a layer from @src in @b (always initialised; free with
 * ociblob_release()), checking @stored (the descriptor's digest, NULL when
 * there is none) and @unpacked (the diff_id, NULL likewise) when finished.
 * Returns 0, or -errno with a message (-EBADMSG: a digest that cannot be
 * checked, such as an unknown algorithm).
 */
int ociblob_open(struct ociblob *b, const struct ociblob_source *src, const char *stored,
		 const char *unpacked, struct s2c_error *err);

/**
 * Read the rest of both streams and compare the digests.  Returns 0, or
 * -EBADMSG with a message naming which digest differs.
 */
int ociblob_finish(struct ociblob *b, struct s2c_error *err);

/** Free what @b holds (also after a failure). */
void ociblob_release(struct ociblob *b);

/**
 * Check @len bytes at @data against @digest ("sha256:…").  Returns 0, or
 * -EBADMSG with a message.
 */
int ociblob_check(const void *data, size_t len, const char *digest, struct s2c_error *err);

#endif /* S2C_PKG_OCIBLOB_H */
