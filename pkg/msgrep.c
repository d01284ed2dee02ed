/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grep on a file of the package, in the maintainer-script evaluator.  dpkg
 * unpacks every file of the package before postinst runs, and a fresh
 * installation puts each conffile exactly as packed, so `grep -q PATTERN
 * FILE` on a file of the package that the script has not written has the
 * status of the pattern on the packed content.  A conffile may hold the
 * administrator's text instead (an earlier installation removed but not
 * purged, an upgrade): the conffile is remembered (ms_analysis::conffiles),
 * and the reader shows what a changed conffile would install as an
 * alternative, as it does for debconf answers (msread.c reads such files
 * through msgrep_package_text() too).  Anything else (standard
 * input, options that depend on the locale or on other files, text that is
 * not plain ASCII) keeps the status unknown.
 */
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "mscommand.h"
#include "member.h"
#include "util.h"
#include "common.h"

/** What grep is asked to do. */
struct grep_args {
	const char *pattern;    /* borrowed from the call */
	const struct ms_field *file;
	bool extended, fixed, icase, invert;
};

/* Whether @s is plain printable ASCII (tabs allowed): no locale can read it differently. */
static bool plain_ascii(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '\0' || ch >= 0x80 || (ch < 0x20 && ch != '\t' && ch != '\n'))
			return false;
	}
	return true;
}

/* The short options of one word ("-qE"); false for one grep has and this model does not. */
static bool short_options(const char *w, struct grep_args *g, bool *want_pattern)
{
	for (const char *p = w + 1; *p; p++) {
		switch (*p) {
		case 'q': case 's': case 'c': case 'l': case 'H': case 'h': case 'n':
			break;  /* output only: the status is the same */
		case 'E': g->extended = true; g->fixed = false; break;
		case 'G': g->extended = false; g->fixed = false; break;
		case 'F': g->fixed = true; break;
		case 'i': g->icase = true; break;
		case 'v': g->invert = true; break;
		case 'e':
			if (p[1] != '\0')
				return false;  /* -ePATTERN: rare, and not read here */
			*want_pattern = true;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* The words of @c (grep, egrep or fgrep) into @g; false when the model does not cover them. */
static bool parse_args(const struct ms_call *c, struct grep_args *g)
{
	const char *name = member_base_name(c->v[0].s);
	bool want_pattern = false, options = true;
	size_t operands = 0;

	*g = (struct grep_args){ .extended = s2c_streq(name, "egrep"),
				 .fixed = s2c_streq(name, "fgrep") };
	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (!f->known || f->glob)
			return false;
		if (want_pattern) {
			if (g->pattern)
				return false;  /* several patterns: not read here */
			g->pattern = f->s;
			want_pattern = false;
		} else if (options && s2c_streq(f->s, "--")) {
			options = false;
		} else if (options && f->s[0] == '-' && f->s[1] != '\0') {
			if (!short_options(f->s, g, &want_pattern))
				return false;
		} else if (!g->pattern) {
			g->pattern = f->s;
		} else {
			g->file = f;
			operands++;
		}
	}
	return !want_pattern && g->pattern && operands == 1;
}

/* Whether one line of @len bytes at @s holds @g's pattern (compiled in @re unless fixed). */
static bool line_matches(const struct grep_args *g, const regex_t *re, const char *s, size_t len)
{
	_cleanup_free_ char *line = strndup(s, len);

	if (!line)
		return false;
	if (g->fixed)
		return g->icase ? strcasestr(line, g->pattern) != NULL :
				  strstr(line, g->pattern) != NULL;
	return regexec(re, line, 0, NULL, 0) == 0;
}

/* The status of @g on the @len bytes of @text: true when a line is selected. */
static enum ms_st run_on(const struct grep_args *g, const char *text, size_t len)
{
	regex_t re;
	bool any = false;

	if (!g->fixed && regcomp(&re, g->pattern, REG_NOSUB | (g->extended ? REG_EXTENDED : 0) |
				 (g->icase ? REG_ICASE : 0)) != 0)
		return MS_UNKNOWN;      /* grep fails with status 2 on a bad pattern */
	for (size_t at = 0; at < len && !any;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		any = line_matches(g, &re, text + at, n) != g->invert;
		at += n + 1;
	}
	if (!g->fixed)
		regfree(&re);
	return any ? MS_TRUE : MS_FALSE;
}

bool msgrep_conffile(const struct ms_eval *e, const char *path)
{
	const char *p = e->ctx->conffiles;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *slash = memchr(p, '/', n);    /* after flags such as remove-on-upgrade */
		if (slash) {
			size_t k = n - (size_t)(slash - p);
			while (k > 0 && (slash[k - 1] == ' ' || slash[k - 1] == '\t' ||
					 slash[k - 1] == '\r'))
				k--;
			if (k == strlen(path) && memcmp(slash, path, k) == 0)
				return true;
		}
		p = nl ? nl + 1 : p + n;
	}
	return false;
}

char *msgrep_package_text(struct ms_eval *e, const char *path, size_t *ret_len)
{
	char *text;

	if (!msfile_members_known(e)) {
		mseval_strset_add(e, &e->wants, &e->n_wants, path);
		return NULL;
	}
	if (!msfile_unpacked(e, path) || msrun_written(e, path))
		return NULL;
	if (msgrep_conffile(e, path)) {
		if (e->ctx->changed_conffile && s2c_streq(e->ctx->changed_conffile, path))
			return NULL;
		mseval_strset_add(e, &e->conffiles, &e->n_conffiles, path);
	}
	text = msrun_member_text(e, path, ret_len);
	if (!text)
		mseval_strset_add(e, &e->wants, &e->n_wants, path);
	return text;
}

enum ms_st msgrep_grep(struct ms_eval *e, const struct ms_call *c)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	struct grep_args g;
	size_t len = 0;

	/* a pattern of several lines is several patterns; "-" is standard input */
	if (!parse_args(c, &g) || !plain_ascii(g.pattern, strlen(g.pattern)) ||
	    strchr(g.pattern, '\n') || s2c_streq(g.file->s, "-"))
		return MS_UNKNOWN;
	path = msfile_path(e, g.file);
	if (!path)
		return MS_UNKNOWN;
	text = msgrep_package_text(e, path, &len);
	if (!text || !plain_ascii(text, len))
		return MS_UNKNOWN;
	return run_on(&g, text, len);
}
