/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names of enum values, written once: a table of names indexed by the enum,
 * and the two functions every such enum needs made from it, as systemd's
 * DEFINE_STRING_TABLE_LOOKUP does.  A value out of the table's range gets
 * the fallback name; a name not in the table gets -EINVAL.
 */
#ifndef S2C_COMMON_STRTABLE_H
#define S2C_COMMON_STRTABLE_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "macro.h"

/** The index of @s among the @n names of @table (a NULL name matches nothing), or -EINVAL. */
static inline int strtable_index(const char *const *table, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (table[i] && strcmp(table[i], s) == 0)
			return (int)i;
	return -EINVAL;
}

/** Define "const char *@fn(@type v)": @table[v], or @fallback outside the table or on NULL. */
#define DEFINE_STRING_TABLE_TO_NAME(fn, type, table, fallback)                                \
	const char *fn(type v)                                                                \
	{                                                                                     \
		return (size_t)v < S2C_ELEMENTSOF(table) && (table)[v] ? (table)[v] : (fallback); \
	}

/** Define "@type @fn(const char *s)": the value @s names in @table, or -EINVAL. */
#define DEFINE_STRING_TABLE_FROM_NAME(fn, type, table)                                        \
	type fn(const char *s)                                                                \
	{                                                                                     \
		return (type)strtable_index(table, S2C_ELEMENTSOF(table), s);                 \
	}

#endif /* S2C_COMMON_STRTABLE_H */
