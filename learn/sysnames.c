/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stddef.h>
#include <sys/syscall.h>

#include "sysnames.h"
#include "common.h"

static const struct {
	long nr;
	const char *name;
} names[] = {
#include "learn_sysnames.inc"
};

const char *sysnames_name(long nr)
{
	for (size_t i = 0; i < S2C_ELEMENTSOF(names); i++)
		if (names[i].nr == nr)
			return names[i].name;
	return NULL;
}
