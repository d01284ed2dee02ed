/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the output allows: how wide a table may be (COLUMNS, else the width of
 * the terminal written to, else no limit) and whether to colour (--color,
 * NO_COLOR, TERM=dumb).  The environment is read here, in cli/, once; the
 * renderers in report/ get the result as options.
 */
#ifndef S2C_CLI_TERM_H
#define S2C_CLI_TERM_H

#include <stdbool.h>

#include "opts.h"

/** --color WHEN, in the order of its words. */
enum term_color {
	TERM_COLOR_AUTO,    /**< on a terminal, unless NO_COLOR is set or TERM is dumb */
	TERM_COLOR_ALWAYS,
	TERM_COLOR_NEVER,
};

/**
 * Read NO_COLOR, TERM and COLUMNS, and let stderr's message prefixes be
 * coloured as auto decides.  main() calls it once, before any verb.
 */
void term_init(void);

/**
 * The callback of --color WHEN (auto, always or never) and of --no-color (the
 * same as --color=never): sets how every output of the run is coloured, the
 * messages on stderr included.  The last one given wins.
 */
int term_opt_color(const struct opt *o, const char *arg, const char *verb);

/** The --color option of every verb that colours its output. */
#define TERM_OPT_COLOR \
	OPT_CALLBACK("color", NULL, "WHEN", "colour the output: auto (on a terminal unless\n" \
		     "NO_COLOR is set; the default), always or never", term_opt_color)

/** Whether what is written to @fd is coloured: --color, or for auto, a terminal and no NO_COLOR. */
bool term_color(int fd);

/**
 * The columns a table written to @fd may take: COLUMNS when it is a positive
 * number, else the width of the terminal when @fd is one, else 0 for no limit
 * (a pipe or a file gets the whole table).
 */
unsigned term_width(int fd);

#endif /* S2C_CLI_TERM_H */
