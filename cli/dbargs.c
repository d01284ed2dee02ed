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
#include "engine.h"
#include "facts.h"
#include "host.h"
#include "idmap.h"
#include "scan.h"
#include "scanargs.h"
#include "common.h"

int dbargs_option(struct dbargs *a, int opt, const char *arg, const char *verb)
{
	switch (opt) {
	case ARG_DB:
		if (a->n_extra == S2C_ELEMENTSOF(a->extra))
			return -usage_error(verb, "too many --db directories");
		a->extra[a->n_extra++] = arg;
		return 1;
	case ARG_KERNEL: {
		unsigned x, y;
		if (sscanf(arg, "%u.%u", &x, &y) != 2)
			return -usage_error(verb, "invalid --kernel '%s': expected e.g. 6.1", arg);
		a->kernel = arg;
		return 1;
	}
	case ARG_BOUNDING_SET: {
		struct s2c_error err = { 0 };
		if (host_bounding_parse(arg, &a->bounding, &a->bounding_what, &err) < 0)
			return -usage_error(verb, "%s", err.msg);
		a->has_bounding = true;
		return 1;
	}
	default:
		return 0;
	}
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
	struct rules_layer layers[2 + S2C_ELEMENTSOF(a->extra)];
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
			log_error("cannot use the local rules of '%s': %s", esc(root), err.msg);
			return r == -ENOMEM ? S2C_EXIT_FAILURE : S2C_EXIT_PRIVILEGE;
		}
		if (asprintf(&target, "%s%s", s2c_streq(root, "/") ? "" : root, S2C_SYSCONF_DBDIR) < 0) {
			target = NULL;
			return S2C_EXIT_FAILURE;
		}
		layers[n++] = (struct rules_layer){ .dir = target, .dirfd = localfd, .optional = true,
						    .label = "target" };
	}
	for (size_t i = 0; i < a->n_extra; i++) {
		struct stat st;
		/* Optional layers may be absent; one asked for by name may not. */
		if (stat(a->extra[i], &st) < 0) {
			log_error("cannot use --db '%s': %s", esc(a->extra[i]), strerror(errno));
			return S2C_EXIT_USAGE;
		}
		if (!S_ISDIR(st.st_mode)) {
			log_error("cannot use --db '%s': not a directory", esc(a->extra[i]));
			return S2C_EXIT_USAGE;
		}
		layers[n++] = (struct rules_layer){ .dir = a->extra[i], .dirfd = -1, .label = "db" };
	}
	/* Overlapping rules are an error here too: a tie between local and bundled
	 * rules would otherwise turn into a silent review. */
	r = rules_db_load_layers(layers, n,
				 RULES_LOAD_NO_OVERLAP | (geteuid() == 0 ? RULES_LOAD_TRUSTED : 0),
				 NULL, ret, &err);
	if (r < 0) {
		log_error("cannot load the rules database: %s", err.msg[0] ? err.msg : strerror(-r));
		return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
	}
	return 0;
}

void decisions_release(struct decisions *d)
{
	for (size_t i = 0; i < d->n; i++)
		decision_free(d->v[i]);
	free(d->v);
	idmap_free(d->ids);
	host_free(d->host);
	rules_db_free(d->db);
	memset(d, 0, sizeof(*d));
}

int decisions_run(const struct dbargs *a, struct rules_db *db, const struct scan_result *res,
		  struct decisions *out)
{
	struct s2c_error err = { 0 };
	struct engine e;
	int r;

	memset(out, 0, sizeof(*out));
	out->db = db;
	r = host_new(res->rootfd, res->host, a->kernel, &out->host, &err);
	if (r == 0 && a->has_bounding)
		r = host_set_bounding(out->host, a->bounding, a->bounding_what);
	if (r == 0)
		r = idmap_new(res->host ? -1 : res->rootfd, &out->ids);
	if (r < 0) {
		log_error("cannot read facts of the target: %s", err.msg[0] ? err.msg : strerror(-r));
		decisions_release(out);
		return S2C_EXIT_FAILURE;
	}
	e = (struct engine){ .db = db, .host = out->host, .ids = out->ids, .rootfd = res->rootfd };
	r = engine_prepare(&e, (const struct facts *const *)res->v, res->n);
	out->v = calloc(res->n ? res->n : 1, sizeof(*out->v));
	if (r < 0 || !out->v) {
		log_error("out of memory");
		decisions_release(out);
		return S2C_EXIT_FAILURE;
	}
	for (size_t i = 0; i < res->n; i++) {
		r = engine_decide(&e, res->v[i], &out->v[i], &err);
		if (r < 0) {
			log_error("cannot decide about '%s': %s", esc(res->v[i]->path),
				  err.msg[0] ? err.msg : strerror(-r));
			decisions_release(out);
			return S2C_EXIT_FAILURE;
		}
		out->n = i + 1;
	}
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
	ex = scanargs_run(s, ctx, &res);
	if (ex) {
		rules_db_free(rdb);
		return ex;
	}
	ex = decisions_run(db, rdb, res, out);
	if (ex) {
		scan_result_free(res);
		return ex;
	}
	*ret_res = res;
	return 0;
}
