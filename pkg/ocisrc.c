/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The files of an image: a layout directory opened beneath its root, or a
 * tar indexed once and searched with its symlinks kept inside; documents and
 * layer tars read from either.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <archive.h>
#include <archive_entry.h>
#include <json-c/json.h>

#include "arread.h"
#include "jsonread.h"
#include "member.h"
#include "oci.h"
#include "ociblob.h"
#include "ocisrc.h"
#include "stage.h"
#include "util.h"
#include "common.h"

void ocisrc_release(struct ocisrc *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].link);
		free(s->v[i].data);
		free(s->v[i].spool);
	}
	free(s->v);
	stage_free(s->spool);
	if (s->dirfd >= 0)
		(void)close(s->dirfd);
	if (s->fd >= 0)
		(void)close(s->fd);
}

/* --- the tar index -------------------------------------------------------------------------- */

int ocisrc_index_tar(struct ocisrc *s, struct s2c_error *err)
{
	_cleanup_(archive_freep) struct archive *a = NULL;
	struct archive_entry *e;
	int r = arread_new(ARREAD_TAR, &a);

	if (r == 0)
		r = arread_open_fd(a, s->fd, err);
	while (r == 0 && (r = arread_next(a, s->budget, &e, err)) > 0) {
		_cleanup_free_ char *path = NULL;
		struct ocisrc_ent *v, *t;

		r = member_path(archive_entry_pathname(e) ? archive_entry_pathname(e) : "", &path, err);
		if (r < 0)
			break;
		r = 0;
		s->compressed = archive_filter_count(a) > 1;
		v = realloc(s->v, (s->n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		t = &v[s->n];
		*t = (struct ocisrc_ent){ .header = archive_read_header_position(a),
				      .size = archive_entry_size(e), .ordinal = (unsigned)s->n };
		s->n++;
		t->name = strdup(path + 1);
		if (!t->name)
			return -ENOMEM;
		if (archive_entry_hardlink(e)) {
			/* A hard link to an earlier member: the same blob under another name. */
			t->type = MEMBER_SYMLINK;
			t->hard = true;
			r = member_path(archive_entry_hardlink(e), &t->link, err);
			continue;
		}
		switch (archive_entry_filetype(e)) {
		case AE_IFREG:
			t->type = MEMBER_FILE;
			break;
		case AE_IFLNK:
			t->type = MEMBER_SYMLINK;
			t->link = strdup(archive_entry_symlink(e) ? archive_entry_symlink(e) : "");
			if (!t->link)
				return -ENOMEM;
			continue;
		default:
			t->type = MEMBER_OTHER;
			continue;
		}
		/* Small members (documents, small layers) in memory, up to a total; the others
		 * are read where they are when needed. */
		if (t->size >= 0 && (uint64_t)t->size <= OCI_JSON_MAX &&
		    (uint64_t)t->size <= OCISRC_MEMORY_MAX - s->in_memory) {
			r = arread_slurp(a, OCI_JSON_MAX, &t->data, &t->len, err);
			s->in_memory += t->len;
		}
	}
	return r < 0 ? r : 0;
}

/*
 * Open the image tar again on its member @t: seek to its header (uncompressed), or read the
 * compressed stream from its start up to it.  @a then stands on @t's entry; @fd is a new
 * descriptor of the tar.
 */
static int reopen_member(const struct ocisrc *s, const struct ocisrc_ent *t, struct archive **a,
			 int *fd, struct s2c_error *err)
{
	struct archive_entry *e;
	off_t start = s->compressed ? 0 : t->header;
	unsigned skip = s->compressed ? t->ordinal : 0;
	int r;

	*fd = fcntl(s->fd, F_DUPFD_CLOEXEC, 3);
	if (*fd < 0)
		return -errno;
	if (lseek(*fd, start, SEEK_SET) != start)
		return s2c_error_errno(err, -errno, "cannot seek to '%s'", t->name);
	r = arread_new(ARREAD_TAR, a);
	if (r == 0)
		r = arread_open_fd(*a, *fd, err);
	for (unsigned i = 0; r == 0 && i <= skip; i++)
		if (archive_read_next_header(*a, &e) != ARCHIVE_OK)
			r = s2c_error_set(err, -EIO, "cannot read '%s' again", t->name);
	if (r == 0 && archive_read_header_position(*a) != t->header - start)
		r = s2c_error_set(err, -EIO, "'%s' moved when read again", t->name);
	return r;
}

int ocisrc_spool(struct ocisrc *s, char *const *names, size_t n, struct stage *run,
		 struct s2c_error *err)
{
	_cleanup_(archive_freep) struct archive *a = NULL;
	_cleanup_close_ int fd = -1;
	struct archive_entry *e;
	unsigned ordinal = 0;
	int r = 0;

	if (s->dirfd >= 0 || !s->compressed)
		return 0;
	/* Which members are wanted: the blobs named, resolved, not already in memory. */
	bool *want = calloc(s->n ? s->n : 1, sizeof(*want));
	bool any = false;
	if (!want)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct ocisrc_ent *t;
		struct s2c_error ferr = { 0 };
		if (ocisrc_find(s, names[i], &t, &ferr) == 0 && !t->data && !t->spool)
			any = want[t->ordinal] = true;
	}
	if (any) {
		struct stage_limits lim = *stage_limits(run);
		r = stage_new_sub(run, "spool", &s->spool, err);
		if (r == 0)
			stage_set_limits(s->spool, &lim);
		fd = fcntl(s->fd, F_DUPFD_CLOEXEC, 3);
		if (r == 0 && (fd < 0 || lseek(fd, 0, SEEK_SET) != 0))
			r = s2c_error_errno(err, -errno, "cannot read the image again");
		if (r == 0)
			r = arread_new(ARREAD_TAR, &a);
		if (r == 0)
			r = arread_open_fd(a, fd, err);
	}
	while (any && r == 0 && archive_read_next_header(a, &e) == ARCHIVE_OK) {
		struct ocisrc_ent *t = ordinal < s->n ? &s->v[ordinal] : NULL;
		struct s2c_error serr = { 0 };
		char name[32];

		if (!t || !want[ordinal++])
			continue;
		(void)snprintf(name, sizeof(name), "/%u", t->ordinal);
		r = arread_stage(a, s->spool, name, (uint64_t)t->size, &serr);
		if (r == 0 && !(t->spool = strdup(name)))
			r = -ENOMEM;
		else if (r == -EFBIG || r == -ENOSPC || r == -EDQUOT)
			/* over the limits, or no room: read from the stream again when needed */
			r = stage_remove(s->spool, name);
		else if (r < 0 && r != -ENOMEM)
			r = s2c_error_set(err, r, "member '%s': %s", t->name, serr.msg);
	}
	free(want);
	return r;
}

/* Resolve @name among the tar's members, following symlinks that stay inside. */
int ocisrc_find(const struct ocisrc *s, const char *name, const struct ocisrc_ent **ret,
		struct s2c_error *err)
{
	_cleanup_free_ char *cur = NULL;
	int r = member_path(name, &cur, err);

	if (r < 0)
		return r;
	for (unsigned hops = 0; hops <= OCISRC_LINKS_MAX; hops++) {
		const struct ocisrc_ent *t = NULL;
		_cleanup_free_ char *joined = NULL, *next = NULL;
		char *slash;

		for (size_t i = s->n; i-- > 0 && !t;)
			if (s2c_streq(s->v[i].name, cur + 1))
				t = &s->v[i];
		if (!t)
			return s2c_error_set(err, -ENOENT, "'%s' is not in the image", cur + 1);
		if (t->type == MEMBER_FILE) {
			*ret = t;
			return 0;
		}
		if (t->type != MEMBER_SYMLINK)
			return s2c_error_set(err, -EINVAL, "'%s' is not a file", cur + 1);
		if (!t->hard && t->link[0] == '/')
			return s2c_error_set(err, -EXDEV, "'%s' is a symlink to an absolute path, "
					     "outside the image", t->name);
		/* A hard link names the other member directly (already normalised). */
		if (t->hard) {
			free(cur);
			cur = strdup(t->link);
			if (!cur)
				return -ENOMEM;
			continue;
		}
		slash = strrchr(cur, '/');
		*slash = '\0';
		if (asprintf(&joined, "%s/%s", cur, t->link) < 0)
			return -ENOMEM;
		/* Resolve ".." lexically: the image's namespace has no way above its top. */
		{
			char *out = calloc(1, strlen(joined) + 2);
			size_t o = 0;
			const char *p = joined;
			if (!out)
				return -ENOMEM;
			while (*p) {
				size_t n;
				p += strspn(p, "/");
				n = strcspn(p, "/");
				if (n == 0)
					break;
				if (n == 2 && p[0] == '.' && p[1] == '.') {
					char *up = strrchr(out, '/');
					if (!up) {
						free(out);
						return s2c_error_set(err, -EXDEV, "'%s' is a symlink that "
								     "leads out of the image", t->name);
					}
					*up = '\0';
					o = (size_t)(up - out);
				} else if (!(n == 1 && p[0] == '.')) {
					out[o++] = '/';
					memcpy(out + o, p, n);
					o += n;
					out[o] = '\0';
				}
				p += n;
			}
			next = out;
		}
		free(cur);
		cur = TAKE_PTR(next);
		if (!*cur)
			return s2c_error_set(err, -EINVAL, "'%s' is a symlink to the image's top", name);
	}
	return s2c_error_set(err, -ELOOP, "'%s': too many symlinks", name);
}

/* --- opening blobs -------------------------------------------------------------------------- */

int ocisrc_open_beneath(int dirfd, const char *name, struct s2c_error *err)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	struct stat st;
	int fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

	if (fd < 0) {
		if (errno == EXDEV)
			return s2c_error_set(err, -EXDEV, "'%s' leads out of the image directory", name);
		return s2c_error_errno(err, -errno, "cannot open '%s'", name);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		(void)close(fd);
		return s2c_error_set(err, -EINVAL, "'%s' is not a regular file", name);
	}
	return fd;
}

/* A member of the image tar that is not in memory, read into memory: at most @max bytes. */
static int slurp_member(const struct ocisrc *s, const struct ocisrc_ent *t, size_t max,
			char **ret, size_t *ret_len, struct s2c_error *err)
{
	_cleanup_(archive_freep) struct archive *a = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	if (t->size < 0 || (uint64_t)t->size > max)
		return s2c_error_set(err, -EFBIG, "'%s' is larger than %zu bytes", t->name, max);
	if (t->spool) {
		fd = openat(stage_rootfd(s->spool), t->spool + 1, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return s2c_error_errno(err, -errno, "cannot open the spooled '%s'", t->name);
		r = read_all(fd, max, ret, ret_len);
		return r < 0 ? s2c_error_errno(err, r, "cannot read '%s'", t->name) : 0;
	}
	r = reopen_member(s, t, &a, &fd, err);
	return r < 0 ? r : arread_slurp(a, max, ret, ret_len, err);
}

/* A small document of the image (JSON), NUL-terminated. */
static int read_doc(const struct ocisrc *s, const char *name, char **ret, size_t *ret_len,
		    struct s2c_error *err)
{
	const struct ocisrc_ent *t;
	int r;

	if (s->dirfd >= 0) {
		_cleanup_close_ int fd = ocisrc_open_beneath(s->dirfd, name, err);

		if (fd < 0)
			return fd;
		r = read_all(fd, OCI_JSON_MAX, ret, ret_len);
		if (r == -EFBIG)
			return s2c_error_set(err, -EFBIG, "'%s' is larger than %u bytes", name,
					     OCI_JSON_MAX);
		if (r < 0)
			return s2c_error_errno(err, r, "cannot read '%s'", name);
		return 0;
	}
	r = ocisrc_find(s, name, &t, err);
	if (r < 0)
		return r;
	if (!t->data)
		return slurp_member(s, t, OCI_JSON_MAX, ret, ret_len, err);
	*ret = malloc(t->len + 1);
	if (!*ret)
		return -ENOMEM;
	memcpy(*ret, t->data, t->len);
	(*ret)[t->len] = '\0';
	*ret_len = t->len;
	return 0;
}

int ocisrc_parse_doc(const struct ocisrc *s, const char *name, const char *digest,
		     struct json_object **ret, struct s2c_error *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r = read_doc(s, name, &text, &len, err);

	if (r == 0 && digest)
		r = ociblob_check(text, len, digest, err);
	if (r < 0)
		return r == -EBADMSG ? s2c_error_prefix(err, "'%s'", name) : r;
	return jsonread_parse_mem(text, len, name, ret, err);
}


void ocisrc_layer_release(struct ocisrc_layer *l)
{
	ociblob_release(&l->blob);
	if (l->outer)
		archive_read_free(l->outer);
	if (l->fd >= 0)
		(void)close(l->fd);
	l->outer = NULL;
	l->fd = -1;
}

int ocisrc_open_layer(const struct ocisrc *s, const char *name, const char *stored,
		      const char *unpacked, struct ocisrc_layer *l, struct s2c_error *err)
{
	struct ociblob_source src = { .fd = -1 };
	const struct ocisrc_ent *t;
	int r;

	*l = (struct ocisrc_layer){ .fd = -1 };
	if (s->dirfd >= 0) {
		l->fd = ocisrc_open_beneath(s->dirfd, name, err);
		if (l->fd < 0)
			return l->fd;
		src.fd = l->fd;
		return ociblob_open(&l->blob, &src, stored, unpacked, err);
	}
	r = ocisrc_find(s, name, &t, err);
	if (r < 0)
		return r;
	if (t->data) {
		src.mem = t->data;
		src.mem_len = t->len;
	} else if (t->spool) {
		l->fd = openat(stage_rootfd(s->spool), t->spool + 1, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (l->fd < 0)
			return s2c_error_errno(err, -errno, "cannot open the spooled '%s'", name);
		src.fd = l->fd;
	} else {
		/* Where it is in the image tar: seek to it, or read the compressed stream again. */
		r = reopen_member(s, t, &l->outer, &l->fd, err);
		if (r < 0)
			return r;
		src.outer = l->outer;
	}
	return ociblob_open(&l->blob, &src, stored, unpacked, err);
}
