/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"
#include "common.h"

static const char *program = "suid2cap";
static bool color;

void log_set_program(const char *name)
{
	const char *slash = strrchr(name, '/');

	program = slash ? slash + 1 : name;
}

void log_set_color(bool on)
{
	color = on;
}

S2C_PRINTF(3, 0) static void vlog(const char *level, const char *ansi, const char *fmt, va_list ap)
{
	flockfile(stderr);
	(void)fprintf(stderr, "%s: ", program);
	if (level)
		(void)fprintf(stderr, "%s%s:%s ", color ? ansi : "", level, color ? "\033[0m" : "");
	(void)vfprintf(stderr, fmt, ap);
	(void)fputc('\n', stderr);
	funlockfile(stderr);
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error", "\033[1;31m", fmt, ap);
	va_end(ap);
}

void log_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning", "\033[1;33m", fmt, ap);
	va_end(ap);
}

void log_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(NULL, "", fmt, ap);
	va_end(ap);
}

const char *esc(const char *s)
{
	static char bufs[4][16384];
	static unsigned next;
	char *b = bufs[next++ % 4];
	char *e = escape_text(s ? s : "(null)");

	(void)snprintf(b, sizeof(bufs[0]), "%s", e ? e : "?");
	free(e);
	return b;
}

int usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error", "\033[1;31m", fmt, ap);
	va_end(ap);
	if (verb)
		(void)fprintf(stderr, "Try '%s %s --help' for more information.\n", program, verb);
	else
		(void)fprintf(stderr, "Try '%s --help' for more information.\n", program);
	return S2C_EXIT_USAGE;
}
