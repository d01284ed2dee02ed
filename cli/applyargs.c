/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <getopt.h>
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

void applyargs_init(struct applyargs *a)
{
	*a = (struct applyargs){ .smoke = -1, .smoke_user = "nobody", .smoke_timeout = 10 };
}

int applyargs_option(struct applyargs *a, int opt, const char *arg, const char *verb)
{
	unsigned n;

	switch (opt) {
	case ARG_ONLY:
		if (a->n_only == S2C_ELEMENTSOF(a->only) - 1)
			return -usage_error(verb, "too many --only paths");
		if (arg[0] != '/')
			return -usage_error(verb, "--only needs an absolute path, not '%s'", arg);
		a->only[a->n_only++] = arg;
		return 1;
	case ARG_NO_SMOKE:
		a->smoke = 0;
		return 1;
	case ARG_SMOKE:
		a->smoke = 1;
		return 1;
	case ARG_SMOKE_USER:
		a->smoke_user = arg;
		return 1;
	case ARG_SMOKE_TIMEOUT:
		if (parse_uint(arg, 600, &n) < 0 || n == 0)
			return -usage_error(verb, "invalid --smoke-timeout '%s': expected 1..600 seconds", arg);
		a->smoke_timeout = n;
		return 1;
	case ARG_ALLOW_HARDLINKS:
		a->allow_hardlinks = true;
		return 1;
	case ARG_ALLOW_ROOT_EQUIVALENT:
		a->allow_root_equivalent = true;
		return 1;
	case ARG_FAULT:
#ifdef S2C_FAULT_INJECTION
		a->fault = arg;
		return 1;
#else
		return -usage_error(verb, "--fault exists only in test builds");
#endif
	case ARG_QUIET:
		a->quiet = true;
		return 1;
	case ARG_VERBOSE:
		a->verbose = true;
		return 1;
	default:
		return 0;
	}
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

struct reporter {
	bool quiet;
};

void applyargs_report(void *userdata, const char *path, enum apply_event ev, const char *msg)
{
	const struct reporter *rep = userdata;
	bool bad = ev == APPLY_SKIPPED || ev == APPLY_FAILED || ev == APPLY_ROLLED_BACK ||
		   ev == APPLY_NOT_RESTORED;

	if (bad) {
		log_warning("%s '%s': %s", apply_event_name(ev), path, msg && *msg ? msg : "");
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
	struct reporter rep = { .quiet = a->quiet };
	struct apply_options o = {
		.rootfd = rootfd, .plan = p, .plan_sha256 = plan_sha256, .caps = caps,
		.only = only ? only : a->n_only ? a->only : NULL,
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
	for (size_t i = 0; i < a->n_only; i++) {
		bool found = false;
		for (size_t j = 0; j < p->n && !found; j++)
			found = s2c_streq(p->v[j].path, a->only[i]);
		if (!found) {
			log_error("'%s' is not in the plan", a->only[i]);
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
