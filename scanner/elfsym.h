/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the ELF reader (scanner/elfinfo.h): an object's dynamic symbols
 * and their GNU symbol versions.  .dynsym is read entry by entry; an
 * undefined symbol is an import, with the version .gnu.version and
 * .gnu.version_r require of it; for libraries, defined global and weak
 * functions are exports.  Counts and version records are bounded.  Not for
 * use outside the reader (elfinfo.c, elflibs.c).
 *
 * Internal: elfinfo elfread elfsym elflibs elfstrings.
 */
#ifndef S2C_SCANNER_ELFSYM_H
#define S2C_SCANNER_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <libelf.h>

struct elfinfo_symbol;
struct elfread_sections;
struct s2c_error;

/** One import as found, pointing into libelf's data. */
struct elfsym_raw {
	const char *name, *version;
};

/** An object's symbols as found, before sorting and copying.  Release with elfsym_release(). */
struct elfsym_table {
	bool want_exports;          /**< set by the caller: collect defined functions too */
	struct elfsym_raw *imp;
	size_t n_imp;
	const char **exp;
	size_t n_exp;
	const char **vers;          /**< version index -> name, NULL without .gnu.version_r */
	size_t n_vers;              /**< entries of vers: the highest index named, plus one */
	Elf_Data *versym;           /**< .gnu.version, or NULL */
};

/** Free what @t holds (not the names, which are libelf's). */
void elfsym_release(struct elfsym_table *t);

/**
 * Read the .dynsym of @elf (none is no error) with the versions of
 * .gnu.version and .gnu.version_r into @t, charging every name against
 * @left (elfread_charge()).  Returns 0, -EINVAL for a malformed table, or
 * -ENOMEM.
 */
int elfsym_read(Elf *elf, const struct elfread_sections *s, struct elfsym_table *t, size_t *left,
		struct s2c_error *err);

/**
 * Sort the @n imports at @raw (reordered), drop repeated names (a versioned
 * entry is kept over an unversioned one) and copy them: all, or only those
 * named in @keep (NULL-terminated, sorted by strcmp()) when it is not NULL.
 * @ret, @ret_n  a new array for elfinfo (free with elfsym_free()), written only on success.
 * @ret_all      optional: how many distinct names there are, kept or not.
 * Returns 0 or -ENOMEM.
 */
int elfsym_copy_imports(struct elfsym_raw *raw, size_t n, const char *const *keep,
			struct elfinfo_symbol **ret, size_t *ret_n, size_t *ret_all);

/** Like elfsym_copy_imports() for the @n export names at @raw (free with strv_freen()). */
int elfsym_copy_exports(const char **raw, size_t n, char ***ret, size_t *ret_n);

/** Free the @n symbols at @v and @v; accepts NULL. */
void elfsym_free(struct elfinfo_symbol *v, size_t n);

#endif /* S2C_SCANNER_ELFSYM_H */
