/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <archive.h>
#include <archive_entry.h>

#include "arread.h"
#include "member.h"
#include "stage.h"
#include "util.h"
#include "common.h"

/* Bytes per read from a file descriptor. */
#define ARREAD_BLOCK (256u << 10)

static const char *aerr(struct archive *a)
{
	const char *s = archive_error_string(a);
	return s ? s : "unknown error";
}

/* Set @err to libarchive's message for @a, its first word in lower case as ours are. */
int arread_error(struct s2c_error *err, int code, struct archive *a)
{
	int r = s2c_error_set(err, code, "%s", aerr(a));

	if (err && err->msg[0] >= 'A' && err->msg[0] <= 'Z' && err->msg[1] >= 'a' &&
	    err->msg[1] <= 'z')
		err->msg[0] = (char)(err->msg[0] - 'A' + 'a');
	return r;
}

/* Whether libarchive decodes filter @i itself (ARCHIVE_OK), not through a program. */
static bool builtin_filter(int (*add)(struct archive *))
{
	struct archive *probe = archive_read_new();
	bool ok = probe && add(probe) == ARCHIVE_OK;

	if (probe)
		archive_read_free(probe);
	return ok;
}

void archive_freep(struct archive **a)
{
	if (*a)
		archive_read_free(*a);
}

int arread_new(enum arread_format format, struct archive **ret)
{
	/* Only filters libarchive implements itself: ARCHIVE_WARN would mean it falls back to
	 * running an external program, which a reader of untrusted archives must never do. */
	static int (*const filters[])(struct archive *) = {
		archive_read_support_filter_gzip, archive_read_support_filter_bzip2,
		archive_read_support_filter_xz, archive_read_support_filter_lzma,
		archive_read_support_filter_zstd,
	};
	struct archive *a = archive_read_new();
	int r;

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < S2C_ELEMENTSOF(filters); i++)
		if (builtin_filter(filters[i]) && filters[i](a) != ARCHIVE_OK) {
			archive_read_free(a);
			return -ENOMEM;
		}
	switch (format) {
	case ARREAD_AR:
		r = archive_read_support_format_ar(a);
		break;
	case ARREAD_CPIO:
		r = archive_read_support_format_cpio(a);
		break;
	case ARREAD_RAW:
		r = archive_read_support_format_raw(a);
		break;
	case ARREAD_TAR:
	default:
		r = archive_read_support_format_tar(a);
		break;
	}
	if (r != ARCHIVE_OK) {
		archive_read_free(a);
		return -ENOMEM;
	}
	*ret = a;
	return 0;
}

int arread_open_fd(struct archive *a, int fd, struct s2c_error *err)
{
	if (archive_read_open_fd(a, fd, ARREAD_BLOCK) != ARCHIVE_OK)
		return arread_error(err, -EIO, a);
	return 0;
}

int arread_open_memory(struct archive *a, const void *data, size_t size, struct s2c_error *err)
{
	if (archive_read_open_memory(a, data, size) != ARCHIVE_OK)
		return arread_error(err, -EIO, a);
	return 0;
}

/* The nested reader's source: the data blocks of the outer archive's entry. */
struct nested {
	struct archive *outer;
	int64_t offset;         /* next offset expected */
};

static la_ssize_t nested_read(struct archive *a, void *data, const void **buf)
{
	struct nested *n = data;
	const void *b;
	size_t size;
	la_int64_t off;
	int r = archive_read_data_block(n->outer, &b, &size, &off);

	if (r == ARCHIVE_EOF)
		return 0;
	if (r < ARCHIVE_WARN) {
		archive_set_error(a, EIO, "%s", aerr(n->outer));
		return -1;
	}
	if (off != n->offset) {
		/* A sparse member: holes would need zeros; no real archive nests one. */
		archive_set_error(a, EIO, "the nested archive is stored sparse");
		return -1;
	}
	n->offset += (int64_t)size;
	*buf = b;
	return (la_ssize_t)size;
}

static int nested_close(struct archive *a, void *data)
{
	(void)a;
	free(data);
	return ARCHIVE_OK;
}

int arread_open_nested(struct archive *inner, struct archive *outer, struct s2c_error *err)
{
	struct nested *n = calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	n->outer = outer;
	/* archive_read_open() calls the close callback (and frees n) on failure too. */
	if (archive_read_open(inner, n, NULL, nested_read, nested_close) != ARCHIVE_OK)
		return arread_error(err, -EIO, inner);
	return 0;
}

int arread_next(struct archive *a, struct arread_budget *b, struct archive_entry **ret,
		struct s2c_error *err)
{
	struct archive_entry *e;
	int r = archive_read_next_header(a, &e);
	la_int64_t size;

	if (r == ARCHIVE_EOF)
		return 0;
	if (r < ARCHIVE_WARN)
		return arread_error(err, -EIO, a);
	if (++b->members > b->lim->max_members)
		return s2c_error_set(err, -EFBIG, "more than %llu entries",
				     (unsigned long long)b->lim->max_members);
	size = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
	if (size < 0)
		return s2c_error_set(err, -EIO, "an entry with a negative size");
	if ((uint64_t)size > b->lim->max_unpacked - b->unpacked)
		return s2c_error_set(err, -EFBIG, "more than %llu bytes to unpack (a decompression "
				     "bomb, or raise --max-unpacked)",
				     (unsigned long long)b->lim->max_unpacked);
	b->unpacked += (uint64_t)size;
	*ret = e;
	return 1;
}

static int entry_caps(struct archive_entry *e, struct member *m)
{
	const char *name;
	const void *value;
	size_t size;

	if (archive_entry_xattr_reset(e) <= 0)
		return 0;
	while (archive_entry_xattr_next(e, &name, &value, &size) == ARCHIVE_OK) {
		if (!name || !s2c_streq(name, "security.capability"))
			continue;
		/* an oversized one is said to be there, without its bytes */
		if (member_set_caps(m, value ? value : "", size) < 0)
			return -ENOMEM;
	}
	return 0;
}

static uint32_t clamp_id(la_int64_t id)
{
	/* Ids outside uid_t cannot exist on a system; keep them visible as the largest id. */
	return id < 0 || id > (la_int64_t)UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)id;
}

int arread_member(struct archive_entry *e, struct member **ret, struct s2c_error *err)
{
	const char *name = archive_entry_pathname(e);
	const char *hard = archive_entry_hardlink(e);
	const char *sym = archive_entry_symlink(e);
	_cleanup_free_ char *path = NULL;
	struct member *m;
	int r;

	if (!name)
		return s2c_error_set(err, -EINVAL, "an entry without a name");
	r = member_path(name, &path, err);
	if (r < 0)
		return r;
	m = member_new(path);
	if (!m)
		return -ENOMEM;
	m->mode = (uint32_t)archive_entry_perm(e) & 07777;
	m->size = archive_entry_size(e) > 0 ? (uint64_t)archive_entry_size(e) : 0;
	m->mtime = archive_entry_mtime(e);
	if (member_set_owner(m, archive_entry_uname(e), archive_entry_gname(e),
			     clamp_id(archive_entry_uid(e)), clamp_id(archive_entry_gid(e))) < 0) {
		member_free(m);
		return -ENOMEM;
	}
	if (hard) {
		m->type = MEMBER_HARDLINK;
		r = member_path(hard, &m->target, err);
		if (r < 0) {
			member_free(m);
			return r;
		}
	} else {
		switch (archive_entry_filetype(e)) {
		case AE_IFREG:
			m->type = MEMBER_FILE;
			break;
		case AE_IFDIR:
			m->type = MEMBER_DIR;
			break;
		case AE_IFLNK:
			m->type = MEMBER_SYMLINK;
			if (!(m->target = strdup(sym ? sym : ""))) {
				member_free(m);
				return -ENOMEM;
			}
			break;
		default:
			m->type = MEMBER_OTHER;
			break;
		}
	}
	(void)entry_caps(e, m);
	*ret = m;
	return 0;
}

int arread_stage(struct archive *a, struct stage *s, const char *path, uint64_t size,
		 struct s2c_error *err)
{
	const struct stage_limits *lim = stage_limits(s);
	_cleanup_close_ int fd = -1;
	uint64_t written = 0;
	int r;

	if (size > lim->max_file)
		return s2c_error_set(err, -EFBIG, "larger than %llu bytes",
				     (unsigned long long)lim->max_file);
	r = stage_reserve(s, size, err);
	if (r < 0)
		return r;
	fd = stage_create(s, path, err);
	if (fd < 0)
		return fd;
	for (;;) {
		const void *b;
		size_t n;
		la_int64_t off;

		r = archive_read_data_block(a, &b, &n, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN)
			return arread_error(err, -EIO, a);
		if (off < 0 || (uint64_t)off > size || n > size - (uint64_t)off)
			return s2c_error_set(err, -EIO, "data beyond the size its header declares");
		while (n > 0) {
			ssize_t w = pwrite(fd, b, n, off);
			if (w < 0) {
				if (errno == EINTR)
					continue;
				return s2c_error_errno(err, -errno, "cannot write a staged file");
			}
			b = (const char *)b + w;
			n -= (size_t)w;
			off += w;
			written += (uint64_t)w;
		}
	}
	/* Sparse holes at the end are zeros, as the archive says. */
	if (ftruncate(fd, (off_t)size) < 0)
		return s2c_error_errno(err, -errno, "cannot size a staged file");
	(void)written;
	return 0;
}

int arread_slurp(struct archive *a, size_t max, char **ret, size_t *ret_len,
		 struct s2c_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		const void *b;
		size_t n;
		la_int64_t off;
		int r = archive_read_data_block(a, &b, &n, &off);

		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN)
			return arread_error(err, -EIO, a);
		if (off < 0 || (uint64_t)off > max || n > max - (size_t)off)
			return s2c_error_set(err, -EFBIG, "larger than %zu bytes", max);
		if ((size_t)off + n + 1 > cap) {
			size_t want = S2C_MAX((size_t)off + n + 1, cap * 2);
			char *bigger = realloc(buf, want);
			if (!bigger)
				return -ENOMEM;
			/* Holes (sparse data) read as zeros. */
			memset(bigger + cap, 0, want - cap);
			buf = bigger;
			cap = want;
		}
		memcpy(buf + off, b, n);
		len = S2C_MAX(len, (size_t)off + n);
	}
	if (!buf && !(buf = calloc(1, 1)))
		return -ENOMEM;
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

int arread_skip(struct archive *a, struct s2c_error *err)
{
	if (archive_read_data_skip(a) < ARCHIVE_WARN)
		return arread_error(err, -EIO, a);
	return 0;
}
