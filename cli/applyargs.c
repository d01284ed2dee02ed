/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "applyargs.h"
#include "cli.h"
#include "fcaps.h"
#include "idmap.h"
#include "interrupt.h"
#include "plan.h"
#include "privs.h"
#include "resultjson.h"
#include "scan.h"
#include "util.h"
#include "verify.h"
#include "common.h"

static const char *const formats[] = {
	[APPLYARGS_TEXT] = "text", [APPLYARGS_JSON] = "json", NULL,
};

static int opt_smoke_timeout(const struct opt *o, const char *arg, const char *verb)
{
	struct applyargs *a = o->value;
	unsigned n;

	if (parse_uint(arg, 600, &n) < 0 || n == 0)
		return usage_error(verb, "invalid --smoke-timeout '%s': expected 1..600 seconds", arg);
	a->smoke_timeout = n;
	return 0;
}

static int opt_fault(const struct opt *o, const char *arg, const char *verb)
{
#ifdef S2C_FAULT_INJECTION
	struct applyargs *a = o->value;

	(void)verb;
	a->fault = arg;
	return 0;
#else
	(void)o;
	(void)arg;
	return usage_error(verb, "--fault exists only in test builds");
#endif
}

#define SMOKE_OPTS(a) \
	OPT_SET_INT("no-smoke", &(a)->smoke, 0, "do not run smoke tests"), \
	OPT_STRING(0, "smoke-user", &(a)->smoke_user, "USER", "run smoke tests as USER " \
		   "(default: nobody)"), \
	OPT_CALLBACK("smoke-timeout", (a), "S", "time limit of a smoke test (default: 10 " \
		     "seconds)", opt_smoke_timeout)

void applyargs_init(struct applyargs *a)
{
	*a = (struct applyargs){
		.smoke = -1, .smoke_user = "nobody", .smoke_timeout = 10,
		.opts = {
			{ .kind = OPT_KIND_CALLBACK, .long_name = "only", .value = &a->only,
			  .argh = "PATH", .help = "only this entry (repeatable)",
			  .cb = opts_absolute_path },
			OPT_SET_INT("smoke", &a->smoke, 1, "run smoke tests for an image root too "
				    "(default: the\nrunning system only)"),
			SMOKE_OPTS(a),
			OPT_BOOL(0, "allow-hardlinks", &a->allow_hardlinks, "change files with more "
				 "than one hard link"),
			OPT_BOOL(0, "allow-root-equivalent", &a->allow_root_equivalent, "accept "
				 "root-equivalent capability sets (setuid in\ndisguise); the journal "
				 "records it"),
			OPT_BOOL(0, "quiet", &a->quiet, "print only problems, and the summary when "
				 "there are any"),
			OPT_BOOL(0, "verbose", &a->verbose, "also print the capabilities each phase "
				 "keeps"),
			/* crash points of the tests: no help, refused by release builds */
			OPT_CALLBACK("fault", a, "STEP[:ENTRY][=SIG]", NULL, opt_fault),
			OPT_END(),
		},
		.smoke_opts = { SMOKE_OPTS(a), OPT_END() },
		.undo_opts = {
			{ .kind = OPT_KIND_CALLBACK, .long_name = "only", .value = &a->only,
			  .argh = "PATH", .help = "only this file (repeatable)",
			  .cb = opts_absolute_path },
			OPT_BOOL(0, "quiet", &a->quiet, "print only problems"),
			OPT_CALLBACK("fault", a, "STEP[:ENTRY][=SIG]", NULL, opt_fault),
			OPT_END(),
		},
		.format_opts = {
			OPT_CHOICE("format", &a->format, formats, "FMT",
				   "text (default) or json: one document with every\n"
				   "file's outcome and its state before and after"),
			OPT_END(),
		},
	};
}

uint64_t applyargs_caps(const struct plan *p, bool smoke)
{
	uint64_t caps = PRIVS_APPLY;

	for (size_t i = 0; p && i < p->n; i++)
		if (p->v[i].change && (p->v[i].id.state.uid != p->v[i].after.uid ||
				       p->v[i].id.state.gid != p->v[i].after.gid))
			caps |= PRIVS_APPLY_CHOWN;
	if (smoke)
		caps |= PRIVS_SMOKE;
	return caps;
}

/* One outcome into the result: a passed smoke test leaves the entry open. */
static void record(const struct applyargs *a, const struct apply_report *r)
{
	struct resultjson_event ev = {
		.action = r->recovery ? "recover" : a->action,
		.path = r->path,
		.outcome = r->event == APPLY_SMOKE_OK ? NULL : apply_event_id(r->event),
		.reason = r->message,
		.smoke = r->event == APPLY_SMOKE_OK ? RESULTJSON_SMOKE_PASSED :
			 r->event == APPLY_ROLLED_BACK ? RESULTJSON_SMOKE_FAILED :
							 RESULTJSON_SMOKE_NONE,
		.before = r->before,
		.after = r->after,
	};

	/* a failure is remembered, and writing the document fails at the end */
	(void)resultjson_event(a->result, &ev);
}

void applyargs_report(void *userdata, const struct apply_report *r)
{
	const struct applyargs *a = userdata;
	const char *msg = r->message;
	enum apply_event ev = r->event;
	bool bad = ev == APPLY_SKIPPED || ev == APPLY_FAILED || ev == APPLY_ROLLED_BACK ||
		   ev == APPLY_NOT_RESTORED;

	/* The paths in the plan and in the message are beneath the root: name it. */
	if (bad && a && a->root && !s2c_streq(a->root, "/"))
		log_warning("%s '%s' beneath the root '%s': %s", apply_event_name(ev), r->path,
			    a->root, msg && *msg ? msg : "");
	else if (bad)
		log_warning("%s '%s': %s", apply_event_name(ev), r->path, msg && *msg ? msg : "");
	if (a && a->result) {
		record(a, r);
		return;
	}
	if (bad || (a && a->quiet))
		return;
	print_line("%-18s %s%s%s", apply_event_name(ev), r->path, msg && *msg ? ": " : "",
		   msg ? msg : "");
}

int applyargs_exit(const struct apply_result *r)
{
	return r->skipped || r->failed || r->rolled_back || r->not_restored ? S2C_EXIT_FAILURE
									     : S2C_EXIT_OK;
}

int applyargs_apply(struct applyargs *a, int rootfd, const struct plan *p,
		    const char *plan_sha256, const struct captable *caps,
		    const char *const *only)
{
	struct apply_options o = {
		.rootfd = rootfd, .plan = p, .plan_sha256 = plan_sha256, .caps = caps,
		.only = only ? only : a->only.n ? a->only.v : NULL,
		.allow_hardlinks = a->allow_hardlinks,
		.allow_root_equivalent = a->allow_root_equivalent,
		.smoke = a->smoke < 0 ? p->live : a->smoke, .smoke_timeout = a->smoke_timeout,
		.trusted = geteuid() == 0, .fault = a->fault, .stop = interrupt_stop,
		.report = applyargs_report, .userdata = a,
	};
	struct apply_result res;
	struct s2c_error err = { 0 };
	int r;

	if (o.smoke) {
		struct passwd *pw = getpwnam(a->smoke_user);
		if (!pw) {
			log_error("unknown smoke-test user '%s'", a->smoke_user);
			return S2C_EXIT_USAGE;
		}
		if (pw->pw_uid == 0) {
			log_error("the smoke test must run as an unprivileged user, not '%s'",
				  a->smoke_user);
			return S2C_EXIT_USAGE;
		}
		o.smoke_uid = pw->pw_uid;
		o.smoke_gid = pw->pw_gid;
	}
	a->root = p->root;
	/* Narrow to what this plan needs, before touching anything. */
	if (privs_restrict(applyargs_caps(p, o.smoke), PRIVS_KEEP_BOUNDING, NULL))
		return S2C_EXIT_PRIVILEGE;
	if (a->verbose) {
		_cleanup_free_ char *names = fcaps_mask_names(privs_effective());
		if (a->result)
			log_notice("capabilities kept: %s", names && *names ? names : "(none)");
		else
			(void)printf("capabilities kept: %s\n", names && *names ? names : "(none)");
	}
	for (size_t i = 0; i < a->only.n; i++) {
		bool found = false;
		for (size_t j = 0; j < p->n && !found; j++)
			found = s2c_streq(p->v[j].path, a->only.v[i]);
		if (!found) {
			log_error("'%s' is not in the plan", a->only.v[i]);
			return S2C_EXIT_USAGE;
		}
	}
	/* Files change from here: a signal stops the run between two of them (and ends it at
	 * exit), never inside one. */
	interrupt_hold();
	r = apply_run(&o, &res, &err);
	if (a->result)
		(void)resultjson_set_journal(a->result, res.journal);
	if (r < 0)
		return error_exit(r, &err);
	if (!a->result && (!a->quiet || applyargs_exit(&res)))
		(void)printf("%zu applied, %zu already done, %zu skipped, %zu failed, %zu rolled back"
			     "%s%s%s\n", res.applied, res.already, res.skipped, res.failed,
			     res.rolled_back, res.journal[0] ? " (journal " : "", res.journal,
			     res.journal[0] ? ")" : "");
	return applyargs_exit(&res);
}

int applyargs_result_start(struct applyargs *a, const char *verb, const char *root, bool fix)
{
	static const enum apply_event change[] = {
		APPLY_APPLIED, APPLY_ALREADY, APPLY_SKIPPED, APPLY_FAILED, APPLY_ROLLED_BACK,
		APPLY_RECOVERED, APPLY_NOT_RESTORED,
	};
	static const enum apply_event undo[] = { APPLY_RESTORED, APPLY_NOT_RESTORED };
	const char *outcomes[_DRIFT_KIND_MAX + S2C_ELEMENTSOF(change) + 2];
	const char *drifts[_DRIFT_KIND_MAX + 1];
	bool verify = s2c_streq(verb, "verify"), rollback = s2c_streq(verb, "rollback");
	char real[PATH_MAX];
	size_t n = 0;

	if (a->format != APPLYARGS_JSON)
		return 0;
	/* What the summary counts, in its order: the drift kinds first for verify. */
	for (unsigned k = 0; verify && k < _DRIFT_KIND_MAX; k++)
		outcomes[n++] = drifts[k] = drift_kind_name(k);
	drifts[_DRIFT_KIND_MAX] = NULL;
	for (size_t i = 0; rollback && i < S2C_ELEMENTSOF(undo); i++)
		outcomes[n++] = apply_event_id(undo[i]);
	for (size_t i = 0; !rollback && (!verify || fix) && i < S2C_ELEMENTSOF(change); i++)
		outcomes[n++] = apply_event_id(change[i]);
	if (verify && fix)
		outcomes[n++] = "not-repaired";
	outcomes[n] = NULL;
	a->action = rollback ? "restore" : verify ? "repair" : "change";
	if (resultjson_new(verb, realpath(root, real) ? real : root, outcomes,
			   verify ? drifts : NULL, &a->result) < 0) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

int applyargs_result_finish(struct applyargs *a, const char *root, int ex)
{
	struct s2c_error err = { 0 };
	struct idmap *ids = NULL;
	bool host = false;
	int r, rootfd;

	if (!a->result)
		return ex;
	(void)resultjson_close_open(a->result, "interrupted", "the run stopped before this "
				    "entry was finished (see the errors)");
	/* Without names the document is still complete: they are null. */
	rootfd = scan_open_root(root, &host, &err);
	if (rootfd < 0 || idmap_new(host ? -1 : rootfd, &ids) < 0)
		ids = NULL;
	if (rootfd >= 0)
		(void)close(rootfd);
	r = resultjson_write(a->result, ex, ids, stdout);
	idmap_free(ids);
	a->result = resultjson_free(a->result);
	if (r < 0) {
		log_error("cannot write the result: %s", strerror(-r));
		return S2C_MAX(ex, (int)S2C_EXIT_FAILURE);
	}
	return ex;
}
