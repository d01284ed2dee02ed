/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Telling look-alike programs apart, for the engine (rules/engine.h): when
 * several rules match a file equally well (rules/match.h: no package
 * database to choose, or a package listed by several), the binary settles
 * it when it shows the identify signs (DT_NEEDED, DT_SONAME, read-only
 * strings) of exactly one of them; otherwise rules that all decide the same
 * agree, and the rest is left for review with what would settle it.
 *
 * Internal: engine evidence identify decision conditions.
 */
#ifndef S2C_RULES_IDENTIFY_H
#define S2C_RULES_IDENTIFY_H

struct decision;
struct engine;
struct match_result;

/**
 * Settle the tie of @m (m->n_tied rules, no best one) for @d: records the
 * tied ids in d->ambiguous, then sets d->tie, d->match_how and, unless the
 * tie stays open (TIE_OPEN), d->rule: the identified rule (TIE_IDENTIFIED)
 * or the first of rules that all decide the same (TIE_AGREE).
 * Returns 0 or -ENOMEM.
 */
int identify_settle_tie(const struct engine *e, struct decision *d, const struct match_result *m);

/**
 * Decide about @d, whose tie stayed open: review with low confidence, and a
 * reason naming the rules and what would settle it (a package database, an
 * identify block, a local rule with match.sha256).  Returns 0 or -ENOMEM.
 */
int identify_open_tie(const struct engine *e, struct decision *d);

#endif /* S2C_RULES_IDENTIFY_H */
