/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binary.h"
#include "elfinfo.h"
#include "facts.h"
#include "fileid.h"
#include "hash.h"
#include "resolve.h"
#include "common.h"

/* Record why the content could not be read; returns @code, or -ENOMEM. */
S2C_PRINTF(3, 4) static int fail(struct binary *b, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&b->error, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->error = NULL;
		return -ENOMEM;
	}
	return code;
}

/* Open @name in @dirfd and check it is still the inode the scan saw. */
static int open_checked(int dirfd, const char *name, const struct facts *f, int *ret_fd,
			struct binary *b)
{
	struct file_id scanned, now;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		int r = -errno;
		return fail(b, r, "cannot open: %s", strerror(-r));
	}
	facts_file_id(f, NULL, &scanned);
	if (fileid_read(fd, false, &now) < 0 || fileid_diff(&scanned, &now, FILEID_INODE)) {
		(void)close(fd);
		return fail(b, -ESTALE, "the file changed since it was scanned");
	}
	*ret_fd = fd;
	return 0;
}

/* Hash the open file and read its ELF facts into @b. */
static int read_content(int fd, int rootfd, const struct facts *f,
			const struct binary_wants *want, struct binary *b)
{
	struct elfinfo_options o = {
		.rootfd = rootfd,
		.strings = want ? want->strings : NULL,
		.prefixes = want ? want->prefixes : NULL,
		.symbols = want ? want->symbols : NULL,
		.path = f->path,
	};
	struct s2c_error err = { 0 };
	char hex[HASH_HEX_LEN];
	int r;

	if (hash_fd_sha256(fd, hex) == 0 && !(b->sha256 = strdup(hex)))
		return -ENOMEM;
	r = elfinfo_load_fd(fd, &o, &b->elf, &err);
	if (r == -ENOMEM)
		return -ENOMEM;
	if (r < 0 && !(b->error = strdup(err.msg[0] ? err.msg : strerror(-r))))
		return -ENOMEM;
	if (b->elf && b->elf->kind != ELFINFO_ELF) {
		b->error = strdup(b->elf->kind == ELFINFO_SCRIPT ? "a script" : "not an ELF file");
		b->elf = elfinfo_free(b->elf);
		if (!b->error)
			return -ENOMEM;
	}
	return 0;
}

/* Open and read; the result always says something unless memory ran out. */
static int read_opened(int rootfd, int dirfd, const char *name, const struct facts *f,
		       const struct binary_wants *want, struct binary *ret)
{
	struct binary b = { 0 };
	_cleanup_close_ int fd = -1;
	int r = open_checked(dirfd, name, f, &fd, &b);

	if (r == -ENOMEM || (r < 0 && !b.error) ||
	    (r == 0 && read_content(fd, rootfd, f, want, &b) < 0)) {
		binary_release(&b);
		return -ENOMEM;
	}
	*ret = b;
	return 0;
}

int binary_read(int rootfd, const struct facts *f, const struct binary_wants *want,
		struct binary *ret)
{
	const char *name;
	_cleanup_close_ int dfd = resolve_open_parent(rootfd, f->path, &name);

	if (dfd < 0) {
		struct binary b = { 0 };

		if (fail(&b, dfd, "cannot open its directory: %s", strerror(-dfd)) == -ENOMEM) {
			binary_release(&b);
			return -ENOMEM;
		}
		*ret = b;
		return 0;
	}
	return read_opened(rootfd, dfd, name, f, want, ret);
}

int binary_read_at(int rootfd, int dirfd, const char *name, const struct facts *f,
		   const struct binary_wants *want, struct binary *ret)
{
	return read_opened(rootfd, dirfd, name, f, want, ret);
}

void binary_release(struct binary *b)
{
	free(b->sha256);
	elfinfo_free(b->elf);
	free(b->error);
	memset(b, 0, sizeof(*b));
}
