/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textwrap.h"
#include "util.h"
#include "common.h"

/* Columns @len bytes of @s take on a terminal: one per UTF-8 sequence (escaped text is printable). */
static size_t width_n(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

size_t textwrap_width(const char *s)
{
	return width_n(s, strlen(s));
}

void textwrap_pad(FILE *out, size_t have, size_t want)
{
	for (; have < want; have++)
		(void)fputc(' ', out);
}

/*
 * Write the words of @text (already escaped) on a line that has @col columns
 * already, each after a space (the first one too when @space_first); a word
 * that would pass @width starts a new line indented @indent.  Then end the
 * line.
 */
static void words(FILE *out, const char *text, size_t col, size_t indent, unsigned width,
		  bool space_first)
{
	bool first = true;

	for (const char *p = text; *p; first = false) {
		const char *w = p;
		size_t len, wlen;

		while (*p && *p != ' ')
			p++;
		len = (size_t)(p - w);
		wlen = width_n(w, len);
		if (col > indent && col + 1 + wlen > width) {
			(void)fputc('\n', out);
			textwrap_pad(out, 0, indent);
			col = indent;
		} else if (space_first || !first) {
			(void)fputc(' ', out);
			col++;
		}
		(void)fwrite(w, 1, len, out);
		col += wlen;
		while (*p == ' ')
			p++;
	}
	(void)fputc('\n', out);
}

/*
 * Write @text (already escaped) wrapped at @width: every line starting with
 * @indent spaces and the first one with @lead after them, in colour @color
 * (an escape sequence, or "").
 */
void textwrap_wrap(FILE *out, const char *color, const char *lead, const char *text,
		 unsigned indent, unsigned width)
{
	size_t start = indent + textwrap_width(lead);

	textwrap_pad(out, 0, indent);
	(void)fprintf(out, "%s%s%s", color, lead, *color ? TEXTWRAP_RESET : "");
	words(out, text, start, start, width, false);
}

/* words() after a space, for text that goes on after something on the line. */
void textwrap_words_from(FILE *out, const char *text, size_t col, size_t indent, unsigned width)
{
	words(out, text, col, indent, width, true);
}

/* A header line: @lead, then @fmt's text escaped and wrapped below the lead at @width. */
int textwrap_line(FILE *out, unsigned width, const char *lead, const char *fmt, ...)
{
	_cleanup_free_ char *raw = NULL, *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	raw = strdup_vprintf(fmt, ap);
	va_end(ap);
	text = raw ? escape_text(raw) : NULL;
	if (!text)
		return -ENOMEM;
	textwrap_wrap(out, "", lead, text, 0, width);
	return 0;
}

