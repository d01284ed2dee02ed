/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "engine.h"
#include "facts.h"
#include "learned.h"
#include "learnout.h"
#include "record.h"
#include "common.h"

struct learn_record **learned_load(const char *root, struct decision *const *v, size_t n)
{
	_cleanup_close_ int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int dfd = -1;
	struct learn_record **out = NULL;
	struct s2c_error err = { 0 };
	bool any = false;
	int r;

	if (rootfd < 0 || n == 0)
		return NULL;
	r = learn_dir_open(rootfd, root, false, geteuid() == 0, &dfd, &err);
	if (r == -ENOENT)
		return NULL;
	if (r < 0) {
		log_warning("cannot read learn records: %s, ignoring them",
			    err.msg[0] ? err.msg : strerror(-r));
		return NULL;
	}
	out = calloc(n, sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!v[i]->sha256)
			continue;
		s2c_error_clear(&err);
		r = learn_record_load(dfd, v[i]->sha256, geteuid() == 0, &out[i], &err);
		if (r < 0 && r != -ENOENT)
			log_warning("cannot use the learn record of '%s': %s, ignoring it",
				    v[i]->facts->path, err.msg[0] ? err.msg : strerror(-r));
		any |= out[i] != NULL;
	}
	if (!any) {
		free(out);
		return NULL;
	}
	return out;
}

void learned_free(struct learn_record **learned, size_t n)
{
	for (size_t i = 0; learned && i < n; i++)
		learn_record_free(learned[i]);
	free(learned);
}
