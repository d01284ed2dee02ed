/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state directory: S2C_STATEDIR (/var/lib/suid2cap) beneath a root, where
 * apply keeps its journals and state.json (plan/journal.h, plan/state.h) and
 * learn its records (learn/record.h).
 *
 * It is root-only: the directory and the directories in it are mode 0700 and
 * owned by root, checked before every use.  What is missing of the path is
 * made the way package managers make their directories: one component at a
 * time, fd-relative, never through a symbolic link, each with exactly its
 * mode whatever the umask.  The runs that change what it holds (apply,
 * rollback, verify --forget) take its lock first, so two never interleave.
 */
#ifndef S2C_COMMON_STATEDIR_H
#define S2C_COMMON_STATEDIR_H

#include <stdbool.h>

struct s2c_error;

/**
 * The state directory as messages name it: S2C_STATEDIR beneath @root, the
 * root as the user named it ("/" or NULL for the running system), followed by
 * "/@name" unless @name is NULL.  Returns a new string or NULL on OOM.
 */
char *statedir_shown(const char *root, const char *name);

/**
 * Open the state directory beneath @rootfd.  With @create, what is missing of
 * the path is made as the header says, owned by the caller, the directories
 * above the state directory 0755 and the state directory 0700 (an existing
 * one is set to 0700 again).  A component that is a symbolic link or not a
 * directory is refused; with @trusted, so is one not owned by root or writable
 * by group or others (the state directory: accessible by them at all).
 * Without @create nothing is ever made.
 * @root   the root as the user named it, for messages ("/" or NULL for the
 *         running system); every message names the full path beneath it.
 * @ret_fd the state directory (a real fd, so what is made in it can be fsync'd).
 * Returns 0, -ENOENT when absent and not @create (with a message in @err), or
 * another -errno with @err.
 */
int statedir_open(int rootfd, const char *root, bool create, bool trusted, int *ret_fd,
		  struct s2c_error *err);

/**
 * Open the directory @name inside the state directory @dirfd, made 0700 when
 * absent and @create, and held to the state directory's rules: not a
 * symbolic link, a directory, and with @trusted owned by root and not
 * accessible by group or others.
 * @root   as in statedir_open(), for messages.
 * @what   what the directory is, for messages ("journal directory").
 * Returns 0 with @ret_fd, -ENOENT when absent and not @create (@err left
 * alone), or another -errno with @err.
 */
int statedir_open_sub(int dirfd, const char *root, const char *name, const char *what,
		      bool create, bool trusted, int *ret_fd, struct s2c_error *err);

/**
 * Take the state directory's lock (flock(2) on @dirfd, exclusive, not
 * waiting) for as long as @dirfd is open: the one lock of every run that
 * changes journals or state.json.
 * @shown  the state directory as messages name it (statedir_shown()).
 * Returns 0, or -EWOULDBLOCK ("another apply, rollback or verify is running
 * on '...'") or another -errno with @err.
 */
int statedir_lock(int dirfd, const char *shown, struct s2c_error *err);

#endif /* S2C_COMMON_STATEDIR_H */
