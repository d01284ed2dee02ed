/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Renderers of decisions: the JSON object shared by explain, audit and plan,
 * and the full text reasoning of `suid2cap explain`.
 */
#ifndef S2C_REPORT_DECISIONOUT_H
#define S2C_REPORT_DECISIONOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct decision;
struct json_object;
struct rules_db;

/**
 * The JSON object of one decision: the file's facts under "file", then the
 * binary, the rule and the local override of its verdict, verdict, reason,
 * confidence, the state after, risk, evidence, conditions, warnings, sources
 * and smoke command.
 * Returns a new object or NULL on OOM.
 */
struct json_object *decisionout_json(const struct decision *d);

/**
 * What a local override did to @d, one line for people: "keep instead of the
 * rule's migrate, by the local override in FILE $.overrides[0]" ("migrate to
 * CAPS instead of ..." for a migration), or NULL when
 * no override decided (and on OOM: check d->override).  Raw text: escape it
 * for the output.  Free it.
 */
char *decisionout_override_text(const struct decision *d);

/** Capability mask as a JSON string of names, or null for 0. */
struct json_object *decisionout_mask(uint64_t mask);

/**
 * Write the full reasoning about @d as indented text (explain).
 * @color  use ANSI colours for headings and verdicts.
 * Returns 0 or -EIO/-ENOMEM.
 */
int decisionout_explain(const struct decision *d, bool color, FILE *out);

#endif /* S2C_REPORT_DECISIONOUT_H */
