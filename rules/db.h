/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rules database: capabilities.json plus one rules file per area, from
 * several directories layered in order (bundled, then /etc, then --db).  A
 * rule in a later directory replaces the earlier rule with the same id.
 *
 * The loader is strict: unknown keys, bad capability texts, duplicate ids,
 * bad globs and overlapping matches are errors naming the file and the JSON
 * path.  The format is documented in suid2cap-rules(5).
 */
#ifndef S2C_RULES_DB_H
#define S2C_RULES_DB_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binary.h"
#include "captable.h"
#include "fcaps.h"
#include "cleanup.h"

struct json_object;
struct rule_override;
struct s2c_error;

/** What a rule (or the engine) decides. */
enum verdict {
	VERDICT_MIGRATE,      /**< replace the set-ID bit by the listed capabilities */
	VERDICT_DROP,         /**< needs no privilege: remove it */
	VERDICT_KEEP,         /**< must stay as it is, with the reason */
	VERDICT_REVIEW,       /**< not conclusive: a person decides */
	_VERDICT_MAX,
	_VERDICT_INVALID = -EINVAL,
};

/** "migrate", "drop", "keep", "review". */
const char *verdict_name(enum verdict v);
/** Parse a verdict name; _VERDICT_INVALID when unknown. */
enum verdict verdict_from_name(const char *s);

/** sysctl comparisons of a condition. */
enum sysctl_op {
	SYSCTL_NONE,
	SYSCTL_RANGE_COVERS,  /**< "lo hi" value includes [a, b] */
	SYSCTL_EQUALS,        /**< value equals a string (blanks normalised) */
	SYSCTL_AT_LEAST,      /**< first integer >= a */
	SYSCTL_AT_MOST,       /**< first integer <= a */
};

/** When a condition holds: every set field must hold. */
struct rule_when {
	bool has_kernel_min, has_kernel_max;
	unsigned kernel_min[3], kernel_max[3];  /**< at least / below */
	const char *kernel_min_text, *kernel_max_text;
	const char *sysctl_name;
	enum sysctl_op sysctl_op;
	int64_t sysctl_a, sysctl_b;
	const char *sysctl_equals;
	const char **os;        /**< os-release IDs, NULL-terminated, or NULL */
	const char *file_exists;
	const char *version_min, *version_max;  /**< the program's version is at least / below */
	int setuid_root;        /**< -1 unset, else whether the file must be set-user-ID root */
};

/** A condition: the first one that holds replaces the verdict. */
struct rule_condition {
	struct rule_when when;
	enum verdict verdict;
	bool has_caps;
	struct fcaps caps;
	const char *caps_text;
	bool has_needs;
	struct fcaps needs;
	const char *reason;
	const char *owner, *group;  /**< after migration when this condition holds, or NULL */
	int mode;                   /**< after migration when this condition holds, or -1 */
};

/**
 * What tells a program apart from others of the same name, read from the
 * binary: every @needed glob matches a DT_NEEDED entry, one @soname glob
 * matches its DT_SONAME, and every string occurs in its read-only data.
 */
struct rule_identify {
	const char **needed;        /**< NULL-terminated fnmatch globs, or NULL */
	const char **soname;        /**< NULL-terminated fnmatch globs, or NULL */
	const char **strings;       /**< NULL-terminated literals, or NULL */
	size_t strings_at;          /**< index of strings[0] in rules_db::strings */
};

/** A name/value pair, e.g. a distro note. */
struct rule_note {
	const char *key, *value;
};

/** One rule.  Strings are borrowed from the loaded JSON. */
struct rule {
	const char *id;
	const char *program;
	const char *file;       /**< file it came from, for messages */
	char where[512];        /**< "$.rules[3]" */
	const char **paths, **names, **packages, **sha256;   /**< NULL-terminated or NULL */
	char **layout;          /**< the layout form of each of @paths (rules/layout.h), same
				     indexes, owned; NULL without paths */
	const char **groups;    /**< match.groups: the file's group is one of these names, or
				     NULL */
	enum verdict verdict;
	bool has_caps;
	struct fcaps caps;
	const char *caps_text;
	bool has_needs;
	struct fcaps needs;
	const char *needs_text;
	const char *owner, *group;  /**< after migration, or NULL */
	int mode;                   /**< after migration, or -1 */
	const char *reason;
	const char **sources;
	struct rule_condition *conditions;
	size_t n_conditions;
	const char **smoke;         /**< argv, "{}" is the file, or NULL */
	struct rule_note *distros;
	size_t n_distros;
	const char *breaks;
	int aware;                  /**< -1 unset, else 0/1 */
	bool has_identify;
	struct rule_identify identify;
	const char *version_prefix; /**< the program's version follows this literal in its
				         read-only data ("beep "), or NULL */
	size_t version_at;          /**< index of version_prefix in rules_db::prefixes */
	const char *accepted_risk;  /**< why a root-equivalent or dangerous migration is
				         accepted, or NULL */
};

/** What one layer of the database contributed. */
struct rules_db_layer {
	char *dir;                  /**< as named when loading */
	const char *label;          /**< rules_layer::label (static), or NULL */
	bool present;               /**< false: an optional layer that does not exist */
	size_t rules;               /**< rules it holds (before layering) */
};

/** The loaded database. */
struct rules_db {
	struct rule **rules;        /**< after layering, sorted by id */
	size_t n;
	struct captable caps;
	bool have_caps;
	char **files;               /**< every file loaded, in order */
	size_t n_files;
	char hash[65];              /**< SHA-256 over every file loaded (name and bytes) */
	struct json_object **docs;  /**< keep the parsed documents alive */
	size_t n_docs;
	struct rule **storage;      /**< all rules ever loaded, including overridden ones, each
				         its own allocation: @rules and the layers point to them */
	size_t n_storage, alloc_storage;
	const char **strings;       /**< literals to look for in binaries: the breakers' strings
				         (as caps.all_strings, same indexes), then every identify
				         string of the rules; NULL-terminated */
	size_t n_strings;
	const char **prefixes;      /**< the rules' version prefixes, NULL-terminated */
	size_t n_prefixes;
	const char **symbols;       /**< every import the engine asks a program or its libraries
				         about (evidence_symbols()): sorted, unique, NULL-terminated */
	size_t n_symbols;
	struct rules_db_layer *layers;  /**< in loading order */
	size_t n_layers;
	struct rule_override *overrides; /**< local overrides of rules' verdicts in force
					      (rules/override.h) */
	size_t n_overrides;
};

/**
 * What the engine asks of a candidate's content under @db (binary_read()):
 * its literals, version prefixes and imports, borrowed from @db.
 */
struct binary_wants rules_db_wants(const struct rules_db *db);

/** Every problem found (rules lint), as "file: $.path: message". */
struct rules_problems {
	char **v;
	size_t n;
};

/** Record @msg (copied; a repeat is ignored).  Returns 0 or -ENOMEM. */
int rules_problems_add(struct rules_problems *p, const char *msg);

/** Free the messages and reset @p. */
void rules_problems_release(struct rules_problems *p);

/**
 * A problem @r (with its message in @local) found while loading: with
 * @collect (rules lint), record it and return 0; without, copy @local to @err
 * and return @r.  -ENOMEM always fails.
 */
int rules_problem(struct rules_problems *collect, int r, struct s2c_error *err,
		  struct s2c_error *local);

/** rules_db_check_overlaps(), each overlap recorded in @collect when given (rules/overlap.c). */
int rules_db_overlaps(const struct rules_db *db, struct rules_problems *collect,
		      struct s2c_error *err);

/** rules_layer::dirfd of an optional layer known to be absent. */
#define RULES_LAYER_ABSENT (-2)

/** One directory of the database. */
struct rules_layer {
	const char *dir;            /**< its name in messages; opened by name when dirfd is -1 */
	int dirfd;                  /**< an open directory (borrowed), -1, or RULES_LAYER_ABSENT */
	bool optional;              /**< when it does not exist, it is skipped */
	const char *label;          /**< what it is, for reports ("bundled", "local", "target",
				         "db"), or NULL */
};

/**
 * Open the target's own local rules, etc/suid2cap/rules.d beneath @rootfd,
 * without following a symbolic link anywhere on the way.
 * @ret_fd  a directory fd, or RULES_LAYER_ABSENT when it does not exist.
 * Returns 0, or -errno with the reason in @err (a symbolic link: -ELOOP).
 */
int rules_db_open_target_layer(int rootfd, int *ret_fd, struct s2c_error *err);

/** Loader behaviour. */
enum rules_load_flags {
	RULES_LOAD_TRUSTED = 1 << 0,   /**< refuse files and dirs not root-owned or group/world-writable */
	RULES_LOAD_NO_OVERLAP = 1 << 1,/**< refuse overlapping rules (always on for lint) */
};

/**
 * Load every directory of the NULL-terminated @dirs in order; a missing
 * directory is skipped unless it is the only one.  capabilities.json must be
 * found in at least one of them.
 * @ret  a new database, free with rules_db_free().
 * Returns 0 or -errno with "file: $.path: message" in @err.
 */
int rules_db_load(const char *const *dirs, enum rules_load_flags flags, struct rules_db **ret,
		  struct s2c_error *err);

/**
 * Load the @n layers in order, as rules_db_load() does.  @collect (rules
 * lint): record every problem there and go on without the bad rule or file,
 * instead of failing at the first; the result is then returned even with
 * problems.  Without @collect, the first problem fails the load.
 */
int rules_db_load_layers(const struct rules_layer *layers, size_t n, enum rules_load_flags flags,
			 struct rules_problems *collect, struct rules_db **ret, struct s2c_error *err);

/** Free; accepts NULL; returns NULL. */
struct rules_db *rules_db_free(struct rules_db *db);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct rules_db *, rules_db_free)

/** The rule with @id, or NULL. */
const struct rule *rules_db_find(const struct rules_db *db, const char *id);

/**
 * Check the layered database for overlaps: two rules whose path globs (or
 * names) can match the same file in any layout and whose package and group
 * lists are not disjoint.  A pattern of a rule narrowed to groups may cover
 * the paths of rules that name no group: theirs are narrower and decide.
 * Returns 0 or -EINVAL naming both rules in @err.
 */
int rules_db_check_overlaps(const struct rules_db *db, struct s2c_error *err);

#endif /* S2C_RULES_DB_H */
