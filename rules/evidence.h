/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ELF evidence, for the engine (rules/engine.h): what a program's imports,
 * its libraries (and one level down, their imports) and its read-only
 * strings say about the capabilities it needs, whether it manages them
 * itself, and whether it insists on being setuid root; and the proposal made
 * from that evidence when no rule describes the file.  The capability
 * table (rules/captable.h) says what each import and string means.
 *
 * Internal: engine evidence identify decision conditions db.
 */
#ifndef S2C_RULES_EVIDENCE_H
#define S2C_RULES_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct captable;
struct decision;
struct engine;

/** The evidence of a decision, summed up once. */
struct evidence_summary {
	uint64_t strong;    /**< capabilities strong evidence says the program needs */
	uint64_t medium;    /**< ... medium evidence */
	uint64_t weak;      /**< ... weak evidence (hints only) */
	bool aware;         /**< medium or strong evidence that it manages capabilities itself
				 (libcap, libcap-ng, capset; prctl alone says nothing) */
	bool unknown;       /**< something hides what it does (raw syscall(), static linking) */
	bool drops;         /**< it calls privilege-drop functions that are no-ops under
				 file capabilities */
};

/**
 * Add to @d the evidence its ELF facts (d->elf, which must be set) give,
 * by the rules of @e's capability table: each entry whose library the
 * program NEEDs or whose symbols it imports (itself or through that
 * library), then the imports of the program's own non-general libraries
 * (one step weaker), then libcap, libcap-ng and static linking.
 * Returns 0 or -ENOMEM.
 */
int evidence_from_elf(const struct engine *e, struct decision *d);

/**
 * Warn on @d (ELF facts set) when a string or import of the capability
 * table's breakers shows the program is likely to break without setuid
 * root; the first such warning becomes d->breaker.  Returns 0 or -ENOMEM.
 */
int evidence_breakers(const struct engine *e, struct decision *d);

/**
 * Every import the evidence asks a program or its libraries about: the
 * symbols of @t's evidence and breakers and of su-like programs, sorted and
 * unique, in a new NULL-terminated array of @t's strings (free() the array
 * alone).  A reader keeps only these (binary_wants::symbols).  Returns 0 or -ENOMEM.
 */
int evidence_symbols(const struct captable *t, const char ***ret, size_t *ret_n);

/** Sum up the evidence @d holds. */
struct evidence_summary evidence_summarise(const struct decision *d);

/**
 * Decide about @d without a rule: a file that is not setuid root keeps what
 * it has (or goes to review when root-equivalent or an interpreter); a
 * setuid-root program whose ELF could not be read, or that switches users
 * like su, goes to review; otherwise the capabilities of @s's strong and
 * medium evidence are proposed (d->proposed), as a migration when the
 * evidence is strong, complete and not root-equivalent, else for review.
 * Sets verdict, confidence and reason (and caps, needs).  Returns 0 or -ENOMEM.
 */
int evidence_decide(const struct engine *e, struct decision *d, const struct evidence_summary *s);

#endif /* S2C_RULES_EVIDENCE_H */
