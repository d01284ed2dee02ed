/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The operations that change a privileged file, each on an fd whose identity
 * was checked, in the one order that never grants more than before.
 *
 * - Opening: beneath the root, no symlink at any component, every parent
 *   directory owned by root and not writable by group or others (a parent
 *   someone else can write lets them swap the file after our checks).
 * - Reading the state: owner, group, mode and the exact security.capability
 *   bytes, from the fd.
 * - Writing a state: ownership first (chown clears capabilities and set-ID
 *   bits); then, when set-ID bits are taken away, the capabilities before the
 *   mode, and when they come back, the mode before the capabilities, so the
 *   file never has neither; then read back and compare.
 */
#ifndef S2C_PLAN_FILEOP_H
#define S2C_PLAN_FILEOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "journal.h"

struct fcaps;
struct s2c_error;

/**
 * Open @path beneath @rootfd for a change: O_RDONLY|O_NOFOLLOW, regular file
 * only, every directory on the way owned by root and not writable by group or
 * others.  @ret_st receives fstat() of the opened file.
 * Returns the fd or -errno with the reason in @err (-ELOOP for a symlink,
 * -EPERM for an unsafe parent).
 */
int fileop_open(int rootfd, const char *path, struct stat *ret_st, struct s2c_error *err);

/**
 * Open the directory containing @path beneath @rootfd, with the same checks.
 * Returns the fd or -errno.
 */
int fileop_open_parent(int rootfd, const char *path, struct s2c_error *err);

/** Test-only crash points: called between the steps with a step name. */
typedef void (*fileop_step_fn)(void *userdata, const char *step);

/**
 * Give the open file @fd the state @want, from its current state @now:
 * fchown when owner or group differ; then the capability attribute (set with
 * libcap's cap_set_fd, or the exact bytes with @exact, or removed) and the
 * mode, in the order that never leaves the file with neither set-ID bits
 * nor capabilities; read back and compare.
 * @step     optional callback between steps (crash tests).
 * Returns 0, or -errno with the step that failed in @err.
 */
int fileop_write(int fd, const struct file_state *now, const struct file_state *want,
		 bool exact, fileop_step_fn step, void *userdata, struct s2c_error *err);

/** The most states fileop_stops() returns. */
#define FILEOP_STOPS_MAX 5

/**
 * Every state fileop_write() can leave a file in, on its way from @from to
 * @want, when it stops between two steps (a crash, a failed step): after the
 * chown (both forms where kernels differ), after the first of capabilities
 * and mode, and @want itself.  Capabilities are @want's bytes; compare with
 * filestate_same(), as libcap may write another form.
 * Returns the number of states written to @ret (at most FILEOP_STOPS_MAX).
 */
size_t fileop_stops(const struct file_state *from, const struct file_state *want,
		    struct file_state ret[FILEOP_STOPS_MAX]);

#endif /* S2C_PLAN_FILEOP_H */
