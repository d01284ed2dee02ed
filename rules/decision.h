/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building a decision (rules/engine.h): its reason, warnings, evidence and
 * capability set, each written in one place.  For the engine's own files
 * (engine.c, evidence.c, conditions.c, identify.c); not for use outside the
 * engine.
 *
 * Internal: engine evidence identify decision conditions.
 */
#ifndef S2C_RULES_DECISION_H
#define S2C_RULES_DECISION_H

#include <stdint.h>

#include "captable.h"
#include "macro.h"

struct decision;
struct fcaps;

/**
 * Replace @d's reason with the printf(3)-formatted sentence.
 * Returns 0, or -ENOMEM (the reason is then unchanged).
 */
S2C_PRINTF(2, 3) int decision_set_reason(struct decision *d, const char *format, ...);

/**
 * Add the printf(3)-formatted warning to @d, unless @d already has the same
 * text.  Returns 0 or -ENOMEM.
 */
S2C_PRINTF(2, 3) int decision_warn(struct decision *d, const char *format, ...);

/**
 * Add one piece of evidence to @d, unless an item with the same text, kind
 * and capabilities is there already.
 * @what  taken over (freed when not kept); NULL stands for a failed allocation.
 * @note  borrowed for the decision's lifetime (the capability table's), or NULL.
 * Returns 0 or -ENOMEM.
 */
int decision_add_evidence(struct decision *d, char *what, uint64_t caps, enum strength strength,
			  enum evidence_kind kind, const char *note);

/**
 * Make @caps (copied) the capability set after the change, with its text.
 * Returns 0 or -ENOMEM.
 */
int decision_set_caps(struct decision *d, const struct fcaps *caps);

#endif /* S2C_RULES_DECISION_H */
