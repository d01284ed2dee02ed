/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which rule describes a file.
 *
 * A rule matches by path glob, or (weaker, only when no rule matches by path)
 * by file name.  When the owning package is known, rules listing other
 * packages do not match and rules listing this one are preferred.  A rule
 * with sha256 digests matches only files with one of them, and goes before
 * every rule without: it is about that exact build.  Among the rest an
 * exact path beats a glob, and a glob with more literal characters beats a
 * looser one; a tie is ambiguous and reported as such.
 */
#ifndef S2C_RULES_MATCH_H
#define S2C_RULES_MATCH_H

#include <stdbool.h>
#include <stddef.h>

struct rule;
struct rules_db;

/** The outcome of matching one file. */
struct match_result {
	const struct rule *rule;       /**< the best rule, NULL when none or ambiguous */
	const struct rule *tied[8];    /**< rules tied for best when ambiguous */
	size_t n_tied;
	char how[512];                 /**< why it matched: "path '/usr/bin/ping' matches '/usr/bin/ping'" */
};

/**
 * Match @path (and its basename) against @db.
 * @package  owning package, or NULL when unknown.
 * @sha256   lowercase hex digest of the file, or NULL when not computed
 *           (rules with digests then do not match).
 * Always succeeds; result->rule is NULL when nothing or several rules match.
 */
void match_file(const struct rules_db *db, const char *path, const char *package,
		const char *sha256, struct match_result *result);

#endif /* S2C_RULES_MATCH_H */
