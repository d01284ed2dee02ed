/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The privilege order behind the first promise: no change leaves a file with
 * more privilege than it had.
 *
 * A state "after" grants no more than a state "before" when:
 * - it keeps the owner or gives the file to root (a new non-root owner could
 *   rewrite the program);
 * - it gains no set-user-ID or set-group-ID bit, and keeps such a bit only
 *   for the same owner or group;
 * - it gains no permission bit, and a new group gets no more than everyone had;
 * - it carries capabilities only when owned by root and only when the file is
 *   set-user-ID root today (any set is narrower than root) or already has
 *   those capabilities (narrowing);
 * - its risk grade, from the capability table, is not higher.
 * Setting a root-equivalent capability set ("setuid in disguise") is a change
 * a person must accept explicitly, even where it is no worse than setuid root.
 *
 * The engine checks every decision with it, and apply, verify --fix and the
 * emitted scripts' makers check every change with it again, on the state the
 * file has at that moment.
 */
#ifndef S2C_RULES_PRIVCHECK_H
#define S2C_RULES_PRIVCHECK_H

#include "captable.h"

struct file_state;
struct s2c_error;

/** What privcheck() accepts beyond the order. */
enum privcheck_flags {
	PRIVCHECK_ROOT_EQUIVALENT = 1 << 0, /**< a root-equivalent capability set may be set */
};

/**
 * The risk a file in state @s carries: root for set-user-ID root, dangerous
 * for set-user-ID to another user or set-group-ID to group 0, low for other
 * set-group-ID files, and the capability table's grade of its capabilities
 * (capabilities in a foreign user namespace, or malformed ones, grant
 * nothing here).  The highest applies.
 */
enum risk privcheck_risk(const struct captable *t, const struct file_state *s);

/**
 * Check that @after grants no more than @before (see above).
 * Returns 0; -EPERM with the reason in @err ("it would gain the
 * set-user-ID bit", …) when it grants more, or when it sets a root-equivalent
 * capability set without PRIVCHECK_ROOT_EQUIVALENT (then -EACCES, so callers
 * can say which flag accepts it); -EINVAL when @after's capability attribute
 * is malformed.
 */
int privcheck(const struct captable *t, const struct file_state *before,
	      const struct file_state *after, enum privcheck_flags flags, struct s2c_error *err);

#endif /* S2C_RULES_PRIVCHECK_H */
