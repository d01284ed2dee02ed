/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Ties between rules: identify blocks, rules that agree, and the reason a tie
 * stays open.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conditions.h"
#include "decision.h"
#include "elfinfo.h"
#include "engine.h"
#include "host.h"
#include "identify.h"
#include "match.h"
#include "util.h"
#include "common.h"

/*
 * Does the binary show every sign of @r's identify block?  A rule without one
 * shows none.  The signs found are appended to @signs.
 */
static bool identify_holds(const struct decision *d, const struct rule *r, char *signs,
			   size_t size)
{
	const struct rule_identify *id = &r->identify;
	const struct elfinfo *elf = d->elf;
	size_t len = strlen(signs);

#define SIGN(...) \
	do { \
		if (len < size) \
			len += (size_t)snprintf(signs + len, size - len, __VA_ARGS__); \
	} while (0)
	if (!r->has_identify || !elf)
		return false;
	for (size_t i = 0; id->needed && id->needed[i]; i++) {
		const struct elfinfo_lib *lib = elfinfo_lib_matching(elf, id->needed[i]);
		if (!lib)
			return false;
		SIGN("%sNEEDs %s", len ? ", " : "", lib->soname);
	}
	if (id->soname) {
		bool any = false;
		for (size_t i = 0; id->soname[i] && !any; i++)
			any = elf->soname && s2c_fnmatch(id->soname[i], elf->soname, 0);
		if (!any)
			return false;
		SIGN("%sSONAME %s", len ? ", " : "", elf->soname);
	}
	for (size_t i = 0; id->strings && id->strings[i]; i++) {
		if (!elf->strings_found || !elf->strings_found[id->strings_at + i])
			return false;
		SIGN("%sthe string '%s'", len ? ", " : "", id->strings[i]);
	}
#undef SIGN
	return true;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && s2c_streq(a, b));
}

static bool outcome_same(const struct rule_outcome *a, const struct rule_outcome *b)
{
	if (a->verdict != b->verdict || a->needs != b->needs || !a->caps != !b->caps ||
	    (a->caps && !fcaps_equal(a->caps, b->caps)))
		return false;
	/* a migration also names the state after */
	return a->verdict != VERDICT_MIGRATE ||
	       (same_str(a->owner, b->owner) && same_str(a->group, b->group) && a->mode == b->mode);
}

/* What @r decides about the file, its conditions evaluated. */
static int outcome_of(const struct engine *e, const struct decision *d, const struct rule *r,
		      struct rule_outcome *ret)
{
	const struct rule_condition *c = NULL;
	int k = conditions_first(e, d, r, &c);

	if (k == 0)
		conditions_outcome(r, c, ret);
	return k;
}

/* The ids of the rules that tie, "a, b, c", into @buf. */
static void tied_ids(const struct decision *d, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < d->n_ambiguous && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
					d->ambiguous[i]);
}

/*
 * Several rules match the file equally well (no package database to tell
 * them apart, or the package is listed by several).  The binary decides when
 * it shows the identify signs of exactly one of them; otherwise, when every
 * one decides the same, the first is used with medium confidence; otherwise
 * the file is left for review (identify_open_tie() says what would settle it).
 */
int identify_settle_tie(const struct engine *e, struct decision *d, const struct match_result *m)
{
	char signs[512] = "", ids[256];
	const struct rule *found = NULL;
	struct rule_outcome first, other;
	size_t n_found = 0;
	int r;

	d->ambiguous = calloc(m->n_tied, sizeof(*d->ambiguous));
	if (!d->ambiguous)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_tied; i++) {
		char s[512] = "";
		d->ambiguous[d->n_ambiguous++] = m->tied[i]->id;
		if (identify_holds(d, m->tied[i], s, sizeof(s))) {
			found = m->tied[i];
			(void)snprintf(signs, sizeof(signs), "%s", s);
			n_found++;
		}
	}
	tied_ids(d, ids, sizeof(ids));
	if (n_found == 1) {
		d->rule = found;
		d->tie = TIE_IDENTIFIED;
		d->match_how = strdup_printf("%s (%s); the binary shows the identify signs of '%s' "
					     "only: %s", m->how, ids, found->id, signs);
		return d->match_how ? 0 : -ENOMEM;
	}
	r = outcome_of(e, d, m->tied[0], &first);
	for (size_t i = 1; r == 0 && i < m->n_tied; i++) {
		r = outcome_of(e, d, m->tied[i], &other);
		if (r == 0 && !outcome_same(&first, &other)) {
			d->tie = TIE_OPEN;
			d->match_how = strdup_printf("%s (%s) and decide differently", m->how, ids);
			return d->match_how ? 0 : -ENOMEM;
		}
	}
	if (r < 0)
		return r;
	d->rule = m->tied[0];
	d->tie = TIE_AGREE;
	d->match_how = strdup_printf("%s (%s) and all decide the same: %s%s", m->how, ids,
				     verdict_name(first.verdict),
				     first.caps ? " with the same capabilities" : "");
	return d->match_how ? 0 : -ENOMEM;
}

int identify_open_tie(const struct engine *e, struct decision *d)
{
	char ids[256];

	tied_ids(d, ids, sizeof(ids));
	d->verdict = VERDICT_REVIEW;
	d->confidence = CONFIDENCE_LOW;
	return decision_set_reason(d, "several rules match equally well (%s) and decide "
				   "differently; %s, and the binary %s: a package database under "
				   "the root, an identify block that tells them apart, or a local "
				   "rule with match.sha256 would settle it",
				   ids,
				   d->package ?
				   "the owning package is listed by more than one of them" :
				   e->host->pkg_db ? "no package owns it" :
				   "the owning package is unknown (no package database under the "
				   "root)",
				   d->elf ? "shows the identify signs of none or several of them" :
				   "could not be read to identify it");
}
