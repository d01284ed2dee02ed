/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Evaluating a rule's `when` conditions on the target: one function per kind
 * of clause, each saying what it compared in the condition's text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conditions.h"
#include "elfinfo.h"
#include "engine.h"
#include "facts.h"
#include "host.h"
#include "pkgdb.h"
#include "tri.h"
#include "common.h"

/* The text of one condition as it is evaluated: its clauses joined by "; ". */
struct when_text {
	char buf[1024];
	size_t len;        /* may pass sizeof(buf) once the text is cut: nothing more is added */
};

/* Append to @t. */
S2C_PRINTF(2, 0) static void vsay(struct when_text *t, const char *format, va_list ap)
{
	if (t->len >= sizeof(t->buf))
		return;
	t->len += (size_t)vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, format, ap);
}

S2C_PRINTF(2, 3) static void say(struct when_text *t, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	vsay(t, format, ap);
	va_end(ap);
}

/* Start a clause: the separator after the one before. */
static void clause(struct when_text *t)
{
	say(t, "%s", t->len ? "; " : "");
}

static const char *yes_no(int tri)
{
	return tri == TRI_TRUE ? ": yes" : tri == TRI_FALSE ? ": no" : ": unknown";
}

int conditions_program_version(const struct decision *d, const struct rule *rule, char **ret,
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

/* kernel_at_least (@at_least) or kernel_below. */
static int when_kernel(const struct host *h, bool at_least, const unsigned version[3],
		       const char *text, struct when_text *t)
{
	int c = host_kernel_cmp(h, version);
	bool ok = at_least ? c >= 0 : c < 0;

	clause(t);
	say(t, "kernel %s is %s %s%s", h->kernel_release, at_least ? "at least" : "below", text,
	    yes_no(tri_of(ok)));
	return tri_of(ok);
}

/* What the sysctl clause compares with: "covers 0..2147483647", "equals '1'", … */
static void sysctl_test(const struct rule_when *w, struct when_text *t)
{
	switch (w->sysctl_op) {
	case SYSCTL_RANGE_COVERS:
		say(t, "covers %lld..%lld", (long long)w->sysctl_a, (long long)w->sysctl_b);
		break;
	case SYSCTL_EQUALS:
		say(t, "equals '%s'", w->sysctl_equals);
		break;
	case SYSCTL_AT_LEAST:
		say(t, "is at least %lld", (long long)w->sysctl_a);
		break;
	case SYSCTL_AT_MOST:
		say(t, "is at most %lld", (long long)w->sysctl_a);
		break;
	default:
		say(t, "is set");
		break;
	}
}

/* The comparison of sysctl value @v with the condition's. */
static int sysctl_compare(const struct rule_when *w, const char *v, struct when_text *t)
{
	long long a = 0, b = 0;
	int n = sscanf(v, "%lld %lld", &a, &b);

	say(t, "%s = '%s' ", w->sysctl_name, v);
	sysctl_test(w, t);
	switch (w->sysctl_op) {
	case SYSCTL_RANGE_COVERS:
		return n == 2 ? tri_of(a <= w->sysctl_a && b >= w->sysctl_b) : TRI_UNKNOWN;
	case SYSCTL_EQUALS:
		return tri_of(s2c_streq(v, w->sysctl_equals));
	case SYSCTL_AT_LEAST:
		return n >= 1 ? tri_of(a >= w->sysctl_a) : TRI_UNKNOWN;
	case SYSCTL_AT_MOST:
		return n >= 1 ? tri_of(a <= w->sysctl_a) : TRI_UNKNOWN;
	default:
		return TRI_UNKNOWN;
	}
}

/* The sysctl clause: a three-valued result, or -ENOMEM. */
static int when_sysctl(const struct host *h, const struct rule_when *w, struct when_text *t)
{
	const char *v = host_answer_sysctl(h, w->sysctl_name);
	int ok = TRI_UNKNOWN;

	if (!v) {
		clause(t);
		say(t, "%s is unknown", w->sysctl_name);
	} else if (w->sysctl_op != SYSCTL_NONE) {
		clause(t);
		ok = sysctl_compare(w, v, t);
	}
	say(t, "%s", yes_no(ok));
	return ok;
}

static int when_os(const struct host *h, const char *const *os, struct when_text *t)
{
	bool ok = false;

	for (size_t i = 0; os[i]; i++)
		ok |= host_os_is(h, os[i]);
	clause(t);
	say(t, "distribution '%s' is one of", h->os_id ? h->os_id : "unknown");
	for (size_t i = 0; os[i]; i++)
		say(t, " %s", os[i]);
	say(t, "%s", yes_no(tri_of(ok)));
	return tri_of(ok);
}

static int when_file_exists(const struct host *h, const char *path, struct when_text *t)
{
	bool ok = host_answer_file(h, path);

	clause(t);
	say(t, "%s exists%s", path, yes_no(tri_of(ok)));
	return tri_of(ok);
}

static int when_setuid_root(const struct decision *d, bool want, struct when_text *t)
{
	bool is = d->facts->flags & FACT_SETUID_ROOT;

	clause(t);
	say(t, "the file is %sset-user-ID root%s", want ? "" : "not ", yes_no(tri_of(is == want)));
	return tri_of(is == want);
}

/* version_at_least and version_below: a three-valued result, or -ENOMEM. */
static int when_version(const struct decision *d, const struct rule *rule,
			const struct rule_when *w, struct when_text *t)
{
	_cleanup_free_ char *v = NULL;
	const char *src = NULL;
	int ok = TRI_UNKNOWN;

	if (conditions_program_version(d, rule, &v, &src) < 0)
		return -ENOMEM;
	if (v && w->version_min) {
		ok = tri_of(pkgdb_version_cmp(v, w->version_min) >= 0);
		clause(t);
		say(t, "version %s (%s) is at least %s", v, src, w->version_min);
	}
	if (v && w->version_max) {
		int below = tri_of(pkgdb_version_cmp(v, w->version_max) < 0);
		ok = ok == TRI_UNKNOWN ? below : tri_and(ok, below);
		clause(t);
		say(t, "version %s (%s) is below %s", v, src, w->version_max);
	}
	if (!v) {
		clause(t);
		say(t, "the program's version is unknown (no version string in the binary and no "
		    "package version)");
	}
	say(t, "%s", ok == TRI_UNKNOWN ? "" : yes_no(ok));
	return ok;
}

/*
 * Whether @w holds for @d: every clause it sets must hold (three-valued).
 * @ret_text  a new string saying what was compared and how it came out.
 * Returns TRI_TRUE, TRI_FALSE, TRI_UNKNOWN, or -ENOMEM.
 */
static int eval_when(const struct engine *e, const struct decision *d, const struct rule *rule,
		     const struct rule_when *w, char **ret_text)
{
	struct when_text t = { .len = 0 };
	int holds = TRI_TRUE, h;

	if (w->has_kernel_min)
		holds = tri_and(holds, when_kernel(e->host, true, w->kernel_min, w->kernel_min_text,
						   &t));
	if (w->has_kernel_max)
		holds = tri_and(holds, when_kernel(e->host, false, w->kernel_max, w->kernel_max_text,
						   &t));
	if (w->sysctl_name) {
		h = when_sysctl(e->host, w, &t);
		if (h == -ENOMEM)
			return h;
		holds = tri_and(holds, h);
	}
	if (w->os)
		holds = tri_and(holds, when_os(e->host, w->os, &t));
	if (w->file_exists)
		holds = tri_and(holds, when_file_exists(e->host, w->file_exists, &t));
	if (w->setuid_root >= 0)
		holds = tri_and(holds, when_setuid_root(d, w->setuid_root, &t));
	if (w->version_min || w->version_max) {
		h = when_version(d, rule, w, &t);
		if (h == -ENOMEM)
			return h;
		holds = tri_and(holds, h);
	}
	*ret_text = strdup(t.buf);
	return *ret_text ? holds : -ENOMEM;
}

int conditions_eval(const struct engine *e, const struct rule *rule, struct decision *d,
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

int conditions_first(const struct engine *e, const struct decision *d, const struct rule *rule,
		     const struct rule_condition **ret)
{
	const struct rule_condition *c = NULL;

	for (size_t i = 0; i < rule->n_conditions && !c; i++) {
		_cleanup_free_ char *text = NULL;
		int h = eval_when(e, d, rule, &rule->conditions[i].when, &text);
		if (h == -ENOMEM)
			return h;
		if (h == TRI_TRUE)
			c = &rule->conditions[i];
	}
	*ret = c;
	return 0;
}

void conditions_outcome(const struct rule *rule, const struct rule_condition *c,
			struct rule_outcome *ret)
{
	bool own_caps = c && c->has_caps;

	*ret = (struct rule_outcome){
		.verdict = c ? c->verdict : rule->verdict,
		.caps = own_caps ? &c->caps : rule->has_caps ? &rule->caps : NULL,
		.caps_text = own_caps ? c->caps_text : rule->caps_text,
		.needs = rule->has_needs ? rule->needs.permitted | rule->needs.inheritable : 0,
		.reason = c ? c->reason : rule->reason,
		.owner = c && c->owner ? c->owner : rule->owner,
		.group = c && c->group ? c->group : rule->group,
		.mode = c && c->mode >= 0 ? c->mode : rule->mode,
	};
	if (ret->verdict == VERDICT_DROP)
		ret->caps = NULL;
	if (c && c->has_needs)
		ret->needs = c->needs.permitted | c->needs.inheritable;
}

/* A clause of a description: " and " before every one but the first. */
S2C_PRINTF(3, 4) static void also(struct when_text *t, bool *first, const char *format, ...)
{
	va_list ap;

	if (!*first)
		say(t, " and ");
	*first = false;
	va_start(ap, format);
	vsay(t, format, ap);
	va_end(ap);
}

void conditions_describe(const struct rule_condition *c, char *buf, size_t size)
{
	const struct rule_when *w = &c->when;
	struct when_text t = { .len = 0 };
	bool first = true;

	say(&t, "when ");
	if (w->has_kernel_min)
		also(&t, &first, "the kernel is at least %s", w->kernel_min_text);
	if (w->has_kernel_max)
		also(&t, &first, "the kernel is below %s", w->kernel_max_text);
	if (w->sysctl_name) {
		also(&t, &first, "%s ", w->sysctl_name);
		sysctl_test(w, &t);
	}
	for (size_t i = 0; w->os && w->os[i]; i++) {
		if (i)
			say(&t, " or %s", w->os[i]);
		else
			also(&t, &first, "the distribution is %s", w->os[i]);
	}
	if (w->file_exists)
		also(&t, &first, "%s exists", w->file_exists);
	if (w->setuid_root >= 0)
		also(&t, &first, "the file is %sset-user-ID root", w->setuid_root ? "" : "not ");
	if (w->version_min)
		also(&t, &first, "its version is at least %s", w->version_min);
	if (w->version_max)
		also(&t, &first, "its version is below %s", w->version_max);
	say(&t, ": %s%s%s", verdict_name(c->verdict), c->has_caps ? " " : "",
	    c->has_caps ? c->caps_text : "");
	(void)snprintf(buf, size, "%s", t.buf);
}
