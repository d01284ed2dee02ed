/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fileid.h"
#include "fileop.h"
#include "host.h"
#include "state.h"
#include "verify.h"
#include "common.h"

static const char *const kind_names[_DRIFT_KIND_MAX] = {
	"none", "gone", "state", "updated", "tampered", "unverified",
};

const char *drift_kind_name(enum drift_kind k)
{
	return k < _DRIFT_KIND_MAX ? kind_names[k] : "invalid";
}

/* How to repair what no --fix repairs. */
static const char repair_fix[] = "'suid2cap verify --fix' repairs it";
static const char repair_again[] = "plan and apply it again if that is wanted, or stop tracking it "
				   "with 'suid2cap verify --forget'";
static const char repair_content[] = "put back the package's content (reinstall the package), "
				     "then 'suid2cap verify --fix' repairs it; or stop tracking it "
				     "with 'suid2cap verify --forget'";
static const char repair_gone[] = "stop tracking it with 'suid2cap verify --forget', or plan "
				  "and apply it again once it is back";

S2C_PRINTF(3, 4) static int drifted(struct drift *d, enum drift_kind kind, const char *fmt, ...)
{
	va_list ap;

	d->kind = kind;
	if (!d->repair)
		d->repair = kind == DRIFT_GONE ? repair_gone : repair_again;
	va_start(ap, fmt);
	(void)vsnprintf(d->what, sizeof(d->what), fmt, ap);
	va_end(ap);
	return 0;
}

/* Same content, another state: what changed, and whether applying the record again is safe. */
static int state_drift(const struct state_entry *e, struct drift *d)
{
	const struct file_state *now = &d->now.state, *rec = &e->after;

	/* Applying the record again never adds privilege when the set-ID bit is back:
	 * that is the state the migration replaced. */
	d->fixable = (now->mode & (S_ISUID | S_ISGID)) && !(rec->mode & (S_ISUID | S_ISGID)) &&
		     now->uid == rec->uid;
	if (d->fixable)
		d->repair = repair_fix;
	if ((now->mode & (S_ISUID | S_ISGID)) && !(rec->mode & (S_ISUID | S_ISGID)))
		return drifted(d, DRIFT_STATE, "the set-ID bit is back (mode %04o)", now->mode);
	if (!now->has_xattr && rec->has_xattr)
		return drifted(d, DRIFT_STATE, "its capabilities are gone and it has no set-ID bit: "
			       "giving them back would add privilege, so --fix leaves it");
	if (!filestate_same(now, rec) && now->has_xattr != rec->has_xattr)
		return drifted(d, DRIFT_STATE, "its capabilities are different");
	if (now->has_xattr && rec->has_xattr && !filestate_same(now, rec) &&
	    now->uid == rec->uid && now->gid == rec->gid && now->mode == rec->mode)
		return drifted(d, DRIFT_STATE, "its capabilities are different");
	return drifted(d, DRIFT_STATE, "its owner, group or mode changed (%04o %u:%u)", now->mode,
		       now->uid, now->gid);
}

/* New content: an update from the package, or something else. */
static int content_drift(int fd, const struct host *h, const struct state_entry *e,
			 struct drift *d, bool new_inode)
{
	const char *how = new_inode ? "replaced by another file" : "its content changed";
	const char *pkg = NULL;
	enum host_digest dg = HOST_DIGEST_UNKNOWN;
	int r = h ? host_package_digest(h, e->path, fd, &dg, &pkg) : 0;

	if (r < 0 && r != -ENOMEM)
		dg = HOST_DIGEST_UNKNOWN;
	else if (r < 0)
		return r;
	switch (dg) {
	case HOST_DIGEST_MATCH:
		d->fixable = true;
		d->repair = repair_fix;
		return drifted(d, DRIFT_UPDATED, "%s: the content of package '%s' (a package update)",
			       how, pkg);
	case HOST_DIGEST_DIFFERS:
		d->repair = repair_content;
		return drifted(d, DRIFT_TAMPERED, "%s, and it is not what package '%s' shipped: "
			       "possible tampering, which --fix leaves", how, pkg);
	default:
		return drifted(d, DRIFT_UNVERIFIED, "%s, and no package database vouches for the new "
			       "content (%s), which --fix leaves", how,
			       pkg ? "no digest recorded for it" : "no package owns it");
	}
}

int verify_entry(int rootfd, const struct host *h, const struct state_entry *e,
		 struct drift *ret)
{
	struct s2c_error err = { 0 };
	_cleanup_close_ int fd = -1;
	struct file_id rec = { .dev_major = e->dev_major, .dev_minor = e->dev_minor,
			       .ino = e->ino, .state = e->after };
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->entry = e;
	memcpy(rec.sha256, e->sha256, sizeof(rec.sha256));
	fd = fileop_open(rootfd, e->path, NULL, &err);
	if (fd < 0)
		return drifted(ret, DRIFT_GONE, "%s", err.msg);
	r = fileid_read(fd, true, &ret->now);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return drifted(ret, DRIFT_GONE, "cannot read it: %s", strerror(-r));
	if (fileid_diff(&rec, &ret->now, FILEID_INODE))
		return content_drift(fd, h, e, ret, true);
	if (fileid_diff(&rec, &ret->now, FILEID_CONTENT))
		return content_drift(fd, h, e, ret, false);
	if (filestate_same(&ret->now.state, &e->after))
		return 0;
	return state_drift(e, ret);
}
