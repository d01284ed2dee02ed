/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/capability.h>

#include "capset.h"
#include "fcaps.h"
#include "util.h"
#include "common.h"

/* getxattrat(2) arrived in Linux 6.13 with the same number on every arch. */
#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif

struct s2c_xattr_args {
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = (v >> 24) & 0xff;
}

int fcaps_decode(const void *blob, size_t len, struct fcaps *ret, struct s2c_error *err)
{
	const unsigned char *p = blob;
	struct fcaps c = { 0 };
	uint32_t magic;
	size_t want;

	if (len < 4)
		return s2c_error_set(err, -EINVAL, "capability xattr too short (%zu bytes)", len);
	magic = le32(p);
	switch (magic & VFS_CAP_REVISION_MASK) {
	case VFS_CAP_REVISION_1: c.version = 1, want = XATTR_CAPS_SZ_1; break;
	case VFS_CAP_REVISION_2: c.version = 2, want = XATTR_CAPS_SZ_2; break;
	case VFS_CAP_REVISION_3: c.version = 3, want = XATTR_CAPS_SZ_3; break;
	default:
		return s2c_error_set(err, -EINVAL, "unknown capability xattr revision 0x%08x",
				     magic & VFS_CAP_REVISION_MASK);
	}
	if (len != want)
		return s2c_error_set(err, -EINVAL,
				     "capability xattr v%u has %zu bytes, expected %zu",
				     c.version, len, want);
	if (magic & VFS_CAP_FLAGS_MASK & ~VFS_CAP_FLAGS_EFFECTIVE)
		return s2c_error_set(err, -EINVAL, "capability xattr has unknown flags 0x%06x",
				     magic & VFS_CAP_FLAGS_MASK & ~VFS_CAP_FLAGS_EFFECTIVE);
	c.effective = magic & VFS_CAP_FLAGS_EFFECTIVE;
	c.permitted = le32(p + 4);
	c.inheritable = le32(p + 8);
	if (c.version >= 2) {
		c.permitted |= (uint64_t)le32(p + 12) << 32;
		c.inheritable |= (uint64_t)le32(p + 16) << 32;
	}
	if (c.version == 3) {
		c.has_rootid = true;
		c.rootid = le32(p + 20);
	}
	*ret = c;
	return 0;
}

int fcaps_encode(const struct fcaps *caps, unsigned char *buf)
{
	uint32_t magic = caps->has_rootid ? VFS_CAP_REVISION_3 : VFS_CAP_REVISION_2;

	if (caps->version == 1)
		return -EINVAL;
	if (caps->effective)
		magic |= VFS_CAP_FLAGS_EFFECTIVE;
	put_le32(buf, magic);
	put_le32(buf + 4, (uint32_t)caps->permitted);
	put_le32(buf + 8, (uint32_t)caps->inheritable);
	put_le32(buf + 12, (uint32_t)(caps->permitted >> 32));
	put_le32(buf + 16, (uint32_t)(caps->inheritable >> 32));
	if (!caps->has_rootid)
		return XATTR_CAPS_SZ_2;
	put_le32(buf + 20, caps->rootid);
	return XATTR_CAPS_SZ_3;
}

char *fcaps_to_text(const struct fcaps *caps)
{
	/* As the kernel does at exec: the effective bit applies to every
	 * permitted or inheritable capability of the file. */
	_cleanup_capfree_ cap_t cap = capset_from_masks(caps->permitted, caps->inheritable,
							caps->effective ? caps->permitted |
									  caps->inheritable : 0);
	_cleanup_captext_ char *text = NULL;

	if (!cap)
		return NULL;
	text = cap_to_text(cap, NULL);
	if (!text)
		return NULL;
	return strdup(text);
}

int fcaps_from_text(const char *text, struct fcaps *ret, struct s2c_error *err)
{
	_cleanup_capfree_ cap_t cap = NULL;
	struct fcaps c = { .version = 2 };
	uint64_t eff;

	if (s2c_isempty(text))
		return s2c_error_set(err, -EINVAL, "empty capability text");
	cap = cap_from_text(text);
	if (!cap)
		return s2c_error_set(err, -EINVAL, "invalid capability text '%s'", text);
	c.permitted = capset_mask(cap, CAP_PERMITTED);
	c.inheritable = capset_mask(cap, CAP_INHERITABLE);
	eff = capset_mask(cap, CAP_EFFECTIVE);
	if (eff & ~(c.permitted | c.inheritable))
		return s2c_error_set(err, -EINVAL,
				     "capability text '%s' sets effective without permitted or inheritable",
				     text);
	if (eff && eff != (c.permitted | c.inheritable))
		return s2c_error_set(err, -EINVAL,
				     "capability text '%s': a file has one effective bit, so 'e' must "
				     "cover every permitted and inheritable capability", text);
	c.effective = eff != 0;
	*ret = c;
	return 0;
}

char *fcaps_mask_names(uint64_t mask)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	bool first = true;

	if (!f)
		return NULL;
	for (cap_value_t v = 0; v < 64; v++) {
		_cleanup_captext_ char *name = NULL;

		if (!(mask & S2C_CAPMASK(v)))
			continue;
		name = cap_to_name(v);
		if (!name) {
			(void)fclose(f);
			free(buf);
			return NULL;
		}
		(void)fprintf(f, "%s%s", first ? "" : ",", name);
		first = false;
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int fcaps_from_name(const char *name)
{
	cap_value_t v;
	char buf[64];

	if (s2c_isempty(name) || strlen(name) >= sizeof(buf) - 4)
		return -EINVAL;
	if (strncasecmp(name, "cap_", 4) != 0) {
		(void)snprintf(buf, sizeof(buf), "cap_%s", name);
		name = buf;
	}
	/* cap_from_name() also accepts plain numbers; names only here. */
	if (name[4] >= '0' && name[4] <= '9')
		return -EINVAL;
	if (cap_from_name(name, &v) < 0 || v < 0 || v > 63)
		return -EINVAL;
	return v;
}

bool fcaps_equal(const struct fcaps *a, const struct fcaps *b)
{
	return a->effective == b->effective && a->permitted == b->permitted &&
	       a->inheritable == b->inheritable && a->has_rootid == b->has_rootid &&
	       (!a->has_rootid || a->rootid == b->rootid);
}

static int read_proc_fd(int dirfd, const char *name, void *buf, size_t size)
{
	char path[64 + 4096];
	ssize_t n;

	if (snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	n = lgetxattr(path, FCAPS_XATTR, buf, size);
	return n < 0 ? -errno : (int)n;
}

int fcaps_read_at(int dirfd, const char *name, void *buf, size_t size)
{
	/* Shared by all threads: 1 = try getxattrat, 0 = the kernel lacks it. */
	static int have_getxattrat = 1;
	struct s2c_xattr_args args = { .value = (uintptr_t)buf, .size = (uint32_t)size };
	long n;

	if (__atomic_load_n(&have_getxattrat, __ATOMIC_RELAXED)) {
		n = syscall(SYS_getxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, FCAPS_XATTR,
			    &args, sizeof(args));
		if (n >= 0)
			return (int)n;
		if (errno != ENOSYS)
			return -errno;
		__atomic_store_n(&have_getxattrat, 0, __ATOMIC_RELAXED);
	}
	return read_proc_fd(dirfd, name, buf, size);
}

int fcaps_read_fd(int fd, void *buf, size_t size)
{
	ssize_t n = fgetxattr(fd, FCAPS_XATTR, buf, size);

	return n < 0 ? -errno : (int)n;
}
