/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a scan does not walk: other systems' files and what the user excludes.
 *
 * On the running system a live run must change only this system's own files,
 * so the walker leaves out (and reports) other OS roots it finds on the way,
 * container and VM storage, the layers of overlayfs mounts and every user's
 * rootless container storage.  --exclude and the exclude file add paths and
 * globs for any run, live or image.
 *
 * A skip list holds rules: an absolute path or an fnmatch(3) glob matched
 * with FNM_PATHNAME against walked paths (relative to the scan root), each
 * with a reason and the place it came from.  A rule matching a directory
 * leaves out the whole subtree.  Because neither a path nor an FNM_PATHNAME
 * glob can match across a '/', a rule of N components can only match a path
 * of N components: the walker asks skip_list_below() once per directory and
 * stops checking in subtrees no rule can reach, so directories elsewhere
 * cost nothing.
 */
#ifndef S2C_SCANNER_SKIP_H
#define S2C_SCANNER_SKIP_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct mounts;
struct s2c_error;

/** Why a path was not walked. */
enum skip_reason {
	SKIP_OS_ROOT,           /**< another OS root: its own usr/ and os-release */
	SKIP_CONTAINERS,        /**< container or VM storage */
	SKIP_OVERLAY,           /**< a layer (lower, upper, work directory) of an overlayfs mount */
	SKIP_EXCLUDED,          /**< --exclude or the exclude file */
	_SKIP_REASON_MAX,
};

/** One rule. */
struct skip_rule {
	char *pattern;          /**< normalised: absolute, no "." or empty components */
	char *source;           /**< where it came from, for people ("--exclude", "FILE line 3") */
	enum skip_reason reason;
	unsigned depth;         /**< components of the pattern ("/var/lib" has 2) */
	size_t literal;         /**< length of the leading components without glob characters */
	bool glob;              /**< has glob characters: fnmatch, else strcmp */
};

/** A list of rules; zero-initialise, release with skip_list_release(). */
struct skip_list {
	struct skip_rule *v;
	size_t n, alloc;
	unsigned max_depth;     /**< largest rule depth */
};

/** One path a scan left out, as reported (the walker's finding, not the rule). */
struct skip_entry {
	char *path;             /**< relative to the scan root */
	enum skip_reason reason;
	char *source;           /**< the rule's source, NULL for a detected OS root */
};

/** "os-root", "container-storage", "overlay", "excluded". */
const char *skip_reason_name(enum skip_reason r);

/** Inverse of skip_reason_name(); -EINVAL when unknown. */
int skip_reason_from_name(const char *name);

/** Words for people: "OS root", "container storage", "overlayfs layer", "excluded". */
const char *skip_reason_text(enum skip_reason r);

/** True for the reasons reported as other roots (everything but SKIP_EXCLUDED). */
bool skip_reason_is_other_root(enum skip_reason r);

/**
 * Check and normalise @pattern (an absolute path or glob under the root).
 * Refused with -EINVAL and a message in @err (naming the problem, not the
 * pattern's origin): not absolute, a ".." component, "/" itself, an
 * unterminated '[' or a trailing backslash.
 * @ret  on success a new normalised string (free() it).
 */
int skip_pattern_normalise(const char *pattern, char **ret, struct s2c_error *err);

/**
 * Add @pattern with @reason; @source is copied.  Patterns are normalised
 * (see skip_pattern_normalise()).  Returns 0, -ENOMEM, or -EINVAL with a
 * message in @err.
 */
int skip_list_add(struct skip_list *l, const char *pattern, enum skip_reason reason,
		  const char *source, struct s2c_error *err);

/**
 * Read an exclude file: one absolute path or glob per line; blanks around a
 * line are ignored, empty lines and lines starting with '#' too.  The file is
 * @path beneath @rootfd, reached without following any symlink; @display
 * names it in messages.  With @trusted (the caller runs as root) the file
 * must be owned by root and not writable by group or others.
 * Returns 0 (also when the file does not exist), -EPERM for an untrusted
 * file, -EINVAL for a malformed line ("'FILE' line N: ..."), or -errno when
 * it cannot be read; the message is in @err.
 */
int skip_list_load(struct skip_list *l, int rootfd, const char *path, const char *display,
		   bool trusted, struct s2c_error *err);

/**
 * Add the other roots of the running system: container and VM storage
 * (/var/lib/docker, /var/lib/containers, /var/lib/machines, /var/lib/lxc,
 * /var/lib/libvirt/images), every user's ~/.local/share/containers (homes
 * from the passwd database, NSS included, and any /home/USER for users it
 * does not enumerate), and the lower, upper and work
 * directories of the overlayfs mounts in @m — except "/" and a layer that is
 * the mount point of its own overlay or above it, which belong to this system.
 * Returns 0 or -ENOMEM.
 */
int skip_list_add_live(struct skip_list *l, const struct mounts *m);

/**
 * The first rule matching @path, which has @depth components, or NULL.
 * Borrowed pointer.
 */
const struct skip_rule *skip_list_match(const struct skip_list *l, const char *path,
					unsigned depth);

/**
 * True when some rule could match a path strictly below directory @dir
 * (@depth components): a deeper rule whose literal leading part lies below
 * @dir or contains it.
 */
bool skip_list_below(const struct skip_list *l, const char *dir, unsigned depth);

/** Free the rules; the list is empty afterwards. */
void skip_list_release(struct skip_list *l);

/**
 * Is the directory @dirfd another OS root?  True when it holds a "usr"
 * directory and an "os-release" entry (a file or a symlink, not followed) in
 * its "etc" directory or in "usr/lib".  Opened relative to @dirfd with
 * O_NOFOLLOW, so no symlink is followed on the way.
 */
bool skip_is_os_root(int dirfd);

/** Number of components of a normalised absolute path ("/" has 0). */
unsigned skip_path_depth(const char *path);

/** Release what @e owns; the struct is zeroed. */
void skip_entry_release(struct skip_entry *e);

/**
 * The "not_scanned" array shared by the scan, audit and plan documents: per
 * entry of the @n at @v "path" (and "path_hex" when not UTF-8), "reason"
 * (skip_reason_name()) and "source" (where the rule came from, null for a
 * detected OS root; with "source_hex" when not UTF-8).
 * Returns a new array or NULL on OOM.
 */
struct json_object *skip_json(const struct skip_entry *v, size_t n);

#endif /* S2C_SCANNER_SKIP_H */
