/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the ELF reader (scanner/elfinfo.h): what its files share.  A file's
 * bytes (an fd read with pread(2), or a private copy in memory), libelf
 * opened on them, libelf's error channel turned into -EINVAL and a message,
 * the ELF header and section table checked to fit in the file, and the
 * budget of name bytes one object may cost.  Used by elfinfo.c, elfsym.c
 * (symbols and versions), elflibs.c (NEEDED libraries) and elfstrings.c
 * (strings and versions in read-only data); not for use outside them.
 *
 * Internal: elfinfo elfread elfsym elflibs elfstrings.
 */
#ifndef S2C_SCANNER_ELFREAD_H
#define S2C_SCANNER_ELFREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <libelf.h>

#include "cleanup.h"

struct elfinfo;
struct s2c_error;

/** Where the bytes are: a regular file read with pread(2), or memory we own. */
struct elfread_source {
	int fd;                 /**< -1 when in memory */
	unsigned char *mem;     /**< a private copy: elf_memory() takes a non-const image */
	uint64_t size;
};

/** Read up to @len bytes at @off of @src; short only at the end.  Returns the count or -errno. */
ssize_t elfread_bytes(const struct elfread_source *src, uint64_t off, void *buf, size_t len);

/**
 * Open @src with libelf (ELF_C_READ for an fd, so only what is asked for is
 * read and a file truncated under us is a read error, not a SIGBUS).
 * @ret  a handle to elf_end() (see _cleanup_elfend_), written only on success.
 * Returns 0 or -EINVAL when libelf refuses it or it is not an ELF object.
 */
int elfread_open(const struct elfread_source *src, Elf **ret, struct s2c_error *err);

/** elf_end() @elf (may be NULL) without changing errno. */
void elfread_endp(Elf **elf);
/** elf_end() the handle on scope exit. */
#define _cleanup_elfend_ _cleanup_(elfread_endp)

/**
 * Turn libelf's pending error (kept per thread) into -EINVAL and
 * "@what: <libelf's message>" in @err.
 */
int elfread_fail(struct s2c_error *err, const char *what);

/**
 * The ELF header into @e: class, machine (and its name), type; the section
 * and program header tables must fit in @size bytes.
 * @ret_big_endian  the byte order, for the library search (scanner/ldpath.h).
 * Returns 0 or -EINVAL.
 */
int elfread_header(Elf *elf, uint64_t size, struct elfinfo *e, bool *ret_big_endian,
		   struct s2c_error *err);

/** The sections the reader uses: the first of each type, or NULL. */
struct elfread_sections {
	size_t n;               /**< how many section headers there are */
	Elf_Scn *dynamic, *dynsym, *versym, *verneed;
};

/**
 * Find the sections of @elf into @s (zeroed by the caller), each checked to
 * lie within @size bytes, at most a bounded number of them.  Returns 0 or
 * -EINVAL.
 */
int elfread_sections(Elf *elf, uint64_t size, struct elfread_sections *s,
		     struct s2c_error *err);

/**
 * Charge the name @s against @left, an object's remaining budget of name
 * bytes (ELFINFO_NAMES_MAX to start with).  String tables can make many
 * symbols point into one long string, so without a budget the copies could
 * grow quadratically with the file.  Returns 0 or -EINVAL when exhausted.
 */
int elfread_charge(size_t *left, const char *s, struct s2c_error *err);

#endif /* S2C_SCANNER_ELFREAD_H */
