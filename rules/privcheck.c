/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "captable.h"
#include "fcaps.h"
#include "fileid.h"
#include "privcheck.h"
#include "common.h"

/* The capabilities @s carries on this system: none when absent, malformed or
 * bound to another user namespace (the kernel then grants nothing). */
static uint64_t caps_of(const struct file_state *s, struct fcaps *ret)
{
	struct fcaps c;

	if (!s->has_xattr || fcaps_decode(s->xattr, s->xattr_len, &c, NULL) < 0 ||
	    (c.has_rootid && c.rootid != 0))
		return 0;
	if (ret)
		*ret = c;
	return c.permitted | c.inheritable;
}

static bool setuid_root(const struct file_state *s)
{
	return (s->mode & S_ISUID) && s->uid == 0;
}

enum risk privcheck_risk(const struct captable *t, const struct file_state *s)
{
	enum risk r = captable_risk(t, caps_of(s, NULL));

	if (setuid_root(s))
		return RISK_ROOT;
	if (s->mode & S_ISUID)
		r = S2C_MAX(r, RISK_DANGEROUS);
	if (s->mode & S_ISGID)
		r = S2C_MAX(r, s->gid == 0 ? RISK_DANGEROUS : RISK_LOW);
	return r;
}

/* What the file's privilege is today, for a message. */
static const char *privilege_today(const struct file_state *s)
{
	if (s->mode & S_ISUID)
		return "set-user-ID to another user than root";
	if (s->mode & S_ISGID)
		return "set-group-ID only";
	return "without set-ID bits or capabilities";
}

static int check_owner_and_mode(const struct file_state *b, const struct file_state *a,
				struct s2c_error *err)
{
	uint32_t added = a->mode & ~b->mode & 01777;

	if (a->uid != b->uid && a->uid != 0)
		return s2c_error_set(err, -EPERM, "it would be given to uid %u, who could then "
				     "rewrite it", a->uid);
	if ((a->mode & S_ISUID) && (!(b->mode & S_ISUID) || a->uid != b->uid))
		return s2c_error_set(err, -EPERM, "it would gain the set-user-ID bit");
	if ((a->mode & S_ISGID) && (!(b->mode & S_ISGID) || a->gid != b->gid))
		return s2c_error_set(err, -EPERM, "it would gain the set-group-ID bit");
	if (added)
		return s2c_error_set(err, -EPERM, "it would gain the permission bits %04o", added);
	/* Members of a new group were "others" before. */
	if (a->gid != b->gid && (a->mode & 070 & ~((b->mode & 07) << 3)))
		return s2c_error_set(err, -EPERM, "group %u would get permissions that everyone "
				     "else did not have", a->gid);
	return 0;
}

static int check_caps(const struct captable *t, const struct file_state *b,
		      const struct file_state *a, enum privcheck_flags flags, struct s2c_error *err)
{
	struct fcaps ac = { 0 }, bc = { 0 };
	uint64_t amask, bmask = caps_of(b, &bc);
	_cleanup_free_ char *names = NULL;

	if (!a->has_xattr)
		return 0;
	if (fcaps_decode(a->xattr, a->xattr_len, &ac, NULL) < 0)
		return s2c_error_set(err, -EINVAL, "its capability attribute after the change is "
				     "malformed");
	amask = ac.permitted | ac.inheritable;
	if (!amask)
		return 0;
	if (ac.has_rootid && ac.rootid != 0)
		return s2c_error_set(err, -EPERM, "its capabilities would be bound to another user "
				     "namespace");
	if (a->uid != 0)
		return s2c_error_set(err, -EPERM, "only files owned by root may carry capabilities");
	if (!setuid_root(b)) {
		if (!bmask)
			return s2c_error_set(err, -EPERM, "only set-user-ID-root programs and files "
					     "that have capabilities may be given capabilities; this "
					     "one is %s", privilege_today(b));
		if (amask & ~bmask) {
			names = fcaps_mask_names(amask & ~bmask);
			return s2c_error_set(err, -EPERM, "it would gain %s, which it does not have",
					     names ? names : "capabilities");
		}
	}
	if (captable_risk(t, amask) == RISK_ROOT && !(flags & PRIVCHECK_ROOT_EQUIVALENT) &&
	    !(bmask && fcaps_equal(&ac, &bc))) {
		names = fcaps_mask_names(captable_with_risk(t, amask, RISK_ROOT));
		return s2c_error_set(err, -EACCES, "%s is root-equivalent: the change removes the "
				     "set-ID bit but not root (setuid in disguise)",
				     names ? names : "the capability set");
	}
	return 0;
}

int privcheck(const struct captable *t, const struct file_state *before,
	      const struct file_state *after, enum privcheck_flags flags, struct s2c_error *err)
{
	enum risk rb, ra;
	int r = check_owner_and_mode(before, after, err);

	if (r == 0)
		r = check_caps(t, before, after, flags, err);
	if (r < 0)
		return r;
	rb = privcheck_risk(t, before);
	ra = privcheck_risk(t, after);
	if (ra > rb)
		return s2c_error_set(err, -EPERM, "its risk would rise from %s to %s", risk_name(rb),
				     risk_name(ra));
	return 0;
}
