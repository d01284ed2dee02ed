/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap audit: the report of every privileged file with its verdict,
 * evidence and risk, as text, JSON, Markdown, HTML or SARIF, and an exit
 * status a CI job can gate on (--fail-on).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "auditargs.h"
#include "cli.h"
#include "dbargs.h"
#include "decide.h"
#include "engine.h"
#include "host.h"
#include "identity.h"
#include "learned.h"
#include "scan.h"
#include "scanargs.h"
#include "spill.h"
#include "util.h"
#include "waiver.h"
#include "common.h"

static const char intro[] =
	"Audit every setuid, setgid and capability-carrying file: the verdict about each\n"
	"(migrate, drop, keep, review), the capabilities it needs, the evidence and the\n"
	"risk, as a report for people or machines.  Past 4 MiB, the decided files wait\n"
	"in an unnamed file in $TMPDIR (else /tmp).\n"
	"\f"
	"Exit status: 0 success, 1 --fail-on matched, 2 usage error, 3 incomplete scan\n"
	"(wins over 1), 4 operation failed, 5 privilege error.\n";

struct audit_args {
	struct scanargs s;
	struct dbargs db;
	struct auditargs out;
};

/* Returns an exit code; @ret_done is set when nothing is left to do (--help). */
static int parse_argv(int argc, char **argv, struct audit_args *a, const struct s2c_ctx *ctx,
		      bool *ret_done)
{
	struct opt opts[] = {
		OPT_TABLE(a->s.opts),
		OPT_TABLE(a->db.opts),
		OPT_TABLE(a->out.opts),
		OPT_END(),
	};
	int r, first;

	scanargs_init(&a->s, ctx, 0);
	dbargs_init(&a->db);
	auditargs_init(&a->out, AUDITARGS_TREE);
	r = opts_parse(cmd_lookup("audit"), opts, intro, argc, argv, &first);
	*ret_done = r || !first;
	if (r || !first)
		return r;
	if (auditargs_check(&a->out, "audit"))
		return S2C_EXIT_USAGE;
	return scanargs_finish(&a->s, argc, argv, first, "audit") ? S2C_EXIT_USAGE : 0;
}

int cmd_audit(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct audit_args a = { 0 };
	struct scan_result *res = NULL;
	struct s2c_error err = { 0 };
	struct decide_stream ds = { .err = &err, .each = learned_add };
	struct identity id;
	struct audit au;
	struct learned *learned = NULL;
	_cleanup_(spill_freep) struct spill *files = NULL;
	struct waiver_list waivers = { 0 };
	bool any_waivers = false;
	_cleanup_free_ char *pgr = NULL, *wfile = NULL;
	char root_abs[PATH_MAX];
	bool done = false;
	int ex, r;

	ex = parse_argv(argc, argv, &a, ctx, &done);
	if (ex || done)
		return ex;
	if (!realpath(a.s.root, root_abs)) {
		log_error("cannot resolve root '%s': %s", a.s.root, strerror(errno));
		return S2C_EXIT_USAGE;
	}
	/* Each file decided is kept as a record, not in memory, and the learn records
	 * are looked up as they go: what the audit holds does not grow with the files. */
	r = spill_new(tmp_dir(), CLI_RECORDS_MEMORY, &files);
	if (r < 0) {
		log_error("%s", strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	learned = learned_open(a.s.root);
	ds.spill = files;
	ds.userdata = learned;
	ex = decide_scan_stream(&a.db, &a.s, ctx, &res, &ds);
	if (ex) {
		decide_stream_release(&ds);
		learned_close(learned);
		return ex;
	}
	/* The target's own waivers and the user's, before anything is written. */
	wfile = s2c_streq(res->root, "/") ? strdup(AUDITARGS_WAIVERS_FILE) :
					     path_join(res->root, AUDITARGS_WAIVERS_FILE);
	ex = wfile ? auditargs_waivers(&a.out, res->rootfd, wfile, &waivers, &any_waivers) :
		     S2C_EXIT_FAILURE;
	if (ex) {
		waiver_list_release(&waivers);
		decide_stream_release(&ds);
		learned_close(learned);
		scan_result_free(res);
		return ex;
	}
	(void)host_sysctl(ds.ds.host, "net.ipv4.ping_group_range", &pgr);
	identity_init(&id, res->rootfd, res->host, NULL);
	id.id.label = a.out.label;
	au = (struct audit){
		.root = res->root,
		.paths = a.s.paths,
		.root_abs = root_abs,
		.complete = res->warnings == 0,
		.scan_warnings = res->warnings,
		.directories = res->stats.dirs,
		.entries = res->stats.files,
		.not_scanned = res->skipped,
		.n_not_scanned = res->n_skipped,
		.db = ds.db,
		.host = ds.ds.host,
		.ping_group_range = pgr,
		.files = files,
		.n = ds.n,
		.argv = (const char *const *)argv,
		.learned_of = learned ? learned_find : NULL,
		.learned_userdata = learned,
		.identity = &id.id,
		.waivers = any_waivers ? &waivers : NULL,
	};
	ex = auditargs_write(&a.out, &au, ctx, res->warnings > 0);
	waiver_list_release(&waivers);
	identity_release(&id);
	learned_close(learned);
	decide_stream_release(&ds);
	scan_result_free(res);
	return ex;
}
