/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sed's one substitution (s/RE/REPLACEMENT/ or s/RE/REPLACEMENT/g) on a line
 * the evaluator knows, as GNU sed computes it.  Only the expressions whose
 * meaning is the same in every POSIX regex (literal characters, ., *, an
 * anchor, \( \) groups) and the replacements of &, \N and escaped characters
 * are taken; anything else is not known (NULL), never guessed.  And cut's
 * one field of such a line (cut -d C -f N).
 */
#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msexpand.h"
#include "util.h"

struct sed_subst {
	char *re;               /**< the expression, its escaped delimiters plain */
	char *repl;             /**< the replacement as written (escapes kept) */
	bool global;
};

/* Characters an expression may hold unescaped: none has another meaning in any dialect. */
static bool plain_char(char c, bool ere)
{
	return c != '\n' && !strchr("[]{}+?|\\", c) && (!ere || (c != '(' && c != ')'));
}

/*
 * Copy the expression of @s (after its delimiter @d) into @out up to the
 * next unescaped @d; returns the character after it, or NULL when the
 * expression holds something whose meaning is not certain.
 */
static const char *take_re(const char *s, char d, bool ere, char *out)
{
	for (; *s && *s != d; s++) {
		if (*s == '\\') {
			s++;
			if (*s == d && !strchr(".*[]^$\\+?(){}|", d))
				*out++ = d;
			else if (*s && strchr(".*[]^$/\\", *s) && *s != d)
				*out++ = '\\', *out++ = *s;
			else if (!ere && (*s == '(' || *s == ')'))
				*out++ = '\\', *out++ = *s;
			else
				return NULL;
		} else if (plain_char(*s, ere) || (ere && (*s == '(' || *s == ')'))) {
			*out++ = *s;
		} else {
			return NULL;
		}
	}
	*out = '\0';
	return *s == d ? s + 1 : NULL;
}

/* The replacement of @s up to the next unescaped @d, checked; its end, or NULL. */
static const char *take_repl(const char *s, char d, char *out)
{
	for (; *s && *s != d; s++) {
		if (*s == '\n')
			return NULL;
		if (*s == '\\') {
			*out++ = *s++;
			if (!*s || !(*s == d || *s == '&' || *s == '\\' || *s == '/' ||
				     (*s >= '0' && *s <= '9')))
				return NULL;
		}
		*out++ = *s;
	}
	*out = '\0';
	return *s == d ? s + 1 : NULL;
}

/* Parse the script @script: one s command; false when it is anything else. */
static bool parse_subst(const char *script, bool ere, struct sed_subst *s)
{
	size_t len = strlen(script);
	const char *p;
	char d;

	if (script[0] != 's' || len < 4)
		return false;
	d = script[1];
	if (d == '\\' || d == '\n' || d == '\0')
		return false;
	s->re = malloc(2 * len + 1);
	s->repl = malloc(len + 1);
	if (!s->re || !s->repl)
		return false;
	p = take_re(script + 2, d, ere, s->re);
	if (p)
		p = take_repl(p, d, s->repl);
	if (!p || (*p && strcmp(p, "g") != 0))
		return false;
	s->global = *p == 'g';
	return true;
}

/* Write the replacement @repl for the match @m of @line to @out; -EINVAL for a missing group. */
static int write_repl(FILE *out, const char *line, const char *repl, const regmatch_t *m,
		      size_t n_groups)
{
	for (const char *r = repl; *r; r++) {
		if (*r == '&' || (*r == '\\' && r[1] >= '0' && r[1] <= '9')) {
			size_t g = *r == '&' ? 0 : (size_t)(*++r - '0');
			if (g > n_groups)
				return -EINVAL;
			if (m[g].rm_so >= 0)
				fwrite(line + m[g].rm_so, 1, (size_t)(m[g].rm_eo - m[g].rm_so), out);
		} else {
			fputc(*r == '\\' ? *++r : *r, out);
		}
	}
	return 0;
}

/* The substitution @s on @line; NULL when not known (an empty match) or on ENOMEM. */
static char *apply(const struct sed_subst *s, bool ere, const char *line)
{
	regex_t re;
	regmatch_t m[10];
	char *text = NULL;
	size_t off = 0, len = strlen(line), text_len = 0;
	bool ok = true;
	FILE *out;

	if (regcomp(&re, s->re, ere ? REG_EXTENDED : 0) != 0)
		return NULL;
	out = open_memstream(&text, &text_len);
	ok = out != NULL;
	while (ok && off <= len && regexec(&re, line + off, 10, m, off ? REG_NOTBOL : 0) == 0) {
		ok = m[0].rm_eo > m[0].rm_so;
		fwrite(line + off, 1, (size_t)m[0].rm_so, out);
		ok = ok && write_repl(out, line + off, s->repl, m, re.re_nsub) == 0;
		off += (size_t)m[0].rm_eo;
		if (!s->global)
			break;
	}
	regfree(&re);
	if (!out)
		return NULL;
	fputs(line + off, out);
	if (fclose(out) != 0 || !ok) {
		free(text);
		return NULL;
	}
	return text;
}

char *mssed_subst(const char *const *args, size_t n, const char *line)
{
	struct sed_subst s = { 0 };
	const char *script = NULL;
	bool ere = false;
	char *out = NULL;

	for (size_t i = 0; i < n; i++) {
		if (s2c_streq(args[i], "-E") || s2c_streq(args[i], "-r"))
			ere = true;
		else if (s2c_streq(args[i], "-e") && i + 1 < n && !script)
			script = args[++i];
		else if (args[i][0] != '-' && !script)
			script = args[i];
		else
			return NULL;
	}
	if (script && !strchr(line, '\n') && parse_subst(script, ere, &s))
		out = apply(&s, ere, line);
	free(s.re);
	free(s.repl);
	return out;
}

/* The number of @s when it is a whole positive decimal one; 0 when not. */
static unsigned field_number(const char *s)
{
	unsigned n = 0;

	if (parse_uint(s, 1000000, &n) < 0 || !*s || strspn(s, "0123456789") != strlen(s))
		return 0;
	return n;
}

char *mssed_cut(const char *const *args, size_t n, const char *line)
{
	const char *delim = NULL, *from;
	unsigned field = 0;

	for (size_t i = 0; i < n; i++) {
		const char *a = args[i];
		if (strncmp(a, "-d", 2) == 0 && !delim)
			delim = a[2] ? a + 2 : i + 1 < n ? args[++i] : NULL;
		else if (strncmp(a, "-f", 2) == 0 && !field)
			field = field_number(a[2] ? a + 2 : i + 1 < n ? args[++i] : "");
		else
			return NULL;
	}
	if (!delim || strlen(delim) != 1 || *delim == '\n' || !field || strchr(line, '\n'))
		return NULL;
	if (!strchr(line, *delim))
		return strdup(line);    /* a line without the delimiter is printed whole */
	from = line;
	for (unsigned k = 1; k < field; k++) {
		from = strchr(from, *delim);
		if (!from)
			return strdup("");
		from++;
	}
	return strndup(from, strcspn(from, delim));
}
