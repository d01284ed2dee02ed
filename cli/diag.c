/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
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

/*
 * The formatted message with escape_text() applied to all of it: file names, rule
 * texts and library messages come from the scanned system, and a name must not
 * retitle the terminal, colour the output, reorder the line or forge another one.
 * NULL on OOM.
 */
S2C_PRINTF(1, 0) static char *vformat_escaped(const char *fmt, va_list ap)
{
	_cleanup_free_ char *raw = NULL;
	char *buf;

	if (vasprintf(&buf, fmt, ap) < 0)
		return NULL;    /* buf is undefined then */
	raw = buf;
	return escape_text(raw);
}

S2C_PRINTF(3, 0) static void vlog(const char *level, const char *ansi, const char *fmt, va_list ap)
{
	_cleanup_free_ char *msg = vformat_escaped(fmt, ap);

	flockfile(stderr);
	(void)fprintf(stderr, "%s: ", program);
	/* Only the prefix carries colour; the message is escaped. */
	if (level)
		(void)fprintf(stderr, "%s%s:%s ", color ? ansi : "", level, color ? "\033[0m" : "");
	(void)fputs(msg ? msg : "(message lost: out of memory)", stderr);
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

void print_line(const char *fmt, ...)
{
	_cleanup_free_ char *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	line = vformat_escaped(fmt, ap);
	va_end(ap);
	if (!line) {
		log_error("cannot print a result line: out of memory");
		return;
	}
	(void)fputs(line, stdout);
	(void)fputc('\n', stdout);
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

int error_exit_code(int r)
{
	return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
}

int error_exit(int r, const struct s2c_error *err)
{
	log_error("%s", err && err->msg[0] ? err->msg : strerror(-r));
	return error_exit_code(r);
}

const char *tmp_dir(void)
{
	const char *t = getenv("TMPDIR");

	return t && t[0] == '/' ? t : "/tmp";
}

char *shown_path(const char *path)
{
	_cleanup_free_ char *cwd = NULL;

	if (!path || path[0] == '/')
		return strdup(path ? path : "/");
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return strdup(path);    /* the directory has no name we can give */
	while (path[0] == '.' && path[1] == '/')
		for (path++; *path == '/'; path++)
			;
	if (!*path || s2c_streq(path, "."))
		return TAKE_PTR(cwd);
	return path_join(cwd, path);
}
