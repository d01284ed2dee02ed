/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The forward path of apply: for each selected plan entry, check the file is
 * still the one the plan saw and the change narrows its privilege, journal
 * the intent, change it, smoke-test it and record the state it was given.
 * Failures and failed smoke tests are undone at once (plan/restore.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "applyrun.h"
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

/* --- applying one entry --------------------------------------------------------------- */

static int record_state(struct run *run, const struct plan_entry *pe, const struct file_id *id,
			const struct file_state *after, struct s2c_error *err)
{
	struct state_entry se = {
		.path = pe->path, .rule_id = pe->rule_id,
		.left = { .dev_major = id->dev_major, .dev_minor = id->dev_minor, .ino = id->ino,
			  .state = *after },
		.journal = run->j ? run->j->name : NULL,
	};
	int r;

	memcpy(se.left.sha256, id->sha256, sizeof(se.left.sha256));
	r = state_put(run->state, &se);
	if (r == 0) {
		run->unsaved++;
		r = run_save_state(run, false, err);
	}
	run_fault(run, "state");
	return r;
}

/* Undo a change made in this run (failure or smoke test), journalled. */
static int undo_now(struct run *run, struct journal_entry *e, enum journal_outcome outcome,
		    const char *reason, struct s2c_error *err)
{
	char why[S2C_ERROR_MAX + 64];
	struct seen seen;
	int r = run_restore(run, run->j, e, &seen, why, sizeof(why));

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
	run_fault(run, "smoke");
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
	return run_read_state(fd, buf);
}

/*
 * Open @pe's file for the change and check it is what the plan saw and that
 * the change is allowed.  Returns 1 with the fd in @ret_fd, 0 when the entry
 * was reported (skipped or already done), or -errno when the run must stop.
 * (An fd of 0 is an fd like any other: it never stands for "no file".)
 */
static int open_checked(struct run *run, const struct apply_options *o,
			const struct plan_entry *pe, struct file_id *ret_id, int *ret_fd,
			struct s2c_error *err)
{
	const struct file_state *before = &pe->id.state, *want = &pe->after, *now;
	struct s2c_error e = { 0 };
	_cleanup_close_ int dfd = -1, fd = -1;
	struct file_state peek;
	const char *why, *name = strrchr(pe->path, '/') + 1;
	char a[128], b[128];
	int r;

	dfd = fileop_open_parent(run->rootfd, pe->path, &e);
	if (dfd < 0) {
		run_report(run, pe->path, APPLY_SKIPPED, NULL, NULL, "%s", e.msg);
		return 0;
	}
	r = preflight_check(&run->pf, dfd, want->has_xattr || before->has_xattr, &why);
	if (r < 0) {
		now = peek_state(dfd, name, &peek);
		run_report(run, pe->path, APPLY_SKIPPED, now, now, "%s; the file keeps its set-ID bits",
		       why);
		return 0;
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		run_report(run, pe->path, APPLY_SKIPPED, NULL, NULL, "cannot open it: %s",
		       errno == ELOOP ? "it is a symbolic link now" : strerror(errno));
		return 0;
	}
	r = fileid_read(fd, true, ret_id);
	if (r < 0) {
		run_report(run, pe->path, APPLY_SKIPPED, NULL, NULL, "%s", r == -EINVAL ?
		       "it is not a regular file any more" : strerror(-r));
		return 0;
	}
	now = &ret_id->state;
	why = fileid_diff(&pe->id, ret_id, FILEID_INODE | FILEID_SIZE_MTIME | FILEID_CONTENT);
	if (why) {
		run_report(run, pe->path, APPLY_SKIPPED, now, now,
		       "changed since the plan was made: %s", why);
		return 0;
	}
	if (filestate_equal(now, want)) {
		const struct state_entry *se = state_find(run->state, pe->path);

		run_report(run, pe->path, APPLY_ALREADY, now, now, NULL);
		/* Recorded by the run that changed it, whose journal rollback undoes it by. */
		if (se && !fileid_diff(&se->left, ret_id, FILEID_INODE | FILEID_CONTENT) &&
		    filestate_equal(&se->left.state, want))
			return 0;
		r = record_state(run, pe, ret_id, want, err);
		return r < 0 ? r : 0;
	}
	if (!filestate_equal(now, before)) {
		filestate_describe(now, a, sizeof(a));
		filestate_describe(before, b, sizeof(b));
		run_report(run, pe->path, APPLY_SKIPPED, now, now,
		       "changed since the plan was made: it is '%s', the plan expected '%s'", a, b);
		return 0;
	}
	if (ret_id->nlink > 1 && !o->allow_hardlinks) {
		run_report(run, pe->path, APPLY_SKIPPED, now, now, "it has %u hard links: another name "
		       "would keep the old privilege (use --allow-hardlinks after checking them)",
		       ret_id->nlink);
		return 0;
	}
	/* The plan's verdict and risk are not trusted: the order is checked on the file. */
	r = privcheck(o->caps, now, want, o->allow_root_equivalent ? PRIVCHECK_ROOT_EQUIVALENT : 0,
		      &e);
	if (r < 0) {
		run_report(run, pe->path, APPLY_SKIPPED, now, now, "refused: %s%s", e.msg,
		       r == -EACCES ? "; pass --allow-root-equivalent to accept it" : "");
		return 0;
	}
	*ret_fd = TAKE_FD(fd);
	return 1;
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
		run_report(run, pe->path, APPLY_SMOKE_OK, before, run_read_state(fd, &left), NULL);
		return 0;
	}
	if (s > 0)
		(void)snprintf(status, sizeof(status), "exit status %d", s);
	else
		(void)snprintf(status, sizeof(status), "%s", strerror(-s));
	(void)snprintf(reason, sizeof(reason), "the smoke test failed (%s: %s); the change was undone",
		       status, out && *out ? out : "no output");
	r = undo_now(run, je, JOURNAL_ROLLED_BACK, reason, err);
	run_report(run, pe->path, APPLY_ROLLED_BACK, before, run_read_state(fd, &left), "%s", reason);
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
	const struct file_state *want = &pe->after;
	struct s2c_error e = { 0 };
	_cleanup_close_ int fd = -1;
	struct file_state before, left;
	struct file_id id;
	struct journal_entry *je;
	char after[HASH_HEX_LEN];
	unsigned seq;
	int r;

	r = open_checked(run, o, pe, &id, &fd, err);
	if (r <= 0)
		return r;
	before = id.state;
	/* Write-ahead: the exact previous state and content are durable before anything changes. */
	r = journal_intent(run->j, pe->path, pe->rule_id, &id, want, &seq, err);
	if (r < 0)
		return r;
	run->seq = seq;
	je = journal_find(run->j, seq);
	run_fault(run, "intent");
	r = fileop_write(fd, &id.state, want, false, run_step, run, &e);
	if (r < 0) {
		char reason[S2C_ERROR_MAX + 32];
		(void)snprintf(reason, sizeof(reason), "%s; undone", e.msg);
		r = undo_now(run, je, JOURNAL_FAILED, reason, err);
		run_report(run, pe->path, APPLY_FAILED, &before, run_read_state(fd, &left), "%s", reason);
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
	run_fault(run, "done");
	r = fileid_read(fd, false, &id);
	run_report(run, pe->path, APPLY_APPLIED, &before, r < 0 ? NULL : &id.state, NULL);
	if (r < 0)
		return r;
	memcpy(id.sha256, after, sizeof(id.sha256));
	return record_state(run, pe, &id, want, err);
}

/*
 * A signal asked the run to stop before changing @next: every change begun is
 * finished and journalled; end the journal and say where the run stopped.
 */
static int stop_before(struct run *run, const char *next, struct s2c_error *err)
{
	int r = run_save_state(run, true, err);

	if (r == 0)
		r = journal_end(run->j, err);
	if (r < 0)
		return r;
	return s2c_error_set(err, -EINTR, "interrupted: stopped before changing '%s'; every "
			     "change made is complete and in journal '%s' (rollback undoes it, "
			     "apply again goes on)", next, run->j->name);
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
		any |= p->v[i].change && path_selected(o->only, p->v[i].path);
	r = run_open_state(&run, true, o->trusted, err);
	if (r == 0)
		r = state_load(run.statefd, run.sdir, p->root, o->trusted, &run.state, err);
	if (r == 0)
		r = run_recover(&run, err);
	if (r == 0 && any) {
		r = journal_create(run.jdirfd, run.jdir, p->root, o->plan_sha256,
				   o->allow_root_equivalent ? JOURNAL_ROOT_EQUIVALENT : 0, &run.j, err);
		if (r == 0)
			(void)snprintf(ret->journal, sizeof(ret->journal), "%s", run.j->name);
	}
	for (size_t i = 0; r == 0 && any && i < p->n; i++)
		if (p->v[i].change && path_selected(o->only, p->v[i].path))
			r = o->stop && o->stop() ? stop_before(&run, p->v[i].path, err) :
						   apply_entry(&run, o, &p->v[i], err);
	if (r == 0)
		r = run_save_state(&run, true, err);
	else if (run.unsaved)
		(void)run_save_state(&run, true, &(struct s2c_error){ 0 });     /* what it can */
	if (r == 0 && run.j)
		r = journal_end(run.j, err);
	run_release(&run);
	return r;
}
