/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The libcap wrapper (after systemd's capability-util.h): the cleanup for
 * libcap objects and strings, and the conversion between libcap's cap_t and
 * the capability masks (bit n = capability n) the rest of the code uses.
 */
#ifndef S2C_SCANNER_CAPSET_H
#define S2C_SCANNER_CAPSET_H

#include <stdint.h>
#include <sys/capability.h>

#include "cleanup.h"

/* cap_free() takes anything libcap allocated: a cap_t or a string. */
S2C_DEFINE_CLEANUP(capset_freep, cap_t, cap_free)
S2C_DEFINE_CLEANUP(capset_free_textp, char *, cap_free)

/** cap_free() the cap_t on scope exit. */
#define _cleanup_capfree_ _cleanup_(capset_freep)
/** cap_free() a string from cap_to_text()/cap_to_name() on scope exit. */
#define _cleanup_captext_ _cleanup_(capset_free_textp)

/**
 * A new cap_t with @permitted, @inheritable and @effective set (masks).
 * Returns NULL with errno set on failure.
 */
cap_t capset_from_masks(uint64_t permitted, uint64_t inheritable, uint64_t effective);

/** The mask of @flag (CAP_PERMITTED, CAP_EFFECTIVE, CAP_INHERITABLE) in @c. */
uint64_t capset_mask(cap_t c, cap_flag_t flag);

/** Room for a capability name in capset_parse_list()'s @bad, with its NUL. */
#define CAPSET_NAME_MAX 64

/**
 * The mask of a comma list of capability names, "cap_net_raw,cap_chown": the one
 * reader of such lists (--bounding-set, learn's --caps); keywords are the caller's.
 * Returns 0, or -EINVAL with the name that is not a capability in @bad ("" for an
 * empty or over-long one).
 */
int capset_parse_list(const char *s, uint64_t *ret, char bad[static CAPSET_NAME_MAX]);

#endif /* S2C_SCANNER_CAPSET_H */
