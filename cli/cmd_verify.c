/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap verify: compare the system with what was migrated, report drift
 * (the set-ID bit back, capabilities gone or different, the file replaced by
 * a package update), repair it with --fix, and install package-manager hooks
 * that run the repair after every package operation.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "applyargs.h"
#include "cli.h"
#include "dbargs.h"
#include "facts.h"
#include "fileop.h"
#include "hash.h"
#include "hook.h"
#include "plan.h"
#include "privs.h"
#include "scan.h"
#include "scanargs.h"
#include "state.h"
#include "common.h"

static const char help_text[] =
	"Compare the system with the state recorded by apply: report files whose\n"
	"set-ID bit came back, whose capabilities are gone or different, or that a\n"
	"package update replaced.\n"
	"\n"
	"  --root DIR               the system root\n"
	"  --fix                    repair drift: decide again about each file and\n"
	"                           apply with the same checks, journal and smoke test\n"
	"  --install-hook KIND      run 'verify --fix' after every dpkg, apt or rpm (dnf)\n"
	"                           operation; KIND is dpkg, apt or rpm\n"
	"  --remove-hook KIND       remove that hook\n"
	"  --db DIR, --kernel VER   as for audit (with --fix)\n"
	"  --exclude PATH, --include-unpackaged   as for plan (with --fix)\n"
	"  --no-smoke, --smoke-user USER   as for apply (with --fix)\n"
	"  --quiet                  print only drift and problems\n";

struct drift {
	char *path;
	char what[S2C_ERROR_MAX];
	bool fixable;              /* the path still holds a regular file */
};

/* Compare one recorded entry with the disk.  Returns true when it drifted. */
static bool check_entry(int rootfd, const struct state_entry *e, struct drift *d)
{
	struct s2c_error err = { 0 };
	_cleanup_close_ int fd = -1;
	struct journal_state now;
	char hex[HASH_HEX_LEN];
	struct stat st;

	d->path = e->path;
	d->fixable = false;
	fd = fileop_open(rootfd, e->path, &st, &err);
	if (fd < 0) {
		(void)snprintf(d->what, sizeof(d->what), "%s", err.msg);
		return true;
	}
	d->fixable = true;
	if (major(st.st_dev) != e->dev_major || minor(st.st_dev) != e->dev_minor ||
	    st.st_ino != e->ino) {
		(void)snprintf(d->what, sizeof(d->what), "replaced by another file (new inode: a "
			       "package update?)");
		return true;
	}
	if (hash_fd_sha256(fd, hex) < 0 || !s2c_streq(hex, e->sha256)) {
		(void)snprintf(d->what, sizeof(d->what), "its content changed");
		return true;
	}
	if (fileop_read(fd, &now) < 0) {
		(void)snprintf(d->what, sizeof(d->what), "cannot read its state");
		return true;
	}
	if (fileop_state_equal(&now, &e->after))
		return false;
	if ((now.mode & (S_ISUID | S_ISGID)) && !(e->after.mode & (S_ISUID | S_ISGID)))
		(void)snprintf(d->what, sizeof(d->what), "the set-ID bit is back (mode %04o)", now.mode);
	else if (!now.has_xattr && e->after.has_xattr)
		(void)snprintf(d->what, sizeof(d->what), "its capabilities are gone");
	else if (now.has_xattr != e->after.has_xattr || now.xattr_len != e->after.xattr_len ||
		 memcmp(now.xattr, e->after.xattr, now.xattr_len) != 0)
		(void)snprintf(d->what, sizeof(d->what), "its capabilities are different");
	else
		(void)snprintf(d->what, sizeof(d->what), "its owner, group or mode changed (%04o %u:%u)",
			       now.mode, now.uid, now.gid);
	return true;
}

static const char *program_path(void)
{
	static char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static int do_hooks(int rootfd, const char *install, const char *remove)
{
	struct s2c_error err = { 0 };
	const char *name = install ? install : remove;
	enum hook_kind kind = hook_kind_from_name(name);
	int r;

	if ((int)kind < 0)
		return usage_error("verify", "unknown hook '%s': expected dpkg, apt or rpm", esc(name));
	if (install) {
		const char *self = program_path();
		if (!self) {
			log_error("cannot find this program's path for the hook");
			return S2C_EXIT_FAILURE;
		}
		r = hook_install(rootfd, kind, self, &err);
	} else {
		r = hook_remove(rootfd, kind, &err);
	}
	if (r < 0) {
		log_error("%s", err.msg);
		return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
	}
	(void)printf("%s %s\n", install ? "installed" : "removed", hook_path(kind));
	return S2C_EXIT_OK;
}

/* Decide again about the drifted files and apply what the rules say, if the
 * same rule still describes them. */
static int fix(struct s2c_ctx *ctx, const struct scanargs *sa, const struct dbargs *db,
	       const struct applyargs *aa, const struct state *state, struct drift *drifts,
	       size_t n)
{
	_cleanup_free_ const char **paths = calloc(n + 1, sizeof(char *));
	struct scanargs s = *sa;
	struct scan_result *res = NULL;
	struct decisions ds = { 0 };
	struct plan *p = NULL;
	struct s2c_error err = { 0 };
	size_t k = 0;
	int ex, r;

	if (!paths)
		return S2C_EXIT_FAILURE;
	for (size_t i = 0; i < n; i++)
		if (drifts[i].fixable)
			paths[k++] = drifts[i].path;
	if (!k)
		return S2C_EXIT_FINDINGS;
	s.paths = paths;
	ex = decide_scan(db, &s, ctx, &res, &ds);
	if (ex)
		return ex;
	r = plan_build((const struct decision *const *)ds.v, ds.n, ds.host, ds.db, res->root,
		       res->host, &p, &err);
	if (r < 0) {
		log_error("cannot make a plan: %s", err.msg[0] ? err.msg : strerror(-r));
		ex = S2C_EXIT_FAILURE;
		goto out;
	}
	if ((ex = scanargs_plan_limits(&s, res, ds.host, p)))
		goto out;
	/* Only what the same rule still decides is repaired; the rest is reported. */
	for (size_t i = 0; i < p->n; i++) {
		struct plan_entry *e = &p->v[i];
		const struct state_entry *se = state_find((struct state *)(uintptr_t)state, e->path);
		bool same = se && ((!se->rule_id && !e->rule_id) ||
				   (se->rule_id && e->rule_id && s2c_streq(se->rule_id, e->rule_id)));
		if (e->change && !same) {
			log_warning("'%s' is not repaired: the rule that migrated it no longer decides "
				    "about it (now %s, %s)", esc(e->path), e->rule_id ? e->rule_id : "no rule",
				    verdict_name(e->verdict));
			e->change = false;
		}
	}
	ex = applyargs_apply(aa, res->rootfd, p, "verify-fix", "verify");
out:
	plan_free(p);
	decisions_release(&ds);
	scan_result_free(res);
	return ex;
}

int cmd_verify(int argc, char **argv, struct s2c_ctx *ctx)
{
	static const struct option opts[] = {
		SCANARGS_OPTIONS, DBARGS_OPTIONS,
		{ "fix", no_argument, NULL, ARG_FIX },
		{ "install-hook", required_argument, NULL, ARG_INSTALL_HOOK },
		{ "remove-hook", required_argument, NULL, ARG_REMOVE_HOOK },
		{ "no-smoke", no_argument, NULL, ARG_NO_SMOKE },
		{ "smoke", no_argument, NULL, ARG_SMOKE },
		{ "smoke-user", required_argument, NULL, ARG_SMOKE_USER },
		{ "fault", required_argument, NULL, ARG_FAULT },
		{ "quiet", no_argument, NULL, ARG_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct scanargs s;
	struct dbargs db = { 0 };
	struct applyargs a;
	const char *install = NULL, *remove = NULL;
	struct s2c_error err = { 0 };
	struct state *state = NULL;
	struct drift *drifts = NULL;
	size_t n = 0;
	bool want_fix = false, host = false;
	int c, r, ex = S2C_EXIT_OK, rootfd, statefd = -1;

	scanargs_init(&s, ctx);
	applyargs_init(&a);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if ((r = scanargs_option(&s, c, optarg, "verify")) || (r = dbargs_option(&db, c, optarg, "verify")) ||
		    (r = applyargs_option(&a, c, optarg, "verify"))) {
			if (r < 0)
				return -r;
			continue;
		}
		switch (c) {
		case 'h':
			cmd_print_usage(cmd_lookup("verify"), stdout);
			(void)fputs(help_text, stdout);
			return S2C_EXIT_OK;
		case ARG_FIX: want_fix = true; break;
		case ARG_INSTALL_HOOK: install = optarg; break;
		case ARG_REMOVE_HOOK: remove = optarg; break;
		default:
			return usage_error("verify", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("verify", "unexpected argument '%s'", esc(argv[optind]));
	if (install && remove)
		return usage_error("verify", "--install-hook and --remove-hook exclude each other");
	rootfd = scan_open_root(s.root, &host, &err);
	if (rootfd < 0) {
		log_error("%s", err.msg);
		return S2C_EXIT_USAGE;
	}
	if (install || remove) {
		ex = do_hooks(rootfd, install, remove);
		(void)close(rootfd);
		return ex;
	}
	if (!want_fix) {
		/* Only reading from here: the read-only set and no_new_privs. */
		r = privs_restrict(S2C_CAPMASK(CAP_DAC_READ_SEARCH), 0);
		if (r < 0) {
			(void)close(rootfd);
			log_error("cannot restrict privileges: %s", strerror(-r));
			return S2C_EXIT_PRIVILEGE;
		}
	}
	r = statedir_open(rootfd, false, geteuid() == 0, &statefd, NULL, &err);
	if (r == -ENOENT) {
		(void)close(rootfd);
		if (!a.quiet)
			(void)printf("nothing was migrated here (no state in %s)\n", S2C_STATEDIR);
		return S2C_EXIT_OK;
	}
	if (r == 0)
		r = state_load(statefd, s.root, geteuid() == 0, &state, &err);
	if (statefd >= 0)
		(void)close(statefd);
	if (r < 0) {
		(void)close(rootfd);
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return r == -EPERM ? S2C_EXIT_PRIVILEGE : S2C_EXIT_FAILURE;
	}
	drifts = calloc(state->n ? state->n : 1, sizeof(*drifts));
	for (size_t i = 0; drifts && i < state->n; i++) {
		if (check_entry(rootfd, &state->v[i], &drifts[n])) {
			(void)printf("drift      %s: %s\n", esc(drifts[n].path), drifts[n].what);
			n++;
		}
	}
	if (!a.quiet)
		(void)printf("%zu migrated file%s checked, %zu drifted\n", state->n,
			     state->n == 1 ? "" : "s", n);
	(void)close(rootfd);
	if (n && want_fix)
		ex = fix(ctx, &s, &db, &a, state, drifts, n);
	else if (n)
		ex = S2C_EXIT_FINDINGS;
	free(drifts);
	state_free(state);
	return ex;
}
