/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checked number parsing and byte-string helpers used across layers.
 */
#ifndef S2C_COMMON_UTIL_H
#define S2C_COMMON_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * Parse an unsigned integer in @base (0 = C rules: 0x.., 0..) from the whole
 * of @s (no sign, no surrounding blanks, no trailing junk).
 * @ret  written only on success.
 * Returns 0, -EINVAL on syntax errors, -ERANGE when above @max.
 */
int parse_u64(const char *s, int base, uint64_t max, uint64_t *ret);

/** parse_u64() into an unsigned int with an upper bound of @max. */
int parse_uint(const char *s, unsigned max, unsigned *ret);

/** True when @len bytes at @s are well-formed UTF-8 (no overlongs, no surrogates). */
bool utf8_valid(const char *s, size_t len);

/** Offset of the first byte of @s that is not well-formed UTF-8, or @len. */
size_t utf8_invalid_offset(const char *s, size_t len);

/**
 * Escape a file name for a terminal or a plain-text report: valid UTF-8
 * printable characters are kept, backslash becomes "\\", common controls become
 * "\n", "\t", "\r", and every other byte (controls, DEL, invalid UTF-8) becomes
 * "\xNN".  So a name can never move the cursor, change colours or forge a line.
 * Returns a new string (free() it), or NULL on OOM.
 */
char *escape_text(const char *s);

/**
 * Copy @s with every byte that is not part of valid UTF-8 replaced by U+FFFD,
 * for JSON strings.  Returns a new string (free() it), or NULL on OOM.
 */
char *utf8_sanitise(const char *s);

/** Lowercase hex of @len bytes; @out must hold 2*len+1 bytes. */
void hex_encode(const void *buf, size_t len, char *out);

/**
 * Decode lowercase or uppercase hex @hex (even length) into a new buffer.
 * @ret_buf, @ret_len  written only on success; the buffer is NUL-terminated
 * for convenience (not counted in @ret_len).  Returns 0, -EINVAL, -ENOMEM.
 */
int hex_decode(const char *hex, char **ret_buf, size_t *ret_len);

/**
 * Join @dir and @name with exactly one '/' between them ("/" + "a" = "/a").
 * Returns a new string or NULL on OOM.
 */
char *path_join(const char *dir, const char *name);

#endif /* S2C_COMMON_UTIL_H */
