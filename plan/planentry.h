/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One plan entry read back strictly, for the plan loader (planload.c).
 *
 * Internal: planload planentry.
 */
#ifndef S2C_PLAN_PLANENTRY_H
#define S2C_PLAN_PLANENTRY_H

#include "jsonread.h"

struct json_object;
struct plan_entry;

/**
 * Read the entry object @o at @p into @e (zeroed by the caller), reporting
 * every problem to @jc: unknown or missing members, a path that is not
 * absolute and normalised, capability texts libcap rejects or that disagree
 * with the raw bytes, an action that does not follow from the verdict and
 * the states, a change without the file's SHA-256.
 * Returns 0, or -EINVAL when it found a problem (what was read stays in @e,
 * to be released with plan_entry_release()).
 */
int planentry_read(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		   struct plan_entry *e);

#endif /* S2C_PLAN_PLANENTRY_H */
