/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One option driver for every verb, after git's parse-options: a verb lists
 * its options in tables of `struct opt` (shared groups such as the scanning
 * or the apply options are tables of their own), and opts_parse() parses
 * argv against them, checks the operand count the dispatch table declares,
 * refuses options a table says exclude each other, handles --help (generated
 * from the same tables, so it cannot drift from what is parsed) and
 * --version, and reports every usage error the same way.
 */
#ifndef S2C_CLI_OPTS_H
#define S2C_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cmd;
struct opt;

/** What an option does with its argument. */
enum opt_kind {
	OPT_KIND_END,          /**< ends a table */
	OPT_KIND_TABLE,        /**< @value is another table (a shared group) */
	OPT_KIND_BOOL,         /**< sets the bool at @value */
	OPT_KIND_SET_INT,      /**< stores @defval into the int at @value */
	OPT_KIND_STRING,       /**< stores the argument into the const char * at @value */
	OPT_KIND_LIST,         /**< appends the argument to the struct opt_list at @value */
	OPT_KIND_CALLBACK,     /**< calls @cb (with or without an argument, see @argh) */
	OPT_KIND_CHOICE,       /**< stores the index of the argument in @choices into the int at
				    @value; anything else is a usage error */
};

/**
 * Called for OPT_KIND_CALLBACK options.  @arg is NULL for options without an
 * argument.  Returns 0, or S2C_EXIT_USAGE after printing with usage_error().
 */
typedef int (*opt_cb)(const struct opt *o, const char *arg, const char *verb);

/** One option. */
struct opt {
	enum opt_kind kind;
	char short_name;       /**< 'o', or 0 */
	const char *long_name; /**< "output" */
	void *value;           /**< where the result goes (see enum opt_kind) */
	const char *argh;      /**< the argument's name in --help ("FILE"); NULL: no argument */
	const char *help;      /**< one line (or more) for --help; NULL: not shown (test builds) */
	intptr_t defval;       /**< OPT_KIND_SET_INT: the value stored */
	opt_cb cb;             /**< OPT_KIND_CALLBACK */
	unsigned excl;         /**< options with the same non-zero group exclude each other */
	const char *const *choices; /**< OPT_KIND_CHOICE: the accepted words, NULL-terminated */
};

/** Most values of one repeatable option. */
#define OPT_LIST_MAX 64

/** A repeatable option's values, pointing into argv; @v is NULL-terminated. */
struct opt_list {
	const char *v[OPT_LIST_MAX + 1];
	size_t n;
};

#define OPT_END() { .kind = OPT_KIND_END }
#define OPT_TABLE(t) { .kind = OPT_KIND_TABLE, .value = (void *)(t) }
#define OPT_BOOL(s, l, v, h) { .kind = OPT_KIND_BOOL, .short_name = (s), .long_name = (l), \
			       .value = (v), .help = (h) }
#define OPT_SET_INT(l, v, i, h) { .kind = OPT_KIND_SET_INT, .long_name = (l), .value = (v), \
				  .defval = (i), .help = (h) }
#define OPT_STRING(s, l, v, a, h) { .kind = OPT_KIND_STRING, .short_name = (s), \
				    .long_name = (l), .value = (v), .argh = (a), .help = (h) }
#define OPT_LIST(l, v, a, h) { .kind = OPT_KIND_LIST, .long_name = (l), .value = (v), \
			       .argh = (a), .help = (h) }
#define OPT_CALLBACK(l, v, a, h, f) { .kind = OPT_KIND_CALLBACK, .long_name = (l), \
				      .value = (v), .argh = (a), .help = (h), .cb = (f) }
#define OPT_CHOICE(l, v, c, a, h) { .kind = OPT_KIND_CHOICE, .long_name = (l), .value = (v), \
				    .choices = (c), .argh = (a), .help = (h) }
/** Give @o the exclusion group @g (a designated-initializer tail: OPT_BOOL(...) with .excl). */
#define OPT_EXCL(g) .excl = (g)

/**
 * Parse @argv (argv[0] is the verb) against the options of @table and its
 * nested tables, then check the operand count against @c's min and max.
 * @intro  the paragraph --help prints before the options; text after a '\f' in
 *         it is printed after them (exit statuses, notes).
 * @ret_first  set to the index of the first operand (>= 1) when the verb should
 *             run, or to 0 when --help or --version was printed; written only
 *             when 0 is returned.
 * Returns 0, or an exit code (S2C_EXIT_USAGE) after printing the error.  So a
 * verb begins with `r = opts_parse(..., &first); if (r || !first) return r;`.
 */
int opts_parse(const struct cmd *c, const struct opt *table, const char *intro, int argc,
	       char **argv, int *ret_first);

/** Write the --help text of @c (usage line, @intro, the options) to @out. */
void opts_help(const struct cmd *c, const struct opt *table, const char *intro, FILE *out);

/**
 * The long options of @table, one per line as "--name" (for the test that
 * compares the help with the man page).  Writes to @out.
 */
void opts_list(const struct opt *table, FILE *out);

/** An OPT_KIND_CALLBACK for a repeatable absolute path (into an opt_list). */
int opts_absolute_path(const struct opt *o, const char *arg, const char *verb);

#endif /* S2C_CLI_OPTS_H */
