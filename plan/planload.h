/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a plan back: the strict loader.
 *
 * A plan is untrusted input until it has been checked: it may have been
 * edited by hand, truncated, or written by someone else.  The loader accepts
 * exactly what plan_to_json() writes (docs/schema/plan.schema.json) and checks
 * what a schema cannot: capability texts through libcap and against the raw
 * attribute bytes, modes, id ranges, paths (absolute, normalised, sorted,
 * unique), that an entry's action matches its before and after states and its
 * verdict, that a change carries the file's SHA-256, that the summary counts
 * the entries.  It does not stop at the first problem: every problem is
 * reported as "file: $.entries[3].after.mode: message".
 */
#ifndef S2C_PLAN_PLANLOAD_H
#define S2C_PLAN_PLANLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "hash.h"
#include "jsonread.h"

/** Largest plan read: about 250,000 entries. */
#define PLAN_MAX_SIZE ((size_t)256 << 20)

struct json_object;
struct plan;
struct s2c_error;

/**
 * Read the plan document @doc strictly.
 * @file  name used in messages.
 * @ret   on success a new plan (free with plan_free()).
 * Returns 0, -ENOMEM, or -EINVAL with the first problem in @err, followed by
 * "(and N more problems)" when there are several.
 */
int plan_from_json(struct json_object *doc, const char *file, struct plan **ret,
		   struct s2c_error *err);

/**
 * Like plan_from_json(), and also collect every problem in @problems
 * (optional; release with jcheck_problems_release(), also on success).
 */
int plan_from_json_all(struct json_object *doc, const char *file, struct plan **ret,
		       struct jcheck_problems *problems, struct s2c_error *err);

/**
 * Read and check the plan file @name relative to @dirfd, without following a
 * symbolic link (O_NOFOLLOW) and only if it is a regular file.
 * @display  the name used in messages.
 * @trusted  the caller is privileged and will act on the plan: refuse a file
 *           that is not owned by root or that group or others can write, as
 *           doas(1) refuses such a doas.conf.
 * @ret      on success a new plan (free with plan_free()).
 * Returns 0; -EPERM for an untrusted file; -EINVAL for a malformed plan
 * (JSON syntax, a truncated file, or any problem of plan_from_json()); other
 * -errno when the file cannot be read.  @err holds the message.
 */
int plan_load(int dirfd, const char *name, const char *display, bool trusted,
	      struct plan **ret, struct s2c_error *err);

/**
 * Like plan_load(), and also collect every problem of the content (JSON
 * syntax included) in @problems (optional; release with
 * jcheck_problems_release()).  Open and trust failures are not content
 * problems: they are only in @err.
 */
int plan_load_all(int dirfd, const char *name, const char *display, bool trusted,
		  struct plan **ret, struct jcheck_problems *problems, struct s2c_error *err);

/**
 * Like plan_load(), and also the SHA-256 of the file's bytes (the journal
 * records which plan it carried out) in @ret_sha256, lowercase hex, written
 * only on success.
 */
int plan_load_hashed(int dirfd, const char *name, const char *display, bool trusted,
		     struct plan **ret, char ret_sha256[static HASH_HEX_LEN], struct s2c_error *err);

/**
 * Check and read a plan from @len bytes at @buf (a plan handed over by the
 * process that decided it); @display names it in messages.  As strict as
 * plan_load().  Returns 0 or -errno with @err.
 */
int plan_from_mem(const char *buf, size_t len, const char *display, struct plan **ret,
		  struct s2c_error *err);

/** plan_from_mem() that also collects every problem in @problems, as plan_load_all(). */
int plan_from_mem_all(const char *buf, size_t len, const char *display, struct plan **ret,
		      struct jcheck_problems *problems, struct s2c_error *err);

#endif /* S2C_PLAN_PLANLOAD_H */
