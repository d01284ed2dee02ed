/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Learn records on disk: what `suid2cap learn` observed about a program,
 * kept for explain and audit.
 *
 * Records live in the "learn" directory of the root-only state directory
 * (/var/lib/suid2cap/learn beneath the root), one file per program named
 * by the SHA-256 of its content, so a changed binary never inherits what an
 * earlier one was seen to do.  Each is the learn document without its draft
 * rule, written atomically (temporary file, fsync, rename) with mode 0600,
 * and read back strictly: unknown or missing keys, wrong types, a summary
 * that does not follow from the checks, a file name that does not match its
 * hash, and (as root) a file or directory others could have written are
 * all refused with a message naming the file.
 */
#ifndef S2C_LEARN_RECORD_H
#define S2C_LEARN_RECORD_H

#include <stdbool.h>
#include <stddef.h>

struct learn_record;
struct s2c_error;

/** The records' directory inside the state directory. */
#define LEARN_RECORD_DIR "learn"

/**
 * Open the records' directory beneath @rootfd; with @create make it and the
 * state directory (statedir_open()) when absent.  With @trusted refuse a
 * directory not owned by root or accessible by group or others.  @root is the
 * root as the user named it, for messages ("/" or NULL: the running system).
 * Returns 0 with the directory fd in @ret_fd, -ENOENT when absent and not
 * @create, or another -errno with @err.
 */
int learn_dir_open(int rootfd, const char *root, bool create, bool trusted, int *ret_fd,
		   struct s2c_error *err);

/**
 * Write @r to @dirfd/<sha256>.json atomically, mode 0600, replacing an
 * earlier record of the same program.  @ret_name: optional, the file name
 * (a new string).  Returns 0 or -errno with @err.
 */
int learn_record_save(int dirfd, const struct learn_record *r, char **ret_name,
		      struct s2c_error *err);

/**
 * Read the record of the program whose content hashes to @sha256.
 * Returns 0 with a new record in @ret, -ENOENT when there is none, or
 * -errno with "<file>: $.path: message" in @err (-EPERM: not trusted).
 */
int learn_record_load(int dirfd, const char *sha256, bool trusted, struct learn_record **ret,
		      struct s2c_error *err);

/**
 * Parse a stored record from @len bytes at @text; @display names it in
 * messages.  Returns 0 with a new record in @ret, or -EINVAL/-ENOMEM.
 */
int learn_record_parse(const char *text, size_t len, const char *display,
		       struct learn_record **ret, struct s2c_error *err);

#endif /* S2C_LEARN_RECORD_H */
