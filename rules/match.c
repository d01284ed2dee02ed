/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "glob.h"
#include "match.h"
#include "common.h"

/* Score of a glob: exact paths first, then by literal characters. */
static unsigned glob_score(const char *g)
{
	unsigned literal = 0;
	bool wild = false;

	for (const char *p = g; *p; p++) {
		if (*p == '*' || *p == '?' || *p == '[')
			wild = true;
		else
			literal++;
	}
	return wild ? literal : 1u << 20;
}

static bool in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; list && list[i]; i++)
		if (s2c_streq(list[i], s))
			return true;
	return false;
}

struct score {
	unsigned build;        /* 1: the rule lists the file's SHA-256 (one exact build) */
	unsigned pkg;          /* 1: the rule lists the owning package */
	unsigned path;         /* glob score, 0 for a name match */
};

static int score_cmp(struct score a, struct score b)
{
	if (a.build != b.build)
		return a.build < b.build ? -1 : 1;
	if (a.pkg != b.pkg)
		return a.pkg < b.pkg ? -1 : 1;
	if (a.path != b.path)
		return a.path < b.path ? -1 : 1;
	return 0;
}

void match_file(const struct rules_db *db, const char *path, const char *package,
		const char *sha256, struct match_result *res)
{
	const char *base = strrchr(path, '/');
	struct score best = { 0, 0, 0 };
	bool by_path = false;
	const char *best_glob = NULL;

	memset(res, 0, sizeof(*res));
	base = base ? base + 1 : path;
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0: paths; pass 1: names, only when no path matched */
		if (pass == 1 && by_path)
			break;
		for (size_t i = 0; i < db->n; i++) {
			const struct rule *r = db->rules[i];
			struct score s = { 0, 0, 0 };
			const char *glob = NULL;
			int c;

			if (pass == 0) {
				for (size_t j = 0; r->paths && r->paths[j]; j++)
					if (glob_match(r->paths[j], path) &&
					    glob_score(r->paths[j]) > s.path) {
						s.path = glob_score(r->paths[j]);
						glob = r->paths[j];
					}
				if (!glob)
					continue;
			} else if (!in_list(r->names, base)) {
				continue;
			}
			if (package && r->packages) {
				if (!in_list(r->packages, package))
					continue;
				s.pkg = 1;
			}
			if (r->sha256 && (!sha256 || !in_list(r->sha256, sha256)))
				continue;
			s.build = r->sha256 != NULL;
			if (pass == 0)
				by_path = true;
			c = res->n_tied ? score_cmp(s, best) : 1;
			if (c > 0) {
				best = s;
				res->n_tied = 0;
				best_glob = glob;
			}
			if (c >= 0 && res->n_tied < S2C_ELEMENTSOF(res->tied))
				res->tied[res->n_tied++] = r;
		}
	}
	if (res->n_tied == 1) {
		res->rule = res->tied[0];
		res->n_tied = 0;
		if (by_path)
			(void)snprintf(res->how, sizeof(res->how), "path matches '%s'%s%s%s%s", best_glob,
				       best.pkg ? " and package '" : "", best.pkg ? package : "",
				       best.pkg ? "' is listed" : "",
				       best.build ? " and its SHA-256 is listed (this build only)" : "");
		else
			(void)snprintf(res->how, sizeof(res->how),
				       "file name '%s' matches (no rule matches the path)", base);
	} else if (res->n_tied > 1) {
		(void)snprintf(res->how, sizeof(res->how),
			       "%zu rules match equally well%s", res->n_tied,
			       package ? "" : " and the owning package is unknown");
	}
}
