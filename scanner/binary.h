/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A candidate's content: its SHA-256 and its ELF facts, read through an fd
 * opened beneath the root without symlinks and checked to be the inode the
 * scan saw.  This is the I/O the decision needs, kept out of the engine so
 * that deciding is a pure function of facts, content and rules.
 */
#ifndef S2C_SCANNER_BINARY_H
#define S2C_SCANNER_BINARY_H

#include "cleanup.h"

struct elfinfo;
struct facts;

/** What was read; every member owned. */
struct binary {
	char *sha256;            /**< lowercase hex, NULL when the file could not be read */
	struct elfinfo *elf;     /**< ELF facts (elfinfo.h), NULL when not an ELF file or unreadable */
	char *error;             /**< why there are no ELF facts ("a script", "not an ELF file",
				      "the file changed since it was scanned", …), else NULL */
};

/**
 * What the engine will ask of the content (elfinfo_options): all borrowed,
 * NULL-terminated or NULL.
 */
struct binary_wants {
	const char *const *strings;  /**< literals to look for in read-only data */
	const char *const *prefixes; /**< literals a version follows in read-only data */
	const char *const *symbols;  /**< sorted: the only imports to keep (NULL: all) */
};

/**
 * Read @f's content beneath @rootfd: hash it and read its ELF facts (NEEDED
 * libraries resolved beneath @rootfd, and what @want asks; @want may be NULL).
 * A file that cannot be read, changed since the scan or is not ELF still gets
 * a result, with @ret->error saying why.
 * Returns 0 with @ret filled, or -ENOMEM.
 */
int binary_read(int rootfd, const struct facts *f, const struct binary_wants *want,
		struct binary *ret);

/**
 * binary_read() for a file the walker holds open: @name in the directory
 * @dirfd (no symlink followed), which must still be the inode @f describes.
 * Same results as binary_read().
 */
int binary_read_at(int rootfd, int dirfd, const char *name, const struct facts *f,
		   const struct binary_wants *want, struct binary *ret);

/** Free what @b owns; the struct is zeroed. */
void binary_release(struct binary *b);

#endif /* S2C_SCANNER_BINARY_H */
