/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "glob.h"
#include "resolve.h"
#include "trust.h"
#include "util.h"
#include "waiver.h"
#include "common.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* "YYYY-MM-DD" naming a real day. */
static bool valid_date(const char *s, size_t len)
{
	static const unsigned days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned y = 0, m, d, max;

	if (len != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (size_t i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
			return false;
	for (size_t i = 0; i < 4; i++)
		y = y * 10 + (unsigned)(s[i] - '0');
	m = (unsigned)(s[5] - '0') * 10 + (unsigned)(s[6] - '0');
	d = (unsigned)(s[8] - '0') * 10 + (unsigned)(s[9] - '0');
	if (y < 1970 || m < 1 || m > 12 || d < 1)
		return false;
	max = days[m - 1];
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		max = 29;
	return d <= max;
}

static int finding_of(const char *id, size_t len)
{
	for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++) {
		const char *known = audit_finding_info((enum audit_finding)k)->id;
		if (strlen(known) == len && strncmp(known, id, len) == 0)
			return (int)k;
	}
	return -EINVAL;
}

/* The end of the blank-separated word at @s; a backslash escapes the next byte. */
static const char *word_end(const char *s)
{
	while (*s && !is_blank(*s)) {
		if (*s == '\\' && s[1])
			s++;
		s++;
	}
	return s;
}

static void waiver_release(struct waiver *w)
{
	free(w->pattern);
	free(w->reason);
	free(w->source);
	memset(w, 0, sizeof(*w));
}

static const char bad_reason[] = "a waiver needs a reason after the path";

/*
 * One line (NUL-terminated, no newline) into @w.  Returns 0 for a waiver, 1
 * for a blank or comment line, -ENOMEM, or -EINVAL with the problem in @why.
 */
static int parse_line(const char *line, struct waiver *w, const char **why)
{
	const char *s = line, *e;
	int k;

	for (const char *p = line; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) {
			*why = "a control character in the line";
			return -EINVAL;
		}
	if (!utf8_valid(line, strlen(line))) {
		*why = "not valid UTF-8";
		return -EINVAL;
	}
	while (is_blank(*s))
		s++;
	if (!*s || *s == '#')
		return 1;
	e = word_end(s);
	k = finding_of(s, (size_t)(e - s));
	if (k < 0) {
		*why = "expected a finding id (S2C001 to S2C008) first";
		return -EINVAL;
	}
	w->finding = (unsigned)k;
	for (s = e; is_blank(*s); s++)
		;
	if (!*s) {
		*why = "a path or glob must follow the finding id";
		return -EINVAL;
	}
	e = word_end(s);
	w->pattern = strndup(s, (size_t)(e - s));
	if (!w->pattern)
		return -ENOMEM;
	if ((*why = glob_invalid(w->pattern)))
		return -EINVAL;             /* the message names the pattern */
	for (s = e; is_blank(*s); s++)
		;
	if (strncmp(s, "expires=", 8) == 0) {
		e = word_end(s);
		if (!valid_date(s + 8, (size_t)(e - s - 8))) {
			*why = "the expiry date must be a day written YYYY-MM-DD";
			return -EINVAL;
		}
		memcpy(w->expires, s + 8, 10);
		w->expires[10] = '\0';
		for (s = e; is_blank(*s); s++)
			;
	}
	e = s + strlen(s);
	while (e > s && is_blank(e[-1]))
		e--;
	if (e == s) {
		*why = bad_reason;
		return -EINVAL;
	}
	w->reason = strndup(s, (size_t)(e - s));
	return w->reason ? 0 : -ENOMEM;
}

/* Record problem @why of line @lineno in @l->problems, the first one also in @err. */
static int problem(struct waiver_list *l, const char *display, size_t lineno, const char *pattern,
		   const char *why, struct s2c_error *err)
{
	char *p = pattern ? strdup_printf("'%s' line %zu: '%s': %s", display, lineno, pattern, why)
			  : strdup_printf("'%s' line %zu: %s", display, lineno, why);

	if (p && !err->msg[0])
		(void)s2c_error_set(err, -EINVAL, "%s", p);
	return strv_push(&l->problems, &l->n_problems, p);
}

/* Append @w to @add, which has room for @alloc.  Returns 0 or -ENOMEM. */
static int add_waiver(struct waiver_list *add, size_t *alloc, const struct waiver *w)
{
	if (S2C_ARRAY_RESERVE(add->v, *alloc, add->n + 1, 8) < 0)
		return -ENOMEM;
	add->v[add->n++] = *w;
	return 0;
}

/* One line: 1 (a blank or a comment), 0 (@w filled), -EINVAL (a problem recorded), -ENOMEM. */
static int parse_one(struct waiver_list *l, char *line, size_t lineno, const char *display,
		     struct waiver *w, struct s2c_error *err)
{
	const char *why = NULL;
	int r;

	if (*line && line[strlen(line) - 1] == '\r')
		line[strlen(line) - 1] = '\0';
	r = parse_line(line, w, &why);
	if (r == -EINVAL) {
		bool named = w->pattern && !w->reason && why != bad_reason;
		r = problem(l, display, lineno, named ? w->pattern : NULL, why, err);
		return r < 0 ? r : -EINVAL;
	}
	if (r == 0 && asprintf(&w->source, "%s line %zu", display, lineno) < 0) {
		w->source = NULL;
		r = -ENOMEM;
	}
	return r;
}

int waiver_parse(struct waiver_list *l, const char *data, size_t len, const char *display,
		 struct s2c_error *err)
{
	struct s2c_error first = { 0 };
	struct waiver_list add = { 0 };
	size_t lineno = 0, alloc = 0;
	bool bad = false;
	int r = 0;

	/* Every line is read, so that every malformed one is named at once. */
	for (size_t pos = 0; pos < len && r != -ENOMEM; lineno++) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - data) : len;
		_cleanup_free_ char *line = NULL;
		struct waiver w = { 0 };

		if (memchr(data + pos, '\0', end - pos)) {
			r = problem(l, display, lineno + 1, NULL, "a NUL byte in the line", &first);
			bad = true;
			pos = end + 1;
			continue;
		}
		line = strndup(data + pos, end - pos);
		pos = end + 1;
		r = line ? parse_one(l, line, lineno + 1, display, &w, &first) : -ENOMEM;
		bad |= r == -EINVAL;
		if (r == 0)
			r = add_waiver(&add, &alloc, &w);
		if (r != 0)
			waiver_release(&w);
	}
	if (r != -ENOMEM && bad)
		r = s2c_error_set(err, -EINVAL, "%s", first.msg);
	else if (r != -ENOMEM && add.n) {
		struct waiver *v = reallocarray(l->v, l->n + add.n, sizeof(*v));
		if (!v)
			r = -ENOMEM;
		else {
			memcpy(v + l->n, add.v, add.n * sizeof(*v));
			l->v = v;
			l->n += add.n;
			free(add.v);
			return 0;
		}
	} else if (r != -ENOMEM)
		r = 0;
	waiver_list_release(&add);
	return r;
}

int waiver_load(struct waiver_list *l, int dirfd, const char *path, const char *display,
		bool beneath, bool trusted, struct s2c_error *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int r;

	if (beneath)
		fd = resolve_open(dirfd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	else if ((fd = openat(dirfd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) < 0)
		fd = -errno;
	if (fd == -ENOENT && beneath)
		return 0;
	if (fd == -ELOOP && beneath)
		return s2c_error_set(err, fd, "waivers file '%s' is or passes through a symbolic "
				     "link, refusing it", display);
	if (fd < 0)
		return s2c_error_errno(err, fd, "cannot open waivers file '%s'", display);
	if (fstat(fd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat waivers file '%s'", display);
	if (!S_ISREG(st.st_mode))
		return s2c_error_set(err, -EINVAL, "waivers file '%s' is not a regular file", display);
	if (trusted) {
		r = trust_check(st.st_uid, st.st_mode, TRUST_SHARED, "waivers file", display, err);
		if (r < 0)
			return r;
	}
	if (st.st_size > WAIVER_FILE_MAX)
		return s2c_error_set(err, -EINVAL, "waivers file '%s' is larger than %d bytes",
				     display, WAIVER_FILE_MAX);
	r = read_all(fd, WAIVER_FILE_MAX, &buf, &len);
	if (r == -EFBIG)
		return s2c_error_set(err, -EINVAL, "waivers file '%s' is larger than %d bytes",
				     display, WAIVER_FILE_MAX);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot read waivers file '%s'", display);
	r = waiver_parse(l, buf, len, display, err);
	return r < 0 ? r : 1;
}

bool waiver_expired(const struct waiver *w, const char *today)
{
	return w->expires[0] && today && strncmp(today, w->expires, 10) > 0;
}

bool waiver_matches(const struct waiver *w, unsigned finding, const char *path)
{
	return w->finding == finding && glob_match(w->pattern, path);
}

void waiver_list_release(struct waiver_list *l)
{
	for (size_t i = 0; l->v && i < l->n; i++)
		waiver_release(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
	l->problems = strv_free(l->problems);
	l->n_problems = 0;
}
