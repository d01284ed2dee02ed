/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * File capabilities: the security.capability xattr and its text form.
 *
 * The kernel stores file capabilities as a little-endian struct whose first
 * word carries a revision (v1: 12 bytes, v2: 20 bytes, v3: 24 bytes with the
 * root uid of the owning user namespace) and the single "effective" flag.
 * This module decodes and encodes those blobs strictly (exact sizes only, as
 * the kernel's get_vfs_caps_from_disk() does), converts sets to and from the
 * cap_from_text(3) syntax through libcap so the text matches getcap(8), and
 * reads the xattr relative to a directory fd without following symlinks.
 */
#ifndef S2C_SCANNER_FCAPS_H
#define S2C_SCANNER_FCAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct s2c_error;

/** Name of the extended attribute holding file capabilities. */
#define FCAPS_XATTR "security.capability"

/** Largest valid blob (v3). */
#define FCAPS_BLOB_MAX 24

/** A decoded file capability set. */
struct fcaps {
	unsigned version;       /**< 1, 2 or 3 */
	bool effective;         /**< the single effective bit of file capabilities */
	uint64_t permitted;     /**< bit n = capability n */
	uint64_t inheritable;   /**< bit n = capability n */
	bool has_rootid;        /**< true for v3 blobs */
	uint32_t rootid;        /**< v3 only: uid 0 of the owning user namespace */
};

/**
 * Decode a security.capability blob.
 * @blob, @len  the raw xattr value.
 * @ret        written only on success.
 * @err        optional; says what is malformed.
 * Returns 0, or -EINVAL when the size does not match the revision, the
 * revision is unknown or flag bits other than "effective" are set.
 */
int fcaps_decode(const void *blob, size_t len, struct fcaps *ret, struct s2c_error *err);

/**
 * Encode @caps as the kernel would store it (v2 when !has_rootid, else v3;
 * v1 is never written).  @buf must hold FCAPS_BLOB_MAX bytes.
 * Returns the blob length (20 or 24), or -EINVAL when @caps has bits above
 * capability 63 or a v1 version.
 */
int fcaps_encode(const struct fcaps *caps, unsigned char *buf);

/**
 * Render @caps in the cap_to_text(3) form used by getcap(8), e.g.
 * "cap_net_raw=ep".  The v3 root id is not included (see fcaps::rootid).
 * An empty set renders as "=".
 * Returns a new string (free() it) or NULL on OOM.
 */
char *fcaps_to_text(const struct fcaps *caps);

/**
 * Parse a capability text such as "cap_net_raw,cap_net_admin=ep" into a
 * file capability set.  Only the flags a file can carry are accepted: the
 * effective flag must be all-or-nothing over the permitted and inheritable
 * capabilities, as the kernel stores one bit.
 * @ret  written only on success (version 2, no rootid).
 * Returns 0, or -EINVAL with a message in @err.
 */
int fcaps_from_text(const char *text, struct fcaps *ret, struct s2c_error *err);

/**
 * Render a bare capability mask as comma-separated lowercase names
 * ("cap_net_raw,cap_net_admin"), "" for an empty mask.
 * Returns a new string or NULL on OOM.
 */
char *fcaps_mask_names(uint64_t mask);

/**
 * Look up a capability by name ("cap_net_raw" or "net_raw", any case).
 * Returns the capability number, or -EINVAL.
 */
int fcaps_from_name(const char *name);

/** True when two sets grant the same thing (version and rootid included). */
bool fcaps_equal(const struct fcaps *a, const struct fcaps *b);

/**
 * Read the raw security.capability blob of @name relative to @dirfd without
 * following a symlink in the last component.  Uses getxattrat(2) where the
 * kernel has it and /proc/self/fd otherwise.
 * @buf, @size  destination (FCAPS_BLOB_MAX + 1 bytes is enough to detect an
 *              oversized blob: the call then fails with -ERANGE).
 * Returns the blob length, -ENODATA when the file has no capabilities, or
 * another -errno (-EOPNOTSUPP when the filesystem has no xattrs).
 */
int fcaps_read_at(int dirfd, const char *name, void *buf, size_t size);

/** Like fcaps_read_at() on an open file descriptor. */
int fcaps_read_fd(int fd, void *buf, size_t size);

#endif /* S2C_SCANNER_FCAPS_H */
