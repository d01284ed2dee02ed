/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every way a run can be cut short leaves nothing behind.
 *
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT are caught by a handler that only
 * records the signal and wakes a thread of ours (async-signal-safe: an atomic
 * store and a write(2) to a pipe).  That thread removes what is registered
 * here, the private stage of a package or image audit and the temporary file
 * of -o, and ends the process by the same signal, so that the shell sees
 * what it sent.  A write to a standard output whose reader went away
 * (SIGPIPE) ends the run the same way, silently, as the default action did;
 * any other broken pipe is a write that fails with EPIPE.
 *
 * While a hold is on, a signal is only recorded: apply, migrate, rollback
 * and verify --fix hold while they change files, ask interrupt_requested()
 * between two files, stop there with their journal complete, say so, and
 * end by the signal at exit (interrupt_exit()).  Short holds make a file
 * and its registration one step.
 *
 * The thread blocks every signal, so that signals meant for the process
 * (SIGCHLD, which learn reads through a signalfd) reach the threads that
 * expect them; it gives up every capability, its bounding set and new
 * privileges as it starts: it needs none, and a thread of ours must never keep what the
 * verb narrows away (capabilities are per thread).
 *
 * Forked children that do not exec (the deciding child, learn's init) take
 * a signal as if nothing were installed: the handler sees another pid and
 * lets the default action happen.  Handlers are reset by execve(2), so the
 * programs smoke tests and learn run start with the defaults.
 */
#ifndef S2C_CLI_INTERRUPT_H
#define S2C_CLI_INTERRUPT_H

#include <stdbool.h>

/**
 * Install the handlers and start the thread.  Call once, early in main(),
 * before any other thread.  When it cannot, it warns, and the run goes on
 * without removing its temporary files on a signal.
 */
void interrupt_init(void);

/** Begin a hold (they nest): signals are recorded, not acted on. */
void interrupt_hold(void);

/**
 * End a hold.  When it was the last and a signal came meanwhile, remove what
 * is registered and end the process by that signal.
 */
void interrupt_release(void);

/** The signal that came during a hold, 0 when none. */
int interrupt_requested(void);

/** interrupt_requested() as a yes or no, for the libraries' stop callbacks. */
bool interrupt_stop(void);

/**
 * Register @name in the directory @dirfd (duplicated; @name copied) for
 * removal when a signal ends the run: a directory tree with @tree, else a
 * file.  Stores a handle > 0 for interrupt_forget() in @ret_handle.
 * Returns 0, or S2C_EXIT_FAILURE after printing why (@ret_handle untouched).
 */
int interrupt_register(int dirfd, const char *name, bool tree, int *ret_handle);

/** Forget a registration once its file is gone or in place; 0 is ignored. */
void interrupt_forget(int handle);

/**
 * At the end of main(): after a hold that recorded a signal (a broken
 * standard output included), remove what is registered and end the process
 * by that signal.  Returns when there is nothing to do.
 */
void interrupt_exit(void);

#endif /* S2C_CLI_INTERRUPT_H */
