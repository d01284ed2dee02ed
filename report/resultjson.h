/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The results of the verbs that change or check files (apply, migrate,
 * rollback, verify) as one JSON document (docs/schema/result.schema.json);
 * each state in it is the object plans show too (filestate_json()).
 *
 * A verb collects what happened to each file while it runs: the library
 * reports outcomes through callbacks (plan/apply.h apply_report_fn, the
 * drifts of plan/verify.h), and the command line hands each one to
 * resultjson_event().  One entry is one file and one action ("change",
 * "recover", "restore", "check", "repair"); an event without an outcome (a
 * smoke test that passed) leaves its entry open, and the next event of the
 * same action and path closes it.  At the end resultjson_write() prints the
 * document with a summary that counts the entries per outcome.
 *
 * Outcome and drift names are those of the library (apply_event_id(),
 * drift_kind_name()); this module does not interpret them, it only counts
 * them, so it depends on nothing above the report layer.
 */
#ifndef S2C_REPORT_RESULTJSON_H
#define S2C_REPORT_RESULTJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cleanup.h"

struct file_state;
struct idmap;
struct json_object;

/** Version of the result document ("schema" key). */
#define RESULTJSON_SCHEMA 1

/** Value of its "kind" key. */
#define RESULTJSON_KIND "suid2cap-result"

/** Whether a smoke test ran for an entry, and how it went. */
enum resultjson_smoke {
	RESULTJSON_SMOKE_NONE,     /**< none ran (or, in an event: nothing to say about it) */
	RESULTJSON_SMOKE_PASSED,
	RESULTJSON_SMOKE_FAILED,
	_RESULTJSON_SMOKE_MAX,
};

/** One thing that happened to a file.  Everything is borrowed and copied. */
struct resultjson_event {
	const char *action;                 /**< "change", "recover", "restore", "check" or
					         "repair" */
	const char *path;                   /**< absolute within the root, any bytes but NUL */
	const char *outcome;                /**< closes the entry with this outcome; NULL leaves
					         it open (a step such as a passed smoke test) */
	const char *reason;                 /**< why; NULL or "" for none */
	enum resultjson_smoke smoke;        /**< RESULTJSON_SMOKE_NONE keeps the entry's */
	const struct file_state *before;    /**< the state found; NULL when not read.  The
					         entry keeps the first one it is given */
	const struct file_state *after;     /**< the state left; NULL when not read.  The
					         last one given wins */
	const char *drift;                  /**< verify: the drift kind; NULL for other actions */
	const char *drift_reason;           /**< verify: its sentence; NULL when none */
	const struct file_state *recorded;  /**< verify: the state apply recorded */
};

/** A verb's results.  Opaque; free with resultjson_free(). */
struct resultjson;

/**
 * Start the results of @verb ("apply", "migrate", "rollback" or "verify") on
 * @root.  @outcomes (NULL-terminated) are the outcomes the summary counts,
 * in its order, zero counts included; an entry with another outcome is
 * counted after them.  @drifts, for verify only (NULL otherwise), are the
 * drift kinds its summary counts.  Everything is copied.
 * @ret  on success a new object, free with resultjson_free().
 * Returns 0 or -ENOMEM.
 */
int resultjson_new(const char *verb, const char *root, const char *const *outcomes,
		   const char *const *drifts, struct resultjson **ret);

/** Free @r; accepts NULL; returns NULL. */
struct resultjson *resultjson_free(struct resultjson *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct resultjson *, resultjson_free)

/**
 * Record @ev: into the last open entry of the same action and path, or a new
 * one.  Returns 0 or -ENOMEM; after a failure the object remembers it and
 * resultjson_write() fails too, so a callback may ignore the return value.
 */
int resultjson_event(struct resultjson *r, const struct resultjson_event *ev);

/**
 * The journal the verb wrote or undid (a file name); NULL or "" for none.
 * Returns 0 or -ENOMEM (remembered as for resultjson_event()).
 */
int resultjson_set_journal(struct resultjson *r, const char *journal);

/**
 * Close every entry that is still open, with @outcome and @reason (NULL for
 * none): the run stopped before their last step.  Returns the number closed,
 * or -ENOMEM (remembered as for resultjson_event()).
 */
int resultjson_close_open(struct resultjson *r, const char *outcome, const char *reason);

/**
 * Write the document of @r to @out, with @exit_status (the status the verb
 * returns) in the summary.  Owner and group names come from @ids (NULL: no
 * names).  Fixed key order; entries in the order they were first reported.
 * Returns 0, -ENOMEM (also for an earlier failure), -EINVAL when an entry is
 * still open (resultjson_close_open() was not called), or -EIO when @out
 * reports an error.
 */
int resultjson_write(const struct resultjson *r, int exit_status, struct idmap *ids, FILE *out);

#endif /* S2C_REPORT_RESULTJSON_H */
