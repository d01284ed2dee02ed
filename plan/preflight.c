/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fcaps.h"
#include "preflight.h"
#include "common.h"

/* cap_net_raw=p in the v2 layout: a harmless set for the probe. */
static const unsigned char probe_blob[20] = { 0x00, 0, 0, 0x02, 0x00, 0x20 };

static int kernel_check(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/cmdline", "re");
	char buf[4096];

	if (!f || !fgets(buf, sizeof(buf), f))
		return 1;
	for (char *p = buf; (p = strstr(p, "no_file_caps")); p++)
		if ((p == buf || p[-1] == ' ') && (p[12] == ' ' || p[12] == '\n' || !p[12]))
			return -ENOTSUP;
	return 0;
}

/* Write and read back security.capability on a file nobody else can see. */
static int probe_caps(int dirfd)
{
	char name[64], back[FCAPS_BLOB_MAX + 1];
	_cleanup_close_ int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	ssize_t n;

	if (fd < 0) {
		/* no O_TMPFILE here (vfat, old kernels): create, unlink, probe */
		(void)snprintf(name, sizeof(name), ".suid2cap-probe.%d", (int)getpid());
		fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		(void)unlinkat(dirfd, name, 0);
	}
	if (fsetxattr(fd, FCAPS_XATTR, probe_blob, sizeof(probe_blob), 0) < 0)
		return -errno;
	n = fgetxattr(fd, FCAPS_XATTR, back, sizeof(back));
	if (n != (ssize_t)sizeof(probe_blob) || memcmp(back, probe_blob, sizeof(probe_blob)) != 0)
		return -EIO;
	return 0;
}

static struct preflight_fs *lookup(struct preflight *pf, dev_t dev)
{
	for (size_t i = 0; i < pf->n; i++)
		if (pf->v[i].dev == dev)
			return &pf->v[i];
	return NULL;
}

int preflight_check(struct preflight *pf, int dirfd, bool need_caps, const char **ret_reason)
{
	struct preflight_fs *fs;
	struct statvfs vfs;
	struct stat st;
	int r;

	if (pf->n == 0 && pf->kernel == 0)
		pf->kernel = kernel_check();
	if (fstat(dirfd, &st) < 0) {
		*ret_reason = "cannot stat the directory";
		return -errno;
	}
	fs = lookup(pf, st.st_dev);
	if (!fs) {
		/* a full cache starts over: correctness never depends on it */
		if (pf->n == S2C_ELEMENTSOF(pf->v))
			pf->n = 0;
		fs = &pf->v[pf->n++];
		memset(fs, 0, sizeof(*fs));
		fs->dev = st.st_dev;
		if (fstatvfs(dirfd, &vfs) < 0) {
			fs->verdict = -errno;
			(void)snprintf(fs->reason, sizeof(fs->reason), "cannot read the mount flags: %s",
				       strerror(errno));
		} else if (vfs.f_flag & ST_RDONLY) {
			fs->verdict = -EROFS;
			(void)snprintf(fs->reason, sizeof(fs->reason), "the filesystem is mounted read-only");
		} else {
			fs->nosuid = vfs.f_flag & ST_NOSUID;
			r = probe_caps(dirfd);
			fs->caps_ok = r == 0;
			if (r < 0)
				(void)snprintf(fs->reason, sizeof(fs->reason),
					       "the filesystem cannot store file capabilities "
					       "(security.capability: %s)", strerror(-r));
		}
	}
	if (fs->verdict < 0) {
		*ret_reason = fs->reason;
		return fs->verdict;
	}
	if (!need_caps)
		return 0;
	if (fs->nosuid) {
		*ret_reason = "the filesystem is mounted nosuid, so file capabilities would not be "
			      "honoured either";
		return -EPERM;
	}
	if (pf->kernel < 0) {
		*ret_reason = "the kernel was booted with no_file_caps: file capabilities are ignored";
		return pf->kernel;
	}
	if (!fs->caps_ok) {
		*ret_reason = fs->reason;
		return -EOPNOTSUPP;
	}
	return 0;
}
