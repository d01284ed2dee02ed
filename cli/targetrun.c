/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "cli.h"
#include "db.h"
#include "decide.h"
#include "host.h"
#include "identity.h"
#include "interrupt.h"
#include "stage.h"
#include "target.h"
#include "targetaudit.h"
#include "targetrun.h"
#include "util.h"
#include "waiver.h"
#include "common.h"

/* "16G", "512M", "1000" into @ret; false when @arg is not such a size. */
static bool parse_size(const char *arg, uint64_t *ret)
{
	_cleanup_free_ char *num = strdup(arg);
	size_t n = num ? strlen(num) : 0;
	unsigned shift = 0;
	uint64_t v;

	if (!num || n == 0)
		return false;
	switch (num[n - 1]) {
	case 'K': case 'k': shift = 10; break;
	case 'M': case 'm': shift = 20; break;
	case 'G': case 'g': shift = 30; break;
	case 'T': case 't': shift = 40; break;
	default: break;
	}
	if (shift)
		num[n - 1] = '\0';
	if (parse_u64(num, 10, UINT64_MAX >> shift, &v) < 0 || v == 0)
		return false;
	*ret = v << shift;
	return true;
}

static int opt_tmpdir(const struct opt *o, const char *arg, const char *verb)
{
	if (arg[0] != '/')
		return usage_error(verb, "--tmpdir needs an absolute directory, not '%s'", arg);
	*(const char **)o->value = arg;
	return 0;
}

static int opt_max_unpacked(const struct opt *o, const char *arg, const char *verb)
{
	if (!parse_size(arg, o->value))
		return usage_error(verb, "invalid --max-unpacked '%s': expected a size such as 4G",
				   arg);
	return 0;
}

static int opt_max_memory(const struct opt *o, const char *arg, const char *verb)
{
	if (!parse_size(arg, o->value) || *(uint64_t *)o->value < (1u << 20))
		return usage_error(verb, "invalid --max-memory '%s': expected a size of at least "
				   "1M, such as 256M", arg);
	return 0;
}

static int opt_threads(const struct opt *o, const char *arg, const char *verb)
{
	if (parse_uint(arg, 64, o->value) < 0 || *(unsigned *)o->value == 0)
		return usage_error(verb, "invalid --threads '%s': expected 1 to 64", arg);
	return 0;
}

void targetrun_init(struct targetrun *tr, const struct s2c_ctx *ctx, const char *verb,
		    bool threads)
{
	size_t n = 0;

	memset(tr, 0, sizeof(*tr));
	dbargs_init(&tr->db);
	auditargs_init(&tr->out, AUDITARGS_TARGETS);
	tr->threads = S2C_MIN(ctx->ncpus, 64u);
	tr->tmpdir = tmp_dir();
	tr->lim = STAGE_LIMITS_DEFAULT;
	tr->verb = verb;
	tr->ctx = ctx;
	if (threads)
		tr->opts[n++] = (struct opt)OPT_CALLBACK("threads", &tr->threads, "N",
							 "packages read at once (default: the CPU "
							 "count)", opt_threads);
	tr->opts[n++] = (struct opt)OPT_CALLBACK("tmpdir", &tr->tmpdir, "DIR",
						 "make the private 0700 directory for unpacked\n"
						 "members in DIR (default: $TMPDIR, else /tmp)",
						 opt_tmpdir);
	tr->opts[n++] = (struct opt)OPT_CALLBACK("max-unpacked", &tr->lim.max_unpacked, "SIZE",
						 "refuse what unpacks to more than SIZE bytes\n"
						 "(suffix K, M, G, T; default 16G): the\n"
						 "decompression-bomb limit", opt_max_unpacked);
	tr->opts[n++] = (struct opt)OPT_CALLBACK("max-memory", &tr->lim.max_memory, "SIZE",
						 "refuse a package or image whose members\n"
						 "and privileged files take more memory\n"
						 "than SIZE, names and an .rpm's header\n"
						 "included, or a run whose packages keep\n"
						 "more once read (default 256M)",
						 opt_max_memory);
	tr->opts[n] = (struct opt)OPT_END();
}

/* What the first bytes of a file say it is, or NULL. */
static const char *input_kind(const unsigned char *b, size_t n)
{
	static const unsigned char rpm_lead[] = { 0xed, 0xab, 0xee, 0xdb };

	if (n >= 21 && memcmp(b, "!<arch>\ndebian-binary", 21) == 0)
		return "a Debian package";
	if (n >= 4 && memcmp(b, rpm_lead, sizeof(rpm_lead)) == 0)
		return "an rpm package";
	if (n >= 262 && memcmp(b + 257, "ustar", 5) == 0)
		return "a tar archive";
	return NULL;
}

int targetrun_check_input(const char *verb, const char *path, bool want_image)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	_cleanup_free_ char *shown = shown_path(path);
	unsigned char head[512];
	const char *what = NULL;
	struct stat st, layout;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0)
		return 0;       /* the reader names the problem */
	if (S_ISDIR(st.st_mode) && !want_image &&
	    fstatat(fd, "oci-layout", &layout, AT_SYMLINK_NOFOLLOW) == 0)
		what = "an OCI image layout";
	else if (S_ISREG(st.st_mode) && (n = pread(fd, head, sizeof(head), 0)) > 0)
		what = input_kind(head, (size_t)n);
	if (!what || (want_image ? !strstr(what, "package") : !!strstr(what, "package")))
		return 0;
	if (want_image)
		return usage_error(verb, "'%s' is %s, not a container image: packages are read by "
				   "'suid2cap audit-pkg'", shown ? shown : path, what);
	return usage_error(verb, "'%s' is %s, not a .deb or .rpm package: container images "
			   "(docker save, OCI layouts) are read by 'suid2cap audit-image'",
			   shown ? shown : path, what);
}

/* The hooks of pipeline/auditrun.h: what only cli/ does during a run. */
static int hook_load_rules(const char *root, struct rules_db **ret, void *userdata)
{
	struct targetrun *tr = userdata;

	tr->hook_exit = root ? dbargs_load_root(&tr->db, root, ret) : dbargs_load(&tr->db, ret);
	return tr->hook_exit ? -ECANCELED : 0;
}

static void hook_hold(void *userdata)
{
	(void)userdata;
	interrupt_hold();
}

static void hook_release(void *userdata)
{
	(void)userdata;
	interrupt_release();
}

static int hook_guard(int dirfd, const char *name, void *userdata)
{
	struct targetrun *tr = userdata;

	tr->hook_exit = interrupt_register(dirfd, name, true, &tr->stage_guard);
	return tr->hook_exit ? -ECANCELED : 0;
}

static void hook_unguard(void *userdata)
{
	struct targetrun *tr = userdata;

	interrupt_forget(tr->stage_guard);
	tr->stage_guard = 0;
}

const struct auditrun_hooks *targetrun_hooks(struct targetrun *tr, batch_progress_fn progress)
{
	tr->hooks = (struct auditrun_hooks){
		.load_rules = hook_load_rules,
		.hold = hook_hold,
		.release = hook_release,
		.guard = hook_guard,
		.unguard = hook_unguard,
		.progress = progress,
		.userdata = tr,
	};
	return &tr->hooks;
}

const struct auditrun_opts *targetrun_opts(struct targetrun *tr)
{
	tr->settings = (struct auditrun_opts){
		.tmpdir = tr->tmpdir,
		.lim = tr->lim,
		.dt = {
			.kernel = tr->db.kernel,
			.has_bounding = tr->db.has_bounding,
			.bounding = tr->db.bounding,
			.bounding_what = tr->db.bounding_what,
		},
		.threads = tr->threads,
	};
	return &tr->settings;
}

/*
 * A target past the memory budget stops the run: it is not a damaged package
 * but one the budget does not allow, so nothing is written (exit 2).
 */
static int over_budget(struct target *const *targets, size_t n)
{
	int ex = 0;

	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *shown = NULL;
		if (targets[i]->error_code != -ENOBUFS)
			continue;
		shown = shown_path(targets[i]->source);
		log_error("cannot audit '%s': %s; nothing written",
			  shown ? shown : targets[i]->source, targets[i]->error);
		ex = S2C_EXIT_USAGE;
	}
	return ex;
}

/* A blob that does not match its digest: nothing of the run is reported. */
static int refuse_tampered(struct target *const *v, size_t n)
{
	int ex = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i]->bad_digest) {
			_cleanup_free_ char *shown = shown_path(v[i]->source);
			log_error("'%s' is not the image its digests say: %s",
				  shown ? shown : v[i]->source, v[i]->error);
			ex = S2C_EXIT_USAGE;
		}
	return ex;
}

/* A target that could not be read, named as the user can find it (shown_path()). */
static void warn_unreadable(const struct target *t)
{
	_cleanup_free_ char *shown = shown_path(t->source);

	log_error("cannot read '%s': %s, skipping", shown ? shown : t->source, t->error);
}

/* The first reason the audit of @at is incomplete, how many more there are, and whether the
 * user allowed it. */
static void warn_incomplete(const struct audit_target *at, bool allowed)
{
	_cleanup_free_ char *shown = shown_path(at->source);
	size_t n = 0;

	while (at->incomplete[n])
		n++;
	log_warning("the audit of '%s' is incomplete: %s%s%s", shown ? shown : at->source,
		    at->incomplete[0], n > 1 ? " (and more in the report)" : "",
		    allowed ? "; allowed with --allow-incomplete" : "");
}

/* Write @au, completed with the facts every report carries, as the options say. */
static int write_report(const struct targetrun *tr, struct audit *au,
			struct target *const *targets, size_t n, const struct s2c_ctx *ctx)
{
	bool image = n == 1 && targets[0]->kind == TARGET_IMAGE && targets[0]->stage, any = false;
	int rootfd = image ? stage_rootfd(targets[0]->stage) : -1;
	_cleanup_free_ char *pgr = NULL, *wfile = NULL;
	struct waiver_list waivers = { 0 };
	struct identity id;
	int ex;

	if (image && asprintf(&wfile, "%s:%s", targets[0]->source, AUDITARGS_WAIVERS_FILE) < 0) {
		wfile = NULL;
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	/* An image's own waivers only when it is trusted (--trust-image-config). */
	ex = auditargs_waivers(&tr->out, tr->trust_image ? rootfd : -1, wfile, &waivers, &any);
	if (ex) {
		waiver_list_release(&waivers);
		return ex;
	}
	(void)host_sysctl(au->host, "net.ipv4.ping_group_range", &pgr);
	identity_init(&id, rootfd, false, tr->shard);
	id.id.label = tr->out.label;
	au->ping_group_range = pgr;
	au->identity = &id.id;
	au->waivers = any ? &waivers : NULL;
	ex = auditargs_write(&tr->out, au, ctx, au->scan_warnings > 0 ||
			     (au->targets_incomplete > 0 && !tr->out.allow_incomplete));
	identity_release(&id);
	waiver_list_release(&waivers);
	return ex;
}


int targetrun_report(const struct targetrun *tr, struct auditrun *ar, int r,
		     const struct s2c_error *err, char **argv, const struct s2c_ctx *ctx)
{
	struct targetaudit *ta = &ar->ta;

	if (r < 0)
		switch (ar->stop) {
		case AUDITRUN_OVER_BUDGET:
			return over_budget(ar->targets, ar->n);
		case AUDITRUN_TAMPERED:
			return refuse_tampered(ar->targets, ar->n);
		case AUDITRUN_HOOK_FAILED:
			return tr->hook_exit;
		case AUDITRUN_FAILED:
		default:
			r = error_exit(r, err);
			return ar->decided ? r : S2C_EXIT_FAILURE;
		}
	for (size_t i = 0; i < ta->n; i++) {
		if (ta->targets[i]->error)
			warn_unreadable(ta->targets[i]);
		else if (ta->at[i].incomplete)
			warn_incomplete(&ta->at[i], tr->out.allow_incomplete);
	}
	ta->au.argv = (const char *const *)argv;
	ta->au.incomplete_allowed = ta->au.targets_incomplete > 0 && tr->out.allow_incomplete;
	return write_report(tr, &ta->au, ta->targets, ta->n, ctx);
}
