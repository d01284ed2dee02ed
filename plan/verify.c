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

S2C_PRINTF(3, 4) static int drifted(struct drift *d, enum drift_kind kind, const char *fmt, ...)
{
	va_list ap;

	d->kind = kind;
	va_start(ap, fmt);
	(void)vsnprintf(d->what, sizeof(d->what), fmt, ap);
	va_end(ap);
	return 0;
}

/*
 * Same content, another state: what changed (filestate_change(), as rollback
 * says it), and whether applying the record again is safe.
 */
static int state_drift(const struct state_entry *e, struct drift *d)
{
	const struct file_state *now = &d->now.state, *rec = &e->left.state;
	const uint32_t setid = S_ISUID | S_ISGID;
	char what[320];

	filestate_change(rec, now, what, sizeof(what));
	/* Applying the record again never adds privilege when the set-ID bit is back:
	 * that is the state the migration replaced. */
	d->fixable = (now->mode & setid) && !(rec->mode & setid) && now->uid == rec->uid;
	if (!now->has_xattr && rec->has_xattr && !(now->mode & setid))
		return drifted(d, DRIFT_STATE, "%s and it has no set-ID bit: giving them back would "
			       "add privilege, so it is not repaired (if that is wanted, plan and "
			       "apply it again; 'verify --forget' stops tracking it)", what);
	return drifted(d, DRIFT_STATE, "%s", what);
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
		return drifted(d, DRIFT_UPDATED, "%s: the content of package '%s' (a package update)",
			       how, pkg);
	case HOST_DIGEST_DIFFERS:
		return drifted(d, DRIFT_TAMPERED, "%s, and it is not what package '%s' shipped: "
			       "possible tampering, not repaired", how, pkg);
	default:
		return drifted(d, DRIFT_UNVERIFIED, "%s, and no package database vouches for the new "
			       "content (%s): not repaired", how, pkg ? "no digest recorded for it" :
			       "no package owns it");
	}
}

int verify_entry(int rootfd, const struct host *h, const struct state_entry *e,
		 struct drift *ret)
{
	struct s2c_error err = { 0 };
	_cleanup_close_ int fd = -1;
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->entry = e;
	fd = fileop_open(rootfd, e->path, NULL, &err);
	if (fd < 0)
		return drifted(ret, DRIFT_GONE, "%s", err.msg);
	r = fileid_read(fd, true, &ret->now);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return drifted(ret, DRIFT_GONE, "cannot read it: %s", strerror(-r));
	switch (fileid_left(&e->left, &ret->now)) {
	case FILEID_AS_LEFT:
		return 0;
	case FILEID_REPLACED:
		return content_drift(fd, h, e, ret, true);
	case FILEID_REWRITTEN:
		return content_drift(fd, h, e, ret, false);
	case FILEID_RESTATED:
		return state_drift(e, ret);
	case _FILEID_LEFT_MAX:
	case _FILEID_LEFT_INVALID:
		break;
	}
	return -EINVAL;
}
