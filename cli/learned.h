/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The learn records (observed evidence from `suid2cap learn`) of the files
 * explain and audit decide about, looked up by each file's SHA-256 in the
 * state directory beneath the root.
 */
#ifndef S2C_CLI_LEARNED_H
#define S2C_CLI_LEARNED_H

#include <stddef.h>

struct decision;
struct learn_record;

/**
 * For each of the @n decisions @v, its program's learn record, or NULL.
 * As root, records and their directory must be root-only.  A record that
 * cannot be used is a warning naming it, and is left out.
 * Returns a new array of @n pointers (free with learned_free()), or NULL
 * when there are no records at all or memory ran out.
 */
struct learn_record **learned_load(const char *root, struct decision *const *v, size_t n);

/** Free what learned_load() returned; accepts NULL. */
void learned_free(struct learn_record **learned, size_t n);

#endif /* S2C_CLI_LEARNED_H */
