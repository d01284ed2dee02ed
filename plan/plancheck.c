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

/* The same file in the same state: what a fresh decision must agree with the plan about. */
static bool same_file(const struct plan_entry *a, const struct plan_entry *b)
{
	return !fileid_diff(&a->id, &b->id, FILEID_INODE | FILEID_CONTENT | FILEID_STATE);
}

static char *describe_after(const struct plan_entry *e)
{
	return strdup_printf("%s, %04o %u:%u %s", verdict_name(e->verdict), e->after.mode,
			     e->after.uid, e->after.gid,
			     !e->after.has_xattr ? "no capabilities" :
			     e->after_names.caps_text ? e->after_names.caps_text : "(capabilities)");
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
		if (f->verdict == e->verdict && filestate_equal(&f->after, &e->after) &&
		    (f->change || filestate_equal(&f->after, &f->id.state)))
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

int plan_privilege_problems(const struct plan *p, const struct captable *t, char ***ret,
			    size_t *ret_disguised)
{
	char **v = NULL;
	size_t n = 0, disguised = 0;
	int r = 0;

	for (size_t i = 0; i < p->n && r == 0; i++) {
		const struct plan_entry *e = &p->v[i];
		const struct file_state *b = &e->id.state, *a = &e->after;
		struct s2c_error why = { 0 };
		int c;

		if (!e->change)
			continue;
		c = privcheck(t, b, a, 0, &why);
		if (c == -EACCES) {
			disguised++;
			c = privcheck(t, b, a, PRIVCHECK_ROOT_EQUIVALENT, &why);
		}
		if (c == -ENOMEM)
			r = c;
		else if (c < 0)
			r = strv_push(&v, &n, strdup_printf("$.entries[%zu] ('%s'): the change grants "
							    "more than the file has: %s", i,
							    e->path, why.msg));
		else if (e->risk != privcheck_risk(t, a))
			r = strv_push(&v, &n, strdup_printf("$.entries[%zu] ('%s'): the plan says "
							    "risk '%s'; what the change leaves "
							    "is '%s'", i, e->path,
							    risk_name(e->risk),
							    risk_name(privcheck_risk(t, a))));
		else if (e->disguise != (captable_risk(t, file_caps_mask(a)) == RISK_ROOT))
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

