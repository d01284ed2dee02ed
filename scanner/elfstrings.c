/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strings and versions in read-only data, streamed in bounded chunks.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elfinfo.h"
#include "elfread.h"
#include "elfstrings.h"
#include "common.h"

#define SCAN_CHUNK (64 << 10)   /* bytes read at a time by the string search */
#define PREFIX_VALUE_MAX 32     /* longest version read after a prefix */

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
static int scan_range(const struct elfread_source *src, uint64_t off, uint64_t len,
		      struct needles *nd)
{
	size_t keep = 0;

	if (src->mem) {
		match(nd, src->mem + off, (size_t)len, true);
		return nd->error;
	}
	while (len > 0 && nd->left > 0) {
		ssize_t n = elfread_bytes(src, off, nd->buf + keep,
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

static int scan_checked(const struct elfread_source *src, uint64_t off, uint64_t len,
			struct needles *nd, struct s2c_error *err)
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

static int scan_sections(Elf *elf, const struct elfread_source *src, struct needles *nd,
			 struct s2c_error *err)
{
	Elf_Scn *scn = NULL;

	while (nd->left > 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		int r;

		if (!gelf_getshdr(scn, &sh))
			return elfread_fail(err, "cannot read section header");
		if (!is_rodata(&sh))
			continue;
		r = scan_checked(src, sh.sh_offset, sh.sh_size, nd, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Without section headers (sstrip), the read-only, non-executable PT_LOAD segments. */
static int scan_segments(Elf *elf, const struct elfread_source *src, struct needles *nd,
			 struct s2c_error *err)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) < 0)
		return elfread_fail(err, "cannot count program headers");
	for (size_t i = 0; i < n && nd->left > 0; i++) {
		GElf_Phdr ph;
		int r;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return elfread_fail(err, "cannot read program header");
		if (ph.p_type != PT_LOAD || (ph.p_flags & (PF_W | PF_X)))
			continue;
		r = scan_checked(src, ph.p_offset, ph.p_filesz, nd, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int elfstrings_find(Elf *elf, size_t n_sections, const struct elfread_source *src,
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

int elfstrings_init(struct elfinfo *e, const char *const *strings, const char *const *prefixes)
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
