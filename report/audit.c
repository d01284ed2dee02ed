/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/capability.h>

#include "audit.h"
#include "decisionrec.h"
#include "engine.h"
#include "facts.h"
#include "host.h"
#include "spill.h"
#include "fcaps.h"
#include "strtable.h"
#include "util.h"
#include "waiver.h"
#include "common.h"

/* --- the model ------------------------------------------------------------------------------ */

/* Ids are stable: never renumber, never reuse; append new kinds at the end. */
static const struct audit_finding_info findings[_AUDIT_FINDING_MAX] = {
	[AUDIT_MIGRATE] = {
		"S2C001", "SetuidCanMigrate",
		"Privileged program that can move to minimal file capabilities",
		"The program is set-ID (or carries capabilities) and a rule or strong ELF evidence "
		"says which file capabilities let it work without the set-ID bit: migrating shrinks "
		"what an exploit of it gains.",
		"7.0", AUDIT_LEVEL_WARNING },
	[AUDIT_DROP] = {
		"S2C002", "PrivilegeCanBeDropped",
		"Privilege that is not needed or never honoured",
		"The program needs no privilege on this system (for example ping when "
		"net.ipv4.ping_group_range admits every group), or the privilege is inert (a script, "
		"a nosuid mount, no execute bit): the set-ID bit or capabilities can simply be "
		"removed.",
		"6.0", AUDIT_LEVEL_WARNING },
	[AUDIT_KEEP] = {
		"S2C003", "MustStaySetuid",
		"Privileged program that must stay as it is",
		"The program switches users or needs a root-equivalent set (su, passwd, mount…), so "
		"file capabilities would only be setuid in disguise or would break it; it is listed "
		"for the inventory, with the reason.",
		"2.0", AUDIT_LEVEL_NOTE },
	[AUDIT_REVIEW] = {
		"S2C004", "NeedsReview",
		"Privileged program that needs a person's review",
		"No rule describes the program and its ELF imports are not conclusive, or several "
		"rules match: the proposed capabilities, if any, come with a confidence, and a "
		"person decides.",
		"5.0", AUDIT_LEVEL_WARNING },
	[AUDIT_DISGUISE] = {
		"S2C005", "SetuidInDisguise",
		"Root-equivalent file capabilities (setuid in disguise)",
		"The capability set the file keeps or would get contains a root-equivalent "
		"capability (cap_sys_admin, cap_setuid, cap_dac_override, …): removing the set-ID bit "
		"for it is not a win, and such capabilities already present grant root to whoever "
		"exploits the program.",
		"8.0", AUDIT_LEVEL_ERROR },
	[AUDIT_DANGEROUS_CAPS] = {
		"S2C006", "DangerousFileCapabilities",
		"File capabilities graded dangerous or root",
		"The file carries effective file capabilities today, and at least one of them is "
		"graded dangerous (a short way from root: cap_net_raw, cap_net_admin, cap_kill…) or "
		"root-equivalent.",
		"6.5", AUDIT_LEVEL_WARNING },
	[AUDIT_BREAKS] = {
		"S2C007", "LikelyToBreak",
		"Proposed change likely to break the program",
		"A change is proposed, but the binary contains strings or imports showing it insists "
		"on running as root (for example a getuid() == 0 check): test it before migrating.",
		"4.0", AUDIT_LEVEL_WARNING },
	[AUDIT_WRITABLE] = {
		"S2C008", "WritablePrivilegedFile",
		"Privileged file writable by group or others",
		"Anyone allowed to write the file can replace the program and inherit its set-ID bit "
		"or capabilities.",
		"9.0", AUDIT_LEVEL_ERROR },
};

const struct audit_finding_info *audit_finding_info(enum audit_finding f)
{
	return &findings[f];
}

static const char *const level_names[_AUDIT_LEVEL_MAX] = { "note", "warning", "error" };

DEFINE_STRING_TABLE_TO_NAME(audit_level_name, enum audit_level, level_names, "note")

static const char *const state_names[_AUDIT_STATE_MAX] = {
	[AUDIT_STATE_MIGRATE] = "migrate",
	[AUDIT_STATE_DROP] = "drop",
	[AUDIT_STATE_REVIEW] = "review",
	[AUDIT_STATE_KEEP] = "keep",
	[AUDIT_STATE_DONE] = "nothing to change",
};

static const char *const state_titles[_AUDIT_STATE_MAX] = {
	[AUDIT_STATE_MIGRATE] = "file capabilities replace the set-ID bit",
	[AUDIT_STATE_DROP] = "the privilege is not needed or never honoured",
	[AUDIT_STATE_REVIEW] = "a person decides",
	[AUDIT_STATE_KEEP] = "must stay as it is",
	[AUDIT_STATE_DONE] = "already in the state the verdict asks for",
};

const enum audit_state audit_state_order[_AUDIT_STATE_MAX] = {
	AUDIT_STATE_MIGRATE, AUDIT_STATE_DROP, AUDIT_STATE_REVIEW, AUDIT_STATE_KEEP,
	AUDIT_STATE_DONE,
};

enum audit_state audit_state(const struct decision *d)
{
	switch (d->verdict) {
	case VERDICT_MIGRATE:
		return d->changes ? AUDIT_STATE_MIGRATE : AUDIT_STATE_DONE;
	case VERDICT_DROP:
		return d->changes ? AUDIT_STATE_DROP : AUDIT_STATE_DONE;
	case VERDICT_KEEP:
		return AUDIT_STATE_KEEP;
	case VERDICT_REVIEW:
	default:
		return AUDIT_STATE_REVIEW;
	}
}

DEFINE_STRING_TABLE_TO_NAME(audit_state_name, enum audit_state, state_names, "review")

DEFINE_STRING_TABLE_TO_NAME(audit_state_title, enum audit_state, state_titles, "")

const char *audit_state_color(enum audit_state s)
{
	switch (s) {
	case AUDIT_STATE_MIGRATE: return "\033[1;32m";
	case AUDIT_STATE_DROP: return "\033[1;36m";
	case AUDIT_STATE_KEEP: return "\033[1;33m";
	case AUDIT_STATE_DONE: return "\033[1m";
	default: return "\033[1;35m";
	}
}

char *audit_bounding_text(const struct host *h)
{
	uint64_t known = 0, held, lacks;

	for (int c = 0; c <= CAP_LAST_CAP && c < 64; c++)
		known |= S2C_CAPMASK(c);
	held = h->bounding & known;
	lacks = ~h->bounding & known;
	if (h->bounding == HOST_BOUNDING_ALL || !lacks)
		return strdup("full");
	if (!held)
		return strdup("no capabilities");
	if (__builtin_popcountll(lacks) < __builtin_popcountll(held)) {
		_cleanup_free_ char *names = fcaps_mask_names(lacks);
		return names ? strdup_printf("all but %s", names) : NULL;
	}
	return fcaps_mask_names(held);
}

const char *audit_breaker(const struct decision *d)
{
	return d->breaker;
}

static enum risk caps_risk(const struct audit *a, const struct fcaps *c)
{
	return captable_risk(&a->db->caps, c->permitted | c->inheritable);
}

/* The capability set the file keeps or would get is root-equivalent and effective. */
static bool disguised(const struct audit *a, const struct decision *d)
{
	if (d->disguise)
		return true;
	return (d->verdict == VERDICT_KEEP || d->verdict == VERDICT_REVIEW) && d->has_caps &&
	       d->risk == RISK_ROOT && caps_risk(a, &d->caps) == RISK_ROOT;
}

static bool dangerous_caps(const struct audit *a, const struct decision *d)
{
	const struct facts *f = d->facts;

	return f->has_caps && !f->caps_error && d->risk_now >= RISK_DANGEROUS &&
	       caps_risk(a, &f->caps) >= RISK_DANGEROUS;
}

unsigned audit_findings(const struct audit *a, const struct decision *d)
{
	static const enum audit_finding by_verdict[_VERDICT_MAX] = {
		[VERDICT_MIGRATE] = AUDIT_MIGRATE,
		[VERDICT_DROP] = AUDIT_DROP,
		[VERDICT_KEEP] = AUDIT_KEEP,
		[VERDICT_REVIEW] = AUDIT_REVIEW,
	};
	const struct facts *f = d->facts;
	/* Nothing to change: no verdict to act on, only what else the file shows. */
	unsigned m = audit_state(d) == AUDIT_STATE_DONE ? 0 : 1u << by_verdict[d->verdict];

	if (disguised(a, d))
		m |= 1u << AUDIT_DISGUISE;
	if (dangerous_caps(a, d))
		m |= 1u << AUDIT_DANGEROUS_CAPS;
	if ((d->verdict == VERDICT_MIGRATE || d->verdict == VERDICT_DROP) && d->changes &&
	    audit_breaker(d))
		m |= 1u << AUDIT_BREAKS;
	if ((f->flags & FACT_WRITABLE) && d->risk_now > RISK_NONE)
		m |= 1u << AUDIT_WRITABLE;
	return m;
}

static enum audit_level level_of_risk(enum risk r)
{
	return r == RISK_ROOT ? AUDIT_LEVEL_ERROR :
	       r == RISK_DANGEROUS ? AUDIT_LEVEL_WARNING : AUDIT_LEVEL_NOTE;
}

enum audit_level audit_finding_level(const struct audit *a, const struct decision *d,
			     enum audit_finding f)
{
	switch (f) {
	case AUDIT_MIGRATE:
	case AUDIT_DROP:
	case AUDIT_REVIEW:
		return level_of_risk(d->risk_now);
	case AUDIT_DANGEROUS_CAPS:
		return level_of_risk(caps_risk(a, &d->facts->caps));
	case AUDIT_KEEP:
	case AUDIT_BREAKS:
	case AUDIT_DISGUISE:
	case AUDIT_WRITABLE:
	default:
		return findings[f].level;
	}
}

/* --- reading the files ---------------------------------------------------------------------- */

static void cursor_drop_rec(struct audit_cursor *c)
{
	if (c->rec) {
		decisionrec_release(c->rec);
		free(c->rec);
		c->rec = NULL;
	}
}

void audit_cursor_release(struct audit_cursor *c)
{
	cursor_drop_rec(c);
	spill_cursor_free(c->sc);
	memset(c, 0, sizeof(*c));
}

/* Fill @c for the file at c->i (read from c->sc with @a->files). */
static int cursor_fill(const struct audit *a, struct audit_cursor *c)
{
	const char *key;
	const void *p;
	size_t len;
	int r;

	c->d = NULL;
	c->learned = NULL;
	c->origin = NULL;
	cursor_drop_rec(c);
	if (!a->files) {
		if (c->i >= a->n)
			return 0;
		c->d = a->v[c->i];
		c->learned = a->learned ? a->learned[c->i] : NULL;
		c->origin = a->origins ? &a->origins[c->i] : NULL;
		return 0;
	}
	r = spill_cursor_next(c->sc, &key, &p, &len);
	if (r <= 0)
		return r;
	c->rec = calloc(1, sizeof(struct decision_rec));
	if (!c->rec)
		return -ENOMEM;
	r = decisionrec_unpack(p, len, c->rec);
	if (r < 0) {
		free(c->rec);
		c->rec = NULL;
		return r;
	}
	c->d = ((struct decision_rec *)c->rec)->d;
	c->learned = a->learned_of ? a->learned_of(a->learned_userdata, c->d) : NULL;
	return 0;
}

int audit_cursor_start(const struct audit *a, struct audit_cursor *c)
{
	int r;

	audit_cursor_release(c);
	if (a->files) {
		r = spill_cursor_new(a->files, &c->sc);
		if (r < 0)
			return r;
	}
	return cursor_fill(a, c);
}

int audit_cursor_next(const struct audit *a, struct audit_cursor *c)
{
	c->i++;
	return cursor_fill(a, c);
}

int audit_summarise(const struct audit *a, struct audit_summary *ret)
{
	_cleanup_(audit_cursor_release) struct audit_cursor c = { 0 };
	struct audit_summary s = { .files = a->n };
	int r;

	for (r = audit_cursor_start(a, &c); r == 0 && c.d; r = audit_cursor_next(a, &c)) {
		const struct decision *d = c.d;
		unsigned m = audit_findings(a, d), waived = audit_waived(a, d);

		s.verdicts[d->verdict]++;
		s.states[audit_state(d)]++;
		s.risk_now[d->risk_now]++;
		s.risk_after[d->risk]++;
		s.changes += d->changes;
		for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++) {
			if (!(m & (1u << k)))
				continue;
			s.findings[k]++;
			if (waived & (1u << k))
				s.waived++;
			else
				s.levels[audit_finding_level(a, d, (enum audit_finding)k)]++;
		}
	}
	for (size_t i = 0; r == 0 && a->waivers && i < a->waivers->n; i++) {
		enum audit_waiver_status st;
		r = audit_waiver_status(a, &a->waivers->v[i], &st, NULL);
		s.waivers_stale += r == 0 && st == AUDIT_WAIVER_STALE;
		s.waivers_expired += r == 0 && st == AUDIT_WAIVER_EXPIRED;
	}
	s.disguise = s.findings[AUDIT_DISGUISE];
	*ret = s;
	return r;
}

/* --- waivers -------------------------------------------------------------------------------- */

/* The day of the audit, "YYYY-MM-DD", or NULL: waivers expire against it. */
static const char *audit_today(const struct audit *a)
{
	const char *t = a->identity ? a->identity->time : NULL;

	return t && strlen(t) >= 10 ? t : NULL;
}

static const struct waiver *find_waiver(const struct audit *a, const struct decision *d,
					enum audit_finding f, bool expired)
{
	const char *today = audit_today(a);

	for (size_t i = 0; a->waivers && i < a->waivers->n; i++) {
		const struct waiver *w = &a->waivers->v[i];
		if (waiver_expired(w, today) == expired &&
		    waiver_matches(w, (unsigned)f, d->facts->path))
			return w;
	}
	return NULL;
}

const struct waiver *audit_waiver(const struct audit *a, const struct decision *d,
				  enum audit_finding f)
{
	return find_waiver(a, d, f, false);
}

const struct waiver *audit_waiver_expired(const struct audit *a, const struct decision *d,
					  enum audit_finding f)
{
	return find_waiver(a, d, f, true);
}

unsigned audit_waived(const struct audit *a, const struct decision *d)
{
	unsigned m, waived = 0;

	if (!a->waivers || !a->waivers->n)
		return 0;
	m = audit_findings(a, d);
	for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
		if ((m & (1u << k)) && audit_waiver(a, d, (enum audit_finding)k))
			waived |= 1u << k;
	return waived;
}

static const char *const waiver_status_names[_AUDIT_WAIVER_STATUS_MAX] = { "used", "stale",
									 "expired" };

DEFINE_STRING_TABLE_TO_NAME(audit_waiver_status_name, enum audit_waiver_status,
			    waiver_status_names, "stale")

int audit_waiver_status(const struct audit *a, const struct waiver *w,
			enum audit_waiver_status *ret, size_t *ret_findings)
{
	_cleanup_(audit_cursor_release) struct audit_cursor c = { 0 };
	size_t n = 0;
	int r;

	for (r = audit_cursor_start(a, &c); r == 0 && c.d; r = audit_cursor_next(a, &c))
		if ((audit_findings(a, c.d) & (1u << w->finding)) &&
		    waiver_matches(w, w->finding, c.d->facts->path))
			n++;
	if (r < 0)
		return r;
	if (ret_findings)
		*ret_findings = n;
	if (waiver_expired(w, audit_today(a)))
		*ret = AUDIT_WAIVER_EXPIRED;
	else
		*ret = n ? AUDIT_WAIVER_USED : AUDIT_WAIVER_STALE;
	return 0;
}

char *audit_waiver_text(const struct waiver *w)
{
	return strdup_printf("%s (%s%s%s): %s", findings[w->finding].id, w->source,
			     w->expires[0] ? ", expires " : "", w->expires, w->reason);
}

int audit_waived_each(const struct audit *a, const struct decision *d,
		      int (*fn)(void *userdata, const char *label, const char *text),
		      void *userdata)
{
	unsigned m = audit_findings(a, d);
	int r = 0;

	for (unsigned k = 0; a->waivers && k < _AUDIT_FINDING_MAX && r == 0; k++) {
		const struct waiver *w = NULL;
		const char *label = "waived";
		_cleanup_free_ char *text = NULL;

		if (!(m & (1u << k)))
			continue;
		if (!(w = audit_waiver(a, d, (enum audit_finding)k))) {
			w = audit_waiver_expired(a, d, (enum audit_finding)k);
			label = "waiver expired";
		}
		if (!w)
			continue;
		text = audit_waiver_text(w);
		r = text ? fn(userdata, label, text) : -ENOMEM;
	}
	return r;
}

const char *audit_ids_after(const struct decision *d, char *buf, size_t n)
{
	const struct facts *f = d->facts;
	char u[16], g[16];

	(void)snprintf(u, sizeof(u), "%" PRIu32, d->uid);
	(void)snprintf(g, sizeof(g), "%" PRIu32, d->gid);
	(void)snprintf(buf, n, "%s:%s",
		       f->uid_later && d->uid == f->uid && f->owner ? f->owner : u,
		       f->gid_later && d->gid == f->gid && f->group ? f->group : g);
	return buf;
}

const char *audit_caps_now(const struct decision *d)
{
	const struct facts *f = d->facts;

	if (!f->has_caps)
		return NULL;
	return f->caps_error ? "(malformed)" : f->caps_text;
}

const char *audit_verdict_color(enum verdict v)
{
	switch (v) {
	case VERDICT_MIGRATE: return "\033[1;32m";
	case VERDICT_DROP: return "\033[1;36m";
	case VERDICT_KEEP: return "\033[1;33m";
	default: return "\033[1;35m";
	}
}

const char *audit_risk_color(enum risk r)
{
	return r == RISK_ROOT ? "\033[31m" : r == RISK_DANGEROUS ? "\033[33m" : "";
}

/* --- the rows of the file table ------------------------------------------------------------ */

/* "owner:group" from names where known, ids otherwise; the names are raw. */
static char *owner_group(const char *owner, uint32_t uid, const char *group, uint32_t gid)
{
	char u[16], g[16];

	(void)snprintf(u, sizeof(u), "%" PRIu32, uid);
	(void)snprintf(g, sizeof(g), "%" PRIu32, gid);
	return strdup_printf("%s:%s", owner ? owner : u, group ? group : g);
}

void audit_row_release(struct audit_row *row)
{
	free(row->owner);
	free(row->owner_after);
	row->owner = row->owner_after = NULL;
}

int audit_row_fill(const struct audit *a, const struct audit_cursor *c, struct audit_row *row)
{
	const struct decision *d = c->d;
	const struct facts *f = d->facts;
	bool chown = d->uid != f->uid || d->gid != f->gid;

	*row = (struct audit_row){ .d = d, .number = c->i + 1, .path = f->path,
				   .caps = audit_caps_now(d),
				   .caps_after = d->has_caps ? d->caps_text : NULL,
				   .risk = d->risk_now, .risk_after = d->risk,
				   .rule = d->rule ? d->rule->id : d->n_ambiguous ? "(ambiguous)" : NULL,
				   .findings = audit_findings(a, d) };
	facts_mode_octal(f->mode, row->mode);
	facts_mode_octal(d->mode, row->mode_after);
	row->owner = owner_group(f->owner, f->uid, f->group, f->gid);
	/* The new owner as ids: the decision holds ids, not names. */
	if (row->owner && chown)
		row->owner_after = owner_group(NULL, d->uid, NULL, d->gid);
	if (!row->owner || (chown && !row->owner_after)) {
		audit_row_release(row);
		return -ENOMEM;
	}
	return 0;
}

