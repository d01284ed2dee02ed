/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "common.h"

int parse_u64(const char *s, int base, uint64_t max, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (s2c_isempty(s) || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE || v > max)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_uint(const char *s, unsigned max, unsigned *ret)
{
	uint64_t v;
	int r = parse_u64(s, 10, max, &v);

	if (r < 0)
		return r;
	*ret = (unsigned)v;
	return 0;
}

/* Length of the UTF-8 sequence at s (1..4) with its code point, or 0 when it is malformed. */
static size_t utf8_seq_cp(const unsigned char *s, size_t len, uint32_t *ret_cp)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80) {
		*ret_cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0;
	*ret_cp = cp;
	return n;
}

static size_t utf8_seq(const unsigned char *s, size_t len)
{
	uint32_t cp;

	return utf8_seq_cp(s, len, &cp);
}

size_t utf8_decode(const char *s, size_t len, uint32_t *ret_cp)
{
	return len ? utf8_seq_cp((const unsigned char *)s, len, ret_cp) : 0;
}

/*
 * Unicode format controls (General_Category Cf, Unicode 15) and the line and paragraph
 * separators (Zl, Zp): invisible, yet they reorder (bidi embeddings, overrides, isolates,
 * marks), join, hide (tags, zero-width characters) or break the text around them.
 */
static const struct { uint32_t lo, hi; } format_controls[] = {
	{ 0x00ad, 0x00ad },   /* soft hyphen */
	{ 0x0600, 0x0605 },   /* Arabic number signs */
	{ 0x061c, 0x061c },   /* ARABIC LETTER MARK */
	{ 0x06dd, 0x06dd },
	{ 0x070f, 0x070f },
	{ 0x0890, 0x0891 },
	{ 0x08e2, 0x08e2 },
	{ 0x180e, 0x180e },   /* MONGOLIAN VOWEL SEPARATOR */
	{ 0x200b, 0x200f },   /* zero width space, non-joiner, joiner; LRM, RLM */
	{ 0x2028, 0x202e },   /* line and paragraph separators; LRE, RLE, PDF, LRO, RLO */
	{ 0x2060, 0x2064 },   /* word joiner, invisible operators */
	{ 0x2066, 0x206f },   /* LRI, RLI, FSI, PDI; deprecated format characters */
	{ 0xfeff, 0xfeff },   /* zero width no-break space (BOM) */
	{ 0xfff9, 0xfffb },   /* interlinear annotation */
	{ 0x110bd, 0x110bd },
	{ 0x110cd, 0x110cd },
	{ 0x13430, 0x1343f }, /* Egyptian hieroglyph format controls */
	{ 0x1bca0, 0x1bca3 }, /* shorthand format controls */
	{ 0x1d173, 0x1d17a }, /* musical symbol beam and slur controls */
	{ 0xe0001, 0xe0001 }, /* LANGUAGE TAG */
	{ 0xe0020, 0xe007f }, /* tag characters */
};

bool unicode_is_format_control(uint32_t cp)
{
	for (size_t i = 0; i < S2C_ELEMENTSOF(format_controls); i++) {
		if (cp < format_controls[i].lo)
			return false;
		if (cp <= format_controls[i].hi)
			return true;
	}
	return false;
}

size_t utf8_invalid_offset(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq(p + i, len - i);
		if (!n)
			return i;
		i += n;
	}
	return len;
}

bool utf8_valid(const char *s, size_t len)
{
	return utf8_invalid_offset(s, len) == len;
}

char *escape_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	/* At most four bytes out for each byte in: "\xNN" for one, "\u{00ad}" for two. */
	size_t size = len * 4 + 1;
	char *out = malloc(size);
	char *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_seq_cp(p + i, len - i, &cp);

		if (n > 1) {
			if (unicode_is_format_control(cp)) {
				o += snprintf(o, size - (size_t)(o - out), "\\u{%04" PRIx32 "}", cp);
				i += n;
				continue;
			}
			/* C1 controls (U+0080..U+009F) are escaped byte by byte like C0 ones. */
			if (cp >= 0xa0) {
				memcpy(o, p + i, n);
				o += n, i += n;
				continue;
			}
			n = 1;
		}
		if (n == 1 && p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
			*o++ = (char)p[i++];
			continue;
		}
		switch (p[i]) {
		case '\\': memcpy(o, "\\\\", 2), o += 2; break;
		case '\n': memcpy(o, "\\n", 2), o += 2; break;
		case '\t': memcpy(o, "\\t", 2), o += 2; break;
		case '\r': memcpy(o, "\\r", 2), o += 2; break;
		default:
			(void)snprintf(o, 5, "\\x%02x", p[i]);
			o += 4;
		}
		i++;
	}
	*o = '\0';
	return out;
}

char *utf8_sanitise(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	char *out = malloc(len * 3 + 1);
	char *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq(p + i, len - i);

		if (n) {
			memcpy(o, p + i, n);
			o += n, i += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3, i++;
		}
	}
	*o = '\0';
	return out;
}

void hex_encode(const void *buf, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 0xf];
	}
	out[2 * len] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void unescape_octal(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

int hex_decode(const char *hex, char **ret_buf, size_t *ret_len)
{
	size_t len = strlen(hex);
	_cleanup_free_ char *buf = NULL;

	if (len % 2)
		return -EINVAL;
	buf = malloc(len / 2 + 1);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < len / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		buf[i] = (char)(hi << 4 | lo);
	}
	buf[len / 2] = '\0';
	*ret_len = len / 2;
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

char *path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *out;

	while (dl > 0 && dir[dl - 1] == '/')
		dl--;
	while (*name == '/')
		name++, nl--;
	out = malloc(dl + nl + 2);
	if (!out)
		return NULL;
	memcpy(out, dir, dl);
	out[dl] = '/';
	memcpy(out + dl + 1, name, nl + 1);
	return out;
}

char **strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
	return NULL;
}

int read_all_into(int fd, size_t max, char **buf, size_t *size, size_t *ret_len)
{
	size_t len = 0;

	for (;;) {
		ssize_t n;

		if (len == *size) {
			size_t grown;
			char *nb;
			if (*size > max)
				return -EFBIG;
			grown = S2C_MIN(*size ? 2 * *size : (size_t)65536, max + 1);
			nb = realloc(*buf, grown + 1);
			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*size = grown;
		}
		n = read(fd, *buf + len, *size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max)
		return -EFBIG;
	(*buf)[len] = '\0';
	*ret_len = len;
	return 0;
}

int read_all(int fd, size_t max, char **ret_buf, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	int r = read_all_into(fd, max, &buf, &size, ret_len);

	if (r < 0)
		return r;
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

int strv_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool strv_contains(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (s2c_streq(v[i], s))
			return true;
	return false;
}

bool s2c_fnmatch(const char *pattern, const char *s, int flags)
{
	size_t lit = strcspn(pattern, "*?[\\");

	if (strncmp(pattern, s, lit) != 0)
		return false;
	if (!pattern[lit])
		return s[lit] == '\0';
	return fnmatch(pattern, s, flags) == 0;
}

bool str_endswith(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

int array_reserve(void **v, size_t *alloc, size_t need, size_t size, size_t first)
{
	size_t na = *alloc ? *alloc : S2C_MAX(first, (size_t)1);
	void *nv;

	if (need <= *alloc)
		return 0;
	while (na < need) {
		if (na > SIZE_MAX / 2)
			return -ENOMEM;
		na *= 2;
	}
	if (size && na > SIZE_MAX / size)
		return -ENOMEM;         /* before reallocarray(), which sanitizers abort on */
	nv = reallocarray(*v, na, size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*alloc = na;
	return 0;
}

int strv_push(char ***v, size_t *n, char *s)
{
	char **nv;

	if (!s)
		return -ENOMEM;
	nv = realloc(*v, (*n + 2) * sizeof(*nv));
	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	*v = nv;
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
	return 0;
}

size_t str_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t rows[3][64], *prev2 = rows[0], *prev = rows[1], *row = rows[2];

	if (lb >= S2C_ELEMENTSOF(rows[0]))
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);

			row[j] = S2C_MIN(S2C_MIN(prev[j] + 1, row[j - 1] + 1), sub);
			/* two neighbours swapped: one slip, not two */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				row[j] = S2C_MIN(row[j], prev2[j - 2] + 1);
		}
		t = prev2;
		prev2 = prev;
		prev = row;
		row = t;
	}
	return prev[lb];
}

const char *str_closest(const char *typed, const char *const *words)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;

	for (size_t i = 0; words && words[i]; i++) {
		size_t d = str_distance(typed, words[i]);
		if (d < best_d) {
			best_d = d;
			best = words[i];
		}
	}
	/* Two slips in a short word make another word ("yaml" is not "html"). */
	return best_d <= (strlen(typed) <= 4 ? 1u : 2u) ? best : NULL;
}

char *strdup_vprintf(const char *format, va_list ap)
{
	char *s = NULL;

	return vasprintf(&s, format, ap) < 0 ? NULL : s;
}

char *strdup_printf(const char *format, ...)
{
	va_list ap;
	char *s;

	va_start(ap, format);
	s = strdup_vprintf(format, ap);
	va_end(ap);
	return s;
}

void strv_freen(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}
