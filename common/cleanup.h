/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scope-bound cleanup, after systemd's _cleanup_ helpers.
 *
 * A variable declared with one of these attributes is released when it goes
 * out of scope, on every return path.  Hand ownership out with TAKE_PTR() or
 * TAKE_FD(), which return the value and reset the variable so the cleanup
 * becomes a no-op.  Every release helper accepts the "empty" value (NULL or a
 * negative fd) and preserves errno, so cleanups never disturb error paths.
 */
#ifndef S2C_COMMON_CLEANUP_H
#define S2C_COMMON_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/** Run @func(&var) when var goes out of scope. */
#define _cleanup_(func) __attribute__((cleanup(func)))

/** Return *@p and set it to NULL: hands ownership of a pointer to the caller. */
#define TAKE_PTR(p) ({ __typeof__(p) *_pp = &(p); __typeof__(p) _v = *_pp; *_pp = NULL; _v; })

/** Return @fd and set it to -1: hands ownership of a descriptor to the caller. */
#define TAKE_FD(fd) ({ int *_pfd = &(fd); int _v = *_pfd; *_pfd = -1; _v; })

static inline void s2c_freep(void *p)
{
	int saved = errno;
	free(*(void **)p);
	errno = saved;
}

static inline void s2c_closep(const int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		(void)close(*fd);
		errno = saved;
	}
}

static inline void s2c_fclosep(FILE **f)
{
	if (*f) {
		int saved = errno;
		(void)fclose(*f);
		errno = saved;
	}
}

static inline void s2c_closedirp(DIR **d)
{
	if (*d) {
		int saved = errno;
		(void)closedir(*d);
		errno = saved;
	}
}

/**
 * Define `static inline void NAME(TYPE *p)` that calls FUNC(*p) when *p is not
 * NULL, keeping errno: the cleanup function for _cleanup_(NAME).  Every header
 * of an object with a _free() function exports one this way (systemd's
 * DEFINE_TRIVIAL_CLEANUP_FUNC).
 */
#define S2C_DEFINE_CLEANUP(name, type, func)                    \
	static inline void name(type *p)                        \
	{                                                       \
		if (*p) {                                       \
			int _saved = errno;                     \
			(void)func(*p);                         \
			errno = _saved;                         \
		}                                               \
	}

/** The usual case: FUNC##p for FUNC, e.g. plan_freep for plan_free. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func) S2C_DEFINE_CLEANUP(func##p, type, func)

/** free() the pointer on scope exit. */
#define _cleanup_free_ _cleanup_(s2c_freep)
/** close() the descriptor on scope exit (ignores negative values). */
#define _cleanup_close_ _cleanup_(s2c_closep)
/** fclose() the stream on scope exit; use only for streams opened for reading. */
#define _cleanup_fclose_ _cleanup_(s2c_fclosep)
/** closedir() on scope exit. */
#define _cleanup_closedir_ _cleanup_(s2c_closedirp)

/*
 * Library-specific cleanups live with the modules that wrap those libraries
 * (scanner/capset.h for libcap, scanner/elfread.h for libelf, common/jsonout.h for
 * json-c) so this header stays free of third-party includes.
 */

#endif /* S2C_COMMON_CLEANUP_H */
