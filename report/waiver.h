/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Waivers: findings a site has accepted, with the reason, as lintian
 * overrides and Lynis skip-test do it.  A waivers file is text a person
 * edits, one waiver a line:
 *
 *     # finding  path or glob          [expires=YYYY-MM-DD]  reason
 *     S2C003     /usr/bin/su                                  su must switch users
 *     S2C001     /usr/local/bin/ping*  expires=2027-06-30     vendor fix pending
 *
 * The finding id is one of the audit's (S2C001…), the path an absolute path
 * or a glob in the rules' syntax (rules/glob.h: fnmatch with FNM_PATHNAME,
 * a backslash escapes a blank or a glob character), the expiry optional and
 * the reason, the rest of the line, required.  Blank lines and lines starting
 * with '#' are ignored.  A waiver holds through its expiry date; after it, it
 * no longer waives anything and the report says it expired.
 *
 * Waivers change what a report shows and what --fail-on counts, never a
 * decision or a plan: nothing but the audit model (report/audit) reads them.
 */
#ifndef S2C_REPORT_WAIVER_H
#define S2C_REPORT_WAIVER_H

#include <stdbool.h>
#include <stddef.h>

struct s2c_error;

/** The longest waivers file read, in bytes. */
#define WAIVER_FILE_MAX (1024 * 1024)

/** One waiver. */
struct waiver {
	unsigned finding;       /**< enum audit_finding */
	char *pattern;          /**< absolute path or glob, as written (escapes kept) */
	char *reason;           /**< non-empty */
	char expires[11];       /**< "YYYY-MM-DD", or "" when it does not expire */
	char *source;           /**< "FILE line N" */
};

/** The waivers of every file read, in order; zero-initialise. */
struct waiver_list {
	struct waiver *v;
	size_t n;
	char **problems;        /**< every malformed line of every file read, "'FILE' line N:
				     why", NULL-terminated, or NULL */
	size_t n_problems;
};

/**
 * Parse the waivers in @data (@len bytes, NUL bytes included) and append them
 * to @l.  @display names the file in messages and in each waiver's source.
 * Returns 0, -ENOMEM, or -EINVAL when a line is malformed: then every
 * malformed line of @data is appended to @l->problems, the first is in @err,
 * and none of the waivers of @data is added.
 */
int waiver_parse(struct waiver_list *l, const char *data, size_t len, const char *display,
		 struct s2c_error *err);

/**
 * Read and parse the waivers file @path.  With @beneath, @path is opened
 * beneath @dirfd without following any symbolic link (a target's own
 * /etc/suid2cap/waivers) and a missing file is no error; without it, @path is
 * opened relative to @dirfd (AT_FDCWD: as given on the command line) and must
 * exist.  With @trusted (the caller runs as root) the file must be owned by
 * root and not writable by group or others.
 * Returns 1 when the file was read, 0 when (@beneath) it does not exist,
 * -EINVAL (malformed, not a regular file, too large), -EPERM
 * (untrusted), -ELOOP (a symbolic link beneath the root), -ENOENT, or another
 * -errno; the message, naming @display, is in @err.
 */
int waiver_load(struct waiver_list *l, int dirfd, const char *path, const char *display,
		bool beneath, bool trusted, struct s2c_error *err);

/** Whether @w has expired on @today ("YYYY-MM-DD"; NULL: nothing expires). */
bool waiver_expired(const struct waiver *w, const char *today);

/** Whether @w names finding @finding of the file @path. */
bool waiver_matches(const struct waiver *w, unsigned finding, const char *path);

/** Free the waivers; @l is empty afterwards. */
void waiver_list_release(struct waiver_list *l);

#endif /* S2C_REPORT_WAIVER_H */
