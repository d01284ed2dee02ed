/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the ELF reader (scanner/elfinfo.h): literals looked for in an
 * object's read-only data, and the version that follows a prefix ("beep "
 * in "beep 1.4.9").  Read-only data is every allocated, non-writable,
 * non-executable SHT_PROGBITS section, or without section headers (sstrip)
 * every read-only, non-executable PT_LOAD segment.  Its raw bytes are
 * streamed in bounded chunks, a literal straddling two chunks included,
 * instead of asking libelf for a copy of each whole section.  Not for use
 * outside the reader (elfinfo.c).
 *
 * Internal: elfinfo elfread elfsym elflibs elfstrings.
 */
#ifndef S2C_SCANNER_ELFSTRINGS_H
#define S2C_SCANNER_ELFSTRINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <libelf.h>

struct elfinfo;
struct elfread_source;
struct s2c_error;

/**
 * Make room in @e for the results: elfinfo::strings_found, one per literal
 * of the NULL-terminated @strings (when given), and elfinfo::prefix_values,
 * one per prefix of @prefixes (when given).  Returns 0 or -ENOMEM.
 */
int elfstrings_init(struct elfinfo *e, const char *const *strings, const char *const *prefixes);

/**
 * Search the read-only data of @elf (@n_sections section headers; 0: the
 * segments instead), whose bytes @src holds, for @strings and @prefixes
 * (NULL-terminated, or NULL).
 * @found   parallel to @strings: set true for each literal found, or NULL.
 * @values  parallel to @prefixes: a new string with the version after the
 *          first occurrence of each prefix followed by one, or left NULL.
 * Returns 0, -EINVAL when the data lies outside the file, -EIO or another
 * read error, or -ENOMEM.
 */
int elfstrings_find(Elf *elf, size_t n_sections, const struct elfread_source *src,
		    const char *const *strings, const char *const *prefixes, bool *found,
		    char **values, struct s2c_error *err);

#endif /* S2C_SCANNER_ELFSTRINGS_H */
