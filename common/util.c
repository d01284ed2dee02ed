/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Length of the UTF-8 sequence at s (1..4), or 0 when it is malformed. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
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
	return n;
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
	char *out = malloc(len * 4 + 1);
	char *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq(p + i, len - i);

		if (n > 1) {
			/* C1 controls (U+0080..U+009F) are escaped like C0 ones. */
			if (!(n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)) {
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
