/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the maintainer-script evaluator (pkg/maintscript.h): what its files
 * share.  The state of one pass over a script (variables, functions,
 * aliases, positional parameters, set -e, whether it is inside an undecided
 * branch, the actions, notes and what it could not work out so far, the
 * first error), values as fields that are known or unknown, and the bounds
 * on work.  maintscript.c walks the tree, msexpand.c expands words,
 * mscommand.c finds a command in the table (mstable.c) and runs its model:
 * msshell.c for the shell's own commands, msfile.c for those that change
 * files, msrun.c for those that run other commands, msdebconf.c for debconf.
 * Not for use outside pkg/maintscript.c and pkg/ms*.c.
 *
 * Internal: maintscript mseval msexpand mscommand mstable msshell msfile mscopy mshelper msfind msread msgrep msrun msdebconf msapply.
 */
#ifndef S2C_PKG_MSEVAL_H
#define S2C_PKG_MSEVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "hashindex.h"
#include "maintscript.h"
#include "macro.h"

struct sh_node;
struct sh_script;

/** Most nodes evaluated in one pass; the rest of the script becomes a note. */
#define MSEVAL_STEPS_MAX 200000
/** Deepest nesting of function calls followed. */
#define MSEVAL_CALLS_MAX 16
/**
 * Most variables copied, merged or compared in one pass: branches and loops
 * copy every variable, so a script that sets very many and branches very
 * often would cost their product; past this the rest is not analysed.
 */
#define MSEVAL_COPIES_MAX 1000000
/** Most aliases one pass defines (real scripts define a few): past it, incomplete. */
#define MSEVAL_ALIASES_MAX 256
/**
 * Most function definitions (and unset -f) one pass makes, a definition run
 * again counted again: every later command is looked up among them.  Past
 * it, incomplete.
 */
#define MSEVAL_FUNCS_MAX 1024
/** Most iterations of a for loop followed. */
#define MSEVAL_LOOP_MAX 256
/** Most rounds of a while or until loop until its variables settle. */
#define MSEVAL_LOOP_ROUNDS 8
/** Deepest nesting of texts evaluated at run time (eval, sh -c, ., traps). */
#define MSEVAL_NEST_MAX 8
/** Most fields of one command; more makes the script a note (-E2BIG). */
#define MSEVAL_FIELDS_MAX 4096
/** Longest value in bytes; a longer one becomes unknown. */
#define MSEVAL_VALUE_MAX 65536
/** Longest command text kept with an action, in bytes. */
#define MSEVAL_COMMAND_TEXT_MAX 200
/** The PATH dpkg runs maintainer scripts with. */
#define MSEVAL_DPKG_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/** Variables named with this prefix and a template hold the debconf answers. */
#define MSEVAL_DEBCONF_PREFIX "\001debconf:"

/** A command's exit status as far as it is known. */
enum ms_st { MS_TRUE, MS_FALSE, MS_UNKNOWN };

/** A shell variable. */
struct ms_var {
	char *name;             /**< owned */
	char *value;            /**< owned; NULL: unknown */
	char *start;            /**< owned; when @value is unknown: its known start, or NULL */
	char *end;              /**< owned; when @value is unknown: its known end (what follows
				     the last unknown part, no blank or glob character in it), or
				     NULL */
	bool flat;              /**< with @start: what follows it holds no '/' */
	bool exported;          /**< export: programs the script runs see it */
	bool was_unset;         /**< in ms_eval::locals: the variable was not set */
};

/** The variables of a pass. */
struct ms_env {
	struct ms_var *v;
	size_t n;
	struct hashindex index;     /**< @v by the names' strhash(): a lookup costs the same
				         however many variables a script sets */
};

/** A function defined so far. */
struct ms_func {
	char *name;                 /**< owned */
	bool maybe;                 /**< defined (or unset) where the script may not have come */
	const struct sh_node *body; /**< borrowed from the script, or from a text parsed at run
				         time (kept in ms_eval::subs) */
};

/**
 * The functions defined so far, in order, and an index of them by name, so
 * that every command's look-up costs the same however many there are.  The
 * latest definition of a name is the one a call runs; one without a body is
 * an `unset -f`.
 */
struct ms_funcs {
	struct ms_func *v;
	size_t n, alloc;
	struct hashindex index;     /**< of v by strhash() of the name; entries past @n stale */
};

/** Add a definition of @name (copied).  Returns 0 or -ENOMEM. */
int msfuncs_add(struct ms_funcs *f, const char *name, const struct sh_node *body, bool maybe);

/** The latest definition of @name (its body NULL when unset), or NULL. */
struct ms_func *msfuncs_find(const struct ms_funcs *f, const char *name);

/** Mark every definition of @name as one the script may not have come to. */
void msfuncs_mark_maybe(struct ms_funcs *f, const char *name);

/** Forget the definitions past the first @n. */
void msfuncs_truncate(struct ms_funcs *f, size_t n);

/** Free every definition; @f is empty afterwards. */
void msfuncs_release(struct ms_funcs *f);

/** An alias (dash expands them in scripts; bash does not). */
struct ms_alias {
	char *name;             /**< owned */
	char *value;            /**< owned */
};

/** Where mseval_strset_add() put a string: element @i of the set @v. */
struct ms_strset_ref {
	char ***v;
	size_t *n;
	size_t i;
};

/** A symbolic link the script made (ln -s): later paths resolve through it. */
struct ms_link {
	char *path;             /**< absolute, normalised; owned */
	char *target;           /**< as given, owned; NULL: not known (with a name not known,
				     @path is the directory it is in) */
	char *base;             /**< owned; a name not known anywhere (@path "/") that ends in
				     this last part: the link is named so, or is in a directory
				     named so; NULL: any name */
};

/** One field of an expanded word. */
struct ms_field {
	char *s;                /**< owned; the text so far when not known */
	size_t len;
	bool known;
	size_t prefix;          /**< when not known: the bytes of @s known before the first
				     unknown part */
	size_t tail;            /**< when not known: where in @s the text after the last unknown
				     part starts (@len: none) */
	bool flat;              /**< when not known: no byte after @prefix is a '/' (the
				     unknown parts hold none, nor does the text among them) */
	bool glob;              /**< unquoted glob characters */
	bool vague;             /**< how many fields there are is not known: an expansion not
				     known that field splitting cuts (no field, or several), or
				     "$@" of positional parameters not known */
	bool below;             /**< when not known: a name find found below @prefix, which
				     never climbs out of it */
};

/** The fields of one or more words. */
struct ms_fields {
	struct ms_field *v;
	size_t n;
};

/** One pass over a script, in one scenario. */
struct ms_eval {
	const char *name;       /**< script name, borrowed */
	const struct ms_context *ctx;
	enum ms_scenario sc;
	struct ms_env env;
	const char *const *pos; /**< positional parameters, borrowed */
	size_t n_pos;
	bool pos_unknown;       /**< `set --` with words not known: so are the parameters */
	struct ms_funcs funcs;
	unsigned cond;          /**< > 0: inside an undecided branch */
	unsigned cond_base;     /**< @cond where the script run now began: a function it
				     defines deeper may not be defined */
	bool maybe_stopped;     /**< the script may have stopped before here (an undecided
				     exit, or a command of unknown status under set -e) */
	bool maybe_returned;    /**< the function may have returned before here */
	bool maybe_broken;      /**< the loop may have been left (break, continue) before here */
	unsigned exempt;        /**< > 0: in a condition, where set -e does not stop */
	bool errexit;           /**< set -e */
	bool bash;              /**< run by bash: aliases are not expanded */
	unsigned calls;         /**< function calls under way */
	unsigned nest;          /**< texts evaluated at run time under way */
	size_t steps;
	size_t copied;              /**< variables copied, merged or compared (MSEVAL_COPIES_MAX) */
	bool exited, returning;
	int breaking;           /**< 1 break, 2 continue: the rest of the loop body is skipped */
	unsigned loops;         /**< loops under way */
	unsigned input_loops;   /**< > 0: in a while read loop whose lines are followed (msread.c) */
	unsigned at_line;       /**< inside a text run at that line (eval, sh -c, ., a trap) … */
	const char *where;      /**< … named so in messages ("eval", the sourced file), or NULL */
	int error;              /**< -ENOMEM (or -E2BIG) sticks */
	char numbuf[32];        /**< $# */
	char *cwd;              /**< working directory (dpkg runs scripts in /); NULL: unknown */
	struct ms_alias *aliases;
	size_t n_aliases;
	struct ms_link *links;
	size_t n_links;
	struct hashindex links_index; /**< @links by the strhash() of their path */
	char **made;            /**< files and directories the script made (mkdir, touch, cp,
				     install, ln, redirections), owned */
	size_t n_made;
	char **made_dirs;       /**< of @made, the directories (mkdir, install -d, mktemp -d):
				     a set-ID bit there makes no privileged file */
	size_t n_made_dirs;
	char **overrides;       /**< paths given a statoverride in this pass, owned */
	size_t n_overrides;
	char *trap_exit;        /**< the EXIT trap's text, owned, or NULL */
	char **traps;           /**< the other traps' texts (a signal may run them), owned */
	size_t n_traps;
	struct sh_script **subs; /**< texts parsed at run time, owned (functions point in) */
	size_t n_subs;
	char **owned;           /**< strings that @pos borrows after `set --`, owned */
	size_t n_owned;
	struct ms_var *locals;  /**< values that `local` hid, put back when the function returns */
	size_t n_locals;
	enum ms_st cmdsub_status; /**< the status of the last command substitution expanded */
	char **wants;           /**< files of the package the scripts run or read, owned */
	size_t n_wants;
	struct ms_action *acts; /**< this pass, owned: mseval_action_add() */
	size_t n_acts;
	struct hashindex acts_same; /**< @acts by mseval_action_hash() */
	struct ms_strset_ref *set_refs; /**< every string mseval_strset_add() added, where */
	size_t n_set_refs, alloc_set_refs;
	struct hashindex set_index; /**< @set_refs by their set and string */
	struct hashindex acts_paths; /**< one of @acts for each path they name, by member_hash() */
	size_t n_acts_wide;     /**< @acts on a glob, on a tree or on a file not named */
	char **incomplete;      /**< "postinst:12: …": what could not be worked out, owned */
	size_t n_incomplete;
	struct ms_touch *touches; /**< files written, moved, copied or removed, owned */
	size_t n_touches;
	char **notes;           /**< "postinst:12: …": what else the scripts do, owned */
	size_t n_notes;
	char **groups;          /**< groups the script creates, owned */
	size_t n_groups;
	char **asked;           /**< debconf templates read with db_get, owned */
	size_t n_asked;
	char **conffiles;       /**< conffiles of the package whose packed content was read */
	size_t n_conffiles;
};

/** Whether @e is inside a branch, a loop or a rest of the script that may not run. */
static inline bool mseval_uncertain(const struct ms_eval *e)
{
	return e->cond > 0 || e->maybe_stopped || e->maybe_returned || e->maybe_broken;
}

/** Free what @a holds and zero it. */
void mseval_action_release(struct ms_action *a);

/** A hash of what mseval_action_same() compares (for struct hashindex). */
uint64_t mseval_action_hash(const struct ms_action *a);

/**
 * Take @a into this pass's actions, unless the same one is there (a loop or
 * a second call: the same change again), when it is released.  Either way @a
 * is zeroed.  Returns 0 or -ENOMEM.
 */
int mseval_action_add(struct ms_eval *e, struct ms_action *a);

/** Whether an action of this pass so far may name @path: on it, a glob, a tree or a file not named. */
bool mseval_acted_on(const struct ms_eval *e, const char *path);

/** Whether @a and @b are the same change (kind, line, file, values, condition). */
bool mseval_action_same(const struct ms_action *a, const struct ms_action *b);

/** Record -ENOMEM in @e; evaluation stops. */
void mseval_oom(struct ms_eval *e);

/**
 * Record once (duplicates are dropped) that the pass could not work out
 * something at line @line, as "NAME:LINE: message": the analysis of the
 * script is then incomplete.
 */
void mseval_incomplete(struct ms_eval *e, unsigned line, const char *fmt, ...) S2C_PRINTF(3, 4);

/** Record once a note "NAME:LINE: message" about what else the script does. */
void mseval_note(struct ms_eval *e, unsigned line, const char *fmt, ...) S2C_PRINTF(3, 4);

/** Add a copy of @s to the set @v of @n strings unless it is there; -ENOMEM goes to @e. */
void mseval_strset_add(struct ms_eval *e, char ***v, size_t *n, const char *s);

/**
 * Record that the command at line @line touches @path (NULL: a file it cannot
 * name; @below: everything below it too): @what says how ("moves", "copies
 * with its mode", "writes to", "removes").  Whether that matters is decided
 * once the privileged files are known (maintscript_check()).
 */
void mseval_touch(struct ms_eval *e, unsigned line, const char *path, bool below,
		  const char *what);

/**
 * mseval_touch() of what has a part named @base (NULL: all) at or below @path:
 * a link that may land anywhere, of a known last name.
 */
void mseval_touch_named(struct ms_eval *e, unsigned line, const char *path, bool below,
			const char *base, const char *what);

/** Free the variables of @env and zero it. */
void mseval_env_release(struct ms_env *env);

/** Copy @src into @dst (overwritten).  Returns 0 or -ENOMEM (@dst then empty). */
int mseval_env_copy(const struct ms_env *src, struct ms_env *dst);

/** The variable @name of @env, or NULL when unset (borrowed). */
struct ms_var *mseval_env_find(const struct ms_env *env, const char *name);

/** Set @name in @env to @value (NULL: unknown), taking @value; -ENOMEM goes to @e. */
void mseval_env_set(struct ms_eval *e, struct ms_env *env, const char *name, char *value);

/**
 * Set @name in @env to the value of the field @f: known, or unknown with the
 * known start @f has (a name "/usr/share/foo/$x" stays below /usr/share only
 * when nothing after its start can be a '/').
 */
void mseval_env_set_field(struct ms_eval *e, struct ms_env *env, const char *name,
			  const struct ms_field *f);
/** Make @v unknown, without a known start. */
void mseval_var_forget(struct ms_var *v);
/** Unset @name in @env (out of memory: marks @e). */
void mseval_env_unset(struct ms_eval *e, struct ms_env *env, const char *name);

/**
 * After two branches: what @into and @other agree on stays in @into, the
 * rest becomes unknown.
 */
void mseval_env_merge(struct ms_eval *e, struct ms_env *into, const struct ms_env *other);

/** Whether @a and @b hold the same variables with the same values. */
bool mseval_env_same(const struct ms_env *a, const struct ms_env *b);

/** Free the fields of @f and zero it. */
void mseval_fields_release(struct ms_fields *f);

/**
 * Append an empty known field to @f.  Returns it (owned by @f, valid until
 * the next one), or NULL with @e->error set (-E2BIG past MSEVAL_FIELDS_MAX,
 * or -ENOMEM).
 */
struct ms_field *mseval_field_new(struct ms_eval *e, struct ms_fields *f);

/**
 * Make @f unknown from here on (what it holds so far stays its known prefix);
 * the unknown part may hold anything, a '/' too.
 */
void mseval_field_unknown(struct ms_field *f);
/** Make @f unknown from here on with a part that holds no '/'. */
void mseval_field_unknown_flat(struct ms_field *f);

/** Append @n bytes of @s to @f; past MSEVAL_VALUE_MAX @f becomes unknown instead. */
void mseval_field_append(struct ms_eval *e, struct ms_field *f, const char *s, size_t n);

/**
 * The tree walk, in maintscript.c (function calls go back to it): evaluate
 * @n (may be NULL) in @e.  Returns its status.
 */
enum ms_st maintscript_eval(struct ms_eval *e, const struct sh_node *n);

/**
 * Parse @len bytes of @text, evaluated at run time at line @line (eval, sh -c,
 * a trap, a sourced file named @what), and evaluate it in @e.  The parsed
 * script is kept in @e (functions it defines point into it).  A text that
 * does not parse, or nesting past MSEVAL_NEST_MAX, makes @e incomplete.
 * Returns its status.
 */
enum ms_st maintscript_eval_text(struct ms_eval *e, unsigned line, const char *what,
				 const char *text, size_t len);

/**
 * Evaluate @n as a subshell: variables, functions, aliases, the working
 * directory and exit stay inside.  Returns its status.
 */
enum ms_st maintscript_eval_subshell(struct ms_eval *e, const struct sh_node *n);

#endif /* S2C_PKG_MSEVAL_H */
