/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the maintainer-script evaluator (pkg/maintscript.h): simple
 * commands.  Their words are expanded, then the command is found as the
 * shell finds it (special built-ins, the script's functions, the package's
 * own programs on dpkg's PATH, then the one table of command models,
 * mstable.c) and its model runs.  A command that is in no table row makes
 * the analysis incomplete.  The models live in msshell.c (the shell's own
 * commands), msfile.c (commands that change files), msrun.c (commands that
 * run other commands) and msdebconf.c (debconf).  Not for use outside
 * pkg/maintscript.c and pkg/ms*.c.
 *
 * Internal: maintscript mseval msexpand mscommand mstable msshell msfile mscopy mshelper msfind msread msgrep msrun msdebconf msapply.
 */
#ifndef S2C_PKG_MSCOMMAND_H
#define S2C_PKG_MSCOMMAND_H

#include <stdbool.h>
#include <stddef.h>

#include "mseval.h"

struct member;

/** A command about to run: its words expanded. */
struct ms_call {
	const struct sh_node *n;        /**< the simple command: line and source text */
	const struct ms_field *v;       /**< v[0]: the command name as called, then its arguments */
	size_t argc;                    /**< fields in @v, v[0] included */
};

/** What a table row is. */
enum mscmd_flags {
	MSCMD_SPECIAL = 1 << 0,  /**< a POSIX special built-in: found before functions */
	MSCMD_BUILTIN = 1 << 1,  /**< only the shell has it: env, nice … cannot run it */
	MSCMD_NOEFFECT = 1 << 2, /**< changes no mode, owner or capability of any file and runs
				      no other command: status true (the installation assumes
				      it works) unless MSCMD_STATUS */
	MSCMD_STATUS = 1 << 3,   /**< its status depends on the system: unknown */
};

/** The model of a command: its status. */
typedef enum ms_st (*mscmd_fn)(struct ms_eval *e, const struct ms_call *c);

/** One row of the table. */
struct mscmd {
	const char *name;
	mscmd_fn fn;            /**< the model, or NULL for MSCMD_NOEFFECT rows */
	unsigned flags;         /**< enum mscmd_flags */
	const char *why;        /**< what it does, and why that is its model */
	const char *by;         /**< the Debian packages that ship the program (blank-separated):
				     when one of them runs its own copy, the row models it; NULL */
};

/** The row of the table for @name, or NULL. */
const struct mscmd *mscmd_find(const char *name);

/** The table, in name order, and its size (documentation and tests). */
const struct mscmd *mscmd_table(size_t *ret_n);

/** How mscommand_call() looks a command up. */
enum mscall_flags {
	MSCALL_PROGRAM = 1 << 0, /**< as a program (env, nice, xargs …): no function, no built-in */
	MSCALL_NO_FUNCS = 1 << 1, /**< `command`: no function */
};

/**
 * Evaluate the simple command @n in @e: assignments, redirections, its words
 * expanded (aliases first, where dash expands them), then mscommand_call().
 * set -e stops the script when it fails, and makes the rest uncertain when
 * its status is not known.  Returns its status.
 */
enum ms_st mscommand_simple(struct ms_eval *e, const struct sh_node *n);

/** Evaluate the redirections of @n (their words; files written are touched). */
void mscommand_redirects(struct ms_eval *e, const struct sh_node *n);

/**
 * Run the command @c (fields v[0] …) as the shell would find it, with
 * @how (enum mscall_flags).  Returns its status.
 */
enum ms_st mscommand_call(struct ms_eval *e, const struct ms_call *c, unsigned how);

/**
 * @c from its argument @i on, as a command of its own (env's, nice's,
 * xargs's command).
 */
struct ms_call mscommand_shift(const struct ms_call *c, size_t i);

/**
 * Record an incomplete "'TEXT': REASON" for the command @c, where TEXT is its
 * source on one line.
 */
void mscommand_incomplete(struct ms_eval *e, const struct ms_call *c, const char *reason);

/** The source of @n on one line, shortened; NULL on OOM. */
char *mscommand_text(const struct sh_node *n);

/** Whether field @f is a known option ("-x", "--long"). */
bool mscommand_is_option(const struct ms_field *f);

/* --- file names (msfile.c) --------------------------------------------------------------- */

/**
 * The absolute, normalised path that the field @f names from the working
 * directory, through the links the script made (ln -s).  NULL when it is
 * not known (with @e->error set on OOM).  The result is owned by the caller.
 */
char *msfile_path(struct ms_eval *e, const struct ms_field *f);

/**
 * The member of the package at @path once installed (symbolic links among
 * the members followed, as the kernel would), or NULL when the package has
 * no file there or its members are not known yet.
 */
struct member *msfile_member(const struct ms_eval *e, const char *path);
/** msfile_member(), where the script runs once the members are unpacked: before that
 * (preinst, %pre) none of them is there to test, read or run, and a name on PATH is
 * another's. */
struct member *msfile_unpacked(const struct ms_eval *e, const char *path);

/** Whether the package's members are known (the second reading of its scripts). */
bool msfile_members_known(const struct ms_eval *e);

/**
 * Record the action @kind on the file the field @f names, as the command @c
 * does it: on the member it resolves to.  A file that cannot be named, and a
 * file that is not the package's that the action would make set-ID or give
 * capabilities, make the analysis incomplete.
 */
void msfile_act(struct ms_eval *e, const struct ms_call *c, enum ms_kind kind,
		const struct ms_field *f, const char *mode, const char *owner, const char *group,
		const char *caps, bool recursive);

/* --- the models, by file ----------------------------------------------------------------- */

/* msshell.c: the shell's own commands */
enum ms_st msshell_colon(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_false(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_exit(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_return(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_break(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_shift(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_set(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_export(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_unset(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_read(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_cd(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_alias(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_unalias(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_test(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_lookup(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_getopts(struct ms_eval *e, const struct ms_call *c);
enum ms_st msshell_trap(struct ms_eval *e, const struct ms_call *c);

/* msfile.c: commands that change files */
enum ms_st msfile_chmod(struct ms_eval *e, const struct ms_call *c);
enum ms_st msfile_chown(struct ms_eval *e, const struct ms_call *c);
enum ms_st msfile_setcap(struct ms_eval *e, const struct ms_call *c);
enum ms_st msfile_statoverride(struct ms_eval *e, const struct ms_call *c);
enum ms_st msfile_useradd(struct ms_eval *e, const struct ms_call *c);

/**
 * Whether the script made @path (mkdir, touch, cp, install, ln, a redirection) or
 * its package has it: a command on it works.
 */
bool msfile_exists(const struct ms_eval *e, const char *path);

/** Remember that the script made @path, a file (or a link, or of unknown kind). */
void msfile_made(struct ms_eval *e, const char *path);

/** Remember that the script made the directory @path. */
void msfile_made_dir(struct ms_eval *e, const char *path);

/**
 * Forget the directories the script made at or below @path (all of them for
 * NULL: a name not known): rm or mv took them away, and what is made there
 * later is not known to be a directory.
 */
void msfile_gone(struct ms_eval *e, const char *path);

/** Whether @path is a directory the script made (and made nothing else there since). */
bool msfile_made_dir_is(const struct ms_eval *e, const char *path);

/* mscopy.c: commands that copy, move, link, remove or rewrite files */
enum ms_st mscopy_install(struct ms_eval *e, const struct ms_call *c);
enum ms_st mscopy_cp(struct ms_eval *e, const struct ms_call *c);
enum ms_st mscopy_mv(struct ms_eval *e, const struct ms_call *c);
enum ms_st mscopy_ln(struct ms_eval *e, const struct ms_call *c);
enum ms_st mscopy_rm(struct ms_eval *e, const struct ms_call *c);
enum ms_st mscopy_mkdir(struct ms_eval *e, const struct ms_call *c);
enum ms_st mscopy_touch(struct ms_eval *e, const struct ms_call *c);
enum ms_st mscopy_sed(struct ms_eval *e, const struct ms_call *c);
enum ms_st mscopy_writes(struct ms_eval *e, const struct ms_call *c);
enum ms_st mscopy_setfattr(struct ms_eval *e, const struct ms_call *c);
enum ms_st mscopy_divert(struct ms_eval *e, const struct ms_call *c);

/* mshelper.c: other packages' helpers that write files */
enum ms_st mshelper_plocate_build(struct ms_eval *e, const struct ms_call *c);
enum ms_st mshelper_mkcert(struct ms_eval *e, const struct ms_call *c);
enum ms_st mshelper_x2godbadmin(struct ms_eval *e, const struct ms_call *c);
enum ms_st mshelper_outputs(struct ms_eval *e, const struct ms_call *c);
enum ms_st mshelper_ucf(struct ms_eval *e, const struct ms_call *c);
enum ms_st mshelper_hooks(struct ms_eval *e, const struct ms_call *c);
enum ms_st mshelper_gac_install(struct ms_eval *e, const struct ms_call *c);
enum ms_st mshelper_dpkg_trigger(struct ms_eval *e, const struct ms_call *c);
enum ms_st mshelper_setfacl(struct ms_eval *e, const struct ms_call *c);
enum ms_st mshelper_dbconfig(struct ms_eval *e, const struct ms_call *c);

/* msrun.c: commands that run other commands */
enum ms_st msrun_command(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_env(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_prefix(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_eval(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_exec(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_shell(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_source(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_xargs(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_find(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_busybox(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_other_user(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_awk(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_dpkg(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_member(struct ms_eval *e, const struct ms_call *c, const char *path);
enum ms_st msrun_tmpfiles(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_ssd(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_modprobe(struct ms_eval *e, const struct ms_call *c);
enum ms_st msrun_ip(struct ms_eval *e, const struct ms_call *c);
/** The content of the kept member at @path (its length in @ret_len), or NULL when it was not
 *  kept.  Owned by the caller. */
char *msrun_member_text(struct ms_eval *e, const char *path, size_t *ret_len);
/** Whether the script wrote to @path (its content is then the script's doing). */
bool msrun_written(const struct ms_eval *e, const char *path);

/* msread.c: while read … done < FILE over a file of the package */

/** One line as read takes it: backslashes without -r make the next byte @quoted. */
struct msread_line {
	char *s;                /**< owned, NUL-terminated */
	bool *quoted;           /**< owned: per byte of @s, escaped by a backslash */
	size_t n;
	bool newline;           /**< ended by a newline (read succeeds), not by the end */
};

/**
 * Read one line of @len bytes at @text from *@pos (advanced) into @l, as dash's
 * read does: without @raw, backslash-newline joins the next line and a
 * backslash quotes the next byte.  Returns 0 or -ENOMEM.
 */
int msread_next(const char *text, size_t len, size_t *pos, bool raw, struct msread_line *l);
void msread_line_release(struct msread_line *l);
/**
 * Split @l into @n_vars (> 0) values @vals (owned by the caller) as read
 * does with @ifs: IFS field splitting, the last variable taking the rest less
 * trailing IFS white space and a lone trailing delimiter.  Returns 0 or -ENOMEM.
 */
int msread_split(const struct msread_line *l, const char *ifs, size_t n_vars, char **vals);
/**
 * while read VARS; do BODY; done < FILE with FILE a file of the package the
 * script has not written, and a body that cannot read the input: the body is
 * evaluated once per line with the values read.  Returns false (nothing
 * done) for any other loop, with *@ret the loop's status otherwise.
 */
bool msread_loop(struct ms_eval *e, const struct sh_node *n, enum ms_st *ret);
/**
 * Inside such a loop: make @e incomplete when the call @c may read the loop's
 * input (ln, cp, mv or rm asking with -i, setcap reading capabilities from -,
 * or arguments not known).
 */
void msread_check_call(struct ms_eval *e, const struct ms_call *c);

/* msgrep.c: grep on a file of the package */

/** Whether @path is one of the package's conffiles (ms_context::conffiles). */
bool msgrep_conffile(const struct ms_eval *e, const char *path);
/**
 * The content of the file @path of the package as the script finds it (owned
 * by the caller, its length in @ret_len), or NULL when that is not known: not
 * the package's, written by the script, not kept (then wanted for the next
 * reading), or the conffile an alternative takes as changed.  A conffile read
 * is remembered (ms_eval::conffiles).
 */
char *msgrep_package_text(struct ms_eval *e, const char *path, size_t *ret_len);
enum ms_st msgrep_grep(struct ms_eval *e, const struct ms_call *c);

/* msdebconf.c: debconf */
enum ms_st msdebconf_get(struct ms_eval *e, const struct ms_call *c);
enum ms_st msdebconf_set(struct ms_eval *e, const struct ms_call *c);
enum ms_st msdebconf_reset(struct ms_eval *e, const struct ms_call *c);
/*
 * The class ("ispell" or "wordlist") when @text is, word for word, the Perl
 * debconf config dictionaries-common-dev writes for a dictionary, which changes
 * no file's mode, owner or capability; else NULL.
 */
const char *msdebconf_dictionary_config(const char *text, size_t len);

#endif /* S2C_PKG_MSCOMMAND_H */
