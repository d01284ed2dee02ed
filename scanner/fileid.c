/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <json-c/json.h>

#include "fcaps.h"
#include "fileid.h"
#include "hash.h"
#include "jsonout.h"
#include "util.h"
#include "common.h"

int filestate_read(int fd, struct file_state *ret)
{
	struct file_state s = { 0 };
	struct stat st;
	int n;

	if (fstat(fd, &st) < 0)
		return -errno;
	s.uid = st.st_uid;
	s.gid = st.st_gid;
	s.mode = st.st_mode & 07777;
	n = fcaps_read_fd(fd, s.xattr, sizeof(s.xattr));
	if (n == -ERANGE)
		return -EINVAL;         /* larger than any valid layout */
	if (n >= 0) {
		s.has_xattr = true;
		s.xattr_len = (size_t)n;
	} else if (n != -ENODATA && n != -EOPNOTSUPP) {
		return n;
	}
	*ret = s;
	return 0;
}

/* The sets of @s's attribute into @ret; false for none or one that does not decode. */
static bool decoded(const struct file_state *s, struct fcaps *ret)
{
	return s->has_xattr && fcaps_decode(s->xattr, s->xattr_len, ret, NULL) == 0;
}

bool filestate_match(const struct file_state *a, const struct file_state *b,
		     enum filestate_match how)
{
	struct fcaps x, y;
	bool dx, dy;

	if (a->uid != b->uid || a->gid != b->gid || a->mode != b->mode)
		return false;
	if (a->has_xattr == b->has_xattr && (!a->has_xattr || (a->xattr_len == b->xattr_len &&
				      memcmp(a->xattr, b->xattr, a->xattr_len) == 0)))
		return true;
	if (how == FILESTATE_EXACT)
		return false;
	dx = decoded(a, &x);
	dy = decoded(b, &y);
	if (how == FILESTATE_GRANTS && (!dx || !dy))
		return false;           /* none against some, or bytes that grant nothing known */
	if (!dx || !dy)
		return dx == dy;        /* FILESTATE_SHOWN: what does not decode shows as none */
	if (x.permitted != y.permitted || x.inheritable != y.inheritable ||
	    x.effective != y.effective)
		return false;
	return how == FILESTATE_SHOWN ||
	       (x.has_rootid ? x.rootid : 0) == (y.has_rootid ? y.rootid : 0);
}

void filestate_set_caps(struct file_state *s, const struct fcaps *caps)
{
	int n = caps ? fcaps_encode(caps, s->xattr) : -1;

	s->has_xattr = n > 0;
	s->xattr_len = n > 0 ? (size_t)n : 0;
}

/* The capability sets of @s as text ("cap_net_raw=ep"); NULL for none, malformed or no memory. */
static char *caps_text(const struct file_state *s)
{
	struct fcaps c;

	if (!s->has_xattr || fcaps_decode(s->xattr, s->xattr_len, &c, NULL) < 0)
		return NULL;
	return fcaps_to_text(&c);
}

void filestate_describe(const struct file_state *s, char *buf, size_t size)
{
	_cleanup_free_ char *text = caps_text(s);

	(void)snprintf(buf, size, "%04o %u:%u %s", s->mode, s->uid, s->gid,
		       s->has_xattr ? (text ? text : "(malformed caps)") : "no capabilities");
}

/* Append a phrase to the "; "-separated list in @buf (cut at @size). */
S2C_PRINTF(3, 4) static void add_phrase(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len && len + 2 < size) {
		memcpy(buf + len, "; ", 3);
		len += 2;
	}
	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* The capability part of filestate_change(). */
static void caps_change(const struct file_state *left, const struct file_state *now, char *buf,
			size_t size)
{
	_cleanup_free_ char *was = caps_text(left), *is = caps_text(now);

	if (left->has_xattr && !now->has_xattr)
		add_phrase(buf, size, "its capabilities are gone");
	else if (!left->has_xattr && now->has_xattr)
		add_phrase(buf, size, "it has capabilities it was not given (%s)",
			   is ? is : "malformed");
	else
		add_phrase(buf, size, "its capabilities are different (%s, was %s)",
			   is ? is : "malformed", was ? was : "malformed");
}

void filestate_change(const struct file_state *left, const struct file_state *now, char *buf,
		      size_t size)
{
	const uint32_t setid = S_ISUID | S_ISGID;
	struct file_state caps_only = *left;

	if (size)
		buf[0] = '\0';
	if (now->mode & ~left->mode & setid)
		add_phrase(buf, size, "the set-ID bit is back (mode %04o)", now->mode);
	else if (now->mode != left->mode)
		add_phrase(buf, size, "its mode is %s (%04o, was %04o)",
			   now->mode & ~left->mode ? "wider" : "narrower", now->mode, left->mode);
	if (now->uid != left->uid)
		add_phrase(buf, size, "its owner changed (%u, was %u)", now->uid, left->uid);
	if (now->gid != left->gid)
		add_phrase(buf, size, "its group changed (%u, was %u)", now->gid, left->gid);
	caps_only.has_xattr = now->has_xattr;
	caps_only.xattr_len = now->xattr_len;
	memcpy(caps_only.xattr, now->xattr, sizeof(caps_only.xattr));
	if (!filestate_match(&caps_only, left, FILESTATE_GRANTS))
		caps_change(left, now, buf, size);
}

struct json_object *filestate_json(const struct file_state *s, const char *owner,
				   const char *group, const char *caps, bool raw)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	char mode[8], hex[2 * FCAPS_BLOB_MAX + 1];

	if (!o)
		return NULL;
	(void)snprintf(mode, sizeof(mode), "%04o", (unsigned)(s->mode & 07777));
	if (jsonout_add(o, "uid", json_object_new_uint64(s->uid)) < 0 ||
	    jsonout_add(o, "gid", json_object_new_uint64(s->gid)) < 0 ||
	    jsonout_add_name(o, "owner", owner) < 0 || jsonout_add_name(o, "group", group) < 0 ||
	    jsonout_add(o, "mode", jsonout_string(mode)) < 0 ||
	    (caps ? jsonout_add(o, "caps", jsonout_string(caps)) : jsonout_add_null(o, "caps")) < 0)
		return NULL;
	if (raw) {
		hex_encode(s->xattr, S2C_MIN(s->xattr_len, sizeof(s->xattr)), hex);
		if ((s->has_xattr ? jsonout_add(o, "caps_raw", jsonout_string(hex))
				  : jsonout_add_null(o, "caps_raw")) < 0)
			return NULL;
	}
	return TAKE_PTR(o);
}

int fileid_read(int fd, bool hash, struct file_id *ret)
{
	struct file_id id = { 0 };
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	id.dev_major = major(st.st_dev);
	id.dev_minor = minor(st.st_dev);
	id.ino = st.st_ino;
	id.size = (uint64_t)st.st_size;
	id.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	id.nlink = (uint32_t)st.st_nlink;
	r = filestate_read(fd, &id.state);
	if (r < 0)
		return r;
	if (hash) {
		r = hash_fd_sha256(fd, id.sha256);
		if (r < 0)
			return r;
	}
	*ret = id;
	return 0;
}

const char *fileid_diff(const struct file_id *want, const struct file_id *got,
			enum fileid_parts parts)
{
	if ((parts & FILEID_INODE) && (want->dev_major != got->dev_major ||
				       want->dev_minor != got->dev_minor || want->ino != got->ino))
		return "it is another file now (device or inode differ)";
	if ((parts & FILEID_SIZE_MTIME) && want->size != got->size)
		return "its size changed";
	if ((parts & FILEID_SIZE_MTIME) && want->mtime_ns != got->mtime_ns)
		return "its modification time changed";
	if ((parts & FILEID_CONTENT) && (!want->sha256[0] || !got->sha256[0]))
		return "its content cannot be compared (no SHA-256)";
	if ((parts & FILEID_CONTENT) && !s2c_streq(want->sha256, got->sha256))
		return "its content (SHA-256) differs";
	if ((parts & FILEID_STATE) && !filestate_match(&want->state, &got->state, FILESTATE_EXACT))
		return "its owner, group, mode or capabilities differ";
	return NULL;
}

enum fileid_left fileid_left(const struct file_id *left, const struct file_id *now)
{
	if (fileid_diff(left, now, FILEID_INODE))
		return FILEID_REPLACED;
	if (fileid_diff(left, now, FILEID_CONTENT))
		return FILEID_REWRITTEN;
	if (!filestate_match(&left->state, &now->state, FILESTATE_GRANTS))
		return FILEID_RESTATED;
	return FILEID_AS_LEFT;
}
