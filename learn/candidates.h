/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The capabilities a run of `suid2cap learn` is given: the ones named with
 * --caps, or else what the rules and the decision engine propose for the
 * program, or else every capability that is not root-equivalent; never one
 * suid2cap does not hold itself.
 */
#ifndef S2C_LEARN_CANDIDATES_H
#define S2C_LEARN_CANDIDATES_H

#include <stdbool.h>
#include <stdint.h>

struct captable;
struct decision;
struct s2c_error;

/** What learn_candidates() chose. */
struct learn_candidates {
	uint64_t caps;           /**< the capabilities the run is given */
	uint64_t lacking;        /**< proposed but not held: left out (warn about them) */
	uint64_t root;           /**< root-equivalent capabilities among @caps (warn about them) */
	bool proposed;           /**< @caps is what the rules or the engine propose */
};

/**
 * Choose the candidates of a run.
 * @text  --caps: a comma list of capability names ("cap_net_raw,cap_setuid"),
 *        "none" or "all" (every known capability @t does not grade
 *        root-equivalent); NULL: what @d proposes
 * @d     the decision about the program, NULL when it is not privileged: a
 *        migrate verdict proposes its permitted set, drop nothing, any other
 *        what the evidence needs or proposes; without a proposal, "all"
 * @held  the capabilities suid2cap holds: only those can be given
 * Returns 0 with @ret; -EINVAL for a malformed @text (a usage error), or
 * -EPERM when @text names capabilities not held; each with @err.  -ENOMEM.
 */
int learn_candidates(const char *text, const struct decision *d, const struct captable *t,
		     uint64_t held, struct learn_candidates *ret, struct s2c_error *err);

#endif /* S2C_LEARN_CANDIDATES_H */
