/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the shell parser (pkg/shparse.h): what its files share.  The state
 * of one parse (the text, the position and line, the depth and node budgets,
 * pending here-documents, the first error), and the characters of the
 * language read directly off the text: blanks, comments, line continuations,
 * here-document bodies, operators and reserved words.  Words need context
 * (quotes, substitutions) that a separate tokenizer would have to duplicate,
 * so there are no tokens: shword.c, shcompound.c and shparse.c read through
 * these functions.  Not for use outside pkg/sh*.c.
 *
 * Internal: shparse shlex shword shcompound shtree.
 */
#ifndef S2C_PKG_SHLEX_H
#define S2C_PKG_SHLEX_H

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

struct s2c_error;
struct sh_node;

/** Most here-documents started on one line. */
#define SHLEX_HEREDOCS_MAX 16

/** A here-document whose body follows the next newline. */
struct shlex_heredoc {
	char *delim;            /**< its end line, quotes removed; owned */
	bool strip_tabs;        /**< "<<-": leading tabs do not count */
	bool expands;           /**< the delimiter is unquoted: the body is expanded */
	struct sh_node *node;   /**< the command whose redirection it is (borrowed) … */
	size_t redir;           /**< … and which one: its body goes to sh_redir::heredoc */
};

/** The unescaped texts of `…`, which the script keeps (its nodes point into them). */
struct shlex_buffers {
	char **v;               /**< owned, each and the array */
	size_t n;
};

/**
 * One parse: of the script, or of the text of one `…` inside it (which shares
 * the node budget, the buffers and the error with its parent).
 */
struct shlex {
	const char *s;          /**< the text, borrowed */
	size_t len, pos;
	unsigned line;          /**< line of s[pos], from 1 */
	unsigned depth;         /**< nesting so far, bounded by SHPARSE_DEPTH_MAX */
	size_t *nodes;          /**< nodes and parts so far, bounded by SHPARSE_NODES_MAX */
	struct shlex_buffers *bufs;
	struct shlex_heredoc here[SHLEX_HEREDOCS_MAX];  /**< pending; delims owned */
	size_t n_here;
	struct s2c_error *err;  /**< the first error sticks; may be NULL */
};

/**
 * Record "line N: message" in @p->err unless an error is there already.
 * Returns -EINVAL, so that callers can "return shlex_fail(…)".
 */
int shlex_fail(struct shlex *p, const char *fmt, ...) S2C_PRINTF(2, 3);

/** Count one node or word part; -EINVAL past SHPARSE_NODES_MAX. */
int shlex_count_node(struct shlex *p);

/** One level deeper; -EINVAL past SHPARSE_DEPTH_MAX.  The caller decrements p->depth. */
int shlex_enter(struct shlex *p);

/** The byte @ahead bytes after the position, or -1 past the end. */
int shlex_peekc(const struct shlex *p, size_t ahead);

/** Move @n bytes on (not past the end), counting lines. */
void shlex_advance(struct shlex *p, size_t n);

/** Whether @c (-1 for the end) ends an unquoted word. */
bool shlex_is_meta(int c);

/** Skip blanks, line continuations and a comment (up to, not over, the newline). */
void shlex_skip_blank(struct shlex *p);

/**
 * Skip newlines with the blanks and comments between them, and after each
 * newline the bodies of pending here-documents.  Returns 0, or -EINVAL when
 * a here-document has no end.
 */
int shlex_skip_newlines(struct shlex *p);

/** The operator at the position ("" when none); a static string. */
const char *shlex_peek_op(const struct shlex *p);

/** Whether the operator at the position is exactly @op. */
bool shlex_at_op(const struct shlex *p, const char *op);

/** Whether the text at the position is the reserved word @w as a whole word. */
bool shlex_at_word(const struct shlex *p, const char *w);

/** Whether @c may start a variable name. */
bool shlex_is_name_start(int c);

/** Whether @c may continue a variable name. */
bool shlex_is_name_char(int c);

/** Whether the operator @op (from shlex_peek_op()) is a redirection. */
bool shlex_is_redirect(const char *op);

/*
 * The grammar's recursion, defined in shparse.c: command substitutions
 * (shword.c) and compound commands (shcompound.c) hold command lists, and
 * compound commands take redirections.
 */

/**
 * A compound list: and-or lists separated by ";", "&" or newlines, up to a
 * closing word, ")" or ";;".  Returns 0 with a new SH_LIST in @ret (free with
 * shtree_node_free()), or -errno.
 */
int shparse_list(struct shlex *p, struct sh_node **ret);

/**
 * One redirection at the position (its operator is next), appended to @n's
 * redirections; a here-document's delimiter is queued so that its body is
 * skipped after the next newline.  Returns 0 or -errno.
 */
int shparse_redirect(struct shlex *p, struct sh_node *n);

#endif /* S2C_PKG_SHLEX_H */
