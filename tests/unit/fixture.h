/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fixture trees for unit tests.  Every helper aborts the (forked) test on
 * failure with a message, so test bodies stay short.
 */
#ifndef S2C_TESTS_FIXTURE_H
#define S2C_TESTS_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct decision;
struct scan_result;

/** A new empty directory under $TMPDIR (or /tmp); free() the result. */
char *fx_tempdir(void);

/** Remove @dir recursively (no symlink is followed). */
void fx_rmrf(const char *dir);

/** Create @rel and its parents under @root with mode 0755. */
void fx_mkdirs(const char *root, const char *rel);

/** Create a regular file @rel under @root with @content and exactly @mode. */
void fx_file(const char *root, const char *rel, mode_t mode, const char *content);

/** Create symlink @rel under @root pointing to @target. */
void fx_symlink(const char *root, const char *rel, const char *target);

/** Hard-link @existing to @rel, both under @root. */
void fx_hardlink(const char *root, const char *existing, const char *rel);

/** chown @rel under @root (no symlink following). */
void fx_chown(const char *root, const char *rel, uid_t uid, gid_t gid);

/**
 * Set file capabilities from @text on @rel with libcap (cap_set_fd).
 * Returns 0 or -errno (the caller decides whether to skip).
 */
int fx_setcaps(const char *root, const char *rel, const char *text);

/** Set the raw security.capability bytes of @rel. Returns 0 or -errno. */
int fx_setcaps_raw(const char *root, const char *rel, const void *blob, size_t len);

/** True when @cap is in this process's effective set. */
bool fx_have_cap(int cap);

/** Absolute path of @rel under @root; free() it. */
char *fx_path(const char *root, const char *rel);

/**
 * Compile the C @source into @rel under @root with the system compiler,
 * passing the NULL-terminated @flags (e.g. "-static", "-lcap"), then chmod
 * @mode.  Returns 0, or -1 when the compiler failed (output on stderr).
 */
int fx_compile(const char *root, const char *rel, const char *source, mode_t mode,
	       const char *const *flags);

/** Write @content to @rel under @root, creating parents, replacing the file. */
void fx_write(const char *root, const char *rel, const char *content);

/** Warnings collected by fx_scan(). */
struct fx_warnings {
	size_t n;
	char *paths[64];
	int errors[64];
};

/**
 * Scan @paths (NULL-terminated, absolute host paths) on the host, or the
 * whole of @root when @root is set (image mode), with @flags (scan_flags).
 * @threads: worker count.  Warnings are collected in @w when given.
 * Returns the result (never NULL; aborts on error).
 */
struct scan_result *fx_scan(const char *root, const char *const *paths, unsigned flags,
			    unsigned threads, struct fx_warnings *w);

/** Index of @path in @r, or -1. */
int fx_find(const struct scan_result *r, const char *path);

/** Free a warnings collection. */
void fx_warnings_release(struct fx_warnings *w);

/** Whether an evidence item of @d says @what. */
bool fx_has_evidence(const struct decision *d, const char *what);

/** Whether a warning of @d says @text. */
bool fx_has_warning(const struct decision *d, const char *text);

struct memberset;

/**
 * Add to @set a member @path of @type (enum member_type) and @mode, owned by
 * root:root, with @target (a link's, or NULL); with @content, that content is
 * written at @path below @stage and the member is staged.
 */
void fx_member(struct memberset *set, const char *stage, const char *path, int type,
	       unsigned mode, const char *target, const char *content);

#endif /* S2C_TESTS_FIXTURE_H */
