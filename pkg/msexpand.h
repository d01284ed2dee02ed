/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the maintainer-script evaluator (pkg/maintscript.h): words expanded
 * into fields.  Parameters (positional, special, variables and the ${x:-word}
 * forms), field splitting, globs noted but not matched, and the output of
 * the few command substitutions whose output a fresh installation fixes
 * (`dpkg-divert --truename X`, `uname -s`, `dpkg --print-architecture`,
 * `command -v setcap`, echo, basename, mktemp, tempfile, and one of them into
 * a sed substitution or cut's one field).  A value partly known keeps its
 * known start through variables, and whether the rest holds no '/'
 * (${x##PATTERN} with a star and a slash).  Not for use outside
 * pkg/maintscript.c and pkg/ms*.c.
 *
 * Internal: maintscript mseval msexpand mscommand mstable msshell msfile mscopy msfind msrun msdebconf msapply mssed.
 */
#ifndef S2C_PKG_MSEXPAND_H
#define S2C_PKG_MSEXPAND_H

#include <stdbool.h>
#include <stddef.h>

struct ms_eval;
struct ms_fields;
struct sh_word;

/**
 * Expand @w and append its fields to @out, split on blanks when @split (an
 * unquoted expansion to nothing then adds no field).  Errors go to @e->error.
 */
void msexpand_word(struct ms_eval *e, const struct sh_word *w, bool split, struct ms_fields *out);

/**
 * The whole word as one string (assignments, case words, patterns): a new
 * string, or NULL when it is not known (or on error, in @e->error).
 */
char *msexpand_string(struct ms_eval *e, const struct sh_word *w);

/**
 * Assign the whole word @w to the variable @name: its value, or when it is
 * not known, the known start of it (errors go to @e->error).
 */
void msexpand_assign(struct ms_eval *e, const char *name, const struct sh_word *w);
/**
 * What `sed ARGS` prints for the one line @line, when ARGS (without the
 * command name) are one s command, with -e, -E or -r at most, whose
 * expression and replacement mean the same in every POSIX regex dialect.
 * Returns it (without a newline), or NULL when not known or on ENOMEM
 * (pkg/mssed.c).
 */
char *mssed_subst(const char *const *args, size_t n, const char *line);
/**
 * What `cut ARGS` prints for the one line @line, when ARGS are -d with one
 * character and -f with one field number (GNU cut and POSIX agree: a line
 * without the delimiter is printed whole).  Returns it (without a newline),
 * or NULL when not known or on ENOMEM (pkg/mssed.c).
 */
char *mssed_cut(const char *const *args, size_t n, const char *line);

#endif /* S2C_PKG_MSEXPAND_H */
