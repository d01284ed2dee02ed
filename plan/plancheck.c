/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checks of a plan before it is carried out: against a fresh decision about
 * the same files (plan_mismatches) and against the order of privilege
 * (plan_privilege_problems).  Declared in plan.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "captable.h"
#include "engine.h"
#include "fcaps.h"
#include "fileid.h"
#include "plan.h"
#include "privcheck.h"
#include "util.h"
#include "common.h"

/* --- against a fresh decision ------------------------------------------ */

static const struct plan_entry *find_entry(const struct plan *p, const char *path)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(p->v[mid].path, path);
		if (c == 0)
			return &p->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool same_state(const struct plan_state *a, const struct plan_state *b)
{
	return a->uid == b->uid && a->gid == b->gid && (a->mode & 07777) == (b->mode & 07777) &&
	       a->caps_len == b->caps_len && memcmp(a->caps_raw, b->caps_raw, a->caps_len) == 0;
}

static bool same_file(const struct plan_entry *a, const struct plan_entry *b)
{
	return a->dev_major == b->dev_major && a->dev_minor == b->dev_minor && a->ino == b->ino &&
	       s2c_streq(a->sha256, b->sha256) && same_state(&a->before, &b->before);
}

static char *describe_after(const struct plan_entry *e)
{
	return strdup_printf("%s, %04o %u:%u %s", verdict_name(e->verdict), e->after.mode & 07777,
			     e->after.uid, e->after.gid,
			     !e->after.caps_len ? "no capabilities" :
			     e->after.caps_text ? e->after.caps_text : "(capabilities)");
}

int plan_mismatches(const struct plan *p, const struct plan *fresh, char ***ret)
{
	char **v = NULL;
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; i < p->n && r == 0; i++) {
		const struct plan_entry *e = &p->v[i], *f;
		_cleanup_free_ char *want = NULL, *got = NULL;

		if (!e->change)
			continue;
		f = find_entry(fresh, e->path);
		if (!f || !same_file(e, f))
			continue;
		if (f->verdict == e->verdict && same_state(&f->after, &e->after) &&
		    (f->change || same_state(&f->after, &f->before)))
			continue;
		want = describe_after(e);
		got = describe_after(f);
		if (!want || !got) {
			r = -ENOMEM;
			break;
		}
		r = strv_push(&v, &n, strdup_printf("'%s': the plan says %s; the rules decide %s%s%s%s%s",
						    e->path, want, got,
						    f->rule_id ? " (rule " : "",
						    f->rule_id ? f->rule_id : "",
						    f->rule_id ? ")" : "",
						    f->change ? "" : ", with nothing to change"));
	}
	if (r < 0) {
		strv_free(v);
		return r;
	}
	*ret = v;
	return (int)n;
}

/* The capabilities a state carries (none when malformed). */
static uint64_t file_caps_mask(const struct file_state *s)
{
	struct fcaps c;

	if (!s->has_xattr || fcaps_decode(s->xattr, s->xattr_len, &c, NULL) < 0)
		return 0;
	return c.permitted | c.inheritable;
}

static void file_state_of(const struct plan_state *p, struct file_state *s)
{
	*s = (struct file_state){ .uid = p->uid, .gid = p->gid, .mode = p->mode & 07777,
				  .has_xattr = p->caps_len > 0, .xattr_len = p->caps_len };
	memcpy(s->xattr, p->caps_raw, p->caps_len);
}

int plan_privilege_problems(const struct plan *p, const struct captable *t, char ***ret,
			    size_t *ret_disguised)
{
	char **v = NULL;
	size_t n = 0, disguised = 0;
	int r = 0;

	for (size_t i = 0; i < p->n && r == 0; i++) {
		const struct plan_entry *e = &p->v[i];
		struct s2c_error why = { 0 };
		struct file_state b, a;
		int c;

		if (!e->change)
			continue;
		file_state_of(&e->before, &b);
		file_state_of(&e->after, &a);
		c = privcheck(t, &b, &a, 0, &why);
		if (c == -EACCES) {
			disguised++;
			c = privcheck(t, &b, &a, PRIVCHECK_ROOT_EQUIVALENT, &why);
		}
		if (c == -ENOMEM)
			r = c;
		else if (c < 0)
			r = strv_push(&v, &n, strdup_printf("$.entries[%zu] ('%s'): the change grants "
							    "more than the file has: %s", i,
							    e->path, why.msg));
		else if (e->risk != privcheck_risk(t, &a))
			r = strv_push(&v, &n, strdup_printf("$.entries[%zu] ('%s'): the plan says "
							    "risk '%s'; what the change leaves "
							    "is '%s'", i, e->path,
							    risk_name(e->risk),
							    risk_name(privcheck_risk(t, &a))));
		else if (e->disguise != (captable_risk(t, file_caps_mask(&a)) == RISK_ROOT))
			r = strv_push(&v, &n, strdup_printf("$.entries[%zu] ('%s'): the plan says "
							    "setuid_in_disguise %s; the capability "
							    "set says otherwise", i, e->path,
							    e->disguise ? "true" : "false"));
	}
	if (r < 0) {
		strv_free(v);
		return r;
	}
	*ret = v;
	*ret_disguised = disguised;
	return (int)n;
}

