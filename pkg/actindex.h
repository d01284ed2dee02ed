/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The install-time actions of an analysis (maintscript.h) by the path they
 * name: exact paths, the roots of recursive ones and globs by their
 * directory in hash indexes, so that asking it of every member of a package
 * costs the members plus the actions, not their product.
 */
#ifndef S2C_PKG_ACTINDEX_H
#define S2C_PKG_ACTINDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "hashindex.h"

struct ms_action;
struct ms_analysis;

/** An index of some actions of one analysis; zero-initialised is empty. */
struct actindex {
	struct hashindex exact;         /**< actions naming a path, by member_hash() of it */
	struct hashindex recursive;     /**< actions naming a tree, by the hash of its root */
	struct hashindex globs;         /**< globs, by the hash of their directory */
	size_t *other;                  /**< globs whose directory has a wildcard */
	size_t n_other;
	size_t n;                       /**< the analysis had this many actions */
};

/**
 * Whether the action @a names @path: its path, its glob (fnmatch with
 * FNM_PATHNAME), or a directory above @path when recursive.
 */
bool ms_action_names(const struct ms_action *a, const char *path);

/**
 * Index the actions of @a for which @pick is true (NULL: all).  Returns 0 or
 * -ENOMEM, with @x empty.
 */
int actindex_build(struct actindex *x, const struct ms_analysis *a,
		   bool (*pick)(const struct ms_action *));

/** Whether an action of @a that @x indexes names @path (ms_action_names()). */
bool actindex_names(const struct actindex *x, const struct ms_analysis *a, const char *path);

/** Free what @x holds; it is empty afterwards. */
void actindex_release(struct actindex *x);

/**
 * Index every action of @a and the files it wants by path, for
 * ms_analysis_names() and ms_analysis_wants(), once the analysis is done.
 * Returns 0 or -ENOMEM (they then read every action).
 */
int ms_analysis_index(struct ms_analysis *a);

/**
 * Whether an action of @a names @path: through the index when
 * ms_analysis_index() made one and nothing was added since, else one by one.
 */
bool ms_analysis_names(const struct ms_analysis *a, const char *path);

/**
 * Call @fn with the position in @a->v of each action that names @path, in no
 * particular order (one action may come twice).
 */
void ms_analysis_each(const struct ms_analysis *a, const char *path,
		      void (*fn)(size_t pos, void *userdata), void *userdata);

/** Whether @path is one of the files @a wants kept (ms_analysis::wants). */
bool ms_analysis_wants(const struct ms_analysis *a, const char *path);

/** Free the index ms_analysis_index() made of @a, if any (ms_analysis_release() does). */
void ms_analysis_unindex(struct ms_analysis *a);

#endif /* S2C_PKG_ACTINDEX_H */
