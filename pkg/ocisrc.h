/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the image reader (pkg/oci.h): where an image's files come from.  An
 * OCI layout directory, whose files are opened with openat2(RESOLVE_BENEATH),
 * or a tar, indexed once (offsets, small members kept, large ones of a
 * compressed tar spooled into a private stage) and searched with its
 * symlinks resolved among its own members.  Documents (JSON) and layer tars
 * are read from either.  Not for use outside pkg/oci*.c.
 *
 * Internal: oci ocisrc ociblob ocimanifest.
 */
#ifndef S2C_PKG_OCISRC_H
#define S2C_PKG_OCISRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "member.h"
#include "ociblob.h"

struct archive;
struct arread_budget;
struct json_object;
struct s2c_error;
struct stage;

/** Most symlinks followed to find one member of an image tar. */
#define OCISRC_LINKS_MAX 16

/** Most bytes of small members (at most OCI_JSON_MAX each) kept in memory from one tar. */
#define OCISRC_MEMORY_MAX (64u << 20)

/** One member of an image tar. */
struct ocisrc_ent {
	char *name;             /**< relative, normalised: "blobs/sha256/ab…", "abc/layer.tar" */
	int64_t header;         /**< offset of its header */
	int64_t size;
	enum member_type type;
	char *link;             /**< symlink target as stored; a hard link's member name */
	bool hard;              /**< a hard link: @link is a normalised member path ("/x/y") */
	char *data;             /**< content, when small enough to keep */
	size_t len;
	char *spool;            /**< path in the spool stage (compressed tars) */
	unsigned ordinal;       /**< its position among the tar's entries */
};

/** Where the image's files come from. */
struct ocisrc {
	const char *path;       /**< as given, borrowed */
	int dirfd;              /**< an OCI layout directory, or -1 */
	int fd;                 /**< a tar, or -1 */
	bool compressed;        /**< the tar is compressed: members not in memory are spooled
				     (ocisrc_spool()) or read by reading the stream again */
	struct ocisrc_ent *v;   /**< the tar's members, owned */
	size_t n;
	size_t in_memory;       /**< bytes of members kept in memory */
	struct stage *spool;    /**< owned, or NULL */
	struct arread_budget *budget; /**< borrowed: what reading may cost */
};

/** The reader of one layer blob: a tar, possibly compressed, its digests checked. */
struct ocisrc_layer {
	struct archive *outer;  /**< the image tar positioned on the member, or NULL */
	struct ociblob blob;    /**< blob.a: the layer's tar */
	int fd;
};

/** Free what @s holds and close its fds. */
void ocisrc_release(struct ocisrc *s);

/**
 * Index the image tar open at @s->fd: every member's name, type, offset and
 * link; small members kept in memory (OCISRC_MEMORY_MAX in all).  Returns
 * 0, or -errno with a message in @err.
 */
int ocisrc_index_tar(struct ocisrc *s, struct s2c_error *err);

/**
 * For a compressed tar, read it once more and keep the @n blobs @names
 * (those the manifest names, not already in memory) in a new stage inside
 * @run, within its limits (the largest file, the total); a blob that does
 * not fit is read later by reading the stream again up to it.  Nothing for
 * a directory or an uncompressed tar.  Returns 0, or -errno with a message.
 */
int ocisrc_spool(struct ocisrc *s, char *const *names, size_t n, struct stage *run,
		 struct s2c_error *err);

/**
 * Resolve @name among the tar's members, following symlinks (at most
 * OCISRC_LINKS_MAX) that stay inside.  Returns 0 with the member in @ret
 * (borrowed from @s), or -errno with a message.
 */
int ocisrc_find(const struct ocisrc *s, const char *name, const struct ocisrc_ent **ret,
		struct s2c_error *err);

/**
 * Open the regular file @name beneath @dirfd (openat2 RESOLVE_BENEATH, no
 * symlink out of it).  Returns the fd, or -errno with a message.
 */
int ocisrc_open_beneath(int dirfd, const char *name, struct s2c_error *err);

/**
 * Read the JSON document @name of the image (at most OCI_JSON_MAX bytes),
 * checked against @digest ("sha256:…") unless that is NULL.
 * Returns 0 with a new object in @ret (json_object_put() it), or -errno with
 * a message ("'…' is not valid JSON"; -EBADMSG: it does not match @digest).
 */
int ocisrc_parse_doc(const struct ocisrc *s, const char *name, const char *digest,
		     struct json_object **ret, struct s2c_error *err);

/** Close what ocisrc_open_layer() opened (also after it failed). */
void ocisrc_layer_release(struct ocisrc_layer *l);

/**
 * Open the layer blob @name as a tar reader in @l (l->blob.a; always
 * initialised, free with ocisrc_layer_release()), to be checked against
 * @stored (the blob's digest) and @unpacked (the diff_id), either NULL when
 * there is none, by ociblob_finish(&l->blob) once read.  Returns 0, or
 * -errno with a message.
 */
int ocisrc_open_layer(const struct ocisrc *s, const char *name, const char *stored,
		      const char *unpacked, struct ocisrc_layer *l, struct s2c_error *err);

#endif /* S2C_PKG_OCISRC_H */
