/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <sys/stat.h>

#include "trust.h"
#include "common.h"

enum trust_problem trust_test(uint32_t uid, uint32_t mode, enum trust_policy policy)
{
	if (uid != 0)
		return TRUST_NOT_ROOT;
	if (policy == TRUST_PRIVATE && (mode & 077))
		return TRUST_ACCESSIBLE;
	if (mode & (S_IWGRP | S_IWOTH))
		return TRUST_WRITABLE;
	return TRUST_OK;
}

int trust_check(uint32_t uid, uint32_t mode, enum trust_policy policy, const char *what,
		const char *display, struct s2c_error *err)
{
	switch (trust_test(uid, mode, policy)) {
	case TRUST_NOT_ROOT:
		return s2c_error_set(err, -EPERM, "%s '%s' is not owned by root, refusing it", what,
				     display);
	case TRUST_ACCESSIBLE:
		return s2c_error_set(err, -EPERM, "%s '%s' is accessible by group or others "
				     "(mode %04o), refusing it", what, display, mode & 07777);
	case TRUST_WRITABLE:
		return s2c_error_set(err, -EPERM, "%s '%s' is writable by group or others, refusing it",
				     what, display);
	default:
		return 0;
	}
}

int trust_check_fd(int fd, enum trust_policy policy, const char *what, const char *display,
		   struct s2c_error *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat %s '%s'", what, display);
	return trust_check(st.st_uid, st.st_mode, policy, what, display, err);
}
