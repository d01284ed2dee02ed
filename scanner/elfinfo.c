/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ELF reader's entry points: what kind of file it is, then for ELF the
 * program headers (PT_INTERP), .dynamic (DT_NEEDED, DT_SONAME, DT_RPATH,
 * DT_RUNPATH, DT_FLAGS_1) and the flags derived from them.  The core is in
 * elfread.c; symbols and versions in elfsym.c, libraries in elflibs.c,
 * strings in read-only data in elfstrings.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfinfo.h"
#include "elflibs.h"
#include "elfread.h"
#include "elfstrings.h"
#include "elfsym.h"
#include "strtable.h"
#include "util.h"
#include "common.h"

#define HEAD_SIZE 256           /* the kernel reads at most this much of a "#!" line */
#define INTERP_MAX 4096         /* longest PT_INTERP accepted */
#define PHDRS_MAX 65536         /* most program headers accepted */

struct elfinfo *elfinfo_free(struct elfinfo *e)
{
	if (!e)
		return NULL;
	free(e->script_interp);
	free(e->interp);
	strv_freen(e->needed, e->n_needed);
	free(e->rpath);
	free(e->runpath);
	elfsym_free(e->imports, e->n_imports);
	for (size_t i = 0; i < e->n_libs; i++)
		elflibs_release(&e->libs[i]);
	free(e->libs);
	free(e->strings_found);
	free(e->soname);
	strv_freen(e->prefix_values, e->n_prefix_values);
	free(e);
	return NULL;
}

static int read_interp(Elf *elf, const GElf_Phdr *ph, struct elfinfo *e, struct s2c_error *err)
{
	Elf_Data *d;

	if (ph->p_filesz == 0 || ph->p_filesz > INTERP_MAX || ph->p_offset > INT64_MAX)
		return s2c_error_set(err, -EINVAL, "PT_INTERP has an invalid size or offset");
	d = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, (size_t)ph->p_filesz, ELF_T_BYTE);
	if (!d)
		return elfread_fail(err, "cannot read PT_INTERP");
	e->interp = strndup(d->d_buf, d->d_size);
	return e->interp ? 0 : -ENOMEM;
}

/* Program headers: PT_INTERP. */
static int read_phdrs(Elf *elf, struct elfinfo *e, struct s2c_error *err)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) < 0)
		return elfread_fail(err, "cannot count program headers");
	if (n > PHDRS_MAX)
		return s2c_error_set(err, -EINVAL, "%zu program headers, more than %d", n, PHDRS_MAX);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		int r;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return elfread_fail(err, "cannot read program header");
		if (ph.p_type != PT_INTERP || e->interp)
			continue;
		r = read_interp(elf, &ph, e, err);
		if (r < 0)
			return r;
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
		return elfread_fail(err, "invalid string in .dynamic");
	r = elfread_charge(left, s, err);
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
		return elfread_fail(err, "cannot read .dynamic");
	count = S2C_MIN(d->d_size / entsize, (size_t)INT_MAX);
	/* First count DT_NEEDED, so the array is allocated once and bounded. */
	for (size_t i = 0; i < count; i++) {
		GElf_Dyn dyn;

		if (!gelf_getdyn(d, (int)i, &dyn))
			return elfread_fail(err, "cannot read .dynamic entry");
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

static void set_flags(struct elfinfo *e, bool df1_pie)
{
	e->pie = (e->elf_type == ET_DYN && e->interp) || df1_pie;
	e->is_static = !e->interp && e->n_needed == 0;
	for (size_t i = 0; i < e->n_needed; i++) {
		e->links_libcap |= s2c_fnmatch("libcap.so*", e->needed[i], 0);
		e->links_libcap_ng |= s2c_fnmatch("libcap-ng.so*", e->needed[i], 0);
	}
}

static int load_elf(const struct elfread_source *src, const struct elfinfo_options *o,
		    size_t max_size, struct elfinfo *e, struct s2c_error *err)
{
	_cleanup_(elfsym_release) struct elfsym_table t = { 0 };
	_cleanup_elfend_ Elf *elf = NULL;
	size_t left = ELFINFO_NAMES_MAX;
	struct elfread_sections s = { 0 };
	bool be = false, df1_pie = false;
	int r;

	r = elfread_open(src, &elf, err);
	if (r >= 0)
		r = elfread_header(elf, src->size, e, &be, err);
	if (r >= 0)
		r = read_phdrs(elf, e, err);
	if (r >= 0)
		r = elfread_sections(elf, src->size, &s, err);
	if (r >= 0 && s.dynamic)
		r = read_dynamic(elf, s.dynamic, e, &df1_pie, &left, err);
	if (r >= 0)
		r = elfsym_read(elf, &s, &t, &left, err);
	if (r >= 0)
		r = elfsym_copy_imports(t.imp, t.n_imp, o->symbols, &e->imports, &e->n_imports,
					&e->n_imports_all);
	if (r >= 0)
		r = elflibs_init(e);
	if (r >= 0 && (o->strings || o->prefixes))
		r = elfstrings_find(elf, s.n, src, o->strings, o->prefixes, e->strings_found,
				 e->prefix_values, err);
	if (r < 0)
		return r;
	set_flags(e, df1_pie);
	return o->rootfd >= 0 ? elflibs_resolve(e, o, be, max_size, err) : 0;
}

/* ELF by its magic; "#!" with its interpreter; anything else is "other". */
static int detect_kind(const struct elfread_source *src, struct elfinfo *e)
{
	char head[HEAD_SIZE + 1];
	ssize_t n = elfread_bytes(src, 0, head, HEAD_SIZE);
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

static size_t max_size_of(const struct elfinfo_options *o)
{
	return o && o->max_size ? o->max_size : ELFINFO_SIZE_DEFAULT;
}

static int load(const struct elfread_source *src, const struct elfinfo_options *opts,
		struct elfinfo **ret, struct s2c_error *err)
{
	static const struct elfinfo_options none = { .rootfd = -1 };
	const struct elfinfo_options *o = opts ? opts : &none;
	_cleanup_(elfinfo_freep) struct elfinfo *e = calloc(1, sizeof(*e));
	struct s2c_error why = { 0 };   /* so @err is only written on failure, and completely */
	int r = e ? 0 : -ENOMEM;

	if (e) {
		e->machine_name = "unknown";
		r = elfstrings_init(e, o->strings, o->prefixes);
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
	struct elfread_source src = { .fd = fd };
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
	struct elfread_source src = { .fd = -1, .size = size };

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

static const char *const kind_names[_ELFINFO_KIND_MAX] = {
	[ELFINFO_ELF] = "elf",
	[ELFINFO_SCRIPT] = "script",
	[ELFINFO_OTHER] = "other",
};

DEFINE_STRING_TABLE_TO_NAME(elfinfo_kind_name, enum elfinfo_kind, kind_names, NULL)
