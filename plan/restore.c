/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The way back: rollback of a journal, recovery of a run a crash
 * interrupted, and the list of journals.  A file is restored only onto what
 * the change left (same inode, same content, the journalled after-state).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applyrun.h"
#include "dirlist.h"
#include "fileid.h"
#include "fileop.h"
#include "util.h"

/* --- undoing one entry ---------------------------------------------------------------- */

/* Is @s among the @n states of @v (by what they grant)? */
static bool among(const struct file_state *v, size_t n, const struct file_state *s)
{
	for (size_t i = 0; i < n; i++)
		if (filestate_same(&v[i], s))
			return true;
	return false;
}

/*
 * Could an interrupted change or undo of @e have left the file in @now?
 * Exactly the states fileop_write() stops at: on the way from the state
 * before to the state after (unless the change finished), and on the way
 * back to the state before from any of those, again from any state an
 * interrupted undo left (a rollback may be interrupted more than once).
 * Every field comes from the state before, the state after or what chown
 * leaves, so there are few; a closure that would not fit is refused.
 */
static bool interrupted_left(const struct journal_entry *e, const struct file_state *now)
{
	struct file_state v[96];
	size_t n = 0;

	v[n++] = e->after;
	if (e->outcome == JOURNAL_PENDING) {
		v[n++] = e->before.state;
		n += fileop_stops(&e->before.state, &e->after, v + n);
	}
	for (size_t i = 0; i < n; i++) {
		struct file_state next[FILEOP_STOPS_MAX];
		size_t k = fileop_stops(&v[i], &e->before.state, next);

		for (size_t j = 0; j < k; j++) {
			if (among(v, n, &next[j]))
				continue;
			if (n == S2C_ELEMENTSOF(v))
				return false;
			v[n++] = next[j];
		}
	}
	return among(v, n, now);
}

/* The content the file had when it was changed: from the journal, or, for a
 * version 1 journal, from the state record of the same run. */
static const char *changed_content(const struct run *run, const struct journal *j,
				   const struct journal_entry *e)
{
	const struct state_entry *se;

	if (e->sha256_after[0])
		return e->sha256_after;
	if (e->before.sha256[0])
		return e->before.sha256;
	se = run->state ? state_find(run->state, e->path) : NULL;
	if (se && se->journal && s2c_streq(se->journal, j->name) && se->left.sha256[0] &&
	    !fileid_diff(&se->left, &e->before, FILEID_INODE))
		return se->left.sha256;
	return NULL;
}


static const struct file_state *seen_before(const struct seen *s)
{
	return s->found ? &s->before : NULL;
}

static const struct file_state *seen_after(const struct seen *s)
{
	return s->left ? &s->after : NULL;
}

/*
 * May @e be undone on the file @now (read with its SHA-256)?  Only on the
 * inode and the content the change left, and only in the state it left: the
 * state after for a finished change (fileid_left(), the comparison verify
 * makes), a state the interrupted change or undo passed through
 * (interrupted_left()), or the state before already.  Anything else is a
 * later decision of someone else, which a rollback must not overrule.
 * Returns true, or false with the reason in @why.
 */
static bool restorable(const struct run *run, const struct journal *j,
		       const struct journal_entry *e, const struct file_id *now, char *why,
		       size_t whysize)
{
	const char *sha = changed_content(run, j, e);
	struct file_id left = { .dev_major = e->before.dev_major, .dev_minor = e->before.dev_minor,
				.ino = e->before.ino, .state = e->after };
	bool finished = e->outcome != JOURNAL_PENDING && !e->undo_started;
	char is[128], was[128], back[128], what[512];
	enum fileid_left how;

	(void)snprintf(left.sha256, sizeof(left.sha256), "%s", sha ? sha : "");
	how = fileid_left(&left, now);
	if (how == FILEID_AS_LEFT)
		return true;
	if (how == FILEID_REPLACED) {
		(void)snprintf(why, whysize, "the file was replaced since the change (another inode, "
			       "e.g. a package update); it is left as it is");
		return false;
	}
	if (!sha) {
		filestate_describe(&e->before.state, back, sizeof(back));
		(void)snprintf(why, whysize, "the journal (format 1) records no content hash for it, "
			       "so it cannot be told from other content on the same inode; check it "
			       "and restore '%s' by hand", back);
		return false;
	}
	if (how == FILEID_RESTATED) {
		if (filestate_equal(&now->state, &e->before.state) ||
		    (!finished && interrupted_left(e, &now->state)))
			return true;
		filestate_change(&e->after, &now->state, what, sizeof(what));
		filestate_describe(&now->state, is, sizeof(is));
		filestate_describe(&e->after, was, sizeof(was));
		filestate_describe(&e->before.state, back, sizeof(back));
		if (finished)
			(void)snprintf(why, whysize, "since the change, %s (it is '%s', the change left "
				       "'%s'): restoring '%s' would overrule that, so it is left as it "
				       "is", what, is, was, back);
		else
			(void)snprintf(why, whysize, "it is '%s', which the interrupted change from '%s' "
				       "to '%s' cannot have left (%s): restoring it would overrule a "
				       "later change, so it is left as it is", is, back, was, what);
		return false;
	}
	(void)snprintf(why, whysize, "its content changed since the change (SHA-256 differs): "
		       "it is not the program the journal changed; it is left as it is");
	return false;
}

/*
 * Restore @e's previous state exactly, only onto what the change left (restorable()).
 * Writes "undo" before and "undone" after.  @seen receives the states the
 * file was found in and left in, as far as they were read.
 * Returns 1 restored (or already), 0 not restorable (@why says why), -errno
 * when the journal cannot be written.
 */
int run_restore(struct run *run, struct journal *j, struct journal_entry *e,
			 struct seen *seen, char *why, size_t whysize)
{
	struct s2c_error err = { 0 };
	_cleanup_close_ int fd = -1;
	struct file_id id;
	int r;

	*seen = (struct seen){ 0 };
	run->seq = e->seq;
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
	/* Decided before "undo" is written: that record makes a later run lenient. */
	if (!restorable(run, j, e, &id, why, whysize))
		return 0;
	r = journal_undo(j, e->seq, false, &err);
	if (r < 0)
		return r;
	run_fault(run, "undo");
	if (!filestate_equal(&id.state, &e->before.state)) {
		r = fileop_write(fd, &id.state, &e->before.state, true, run_step, run, &err);
		seen->left = run_read_state(fd, &seen->after) != NULL;
		if (r < 0) {
			(void)snprintf(why, whysize, "%s", err.msg);
			return 0;
		}
	}
	r = journal_undo(j, e->seq, true, &err);
	if (r < 0)
		return r;
	run_fault(run, "undone");
	return 1;
}

/*
 * Record in the state what @e, a change an interrupted run finished, left: the
 * state is saved in batches, so the run may have ended before saving it.
 */
static int recover_state(struct run *run, const struct journal *j, const struct journal_entry *e)
{
	struct state_entry se = {
		.path = e->path, .rule_id = e->rule_id, .journal = j->name,
		.left = { .dev_major = e->before.dev_major, .dev_minor = e->before.dev_minor,
			  .ino = e->before.ino, .state = e->after },
	};
	int r;

	if (!run->state || e->outcome != JOURNAL_APPLIED || e->undo_started || !e->sha256_after[0])
		return 0;
	memcpy(se.left.sha256, e->sha256_after, sizeof(se.left.sha256));
	r = state_put(run->state, &se);
	if (r == 0)
		run->unsaved++;
	return r;
}

/*
 * Forget what the state says of the files @j's rollback restored: a rollback
 * saves the state in batches too, so after a crash it may still list some.
 */
static void forget_journal(struct run *run, const struct journal *j)
{
	for (size_t i = 0; run->state && i < j->n; i++) {
		const struct state_entry *se = j->v[i].undone ?
			state_find(run->state, j->v[i].path) : NULL;

		if (se && se->journal && s2c_streq(se->journal, j->name)) {
			state_remove(run->state, j->v[i].path);
			run->unsaved++;
		}
	}
}

/* forget_journal() of each journal the state names, each read once. */
static int forget_undone(struct run *run, struct s2c_error *err)
{
	_cleanup_(strv_freep) char **names = NULL;
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; run->state && i < run->state->n; i++) {
		const char *name = run->state->v[i].journal;
		char *copy;

		if (!name || strv_contains((const char *const *)names, n, name))
			continue;
		copy = strdup(name);
		if (!copy || strv_push(&names, &n, copy) < 0) {
			free(copy);
			return -ENOMEM;
		}
	}
	for (size_t k = 0; r == 0 && k < n; k++) {
		_cleanup_(journal_freep) struct journal *j = NULL;

		r = journal_open(run->jdirfd, run->jdir, names[k], true, false, &j, err);
		if (r == -ENOENT) {
			s2c_error_clear(err);
			r = 0;
			continue;
		}
		if (r == 0)
			forget_journal(run, j);
	}
	return r;
}

/*
 * Undo what an interrupted earlier run left half done, in every journal; bring
 * the state up to date with every journal on the way (forget_journal()).
 */
int run_recover(struct run *run, struct s2c_error *err)
{
	_cleanup_(strv_freep) char **names = NULL;
	int r = dirlist(run->jdirfd, JOURNAL_GLOB, 0, &names);

	run->recovering = true;
	for (size_t k = 0; r >= 0 && names[k]; k++) {
		_cleanup_(journal_freep) struct journal *j = NULL;

		r = journal_open(run->jdirfd, run->jdir, names[k], true, true, &j, err);
		if (r < 0)
			break;
		forget_journal(run, j);
		if (j->ended)
			continue;
		for (size_t i = j->n; r == 0 && i-- > 0;) {
			struct journal_entry *e = &j->v[i];
			char why[S2C_ERROR_MAX + 64];
			struct seen seen;

			if (e->outcome != JOURNAL_PENDING || e->undone) {
				r = recover_state(run, j, e);
				continue;
			}
			r = run_restore(run, j, e, &seen, why, sizeof(why));
			if (r > 0) {
				r = journal_done(j, e->seq, JOURNAL_FAILED,
						 "interrupted; undone by a later run", NULL, err);
				run_report(run, e->path, APPLY_RECOVERED, seen_before(&seen),
				       seen_after(&seen),
				       "an interrupted change from %s was undone", j->name);
			} else if (r == 0) {
				run_report(run, e->path, APPLY_NOT_RESTORED, seen_before(&seen),
				       seen_after(&seen), "interrupted change from %s: %s", j->name,
				       why);
			}
		}
		/* The state first: a journal that ended is one whose changes the state has. */
		if (r == 0)
			r = run_save_state(run, true, err);
		if (r == 0)
			r = journal_end(j, err);
	}
	if (r >= 0)
		r = run_save_state(run, true, err);
	run->recovering = false;
	return r < 0 ? r : 0;
}
int apply_recover(int rootfd, const char *root, bool trusted, apply_report_fn fn,
		  void *userdata, struct apply_result *ret, struct s2c_error *err)
{
	struct run run = { .rootfd = rootfd, .root = root, .statefd = -1, .jdirfd = -1,
			   .report = fn, .userdata = userdata, .res = ret };
	int r;

	memset(ret, 0, sizeof(*ret));
	r = run_open_state(&run, false, trusted, err);
	if (r == -ENOENT) {
		s2c_error_clear(err);
		run_release(&run);
		return 0;       /* nothing was ever applied here */
	}
	if (r == 0)
		r = state_load(run.statefd, run.sdir, "/", trusted, &run.state, err);
	if (r == 0)
		r = run_recover(&run, err);
	run_release(&run);
	return r;
}

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
	r = run_open_state(&run, false, o->trusted, err);
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
		r = forget_undone(&run, err);
	if (r == 0)
		r = journal_open(run.jdirfd, run.jdir, name, o->trusted, true, &run.j, err);
	if (r == 0)
		(void)snprintf(ret->journal, sizeof(ret->journal), "%s", run.j->name);
	for (size_t i = run.j ? run.j->n : 0; r == 0 && i-- > 0;) {
		struct journal_entry *e = &run.j->v[i];
		char why[S2C_ERROR_MAX + 64];
		struct seen seen;

		if (!path_selected(o->only, e->path) || !undoable(e))
			continue;
		if (o->stop && o->stop()) {
			r = s2c_error_set(err, -EINTR, "interrupted: stopped before restoring '%s'; "
					  "every file restored is complete, rollback again restores "
					  "the rest of journal '%s'", e->path, run.j->name);
			break;
		}
		r = run_restore(&run, run.j, e, &seen, why, sizeof(why));
		if (r > 0) {
			struct state_entry *se = state_find(run.state, e->path);
			r = 0;
			if (se && se->journal && s2c_streq(se->journal, run.j->name)) {
				state_remove(run.state, e->path);
				run.unsaved++;
				r = run_save_state(&run, false, err);
			}
			run_report(&run, e->path, APPLY_RESTORED, seen_before(&seen), seen_after(&seen),
			       NULL);
		} else if (r == 0) {
			run_report(&run, e->path, APPLY_NOT_RESTORED, seen_before(&seen),
			       seen_after(&seen), "%s", why);
		}
	}
	if (r == 0)
		r = run_save_state(&run, true, err);
	else if (run.unsaved)
		(void)run_save_state(&run, true, &(struct s2c_error){ 0 });     /* what it can */
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
	int r;

	r = run_open_dirs(&run, false, trusted, err);
	if (r == -ENOENT) {
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
