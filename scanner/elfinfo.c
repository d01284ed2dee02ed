/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ELF reader.  libelf parses every structure; this file decides what to
 * ask, bounds the answers and turns libelf's error channel (elf_errno(),
 * elf_errmsg()) into -errno plus a message at the boundary of each call.
 *
 * Files are read through an fd with ELF_C_READ, so libelf pread(2)s only the
 * parts asked for and a file truncated under us yields a read error, not the
 * SIGBUS an mmap would.  The fuzzer's bytes go through elf_memory() on a
 * private copy.  The string search streams the raw bytes of read-only data
 * sections in bounded chunks instead of asking elf_getdata() for a copy of
 * each whole section.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfinfo.h"
#include "ldpath.h"
#include "common.h"

#define HEAD_SIZE 256           /* the kernel reads at most this much of a "#!" line */
#define INTERP_MAX 4096         /* longest PT_INTERP accepted */
#define PHDRS_MAX 65536         /* most program headers accepted */
#define SECTIONS_MAX (1 << 20)  /* most section headers accepted */
#define VERSYM_INDEX 0x7fff     /* a .gnu.version entry: index, plus the "hidden" bit 15 */
#define VERNEED_MAX 65536       /* most .gnu.version_r records walked in one object */
#define SCAN_CHUNK (64 << 10)   /* bytes read at a time by the string search */
#define PREFIX_VALUE_MAX 32     /* longest version read after a prefix */

static void elfendp(Elf **elf)
{
	if (*elf) {
		int saved = errno;
		(void)elf_end(*elf);
		errno = saved;
	}
}
/** elf_end() the handle on scope exit. */
#define _cleanup_elfend_ _cleanup_(elfendp)

/* elf_version() sets library state; pthread_once() makes that thread-safe. */
static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;

static void libelf_init(void)
{
	/* Cannot fail with the libelf we were built against; if it did,
	 * elf_begin() reports "no version set" and we pass that on. */
	(void)elf_version(EV_CURRENT);
}

/* Turn libelf's pending error into -EINVAL and "@what: <libelf message>". */
static int elf_fail(struct s2c_error *err, const char *what)
{
	int e = elf_errno();    /* libelf keeps it per thread */

	return s2c_error_set(err, -EINVAL, "%s: %s", what, e ? elf_errmsg(e) : "malformed ELF file");
}

/* Where the bytes are: a regular file read with pread(2), or memory we own. */
struct source {
	int fd;                 /* -1 when in memory */
	unsigned char *mem;     /* a private copy: elf_memory() takes a non-const image */
	uint64_t size;
};

/* Read up to @len bytes at @off; short only at the end.  Returns the count or -errno. */
static ssize_t source_read(const struct source *src, uint64_t off, void *buf, size_t len)
{
	size_t done = 0;

	if (off >= src->size)
		return 0;
	len = (size_t)S2C_MIN((uint64_t)len, src->size - off);
	if (src->mem) {
		memcpy(buf, src->mem + off, len);
		return (ssize_t)len;
	}
	while (done < len) {
		ssize_t n = pread(src->fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int open_elf(const struct source *src, Elf **ret, struct s2c_error *err)
{
	_cleanup_elfend_ Elf *elf = NULL;

	(void)pthread_once(&libelf_once, libelf_init);
	if (src->mem)
		elf = elf_memory((char *)src->mem, (size_t)src->size);
	else
		elf = elf_begin(src->fd, ELF_C_READ, NULL);
	if (!elf)
		return elf_fail(err, "cannot read ELF file");
	if (elf_kind(elf) != ELF_K_ELF)
		return s2c_error_set(err, -EINVAL, "malformed ELF header");
	*ret = TAKE_PTR(elf);
	return 0;
}

static void symbols_free(struct elfinfo_symbol *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].version);
	}
	free(v);
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void lib_release(struct elfinfo_lib *lib)
{
	free(lib->soname);
	free(lib->path);
	symbols_free(lib->imports, lib->n_imports);
	strv_free(lib->exports, lib->n_exports);
}

struct elfinfo *elfinfo_free(struct elfinfo *e)
{
	if (!e)
		return NULL;
	free(e->script_interp);
	free(e->interp);
	strv_free(e->needed, e->n_needed);
	free(e->rpath);
	free(e->runpath);
	symbols_free(e->imports, e->n_imports);
	for (size_t i = 0; i < e->n_libs; i++)
		lib_release(&e->libs[i]);
	free(e->libs);
	free(e->strings_found);
	free(e->soname);
	strv_free(e->prefix_values, e->n_prefix_values);
	free(e);
	return NULL;
}

/*
 * Charge @s against the per-object budget of name bytes.  String tables can
 * make many symbols point into one long string, so without a budget the
 * copies could grow quadratically with the file.
 */
static int charge(size_t *left, const char *s, struct s2c_error *err)
{
	size_t len = strnlen(s, *left);

	if (len >= *left)
		return s2c_error_set(err, -EINVAL, "symbol and library names exceed %d MiB",
				     ELFINFO_NAMES_MAX >> 20);
	*left -= len + 1;
	return 0;
}

/*
 * libelf reads a section header table that does not fit in the file as "no
 * sections" and cuts a program header table at the end of the file, so a
 * truncated file would pass for a static one.  Refuse both.
 */
static int check_tables(Elf *elf, const GElf_Ehdr *eh, uint64_t size, struct s2c_error *err)
{
	size_t shent = gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT), shnum, need;
	size_t phent = gelf_fsize(elf, ELF_T_PHDR, 1, EV_CURRENT), phnum;

	if (elf_getshdrnum(elf, &shnum) < 0)
		return elf_fail(err, "cannot count section headers");
	if (elf_getphdrnum(elf, &phnum) < 0)
		return elf_fail(err, "cannot count program headers");
	need = S2C_MAX(S2C_MAX(shnum, (size_t)eh->e_shnum), (size_t)1);
	if ((eh->e_shoff || eh->e_shnum) &&
	    (!eh->e_shoff || eh->e_shentsize != shent || eh->e_shoff > size ||
	     (size - eh->e_shoff) / shent < need))
		return s2c_error_set(err, -EINVAL, "section header table does not fit in the file");
	if ((eh->e_phoff || eh->e_phnum) &&
	    (!eh->e_phoff || eh->e_phentsize != phent || eh->e_phoff > size ||
	     (size - eh->e_phoff) / phent < phnum ||
	     (eh->e_phnum == PN_XNUM ? phnum < PN_XNUM : phnum != eh->e_phnum)))
		return s2c_error_set(err, -EINVAL, "program header table does not fit in the file");
	return 0;
}

/* The ELF header: class, machine, type; the header tables must fit in @size bytes. */
static int read_header(Elf *elf, uint64_t size, struct elfinfo *e, bool *ret_big_endian,
		       struct s2c_error *err)
{
	int cls = gelf_getclass(elf);
	GElf_Ehdr eh;
	int r;

	if (cls != ELFCLASS32 && cls != ELFCLASS64)
		return s2c_error_set(err, -EINVAL, "unknown ELF class %d", cls);
	if (!gelf_getehdr(elf, &eh))
		return elf_fail(err, "cannot read ELF header");
	r = check_tables(elf, &eh, size, err);
	if (r < 0)
		return r;
	e->elf_class = cls == ELFCLASS64 ? 64 : 32;
	e->machine = eh.e_machine;
	e->elf_type = eh.e_type;
	*ret_big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	e->machine_name = ldpath_machine_name(e->machine, e->elf_class, *ret_big_endian);
	return 0;
}

static int read_interp(Elf *elf, const GElf_Phdr *ph, struct elfinfo *e, struct s2c_error *err)
{
	Elf_Data *d;

	if (ph->p_filesz == 0 || ph->p_filesz > INTERP_MAX || ph->p_offset > INT64_MAX)
		return s2c_error_set(err, -EINVAL, "PT_INTERP has an invalid size or offset");
	d = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, (size_t)ph->p_filesz, ELF_T_BYTE);
	if (!d)
		return elf_fail(err, "cannot read PT_INTERP");
	e->interp = strndup(d->d_buf, d->d_size);
	return e->interp ? 0 : -ENOMEM;
}

/* Program headers: PT_INTERP. */
static int read_phdrs(Elf *elf, struct elfinfo *e, struct s2c_error *err)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) < 0)
		return elf_fail(err, "cannot count program headers");
	if (n > PHDRS_MAX)
		return s2c_error_set(err, -EINVAL, "%zu program headers, more than %d", n, PHDRS_MAX);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		int r;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return elf_fail(err, "cannot read program header");
		if (ph.p_type != PT_INTERP || e->interp)
			continue;
		r = read_interp(elf, &ph, e, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The sections this reader uses: the first of each type. */
struct sections {
	size_t n;
	Elf_Scn *dynamic, *dynsym, *versym, *verneed;
};

static int find_sections(Elf *elf, uint64_t size, struct sections *s, struct s2c_error *err)
{
	Elf_Scn *scn = NULL;

	if (elf_getshdrnum(elf, &s->n) < 0)
		return elf_fail(err, "cannot count section headers");
	if (s->n > SECTIONS_MAX)
		return s2c_error_set(err, -EINVAL, "%zu sections, more than %d", s->n, SECTIONS_MAX);
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Scn **slot = NULL;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return elf_fail(err, "cannot read section header");
		if (sh.sh_type != SHT_NOBITS && (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset))
			return s2c_error_set(err, -EINVAL, "section %zu does not fit in the file",
					     elf_ndxscn(scn));
		switch (sh.sh_type) {
		case SHT_DYNAMIC: slot = &s->dynamic; break;
		case SHT_DYNSYM: slot = &s->dynsym; break;
		case SHT_GNU_versym: slot = &s->versym; break;
		case SHT_GNU_verneed: slot = &s->verneed; break;
		default: break;
		}
		if (slot && !*slot)
			*slot = scn;
	}
	return 0;
}

/* Copy the string at @off of string section @link, charged against @left. */
static int dyn_string(Elf *elf, size_t link, uint64_t off, size_t *left, char **ret,
		      struct s2c_error *err)
{
	const char *s = off <= SIZE_MAX ? elf_strptr(elf, link, (size_t)off) : NULL;
	int r;

	if (!s)
		return elf_fail(err, "invalid string in .dynamic");
	r = charge(left, s, err);
	if (r < 0)
		return r;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

/* One .dynamic entry; DT_NEEDED goes to e->needed, which has room. */
static int dyn_entry(Elf *elf, size_t link, const GElf_Dyn *dyn, struct elfinfo *e,
		     bool *df1_pie, size_t *left, struct s2c_error *err)
{
	switch (dyn->d_tag) {
	case DT_NEEDED:
		return dyn_string(elf, link, dyn->d_un.d_val, left, &e->needed[e->n_needed++], err);
	case DT_RPATH:
		return e->rpath ? 0 : dyn_string(elf, link, dyn->d_un.d_val, left, &e->rpath, err);
	case DT_RUNPATH:
		return e->runpath ? 0 : dyn_string(elf, link, dyn->d_un.d_val, left, &e->runpath, err);
	case DT_SONAME:
		return e->soname ? 0 : dyn_string(elf, link, dyn->d_un.d_val, left, &e->soname, err);
	case DT_FLAGS_1:
		*df1_pie = *df1_pie || (dyn->d_un.d_val & DF_1_PIE);
		return 0;
	default:
		return 0;
	}
}

/* .dynamic: DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH, DT_FLAGS_1. */
static int read_dynamic(Elf *elf, Elf_Scn *scn, struct elfinfo *e, bool *df1_pie, size_t *left,
			struct s2c_error *err)
{
	size_t entsize = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT), count, needed = 0;
	GElf_Shdr sh;
	Elf_Data *d;

	if (!gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)) || entsize == 0)
		return elf_fail(err, "cannot read .dynamic");
	count = S2C_MIN(d->d_size / entsize, (size_t)INT_MAX);
	/* First count DT_NEEDED, so the array is allocated once and bounded. */
	for (size_t i = 0; i < count; i++) {
		GElf_Dyn dyn;

		if (!gelf_getdyn(d, (int)i, &dyn))
			return elf_fail(err, "cannot read .dynamic entry");
		if (dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag == DT_NEEDED && ++needed > ELFINFO_NEEDED_MAX)
			return s2c_error_set(err, -EINVAL, "more than %d DT_NEEDED entries",
					     ELFINFO_NEEDED_MAX);
	}
	e->needed = calloc(needed ? needed : 1, sizeof(*e->needed));
	if (!e->needed)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++) {
		GElf_Dyn dyn;
		int r;

		if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL ||
		    (dyn.d_tag == DT_NEEDED && e->n_needed >= needed))
			break;
		r = dyn_entry(elf, sh.sh_link, &dyn, e, df1_pie, left, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Record the names of one .gnu.version_r entry's versions: vers[index] = name. */
static int read_vernaux(Elf *elf, Elf_Data *d, size_t link, uint64_t off, unsigned cnt,
			const char **vers, size_t *walked, struct s2c_error *err)
{
	for (unsigned j = 0; j < cnt; j++) {
		GElf_Vernaux va;
		const char *name;

		if (++*walked > VERNEED_MAX)
			return s2c_error_set(err, -EINVAL, "more than %d symbol version records",
					     VERNEED_MAX);
		if (off > INT_MAX || !gelf_getvernaux(d, (int)off, &va))
			return elf_fail(err, "cannot read .gnu.version_r");
		name = elf_strptr(elf, link, va.vna_name);
		if (!name)
			return elf_fail(err, "invalid symbol version name");
		vers[va.vna_other & VERSYM_INDEX] = name;
		if (va.vna_next == 0)
			break;
		off += va.vna_next;
	}
	return 0;
}

/* Map version indexes to the names in .gnu.version_r (borrowed from libelf). */
static int read_verneed(Elf *elf, Elf_Scn *scn, const char ***ret, struct s2c_error *err)
{
	_cleanup_free_ const char **vers = NULL;
	size_t walked = 0;
	uint64_t off = 0;
	GElf_Shdr sh;
	Elf_Data *d;

	if (!gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)))
		return elf_fail(err, "cannot read .gnu.version_r");
	vers = calloc(VERSYM_INDEX + 1, sizeof(*vers));
	if (!vers)
		return -ENOMEM;
	for (size_t i = 0; i < sh.sh_info; i++) {
		GElf_Verneed vn;
		int r;

		if (++walked > VERNEED_MAX)
			return s2c_error_set(err, -EINVAL, "more than %d symbol version records",
					     VERNEED_MAX);
		if (off > INT_MAX || !gelf_getverneed(d, (int)off, &vn))
			return elf_fail(err, "cannot read .gnu.version_r");
		r = read_vernaux(elf, d, sh.sh_link, off + vn.vn_aux, vn.vn_cnt, vers, &walked, err);
		if (r < 0)
			return r;
		if (vn.vn_next == 0)
			break;
		off += vn.vn_next;
	}
	*ret = TAKE_PTR(vers);
	return 0;
}

/* Symbols as found, pointing into libelf's data, before sorting and copying. */
struct rawsym {
	const char *name, *version;
};

struct symtab {
	bool want_exports;      /* libraries: collect defined functions too */
	struct rawsym *imp;
	size_t n_imp;
	const char **exp;
	size_t n_exp;
	const char **vers;      /* version index -> name, NULL without .gnu.version_r */
	Elf_Data *versym;       /* .gnu.version, or NULL */
};

static void symtab_release(struct symtab *t)
{
	free(t->imp);
	free(t->exp);
	free(t->vers);
}

static const char *version_of(const struct symtab *t, size_t i)
{
	GElf_Versym v;

	if (!t->versym || !t->vers || !gelf_getversym(t->versym, (int)i, &v))
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
		      struct symtab *t, size_t *left, struct s2c_error *err)
{
	bool import = sym->st_shndx == SHN_UNDEF;
	const char *name;
	int r;

	if (!import && !(t->want_exports && is_export(sym)))
		return 0;
	name = elf_strptr(elf, sh->sh_link, sym->st_name);
	if (!name)
		return elf_fail(err, "invalid dynamic symbol name");
	if (!*name)
		return 0;
	r = charge(left, name, err);
	if (r < 0)
		return r;
	if (import)
		t->imp[t->n_imp++] = (struct rawsym){ name, version_of(t, i) };
	else
		t->exp[t->n_exp++] = name;
	return 0;
}

/* .dynsym, with versions from .gnu.version and .gnu.version_r. */
static int read_dynsym(Elf *elf, const struct sections *s, struct symtab *t, size_t *left,
		       struct s2c_error *err)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT), n;
	GElf_Shdr sh;
	Elf_Data *d;

	if (!s->dynsym)
		return 0;
	if (!gelf_getshdr(s->dynsym, &sh) || !(d = elf_getdata(s->dynsym, NULL)) || entsize == 0)
		return elf_fail(err, "cannot read .dynsym");
	n = d->d_size / entsize;
	if (n > ELFINFO_SYMBOLS_MAX)
		return s2c_error_set(err, -EINVAL, "%zu dynamic symbols, more than %d", n,
				     ELFINFO_SYMBOLS_MAX);
	if (s->versym && !(t->versym = elf_getdata(s->versym, NULL)))
		return elf_fail(err, "cannot read .gnu.version");
	if (s->verneed) {
		int r = read_verneed(elf, s->verneed, &t->vers, err);
		if (r < 0)
			return r;
	}
	t->imp = calloc(n ? n : 1, sizeof(*t->imp));
	if (t->want_exports)
		t->exp = calloc(n ? n : 1, sizeof(*t->exp));
	if (!t->imp || (t->want_exports && !t->exp))
		return -ENOMEM;
	for (size_t i = 1; i < n; i++) {        /* entry 0 is the null symbol */
		GElf_Sym sym;
		int r;

		if (!gelf_getsym(d, (int)i, &sym))
			return elf_fail(err, "cannot read dynamic symbol");
		r = add_symbol(elf, &sh, &sym, i, t, left, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* By name; for equal names a versioned entry sorts first, so it is the one kept. */
static int cmp_rawsym(const void *a, const void *b)
{
	const struct rawsym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c || (!x->version && !y->version))
		return c;
	if (!x->version || !y->version)
		return x->version ? -1 : 1;
	return strcmp(x->version, y->version);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sort, drop duplicate names, copy. */
static int copy_imports(struct rawsym *raw, size_t n, struct elfinfo_symbol **ret, size_t *ret_n)
{
	struct elfinfo_symbol *v = calloc(n ? n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	if (n)
		qsort(raw, n, sizeof(*raw), cmp_rawsym);
	for (size_t i = 0; i < n; i++) {
		if (k && s2c_streq(v[k - 1].name, raw[i].name))
			continue;
		v[k].name = strdup(raw[i].name);
		v[k].version = raw[i].version ? strdup(raw[i].version) : NULL;
		if (!v[k].name || (raw[i].version && !v[k].version)) {
			symbols_free(v, k + 1);
			return -ENOMEM;
		}
		k++;
	}
	*ret = v;
	*ret_n = k;
	return 0;
}

static int copy_exports(const char **raw, size_t n, char ***ret, size_t *ret_n)
{
	char **v = calloc(n ? n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	if (n)
		qsort(raw, n, sizeof(*raw), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (k && s2c_streq(v[k - 1], raw[i]))
			continue;
		v[k] = strdup(raw[i]);
		if (!v[k]) {
			strv_free(v, k);
			return -ENOMEM;
		}
		k++;
	}
	*ret = v;
	*ret_n = k;
	return 0;
}

/* The literals searched for (first the plain strings, then the prefixes whose
 * following version is wanted), and how far the search got. */
struct needles {
	const char *const *v;           /* n plain strings, then n - nplain prefixes */
	size_t *len;
	size_t n, nplain, left, maxlen; /* maxlen >= 1; a prefix counts with PREFIX_VALUE_MAX */
	bool *found;                    /* n */
	char **values;                  /* n - nplain: the versions after the prefixes */
	int error;                      /* -ENOMEM while copying a value */
	unsigned char *buf;             /* SCAN_CHUNK + maxlen bytes, for fd sources */
};

/* A version: a digit, then digits, letters and . + ~ _ - */
static size_t version_span(const unsigned char *p, size_t len)
{
	size_t n = 0;

	if (!len || p[0] < '0' || p[0] > '9')
		return 0;
	while (n < len && n < PREFIX_VALUE_MAX &&
	       ((p[n] >= '0' && p[n] <= '9') || (p[n] >= 'a' && p[n] <= 'z') ||
		(p[n] >= 'A' && p[n] <= 'Z') || strchr(".+~_-", p[n])) && p[n])
		n++;
	return n;
}

/* @final: nothing of the range follows the @len bytes at @p. */
static void match(struct needles *nd, const unsigned char *p, size_t len, bool final)
{
	for (size_t i = 0; i < nd->n; i++) {
		const unsigned char *at = NULL, *from = p;
		size_t rest = len;

		if (nd->found[i])
			continue;
		if (i < nd->nplain) {
			if (memmem(p, len, nd->v[i], nd->len[i])) {
				nd->found[i] = true;
				nd->left--;
			}
			continue;
		}
		/* A prefix: the first occurrence followed by a version. */
		while (rest >= nd->len[i] && (at = memmem(from, rest, nd->v[i], nd->len[i]))) {
			const unsigned char *v = at + nd->len[i];
			size_t avail = len - (size_t)(v - p), n;

			/* The version may go on in the next chunk, which starts with these bytes. */
			if (!final && avail < PREFIX_VALUE_MAX)
				break;
			n = version_span(v, avail);
			if (n) {
				char *copy = strndup((const char *)v, n);
				if (!copy) {
					nd->error = -ENOMEM;
					return;
				}
				nd->values[i - nd->nplain] = copy;
				nd->found[i] = true;
				nd->left--;
				break;
			}
			rest = len - (size_t)(at + 1 - p);
			from = at + 1;
		}
	}
}

/* Search [off, off + len), which lies within the file, in bounded chunks. */
static int scan_range(const struct source *src, uint64_t off, uint64_t len, struct needles *nd)
{
	size_t keep = 0;

	if (src->mem) {
		match(nd, src->mem + off, (size_t)len, true);
		return nd->error;
	}
	while (len > 0 && nd->left > 0) {
		ssize_t n = source_read(src, off, nd->buf + keep,
					(size_t)S2C_MIN(len, (uint64_t)SCAN_CHUNK));
		size_t total;

		if (n <= 0)
			return n < 0 ? (int)n : -EIO;   /* the file shrank under us */
		total = keep + (size_t)n;
		match(nd, nd->buf, total, (uint64_t)n == len);
		if (nd->error)
			return nd->error;
		/* A literal may straddle two chunks: carry the last maxlen - 1 bytes over. */
		keep = S2C_MIN(total, nd->maxlen - 1);
		memmove(nd->buf, nd->buf + total - keep, keep);
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

static int scan_checked(const struct source *src, uint64_t off, uint64_t len, struct needles *nd,
			struct s2c_error *err)
{
	int r;

	if (off > src->size || len > src->size - off)
		return s2c_error_set(err, -EINVAL, "read-only data at offset %llu lies beyond the end "
				     "of the file", (unsigned long long)off);
	r = scan_range(src, off, len, nd);
	return r < 0 ? s2c_error_errno(err, r, "cannot read file") : 0;
}

static bool is_rodata(const GElf_Shdr *sh)
{
	return sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_ALLOC) &&
	       !(sh->sh_flags & (SHF_WRITE | SHF_EXECINSTR | SHF_COMPRESSED));
}

static int scan_sections(Elf *elf, const struct source *src, struct needles *nd,
			 struct s2c_error *err)
{
	Elf_Scn *scn = NULL;

	while (nd->left > 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		int r;

		if (!gelf_getshdr(scn, &sh))
			return elf_fail(err, "cannot read section header");
		if (!is_rodata(&sh))
			continue;
		r = scan_checked(src, sh.sh_offset, sh.sh_size, nd, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Without section headers (sstrip), the read-only, non-executable PT_LOAD segments. */
static int scan_segments(Elf *elf, const struct source *src, struct needles *nd,
			 struct s2c_error *err)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) < 0)
		return elf_fail(err, "cannot count program headers");
	for (size_t i = 0; i < n && nd->left > 0; i++) {
		GElf_Phdr ph;
		int r;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return elf_fail(err, "cannot read program header");
		if (ph.p_type != PT_LOAD || (ph.p_flags & (PF_W | PF_X)))
			continue;
		r = scan_checked(src, ph.p_offset, ph.p_filesz, nd, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int find_strings(Elf *elf, size_t n_sections, const struct source *src,
			const char *const *strings, const char *const *prefixes, bool *found,
			char **values, struct s2c_error *err)
{
	struct needles nd = { .values = values, .maxlen = 1 };
	_cleanup_free_ size_t *len = NULL;
	_cleanup_free_ const char **v = NULL;
	_cleanup_free_ bool *f = NULL;
	_cleanup_free_ unsigned char *buf = NULL;
	size_t ns = 0, np = 0;
	int r;

	while (strings && strings[ns])
		ns++;
	while (prefixes && prefixes[np])
		np++;
	nd.n = ns + np;
	nd.nplain = ns;
	len = calloc(nd.n ? nd.n : 1, sizeof(*len));
	v = calloc(nd.n ? nd.n : 1, sizeof(*v));
	f = calloc(nd.n ? nd.n : 1, sizeof(*f));
	if (!len || !v || !f)
		return -ENOMEM;
	for (size_t i = 0; i < nd.n; i++) {
		v[i] = i < ns ? strings[i] : prefixes[i - ns];
		len[i] = strlen(v[i]);
		nd.maxlen = S2C_MAX(nd.maxlen, len[i] + (i < ns ? 0 : PREFIX_VALUE_MAX));
	}
	nd.v = v;
	nd.found = f;
	nd.len = len;
	nd.left = nd.n;
	if (nd.left == 0)
		return 0;
	if (!src->mem) {
		buf = malloc(SCAN_CHUNK + nd.maxlen);
		if (!buf)
			return -ENOMEM;
		nd.buf = buf;
	}
	r = n_sections > 0 ? scan_sections(elf, src, &nd, err) : scan_segments(elf, src, &nd, err);
	if (found)
		memcpy(found, f, ns * sizeof(*f));
	return r;
}

/* The symbols of a DT_NEEDED library open on @fd: 1 when loaded, 0 when it does not fit. */
static int load_lib(int fd, const struct elfinfo *e, size_t max_size, bool exports,
		    struct elfinfo_lib *lib)
{
	_cleanup_(symtab_release) struct symtab t = { .want_exports = exports };
	_cleanup_elfend_ Elf *elf = NULL;
	size_t left = ELFINFO_NAMES_MAX;
	struct sections s = { 0 };
	struct elfinfo probe = { 0 };
	struct source src;
	struct stat st;
	bool be;
	int r;

	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size > max_size)
		return 0;
	src = (struct source){ .fd = fd, .size = (uint64_t)st.st_size };
	/* Like ld.so, skip an object of another class or machine and keep searching.
	 * ld.so would stop at a broken one; skipping it loses nothing we could report. */
	if (open_elf(&src, &elf, NULL) < 0 || read_header(elf, src.size, &probe, &be, NULL) < 0 ||
	    probe.elf_class != e->elf_class || probe.machine != e->machine)
		return 0;
	r = find_sections(elf, src.size, &s, NULL);
	if (r >= 0)
		r = read_dynsym(elf, &s, &t, &left, NULL);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	r = copy_imports(t.imp, t.n_imp, &lib->imports, &lib->n_imports);
	if (r >= 0 && exports)
		r = copy_exports(t.exp, t.n_exp, &lib->exports, &lib->n_exports);
	return r < 0 ? r : 1;
}

/* What accept_lib() needs to judge a candidate library. */
struct lib_search {
	const struct elfinfo *e;
	size_t max_size;
	bool exports;
	struct elfinfo_lib *lib;
};

static int accept_lib(int fd, void *userdata)
{
	struct lib_search *ls = userdata;

	return load_lib(fd, ls->e, ls->max_size, ls->exports, ls->lib);
}

/* The directory of the file, for $ORIGIN: "/usr/bin/ping" -> "/usr/bin". */
static char *origin_of(const char *path)
{
	char *dir = ldpath_normalise(path);     /* absolute: has a '/' */
	char *slash;

	if (!dir)
		return NULL;
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash++;                        /* "/ping" -> "/" */
	*slash = '\0';
	return dir;
}

/* Find each DT_NEEDED library beneath the root and read its symbols. */
static int resolve_libs(struct elfinfo *e, const struct elfinfo_options *o, bool big_endian,
			size_t max_size, struct s2c_error *err)
{
	_cleanup_(ldpath_release) struct ldpath lp = { 0 };
	_cleanup_free_ char *origin = NULL;
	struct ldpath_request req = {
		.rpath = e->rpath,
		.runpath = e->runpath,
		.machine = e->machine,
		.elf_class = e->elf_class,
		.big_endian = big_endian,
	};
	int r;

	if (o->path && !(req.origin = origin = origin_of(o->path)))
		return -ENOMEM;
	r = ldpath_build(o->rootfd, &req, &lp);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot build the library search path");
	for (size_t i = 0; i < e->n_libs && i < ELFINFO_LIBS_MAX; i++) {
		struct elfinfo_lib *lib = &e->libs[i];
		struct lib_search ls = { .e = e, .max_size = max_size, .exports = o->lib_exports,
					 .lib = lib };

		r = ldpath_find(o->rootfd, &lp, lib->soname, accept_lib, &ls, &lib->path);
		if (r < 0)
			return s2c_error_errno(err, r, "cannot load library '%s'", lib->soname);
	}
	return 0;
}

/* One elfinfo_lib per DT_NEEDED entry, not yet resolved. */
static int init_libs(struct elfinfo *e)
{
	e->libs = calloc(e->n_needed ? e->n_needed : 1, sizeof(*e->libs));
	if (!e->libs)
		return -ENOMEM;
	for (; e->n_libs < e->n_needed; e->n_libs++) {
		e->libs[e->n_libs].soname = strdup(e->needed[e->n_libs]);
		if (!e->libs[e->n_libs].soname)
			return -ENOMEM;
	}
	return 0;
}

static void set_flags(struct elfinfo *e, bool df1_pie)
{
	e->pie = (e->elf_type == ET_DYN && e->interp) || df1_pie;
	e->is_static = !e->interp && e->n_needed == 0;
	for (size_t i = 0; i < e->n_needed; i++) {
		e->links_libcap |= fnmatch("libcap.so*", e->needed[i], 0) == 0;
		e->links_libcap_ng |= fnmatch("libcap-ng.so*", e->needed[i], 0) == 0;
	}
}

static int load_elf(const struct source *src, const struct elfinfo_options *o, size_t max_size,
		    struct elfinfo *e, struct s2c_error *err)
{
	_cleanup_(symtab_release) struct symtab t = { 0 };
	_cleanup_elfend_ Elf *elf = NULL;
	size_t left = ELFINFO_NAMES_MAX;
	struct sections s = { 0 };
	bool be = false, df1_pie = false;
	int r;

	r = open_elf(src, &elf, err);
	if (r >= 0)
		r = read_header(elf, src->size, e, &be, err);
	if (r >= 0)
		r = read_phdrs(elf, e, err);
	if (r >= 0)
		r = find_sections(elf, src->size, &s, err);
	if (r >= 0 && s.dynamic)
		r = read_dynamic(elf, s.dynamic, e, &df1_pie, &left, err);
	if (r >= 0)
		r = read_dynsym(elf, &s, &t, &left, err);
	if (r >= 0)
		r = copy_imports(t.imp, t.n_imp, &e->imports, &e->n_imports);
	if (r >= 0)
		r = init_libs(e);
	if (r >= 0 && (o->strings || o->prefixes))
		r = find_strings(elf, s.n, src, o->strings, o->prefixes, e->strings_found,
				 e->prefix_values, err);
	if (r < 0)
		return r;
	set_flags(e, df1_pie);
	return o->rootfd >= 0 ? resolve_libs(e, o, be, max_size, err) : 0;
}

/* ELF by its magic; "#!" with its interpreter; anything else is "other". */
static int detect_kind(const struct source *src, struct elfinfo *e)
{
	char head[HEAD_SIZE + 1];
	ssize_t n = source_read(src, 0, head, HEAD_SIZE);
	const char *p;

	if (n < 0)
		return (int)n;
	if (n >= SELFMAG && memcmp(head, ELFMAG, SELFMAG) == 0) {
		e->kind = ELFINFO_ELF;
		return 0;
	}
	if (n < 2 || head[0] != '#' || head[1] != '!') {
		e->kind = ELFINFO_OTHER;
		return 0;
	}
	/* As the kernel parses it: blanks, the path, then blanks and one argument. */
	head[n] = '\0';
	p = head + 2 + strspn(head + 2, " \t");
	e->kind = ELFINFO_SCRIPT;
	e->script_interp = strndup(p, strcspn(p, " \t\n"));
	return e->script_interp ? 0 : -ENOMEM;
}

static int init_strings(struct elfinfo *e, const char *const *strings, const char *const *prefixes)
{
	size_t n = 0;

	if (prefixes) {
		while (prefixes[n])
			n++;
		e->prefix_values = calloc(n ? n : 1, sizeof(*e->prefix_values));
		if (!e->prefix_values)
			return -ENOMEM;
		e->n_prefix_values = n;
	}
	if (!strings)
		return 0;
	n = 0;
	while (strings[n])
		n++;
	e->strings_found = calloc(n ? n : 1, sizeof(*e->strings_found));
	return e->strings_found ? 0 : -ENOMEM;
}

static size_t max_size_of(const struct elfinfo_options *o)
{
	return o && o->max_size ? o->max_size : ELFINFO_SIZE_DEFAULT;
}

static int load(const struct source *src, const struct elfinfo_options *opts,
		struct elfinfo **ret, struct s2c_error *err)
{
	static const struct elfinfo_options none = { .rootfd = -1 };
	const struct elfinfo_options *o = opts ? opts : &none;
	_cleanup_(elfinfo_freep) struct elfinfo *e = calloc(1, sizeof(*e));
	struct s2c_error why = { 0 };   /* so @err is only written on failure, and completely */
	int r = e ? 0 : -ENOMEM;

	if (e) {
		e->machine_name = "unknown";
		r = init_strings(e, o->strings, o->prefixes);
	}
	if (r >= 0)
		r = detect_kind(src, e);
	if (r >= 0 && e->kind == ELFINFO_ELF)
		r = load_elf(src, o, max_size_of(o), e, &why);
	if (r < 0) {
		if (!s2c_error_isset(&why))
			(void)s2c_error_errno(&why, r, "cannot read file");
		if (err)
			*err = why;
		return r;
	}
	*ret = TAKE_PTR(e);
	return 0;
}

int elfinfo_load_fd(int fd, const struct elfinfo_options *opts, struct elfinfo **ret,
		    struct s2c_error *err)
{
	size_t max = max_size_of(opts);
	struct source src = { .fd = fd };
	struct stat st;

	if (fstat(fd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat file");
	if (!S_ISREG(st.st_mode))
		return s2c_error_set(err, -EINVAL, "not a regular file");
	if ((uint64_t)st.st_size > max)
		return s2c_error_set(err, -EFBIG, "file larger than %zu bytes", max);
	src.size = (uint64_t)st.st_size;
	return load(&src, opts, ret, err);
}

int elfinfo_load_at(int dirfd, const char *name, const struct elfinfo_options *opts,
		    struct elfinfo **ret, struct s2c_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	/* Check first, so a device or FIFO is never opened (opening can have effects). */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return s2c_error_errno(err, -errno, "cannot stat '%s'", name);
	if (S_ISLNK(st.st_mode))
		return s2c_error_set(err, -ELOOP, "'%s' is a symlink", name);
	if (!S_ISREG(st.st_mode))
		return s2c_error_set(err, -EINVAL, "'%s' is not a regular file", name);
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return s2c_error_errno(err, -errno, "cannot open '%s'", name);
	return elfinfo_load_fd(fd, opts, ret, err);
}

int elfinfo_load_mem(const void *data, size_t size, const struct elfinfo_options *opts,
		     struct elfinfo **ret, struct s2c_error *err)
{
	_cleanup_free_ unsigned char *copy = NULL;
	size_t max = max_size_of(opts);
	struct source src = { .fd = -1, .size = size };

	if (size > max)
		return s2c_error_set(err, -EFBIG, "file larger than %zu bytes", max);
	copy = malloc(size ? size : 1);
	if (!copy)
		return s2c_error_errno(err, -ENOMEM, "cannot copy file");
	if (size)
		memcpy(copy, data, size);
	src.mem = copy;
	return load(&src, opts, ret, err);
}

static int cmp_symbol_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct elfinfo_symbol *)elem)->name);
}

bool elfinfo_imports(const struct elfinfo *e, const char *symbol)
{
	return e->n_imports &&
	       bsearch(symbol, e->imports, e->n_imports, sizeof(*e->imports), cmp_symbol_name);
}

const struct elfinfo_lib *elfinfo_lib_matching(const struct elfinfo *e, const char *soname_glob)
{
	for (size_t i = 0; i < e->n_libs; i++)
		if (fnmatch(soname_glob, e->libs[i].soname, 0) == 0)
			return &e->libs[i];
	return NULL;
}

const char *elfinfo_kind_name(enum elfinfo_kind k)
{
	static const char *const names[_ELFINFO_KIND_MAX] = {
		[ELFINFO_ELF] = "elf",
		[ELFINFO_SCRIPT] = "script",
		[ELFINFO_OTHER] = "other",
	};

	return k >= 0 && k < _ELFINFO_KIND_MAX ? names[k] : NULL;
}
