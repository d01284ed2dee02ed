/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "term.h"
#include "util.h"
#include "common.h"

/* Widest COLUMNS taken as it is; a larger number is a mistake, not a terminal. */
#define COLUMNS_MAX 10000

static enum term_color mode = TERM_COLOR_AUTO;
static bool no_color_env;     /* NO_COLOR set and not empty, or TERM=dumb */
static unsigned columns;      /* COLUMNS, 0 when unset or not a positive number */

void term_init(void)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM"), *cols = getenv("COLUMNS");
	unsigned n;

	no_color_env = !s2c_isempty(nc) || (term && s2c_streq(term, "dumb"));
	columns = cols && parse_uint(cols, COLUMNS_MAX, &n) == 0 ? n : 0;
	log_set_color(term_color(STDERR_FILENO));
}

int term_opt_color(const struct opt *o, const char *arg, const char *verb)
{
	static const char *const words[] = {
		[TERM_COLOR_AUTO] = "auto", [TERM_COLOR_ALWAYS] = "always", [TERM_COLOR_NEVER] = "never",
	};
	size_t i = 0;

	if (s2c_streq(o->long_name, "no-color")) {
		i = TERM_COLOR_NEVER;
	} else {
		while (i < S2C_ELEMENTSOF(words) && !s2c_streq(words[i], arg))
			i++;
		if (i == S2C_ELEMENTSOF(words))
			return usage_error(verb, "unknown color '%s': expected auto, always or never",
					   arg);
	}
	mode = (enum term_color)i;
	log_set_color(term_color(STDERR_FILENO));
	return 0;
}

bool term_color(int fd)
{
	switch (mode) {
	case TERM_COLOR_ALWAYS:
		return true;
	case TERM_COLOR_NEVER:
		return false;
	case TERM_COLOR_AUTO:
	default:
		return !no_color_env && isatty(fd);
	}
}

unsigned term_width(int fd)
{
	struct winsize ws;

	if (columns)
		return columns;
	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}
