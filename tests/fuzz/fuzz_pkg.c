/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "facts.h"
#include "fuzz_pkg.h"
#include "stage.h"
#include "target.h"

/* Small limits: the fuzzer must not fill the disk or spend its time unpacking. */
static const struct stage_limits limits = { 1u << 20, 8u << 20, 64u << 20, 4096, 16u << 20 };

struct stage *fuzz_run_stage(char **ret_dir)
{
	char tmpl[] = "/tmp/s2c-fuzz-XXXXXX";
	struct stage *run = NULL;
	char *dir = mkdtemp(tmpl);

	if (!dir || stage_new_temp(dir, &run, NULL) < 0)
		abort();
	stage_set_limits(run, &limits);
	*ret_dir = strdup(dir);
	if (!*ret_dir)
		abort();
	return run;
}

int fuzz_memfd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	return fd;
}

void fuzz_check_target(struct target *t, struct stage *run, char *dir)
{
	struct target_file *files = NULL;
	size_t n = 0;
	DIR *d;
	struct dirent *de;

	if (!t)
		abort();
	if (t->error) {
		if (!t->error[0] || t->stage)
			abort();       /* an error says why, and keeps nothing */
	} else if (target_files(t, &files, &n, NULL) == 0) {
		for (size_t i = 0; i < n; i++) {
			const struct facts *f = files[i].facts;
			if (!f || f->path[0] != '/' || !files[i].member->staged ||
			    !((f->mode & 06000) || f->has_caps || files[i].has_fallback))
				abort();
		}
		target_files_free(files, n);
	}
	target_free(t);
	stage_free(run);
	/* Everything the stage held is gone, and nothing else was made beside it. */
	d = opendir(dir);
	if (!d)
		abort();
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			abort();
	closedir(d);
	if (rmdir(dir) < 0)
		abort();
	free(dir);
}
