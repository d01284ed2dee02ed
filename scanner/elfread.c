/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The core of the ELF reader.  libelf parses every structure; these
 * functions decide what to ask, bound the answers and turn libelf's error
 * channel (elf_errno(), elf_errmsg()) into -errno plus a message at the
 * boundary of each call.
 *
 * Files are read through an fd with ELF_C_READ, so libelf pread(2)s only the
 * parts asked for and a file truncated under us yields a read error, not the
 * SIGBUS an mmap would.  The fuzzer's bytes go through elf_memory() on a
 * private copy.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "elfinfo.h"
#include "elfread.h"
#include "ldpath.h"
#include "common.h"

#define SECTIONS_MAX (1 << 20)  /* most section headers accepted */

void elfread_endp(Elf **elf)
{
	if (*elf) {
		int saved = errno;
		(void)elf_end(*elf);
		errno = saved;
	}
}

/* elf_version() sets library state; pthread_once() makes that thread-safe. */
static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;

static void libelf_init(void)
{
	/* Cannot fail with the libelf we were built against; if it did,
	 * elf_begin() reports "no version set" and we pass that on. */
	(void)elf_version(EV_CURRENT);
}

int elfread_fail(struct s2c_error *err, const char *what)
{
	int e = elf_errno();    /* libelf keeps it per thread */

	return s2c_error_set(err, -EINVAL, "%s: %s", what, e ? elf_errmsg(e) : "malformed ELF file");
}

ssize_t elfread_bytes(const struct elfread_source *src, uint64_t off, void *buf, size_t len)
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

int elfread_open(const struct elfread_source *src, Elf **ret, struct s2c_error *err)
{
	_cleanup_elfend_ Elf *elf = NULL;

	(void)pthread_once(&libelf_once, libelf_init);
	if (src->mem)
		elf = elf_memory((char *)src->mem, (size_t)src->size);
	else
		elf = elf_begin(src->fd, ELF_C_READ, NULL);
	if (!elf)
		return elfread_fail(err, "cannot read ELF file");
	if (elf_kind(elf) != ELF_K_ELF)
		return s2c_error_set(err, -EINVAL, "malformed ELF header");
	*ret = TAKE_PTR(elf);
	return 0;
}

int elfread_charge(size_t *left, const char *s, struct s2c_error *err)
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
		return elfread_fail(err, "cannot count section headers");
	if (elf_getphdrnum(elf, &phnum) < 0)
		return elfread_fail(err, "cannot count program headers");
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

int elfread_header(Elf *elf, uint64_t size, struct elfinfo *e, bool *ret_big_endian,
		   struct s2c_error *err)
{
	int cls = gelf_getclass(elf);
	GElf_Ehdr eh;
	int r;

	if (cls != ELFCLASS32 && cls != ELFCLASS64)
		return s2c_error_set(err, -EINVAL, "unknown ELF class %d", cls);
	if (!gelf_getehdr(elf, &eh))
		return elfread_fail(err, "cannot read ELF header");
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

int elfread_sections(Elf *elf, uint64_t size, struct elfread_sections *s,
		     struct s2c_error *err)
{
	Elf_Scn *scn = NULL;

	if (elf_getshdrnum(elf, &s->n) < 0)
		return elfread_fail(err, "cannot count section headers");
	if (s->n > SECTIONS_MAX)
		return s2c_error_set(err, -EINVAL, "%zu sections, more than %d", s->n, SECTIONS_MAX);
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Scn **slot = NULL;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return elfread_fail(err, "cannot read section header");
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
