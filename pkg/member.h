/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The files of a package or an image as its archives describe them: one
 * member per path, with the type, mode, owner and capabilities as packed,
 * kept in memory.  Only the members that matter to an audit also get their
 * content in the private stage (stage.h); everything else is metadata.
 *
 * Archive names are untrusted.  member_path() turns one into the absolute,
 * normalised path the member has on an installed system, and refuses what
 * an installer would either refuse or have to interpret: absolute names,
 * ".." components, empty names, names longer than PATH_MAX.
 */
#ifndef S2C_PKG_MEMBER_H
#define S2C_PKG_MEMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fcaps.h"
#include "membernotes.h"

struct s2c_error;

/** Longest path accepted, in bytes, without the NUL. */
#define MEMBER_PATH_MAX 4095

/** What a member is (a byte: a million members each keep one). */
enum __attribute__((packed)) member_type {
	MEMBER_FILE,            /**< a regular file */
	MEMBER_DIR,             /**< a directory */
	MEMBER_SYMLINK,         /**< a symbolic link; target in member::target */
	MEMBER_HARDLINK,        /**< another name of the regular file at member::target */
	MEMBER_OTHER,           /**< a device, FIFO or socket */
};

/**
 * The owner and capabilities of a member as packed.  root:root, ids 0:0 and
 * no capabilities, what almost every member has, is one shared by all of
 * them (as is "no names", ids 0:0); any other is the member's own, names and
 * attribute in one allocation.
 */
struct member_owner {
	const char *uname, *gname; /**< NULL when the archive has none */
	uint32_t uid, gid;      /**< numeric owner as packed */
	uint8_t caps_len;       /**< bytes at @caps: 0 when none or oversized */
	unsigned char caps[];   /**< the packed security.capability attribute */
};

/**
 * One path of a package or image.  A package may have millions: the fields
 * are as small as what they hold and ordered so that nothing pads them, what
 * few members have (capabilities, a link's target, an owner other than
 * root:root 0:0) is a pointer, and the path ends the member's own
 * allocation: 38 bytes and the path.
 */
struct member {
	struct member_owner *owner; /**< names, ids and capabilities as packed, never
				     NULL; member_set_owner(), member_set_caps() */
	char *target;           /**< symlink: its target as stored; hard link: the normalised
				     path of the file it names; NULL otherwise */
	uint64_t size;          /**< size of the content */
	int64_t mtime;          /**< seconds */
	uint16_t mode;          /**< permission bits as packed (07777) */
	uint16_t layer;         /**< images: index of the layer that added it (at most
				     OCI_LAYERS_MAX); else 0 */
	enum member_type type;
	bool has_caps : 1;      /**< a security.capability attribute was packed (its bytes
				     member_caps(), none when oversized) */
	bool staged : 1;        /**< its content is in the stage under @path */
	bool candidate : 1;     /**< set-ID, capabilities, or made so at install time */
	bool again : 1;         /**< to keep on a second reading (target_take_again()) */
	bool counted : 1;       /**< its file's model counts against the budget
				     (target_count_candidate()) */
	char path[];            /**< absolute and normalised, "/usr/bin/ping" */
};

/**
 * Normalise the archive name @name: "./usr/bin/x", "usr//bin/./x" and
 * "usr/bin/x/" become "/usr/bin/x"; "." and "./" become "/".
 * Returns 0 with a new string in @ret, or -EINVAL with a message naming the
 * member in @err for an absolute name, a ".." component, an empty name or a
 * name longer than MEMBER_PATH_MAX, or -ENOMEM.
 */
int member_path(const char *name, char **ret, struct s2c_error *err);

/** The file name of @path, after its last '/' (borrowed from @path). */
const char *member_base_name(const char *path);

/**
 * The keyed hash of the string @s (common/strhash.h): the hash of the tables
 * by path and by name, which hostile names cannot make collide.
 */
uint64_t member_hash(const char *s);

/** A new zeroed member owning a copy of @path (already normalised).  NULL on OOM. */
struct member *member_new(const char *path);

/**
 * Set the owner of @m to the names @uname and @gname (copies; NULL: none) and
 * the ids @uid and @gid, its capabilities kept.  Returns 0 or -ENOMEM.
 */
int member_set_owner(struct member *m, const char *uname, const char *gname, uint32_t uid,
		     uint32_t gid);

/** The owner name of @m as packed, NULL when the archive has none. */
static inline const char *member_uname(const struct member *m)
{
	return m->owner->uname;
}

/** The group name of @m as packed, NULL when the archive has none. */
static inline const char *member_gname(const struct member *m)
{
	return m->owner->gname;
}

/** The numeric owner of @m as packed. */
static inline uint32_t member_uid(const struct member *m)
{
	return m->owner->uid;
}

/** The numeric group of @m as packed. */
static inline uint32_t member_gid(const struct member *m)
{
	return m->owner->gid;
}

/**
 * The packed security.capability attribute of @m, member_caps_len() bytes;
 * NULL when it has none or it was oversized (see member::has_caps).
 */
static inline const unsigned char *member_caps(const struct member *m)
{
	return m->owner->caps_len ? m->owner->caps : NULL;
}

/** The bytes at member_caps(), 0 when none. */
static inline size_t member_caps_len(const struct member *m)
{
	return m->owner->caps_len;
}

/**
 * Set the capabilities of @m to the attribute @blob of @len bytes: kept when
 * it is at most FCAPS_BLOB_MAX bytes, else only said to be there (has_caps
 * set, member_caps() NULL).  @blob NULL: none.  The owner is kept.
 * Returns 0 or -ENOMEM.
 */
int member_set_caps(struct member *m, const void *blob, size_t len);

/** Free @m; accepts NULL; returns NULL. */
struct member *member_free(struct member *m);

/** A deep copy of @m, NULL on OOM. */
struct member *member_dup(const struct member *m);

/**
 * Bytes @m takes in memory, its strings and the allocator's overhead
 * included: what a set counts against its budget.
 */
size_t member_bytes(const struct member *m);

/**
 * The kernel module names the members ship (memberset_ships_module()): how
 * many members under /lib/modules or /usr/lib/modules have a base name of
 * that name and ".ko" (and more), by the keyed hash of the name.  Kept as
 * members come and go, so that a lookup costs the same whatever the set.
 */
struct member_modules {
	struct member_module {
		uint64_t hash;  /**< member_hash() of the name */
		size_t n;       /**< members of that name now; 0 once all went */
		bool used;      /**< the slot holds a name (kept when n falls to 0) */
	} *v;                   /**< open addressing; n_slots a power of two, or 0 */
	size_t n_slots, used;
};

/**
 * Members by path: a hash table that owns its members, keyed by
 * member_hash(), so that hostile names cannot make it slow.  Not
 * thread-safe; each target has its own.  Every byte it holds (members with
 * their names, the table, the notes) is counted, and passing @max_bytes is
 * refused with -ENOBUFS.
 *
 * A reader for whose target nothing asks about a regular file it does not
 * keep but its mode, owner and size (a later hard link to it) or whether a
 * directory is one (an image layer's entry below it) sets @note_files: of
 * such a file it keeps a note (memberset_note()), 40 to 56 bytes without
 * the name, in place of the member, so that memory follows what is kept.
 */
struct memberset {
	struct member **slots;  /**< open addressing; NULL or a member */
	size_t n_slots;         /**< a power of two, or 0 */
	size_t n;               /**< members */
	size_t bytes;           /**< memory held, counted as member_bytes(), the table, the notes */
	size_t max_bytes;       /**< the budget; 0: none */
	bool note_files;        /**< the reader notes regular files it does not keep */
	struct membernotes notes; /**< membernotes.h */
	struct member_modules modules; /**< the kernel modules among the members */
};

/**
 * What a set remembers of a regular file it does not keep (memberset_note()):
 * what a hard link to it inherits.
 */
struct member_note {
	uint32_t mode, uid, gid;
	uint64_t size;
	unsigned layer;
};

/** Release every member and the table; the set is empty afterwards (its budget stays). */
void memberset_release(struct memberset *s);

/**
 * Make the table as small as its members need (the load under 1/2, at least 8 slots), so
 * that a set trimmed to what it keeps holds no table sized for all it read; the bytes
 * counted follow.  Nothing changes when the smaller table cannot be allocated.
 */
void memberset_shrink(struct memberset *s);

/**
 * Whether @more bytes fit beside the @used of a budget of @max bytes (0: none), without
 * overflowing.
 */
static inline bool member_budget_fits(size_t max, size_t used, size_t more)
{
	return !max || (more <= max && used <= max - more);
}

/**
 * Count @bytes that the reader holds for the set's package besides its
 * members (an .rpm's header while it is read) against the budget.  Returns
 * 0, or -ENOBUFS with nothing counted; memberset_unhold() gives them back.
 */
int memberset_hold(struct memberset *s, size_t bytes);

/** Give back @bytes that memberset_hold() counted. */
void memberset_unhold(struct memberset *s, size_t bytes);

/**
 * Add @m, taking it over; a member with the same path is replaced (and
 * freed), as a later archive entry or layer replaces an earlier one.
 * Returns 0, -ENOBUFS past the budget or -ENOMEM (then @m is freed).
 */
int memberset_put(struct memberset *s, struct member *m);

/** The member at @path, or NULL. */
struct member *memberset_get(const struct memberset *s, const char *path);

/**
 * Note the regular file @m in place of keeping it: its mode, owner, size and
 * layer under the keyed hash of its path.  A member of the same path must
 * not be in the set (memberset_remove() it first).  A member put later at
 * that path makes the note go.  Returns 0, -ENOBUFS past the budget or
 * -ENOMEM.
 */
int memberset_note(struct memberset *s, const struct member *m);

/**
 * Whether a regular file not kept is at @path (noted, neither replaced by a
 * member nor hidden since by memberset_hide()); its note into @ret (may be
 * NULL).
 */
bool memberset_noted(const struct memberset *s, const char *path, struct member_note *ret);

/**
 * Hide the noted files of layers before @layer at @path (with @self) and
 * below it, as an image layer's whiteout, opaque directory or replacement of
 * a directory hides them: a record of @path, not a pass over the notes.
 * Returns 0, -ENOBUFS past the budget or -ENOMEM.
 */
int memberset_hide(struct memberset *s, const char *path, bool self, unsigned layer);

/** Forget every note and what hid them, once no question about them can come. */
void memberset_forget_notes(struct memberset *s);

/**
 * Remove @path and, when @below, every member under it ("/a" removes
 * "/a/b" but not "/ab").  Returns the number removed.
 */
size_t memberset_remove(struct memberset *s, const char *path, bool below);

/**
 * Remove every member under directory @dir (not @dir itself) that an
 * earlier layer than @layer added: an opaque directory.  Returns the number
 * removed.
 */
size_t memberset_remove_older_below(struct memberset *s, const char *dir, unsigned layer);

/**
 * Remove, in one pass over the set, every member @keep refuses (@keep may be
 * called more than once for a member and must answer alike).  Returns the
 * number removed.
 */
size_t memberset_filter(struct memberset *s, bool (*keep)(struct member *m, void *userdata),
			void *userdata);

/**
 * The members sorted by path (bytes), borrowed from the set.
 * Returns 0 with a new array of s->n pointers in @ret (free() it), or -ENOMEM.
 */
int memberset_sorted(const struct memberset *s, struct member ***ret);

/**
 * Whether a member under /lib/modules or /usr/lib/modules has a base name
 * that is @name followed by ".ko" and anything ("@name.ko", "@name.ko.xz"):
 * the kernel module `modprobe @name` may load.  One lookup.
 */
bool memberset_ships_module(const struct memberset *s, const char *name);

/**
 * Follow symbolic links among the members from @path, as the kernel would on
 * an installed system whose files are exactly @s: a relative target is taken
 * from the link's directory, an absolute one from the root, ".." never
 * climbs above "/", and at most 40 links are followed (ELOOP).  Directory
 * components are resolved too.
 * Returns 0 with the member reached in @ret, -ENOENT when a component does not
 * exist, -ELOOP, -ENOTDIR or -ENOMEM.
 */
int memberset_resolve(const struct memberset *s, const char *path, struct member **ret);

/**
 * Whether @path is there, as memberset_resolve() finds it: a member, or a
 * file not kept whose note is there (memberset_noted()).
 */
bool memberset_exists(const struct memberset *s, const char *path);

/**
 * "/a/./b//c/../d" as "/a/b/d" (".." stops at "/").  Returns a new string, or
 * NULL on OOM.
 */
char *member_normalise(const char *abs);

/**
 * The member an installed system reaches at @path: symbolic links among the
 * members are followed as the kernel would (at most 40), and a directory the
 * members do not have is the system's own, a plain directory (a package need
 * not ship the directories its files are in).
 * Returns 0 with the member in @ret, -ENOENT when none is there, -ELOOP or
 * -ENOMEM.
 */
int memberset_reach(const struct memberset *s, const char *path, struct member **ret);

/**
 * The path an installed system whose files are @s lands on at @path, through the
 * members' symbolic links as memberset_reach() follows them, whether or not a member is
 * there: "/etc/x/link" of a member link to "/usr/bin/passwd" is "/usr/bin/passwd".
 * Returns 0 with a new string in @ret, -ELOOP or -ENOMEM.
 */
int memberset_landing(const struct memberset *s, const char *path, char **ret);

/** Whether a part of @path is @name ("/usr/lib/x" has "lib", not "li"). */
bool member_has_part(const char *path, const char *name);

/** Whether a symbolic link of @s has the last part @base ("/x/lib" for "lib"). */
bool memberset_has_link_named(const struct memberset *s, const char *base);

/**
 * Whether @path is in a directory that holds programs (/usr/bin, /usr/lib, /opt,
 * /usr/local, …), where a system's set-ID programs are: a file there that is not the
 * package's may be one.
 */
bool member_in_program_dir(const char *path);

/**
 * Whether the glob @path, or the tree at @path when it holds no wildcard, may reach
 * into a directory of programs (member_in_program_dir()).  True on OOM.
 */
bool member_reaches_program_dir(const char *path);

#endif /* S2C_PKG_MEMBER_H */
