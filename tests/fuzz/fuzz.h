/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The libFuzzer entry point every fuzz target defines. */
#ifndef S2C_TESTS_FUZZ_H
#define S2C_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Inputs above this size are ignored (bounded work per input). */
#define FUZZ_MAX_INPUT (1 << 20)

#endif
