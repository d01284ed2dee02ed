/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing a plan out: as its JSON document, as a POSIX shell script that
 * carries it out, or as packaging snippets that make it durable (rpm %files
 * lines, a Debian postinst and its postrm in plan/emitdeb.h, openSUSE
 * permissions entries).
 *
 * Every format treats file names as untrusted: in shell they are single-quoted
 * (so any byte but NUL survives), in comments and messages they are escaped
 * (so a newline cannot end a comment and start a command), and a name a
 * packaging format cannot express is left out with a comment saying so.
 * The output depends on the plan only, so it is as deterministic as the plan.
 */
#ifndef S2C_PLAN_EMIT_H
#define S2C_PLAN_EMIT_H

#include <errno.h>
#include <stdio.h>

struct plan;
struct rules_db;

/** Output formats of `suid2cap plan`. */
enum emit_format {
	EMIT_JSON,            /**< the plan document (docs/schema/plan.schema.json) */
	EMIT_SH,              /**< POSIX sh script: checks each file, then chown, setcap, chmod */
	EMIT_RPM,             /**< %attr/%caps lines for a spec's %files */
	EMIT_DEB,             /**< postinst: setcap on the shipped file, exact undo on failure */
	EMIT_PERMISSIONS,     /**< openSUSE permissions.local entries */
	EMIT_DEB_POSTRM,      /**< postrm: takes back the statoverrides the postinst added */
	_EMIT_MAX,
	_EMIT_INVALID = -EINVAL,
};

/** "json", "sh", "rpm", "deb", "permissions", "deb-postrm". */
const char *emit_format_name(enum emit_format f);

/** Parse a format name; _EMIT_INVALID when unknown. */
enum emit_format emit_format_from_name(const char *s);

/**
 * Write @p to @out in format @f.  @db: the rules database the plan was made
 * with, for the rules' sources in the packaging snippets, or NULL (then the
 * rules alone are named).
 * Returns 0, -ENOMEM, -EINVAL for an unknown format, or -EIO when @out
 * reports an error.
 */
int emit_plan(const struct plan *p, enum emit_format f, const struct rules_db *db, FILE *out);

/**
 * The shell script.  Before anything changes it checks, for every "change"
 * entry, that each directory from ROOT down to the file's parent is a
 * directory owned by root and not writable by group or others (chmod and
 * chown follow symbolic links, so whoever could swap a file there could
 * redirect them).  It changes only the "change" entries, each through one
 * call of a shell function that checks the directories again and refuses a
 * symlink, a non-regular file, a file with several hard links (unless
 * ALLOW_HARDLINKS=1), a file whose SHA-256, mode or owner differ from the
 * plan; says "already done" for a file in the planned state; else runs chown (if the owner changes), setcap (or setcap -r),
 * chmod, and checks the result.  ROOT, defaulting to the plan's root, is
 * prepended to every path.  Returns 0, -ENOMEM or -EIO.
 */
int emit_sh(const struct plan *p, FILE *out);

/**
 * rpm %files lines: "%attr(MODE,OWNER,GROUP) %caps(CAPS) PATH" for migrate
 * entries, without %caps for drop entries, each after a comment naming the rule
 * and its sources (from @db, or NULL), comments for the others.  The header
 * says only what made it, nothing of the machine the plan was made on.  A path
 * rpmbuild would not take literally ('%' anywhere, a glob character, a
 * backslash, a double quote, a control character, invalid UTF-8) and an owner
 * or group that is not a plain name are comments; a path with spaces is
 * double-quoted.  Returns 0, -ENOMEM or -EIO.
 */
int emit_rpm(const struct plan *p, const struct rules_db *db, FILE *out);

/**
 * openSUSE permissions entries: "PATH OWNER:GROUP MODE" plus
 * " +capabilities CAPS" for migrate entries; comments for keep and review.
 * Returns 0, -ENOMEM or -EIO.
 */
int emit_permissions(const struct plan *p, FILE *out);

#endif /* S2C_PLAN_EMIT_H */
