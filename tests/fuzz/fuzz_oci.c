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
	struct target *t = NULL;
	char *dir, path[64];
	struct stage *run;
	int fd;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	run = fuzz_run_stage(&dir);
	fd = fuzz_memfd(data, size);
	/* oci_read() takes a path: the memfd's. */
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (oci_read(path, NULL, &sel, run, "image", &t) < 0)
		abort();
	close(fd);
	fuzz_check_target(t, run, dir);
	return 0;
}
