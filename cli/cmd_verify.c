/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap verify: compare the system with what was migrated, report drift
 * (the set-ID bit back, capabilities gone or different, the file replaced by
 * a package update), repair it with --fix, and install package-manager hooks
 * that run the repair after every package operation.
 */
#include <errno.h>
#include <fcntl.h>
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
	"database's digests).  --db, --kernel, --bounding-set, --exclude,\n"
	"--include-unpackaged and the smoke-test options apply to --fix.\n";

static int do_hooks(int rootfd, const char *root, const char *install, const char *remove,
		    const char *program)
{
	struct s2c_error err = { 0 };
	const char *name = install ? install : remove;
	enum hook_kind kind = hook_kind_from_name(name);
	/* The hooks' paths are beneath the root: name it when it is not this system's. */
	bool image = !s2c_streq(root, "/");
	const char *beneath = image ? " beneath the root '" : "", *beneath_root = image ? root : "";
	int r;

	if ((int)kind < 0)
		return usage_error("verify", "unknown hook '%s': expected dpkg, apt or rpm", name);
	if (install) {
		if (!program)
			program = S2C_SBINDIR "/suid2cap";
		/* A hook naming a program that is not there would silently do nothing. */
		r = hook_check_program(rootfd, program, geteuid() == 0, &err);
		if (r < 0) {
			log_error("cannot install the %s hook: it would run '%s', which is not usable "
				  "beneath the root '%s' (%s); install suid2cap there, or name another "
				  "program with --hook-program", name, program, root, err.msg);
			return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
		}
		r = hook_install(rootfd, kind, program, geteuid() == 0, &err);
		if (r < 0) {
			log_error("cannot install the %s hook%s%s%s: %s", name, beneath,
				  beneath_root, *beneath ? "'" : "", err.msg);
			return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
		}
		print_line("installed %s, running %s", hook_path(kind), program);
		return S2C_EXIT_OK;
	}
	r = hook_remove(rootfd, kind, &err);
	if (r < 0) {
		log_error("cannot remove the %s hook%s%s%s: %s", name, beneath, beneath_root,
			  *beneath ? "'" : "", err.msg);
		return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
	}
	if (r > 0)
		print_line("removed %s", hook_path(kind));
	else
		print_line("no %s hook at %s, nothing removed", name, hook_path(kind));
	return S2C_EXIT_OK;
}

/* One drifted entry that --fix did not repair, named on stderr with the root it is beneath. */
static void not_repaired(const char *root, const char *path, const char *why)
{
	if (!s2c_streq(root, "/"))
		log_warning("not repaired '%s' beneath the root '%s': %s", path, root, why);
	else
		log_warning("not repaired '%s': %s", path, why);
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
	_cleanup_free_ char *shown = shown_path(sa->root);
	const char *root = shown ? shown : sa->root;
	struct scanargs s = *sa;
	struct rules_db *db = NULL;
	struct plan *p = NULL;
	char hash[HASH_HEX_LEN];
	bool incomplete = false;
	size_t k = 0, m = 0, unrepaired = 0;
	int ex;

	if (!paths || !approved) {
		log_error("cannot repair: out of memory");
		return S2C_EXIT_FAILURE;
	}
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
					   .verbose = aa->verbose, .plan_limits = true };
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
			not_repaired(root, d->entry->path, "it is not privileged any more, so there "
				     "is nothing to repair");
			unrepaired++;
			continue;
		}
		after = (struct file_state){ .uid = pe->after.uid, .gid = pe->after.gid,
					     .mode = pe->after.mode & 07777,
					     .has_xattr = pe->after.caps_len > 0,
					     .xattr_len = pe->after.caps_len };
		memcpy(after.xattr, pe->after.caps_raw, pe->after.caps_len);
		if (!s2c_streq(pe->sha256, d->now.sha256)) {
			not_repaired(root, d->entry->path, "its content changed again while it was "
				     "checked");
			unrepaired++;
		} else if (!pe->change || !filestate_same(&after, &d->entry->after)) {
			char rec[128], why[256];
			filestate_describe(&d->entry->after, rec, sizeof(rec));
			(void)snprintf(why, sizeof(why), "the rules no longer decide the recorded "
				       "state '%s' (now %s, %s%s)", rec, verdict_name(pe->verdict),
				       pe->rule_id ? "rule " : "no rule",
				       pe->rule_id ? pe->rule_id : "");
			not_repaired(root, d->entry->path, why);
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
static int forget(int rootfd, const char *root, const char *const *paths, size_t n)
{
	struct s2c_error err = { 0 };
	struct state *state = NULL;
	_cleanup_free_ char *sdir = statedir_shown(root, NULL);
	int statefd = -1, r, ex = S2C_EXIT_OK;

	if (!sdir) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	r = statedir_open(rootfd, root, false, geteuid() == 0, &statefd, NULL, &err);
	if (r == 0 && flock(statefd, LOCK_EX | LOCK_NB) < 0)
		r = s2c_error_errno(&err, -errno, "another apply, rollback or verify is running "
				    "on '%s'", sdir);
	if (r == 0)
		r = state_load(statefd, sdir, "/", geteuid() == 0, &state, &err);
	for (size_t i = 0; r == 0 && i < n; i++) {
		if (state_remove(state, paths[i])) {
			print_line("forgotten  %s", paths[i]);
		} else {
			log_error("'%s' is not recorded as migrated in '%s'", paths[i], sdir);
			ex = S2C_EXIT_USAGE;
		}
	}
	if (r == 0)
		r = state_save(statefd, sdir, state, &err);
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
	struct scanargs s;
	struct dbargs db;
	struct applyargs a;
	struct opt_list forgets = { 0 };
	const char *install = NULL, *remove = NULL, *hook_program = NULL;
	bool want_fix = false, host = false;
	struct opt opts[] = {
		OPT_TABLE(s.opts),
		{ .kind = OPT_KIND_BOOL, .long_name = "fix", .value = &want_fix, .excl = 1,
		  .help = "repair drift that is safe to repair: an update that\ninstalled the "
			  "package's own content, or the set-ID\nbit back on the same content; the "
			  "rules must still\ndecide the recorded state; applied with the same\n"
			  "checks, journal and smoke test.  Every entry not\nrepaired is named and "
			  "the exit status is 1" },
		{ .kind = OPT_KIND_CALLBACK, .long_name = "forget", .value = &forgets,
		  .argh = "PATH", .excl = 1, .cb = opts_absolute_path,
		  .help = "stop tracking PATH (repeatable); nothing on disk changes" },
		{ .kind = OPT_KIND_STRING, .long_name = "install-hook", .value = &install,
		  .argh = "KIND", .excl = 1,
		  .help = "run 'verify --fix' after every dpkg, apt or rpm (dnf)\noperation; KIND "
			  "is dpkg, apt or rpm" },
		{ .kind = OPT_KIND_STRING, .long_name = "hook-program", .value = &hook_program,
		  .argh = "PATH",
		  .help = "with --install-hook: the program the hook runs\n(default: "
			  S2C_SBINDIR "/suid2cap, where it is installed);\nit must be there "
			  "beneath the root" },
		{ .kind = OPT_KIND_STRING, .long_name = "remove-hook", .value = &remove,
		  .argh = "KIND", .excl = 1, .help = "remove that hook" },
		OPT_TABLE(db.opts),
		OPT_TABLE(a.smoke_opts),
		OPT_BOOL(0, "allow-root-equivalent", &a.allow_root_equivalent, "accept "
			 "root-equivalent capability sets (with --fix)"),
		OPT_BOOL(0, "quiet", &a.quiet, "print only drift and problems"),
		OPT_BOOL(0, "verbose", &a.verbose, "also print the capabilities each phase keeps"),
		OPT_TABLE(a.undo_opts + 2),   /* --fault, in test builds */
		OPT_END(),
	};
	struct s2c_error err = { 0 };
	struct state *state = NULL;
	struct host *h = NULL;
	struct drift *drifts = NULL;
	_cleanup_free_ const char **paths = NULL;
	_cleanup_free_ char *shown_root = NULL, *sdir = NULL;
	size_t n = 0, unrepaired = 0;
	int r, ex = S2C_EXIT_OK, rootfd, statefd = -1;

	scanargs_init(&s, ctx, SCANARGS_PLANNING);
	dbargs_init(&db);
	applyargs_init(&a);
	r = opts_parse(cmd_lookup("verify"), opts, help_text, argc, argv);
	if (r <= 0)
		return -r;
	if (hook_program && !install)
		return usage_error("verify", "--hook-program goes with --install-hook");
	shown_root = shown_path(s.root);
	sdir = statedir_shown(shown_root, NULL);
	if (!shown_root || !sdir) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	rootfd = scan_open_root(s.root, &host, &err);
	if (rootfd < 0) {
		log_error("%s", err.msg);
		return S2C_EXIT_USAGE;
	}
	if (install || remove || forgets.n) {
		ex = forgets.n ? forget(rootfd, shown_root, forgets.v, forgets.n) :
				 do_hooks(rootfd, shown_root, install, remove, hook_program);
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
	r = statedir_open(rootfd, shown_root, false, geteuid() == 0, &statefd, NULL, &err);
	if (r == -ENOENT) {
		(void)close(rootfd);
		if (!a.quiet)
			print_line("nothing was migrated here (no state in %s)", sdir);
		return S2C_EXIT_OK;
	}
	if (r == 0)
		r = state_load(statefd, sdir, s.root, geteuid() == 0, &state, &err);
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
			print_line("drift      %s: %s", state->v[i].path, drifts[n].what);
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
				not_repaired(shown_root, drifts[i].entry->path, drifts[i].what);
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
