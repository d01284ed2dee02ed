/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the member table (member.h): the notes it keeps of the regular
 * files it does not keep, and what image layers hid of them.  A note is the
 * keyed hash of the path (no name), the mode, owner, size and layer, and the
 * order it was made in: 40 bytes in a dense array and 8 to 16 in its index,
 * whose slots are 32-bit positions (common/hashindex's are 16 bytes, which
 * would double what a million notes take).  Hiding costs a record per
 * hidden path (common/hashindex), not a pass over the notes: a note is
 * hidden when a record at its path or a directory above it is later than
 * the note and hides its layer.  Not for use outside pkg/member*.c.
 */
#ifndef S2C_PKG_MEMBERNOTES_H
#define S2C_PKG_MEMBERNOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashindex.h"

/** One note. */
struct note {
	uint64_t hash;          /**< member_hash() of the path: keyed, so collisions are not chosen */
	uint64_t size;
	uint64_t seq;           /**< when it was made (membernotes::seq) */
	uint32_t uid, gid, layer;
	uint16_t mode;
	bool gone;              /**< a kept member of that path came later */
};

/** What was hidden at one path: the latest hide of each kind (an earlier one hides less). */
struct note_hide {
	uint64_t hash;          /**< member_hash() of the path */
	uint64_t self_seq, below_seq;     /**< when; 0: never */
	uint32_t self_layer, below_layer; /**< notes of layers before this one are hidden */
};

/** The notes of a set; zero-initialised is empty. */
struct membernotes {
	struct note *v;         /**< dense, in the order noted */
	size_t n, alloc;
	uint32_t *index;        /**< open addressing: 1 + position in v, 0 empty */
	size_t n_slots;
	struct note_hide *hides;
	size_t n_hides, alloc_hides;
	struct hashindex hide_index;
	uint64_t seq;           /**< notes and hides made so far */
	size_t bytes;           /**< memory held by all of the above */
};

/** The note of the path hashed @h (gone or not), or NULL. */
struct note *membernotes_find(const struct membernotes *x, uint64_t h);

/**
 * Make or renew the note of the path hashed @h (everything but its mode,
 * owner, size and layer, which the caller sets in the note returned in
 * @ret), when it may grow by @room bytes.  Returns 0, -ENOBUFS or -ENOMEM.
 */
int membernotes_put(struct membernotes *x, uint64_t h, size_t room, struct note **ret);

/**
 * Hide the notes of layers before @layer at @path (with @self) and below it,
 * from now on, when the records may grow by @room bytes.
 * Returns 0, -ENOBUFS or -ENOMEM.
 */
int membernotes_hide(struct membernotes *x, const char *path, bool self, unsigned layer,
		     size_t room);

/** Whether a hide made after @n covers it, @path being its path. */
bool membernotes_hidden(const struct membernotes *x, const char *path, const struct note *n);

/** Free what @x holds; it is empty afterwards. */
void membernotes_release(struct membernotes *x);

#endif /* S2C_PKG_MEMBERNOTES_H */
