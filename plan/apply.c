/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "apply.h"
#include "dirlist.h"
#include "fcaps.h"
#include "fileid.h"
#include "fileop.h"
#include "hash.h"
#include "journal.h"
#include "plan.h"
#include "preflight.h"
#include "privcheck.h"
#include "smoke.h"
#include "state.h"
#include "util.h"
#include "common.h"

static const char *const event_names[_APPLY_EVENT_MAX] = {
	"applied", "already done", "skipped", "failed", "smoke test passed", "rolled back",
	"restored", "not restored", "recovered",
};

static const char *const event_ids[_APPLY_EVENT_MAX] = {
	"applied", "already", "skipped", "failed", "smoke-ok", "rolled-back", "restored",
	"not-restored", "recovered",
};

const char *apply_event_name(enum apply_event e)
{
	return e < _APPLY_EVENT_MAX ? event_names[e] : "?";
}

const char *apply_event_id(enum apply_event e)
{
	return e < _APPLY_EVENT_MAX ? event_ids[e] : "invalid";
}

struct run {
	int rootfd;
	const char *root;             /* as the user named it, for messages */
	int statefd, jdirfd;
	char *sdir, *jdir;            /* the state and journal directories as messages name them */
	struct journal *j;
	struct state *state;
	struct preflight pf;
	const char *fault;
	unsigned seq;                 /* entry being processed, for fault points */
	bool recovering;              /* undoing what an interrupted earlier run left */
	apply_report_fn report;
	void *userdata;
	struct apply_result *res;
};

static void run_release(struct run *run)
{
	journal_free(run->j);
	state_free(run->state);
	if (run->statefd >= 0)
		(void)close(run->statefd);
	if (run->jdirfd >= 0)
		(void)close(run->jdirfd);
	free(run->sdir);
	free(run->jdir);
}

/*
 * Crash points for the crash-safety tests: compiled in only with
 * S2C_FAULT_INJECTION, and then only active when asked for.
 */
static void fault_point(struct run *run, const char *step)
{
#ifdef S2C_FAULT_INJECTION
	char want[64];
	size_t n;

	if (!run->fault)
		return;
	n = strcspn(run->fault, ":");
	if (strlen(step) != n || strncmp(step, run->fault, n) != 0)
		return;
	if (run->fault[n] == ':') {
		(void)snprintf(want, sizeof(want), "%u", run->seq);
		if (!s2c_streq(run->fault + n + 1, want))
			return;
	}
	(void)raise(SIGKILL);
#else
	(void)run;
	(void)step;
#endif
}

static void step_cb(void *userdata, const char *step)
{
	fault_point(userdata, step);
}

/*
 * Count @ev and hand it to the caller with the states the step found
 * (@before) and left (@after); NULL for a state that was not read.
 */
S2C_PRINTF(6, 7) static void report(struct run *run, const char *path, enum apply_event ev,
				    const struct file_state *before,
				    const struct file_state *after, const char *fmt, ...)
{
	struct apply_report rep = { .path = path, .event = ev, .recovery = run->recovering,
				    .before = before, .after = after };
	char msg[1024] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		(void)vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
	switch (ev) {
	case APPLY_APPLIED: run->res->applied++; break;
	case APPLY_ALREADY: run->res->already++; break;
	case APPLY_SKIPPED: run->res->skipped++; break;
	case APPLY_FAILED: run->res->failed++; break;
	case APPLY_ROLLED_BACK: run->res->rolled_back++; break;
	case APPLY_RESTORED: run->res->restored++; break;
	case APPLY_NOT_RESTORED: run->res->not_restored++; break;
	case APPLY_RECOVERED: run->res->recovered++; break;
	default: break;
	}
	rep.message = msg;
	if (run->report)
		run->report(run->userdata, &rep);
}

/* The state of @fd into @buf, or NULL when it cannot be read (for reports). */
static const struct file_state *read_state(int fd, struct file_state *buf)
{
	return fd >= 0 && filestate_read(fd, buf) == 0 ? buf : NULL;
}

static bool selected(const char *const *only, const char *path)
{
	if (!only)
		return true;
	for (size_t i = 0; only[i]; i++)
		if (s2c_streq(only[i], path))
			return true;
	return false;
}

/*
 * Open the state directory (with @create, make what is missing of it) and take its lock for
 * the whole run.  -ENOENT when nothing was ever applied here.
 */
static int open_state(struct run *run, bool create, bool trusted, struct s2c_error *err)
{
	int r;

	run->sdir = statedir_shown(run->root, NULL);
	run->jdir = statedir_shown(run->root, JOURNAL_DIR);
	if (!run->sdir || !run->jdir)
		return -ENOMEM;
	r = statedir_open(run->rootfd, run->root, create, trusted, &run->statefd, &run->jdirfd, err);
	if (r == -ENOENT && !create)
		return s2c_error_set(err, -ENOENT, "nothing was ever applied here: no state "
				     "directory '%s'", run->sdir);
	if (r < 0)
		return r;
	if (run->jdirfd < 0)
		return s2c_error_set(err, -ENOENT, "nothing was ever applied here: no journal "
				     "directory '%s'", run->jdir);
	if (flock(run->statefd, LOCK_EX | LOCK_NB) < 0)
		return s2c_error_errno(err, -errno, "another apply, rollback or verify is running "
				       "on '%s'", run->sdir);
	return 0;
}

/* --- undoing one entry ---------------------------------------------------------------- */

/* One field of a state somewhere between @b and @a, as a crash may leave it. */
static bool between(uint32_t now, uint32_t b, uint32_t a)
{
	return now == b || now == a;
}

/*
 * Is @now a state our own change of @e left?  After a finished change it is
 * the state after (the same capability sets; libcap may have written v3).
 * After an interrupted change or an interrupted undo, every field is the
 * state before's, the state after's, or what chown leaves (no set-ID bits,
 * no capabilities).
 */
static bool left_by_us(const struct journal_entry *e, const struct file_state *now)
{
	const struct file_state *b = &e->before, *a = &e->after;
	uint32_t cleared = b->mode & ~(uint32_t)(S_ISUID | S_ISGID);
	struct file_state caps_only = *now;

	if (e->outcome != JOURNAL_PENDING && !e->undo_started)
		return filestate_same(now, a);
	if (!between(now->uid, b->uid, a->uid) || !between(now->gid, b->gid, a->gid) ||
	    (!between(now->mode, b->mode, a->mode) && now->mode != cleared))
		return false;
	if (!now->has_xattr)
		return true;
	caps_only.uid = b->uid;
	caps_only.gid = b->gid;
	caps_only.mode = b->mode;
	if (filestate_equal(&caps_only, b))
		return true;
	caps_only.uid = a->uid;
	caps_only.gid = a->gid;
	caps_only.mode = a->mode;
	return filestate_same(&caps_only, a);
}

/* The content the file had when it was changed: from the journal, or, for a
 * version 1 journal, from the state record of the same run. */
static const char *changed_content(const struct run *run, const struct journal *j,
				   const struct journal_entry *e)
{
	const struct state_entry *se;

	if (e->sha256_after[0])
		return e->sha256_after;
	if (e->sha256[0])
		return e->sha256;
	se = run->state ? state_find(run->state, e->path) : NULL;
	if (se && se->journal && s2c_streq(se->journal, j->name) && se->sha256[0] &&
	    se->dev_major == e->dev_major && se->dev_minor == e->dev_minor && se->ino == e->ino)
		return se->sha256;
	return NULL;
}

/* What restore_entry() found the file in and left it in, for the report. */
struct seen {
	bool found, left;
	struct file_state before, after;
};

static const struct file_state *seen_before(const struct seen *s)
{
	return s->found ? &s->before : NULL;
}

static const struct file_state *seen_after(const struct seen *s)
{
	return s->left ? &s->after : NULL;
}

/*
 * Restore @e's previous state exactly, only onto what the change left: the
 * same inode, the same content (SHA-256) and the state the change gave it.
 * Writes "undo" before and "undone" after.  @seen receives the states the
 * file was found in and left in, as far as they were read.
 * Returns 1 restored (or already), 0 not restorable (@why says why), -errno
 * when the journal cannot be written.
 */
static int restore_entry(struct run *run, struct journal *j, struct journal_entry *e,
			 struct seen *seen, char *why, size_t whysize)
{
	struct s2c_error err = { 0 };
	_cleanup_close_ int fd = -1;
	struct file_id id, changed;
	const char *sha = changed_content(run, j, e);
	char now[128], left[128];
	int r;

	*seen = (struct seen){ 0 };
	run->seq = e->seq;
	r = journal_undo(j, e->seq, false, &err);
	if (r < 0)
		return r;
	fault_point(run, "undo");
	fd = fileop_open(run->rootfd, e->path, NULL, &err);
	if (fd < 0) {
		(void)snprintf(why, whysize, "%s", err.msg);
		return 0;
	}
	r = fileid_read(fd, true, &id);
	if (r < 0) {
		(void)snprintf(why, whysize, "cannot read it: %s", strerror(-r));
		return 0;
	}
	seen->found = seen->left = true;
	seen->before = seen->after = id.state;
	changed = (struct file_id){ .dev_major = e->dev_major, .dev_minor = e->dev_minor,
				    .ino = e->ino };
	if (fileid_diff(&changed, &id, FILEID_INODE)) {
		(void)snprintf(why, whysize, "the file was replaced since the change (another inode, "
			       "e.g. a package update); it is left as it is");
		return 0;
	}
	if (!sha) {
		filestate_describe(&e->before, left, sizeof(left));
		(void)snprintf(why, whysize, "the journal (format 1) records no content hash for it, "
			       "so it cannot be told from other content on the same inode; check it "
			       "and restore '%s' by hand", left);
		return 0;
	}
	if (!s2c_streq(id.sha256, sha)) {
		(void)snprintf(why, whysize, "its content changed since the change (SHA-256 differs): "
			       "it is not the program the journal changed; it is left as it is");
		return 0;
	}
	if (!filestate_equal(&id.state, &e->before)) {
		if (!left_by_us(e, &id.state)) {
			filestate_describe(&id.state, now, sizeof(now));
			filestate_describe(&e->after, left, sizeof(left));
			(void)snprintf(why, whysize, "its owner, group, mode or capabilities changed since "
				       "the change (it is '%s', the change left '%s'); it is left as it is",
				       now, left);
			return 0;
		}
		r = fileop_write(fd, &id.state, &e->before, true, step_cb, run, &err);
		seen->left = read_state(fd, &seen->after) != NULL;
		if (r < 0) {
			(void)snprintf(why, whysize, "%s", err.msg);
			return 0;
		}
	}
	r = journal_undo(j, e->seq, true, &err);
	if (r < 0)
		return r;
	fault_point(run, "undone");
	return 1;
}

/* Undo what an interrupted earlier run left half done, in every journal. */
static int recover(struct run *run, struct s2c_error *err)
{
	_cleanup_(strv_freep) char **names = NULL;
	int r = dirlist(run->jdirfd, JOURNAL_GLOB, 0, &names);

	run->recovering = true;
	for (size_t k = 0; r >= 0 && names[k]; k++) {
		_cleanup_(journal_freep) struct journal *j = NULL;

		r = journal_open(run->jdirfd, run->jdir, names[k], true, true, &j, err);
		if (r < 0)
			break;
		if (j->ended)
			continue;
		for (size_t i = j->n; r == 0 && i-- > 0;) {
			struct journal_entry *e = &j->v[i];
			char why[S2C_ERROR_MAX + 64];
			struct seen seen;

			if (e->outcome != JOURNAL_PENDING || e->undone)
				continue;
			r = restore_entry(run, j, e, &seen, why, sizeof(why));
			if (r > 0) {
				r = journal_done(j, e->seq, JOURNAL_FAILED,
						 "interrupted; undone by a later run", NULL, err);
				report(run, e->path, APPLY_RECOVERED, seen_before(&seen),
				       seen_after(&seen),
				       "an interrupted change from %s was undone", j->name);
			} else if (r == 0) {
				report(run, e->path, APPLY_NOT_RESTORED, seen_before(&seen),
				       seen_after(&seen), "interrupted change from %s: %s", j->name,
				       why);
			}
		}
		if (r == 0)
			r = journal_end(j, err);
	}
	run->recovering = false;
	return r < 0 ? r : 0;
}

/* --- applying one entry --------------------------------------------------------------- */

static void state_from_plan(const struct plan_state *p, struct file_state *s)
{
	memset(s, 0, sizeof(*s));
	s->uid = p->uid;
	s->gid = p->gid;
	s->mode = p->mode & 07777;
	s->has_xattr = p->caps_len > 0;
	s->xattr_len = p->caps_len;
	memcpy(s->xattr, p->caps_raw, p->caps_len);
}

/* The identity the plan recorded for @pe. */
static void id_from_plan(const struct plan_entry *pe, struct file_id *id)
{
	memset(id, 0, sizeof(*id));
	id->dev_major = pe->dev_major;
	id->dev_minor = pe->dev_minor;
	id->ino = pe->ino;
	id->size = pe->size;
	id->mtime_ns = pe->mtime_ns;
	id->nlink = pe->nlink;
	state_from_plan(&pe->before, &id->state);
	memcpy(id->sha256, pe->sha256, sizeof(id->sha256));
}

static int record_state(struct run *run, const struct plan_entry *pe, const struct file_id *id,
			const struct file_state *after, struct s2c_error *err)
{
	struct state_entry se = {
		.path = pe->path, .rule_id = pe->rule_id, .dev_major = id->dev_major,
		.dev_minor = id->dev_minor, .ino = id->ino, .after = *after,
		.journal = run->j ? run->j->name : NULL,
	};
	int r;

	memcpy(se.sha256, id->sha256, sizeof(se.sha256));
	r = state_put(run->state, &se);
	if (r == 0)
		r = state_save(run->statefd, run->sdir, run->state, err);
	fault_point(run, "state");
	return r;
}

/* Undo a change made in this run (failure or smoke test), journalled. */
static int undo_now(struct run *run, struct journal_entry *e, enum journal_outcome outcome,
		    const char *reason, struct s2c_error *err)
{
	char why[S2C_ERROR_MAX + 64];
	struct seen seen;
	int r = restore_entry(run, run->j, e, &seen, why, sizeof(why));

	if (r < 0)
		return r;
	return journal_done(run->j, e->seq, r > 0 ? outcome : JOURNAL_FAILED,
			    r > 0 ? reason : why, NULL, err);
}

static int smoke(struct run *run, const struct apply_options *o, const struct plan_entry *pe,
		 int fd, char **output)
{
	int r;

	r = smoke_run(fd, pe->path, pe->smoke, pe->n_smoke, o->smoke_uid, o->smoke_gid, o->smoke_timeout, output);
	fault_point(run, "smoke");
	return r;
}

/*
 * The state of the regular file @name in @dfd, for the report of an entry
 * skipped before it was opened; NULL when it is not a regular file or cannot
 * be read.
 */
static const struct file_state *peek_state(int dfd, const char *name, struct file_state *buf)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	return read_state(fd, buf);
}

/*
 * Open @pe's file for the change and check it is what the plan saw and that
 * the change is allowed.  Returns the fd, 0 when the entry was reported
 * (skipped or already done), or -errno when the run must stop.
 */
static int open_checked(struct run *run, const struct apply_options *o,
			const struct plan_entry *pe, struct file_id *ret_id, struct s2c_error *err)
{
	struct s2c_error e = { 0 };
	_cleanup_close_ int dfd = -1, fd = -1;
	struct file_state before, want, peek;
	const struct file_state *now;
	struct file_id planned;
	const char *why, *name = strrchr(pe->path, '/') + 1;
	char a[128], b[128];
	int r;

	state_from_plan(&pe->before, &before);
	state_from_plan(&pe->after, &want);
	dfd = fileop_open_parent(run->rootfd, pe->path, &e);
	if (dfd < 0) {
		report(run, pe->path, APPLY_SKIPPED, NULL, NULL, "%s", e.msg);
		return 0;
	}
	r = preflight_check(&run->pf, dfd, want.has_xattr || before.has_xattr, &why);
	if (r < 0) {
		now = peek_state(dfd, name, &peek);
		report(run, pe->path, APPLY_SKIPPED, now, now, "%s; the file keeps its set-ID bits",
		       why);
		return 0;
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		report(run, pe->path, APPLY_SKIPPED, NULL, NULL, "cannot open it: %s",
		       errno == ELOOP ? "it is a symbolic link now" : strerror(errno));
		return 0;
	}
	r = fileid_read(fd, true, ret_id);
	if (r < 0) {
		report(run, pe->path, APPLY_SKIPPED, NULL, NULL, "%s", r == -EINVAL ?
		       "it is not a regular file any more" : strerror(-r));
		return 0;
	}
	now = &ret_id->state;
	id_from_plan(pe, &planned);
	why = fileid_diff(&planned, ret_id, FILEID_INODE | FILEID_SIZE_MTIME | FILEID_CONTENT);
	if (why) {
		report(run, pe->path, APPLY_SKIPPED, now, now,
		       "changed since the plan was made: %s", why);
		return 0;
	}
	if (filestate_equal(now, &want)) {
		report(run, pe->path, APPLY_ALREADY, now, now, NULL);
		r = record_state(run, pe, ret_id, &want, err);
		return r < 0 ? r : 0;
	}
	if (!filestate_equal(now, &before)) {
		filestate_describe(now, a, sizeof(a));
		filestate_describe(&before, b, sizeof(b));
		report(run, pe->path, APPLY_SKIPPED, now, now,
		       "changed since the plan was made: it is '%s', the plan expected '%s'", a, b);
		return 0;
	}
	if (ret_id->nlink > 1 && !o->allow_hardlinks) {
		report(run, pe->path, APPLY_SKIPPED, now, now, "it has %u hard links: another name "
		       "would keep the old privilege (use --allow-hardlinks after checking them)",
		       ret_id->nlink);
		return 0;
	}
	/* The plan's verdict and risk are not trusted: the order is checked on the file. */
	r = privcheck(o->caps, now, &want, o->allow_root_equivalent ? PRIVCHECK_ROOT_EQUIVALENT : 0,
		      &e);
	if (r < 0) {
		report(run, pe->path, APPLY_SKIPPED, now, now, "refused: %s%s", e.msg,
		       r == -EACCES ? "; pass --allow-root-equivalent to accept it" : "");
		return 0;
	}
	return TAKE_FD(fd);
}

/*
 * Run the entry's smoke test on the changed file; when it fails, undo the
 * change.  Returns 0 when it passed, 1 when the change was undone (reported),
 * or -errno when the run must stop.
 */
static int smoke_or_undo(struct run *run, const struct apply_options *o,
			 const struct plan_entry *pe, int fd, const struct file_state *before,
			 struct journal_entry *je, struct s2c_error *err)
{
	_cleanup_free_ char *out = NULL;
	char reason[SMOKE_OUTPUT_MAX + 256], status[64];
	struct file_state left;
	int s = smoke(run, o, pe, fd, &out), r;

	if (s == 0) {
		report(run, pe->path, APPLY_SMOKE_OK, before, read_state(fd, &left), NULL);
		return 0;
	}
	if (s > 0)
		(void)snprintf(status, sizeof(status), "exit status %d", s);
	else
		(void)snprintf(status, sizeof(status), "%s", strerror(-s));
	(void)snprintf(reason, sizeof(reason), "the smoke test failed (%s: %s); the change was undone",
		       status, out && *out ? out : "no output");
	r = undo_now(run, je, JOURNAL_ROLLED_BACK, reason, err);
	report(run, pe->path, APPLY_ROLLED_BACK, before, read_state(fd, &left), "%s", reason);
	return r < 0 ? r : 1;
}

/*
 * Check the file (open_checked), then change it: journal the intent, write
 * the new state, smoke-test it and journal the outcome.
 * Returns 0 (reported), or -errno when the run must stop.
 */
static int apply_entry(struct run *run, const struct apply_options *o, const struct plan_entry *pe,
		       struct s2c_error *err)
{
	struct s2c_error e = { 0 };
	_cleanup_close_ int fd = -1;
	struct file_state want, before, left;
	struct file_id id;
	struct journal_entry *je;
	char after[HASH_HEX_LEN];
	unsigned seq;
	int r;

	fd = open_checked(run, o, pe, &id, err);
	if (fd <= 0)
		return fd;
	before = id.state;
	state_from_plan(&pe->after, &want);
	/* Write-ahead: the exact previous state and content are durable before anything changes. */
	r = journal_intent(run->j, pe->path, &id, &want, &seq, err);
	if (r < 0)
		return r;
	run->seq = seq;
	je = journal_find(run->j, seq);
	fault_point(run, "intent");
	r = fileop_write(fd, &id.state, &want, false, step_cb, run, &e);
	if (r < 0) {
		char reason[S2C_ERROR_MAX + 32];
		(void)snprintf(reason, sizeof(reason), "%s; undone", e.msg);
		r = undo_now(run, je, JOURNAL_FAILED, reason, err);
		report(run, pe->path, APPLY_FAILED, &before, read_state(fd, &left), "%s", reason);
		return r;
	}
	if (o->smoke && pe->smoke) {
		r = smoke_or_undo(run, o, pe, fd, &before, je, err);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	r = hash_fd_sha256(fd, after);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot read '%s' back", pe->path);
	r = journal_done(run->j, seq, JOURNAL_APPLIED, NULL, after, err);
	if (r < 0)
		return r;
	fault_point(run, "done");
	r = fileid_read(fd, false, &id);
	report(run, pe->path, APPLY_APPLIED, &before, r < 0 ? NULL : &id.state, NULL);
	if (r < 0)
		return r;
	memcpy(id.sha256, after, sizeof(id.sha256));
	return record_state(run, pe, &id, &want, err);
}

int apply_run(const struct apply_options *o, struct apply_result *ret, struct s2c_error *err)
{
	struct run run = { .rootfd = o->rootfd, .root = o->plan->root, .statefd = -1, .jdirfd = -1,
			   .fault = o->fault, .report = o->report, .userdata = o->userdata,
			   .res = ret };
	const struct plan *p = o->plan;
	bool any = false;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!o->caps)
		return s2c_error_set(err, -EINVAL, "no capability table to check the changes with");
	for (size_t i = 0; i < p->n; i++)
		any |= p->v[i].change && selected(o->only, p->v[i].path);
	r = open_state(&run, true, o->trusted, err);
	if (r == 0)
		r = state_load(run.statefd, run.sdir, p->root, o->trusted, &run.state, err);
	if (r == 0)
		r = recover(&run, err);
	if (r == 0 && any) {
		r = journal_create(run.jdirfd, run.jdir, p->root, o->plan_sha256,
				   o->allow_root_equivalent ? JOURNAL_ROOT_EQUIVALENT : 0, &run.j, err);
		if (r == 0)
			(void)snprintf(ret->journal, sizeof(ret->journal), "%s", run.j->name);
	}
	for (size_t i = 0; r == 0 && any && i < p->n; i++)
		if (p->v[i].change && selected(o->only, p->v[i].path))
			r = apply_entry(&run, o, &p->v[i], err);
	if (r == 0 && run.j)
		r = journal_end(run.j, err);
	run_release(&run);
	return r;
}

int apply_recover(int rootfd, const char *root, bool trusted, apply_report_fn fn,
		  void *userdata, struct apply_result *ret, struct s2c_error *err)
{
	struct run run = { .rootfd = rootfd, .root = root, .statefd = -1, .jdirfd = -1,
			   .report = fn, .userdata = userdata, .res = ret };
	int r;

	memset(ret, 0, sizeof(*ret));
	r = open_state(&run, false, trusted, err);
	if (r == -ENOENT) {
		s2c_error_clear(err);
		run_release(&run);
		return 0;       /* nothing was ever applied here */
	}
	if (r == 0)
		r = state_load(run.statefd, run.sdir, "/", trusted, &run.state, err);
	if (r == 0)
		r = recover(&run, err);
	run_release(&run);
	return r;
}

/* Does @j hold a change that rollback would undo? */
static bool undoable(const struct journal_entry *e)
{
	return !e->undone && (e->outcome == JOURNAL_APPLIED || e->outcome == JOURNAL_PENDING);
}

/* Journal names in @dirfd, newest first (names sort by time). */
static int journal_names(int dirfd, char ***ret)
{
	char **v = NULL;
	int n = dirlist(dirfd, JOURNAL_GLOB, 0, &v);

	if (n < 0)
		return n;
	for (int i = 0, k = n - 1; i < k; i++, k--) {
		char *t = v[i];
		v[i] = v[k];
		v[k] = t;
	}
	*ret = v;
	return n;
}

/* The newest journal with a change left to undo. */
static int latest_undoable(struct run *run, bool trusted, char **ret, struct s2c_error *err)
{
	_cleanup_(strv_freep) char **names = NULL;
	int n = journal_names(run->jdirfd, &names), r = n < 0 ? n : 0;

	for (int i = 0; r == 0 && i < n; i++) {
		_cleanup_(journal_freep) struct journal *j = NULL;
		bool any = false;

		r = journal_open(run->jdirfd, run->jdir, names[i], trusted, false, &j, err);
		for (size_t k = 0; r == 0 && k < j->n && !any; k++)
			any = undoable(&j->v[k]);
		if (r == 0 && any)
			return (*ret = strdup(names[i])) ? 0 : -ENOMEM;
	}
	if (r < 0)
		return r;
	if (n)
		return -EALREADY;
	return s2c_error_set(err, -ENOENT, "no journal to roll back: nothing was ever applied here");
}

int rollback_run(const struct rollback_options *o, struct apply_result *ret, struct s2c_error *err)
{
	struct run run = { .rootfd = o->rootfd, .root = o->root, .statefd = -1, .jdirfd = -1,
			   .fault = o->fault, .report = o->report, .userdata = o->userdata,
			   .res = ret };
	_cleanup_free_ char *latest = NULL;
	const char *name = o->journal;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = open_state(&run, false, o->trusted, err);
	if (r == 0 && !name) {
		r = latest_undoable(&run, o->trusted, &latest, err);
		name = latest;
		if (r == -EALREADY) {
			run_release(&run);
			return 0;       /* every change of every journal is undone already */
		}
	}
	if (r == 0)
		r = state_load(run.statefd, run.sdir, "/", o->trusted, &run.state, err);
	if (r == 0)
		r = journal_open(run.jdirfd, run.jdir, name, o->trusted, true, &run.j, err);
	if (r == 0)
		(void)snprintf(ret->journal, sizeof(ret->journal), "%s", run.j->name);
	for (size_t i = run.j ? run.j->n : 0; r == 0 && i-- > 0;) {
		struct journal_entry *e = &run.j->v[i];
		char why[S2C_ERROR_MAX + 64];
		struct seen seen;

		if (!selected(o->only, e->path) || !undoable(e))
			continue;
		r = restore_entry(&run, run.j, e, &seen, why, sizeof(why));
		if (r > 0) {
			struct state_entry *se = state_find(run.state, e->path);
			if (se && se->journal && s2c_streq(se->journal, run.j->name)) {
				state_remove(run.state, e->path);
				r = state_save(run.statefd, run.sdir, run.state, err);
			} else {
				r = 0;
			}
			report(&run, e->path, APPLY_RESTORED, seen_before(&seen), seen_after(&seen),
			       NULL);
		} else if (r == 0) {
			report(&run, e->path, APPLY_NOT_RESTORED, seen_before(&seen),
			       seen_after(&seen), "%s", why);
		}
	}
	run_release(&run);
	return r;
}

void journal_infos_free(struct journal_info *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].root);
	}
	free(v);
}

static void journal_infop_free(struct journal_info **v)
{
	free(*v);
}

int journal_infos(int rootfd, const char *root, bool trusted, struct journal_info **ret,
		  size_t *ret_n, struct s2c_error *err)
{
	struct run run = { .rootfd = rootfd, .root = root, .statefd = -1, .jdirfd = -1 };
	_cleanup_(journal_infop_free) struct journal_info *v = NULL;
	_cleanup_(strv_freep) char **names = NULL;
	size_t n = 0, k = 0;
	int r = -ENOMEM;

	run.sdir = statedir_shown(root, NULL);
	run.jdir = statedir_shown(root, JOURNAL_DIR);
	if (run.sdir && run.jdir)
		r = statedir_open(rootfd, root, false, trusted, &run.statefd, &run.jdirfd, err);
	if (r == -ENOENT || (r == 0 && run.jdirfd < 0)) {
		s2c_error_clear(err);
		run_release(&run);
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if (r == 0) {
		int c = journal_names(run.jdirfd, &names);
		r = c < 0 ? c : 0;
		n = c < 0 ? 0 : (size_t)c;
	}
	if (r == 0 && !(v = calloc(n ? n : 1, sizeof(*v))))
		r = -ENOMEM;
	for (; r == 0 && k < n; k++) {
		_cleanup_(journal_freep) struct journal *j = NULL;
		struct journal_info *in = &v[k];

		r = journal_open(run.jdirfd, run.jdir, names[k], trusted, false, &j, err);
		if (r < 0)
			break;
		in->name = strdup(names[k]);
		in->root = j->root ? strdup(j->root) : NULL;
		if (!in->name || (j->root && !in->root)) {
			r = -ENOMEM;
			break;
		}
		in->version = j->version;
		in->ended = j->ended;
		in->root_equivalent = j->flags & JOURNAL_ROOT_EQUIVALENT;
		in->entries = j->n;
		for (size_t i = 0; i < j->n; i++) {
			const struct journal_entry *e = &j->v[i];
			if (e->undone)
				in->undone++;
			else if (e->outcome == JOURNAL_APPLIED)
				in->applied++;
			else if (e->outcome == JOURNAL_PENDING)
				in->interrupted++;
			else
				in->other++;
		}
	}
	run_release(&run);
	if (r < 0) {
		journal_infos_free(TAKE_PTR(v), k);
		return r;
	}
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}
