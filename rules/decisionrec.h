/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A decision and the facts of its file as bytes, and back: what an audit
 * keeps of each privileged file while it goes on to the others, so that the
 * records can wait in a spill (common/spill.h) instead of in memory.
 *
 * The bytes hold every string the decision and its facts own, and the ELF
 * facts the reports show (not the imports and libraries the engine read to
 * decide).  What the decision borrows from the rules database (its rule,
 * condition, override, tied rule ids, the capability table's notes) and
 * from static storage is kept as the pointer itself: the bytes are for this
 * process only, and are read back while that database lives.
 */
#ifndef S2C_RULES_DECISIONREC_H
#define S2C_RULES_DECISIONREC_H

#include <stddef.h>

#include "cleanup.h"

struct decision;
struct facts;

/** A decision read back, with the facts it points to: all its own but what it borrowed. */
struct decision_rec {
	struct decision *d;             /**< d->facts is @f */
	struct facts *f;
	char *package, *package_version; /**< what d->package and d->package_version point to */
};

/**
 * The bytes of @d and its facts, in *@ret (free() it), *@ret_len long.
 * Returns 0 or -ENOMEM.
 */
int decisionrec_pack(const struct decision *d, void **ret, size_t *ret_len);

/**
 * Read back the @len bytes at @p that decisionrec_pack() made, into @ret.
 * Returns 0, -ENOMEM, or -EBADMSG when they are not what it made (@ret then
 * holds nothing).
 */
int decisionrec_unpack(const void *p, size_t len, struct decision_rec *ret);

/** Free what decisionrec_unpack() made; @r is zeroed. */
void decisionrec_release(struct decision_rec *r);

#endif /* S2C_RULES_DECISIONREC_H */
