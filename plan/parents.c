/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileop.h"
#include "parents.h"
#include "plan.h"
#include "common.h"

/* fileop's messages end in ", refusing": a plan only describes. */
static char *why_from(const struct s2c_error *err, int r)
{
	static const char refusing[] = ", refusing";
	const char *msg = err->msg[0] ? err->msg : strerror(-r);
	size_t len = strlen(msg);

	if (len > sizeof(refusing) - 1 && s2c_streq(msg + len - (sizeof(refusing) - 1), refusing))
		len -= sizeof(refusing) - 1;
	return strndup(msg, len);
}

/* Action "none", the reason, and a warning that keeps the verdict's own reason. */
static int hold(struct plan_entry *e, const char *why)
{
	_cleanup_free_ char *reason = NULL, *warning = NULL;
	char **v;

	if (asprintf(&reason, "%s, so it is not changed (apply would refuse it)", why) < 0)
		return -ENOMEM;
	if (asprintf(&warning, "Not changed: %s. Once only root can write every directory on "
		     "its path, a new plan changes it (%s).", why, e->reason) < 0)
		return -ENOMEM;
	v = realloc(e->warnings, (e->n_warnings + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->warnings = v;
	e->warnings[e->n_warnings++] = TAKE_PTR(warning);
	free(e->reason);
	e->reason = TAKE_PTR(reason);
	e->change = false;
	return 0;
}

/* The length of @path's directory, its last "/" included. */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) + 1 : 0;
}

int parents_check(struct plan *p, int rootfd, parents_held_fn held, void *userdata)
{
	/* The directory last found safe: the entries of one directory come together. */
	const char *safe = NULL;
	size_t safe_len = 0, n = 0;

	for (size_t i = 0; i < p->n; i++) {
		struct plan_entry *e = &p->v[i];
		struct s2c_error err = { 0 };
		_cleanup_free_ char *why = NULL;
		size_t len = dir_len(e->path);
		int fd, r;

		if (!e->change)
			continue;
		if (safe && len == safe_len && e->path[len] && memcmp(e->path, safe, len) == 0)
			continue;
		fd = fileop_open_parent(rootfd, e->path, &err);
		if (fd >= 0) {
			(void)close(fd);
			safe = e->path;
			safe_len = len;
			continue;
		}
		if (fd == -ENOMEM)
			return fd;
		why = why_from(&err, fd);
		if (!why)
			return -ENOMEM;
		r = hold(e, why);
		if (r < 0)
			return r;
		if (held)
			held(userdata, e, why);
		n++;
	}
	return n > INT_MAX ? INT_MAX : (int)n;
}
