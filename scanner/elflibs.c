/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DT_NEEDED libraries resolved beneath the root, and their symbols.
 */
#include <errno.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elfinfo.h"
#include "elflibs.h"
#include "elfread.h"
#include "elfsym.h"
#include "ldpath.h"
#include "util.h"
#include "common.h"

void elflibs_release(struct elfinfo_lib *lib)
{
	free(lib->soname);
	free(lib->path);
	elfsym_free(lib->imports, lib->n_imports);
	strv_freen(lib->exports, lib->n_exports);
}

/* The symbols of a DT_NEEDED library open on @fd: 1 when loaded, 0 when it does not fit. */
static int load_lib(int fd, const struct elfinfo *e, const struct elfinfo_options *o,
		    size_t max_size, struct elfinfo_lib *lib)
{
	_cleanup_(elfsym_release) struct elfsym_table t = { .want_exports = o->lib_exports };
	_cleanup_elfend_ Elf *elf = NULL;
	size_t left = ELFINFO_NAMES_MAX;
	struct elfread_sections s = { 0 };
	struct elfinfo probe = { 0 };
	struct elfread_source src;
	struct stat st;
	bool be;
	int r;

	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size > max_size)
		return 0;
	src = (struct elfread_source){ .fd = fd, .size = (uint64_t)st.st_size };
	/* Like ld.so, skip an object of another class or machine and keep searching.
	 * ld.so would stop at a broken one; skipping it loses nothing we could report. */
	if (elfread_open(&src, &elf, NULL) < 0 ||
	    elfread_header(elf, src.size, &probe, &be, NULL) < 0 ||
	    probe.elf_class != e->elf_class || probe.machine != e->machine)
		return 0;
	r = elfread_sections(elf, src.size, &s, NULL);
	if (r >= 0)
		r = elfsym_read(elf, &s, &t, &left, NULL);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	r = elfsym_copy_imports(t.imp, t.n_imp, o->symbols, &lib->imports, &lib->n_imports, NULL);
	if (r >= 0 && o->lib_exports)
		r = elfsym_copy_exports(t.exp, t.n_exp, &lib->exports, &lib->n_exports);
	return r < 0 ? r : 1;
}

/* What accept_lib() needs to judge a candidate library. */
struct lib_search {
	const struct elfinfo *e;
	const struct elfinfo_options *o;
	size_t max_size;
	struct elfinfo_lib *lib;
};

static int accept_lib(int fd, void *userdata)
{
	struct lib_search *ls = userdata;

	return load_lib(fd, ls->e, ls->o, ls->max_size, ls->lib);
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
int elflibs_resolve(struct elfinfo *e, const struct elfinfo_options *o, bool big_endian,
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
		struct lib_search ls = { .e = e, .o = o, .max_size = max_size, .lib = lib };

		r = ldpath_find(o->rootfd, &lp, lib->soname, accept_lib, &ls, &lib->path);
		if (r < 0)
			return s2c_error_errno(err, r, "cannot load library '%s'", lib->soname);
	}
	return 0;
}

/* One elfinfo_lib per DT_NEEDED entry, not yet resolved. */
int elflibs_init(struct elfinfo *e)
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

const struct elfinfo_lib *elfinfo_lib_matching(const struct elfinfo *e, const char *soname_glob)
{
	for (size_t i = 0; i < e->n_libs; i++)
		if (s2c_fnmatch(soname_glob, e->libs[i].soname, 0))
			return &e->libs[i];
	return NULL;
}
