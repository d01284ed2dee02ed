/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Facts about the target system that rule conditions depend on: the kernel
 * version, sysctl values, the distribution (os-release), whether a file
 * exists, and which package owns a file (dpkg's database).
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
#include "cleanup.h"

struct s2c_error;

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
	char **pkg_names;            /**< … and their packages (NULL: none) */
	size_t n_pkg;
	bool pkg_db;                 /**< a dpkg database exists under the root */
};

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
 * Look up the owning packages of @n paths at once (one pass over the dpkg
 * file lists, aliases for merged /usr included) and cache them.
 * Returns 0 or -ENOMEM.
 */
int host_load_packages(struct host *h, const char *const *paths, size_t n);

/**
 * Record @package (NULL: none) as the owner of @path, as host_load_packages()
 * would have found it: for a package audited from its archive, whose owner
 * is the package itself.  host_load_packages() keeps it.
 * Returns 0 or -ENOMEM.
 */
int host_set_package(struct host *h, const char *path, const char *package);

/**
 * The cached owner of @path (after host_load_packages()), or NULL when no
 * package owns it or the system has no package database.
 */
const char *host_package_of(const struct host *h, const char *path);

/** What the package database says about a file's content. */
enum host_digest {
	HOST_DIGEST_MATCH,           /**< the package's own content */
	HOST_DIGEST_DIFFERS,         /**< the package shipped other content */
	HOST_DIGEST_UNKNOWN,         /**< no package, or no digest recorded for the file */
	_HOST_DIGEST_MAX,
};

/**
 * Compare the content of the open file @fd, found at @path, with the digest
 * its owning package recorded (dpkg's info/PACKAGE[:ARCH].md5sums under the
 * root; merged-/usr aliases included).  Call host_load_packages() for @path
 * first.  @ret_package (optional) borrows the owner's name.
 * Returns 0 with the answer in @ret, or -errno.
 */
int host_package_digest(const struct host *h, const char *path, int fd, enum host_digest *ret,
			const char **ret_package);

/** Compare a version triple with the kernel's: <0, 0, >0. */
int host_kernel_cmp(const struct host *h, const unsigned v[3]);

#endif /* S2C_RULES_HOST_H */
