/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An index of the elements of an array by a hash of their key (strhash.h
 * for untrusted keys): open addressing of (hash, position) pairs, the
 * comparison of keys left to the caller, so that looking an element up costs
 * the same whatever the array holds.  When the array drops elements from its
 * end, their entries may stay: @same must check that a position still holds
 * an element (a position used again is then found through either entry).
 */
#ifndef S2C_COMMON_HASHINDEX_H
#define S2C_COMMON_HASHINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** One entry; @pos1 is the position plus one, 0 for an empty slot. */
struct hashindex_slot {
	uint64_t hash;
	size_t pos1;
};

/** The index; zero-initialised is empty. */
struct hashindex {
	struct hashindex_slot *v;
	size_t n_slots, n;
};

/** Free the index; it is empty afterwards. */
void hashindex_release(struct hashindex *x);

/**
 * Index position @pos under @hash.  Returns 0 or -ENOMEM (the index is
 * unchanged).
 */
int hashindex_add(struct hashindex *x, uint64_t hash, size_t pos);

/**
 * The smallest position added under @hash for which @same(@pos, @userdata)
 * is true, or SIZE_MAX.
 */
size_t hashindex_find(const struct hashindex *x, uint64_t hash,
		      bool (*same)(size_t pos, const void *userdata), const void *userdata);

/** Call @fn with every position added under @hash, in no particular order. */
void hashindex_each(const struct hashindex *x, uint64_t hash, void (*fn)(size_t pos, void *userdata),
		    void *userdata);

#endif /* S2C_COMMON_HASHINDEX_H */
