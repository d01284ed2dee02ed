/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plumbing of one apply, rollback or recovery run (see applyrun.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applyrun.h"
#include "fileid.h"
#include "statedir.h"
#include "strtable.h"
#include "util.h"

static const char *const event_names[_APPLY_EVENT_MAX] = {
	"applied", "already done", "skipped", "failed", "smoke test passed", "rolled back",
	"restored", "not restored", "recovered",
};

static const char *const event_ids[_APPLY_EVENT_MAX] = {
	"applied", "already", "skipped", "failed", "smoke-ok", "rolled-back", "restored",
	"not-restored", "recovered",
};

DEFINE_STRING_TABLE_TO_NAME(apply_event_name, enum apply_event, event_names, "?")

const char *apply_event_id(enum apply_event e)
{
	return e < _APPLY_EVENT_MAX ? event_ids[e] : "invalid";
}
void run_release(struct run *run)
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
void run_fault(struct run *run, const char *step)
{
#ifdef S2C_FAULT_INJECTION
	static const struct { const char *name; int sig; } sigs[] = {
		{ "INT", SIGINT }, { "TERM", SIGTERM }, { "HUP", SIGHUP }, { "QUIT", SIGQUIT },
	};
	char want[32];
	const char *rest;
	size_t n;
	int sig = SIGKILL;

	if (!run->fault)
		return;
	n = strcspn(run->fault, ":=");
	if (strlen(step) != n || strncmp(step, run->fault, n) != 0)
		return;
	rest = run->fault + n;
	if (*rest == ':') {
		(void)snprintf(want, sizeof(want), "%u", run->seq);
		n = strcspn(rest + 1, "=");
		if (strlen(want) != n || strncmp(rest + 1, want, n) != 0)
			return;
		rest += 1 + n;
	}
	/* "=INT": the signal an admin's ^C sends, to test stopping between two files */
	for (size_t i = 0; *rest == '=' && i < S2C_ELEMENTSOF(sigs); i++)
		if (s2c_streq(rest + 1, sigs[i].name))
			sig = sigs[i].sig;
	(void)raise(sig);
#else
	(void)run;
	(void)step;
#endif
}

void run_step(void *userdata, const char *step)
{
	run_fault(userdata, step);
}

/*
 * Count @ev and hand it to the caller with the states the step found
 * (@before) and left (@after); NULL for a state that was not read.
 */
void run_report(struct run *run, const char *path, enum apply_event ev,
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
const struct file_state *run_read_state(int fd, struct file_state *buf)
{
	return fd >= 0 && filestate_read(fd, buf) == 0 ? buf : NULL;
}

bool path_selected(const char *const *only, const char *path)
{
	if (!only)
		return true;
	for (size_t i = 0; only[i]; i++)
		if (s2c_streq(only[i], path))
			return true;
	return false;
}

int run_open_dirs(struct run *run, bool create, bool trusted, struct s2c_error *err)
{
	int r;

	run->sdir = statedir_shown(run->root, NULL);
	run->jdir = statedir_shown(run->root, JOURNAL_DIR);
	if (!run->sdir || !run->jdir)
		return -ENOMEM;
	r = statedir_open(run->rootfd, run->root, create, trusted, &run->statefd, err);
	if (r == 0)
		r = statedir_open_sub(run->statefd, run->root, JOURNAL_DIR, "journal directory",
				      create, trusted, &run->jdirfd, err);
	return r;
}

int run_open_state(struct run *run, bool create, bool trusted, struct s2c_error *err)
{
	int r = run_open_dirs(run, create, trusted, err);

	if (r == -ENOENT && !create)
		return s2c_error_set(err, -ENOENT, "nothing was ever applied here: no %s '%s'",
				     run->statefd < 0 ? "state directory" : "journal directory",
				     run->statefd < 0 ? run->sdir : run->jdir);
	if (r < 0)
		return r;
	return statedir_lock(run->statefd, run->sdir, err);
}

int run_save_state(struct run *run, bool force, struct s2c_error *err)
{
	int r;

	if (!run->state || !run->unsaved || (!force && run->unsaved * 8 < run->state->n))
		return 0;
	r = state_save(run->statefd, run->sdir, run->state, err);
	if (r == 0)
		run->unsaved = 0;
	return r;
}
