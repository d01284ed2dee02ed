/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ELF evidence: what the imports, the libraries and the strings of a program
 * say, summed up, and the proposal made from it when no rule describes the
 * file.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>

#include "decision.h"
#include "elfinfo.h"
#include "engine.h"
#include "evidence.h"
#include "facts.h"
#include "util.h"
#include "common.h"

/* What su-like programs import: look up a user, become it, join its groups, run something. */
static const char *const su_lookup[] = { "getpwnam", "getpwnam_r", "getpwuid", "getpwuid_r",
					 "pam_start", NULL };
static const char *const su_become[] = { "setuid", "setresuid", "setreuid", NULL };
static const char *const su_groups[] = { "initgroups", "setgroups", NULL };
static const char *const su_run[] = { "execv", "execve", "execvp", "execl", "execle", "execlp",
				      "execvpe", "fexecve", "posix_spawn", NULL };

/* Append the NULL-terminated @syms (or none) to @v, of @n and room for all. */
static void add_symbols(const char **v, size_t *n, const char *const *syms)
{
	for (size_t i = 0; syms && syms[i]; i++)
		v[(*n)++] = syms[i];
}

static size_t count_symbols(const char *const *syms)
{
	size_t n = 0;

	while (syms && syms[n])
		n++;
	return n;
}

int evidence_symbols(const struct captable *t, const char ***ret, size_t *ret_n)
{
	const char *const *const ours[] = { su_lookup, su_become, su_groups, su_run };
	size_t total = 0, n = 0, k = 0;
	const char **v;

	for (size_t i = 0; i < t->n_evidence; i++)
		total += count_symbols(t->evidence[i].symbols);
	for (size_t i = 0; i < t->n_breakers; i++)
		total += count_symbols(t->breakers[i].symbols);
	for (size_t i = 0; i < S2C_ELEMENTSOF(ours); i++)
		total += count_symbols(ours[i]);
	v = calloc(total + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_evidence; i++)
		add_symbols(v, &n, t->evidence[i].symbols);
	for (size_t i = 0; i < t->n_breakers; i++)
		add_symbols(v, &n, t->breakers[i].symbols);
	for (size_t i = 0; i < S2C_ELEMENTSOF(ours); i++)
		add_symbols(v, &n, ours[i]);
	qsort(v, n, sizeof(*v), strv_cmp);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || !s2c_streq(v[k - 1], v[i]))
			v[k++] = v[i];
	v[k] = NULL;
	*ret = v;
	*ret_n = k;
	return 0;
}

/* Whether @sym is one of the engine's rules_db::symbols (all are when it has none). */
__attribute__((unused)) static bool asked(const struct engine *e, const char *sym)
{
	const char *const *v = e->db->symbols;

	return !v || (e->db->n_symbols &&
		      bsearch(&sym, v, e->db->n_symbols, sizeof(*v), strv_cmp));
}

/* Whether @elf imports @sym.  A reader keeps only the imports of
 * rules_db::symbols (binary_wants): one asked here must be among them. */
static bool imports(const struct engine *e, const struct elfinfo *elf, const char *sym)
{
	(void)e;
	assert(asked(e, sym));
	return elfinfo_imports(elf, sym);
}

/* The same of library @lib. */
static bool lib_imports(const struct engine *e, const struct elfinfo_lib *lib, const char *sym)
{
	(void)e;
	assert(asked(e, sym));
	return elfinfo_lib_imports(lib, sym);
}

/* The capability table's entries the program shows itself: a library it
 * NEEDs, a symbol it imports (itself or through that library). */
static int evidence_of_program(const struct engine *e, struct decision *d)
{
	const struct captable *t = &e->db->caps;
	const struct elfinfo *elf = d->elf;
	int r = 0;

	for (size_t i = 0; i < t->n_evidence && r == 0; i++) {
		const struct evidence_rule *ev = &t->evidence[i];
		const struct elfinfo_lib *lib = ev->library ? elfinfo_lib_matching(elf, ev->library) :
							      NULL;
		char *what = NULL;

		if (ev->library && !lib)
			continue;
		if (!ev->symbols) {
			what = strdup_printf("NEEDs %s", lib->soname);
		} else {
			for (size_t j = 0; ev->symbols[j] && !what; j++) {
				if (imports(e, elf, ev->symbols[j]))
					what = strdup_printf("imports %s", ev->symbols[j]);
				else if (lib && lib_imports(e, lib, ev->symbols[j]))
					what = strdup_printf("imports %s through %s", ev->symbols[j],
							     lib->soname);
			}
			if (!what)
				continue;
		}
		r = decision_add_evidence(d, what, ev->caps, ev->strength, ev->kind, ev->note);
	}
	return r;
}

/* One level down: the program's own libraries, where a front end may do its
 * privileged work (a packet-capture or netlink wrapper library).  General
 * libraries (libc, libglib, …) are skipped: their imports say nothing about
 * the program.  Evidence found there is one step weaker. */
static int evidence_of_libraries(const struct engine *e, struct decision *d)
{
	const struct captable *t = &e->db->caps;
	const struct elfinfo *elf = d->elf;
	int r = 0;

	for (size_t l = 0; r == 0 && l < elf->n_libs; l++) {
		const struct elfinfo_lib *lib = &elf->libs[l];

		if (!lib->path || !lib->n_imports || captable_general_library(t, lib->soname))
			continue;
		for (size_t i = 0; i < t->n_evidence && r == 0; i++) {
			const struct evidence_rule *ev = &t->evidence[i];
			enum strength weaker = ev->strength > STRENGTH_WEAK ? ev->strength - 1 :
									      STRENGTH_WEAK;
			const char *sym = NULL;

			/* the library itself is what this entry is about: handled above */
			if (!ev->symbols || (ev->library && s2c_fnmatch(ev->library, lib->soname, 0)))
				continue;
			for (size_t j = 0; ev->symbols[j] && !sym; j++)
				if (lib_imports(e, lib, ev->symbols[j]))
					sym = ev->symbols[j];
			if (sym)
				r = decision_add_evidence(d, strdup_printf("imports %s through its "
									   "library %s (%s)", sym,
									   lib->soname, lib->path),
							  ev->caps, weaker, ev->kind, ev->note);
		}
	}
	return r;
}

int evidence_from_elf(const struct engine *e, struct decision *d)
{
	const struct elfinfo *elf = d->elf;
	int r = evidence_of_program(e, d);

	if (r == 0)
		r = evidence_of_libraries(e, d);
	if (r == 0 && elf->links_libcap && !elf->links_libcap_ng)
		r = decision_add_evidence(d, strdup_printf("NEEDs libcap"), 0, STRENGTH_STRONG,
					  EVIDENCE_AWARE,
					  "links libcap: can raise and drop capabilities itself");
	if (r == 0 && elf->links_libcap_ng)
		r = decision_add_evidence(d, strdup_printf("NEEDs libcap-ng"), 0, STRENGTH_STRONG,
					  EVIDENCE_AWARE,
					  "links libcap-ng: can raise and drop capabilities itself");
	if (r == 0 && elf->is_static)
		r = decision_add_evidence(d, strdup_printf("statically linked"), 0, STRENGTH_MEDIUM,
					  EVIDENCE_UNKNOWN,
					  "no dynamic imports to read: what the program calls is unknown");
	return r;
}

int evidence_breakers(const struct engine *e, struct decision *d)
{
	const struct captable *t = &e->db->caps;
	size_t si = 0;
	int r = 0;

	for (size_t i = 0; i < t->n_breakers && r == 0; i++) {
		const struct breaker *b = &t->breakers[i];
		const char *hit = NULL;

		for (size_t j = 0; b->strings && b->strings[j]; j++, si++)
			if (!hit && d->elf->strings_found && d->elf->strings_found[si])
				hit = b->strings[j];
		for (size_t j = 0; !hit && b->symbols && b->symbols[j]; j++)
			if (imports(e, d->elf, b->symbols[j]))
				hit = b->symbols[j];
		if (hit) {
			_cleanup_free_ char *text = strdup_printf("likely to break without setuid "
								  "root ('%s'): %s", hit, b->note);
			r = text ? decision_warn(d, "%s", text) : -ENOMEM;
			for (size_t k = 0; r == 0 && !d->breaker && k < d->n_warnings; k++)
				if (s2c_streq(d->warnings[k], text))
					d->breaker = d->warnings[k];
		}
	}
	return r;
}

static bool imports_any(const struct engine *e, const struct elfinfo *elf,
			const char *const *syms)
{
	for (size_t i = 0; syms[i]; i++)
		if (imports(e, elf, syms[i]))
			return true;
	return false;
}

/* su-like programs: look up a user, join its groups, become it, run something. */
static bool switches_users(const struct engine *e, const struct elfinfo *elf)
{
	return imports_any(e, elf, su_lookup) && imports_any(e, elf, su_become) &&
	       imports_any(e, elf, su_groups) && imports_any(e, elf, su_run);
}

struct evidence_summary evidence_summarise(const struct decision *d)
{
	struct evidence_summary s = { 0 };

	for (size_t i = 0; i < d->n_evidence; i++) {
		const struct evidence_item *ev = &d->evidence[i];
		switch (ev->kind) {
		case EVIDENCE_NEEDS:
			if (ev->strength == STRENGTH_STRONG)
				s.strong |= ev->caps;
			else if (ev->strength == STRENGTH_MEDIUM)
				s.medium |= ev->caps;
			else
				s.weak |= ev->caps;
			break;
		case EVIDENCE_AWARE:
			/* prctl alone is imported by too many programs to say anything */
			s.aware |= ev->strength >= STRENGTH_MEDIUM;
			break;
		case EVIDENCE_UNKNOWN: s.unknown = true; break;
		case EVIDENCE_DROPS: s.drops = true; break;
		default: break;
		}
	}
	return s;
}

/* --- without a rule --------------------------------------------------------------------- */

/* Without a rule, a file that is not setuid root: what it has is narrower than root. */
static int not_setuid_root(struct decision *d)
{
	const struct facts *f = d->facts;

	d->confidence = CONFIDENCE_MEDIUM;
	if (f->flags & FACT_SETUID_USER) {
		d->verdict = VERDICT_KEEP;
		return decision_set_reason(d, "it is setuid to '%s', not root: file capabilities "
					   "cannot switch a program to another user, and the "
					   "privilege is narrower than root",
					   f->owner ? f->owner : "another user");
	}
	if ((f->flags & FACT_SETGID) && !f->has_caps) {
		d->verdict = f->gid == 0 ? VERDICT_REVIEW : VERDICT_KEEP;
		return decision_set_reason(d, f->gid == 0 ?
					   "it is setgid to the root group, which owns many system "
					   "files: check what it needs the group for" :
					   "it is setgid to group '%s' only, a narrow privilege that "
					   "file capabilities would not narrow further",
					   f->group ? f->group : "?");
	}
	/* capabilities already, no rule to compare with */
	d->verdict = engine_is_interpreter(f->path) || d->risk_now == RISK_ROOT ? VERDICT_REVIEW :
										     VERDICT_KEEP;
	if (engine_is_interpreter(f->path))
		return decision_set_reason(d, "it is an interpreter with file capabilities: every "
					   "script it runs, anyone's, gets %s", f->caps_text);
	if (d->risk_now == RISK_ROOT)
		return decision_set_reason(d, "its file capabilities (%s) are root-equivalent: setuid "
					   "in disguise", f->caps_text);
	return decision_set_reason(d, "it already uses file capabilities (%s) and no rule says "
				   "otherwise", f->caps_text);
}

int evidence_decide(const struct engine *e, struct decision *d, const struct evidence_summary *s)
{
	struct fcaps proposal = { .version = 2 };
	_cleanup_free_ char *names = NULL;
	enum risk prisk;
	int r;

	if (!(d->facts->flags & FACT_SETUID_ROOT))
		return not_setuid_root(d);
	if (!d->elf) {
		d->verdict = VERDICT_REVIEW;
		d->confidence = CONFIDENCE_LOW;
		return decision_set_reason(d, "no rule describes it and its ELF imports could not be "
					   "read (%s)", d->elf_error ? d->elf_error : "not an ELF file");
	}
	if (switches_users(e, d->elf)) {
		d->verdict = VERDICT_REVIEW;
		d->confidence = CONFIDENCE_MEDIUM;
		d->needs = S2C_CAPMASK(CAP_SETUID) | S2C_CAPMASK(CAP_SETGID);
		return decision_set_reason(d, "no rule describes it, and it looks up users, sets their "
					   "groups, switches uid and runs programs: as capabilities "
					   "that is cap_setuid and cap_setgid, root-equivalent, so it "
					   "most likely must stay setuid");
	}
	proposal.permitted = s->strong | s->medium;
	proposal.effective = !s->aware;
	d->proposed = proposal.permitted;
	prisk = captable_risk(&e->db->caps, proposal.permitted);
	d->confidence = s->strong && !s->unknown ? CONFIDENCE_HIGH :
			(s->strong || s->medium) ? CONFIDENCE_MEDIUM : CONFIDENCE_LOW;
	if (s->unknown && d->confidence > CONFIDENCE_LOW)
		d->confidence--;
	if (!proposal.permitted) {
		d->verdict = VERDICT_REVIEW;
		names = fcaps_mask_names(s->weak);
		if (!names)
			return -ENOMEM;
		return decision_set_reason(d, "no rule describes it and its imports give no clear "
					   "evidence of a capability%s%s%s",
					   *names ? " (weak hints: " : "", names, *names ? ")" : "");
	}
	r = decision_set_caps(d, &proposal);
	if (r < 0)
		return r;
	if (s->strong && !s->unknown && prisk < RISK_ROOT && d->n_warnings == 0) {
		d->verdict = VERDICT_MIGRATE;
		return decision_set_reason(d, "no rule describes it; its imports are strong evidence "
					   "that %s is all it needs", d->caps_text);
	}
	d->verdict = VERDICT_REVIEW;
	return decision_set_reason(d, "no rule describes it; from its imports it would need %s (%s "
				   "confidence)%s", d->caps_text, confidence_name(d->confidence),
				   prisk == RISK_ROOT ? ", which is root-equivalent" : "");
}
