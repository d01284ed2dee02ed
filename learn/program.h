/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The program `suid2cap learn` runs: found beneath the root (a path, its
 * symbolic links followed only inside the root, or a bare name in a fixed
 * search path), opened once, and read through that fd (SHA-256, "#!"), so
 * what runs is what was hashed and decided about.
 */
#ifndef S2C_LEARN_PROGRAM_H
#define S2C_LEARN_PROGRAM_H

#include <stdbool.h>

#include "hash.h"

struct s2c_error;

/** The program to run.  Release with learn_program_release(). */
struct learn_program {
	int fd;                      /**< open for reading, and for execveat(); -1 when none */
	char *path;                  /**< canonical, absolute beneath the root */
	char sha256[HASH_HEX_LEN];   /**< set by learn_program_inspect() */
	bool script;                 /**< starts with "#!" (learn_program_inspect()) */
};

/**
 * Find and open @name beneath @rootfd, the root whose real path is
 * @root_real ("/" for the running system).  A name with a slash is that path
 * beneath the root, its symbolic links followed inside the root only (a
 * relative one relative to @cwd, the directory it was given in; NULL: a
 * relative path is refused); a bare name is the first executable regular
 * file of that name in /usr/local/sbin, /usr/local/bin, /usr/sbin, /usr/bin,
 * /sbin and /bin beneath the root.
 * Returns 0 with @ret's fd and path set; -EINVAL (a relative path without
 * @cwd), -ENOENT (not found) or the -errno of opening it, with @err naming
 * it: the command line named nothing usable; -EXDEV (with @err) when where
 * the opened file is beneath the root cannot be told, or -ENOMEM.
 */
int learn_program_find(int rootfd, const char *root_real, const char *name, const char *cwd,
		       struct learn_program *ret, struct s2c_error *err);

/**
 * Read @p through its fd: its SHA-256 and whether it is a "#!" script.
 * Returns 0; -ENOEXEC when it is not an executable regular file; or another
 * -errno when it cannot be read; each with @err naming it.
 */
int learn_program_inspect(struct learn_program *p, struct s2c_error *err);

/** Close and free what @p holds (for _cleanup_); @p->fd is -1 afterwards. */
void learn_program_release(struct learn_program *p);

#endif /* S2C_LEARN_PROGRAM_H */
