/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Facts about the target system that rule conditions depend on: the kernel
 * version, sysctl values, the distribution (os-release), whether a file
 * exists, and which package owns a file, at which version and with which
 * digest (rules/pkgdb: dpkg, rpm, apk and pacman databases).
 *
 * For the host these come from the running system (/proc/sys, uname).  For an
 * image (--root) they come from the image's own files: os-release, sysctl.d
 * configuration and the package database; the kernel is the running one unless
 * the caller sets another.
 */
#ifndef S2C_RULES_HOST_H
#define S2C_RULES_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cleanup.h"
#include "hashindex.h"

struct pkgdb;
struct pkgdb_entry;
struct rules_db;
struct s2c_error;

/** What the target says to one question of a rule's conditions. */
struct host_answer {
	bool file;                   /**< @key is a path whose existence was asked, not a sysctl */
	char *key;                   /**< the sysctl's name or the file's path */
	char *value;                 /**< the sysctl's value, NULL when unknown */
	bool exists;                 /**< the file exists */
};

/** Facts of one target. */
struct host {
	int rootfd;                  /**< borrowed O_PATH fd of the root */
	bool live;                   /**< the running system, not an image */
	unsigned kernel[3];          /**< major, minor, patch */
	char *kernel_release;        /**< "6.18.44-…" */
	char *os_id;                 /**< os-release ID, NULL when unknown */
	char **os_like;              /**< ID_LIKE words, NULL-terminated */
	char *os_pretty;             /**< PRETTY_NAME */
	char **pkg_paths;            /**< package lookup cache: paths … */
	struct pkgdb_entry *pkg;     /**< … and what the package databases say about them */
	size_t n_pkg, a_pkg;
	struct hashindex pkg_index;  /**< positions in pkg_paths by strhash() of the path */
	struct pkgdb *pkgdb;         /**< the package databases under the root */
	bool pkg_db;                 /**< at least one package database exists under the root */
	uint64_t bounding;           /**< capabilities a program there can hold at most: the
					  bounding set of its container; all bits when unbounded */
	char *bounding_what;         /**< where that bounding set comes from, NULL when unbounded */
	struct host_answer *answers; /**< what the rules' conditions ask of the target, gathered
					  before deciding (host_gather()) or given */
	size_t n_answers;
};

/** host::bounding of a target without a limit. */
#define HOST_BOUNDING_ALL UINT64_MAX

/**
 * Gather the facts of the system at @rootfd.  @live: the root is the running
 * system.  @kernel_override: a "major.minor[.patch]" string to use instead of
 * the running kernel, or NULL.
 * Returns 0 with a new object in @ret (free with host_free()), or -errno.
 */
int host_new(int rootfd, bool live, const char *kernel_override, struct host **ret,
	     struct s2c_error *err);

/** Free; accepts NULL; returns NULL. */
struct host *host_free(struct host *h);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct host *, host_free)

/**
 * The value of sysctl @name ("net.ipv4.ping_group_range"), whitespace
 * normalised to single spaces: read from /proc/sys on a live system, from the
 * image's sysctl.d files (falling back to the kernel default for the few
 * settings rules use) otherwise.
 * Returns 0 with a new string in @ret, or -ENOENT when unknown.
 */
int host_sysctl(const struct host *h, const char *name, char **ret);

/** True when the os-release ID or one of ID_LIKE equals @id. */
bool host_os_is(const struct host *h, const char *id);

/** True when @path exists under the root (no symlink is followed). */
bool host_file_exists(const struct host *h, const char *path);

/**
 * Look up the owning packages of @n paths at once (one pass over each
 * package database, aliases for merged /usr included) and cache them.
 * Returns 0 or -ENOMEM.
 */
int host_load_packages(struct host *h, const char *const *paths, size_t n);

/**
 * Record @package at @version (NULL: none) as the owner of @path, as
 * host_load_packages() would have found it: for a package audited from its
 * archive, whose owner is the package itself.  host_load_packages() keeps it.
 * Returns 0 or -ENOMEM.
 */
int host_set_package(struct host *h, const char *path, const char *package,
		     const char *version);

/**
 * The cached owner of @path (after host_load_packages()), or NULL when no
 * package owns it or the system has no package database.
 */
const char *host_package_of(const struct host *h, const char *path);

/**
 * What the package databases say about @path (after host_load_packages()):
 * owner, version, digest.  NULL when no package owns it.  Borrowed.
 */
const struct pkgdb_entry *host_package_entry(const struct host *h, const char *path);

/** What the package database says about a file's content. */
enum host_digest {
	HOST_DIGEST_MATCH,           /**< the package's own content */
	HOST_DIGEST_DIFFERS,         /**< the package shipped other content */
	HOST_DIGEST_UNKNOWN,         /**< no package, or no digest recorded for the file */
	_HOST_DIGEST_MAX,
};

/**
 * Compare the content of the open file @fd, found at @path, with the digest
 * its owning package recorded (dpkg's md5sums, rpm's file digests, apk's Z:
 * checksums, pacman's mtree; rules/pkgdb.h names the algorithms), in the
 * algorithm the database used.  Call host_load_packages() for @path first.
 * @ret_package (optional) borrows the owner's name.
 * Returns 0 with the answer in @ret, or -errno.
 */
int host_package_digest(const struct host *h, const char *path, int fd, enum host_digest *ret,
			const char **ret_package);

/**
 * Set the bounding set programs of the target run with (@what says where it
 * comes from, copied; HOST_BOUNDING_ALL and NULL: no limit).  host_new()
 * sets it from the target: for an image, Docker's default set when it has
 * /.dockerenv and Podman's when it has /run/.containerenv; for the running
 * system, the bounding set of its init (/proc/1/status), when that lacks a
 * capability.  Returns 0 or -ENOMEM.
 */
int host_set_bounding(struct host *h, uint64_t bounding, const char *what);

/**
 * Parse a --bounding-set value: "docker" or "podman" (the runtimes' default
 * sets), "all" (no limit) or capability names separated by commas
 * ("cap_chown,cap_net_raw").  @ret_what receives a static description.
 * Returns 0 or -EINVAL with the reason in @err.
 */
int host_bounding_parse(const char *s, uint64_t *ret, const char **ret_what,
			struct s2c_error *err);

/**
 * The facts of a target that nothing is read from (rootfd -1): kernel @kernel
 * ("major.minor[.patch]"), no distribution, no package database, no bounding
 * set; the caller sets the rest (host_set_package(), host_set_sysctl(),
 * host_set_file(), the fields).  For deciding from facts built in memory.
 * Returns 0 with a new object in @ret, -EINVAL for a bad @kernel, or -ENOMEM.
 */
int host_new_given(const char *kernel, struct host **ret);

/**
 * Read what the conditions of @db's rules ask of the target (sysctl values,
 * files that exist) into @h's answers, once, before deciding: the engine then
 * reads nothing (host_answer_sysctl(), host_answer_file()).  A question
 * already answered keeps its answer; a host without a root (host_new_given())
 * answers "unknown" and "does not exist" to what it was not given.
 * Returns 0 or -ENOMEM.
 */
int host_gather(struct host *h, const struct rules_db *db);

/** Answer the sysctl @name with @value (NULL: unknown).  Returns 0 or -ENOMEM. */
int host_set_sysctl(struct host *h, const char *name, const char *value);

/** Answer whether @path exists.  Returns 0 or -ENOMEM. */
int host_set_file(struct host *h, const char *path, bool exists);

/**
 * The answer gathered or given for the sysctl @name (borrowed), or NULL when
 * it is unknown or was never asked.  No I/O.
 */
const char *host_answer_sysctl(const struct host *h, const char *name);

/** Whether @path exists, as gathered or given (false when never asked).  No I/O. */
bool host_answer_file(const struct host *h, const char *path);

/** Compare a version triple with the kernel's: <0, 0, >0. */
int host_kernel_cmp(const struct host *h, const unsigned v[3]);

#endif /* S2C_RULES_HOST_H */
