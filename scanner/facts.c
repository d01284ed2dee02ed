/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "binary.h"
#include "facts.h"
#include "fileid.h"
#include "idmap.h"
#include "mounts.h"
#include "walk.h"
#include "common.h"

static const struct {
	const char *name;
	const char *description;
} flag_info[_FACT_MAX] = {
	{ "setuid-root", "set-user-ID root: runs with full root privileges" },
	{ "setuid-user", "set-user-ID to a user other than root" },
	{ "setgid", "set-group-ID" },
	{ "caps", "carries file capabilities" },
	{ "script", "a script: the kernel ignores set-ID bits and capabilities on scripts" },
	{ "nosuid-mount", "on a nosuid mount: set-ID bits and capabilities are not honoured" },
	{ "noexec-mount", "on a noexec mount: cannot be executed" },
	{ "suid-and-caps", "setuid root and file capabilities together: the capabilities limit "
			   "what the setuid bit would grant" },
	{ "foreign-rootid", "capabilities bound to another user namespace (v3 rootid): not "
			    "effective on the host" },
	{ "hardlinks", "more than one hard link: another name keeps the same privilege" },
	{ "caps-malformed", "the security.capability attribute is malformed" },
	{ "writable", "writable by group or others" },
	{ "not-executable", "no execute bit: the privilege is latent" },
};

const char *facts_flag_name(enum facts_flags flag)
{
	for (unsigned i = 0; i < _FACT_MAX; i++)
		if (flag == (1u << i))
			return flag_info[i].name;
	return NULL;
}

const char *facts_flag_description(enum facts_flags flag)
{
	for (unsigned i = 0; i < _FACT_MAX; i++)
		if (flag == (1u << i))
			return flag_info[i].description;
	return NULL;
}

void facts_mode_octal(uint32_t mode, char out[static 5])
{
	(void)snprintf(out, 5, "%04o", mode & 07777);
}

void facts_mode_string(uint32_t mode, char out[static 11])
{
	static const char rwx[] = "rwxrwxrwx";

	out[0] = S_ISREG(mode) ? '-' : S_ISDIR(mode) ? 'd' : '?';
	for (int i = 0; i < 9; i++)
		out[i + 1] = (mode & (0400u >> i)) ? rwx[i] : '-';
	if (mode & S_ISUID)
		out[3] = (mode & S_IXUSR) ? 's' : 'S';
	if (mode & S_ISGID)
		out[6] = (mode & S_IXGRP) ? 's' : 'S';
	if (mode & S_ISVTX)
		out[9] = (mode & S_IXOTH) ? 't' : 'T';
	out[10] = '\0';
}

struct facts *facts_free(struct facts *f)
{
	if (f) {
		free(f->path);
		free(f->owner);
		free(f->group);
		free(f->caps_text);
		free(f->caps_error);
		free(f->mount.fstype);
		free(f->mount.target);
		free(f->interpreter);
		if (f->content)
			binary_release(f->content);
		free(f->content);
		free(f);
	}
	return NULL;
}

/* "#!/usr/bin/python3 -E" -> "/usr/bin/python3"; NULL when not a script. */
static char *read_interpreter(int dirfd, const char *name, const struct statx *stx)
{
	_cleanup_close_ int fd = -1;
	char buf[256];
	struct stat st;
	ssize_t n;
	size_t len;
	char *p;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_ino != stx->stx_ino)
		return NULL;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return NULL;
	buf[n] = '\0';
	p = buf + 2;
	p += strspn(p, " \t");
	len = strcspn(p, " \t\n");
	return strndup(p, len);
}

static int set_mount(struct facts *f, const struct walk_entry *e, const struct mounts *mounts)
{
	const struct mount_entry *m = e->mnt_id ? mounts_by_id(mounts, e->mnt_id) : NULL;
	struct statvfs vfs;
	struct statfs sfs;

	if (!m && mounts)
		m = mounts_containing(mounts, f->path);
	if (m) {
		f->mount.fstype = strdup(m->fstype);
		f->mount.target = strdup(m->target);
		if (!f->mount.fstype || !f->mount.target)
			return -ENOMEM;
		f->mount.nosuid = m->flags & MOUNT_NOSUID;
		f->mount.rdonly = m->flags & MOUNT_RDONLY;
		f->mount.noexec = m->flags & MOUNT_NOEXEC;
		return 0;
	}
	/* An image: ask the kernel about the mount the directory is on. */
	if (fstatvfs(e->dirfd, &vfs) == 0) {
		f->mount.nosuid = vfs.f_flag & ST_NOSUID;
		f->mount.rdonly = vfs.f_flag & ST_RDONLY;
		f->mount.noexec = vfs.f_flag & ST_NOEXEC;
	}
	if (fstatfs(e->dirfd, &sfs) == 0 && mounts_magic_name((long)sfs.f_type)) {
		f->mount.fstype = strdup(mounts_magic_name((long)sfs.f_type));
		if (!f->mount.fstype)
			return -ENOMEM;
	}
	return 0;
}

static void set_caps(struct facts *f, const struct walk_entry *e)
{
	struct s2c_error err = { 0 };

	if (e->caps_len == -ENODATA)
		return;
	f->has_caps = true;
	if (e->caps_len < 0) {
		f->caps_error = strdup("capability xattr larger than any valid layout");
		return;
	}
	memcpy(f->caps_raw, e->caps, (size_t)e->caps_len);
	f->caps_len = (size_t)e->caps_len;
	if (fcaps_decode(e->caps, (size_t)e->caps_len, &f->caps, &err) < 0) {
		f->caps_error = strdup(err.msg);
		return;
	}
	f->caps_text = fcaps_to_text(&f->caps);
}

void facts_file_id(const struct facts *f, const char *sha256, struct file_id *ret)
{
	*ret = (struct file_id){
		.dev_major = f->dev_major, .dev_minor = f->dev_minor, .ino = f->ino,
		.size = f->size, .mtime_ns = f->mtime_sec * INT64_C(1000000000) + f->mtime_nsec,
		.nlink = f->nlink,
		.state = { .uid = f->uid, .gid = f->gid, .mode = f->mode & 07777,
			   .has_xattr = f->has_caps, .xattr_len = f->caps_len },
	};
	memcpy(ret->state.xattr, f->caps_raw, sizeof(ret->state.xattr));
	if (sha256 && strlen(sha256) == HASH_HEX_LEN - 1)
		memcpy(ret->sha256, sha256, HASH_HEX_LEN);
}

void facts_set_flags(struct facts *f)
{
	enum facts_flags fl = 0;

	if ((f->mode & S_ISUID) && f->uid == 0)
		fl |= FACT_SETUID_ROOT;
	if ((f->mode & S_ISUID) && f->uid != 0)
		fl |= FACT_SETUID_USER;
	if (f->mode & S_ISGID)
		fl |= FACT_SETGID;
	if (f->has_caps)
		fl |= FACT_CAPS;
	if (f->caps_error)
		fl |= FACT_CAPS_MALFORMED;
	if (f->interpreter)
		fl |= FACT_SCRIPT;
	if (f->mount.nosuid)
		fl |= FACT_NOSUID_MOUNT;
	if (f->mount.noexec)
		fl |= FACT_NOEXEC_MOUNT;
	if ((fl & FACT_SETUID_ROOT) && f->has_caps)
		fl |= FACT_SUID_AND_CAPS;
	if (f->has_caps && !f->caps_error && f->caps.has_rootid && f->caps.rootid != 0)
		fl |= FACT_FOREIGN_ROOTID;
	if (f->nlink > 1)
		fl |= FACT_HARDLINKS;
	if (f->mode & (S_IWGRP | S_IWOTH))
		fl |= FACT_WRITABLE;
	if (!(f->mode & 0111))
		fl |= FACT_NOT_EXECUTABLE;
	f->flags = fl;
}

int facts_from_entry(const struct walk_entry *e, const struct mounts *mounts, struct facts **ret)
{
	_cleanup_(facts_freep) struct facts *f = calloc(1, sizeof(*f));
	const struct statx *stx = e->stx;
	int r;

	if (!f)
		return -ENOMEM;
	f->path = strdup(e->path);
	if (!f->path)
		return -ENOMEM;
	f->uid = stx->stx_uid;
	f->gid = stx->stx_gid;
	f->mode = stx->stx_mode;
	f->size = stx->stx_size;
	f->mtime_sec = stx->stx_mtime.tv_sec;
	f->mtime_nsec = stx->stx_mtime.tv_nsec;
	f->dev_major = stx->stx_dev_major;
	f->dev_minor = stx->stx_dev_minor;
	f->ino = stx->stx_ino;
	f->nlink = stx->stx_nlink;
	f->mnt_id = e->mnt_id;
	set_caps(f, e);
	if (f->has_caps && !f->caps_text && !f->caps_error)
		return -ENOMEM;
	r = set_mount(f, e, mounts);
	if (r < 0)
		return r;
	f->interpreter = read_interpreter(e->dirfd, e->name, stx);
	facts_set_flags(f);
	*ret = TAKE_PTR(f);
	return 0;
}

int facts_set_names(struct facts *f, struct idmap *ids)
{
	const char *u = idmap_user(ids, f->uid);
	const char *g = idmap_group(ids, f->gid);

	free(f->owner);
	free(f->group);
	f->owner = u ? strdup(u) : NULL;
	f->group = g ? strdup(g) : NULL;
	if ((u && !f->owner) || (g && !f->group))
		return -ENOMEM;
	return 0;
}
