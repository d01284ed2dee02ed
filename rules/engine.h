/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decision engine: for one privileged file, what it needs and why.
 *
 * Generic facts decide first (a malformed or foreign capability attribute, a
 * script, a nosuid mount, a file nobody can execute).  Then the rules
 * database: the matching rule's verdict, with its conditions evaluated on the
 * target system.  Without a rule, the ELF imports propose a capability set
 * with a confidence.  Either way the ELF evidence is listed, capability-dumb
 * programs get the effective bit, root-equivalent sets are called "setuid in
 * disguise", and strings or imports that show a program insists on being
 * setuid root are reported as likely to break.
 */
#ifndef S2C_RULES_ENGINE_H
#define S2C_RULES_ENGINE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "captable.h"
#include "db.h"
#include "fcaps.h"
#include "cleanup.h"

struct binary;
struct facts;
struct elfinfo;
struct host;
struct idmap;
struct s2c_error;
struct strpool;

/** How sure the decision is. */
enum confidence {
	CONFIDENCE_LOW,
	CONFIDENCE_MEDIUM,
	CONFIDENCE_HIGH,
	_CONFIDENCE_MAX,
	_CONFIDENCE_INVALID = -EINVAL,
};

/** "low", "medium", "high". */
const char *confidence_name(enum confidence c);

/** How a tie between equally good rules was settled. */
enum tie_outcome {
	TIE_NONE,                  /**< one rule matched best, or none */
	TIE_IDENTIFIED,            /**< the binary shows one rule's identify signs */
	TIE_AGREE,                 /**< every tied rule decides the same: the first is used */
	TIE_OPEN,                  /**< nothing settles it: review */
};

/** One piece of evidence from the binary. */
struct evidence_item {
	char *what;                /**< "imports pcap_open_live", "NEEDs libmount.so.1" */
	uint64_t caps;             /**< capabilities it points at (kind needs) */
	enum strength strength;
	enum evidence_kind kind;
	const char *note;          /**< borrowed from the capability table, or NULL */
};

/** One rule condition as evaluated. */
struct condition_result {
	char *text;                /**< "kernel 6.18.44 is below 5.17" */
	int holds;                 /**< 1, 0, or -1 when it could not be determined */
	bool chosen;               /**< this condition set the verdict */
};

/** The decision about one file.  Free with decision_free(). */
struct decision {
	const struct facts *facts;         /**< borrowed */
	struct elfinfo *elf;               /**< owned; NULL when not read */
	char *elf_error;                   /**< why the ELF could not be read */
	char *sha256;                      /**< hex digest, NULL when not computed */
	const char *package;               /**< owning package (borrowed from host), or NULL */
	const char *package_version;       /**< its version (borrowed from host), or NULL */
	char *version;                     /**< the program's version, NULL when unknown */
	const char *version_source;        /**< "binary" (the rule's prefix) or "package" */
	const struct rule *rule;           /**< borrowed; NULL without a rule */
	const char **ambiguous;            /**< ids of the rules that tied for the file (the
					        array owned, the ids borrowed), NULL without */
	size_t n_ambiguous;
	const struct rule_condition *cond; /**< the rule's condition that set the verdict, or NULL */
	const char *owner_after;           /**< the owner's name the rule asked for (borrowed), or NULL */
	const char *group_after;           /**< the group's name the rule asked for (borrowed), or NULL */
	char *match_how;                   /**< why the rule matched */
	char *reason;                      /**< one sentence */
	struct fcaps caps;
	char *caps_text;
	uint64_t needs;                    /**< keep/review: capabilities a migration would need */
	uint32_t uid, gid, mode;           /**< owner, group, permission bits after */
	enum tie_outcome tie;              /**< how a tie between rules was settled */
	enum verdict verdict;
	enum risk risk_now;                /**< what the file grants today */
	enum risk risk;                    /**< what it grants after the verdict */
	enum confidence confidence;
	bool has_caps;                     /**< caps after the change */
	bool changes;                      /**< something must change on disk */
	bool disguise;                     /**< migrate to a root-equivalent set */
	bool aware;                        /**< capability-aware (manages caps itself) */
	bool shared;                       /**< its sentences are a pool's (decision_share()),
					        and so are warnings added later */
	enum verdict overridden;           /**< with @override: the verdict the rule reached */
	struct evidence_item *evidence;
	size_t n_evidence;
	struct condition_result *conditions;
	size_t n_conditions;
	char **warnings;                   /**< likely breakage and other notes */
	size_t n_warnings;
	const char *breaker;               /**< the warning (one of @warnings) saying the program
					        is likely to break without setuid root, or NULL */
	uint64_t proposed;                 /**< evidence-based proposal (no rule) */
	const struct rule_override *override; /**< the local override that set the verdict
					        (rules/override.h, borrowed), or NULL */
};

/** What the engine works with; all borrowed. */
struct engine {
	const struct rules_db *db;
	struct host *host;
	struct idmap *ids;                 /**< names of the target, for owner/group of rules */
	int rootfd;
};

/**
 * Gather what deciding about @n files needs from the target, so that
 * engine_decide() reads nothing: their owning packages, looked up in one
 * pass, what the rules' conditions ask (host_gather()) and the owners and
 * groups the rules name (on the host, asked of NSS).
 * Returns 0 or -ENOMEM.
 */
int engine_prepare(const struct engine *e, const struct facts *const *files, size_t n);

/**
 * Decide about @f, whose content @bin holds (scanner/binary.h: its SHA-256
 * and ELF facts, or why they could not be read).  No I/O: a pure function of
 * the facts, the content, the target's facts and the rules.  A file whose
 * content could not be read still gets a decision (review, with the reason).
 * @bin's members are taken over by the decision (@bin is left empty).
 * Returns 0 with a new decision in @ret, or -ENOMEM.
 */
int engine_decide(const struct engine *e, const struct facts *f, struct binary *bin,
		  struct decision **ret, struct s2c_error *err);

/** Free; accepts NULL; returns NULL. */
struct decision *decision_free(struct decision *d);

DEFINE_TRIVIAL_CLEANUP_FUNC(struct decision *, decision_free)

/**
 * Hand @d's sentences (reason, how the rule matched, why the ELF could not be read, the
 * capabilities' text, evidence, conditions and warnings) to @pool, which keeps each once:
 * many files share them.  @d points into @pool from then on, and decision_free() leaves
 * them to it; free @d before @pool.  Returns 0, or -ENOMEM with those the pool could not
 * take freed and NULL (decision_free() is still right).
 */
int decision_share(struct decision *d, struct strpool *pool);

/**
 * Add the warning @w (taken; freed on failure) to @d after it was decided: into @pool
 * when @d's sentences are the pool's (decision_share()).  Returns 0 or -ENOMEM.
 */
int decision_add_warning(struct decision *d, char *w, struct strpool *pool);

/**
 * Whether the program @elf (the ELF file at @path beneath the root, content
 * hash @sha256 or NULL) is capability-aware, judged as engine_decide() judges
 * a privileged file: the matching rule's "aware" when it has one, else
 * medium or strong ELF evidence of managing capabilities (libcap, libcap-ng,
 * capset).  For `learn`, which runs programs that need not be privileged.
 * Returns 0 with @ret_aware, or -ENOMEM.
 */
int engine_aware(const struct engine *e, const char *path, const char *sha256,
		 const struct elfinfo *elf, bool *ret_aware);

/** True when @basename is a script interpreter (python3, perl, bash…). */
bool engine_is_interpreter(const char *path);

#endif /* S2C_RULES_ENGINE_H */
