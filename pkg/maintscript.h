/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The privilege a package adds at install time: what its maintainer scripts
 * (a .deb's preinst and postinst, an rpm's %pre, %post and %posttrans) do to
 * file modes, owners and capabilities, found by evaluating the parsed script
 * (shparse.h) symbolically, never by running it.
 *
 * Many packages ship a program 0755 and make it set-ID or give it
 * capabilities in postinst: "chmod 4755 /bin/fusermount3",
 * "dpkg-statoverride --update --add root messagebus 4754 $LAUNCHER",
 * "setcap cap_net_raw+ep $PROGRAM || chmod u+s $PROGRAM".  The evaluator
 * knows what a fresh installation looks like: the script is called with
 * "configure" (or rpm's "1"), there are no statoverrides yet, DPKG_ROOT is
 * empty, `dpkg-divert --truename X` prints X, `uname -s` prints Linux.  It
 * runs the script twice, once where setcap exists and succeeds and once
 * where it is missing or fails, so each action is known to happen always,
 * only when setcap works, or only as the fallback.  A condition it cannot
 * decide (a file test, getent, a version comparison) runs both branches,
 * and the actions in them are marked conditional.  Variables, functions
 * (with their positional parameters), case, for, &&, || and ! are followed.
 *
 * Every command is looked up in one table (mstable.c, documented in
 * docs/MAINTSCRIPTS.md): a model (chmod, chown, chgrp, setcap,
 * dpkg-statoverride, install, cp, mv, ln, rm, debconf's db_get …), a
 * command that changes no mode, owner or capability, or a command that runs
 * another (env, nice, sh -c, eval, xargs, find -exec …), whose inner
 * command is looked up in turn.  Anything else, a file name or mode the
 * evaluator cannot work out, a program of the package that is not a shell
 * script, and a script run by another interpreter make the analysis
 * incomplete with the script, line and reason, never a guess.
 */
#ifndef S2C_PKG_MAINTSCRIPT_H
#define S2C_PKG_MAINTSCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct s2c_error;

/** What an action does. */
enum ms_kind {
	MS_CHMOD,               /**< mode */
	MS_CHOWN,               /**< owner and/or group (chown, chgrp) */
	MS_SETCAP,              /**< caps */
	MS_SETCAP_REMOVE,       /**< setcap -r */
	MS_STATOVERRIDE,        /**< owner, group and mode, recorded with dpkg-statoverride */
	MS_INSTALL,             /**< owner, group and mode as install(1) leaves a file it
				     copies over a file of the package: no capabilities */
	_MS_KIND_MAX,
};

/** When an action happens. */
enum ms_when {
	MS_ALWAYS,              /**< whether or not setcap works */
	MS_SETCAP_WORKS,        /**< only where setcap exists and succeeds (every setcap
				     action: where setcap fails it has no effect) */
	MS_SETCAP_FAILS,        /**< only where setcap is missing or fails: the fallback */
	_MS_WHEN_MAX,
};

/** The scenarios the script is evaluated in. */
enum ms_scenario {
	MS_SCENARIO_WORKS,      /**< setcap exists and succeeds */
	MS_SCENARIO_FAILS,      /**< setcap is missing or fails */
	_MS_SCENARIO_MAX,
};

/** One action on one file (or glob). */
struct ms_action {
	enum ms_kind kind;
	enum ms_when when;
	bool conditional;       /**< under a condition the evaluation could not decide */
	bool recursive;         /**< chmod/chown -R */
	bool glob;              /**< @path holds unquoted glob characters */
	char *path;             /**< absolute, normalised */
	char *mode;             /**< MS_CHMOD, MS_STATOVERRIDE: the mode as written */
	char *owner, *group;    /**< MS_CHOWN (either may be NULL), MS_STATOVERRIDE */
	char *caps;             /**< MS_SETCAP: the capability text as written */
	char *script;           /**< "postinst" */
	unsigned line;
	char *command;          /**< the command's source, on one line */
	size_t seq[_MS_SCENARIO_MAX]; /**< position in each scenario, SIZE_MAX when absent */
};

/** A file a script writes, moves, copies or removes: it matters when it is privileged. */
struct ms_touch {
	char *path;             /**< absolute, normalised; NULL: a file the script cannot name */
	bool below;             /**< and everything below it (rm -r, cp -r) */
	char *base;             /**< with @below: only what has a part of this name (a link
				     that may land anywhere, of a known last name); NULL: all */
	char *what;             /**< "moves", "copies with its mode", "writes to", "removes" */
	char *script;           /**< "postinst" */
	unsigned line;
};

/** A debconf answer as the scripts leave it. */
struct ms_answer {
	char *template;         /**< "wireshark-common/install-setuid" */
	char *value;            /**< NULL: not known */
};

/** What the scripts of one package do. */
struct ms_analysis {
	struct ms_action *v;
	size_t n;
	char **incomplete;      /**< "postinst:12: …": what could not be worked out, so that
				     the installed state may differ from what the actions say */
	size_t n_incomplete;
	struct ms_touch *touches; /**< checked by maintscript_check() */
	size_t n_touches;
	char **notes;           /**< "postinst:12: …": what else the installer does */
	size_t n_notes;
	char **groups;          /**< groups the scripts create (adduser --group, addgroup,
				     groupadd): named, never numbered */
	size_t n_groups;
	char **asked;           /**< debconf templates the scripts read */
	size_t n_asked;
	char **conffiles;       /**< conffiles whose packed content the scripts' outcome follows */
	size_t n_conffiles;
	char **wants;           /**< files of the package the scripts run or read: their content
				     must be kept */
	size_t n_wants;
	struct ms_answer *answers; /**< debconf answers the scripts set (config before the others) */
	size_t n_answers;
	struct ms_index *index; /**< the actions and wants by path: ms_analysis_index()
				     (actindex.h), once the analysis is done */
};

/** One debconf template of the package (its control member "templates"). */
struct ms_template {
	char *name;             /**< "wireshark-common/install-setuid" */
	char *type;             /**< "boolean", "select", "string" … */
	char *def;              /**< the Default field, or NULL */
	char **choices;         /**< select and multiselect: the Choices, NULL-terminated */
};

/** The templates of a package. */
struct ms_templates {
	struct ms_template *v;
	size_t n;
};

struct memberset;

/** How the package manager calls the script on a fresh installation. */
struct ms_context {
	const char *const *args;  /**< $1, $2, …: {"configure", ""} for a postinst */
	size_t n_args;
	const char *arch;         /**< `dpkg --print-architecture`, or NULL */
	const char *package;      /**< the package's name: a program it ships runs as the table
				       row of that name only when the row names the package */
	const struct memberset *members; /**< the package's files, once its data is read: paths
					    resolve through its symbolic links, its own programs
					    and sourced scripts are found; NULL before */
	int stagefd;              /**< with @members: the stage root holding the kept members'
				       content (sourced and run scripts), or -1 */
	const struct ms_templates *templates; /**< debconf templates, or NULL */
	const char *answer_template; /**< a debconf alternative: this template … */
	const char *answer_value;    /**< … answers this instead of its default */
	const char *conffiles;       /**< the package's conffiles list (control member
				          "conffiles": a path per line), or NULL */
	const char *changed_conffile; /**< an alternative: this conffile holds text the audit
					   does not know (the administrator's) */
	bool before_unpack;          /**< the script runs before the package's files are
					  unpacked (preinst, %pretrans, %pre, %triggerprein):
					  none of them is there to test, read or run */
};

/**
 * Analyse the script @name ("postinst") of @len bytes at @text and append its
 * actions and what it could not work out to @out.  A script that does not
 * parse is not an error: it makes the analysis incomplete ("postinst: line 3:
 * unterminated double quote; not analysed"), and the package is still
 * audited by its archive.
 * Returns 0, or -ENOMEM.
 */
int maintscript_analyse(const char *name, const char *text, size_t len,
			const struct ms_context *ctx, struct ms_analysis *out);

/**
 * After every script of a package is analysed with its members known: what
 * the scripts write, move, copy or remove (ms_analysis::touches) that is
 * privileged as packed or made so by an action, or that cannot be named
 * while the package has privileged files, makes the analysis incomplete.
 * Returns 0 or -ENOMEM.
 */
int maintscript_check(struct ms_analysis *a, const struct memberset *members);

/** Free what @a holds; it is empty afterwards. */
void ms_analysis_release(struct ms_analysis *a);

/**
 * Parse the debconf templates file of @len bytes at @text (RFC 822 style
 * paragraphs: Template, Type, Default, Choices) into @ret, which is released
 * first.  What it cannot read is skipped.  Returns 0 or -ENOMEM.
 */
int ms_templates_parse(const char *text, size_t len, struct ms_templates *ret);

/** Free what @t holds. */
void ms_templates_release(struct ms_templates *t);

/** The template @name of @t, or NULL. */
const struct ms_template *ms_templates_find(const struct ms_templates *t, const char *name);

/** "chmod", "chown", "setcap", "setcap -r", "dpkg-statoverride". */
const char *ms_kind_name(enum ms_kind k);

/** "always", "setcap-works", "setcap-fails". */
const char *ms_when_name(enum ms_when w);

/** The state of one file as actions change it. */
struct ms_state {
	uint32_t mode;          /**< permission bits, 07777 */
	const char *owner;      /**< name; borrowed */
	const char *group;      /**< name; borrowed */
	bool has_caps;          /**< capabilities present */
	const char *caps;       /**< capability text set by setcap (borrowed), or NULL for the
				     packed ones when has_caps */
};

/**
 * Whether @a takes effect in scenario @sc: it ran there (a->seq[sc] is set),
 * and it is not a setcap, which fails in MS_SCENARIO_FAILS.
 */
bool ms_applies(const struct ms_action *a, enum ms_scenario sc);

/**
 * Apply @a to @st as the command would on a regular file (@is_dir for a
 * directory): chmod's octal and symbolic modes (umask 022 where chmod uses
 * it), chown clearing the set-ID bits and the capabilities as the kernel
 * does, setcap and setcap -r, dpkg-statoverride's owner, group and mode.
 * Returns 0, or -EINVAL for a mode chmod would refuse (@st unchanged).
 */
int ms_apply(const struct ms_action *a, bool is_dir, struct ms_state *st);

/**
 * chmod(1)'s reading of @spec ("u+s", "4755", "a=rx,u+w") applied to @mode.
 * Returns 0 with the new bits in @ret, or -EINVAL.
 */
int ms_chmod(const char *spec, uint32_t mode, bool is_dir, uint32_t *ret);

#endif /* S2C_PKG_MAINTSCRIPT_H */
