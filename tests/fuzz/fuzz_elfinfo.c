/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the ELF reader: any bytes must load (as ELF, script or other) or be
 * refused with a message, and whatever loads must be consistent: imports
 * sorted and unique, one library per DT_NEEDED entry, a result for every
 * literal searched for.  Each input goes through both entry points: memory
 * (elf_memory()) and a memfd (ELF_C_READ, the path real scans take), which
 * must agree; the memfd keeps only some imports (elfinfo_options::symbols,
 * as a scan does): exactly those of them the object imports.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elfinfo.h"
#include "error.h"
#include "fuzz.h"

static void check_sorted(const struct elfinfo *e)
{
	for (size_t i = 1; i < e->n_imports; i++)
		if (strcmp(e->imports[i - 1].name, e->imports[i].name) >= 0)
			abort();
	for (size_t i = 0; i < e->n_imports; i++)
		if (!elfinfo_imports(e, e->imports[i].name))
			abort();
}

static const char *const strings[] = { "must be setuid root", "/etc/shadow", "ELF", NULL };
static const char *const kept[] = { "A", "getuid", "malloc", "setuid", "socket", NULL };

/* Load @data from a memfd; returns what elfinfo_load_fd() returns, or 1 without memfds. */
static int load_memfd(const uint8_t *data, size_t size, struct elfinfo **ret)
{
	const struct elfinfo_options opts = { .rootfd = -1, .strings = strings, .symbols = kept };
	int fd = memfd_create("fuzz", MFD_CLOEXEC), r;

	if (fd < 0)
		return 1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 1;
	}
	r = elfinfo_load_fd(fd, &opts, ret, NULL);
	close(fd);
	return r;
}

/* @a keeps every import, @b only those of kept[]. */
static void check_same(const struct elfinfo *a, const struct elfinfo *b)
{
	size_t n = 0;

	if (a->kind != b->kind || a->n_imports != a->n_imports_all ||
	    a->n_imports_all != b->n_imports_all || a->n_needed != b->n_needed ||
	    a->is_static != b->is_static || a->pie != b->pie)
		abort();
	for (size_t i = 0; kept[i]; i++) {
		if (elfinfo_imports(a, kept[i]) != elfinfo_imports(b, kept[i]))
			abort();
		n += elfinfo_imports(b, kept[i]);
	}
	if (n != b->n_imports)
		abort();
	check_sorted(b);
	for (size_t i = 0; strings[i]; i++)
		if (a->strings_found[i] != b->strings_found[i])
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct elfinfo_options opts = { .rootfd = -1, .strings = strings };
	struct s2c_error err = { 0 };
	struct elfinfo *e = NULL, *f = NULL;
	int r, rf;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	r = elfinfo_load_mem(data, size, &opts, &e, &err);
	rf = load_memfd(data, size, &f);
	if (rf != 1 && (rf < 0) != (r < 0))
		abort();                /* both entry points agree */
	if (r < 0) {
		if (!err.msg[0] || e)
			abort();        /* every refusal says why, and leaves ret alone */
		return 0;
	}
	if (f)
		check_same(e, f);
	elfinfo_free(f);
	if (!e || !e->strings_found || !elfinfo_kind_name(e->kind) || !e->machine_name)
		abort();
	if (e->kind == ELFINFO_SCRIPT && !e->script_interp)
		abort();
	if (e->kind == ELFINFO_ELF) {
		if (e->n_libs != e->n_needed || (e->elf_class != 32 && e->elf_class != 64))
			abort();
		check_sorted(e);
		(void)elfinfo_lib_matching(e, "lib*.so*");
	}
	elfinfo_free(e);
	return 0;
}
