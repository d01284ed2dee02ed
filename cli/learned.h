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

/**
 * The learn records of an audit's files, gathered a decision at a time (as
 * decide_batch() makes them) and kept by program: what is kept grows with the
 * records there are, not with the files.
 */
struct learned;

/**
 * The records beneath @root, for learned_add(); NULL when there are none, or
 * when they cannot be read (a warning says why) or memory ran out.
 */
struct learned *learned_open(const char *root);

/**
 * Look up the record of @d's program in @userdata (a struct learned) and keep
 * it when there is one (decide_stream::each).  A record that cannot be used is a
 * warning naming the file.  Returns 0 or -ENOMEM.
 */
int learned_add(void *userdata, const struct decision *d);

/** The record kept of @d's program, or NULL (audit::learned_of). */
const struct learn_record *learned_find(const void *userdata, const struct decision *d);

/** Free; accepts NULL. */
void learned_close(struct learned *l);

#endif /* S2C_CLI_LEARNED_H */
