/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Records sorted by a key, whatever their number: an external merge sort.
 * Records stay in memory up to a budget; past it they are sorted and written
 * as one run to an unnamed temporary file (O_TMPFILE, else a file unlinked
 * at once, mode 0600) in the directory given, and reading merges the runs,
 * at most SPILL_FANIN at a time.  A set within the budget never touches the
 * disk.  Keys compare as strcmp() does; records of equal keys keep the order
 * they were added in.  What the reader holds is the budget plus a buffer a
 * run, whatever the number of records.
 */
#ifndef S2C_COMMON_SPILL_H
#define S2C_COMMON_SPILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cleanup.h"

/** Runs merged at once; more are first merged into longer runs. */
#define SPILL_FANIN 16

struct spill;

/**
 * A new empty set kept within @budget bytes of memory, spilling to a file in
 * @dir when it grows past it.  Returns 0 or -ENOMEM.
 */
int spill_new(const char *dir, size_t budget, struct spill **ret);

/**
 * Add the record of @len bytes at @rec under @key (both copied).  Only before
 * spill_sort().  Returns 0, -ENOMEM, -EFBIG (a record or key over 1 GiB) or
 * the error of writing a run (-ENOSPC, -EIO, …), after which the set is
 * unusable.
 */
int spill_add(struct spill *s, const char *key, const void *rec, size_t len);

/**
 * End adding: sort the records in memory, or write them as the last run and
 * merge the runs down to SPILL_FANIN.  Returns 0, or -errno of writing.
 */
int spill_sort(struct spill *s);

/** A reading of a sorted set; several may read one set at once. */
struct spill_cursor;

/** A new cursor at the first record of @s, sorted.  Returns 0, -ENOMEM or -errno of reading. */
int spill_cursor_new(struct spill *s, struct spill_cursor **ret);

/**
 * The next record in key order: its key, bytes and length, valid until the
 * next call on @c.  Returns 1, 0 after the last record, or -errno of reading
 * the file (-EBADMSG when it does not hold what was written).
 */
int spill_cursor_next(struct spill_cursor *c, const char **ret_key, const void **ret_rec,
		      size_t *ret_len);

/** Free; accepts NULL; returns NULL. */
struct spill_cursor *spill_cursor_free(struct spill_cursor *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct spill_cursor *, spill_cursor_free)

/** Records added. */
size_t spill_count(const struct spill *s);

/** Whether records went to the file. */
bool spill_on_disk(const struct spill *s);

/** The directory of the file, as given to spill_new(). */
const char *spill_dir(const struct spill *s);

/** Free the records and close the file (its cursors first); accepts NULL; returns NULL. */
struct spill *spill_free(struct spill *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct spill *, spill_free)

#endif /* S2C_COMMON_SPILL_H */
