/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "db.h"
#include "decisionout.h"
#include "engine.h"
#include "facts.h"
#include "fcaps.h"
#include "jsonout.h"
#include "learnout.h"
#include "util.h"
#include "common.h"

#define C_BOLD "\033[1m"
#define C_RESET "\033[0m"

/* --- text -------------------------------------------------------------------------------- */

struct style {
	bool color;
	FILE *out;
};

static void heading(const struct style *s, const char *label)
{
	(void)fprintf(s->out, "  %s%-11s%s ", s->color ? C_BOLD : "", label, s->color ? C_RESET : "");
}

static void put_esc(FILE *out, const char *str)
{
	_cleanup_free_ char *e = escape_text(str ? str : "");

	(void)fputs(e ? e : "?", out);
}

static void put_mask(FILE *out, uint64_t mask, const char *none)
{
	_cleanup_free_ char *names = mask ? fcaps_mask_names(mask) : NULL;

	(void)fputs(names ? names : none, out);
}

static void put_command(FILE *out, char *const *argv)
{
	for (size_t i = 0; argv && argv[i]; i++) {
		(void)fputs(i ? " " : "", out);
		put_esc(out, argv[i]);
	}
}

/* "exited 0 after 0.1 s", "killed by SIGSEGV …", "stopped at the time limit of 5 s …". */
static void put_outcome(FILE *out, const struct learn_record *r)
{
	const char *sig = r->signal ? sigabbrev_np(r->signal) : NULL;

	if (r->timed_out)
		(void)fprintf(out, "stopped at the time limit of %u s", r->timeout);
	else if (r->signal)
		(void)fprintf(out, "killed by SIG%s", sig ? sig : "?");
	else
		(void)fprintf(out, "exited %d", r->exit_code);
	(void)fprintf(out, " after %" PRIu64 ".%" PRIu64 " s; %" PRIu64 " process%s",
		      r->elapsed_ms / 1000, r->elapsed_ms % 1000 / 100, r->processes,
		      r->processes == 1 ? "" : "es");
	if (r->killed)
		(void)fprintf(out, ", %" PRIu64 " still running and killed", r->killed);
	(void)fputc('\n', out);
}

/*
 * What an incomplete run did not show, a line each under @label ("" after the
 * first), after @prefix: the tasks ptrace could not follow, the checks lost.
 */
static void put_unseen(const struct style *s, const struct learn_record *r, const char *label,
		       const char *prefix)
{
	if (r->untraced) {
		heading(s, label);
		(void)fprintf(s->out, "%sptrace could not follow %" PRIu64 " process%s or thread%s "
			      "of the run (started with clone(CLONE_UNTRACED)): what %s did is not "
			      "seen, so it may have used more; learn --mechanism bpf sees every "
			      "process\n", prefix, r->untraced, r->untraced == 1 ? "" : "es",
			      r->untraced == 1 ? "" : "s", r->untraced == 1 ? "it" : "they");
		label = "";
	}
	if (r->lost) {
		heading(s, label);
		(void)fprintf(s->out, "%s%" PRIu64 " checks could not be counted (maps full)\n",
			      prefix, r->lost);
	}
}

static void text_checks(const struct style *s, const struct learn_record *r)
{
	FILE *out = s->out;

	if (!r->n_checks) {
		(void)fputs("\nNo capability checks.\n", out);
		return;
	}
	if (r->mechanism == LEARN_BPF)
		(void)fprintf(out, "\n%s%-24s %-8s %7s  %-18s %s%s\n", s->color ? C_BOLD : "",
			      "CAPABILITY", "RESULT", "COUNT", "SYSCALL", "KERNEL FUNCTION",
			      s->color ? C_RESET : "");
	else
		(void)fprintf(out, "\n%s%-24s %-8s %7s  %s%s\n", s->color ? C_BOLD : "", "CAPABILITY",
			      "RESULT", "COUNT", "SYSCALL", s->color ? C_RESET : "");
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct learn_check *c = &r->checks[i];
		_cleanup_free_ char *name = fcaps_mask_names(S2C_CAPMASK(c->cap));
		_cleanup_free_ char *sc = escape_text(c->syscall ? c->syscall : "-");
		const char *result = c->quiet ? "probe" : c->granted ? "granted" : "denied";

		bool no_effect = !c->quiet && !c->granted && c->syscall &&
				 (r->denied_harmless & S2C_CAPMASK(c->cap));

		(void)fprintf(out, "%-24s %-8s %7" PRIu64 "  ", name ? name : "?", result, c->count);
		if (!c->where && !no_effect) {
			(void)fprintf(out, "%s\n", sc ? sc : "?");
			continue;
		}
		(void)fprintf(out, "%-18s ", sc ? sc : "?");
		if (c->where)
			put_esc(out, c->where);
		if (no_effect)
			(void)fputs(c->where ? "  (no effect)" : "(no effect)", out);
		(void)fputc('\n', out);
	}
}

static void text_failures(const struct style *s, const struct learn_record *r)
{
	if (!r->n_failures)
		return;
	(void)fprintf(s->out, "\n%sFailed syscalls:%s\n", s->color ? C_BOLD : "",
		      s->color ? C_RESET : "");
	for (size_t i = 0; i < r->n_failures; i++) {
		const struct learn_failure *f = &r->failures[i];

		(void)fputs("  ", s->out);
		put_esc(s->out, f->syscall ? f->syscall : "?");
		(void)fprintf(s->out, ": %s ×%" PRIu64 " -> ", learn_errno_name(f->err), f->count);
		put_mask(s->out, f->caps, "no capability known");
		(void)fputc('\n', s->out);
	}
}

int learnout_text(const struct learn_record *r, const struct json_object *draft,
		  const struct learnout_text_options *o, FILE *out)
{
	struct style s = { o->color, out };

	(void)fprintf(out, "%ssuid2cap learn:%s ", o->color ? C_BOLD : "", o->color ? C_RESET : "");
	put_command(out, r->argv);
	(void)fputc('\n', out);
	heading(&s, "program");
	put_esc(out, r->path);
	(void)fprintf(out, "%s%s\n",
		      r->script ? " (a script: the kernel ignores capabilities on it)" : "",
		      r->aware ? " (capability-aware)" : "");
	heading(&s, "sha256");
	(void)fprintf(out, "%s\n", r->sha256);
	heading(&s, "ran as");
	put_esc(out, r->user);
	(void)fprintf(out, " (%u:%u) with ", r->uid, r->gid);
	put_mask(out, r->candidates, "no capabilities");
	(void)fputc('\n', out);
	heading(&s, "mechanism");
	(void)fprintf(out, "%s (%s)%s\n", learn_mechanism_name(r->mechanism), r->attach,
		      o->bpf_built ? "" : "; this build has no BPF support");
	if (r->fallback && o->bpf_built) {
		heading(&s, "");
		(void)fputs("BPF not used: ", out);
		put_esc(out, r->fallback);
		(void)fputc('\n', out);
	}
	heading(&s, "result");
	put_outcome(out, r);
	put_unseen(&s, r, "incomplete", "");
	(void)fputc('\n', out);
	heading(&s, "used");
	put_mask(out, r->used, "no capability");
	(void)fputc('\n', out);
	heading(&s, "denied");
	put_mask(out, r->denied, "nothing");
	(void)fputc('\n', out);
	if (r->denied_harmless) {
		heading(&s, "no effect");
		put_mask(out, r->denied_harmless, "");
		(void)fputs(" (denied, but the calls succeeded without it)\n", out);
	}
	if (!learn_record_succeeded(r)) {
		heading(&s, "note");
		(void)fputs("the run did not succeed, so it may not have reached everything the "
			    "program does\n", out);
	}
	text_checks(&s, r);
	text_failures(&s, r);
	if (draft) {
		const char *js = json_object_to_json_string_ext(
			(struct json_object *)(uintptr_t)draft,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
				JSON_C_TO_STRING_NOSLASHESCAPE);
		(void)fprintf(out, "\n%sDraft rule%s (review it, then save it as %s):\n",
			      o->color ? C_BOLD : "", o->color ? C_RESET : "",
			      o->draft_file ? o->draft_file : "a rules file");
		(void)fputs(js ? js : "?", out);
		(void)fputc('\n', out);
	}
	(void)fputc('\n', out);
	if (o->record_file) {
		(void)fputs("Record kept for explain and audit: ", out);
		put_esc(out, o->record_file);
		(void)fputc('\n', out);
	} else {
		(void)fputs("No record kept.\n", out);
	}
	return ferror(out) ? -EIO : 0;
}

/* Capability names, or null for none. */
static int add_mask(struct json_object *o, const char *key, uint64_t mask)
{
	struct json_object *v = decisionout_mask(mask);

	if (mask && !v)
		return -ENOMEM;
	if (json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

/* --- explain and audit ---------------------------------------------------------------------- */

struct json_object *learnout_evidence_json(const struct learn_record *r)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	_cleanup_jsonput_ struct json_object *user = json_object_new_object();

	if (!o || !user || jsonout_add_string(user, "name", r->user) < 0 ||
	    jsonout_add_int(user, "uid", r->uid) < 0 || jsonout_add_int(user, "gid", r->gid) < 0)
		return NULL;
	if (jsonout_add_string(o, "evidence", "observed") < 0 ||
	    jsonout_add_string(o, "time", r->time) < 0 ||
	    jsonout_add_string(o, "mechanism", learn_mechanism_name(r->mechanism)) < 0 ||
	    jsonout_add_string(o, "attach", r->attach) < 0 ||
	    jsonout_add(o, "command", jsonout_strv(r->argv, SIZE_MAX)) < 0 ||
	    jsonout_add(o, "user", TAKE_PTR(user)) < 0 ||
	    add_mask(o, "candidates", r->candidates) < 0 ||
	    jsonout_add_bool(o, "succeeded", learn_record_succeeded(r)) < 0 ||
	    jsonout_add_bool(o, "complete", learn_record_complete(r)) < 0 ||
	    add_mask(o, "used", r->used) < 0 || add_mask(o, "denied", r->denied) < 0 ||
	    add_mask(o, "denied_without_effect", r->denied_harmless) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* What the decision about the file grants after the change (0: nothing). */
static uint64_t granted_after(const struct decision *d)
{
	return d && d->has_caps ? d->caps.permitted : 0;
}

int learnout_explain(const struct learn_record *r, const struct decision *d, bool color, FILE *out)
{
	struct style s = { color, out };
	uint64_t after = granted_after(d);

	heading(&s, "learned");
	(void)fprintf(out, "observed evidence: suid2cap learn (%s, %s) ",
		      learn_mechanism_name(r->mechanism), r->attach);
	put_esc(out, r->time);
	(void)fputc('\n', out);
	heading(&s, "");
	(void)fputs("ran ", out);
	put_command(out, r->argv);
	(void)fputs(" as ", out);
	put_esc(out, r->user);
	(void)fputs(" with ", out);
	put_mask(out, r->candidates, "no capabilities");
	(void)fputs(": ", out);
	put_outcome(out, r);
	put_unseen(&s, r, "", "incomplete: ");
	heading(&s, "");
	(void)fputs("used ", out);
	put_mask(out, r->used, "no capability");
	(void)fputs("; denied ", out);
	put_mask(out, r->denied, "nothing");
	if (r->denied_harmless) {
		(void)fputs("; denied without effect ", out);
		put_mask(out, r->denied_harmless, "");
	}
	(void)fputc('\n', out);
	heading(&s, "");
	if (r->used & ~after) {
		(void)fputs("the run used ", out);
		put_mask(out, r->used & ~after, "");
		(void)fputs(", which the decision does not grant\n", out);
	} else {
		(void)fputs("the decision grants everything the run used\n", out);
	}
	return ferror(out) ? -EIO : 0;
}

char *learnout_audit_line(const struct learn_record *r)
{
	_cleanup_free_ char *used = fcaps_mask_names(r->used);
	_cleanup_free_ char *denied = fcaps_mask_names(r->denied);
	_cleanup_free_ char *when = escape_text(r->time ? r->time : "?");
	char *line = NULL;

	if (!used || !denied || !when ||
	    asprintf(&line, "used %s; denied %s (suid2cap learn, %s, %s%s%s)",
		     *used ? used : "no capability", *denied ? denied : "nothing",
		     learn_mechanism_name(r->mechanism), when,
		     learn_record_succeeded(r) ? "" : ", the run failed",
		     learn_record_complete(r) ? "" : ", incomplete: the run was not seen whole") < 0)
		return NULL;
	return line;
}
