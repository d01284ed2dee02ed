/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>

#include "candidates.h"
#include "capset.h"
#include "captable.h"
#include "engine.h"
#include "fcaps.h"
#include "util.h"
#include "common.h"

/* Every known capability @t does not grade root-equivalent. */
static uint64_t all_not_root(const struct captable *t)
{
	uint64_t mask = 0;

	for (int c = 0; c <= CAP_LAST_CAP && c < 64; c++)
		if (t->caps[c].known && t->caps[c].risk < RISK_ROOT)
			mask |= S2C_CAPMASK(c);
	return mask;
}

/* --caps TEXT: names, "none" or "all". */
static int parse_caps(const char *text, const struct captable *t, uint64_t *ret,
		      struct s2c_error *err)
{
	char bad[CAPSET_NAME_MAX];

	if (s2c_streq(text, "none") || s2c_streq(text, "all")) {
		*ret = s2c_streq(text, "all") ? all_not_root(t) : 0;
		return 0;
	}
	if (capset_parse_list(text, ret, bad) < 0)
		return *bad ? s2c_error_set(err, -EINVAL, "unknown capability '%s' in --caps", bad) :
			      s2c_error_set(err, -EINVAL, "--caps needs capability names separated by "
					    "commas, 'none' or 'all'");
	return 0;
}

/* What the engine proposes for a privileged file, or every capability that is not root. */
static uint64_t proposed(const struct decision *d, const struct captable *t, bool *ret_engine)
{
	*ret_engine = true;
	if (d && d->verdict == VERDICT_MIGRATE && d->has_caps)
		return d->caps.permitted;
	if (d && d->verdict == VERDICT_DROP)
		return 0;
	if (d && (d->needs | d->proposed))
		return d->needs | d->proposed;
	*ret_engine = false;
	return all_not_root(t);
}

int learn_candidates(const char *text, const struct decision *d, const struct captable *t,
		     uint64_t held, struct learn_candidates *ret, struct s2c_error *err)
{
	struct learn_candidates c = { 0 };
	int r;

	if (text) {
		r = parse_caps(text, t, &c.caps, err);
		if (r < 0)
			return r;
		if (c.caps & ~held) {
			uint64_t lack = c.caps & ~held;
			_cleanup_free_ char *missing = fcaps_mask_names(lack);

			if (!missing)
				return -ENOMEM;
			return s2c_error_set(err, -EPERM, "cannot grant %s: suid2cap does not have "
					     "%s itself", missing, lack & (lack - 1) ? "them" : "it");
		}
	} else {
		c.caps = proposed(d, t, &c.proposed);
		c.lacking = c.caps & ~held;
		c.caps &= held;
	}
	c.root = captable_with_risk(t, c.caps, RISK_ROOT);
	*ret = c;
	return 0;
}
