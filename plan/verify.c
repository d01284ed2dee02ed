/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "fileid.h"
#include "fileop.h"
#include "host.h"
#include "plan.h"
#include "state.h"
#include "statedir.h"
#include "strtable.h"
#include "util.h"
#include "verify.h"
#include "common.h"

static const char *const kind_names[_DRIFT_KIND_MAX] = {
	"none", "gone", "state", "updated", "tampered", "unverified",
};

DEFINE_STRING_TABLE_TO_NAME(drift_kind_name, enum drift_kind, kind_names, "invalid")

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
	if (d->fixable)
		d->repair = repair_fix;
	if (!now->has_xattr && rec->has_xattr && !(now->mode & setid))
		return drifted(d, DRIFT_STATE, "%s and it has no set-ID bit: giving them back would "
			       "add privilege, so --fix leaves it", what);
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

/* --- a whole record ------------------------------------------------------------------------ */

struct verify_run *verify_run_free(struct verify_run *v)
{
	if (!v)
		return NULL;
	free(v->drifts);
	host_free(v->host);
	state_free(v->state);
	free(v);
	return NULL;
}

/* The record beneath @rootfd into @v->state; 1 when there is no state directory. */
static int load_record(int rootfd, const char *root, const char *path, bool trusted,
		       struct verify_run *v, struct s2c_error *err)
{
	_cleanup_free_ char *sdir = statedir_shown(root, NULL);
	_cleanup_close_ int statefd = -1;
	int r;

	if (!sdir)
		return -ENOMEM;
	r = statedir_open(rootfd, root, false, trusted, &statefd, err);
	if (r == -ENOENT) {
		s2c_error_clear(err);
		return 1;
	}
	if (r < 0)
		return r;
	return state_load(statefd, sdir, path, trusted, &v->state, err);
}

int verify_run_check(int rootfd, const char *root, const char *path, bool live, bool trusted,
		     struct verify_run **ret, struct s2c_error *err)
{
	_cleanup_(verify_run_freep) struct verify_run *v = calloc(1, sizeof(*v));
	_cleanup_free_ const char **paths = NULL;
	int r;

	if (!v)
		return -ENOMEM;
	r = load_record(rootfd, root, path, trusted, v, err);
	if (r != 0)
		return r;
	r = host_new(rootfd, live, NULL, &v->host, err);
	if (r < 0)
		return r;
	v->drifts = calloc(v->state->n + 1, sizeof(*v->drifts));
	paths = calloc(v->state->n + 1, sizeof(char *));
	if (!v->drifts || !paths)
		return -ENOMEM;
	for (size_t i = 0; i < v->state->n; i++)
		paths[i] = v->state->v[i].path;
	r = host_load_packages(v->host, paths, v->state->n);
	for (size_t i = 0; r == 0 && i < v->state->n; i++) {
		r = verify_entry(rootfd, v->host, &v->state->v[i], &v->drifts[i]);
		v->n_drifted += r == 0 && v->drifts[i].kind != DRIFT_NONE;
	}
	if (r < 0)
		return r;
	*ret = TAKE_PTR(v);
	return 0;
}

/* --- repairing ------------------------------------------------------------------------------ */

int verify_fixable(const struct verify_run *v, verify_refused_fn refused, void *userdata,
		   const char ***ret_paths, size_t *ret_refused)
{
	const char **paths = calloc(v->state->n + 1, sizeof(char *));
	size_t n = 0, other = 0;

	if (!paths)
		return -ENOMEM;
	for (size_t i = 0; i < v->state->n; i++) {
		const struct drift *d = &v->drifts[i];

		if (d->kind == DRIFT_NONE)
			continue;
		if (d->fixable) {
			paths[n++] = d->entry->path;
		} else {
			_cleanup_free_ char *why = d->repair ? strdup_printf("%s; %s", d->what,
									 d->repair) : NULL;

			refused(userdata, d->entry->path, why ? why : d->what);
			other++;
		}
	}
	*ret_paths = paths;
	*ret_refused = other;
	return (int)n;
}

static struct plan_entry *find_entry(struct plan *p, const char *path)
{
	for (size_t j = 0; j < p->n; j++)
		if (s2c_streq(p->v[j].path, path))
			return &p->v[j];
	return NULL;
}

/*
 * Whether the fresh decision @pe (NULL: the file is not privileged any more)
 * repairs @d: exactly the recorded state, on the content that was checked.
 * Otherwise it goes to @refused and false is returned.
 */
static bool approve(const struct drift *d, const struct plan_entry *pe,
		    verify_refused_fn refused, void *userdata)
{
	const struct file_state *rec = &d->entry->left.state;
	_cleanup_free_ char *why = NULL;
	char shown[128];

	if (!pe) {
		refused(userdata, d->entry->path, "it is not privileged any more, so there is "
			"nothing to repair");
		return false;
	}
	if (!s2c_streq(pe->id.sha256, d->now.sha256)) {
		refused(userdata, d->entry->path, "its content changed again while it was checked");
		return false;
	}
	if (pe->change && filestate_same(&pe->after, rec))
		return true;
	filestate_describe(rec, shown, sizeof(shown));
	why = strdup_printf("the rules no longer decide the recorded state '%s' (now %s, %s%s)",
			    shown, verdict_name(pe->verdict), pe->rule_id ? "rule " : "no rule",
			    pe->rule_id ? pe->rule_id : "");
	refused(userdata, d->entry->path, why ? why : "the rules no longer decide the recorded "
		"state");
	return false;
}

int verify_approve(const struct verify_run *v, struct plan *p, verify_refused_fn refused,
		   void *userdata, const char ***ret_approved)
{
	const char **approved = calloc(v->state->n + 1, sizeof(char *));
	size_t m = 0, unrepaired = 0;

	if (!approved)
		return -ENOMEM;
	for (size_t i = 0; i < v->state->n; i++) {
		const struct drift *d = &v->drifts[i];
		struct plan_entry *pe;

		if (d->kind == DRIFT_NONE || !d->fixable)
			continue;
		pe = find_entry(p, d->entry->path);
		if (approve(d, pe, refused, userdata))
			approved[m++] = pe->path;
		else
			unrepaired++;
	}
	/* Only the approved entries change. */
	for (size_t j = 0; j < p->n; j++) {
		bool ok = false;

		for (size_t i = 0; i < m && !ok; i++)
			ok = approved[i] == p->v[j].path;
		p->v[j].change = p->v[j].change && ok;
	}
	*ret_approved = approved;
	return (int)unrepaired;
}

/* --- forgetting ----------------------------------------------------------------------------- */

int verify_forget(int rootfd, const char *root, const char *const *paths, size_t n,
		  bool trusted, bool *ret_found, struct s2c_error *err)
{
	_cleanup_free_ char *sdir = statedir_shown(root, NULL);
	_cleanup_(state_freep) struct state *state = NULL;
	_cleanup_close_ int statefd = -1;
	int r;

	if (!sdir)
		return -ENOMEM;
	r = statedir_open(rootfd, root, false, trusted, &statefd, err);
	if (r == 0)
		r = statedir_lock(statefd, sdir, err);
	if (r == 0)
		r = state_load(statefd, sdir, "/", trusted, &state, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		ret_found[i] = state_remove(state, paths[i]);
	return state_save(statefd, sdir, state, err);
}
