/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap plan: the dry-run plan of a migration, as JSON, a shell script or
 * packaging snippets; and `plan --check PLAN`, the strict check of a plan file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cli.h"
#include "dbargs.h"
#include "emit.h"
#include "jsonout.h"
#include "jsonread.h"
#include "engine.h"
#include "outfile.h"
#include "parents.h"
#include "plan.h"
#include "planload.h"
#include "scan.h"
#include "scanargs.h"
#include "util.h"
#include "common.h"

static const char intro[] =
	"Plan the migration of every setuid, setgid and capability file (or of each\n"
	"PATH): for each file its identity, the state before and after, the verdict\n"
	"and why.  Nothing is changed.  --check reads a plan back and reports every\n"
	"problem in it.\n";

struct plan_args {
	struct scanargs s;
	struct dbargs db;
	int format;
	const char *output;
	const char *check;
	bool timestamp;
	bool format_set;
};

/* --check reads a plan: the options that make one are not for it. */
static int check_exclusive(const struct plan_args *a, int argc, int first)
{
	static const char *const not_with_check[] = { "--format", "--output", "--timestamp",
						      "--kernel", "--bounding-set", "--exclude",
						      "--include-unpackaged", "a PATH" };
	const bool used[] = { a->format_set && a->format != EMIT_JSON, a->output != NULL, a->timestamp,
			      a->db.kernel != NULL, a->db.has_bounding, a->s.n_exclude > 0,
			      a->s.include_unpackaged, first < argc };

	if (!a->check)
		return 0;
	for (size_t i = 0; i < S2C_ELEMENTSOF(used); i++)
		if (used[i])
			return usage_error("plan", "--check cannot be combined with %s",
					   not_with_check[i]);
	return 0;
}

static int opt_format(const struct opt *o, const char *arg, const char *verb)
{
	struct plan_args *a = o->value;

	a->format = emit_format_from_name(arg);
	a->format_set = true;
	if (a->format < 0)
		return usage_error(verb, "unknown format '%s': expected json, sh, rpm, deb, "
				   "deb-postrm or permissions", arg);
	return 0;
}

static int opt_check(const struct opt *o, const char *arg, const char *verb)
{
	struct plan_args *a = o->value;

	if (s2c_isempty(arg))
		return usage_error(verb, "--check needs a plan file");
	a->check = arg;
	return 0;
}

/* Returns an exit code; @ret_done is set when nothing is left to do (--help). */
static int parse_argv(int argc, char **argv, struct plan_args *a, const struct s2c_ctx *ctx,
		      bool *ret_done)
{
	struct opt opts[] = {
		OPT_TABLE(a->s.opts),
		OPT_TABLE(a->db.opts),
		OPT_CALLBACK("format", a, "FMT", "json (default), sh (a script that carries the "
			     "plan out),\nrpm (%files lines), deb (a postinst), deb-postrm "
			     "(its postrm),\npermissions (openSUSE)", opt_format),
		OPT_STRING('o', "output", &a->output, "FILE", "write to FILE instead of standard "
			   "output"),
		OPT_BOOL(0, "timestamp", &a->timestamp, "record when the plan was made (the plan "
			 "is otherwise\nbyte-identical for the same system)"),
		OPT_CALLBACK("check", a, "PLAN", "check the plan file PLAN strictly, the privilege "
			     "order\nincluded; as root, also refuse a file not owned by\nroot or "
			     "writable by group or others; with --format\njson, one document with "
			     "every problem as\n{file, path, message}", opt_check),
		OPT_END(),
	};
	int r, first;

	scanargs_init(&a->s, ctx, SCANARGS_PLANNING);
	dbargs_init(&a->db);
	r = opts_parse(cmd_lookup("plan"), opts, intro, argc, argv, &first);
	*ret_done = r || !first;
	if (r || !first)
		return r;
	if (check_exclusive(a, argc, first))
		return S2C_EXIT_USAGE;
	if (a->check)
		return 0;
	return scanargs_finish(&a->s, argc, argv, first, "plan") ? S2C_EXIT_USAGE : 0;
}

/* --- plan --check ---------------------------------------------------------------------- */

/* "PLAN: valid plan of 8 entries for /: 5 to change (5 migrate, 0 drop), 3 unchanged; ..." */
static void print_valid(const char *path, const struct plan *p)
{
	size_t migrate = 0, drop = 0;
	struct plan_summary s;

	plan_summarise(p, &s);
	for (size_t i = 0; i < p->n; i++) {
		migrate += p->v[i].change && p->v[i].verdict == VERDICT_MIGRATE;
		drop += p->v[i].change && p->v[i].verdict == VERDICT_DROP;
	}
	print_line("%s: valid plan of %zu entr%s for %s: %zu to change (%zu migrate, %zu drop), "
		   "%zu unchanged; database %.12s", path, p->n, p->n == 1 ? "y" : "ies",
		   p->root, s.change, migrate, drop, s.unchanged, p->db_hash);
}

/*
 * The privilege order on the plan's own states; the plan's risk fields are not used.
 * Each problem is printed, or with @jc (--format json) recorded there.
 */
static int check_privilege(const char *path, const struct plan *p, const struct dbargs *dba,
			   struct jcheck *jc)
{
	struct rules_db *db = NULL;
	char **problems = NULL;
	size_t disguised = 0;
	int n, ex = dbargs_load(dba, &db);

	if (ex)
		return ex;
	n = plan_privilege_problems(p, &db->caps, &problems, &disguised);
	rules_db_free(db);
	if (n < 0) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *msg = jc ? strdup_printf("%s: %s", path, problems[i]) : NULL;

		if (jc && msg)
			jcheck_record(jc, path, NULL, msg);
		else if (!jc)
			log_error("%s: %s", path, problems[i]);
		else
			jc->oom = true;
	}
	strv_free(problems);
	if (disguised)
		log_warning("%s: %zu change%s set%s a root-equivalent capability set (setuid in "
			    "disguise): apply refuses %s without --allow-root-equivalent", path,
			    disguised, disguised == 1 ? "" : "s", disguised == 1 ? "s" : "",
			    disguised == 1 ? "it" : "them");
	if (n && !jc)
		log_notice("'%s' is not a valid plan: %d change%s grant%s more than the file has", path,
			   n, n == 1 ? "" : "s", n == 1 ? "s" : "");
	return n ? S2C_EXIT_FINDINGS : S2C_EXIT_OK;
}

/* Every problem of a plan as {file, path, message}; path null for the document as a whole. */
static struct json_object *problems_json(const struct jcheck_problems *pr)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < pr->n; i++) {
		struct json_object *o = json_object_new_object();

		if (jsonout_push(a, o) < 0 || jsonout_add_name(o, "file", pr->v[i].file) < 0 ||
		    jsonout_add_name(o, "path", pr->v[i].path) < 0 ||
		    jsonout_add_string(o, "message", pr->v[i].message) < 0) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/* `plan --check --format json`: one document on standard output.  Returns an exit code. */
static int write_check_json(const char *shown, const struct jcheck_problems *pr, bool valid)
{
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();

	if (!doc || jsonout_add_string(doc, "kind", "suid2cap-plan-check") < 0 ||
	    jsonout_add_int(doc, "schema", 1) < 0 || jsonout_add_name(doc, "file", shown) < 0 ||
	    jsonout_add_bool(doc, "valid", valid) < 0 ||
	    jsonout_add(doc, "problems", problems_json(pr)) < 0 ||
	    jsonout_add_int(doc, "problems_not_shown", (int64_t)pr->dropped) < 0) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	if (jsonout_write(doc, stdout) < 0) {
		log_error("cannot write the check of '%s': %s", shown, strerror(EIO));
		return S2C_EXIT_FAILURE;
	}
	return valid ? S2C_EXIT_OK : S2C_EXIT_FINDINGS;
}

/* The problems the loader found, on standard error, one "file: $.path: message" each. */
static void print_problems(const char *shown, const struct jcheck_problems *pr)
{
	size_t n = pr->n + pr->dropped;

	for (size_t i = 0; i < pr->n; i++) {
		if (pr->v[i].path)
			log_error("%s: %s: %s", pr->v[i].file, pr->v[i].path, pr->v[i].message);
		else
			log_error("%s", pr->v[i].message);
	}
	if (pr->dropped)
		log_error("%s: %zu more problems not shown", shown, pr->dropped);
	log_notice("'%s' is not a valid plan: %zu problem%s", shown, n, n == 1 ? "" : "s");
}

static int run_check(const char *path, const struct dbargs *dba, bool json)
{
	struct jcheck_problems problems = { 0 };
	struct jcheck jc = { .out = &problems };
	struct s2c_error err = { 0 };
	struct plan *p = NULL;
	_cleanup_free_ char *shown = shown_path(path);
	int r;

	if (!shown) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	/* The verb runs with at most CAP_DAC_READ_SEARCH; a root caller acts on plans, so a
	 * plan it checks must be as safe to trust as one it would apply. */
	r = plan_load_all(AT_FDCWD, path, shown, geteuid() == 0, &p, &problems, &err);
	if (r == -EINVAL && problems.n) {
		if (json)
			r = write_check_json(shown, &problems, false);
		else
			print_problems(shown, &problems);
		jcheck_problems_release(&problems);
		return json ? r : S2C_EXIT_FINDINGS;
	}
	if (r < 0) {
		jcheck_problems_release(&problems);
		return error_exit(r, &err);
	}
	r = check_privilege(shown, p, dba, json ? &jc : NULL);
	if (json && jc.oom) {
		log_error("out of memory");
		r = S2C_EXIT_FAILURE;
	} else if (json && (r == S2C_EXIT_OK || r == S2C_EXIT_FINDINGS)) {
		r = write_check_json(shown, &problems, problems.n == 0);
	} else if (r == 0) {
		print_valid(shown, p);
	}
	jcheck_problems_release(&problems);
	plan_free(p);
	return r;
}

/* --- plan ------------------------------------------------------------------------------ */

/* The root as an absolute path, so the plan (and the script's ROOT) means the same
 * directory wherever it is used. */
static char *absolute_root(const char *root)
{
	char buf[PATH_MAX];

	if (s2c_streq(root, "/"))
		return strdup("/");
	if (!realpath(root, buf))
		return NULL;
	return strdup(buf);
}

static int set_timestamp(struct plan *p)
{
	char buf[32];
	struct tm tm;
	time_t now = time(NULL);

	if (now == (time_t)-1 || !gmtime_r(&now, &tm) ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return -EIO;
	p->created = strdup(buf);
	return p->created ? 0 : -ENOMEM;
}

void cmd_plan_warn_held(void *userdata, const struct plan_entry *e, const char *why)
{
	const char *root = userdata;

	/* The file and the directory in @why are beneath the root: name it. */
	if (root && !s2c_streq(root, "/"))
		log_warning("cannot change '%s' beneath the root '%s' safely: %s, skipping", e->path,
			    root, why);
	else
		log_warning("cannot change '%s' safely: %s, skipping", e->path, why);
}

static int build(const struct plan_args *a, const struct decisions *ds,
		 const struct scan_result *res, struct plan **ret)
{
	_cleanup_free_ char *root = absolute_root(res->root);
	struct s2c_error err = { 0 };
	int r;

	if (!root) {
		log_error("cannot resolve root '%s': %s", res->root, strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	r = plan_build((const struct decision *const *)ds->v, ds->n, ds->host, ds->db, root,
		       res->host, ret, &err);
	/* What apply would refuse is held back now, and says why. */
	if (r == 0)
		r = parents_check(*ret, res->rootfd, cmd_plan_warn_held, res->root);
	if (r >= 0 && a->timestamp)
		r = set_timestamp(*ret);
	if (r < 0) {
		log_error("cannot make the plan: %s", err.msg[0] ? err.msg : strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	return scanargs_plan_limits(&a->s, res, ds->host, *ret);
}

static int write_plan(const struct plan_args *a, const struct plan *p, const struct rules_db *db)
{
	struct outfile out;
	int r, ex;

	ex = outfile_open(&out, a->output);
	if (ex)
		return ex;
	r = emit_plan(p, a->format, db, out.f);
	if (r < 0)
		log_error("cannot write the plan: %s", strerror(-r));
	ex = outfile_close(&out, r == 0);
	return r < 0 || ex ? S2C_EXIT_FAILURE : 0;
}

int cmd_plan(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct plan_args a = { .format = EMIT_JSON };
	struct scan_result *res = NULL;
	struct plan *p = NULL;
	struct decisions ds;
	bool done = false;
	int ex;

	ex = parse_argv(argc, argv, &a, ctx, &done);
	if (ex || done)
		return ex;
	if (a.check)
		return run_check(a.check, &a.db, a.format_set && a.format == EMIT_JSON);
	ex = decide_scan(&a.db, &a.s, ctx, &res, &ds);
	if (ex)
		return ex;
	ex = build(&a, &ds, res, &p);
	if (!ex)
		ex = write_plan(&a, p, ds.db);
	if (!ex && res->warnings)
		ex = S2C_EXIT_INCOMPLETE;
	plan_free(p);
	decisions_release(&ds);
	scan_result_free(res);
	return ex;
}
