/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User and group names for numeric ids.
 *
 * On the host the names come from NSS (getpwuid_r(3)), as ls(1) shows them.
 * For an image (--root DIR) they come from DIR/etc/passwd and DIR/etc/group,
 * read beneath the root without following symlinks, because the host's users
 * say nothing about the image's.
 */
#ifndef S2C_SCANNER_IDMAP_H
#define S2C_SCANNER_IDMAP_H

#include <stdbool.h>
#include <stdint.h>

struct idmap;

/**
 * Create a map that asks NSS (@rootfd < 0) or reads the passwd and group
 * files under @rootfd.  Missing files are not an error (ids stay unnamed),
 * except that id 0 is always "root", as on every Linux system.
 * @ret  on success a new map, free with idmap_free().
 * Returns 0 or -ENOMEM.
 */
int idmap_new(int rootfd, struct idmap **ret);

/**
 * Add the name @name of user (@user) or group id @id to @m, as a passwd or
 * group file would.  With idmap_new_given(), for names given in memory.
 * Returns 0 or -ENOMEM.
 */
int idmap_add(struct idmap *m, bool user, uint32_t id, const char *name);

/** A map that reads nothing: root, and what idmap_add() adds.  Returns 0 or -ENOMEM. */
int idmap_new_given(struct idmap **ret);

/** Free @m; accepts NULL; returns NULL. */
struct idmap *idmap_free(struct idmap *m);

/** Name of @uid or NULL when unknown.  Borrowed, valid until idmap_free(). Not thread-safe. */
const char *idmap_user(struct idmap *m, uint32_t uid);

/** Name of @gid or NULL when unknown.  Borrowed, as idmap_user(). */
const char *idmap_group(struct idmap *m, uint32_t gid);

/**
 * Look up a user by name or decimal id (NSS is asked once per name: its answer,
 * found or not, is kept).  Returns 0 and sets @ret_uid, or -ENOENT.
 */
int idmap_uid(struct idmap *m, const char *name, uint32_t *ret_uid);

/** Look up a group by name or decimal id.  Returns 0 and sets @ret_gid, or -ENOENT. */
int idmap_gid(struct idmap *m, const char *name, uint32_t *ret_gid);

#endif /* S2C_SCANNER_IDMAP_H */
