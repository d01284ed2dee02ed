/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audit model: the decisions about every privileged file of one scan,
 * summarised, classified into stable findings, and laid out as the rows of
 * one file table.  audittext.h, auditjson.h, markdown.h, html.h and sarif.h
 * render the same model.
 *
 * A finding is one concern about one file, with a stable id (S2C001…) that
 * every format uses: the SARIF rule id, the "findings" list of each file in
 * the JSON document, the rule column of the HTML and Markdown reports.  Each
 * file has one verdict finding (S2C001–S2C004), except a file already in the
 * state its verdict asks for ("nothing to change"), which has none, and any
 * number of the others.  Ids are never reused or renumbered.
 *
 * Every format groups the files by their state (enum audit_state): the
 * verdict, or "nothing to change" for a migrate or drop with nothing left to do.
 *
 * The renderers write to a stream the caller owns, never print on their own
 * and keep no state; every file name, owner, reason and warning is escaped for
 * the format (escape_text() for text, Markdown escapes, UTF-8-safe JSON).
 */
#ifndef S2C_REPORT_AUDIT_H
#define S2C_REPORT_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "captable.h"
#include "db.h"

struct decision;
struct host;
struct spill;
struct spill_cursor;
struct learn_record;
struct json_object;
struct skip_entry;
struct waiver;
struct waiver_list;

/** Version of the audit JSON document ("schema" key). */
#define AUDIT_SCHEMA 1

/** The kinds of finding; the order is the order of the ids. */
enum audit_finding {
	AUDIT_MIGRATE,        /**< S2C001 verdict migrate: capabilities can replace the set-ID bit */
	AUDIT_DROP,           /**< S2C002 verdict drop: the privilege can simply go */
	AUDIT_KEEP,           /**< S2C003 verdict keep: must stay as it is (note) */
	AUDIT_REVIEW,         /**< S2C004 verdict review: a person decides */
	AUDIT_DISGUISE,       /**< S2C005 the capability set kept or proposed is root-equivalent */
	AUDIT_DANGEROUS_CAPS, /**< S2C006 file capabilities today graded dangerous or root */
	AUDIT_BREAKS,         /**< S2C007 a change is proposed but the binary insists on setuid root */
	AUDIT_WRITABLE,       /**< S2C008 a privileged file writable by group or others */
	_AUDIT_FINDING_MAX,
};

/** What a report says about a file: its verdict, or that nothing is left to do. */
enum audit_state {
	AUDIT_STATE_MIGRATE,  /**< verdict migrate, and the file would change */
	AUDIT_STATE_DROP,     /**< verdict drop, and the file would change */
	AUDIT_STATE_REVIEW,   /**< verdict review */
	AUDIT_STATE_KEEP,     /**< verdict keep */
	AUDIT_STATE_DONE,     /**< migrate or drop of a file already in the state after */
	_AUDIT_STATE_MAX,
};

/** SARIF-style level of a finding. */
enum audit_level {
	AUDIT_LEVEL_NOTE,
	AUDIT_LEVEL_WARNING,
	AUDIT_LEVEL_ERROR,
	_AUDIT_LEVEL_MAX,
};

/** The static description of a finding kind. */
struct audit_finding_info {
	const char *id;             /**< "S2C001" */
	const char *name;           /**< "SetuidCanMigrate" (SARIF reportingDescriptor.name) */
	const char *title;          /**< short description, one line */
	const char *description;    /**< full description, a few sentences */
	const char *severity;       /**< SARIF "security-severity", "0.0".."10.0" */
	enum audit_level level;     /**< default level (results may differ, see audit_finding_level()) */
};

/**
 * Who audited what, where and when, so that the reports of many hosts,
 * images or package shards can be told apart and merged (report merge).
 * All pointers are borrowed; NULL when unknown.
 */
struct audit_identity {
	const char *hostname;       /**< the target's host name (the host, or an image root's
				         /etc/hostname) */
	const char *machine_id;     /**< SHA-256 of the target's machine id (never the id itself) */
	const char *time;           /**< when the audit ran, "YYYY-MM-DDTHH:MM:SSZ" */
	const char *auditor;        /**< the host that ran suid2cap when it is not the target
				         (packages, images, --root) */
	const char *shard;          /**< "K/N" of a package run split with --shard */
	const char *label;          /**< the user's name for the target (--label), so that
				         merged reports tell apart targets that share a host
				         name */
};

/** A library a program of a package needs, and which package of the run has it. */
struct audit_lib {
	const char *soname;         /**< "libcap.so.2" */
	const char *provider;       /**< the package or image that has it, NULL: not in the run */
	const char *path;           /**< where it has it, or NULL */
};

/**
 * Where a file of a package or image audit comes from.  Borrowed pointers;
 * NULL when not applicable.
 */
struct audit_origin {
	size_t target;              /**< index into audit::targets */
	long layer;                 /**< images: the index of the layer that added it; else -1 */
	const char *packed;         /**< the state as packed ("0755 root:root") when
				         install-time actions change it */
	const char *fallback;       /**< the state where setcap fails ("4755 root:root"),
				         when it differs from the installed one */
	const char *const *install; /**< install-time actions on the file ("postinst:12
				         [setcap works]: setcap cap_net_raw+ep $PROGRAM"),
				         NULL-terminated */
	const struct audit_lib *libs; /**< packages: its NEEDED libraries and who has them */
	size_t n_libs;
};

/** One package or image of an audit.  Borrowed pointers. */
struct audit_target {
	const char *kind;           /**< "deb", "rpm", "image" */
	const char *source;         /**< the file or directory as given */
	const char *name;           /**< package name, image tag or config digest; NULL when unread */
	const char *version;        /**< package version, image config digest */
	const char *arch;           /**< architecture */
	const char *error;          /**< why it could not be read, or NULL */
	const char *const *notes;   /**< NULL-terminated, or NULL */
	const char *const *incomplete; /**< why the installed state may differ from the report
				         (NULL-terminated), or NULL when the audit is complete */
	const char *const *layers;  /**< images: layer digests, in order (entries may be NULL) */
	const char *const *layer_commands; /**< images: what made each layer, or NULL entries */
	size_t n_layers;
	const char *plan_format;    /**< "deb", "rpm", "dockerfile" */
	const char *plan;           /**< the snippet that makes the migration durable, or NULL when
				         nothing would change */
	size_t files;               /**< privileged files */
};

/** Everything an audit report shows.  All pointers are borrowed. */
struct audit {
	const char *root;           /**< the root as given ("/" for the host) */
	const char *const *paths;   /**< start paths under the root, NULL-terminated; NULL: all */
	const char *root_abs;       /**< the same, absolute and without a trailing "/" except "/";
				         used for SARIF originalUriBaseIds */
	bool complete;              /**< the scan read everything (no warnings) */
	uint64_t scan_warnings;     /**< parts the scan could not read (targets: that could not be
				         read) */
	size_t targets_incomplete;  /**< targets read whose audit is incomplete */
	bool incomplete_allowed;    /**< the user accepted the incomplete targets
				         (--allow-incomplete): every format says so */
	uint64_t directories;       /**< directories walked */
	uint64_t entries;           /**< directory entries seen */
	const struct skip_entry *not_scanned; /**< what the scan left out, sorted (scan.h) */
	size_t n_not_scanned;
	const struct rules_db *db;
	const struct host *host;
	const char *ping_group_range; /**< net.ipv4.ping_group_range of the target, or NULL */
	struct decision *const *v;  /**< one per privileged file, sorted by path; NULL with @files */
	size_t n;                   /**< privileged files */
	struct spill *files;        /**< or: their records (rules/decisionrec.h) by path, read a
				         file at a time with audit_cursor_start() */
	const char *const *argv;    /**< the command line (SARIF invocation), NULL-terminated, or NULL */
	struct learn_record *const *learned; /**< what `learn` observed, parallel to @v (NULL
						   entries for files without a record), or NULL */
	const struct learn_record *(*learned_of)(const void *userdata, const struct decision *d);
					/**< with @files: what `learn` observed of @d, or NULL */
	const void *learned_userdata;
	const struct audit_identity *identity; /**< or NULL */
	const struct audit_target *targets; /**< packages or images; NULL for a tree */
	size_t n_targets;
	const struct audit_origin *origins; /**< parallel to v when targets is set */
	const struct waiver_list *waivers; /**< accepted findings (report/waiver.h), or NULL; they
					     expire after the day of identity->time */
};

/**
 * One reading of an audit's files in path order: each file's decision, with
 * what `learn` observed and, for packages and images, where it comes from.
 * Files kept as records (audit::files) are read back one at a time, so a
 * reading costs one file's model whatever their number; several readings
 * may go on at once.
 *
 *	_cleanup_(audit_cursor_release) struct audit_cursor c = { 0 };
 *	for (r = audit_cursor_start(a, &c); r == 0 && c.d; r = audit_cursor_next(a, &c))
 *		...
 */
struct audit_cursor {
	size_t i;                   /**< the file's position in path order, from 0 */
	const struct decision *d;   /**< NULL after the last file */
	const struct learn_record *learned; /**< or NULL */
	const struct audit_origin *origin;  /**< packages and images, else NULL */
	struct spill_cursor *sc;    /* private */
	void *rec;                  /* private: the record read back */
};

/** Start @c (zeroed) at the first file of @a.  Returns 0, or -errno of reading a record. */
int audit_cursor_start(const struct audit *a, struct audit_cursor *c);

/** Move @c to the next file.  Returns 0, or -errno of reading a record. */
int audit_cursor_next(const struct audit *a, struct audit_cursor *c);

/** Free what @c holds; it is zeroed. */
void audit_cursor_release(struct audit_cursor *c);

/** Counts over all files of an audit. */
struct audit_summary {
	size_t files;
	size_t verdicts[_VERDICT_MAX];      /**< indexed by enum verdict */
	size_t states[_AUDIT_STATE_MAX];    /**< indexed by enum audit_state */
	size_t risk_now[_RISK_MAX];         /**< grade of what each file grants today */
	size_t risk_after[_RISK_MAX];       /**< grade after the verdict */
	size_t findings[_AUDIT_FINDING_MAX];/**< files with each finding */
	size_t levels[_AUDIT_LEVEL_MAX];    /**< findings by their level (audit_finding_level()),
					         every finding of every file once, but not the
					         waived ones */
	size_t waived;                      /**< findings a waiver accepts */
	size_t waivers_stale;               /**< waivers in force that match no finding */
	size_t waivers_expired;             /**< waivers past their expiry date */
	size_t disguise;                    /**< files with AUDIT_DISGUISE */
	size_t changes;                     /**< files the migration would change */
};

/** Description of @f (a valid value).  Points to static storage. */
const struct audit_finding_info *audit_finding_info(enum audit_finding f);

/** "note", "warning", "error". */
const char *audit_level_name(enum audit_level l);

/** The state of @d: its verdict, or AUDIT_STATE_DONE for a migrate or drop without change. */
enum audit_state audit_state(const struct decision *d);

/** "migrate", "drop", "review", "keep", "nothing to change". */
const char *audit_state_name(enum audit_state s);

/**
 * What a state means, for the heading of its table: "file capabilities replace
 * the set-ID bit", "already in the state the verdict asks for".
 */
const char *audit_state_title(enum audit_state s);

/** The order the reports show the states in: what to act on first, nothing to change last. */
extern const enum audit_state audit_state_order[_AUDIT_STATE_MAX];

/** The ANSI colour of a state's heading (text reports). */
const char *audit_state_color(enum audit_state s);

/**
 * The findings of decision @d as a bit mask (bit n = enum audit_finding n).
 * @a gives the capability table used to grade capability sets.
 */
unsigned audit_findings(const struct audit *a, const struct decision *d);

/**
 * The level of finding @f for decision @d: verdict findings follow the risk
 * the file carries today (root: error, dangerous: warning, else note) except
 * keep, always a note; S2C005 and S2C008 are errors; S2C006 follows the grade
 * of the existing capabilities; S2C007 is a warning.
 */
enum audit_level audit_finding_level(const struct audit *a, const struct decision *d,
			     enum audit_finding f);

/**
 * The waiver in force for finding @f of @d (the first of a->waivers that
 * names it and has not expired), or NULL.
 */
const struct waiver *audit_waiver(const struct audit *a, const struct decision *d,
				  enum audit_finding f);

/** The first expired waiver naming finding @f of @d, or NULL. */
const struct waiver *audit_waiver_expired(const struct audit *a, const struct decision *d,
					  enum audit_finding f);

/** The findings of @d a waiver accepts, as a bit mask like audit_findings(). */
unsigned audit_waived(const struct audit *a, const struct decision *d);

/** What became of a waiver. */
enum audit_waiver_status {
	AUDIT_WAIVER_USED,      /**< in force and names at least one finding */
	AUDIT_WAIVER_STALE,     /**< in force but names no finding of this audit */
	AUDIT_WAIVER_EXPIRED,   /**< past its expiry date: waives nothing */
	_AUDIT_WAIVER_STATUS_MAX,
};

/** "used", "stale", "expired". */
const char *audit_waiver_status_name(enum audit_waiver_status s);

/**
 * The status of waiver @w (one of a->waivers) in *@ret and, in @ret_findings
 * if not NULL, how many findings of the audit it names.  Returns 0, or -errno
 * of reading the files.
 */
int audit_waiver_status(const struct audit *a, const struct waiver *w,
			enum audit_waiver_status *ret, size_t *ret_findings);

/**
 * A waiver for people, raw (each renderer escapes it): "S2C003 (FILE line 3,
 * expires 2027-01-31): reason".  NULL on OOM; free() it.
 */
char *audit_waiver_text(const struct waiver *w);

/**
 * Call @fn for each finding of @d that a waiver names, in finding order:
 * @label is "waived" (a waiver in force) or "waiver expired", @text the raw
 * audit_waiver_text() of that waiver.  Returns 0, the first negative value
 * @fn returns, or -ENOMEM.
 */
int audit_waived_each(const struct audit *a, const struct decision *d,
		      int (*fn)(void *userdata, const char *label, const char *text),
		      void *userdata);

/**
 * Fill @ret with the counts over every file of @a (written in full).
 * Returns 0, or -errno of reading the files.
 */
int audit_summarise(const struct audit *a, struct audit_summary *ret);

/**
 * The warning of @d saying the program is likely to break without setuid
 * root (the engine's breaker evidence: strings or imports showing it insists
 * on being root), or NULL.  Borrowed from @d.
 */
const char *audit_breaker(const struct decision *d);

/**
 * The file's capabilities today as text: getcap's form, "(malformed)" for a
 * malformed attribute, or NULL without capabilities.  Borrowed from @d.
 */
const char *audit_caps_now(const struct decision *d);

/**
 * "UID:GID" of a file after the decision @d, in @buf of @n bytes: an account a
 * package's installation creates (facts::uid_later, gid_later) by its name.
 * Returns @buf.
 */
const char *audit_ids_after(const struct decision *d, char *buf, size_t n);


/**
 * The bounding set programs of the target run with, for people: "full", "all
 * but cap_sys_resource" (when that is the shorter way to say it), or the
 * capabilities it holds ("no capabilities" for none).  Where it comes from is
 * host->bounding_what.  A new string (free() it), or NULL on OOM.
 */
char *audit_bounding_text(const struct host *h);

/** The ANSI colour of a verdict heading (text reports and explain). */
const char *audit_verdict_color(enum verdict v);

/** The ANSI colour of a risk grade ("" for low and none). */
const char *audit_risk_color(enum risk r);

/**
 * One row of the file table, the same cells in every format.  Texts are raw
 * (each renderer escapes them for its format); "after" members are NULL, or
 * equal to the "now" ones, when nothing changes.
 */
struct audit_row {
	const struct decision *d;   /**< borrowed */
	size_t number;              /**< 1-based position in path order */
	const char *path;           /**< borrowed */
	char *owner, *owner_after;  /**< "owner:group" (ids where a name is unknown); the new
				         owner as "uid:gid", NULL when it stays */
	char mode[5], mode_after[5];
	const char *caps, *caps_after; /**< getcap text, "(malformed)", or NULL for none; borrowed */
	enum risk risk, risk_after;
	const char *rule;           /**< rule id, "(ambiguous)", or NULL; borrowed */
	unsigned findings;          /**< audit_findings() */
};

/**
 * Fill @row, the row of @a's file table for the file at @c; made when written
 * and released at once, so that a table of many files costs the memory of one
 * row.  Returns 0 or -ENOMEM (@row then holds nothing to release).
 */
int audit_row_fill(const struct audit *a, const struct audit_cursor *c, struct audit_row *row);

/** Free what audit_row_fill() put in @row. */
void audit_row_release(struct audit_row *row);

#endif /* S2C_REPORT_AUDIT_H */
