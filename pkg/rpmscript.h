/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What an rpm's scriptlets do when it is installed.  rpm runs, on a fresh
 * installation: %pretrans, the %triggerprein of this package on packages
 * already installed, %pre, the files, %filetriggerin over its own files (and
 * those already installed), %post, %triggerin (on itself, and on packages
 * already installed), %posttrans and %transfiletriggerin.  Each is analysed
 * in that order, with the arguments rpm passes:
 *
 *  - sh, bash and dash scripts by the maintainer-script evaluator
 *    (maintscript.h);
 *  - a program without a script (`%post -p "/bin/chmod 4755 /x"`) as the
 *    command line it is, when the evaluator knows the program (chmod, chown,
 *    chgrp, setcap) or it is ldconfig; any other program makes the audit
 *    incomplete;
 *  - lua (`-p <lua>`): a script that names nothing able to reach a file or
 *    a program (os, io, posix, rpm, require, load, the global table, …) is
 *    harmless; literal calls of posix.chmod, posix.chown and os.execute
 *    with a literal command line are modelled; anything else makes the
 *    audit incomplete;
 *  - any other interpreter, and a script rpm expands at install time
 *    (-e, -q), make the audit incomplete.
 *
 * What %pretrans, %triggerprein and %pre do to the package's own files has
 * no effect on a fresh installation: the files do not exist yet, and rpm
 * then writes each with its packed mode and owner.
 *
 * A %config(noreplace) file holds its packed text, as a conffile of a .deb
 * does; rpm keeps one that is there already (the packed one goes to
 * .rpmnew), so for each the scriptlets read, what they would install with
 * other text there is an alternative (target::alts).  A plain %config file
 * is replaced on installation and always holds the packed text.
 *
 * A trigger that fires only when another package is (or becomes) installed
 * or removed, or a file trigger over files this package does not have, may
 * or may not run: its actions are conditional, and when it has any the
 * audit is incomplete, naming it.  Triggers that fire only when this
 * package itself is removed or upgraded (%triggerun, %triggerpostun and
 * %triggerprein on its own name) do not run on installation and are not
 * read.
 */
#ifndef S2C_PKG_RPMSCRIPT_H
#define S2C_PKG_RPMSCRIPT_H

#include <stdbool.h>
#include <stddef.h>

struct headerToken_s;
struct memberset;
struct ms_analysis;
struct ms_context;
struct target;

/**
 * Analyse every scriptlet of the package header @h that can run at or after
 * its installation, into @t->scripts (actions) and @t (why the audit is
 * incomplete).  First with @members NULL, before the payload is read: the
 * actions name the files to keep, and what needs the package's files (its
 * own programs and sourced scripts, links among its files) is only
 * recorded; then again with the payload's @members and the stage root
 * @stagefd (-1 without one), which decides those, after
 * rpmscript_forget() of the first reading; that second one also adds to
 * @t->alts what the scriptlets would do where a %config(noreplace) file they
 * read holds other text.  Returns 0 or -ENOMEM.
 */
int rpmscript_analyse(struct headerToken_s *h, struct target *t,
		      const struct memberset *members, int stagefd);

/**
 * Forget what a first rpmscript_analyse() of @t found (its actions, its
 * alternatives, and the reasons for incompleteness from @n_incomplete on),
 * before the second.
 */
void rpmscript_forget(struct target *t, size_t n_incomplete);

/**
 * Analyse the lua scriptlet @name of @len bytes at @text: nothing when it
 * cannot reach a file or a program; the actions of literal posix.chmod,
 * posix.chown and os.execute calls (the command line through the shell
 * evaluator with @ctx) when those are all it can do; else why it is not
 * analysed, in @out's incomplete list.  Returns 0 or -ENOMEM.
 */
int rpmscript_lua(const char *name, const char *text, size_t len, const struct ms_context *ctx,
		  struct ms_analysis *out);

#endif /* S2C_PKG_RPMSCRIPT_H */
