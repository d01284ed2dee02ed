/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hash of the tables filled from untrusted names (archive members,
 * programs of merged reports): SipHash-1-3 with a key drawn once per process
 * from getrandom(2), so that nobody who writes the names can make them
 * collide and turn a table's lookups into a linear search.  Nothing that is
 * written out may depend on the order of a table hashed so: iterate sorted.
 */
#ifndef S2C_COMMON_STRHASH_H
#define S2C_COMMON_STRHASH_H

#include <stddef.h>
#include <stdint.h>

/** SipHash-1-3 of the @len bytes at @data under the 128-bit @key. */
uint64_t siphash13(const void *data, size_t len, const uint64_t key[2]);

/**
 * The keyed hash of the string @s under this process's key (made on first
 * use, thread-safe).
 */
uint64_t strhash(const char *s);

/** strhash() of the first @len bytes of @s. */
uint64_t strhash_n(const char *s, size_t len);

/**
 * The hash of a path one component at a time: the hash of "/a/b" is
 * strhash_step(strhash_step(STRHASH_ROOT, "a", 1), "b", 1), so that the
 * hashes of every prefix of a path cost one pass over it.  Keyed like
 * strhash(); the two are different functions.
 */
uint64_t strhash_step(uint64_t prefix, const char *component, size_t len);

/** The hash strhash_step() starts from: the path "/". */
#define STRHASH_ROOT 0x2f2f2f2f2f2f2f2fULL

#endif /* S2C_COMMON_STRHASH_H */
