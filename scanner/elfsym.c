/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dynamic symbols and their versions: .dynsym with .gnu.version and
 * .gnu.version_r, sorted and copied for elfinfo; elfinfo_imports() looks
 * one up.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elfinfo.h"
#include "elfread.h"
#include "elfsym.h"
#include "util.h"
#include "common.h"

#define VERSYM_INDEX 0x7fff     /* a .gnu.version entry: index, plus the "hidden" bit 15 */
#define VERNEED_MAX 65536       /* most .gnu.version_r records walked in one object */

void elfsym_free(struct elfinfo_symbol *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].version);
	}
	free(v);
}

/*
 * vers[index] = name, the table grown to the index: an object names a few
 * versions with small indexes, so a table of every possible index (32768
 * pointers, zeroed for each library of each candidate) would be mostly waste.
 */
static int vers_set(struct elfsym_table *t, size_t index, const char *name)
{
	if (index >= t->n_vers) {
		const char **nv = reallocarray(t->vers, index + 1, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		memset(nv + t->n_vers, 0, (index + 1 - t->n_vers) * sizeof(*nv));
		t->vers = nv;
		t->n_vers = index + 1;
	}
	t->vers[index] = name;
	return 0;
}

/* Record the names of one .gnu.version_r entry's versions. */
static int read_vernaux(Elf *elf, Elf_Data *d, size_t link, uint64_t off, unsigned cnt,
			struct elfsym_table *t, size_t *walked, struct s2c_error *err)
{
	for (unsigned j = 0; j < cnt; j++) {
		GElf_Vernaux va;
		const char *name;

		if (++*walked > VERNEED_MAX)
			return s2c_error_set(err, -EINVAL, "more than %d symbol version records",
					     VERNEED_MAX);
		if (off > INT_MAX || !gelf_getvernaux(d, (int)off, &va))
			return elfread_fail(err, "cannot read .gnu.version_r");
		name = elf_strptr(elf, link, va.vna_name);
		if (!name)
			return elfread_fail(err, "invalid symbol version name");
		if (vers_set(t, va.vna_other & VERSYM_INDEX, name) < 0)
			return -ENOMEM;
		if (va.vna_next == 0)
			break;
		off += va.vna_next;
	}
	return 0;
}

/* Map version indexes to the names in .gnu.version_r (borrowed from libelf) in @t. */
static int read_verneed(Elf *elf, Elf_Scn *scn, struct elfsym_table *t, struct s2c_error *err)
{
	size_t walked = 0;
	uint64_t off = 0;
	GElf_Shdr sh;
	Elf_Data *d;

	if (!gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)))
		return elfread_fail(err, "cannot read .gnu.version_r");
	for (size_t i = 0; i < sh.sh_info; i++) {
		GElf_Verneed vn;
		int r;

		if (++walked > VERNEED_MAX)
			return s2c_error_set(err, -EINVAL, "more than %d symbol version records",
					     VERNEED_MAX);
		if (off > INT_MAX || !gelf_getverneed(d, (int)off, &vn))
			return elfread_fail(err, "cannot read .gnu.version_r");
		r = read_vernaux(elf, d, sh.sh_link, off + vn.vn_aux, vn.vn_cnt, t, &walked, err);
		if (r < 0)
			return r;
		if (vn.vn_next == 0)
			break;
		off += vn.vn_next;
	}
	return 0;
}

void elfsym_release(struct elfsym_table *t)
{
	free(t->imp);
	free(t->exp);
	free(t->vers);
}

static const char *version_of(const struct elfsym_table *t, size_t i)
{
	GElf_Versym v;

	if (!t->versym || !t->vers || !gelf_getversym(t->versym, (int)i, &v) ||
	    (size_t)(v & VERSYM_INDEX) >= t->n_vers)
		return NULL;
	return t->vers[v & VERSYM_INDEX];
}

static bool is_export(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info), bind = GELF_ST_BIND(sym->st_info);

	return sym->st_shndx != SHN_UNDEF && (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       (bind == STB_GLOBAL || bind == STB_WEAK);
}

/* One .dynsym entry into @t when it is an import (or a wanted export). */
static int add_symbol(Elf *elf, const GElf_Shdr *sh, const GElf_Sym *sym, size_t i,
		      struct elfsym_table *t, size_t *left, struct s2c_error *err)
{
	bool import = sym->st_shndx == SHN_UNDEF;
	const char *name;
	int r;

	if (!import && !(t->want_exports && is_export(sym)))
		return 0;
	name = elf_strptr(elf, sh->sh_link, sym->st_name);
	if (!name)
		return elfread_fail(err, "invalid dynamic symbol name");
	if (!*name)
		return 0;
	r = elfread_charge(left, name, err);
	if (r < 0)
		return r;
	if (import)
		t->imp[t->n_imp++] = (struct elfsym_raw){ name, version_of(t, i) };
	else
		t->exp[t->n_exp++] = name;
	return 0;
}

/* .dynsym, with versions from .gnu.version and .gnu.version_r. */
int elfsym_read(Elf *elf, const struct elfread_sections *s, struct elfsym_table *t, size_t *left,
		struct s2c_error *err)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT), n;
	GElf_Shdr sh;
	Elf_Data *d;

	if (!s->dynsym)
		return 0;
	if (!gelf_getshdr(s->dynsym, &sh) || !(d = elf_getdata(s->dynsym, NULL)) || entsize == 0)
		return elfread_fail(err, "cannot read .dynsym");
	n = d->d_size / entsize;
	if (n > ELFINFO_SYMBOLS_MAX)
		return s2c_error_set(err, -EINVAL, "%zu dynamic symbols, more than %d", n,
				     ELFINFO_SYMBOLS_MAX);
	if (s->versym && !(t->versym = elf_getdata(s->versym, NULL)))
		return elfread_fail(err, "cannot read .gnu.version");
	if (s->verneed) {
		int r = read_verneed(elf, s->verneed, t, err);
		if (r < 0)
			return r;
	}
	/* Room for every symbol, filled only as far as n_imp and n_exp: not zeroed,
	 * so the pages of a large .dynsym (libc) that few imports use are never touched. */
	t->imp = reallocarray(NULL, n ? n : 1, sizeof(*t->imp));
	if (t->want_exports)
		t->exp = reallocarray(NULL, n ? n : 1, sizeof(*t->exp));
	if (!t->imp || (t->want_exports && !t->exp))
		return -ENOMEM;
	for (size_t i = 1; i < n; i++) {        /* entry 0 is the null symbol */
		GElf_Sym sym;
		int r;

		if (!gelf_getsym(d, (int)i, &sym))
			return elfread_fail(err, "cannot read dynamic symbol");
		r = add_symbol(elf, &sh, &sym, i, t, left, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* By name; for equal names a versioned entry sorts first, so it is the one kept. */
static int cmp_rawsym(const void *a, const void *b)
{
	const struct elfsym_raw *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c || (!x->version && !y->version))
		return c;
	if (!x->version || !y->version)
		return x->version ? -1 : 1;
	return strcmp(x->version, y->version);
}

/* Whether @name is one of the sorted, NULL-terminated @keep (NULL: all are). */
static bool kept(const char *const *keep, size_t n_keep, const char *name)
{
	return !keep || (n_keep && bsearch(&name, keep, n_keep, sizeof(*keep), strv_cmp));
}

/* Whether @raw[@i] (sorted) is the first entry of its name, a versioned one if any. */
static bool first_of_name(const struct elfsym_raw *raw, size_t i)
{
	return i == 0 || !s2c_streq(raw[i - 1].name, raw[i].name);
}

int elfsym_copy_imports(struct elfsym_raw *raw, size_t n, const char *const *keep,
			struct elfinfo_symbol **ret, size_t *ret_n, size_t *ret_all)
{
	size_t n_keep = 0, k = 0, all = 0, want = 0;
	struct elfinfo_symbol *v;

	while (keep && keep[n_keep])
		n_keep++;
	if (n)
		qsort(raw, n, sizeof(*raw), cmp_rawsym);
	for (size_t i = 0; i < n; i++)
		if (first_of_name(raw, i)) {
			all++;
			want += kept(keep, n_keep, raw[i].name);
		}
	v = calloc(want ? want : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n && k < want; i++) {
		if (!first_of_name(raw, i) || !kept(keep, n_keep, raw[i].name))
			continue;
		v[k].name = strdup(raw[i].name);
		v[k].version = raw[i].version ? strdup(raw[i].version) : NULL;
		if (!v[k].name || (raw[i].version && !v[k].version)) {
			elfsym_free(v, k + 1);
			return -ENOMEM;
		}
		k++;
	}
	*ret = v;
	*ret_n = k;
	if (ret_all)
		*ret_all = all;
	return 0;
}

int elfsym_copy_exports(const char **raw, size_t n, char ***ret, size_t *ret_n)
{
	char **v = calloc(n ? n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	if (n)
		qsort(raw, n, sizeof(*raw), strv_cmp);
	for (size_t i = 0; i < n; i++) {
		if (k && s2c_streq(v[k - 1], raw[i]))
			continue;
		v[k] = strdup(raw[i]);
		if (!v[k]) {
			strv_freen(v, k);
			return -ENOMEM;
		}
		k++;
	}
	*ret = v;
	*ret_n = k;
	return 0;
}

static int cmp_symbol_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct elfinfo_symbol *)elem)->name);
}

static bool imports_sorted(const struct elfinfo_symbol *v, size_t n, const char *symbol)
{
	return n && bsearch(symbol, v, n, sizeof(*v), cmp_symbol_name);
}

bool elfinfo_imports(const struct elfinfo *e, const char *symbol)
{
	return imports_sorted(e->imports, e->n_imports, symbol);
}

bool elfinfo_lib_imports(const struct elfinfo_lib *lib, const char *symbol)
{
	return imports_sorted(lib->imports, lib->n_imports, symbol);
}
