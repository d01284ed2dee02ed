/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirlist.h"
#include "util.h"
#include "common.h"

/*
 * fnmatch(@glob, @name, FNM_PERIOD) for a glob that is "*" and a literal
 * suffix ("*.list"), without fnmatch's conversion of both to wide characters
 * (a dpkg info directory has thousands of names); other globs go to fnmatch.
 */
static bool name_matches(const char *glob, const char *name)
{
	size_t ls, ln;

	if (glob[0] != '*' || glob[1 + strcspn(glob + 1, "*?[\\")] != '\0')
		return fnmatch(glob, name, FNM_PERIOD) == 0;
	ls = strlen(glob + 1);
	ln = strlen(name);
	return name[0] != '.' && ln >= ls && memcmp(name + ln - ls, glob + 1, ls) == 0;
}

int dirlist(int dirfd, const char *glob, size_t max, char ***ret)
{
	/* A descriptor of our own: readdir moves the offset, closedir closes it. */
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_(strv_freep) char **v = NULL;
	struct dirent *de;
	size_t n = 0;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		int e = -errno;
		(void)close(fd);
		return e;
	}
	errno = 0;
	while ((max == 0 || n < max) && (de = readdir(d))) {
		char **nv;

		if (glob ? !name_matches(glob, de->d_name) :
			   s2c_streq(de->d_name, ".") || s2c_streq(de->d_name, ".."))
			continue;
		nv = realloc(v, (n + 2) * sizeof(*v));
		if (!nv)
			return -ENOMEM;
		v = nv;
		v[n + 1] = NULL;
		if (!(v[n] = strdup(de->d_name)))
			return -ENOMEM;
		n++;
		errno = 0;
	}
	if (errno != 0 && (max == 0 || n < max))
		return -errno;
	if (!v && !(v = calloc(1, sizeof(*v))))
		return -ENOMEM;
	if (n)
		qsort(v, n, sizeof(*v), strv_cmp);
	*ret = TAKE_PTR(v);
	return (int)n;
}
