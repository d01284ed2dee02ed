/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "fcaps.h"
#include "privs.h"
#include "common.h"

static void cap_freep(cap_t *c)
{
	if (*c)
		(void)cap_free(*c);
}

static uint64_t mask_of(cap_t c, cap_flag_t flag)
{
	uint64_t m = 0;

	for (cap_value_t v = 0; v < 64; v++) {
		cap_flag_value_t val;
		if (cap_get_flag(c, v, flag, &val) == 0 && val == CAP_SET)
			m |= S2C_CAPMASK(v);
	}
	return m;
}

uint64_t privs_effective(void)
{
	_cleanup_(cap_freep) cap_t cur = cap_get_proc();

	return cur ? mask_of(cur, CAP_EFFECTIVE) : 0;
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

int privs_restrict(uint64_t keep, enum privs_flags flags)
{
	_cleanup_(cap_freep) cap_t cur = cap_get_proc();
	_cleanup_(cap_freep) cap_t next = cap_init();
	uint64_t have, want;

	if (!cur || !next)
		return -errno;
	have = mask_of(cur, CAP_PERMITTED);
	want = keep & have;
	if (!(flags & PRIVS_KEEP_BOUNDING) && (mask_of(cur, CAP_EFFECTIVE) & S2C_CAPMASK(CAP_SETPCAP))) {
		cap_value_t last = cap_max_bits();
		for (cap_value_t v = 0; v < last && v < 64; v++)
			if (!(keep & S2C_CAPMASK(v)) && CAP_IS_SUPPORTED(v) && cap_drop_bound(v) < 0)
				return -errno;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	for (cap_value_t v = 0; v < 64; v++) {
		if (!(want & S2C_CAPMASK(v)))
			continue;
		if (cap_set_flag(next, CAP_PERMITTED, 1, &v, CAP_SET) < 0 ||
		    cap_set_flag(next, CAP_EFFECTIVE, 1, &v, CAP_SET) < 0)
			return -errno;
	}
	if (cap_set_proc(next) < 0)
		return -errno;
	if (!(flags & PRIVS_KEEP_BOUNDING) && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	return 0;
}
