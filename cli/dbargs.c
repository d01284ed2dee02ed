/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "db.h"
#include "dbargs.h"
#include "spill.h"
#include "engine.h"
#include "facts.h"
#include "host.h"
#include "idmap.h"
#include "scan.h"
#include "scanargs.h"
#include "common.h"

static int opt_kernel(const struct opt *o, const char *arg, const char *verb)
{
	struct dbargs *a = o->value;
	unsigned x, y;

	if (sscanf(arg, "%u.%u", &x, &y) != 2)
		return usage_error(verb, "invalid --kernel '%s': expected e.g. 6.1", arg);
	a->kernel = arg;
	return 0;
}

static int opt_bounding(const struct opt *o, const char *arg, const char *verb)
{
	struct dbargs *a = o->value;
	struct s2c_error err = { 0 };

	if (host_bounding_parse(arg, &a->bounding, &a->bounding_what, &err) < 0)
		return usage_error(verb, "%s", err.msg);
	a->has_bounding = true;
	return 0;
}

void dbargs_init(struct dbargs *a)
{
	*a = (struct dbargs){
		.opts = {
			OPT_LIST("db", &a->extra, "DIR", "add a rules directory after the bundled "
				 "database and\nthe local rules (/etc/suid2cap/rules.d, or an image's own)\n"
				 "(repeatable)"),
			OPT_CALLBACK("kernel", a, "VER", "evaluate kernel conditions for VER (e.g. "
				     "5.10)", opt_kernel),
			OPT_CALLBACK("bounding-set", a, "SET", "the bounding set programs run with "
				     "there (a migration\noutside it cannot work), one of:\n"
				     "  docker  Docker's default\n  podman  Podman's default\n"
				     "  all     every capability\nor capability names separated by "
				     "commas\n(default: from the target)", opt_bounding),
			OPT_END(),
		},
	};
}

const char *dbargs_bundled_dir(void)
{
	static char staged[PATH_MAX];
	struct stat st;
	ssize_t n;
	char *slash;

	if (stat(S2C_DBDIR, &st) == 0 && S_ISDIR(st.st_mode))
		return S2C_DBDIR;
	/* Not installed: <dir of the binary>/../share/suid2cap/db (the build tree). */
	n = readlink("/proc/self/exe", staged, sizeof(staged) - 32);
	if (n <= 0)
		return S2C_DBDIR;
	staged[n] = '\0';
	slash = strrchr(staged, '/');
	if (!slash)
		return S2C_DBDIR;
	*slash = '\0';
	slash = strrchr(staged, '/');
	if (!slash)
		return S2C_DBDIR;
	(void)snprintf(slash, sizeof(staged) - (size_t)(slash - staged), "/share/suid2cap/db");
	return staged;
}

int dbargs_load(const struct dbargs *a, struct rules_db **ret)
{
	return dbargs_load_root(a, NULL, ret);
}

int dbargs_load_root(const struct dbargs *a, const char *root, struct rules_db **ret)
{
	struct rules_layer layers[2 + OPT_LIST_MAX];
	_cleanup_free_ char *target = NULL;
	_cleanup_close_ int rootfd = -1, localfd = RULES_LAYER_ABSENT;
	struct s2c_error err = { 0 };
	bool host = true;
	size_t n = 0;
	int r;

	layers[n++] = (struct rules_layer){ .dir = dbargs_bundled_dir(), .dirfd = -1, .label = "bundled" };
	/* An image's local rules are its own etc/suid2cap/rules.d, opened beneath its
	 * root, never the host's. */
	if (root) {
		rootfd = scan_open_root(root, &host, &err);
		if (rootfd < 0) {
			log_error("%s", err.msg);
			return S2C_EXIT_USAGE;
		}
	}
	if (host) {
		layers[n++] = (struct rules_layer){ .dir = S2C_SYSCONF_DBDIR, .dirfd = -1,
						    .optional = true, .label = "local" };
	} else {
		r = rules_db_open_target_layer(rootfd, &localfd, &err);
		if (r < 0) {
			log_error("cannot use the local rules of '%s': %s", root, err.msg);
			return r == -ENOMEM ? S2C_EXIT_FAILURE : S2C_EXIT_PRIVILEGE;
		}
		if (asprintf(&target, "%s%s", s2c_streq(root, "/") ? "" : root, S2C_SYSCONF_DBDIR) < 0) {
			target = NULL;
			return S2C_EXIT_FAILURE;
		}
		layers[n++] = (struct rules_layer){ .dir = target, .dirfd = localfd, .optional = true,
						    .label = "target" };
	}
	for (size_t i = 0; i < a->extra.n; i++) {
		struct stat st;
		/* Optional layers may be absent; one asked for by name may not.  The message
		 * names it absolutely: "nosuch" alone does not say where it was looked for. */
		const char *why = stat(a->extra.v[i], &st) < 0 ? strerror(errno) :
				  !S_ISDIR(st.st_mode) ? "not a directory" : NULL;

		if (why) {
			_cleanup_free_ char *shown = shown_path(a->extra.v[i]);

			log_error("cannot use --db '%s': %s", shown ? shown : a->extra.v[i], why);
			return S2C_EXIT_USAGE;
		}
		layers[n++] = (struct rules_layer){ .dir = a->extra.v[i], .dirfd = -1, .label = "db" };
	}
	/* Overlapping rules are an error here too: a tie between local and bundled
	 * rules would otherwise turn into a silent review. */
	r = rules_db_load_layers(layers, n,
				 RULES_LOAD_NO_OVERLAP | (geteuid() == 0 ? RULES_LOAD_TRUSTED : 0),
				 NULL, ret, &err);
	if (r < 0) {
		log_error("cannot load the rules database: %s", err.msg[0] ? err.msg : strerror(-r));
		return error_exit_code(r);
	}
	return 0;
}

int decide_run(const struct dbargs *a, struct rules_db *db, struct scan_result *res,
	       struct decisions *out)
{
	const struct decide_target t = {
		.kernel = a->kernel,
		.has_bounding = a->has_bounding,
		.bounding = a->bounding,
		.bounding_what = a->bounding_what,
	};
	struct s2c_error err = { 0 };
	int r = decide_all(db, res, &t, out, &err);

	if (r < 0) {
		rules_db_free(db);
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	out->own_db = db;
	return 0;
}

int decide_scan(const struct dbargs *db, const struct scanargs *s, struct s2c_ctx *ctx,
		struct scan_result **ret_res, struct decisions *out)
{
	struct rules_db *rdb = NULL;
	struct scan_result *res = NULL;
	int ex = dbargs_load_root(db, s->root, &rdb);

	if (ex)
		return ex;
	ex = scanargs_run(s, ctx, rdb, &res);
	if (ex) {
		rules_db_free(rdb);
		return ex;
	}
	ex = decide_run(db, rdb, res, out);
	if (ex) {
		scan_result_free(res);
		return ex;
	}
	*ret_res = res;
	return 0;
}

/* Candidates decided in batches of this many while the walk goes on. */
#define DECIDE_BATCH 256

static int on_batch(void *userdata, const struct scan_result *res, struct facts **v, size_t n)
{
	return decide_batch(userdata, res, v, n);
}

int decide_scan_stream(const struct dbargs *db, const struct scanargs *s, struct s2c_ctx *ctx,
		       struct scan_result **ret_res, struct decide_stream *out)
{
	struct rules_db *rdb = NULL;
	struct scan_result *res = NULL;
	int ex = dbargs_load_root(db, s->root, &rdb), r;

	if (ex)
		return ex;
	out->t = (struct decide_target){
		.kernel = db->kernel,
		.has_bounding = db->has_bounding,
		.bounding = db->bounding,
		.bounding_what = db->bounding_what,
	};
	out->db = rdb;
	out->ds.own_db = rdb;
	ex = scanargs_run_batches(s, ctx, rdb, on_batch, out, DECIDE_BATCH, &res);
	if (ex) {
		if (s2c_error_isset(out->err))
			log_error("%s", out->err->msg);
		return ex;
	}
	r = decide_batch(out, res, NULL, 0);
	if (r == 0 && (r = spill_sort(out->spill)) < 0)
		(void)s2c_error_errno(out->err, r, "cannot keep the audit's records in a temporary "
				      "file in '%s'", spill_dir(out->spill));
	if (r < 0) {
		log_error("%s", out->err->msg[0] ? out->err->msg : strerror(-r));
		scan_result_free(res);
		return S2C_EXIT_FAILURE;
	}
	*ret_res = res;
	return 0;
}
