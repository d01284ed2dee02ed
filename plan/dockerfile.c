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

int dockerfile_emit(const struct plan *p, const char *image, FILE *out)
{
	size_t changes = 0;

	(void)fputs("# suid2cap: file capabilities instead of set-ID bits for ", out);
	put_comment(out, image);
	(void)fputs("\n# Add on top of that image; setcap must be installed in it (Debian: "
		    "libcap2-bin,\n# Fedora: libcap).  Capabilities go on before the set-ID bit "
		    "goes.\n", out);
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
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_entry *e = &p->v[i];
		char mode[8];

		if (!e->change || !line_safe(e->path))
			continue;
		(void)fputs("; \\\n    ", out);
		/* chown first (numeric: the image's ids): it drops capabilities and set-ID bits. */
		if (e->after.uid != e->before.uid || e->after.gid != e->before.gid) {
			(void)fprintf(out, "chown %" PRIu32 ":%" PRIu32 " ", e->after.uid, e->after.gid);
			put_quoted(out, e->path);
			(void)fputs(" && ", out);
		}
		if (e->after.has_caps && e->after.caps_text) {
			(void)fputs("setcap ", out);
			put_quoted(out, e->after.caps_text);
			(void)fputc(' ', out);
			put_quoted(out, e->path);
			(void)fputs(" && ", out);
		} else if (e->before.has_caps) {
			(void)fputs("setcap -r ", out);
			put_quoted(out, e->path);
			(void)fputs(" && ", out);
		}
		(void)snprintf(mode, sizeof(mode), "%04o", e->after.mode & 07777);
		(void)fprintf(out, "chmod %s ", mode);
		put_quoted(out, e->path);
	}
	(void)fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}
