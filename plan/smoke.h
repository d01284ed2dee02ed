/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The smoke test of a migrated program: run its rule's harmless command as an
 * unprivileged user, with a time limit, to prove it still works with only its
 * file capabilities.  The program is executed through the very fd whose
 * identity was checked (execveat AT_EMPTY_PATH), so no path can be swapped in
 * between.
 *
 * Internal: apply applyrun restore smoke preflight.
 */
#ifndef S2C_PLAN_SMOKE_H
#define S2C_PLAN_SMOKE_H

#include <stddef.h>
#include <sys/types.h>

/** Longest output kept from a smoke test. */
#define SMOKE_OUTPUT_MAX 2048

/**
 * Run the @argc elements of @argv ("{}" elements are replaced by @display_path)
 * by executing the open file @fd as @uid/@gid with no supplementary groups,
 * stdin from /dev/null, a minimal environment, for at most @timeout seconds.
 * @ret_output  optional: a new string with what it printed (truncated).
 * Returns 0 when it exited 0; a positive exit status; -ETIMEDOUT; -EINTR when
 * killed by a signal; other -errno when it could not be started.
 */
int smoke_run(int fd, const char *display_path, char *const *argv, size_t argc, uid_t uid,
	      gid_t gid, unsigned timeout, char **ret_output);

#endif /* S2C_PLAN_SMOKE_H */
