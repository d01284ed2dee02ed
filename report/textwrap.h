/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How the text reports lay out their lines: the columns a string takes on a
 * terminal, padding, and text (already escaped) wrapped between words at a
 * width, after a lead and below it.
 */
#ifndef S2C_REPORT_TEXTWRAP_H
#define S2C_REPORT_TEXTWRAP_H

#include <stdio.h>

#include "macro.h"

#define TEXTWRAP_BOLD "\033[1m"
#define TEXTWRAP_RESET "\033[0m"

/** Columns @s takes on a terminal: one per UTF-8 sequence (escaped text is printable). */
size_t textwrap_width(const char *s);

/** Spaces from column @have to column @want. */
void textwrap_pad(FILE *out, size_t have, size_t want);

/**
 * Write @text (already escaped) wrapped at @width: every line starting with
 * @indent spaces and the first one with @lead after them, in colour @color
 * (an escape sequence, or "").
 */
void textwrap_wrap(FILE *out, const char *color, const char *lead, const char *text,
		   unsigned indent, unsigned width);

/**
 * Write the words of @text (already escaped) after a space on a line that
 * has @col columns already; a word that would pass @width starts a new line
 * indented @indent.  Then end the line.
 */
void textwrap_words_from(FILE *out, const char *text, size_t col, size_t indent,
			 unsigned width);

/**
 * A header line: @lead, then @fmt's text escaped and wrapped below the lead
 * at @width.  Returns 0 or -ENOMEM.
 */
int textwrap_line(FILE *out, unsigned width, const char *lead, const char *fmt, ...)
	S2C_PRINTF(4, 5);

#endif /* S2C_REPORT_TEXTWRAP_H */
