/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one file identity: what a file is (device, inode, size, mtime, link
 * count, content hash) and the privilege state it has (owner, group, mode and
 * the exact security.capability bytes), read from an open fd, with one
 * comparison used wherever a file must still be the one a plan, a journal or
 * the state record describes.
 */
#ifndef S2C_SCANNER_FILEID_H
#define S2C_SCANNER_FILEID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fcaps.h"
#include "hash.h"

struct json_object;

/** The exact privilege state of a file: what apply changes and rollback restores. */
struct file_state {
	uint32_t uid, gid;
	uint32_t mode;                           /**< 07777 bits */
	bool has_xattr;                          /**< security.capability present */
	unsigned char xattr[FCAPS_BLOB_MAX];
	size_t xattr_len;
};

/** Which file a path leads to, and its state. */
struct file_id {
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint64_t size;
	int64_t mtime_ns;
	uint32_t nlink;
	struct file_state state;
	char sha256[HASH_HEX_LEN];               /**< lowercase hex, "" when not computed */
};

/** The parts of an identity fileid_diff() compares. */
enum fileid_parts {
	FILEID_INODE = 1 << 0,                   /**< device and inode */
	FILEID_SIZE_MTIME = 1 << 1,              /**< size and modification time */
	FILEID_STATE = 1 << 2,                   /**< owner, group, mode, capability bytes */
	FILEID_CONTENT = 1 << 3,                 /**< SHA-256 (both must have one) */
	FILEID_ALL = FILEID_INODE | FILEID_SIZE_MTIME | FILEID_STATE | FILEID_CONTENT,
};

/**
 * Read the state of the open regular file @fd (owner, group, mode and the
 * exact capability attribute; none on a filesystem without xattrs).
 * Returns 0, -EINVAL for an attribute larger than any valid layout, or -errno.
 */
int filestate_read(int fd, struct file_state *ret);

/** How closely filestate_match() compares two states' capability attributes. */
enum filestate_match {
	FILESTATE_EXACT,         /**< the same bytes, or both none */
	FILESTATE_GRANTS,        /**< the same grant: the decoded sets and root id, whatever the
				      layout (a v3 attribute with root id 0, as libcap writes inside
				      a user namespace, equals its v2 form); one that does not decode
				      equals only the same bytes */
	FILESTATE_SHOWN,         /**< the same in a capability text, which carries neither a
				      layout nor a root id: the decoded sets alone, and one that does
				      not decode counted as none */
	_FILESTATE_MATCH_MAX,
	_FILESTATE_MATCH_INVALID = -22,
};

/**
 * The one comparison of two states: owner, group and mode equal, and the
 * capability attributes alike as @how says.  Every other comparison of states
 * (filestate_equal(), filestate_same(), fileid_diff(), fileid_left(), the
 * checks of a plan) is this one.
 */
bool filestate_match(const struct file_state *a, const struct file_state *b,
		     enum filestate_match how);

/** True when two states are identical (owner, group, mode, exact xattr bytes). */
static inline bool filestate_equal(const struct file_state *a, const struct file_state *b)
{
	return filestate_match(a, b, FILESTATE_EXACT);
}

/** True when two states grant the same (FILESTATE_GRANTS). */
static inline bool filestate_same(const struct file_state *a, const struct file_state *b)
{
	return filestate_match(a, b, FILESTATE_GRANTS);
}

/** Set @s's capability attribute to the v2 bytes of @caps (NULL: none). */
void filestate_set_caps(struct file_state *s, const struct fcaps *caps);

/**
 * The JSON object of the state @s, as plans and results show it: "uid",
 * "gid", "owner" and "group" (the names @owner and @group, null for none;
 * "owner_hex"/"group_hex" beside them when not valid UTF-8), "mode" (four
 * octal digits) and "caps" (@caps, the capability text, null for none or
 * malformed), and with @raw "caps_raw" (the attribute's bytes in hex, null
 * without one) (docs/schema/plan.schema.json).
 * Returns a new object (json_object_put() it) or NULL on OOM.
 */
struct json_object *filestate_json(const struct file_state *s, const char *owner,
				   const char *group, const char *caps, bool raw);

/** "4755 0:0 cap_net_raw=ep" style description of @s, into @buf. */
void filestate_describe(const struct file_state *s, char *buf, size_t size);

/**
 * Read the identity of the open regular file @fd; the SHA-256 of its content
 * only with @hash (it reads the whole file).
 * Returns 0 or -errno.
 */
int fileid_read(int fd, bool hash, struct file_id *ret);

/**
 * Compare the @parts of @want (what a plan, journal or record says) with
 * @got (what the file is now).  Returns NULL when they agree, else a phrase
 * saying what differs ("it is another file now (device or inode differ)",
 * "its content (SHA-256) differs", …).
 */
const char *fileid_diff(const struct file_id *want, const struct file_id *got,
			enum fileid_parts parts);

/** How a file differs from what a change left it as (fileid_left()). */
enum fileid_left {
	FILEID_AS_LEFT,          /**< the same inode, the same content, a state that grants the same */
	FILEID_REPLACED,         /**< another inode at the path (a package update, a rename) */
	FILEID_REWRITTEN,        /**< the same inode, other content (or no SHA-256 to compare) */
	FILEID_RESTATED,         /**< the same file and content, another owner, group, mode or
				      capabilities */
	_FILEID_LEFT_MAX,
	_FILEID_LEFT_INVALID = -22,
};

/**
 * Is @now (read with its SHA-256) still the file a change left: the device,
 * inode, SHA-256 and state of @left?  States compare by what they grant
 * (filestate_same()).  The one comparison behind verify's drift and
 * rollback's refusal, so both say the same of the same file.
 * Returns how it differs; the parts after the first difference are not
 * looked at.
 */
enum fileid_left fileid_left(const struct file_id *left, const struct file_id *now);

/**
 * Say what changed from the state @left to @now, in words for a report:
 * "the set-ID bit is back (mode 4755)", "its capabilities are gone", "its
 * mode is narrower (0700)", "its owner changed (1000)" …, joined by "; ".
 * Writes "" when the two states grant the same.
 */
void filestate_change(const struct file_state *left, const struct file_state *now, char *buf,
		      size_t size);

#endif /* S2C_SCANNER_FILEID_H */
