/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A parser for the POSIX shell language as maintainer scripts use it, for
 * analysis only: it builds a syntax tree that maintscript.c evaluates
 * symbolically.  Nothing is ever executed.
 *
 * It covers the grammar of POSIX sh (XCU 2.10): simple commands with
 * assignments and redirections (here-documents are skipped), pipelines, "!",
 * "&&", "||", ";", "&", newlines, "{ }", "( )", if/elif/else, case, for,
 * while, until, function definitions ("name()" and bash's "function name"),
 * and words made of literal text, single and double quotes, backslash
 * escapes, parameter expansions ($x, ${x}, ${x:-word} …), command
 * substitution ($(…) and `…`, parsed recursively) and arithmetic ($((…)),
 * kept as text).  Redirections are kept with their targets; the bodies of
 * here-documents are skipped, except those the shell would expand that hold
 * a command substitution, which are kept with their redirection.  Anything it does not understand is a syntax error, with the
 * line number.
 *
 * The input is untrusted: its size, the nesting depth and the number of
 * nodes are bounded (SHPARSE_*_MAX), so neither memory nor stack grows
 * without limit.
 */
#ifndef S2C_PKG_SHPARSE_H
#define S2C_PKG_SHPARSE_H

#include <stdbool.h>
#include <stddef.h>

struct s2c_error;

/** Largest script parsed, in bytes. */
#define SHPARSE_INPUT_MAX (1u << 20)
/** Deepest nesting of commands, words and substitutions. */
#define SHPARSE_DEPTH_MAX 64
/** Most nodes and word parts in one script. */
#define SHPARSE_NODES_MAX 200000

/** The kinds of word part. */
enum sh_part_kind {
	SH_PART_LIT,            /**< literal text (unquoted: subject to splitting and globbing) */
	SH_PART_PARAM,          /**< $name, ${name}, ${name<op>word}; see sh_part::op */
	SH_PART_CMDSUB,         /**< $(…) or `…`: sh_part::sub */
	SH_PART_ARITH,          /**< $((…)): kept opaque; sh_part::text holds the expression */
};

struct sh_node;

/** One part of a word. */
struct sh_part {
	enum sh_part_kind kind;
	bool quoted;            /**< inside single or double quotes */
	char *text;             /**< LIT: the text; PARAM: the name ("1", "@", "PROGRAM") */
	size_t len, room;       /**< LIT, while the parser appends: strlen(text) and its
				     allocated size (0: text is exactly its length) */
	char op[3];             /**< PARAM: "" for plain, or ":-", "-", ":=", "=", ":+", "+",
				     ":?", "?", "#", "##", "%", "%%", "L" (length, ${#x}) */
	struct sh_word *arg;    /**< PARAM with an op: the word after it, or NULL */
	struct sh_node *sub;    /**< CMDSUB: the command list */
};

/** A word: a sequence of parts. */
struct sh_word {
	struct sh_part *parts;
	size_t n;
	unsigned line;
};

/** Node kinds. */
enum sh_kind {
	SH_SIMPLE,              /**< assignments, words (and skipped redirections) */
	SH_PIPE,                /**< kids = commands; negated for "!" */
	SH_AND,                 /**< kids[0] && kids[1] */
	SH_OR,                  /**< kids[0] || kids[1] */
	SH_LIST,                /**< kids in sequence (";", "&", newline) */
	SH_IF,                  /**< kids[0] condition, kids[1] then, kids[2] else (NULL or IF) */
	SH_CASE,                /**< word; arms */
	SH_FOR,                 /**< name, words (NULL words: "$@"), kids[0] body */
	SH_WHILE,               /**< kids[0] condition, kids[1] body */
	SH_UNTIL,               /**< as WHILE, negated */
	SH_GROUP,               /**< { kids[0] } */
	SH_SUBSHELL,            /**< ( kids[0] ) */
	SH_FUNC,                /**< name, kids[0] body */
};

/** One arm of a case: patterns and the body. */
struct sh_arm {
	struct sh_word *patterns;
	size_t n_patterns;
	struct sh_node *body;   /**< may be NULL (empty arm) */
};

/** A redirection: "> file", "2>&1", "<< EOF" (the here-document's body is not kept). */
struct sh_redir {
	char op[4];             /**< ">", ">>", ">|", "<", "<>", ">&", "<&", "<<", "<<-" */
	struct sh_word target;  /**< the file, descriptor or here-document delimiter */
	char *heredoc;          /**< the body of a here-document the shell expands, when it holds
				     a command substitution ($(…) or `…`), owned; else NULL */
};

/** A variable assignment "name=word" of a simple command. */
struct sh_assign {
	char *name;
	struct sh_word value;
};

/** A node of the syntax tree. */
struct sh_node {
	enum sh_kind kind;
	unsigned line;          /**< first line of the node */
	unsigned line_end;      /**< last line */
	bool negated;           /**< PIPE: "!" */
	struct sh_node **kids;
	size_t n_kids;
	size_t alloc_kids;      /**< room in @kids */
	struct sh_assign *assigns;   /**< SIMPLE */
	size_t n_assigns;
	struct sh_word *words;       /**< SIMPLE: command and arguments; FOR: the list */
	size_t n_words;
	bool has_words;              /**< FOR: an "in" list was given */
	char *name;                  /**< FOR variable, FUNC name */
	struct sh_word *word;        /**< CASE subject */
	struct sh_arm *arms;         /**< CASE */
	size_t n_arms;
	struct sh_redir *redirs;     /**< SIMPLE and compound commands: in order */
	size_t n_redirs;
	const char *src;             /**< SIMPLE: the source text of the command … */
	size_t src_len;              /**< … and its length (borrowed from the parsed text) */
};

/** A parsed script.  Free with sh_script_free(). */
struct sh_script {
	struct sh_node *root;   /**< SH_LIST, never NULL */
	char *text;             /**< the source, owned (nodes point into it) */
	size_t len;
	char **bufs;            /**< unescaped `…` texts, owned (their nodes point into them) */
	size_t n_bufs;
};

/**
 * Parse @len bytes of @text (need not be NUL-terminated; may hold NULs, which
 * are syntax errors).
 * Returns 0 with a new script in @ret, -EINVAL with "line N: message" in @err
 * for a syntax error or a limit passed, -EFBIG for input over
 * SHPARSE_INPUT_MAX, or -ENOMEM.
 */
int sh_parse(const char *text, size_t len, struct sh_script **ret, struct s2c_error *err);

/** Free; accepts NULL; returns NULL. */
struct sh_script *sh_script_free(struct sh_script *s);

#endif /* S2C_PKG_SHPARSE_H */
