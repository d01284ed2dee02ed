/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap verify: compare the system with what was migrated, report drift
 * (the set-ID bit back, capabilities gone or different, the file replaced by
 * a package update), repair it with --fix, and install package-manager hooks
 * that run the repair after every package operation.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "applyargs.h"
#include "cli.h"
#include "dbargs.h"
#include "db.h"
#include "fileop.h"
#include "hash.h"
#include "hook.h"
#include "host.h"
#include "plan.h"
#include "privs.h"
#include "privsep.h"
#include "scan.h"
#include "scanargs.h"
#include "state.h"
#include "verify.h"
#include "common.h"

static const char help_text[] =
	"Compare the system with the state recorded by apply: report files whose\n"
	"set-ID bit came back, whose capabilities are gone or different, or whose\n"
	"content changed (a package update, told from tampering by the package\n"
	"database's digests).\n"
	"\n"
	"  --root DIR               the system root\n"
	"  --fix                    repair drift that is safe to repair: an update that\n"
	"                           installed the package's own content, or the set-ID\n"
	"                           bit back on the same content; the rules must still\n"
	"                           decide the recorded state; applied with the same\n"
	"                           checks, journal and smoke test.  Every entry not\n"
	"                           repaired is named and the exit status is 1\n"
	"  --forget PATH            stop tracking PATH (repeatable); nothing on disk changes\n"
	"  --install-hook KIND      run 'verify --fix' after every dpkg, apt or rpm (dnf)\n"
	"                           operation; KIND is dpkg, apt or rpm\n"
	"  --remove-hook KIND       remove that hook\n"
	"  --db DIR, --kernel VER, --bounding-set SET   as for audit (with --fix)\n"
	"  --no-smoke, --smoke-user USER, --allow-root-equivalent   as for apply (with --fix)\n"
	"  --quiet                  print only drift and problems\n";

static const char *program_path(void)
{
	static char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static int do_hooks(int rootfd, const char *install, const char *remove)
{
	struct s2c_error err = { 0 };
	const char *name = install ? install : remove;
	enum hook_kind kind = hook_kind_from_name(name);
	int r;

	if ((int)kind < 0)
		return usage_error("verify", "unknown hook '%s': expected dpkg, apt or rpm", esc(name));
	if (install) {
		const char *self = program_path();
		if (!self) {
			log_error("cannot find this program's path for the hook");
			return S2C_EXIT_FAILURE;
		}
		r = hook_install(rootfd, kind, self, &err);
	} else {
		r = hook_remove(rootfd, kind, &err);
	}
	if (r < 0) {
		log_error("%s", err.msg);
		return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
	}
	(void)printf("%s %s\n", install ? "installed" : "removed", hook_path(kind));
	return S2C_EXIT_OK;
}

/* One drifted entry that --fix did not repair, named on stderr. */
static void not_repaired(const char *path, const char *why)
{
	log_warning("not repaired '%s': %s", esc(path), why);
}

/*
 * Decide again (in the narrowed child) about the fixable drifted files and
 * repair those whose fresh decision is exactly the recorded state, on the
 * content that was checked.  Returns an exit code; *ret_unrepaired counts
 * the drifted entries left as they are.
 */
static int fix(struct s2c_ctx *ctx, const struct scanargs *sa, const struct dbargs *dba,
	       const struct applyargs *aa, int rootfd, struct drift *drifts, size_t n,
	       size_t *ret_unrepaired)
{
	_cleanup_free_ const char **paths = calloc(n + 1, sizeof(char *));
	_cleanup_free_ const char **approved = calloc(n + 1, sizeof(char *));
	struct scanargs s = *sa;
	struct rules_db *db = NULL;
	struct plan *p = NULL;
	char hash[HASH_HEX_LEN];
	bool incomplete = false;
	size_t k = 0, m = 0, unrepaired = 0;
	int ex;

	if (!paths || !approved)
		return S2C_EXIT_FAILURE;
	for (size_t i = 0; i < n; i++) {
		if (drifts[i].fixable)
			paths[k++] = drifts[i].entry->path;
		else
			unrepaired++;
	}
	*ret_unrepaired = unrepaired;
	if (!k)
		return S2C_EXIT_FINDINGS;
	s.paths = paths;
	ex = dbargs_load_root(dba, s.root, &db);
	if (ex == 0) {
		struct privsep_job job = { .dbargs = dba, .db = db, .scan = &s, .ctx = ctx,
					   .verbose = aa->verbose };
		ex = privsep_plan(&job, &p, hash, &incomplete);
	}
	if (ex) {
		rules_db_free(db);
		*ret_unrepaired = n;
		return ex;
	}
	for (size_t i = 0; i < n; i++) {
		const struct drift *d = &drifts[i];
		struct plan_entry *pe = NULL;
		struct file_state after;

		if (!d->fixable)
			continue;
		for (size_t j = 0; j < p->n && !pe; j++)
			if (s2c_streq(p->v[j].path, d->entry->path))
				pe = &p->v[j];
		if (!pe) {
			not_repaired(d->entry->path, "it is not privileged any more, so there is nothing "
				     "to repair");
			unrepaired++;
			continue;
		}
		after = (struct file_state){ .uid = pe->after.uid, .gid = pe->after.gid,
					     .mode = pe->after.mode & 07777,
					     .has_xattr = pe->after.caps_len > 0,
					     .xattr_len = pe->after.caps_len };
		memcpy(after.xattr, pe->after.caps_raw, pe->after.caps_len);
		if (!s2c_streq(pe->sha256, d->now.sha256)) {
			not_repaired(d->entry->path, "its content changed again while it was checked");
			unrepaired++;
		} else if (!pe->change || !filestate_same(&after, &d->entry->after)) {
			char rec[128];
			filestate_describe(&d->entry->after, rec, sizeof(rec));
			log_warning("not repaired '%s': the rules no longer decide the recorded state "
				    "'%s' (now %s, %s%s)", esc(d->entry->path), rec,
				    verdict_name(pe->verdict), pe->rule_id ? "rule " : "no rule",
				    pe->rule_id ? pe->rule_id : "");
			unrepaired++;
		} else {
			approved[m++] = pe->path;
		}
	}
	for (size_t j = 0; j < p->n; j++) {
		bool ok = false;
		for (size_t i = 0; i < m && !ok; i++)
			ok = approved[i] == p->v[j].path;
		p->v[j].change = p->v[j].change && ok;
	}
	*ret_unrepaired = unrepaired;
	if (m)
		ex = applyargs_apply(aa, rootfd, p, hash, &db->caps, approved);
	plan_free(p);
	rules_db_free(db);
	if (ex)
		return ex;
	return unrepaired ? S2C_EXIT_FINDINGS : S2C_EXIT_OK;
}

/* verify --forget PATH…: drop records; the files are not touched. */
static int forget(int rootfd, const char *const *paths, size_t n)
{
	struct s2c_error err = { 0 };
	struct state *state = NULL;
	int statefd = -1, r, ex = S2C_EXIT_OK;

	r = statedir_open(rootfd, false, geteuid() == 0, &statefd, NULL, &err);
	if (r == 0 && flock(statefd, LOCK_EX | LOCK_NB) < 0)
		r = s2c_error_errno(&err, -errno, "another apply, rollback or verify is running");
	if (r == 0)
		r = state_load(statefd, "/", geteuid() == 0, &state, &err);
	for (size_t i = 0; r == 0 && i < n; i++) {
		if (state_remove(state, paths[i])) {
			(void)printf("forgotten  %s\n", esc(paths[i]));
		} else {
			log_error("'%s' is not recorded as migrated", esc(paths[i]));
			ex = S2C_EXIT_USAGE;
		}
	}
	if (r == 0)
		r = state_save(statefd, state, &err);
	if (statefd >= 0)
		(void)close(statefd);
	state_free(state);
	if (r < 0) {
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
	}
	return ex;
}

int cmd_verify(int argc, char **argv, struct s2c_ctx *ctx)
{
	static const struct option opts[] = {
		SCANARGS_OPTIONS, DBARGS_OPTIONS,
		{ "fix", no_argument, NULL, ARG_FIX },
		{ "forget", required_argument, NULL, ARG_FORGET },
		{ "install-hook", required_argument, NULL, ARG_INSTALL_HOOK },
		{ "remove-hook", required_argument, NULL, ARG_REMOVE_HOOK },
		{ "no-smoke", no_argument, NULL, ARG_NO_SMOKE },
		{ "smoke", no_argument, NULL, ARG_SMOKE },
		{ "smoke-user", required_argument, NULL, ARG_SMOKE_USER },
		{ "allow-root-equivalent", no_argument, NULL, ARG_ALLOW_ROOT_EQUIVALENT },
		{ "fault", required_argument, NULL, ARG_FAULT },
		{ "quiet", no_argument, NULL, ARG_QUIET },
		{ "verbose", no_argument, NULL, ARG_VERBOSE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct scanargs s;
	struct dbargs db = { 0 };
	struct applyargs a;
	const char *install = NULL, *remove = NULL, *forgets[64];
	struct s2c_error err = { 0 };
	struct state *state = NULL;
	struct host *h = NULL;
	struct drift *drifts = NULL;
	_cleanup_free_ const char **paths = NULL;
	size_t n = 0, nforget = 0, unrepaired = 0;
	bool want_fix = false, host = false;
	int c, r, ex = S2C_EXIT_OK, rootfd, statefd = -1;

	scanargs_init(&s, ctx);
	applyargs_init(&a);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if ((r = scanargs_option(&s, c, optarg, "verify")) || (r = dbargs_option(&db, c, optarg, "verify")) ||
		    (r = applyargs_option(&a, c, optarg, "verify"))) {
			if (r < 0)
				return -r;
			continue;
		}
		switch (c) {
		case 'h':
			cmd_print_usage(cmd_lookup("verify"), stdout);
			(void)fputs(help_text, stdout);
			return S2C_EXIT_OK;
		case ARG_FIX: want_fix = true; break;
		case ARG_FORGET:
			if (nforget == S2C_ELEMENTSOF(forgets))
				return usage_error("verify", "too many --forget paths");
			forgets[nforget++] = optarg;
			break;
		case ARG_INSTALL_HOOK: install = optarg; break;
		case ARG_REMOVE_HOOK: remove = optarg; break;
		default:
			return usage_error("verify", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("verify", "unexpected argument '%s'", esc(argv[optind]));
	if (install && remove)
		return usage_error("verify", "--install-hook and --remove-hook exclude each other");
	if (nforget && (want_fix || install || remove))
		return usage_error("verify", "--forget excludes --fix and the hook options");
	rootfd = scan_open_root(s.root, &host, &err);
	if (rootfd < 0) {
		log_error("%s", err.msg);
		return S2C_EXIT_USAGE;
	}
	if (install || remove || nforget) {
		ex = nforget ? forget(rootfd, forgets, nforget) : do_hooks(rootfd, install, remove);
		(void)close(rootfd);
		return ex;
	}
	if (!want_fix) {
		/* Only reading from here: the read-only set and no_new_privs. */
		r = privs_restrict(PRIVS_READ, 0);
		if (r < 0) {
			(void)close(rootfd);
			log_error("cannot restrict privileges: %s", strerror(-r));
			return S2C_EXIT_PRIVILEGE;
		}
	}
	r = statedir_open(rootfd, false, geteuid() == 0, &statefd, NULL, &err);
	if (r == -ENOENT) {
		(void)close(rootfd);
		if (!a.quiet)
			(void)printf("nothing was migrated here (no state in %s)\n", S2C_STATEDIR);
		return S2C_EXIT_OK;
	}
	if (r == 0)
		r = state_load(statefd, s.root, geteuid() == 0, &state, &err);
	if (statefd >= 0)
		(void)close(statefd);
	if (r == 0)
		r = host_new(rootfd, host, NULL, &h, &err);
	if (r == 0 && (!(drifts = calloc(state->n + 1, sizeof(*drifts))) ||
		       !(paths = calloc(state->n + 1, sizeof(char *)))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < state->n; i++)
		paths[i] = state->v[i].path;
	if (r == 0)
		r = host_load_packages(h, paths, state->n);
	for (size_t i = 0; r == 0 && i < state->n; i++) {
		r = verify_entry(rootfd, h, &state->v[i], &drifts[n]);
		if (r == 0 && drifts[n].kind != DRIFT_NONE) {
			(void)printf("drift      %s: %s\n", esc(state->v[i].path), esc(drifts[n].what));
			n++;
		}
	}
	if (r < 0) {
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		ex = r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
		goto out;
	}
	if (!a.quiet)
		(void)printf("%zu migrated file%s checked, %zu drifted\n", state->n,
			     state->n == 1 ? "" : "s", n);
	if (n && want_fix) {
		for (size_t i = 0; i < n; i++)
			if (!drifts[i].fixable)
				not_repaired(drifts[i].entry->path, drifts[i].what);
		ex = fix(ctx, &s, &db, &a, rootfd, drifts, n, &unrepaired);
		if (unrepaired)
			log_error("%zu drifted file%s not repaired (see above)", unrepaired,
				  unrepaired == 1 ? "" : "s");
	} else if (n) {
		ex = S2C_EXIT_FINDINGS;
	}
out:
	(void)close(rootfd);
	free(drifts);
	host_free(h);
	state_free(state);
	return ex;
}
