/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decision itself: generic facts first, then the rule (rules/match.h,
 * its conditions through rules/conditions.h, ties through rules/identify.h)
 * or, without one, the ELF evidence's proposal (rules/evidence.h); then the
 * container's bounding set, the state after, the privilege guard
 * (rules/privcheck.h), risk and warnings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binary.h"
#include "conditions.h"
#include "decision.h"
#include "elfinfo.h"
#include "engine.h"
#include "evidence.h"
#include "facts.h"
#include "fileid.h"
#include "host.h"
#include "identify.h"
#include "idmap.h"
#include "match.h"
#include "override.h"
#include "pkgdb.h"
#include "privcheck.h"
#include "strpool.h"
#include "strtable.h"
#include "util.h"
#include "common.h"

static const char *const confidence_names[_CONFIDENCE_MAX] = { "low", "medium", "high" };

DEFINE_STRING_TABLE_TO_NAME(confidence_name, enum confidence, confidence_names, "invalid")

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
		if (s2c_fnmatch(globs[i], base, 0))
			return true;
	return false;
}

/* Free the evidence items of @d. */
static void evidence_release(struct decision *d)
{
	for (size_t i = 0; i < d->n_evidence && !d->shared; i++)
		free(d->evidence[i].what);
	free(d->evidence);
	d->evidence = NULL;
	d->n_evidence = 0;
}

struct decision *decision_free(struct decision *d)
{
	if (!d)
		return NULL;
	elfinfo_free(d->elf);
	free(d->sha256);
	free(d->ambiguous);
	free(d->version);
	evidence_release(d);
	if (d->shared) {
		free(d->warnings);
	} else {
		free(d->elf_error);
		free(d->match_how);
		free(d->reason);
		free(d->caps_text);
		for (size_t i = 0; i < d->n_conditions; i++)
			free(d->conditions[i].text);
		strv_freen(d->warnings, d->n_warnings);
	}
	free(d->conditions);
	free(d);
	return NULL;
}

/* Hand *@s to @pool, or after a failure (*@r < 0) free it: either way @s is no longer the
 * decision's own. */
static void share(struct strpool *pool, char **s, int *r)
{
	if (*r == 0) {
		*r = strpool_take(pool, s);
	} else {
		free(*s);
		*s = NULL;
	}
}

int decision_share(struct decision *d, struct strpool *pool)
{
	size_t breaker = SIZE_MAX;
	int r = 0;

	d->shared = true;
	share(pool, &d->elf_error, &r);
	share(pool, &d->match_how, &r);
	share(pool, &d->reason, &r);
	share(pool, &d->caps_text, &r);
	for (size_t i = 0; i < d->n_evidence; i++)
		share(pool, &d->evidence[i].what, &r);
	for (size_t i = 0; i < d->n_conditions; i++)
		share(pool, &d->conditions[i].text, &r);
	for (size_t i = 0; i < d->n_warnings; i++) {
		if (d->breaker == d->warnings[i])
			breaker = i;
		share(pool, &d->warnings[i], &r);
	}
	if (breaker != SIZE_MAX)
		d->breaker = d->warnings[breaker];
	return r;
}

int decision_add_warning(struct decision *d, char *w, struct strpool *pool)
{
	char **v;

	if (!d->shared)
		return strv_push(&d->warnings, &d->n_warnings, w);
	if (strpool_take(pool, &w) < 0)
		return -ENOMEM;
	/* as strv_push() does, but @w is the pool's now */
	v = realloc(d->warnings, (d->n_warnings + 2) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	d->warnings = v;
	v[d->n_warnings++] = w;
	v[d->n_warnings] = NULL;
	return 0;
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

/* The owner and group @o asks for, as names of the target. */
static int resolve_owner(const struct engine *e, const struct rule_outcome *o, struct decision *d)
{
	const struct facts *f = d->facts;

	d->uid = f->uid;
	d->gid = f->gid;
	if (o->owner && idmap_uid(e->ids, o->owner, &d->uid) < 0)
		return decision_warn(d, "user '%s' of the rule does not exist on the target; owner "
				     "kept", o->owner);
	if (o->owner)
		d->owner_after = o->owner;
	if (o->group && idmap_gid(e->ids, o->group, &d->gid) < 0)
		return decision_warn(d, "group '%s' of the rule does not exist on the target; group "
				     "kept", o->group);
	if (o->group)
		d->group_after = o->group;
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
	if (!wanted || decision_set_caps(d, &f->caps) < 0)
		return -ENOMEM;
	return decision_warn(d, "already has %s; the rule's '%s' differs only in the effective bit, "
			     "which a capability-aware program does not need but is not harmed by, "
			     "so it is kept", d->caps_text, wanted);
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
	struct rule_outcome o = { .mode = -1 };   /* without a rule: the state as it is */
	uint32_t mode = f->mode & 07777;
	int r = 0;

	d->uid = f->uid;
	d->gid = f->gid;
	d->mode = mode;
	if (rule)
		conditions_outcome(rule, d->cond, &o);
	switch (d->verdict) {
	case VERDICT_MIGRATE:
		r = adopt_present_caps(d);
		if (r == 0)
			r = resolve_owner(e, &o, d);
		mode &= ~(uint32_t)S_ISUID;
		/* setgid to a non-root group is a narrow privilege: left as it is */
		if (d->gid == 0 || o.mode >= 0)
			mode &= ~(uint32_t)S_ISGID;
		if (o.mode >= 0)
			mode = (uint32_t)o.mode;
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
		was = strdup_printf("migrate it to %s", d->caps_text ? d->caps_text : "capabilities");
	else
		was = strdup_printf("%s its privilege", verdict_name(d->verdict));
	if (!was)
		return -ENOMEM;
	/* A person decides whether root's program or a capable one should get more. */
	d->verdict = (f->flags & FACT_SETUID_ROOT) || caps_usable(f) ? VERDICT_REVIEW : VERDICT_KEEP;
	d->confidence = CONFIDENCE_HIGH;
	d->disguise = false;
	r = decision_set_reason(d, "%s%s%s would %s, but %s, so it is %s",
				d->override ? "the local override of '" :
				d->rule ? "the rule '" : "",
				d->rule ? d->rule->id : "the evidence",
				d->rule ? "'" : "", was, why.msg,
				d->verdict == VERDICT_KEEP ? "kept as it is" :
				"left for a person to review");
	if (r == 0)
		r = keep_state(d);
	return r;
}

/* --- generic verdicts ---------------------------------------------------------------- */

/* Facts that decide on their own, before any rule.  Returns 1 when decided. */
static int generic(struct decision *d)
{
	const struct facts *f = d->facts;
	enum verdict v = VERDICT_DROP;
	int r;

	if (f->flags & FACT_CAPS_MALFORMED) {
		v = VERDICT_REVIEW;
		r = decision_set_reason(d, "its security.capability attribute is malformed (%s); "
					"the kernel refuses it, so inspect and remove it",
					f->caps_error);
	} else if ((f->flags & FACT_FOREIGN_ROOTID) && !(f->mode & (S_ISUID | S_ISGID))) {
		v = VERDICT_REVIEW;
		r = decision_set_reason(d, "its capabilities are bound to the user namespace whose "
					"root is uid %u, so they are not effective on the host",
					f->caps.rootid);
	} else if (f->flags & FACT_SCRIPT) {
		r = decision_set_reason(d, "it is a script (#!%s): the kernel ignores set-ID bits "
					"and file capabilities on scripts, so they grant nothing",
					f->interpreter);
	} else if (f->flags & FACT_NOSUID_MOUNT) {
		r = decision_set_reason(d, "it lives on a nosuid mount (%s), where set-ID bits and "
					"file capabilities are never honoured, so the privilege "
					"is inert",
					f->mount.target ? f->mount.target : "unknown mount point");
	} else if (f->flags & FACT_NOT_EXECUTABLE) {
		r = decision_set_reason(d, "nobody can execute it (no execute bit), so its privilege "
					"is latent and only waits for a chmod");
	} else {
		return 0;
	}
	d->verdict = v;
	d->confidence = CONFIDENCE_HIGH;
	return r < 0 ? r : 1;
}

/* --- with a rule ----------------------------------------------------------------------- */

/* The set @caps becomes for a program that is @aware (or not): the effective
 * bit for a capability-dumb one. */
static struct fcaps with_effective(const struct fcaps *caps, bool aware)
{
	struct fcaps c = *caps;

	if (!aware)
		c.effective = true;
	return c;
}

static int apply_rule(const struct engine *e, const struct rule *rule, struct decision *d)
{
	const struct rule_condition *c = NULL;
	struct rule_outcome o;
	struct fcaps ep;
	int r;

	r = conditions_eval(e, rule, d, &c);
	if (r < 0)
		return r;
	d->cond = c;
	conditions_outcome(rule, c, &o);
	d->verdict = o.verdict;
	d->confidence = CONFIDENCE_HIGH;
	d->needs = o.needs;
	r = decision_set_reason(d, "%s", o.reason);
	if (r < 0 || d->verdict != VERDICT_MIGRATE || !o.caps)
		return r;
	r = decision_set_caps(d, o.caps);
	if (r < 0)
		return r;
	/* A program that cannot raise its own capabilities needs the effective bit. */
	ep = with_effective(&d->caps, d->aware || rule->aware == 1);
	if (ep.effective == d->caps.effective)
		return 0;
	r = decision_set_caps(d, &ep);
	if (r == 0)
		r = decision_warn(d, "the rule gives '%s' but the program is capability-dumb (it does "
				  "not link libcap or libcap-ng), so the effective bit is set: '%s'",
				  o.caps_text, d->caps_text);
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
	return decision_warn(d, "the binary's imports are strong evidence for %s, which the rule "
			     "does not grant; test the features that need it", names);
}

/* --- the bounding set of a container -------------------------------------------------- */

/*
 * In a container the kernel grants a file's capabilities only within the
 * bounding set: a file with the effective bit whose permitted set the
 * bounding set does not hold fails to execute (EPERM, the safety check for
 * capability-dumb programs), and a =p program starts without the missing
 * ones.  Such a migration cannot work there: use another set of the rule
 * that fits (an alternative of its conditions), or leave the file for review.
 */
static int fit_bounding(const struct engine *e, struct decision *d)
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
	if (rule && rule->has_caps &&
	    !((rule->caps.permitted | rule->caps.inheritable) & ~h->bounding))
		alt = &rule->caps;
	for (size_t i = 0; rule && !alt && i < rule->n_conditions; i++) {
		const struct rule_condition *c = &rule->conditions[i];
		if (c->verdict == VERDICT_MIGRATE && c->has_caps &&
		    !((c->caps.permitted | c->caps.inheritable) & ~h->bounding))
			alt = &c->caps;
	}
	if (alt) {
		struct fcaps fit = with_effective(alt, d->aware || rule->aware == 1);
		r = decision_set_caps(d, &fit);
		if (r == 0)
			d->confidence = CONFIDENCE_MEDIUM;
		if (r == 0)
			r = decision_warn(d, "%s lacks %s, so '%s' cannot work here; the rule's "
					  "alternative '%s' fits it and is used instead",
					  h->bounding_what, names, was, d->caps_text);
		return r;
	}
	d->verdict = VERDICT_REVIEW;
	d->confidence = CONFIDENCE_HIGH;
	r = decision_set_reason(d, "%s would migrate it to %s, but %s lacks %s: %s; in the container "
				"a set-user-ID-root program gets the bounding set's capabilities, "
				"so keep it set-ID there, or give the container %s",
				rule ? "the rule" : "the evidence", was, h->bounding_what, names,
				d->caps.effective ?
				"a file with the effective bit then fails to execute (EPERM)" :
				"the program then starts without them", names);
	if (r == 0)
		r = decision_warn(d, "cannot work in this container: %s lacks %s", h->bounding_what,
				  names);
	return r;
}

/* --- the whole decision ------------------------------------------------------------------ */

static int general_warnings(const struct engine *e, struct decision *d, bool drops)
{
	const struct facts *f = d->facts;
	int r = 0;

	if (d->verdict == VERDICT_MIGRATE && d->disguise) {
		_cleanup_free_ char *root = fcaps_mask_names(
			captable_with_risk(&e->db->caps, d->caps.permitted | d->caps.inheritable,
					   RISK_ROOT));
		if (!root)
			return -ENOMEM;
		r = decision_warn(d, "setuid in disguise: %s is root-equivalent, so this migration "
				  "removes the setuid bit but not root", root);
	}
	/* One warning per cause: a rule's own "breaks" text says how the migration breaks
	 * this program, and restates this one where it applies. */
	if (r == 0 && d->verdict == VERDICT_MIGRATE && !d->aware && drops &&
	    (f->flags & FACT_SETUID_ROOT) && !(d->rule && d->rule->breaks))
		r = decision_warn(d, "capability-dumb program: its setuid(getuid()) no longer drops "
				  "anything, so it keeps %s for its whole life", d->caps_text);
	if (r == 0 && (f->flags & FACT_HARDLINKS))
		r = decision_warn(d, "%u hard links: another name keeps the same inode's privilege; "
				  "apply refuses it unless told otherwise", f->nlink);
	if (r == 0 && (f->flags & FACT_SUID_AND_CAPS))
		r = decision_warn(d, "setuid root and capabilities together: the kernel grants only "
				  "the file capabilities (%s) with euid 0",
				  f->caps_text ? f->caps_text : "?");
	if (r == 0 && (f->flags & FACT_WRITABLE))
		r = decision_warn(d, "writable by group or others: anyone allowed to write it can "
				  "replace the program");
	if (r == 0 && d->rule && d->rule->breaks)
		r = decision_warn(d, "%s", d->rule->breaks);
	if (r == 0 && f->has_caps && !f->caps_error && engine_is_interpreter(f->path))
		r = decision_warn(d, "an interpreter with capabilities grants them to every script it "
				  "runs");
	return r;
}

/* The owners and groups @db's rules ask for, looked up once now (idmap_uid()
 * keeps what NSS answers), so that deciding asks nothing. */
static void prepare_names(const struct engine *e)
{
	uint32_t id;

	for (size_t i = 0; i < e->db->n; i++) {
		const struct rule *r = e->db->rules[i];

		for (size_t c = 0; c <= r->n_conditions; c++) {
			const char *owner = c ? r->conditions[c - 1].owner : r->owner;
			const char *group = c ? r->conditions[c - 1].group : r->group;

			if (owner)
				(void)idmap_uid(e->ids, owner, &id);
			if (group)
				(void)idmap_gid(e->ids, group, &id);
		}
	}
}

int engine_prepare(const struct engine *e, const struct facts *const *files, size_t n)
{
	_cleanup_free_ const char **paths = calloc(n + 1, sizeof(char *));
	int r;

	if (!paths)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		paths[i] = files[i]->path;
	prepare_names(e);
	r = host_load_packages(e->host, paths, n);
	return r < 0 ? r : host_gather(e->host, e->db);
}

/* Take over the content read for @f (@bin is left empty) and collect its ELF evidence. */
static int read_evidence(const struct engine *e, struct decision *d, struct binary *bin)
{
	int r = 0;

	d->sha256 = TAKE_PTR(bin->sha256);
	d->elf = TAKE_PTR(bin->elf);
	d->elf_error = TAKE_PTR(bin->error);
	if (d->elf)
		r = evidence_from_elf(e, d);
	if (r == 0 && d->elf)
		r = evidence_breakers(e, d);
	return r;
}

/* The rule that describes the file, a tie between rules settled, or none. */
static int find_rule(const struct engine *e, struct decision *d)
{
	struct match_result m;

	match_file(e->db, d->facts->path, d->package, d->facts->group, d->sha256, &m);
	if (m.rule) {
		d->rule = m.rule;
		d->match_how = strdup(m.how);
		return d->match_how ? 0 : -ENOMEM;
	}
	return m.n_tied ? identify_settle_tie(e, d, &m) : 0;
}

/* The verdict, its reason and capabilities: from generic facts, the rule, an
 * open tie, or the evidence. */
static int choose_verdict(const struct engine *e, struct decision *d,
			  const struct evidence_summary *ev)
{
	_cleanup_free_ char *why = NULL;
	int r = generic(d);

	if (r != 0)
		return r < 0 ? r : 0;
	if (!d->rule)
		return d->n_ambiguous ? identify_open_tie(e, d) : evidence_decide(e, d, ev);
	r = apply_rule(e, d->rule, d);
	if (r == 0 && d->tie == TIE_AGREE && d->verdict != VERDICT_REVIEW) {
		why = TAKE_PTR(d->reason);
		d->confidence = CONFIDENCE_MEDIUM;
		r = decision_set_reason(d, "%s (%zu rules match equally well and all decide the "
					"same, so the first, '%s', is used)", why, d->n_ambiguous,
					d->rule->id);
	}
	/* A local override replaces the verdict the rule reached. */
	return r < 0 ? r : override_apply(e->db, d, d->aware);
}

int engine_decide(const struct engine *e, const struct facts *f, struct binary *bin,
		  struct decision **ret, struct s2c_error *err)
{
	_cleanup_(decision_freep) struct decision *d = calloc(1, sizeof(*d));
	const struct pkgdb_entry *pe = host_package_entry(e->host, f->path);
	struct evidence_summary ev;
	int r;

	(void)err;
	if (!d)
		return -ENOMEM;
	d->facts = f;
	d->risk_now = risk_now(e, f);
	d->package = pe ? pe->package : NULL;
	d->package_version = pe ? pe->version : NULL;
	r = read_evidence(e, d, bin);
	if (r == 0)
		r = find_rule(e, d);
	if (r < 0)
		return r;
	ev = evidence_summarise(d);
	d->aware = d->rule && d->rule->aware >= 0 ? d->rule->aware : ev.aware;
	ev.aware = d->aware;
	r = conditions_program_version(d, d->rule, &d->version, &d->version_source);
	if (r == 0)
		r = choose_verdict(e, d, &ev);
	if (r == 0)
		r = fit_bounding(e, d);
	if (r == 0)
		r = finish_state(e, d->rule, d);
	if (r == 0)
		r = guard(e, d);
	if (r == 0)
		r = cross_check(e, d, ev.strong);
	if (r == 0)
		r = general_warnings(e, d, ev.drops);
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
	bool aware = false;
	int r = elf ? evidence_from_elf(e, &d) : 0;

	if (r == 0)
		aware = evidence_summarise(&d).aware;
	evidence_release(&d);
	if (r < 0)
		return r;
	match_file(e->db, path, NULL, NULL, sha256, &m);
	if (m.rule && m.rule->aware >= 0)
		aware = m.rule->aware;
	*ret_aware = aware;
	return 0;
}
