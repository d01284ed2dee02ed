/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "glob.h"
#include "layout.h"
#include "match.h"
#include "common.h"

/* The passes, strongest first: a later one runs only when no rule matched in an earlier. */
enum pass {
	PASS_PATH,             /* a path glob, as written or in the layout form */
	PASS_PACKAGE_DIR,      /* the layout form but for the package directory */
	PASS_NAME,             /* the file name */
	_PASS_MAX,
};

/* How a path glob matched. */
enum how {
	HOW_PATH,              /* as written */
	HOW_LAYOUT,            /* in the layout form only */
	HOW_PACKAGE_DIR,       /* in the package-directory form */
};

/* The file being matched, in every form. */
struct file {
	const char *path, *base, *package, *sha256, *group;
	char form[PATH_MAX];
	bool has_package_dir;
	const char *flat, *dir;        /* its package-directory form */
	size_t dir_len;
};

/* The best path glob of a rule for the file. */
struct hit {
	unsigned score;                /* 0: none */
	const char *glob;
	enum how how;
};

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

/* Keep the best glob, and among equals the one matching the path as written. */
static void better(struct hit *h, unsigned score, const char *glob, enum how how)
{
	if (score > h->score || (score == h->score && how < h->how))
		*h = (struct hit){ score, glob, how };
}

/* Is @dir (@len bytes) the rule's project (its id before the dot) or one of its packages? */
static bool own_dir(const struct rule *r, const char *dir, size_t len)
{
	const char *dot = strchr(r->id, '.');

	if (dot && (size_t)(dot - r->id) == len && strncmp(r->id, dir, len) == 0)
		return true;
	for (size_t i = 0; r->packages && r->packages[i]; i++)
		if (strlen(r->packages[i]) == len && strncmp(r->packages[i], dir, len) == 0)
			return true;
	return false;
}

/* The glob @j of @r in the package-directory form: one side has the rule's package
 * directory, the other none, and the rest is the same. */
static bool package_dir_match(const struct rule *r, size_t j, const struct file *f)
{
	const char *flat, *dir;
	size_t len;

	if (!f->has_package_dir || !layout_package_dir(r->layout[j], &flat, &dir, &len))
		return false;
	if (!dir == !f->dir)
		return false;
	if (dir && (strcspn(dir, "*?[\\") < len || !own_dir(r, dir, len)))
		return false;
	if (f->dir && !own_dir(r, f->dir, f->dir_len))
		return false;
	return glob_match(flat, f->flat);
}

static struct hit rule_hit(const struct rule *r, const struct file *f, enum pass pass)
{
	struct hit h = { 0, NULL, HOW_PATH };

	for (size_t j = 0; pass != PASS_NAME && r->paths && r->paths[j]; j++) {
		if (pass == PASS_PACKAGE_DIR) {
			if (package_dir_match(r, j, f))
				better(&h, glob_score(r->paths[j]), r->paths[j], HOW_PACKAGE_DIR);
			continue;
		}
		if (glob_match(r->paths[j], f->path))
			better(&h, glob_score(r->paths[j]), r->paths[j], HOW_PATH);
		if (f->form[0] && glob_match(r->layout[j], f->form))
			better(&h, glob_score(r->layout[j]), r->paths[j], HOW_LAYOUT);
	}
	if (pass == PASS_NAME && in_list(r->names, f->base))
		h.score = 1;
	return h;
}

struct score {
	unsigned build;        /* 1: the rule lists the file's SHA-256 (one exact build) */
	unsigned pkg;          /* 1: the rule lists the owning package */
	unsigned path;         /* glob score, 1 for a name match */
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

/* One pass over the rules; the best are in @res, the first of them described by @ret_hit. */
static void match_pass(const struct rules_db *db, const struct file *f, enum pass pass,
		       struct match_result *res, struct hit *ret_hit, struct score *ret_best)
{
	for (size_t i = 0; i < db->n; i++) {
		const struct rule *r = db->rules[i];
		struct hit h = rule_hit(r, f, pass);
		struct score s = { 0, 0, h.score };
		int c;

		if (!h.score)
			continue;
		if (f->package && r->packages) {
			if (!in_list(r->packages, f->package))
				continue;
			s.pkg = 1;
		}
		if (r->sha256 && (!f->sha256 || !in_list(r->sha256, f->sha256)))
			continue;
		s.build = r->sha256 != NULL;
		if (r->groups && (!f->group || !in_list(r->groups, f->group)))
			continue;
		c = res->n_tied ? score_cmp(s, *ret_best) : 1;
		if (c > 0) {
			*ret_best = s;
			*ret_hit = h;
			res->n_tied = 0;
		}
		if (c >= 0 && res->n_tied < S2C_ELEMENTSOF(res->tied))
			res->tied[res->n_tied++] = r;
	}
}

static void describe(const struct file *f, enum pass pass, const struct hit *h,
		     struct score best, struct match_result *res)
{
	char listed[200] = "";

	if (best.pkg || best.build)
		(void)snprintf(listed, sizeof(listed), "%s%s%s%s", best.pkg ? " and package '" : "",
			       best.pkg ? f->package : "", best.pkg ? "' is listed" : "",
			       best.build ? " and its SHA-256 is listed (this build only)" : "");
	if (pass == PASS_NAME)
		(void)snprintf(res->how, sizeof(res->how),
			       "file name '%s' matches (no rule matches the path)", f->base);
	else if (h->how == HOW_PATH)
		(void)snprintf(res->how, sizeof(res->how), "path matches '%s'%s", h->glob, listed);
	else if (h->how == HOW_LAYOUT)
		(void)snprintf(res->how, sizeof(res->how), "path matches '%s' in another layout "
			       "(both are '%.200s' once /usr, sbin and lib are merged)%s", h->glob, f->form,
			       listed);
	else
		(void)snprintf(res->how, sizeof(res->how), "path matches '%s' but for the package "
			       "directory (the file is '%.200s')%s", h->glob, f->form, listed);
}

void match_file(const struct rules_db *db, const char *path, const char *package,
		const char *group, const char *sha256, struct match_result *res)
{
	struct file f = { .path = path, .package = package, .group = group, .sha256 = sha256 };
	struct score best = { 0, 0, 0 };
	struct hit hit = { 0, NULL, HOW_PATH };
	enum pass pass;

	memset(res, 0, sizeof(*res));
	f.base = strrchr(path, '/');
	f.base = f.base ? f.base + 1 : path;
	if (layout_form(path, f.form, sizeof(f.form)) < 0)
		f.form[0] = '\0';
	f.has_package_dir = f.form[0] &&
			    layout_package_dir(f.form, &f.flat, &f.dir, &f.dir_len);
	for (pass = PASS_PATH; pass < _PASS_MAX && !res->n_tied; pass++)
		match_pass(db, &f, pass, res, &hit, &best);
	if (res->n_tied == 1) {
		res->rule = res->tied[0];
		res->n_tied = 0;
		describe(&f, pass - 1, &hit, best, res);
	} else if (res->n_tied > 1) {
		(void)snprintf(res->how, sizeof(res->how),
			       "%zu rules match equally well%s", res->n_tied,
			       package ? "" : " and the owning package is unknown");
	}
}
