/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The private stage: a temporary directory that holds the content of the few
 * archive members an audit needs (set-ID and capability files, the libraries
 * whose imports are evidence, passwd, group, os-release and the like), laid
 * out beneath a root so that the existing audit pipeline can read them.
 *
 * What keeps hostile archives in: the stage directory is created with
 * mkdtemp(3) mode 0700, so only its owner can reach anything inside; every
 * path is created component by component relative to the stage's directory
 * fd with O_NOFOLLOW (a component that is a symlink, or anything but a
 * directory, is refused), files with O_CREAT|O_EXCL|O_NOFOLLOW; names come
 * from member_path() (no "..", no absolute names).  Nothing is ever written
 * through a symlink, so nothing lands outside the stage.
 *
 * What keeps extracted programs from being used: files are created 0600 and
 * stay so.  The mode, owner and capabilities as packed live in memory
 * (member.h); the stage never holds a set-ID bit, an execute bit, a file
 * capability or another owner, so even a process that could reach it could
 * not gain a privilege from an extracted program.
 *
 * Size limits (stage_limits) bound the disk used, and stage_free() removes
 * the whole tree without following symlinks.
 */
#ifndef S2C_PKG_STAGE_H
#define S2C_PKG_STAGE_H

#include <stdbool.h>
#include <stdint.h>

struct s2c_error;

/** What one target (a package or an image) may use. */
struct stage_limits {
	uint64_t max_file;      /**< largest content staged; larger members stay metadata */
	uint64_t max_total;     /**< bytes staged for the target */
	uint64_t max_unpacked;  /**< bytes of archive data read (declared sizes): the
				     decompression-bomb limit */
	uint64_t max_members;   /**< archive entries read */
	uint64_t max_memory;    /**< bytes the member table of a target may hold, names
				     included (struct memberset's budget) */
};

/** Defaults: 256 MiB per file, 2 GiB staged, 16 GiB unpacked, 4 Mi entries, 256 MiB of members. */
#define STAGE_LIMITS_DEFAULT \
	((struct stage_limits){ 256ull << 20, 2ull << 30, 16ull << 30, 4ull << 20, 256ull << 20 })

/** A stage.  Opaque. */
struct stage;

/**
 * Create a stage: a new directory "suid2cap-XXXXXX" (mkdtemp, 0700) in
 * @parent, with an empty "root" directory inside.
 * Returns 0 with the stage in @ret (free with stage_free()), or -errno with
 * a message naming @parent.
 */
int stage_new_temp(const char *parent, struct stage **ret, struct s2c_error *err);

/**
 * Create a stage as a new subdirectory @name (0700, must not exist) of
 * @parent's directory: one per target inside a run's stage.
 */
int stage_new_sub(struct stage *parent, const char *name, struct stage **ret,
		  struct s2c_error *err);

/** The root directory of the stage (an O_PATH fd owned by the stage). */
int stage_rootfd(const struct stage *s);

/** The stage's directory path, for messages and tests. */
const char *stage_dir(const struct stage *s);

/**
 * Create the regular file @path (normalised, absolute) beneath the root for
 * writing: missing parents are made 0700, an existing file at @path is
 * replaced, a symlink or non-directory on the way is refused (-ENOTDIR,
 * -ELOOP), the file is created O_EXCL|O_NOFOLLOW with mode 0600.
 * Returns a new fd (the caller closes it) or -errno with a message.
 */
int stage_create(struct stage *s, const char *path, struct s2c_error *err);

/**
 * Account for @bytes of content about to be staged; -EFBIG with a message
 * when the target's staged total would pass max_total.
 */
int stage_reserve(struct stage *s, uint64_t bytes, struct s2c_error *err);

/** Make the symlink @path -> @target (any text; it is never followed by us). */
int stage_symlink(struct stage *s, const char *path, const char *target, struct s2c_error *err);

/** Make @path another name of the staged file @existing (a hard link within the stage). */
int stage_link(struct stage *s, const char *path, const char *existing, struct s2c_error *err);

/**
 * Give @dst the staged file or symlink @path of @src (a sibling in the same
 * run), as a hard link (or a copy of the symlink).  Does nothing when @dst
 * already has @path.  Returns 0, or -errno.
 */
int stage_share(struct stage *dst, const struct stage *src, const char *path);

/**
 * Remove @path beneath the root, recursively and without following any
 * symlink (a whiteout).  A missing path is not an error.  Returns 0 or -errno.
 */
int stage_remove(struct stage *s, const char *path);

/**
 * Close what the stage keeps open between creations (the directory of the last
 * one), once a target is read: a later creation opens it again.
 */
void stage_idle(struct stage *s);

/** Limits of the stage (set at creation; sub-stages inherit the parent's). */
void stage_set_limits(struct stage *s, const struct stage_limits *lim);

/** The limits in force. */
const struct stage_limits *stage_limits(const struct stage *s);

/** Bytes staged so far. */
uint64_t stage_used(const struct stage *s);

/**
 * Remove the stage's whole tree (without following symlinks) and free it.
 * Accepts NULL; returns NULL.
 */
struct stage *stage_free(struct stage *s);

#endif /* S2C_PKG_STAGE_H */
