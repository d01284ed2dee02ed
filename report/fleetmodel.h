/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet model, internal to report/: what report/fleetread.c reads from
 * the audit reports (targets, programs and the state each target gives
 * them), report/fleet.c completes (majorities) and report/fleetout.c renders
 * in every format.  The public interface of all three is report/fleet.h.
 *
 * Every string here comes from an untrusted report and is stored as read;
 * the writers escape it for their format.  All of it is owned by the fleet
 * and freed by fleet_free().
 *
 * Internal: fleet fleetmodel fleetout fleetread.
 */
#ifndef S2C_REPORT_FLEETMODEL_H
#define S2C_REPORT_FLEETMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "hashindex.h"
#include "strpool.h"

struct json_object;

/* Most drifting targets listed per program in text, Markdown and HTML (JSON has them all). */
#define DRIFT_SHOWN 20

/* One target of the fleet: a host, a root, an image or a package. */
struct ftarget {
	char *name;             /* "web1", "image s2c/test:1", "iputils-ping 3:20221126 amd64";
				   made unique by fleet_finish() ("vm (root /srv/x on vm)") */
	char *kind;             /* "host", "root", "image", "package" */
	char *machine_id, *time, *source, *error, *tool;
	char *label;            /* the report's --label, or NULL */
	char *root;             /* a root's directory as its audit was given it, or NULL */
	char *auditor;          /* the host that audited a root, image or package, or NULL */
	bool complete;          /* its audit was complete (its report said so) */
	bool incomplete_allowed; /* its report allowed it to be incomplete (--allow-incomplete) */
	char **incomplete;      /* why not, NULL-terminated, or NULL */
	size_t n_incomplete;
	size_t files;
};

/* What one target says about one program.  Its strings are the fleet's (struct fleet's
 * strings): thousands of states repeat a few values. */
struct fstate {
	size_t target;
	char *verdict, *mode, *owner, *group, *caps, *caps_after, *risk, *package, *version;
	char *state;            /* "nothing to change" or the verdict (the report's "state") */
	unsigned findings;      /* bit k: finding S2C00(k+1) */
	struct json_object *waived; /* the file's "waived" object as its report gave it, or NULL */
	char *key;              /* the fields that make two states the same, joined */
};

struct fprog {
	char *path;
	struct fstate *v;
	size_t n, alloc;
	size_t major;           /* index in v of a state of the majority */
	size_t n_major;         /* how many agree with it */
};

struct fleet {
	struct ftarget *t;
	size_t n_t, alloc_t;
	struct fprog *p;
	size_t n_p, alloc_p;
	struct hashindex by_path;   /* programs by path (positions past n_p may linger) */
	struct hashindex by_target; /* targets by kind, name and machine id (likewise past n_t) */
	size_t *touched;            /* programs the report being added gave a state */
	size_t n_touched, alloc_touched;
	char **reports;         /* sources */
	size_t n_reports;
	char **notes;
	size_t n_notes;
	size_t reports_unread;  /* reports that could not be read (fleet_unread()) */
	struct json_object *waivers; /* {"report", "waivers"} of each report that had waivers */
	struct strpool strings;      /* the strings of every state */
};

/** Free what @s owns (not @s itself, nor its strings, which are the fleet's). */
void fstate_release(struct fstate *s);

/** Free the states of @p from @keep on, so that it holds its first @keep again. */
void fprog_truncate(struct fprog *p, size_t keep);

/** Free what @p owns (not @p itself). */
void fprog_release(struct fprog *p);

/** Free what @t owns (not @t itself). */
void ftarget_release(struct ftarget *t);

/**
 * Whether state @k of @p differs from its majority.  Meaningful after
 * fleet_finish(); @k < p->n.
 */
bool fprog_drifts(const struct fprog *p, size_t k);

/**
 * @s for people: "migrate, 4755 root:root, caps - -> cap_net_raw=p", not yet
 * escaped.  Returns a new string (free() it) or NULL on OOM.
 */
char *fstate_text(const struct fstate *s);

/**
 * The package versions the targets of @p give: "iputils-ping 3:20221126 (2)",
 * each once with how many targets have it, in the order first seen.
 * Returns a NULL-terminated array (strv_free() it), or NULL when the array
 * cannot be allocated; a version that cannot be formatted is left out.
 */
char **fprog_versions(const struct fprog *p);

/** How many targets of @f could be read (have no error). */
size_t fleet_targets_read(const struct fleet *f);

/** How many targets of @f are incomplete (including those that could not be read). */
size_t fleet_targets_incomplete(const struct fleet *f);

/**
 * Whether the fleet report is complete: every report read, every target's audit complete.
 * @allowed_too: a target its report allowed to be incomplete (--allow-incomplete) counts as
 * complete.
 */
bool fleet_complete(const struct fleet *f, bool allowed_too);

/**
 * Why the fleet report is incomplete, one sentence: "1 report could not be read, 2 targets
 * are incomplete (1 allowed by its audit)".  NULL when complete or on OOM.
 */
char *fleet_incomplete_text(const struct fleet *f);

#endif /* S2C_REPORT_FLEETMODEL_H */
