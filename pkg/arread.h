/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libarchive, configured once for every reader of this layer: which formats
 * and which compressions (only those libarchive decodes itself: gzip, bzip2,
 * xz, lzma, zstd, none; never one that would run an external program),
 * nested archives read straight from the data of an outer member (a .deb's
 * data.tar.xz inside its ar archive, an image layer inside a docker-save
 * tar) so that each one is decompressed exactly once, entries turned into
 * members (member.h), and member content copied into the stage (stage.h).
 *
 * Every entry is counted against the target's limits before its data is
 * read: the number of entries, and the sum of the sizes the headers declare
 * (the decompression-bomb limit; a header that lies is caught by libarchive
 * as a truncated or corrupt archive).
 */
#ifndef S2C_PKG_ARREAD_H
#define S2C_PKG_ARREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct archive;
struct archive_entry;
struct member;
struct s2c_error;
struct stage;
struct stage_limits;

/** Container formats. */
enum arread_format {
	ARREAD_AR,              /**< the outer archive of a .deb */
	ARREAD_TAR,             /**< control and data of a .deb, image layers, docker-save */
	ARREAD_CPIO,            /**< an rpm payload */
	ARREAD_RAW,             /**< no format: the decompressed bytes as one entry (an image
				     layer, hashed before its tar is read) */
};

/** What one target has read so far, checked against its limits. */
struct arread_budget {
	const struct stage_limits *lim;
	uint64_t unpacked;      /**< declared bytes of the entries read */
	uint64_t members;       /**< entries read */
};

/**
 * A new reader for @format with every safe compression filter.
 * Returns 0 with the reader in @ret (archive_read_free() it), or -ENOMEM.
 */
int arread_new(enum arread_format format, struct archive **ret);

/** Free a reader on scope exit (`_cleanup_(archive_freep)`); NULL is fine. */
void archive_freep(struct archive **a);

/**
 * Set @err to libarchive's message for @a (its first word in lower case, as
 * ours are) and return @code.
 */
int arread_error(struct s2c_error *err, int code, struct archive *a);

/** Open @a on @fd (borrowed, read from its current offset).  Returns 0 or -EIO with a message. */
int arread_open_fd(struct archive *a, int fd, struct s2c_error *err);

/** Open @a on @size bytes at @data (borrowed until archive_read_free()). */
int arread_open_memory(struct archive *a, const void *data, size_t size, struct s2c_error *err);

/**
 * Open @inner on the data of the current entry of @outer, which must stay
 * open and positioned on that entry until @inner is done.
 */
int arread_open_nested(struct archive *inner, struct archive *outer, struct s2c_error *err);

/**
 * The next entry of @a, counted against @b.
 * Returns 1 with the entry in @ret (owned by @a), 0 at the end, -EIO for a
 * corrupt or truncated archive, -EFBIG when a limit is passed (both with a
 * message).
 */
int arread_next(struct archive *a, struct arread_budget *b, struct archive_entry **ret,
		struct s2c_error *err);

/**
 * The member described by @e: normalised path, type, permission bits, owner
 * (number and name), size, mtime, link target, and the security.capability
 * attribute when the archive carries it (tar SCHILY.xattr).
 * Returns 0 with a new member in @ret, or -EINVAL (bad name) / -ENOMEM.
 */
int arread_member(struct archive_entry *e, struct member **ret, struct s2c_error *err);

/**
 * Copy the data of the current entry of @a into the staged file @path of
 * @s.  The entry must not be larger than the stage's max_file, and the bytes
 * count against its max_total.  Returns 0 or -errno with a message.
 */
int arread_stage(struct archive *a, struct stage *s, const char *path, uint64_t size,
		 struct s2c_error *err);

/**
 * Read the data of the current entry into memory: at most @max bytes (more
 * is -EFBIG).  The buffer is NUL-terminated (not counted in @ret_len).
 * Returns 0 or -errno with a message.
 */
int arread_slurp(struct archive *a, size_t max, char **ret, size_t *ret_len,
		 struct s2c_error *err);

/**
 * Consume the rest of the current entry's data without keeping it (what
 * archive_read_next_header() would do), reporting a read error.
 */
int arread_skip(struct archive *a, struct s2c_error *err);

#endif /* S2C_PKG_ARREAD_H */
