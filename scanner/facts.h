/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Facts about one candidate: a regular file that is setuid, setgid or
 * carries file capabilities.  Everything the decision engine and the reports
 * need to know about the file itself, gathered once, relative to the
 * directory fd the walker found it in.
 */
#ifndef S2C_SCANNER_FACTS_H
#define S2C_SCANNER_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fcaps.h"
#include "cleanup.h"

struct binary;
struct file_id;
struct walk_entry;
struct mounts;
struct idmap;

/** Findings about a candidate, as flags; see facts_flag_name(). */
enum facts_flags {
	FACT_SETUID_ROOT = 1 << 0,     /**< setuid and owned by root */
	FACT_SETUID_USER = 1 << 1,     /**< setuid to a user other than root */
	FACT_SETGID = 1 << 2,          /**< setgid */
	FACT_CAPS = 1 << 3,            /**< has file capabilities */
	FACT_SCRIPT = 1 << 4,          /**< a "#!" script: the kernel ignores set-id bits and caps */
	FACT_NOSUID_MOUNT = 1 << 5,    /**< on a nosuid mount: set-id bits and caps are inert */
	FACT_NOEXEC_MOUNT = 1 << 6,    /**< on a noexec mount: cannot be executed at all */
	FACT_SUID_AND_CAPS = 1 << 7,   /**< setuid root and capabilities together */
	FACT_FOREIGN_ROOTID = 1 << 8,  /**< v3 caps for another user namespace: not effective here */
	FACT_HARDLINKS = 1 << 9,       /**< more than one hard link */
	FACT_CAPS_MALFORMED = 1 << 10, /**< the capability xattr is malformed */
	FACT_WRITABLE = 1 << 11,       /**< group- or world-writable */
	FACT_NOT_EXECUTABLE = 1 << 12, /**< no execute bit: the privilege is latent */
	_FACT_MAX = 13,
};

/** The bit number of one flag of enum facts_flags, from 0 to _FACT_MAX - 1. */
#define FACT_BIT(flag) ((unsigned)__builtin_ctz((unsigned)(flag)))

/** Mount the file lives on. */
struct facts_mount {
	char *fstype;           /**< e.g. "ext4"; NULL when unknown */
	char *target;           /**< mount point, NULL when unknown (images) */
	bool nosuid, rdonly, noexec;
};

/** One candidate file.  Owned strings; free with facts_free(). */
struct facts {
	char *path;             /**< absolute within the scanned root */
	uint32_t uid, gid;
	bool uid_later, gid_later; /**< the account does not exist yet: the installation of a
				        package creates it (its id is a stand-in); reports give the
				        name, never the number */
	char *owner, *group;    /**< names, NULL when unknown */
	uint32_t mode;          /**< st_mode including the file type */
	uint64_t size;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint32_t nlink;
	bool has_caps;          /**< a capability xattr exists (possibly malformed) */
	struct fcaps caps;      /**< decoded caps when has_caps and not malformed */
	char *caps_text;        /**< cap_to_text form, NULL without caps */
	char *caps_error;       /**< why the xattr is malformed, NULL when fine */
	unsigned char caps_raw[FCAPS_BLOB_MAX];
	size_t caps_len;        /**< bytes in caps_raw (0 when none or oversized) */
	struct facts_mount mount;
	char *interpreter;      /**< "#!" interpreter for scripts, else NULL */
	uint64_t mnt_id;        /**< mount id when known (host), else 0 */
	enum facts_flags flags;
	struct binary *content; /**< content read during the scan (SCAN_CONTENT, scan.h), else
				     NULL; decide_all() takes it over */
};

/**
 * Build facts from a walker entry (called on a worker thread).  Reads the
 * file's first bytes through an fd opened relative to entry->dirfd without
 * following symlinks, to recognise scripts.  Mount facts come from @mounts by
 * mount id when given, else from fstatvfs(2) on the directory.
 * Names are not filled in; see facts_set_names().
 * @ret  on success a new object.
 * Returns 0 or -errno.
 */
int facts_from_entry(const struct walk_entry *entry, const struct mounts *mounts,
		     struct facts **ret);

/**
 * Compute f->flags from the other fields (owner, mode, capabilities, mount,
 * interpreter, links): for facts built from something else than a walker
 * entry, such as an archive member.
 */
void facts_set_flags(struct facts *f);

/**
 * The identity and state of @f as it was scanned (scanner/fileid.h): device,
 * inode, size, mtime, links, owner, group, permission bits and the exact
 * capability attribute, with the content's @sha256 (64 hex digits; NULL or
 * anything else leaves it "").
 */
void facts_file_id(const struct facts *f, const char *sha256, struct file_id *ret);

/** Fill owner and group names from @ids (not thread-safe). Returns 0 or -ENOMEM. */
int facts_set_names(struct facts *f, struct idmap *ids);

/** Free; accepts NULL; returns NULL. */
struct facts *facts_free(struct facts *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct facts *, facts_free)

/** Stable name of a single flag ("setuid-root", …), NULL for unknown bits. */
const char *facts_flag_name(enum facts_flags flag);

/** One-sentence explanation of a single flag, for reports. */
const char *facts_flag_description(enum facts_flags flag);

/** Octal permission bits including set-id and sticky bits, e.g. "4755". Needs 5 bytes. */
void facts_mode_octal(uint32_t mode, char out[static 5]);

/** ls(1)-style mode string, e.g. "-rwsr-xr-x". Needs 11 bytes. */
void facts_mode_string(uint32_t mode, char out[static 11]);

#endif /* S2C_SCANNER_FACTS_H */
