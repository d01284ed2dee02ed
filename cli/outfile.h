/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a verb writes its document: -o FILE, or standard output.
 */
#ifndef S2C_CLI_OUTFILE_H
#define S2C_CLI_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/**
 * Where a verb writes its document (-o FILE; "-" or none for stdout).  -o never
 * destroys a file:
 *
 * - a regular file, or a name that does not exist yet, is replaced atomically: a
 *   temporary file ".NAME.XXXXXXXX" in the same directory, fsync, rename over
 *   NAME, fsync of the directory.  A new file is created 0666 under the umask;
 *   an existing one keeps its owner, group and permission bits (set-ID and
 *   sticky bits are dropped).  When the owner or group cannot be kept (the
 *   verbs run without CAP_CHOWN), nothing is written and it is an error: the
 *   file is never given to someone else.  The rename happens only over the
 *   same inode that was looked at (or, for a new name, when the name is still
 *   free), so a file swapped in meanwhile is left alone;
 * - a character device, FIFO or socket is written into: opened with O_WRONLY
 *   without O_CREAT or O_TRUNC (a FIFO waits for a reader), a socket
 *   connected to as a stream; /dev/null stays /dev/null;
 * - a symbolic link is neither followed nor replaced, and a directory, a block
 *   device or anything else is refused; nothing is written.
 *
 * Every message names FILE as given, never the temporary name, and a failure
 * removes the temporary file and leaves the old file as it was.
 */
struct outfile {
	FILE *f;            /**< where to write: stdout, or a stream over @fd */
	char *path;         /**< FILE as given, NULL for stdout */
	char *shown;        /**< FILE as messages name it (shown_path()) */
	char *dir;          /**< its directory, "." for a bare name */
	const char *base;   /**< its last component, inside @path */
	char *tmp;          /**< the temporary file's name in @dirfd, NULL when writing in place */
	int dirfd;          /**< the directory, -1 for stdout */
	int fd;             /**< the temporary file, the device, FIFO or socket, or -1 */
	int error;          /**< first errno of a failed write, 0 when none */
	int guard;          /**< @tmp's registration for removal on a signal (interrupt.h) */
	bool sync_dir;      /**< @dirfd can be fsync'd (opened for reading) */
	bool replace;       /**< an existing file is replaced: @dev and @ino are its identity */
	dev_t dev;
	ino_t ino;
};

/**
 * Open @path (NULL or "-" for stdout) as described above, before anything is
 * written.  @o must stay where it is until outfile_close() (the stream refers to
 * it).  Returns 0, or an exit code after printing (nothing changed).
 */
int outfile_open(struct outfile *o, const char *path);

/**
 * Finish: on @ok flush and, for a replaced file, fsync and rename into place and
 * fsync the directory; otherwise (or when a write failed) remove the temporary
 * file.  Always releases @o.  Returns 0 or an exit code after printing.
 */
int outfile_close(struct outfile *o, bool ok);

#endif /* S2C_CLI_OUTFILE_H */
