/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checked number parsing, byte-string and string-array helpers used across
 * layers.
 */
#ifndef S2C_COMMON_UTIL_H
#define S2C_COMMON_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cleanup.h"
#include "macro.h"

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
 * Decode the UTF-8 sequence at the start of @s (at most @len bytes).
 * @ret_cp  written only on success: the code point.
 * Returns the length of the sequence (1..4), or 0 when it is malformed (overlong,
 * surrogate, above U+10FFFF, truncated) or @len is 0.
 */
size_t utf8_decode(const char *s, size_t len, uint32_t *ret_cp);

/**
 * True for an invisible character that changes how the text around it is shown:
 * a Unicode format control (General_Category Cf, such as the bidi embeddings,
 * overrides and isolates U+202A..U+202E and U+2066..U+2069, the marks U+200E,
 * U+200F and U+061C, zero-width characters and tags) or a line or paragraph
 * separator (U+2028, U+2029).
 */
bool unicode_is_format_control(uint32_t cp);

/**
 * Escape a file name for a terminal or a plain-text report: valid UTF-8
 * printable characters are kept, backslash becomes "\\", common controls become
 * "\n", "\t", "\r", format controls (unicode_is_format_control()) become
 * "\u{202e}" (at least four lowercase hex digits), and every other byte (C0 and
 * C1 controls, DEL, invalid UTF-8) becomes "\xNN".  So a name can never move the
 * cursor, change colours, retitle the terminal, reorder the text around it or
 * forge a line.
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
 * Undo \ooo octal escapes (\000 to \377) in place, as mountinfo(5) and
 * mtree(5) write them (\040 for a space); other backslashes stay.
 */
void unescape_octal(char *s);

/**
 * Join @dir and @name with exactly one '/' between them ("/" + "a" = "/a").
 * Returns a new string or NULL on OOM.
 */
char *path_join(const char *dir, const char *name);

/** Free a NULL-terminated array of strings and the strings; accepts NULL; returns NULL. */
char **strv_free(char **v);

/** Free the first @n strings of @v and @v; accepts NULL. */
void strv_freen(char **v, size_t n);

/**
 * Read @fd to its end into a new buffer, NUL-terminated for convenience (the
 * NUL is not counted in @ret_len).  The buffer grows as data comes, so pipes
 * and files that grow while read work alike; read(2) is retried on EINTR.
 * Returns 0, -EFBIG when there is more than @max bytes, -ENOMEM or -errno.
 */
int read_all(int fd, size_t max, char **ret_buf, size_t *ret_len);

/**
 * read_all() into *@buf, a buffer of *@size bytes (plus one for the NUL) that
 * is grown with realloc(3) as needed and kept for the next call, so that many
 * files read in turn share one allocation (the caller frees *@buf, also after
 * an error).  Returns as read_all().
 */
int read_all_into(int fd, size_t max, char **buf, size_t *size, size_t *ret_len);

/**
 * Make room for @need elements of @size bytes in the array *@v, which has room
 * for *@alloc: its room doubles (from @first, at least 1) until it fits, so that n
 * appends cost O(n) copies.  *@v and *@alloc are unchanged on failure.
 * Returns 0 or -ENOMEM (also when the size overflows).  S2C_ARRAY_RESERVE()
 * (common/macro.h) calls it for a typed array.
 */
int array_reserve(void **v, size_t *alloc, size_t need, size_t size, size_t first);

/**
 * Append @s (taken over; NULL stands for a failed allocation) to the array
 * @v of @n strings, which stays NULL-terminated (strv_free() frees it).
 * Returns 0, or -ENOMEM (@s is freed, @v unchanged).
 */
int strv_push(char ***v, size_t *n, char *s);

/** qsort() comparison of two elements of an array of strings (char *), by strcmp(). */
int strv_cmp(const void *a, const void *b);

/** Whether @s is one of the @n strings of @v. */
bool strv_contains(const char *const *v, size_t n, const char *s);

/**
 * fnmatch(3) of @s against @pattern with @flags (not FNM_CASEFOLD), but a
 * string that does not begin with the pattern's literal start (up to its
 * first '*', '?', '[' or '\\') is refused without it: glibc's fnmatch
 * converts both to wide characters first in a multibyte locale, which most
 * strings are not worth.
 */
bool s2c_fnmatch(const char *pattern, const char *s, int flags);

/** Whether the NUL-terminated string @s ends with @suffix. */
bool str_endswith(const char *s, const char *suffix);

/**
 * The edit distance between @a and @b (insertions, deletions, substitutions,
 * and two neighbours swapped, each one edit: optimal string alignment), for
 * "did you mean" suggestions; SIZE_MAX when @b is 64 bytes or longer.
 */
size_t str_distance(const char *a, const char *b);

/**
 * The word of @words (NULL-terminated) nearest to @typed, when it is at most
 * two edits away (one for a word of four letters or fewer): a slip, not
 * another word; else NULL.  Borrowed from @words.
 */
const char *str_closest(const char *typed, const char *const *words);

/** A new string formatted like printf(3), or NULL when memory ran out. */
S2C_PRINTF(1, 2) char *strdup_printf(const char *format, ...);

/** strdup_printf() with the arguments in @ap (consumed), for functions that pass theirs on. */
S2C_PRINTF(1, 0) char *strdup_vprintf(const char *format, va_list ap);

DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free)

#endif /* S2C_COMMON_UTIL_H */
