/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the ELF reader (scanner/elfinfo.h): an object's DT_NEEDED
 * libraries, found beneath a root as ld.so would find them
 * (scanner/ldpath.h: DT_RPATH, DT_RUNPATH with $ORIGIN as for a privileged
 * program, ld.so.conf, the default directories), skipping a candidate of
 * another class or machine, or one that is not ELF or is malformed; the
 * symbols each library imports (and, when asked, exports) are read with
 * scanner/elfsym.h.  Not for use outside the reader (elfinfo.c).
 *
 * Internal: elfinfo elfread elfsym elflibs elfstrings.
 */
#ifndef S2C_SCANNER_ELFLIBS_H
#define S2C_SCANNER_ELFLIBS_H

#include <stdbool.h>
#include <stddef.h>

struct elfinfo;
struct elfinfo_lib;
struct elfinfo_options;
struct s2c_error;

/** One elfinfo_lib in @e per DT_NEEDED entry, not resolved yet.  Returns 0 or -ENOMEM. */
int elflibs_init(struct elfinfo *e);

/**
 * Find each of @e's libraries (the first ELFINFO_LIBS_MAX) beneath
 * o->rootfd and read its symbols; a library not found keeps path NULL.
 * @big_endian  @e's byte order; @max_size  the largest library read.
 * Returns 0, or -errno when the search path cannot be built or a library
 * cannot be read for another reason than not fitting.
 */
int elflibs_resolve(struct elfinfo *e, const struct elfinfo_options *o, bool big_endian,
		    size_t max_size, struct s2c_error *err);

/** Free what @lib holds. */
void elflibs_release(struct elfinfo_lib *lib);

#endif /* S2C_SCANNER_ELFLIBS_H */
