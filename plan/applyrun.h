/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One run of apply, rollback or crash recovery, internal to plan/: the
 * state directory and its lock, the open journal, the crash points of the
 * crash-safety tests and the report of each event.  plan/apply.c drives the
 * forward path, plan/restore.c the way back; both undo through run_restore().
 *
 * Internal: apply applyrun restore smoke preflight.
 */
#ifndef S2C_PLAN_APPLYRUN_H
#define S2C_PLAN_APPLYRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "apply.h"
#include "common.h"
#include "error.h"
#include "journal.h"
#include "preflight.h"
#include "state.h"

struct run {
	int rootfd;
	const char *root;             /* as the user named it, for messages */
	int statefd, jdirfd;
	char *sdir, *jdir;            /* the state and journal directories as messages name them */
	struct journal *j;
	struct state *state;
	size_t unsaved;               /* entries put into state since it was last saved */
	struct preflight pf;
	const char *fault;
	unsigned seq;                 /* entry being processed, for fault points */
	bool recovering;              /* undoing what an interrupted earlier run left */
	apply_report_fn report;
	void *userdata;
	struct apply_result *res;
};

/* What run_restore() found the file in and left it in, for the report. */
struct seen {
	bool found, left;
	struct file_state before, after;
};

/* Close what @run opened and free what it holds. */
void run_release(struct run *run);

/* Die at crash point @step when the crash-safety tests ask for it (S2C_FAULT_INJECTION). */
void run_fault(struct run *run, const char *step);

/* run_fault() as a fileop step callback; @userdata is the struct run. */
void run_step(void *userdata, const char *step);

/*
 * Count @ev and hand it to the caller with the states the step found
 * (@before) and left (@after); NULL for a state that was not read.
 */
S2C_PRINTF(6, 7) void run_report(struct run *run, const char *path, enum apply_event ev,
				 const struct file_state *before, const struct file_state *after,
				 const char *fmt, ...);

/* The state of @fd into @buf, or NULL when it cannot be read (for reports). */
const struct file_state *run_read_state(int fd, struct file_state *buf);

/* Is @path among @only (NULL: every path)? */
bool path_selected(const char *const *only, const char *path);

/*
 * Open the state directory and its journal directory (with @create, make what is missing
 * of them), naming both in @run.  -ENOENT when one is absent and not @create (@err says
 * which only for the state directory): nothing was ever applied here.
 */
int run_open_dirs(struct run *run, bool create, bool trusted, struct s2c_error *err);

/*
 * run_open_dirs(), then take the state directory's lock for the whole run.  -ENOENT when
 * nothing was ever applied here, with a message that says so.
 */
int run_open_state(struct run *run, bool create, bool trusted, struct s2c_error *err);

/*
 * Restore @e's previous state exactly, only onto what the change left: the
 * same inode, the same content (SHA-256) and the state the change gave it.
 * Writes "undo" before and "undone" after; @seen receives the states the
 * file was found in and left in, as far as they were read.  Returns 1
 * restored (or already), 0 not restorable (@why says why), -errno when the
 * journal cannot be written.
 */
int run_restore(struct run *run, struct journal *j, struct journal_entry *e, struct seen *seen,
		char *why, size_t whysize);

/*
 * Undo what an interrupted earlier run left half done, in every journal, and
 * bring the state up to date with the journals (it is saved in batches): what
 * an interrupted run finished is recorded, what a rollback undid is forgotten.
 */
int run_recover(struct run *run, struct s2c_error *err);

/*
 * Save the state when @force or when the entries put since the last save are
 * an eighth of it: every change of a small run is saved at once, and a run of n
 * changes writes the state O(log n) times, not n.  What a crash leaves unsaved
 * is in the run's journal, and run_recover() records it.
 */
int run_save_state(struct run *run, bool force, struct s2c_error *err);

#endif
