/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Many packages at once: finding them (a directory of packages such as a
 * mirror's pool, walked without following symlinks), taking a stable 1/N
 * slice of them (--shard K/N: the same package lands in the same shard on
 * every machine, whatever the directory layout or listing order), and
 * reading them on a pool of threads, one package per thread at a time, each
 * decompressed once.  A package that cannot be read is a target with an
 * error; the batch goes on.
 */
#ifndef S2C_PKG_BATCH_H
#define S2C_PKG_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct s2c_error;
struct stage;
struct target;
struct target_select;

/** A list of package files.  Owned strings. */
struct batch_list {
	char **paths;
	size_t n;
	size_t skipped_links;   /**< symlinks met in a walk (never followed) */
};

/** Release the list. */
void batch_list_release(struct batch_list *l);

/** Append a copy of @path.  Returns 0 or -ENOMEM. */
int batch_list_add(struct batch_list *l, const char *path);

/** True when @name looks like a binary package: *.deb, *.udeb, *.rpm but not *.src.rpm. */
bool batch_is_package(const char *name);

/**
 * Find every binary package below @dir (batch_is_package()), walking without
 * following symlinks, sorted by path; the paths in @l begin with @dir.
 * @shown is @dir as messages name it (NULL: @dir itself).  Returns 0, or
 * -errno with a message naming the directory that could not be read.
 */
int batch_find(const char *dir, const char *shown, struct batch_list *l, struct s2c_error *err);

/** The shard of @path among @n (0-based): FNV-1a of its base name, modulo @n. */
unsigned batch_shard_of(const char *path, unsigned n);

/** Keep only the paths of shard @k (0-based) of @n. */
void batch_shard(struct batch_list *l, unsigned k, unsigned n);

/** Called after each package is read (on a worker thread): done so far, of total. */
typedef void (*batch_progress_fn)(size_t done, size_t total, void *userdata);

/**
 * Read every package of @l with @threads workers, staging inside @run
 * (one sub-stage per package, "p<index>"); operands named on the command line
 * may be symlinks (@follow), packages found by batch_find() may not.
 * Returns 0 with an array of l->n targets in @ret (same order as @l; free
 * each with target_free() and the array with free()), or -ENOMEM.
 */
int batch_read(const struct batch_list *l, bool follow, unsigned threads,
	       const struct target_select *sel, struct stage *run, batch_progress_fn progress,
	       void *userdata, struct target ***ret);

#endif /* S2C_PKG_BATCH_H */
