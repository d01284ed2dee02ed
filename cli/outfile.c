/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -o FILE: output that never destroys a file (outfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
#include "outfile.h"
#include "util.h"
#include "common.h"

/*
 * The stream under -o writes straight to the fd and keeps the first error, so the
 * message can say why (stdio's error flag forgets errno, and the renderers only
 * see "an error happened").
 */
static ssize_t outfile_write(void *cookie, const char *buf, size_t size)
{
	struct outfile *o = cookie;
	size_t done = 0;

	while (done < size && !o->error) {
		ssize_t n = write(o->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->error = n < 0 ? errno : EIO;
		else
			done += (size_t)n;
	}
	return o->error ? 0 : (ssize_t)done;    /* 0 tells stdio it failed */
}

/* Forget everything the outfile holds; the temporary file must be gone already. */
static void outfile_release(struct outfile *o)
{
	interrupt_forget(o->guard);
	if (o->fd >= 0)
		(void)close(o->fd);
	if (o->dirfd >= 0)
		(void)close(o->dirfd);
	free(o->path);
	free(o->shown);
	free(o->dir);
	free(o->tmp);
	*o = (struct outfile){ .f = stdout, .fd = -1, .dirfd = -1 };
}

/* Split o->path into its directory (opened as o->dirfd) and o->base. */
static int open_dir(struct outfile *o)
{
	char *slash = strrchr(o->path, '/');

	o->base = slash ? slash + 1 : o->path;
	if (!*o->base || s2c_streq(o->base, ".") || s2c_streq(o->base, "..")) {
		log_error("cannot write '%s': %s", o->shown, strerror(EISDIR));
		return S2C_EXIT_FAILURE;
	}
	o->dir = slash == o->path ? strdup("/") :
		 slash ? strndup(o->path, (size_t)(slash - o->path)) : strdup(".");
	if (!o->dir) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	/* Read access lets us fsync the directory after the rename; search access is enough
	 * for everything else. */
	o->dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	o->sync_dir = o->dirfd >= 0;
	if (o->dirfd < 0 && errno == EACCES)
		o->dirfd = open(o->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0) {
		log_error("cannot write '%s': opening its directory: %s", o->shown, strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

/*
 * A character device, FIFO or socket is written into, never replaced: opened without
 * O_CREAT or O_TRUNC (a FIFO waits for its reader, as a shell's ">" does), then checked to
 * be the node that was looked at.  A socket is reached through an O_PATH fd of that very
 * node, so a symlink swapped in meanwhile is not followed.
 */
static int open_stream(struct outfile *o, const struct stat *st)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat now;
	_cleanup_close_ int pfd = -1;

	if (!S_ISSOCK(st->st_mode)) {
		o->fd = openat(o->dirfd, o->base, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
		if (o->fd < 0 || fstat(o->fd, &now) < 0) {
			log_error("cannot write '%s': opening it: %s", o->shown, strerror(errno));
			return S2C_EXIT_FAILURE;
		}
	} else {
		pfd = openat(o->dirfd, o->base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pfd < 0 || fstat(pfd, &now) < 0) {
			log_error("cannot write '%s': opening it: %s", o->shown, strerror(errno));
			return S2C_EXIT_FAILURE;
		}
	}
	if ((now.st_mode & S_IFMT) != (st->st_mode & S_IFMT) || now.st_dev != st->st_dev ||
	    now.st_ino != st->st_ino) {
		log_error("'%s' changed while it was opened, not writing it", o->shown);
		return S2C_EXIT_FAILURE;
	}
	if (pfd < 0)
		return 0;
	(void)snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", pfd);
	o->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (o->fd < 0 || connect(o->fd, (const struct sockaddr *)&sa, sizeof(sa)) < 0) {
		log_error("cannot write '%s': connecting to the socket: %s", o->shown,
			  strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

/* Why the temporary file beside o->shown cannot be made; returns S2C_EXIT_FAILURE. */
static int tmp_error(const struct outfile *o, int e)
{
	log_error("cannot write '%s': creating a temporary file beside it: %s", o->shown,
		  strerror(e));
	return S2C_EXIT_FAILURE;
}

/*
 * A new name in o->dirfd for the temporary file: ".<base>.XXXXXXXX", created with O_EXCL.
 * Returns 0, or S2C_EXIT_FAILURE after printing why.
 */
static int create_tmp(struct outfile *o, mode_t mode)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[8];
	char suffix[sizeof(rnd) + 1];
	int e = EEXIST;

	for (unsigned attempt = 0; attempt < 100 && e == EEXIST; attempt++) {
		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return tmp_error(o, errno);
		for (size_t i = 0; i < sizeof(rnd); i++)
			suffix[i] = alnum[rnd[i] % (sizeof(alnum) - 1)];
		suffix[sizeof(rnd)] = '\0';
		free(o->tmp);
		/* A long base is cut so the name stays under NAME_MAX. */
		if (asprintf(&o->tmp, ".%.200s.%s", o->base, suffix) < 0) {
			o->tmp = NULL;
			return tmp_error(o, ENOMEM);
		}
		/* Made and registered in one step: a signal removes it whenever it comes. */
		interrupt_hold();
		o->fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       mode);
		e = o->fd < 0 ? errno : 0;
		if (o->fd >= 0 && interrupt_register(o->dirfd, o->tmp, false, &o->guard)) {
			(void)unlinkat(o->dirfd, o->tmp, 0);
			interrupt_release();
			return S2C_EXIT_FAILURE;
		}
		interrupt_release();
	}
	if (e == 0)
		return 0;
	free(o->tmp);
	o->tmp = NULL;
	return tmp_error(o, e);
}

/*
 * A regular file, or a name that does not exist yet: written to a temporary file in the
 * same directory and renamed over it by outfile_close().  A new file is created 0666
 * under the umask (and a default ACL), like a shell's ">" would; an existing one's owner,
 * group and permission bits are put on the temporary file before anything is written to
 * it (it starts as 0600), and when they cannot be (no CAP_CHOWN), nothing is written.
 */
static int open_replacement(struct outfile *o, const struct stat *st)
{
	struct stat tst;
	int ex = create_tmp(o, st ? 0600 : 0666);

	if (ex || !st)
		return ex;
	o->replace = true;
	o->dev = st->st_dev;
	o->ino = st->st_ino;
	if (fstat(o->fd, &tst) < 0) {
		log_error("cannot write '%s': reading back its temporary file: %s", o->shown,
			  strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	if ((tst.st_uid != st->st_uid || tst.st_gid != st->st_gid) &&
	    fchown(o->fd, st->st_uid, st->st_gid) < 0) {
		log_error("cannot replace '%s' keeping its owner and group (%u:%u): %s; remove it "
			  "first or write elsewhere", o->shown, (unsigned)st->st_uid,
			  (unsigned)st->st_gid, strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	/* The permission bits; a report never needs set-ID or sticky bits. */
	if (fchmod(o->fd, st->st_mode & 0777) < 0) {
		log_error("cannot replace '%s' keeping its mode %04o: %s", o->shown,
			  (unsigned)(st->st_mode & 0777), strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

static int open_target(struct outfile *o)
{
	struct stat st;
	int ex = open_dir(o);

	if (ex)
		return ex;
	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return open_replacement(o, NULL);
		log_error("cannot write '%s': %s", o->shown, strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		return open_replacement(o, &st);
	case S_IFCHR:
	case S_IFIFO:
	case S_IFSOCK:
		return open_stream(o, &st);
	case S_IFLNK:
		log_error("'%s' is a symbolic link: -o neither follows nor replaces one", o->shown);
		return S2C_EXIT_FAILURE;
	case S_IFDIR:
		log_error("cannot write '%s': %s", o->shown, strerror(EISDIR));
		return S2C_EXIT_FAILURE;
	default:
		log_error("'%s' is a %s: -o writes only to a regular file, a character device, a "
			  "FIFO or a socket", o->shown, S_ISBLK(st.st_mode) ? "block device" :
			  "special file");
		return S2C_EXIT_FAILURE;
	}
}

int outfile_open(struct outfile *o, const char *path)
{
	static const cookie_io_functions_t io = { .write = outfile_write };
	int ex;

	*o = (struct outfile){ .f = stdout, .fd = -1, .dirfd = -1 };
	if (!path || s2c_streq(path, "-"))
		return 0;
	o->path = strdup(path);
	o->shown = shown_path(path);
	if (!o->path || !o->shown) {
		log_error("out of memory");
		outfile_release(o);
		return S2C_EXIT_FAILURE;
	}
	ex = open_target(o);
	if (!ex) {
		o->f = fopencookie(o, "w", io);
		if (!o->f) {
			log_error("cannot write '%s': %s", o->shown, strerror(errno));
			ex = S2C_EXIT_FAILURE;
		}
	}
	if (ex) {
		o->f = NULL;    /* stdout or nothing: not ours to close */
		(void)outfile_close(o, false);
	}
	return ex;
}

/*
 * Put the finished temporary file in place of o->base, but only over what was there when
 * the report began: the same regular file, or nothing.
 */
static int put_in_place(struct outfile *o)
{
	struct stat st;
	int r;

	if (o->replace) {
		if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_dev != o->dev || st.st_ino != o->ino) {
			log_error("'%s' changed while the report was written, leaving it alone",
				  o->shown);
			return S2C_EXIT_FAILURE;
		}
		r = renameat(o->dirfd, o->tmp, o->dirfd, o->base);
	} else {
		r = renameat2(o->dirfd, o->tmp, o->dirfd, o->base, RENAME_NOREPLACE);
		if (r < 0 && (errno == EINVAL || errno == ENOSYS)) {
			/* A filesystem without RENAME_NOREPLACE: look, then rename. */
			if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) == 0)
				errno = EEXIST;
			else if (errno == ENOENT)
				r = renameat(o->dirfd, o->tmp, o->dirfd, o->base);
		}
		if (r < 0 && errno == EEXIST) {
			log_error("'%s' was created while the report was written, leaving it alone",
				  o->shown);
			return S2C_EXIT_FAILURE;
		}
	}
	if (r < 0) {
		log_error("cannot write '%s': renaming its temporary file into place: %s", o->shown,
			  strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

int outfile_close(struct outfile *o, bool ok)
{
	int ex = 0;

	if (!o->path)
		return 0;       /* stdout is checked at exit */
	if (o->f) {
		if (ok && fflush(o->f) != 0 && !o->error)
			o->error = EIO;
		(void)fclose(o->f);     /* no close function: the fd stays ours */
		o->f = NULL;
	}
	if (o->error) {
		log_error("cannot write '%s': writing: %s", o->shown, strerror(o->error));
		ok = false;
	}
	if (ok && o->tmp && fsync(o->fd) < 0) {
		log_error("cannot write '%s': syncing it to disk: %s", o->shown, strerror(errno));
		ok = false;
	}
	if (o->fd >= 0 && close(TAKE_FD(o->fd)) < 0 && ok && o->tmp) {
		log_error("cannot write '%s': closing it: %s", o->shown, strerror(errno));
		ok = false;
	}
	if (ok && o->tmp) {
		ex = put_in_place(o);
		if (!ex) {
			free(TAKE_PTR(o->tmp));
			/* The rename is durable only once the directory is. */
			if (o->sync_dir && fsync(o->dirfd) < 0 && errno != EINVAL) {
				log_error("cannot write '%s': syncing its directory: %s", o->shown,
					  strerror(errno));
				ex = S2C_EXIT_FAILURE;
			}
		}
	} else if (!ok) {
		ex = S2C_EXIT_FAILURE;
	}
	if (o->tmp)
		(void)unlinkat(o->dirfd, o->tmp, 0);
	outfile_release(o);     /* after the rename or unlink: forgets the registration */
	return ex;
}
