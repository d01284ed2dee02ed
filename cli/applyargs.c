/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "applyargs.h"
#include "cli.h"
#include "fcaps.h"
#include "plan.h"
#include "privs.h"
#include "util.h"
#include "common.h"

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
			OPT_CALLBACK("fault", a, "STEP[:ENTRY]", NULL, opt_fault),
			OPT_END(),
		},
		.smoke_opts = { SMOKE_OPTS(a), OPT_END() },
		.undo_opts = {
			{ .kind = OPT_KIND_CALLBACK, .long_name = "only", .value = &a->only,
			  .argh = "PATH", .help = "only this file (repeatable)",
			  .cb = opts_absolute_path },
			OPT_BOOL(0, "quiet", &a->quiet, "print only problems"),
			OPT_CALLBACK("fault", a, "STEP[:ENTRY]", NULL, opt_fault),
			OPT_END(),
		},
	};
}

uint64_t applyargs_caps(const struct plan *p, bool smoke)
{
	uint64_t caps = PRIVS_APPLY;

	for (size_t i = 0; p && i < p->n; i++)
		if (p->v[i].change && (p->v[i].before.uid != p->v[i].after.uid ||
				       p->v[i].before.gid != p->v[i].after.gid))
			caps |= PRIVS_APPLY_CHOWN;
	if (smoke)
		caps |= PRIVS_SMOKE;
	return caps;
}

void applyargs_report(void *userdata, const char *path, enum apply_event ev, const char *msg)
{
	const struct applyargs_reporter *rep = userdata;
	bool bad = ev == APPLY_SKIPPED || ev == APPLY_FAILED || ev == APPLY_ROLLED_BACK ||
		   ev == APPLY_NOT_RESTORED;

	if (bad) {
		/* The paths in the plan and in @msg are beneath the root: name it. */
		if (rep && rep->root && !s2c_streq(rep->root, "/"))
			log_warning("%s '%s' beneath the root '%s': %s", apply_event_name(ev), path,
				    rep->root, msg && *msg ? msg : "");
		else
			log_warning("%s '%s': %s", apply_event_name(ev), path,
				    msg && *msg ? msg : "");
		return;
	}
	if (rep && rep->quiet)
		return;
	print_line("%-18s %s%s%s", apply_event_name(ev), path, msg && *msg ? ": " : "",
		   msg ? msg : "");
}

int applyargs_exit(const struct apply_result *r)
{
	return r->skipped || r->failed || r->rolled_back || r->not_restored ? S2C_EXIT_FAILURE
									     : S2C_EXIT_OK;
}

int applyargs_apply(const struct applyargs *a, int rootfd, const struct plan *p,
		    const char *plan_sha256, const struct captable *caps,
		    const char *const *only)
{
	struct applyargs_reporter rep = { .quiet = a->quiet, .root = p->root };
	struct apply_options o = {
		.rootfd = rootfd, .plan = p, .plan_sha256 = plan_sha256, .caps = caps,
		.only = only ? only : a->only.n ? a->only.v : NULL,
		.allow_hardlinks = a->allow_hardlinks,
		.allow_root_equivalent = a->allow_root_equivalent,
		.smoke = a->smoke < 0 ? p->live : a->smoke, .smoke_timeout = a->smoke_timeout,
		.trusted = geteuid() == 0, .fault = a->fault,
		.report = applyargs_report, .userdata = &rep,
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
	/* Narrow to what this plan needs, before touching anything. */
	r = privs_restrict(applyargs_caps(p, o.smoke), PRIVS_KEEP_BOUNDING);
	if (r < 0) {
		log_error("cannot restrict privileges: %s", strerror(-r));
		return S2C_EXIT_PRIVILEGE;
	}
	if (a->verbose) {
		_cleanup_free_ char *names = fcaps_mask_names(privs_effective());
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
	r = apply_run(&o, &res, &err);
	if (r < 0) {
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
	}
	if (!a->quiet || applyargs_exit(&res))
		(void)printf("%zu applied, %zu already done, %zu skipped, %zu failed, %zu rolled back"
			     "%s%s%s\n", res.applied, res.already, res.skipped, res.failed,
			     res.rolled_back, res.journal[0] ? " (journal " : "", res.journal,
			     res.journal[0] ? ")" : "");
	return applyargs_exit(&res);
}
