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

static int opt_kernel(const struct opt *o, const char *arg, const char *verb)
{
	struct dbargs *a = o->value;
	unsigned x, y;

	if (sscanf(arg, "%u.%u", &x, &y) != 2)
		return usage_error(verb, "invalid --kernel '%s': expected e.g. 6.1", arg);
	a->kernel = arg;
	return 0;
}

void dbargs_init(struct dbargs *a)
{
	*a = (struct dbargs){
		.opts = {
			OPT_LIST("db", &a->extra, "DIR", "add a rules directory after the bundled "
				 "database and\n/etc/suid2cap/rules.d (repeatable)"),
			OPT_CALLBACK("kernel", a, "VER", "evaluate kernel conditions for VER (e.g. "
				     "5.10)", opt_kernel),
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
	const char *dirs[2 + OPT_LIST_MAX + 1];
	struct s2c_error err = { 0 };
	size_t n = 0;
	int r;

	dirs[n++] = dbargs_bundled_dir();
	dirs[n++] = S2C_SYSCONF_DBDIR;
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
		dirs[n++] = a->extra.v[i];
	}
	dirs[n] = NULL;
	r = rules_db_load(dirs, geteuid() == 0 ? RULES_LOAD_TRUSTED : 0, ret, &err);
	if (r < 0) {
		log_error("cannot load the rules database: %s", err.msg[0] ? err.msg : strerror(-r));
		return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
	}
	return 0;
}

int decide_run(const struct dbargs *a, struct rules_db *db, const struct scan_result *res,
	       struct decisions *out)
{
	struct s2c_error err = { 0 };
	int r = decide_all(db, res, a->kernel, out, &err);

	if (r < 0) {
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

int decide_scan(const struct dbargs *db, const struct scanargs *s, struct s2c_ctx *ctx,
		struct scan_result **ret_res, struct decisions *out)
{
	struct rules_db *rdb = NULL;
	struct scan_result *res = NULL;
	int ex = dbargs_load(db, &rdb);

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
