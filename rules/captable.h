/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The capability table (db/capabilities.json): every Linux capability with
 * its risk class, the ELF imports that are evidence for a capability, and the
 * "breakers" — strings and imports showing a program will not work without
 * being setuid root.
 */
#ifndef S2C_RULES_CAPTABLE_H
#define S2C_RULES_CAPTABLE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct s2c_error;

/** How dangerous a capability, or a set of them, is. */
enum risk {
	RISK_NONE,            /**< no privilege at all */
	RISK_LOW,             /**< no known path to root */
	RISK_DANGEROUS,       /**< not root, but a short way from it (net_raw, net_admin, kill…) */
	RISK_ROOT,            /**< root-equivalent: "setuid in disguise" */
	_RISK_MAX,
	_RISK_INVALID = -EINVAL,
};

/** Strength of one piece of ELF evidence. */
enum strength {
	STRENGTH_WEAK,
	STRENGTH_MEDIUM,
	STRENGTH_STRONG,
	_STRENGTH_MAX,
	_STRENGTH_INVALID = -EINVAL,
};

/** What a piece of ELF evidence says. */
enum evidence_kind {
	EVIDENCE_NEEDS,       /**< the program needs the listed capabilities */
	EVIDENCE_AWARE,       /**< the program manages capabilities itself (=p suffices) */
	EVIDENCE_UNKNOWN,     /**< the import hides what the program does (syscall) */
	EVIDENCE_DROPS,       /**< privilege-drop calls that become no-ops under file caps */
	_EVIDENCE_KIND_MAX,
	_EVIDENCE_KIND_INVALID = -EINVAL,
};

/** One capability. Strings are borrowed from the loaded JSON. */
struct cap_info {
	const char *name;     /**< "cap_net_raw" */
	enum risk risk;
	bool situational;     /**< root-equivalent only in some set-ups */
	const char *reason;
	bool known;           /**< listed in the table */
};

/** One evidence entry. */
struct evidence_rule {
	const char **symbols; /**< NULL-terminated, or NULL: NEEDing the library is the evidence */
	const char *library;  /**< fnmatch glob on a DT_NEEDED soname, or NULL */
	uint64_t caps;        /**< capability mask (kind needs) */
	enum strength strength;
	enum evidence_kind kind;
	const char *note;
};

/** One breaker. */
struct breaker {
	const char **strings; /**< literals in read-only data, or NULL */
	const char **symbols; /**< imports, or NULL */
	const char *note;
};

/** The loaded table. */
struct captable {
	struct cap_info caps[64];
	struct evidence_rule *evidence;
	size_t n_evidence;
	struct breaker *breakers;
	size_t n_breakers;
	const char **all_strings;   /**< every breaker string, NULL-terminated (for elfinfo) */
	size_t n_strings;
	const char **general;       /**< fnmatch globs of general libraries (libc, libglib…) whose
				         imports say nothing about the program, NULL-terminated, or NULL */
};

/** True when the soname @soname matches one of the table's general libraries. */
bool captable_general_library(const struct captable *t, const char *soname);

/**
 * Fill @t from the parsed capabilities.json document @doc (which must stay
 * alive as long as @t).  @file names it in messages.
 * Returns 0 or -EINVAL with "file: $.path: message" in @err.
 */
int captable_load(struct captable *t, struct json_object *doc, const char *file,
		  struct s2c_error *err);

/** Free what captable_load() allocated (not the strings). */
void captable_release(struct captable *t);

/** The highest risk of any capability in @mask (RISK_NONE for 0); a capability
 * the table does not list counts as root-equivalent. */
enum risk captable_risk(const struct captable *t, uint64_t mask);

/** Mask of the capabilities of @mask whose risk is exactly @risk. */
uint64_t captable_with_risk(const struct captable *t, uint64_t mask, enum risk risk);

/** "none", "low", "dangerous", "root". */
const char *risk_name(enum risk r);
/** "weak", "medium", "strong". */
const char *strength_name(enum strength s);
/** Parse a risk name; returns the value or _RISK_INVALID. */
enum risk risk_from_name(const char *s);

#endif /* S2C_RULES_CAPTABLE_H */
