/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "layout.h"
#include "common.h"

#define LIB "/usr/lib/"

/* Directories of /usr that a merged-/usr system also has at the top. */
static const char *const usr_dirs[] = { "bin", "sbin", "lib", "lib64", "libexec", NULL };
/* Directories merged into /usr/bin, and into /usr/lib. */
static const char *const bin_dirs[] = { "bin", "sbin", NULL };
static const char *const lib_dirs[] = { "lib", "lib64", "libexec", NULL };

/* The length of the component @p starts with. */
static size_t comp_len(const char *p)
{
	return strcspn(p, "/");
}

/* Is the component @p starts with one of @names, and not the last one? */
static bool dir_in(const char *p, const char *const *names)
{
	size_t n = comp_len(p);

	if (p[n] != '/')
		return false;
	for (size_t i = 0; names[i]; i++)
		if (strlen(names[i]) == n && strncmp(p, names[i], n) == 0)
			return true;
	return false;
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

bool layout_multiarch(const char *c, size_t len)
{
	/* <cpu>-linux-<abi>: x86_64-linux-gnu, arm-linux-gnueabihf, x86_64-linux-musl */
	size_t cpu = 0, i;

	while (cpu < len && word_char(c[cpu]))
		cpu++;
	if (cpu == 0 || len - cpu < 10 || strncmp(c + cpu, "-linux-", 7) != 0)
		return false;
	i = cpu + 7;
	if (strncmp(c + i, "gnu", 3) == 0)
		i += 3;
	else if (len - i >= 4 && strncmp(c + i, "musl", 4) == 0)
		i += 4;
	else
		return false;
	while (i < len && word_char(c[i]))
		i++;
	return i == len;
}

/* After the lib directory (@p at its '/'): skip a multiarch directory (or the glob '*'
 * standing for one) and a libexec below it, when more components follow. */
static const char *skip_lib_subdirs(const char *p)
{
	size_t n = comp_len(p + 1);

	if (p[1 + n] == '/' && (layout_multiarch(p + 1, n) || (n == 1 && p[1] == '*')))
		p += 1 + n;
	n = comp_len(p + 1);
	if (p[1 + n] == '/' && n == 7 && strncmp(p + 1, "libexec", 7) == 0)
		p += 1 + n;
	return p;
}

int layout_form(const char *path, char *buf, size_t size)
{
	const char *p = path, *prefix = "";
	int n;

	if (strncmp(p, "/usr/", 5) == 0 && dir_in(p + 5, usr_dirs))
		p += 4;
	if (p[0] == '/' && dir_in(p + 1, bin_dirs)) {
		prefix = "/usr/bin";
		p += 1 + comp_len(p + 1);
	} else if (p[0] == '/' && dir_in(p + 1, lib_dirs)) {
		prefix = "/usr/lib";
		p = skip_lib_subdirs(p + 1 + comp_len(p + 1));
	} else {
		p = path;
	}
	n = snprintf(buf, size, "%s%s", prefix, p);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return n;
}

bool layout_package_dir(const char *form, const char **ret_flat, const char **ret_dir,
			size_t *ret_dir_len)
{
	const char *rest, *slash;

	if (strncmp(form, LIB, strlen(LIB)) != 0)
		return false;
	rest = form + strlen(LIB);
	slash = strchr(rest, '/');
	if (!*rest || (slash && (slash == rest || strchr(slash + 1, '/') || !slash[1])))
		return false;
	*ret_flat = slash ? slash + 1 : rest;
	*ret_dir = slash ? rest : NULL;
	*ret_dir_len = slash ? (size_t)(slash - rest) : 0;
	return true;
}
