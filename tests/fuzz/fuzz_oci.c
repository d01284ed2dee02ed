/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the image reader on a tar (docker save or OCI layout): manifests,
 * configs, layer lookup with symlinks, layers with whiteouts.  Any bytes give
 * an image or an error; nothing is written outside the private directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_pkg.h"
#include "oci.h"
#include "target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct target_select sel = { .system_files = true };
	struct target **v = NULL;
	size_t n = 0;
	char *dir, path[64];
	struct stage *run;
	int fd;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	run = fuzz_run_stage(&dir);
	fd = fuzz_memfd(data, size);
	/* oci_read() takes a path: the memfd's. */
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (oci_read(path, NULL, "linux/amd64", &sel, run, "image", &v, &n) < 0 || n == 0)
		abort();
	close(fd);
	/* Every target but the last is freed here; fuzz_check_target() frees the last with the
	 * run's stage. */
	for (size_t i = 0; i + 1 < n; i++)
		target_free(v[i]);
	fuzz_check_target(v[n - 1], run, dir);
	free(v);
	return 0;
}
