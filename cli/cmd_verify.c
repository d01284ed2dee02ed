/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap verify: compare the system with what was migrated, report drift
 * (the set-ID bit back, capabilities gone or different, the file replaced by
 * a package update), repair it with --fix, and install package-manager hooks
 * that run the repair after every package operation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applyargs.h"
#include "cli.h"
#include "dbargs.h"
#include "db.h"
#include "hash.h"
#include "hook.h"
#include "interrupt.h"
#include "plan.h"
#include "privs.h"
#include "privsep.h"
#include "resultjson.h"
#include "scan.h"
#include "scanargs.h"
#include "state.h"
#include "statedir.h"
#include "util.h"
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
			return error_exit_code(r);
		}
		/* A temporary file renamed into place: one step for a signal. */
		interrupt_hold();
		r = hook_install(rootfd, kind, program, geteuid() == 0, &err);
		interrupt_release();
		if (r < 0) {
			log_error("cannot install the %s hook%s%s%s: %s", name, beneath,
				  beneath_root, *beneath ? "'" : "", err.msg);
			return error_exit_code(r);
		}
		print_line("installed %s, running %s", hook_path(kind), program);
		return S2C_EXIT_OK;
	}
	r = hook_remove(rootfd, kind, &err);
	if (r < 0) {
		log_error("cannot remove the %s hook%s%s%s: %s", name, beneath, beneath_root,
			  *beneath ? "'" : "", err.msg);
		return error_exit_code(r);
	}
	if (r > 0)
		print_line("removed %s", hook_path(kind));
	else
		print_line("no %s hook at %s, nothing removed", name, hook_path(kind));
	return S2C_EXIT_OK;
}

/* The options of one verify run. */
struct verify_args {
	struct s2c_ctx *ctx;
	struct scanargs s;
	struct dbargs db;
	struct applyargs a;
	struct opt_list forgets;
	const char *install, *remove, *hook_program;
	bool fix;
	const char *sdir;              /* the state directory as messages name it */
};

/*
 * A drifted entry that --fix does not repair (a verify_refused_fn; @userdata is the struct
 * applyargs): named on stderr with the root it is beneath (a->root, when it is not "/"),
 * and in the result.
 */
static void not_repaired(void *userdata, const char *path, const char *why)
{
	struct applyargs *a = userdata;
	struct resultjson_event ev = { .action = "repair", .path = path, .outcome = "not-repaired",
				       .reason = why };

	if (a->root && !s2c_streq(a->root, "/"))
		log_warning("not repaired '%s' beneath the root '%s': %s", path, a->root, why);
	else
		log_warning("not repaired '%s': %s", path, why);
	if (a->result)
		(void)resultjson_event(a->result, &ev);
}

/*
 * Decide again, in the narrowed child, about @paths (verify_fixable()).
 * Returns 0 with the plan in @ret_plan and the database in @ret_db, or an
 * exit code after printing.
 */
static int fix_decide(struct verify_args *v, const char **paths, struct rules_db **ret_db,
		      struct plan **ret_plan, char hash[static HASH_HEX_LEN])
{
	struct scanargs s = v->s;
	struct rules_db *db = NULL;
	bool incomplete = false;
	int ex;

	s.paths = paths;
	ex = dbargs_load_root(&v->db, s.root, &db);
	if (ex == 0) {
		struct privsep_job job = { .dbargs = &v->db, .db = db, .scan = &s, .ctx = v->ctx,
					   .verbose = v->a.verbose, .plan_limits = true };
		ex = privsep_plan(&job, ret_plan, hash, &incomplete);
	}
	if (ex) {
		rules_db_free(db);
		return ex;
	}
	*ret_db = db;
	return 0;
}

/*
 * Repair the drifted files plan/verify approves (verify_fixable(), a fresh decision in
 * the narrowed child, verify_approve()) with apply's checks, journal and smoke test.
 * Returns an exit code; *ret_unrepaired counts the drifted entries left as they are.
 */
static int fix(struct verify_args *v, int rootfd, const struct verify_run *c,
	       size_t *ret_unrepaired)
{
	_cleanup_free_ const char **paths = NULL, **approved = NULL;
	struct rules_db *db = NULL;
	struct plan *p = NULL;
	char hash[HASH_HEX_LEN];
	size_t refused = 0;
	int n, ex;

	*ret_unrepaired = c->n_drifted;
	n = verify_fixable(c, not_repaired, &v->a, &paths, &refused);
	if (n < 0) {
		log_error("cannot repair: out of memory");
		return S2C_EXIT_FAILURE;
	}
	if (n == 0) {
		*ret_unrepaired = refused;
		return S2C_EXIT_FINDINGS;
	}
	ex = fix_decide(v, paths, &db, &p, hash);
	if (ex) {
		if (v->a.result)
			(void)resultjson_close_open(v->a.result, "not-repaired", "the files could "
						    "not be decided about again (see the errors)");
		return ex;
	}
	n = verify_approve(c, p, not_repaired, &v->a, &approved);
	if (n < 0) {
		log_error("cannot repair: out of memory");
		ex = S2C_EXIT_FAILURE;
	} else {
		*ret_unrepaired = refused + (size_t)n;
		if (approved[0])
			ex = applyargs_apply(&v->a, rootfd, p, hash, &db->caps, approved);
	}
	plan_free(p);
	rules_db_free(db);
	if (ex)
		return ex;
	return *ret_unrepaired ? S2C_EXIT_FINDINGS : S2C_EXIT_OK;
}

/*
 * verify --forget PATH…: drop records; the files are not touched.  @root and @sdir (its
 * state directory) as messages name them.
 */
static int forget(int rootfd, const char *root, const char *sdir, const char *const *paths,
		  size_t n)
{
	_cleanup_free_ bool *found = calloc(n ? n : 1, sizeof(bool));
	struct s2c_error err = { 0 };
	int r, ex = S2C_EXIT_OK;

	if (!found) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	interrupt_hold();       /* state.json is replaced through a temporary file */
	r = verify_forget(rootfd, root, paths, n, geteuid() == 0, found, &err);
	interrupt_release();
	if (r < 0)
		return error_exit(r, &err);
	for (size_t i = 0; i < n; i++) {
		if (found[i]) {
			print_line("forgotten  %s", paths[i]);
		} else {
			log_error("'%s' is not recorded as migrated in '%s'", paths[i], sdir);
			ex = S2C_EXIT_USAGE;
		}
	}
	return ex;
}

static const char *const not_with_json[] = { "forget", "install-hook", "remove-hook", NULL };

/* Returns an exit code; @ret_done is set when nothing is left to do (--help). */
static int parse_args(int argc, char **argv, struct verify_args *v, struct s2c_ctx *ctx,
		      bool *ret_done)
{
	struct applyargs *a = &v->a;
	struct opt opts[] = {
		OPT_TABLE(v->s.opts),
		{ .kind = OPT_KIND_BOOL, .long_name = "fix", .value = &v->fix, .excl = 1,
		  .help = "repair drift that is safe to repair: an update that\ninstalled the "
			  "package's own content, or the set-ID\nbit back on the same content; the "
			  "rules must still\ndecide the recorded state; applied with the same\n"
			  "checks, journal and smoke test.  Every entry not\nrepaired is named and "
			  "the exit status is 1" },
		{ .kind = OPT_KIND_CALLBACK, .long_name = "forget", .value = &v->forgets,
		  .argh = "PATH", .excl = 1, .cb = opts_absolute_path,
		  .help = "stop tracking PATH (repeatable); nothing on disk changes" },
		{ .kind = OPT_KIND_STRING, .long_name = "install-hook", .value = &v->install,
		  .argh = "KIND", .excl = 1,
		  .help = "run 'verify --fix' after every dpkg, apt or rpm (dnf)\noperation; KIND "
			  "is dpkg, apt or rpm" },
		{ .kind = OPT_KIND_STRING, .long_name = "hook-program", .value = &v->hook_program,
		  .argh = "PATH",
		  .help = "with --install-hook: the program the hook runs\n(default: "
			  S2C_SBINDIR "/suid2cap, where it is installed);\nit must be there "
			  "beneath the root" },
		{ .kind = OPT_KIND_STRING, .long_name = "remove-hook", .value = &v->remove,
		  .argh = "KIND", .excl = 1, .help = "remove that hook" },
		OPT_TABLE(v->db.opts),
		OPT_TABLE(a->smoke_opts),
		OPT_BOOL(0, "allow-root-equivalent", &a->allow_root_equivalent, "accept "
			 "root-equivalent capability sets (with --fix)"),
		OPT_BOOL(0, "quiet", &a->quiet, "print only drift and problems"),
		OPT_BOOL(0, "verbose", &a->verbose, "also print the capabilities each phase keeps"),
		OPT_TABLE(a->format_opts),
		OPT_TABLE(a->undo_opts + 2),   /* --fault, in test builds */
		OPT_END(),
	};
	int r, first;

	v->ctx = ctx;
	scanargs_init(&v->s, ctx, SCANARGS_PLANNING);
	dbargs_init(&v->db);
	applyargs_init(a);
	r = opts_parse(cmd_lookup("verify"), opts, help_text, argc, argv, &first);
	*ret_done = r || !first;
	if (r || !first)
		return r;
	if (v->hook_program && !v->install)
		return usage_error("verify", "--hook-program goes with --install-hook");
	if (a->format == APPLYARGS_JSON && (v->forgets.n || v->install || v->remove))
		return usage_error("verify", "--format json goes with checking and --fix, not "
				   "with --%s",
				   not_with_json[v->forgets.n ? 0 : v->install ? 1 : 2]);
	return S2C_EXIT_OK;
}

/* Every recorded file: a drift line (text), or a check or repair entry (json). */
static void report_checks(struct verify_args *v, const struct verify_run *c)
{
	for (size_t i = 0; i < c->state->n; i++) {
		const struct drift *d = &c->drifts[i];
		bool drifted = d->kind != DRIFT_NONE, repair = drifted && v->fix;
		const struct file_state *now = d->kind == DRIFT_GONE ? NULL : &d->now.state;
		struct resultjson_event ev = {
			.action = repair ? "repair" : "check", .path = d->entry->path,
			.outcome = repair ? NULL : drift_kind_name(d->kind),
			.reason = repair || !drifted ? NULL : d->what,
			.before = now, .after = now, .recorded = &d->entry->left.state,
			.drift = drift_kind_name(d->kind), .drift_reason = drifted ? d->what : NULL,
		};

		if (v->a.result)
			(void)resultjson_event(v->a.result, &ev);
		else if (drifted && !v->fix)
			print_line("drift      %s: %s; %s", d->entry->path, d->what, d->repair);
		else if (drifted)
			print_line("drift      %s: %s", d->entry->path, d->what);
	}
	if (!v->a.result && !v->a.quiet)
		(void)printf("%zu migrated file%s checked, %zu drifted\n", c->state->n,
			     c->state->n == 1 ? "" : "s", c->n_drifted);
}

/* Check (and with --fix repair) beneath @rootfd.  Returns an exit code. */
static int check_and_fix(struct verify_args *v, int rootfd, bool host)
{
	_cleanup_(verify_run_freep) struct verify_run *c = NULL;
	struct s2c_error err = { 0 };
	size_t unrepaired = 0;
	int r, ex = S2C_EXIT_OK;

	if (!v->fix) {
		/* Only reading from here: the read-only set and no_new_privs. */
		if (privs_restrict(PRIVS_READ, 0, NULL))
			return S2C_EXIT_PRIVILEGE;
	}
	r = verify_run_check(rootfd, v->a.root, v->s.root, host, geteuid() == 0, &c, &err);
	if (r > 0) {
		if (!v->a.quiet && !v->a.result)
			print_line("nothing was migrated here (no state in %s)", v->sdir);
		return S2C_EXIT_OK;
	}
	if (r < 0)
		return error_exit(r, &err);
	report_checks(v, c);
	if (c->n_drifted && v->fix) {
		ex = fix(v, rootfd, c, &unrepaired);
		if (unrepaired)
			log_error("%zu drifted file%s not repaired (see above)", unrepaired,
				  unrepaired == 1 ? "" : "s");
	} else if (c->n_drifted) {
		ex = S2C_EXIT_FINDINGS;
	}
	return ex;
}

int cmd_verify(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct verify_args v = { 0 };
	struct s2c_error err = { 0 };
	_cleanup_free_ char *shown_root = NULL, *sdir = NULL;
	bool host = false, done = false;
	int ex, rootfd;

	ex = parse_args(argc, argv, &v, ctx, &done);
	if (ex || done)
		return ex;
	/* Messages name the root, and the state directory beneath it, as the user can find them. */
	shown_root = shown_path(v.s.root);
	sdir = shown_root ? statedir_shown(shown_root, NULL) : NULL;
	if (!sdir) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	v.a.root = shown_root;
	v.sdir = sdir;
	rootfd = scan_open_root(v.s.root, &host, &err);
	if (rootfd < 0) {
		log_error("%s", err.msg);
		return S2C_EXIT_USAGE;
	}
	if (v.install || v.remove || v.forgets.n) {
		ex = v.forgets.n ? forget(rootfd, shown_root, sdir, v.forgets.v, v.forgets.n) :
				   do_hooks(rootfd, shown_root, v.install, v.remove,
					    v.hook_program);
		(void)close(rootfd);
		return ex;
	}
	ex = applyargs_result_start(&v.a, "verify", v.s.root, v.fix);
	if (ex == 0)
		ex = check_and_fix(&v, rootfd, host);
	(void)close(rootfd);
	return applyargs_result_finish(&v.a, v.s.root, ex);
}
