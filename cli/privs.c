/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "capset.h"
#include "fcaps.h"
#include "cli.h"
#include "privs.h"
#include "common.h"


uint64_t privs_effective(void)
{
	_cleanup_capfree_ cap_t cur = cap_get_proc();

	return cur ? capset_mask(cur, CAP_EFFECTIVE) : 0;
}

char *privs_describe(void)
{
	_cleanup_free_ char *eff = fcaps_mask_names(privs_effective()), *bnd = NULL;
	uint64_t bound = 0;
	int nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	char *out = NULL;

	for (cap_value_t v = 0; v < 64 && v <= cap_max_bits(); v++)
		if (CAP_IS_SUPPORTED(v) && cap_get_bound(v) == 1)
			bound |= S2C_CAPMASK(v);
	bnd = fcaps_mask_names(bound);
	if (!eff || !bnd || asprintf(&out, "effective %s; bounding %s; no_new_privs %s",
				     *eff ? eff : "(none)", *bnd ? bnd : "(none)",
				     nnp == 1 ? "yes" : "no") < 0)
		return NULL;
	return out;
}

bool privs_have(int cap)
{
	return cap >= 0 && cap < 64 && (privs_effective() & S2C_CAPMASK(cap));
}

/* privs_restrict() without the message.  Returns 0 or -errno. */
static int narrow(uint64_t keep, enum privs_flags flags)
{
	_cleanup_capfree_ cap_t cur = cap_get_proc();
	_cleanup_capfree_ cap_t next = NULL;
	uint64_t have, want;

	if (!cur)
		return -errno;
	have = capset_mask(cur, CAP_PERMITTED);
	want = keep & have;
	if (!(flags & PRIVS_KEEP_BOUNDING) && (capset_mask(cur, CAP_EFFECTIVE) & S2C_CAPMASK(CAP_SETPCAP))) {
		cap_value_t last = cap_max_bits();
		for (cap_value_t v = 0; v < last && v < 64; v++)
			if (!(keep & S2C_CAPMASK(v)) && CAP_IS_SUPPORTED(v) && cap_drop_bound(v) < 0)
				return -errno;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	next = capset_from_masks(want, 0, want);
	if (!next || cap_set_proc(next) < 0)
		return -errno;
	if (!(flags & PRIVS_KEEP_BOUNDING) && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	return 0;
}

int privs_restrict(uint64_t keep, enum privs_flags flags, const char *what)
{
	int r = narrow(keep, flags);

	if (r < 0) {
		log_error("cannot restrict privileges%s%s: %s", what ? " " : "", what ? what : "",
			  strerror(-r));
		return S2C_EXIT_PRIVILEGE;
	}
	return S2C_EXIT_OK;
}
