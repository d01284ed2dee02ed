/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the rpm reader (librpm's header reader and our use of it, then the
 * payload through libarchive): any bytes give a package or an error.
 */
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_pkg.h"
#include "rpm.h"
#include "target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const globs[] = { "libcap.so*", NULL };
	const struct target_select sel = { .lib_globs = globs };
	struct target *t = NULL;
	char *dir;
	struct stage *run;
	int fd;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	run = fuzz_run_stage(&dir);
	fd = fuzz_memfd(data, size);
	if (rpm_read(fd, "fuzz.rpm", &sel, run, "p0", &t) < 0)
		abort();
	close(fd);
	fuzz_check_target(t, run, dir);
	return 0;
}
