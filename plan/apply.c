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
#include "fcaps.h"
#include "fileop.h"
#include "hash.h"
#include "journal.h"
#include "plan.h"
#include "preflight.h"
#include "smoke.h"
#include "state.h"
#include "common.h"

static const char *const event_names[_APPLY_EVENT_MAX] = {
	"applied", "already done", "skipped", "failed", "smoke test passed", "rolled back",
	"restored", "not restored", "recovered",
};

const char *apply_event_name(enum apply_event e)
{
	return e < _APPLY_EVENT_MAX ? event_names[e] : "?";
}

struct run {
	int rootfd;
	int statefd, jdirfd;
	struct journal *j;
	struct state *state;
	struct preflight pf;
	const char *fault;
	unsigned seq;                 /* entry being processed, for fault points */
	apply_report_fn report;
	void *userdata;
	struct apply_result *res;
};

static void journal_freep_(struct journal **j)
{
	journal_free(*j);
}

static void run_release(struct run *run)
{
	journal_free(run->j);
	state_free(run->state);
	if (run->statefd >= 0)
		(void)close(run->statefd);
	if (run->jdirfd >= 0)
		(void)close(run->jdirfd);
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

S2C_PRINTF(4, 5) static void report(struct run *run, const char *path, enum apply_event ev,
				    const char *fmt, ...)
{
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
	if (run->report)
		run->report(run->userdata, path, ev, msg);
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

/* Open the state directory and take its lock for the whole run. */
static int open_state(struct run *run, bool create, bool trusted, struct s2c_error *err)
{
	int r = statedir_open(run->rootfd, create, trusted, &run->statefd, &run->jdirfd, err);

	if (r < 0)
		return r;
	if (run->jdirfd < 0)
		return s2c_error_set(err, -ENOENT, "no journal directory: nothing was ever applied here");
	if (flock(run->statefd, LOCK_EX | LOCK_NB) < 0)
		return s2c_error_errno(err, -errno, "another apply, rollback or verify is running");
	return 0;
}

/* --- undoing one entry ---------------------------------------------------------------- */

/*
 * Restore @e's previous state exactly, if the file is still the inode the
 * journal changed.  Writes "undo" before and "undone" after.
 * Returns 1 restored (or already), 0 not restorable (@why says why), -errno
 * when the journal cannot be written.
 */
static int restore_entry(struct run *run, struct journal *j, struct journal_entry *e, char *why,
			 size_t whysize)
{
	struct s2c_error err = { 0 };
	_cleanup_close_ int fd = -1;
	struct file_state now;
	struct stat st;
	int r;

	run->seq = e->seq;
	r = journal_undo(j, e->seq, false, &err);
	if (r < 0)
		return r;
	fault_point(run, "undo");
	fd = fileop_open(run->rootfd, e->path, &st, &err);
	if (fd < 0) {
		(void)snprintf(why, whysize, "%s", err.msg);
		return 0;
	}
	if (major(st.st_dev) != e->dev_major || minor(st.st_dev) != e->dev_minor ||
	    st.st_ino != e->ino) {
		(void)snprintf(why, whysize, "the file was replaced since the change (another inode, "
			       "e.g. a package update); it is left as it is");
		return 0;
	}
	r = filestate_read(fd, &now);
	if (r < 0) {
		(void)snprintf(why, whysize, "cannot read its state: %s", strerror(-r));
		return 0;
	}
	if (!filestate_equal(&now, &e->before)) {
		r = fileop_write(fd, &now, &e->before, true, step_cb, run, &err);
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
	int fd = dup(run->jdirfd);
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		(void)close(fd);
		return -errno;
	}
	while (r == 0 && (de = readdir(d))) {
		_cleanup_(journal_freep_) struct journal *j = NULL;
		size_t len = strlen(de->d_name);

		if (len < 9 || strcmp(de->d_name + len - 8, ".journal") != 0)
			continue;
		r = journal_open(run->jdirfd, de->d_name, true, true, &j, err);
		if (r < 0)
			break;
		if (j->ended)
			continue;
		for (size_t i = j->n; r == 0 && i-- > 0;) {
			struct journal_entry *e = &j->v[i];
			char why[S2C_ERROR_MAX + 64];

			if (e->outcome != JOURNAL_PENDING || e->undone)
				continue;
			r = restore_entry(run, j, e, why, sizeof(why));
			if (r > 0) {
				r = journal_done(j, e->seq, JOURNAL_FAILED, "interrupted; undone by a later run", err);
				report(run, e->path, APPLY_RECOVERED, "an interrupted change from %s was undone",
				       j->name);
			} else if (r == 0) {
				report(run, e->path, APPLY_NOT_RESTORED, "interrupted change from %s: %s",
				       j->name, why);
			}
		}
		if (r == 0)
			r = journal_end(j, err);
	}
	(void)closedir(d);
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

/* Does the open file still match the plan's identity?  NULL when it does. */
static const char *identity_mismatch(const struct plan_entry *pe, const struct stat *st)
{
	int64_t mtime = (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;

	if (major(st->st_dev) != pe->dev_major || minor(st->st_dev) != pe->dev_minor ||
	    st->st_ino != pe->ino)
		return "it is another file now (device or inode differ)";
	if ((uint64_t)st->st_size != pe->size)
		return "its size changed";
	if (mtime != pe->mtime_ns)
		return "its modification time changed";
	return NULL;
}

static int record_state(struct run *run, const struct plan_entry *pe, const struct stat *st,
			const struct file_state *after, struct s2c_error *err)
{
	struct state_entry se = {
		.path = pe->path, .rule_id = pe->rule_id, .dev_major = major(st->st_dev),
		.dev_minor = minor(st->st_dev), .ino = st->st_ino, .after = *after,
		.journal = run->j ? run->j->name : NULL,
	};
	int r;

	memcpy(se.sha256, pe->sha256, sizeof(se.sha256));
	r = state_put(run->state, &se);
	if (r == 0)
		r = state_save(run->statefd, run->state, err);
	fault_point(run, "state");
	return r;
}

/* Undo a change made in this run (failure or smoke test), journalled. */
static int undo_now(struct run *run, struct journal_entry *e, enum journal_outcome outcome,
		    const char *reason, struct s2c_error *err)
{
	char why[S2C_ERROR_MAX + 64];
	int r = restore_entry(run, run->j, e, why, sizeof(why));

	if (r < 0)
		return r;
	return journal_done(run->j, e->seq, r > 0 ? outcome : JOURNAL_FAILED,
			    r > 0 ? reason : why, err);
}

static int smoke(struct run *run, const struct apply_options *o, const struct plan_entry *pe,
		 int fd, char **output)
{
	int r;

	r = smoke_run(fd, pe->path, pe->smoke, pe->n_smoke, o->smoke_uid, o->smoke_gid, o->smoke_timeout, output);
	fault_point(run, "smoke");
	return r;
}

/* Returns 0 (reported), or -errno when the run must stop. */
static int apply_entry(struct run *run, const struct apply_options *o, const struct plan_entry *pe,
		       struct s2c_error *err)
{
	struct s2c_error e = { 0 };
	_cleanup_close_ int dfd = -1, fd = -1;
	struct file_state now, before, want;
	struct journal_entry *je;
	const char *why, *name = strrchr(pe->path, '/') + 1;
	char hex[HASH_HEX_LEN];
	struct stat st;
	unsigned seq;
	int r;

	state_from_plan(&pe->before, &before);
	state_from_plan(&pe->after, &want);
	dfd = fileop_open_parent(run->rootfd, pe->path, &e);
	if (dfd < 0) {
		report(run, pe->path, APPLY_SKIPPED, "%s", e.msg);
		return 0;
	}
	r = preflight_check(&run->pf, dfd, want.has_xattr || before.has_xattr, &why);
	if (r < 0) {
		report(run, pe->path, APPLY_SKIPPED, "%s; the file keeps its set-ID bits", why);
		return 0;
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		report(run, pe->path, APPLY_SKIPPED, "cannot open it: %s", errno == ELOOP ?
		       "it is a symbolic link now" : strerror(errno));
		return 0;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		report(run, pe->path, APPLY_SKIPPED, "it is not a regular file any more");
		return 0;
	}
	if ((why = identity_mismatch(pe, &st))) {
		report(run, pe->path, APPLY_SKIPPED, "changed since the plan was made: %s", why);
		return 0;
	}
	r = filestate_read(fd, &now);
	if (r < 0) {
		report(run, pe->path, APPLY_SKIPPED, "cannot read its state: %s", strerror(-r));
		return 0;
	}
	r = hash_fd_sha256(fd, hex);
	if (r < 0 || !s2c_streq(hex, pe->sha256)) {
		report(run, pe->path, APPLY_SKIPPED, "changed since the plan was made: %s",
		       r < 0 ? strerror(-r) : "its content (SHA-256) differs");
		return 0;
	}
	if (filestate_equal(&now, &want)) {
		report(run, pe->path, APPLY_ALREADY, NULL);
		return record_state(run, pe, &st, &want, err);
	}
	if (!filestate_equal(&now, &before)) {
		char a[128], b[128];
		filestate_describe(&now, a, sizeof(a));
		filestate_describe(&before, b, sizeof(b));
		report(run, pe->path, APPLY_SKIPPED, "changed since the plan was made: it is '%s', "
		       "the plan expected '%s'", a, b);
		return 0;
	}
	if (st.st_nlink > 1 && !o->allow_hardlinks) {
		report(run, pe->path, APPLY_SKIPPED, "it has %ju hard links: another name would keep "
		       "the old privilege (use --allow-hardlinks after checking them)",
		       (uintmax_t)st.st_nlink);
		return 0;
	}
	/* Write-ahead: the exact previous state is durable before anything changes. */
	r = journal_intent(run->j, pe->path, major(st.st_dev), minor(st.st_dev), st.st_ino, &now,
			   &want, &seq, err);
	if (r < 0)
		return r;
	run->seq = seq;
	je = journal_find(run->j, seq);
	fault_point(run, "intent");
	r = fileop_write(fd, &now, &want, false, step_cb, run, &e);
	if (r < 0) {
		char reason[S2C_ERROR_MAX + 32];
		(void)snprintf(reason, sizeof(reason), "%s; undone", e.msg);
		r = undo_now(run, je, JOURNAL_FAILED, reason, err);
		report(run, pe->path, APPLY_FAILED, "%s", reason);
		return r;
	}
	if (o->smoke && pe->smoke) {
		_cleanup_free_ char *out = NULL;
		int s = smoke(run, o, pe, fd, &out);
		if (s != 0) {
			char reason[SMOKE_OUTPUT_MAX + 256], status[64];

			if (s > 0)
				(void)snprintf(status, sizeof(status), "exit status %d", s);
			else
				(void)snprintf(status, sizeof(status), "%s", strerror(-s));
			(void)snprintf(reason, sizeof(reason), "the smoke test failed (%s: %s); the change "
				       "was undone", status, out && *out ? out : "no output");
			r = undo_now(run, je, JOURNAL_ROLLED_BACK, reason, err);
			report(run, pe->path, APPLY_ROLLED_BACK, "%s", reason);
			return r;
		}
		report(run, pe->path, APPLY_SMOKE_OK, NULL);
	}
	r = journal_done(run->j, seq, JOURNAL_APPLIED, NULL, err);
	if (r < 0)
		return r;
	fault_point(run, "done");
	report(run, pe->path, APPLY_APPLIED, NULL);
	if (fstat(fd, &st) < 0)
		return -errno;
	return record_state(run, pe, &st, &want, err);
}

int apply_run(const struct apply_options *o, struct apply_result *ret, struct s2c_error *err)
{
	struct run run = { .rootfd = o->rootfd, .statefd = -1, .jdirfd = -1, .fault = o->fault,
			   .report = o->report, .userdata = o->userdata, .res = ret };
	const struct plan *p = o->plan;
	bool any = false;
	int r;

	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < p->n; i++)
		any |= p->v[i].change && selected(o->only, p->v[i].path);
	r = open_state(&run, true, o->trusted, err);
	if (r == 0)
		r = state_load(run.statefd, p->root, o->trusted, &run.state, err);
	if (r == 0)
		r = recover(&run, err);
	if (r == 0 && any) {
		r = journal_create(run.jdirfd, p->root, o->plan_sha256, &run.j, err);
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

int apply_recover(int rootfd, bool trusted, apply_report_fn fn, void *userdata,
		  struct apply_result *ret, struct s2c_error *err)
{
	struct run run = { .rootfd = rootfd, .statefd = -1, .jdirfd = -1, .report = fn,
			   .userdata = userdata, .res = ret };
	int r;

	memset(ret, 0, sizeof(*ret));
	r = statedir_open(rootfd, false, trusted, &run.statefd, &run.jdirfd, err);
	if (r == -ENOENT || (r == 0 && run.jdirfd < 0)) {
		s2c_error_clear(err);
		run_release(&run);
		return 0;       /* nothing was ever applied here */
	}
	if (r == 0 && flock(run.statefd, LOCK_EX | LOCK_NB) < 0)
		r = s2c_error_errno(err, -errno, "another apply, rollback or verify is running");
	if (r == 0)
		r = recover(&run, err);
	run_release(&run);
	return r;
}

int rollback_run(const struct rollback_options *o, struct apply_result *ret, struct s2c_error *err)
{
	struct run run = { .rootfd = o->rootfd, .statefd = -1, .jdirfd = -1, .fault = o->fault,
			   .report = o->report, .userdata = o->userdata, .res = ret };
	_cleanup_free_ char *latest = NULL;
	const char *name = o->journal;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = open_state(&run, false, o->trusted, err);
	if (r == 0 && !name) {
		r = journal_latest(run.jdirfd, &latest);
		if (r == -ENOENT)
			r = s2c_error_set(err, r, "no journal to roll back");
		name = latest;
	}
	if (r == 0)
		r = state_load(run.statefd, "/", o->trusted, &run.state, err);
	if (r == 0)
		r = journal_open(run.jdirfd, name, o->trusted, true, &run.j, err);
	if (r == 0)
		(void)snprintf(ret->journal, sizeof(ret->journal), "%s", run.j->name);
	for (size_t i = run.j ? run.j->n : 0; r == 0 && i-- > 0;) {
		struct journal_entry *e = &run.j->v[i];
		char why[S2C_ERROR_MAX + 64];

		if (!selected(o->only, e->path) || e->undone ||
		    (e->outcome != JOURNAL_APPLIED && e->outcome != JOURNAL_PENDING))
			continue;
		r = restore_entry(&run, run.j, e, why, sizeof(why));
		if (r > 0) {
			struct state_entry *se = state_find(run.state, e->path);
			if (se && se->journal && s2c_streq(se->journal, run.j->name)) {
				state_remove(run.state, e->path);
				r = state_save(run.statefd, run.state, err);
			} else {
				r = 0;
			}
			report(&run, e->path, APPLY_RESTORED, NULL);
		} else if (r == 0) {
			report(&run, e->path, APPLY_NOT_RESTORED, "%s", why);
		}
	}
	run_release(&run);
	return r;
}
