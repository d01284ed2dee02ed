/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "capset.h"
#include "common.h"

/* Set @flag for every bit of @mask in @cap.  Returns 0 or -errno. */
static int set_mask(cap_t cap, cap_flag_t flag, uint64_t mask)
{
	for (cap_value_t v = 0; v < 64; v++) {
		if (!(mask & S2C_CAPMASK(v)))
			continue;
		if (cap_set_flag(cap, flag, 1, &v, CAP_SET) < 0)
			return -errno;
	}
	return 0;
}

cap_t capset_from_masks(uint64_t permitted, uint64_t inheritable, uint64_t effective)
{
	_cleanup_capfree_ cap_t cap = cap_init();
	int r;

	if (!cap)
		return NULL;
	r = set_mask(cap, CAP_PERMITTED, permitted);
	if (r == 0)
		r = set_mask(cap, CAP_INHERITABLE, inheritable);
	if (r == 0)
		r = set_mask(cap, CAP_EFFECTIVE, effective);
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	return TAKE_PTR(cap);
}

uint64_t capset_mask(cap_t c, cap_flag_t flag)
{
	uint64_t mask = 0;

	for (cap_value_t v = 0; v < 64; v++) {
		cap_flag_value_t val = CAP_CLEAR;
		if (cap_get_flag(c, v, flag, &val) == 0 && val == CAP_SET)
			mask |= S2C_CAPMASK(v);
	}
	return mask;
}

int capset_parse_list(const char *s, uint64_t *ret, char bad[static CAPSET_NAME_MAX])
{
	uint64_t mask = 0;

	for (const char *p = s;; p++) {
		size_t len = strcspn(p, ",");
		cap_value_t v;

		bad[0] = '\0';
		if (len == 0 || len >= CAPSET_NAME_MAX)
			return -EINVAL;
		memcpy(bad, p, len);
		bad[len] = '\0';
		if (strncmp(bad, "cap_", 4) != 0 || cap_from_name(bad, &v) < 0 || v < 0 || v > 63)
			return -EINVAL;
		mask |= S2C_CAPMASK(v);
		p += len;
		if (!*p)
			break;
	}
	bad[0] = '\0';
	*ret = mask;
	return 0;
}
