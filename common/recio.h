/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing a record as bytes and reading it back: fixed-width integers in the
 * machine's order, strings with their length, pointers as they are.  For
 * records that never leave the process (a spill, common/spill.h), so the
 * bytes need no portable form; reading still checks every length against
 * what is left, so a short or damaged record is refused, never overrun.
 * Both sides keep their first error and turn later calls into no-ops, so a
 * record is written or read as a flat list of calls and checked once.
 */
#ifndef S2C_COMMON_RECIO_H
#define S2C_COMMON_RECIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A record being written; zero-initialised is empty. */
struct rec_out {
	char *p;                /**< the bytes (malloc'd), @n long */
	size_t n, cap;
	int error;              /**< -ENOMEM once something could not be added */
};

void rec_put(struct rec_out *o, const void *v, size_t len);
void rec_put_u64(struct rec_out *o, uint64_t v);
void rec_put_u32(struct rec_out *o, uint32_t v);
void rec_put_bool(struct rec_out *o, bool v);
/** A pointer as it is: for what the reader of this process borrows from the same place. */
void rec_put_ptr(struct rec_out *o, const void *v);
/** @s with its length, or NULL. */
void rec_put_str(struct rec_out *o, const char *s);

/**
 * Hand over the bytes: in *@ret (free() them) and *@ret_len.  Returns 0, or
 * the first error, with the bytes freed.
 */
int rec_out_finish(struct rec_out *o, void **ret, size_t *ret_len);

/** A record being read. */
struct rec_in {
	const char *p;
	size_t n, pos;
	int error;              /**< -EBADMSG (short, damaged) or -ENOMEM; once set kept */
};

/** Copy @len bytes to @v, or zeroes after an error. */
void rec_get(struct rec_in *i, void *v, size_t len);
uint64_t rec_get_u64(struct rec_in *i);
uint32_t rec_get_u32(struct rec_in *i);
bool rec_get_bool(struct rec_in *i);
const void *rec_get_ptr(struct rec_in *i);
/** A new copy of a string rec_put_str() wrote, or NULL (for NULL, or after an error). */
char *rec_get_str(struct rec_in *i);

/**
 * A count of items of at least @min bytes each, refused (-EBADMSG, 0) when
 * the rest of the record cannot hold them.
 */
size_t rec_get_count(struct rec_in *i, size_t min);

/** calloc() of @n items (one at least), or NULL with the error set. */
void *rec_get_array(struct rec_in *i, size_t n, size_t size);

/**
 * The end of the record: 0 when it was read whole and without error, else
 * the error (-EBADMSG for bytes left over).
 */
int rec_in_finish(struct rec_in *i);

#endif /* S2C_COMMON_RECIO_H */
