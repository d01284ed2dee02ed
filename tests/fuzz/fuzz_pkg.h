/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the package and image fuzz targets share: the input in a memfd, a run
 * stage in a fresh temporary directory, and the checks every reader must
 * pass whatever the bytes: it returns a target (maybe with an error that says
 * why), its privileged files are staged and consistent, and when it is freed
 * nothing is left in the temporary directory.
 */
#ifndef S2C_TESTS_FUZZ_PKG_H
#define S2C_TESTS_FUZZ_PKG_H

#include <stddef.h>
#include <stdint.h>

struct stage;
struct target;

/** A fresh private directory and a run stage in it (aborts on failure). */
struct stage *fuzz_run_stage(char **ret_dir);

/** Check @t (a reader's result), free it, free @run and check @dir is empty, remove it. */
void fuzz_check_target(struct target *t, struct stage *run, char *dir);

/** @data in a memfd, at offset 0 (aborts on failure). */
int fuzz_memfd(const uint8_t *data, size_t size);

#endif /* S2C_TESTS_FUZZ_PKG_H */
