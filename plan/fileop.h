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

/** Read the state of the open file @fd.  Returns 0 or -errno. */
int fileop_read(int fd, struct journal_state *ret);

/** True when two states are identical (owner, group, mode, exact xattr bytes). */
bool fileop_state_equal(const struct journal_state *a, const struct journal_state *b);

/** Fill @s's capability attribute from @caps (v2 bytes as the kernel stores them). */
void fileop_state_caps(struct journal_state *s, const struct fcaps *caps);

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
int fileop_write(int fd, const struct journal_state *now, const struct journal_state *want,
		 bool exact, fileop_step_fn step, void *userdata, struct s2c_error *err);

/** "4755 0:0 cap_net_raw=ep" style description of a state, into @buf. */
void fileop_describe(const struct journal_state *s, char *buf, size_t size);

#endif /* S2C_PLAN_FILEOP_H */
