/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap apply PLAN, migrate, rollback: carry out a plan safely, or undo it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "applyargs.h"
#include "cli.h"
#include "dbargs.h"
#include "db.h"
#include "hash.h"
#include "interrupt.h"
#include "jsonout.h"
#include "plan.h"
#include "planload.h"
#include "privsep.h"
#include "privs.h"
#include "resultjson.h"
#include "scan.h"
#include "scanargs.h"
#include "util.h"
#include "common.h"

static const char apply_help[] =
	"Carry out PLAN (from 'suid2cap plan'): decide again about its files with the\n"
	"rules (a plan that says otherwise is refused whole); for each entry to\n"
	"change, check the file is still what the plan saw and that the change grants\n"
	"no more than the file has, journal its exact state and content, set the\n"
	"capabilities, clear the set-ID bits, read back, run the smoke test as an\n"
	"unprivileged user and undo the change when it fails.  --db, --kernel and\n"
	"--bounding-set are the ones the plan was made with.\n";

/* Read the plan once: its bytes give the hash the journal records. */
static int load_plan(const char *path, struct plan **ret, char hash[static HASH_HEX_LEN])
{
	struct s2c_error err = { 0 };
	_cleanup_free_ char *shown = shown_path(path);
	int r = shown ? plan_load_hashed(AT_FDCWD, path, shown, geteuid() == 0, ret, hash, &err)
		      : -ENOMEM;

	if (r == -EPERM) {
		log_error("%s", err.msg);
		return S2C_EXIT_PRIVILEGE;
	}
	if (r < 0) {
		log_error("invalid plan: %s", err.msg[0] ? err.msg : strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

static int open_plan_root(const struct plan *p, int *ret)
{
	struct s2c_error err = { 0 };
	bool host = false;
	int fd = scan_open_root(p->root, &host, &err);

	if (fd < 0) {
		log_error("%s", err.msg);
		return S2C_EXIT_FAILURE;
	}
	if (host != p->live) {
		(void)close(fd);
		log_error("the plan was made %s, but its root '%s' is %s now", p->live ?
			  "on the running system" : "for an image", p->root, host ?
			  "the running system" : "not the running system");
		return S2C_EXIT_FAILURE;
	}
	*ret = fd;
	return 0;
}

/*
 * Decide again, in the narrowed child, about the files @p changes, and refuse
 * the plan when it says anything else than the rules say now: a plan is a
 * file anyone with write access to it could have edited.
 */
static int redecide(struct s2c_ctx *ctx, const struct dbargs *dba, struct rules_db *db,
		    const struct plan *p, bool verbose)
{
	_cleanup_free_ const char **paths = calloc(p->n + 1, sizeof(char *));
	struct privsep_job job = { .dbargs = dba, .db = db, .ctx = ctx, .verbose = verbose };
	struct scanargs s;
	struct plan *fresh = NULL;
	char **problems = NULL, hash[HASH_HEX_LEN];
	bool incomplete = false;
	size_t k = 0;
	int ex, n;

	if (!paths)
		return S2C_EXIT_FAILURE;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].change)
			paths[k++] = p->v[i].path;
	if (!k)
		return 0;
	scanargs_init(&s, ctx, 0);
	s.root = p->root;
	s.paths = paths;
	job.scan = &s;
	ex = privsep_plan(&job, &fresh, hash, &incomplete);
	if (ex)
		return ex;
	n = plan_mismatches(p, fresh, &problems);
	plan_free(fresh);
	if (n < 0) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	for (int i = 0; i < n; i++)
		log_error("%s", problems[i]);
	strv_free(problems);
	if (n) {
		log_error("the plan does not match what the rules decide now (edited, or made with "
			  "other rules or --kernel): nothing was changed; make a new plan");
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

int cmd_apply(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct applyargs a;
	struct dbargs dba;
	struct opt opts[] = { OPT_TABLE(a.opts), OPT_TABLE(dba.opts), OPT_TABLE(a.format_opts),
			      OPT_END() };
	struct rules_db *db = NULL;
	struct plan *p = NULL;
	char hash[HASH_HEX_LEN];
	int first, ex, rootfd = -1;

	applyargs_init(&a);
	dbargs_init(&dba);
	ex = opts_parse(cmd_lookup("apply"), opts, apply_help, argc, argv, &first);
	if (ex || !first)
		return ex;
	ex = load_plan(argv[first], &p, hash);
	if (ex == 0)
		ex = open_plan_root(p, &rootfd);
	if (ex == 0)
		ex = applyargs_result_start(&a, "apply", p->root, false);
	if (ex == 0)
		ex = dbargs_load_root(&dba, p->root, &db);
	if (ex == 0)
		ex = redecide(ctx, &dba, db, p, a.verbose);
	if (ex == 0)
		ex = applyargs_apply(&a, rootfd, p, hash, &db->caps, NULL);
	ex = applyargs_result_finish(&a, p ? p->root : "/", ex);
	if (rootfd >= 0)
		(void)close(rootfd);
	rules_db_free(db);
	plan_free(p);
	return ex;
}

/* --- migrate ------------------------------------------------------------------------ */

static const char migrate_help[] =
	"Plan and apply in one step: scan, decide, show the changes, ask, apply.\n"
	"Without a terminal to ask on, --yes is required.\n";

/* @line on stdout, or as a notice on stderr when stdout carries a document. */
static void say(bool to_stderr, const char *line)
{
	if (!line)
		log_error("out of memory");
	else if (to_stderr)
		log_notice("%s", line);
	else
		print_line("%s", line);
}

/* The changes of @p, for people (on stderr with --format json). */
static void print_plan(const struct plan *p, bool to_stderr)
{
	size_t changes = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct plan_entry *e = &p->v[i];
		_cleanup_free_ char *line = NULL;

		if (!e->change)
			continue;
		changes++;
		line = strdup_printf("%-8s %s: %04o -> %04o, %s -> %s%s", verdict_name(e->verdict),
				     e->path, e->id.state.mode, e->after.mode,
				     e->before_names.caps_text ? e->before_names.caps_text :
				     "no capabilities",
				     e->after_names.caps_text ? e->after_names.caps_text :
				     "no capabilities",
				     e->disguise ? " (SETUID IN DISGUISE)" : "");
		say(to_stderr, line);
	}
	{
		size_t left = p->n - changes;
		_cleanup_free_ char *line = NULL;

		line = strdup_printf("%zu change%s, %zu file%s left as they are", changes,
				     changes == 1 ? "" : "s", left, left == 1 ? "" : "s");
		say(to_stderr, line);
	}
}

static bool plan_changes(const struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].change)
			return true;
	return false;
}

/* 1 yes, 0 no, -1 no terminal to ask on. */
static int confirm(void)
{
	char line[16];
	FILE *tty = fopen("/dev/tty", "r+e");

	if (!tty)
		return -1;
	(void)fputs("Apply these changes? [y/N] ", tty);
	(void)fflush(tty);
	if (!fgets(line, sizeof(line), tty)) {
		(void)fclose(tty);
		return 0;
	}
	(void)fclose(tty);
	return line[0] == 'y' || line[0] == 'Y';
}

/*
 * Ask the one at the terminal whether to apply (@ret_yes).  Returns an exit code:
 * S2C_EXIT_USAGE when there is no terminal to ask on (said on stderr).
 */
static int ask(bool *ret_yes)
{
	int answer = confirm();

	if (answer < 0) {
		log_error("no terminal to ask on: nothing changed; use --yes to apply without "
			  "asking");
		return S2C_EXIT_USAGE;
	}
	if (answer == 0)
		log_notice("nothing changed");
	*ret_yes = answer > 0;
	return S2C_EXIT_OK;
}

/* What an interrupted run left half done is undone before we look. */
static int recover_first(struct applyargs *a, const char *root)
{
	struct s2c_error err = { 0 };
	struct apply_result rec;
	bool host;
	int r, fd = scan_open_root(root, &host, &err);

	if (fd < 0) {
		log_error("%s", err.msg);
		return S2C_EXIT_USAGE;
	}
	a->root = root;
	/* Recovery changes files: a signal waits until it is done, then ends the run. */
	interrupt_hold();
	r = apply_recover(fd, root, geteuid() == 0, applyargs_report, a, &rec, &err);
	interrupt_release();
	(void)close(fd);
	if (r < 0)
		return error_exit(r, &err);
	return 0;
}

int cmd_migrate(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct scanargs s;
	struct dbargs dba;
	struct applyargs a;
	bool yes = false, dry = false, incomplete = false, go = false;
	struct opt opts[] = {
		OPT_TABLE(s.opts),
		OPT_TABLE(dba.opts),
		OPT_BOOL(0, "yes", &yes, "do not ask"),
		OPT_BOOL(0, "dry-run", &dry, "show the plan and stop"),
		OPT_TABLE(a.opts),
		OPT_TABLE(a.format_opts),
		OPT_END(),
	};
	struct rules_db *db = NULL;
	struct plan *p = NULL;
	char hash[HASH_HEX_LEN];
	int first, ex, rootfd = -1;

	scanargs_init(&s, ctx, SCANARGS_PLANNING);
	dbargs_init(&dba);
	applyargs_init(&a);
	ex = opts_parse(cmd_lookup("migrate"), opts, migrate_help, argc, argv, &first);
	if (ex || !first)
		return ex;
	if (scanargs_finish(&s, argc, argv, first, "migrate"))
		return S2C_EXIT_USAGE;
	if (dry && a.format == APPLYARGS_JSON)
		return usage_error("migrate", "--dry-run shows the plan for people; "
				   "'suid2cap plan' writes it as JSON");
	ex = applyargs_result_start(&a, "migrate", s.root, false);
	if (ex == 0 && !dry)
		ex = recover_first(&a, s.root);
	if (ex == 0)
		ex = dbargs_load_root(&dba, s.root, &db);
	if (ex == 0) {
		struct privsep_job job = { .dbargs = &dba, .db = db, .scan = &s, .ctx = ctx,
					   .verbose = a.verbose, .hold_unsafe = true,
					   .plan_limits = true };
		ex = privsep_plan(&job, &p, hash, &incomplete);
	}
	if (ex)
		goto out;
	/* With a document on stdout, the changes are shown only to the one asked. */
	if (!a.result || (!yes && plan_changes(p) && !incomplete))
		print_plan(p, a.result != NULL);
	if (dry || !plan_changes(p))
		goto out;
	if (incomplete) {
		log_error("the scan was incomplete (see the warnings): not applying");
		ex = S2C_EXIT_INCOMPLETE;
		goto out;
	}
	if (!yes && ((ex = ask(&go)) || !go))
		goto out;
	ex = open_plan_root(p, &rootfd);
	if (ex == 0)
		ex = applyargs_apply(&a, rootfd, p, hash, &db->caps, NULL);
out:
	ex = applyargs_result_finish(&a, s.root, ex);
	if (rootfd >= 0)
		(void)close(rootfd);
	rules_db_free(db);
	plan_free(p);
	return ex;
}

/* --- rollback ----------------------------------------------------------------------- */

static const char rollback_help[] =
	"Undo the changes of JOURNAL (with --last, the newest journal that has a\n"
	"change left to undo), restoring the exact previous owner, group, mode and\n"
	"capability bytes, but only onto the file the change left: the same inode,\n"
	"the same content (SHA-256) and the state the change gave it.  Safe to run\n"
	"again.\n";

/* "20261203T101112.123456789Z.journal" -> "2026-12-03 10:11:12Z" */
static void journal_time(const char *name, char *buf, size_t size)
{
	unsigned y, mo, d, h, mi, se;

	if (sscanf(name, "%4u%2u%2uT%2u%2u%2u", &y, &mo, &d, &h, &mi, &se) == 6)
		(void)snprintf(buf, size, "%04u-%02u-%02u %02u:%02u:%02uZ", y, mo, d, h, mi, se);
	else
		(void)snprintf(buf, size, "?");
}

static int list_journals(int rootfd, const char *root)
{
	struct journal_info *v = NULL;
	struct s2c_error err = { 0 };
	size_t n = 0;
	int r = journal_infos(rootfd, root, geteuid() == 0, &v, &n, &err);

	if (r < 0)
		return error_exit(r, &err);
	if (!n)
		(void)printf("no journals: nothing was ever applied here\n");
	else
		(void)printf("%-21s %7s %7s %6s %11s %5s  %s\n", "TIME", "ENTRIES", "APPLIED",
			     "UNDONE", "INTERRUPTED", "OTHER", "JOURNAL");
	for (size_t i = 0; i < n; i++) {
		char when[32];
		journal_time(v[i].name, when, sizeof(when));
		print_line("%-21s %7zu %7zu %6zu %11zu %5zu  %s%s%s", when, v[i].entries, v[i].applied,
			   v[i].undone, v[i].interrupted, v[i].other, v[i].name,
			   v[i].ended ? "" : " (run did not finish)",
			   v[i].root_equivalent ? " (root-equivalent sets accepted)" : "");
	}
	journal_infos_free(v, n);
	return S2C_EXIT_OK;
}

/*
 * Undo @journal (NULL: the newest with a change left) beneath @rootfd, @root as messages
 * name it.  Returns an exit code.
 */
static int undo_journal(struct applyargs *a, int rootfd, const char *root, const char *journal)
{
	struct rollback_options o = {
		.rootfd = rootfd, .root = root, .journal = journal, .trusted = geteuid() == 0,
		.only = a->only.n ? a->only.v : NULL, .fault = a->fault, .stop = interrupt_stop,
		.report = applyargs_report, .userdata = a,
	};
	struct apply_result res;
	struct s2c_error err = { 0 };
	int r;

	a->root = root;
	interrupt_hold();       /* a signal stops between two files, and ends the run at exit */
	r = rollback_run(&o, &res, &err);

	if (a->result)
		(void)resultjson_set_journal(a->result, res.journal);
	if (r < 0)
		return error_exit(r, &err);
	if (!a->result && !res.journal[0])
		(void)printf("nothing to roll back: every journal's changes are undone already\n");
	else if (!a->result)
		print_line("%zu restored, %zu could not be restored (journal %s)", res.restored,
			   res.not_restored, res.journal);
	return res.not_restored ? S2C_EXIT_FAILURE : S2C_EXIT_OK;
}

int cmd_rollback(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct applyargs a;
	const char *root = "/", *journal = NULL;
	bool last = false, list = false, host = false;
	struct opt opts[] = {
		OPT_STRING(0, "root", &root, "DIR", "the root whose state directory holds the "
			   "journal"),
		{ .kind = OPT_KIND_BOOL, .long_name = "last", .value = &last, .excl = 1,
		  .help = "the newest journal with a change left to undo" },
		{ .kind = OPT_KIND_BOOL, .long_name = "list", .value = &list, .excl = 1,
		  .help = "list the journals: time, entries, what is still applied" },
		OPT_TABLE(a.undo_opts),
		OPT_TABLE(a.format_opts),
		OPT_END(),
	};
	struct s2c_error err = { 0 };
	_cleanup_free_ char *shown_root = NULL;
	int first, r, rootfd;

	(void)ctx;
	applyargs_init(&a);
	r = opts_parse(cmd_lookup("rollback"), opts, rollback_help, argc, argv, &first);
	if (r || !first)
		return r;
	if (list && (first < argc || a.only.n || a.format == APPLYARGS_JSON))
		return usage_error("rollback", "--list takes no JOURNAL, --only or --format json");
	if (!list && (first < argc) == last)
		return usage_error("rollback", "expected a JOURNAL, --last or --list");
	if (first < argc) {
		journal = strrchr(argv[first], '/') ? strrchr(argv[first], '/') + 1 : argv[first];
		if (!*journal)
			return usage_error("rollback", "invalid journal name '%s'", argv[first]);
	}
	if (s2c_isempty(root))
		return usage_error("rollback", "--root needs a directory");
	shown_root = shown_path(root);
	if (!shown_root) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	rootfd = scan_open_root(root, &host, &err);
	if (rootfd < 0) {
		log_error("%s", err.msg);
		return S2C_EXIT_USAGE;
	}
	r = applyargs_result_start(&a, "rollback", root, false);
	if (r == 0) {
		/* Restoring needs chown and the set-ID bits back; it runs nothing, so
		 * the bounding set goes and no_new_privs is set. */
		r = privs_restrict(list ? S2C_CAPMASK(CAP_DAC_READ_SEARCH) : PRIVS_ROLLBACK, 0,
				   NULL);
	}
	if (r == 0)
		r = list ? list_journals(rootfd, shown_root)
			 : undo_journal(&a, rootfd, shown_root, journal);
	(void)close(rootfd);
	return applyargs_result_finish(&a, root, r);
}
