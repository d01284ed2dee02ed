/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The facts of a candidate as bytes, and back (common/recio.h): what a scan
 * keeps of each privileged file while the walk goes on, so that a scan of
 * many of them can wait in a spill (common/spill.h) instead of in memory.
 * Everything but the content (facts::content) is kept.
 */
#ifndef S2C_SCANNER_FACTSREC_H
#define S2C_SCANNER_FACTSREC_H

#include <stddef.h>

struct facts;
struct fcaps;
struct rec_in;
struct rec_out;

/** Write @f, within a larger record. */
void factsrec_put(struct rec_out *o, const struct facts *f);

/** Read into @f (zeroed) what factsrec_put() wrote; an error is left in @i, @f then half. */
void factsrec_get(struct rec_in *i, struct facts *f);

/** Write and read a capability set, within a larger record. */
void factsrec_put_fcaps(struct rec_out *o, const struct fcaps *c);
void factsrec_get_fcaps(struct rec_in *i, struct fcaps *c);

/** The bytes of @f alone, in *@ret (free() it), *@ret_len long.  Returns 0 or -ENOMEM. */
int factsrec_pack(const struct facts *f, void **ret, size_t *ret_len);

/**
 * Read back the @len bytes at @p that factsrec_pack() made: a new object in
 * *@ret.  Returns 0, -ENOMEM, or -EBADMSG when they are not what it made.
 */
int factsrec_unpack(const void *p, size_t len, struct facts **ret);

#endif /* S2C_SCANNER_FACTSREC_H */
