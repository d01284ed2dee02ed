/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap rules lint [DIR...] | rules list: check and show the database.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cli.h"
#include "db.h"
#include "dbargs.h"
#include "jsonout.h"
#include "lint.h"
#include "override.h"
#include "util.h"
#include "common.h"

static const char intro[] =
	"  rules lint [DIR ...]   check the database strictly and report every problem:\n"
	"                         unknown keys, bad capabilities, duplicate ids, bad\n"
	"                         globs, an area that is not the file name, overlapping\n"
	"                         rules, overrides of unknown rules, and migrations to\n"
	"                         root-equivalent or dangerous sets without\n"
	"                         accepted_risk; with DIRs, check those directories\n"
	"                         layered in order on the bundled table\n"
	"  rules list             list the rules of the layered database and the local\n"
	"                         overrides of their verdicts\n";

static const char *const formats[] = { "text", "json", NULL };

static int lint(int argc, char **argv)
{
	struct rules_layer layers[66];
	struct rules_db *db = NULL;
	struct rules_problems problems = { 0 };
	struct s2c_error err = { 0 };
	size_t n = 0;
	bool caps = false;
	int r, ex;

	if (argc > 64)
		return usage_error("rules", "too many directories");
	for (int i = 0; i < argc; i++) {
		char probe[4096];
		struct stat st;

		/* A directory named on the command line must exist: linting the bundled
		 * database instead would report "no problems" about something else. */
		if (stat(argv[i], &st) < 0) {
			log_error("cannot lint '%s': %s", argv[i], strerror(errno));
			return S2C_EXIT_USAGE;
		}
		if (!S_ISDIR(st.st_mode)) {
			log_error("cannot lint '%s': not a directory", argv[i]);
			return S2C_EXIT_USAGE;
		}
		(void)snprintf(probe, sizeof(probe), "%s/capabilities.json", argv[i]);
		caps |= fstatat(AT_FDCWD, probe, &st, AT_SYMLINK_NOFOLLOW) == 0;
	}
	if (argc == 0 || !caps)   /* the capability table to check against */
		layers[n++] = (struct rules_layer){ .dir = dbargs_bundled_dir(), .dirfd = -1 };
	if (argc == 0)
		layers[n++] = (struct rules_layer){ .dir = S2C_SYSCONF_DBDIR, .dirfd = -1,
						    .optional = true };
	for (int i = 0; i < argc; i++)
		layers[n++] = (struct rules_layer){ .dir = argv[i], .dirfd = -1 };
	r = rules_db_load_layers(layers, n,
				 RULES_LOAD_NO_OVERLAP | (geteuid() == 0 ? RULES_LOAD_TRUSTED : 0),
				 &problems, &db, &err);
	if (r == 0)
		r = lint_rules(db, &problems);
	if (r < 0) {
		rules_problems_release(&problems);
		rules_db_free(db);
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return r == -ENOMEM ? S2C_EXIT_FAILURE : S2C_EXIT_FINDINGS;
	}
	/* in file and path order, whichever check found them */
	if (problems.n)
		qsort(problems.v, problems.n, sizeof(*problems.v), strv_cmp);
	for (size_t i = 0; i < problems.n; i++)
		log_error("%s", problems.v[i]);
	if (problems.n) {
		(void)printf("%zu problem%s in %zu rules and %zu override%s in %zu files\n",
			     problems.n, problems.n == 1 ? "" : "s", db->n, db->n_overrides,
			     db->n_overrides == 1 ? "" : "s", db->n_files);
		ex = S2C_EXIT_FINDINGS;
	} else {
		(void)printf("%zu rules and %zu override%s in %zu files, database %s: no problems "
			     "found\n", db->n, db->n_overrides, db->n_overrides == 1 ? "" : "s",
			     db->n_files, db->hash);
		ex = S2C_EXIT_OK;
	}
	rules_problems_release(&problems);
	rules_db_free(db);
	return ex;
}

static int list(const struct rules_db *db, bool json)
{
	if (json) {
		_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
		struct json_object *a = json_object_new_array();
		if (!doc || !a || json_object_object_add(doc, "schema", json_object_new_int(1)) < 0 ||
		    jsonout_add_string(doc, "database", db->hash) < 0 ||
		    json_object_object_add(doc, "rules", a) < 0)
			return S2C_EXIT_FAILURE;
		for (size_t i = 0; i < db->n; i++) {
			const struct rule *r = db->rules[i];
			struct json_object *o = json_object_new_object();
			if (!o || json_object_array_add(a, o) < 0 || jsonout_add_string(o, "id", r->id) < 0 ||
			    jsonout_add_string(o, "program", r->program) < 0 ||
			    jsonout_add_string(o, "verdict", verdict_name(r->verdict)) < 0 ||
			    jsonout_add_string(o, "caps", r->caps_text) < 0 ||
			    jsonout_add_string(o, "file", r->file) < 0 ||
			    jsonout_add_int(o, "conditions", (int64_t)r->n_conditions) < 0)
				return S2C_EXIT_FAILURE;
		}
		a = json_object_new_array();
		if (!a || json_object_object_add(doc, "overrides", a) < 0)
			return S2C_EXIT_FAILURE;
		for (size_t i = 0; i < db->n_overrides; i++) {
			const struct rule_override *ov = &db->overrides[i];
			struct json_object *o = json_object_new_object();
			if (!o || json_object_array_add(a, o) < 0 ||
			    jsonout_add_string(o, "override", ov->rule_id) < 0 ||
			    jsonout_add_string(o, "verdict", verdict_name(ov->verdict)) < 0 ||
			    jsonout_add_name(o, "caps", ov->caps_text) < 0 ||
			    jsonout_add_string(o, "reason", ov->reason) < 0 ||
			    jsonout_add_string(o, "file", ov->file) < 0 ||
			    jsonout_add_string(o, "where", ov->where) < 0)
				return S2C_EXIT_FAILURE;
		}
		return jsonout_write(doc, stdout) < 0 ? S2C_EXIT_FAILURE : S2C_EXIT_OK;
	}
	(void)printf("%-34s %-8s %-40s %s\n", "ID", "VERDICT", "CAPABILITIES", "PROGRAM");
	for (size_t i = 0; i < db->n; i++) {
		const struct rule *r = db->rules[i];
		(void)printf("%-34s %-8s %-40s %s\n", r->id, verdict_name(r->verdict),
			     r->caps_text ? r->caps_text : "-", r->program);
	}
	if (db->n_overrides)
		(void)printf("\n%-34s %-8s %-40s %s\n", "OVERRIDE OF", "VERDICT", "CAPABILITIES", "FILE");
	for (size_t i = 0; i < db->n_overrides; i++) {
		const struct rule_override *ov = &db->overrides[i];
		print_line("%-34s %-8s %-40s %s %s", ov->rule_id, verdict_name(ov->verdict),
			   ov->caps_text ? ov->caps_text : "-", ov->file, ov->where);
	}
	(void)printf("\n%zu rules, %zu local override%s, database %s\n", db->n, db->n_overrides,
		     db->n_overrides == 1 ? "" : "s", db->hash);
	return S2C_EXIT_OK;
}

int cmd_rules(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct dbargs dba;
	int format = 0;
	struct opt opts[] = {
		OPT_TABLE(dba.opts),   /* --db; --kernel means nothing here */
		OPT_CHOICE("format", &format, formats, "FMT", "text (default) or json (list)"),
		OPT_END(),
	};
	struct rules_db *db = NULL;
	int first, ex;

	(void)ctx;
	dbargs_init(&dba);
	dba.opts[1] = (struct opt)OPT_END();
	ex = opts_parse(cmd_lookup("rules"), opts, intro, argc, argv, &first);
	if (ex || !first)
		return ex;
	if (s2c_streq(argv[first], "lint"))
		return lint(argc - first - 1, argv + first + 1);
	if (!s2c_streq(argv[first], "list"))
		return usage_error("rules", "unknown rules command '%s': expected lint or list",
				   argv[first]);
	if (first + 1 < argc)
		return usage_error("rules", "'rules list' takes no arguments");
	ex = dbargs_load(&dba, &db);
	if (ex)
		return ex;
	ex = list(db, format == 1);
	rules_db_free(db);
	return ex;
}
