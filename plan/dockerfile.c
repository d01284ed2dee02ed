/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dockerfile.h"
#include "engine.h"
#include "plan.h"
#include "util.h"
#include "common.h"

/* A name a Dockerfile RUN line carries as it is inside single quotes. */
static bool line_safe(const char *s)
{
	if (!s || !utf8_valid(s, strlen(s)))
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return false;
		/* C1 controls, U+0080..U+009F */
		if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			return false;
	}
	return true;
}

/* 'text' for sh, a quote inside as '\'' */
static void put_quoted(FILE *out, const char *s)
{
	(void)fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			(void)fputs("'\\''", out);
		else
			(void)fputc(*s, out);
	}
	(void)fputc('\'', out);
}

static void put_comment(FILE *out, const char *s)
{
	_cleanup_free_ char *e = escape_text(s ? s : "");
	(void)fputs(e ? e : "?", out);
}

/* One command of the RUN line, on a line of its own: @cmd as it is, then @arg (if any)
 * and @path quoted. */
static void put_command(FILE *out, const char *cmd, const char *arg, const char *path)
{
	(void)fprintf(out, "; \\\n    %s ", cmd);
	if (arg) {
		put_quoted(out, arg);
		(void)fputc(' ', out);
	}
	put_quoted(out, path);
}

/*
 * setcap CAPS PATH (or setcap -r PATH), and when it fails a message and the end of the
 * build: every command is a list of its own, as "set -e" does not stop at a failure on
 * the left of "&&", which would leave the file set-ID in an image that builds.
 */
static int put_setcap(FILE *out, const struct plan_entry *e)
{
	_cleanup_free_ char *msg = strdup_printf("suid2cap: setcap failed on %s, stopping the build "
						 "(the file would keep its set-ID bit)", e->path);

	if (!msg)
		return -ENOMEM;
	if (e->after.has_xattr && e->after_names.caps_text)
		put_command(out, "setcap", e->after_names.caps_text, e->path);
	else if (e->id.state.has_xattr)
		put_command(out, "setcap -r", NULL, e->path);
	else
		return 0;
	(void)fputs(" || { printf '%s\\n' ", out);
	put_quoted(out, msg);
	(void)fputs(" >&2; exit 1; }", out);
	return 0;
}

/* The commands for @e: chown first (numeric: the image's ids; it drops capabilities and
 * set-ID bits), then the capabilities, then the mode. */
static int put_entry(FILE *out, const struct plan_entry *e)
{
	char cmd[48];
	int r;

	if (e->after.uid != e->id.state.uid || e->after.gid != e->id.state.gid) {
		(void)snprintf(cmd, sizeof(cmd), "chown %" PRIu32 ":%" PRIu32, e->after.uid,
			       e->after.gid);
		put_command(out, cmd, NULL, e->path);
	}
	r = put_setcap(out, e);
	if (r < 0)
		return r;
	(void)snprintf(cmd, sizeof(cmd), "chmod %04o", e->after.mode & 07777);
	put_command(out, cmd, NULL, e->path);
	return 0;
}

int dockerfile_emit(const struct plan *p, const char *image, FILE *out)
{
	size_t changes = 0;
	int r = 0;

	(void)fputs("# suid2cap: file capabilities instead of set-ID bits for ", out);
	put_comment(out, image);
	(void)fputs("\n# Add on top of that image; setcap must be installed in it (Debian: "
		    "libcap2-bin,\n# Fedora: libcap).  Capabilities go on before the set-ID bit "
		    "goes; the build\n# stops at the first command that fails.\n", out);
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_entry *e = &p->v[i];
		if (!e->change) {
			(void)fprintf(out, "# %s ", verdict_name(e->verdict));
			put_comment(out, e->path);
			(void)fputs(": unchanged\n", out);
		} else if (!line_safe(e->path)) {
			(void)fputs("# left out, its name cannot be written safely: ", out);
			put_comment(out, e->path);
			(void)fputc('\n', out);
		} else {
			changes++;
		}
	}
	if (!changes)
		return ferror(out) ? -EIO : 0;
	(void)fputs("RUN set -e", out);
	for (size_t i = 0; r == 0 && i < p->n; i++)
		if (p->v[i].change && line_safe(p->v[i].path))
			r = put_entry(out, &p->v[i]);
	(void)fputc('\n', out);
	if (r < 0)
		return r;
	return ferror(out) ? -EIO : 0;
}
