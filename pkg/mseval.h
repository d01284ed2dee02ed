/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the maintainer-script evaluator (pkg/maintscript.h): what its files
 * share.  The state of one pass over a script (variables, functions,
 * positional parameters, whether it is inside an undecided branch, the
 * actions and what it could not work out so far, the first error), values as fields that are
 * known or unknown, and the bounds on work.  maintscript.c walks the tree,
 * msexpand.c expands words, mscommand.c runs the commands.  Not for use
 * outside pkg/maintscript.c and pkg/ms*.c.
 */
#ifndef S2C_PKG_MSEVAL_H
#define S2C_PKG_MSEVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "maintscript.h"
#include "macro.h"

struct sh_node;

/** Most nodes evaluated in one pass; the rest of the script becomes a note. */
#define MSEVAL_STEPS_MAX 200000
/** Deepest nesting of function calls followed. */
#define MSEVAL_CALLS_MAX 16
/** Most iterations of a for loop followed. */
#define MSEVAL_LOOP_MAX 256
/** Most fields of one command; more makes the script a note (-E2BIG). */
#define MSEVAL_FIELDS_MAX 4096
/** Longest value in bytes; a longer one becomes unknown. */
#define MSEVAL_VALUE_MAX 65536
/** Longest command text kept with an action, in bytes. */
#define MSEVAL_COMMAND_TEXT_MAX 200

/** A command's exit status as far as it is known. */
enum ms_st { MS_TRUE, MS_FALSE, MS_UNKNOWN };

/** A shell variable. */
struct ms_var {
	char *name;             /**< owned */
	char *value;            /**< owned; NULL: unknown */
};

/** The variables of a pass. */
struct ms_env {
	struct ms_var *v;
	size_t n;
};

/** A function defined so far. */
struct ms_func {
	char *name;                 /**< owned */
	const struct sh_node *body; /**< borrowed from the script */
};

/** One field of an expanded word. */
struct ms_field {
	char *s;                /**< owned; the text so far when not known */
	size_t len;
	bool known;
	bool glob;              /**< unquoted glob characters */
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
	struct ms_func *funcs;
	size_t n_funcs;
	unsigned cond;          /**< > 0: inside an undecided branch */
	unsigned calls;         /**< function calls under way */
	size_t steps;
	bool exited, returning;
	int error;              /**< -ENOMEM (or -E2BIG) sticks */
	char numbuf[32];        /**< $# */
	struct ms_action *acts; /**< this pass, owned */
	size_t n_acts;
	char **incomplete;      /**< "postinst:12: …": what could not be worked out, owned */
	size_t n_incomplete;
};

/** Free what @a holds and zero it. */
void mseval_action_release(struct ms_action *a);

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

/** Free the variables of @env and zero it. */
void mseval_env_release(struct ms_env *env);

/** Copy @src into @dst (overwritten).  Returns 0 or -ENOMEM (@dst then empty). */
int mseval_env_copy(const struct ms_env *src, struct ms_env *dst);

/** The variable @name of @env, or NULL when unset (borrowed). */
struct ms_var *mseval_env_find(const struct ms_env *env, const char *name);

/** Set @name in @env to @value (NULL: unknown), taking @value; -ENOMEM goes to @e. */
void mseval_env_set(struct ms_eval *e, struct ms_env *env, const char *name, char *value);

/**
 * After two branches: what @into and @other agree on stays in @into, the
 * rest becomes unknown.
 */
void mseval_env_merge(struct ms_eval *e, struct ms_env *into, const struct ms_env *other);

/** Free the fields of @f and zero it. */
void mseval_fields_release(struct ms_fields *f);

/**
 * Append an empty known field to @f.  Returns it (owned by @f, valid until
 * the next one), or NULL with @e->error set (-E2BIG past MSEVAL_FIELDS_MAX,
 * or -ENOMEM).
 */
struct ms_field *mseval_field_new(struct ms_eval *e, struct ms_fields *f);

/** Append @n bytes of @s to @f; past MSEVAL_VALUE_MAX @f becomes unknown instead. */
void mseval_field_append(struct ms_eval *e, struct ms_field *f, const char *s, size_t n);

/**
 * The tree walk, in maintscript.c (function calls go back to it): evaluate
 * @n (may be NULL) in @e.  Returns its status.
 */
enum ms_st maintscript_eval(struct ms_eval *e, const struct sh_node *n);

#endif /* S2C_PKG_MSEVAL_H */
