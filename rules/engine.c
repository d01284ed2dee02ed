/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/capability.h>

#include "binary.h"
#include "elfinfo.h"
#include "engine.h"
#include "facts.h"
#include "fileid.h"
#include "hash.h"
#include "host.h"
#include "idmap.h"
#include "match.h"
#include "pkgdb.h"
#include "privcheck.h"
#include "tri.h"
#include "resolve.h"
#include "common.h"

static const char *const confidence_names[_CONFIDENCE_MAX] = { "low", "medium", "high" };

const char *confidence_name(enum confidence c)
{
	return c >= 0 && c < _CONFIDENCE_MAX ? confidence_names[c] : "invalid";
}

bool engine_is_interpreter(const char *path)
{
	static const char *const globs[] = {
		"python*", "perl*", "ruby*", "node", "nodejs", "php*", "lua*", "tclsh*", "wish*",
		"bash", "sh", "dash", "zsh", "ksh*", "mksh", "fish", "csh", "tcsh", "busybox",
		"gawk", "mawk", "awk", "gdb", "vim*", "vi", "emacs*", "java", "jrunscript", "guile*",
		"Rscript", "R", "pwsh", "osascript", "expect", "env",
	};
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < S2C_ELEMENTSOF(globs); i++)
		if (fnmatch(globs[i], base, 0) == 0)
			return true;
	return false;
}

struct decision *decision_free(struct decision *d)
{
	if (!d)
		return NULL;
	elfinfo_free(d->elf);
	free(d->elf_error);
	free(d->sha256);
	free(d->match_how);
	free(d->version);
	free(d->reason);
	free(d->caps_text);
	for (size_t i = 0; i < d->n_evidence; i++)
		free(d->evidence[i].what);
	free(d->evidence);
	for (size_t i = 0; i < d->n_conditions; i++)
		free(d->conditions[i].text);
	free(d->conditions);
	for (size_t i = 0; i < d->n_warnings; i++)
		free(d->warnings[i]);
	free(d->warnings);
	free(d);
	return NULL;
}

/* --- small builders -------------------------------------------------------------- */

S2C_PRINTF(2, 3) static int set_reason(struct decision *d, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	free(d->reason);
	d->reason = s;
	return 0;
}

S2C_PRINTF(2, 3) static int warn(struct decision *d, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL, **nw;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	for (size_t i = 0; i < d->n_warnings; i++)
		if (s2c_streq(d->warnings[i], s)) {
			free(s);
			return 0;
		}
	nw = realloc(d->warnings, (d->n_warnings + 1) * sizeof(*nw));
	if (!nw) {
		free(s);
		return -ENOMEM;
	}
	d->warnings = nw;
	d->warnings[d->n_warnings++] = s;
	return 0;
}

static int add_evidence(struct decision *d, char *what, uint64_t caps, enum strength strength,
			enum evidence_kind kind, const char *note)
{
	struct evidence_item *ne;

	if (!what)
		return -ENOMEM;
	for (size_t i = 0; i < d->n_evidence; i++)
		if (s2c_streq(d->evidence[i].what, what) && d->evidence[i].caps == caps &&
		    d->evidence[i].kind == kind) {
			free(what);
			return 0;
		}
	ne = realloc(d->evidence, (d->n_evidence + 1) * sizeof(*ne));
	if (!ne) {
		free(what);
		return -ENOMEM;
	}
	d->evidence = ne;
	d->evidence[d->n_evidence++] = (struct evidence_item){ what, caps, strength, kind, note };
	return 0;
}

static char *fmt(const char *f, ...) S2C_PRINTF(1, 2);
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static int set_caps(struct decision *d, const struct fcaps *caps)
{
	free(d->caps_text);
	d->caps = *caps;
	d->has_caps = true;
	d->caps_text = fcaps_to_text(caps);
	return d->caps_text ? 0 : -ENOMEM;
}

/* --- ELF evidence ------------------------------------------------------------------- */

static bool lib_has_import(const struct elfinfo_lib *lib, const char *sym)
{
	for (size_t i = 0; i < lib->n_imports; i++)
		if (s2c_streq(lib->imports[i].name, sym))
			return true;
	return false;
}

static int evidence_from_elf(const struct engine *e, struct decision *d)
{
	const struct captable *t = &e->db->caps;
	const struct elfinfo *elf = d->elf;
	int r = 0;

	for (size_t i = 0; i < t->n_evidence && r == 0; i++) {
		const struct evidence_rule *ev = &t->evidence[i];
		const struct elfinfo_lib *lib = ev->library ? elfinfo_lib_matching(elf, ev->library) : NULL;
		char *what = NULL;

		if (ev->library && !lib)
			continue;
		if (!ev->symbols) {
			what = fmt("NEEDs %s", lib->soname);
		} else {
			for (size_t j = 0; ev->symbols[j] && !what; j++) {
				if (elfinfo_imports(elf, ev->symbols[j]))
					what = fmt("imports %s", ev->symbols[j]);
				else if (lib && lib_has_import(lib, ev->symbols[j]))
					what = fmt("imports %s through %s", ev->symbols[j], lib->soname);
			}
			if (!what)
				continue;
		}
		r = add_evidence(d, what, ev->caps, ev->strength, ev->kind, ev->note);
	}
	/* One level down: the program's own libraries, where a front end may do its
	 * privileged work (a packet-capture or netlink wrapper library).  General
	 * libraries (libc, libglib, …) are skipped: their imports say nothing about
	 * the program.  Evidence found there is one step weaker. */
	for (size_t l = 0; r == 0 && l < elf->n_libs; l++) {
		const struct elfinfo_lib *lib = &elf->libs[l];

		if (!lib->path || !lib->n_imports || captable_general_library(t, lib->soname))
			continue;
		for (size_t i = 0; i < t->n_evidence && r == 0; i++) {
			const struct evidence_rule *ev = &t->evidence[i];
			const char *sym = NULL;

			/* the library itself is what this entry is about: handled above */
			if (!ev->symbols || (ev->library && fnmatch(ev->library, lib->soname, 0) == 0))
				continue;
			for (size_t j = 0; ev->symbols[j] && !sym; j++)
				if (lib_has_import(lib, ev->symbols[j]))
					sym = ev->symbols[j];
			if (sym)
				r = add_evidence(d, fmt("imports %s through its library %s (%s)", sym,
							lib->soname, lib->path),
						 ev->caps, ev->strength > STRENGTH_WEAK ? ev->strength - 1 :
						 STRENGTH_WEAK, ev->kind, ev->note);
		}
	}
	if (r == 0 && elf->links_libcap && !elf->links_libcap_ng)
		r = add_evidence(d, fmt("NEEDs libcap"), 0, STRENGTH_STRONG, EVIDENCE_AWARE,
				 "links libcap: can raise and drop capabilities itself");
	if (r == 0 && elf->links_libcap_ng)
		r = add_evidence(d, fmt("NEEDs libcap-ng"), 0, STRENGTH_STRONG, EVIDENCE_AWARE,
				 "links libcap-ng: can raise and drop capabilities itself");
	if (r == 0 && elf->is_static)
		r = add_evidence(d, fmt("statically linked"), 0, STRENGTH_MEDIUM, EVIDENCE_UNKNOWN,
				 "no dynamic imports to read: what the program calls is unknown");
	return r;
}

static int breakers_from_elf(const struct engine *e, struct decision *d)
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
			if (elfinfo_imports(d->elf, b->symbols[j]))
				hit = b->symbols[j];
		if (hit) {
			_cleanup_free_ char *text = fmt("likely to break without setuid root ('%s'): %s",
							hit, b->note);
			r = text ? warn(d, "%s", text) : -ENOMEM;
			for (size_t k = 0; r == 0 && !d->breaker && k < d->n_warnings; k++)
				if (s2c_streq(d->warnings[k], text))
					d->breaker = d->warnings[k];
		}
	}
	return r;
}

static bool imports_any(const struct elfinfo *elf, const char *const *syms)
{
	for (size_t i = 0; syms[i]; i++)
		if (elfinfo_imports(elf, syms[i]))
			return true;
	return false;
}

/* su-like programs: look up a user, join its groups, become it, run something. */
static bool switches_users(const struct elfinfo *elf)
{
	static const char *const lookup[] = { "getpwnam", "getpwnam_r", "getpwuid", "getpwuid_r",
					      "pam_start", NULL };
	static const char *const become[] = { "setuid", "setresuid", "setreuid", NULL };
	static const char *const groups[] = { "initgroups", "setgroups", NULL };
	static const char *const run[] = { "execv", "execve", "execvp", "execl", "execle",
					   "execlp", "execvpe", "fexecve", "posix_spawn", NULL };

	return imports_any(elf, lookup) && imports_any(elf, become) && imports_any(elf, groups) &&
	       imports_any(elf, run);
}

/* Masks of the "needs" evidence by strength; unknown markers counted. */
static void evidence_summary(const struct decision *d, uint64_t *strong, uint64_t *medium,
			     uint64_t *weak, bool *aware, bool *unknown, bool *drops)
{
	*strong = *medium = *weak = 0;
	*aware = *unknown = *drops = false;
	for (size_t i = 0; i < d->n_evidence; i++) {
		const struct evidence_item *ev = &d->evidence[i];
		switch (ev->kind) {
		case EVIDENCE_NEEDS:
			if (ev->strength == STRENGTH_STRONG)
				*strong |= ev->caps;
			else if (ev->strength == STRENGTH_MEDIUM)
				*medium |= ev->caps;
			else
				*weak |= ev->caps;
			break;
		case EVIDENCE_AWARE:
			/* prctl alone is imported by too many programs to say anything */
			*aware |= ev->strength >= STRENGTH_MEDIUM;
			break;
		case EVIDENCE_UNKNOWN: *unknown = true; break;
		case EVIDENCE_DROPS: *drops = true; break;
		default: break;
		}
	}
}

/* --- conditions -------------------------------------------------------------------- */

/* The program's version for @rule: after the rule's prefix in the binary, else
 * the upstream part of the owning package's version.  0 with a new string or
 * NULL in @ret, or -ENOMEM. */
static int program_version(const struct decision *d, const struct rule *rule, char **ret,
			   const char **ret_source)
{
	*ret = NULL;
	*ret_source = NULL;
	if (rule && rule->version_prefix && d->elf && d->elf->prefix_values &&
	    rule->version_at < d->elf->n_prefix_values && d->elf->prefix_values[rule->version_at]) {
		*ret = strdup(d->elf->prefix_values[rule->version_at]);
		*ret_source = "binary";
	} else if (d->package_version) {
		*ret = pkgdb_upstream_version(d->package_version);
		*ret_source = "package";
	} else {
		return 0;
	}
	return *ret ? 0 : -ENOMEM;
}

static int eval_when(const struct engine *e, const struct decision *d, const struct rule *rule,
		     const struct rule_when *w, char **text)
{
	char buf[1024] = "";
	size_t len = 0;
	int holds = TRI_TRUE;

#define APPEND(...) \
	do { \
		if (len < sizeof(buf)) \
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, __VA_ARGS__); \
	} while (0)
	if (w->has_kernel_min) {
		bool ok = host_kernel_cmp(e->host, w->kernel_min) >= 0;
		APPEND("%skernel %s is at least %s", len ? "; " : "", e->host->kernel_release,
		       w->kernel_min_text);
		APPEND(ok ? ": yes" : ": no");
		holds = tri_and(holds, tri_of(ok));
	}
	if (w->has_kernel_max) {
		bool ok = host_kernel_cmp(e->host, w->kernel_max) < 0;
		APPEND("%skernel %s is below %s: %s", len ? "; " : "", e->host->kernel_release,
		       w->kernel_max_text, ok ? "yes" : "no");
		holds = tri_and(holds, tri_of(ok));
	}
	if (w->sysctl_name) {
		char *v = NULL;
		int r = host_sysctl(e->host, w->sysctl_name, &v);
		int ok = TRI_UNKNOWN;

		if (r == -ENOMEM)
			return -ENOMEM;
		if (r == 0) {
			long long a = 0, b = 0;
			int n = sscanf(v, "%lld %lld", &a, &b);
			switch (w->sysctl_op) {
			case SYSCTL_RANGE_COVERS:
				ok = n == 2 ? tri_of(a <= w->sysctl_a && b >= w->sysctl_b) : TRI_UNKNOWN;
				APPEND("%s%s = '%s' covers %lld..%lld", len ? "; " : "", w->sysctl_name, v,
				       (long long)w->sysctl_a, (long long)w->sysctl_b);
				break;
			case SYSCTL_EQUALS:
				ok = tri_of(s2c_streq(v, w->sysctl_equals));
				APPEND("%s%s = '%s' equals '%s'", len ? "; " : "", w->sysctl_name, v,
				       w->sysctl_equals);
				break;
			case SYSCTL_AT_LEAST:
				ok = n >= 1 ? tri_of(a >= w->sysctl_a) : TRI_UNKNOWN;
				APPEND("%s%s = '%s' is at least %lld", len ? "; " : "", w->sysctl_name, v,
				       (long long)w->sysctl_a);
				break;
			case SYSCTL_AT_MOST:
				ok = n >= 1 ? tri_of(a <= w->sysctl_a) : TRI_UNKNOWN;
				APPEND("%s%s = '%s' is at most %lld", len ? "; " : "", w->sysctl_name, v,
				       (long long)w->sysctl_a);
				break;
			default:
				break;
			}
			free(v);
		} else {
			APPEND("%s%s is unknown", len ? "; " : "", w->sysctl_name);
		}
		APPEND(ok == TRI_TRUE ? ": yes" : ok == TRI_FALSE ? ": no" : ": unknown");
		holds = tri_and(holds, ok);
	}
	if (w->os) {
		bool ok = false;
		for (size_t i = 0; w->os[i]; i++)
			ok |= host_os_is(e->host, w->os[i]);
		APPEND("%sdistribution '%s' is one of", len ? "; " : "",
		       e->host->os_id ? e->host->os_id : "unknown");
		for (size_t i = 0; w->os[i]; i++)
			APPEND(" %s", w->os[i]);
		APPEND(ok ? ": yes" : ": no");
		holds = tri_and(holds, tri_of(ok));
	}
	if (w->file_exists) {
		bool ok = host_file_exists(e->host, w->file_exists);
		APPEND("%s%s exists: %s", len ? "; " : "", w->file_exists, ok ? "yes" : "no");
		holds = tri_and(holds, tri_of(ok));
	}
	if (w->setuid_root >= 0) {
		bool is = d->facts->flags & FACT_SETUID_ROOT;
		APPEND("%sthe file is %sset-user-ID root: %s", len ? "; " : "",
		       w->setuid_root ? "" : "not ", is == (bool)w->setuid_root ? "yes" : "no");
		holds = tri_and(holds, tri_of(is == (bool)w->setuid_root));
	}
	if (w->version_min || w->version_max) {
		_cleanup_free_ char *v = NULL;
		const char *src = NULL;
		int ok = -1;

		if (program_version(d, rule, &v, &src) < 0)
			return -ENOMEM;
		if (v && w->version_min) {
			ok = pkgdb_version_cmp(v, w->version_min) >= 0;
			APPEND("%sversion %s (%s) is at least %s", len ? "; " : "", v, src, w->version_min);
		}
		if (v && w->version_max) {
			int below = pkgdb_version_cmp(v, w->version_max) < 0;
			ok = ok == -1 ? below : ok && below;
			APPEND("%sversion %s (%s) is below %s", len ? "; " : "", v, src, w->version_max);
		}
		if (!v)
			APPEND("%sthe program's version is unknown (no version string in the binary "
			       "and no package version)", len ? "; " : "");
		APPEND(ok == 1 ? ": yes" : ok == 0 ? ": no" : "");
		holds = tri_and(holds, ok);
	}
#undef APPEND
	*text = strdup(buf);
	return *text ? holds : -ENOMEM;
}

/* Evaluate the rule's conditions; returns the chosen one or NULL. */
static int eval_conditions(const struct engine *e, const struct rule *rule, struct decision *d,
			   const struct rule_condition **ret)
{
	*ret = NULL;
	if (!rule->n_conditions)
		return 0;
	d->conditions = calloc(rule->n_conditions, sizeof(*d->conditions));
	if (!d->conditions)
		return -ENOMEM;
	for (size_t i = 0; i < rule->n_conditions; i++) {
		int h = eval_when(e, d, rule, &rule->conditions[i].when, &d->conditions[i].text);
		if (h == -ENOMEM)
			return h;
		d->n_conditions = i + 1;
		d->conditions[i].holds = h;
		if (h == TRI_TRUE && !*ret) {
			*ret = &rule->conditions[i];
			d->conditions[i].chosen = true;
		}
	}
	return 0;
}

/* --- ties between rules ---------------------------------------------------------- */

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
			any = elf->soname && fnmatch(id->soname[i], elf->soname, 0) == 0;
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

/* What a rule decides about the file, conditions included. */
struct outcome {
	enum verdict verdict;
	const struct fcaps *caps;
	uint64_t needs;
	const char *owner, *group;
	int mode;
};

static int rule_outcome(const struct engine *e, const struct decision *d, const struct rule *r,
			struct outcome *o)
{
	const struct rule_condition *c = NULL;

	for (size_t i = 0; i < r->n_conditions && !c; i++) {
		_cleanup_free_ char *text = NULL;
		int h = eval_when(e, d, r, &r->conditions[i].when, &text);
		if (h == -ENOMEM)
			return h;
		if (h == 1)
			c = &r->conditions[i];
	}
	o->owner = c && c->owner ? c->owner : r->owner;
	o->group = c && c->group ? c->group : r->group;
	o->mode = c && c->mode >= 0 ? c->mode : r->mode;
	o->verdict = c ? c->verdict : r->verdict;
	o->caps = c && c->has_caps ? &c->caps : r->has_caps ? &r->caps : NULL;
	if (o->verdict == VERDICT_DROP)
		o->caps = NULL;
	o->needs = (r->has_needs ? r->needs.permitted | r->needs.inheritable : 0);
	if (c && c->has_needs)
		o->needs = c->needs.permitted | c->needs.inheritable;
	return 0;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && s2c_streq(a, b));
}

static bool outcome_same(const struct outcome *a, const struct outcome *b)
{
	if (a->verdict != b->verdict || a->needs != b->needs || !a->caps != !b->caps ||
	    (a->caps && !fcaps_equal(a->caps, b->caps)))
		return false;
	/* a migration also names the state after */
	return a->verdict != VERDICT_MIGRATE ||
	       (same_str(a->owner, b->owner) && same_str(a->group, b->group) && a->mode == b->mode);
}

/*
 * Several rules match the file equally well (no package database to tell
 * them apart, or the package is listed by several).  The binary decides when
 * it shows the identify signs of exactly one of them; otherwise, when every
 * one decides the same, the first is used with medium confidence; otherwise
 * the file is left for review (engine_decide says what would settle it).
 */
static int settle_tie(const struct engine *e, struct decision *d, const struct match_result *m)
{
	char signs[512] = "", ids[256] = "";
	const struct rule *found = NULL;
	size_t n_found = 0, len = 0;
	struct outcome first, other;
	int r;

	for (size_t i = 0; i < m->n_tied; i++) {
		char s[512] = "";
		d->ambiguous[d->n_ambiguous++] = m->tied[i]->id;
		if (len < sizeof(ids))
			len += (size_t)snprintf(ids + len, sizeof(ids) - len, "%s%s", i ? ", " : "",
						m->tied[i]->id);
		if (identify_holds(d, m->tied[i], s, sizeof(s))) {
			found = m->tied[i];
			(void)snprintf(signs, sizeof(signs), "%s", s);
			n_found++;
		}
	}
	if (n_found == 1) {
		d->rule = found;
		d->tie = TIE_IDENTIFIED;
		return asprintf(&d->match_how, "%s (%s); the binary shows the identify signs of '%s' "
				"only: %s", m->how, ids, found->id, signs) < 0 ? -ENOMEM : 0;
	}
	r = rule_outcome(e, d, m->tied[0], &first);
	for (size_t i = 1; r == 0 && i < m->n_tied; i++) {
		r = rule_outcome(e, d, m->tied[i], &other);
		if (r == 0 && !outcome_same(&first, &other)) {
			d->tie = TIE_OPEN;
			return asprintf(&d->match_how, "%s (%s) and decide differently", m->how, ids) < 0 ?
				       -ENOMEM : 0;
		}
	}
	if (r < 0)
		return r;
	d->rule = m->tied[0];
	d->tie = TIE_AGREE;
	return asprintf(&d->match_how, "%s (%s) and all decide the same: %s%s", m->how, ids,
			verdict_name(first.verdict),
			first.caps ? " with the same capabilities" : "") < 0 ? -ENOMEM : 0;
}

/* Why a tie stays open, and what would settle it. */
static int open_tie_reason(const struct engine *e, struct decision *d)
{
	char ids[256] = "";
	size_t len = 0;

	for (size_t i = 0; i < d->n_ambiguous && len < sizeof(ids); i++)
		len += (size_t)snprintf(ids + len, sizeof(ids) - len, "%s%s", i ? ", " : "",
					d->ambiguous[i]);
	d->verdict = VERDICT_REVIEW;
	d->confidence = CONFIDENCE_LOW;
	return set_reason(d, "several rules match equally well (%s) and decide differently; %s, and "
			  "the binary %s: a package database under the root, an identify block "
			  "that tells them apart, or a local rule with match.sha256 would settle it",
			  ids,
			  d->package ? "the owning package is listed by more than one of them" :
			  e->host->pkg_db ? "no package owns it" :
			  "the owning package is unknown (no package database under the root)",
			  d->elf ? "shows the identify signs of none or several of them" :
			  "could not be read to identify it");
}

/* --- risk ----------------------------------------------------------------------- */

static bool inert(const struct facts *f)
{
	return f->flags & (FACT_SCRIPT | FACT_NOSUID_MOUNT | FACT_NOEXEC_MOUNT |
			   FACT_NOT_EXECUTABLE | FACT_FOREIGN_ROOTID | FACT_CAPS_MALFORMED);
}

static enum risk risk_now(const struct engine *e, const struct facts *f)
{
	enum risk r = RISK_NONE;

	if (inert(f))
		return RISK_NONE;
	if (f->flags & FACT_SETUID_ROOT)
		return RISK_ROOT;
	if (f->flags & FACT_SETUID_USER)
		r = RISK_DANGEROUS;
	if ((f->flags & FACT_SETGID) && f->gid == 0)
		r = S2C_MAX(r, RISK_DANGEROUS);
	else if (f->flags & FACT_SETGID)
		r = S2C_MAX(r, RISK_LOW);
	if (f->has_caps && !f->caps_error)
		r = S2C_MAX(r, captable_risk(&e->db->caps, f->caps.permitted | f->caps.inheritable));
	return r;
}

/* --- the state after ------------------------------------------------------------------ */

/* The owner, group and mode a migration asks for: the chosen condition's, else the rule's. */
static const char *want_owner(const struct rule *rule, const struct decision *d)
{
	return d->cond && d->cond->owner ? d->cond->owner : rule ? rule->owner : NULL;
}

static const char *want_group(const struct rule *rule, const struct decision *d)
{
	return d->cond && d->cond->group ? d->cond->group : rule ? rule->group : NULL;
}

static int want_mode(const struct rule *rule, const struct decision *d)
{
	return d->cond && d->cond->mode >= 0 ? d->cond->mode : rule ? rule->mode : -1;
}

static int resolve_owner(const struct engine *e, const struct rule *rule, struct decision *d)
{
	const struct facts *f = d->facts;
	const char *owner = want_owner(rule, d), *group = want_group(rule, d);

	d->uid = f->uid;
	d->gid = f->gid;
	if (owner && idmap_uid(e->ids, owner, &d->uid) < 0)
		return warn(d, "user '%s' of the rule does not exist on the target; owner kept", owner);
	if (owner)
		d->owner_after = owner;
	if (group && idmap_gid(e->ids, group, &d->gid) < 0)
		return warn(d, "group '%s' of the rule does not exist on the target; group kept", group);
	if (group)
		d->group_after = group;
	return 0;
}

/*
 * A file that already carries the decided capability set with the effective
 * bit, where the decision says "p" (the program raises them itself), works
 * the same: keep what the distribution installed rather than churn it.
 */
static int adopt_present_caps(struct decision *d)
{
	const struct facts *f = d->facts;
	_cleanup_free_ char *wanted = NULL;

	if (!f->has_caps || f->caps_error || f->caps.has_rootid || !d->has_caps ||
	    f->caps.permitted != d->caps.permitted || f->caps.inheritable != d->caps.inheritable ||
	    !f->caps.effective || d->caps.effective)
		return 0;
	wanted = strdup(d->caps_text);
	if (!wanted || set_caps(d, &f->caps) < 0)
		return -ENOMEM;
	return warn(d, "already has %s; the rule's '%s' differs only in the effective bit, which a "
		    "capability-aware program does not need but is not harmed by, so it is kept",
		    d->caps_text, wanted);
}

/* Nothing changes: the state after is the state now. */
static int keep_state(struct decision *d)
{
	const struct facts *f = d->facts;

	d->uid = f->uid;
	d->gid = f->gid;
	d->mode = f->mode & 07777;
	free(d->caps_text);
	d->caps_text = NULL;
	d->caps = (struct fcaps){ 0 };
	d->has_caps = f->has_caps && !f->caps_error;
	if (d->has_caps) {
		d->caps = f->caps;
		d->caps_text = f->caps_text ? strdup(f->caps_text) : NULL;
		if (!d->caps_text)
			return -ENOMEM;
	}
	d->changes = false;
	d->risk = d->risk_now;
	return 0;
}

/* Set the state after the verdict and whether anything changes. */
static int finish_state(const struct engine *e, const struct rule *rule, struct decision *d)
{
	const struct facts *f = d->facts;
	uint32_t mode = f->mode & 07777;
	int r = 0;

	d->uid = f->uid;
	d->gid = f->gid;
	d->mode = mode;
	switch (d->verdict) {
	case VERDICT_MIGRATE:
		r = adopt_present_caps(d);
		if (r == 0)
			r = resolve_owner(e, rule, d);
		mode &= ~(uint32_t)S_ISUID;
		/* setgid to a non-root group is a narrow privilege: left as it is */
		if (d->gid == 0 || want_mode(rule, d) >= 0)
			mode &= ~(uint32_t)S_ISGID;
		if (want_mode(rule, d) >= 0)
			mode = (uint32_t)want_mode(rule, d);
		d->mode = mode;
		d->changes = d->uid != f->uid || d->gid != f->gid || d->mode != (f->mode & 07777) ||
			     !f->has_caps || f->caps_error || !fcaps_equal(&d->caps, &f->caps);
		d->disguise = captable_risk(&e->db->caps, d->caps.permitted | d->caps.inheritable) ==
			      RISK_ROOT;
		{
			struct file_state after = { .uid = d->uid, .gid = d->gid, .mode = d->mode };
			filestate_set_caps(&after, &d->caps);
			d->risk = privcheck_risk(&e->db->caps, &after);
		}
		break;
	case VERDICT_DROP:
		d->mode = mode & ~(uint32_t)(S_ISUID | S_ISGID);
		d->has_caps = false;
		d->changes = d->mode != mode || f->has_caps;
		d->risk = RISK_NONE;
		break;
	case VERDICT_KEEP:
	case VERDICT_REVIEW:
	default:
		r = keep_state(d);
		break;
	}
	return r;
}

/* The file's state as it is, for the kernel: owner, group, mode, capability bytes. */
static void state_of_facts(const struct facts *f, struct file_state *s)
{
	memset(s, 0, sizeof(*s));
	s->uid = f->uid;
	s->gid = f->gid;
	s->mode = f->mode & 07777;
	s->has_xattr = f->has_caps && f->caps_len > 0;
	s->xattr_len = s->has_xattr ? f->caps_len : 0;
	memcpy(s->xattr, f->caps_raw, s->xattr_len);
}

/*
 * The first promise, for every decision: what it would leave grants no more
 * than what the file has (rules/privcheck.h).  A decision that would is
 * turned into keep (the file is neither root's set-user-ID program nor a
 * capable one, so no rule for one applies to it) or review (it is, but the
 * rule asks for more than it has: a person decides).
 * Root-equivalent sets pass here as "setuid in disguise"; apply asks for
 * their explicit acceptance.
 */
static bool caps_usable(const struct facts *f)
{
	return f->has_caps && !f->caps_error && !(f->flags & FACT_FOREIGN_ROOTID) &&
	       (f->caps.permitted | f->caps.inheritable);
}

static int guard(const struct engine *e, struct decision *d)
{
	const struct facts *f = d->facts;
	struct file_state before, after;
	struct s2c_error why = { 0 };
	_cleanup_free_ char *was = NULL;
	int r;

	if (!d->changes)
		return 0;
	state_of_facts(f, &before);
	after = (struct file_state){ .uid = d->uid, .gid = d->gid, .mode = d->mode };
	filestate_set_caps(&after, d->has_caps ? &d->caps : NULL);
	r = privcheck(&e->db->caps, &before, &after, PRIVCHECK_ROOT_EQUIVALENT, &why);
	if (r == 0 || r == -ENOMEM)
		return r;
	if (d->verdict == VERDICT_MIGRATE)
		r = asprintf(&was, "migrate it to %s", d->caps_text ? d->caps_text : "capabilities");
	else
		r = asprintf(&was, "%s its privilege", verdict_name(d->verdict));
	if (r < 0)
		return -ENOMEM;
	/* A person decides whether root's program or a capable one should get more. */
	d->verdict = (f->flags & FACT_SETUID_ROOT) || caps_usable(f) ? VERDICT_REVIEW : VERDICT_KEEP;
	d->confidence = CONFIDENCE_HIGH;
	d->disguise = false;
	r = set_reason(d, "%s%s%s would %s, but %s, so it is %s", d->rule ? "the rule '" : "",
		       d->rule ? d->rule->id : "the evidence", d->rule ? "'" : "", was, why.msg,
		       d->verdict == VERDICT_KEEP ? "kept as it is" : "left for a person to review");
	if (r == 0)
		r = keep_state(d);
	return r;
}

/* --- generic verdicts ---------------------------------------------------------------- */

/* Facts that decide on their own, before any rule.  Returns 1 when decided. */
static int generic(struct decision *d)
{
	const struct facts *f = d->facts;
	int r;

	if (f->flags & FACT_CAPS_MALFORMED) {
		d->verdict = VERDICT_REVIEW;
		d->confidence = CONFIDENCE_HIGH;
		r = set_reason(d, "its security.capability attribute is malformed (%s); the kernel "
			       "refuses it, so inspect and remove it", f->caps_error);
		return r < 0 ? r : 1;
	}
	if ((f->flags & FACT_FOREIGN_ROOTID) && !(f->mode & (S_ISUID | S_ISGID))) {
		d->verdict = VERDICT_REVIEW;
		d->confidence = CONFIDENCE_HIGH;
		r = set_reason(d, "its capabilities are bound to the user namespace whose root is uid "
			       "%u, so they are not effective on the host", f->caps.rootid);
		return r < 0 ? r : 1;
	}
	if (f->flags & FACT_SCRIPT) {
		d->verdict = VERDICT_DROP;
		d->confidence = CONFIDENCE_HIGH;
		r = set_reason(d, "it is a script (#!%s): the kernel ignores set-ID bits and file "
			       "capabilities on scripts, so they grant nothing", f->interpreter);
		return r < 0 ? r : 1;
	}
	if (f->flags & FACT_NOSUID_MOUNT) {
		d->verdict = VERDICT_DROP;
		d->confidence = CONFIDENCE_HIGH;
		r = set_reason(d, "it lives on a nosuid mount (%s), where set-ID bits and file "
			       "capabilities are never honoured, so the privilege is inert",
			       f->mount.target ? f->mount.target : "unknown mount point");
		return r < 0 ? r : 1;
	}
	if (f->flags & FACT_NOT_EXECUTABLE) {
		d->verdict = VERDICT_DROP;
		d->confidence = CONFIDENCE_HIGH;
		r = set_reason(d, "nobody can execute it (no execute bit), so its privilege is latent "
			       "and only waits for a chmod");
		return r < 0 ? r : 1;
	}
	return 0;
}

/* --- with a rule ----------------------------------------------------------------------- */

static int apply_rule(const struct engine *e, const struct rule *rule, struct decision *d,
		      bool aware)
{
	const struct rule_condition *c = NULL;
	const struct fcaps *caps = rule->has_caps ? &rule->caps : NULL;
	int r;

	r = eval_conditions(e, rule, d, &c);
	if (r < 0)
		return r;
	d->cond = c;
	d->verdict = c ? c->verdict : rule->verdict;
	r = set_reason(d, "%s", c ? c->reason : rule->reason);
	if (r < 0)
		return r;
	if (c && c->has_caps)
		caps = &c->caps;
	d->confidence = CONFIDENCE_HIGH;
	if (rule->has_needs)
		d->needs = rule->needs.permitted | rule->needs.inheritable;
	if (c && c->has_needs)
		d->needs = c->needs.permitted | c->needs.inheritable;
	if (d->verdict != VERDICT_MIGRATE || !caps)
		return 0;
	r = set_caps(d, caps);
	if (r < 0)
		return r;
	/* A program that cannot raise its own capabilities needs the effective bit. */
	if (!d->caps.effective && !aware && rule->aware != 1) {
		struct fcaps ep = d->caps;
		ep.effective = true;
		r = set_caps(d, &ep);
		if (r == 0)
			r = warn(d, "the rule gives '%s' but the program is capability-dumb (it does not "
				 "link libcap or libcap-ng), so the effective bit is set: '%s'",
				 caps == &rule->caps ? rule->caps_text : c->caps_text, d->caps_text);
	}
	return r;
}

/* Where the rule and the evidence disagree, say so. */
static int cross_check(const struct engine *e, struct decision *d, uint64_t strong)
{
	uint64_t missing;
	_cleanup_free_ char *names = NULL;

	if (d->verdict != VERDICT_MIGRATE || !d->has_caps)
		return 0;
	missing = strong & ~(d->caps.permitted | d->caps.inheritable);
	missing &= ~captable_with_risk(&e->db->caps, missing, RISK_ROOT);
	if (!missing)
		return 0;
	names = fcaps_mask_names(missing);
	if (!names)
		return -ENOMEM;
	return warn(d, "the binary's imports are strong evidence for %s, which the rule does not "
		    "grant; test the features that need it", names);
}

/* --- without a rule --------------------------------------------------------------------- */

static int no_rule(const struct engine *e, struct decision *d, uint64_t strong, uint64_t medium,
		   uint64_t weak, bool aware, bool unknown)
{
	const struct facts *f = d->facts;
	struct fcaps proposal = { .version = 2 };
	_cleanup_free_ char *names = NULL;
	enum risk prisk;
	int r;

	if (!(f->flags & FACT_SETUID_ROOT)) {
		if (f->flags & FACT_SETUID_USER) {
			d->verdict = VERDICT_KEEP;
			d->confidence = CONFIDENCE_MEDIUM;
			return set_reason(d, "it is setuid to '%s', not root: file capabilities cannot "
					  "switch a program to another user, and the privilege is "
					  "narrower than root", f->owner ? f->owner : "another user");
		}
		if ((f->flags & FACT_SETGID) && !f->has_caps) {
			d->verdict = f->gid == 0 ? VERDICT_REVIEW : VERDICT_KEEP;
			d->confidence = CONFIDENCE_MEDIUM;
			return set_reason(d, f->gid == 0 ?
					  "it is setgid to the root group, which owns many system files: "
					  "check what it needs the group for" :
					  "it is setgid to group '%s' only, a narrow privilege that file "
					  "capabilities would not narrow further",
					  f->group ? f->group : "?");
		}
		/* capabilities already, no rule to compare with */
		d->verdict = engine_is_interpreter(f->path) || d->risk_now == RISK_ROOT ?
				     VERDICT_REVIEW : VERDICT_KEEP;
		d->confidence = CONFIDENCE_MEDIUM;
		if (engine_is_interpreter(f->path))
			return set_reason(d, "it is an interpreter with file capabilities: every script "
					  "it runs, anyone's, gets %s", f->caps_text);
		if (d->risk_now == RISK_ROOT)
			return set_reason(d, "its file capabilities (%s) are root-equivalent: setuid in "
					  "disguise", f->caps_text);
		return set_reason(d, "it already uses file capabilities (%s) and no rule says "
				  "otherwise", f->caps_text);
	}
	if (!d->elf) {
		d->verdict = VERDICT_REVIEW;
		d->confidence = CONFIDENCE_LOW;
		return set_reason(d, "no rule describes it and its ELF imports could not be read (%s)",
				  d->elf_error ? d->elf_error : "not an ELF file");
	}
	if (switches_users(d->elf)) {
		d->verdict = VERDICT_REVIEW;
		d->confidence = CONFIDENCE_MEDIUM;
		d->needs = S2C_CAPMASK(CAP_SETUID) | S2C_CAPMASK(CAP_SETGID);
		return set_reason(d, "no rule describes it, and it looks up users, sets their groups, "
				  "switches uid and runs programs: as capabilities that is cap_setuid "
				  "and cap_setgid, root-equivalent, so it most likely must stay setuid");
	}
	proposal.permitted = strong | medium;
	proposal.effective = !aware;
	d->proposed = proposal.permitted;
	prisk = captable_risk(&e->db->caps, proposal.permitted);
	d->confidence = strong && !unknown ? CONFIDENCE_HIGH :
			(strong || medium) ? CONFIDENCE_MEDIUM : CONFIDENCE_LOW;
	if (unknown && d->confidence > CONFIDENCE_LOW)
		d->confidence--;
	if (!proposal.permitted) {
		d->verdict = VERDICT_REVIEW;
		names = fcaps_mask_names(weak);
		if (!names)
			return -ENOMEM;
		return set_reason(d, "no rule describes it and its imports give no clear evidence of a "
				  "capability%s%s%s", *names ? " (weak hints: " : "", names,
				  *names ? ")" : "");
	}
	r = set_caps(d, &proposal);
	if (r < 0)
		return r;
	if (strong && !unknown && prisk < RISK_ROOT && d->n_warnings == 0) {
		d->verdict = VERDICT_MIGRATE;
		return set_reason(d, "no rule describes it; its imports are strong evidence that %s "
				  "is all it needs", d->caps_text);
	}
	d->verdict = VERDICT_REVIEW;
	return set_reason(d, "no rule describes it; from its imports it would need %s (%s "
			  "confidence)%s", d->caps_text, confidence_name(d->confidence),
			  prisk == RISK_ROOT ? ", which is root-equivalent" : "");
}

/* --- the bounding set of a container -------------------------------------------------- */

/* The set @caps becomes for a program that is @aware (or not): the effective
 * bit for a capability-dumb one, as apply_rule() does. */
static struct fcaps with_effective(const struct fcaps *caps, bool aware)
{
	struct fcaps c = *caps;

	if (!aware)
		c.effective = true;
	return c;
}

/*
 * In a container the kernel grants a file's capabilities only within the
 * bounding set: a file with the effective bit whose permitted set the
 * bounding set does not hold fails to execute (EPERM, the safety check for
 * capability-dumb programs), and a =p program starts without the missing
 * ones.  Such a migration cannot work there: use another set of the rule
 * that fits (an alternative of its conditions), or leave the file for review.
 */
static int fit_bounding(const struct engine *e, struct decision *d, bool aware)
{
	const struct host *h = e->host;
	const struct rule *rule = d->rule;
	uint64_t missing;
	_cleanup_free_ char *names = NULL, *was = NULL;
	const struct fcaps *alt = NULL;
	int r;

	if (d->verdict != VERDICT_MIGRATE || !d->has_caps || h->bounding == HOST_BOUNDING_ALL)
		return 0;
	missing = (d->caps.permitted | d->caps.inheritable) & ~h->bounding;
	if (!missing)
		return 0;
	names = fcaps_mask_names(missing);
	was = strdup(d->caps_text ? d->caps_text : "?");
	if (!names || !was)
		return -ENOMEM;
	/* prefer a set of the rule itself that fits */
	if (rule && rule->has_caps && !((rule->caps.permitted | rule->caps.inheritable) & ~h->bounding))
		alt = &rule->caps;
	for (size_t i = 0; rule && !alt && i < rule->n_conditions; i++) {
		const struct rule_condition *c = &rule->conditions[i];
		if (c->verdict == VERDICT_MIGRATE && c->has_caps &&
		    !((c->caps.permitted | c->caps.inheritable) & ~h->bounding))
			alt = &c->caps;
	}
	if (alt) {
		struct fcaps fit = with_effective(alt, aware || rule->aware == 1);
		r = set_caps(d, &fit);
		if (r == 0)
			d->confidence = CONFIDENCE_MEDIUM;
		if (r == 0)
			r = warn(d, "%s lacks %s, so '%s' cannot work here; the rule's alternative '%s' "
				 "fits it and is used instead", h->bounding_what, names, was, d->caps_text);
		return r;
	}
	d->verdict = VERDICT_REVIEW;
	d->confidence = CONFIDENCE_HIGH;
	r = set_reason(d, "%s would migrate it to %s, but %s lacks %s: %s; in the container a set-"
		       "user-ID-root program gets the bounding set's capabilities, so keep it set-ID there, "
		       "or give the container %s",
		       rule ? "the rule" : "the evidence", was, h->bounding_what, names,
		       d->caps.effective ? "a file with the effective bit then fails to execute (EPERM)" :
		       "the program then starts without them", names);
	if (r == 0)
		r = warn(d, "cannot work in this container: %s lacks %s", h->bounding_what, names);
	return r;
}

/* --- the whole decision ------------------------------------------------------------------ */

static int general_warnings(const struct engine *e, struct decision *d, bool aware, bool drops)
{
	const struct facts *f = d->facts;
	int r = 0;

	if (d->verdict == VERDICT_MIGRATE && d->disguise) {
		_cleanup_free_ char *root = fcaps_mask_names(
			captable_with_risk(&e->db->caps, d->caps.permitted | d->caps.inheritable, RISK_ROOT));
		if (!root)
			return -ENOMEM;
		r = warn(d, "setuid in disguise: %s is root-equivalent, so this migration removes the "
			 "setuid bit but not root", root);
	}
	if (r == 0 && d->verdict == VERDICT_MIGRATE && !aware && drops && (f->flags & FACT_SETUID_ROOT))
		r = warn(d, "capability-dumb program: its setuid(getuid()) no longer drops anything, "
			 "so it keeps %s for its whole life", d->caps_text);
	if (r == 0 && (f->flags & FACT_HARDLINKS))
		r = warn(d, "%u hard links: another name keeps the same inode's privilege; apply "
			 "refuses it unless told otherwise", f->nlink);
	if (r == 0 && (f->flags & FACT_SUID_AND_CAPS))
		r = warn(d, "setuid root and capabilities together: the kernel grants only the file "
			 "capabilities (%s) with euid 0", f->caps_text ? f->caps_text : "?");
	if (r == 0 && (f->flags & FACT_WRITABLE))
		r = warn(d, "writable by group or others: anyone allowed to write it can replace the "
			 "program");
	if (r == 0 && d->rule && d->rule->breaks)
		r = warn(d, "%s", d->rule->breaks);
	if (r == 0 && f->has_caps && !f->caps_error && engine_is_interpreter(f->path))
		r = warn(d, "an interpreter with capabilities grants them to every script it runs");
	return r;
}

int engine_prepare(const struct engine *e, const struct facts *const *files, size_t n)
{
	_cleanup_free_ const char **paths = calloc(n + 1, sizeof(char *));

	if (!paths)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		paths[i] = files[i]->path;
	return host_load_packages(e->host, paths, n);
}

int engine_decide(const struct engine *e, const struct facts *f, struct binary *bin,
		  struct decision **ret, struct s2c_error *err)
{
	_cleanup_(decision_freep) struct decision *d = calloc(1, sizeof(*d));
	struct match_result m;
	uint64_t strong = 0, medium = 0, weak = 0;
	bool aware = false, unknown = false, drops = false;
	int r;

	(void)err;
	if (!d)
		return -ENOMEM;
	d->facts = f;
	d->risk_now = risk_now(e, f);
	{
		const struct pkgdb_entry *pe = host_package_entry(e->host, f->path);
		d->package = pe ? pe->package : NULL;
		d->package_version = pe ? pe->version : NULL;
	}
	/* The content read for it becomes the decision's. */
	d->sha256 = TAKE_PTR(bin->sha256);
	d->elf = TAKE_PTR(bin->elf);
	d->elf_error = TAKE_PTR(bin->error);
	r = 0;
	if (d->elf)
		r = evidence_from_elf(e, d);
	if (r == 0 && d->elf)
		r = breakers_from_elf(e, d);
	if (r < 0)
		return r;
	evidence_summary(d, &strong, &medium, &weak, &aware, &unknown, &drops);
	match_file(e->db, f->path, d->package, d->sha256, &m);
	if (m.rule) {
		d->rule = m.rule;
		if (!(d->match_how = strdup(m.how)))
			return -ENOMEM;
	} else if (m.n_tied) {
		r = settle_tie(e, d, &m);
		if (r < 0)
			return r;
	}
	if (d->rule && d->rule->aware >= 0)
		aware = d->rule->aware;
	d->aware = aware;
	r = program_version(d, d->rule, &d->version, &d->version_source);
	if (r == 0)
		r = generic(d);
	if (r == 0 && d->rule) {
		r = apply_rule(e, d->rule, d, aware);
		if (r == 0 && d->tie == TIE_AGREE && d->verdict != VERDICT_REVIEW) {
			_cleanup_free_ char *why = d->reason;
			d->reason = NULL;
			d->confidence = CONFIDENCE_MEDIUM;
			r = set_reason(d, "%s (%zu rules match equally well and all decide the same, "
				       "so the first, '%s', is used)", why, d->n_ambiguous, d->rule->id);
		}
	} else if (r == 0 && d->n_ambiguous) {
		r = open_tie_reason(e, d);
	} else if (r == 0)
		r = no_rule(e, d, strong, medium, weak, aware, unknown);
	if (r == 0)
		r = fit_bounding(e, d, aware);
	if (r < 0)
		return r;
	r = finish_state(e, d->rule, d);
	if (r == 0)
		r = guard(e, d);
	if (r == 0)
		r = cross_check(e, d, strong);
	if (r == 0)
		r = general_warnings(e, d, aware, drops);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(d);
	return 0;
}

int engine_aware(const struct engine *e, const char *path, const char *sha256,
		 const struct elfinfo *elf, bool *ret_aware)
{
	/* A decision that borrows @elf only to collect its evidence. */
	struct decision d = { .elf = (struct elfinfo *)(uintptr_t)elf };
	struct match_result m;
	uint64_t strong, medium, weak;
	bool aware = false, unknown, drops;
	int r = elf ? evidence_from_elf(e, &d) : 0;

	if (r == 0)
		evidence_summary(&d, &strong, &medium, &weak, &aware, &unknown, &drops);
	for (size_t i = 0; i < d.n_evidence; i++)
		free(d.evidence[i].what);
	free(d.evidence);
	if (r < 0)
		return r;
	match_file(e->db, path, NULL, sha256, &m);
	if (m.rule && m.rule->aware >= 0)
		aware = m.rule->aware;
	*ret_aware = aware;
	return 0;
}
