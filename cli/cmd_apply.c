/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap apply PLAN, migrate, rollback: carry out a plan safely, or undo it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
#include "facts.h"
#include "hash.h"
#include "jsonout.h"
#include "jsonread.h"
#include "plan.h"
#include "planload.h"
#include "privs.h"
#include "scan.h"
#include "scanargs.h"
#include "util.h"
#include "common.h"

#define APPLY_OPTIONS \
	{ "only", required_argument, NULL, ARG_ONLY }, \
	{ "no-smoke", no_argument, NULL, ARG_NO_SMOKE }, \
	{ "smoke", no_argument, NULL, ARG_SMOKE }, \
	{ "smoke-user", required_argument, NULL, ARG_SMOKE_USER }, \
	{ "smoke-timeout", required_argument, NULL, ARG_SMOKE_TIMEOUT }, \
	{ "allow-hardlinks", no_argument, NULL, ARG_ALLOW_HARDLINKS }, \
	{ "fault", required_argument, NULL, ARG_FAULT }, \
	{ "quiet", no_argument, NULL, ARG_QUIET }, \
	{ "verbose", no_argument, NULL, ARG_VERBOSE }

static const char apply_help[] =
	"Carry out PLAN (from 'suid2cap plan'): for each entry to change, check the\n"
	"file is still what the plan saw, journal its exact state, set the\n"
	"capabilities, clear the set-ID bits, read back, run the smoke test as an\n"
	"unprivileged user and undo the change when it fails.\n"
	"\n"
	"  --only PATH          only this entry (repeatable)\n"
	"  --no-smoke           do not run smoke tests\n"
	"  --smoke              run smoke tests for an image root too (default: live root only)\n"
	"  --smoke-user USER    run smoke tests as USER (default: nobody)\n"
	"  --smoke-timeout S    time limit of a smoke test (default: 10 seconds)\n"
	"  --allow-hardlinks    change files with more than one hard link\n"
	"  --quiet              print only problems and the summary when there are problems\n"
	"  --verbose            also print the capabilities the run keeps\n";

/* Read the plan once: its bytes give the hash the journal records. */
static int load_plan(const char *path, struct plan **ret, char hash[static HASH_HEX_LEN])
{
	_cleanup_free_ char *buf = NULL;
	struct json_object *doc = NULL;
	struct s2c_error err = { 0 };
	uint32_t uid, mode;
	size_t len;
	int r;

	r = jsonread_slurp(AT_FDCWD, path, path, &buf, &len, &uid, &mode, &err);
	if (r < 0) {
		log_error("%s", err.msg);
		return S2C_EXIT_FAILURE;
	}
	if (geteuid() == 0 && (uid != 0 || (mode & (S_IWGRP | S_IWOTH)))) {
		log_error("plan '%s' is not owned by root or is writable by group or others, refusing it",
			  esc(path));
		return S2C_EXIT_PRIVILEGE;
	}
	if (hash_mem_sha256(buf, len, hash) < 0)
		return S2C_EXIT_FAILURE;
	r = jsonread_parse_mem(buf, len, path, &doc, &err);
	if (r == 0)
		r = plan_from_json(doc, path, ret, &err);
	json_object_put(doc);
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
			  "on the running system" : "for an image", esc(p->root), host ?
			  "the running system" : "not the running system");
		return S2C_EXIT_FAILURE;
	}
	*ret = fd;
	return 0;
}

int cmd_apply(int argc, char **argv, struct s2c_ctx *ctx)
{
	static const struct option opts[] = { APPLY_OPTIONS, { "help", no_argument, NULL, 'h' }, { 0 } };
	struct applyargs a;
	struct plan *p = NULL;
	char hash[HASH_HEX_LEN];
	int c, r, ex, rootfd;

	(void)ctx;
	applyargs_init(&a);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if ((r = applyargs_option(&a, c, optarg, "apply"))) {
			if (r < 0)
				return -r;
			continue;
		}
		if (c == 'h') {
			cmd_print_usage(cmd_lookup("apply"), stdout);
			(void)fputs(apply_help, stdout);
			return S2C_EXIT_OK;
		}
		return usage_error("apply", "unknown or incomplete option '%s'", argv[optind - 1]);
	}
	if (optind != argc - 1)
		return usage_error("apply", "expected exactly one PLAN file");
	ex = load_plan(argv[optind], &p, hash);
	if (ex)
		return ex;
	ex = open_plan_root(p, &rootfd);
	if (ex == 0) {
		ex = applyargs_apply(&a, rootfd, p, hash, "apply");
		(void)close(rootfd);
	}
	plan_free(p);
	return ex;
}

/* --- migrate ------------------------------------------------------------------------ */

static const char migrate_help[] =
	"Plan and apply in one step: scan, decide, show the changes, ask, apply.\n"
	"\n"
	"  --root DIR       the system root (an image or chroot)\n"
	"  --db DIR         add a rules directory\n"
	"  --kernel VER     evaluate kernel conditions for VER\n"
	"  --yes            do not ask\n"
	"  --dry-run        show the plan and stop\n"
	"  --exclude PATH, --other-roots, --include-unpackaged   as for plan\n"
	"  and the options of 'apply' (--only, --no-smoke, --smoke, --smoke-user, …)\n";

static void print_plan(const struct plan *p)
{
	size_t changes = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct plan_entry *e = &p->v[i];
		if (!e->change)
			continue;
		changes++;
		(void)printf("%-8s %s: %04o -> %04o, %s -> %s%s\n", verdict_name(e->verdict),
			     esc(e->path), e->before.mode, e->after.mode,
			     e->before.caps_text ? e->before.caps_text : "no capabilities",
			     e->after.caps_text ? e->after.caps_text : "no capabilities",
			     e->disguise ? " (SETUID IN DISGUISE)" : "");
	}
	(void)printf("%zu change%s, %zu file%s left as they are\n", changes, changes == 1 ? "" : "s",
		     p->n - changes, p->n - changes == 1 ? "" : "s");
}

static bool confirm(void)
{
	char line[16];
	FILE *tty = fopen("/dev/tty", "r+e");

	if (!tty)
		return false;
	(void)fputs("Apply these changes? [y/N] ", tty);
	(void)fflush(tty);
	if (!fgets(line, sizeof(line), tty)) {
		(void)fclose(tty);
		return false;
	}
	(void)fclose(tty);
	return line[0] == 'y' || line[0] == 'Y';
}

int cmd_migrate(int argc, char **argv, struct s2c_ctx *ctx)
{
	static const struct option opts[] = {
		SCANARGS_OPTIONS, DBARGS_OPTIONS, APPLY_OPTIONS,
		{ "yes", no_argument, NULL, ARG_YES },
		{ "dry-run", no_argument, NULL, ARG_DRY_RUN },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct scanargs s;
	struct dbargs db = { 0 };
	struct applyargs a;
	struct scan_result *res = NULL;
	struct decisions ds = { 0 };
	struct plan *p = NULL;
	struct s2c_error err = { 0 };
	bool yes = false, dry = false;
	char hash[HASH_HEX_LEN];
	int c, r, ex;

	scanargs_init(&s, ctx);
	applyargs_init(&a);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if ((r = scanargs_option(&s, c, optarg, "migrate")) ||
		    (r = dbargs_option(&db, c, optarg, "migrate")) ||
		    (r = applyargs_option(&a, c, optarg, "migrate"))) {
			if (r < 0)
				return -r;
			continue;
		}
		switch (c) {
		case 'h':
			cmd_print_usage(cmd_lookup("migrate"), stdout);
			(void)fputs(migrate_help, stdout);
			return S2C_EXIT_OK;
		case ARG_YES: yes = true; break;
		case ARG_DRY_RUN: dry = true; break;
		default:
			return usage_error("migrate", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	r = scanargs_finish(&s, argc, argv, optind, "migrate");
	if (r < 0)
		return -r;
	if (!dry) {
		/* What an interrupted run left half done is undone before we look. */
		struct apply_result rec;
		bool host;
		int fd = scan_open_root(s.root, &host, &err);
		if (fd < 0) {
			log_error("%s", err.msg);
			return S2C_EXIT_USAGE;
		}
		r = apply_recover(fd, geteuid() == 0, applyargs_report, NULL, &rec, &err);
		(void)close(fd);
		if (r < 0) {
			log_error("%s", err.msg[0] ? err.msg : strerror(-r));
			return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
		}
	}
	ex = decide_scan(&db, &s, ctx, &res, &ds);
	if (ex)
		return ex;
	r = plan_build((const struct decision *const *)ds.v, ds.n, ds.host, ds.db, res->root,
		       res->host, &p, &err);
	if (r < 0) {
		log_error("cannot make the plan: %s", err.msg[0] ? err.msg : strerror(-r));
		ex = S2C_EXIT_FAILURE;
		goto out;
	}
	if ((ex = scanargs_plan_limits(&s, res, ds.host, p)))
		goto out;
	print_plan(p);
	if (dry)
		goto out;
	if (res->warnings) {
		log_error("the scan was incomplete (see the warnings): not applying");
		ex = S2C_EXIT_INCOMPLETE;
		goto out;
	}
	if (!yes && !confirm()) {
		log_notice("nothing changed (answer 'y', or use --yes)");
		goto out;
	}
	{
		_cleanup_jsonput_ struct json_object *doc = plan_to_json(p);
		const char *text = doc ? json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY) : NULL;
		if (!text || hash_mem_sha256(text, strlen(text), hash) < 0) {
			ex = S2C_EXIT_FAILURE;
			goto out;
		}
	}
	ex = applyargs_apply(&a, res->rootfd, p, hash, "migrate");
out:
	plan_free(p);
	decisions_release(&ds);
	scan_result_free(res);
	return ex;
}

/* --- rollback ----------------------------------------------------------------------- */

static const char rollback_help[] =
	"Undo the changes of a journal (the newest with --last), restoring the exact\n"
	"previous owner, group, mode and capability bytes.  Safe to run again.\n"
	"\n"
	"  --root DIR       the root whose state directory holds the journal\n"
	"  --last           the newest journal\n"
	"  --only PATH      only this file (repeatable)\n";

int cmd_rollback(int argc, char **argv, struct s2c_ctx *ctx)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "last", no_argument, NULL, ARG_LAST },
		{ "only", required_argument, NULL, ARG_ONLY },
		{ "fault", required_argument, NULL, ARG_FAULT },
		{ "quiet", no_argument, NULL, ARG_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct applyargs a;
	struct rollback_options o = { .trusted = geteuid() == 0 };
	struct apply_result res;
	struct s2c_error err = { 0 };
	const char *root = "/", *journal = NULL;
	bool last = false, host = false;
	int c, r, rootfd;

	(void)ctx;
	applyargs_init(&a);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c != 'r' && c != ARG_LAST && c != 'h' && (r = applyargs_option(&a, c, optarg, "rollback"))) {
			if (r < 0)
				return -r;
			continue;
		}
		switch (c) {
		case 'h':
			cmd_print_usage(cmd_lookup("rollback"), stdout);
			(void)fputs(rollback_help, stdout);
			return S2C_EXIT_OK;
		case 'r': root = optarg; break;
		case ARG_LAST: last = true; break;
		default:
			return usage_error("rollback", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc - 1 || (optind == argc - 1) == last)
		return usage_error("rollback", "expected a JOURNAL or --last");
	if (optind == argc - 1) {
		journal = strrchr(argv[optind], '/') ? strrchr(argv[optind], '/') + 1 : argv[optind];
		if (!*journal)
			return usage_error("rollback", "invalid journal name '%s'", esc(argv[optind]));
	}
	rootfd = scan_open_root(root, &host, &err);
	if (rootfd < 0) {
		log_error("%s", err.msg);
		return S2C_EXIT_USAGE;
	}
	/* Restoring needs chown and the set-ID bits back; no smoke tests. */
	r = privs_restrict(applyargs_caps(NULL, false) | S2C_CAPMASK(CAP_CHOWN), PRIVS_KEEP_BOUNDING);
	if (r < 0) {
		(void)close(rootfd);
		log_error("cannot restrict privileges: %s", strerror(-r));
		return S2C_EXIT_PRIVILEGE;
	}
	o.rootfd = rootfd;
	o.journal = journal;
	o.only = a.n_only ? a.only : NULL;
	o.fault = a.fault;
	o.report = applyargs_report;
	r = rollback_run(&o, &res, &err);
	(void)close(rootfd);
	if (r < 0) {
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
	}
	(void)printf("%zu restored, %zu could not be restored (journal %s)\n", res.restored,
		     res.not_restored, res.journal);
	return res.not_restored ? S2C_EXIT_FAILURE : S2C_EXIT_OK;
}
