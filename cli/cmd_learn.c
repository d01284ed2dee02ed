/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap learn: run a command as an unprivileged user with candidate
 * capabilities and report which capabilities it really used, which it was
 * denied, and a draft rule; keep the result for explain and audit.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "bpf.h"
#include "candidates.h"
#include "captable.h"
#include "cli.h"
#include "dbargs.h"
#include "engine.h"
#include "fcaps.h"
#include "interrupt.h"
#include "jsonout.h"
#include "learndraft.h"
#include "learnout.h"
#include "opts.h"
#include "privs.h"
#include "program.h"
#include "record.h"
#include "run.h"
#include "scan.h"
#include "scanargs.h"
#include "term.h"
#include "util.h"
#include "common.h"

#define CAPS_RUN PRIVS_LEARN_RUN
#define CAPS_BPF PRIVS_LEARN_BPF
#define CAPS_PTRACE PRIVS_LEARN_PTRACE

static const char help_text[] =
	"Run COMMAND as USER with candidate capabilities and record every capability\n"
	"check the kernel makes for it and the processes it starts: which capability,\n"
	"granted or denied, how often, from which syscall.  Report the capabilities the\n"
	"run used, those it was denied, and a draft rule; keep the result for explain\n"
	"and audit (beneath ROOT in /var/lib/suid2cap/learn, by the program's SHA-256).\n"
	"Options end at COMMAND, whose own options are its own.\n"
	"\f"
	"COMMAND's standard input is /dev/null and its output goes to standard error.\n"
	"It runs in a PID namespace of its own with no_new_privs; when it exits or the\n"
	"time limit passes, every process it left is killed.\n"
	"\n"
	"Exit status: 0 the run succeeded and was denied nothing, 1 it failed, timed out\n"
	"or was denied a capability, 2 usage error or COMMAND not found, 4 learning\n"
	"failed, 5 not root or BPF refused (--mechanism bpf).\n";

enum mechanism_choice { CHOOSE_AUTO, CHOOSE_BPF, CHOOSE_PTRACE };

struct learn_args {
	const char *user;
	const char *caps;            /**< --caps as given, or NULL */
	unsigned timeout;
	int mechanism;               /**< enum mechanism_choice */
	int format;                  /**< 0 text, 1 json */
	bool json, no_record, verbose;
	const char *root;
	struct dbargs db;
	char **command;              /**< argv of COMMAND, NULL-terminated */
};

static const char *const mechanisms[] = { "auto", "bpf", "ptrace", NULL };
static const char *const formats[] = { "text", "json", NULL };

static int opt_user(const struct opt *o, const char *arg, const char *verb)
{
	if (s2c_isempty(arg))
		return usage_error(verb, "--user needs a user name");
	*(const char **)o->value = arg;
	return 0;
}

static int opt_timeout(const struct opt *o, const char *arg, const char *verb)
{
	unsigned *t = o->value;

	if (parse_uint(arg, 86400, t) < 0 || *t == 0)
		return usage_error(verb, "invalid --timeout '%s': expected 1..86400 seconds", arg);
	return 0;
}

/* Returns an exit code; @ret_done is set when nothing is left to do (--help). */
static int parse_argv(int argc, char **argv, struct learn_args *a, bool *ret_done)
{
	static char intro[sizeof(help_text) + 80];
	struct opt opts[] = {
		OPT_CALLBACK("user", &a->user, "USER", "run as USER (default: nobody); never root",
			     opt_user),
		OPT_STRING(0, "caps", &a->caps, "SET", "the candidate capabilities, a comma list "
			   "such as\ncap_net_raw,cap_net_bind_service, 'none', or 'all'\n(every "
			   "capability that is not root-equivalent);\ndefault: what the rules and the "
			   "decision engine\npropose for a set-ID or capability-carrying program,\n"
			   "else 'all'"),
		OPT_CALLBACK("timeout", &a->timeout, "S", "stop the run after S seconds (default: "
			     "30)", opt_timeout),
		OPT_CHOICE("mechanism", &a->mechanism, mechanisms, "M", "auto (default: bpf where "
			   "the kernel allows it,\nelse ptrace), bpf or ptrace"),
		OPT_CHOICE("format", &a->format, formats, "FMT", "text (default) or json"),
		OPT_BOOL(0, "json", &a->json, "short for --format json"),
		TERM_OPT_COLOR,
		OPT_STRING(0, "root", &a->root, "DIR", "look COMMAND up and keep the record "
			   "beneath DIR"),
		OPT_TABLE(a->db.opts),
		OPT_BOOL(0, "no-record", &a->no_record, "do not keep the result for explain and "
			 "audit"),
		OPT_BOOL(0, "verbose", &a->verbose, "also print the capabilities suid2cap keeps "
			 "during the run"),
		OPT_END(),
	};
	int r, first;

	*a = (struct learn_args){ .user = "nobody", .timeout = 30, .root = "/" };
	dbargs_init(&a->db);
	/* the command runs here, with this system's bounding set */
	a->db.opts[2] = (struct opt)OPT_END();
	(void)snprintf(intro, sizeof(intro), "%s%s", help_text, learn_bpf_built() ? "" :
		       "\nThis build has no BPF support: learn uses ptrace only.\n");
	r = opts_parse(cmd_lookup("learn"), opts, intro, argc, argv, &first);
	*ret_done = r || !first;
	if (r || !first)
		return r;
	a->json |= a->format == 1;
	if (s2c_isempty(a->root))
		return usage_error("learn", "--root needs a directory");
	a->command = argv + first;
	return S2C_EXIT_OK;
}

/* --- the program and its candidates ------------------------------------------------------ */

/*
 * Find COMMAND beneath the root and read it (learn/program.h): a relative path is the file
 * it names from the current directory, which only the running system has.
 */
static int locate(int rootfd, const char *root_real, const char *name,
		  struct learn_program *ret)
{
	_cleanup_free_ char *cwd = NULL;
	struct s2c_error err = { 0 };
	int r;

	if (strchr(name, '/') && name[0] != '/' && s2c_streq(root_real, "/") &&
	    !(cwd = getcwd(NULL, 0))) {
		log_error("cannot resolve '%s': %s", name, strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	r = learn_program_find(rootfd, root_real, name, cwd, ret, &err);
	if (r < 0) {
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return r == -ENOMEM || r == -EXDEV ? S2C_EXIT_FAILURE : S2C_EXIT_USAGE;
	}
	r = learn_program_inspect(ret, &err);
	if (r < 0) {
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return r == -ENOEXEC ? S2C_EXIT_USAGE : S2C_EXIT_FAILURE;
	}
	return 0;
}

/* The candidate capabilities (learn/candidates.h), with a warning about each kind left out
 * or root-equivalent. */
static int candidates(const struct learn_args *a, const struct decision *d,
		      const struct captable *t, uint64_t *ret)
{
	struct s2c_error err = { 0 };
	struct learn_candidates c;
	int r = learn_candidates(a->caps, d, t, privs_effective(), &c, &err);

	if (r == -EINVAL)
		return usage_error("learn", "%s", err.msg);
	if (r < 0)
		return error_exit(r, &err);
	if (c.lacking) {
		_cleanup_free_ char *missing = fcaps_mask_names(c.lacking);
		log_warning("cannot grant %s: suid2cap does not have it, skipping",
			    missing ? missing : "?");
	}
	if (c.root) {
		_cleanup_free_ char *names = fcaps_mask_names(c.root);
		log_warning("granting root-equivalent %s%s: the command can take over the system",
			    names ? names : "?", c.proposed ? " (as the rules propose)" : "");
	}
	*ret = c.caps;
	return 0;
}

/* --- the user and the environment ------------------------------------------------------- */

struct user {
	char *name, *home;
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	size_t n_groups;
};

static void user_release(struct user *u)
{
	free(u->name);
	free(u->home);
	free(u->groups);
}

static int lookup_user(const char *name, struct user *ret)
{
	struct passwd *pw = getpwnam(name);
	int n = 0;

	if (!pw) {
		log_error("unknown user '%s'", name);
		return S2C_EXIT_USAGE;
	}
	if (pw->pw_uid == 0) {
		log_error("learn does not run the command as root: give an unprivileged --user");
		return S2C_EXIT_USAGE;
	}
	ret->uid = pw->pw_uid;
	ret->gid = pw->pw_gid;
	ret->name = strdup(pw->pw_name);
	ret->home = strdup(pw->pw_dir ? pw->pw_dir : "/");
	(void)getgrouplist(pw->pw_name, pw->pw_gid, NULL, &n);
	ret->groups = calloc((size_t)n + 1, sizeof(gid_t));
	if (!ret->name || !ret->home || !ret->groups ||
	    getgrouplist(ret->name, ret->gid, ret->groups, &n) < 0) {
		log_error("cannot read the groups of '%s'", name);
		return S2C_EXIT_FAILURE;
	}
	ret->n_groups = (size_t)n;
	return 0;
}

/* A fixed search path and the user's identity; locale and terminal from ours. */
static char **make_env(const struct user *u)
{
	static const char *const keep[] = { "TERM", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE",
					    "LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "TZ" };
	char **env = calloc(S2C_ELEMENTSOF(keep) + 6, sizeof(char *));
	size_t n = 0;
	bool ok = env != NULL;

	ok = ok && asprintf(&env[n++], "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
			    "/sbin:/bin") >= 0;
	ok = ok && asprintf(&env[n++], "HOME=%s", u->home) >= 0;
	ok = ok && asprintf(&env[n++], "USER=%s", u->name) >= 0;
	ok = ok && asprintf(&env[n++], "LOGNAME=%s", u->name) >= 0;
	for (size_t i = 0; ok && i < S2C_ELEMENTSOF(keep); i++) {
		const char *v = getenv(keep[i]);
		if (v)
			ok = asprintf(&env[n++], "%s=%s", keep[i], v) >= 0;
	}
	if (!ok && env) {
		for (size_t i = 0; i < n; i++)
			free(env[i]);
		free(env);
		return NULL;
	}
	return env;
}

/* --- the run ---------------------------------------------------------------------------- */

static char *now_iso(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return strdup("?");
	return strdup(buf);
}

static int narrow(uint64_t keep, bool verbose)
{
	if (privs_restrict(keep, 0, "for 'learn'"))
		return S2C_EXIT_PRIVILEGE;
	if (verbose) {
		_cleanup_free_ char *names = fcaps_mask_names(privs_effective());
		log_notice("capabilities kept: %s", names && *names ? names : "(none)");
	}
	return 0;
}

/* Load BPF for bpf and auto; for auto fall back to ptrace with the reason kept in @rec. */
static int choose(const struct learn_args *a, uint64_t cands, struct learn_bpf **ret_bpf,
		  struct learn_record *rec)
{
	struct s2c_error err = { 0 };
	int r, ex;

	if (a->mechanism == CHOOSE_PTRACE) {
		rec->mechanism = LEARN_PTRACE;
		return narrow(CAPS_RUN | CAPS_PTRACE | cands, a->verbose);
	}
	ex = narrow(CAPS_RUN | CAPS_BPF | (a->mechanism == CHOOSE_AUTO ? CAPS_PTRACE : 0) | cands,
		    false);
	if (ex)
		return ex;
	r = learn_bpf_open(ret_bpf, &err);
	if (r == 0) {
		rec->mechanism = LEARN_BPF;
		return narrow(CAPS_RUN | CAPS_BPF | cands, a->verbose);
	}
	if (a->mechanism == CHOOSE_BPF) {
		log_error("BPF is not available: %s", err.msg[0] ? err.msg : strerror(-r));
		return error_exit_code(r);
	}
	/* A build without BPF says so in the report; no need to repeat it every run. */
	if (!a->json && learn_bpf_built())
		log_notice("BPF is not available (%s); using ptrace",
			   err.msg[0] ? err.msg : strerror(-r));
	rec->mechanism = LEARN_PTRACE;
	rec->fallback = strdup(err.msg[0] ? err.msg : strerror(-r));
	if (!rec->fallback) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	return narrow(CAPS_RUN | CAPS_PTRACE | cands, a->verbose);
}

static int fill_record(struct learn_record *rec, const struct learn_args *a,
		       const struct learn_program *p, const struct user *u, uint64_t cands, bool aware)
{
	size_t n = 0;

	while (a->command[n])
		n++;
	rec->argv = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; rec->argv && i < n; i++)
		if (!(rec->argv[i] = strdup(a->command[i])))
			return -ENOMEM;
	memcpy(rec->sha256, p->sha256, sizeof(rec->sha256));
	rec->path = strdup(p->path);
	rec->user = strdup(u->name);
	rec->time = now_iso();
	rec->uid = u->uid;
	rec->gid = u->gid;
	rec->candidates = cands;
	rec->aware = aware;
	rec->script = p->script;
	return rec->argv && rec->path && rec->user && rec->time ? 0 : -ENOMEM;
}

/* Keep the record beneath the root.  Returns the file shown to the user, or NULL. */
static char *keep_record(int rootfd, const char *root, const struct learn_record *rec)
{
	struct s2c_error err = { 0 };
	_cleanup_close_ int dfd = -1;
	_cleanup_free_ char *name = NULL;
	char *shown = NULL;
	int r = learn_dir_open(rootfd, root, true, true, &dfd, &err);

	/* Written to a temporary file and renamed: one step for a signal. */
	interrupt_hold();
	if (r == 0)
		r = learn_record_save(dfd, rec, &name, &err);
	interrupt_release();
	if (r < 0) {
		log_warning("cannot keep the learn record: %s", err.msg[0] ? err.msg : strerror(-r));
		return NULL;
	}
	if (asprintf(&shown, "%s%s/%s/%s", s2c_streq(root, "/") ? "" : root, S2C_STATEDIR,
		     LEARN_RECORD_DIR, name) < 0)
		return NULL;
	return shown;
}

static int output(const struct learn_args *a, const struct learn_record *rec,
		  struct json_object *draft, const char *record_file)
{
	if (a->json) {
		_cleanup_jsonput_ struct json_object *doc = learn_record_json(rec);
		_cleanup_jsonput_ struct json_object *kept = json_object_new_object();

		if (!doc || !kept || jsonout_add_bool(doc, "bpf_support", learn_bpf_built()) < 0 ||
		    jsonout_add(doc, "rule", json_object_get(draft)) < 0 ||
		    jsonout_add_bool(kept, "saved", record_file != NULL) < 0 ||
		    jsonout_add_name(kept, "file", record_file) < 0 ||
		    jsonout_add(doc, "record", TAKE_PTR(kept)) < 0)
			return -ENOMEM;
		return jsonout_write(doc, stdout);
	}
	return learnout_text(rec, draft,
			     &(struct learnout_text_options){
				     .color = term_color(STDOUT_FILENO),
				     .bpf_built = learn_bpf_built(),
				     .record_file = record_file,
				     .draft_file = S2C_SYSCONF_DBDIR "/local.json",
			     },
			     stdout);
}

/* The decision about the program and its rule, when it is privileged. */
struct judged {
	struct scan_result *res;
	struct decisions ds;
	struct decision *d;           /**< NULL: not set-ID and no capabilities */
	const struct rule *rule;      /**< the rule that matches it, or NULL */
	bool aware;
};

static int judge(const struct learn_args *a, struct s2c_ctx *ctx, struct learn_program *p,
		 struct judged *j)
{
	const char *paths[] = { p->path, NULL };
	struct scanargs s;
	int ex;

	scanargs_init(&s, ctx, 0);
	s.root = a->root;
	s.threads = 1;
	s.paths = paths;
	ex = decide_scan(&a->db, &s, ctx, &j->res, &j->ds);
	if (ex)
		return ex;
	j->d = j->ds.n ? j->ds.v[0] : NULL;
	if (j->d) {
		j->aware = j->d->aware;
		j->rule = j->d->rule;
		return 0;
	}
	if (decide_program(&j->ds, j->res->rootfd, p->path, p->sha256, p->fd, p->script,
			   &j->rule, &j->aware) < 0) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	return 0;
}

static void judged_release(struct judged *j)
{
	decisions_release(&j->ds);
	scan_result_free(j->res);
}

static int learn(const struct learn_args *a, struct s2c_ctx *ctx, int rootfd, const char *root_real)
{
	_cleanup_(learn_program_release) struct learn_program p = { .fd = -1 };
	_cleanup_(user_release) struct user u = { 0 };
	_cleanup_(judged_release) struct judged j = { 0 };
	_cleanup_jsonput_ struct json_object *draft = NULL;
	_cleanup_free_ char *record_file = NULL;
	struct learn_record *rec = NULL;
	struct learn_bpf *bpf = NULL;
	struct s2c_error err = { 0 };
	_cleanup_close_ int null = -1;
	char **env = NULL;
	uint64_t cands = 0;
	int ex, r;

	ex = locate(rootfd, root_real, a->command[0], &p);
	if (ex == 0)
		ex = judge(a, ctx, &p, &j);
	if (ex == 0)
		ex = candidates(a, j.d, &j.ds.db->caps, &cands);
	if (ex == 0)
		ex = lookup_user(a->user, &u);
	if (ex)
		return ex;
	rec = learn_record_new();
	env = make_env(&u);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (!rec || !env || null < 0 || fill_record(rec, a, &p, &u, cands, j.aware) < 0) {
		log_error("cannot prepare the run: %s", null < 0 ? strerror(errno) : "out of memory");
		ex = S2C_EXIT_FAILURE;
	}
	if (ex == 0)
		ex = choose(a, cands, &bpf, rec);
	if (ex == 0 && !(rec->attach = strdup(rec->mechanism == LEARN_BPF ?
					      learn_bpf_attach_name(bpf) : "ptrace syscalls")))
		ex = S2C_EXIT_FAILURE;
	if (ex == 0) {
		struct learn_spec spec = {
			.exe_fd = p.fd, .script = p.script, .argv = a->command, .envp = env,
			.uid = u.uid, .gid = u.gid, .groups = u.groups, .n_groups = u.n_groups,
			.caps = cands, .timeout = a->timeout, .stdin_fd = null,
			.output_fd = STDERR_FILENO, .mechanism = rec->mechanism, .bpf = bpf,
		};
		r = learn_run(&spec, rec, &err);
		if (r < 0) {
			log_error("cannot learn from '%s': %s", a->command[0],
				  err.msg[0] ? err.msg : strerror(-r));
			ex = S2C_EXIT_FAILURE;
		}
	}
	learn_bpf_free(bpf);
	strv_free(env);
	if (ex == 0) {
		learn_record_finish(rec);
		if (!a->no_record)
			record_file = keep_record(rootfd, root_real, rec);
		draft = learndraft_build(rec, j.rule, j.ds.db);
		r = draft ? output(a, rec, draft, record_file) : -ENOMEM;
		if (r < 0) {
			log_error("cannot write the report: %s", strerror(-r));
			ex = S2C_EXIT_FAILURE;
		} else if (!learn_record_succeeded(rec) || rec->denied ||
			   !learn_record_complete(rec)) {
			ex = S2C_EXIT_FINDINGS;
		}
	}
	learn_record_free(rec);
	return ex;
}

int cmd_learn(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct learn_args a;
	_cleanup_close_ int rootfd = -1;
	char root_real[PATH_MAX];
	bool done = false;
	int ex;

	ex = parse_argv(argc, argv, &a, &done);
	if (ex || done)
		return ex;
	if (geteuid() != 0) {
		log_error("learn must run as root: it runs COMMAND as another user with the "
			  "capabilities it tests");
		return S2C_EXIT_PRIVILEGE;
	}
	if (CAPS_RUN & ~privs_effective()) {
		_cleanup_free_ char *missing = fcaps_mask_names(CAPS_RUN & ~privs_effective());
		log_error("learn needs %s to run COMMAND in a PID namespace of its own as another "
			  "user, and this process lacks it", missing ? missing : "?");
		return S2C_EXIT_PRIVILEGE;
	}
	rootfd = open(a.root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || !realpath(a.root, root_real)) {
		int e = errno;
		_cleanup_free_ char *shown = shown_path(a.root);

		log_error("cannot open root '%s': %s", shown ? shown : a.root, strerror(e));
		return S2C_EXIT_USAGE;
	}
	return learn(&a, ctx, rootfd, root_real);
}
