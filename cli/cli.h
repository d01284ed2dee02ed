/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command-line layer: the only code that parses argv, prints, picks exit
 * codes and changes process privileges.
 */
#ifndef S2C_CLI_CLI_H
#define S2C_CLI_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "macro.h"

/**
 * Exit codes, the single definition (documented in suid2cap(8) EXIT STATUS).
 * When several apply, the largest wins.
 */
enum s2c_exit {
	S2C_EXIT_OK = 0,          /**< success, nothing to report */
	S2C_EXIT_FINDINGS = 1,    /**< audit --fail-on matched, or verify found drift */
	S2C_EXIT_USAGE = 2,       /**< bad option, argument or missing root */
	S2C_EXIT_INCOMPLETE = 3,  /**< finished, but parts could not be read (see warnings) */
	S2C_EXIT_FAILURE = 4,     /**< an operation failed; nothing was left half done */
	S2C_EXIT_PRIVILEGE = 5,   /**< missing or unsafe privileges or trusted inputs */
};

/** Behaviour declared per verb in the dispatch table, and read by the dispatcher. */
enum cmd_flags {
	CMD_WRITES = 1 << 0,      /**< changes files: keeps the bounding set at dispatch */
	CMD_HIDDEN = 1 << 1,      /**< not listed in --help */
	CMD_OPTIONS_FIRST = 1 << 2, /**< options end at the first operand (a command line) */
};

/** max_args of a verb that takes any number of operands. */
#define CMD_ANY UINT32_MAX

/** Process-wide context handed to every verb. */
struct s2c_ctx {
	const char *argv0;        /**< program name for messages */
	bool stdout_tty;          /**< stdout is a terminal */
	bool stderr_tty;          /**< stderr is a terminal */
	unsigned ncpus;           /**< online CPUs */
};

struct privs_phase;
struct s2c_error;

/** A verb. */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv, struct s2c_ctx *ctx);
	enum cmd_flags flags;
	unsigned min_args, max_args; /**< operands after the options (CMD_ANY: no limit) */
	const char *operand;      /**< what they are, for messages ("PATH", "PLAN"), or NULL */
	uint64_t caps;            /**< capabilities kept from dispatch on (the union of the phases) */
	const struct privs_phase *phases;  /**< what each phase keeps; ends with a NULL name */
	const char *synopsis;     /**< options, as in the man page SYNOPSIS */
	const char *help;         /**< one line for the verb list */
};

/*
 * diag.c: messages on stderr, "suid2cap: …", thread-safe.  The whole formatted
 * message goes through escape_text() (controls, C1, DEL, invalid UTF-8, bidi and
 * other format controls made visible), so callers pass file names, library
 * messages and rule texts as they are and never escape them first; only the
 * "error:"/"warning:" prefix the logger adds may carry colour.
 */

/** Print "suid2cap: error: <msg>\n". */
void log_error(const char *fmt, ...) S2C_PRINTF(1, 2);
/** Print "suid2cap: warning: <msg>\n". */
void log_warning(const char *fmt, ...) S2C_PRINTF(1, 2);
/** Print "suid2cap: <msg>\n" (notices, progress results). */
void log_notice(const char *fmt, ...) S2C_PRINTF(1, 2);
/** Set the program name used as prefix. */
void log_set_program(const char *name);
/** Allow colour on stderr. */
void log_set_color(bool on);

/**
 * Print one result line on stdout: the formatted text, escaped as a whole like
 * the log messages, then "\n" (so @fmt has no newline of its own).  For lines
 * that carry file names or library messages: outcomes, drift, plan summaries.
 * Write errors show at exit, when stdout is flushed and checked.
 */
void print_line(const char *fmt, ...) S2C_PRINTF(1, 2);

/**
 * @path as messages name it, so that whoever reads the message can act on it
 * wherever they are: an absolute path as it is, a relative one joined to the
 * current directory (as typed, not resolved: "../x" stays recognisable).  A
 * copy of @path when the current directory has no name; "/" for NULL.
 * Returns a new string, NULL on OOM.
 */
char *shown_path(const char *path);

/**
 * Where the tool's own temporary files go: $TMPDIR when it is an absolute
 * path, else /tmp.  Borrowed.
 */
const char *tmp_dir(void);

/**
 * Memory a verb's records of privileged files (scan's facts, audit's
 * decisions) take before they go to an unnamed file in tmp_dir().
 */
#define CLI_RECORDS_MEMORY ((size_t)4 << 20)

/**
 * The exit code a library call's failure @r (-errno) means: S2C_EXIT_PRIVILEGE
 * for -EPERM (a missing privilege, an input not trusted), else
 * S2C_EXIT_FAILURE.
 */
int error_exit_code(int r);

/**
 * Print the error of a failed library call @r, the message in @err (NULL or
 * empty: strerror(-@r)), and return error_exit_code(@r).
 */
int error_exit(int r, const struct s2c_error *err);

/** Print a usage error for @verb and a hint; returns S2C_EXIT_USAGE. */
int usage_error(const char *verb, const char *fmt, ...) S2C_PRINTF(2, 3);

/** Look up a verb by name (NULL when unknown). */
const struct cmd *cmd_lookup(const char *name);

/** Print the usage of @c to @out. */
void cmd_print_usage(const struct cmd *c, FILE *out);

/* The verbs. */
int cmd_scan(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_privileges(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_audit(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_audit_pkg(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_audit_image(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_report(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_plan(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_apply(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_migrate(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_rollback(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_verify(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_explain(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_rules(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_help(int argc, char **argv, struct s2c_ctx *ctx);
int cmd_learn(int argc, char **argv, struct s2c_ctx *ctx);

struct plan_entry;

/**
 * parents_check() callback of plan and migrate: a warning that @e is held back
 * because of @why; @userdata is the root (a string), named when it is not "/".
 */
void cmd_plan_warn_held(void *userdata, const struct plan_entry *e, const char *why);

#endif /* S2C_CLI_CLI_H */
