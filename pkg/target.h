/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One audited target that is not a running system: a package (.deb, .rpm)
 * or a container image.  The readers (deb.h, rpm.h, oci.h) fill it: its
 * identity, its members as packed, what its maintainer scripts do, and a
 * stage with the content of the members that matter.  target_files() then
 * turns it into the candidates the decision engine works on, each with the
 * state the file has once installed.
 *
 * A target that cannot be read keeps its identity and an error; a batch of
 * targets goes on with the others.
 */
#ifndef S2C_PKG_TARGET_H
#define S2C_PKG_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "maintscript.h"
#include "member.h"

struct facts;
struct s2c_error;
struct stage;

/** What a target is. */
enum target_kind {
	TARGET_DEB,
	TARGET_RPM,
	TARGET_IMAGE,
	_TARGET_KIND_MAX,
};

/** "deb", "rpm", "image". */
const char *target_kind_name(enum target_kind k);

/** What the readers keep of a target's members besides the candidates. */
struct target_select {
	const char *const *lib_globs; /**< fnmatch globs on base names ("libcap.so*") of the
				           libraries whose imports are evidence: staged from any
				           target, for itself and its siblings; NULL-terminated */
	bool system_files;            /**< images: also accounts, os-release, sysctl.d, the
				           container runtime's marker, the package databases (dpkg,
				           rpm, apk, pacman), and every shared library in the
				           library directories, as `audit --root` reads them */
};

/** Most debconf alternatives shown for a package. */
#define TARGET_ALTS_MAX 8

/** What the scripts do where one debconf question is answered otherwise than by default. */
struct target_alt {
	char *label;                /**< "where debconf wireshark-common/install-setuid is true" */
	struct ms_analysis scripts; /**< the actions and what was not worked out */
};

/** One layer of an image. */
struct target_layer {
	char *digest;           /**< "sha256:…" (the diff id, else the blob digest), or NULL */
	char *created_by;       /**< the history entry that made it, or NULL */
};

/** A package or an image. */
struct target {
	enum target_kind kind;
	char *source;           /**< the file or directory as given */
	char *name;             /**< package name; image: its first tag, else the config digest */
	char *version;          /**< package version (rpm: VERSION-RELEASE, with EPOCH: prefix) */
	char *arch;             /**< package or image architecture */
	struct memberset members;
	struct stage *stage;    /**< owned; the content of the members that matter */
	struct ms_analysis scripts; /**< install-time actions, and what they could not work out,
				         with the default debconf answers */
	struct target_alt *alts;    /**< the same with another answer to a debconf question, or
				     a conffile holding the administrator's text */
	size_t n_alts;
	char **notes;           /**< other non-fatal problems ("… not kept: larger than …") that
				     leave the installed state known */
	size_t n_notes;
	char **incomplete;      /**< why the installed state may differ from what the audit
				     predicts, besides scripts.incomplete: a scriptlet in another
				     language, an image not audited */
	size_t n_incomplete;
	struct target_layer *layers; /**< images, in order */
	size_t n_layers;
	char *error;            /**< why the target could not be read, or NULL */
	int error_code;         /**< with @error: the -errno; -ENOBUFS is the memory budget */
	bool bad_digest;        /**< images: the error is a blob that does not match its digest */
};

/** A new empty target of @kind for @source.  NULL on OOM. */
struct target *target_new(enum target_kind kind, const char *source);

/** Free; removes its stage.  Accepts NULL; returns NULL. */
struct target *target_free(struct target *t);

/** Append a formatted note.  Returns 0 or -ENOMEM. */
int target_note(struct target *t, const char *fmt, ...) S2C_PRINTF(2, 3);

/**
 * Record why the audit of @t is incomplete: something that can change the
 * installed state of its files was not modelled.  Returns 0 or -ENOMEM.
 */
int target_incomplete(struct target *t, const char *fmt, ...) S2C_PRINTF(2, 3);

/** Whether @t's audit is complete: neither the target nor its scripts are incomplete. */
bool target_complete(const struct target *t);

/**
 * Record @err (or @r's text) as the target's error and drop its stage; past the memory
 * budget (-ENOBUFS) its members too.  Returns -ENOMEM or 0.
 */
int target_fail(struct target *t, int r, const struct s2c_error *err);

/**
 * The end of every reader: @r is what reading @t returned.  A failure other
 * than -ENOMEM is recorded on @t (target_fail()) and @t is still returned in
 * @ret, so the run goes on; -ENOMEM frees @t.  -ENOBUFS, the member table
 * past its budget (memberset::max_bytes), is recorded with a message naming
 * the budget.  Returns 0 or -ENOMEM.
 */
int target_read_done(struct target *t, int r, const struct s2c_error *err, struct target **ret);

/**
 * Whether a member at @path must be kept: set-ID or capabilities as packed,
 * named by an install-time action (also by a glob, or below a recursive
 * one), a library matching @sel->lib_globs, or (for system_files) a file the
 * audit of a root reads.  Sets @ret_candidate when it is a candidate.
 */
bool target_wants(const struct target *t, const struct target_select *sel, const struct member *m,
		  bool *ret_candidate);

/**
 * Whether @path is a tmpfiles.d entry file ("/usr/lib/tmpfiles.d/….conf"),
 * which systemd-tmpfiles reads: a .deb's second reading keeps it.
 */
bool target_tmpfiles_conf(const char *path);

struct archive;
struct archive_entry;
struct arread_budget;

/**
 * What the decision and report model of one privileged file takes until the report is
 * written, besides its member: a script's, measured, about 2.1 KB.  Every candidate kept
 * in the stage counts it against the target's memory budget (target_count_candidate()),
 * so that a small archive of many set-ID files is refused, not audited past the budget.
 */
#define TARGET_FILE_MODEL_BYTES 2048u

/**
 * Count TARGET_FILE_MODEL_BYTES against @t's budget, once, when @m is a candidate kept in
 * the stage (one that may be decided and reported): when it is kept, and again for every
 * privileged file target_files() makes, for a member the scripts made a candidate after
 * it was kept.  Not given back when a later layer replaces or hides the member: the
 * budget errs on the side of refusing.  Returns 0, or -ENOBUFS with nothing counted.
 */
int target_count_candidate(struct target *t, struct member *m);

/** -ENOBUFS, with the message that names @t's budget in @err. */
int target_over_budget(const struct target *t, struct s2c_error *err);

/**
 * Whether what @t keeps once read (memberset::bytes: its members, its table, its notes and
 * the models counted) fits, with the @kept bytes of the targets of the run read before it,
 * in the budget each has: many targets each within it must not add up past it.  Added to
 * @kept when it does; a target that failed keeps nothing and fits.
 */
bool target_run_keeps(const struct target *t, size_t *kept);

/**
 * Fail @t, read, because what the run keeps with it would pass the budget
 * (target_run_keeps()): its members are given back (target_fail()) and its error names the
 * budget.
 * Returns 0 or -ENOMEM.
 */
int target_over_run_budget(struct target *t);

/**
 * Take the entry @e of @a (its header just read) into @t: its member, and,
 * when target_wants() says so, its content (a file), its target (a symlink)
 * or its other name (a hard link to a kept file) in the stage, which is
 * created on first use as @stage_name inside @run.  A hard link to a
 * candidate is a candidate with the same mode, owner and capabilities.  A
 * file too large to keep stays a candidate without content (a note says so).
 * @layer: images, the index of the layer; 0 otherwise.  When the reader
 * set memberset::note_files, a regular file that is not kept and that
 * target_trim() would drop is noted instead (memberset_note()), so that
 * memory follows what is kept, not the archive.  A candidate kept counts
 * target_count_candidate().
 * Returns 0, -ENOBUFS past the budget with a message naming it, or -errno with
 * a message naming the member.
 */
int target_take_entry(struct target *t, struct archive *a, struct archive_entry *e,
		      const struct target_select *sel, struct stage *run, const char *stage_name,
		      unsigned layer, struct s2c_error *err);

/**
 * On a second reading of a target's archive: keep the content of the entry
 * @e of @a when its member is marked member::again and is not kept yet (the
 * scripts' second analysis, with the members known, named it).  One lookup
 * by path per entry.
 * Returns 0, or -errno with a message naming the member.
 */
int target_take_again(struct target *t, struct archive *a, struct archive_entry *e,
		      struct stage *run, const char *stage_name, struct s2c_error *err);

/**
 * Mark @t incomplete for each module it ships where another package's trigger loads
 * every package's modules as root during the installation (gdk-pixbuf loaders, GIO
 * modules, GTK input methods): its code runs, and the audit does not run it.  For
 * packages, not images.  Returns 0 or -ENOMEM.
 */
int target_check_loaded(struct target *t);

/**
 * Drop the members that are neither kept, candidates, nor shared libraries,
 * and the notes of files not kept: one pass over the members.
 */
void target_trim(struct target *t);

/** A privileged file of a target, as installed. */
struct target_file {
	struct facts *facts;            /**< the installed state: owned */
	const struct member *member;    /**< as packed (borrowed from the target) */
	bool changed;                   /**< install-time actions changed the packed state */
	bool has_fallback;              /**< where setcap fails it ends differently … */
	uint32_t fallback_mode;         /**< … with this mode, */
	const char *fallback_owner, *fallback_group; /**< owner and group (borrowed), */
	bool fallback_caps;             /**< and capabilities or not */
	const struct ms_action **actions; /**< the actions on it, in order (owned array) */
	size_t n_actions;
};

/**
 * The privileged files of @t once installed: every candidate member with the
 * install-time actions of the scenario where setcap works applied (and the
 * fallback computed), kept only when it ends set-ID, with capabilities, or
 * was privileged as packed.  Owner and group names become ids through the
 * names the archive packed (root is 0); names only the scripts mention get
 * placeholder ids from TARGET_ID_PLACEHOLDER up, and for packages an
 * etc/passwd and etc/group with all of them are written into the stage so
 * that the engine names them alike.  Each file must be staged: dev and inode
 * are the staged copy's, so the engine reads that copy.  Each counts
 * target_count_candidate().
 * Returns 0 with a new array in @ret (free with target_files_free()),
 * -ENOBUFS past the budget, or -errno with a message.
 */
int target_files(struct target *t, struct target_file **ret, size_t *ret_n, struct s2c_error *err);

/**
 * Note on @t what each of its debconf alternatives (t->alts) would install
 * differently: every file whose state differs from the default answers' and
 * is privileged in one of them, and what could not be worked out there.
 * Called by the reader while every member is known.  Returns 0 or -ENOMEM.
 */
int target_alt_notes(struct target *t);

/**
 * A new alternative of @t labelled @label (taken, even on failure), its analysis
 * empty for the reader to fill: NULL on OOM or past TARGET_ALTS_MAX (@label
 * freed).
 */
struct ms_analysis *target_alt_add(struct target *t, char *label);

/** Forget every alternative of @t. */
void target_alts_release(struct target *t);

/** Free @n files from target_files(). */
void target_files_free(struct target_file *v, size_t n);

/**
 * Give @t's stage the kept libraries of the other targets of a run that it
 * does not have itself (its own come first, then @all in order), so that the
 * evidence from a library's imports is found for a program whose library
 * comes in a sibling package.  Returns the number shared, or -ENOMEM.
 */
int target_share_libs(struct target *t, struct target *const *all, size_t n);

/** The libraries of all targets of a run, by file name. */
struct libindex {
	struct libentry {
		const char *name;       /**< base name, "libcap.so.2" (borrowed from a member) */
		const char *path;       /**< the member's path (borrowed) */
		size_t target;          /**< index into the targets */
	} *slots;
	size_t n_slots, n;
};

/**
 * Index the library files and links (in library directories) of @n targets.
 * The targets must outlive the index.  Returns 0 or -ENOMEM.
 */
int libindex_build(struct libindex *x, struct target *const *all, size_t n);

/** Free the index. */
void libindex_release(struct libindex *x);

/**
 * Which target provides the library @soname for target @self: @self itself
 * when it has one, else the first other target in order.  Returns the index
 * and sets @ret_path (borrowed), or SIZE_MAX.
 */
size_t libindex_find(const struct libindex *x, size_t self, const char *soname,
		     const char **ret_path);

/** First id given to a name that only maintainer scripts mention. */
#define TARGET_ID_PLACEHOLDER 2147483648u

#endif /* S2C_PKG_TARGET_H */
