/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one trust test for a file a privileged run acts on, after OpenBSD
 * doas's check of doas.conf: owned by root, and not writable (or, for private
 * records, not even readable) by group or others.  Rules, plans, exclude lists
 * and the directories above a changed file must not be writable by anyone but
 * root; journals, the state file and the state directory hold the way back
 * and must not be accessible by anyone but root at all.
 */
#ifndef S2C_COMMON_TRUST_H
#define S2C_COMMON_TRUST_H

#include <stdint.h>

struct s2c_error;
struct stat;

/** How strict the test is. */
enum trust_policy {
	TRUST_SHARED,   /**< root-owned, not writable by group or others */
	TRUST_PRIVATE,  /**< root-owned, no access at all by group or others */
	_TRUST_POLICY_MAX,
};

/** What is wrong with a file under a policy. */
enum trust_problem {
	TRUST_OK,
	TRUST_NOT_ROOT,         /**< not owned by root */
	TRUST_WRITABLE,         /**< writable by group or others */
	TRUST_ACCESSIBLE,       /**< readable or searchable by group or others (private policy) */
};

/** The test itself: what is wrong with owner @uid and mode @mode under @policy. */
enum trust_problem trust_test(uint32_t uid, uint32_t mode, enum trust_policy policy);

/**
 * Test a file with owner @uid and mode @mode against @policy.
 * @what     what the file is, for the message ("plan", "journal", "directory")
 * @display  its name as the user knows it (escaped by whoever prints it)
 * Returns 0, or -EPERM with "<what> '<display>' is not owned by root, refusing
 * it" (or "... is writable by group or others ...", "... is accessible by
 * group or others (mode 0644) ...") in @err.
 */
int trust_check(uint32_t uid, uint32_t mode, enum trust_policy policy, const char *what,
		const char *display, struct s2c_error *err);

/** trust_check() on fstat(@fd); -errno when it cannot be stat'ed. */
int trust_check_fd(int fd, enum trust_policy policy, const char *what, const char *display,
		   struct s2c_error *err);

#endif /* S2C_COMMON_TRUST_H */
