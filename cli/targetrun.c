/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "binary.h"
#include "cli.h"
#include "db.h"
#include "dockerfile.h"
#include "elfinfo.h"
#include "emit.h"
#include "emitdeb.h"
#include "engine.h"
#include "facts.h"
#include "fcaps.h"
#include "host.h"
#include "identity.h"
#include "idmap.h"
#include "interrupt.h"
#include "oci.h"
#include "plan.h"
#include "stage.h"
#include "target.h"
#include "targetrun.h"
#include "util.h"
#include "waiver.h"
#include "common.h"

/* "16G", "512M", "1000" */
static int parse_size(const char *arg, uint64_t *ret)
{
	_cleanup_free_ char *num = strdup(arg);
	size_t n = num ? strlen(num) : 0;
	unsigned shift = 0;
	uint64_t v;

	if (!num || n == 0)
		return -EINVAL;
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
		return -EINVAL;
	*ret = v << shift;
	return 0;
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
	if (parse_size(arg, o->value) < 0)
		return usage_error(verb, "invalid --max-unpacked '%s': expected a size such as 4G",
				   arg);
	return 0;
}

static int opt_max_memory(const struct opt *o, const char *arg, const char *verb)
{
	if (parse_size(arg, o->value) < 0 || *(uint64_t *)o->value < (1u << 20))
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
	const char *tmp = getenv("TMPDIR");
	size_t n = 0;

	memset(tr, 0, sizeof(*tr));
	dbargs_init(&tr->db);
	auditargs_init(&tr->out, AUDITARGS_TARGETS);
	tr->threads = S2C_MIN(ctx->ncpus, 64u);
	tr->tmpdir = !s2c_isempty(tmp) && tmp[0] == '/' ? tmp : "/tmp";
	tr->lim = STAGE_LIMITS_DEFAULT;
	tr->verb = verb;
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
						 "refuse a package or image whose list of\n"
						 "members takes more memory than SIZE, names\n"
						 "included (default 256M)", opt_max_memory);
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

int targetrun_stage(struct targetrun *tr, struct stage **ret)
{
	struct s2c_error err = { 0 };
	_cleanup_close_ int parent = open(tr->tmpdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int r;

	if (parent < 0) {
		log_error("cannot create a private directory in '%s': %s", tr->tmpdir,
			  strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	/* Made and registered in one step: a signal removes it whenever it comes. */
	interrupt_hold();
	r = stage_new_temp(tr->tmpdir, ret, &err);
	if (r == 0) {
		tr->stage_guard = interrupt_register(parent, strrchr(stage_dir(*ret), '/') + 1,
						     true);
		if (tr->stage_guard < 0) {
			r = tr->stage_guard;
			*ret = stage_free(*ret);
		}
	}
	interrupt_release();
	if (r < 0) {
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	stage_set_limits(*ret, &tr->lim);
	return 0;
}

void targetrun_unstage(struct targetrun *tr, struct stage *run)
{
	stage_free(run);
	interrupt_forget(tr->stage_guard);
	tr->stage_guard = 0;
}

/* --- per target ----------------------------------------------------------------------------- */

struct fileinfo {
	char *packed, *fallback;
	char **install;               /* NULL-terminated */
	struct audit_lib *libs;
	size_t n_libs;
};

struct tstate {
	struct target *t;
	struct target_file *files;
	size_t n_files;
	struct host *host;
	struct idmap *ids;
	struct decision **ds;
	struct fileinfo *info;
	char *plan;
	const char *plan_format;
	char **notes;                 /* NULL-terminated */
	char **incomplete;            /* NULL-terminated */
	const char **layers, **layer_cmds;
};

static void tstate_release(struct tstate *ts)
{
	for (size_t i = 0; ts->ds && i < ts->n_files; i++)
		decision_free(ts->ds[i]);
	free(ts->ds);
	for (size_t i = 0; ts->info && i < ts->n_files; i++) {
		free(ts->info[i].packed);
		free(ts->info[i].fallback);
		strv_free(ts->info[i].install);
		free(ts->info[i].libs);
	}
	free(ts->info);
	target_files_free(ts->files, ts->n_files);
	idmap_free(ts->ids);
	host_free(ts->host);
	free(ts->plan);
	strv_free(ts->notes);
	strv_free(ts->incomplete);
	free(ts->layers);
	free(ts->layer_cmds);
	target_free(ts->t);
}

static const char *when_text(const struct ms_action *a)
{
	switch (a->when) {
	case MS_SETCAP_WORKS: return " (where setcap works)";
	case MS_SETCAP_FAILS: return " (where setcap fails)";
	default: return "";
	}
}

static char *state_text(uint32_t mode, const char *owner, uint32_t uid, const char *group,
			uint32_t gid, bool caps, const char *caps_text)
{
	char *s = NULL, o[16], g[16];

	(void)snprintf(o, sizeof(o), "%" PRIu32, uid);
	(void)snprintf(g, sizeof(g), "%" PRIu32, gid);
	if (asprintf(&s, "%04o %s:%s%s%s", mode & 07777, owner ? owner : o, group ? group : g,
		     caps ? " with capabilities " : "", caps ? (caps_text ? caps_text : "as packed") :
		     "") < 0)
		return NULL;
	return s;
}

/* The origin texts of file @i of @ts. */
static int file_info(struct tstate *ts, size_t i, struct target *const *all, size_t n,
		     const struct libindex *li, size_t self)
{
	const struct target_file *tf = &ts->files[i];
	const struct member *m = tf->member;
	const struct decision *d = ts->ds[i];
	struct fileinfo *fi = &ts->info[i];
	size_t n_install = 0;
	int r = 0;

	if (tf->changed) {
		_cleanup_free_ char *caps = NULL;
		if (m->has_caps) {
			struct fcaps c;
			if (m->caps_len && fcaps_decode(m->caps, m->caps_len, &c, NULL) == 0)
				caps = fcaps_to_text(&c);
		}
		fi->packed = state_text(m->mode, m->uname, m->uid, m->gname, m->gid, m->has_caps, caps);
		if (!fi->packed)
			return -ENOMEM;
	}
	if (tf->has_fallback) {
		fi->fallback = state_text(tf->fallback_mode, tf->fallback_owner, tf->facts->uid,
					  tf->fallback_group, tf->facts->gid, tf->fallback_caps, NULL);
		if (!fi->fallback)
			return -ENOMEM;
	}
	for (size_t k = 0; k < tf->n_actions && r == 0; k++) {
		const struct ms_action *a = tf->actions[k];
		char *s = NULL;
		if (asprintf(&s, "%s line %u: %s%s%s", a->script, a->line, a->command, when_text(a),
			     a->conditional ? " (under a condition not evaluated)" : "") < 0)
			s = NULL;
		r = strv_push(&fi->install, &n_install, s);
	}
	if (r < 0 || ts->t->kind == TARGET_IMAGE || !d->elf || !d->elf->n_needed)
		return r;
	fi->libs = calloc(d->elf->n_needed, sizeof(*fi->libs));
	if (!fi->libs)
		return -ENOMEM;
	for (size_t k = 0; k < d->elf->n_needed; k++) {
		const char *path = NULL;
		size_t who = libindex_find(li, self, d->elf->needed[k], &path);
		fi->libs[k] = (struct audit_lib){
			.soname = d->elf->needed[k],
			.provider = who < n ? all[who]->name : NULL,
			.path = who < n ? path : NULL,
		};
	}
	fi->n_libs = d->elf->n_needed;
	return 0;
}

/* "--cap-add NET_ADMIN --cap-add SYS_NICE" for @mask. */
static char *cap_add_options(uint64_t mask)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (int c = 0; c < 64; c++) {
		_cleanup_free_ char *name = (mask & (UINT64_C(1) << c)) ?
			fcaps_mask_names(UINT64_C(1) << c) : NULL;
		if (!name)
			continue;
		(void)fprintf(f, "%s--cap-add ", len || ftell(f) ? " " : "");
		for (const char *p = strncmp(name, "cap_", 4) == 0 ? name + 4 : name; *p; p++)
			(void)fputc(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, f);
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * A container cannot grant what its bounding set lacks: say so for an image whose bounding
 * set is not known (no --bounding-set, no /.dockerenv), without changing the verdict.  With the
 * effective bit, execve(2) refuses such a program outright (the kernel's check for
 * capability-dumb programs); without it, the program starts but cannot raise them.
 */
static int bounding_warning(struct decision *d)
{
	uint64_t caps = d->has_caps ? d->caps.permitted | d->caps.inheritable : 0, docker, podman;
	_cleanup_free_ char *names = NULL, *opts = NULL;
	const char *effect;
	char *w = NULL, **v;

	oci_outside_bounding(caps, &docker, &podman);
	if (!podman)
		return 0;
	names = fcaps_mask_names(docker ? docker : podman);
	opts = cap_add_options(docker ? docker : podman);
	if (!names || !opts)
		return -ENOMEM;
	effect = d->caps.effective ? "execve fails with EPERM" :
				     "the program starts but cannot raise it";
	if (docker && asprintf(&w, "%s is outside the default bounding set of Docker and Podman "
			       "containers: %s unless the container runs with %s", names, effect,
			       opts) < 0)
		return -ENOMEM;
	if (!docker && asprintf(&w, "%s is outside the default bounding set of Podman containers "
				"(Docker has it): under Podman, %s unless the container runs with %s",
				names, effect, opts) < 0)
		return -ENOMEM;
	v = realloc(d->warnings, (d->n_warnings + 1) * sizeof(*v));
	if (!v) {
		free(w);
		return -ENOMEM;
	}
	d->warnings = v;
	v[d->n_warnings++] = w;
	return 0;
}

static int make_plan(struct tstate *ts, const struct rules_db *db)
{
	struct s2c_error err = { 0 };
	struct plan *p = NULL;
	struct plan_summary sum;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r = plan_build((const struct decision *const *)ts->ds, ts->n_files, ts->host, db, "/",
			   false, &p, &err);

	if (r < 0) {
		/* Not planned: say why with the target. */
		char *s = NULL;
		if (r == -ENOMEM || asprintf(&s, "no plan: %s", err.msg[0] ? err.msg : strerror(-r)) < 0)
			return -ENOMEM;
		size_t nn = 0;
		while (ts->notes && ts->notes[nn])
			nn++;
		return strv_push(&ts->notes, &nn, s);
	}
	plan_summarise(p, &sum);
	if (sum.change == 0) {
		plan_free(p);
		return 0;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		plan_free(p);
		return -ENOMEM;
	}
	switch (ts->t->kind) {
	case TARGET_RPM:
		ts->plan_format = "rpm";
		r = emit_rpm(p, db, f);
		break;
	case TARGET_IMAGE:
		ts->plan_format = "dockerfile";
		r = dockerfile_emit(p, ts->t->name, f);
		break;
	case TARGET_DEB:
		ts->plan_format = "deb";
		r = emit_deb(p, db, f);
		break;
	case _TARGET_KIND_MAX:
		r = -EINVAL;    /* no default: a new package format is a case the compiler asks for */
		break;
	}
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	plan_free(p);
	if (r < 0) {
		free(text);
		return r;
	}
	ts->plan = text;
	return 0;
}

static int decide_target(const struct targetrun *tr, const struct rules_db *db, struct tstate *ts,
			 struct target *const *all, size_t n, size_t self,
			 const struct libindex *li)
{
	struct target *t = ts->t;
	struct s2c_error err = { 0 };
	_cleanup_free_ const struct facts **facts = NULL;
	struct engine e;
	int r;

	if (t->error)
		return 0;
	r = target_share_libs(t, all, n);
	if (r >= 0)
		r = target_files(t, &ts->files, &ts->n_files, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return target_fail(t, r, &err);
	if (ts->n_files == 0)
		return 0;
	r = host_new(stage_rootfd(t->stage), false, tr->db.kernel, &ts->host, &err);
	if (r == 0 && tr->db.has_bounding)
		r = host_set_bounding(ts->host, tr->db.bounding, tr->db.bounding_what);
	if (r == 0)
		r = idmap_new(stage_rootfd(t->stage), &ts->ids);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return target_fail(t, r, &err);
	facts = calloc(ts->n_files, sizeof(*facts));
	ts->ds = calloc(ts->n_files, sizeof(*ts->ds));
	ts->info = calloc(ts->n_files, sizeof(*ts->info));
	if (!facts || !ts->ds || !ts->info)
		return -ENOMEM;
	for (size_t i = 0; i < ts->n_files; i++) {
		struct facts *f = ts->files[i].facts;
		facts[i] = f;
		if (t->kind == TARGET_IMAGE)
			r = facts_set_names(f, ts->ids);
		else
			r = host_set_package(ts->host, f->path, t->name, t->version);
		if (r < 0)
			return r;
	}
	e = (struct engine){ .db = db, .host = ts->host, .ids = ts->ids,
			     .rootfd = stage_rootfd(t->stage) };
	r = engine_prepare(&e, facts, ts->n_files);
	for (size_t i = 0; i < ts->n_files && r == 0; i++) {
		struct binary bin = { 0 };

		r = binary_read(stage_rootfd(t->stage), facts[i], db->strings, db->prefixes, &bin);
		if (r == 0)
			r = engine_decide(&e, facts[i], &bin, &ts->ds[i], &err);
		binary_release(&bin);
		/* a known bounding set (--bounding-set, /.dockerenv) already shaped the verdict */
		if (r == 0 && t->kind == TARGET_IMAGE && !tr->db.has_bounding &&
		    ts->host->bounding == HOST_BOUNDING_ALL)
			r = bounding_warning(ts->ds[i]);
	}
	if (r < 0)
		return r;
	for (size_t i = 0; i < ts->n_files && r == 0; i++)
		r = file_info(ts, i, all, n, li, self);
	if (r == 0)
		r = make_plan(ts, db);
	return r;
}

/* Notes of the target, and why its audit is incomplete (its own and its scripts'). */
static int collect_notes(struct tstate *ts)
{
	size_t n = 0, k = 0;
	int r = 0;

	while (ts->notes && ts->notes[n])
		n++;
	for (size_t i = 0; i < ts->t->n_notes && r == 0; i++)
		r = strv_push(&ts->notes, &n, strdup(ts->t->notes[i]));
	for (size_t i = 0; i < ts->t->n_incomplete && r == 0; i++)
		r = strv_push(&ts->incomplete, &k, strdup(ts->t->incomplete[i]));
	for (size_t i = 0; i < ts->t->scripts.n_incomplete && r == 0; i++)
		r = strv_push(&ts->incomplete, &k, strdup(ts->t->scripts.incomplete[i]));
	return r;
}

static int cmp_target(const void *a, const void *b)
{
	const struct target *x = *(struct target *const *)a, *y = *(struct target *const *)b;
	int c = strcmp(x->name ? x->name : x->source, y->name ? y->name : y->source);

	if (c == 0 && x->version && y->version)
		c = strcmp(x->version, y->version);
	if (c == 0 && x->arch && y->arch)
		c = strcmp(x->arch, y->arch);
	return c ? c : strcmp(x->source, y->source);
}

int targetrun_load(const struct targetrun *tr, struct rules_db **ret_db, const char ***ret_globs)
{
	struct rules_db *db = NULL;
	const struct captable *t;
	const char **globs;
	size_t n = 0;
	int ex = dbargs_load(&tr->db, &db);

	if (ex)
		return ex;
	t = &db->caps;
	globs = calloc(t->n_evidence + 1, sizeof(*globs));
	if (!globs) {
		rules_db_free(db);
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	for (size_t i = 0; i < t->n_evidence; i++) {
		bool seen = false;
		if (!t->evidence[i].library)
			continue;
		for (size_t j = 0; j < n && !seen; j++)
			seen = s2c_streq(globs[j], t->evidence[i].library);
		if (!seen)
			globs[n++] = t->evidence[i].library;
	}
	*ret_db = db;
	*ret_globs = globs;
	return 0;
}

/*
 * A target past the memory budget stops the run: it is not a damaged package
 * but one the budget does not allow, so nothing is written (exit 2).
 */
static int over_budget(const struct targetrun *tr, struct target *const *targets, size_t n)
{
	int ex = 0;

	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *shown = NULL;
		if (targets[i]->error_code != -ENOBUFS)
			continue;
		shown = shown_path(targets[i]->source);
		log_error("cannot audit '%s': its list of members takes more than %" PRIu64 " MiB "
			  "of memory, names included, the budget of --max-memory; nothing written",
			  shown ? shown : targets[i]->source, tr->lim.max_memory >> 20);
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

/* The first reason the audit of @ts is incomplete, how many more there are, and whether the
 * user allowed it. */
static void warn_incomplete(const struct tstate *ts, bool allowed)
{
	_cleanup_free_ char *shown = shown_path(ts->t->source);
	size_t n = 0;

	while (ts->incomplete[n])
		n++;
	log_warning("the audit of '%s' is incomplete: %s%s%s", shown ? shown : ts->t->source,
		    ts->incomplete[0], n > 1 ? " (and more in the report)" : "",
		    allowed ? "; allowed with --allow-incomplete" : "");
}

/*
 * The report's entry for target @i (@ts) and the origins of its files, which go into @v and
 * @origins from *@k on.  Returns 0 or -ENOMEM.
 */
static int fill_target(struct tstate *ts, size_t i, struct audit_target *at, struct decision **v,
		       struct audit_origin *origins, size_t *k)
{
	struct target *t = ts->t;

	if (t->kind == TARGET_IMAGE) {
		ts->layers = calloc(t->n_layers + 1, sizeof(char *));
		ts->layer_cmds = calloc(t->n_layers + 1, sizeof(char *));
		if (!ts->layers || !ts->layer_cmds)
			return -ENOMEM;
		for (size_t l = 0; l < t->n_layers; l++) {
			ts->layers[l] = t->layers[l].digest;
			ts->layer_cmds[l] = t->layers[l].created_by;
		}
	}
	*at = (struct audit_target){
		.kind = target_kind_name(t->kind),
		.source = t->source,
		.name = t->error ? NULL : t->name,
		.version = t->error ? NULL : t->version,
		.arch = t->error ? NULL : t->arch,
		.error = t->error,
		.notes = (const char *const *)ts->notes,
		.incomplete = (const char *const *)ts->incomplete,
		.layers = ts->layers,
		.layer_commands = ts->layer_cmds,
		.n_layers = t->kind == TARGET_IMAGE ? t->n_layers : 0,
		.plan_format = ts->plan_format,
		.plan = ts->plan,
		.files = ts->n_files,
	};
	for (size_t f = 0; f < ts->n_files; f++, (*k)++) {
		const struct fileinfo *fi = &ts->info[f];
		v[*k] = ts->ds[f];
		origins[*k] = (struct audit_origin){
			.target = i,
			.layer = t->kind == TARGET_IMAGE ? (long)ts->files[f].member->layer : -1,
			.packed = fi->packed,
			.fallback = fi->fallback,
			.install = (const char *const *)fi->install,
			.libs = fi->libs,
			.n_libs = fi->n_libs,
		};
	}
	return 0;
}

/*
 * The facts of the report's target when no target has a privileged file: those of the empty
 * root of the run.  Returns 0 or an exit code after printing.
 */
static int empty_host(const struct targetrun *tr, struct stage *run, struct host **ret)
{
	struct s2c_error err = { 0 };
	struct host *h = NULL;
	int r = host_new(stage_rootfd(run), false, tr->db.kernel, &h, &err);

	if (r == 0 && tr->db.has_bounding)
		r = host_set_bounding(h, tr->db.bounding, tr->db.bounding_what);
	if (r < 0) {
		host_free(h);
		log_error("cannot read facts of the target: %s", err.msg[0] ? err.msg : strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	*ret = h;
	return 0;
}

/*
 * Decide about the files of the @n targets of @ts; *@ret_total: how many there are in all.
 * Returns 0 or an exit code after printing.
 */
static int decide_targets(const struct targetrun *tr, const struct rules_db *db, struct tstate *ts,
			  struct target *const *targets, size_t n, size_t *ret_total)
{
	struct libindex li = { 0 };
	size_t total = 0;
	int r = libindex_build(&li, targets, n);

	for (size_t i = 0; i < n && r == 0; i++) {
		r = decide_target(tr, db, &ts[i], targets, n, i, &li);
		if (r == 0)
			r = collect_notes(&ts[i]);
		total += ts[i].n_files;
	}
	libindex_release(&li);
	if (r < 0) {
		log_error("cannot decide: %s", strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	*ret_total = total;
	return 0;
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

int targetrun_audit(const struct targetrun *tr, struct rules_db *db, struct target **targets,
		    size_t n, struct stage *run, char **argv, const struct s2c_ctx *ctx)
{
	_cleanup_free_ struct tstate *ts = calloc(n ? n : 1, sizeof(*ts));
	_cleanup_free_ struct audit_target *at = calloc(n ? n : 1, sizeof(*at));
	_cleanup_free_ struct decision **v = NULL;
	_cleanup_free_ struct audit_origin *origins = NULL;
	struct host *report_host = NULL, *own_host = NULL;
	size_t total = 0, k = 0, failed = 0, incomplete = 0;
	struct audit au;
	int ex;

	if (!ts || !at) {
		for (size_t i = 0; i < n; i++)
			target_free(targets[i]);
		rules_db_free(db);
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	if (n)
		qsort(targets, n, sizeof(*targets), cmp_target);
	for (size_t i = 0; i < n; i++)
		ts[i].t = targets[i];
	ex = over_budget(tr, targets, n);
	if (ex)
		goto out;
	ex = decide_targets(tr, db, ts, targets, n, &total);
	if (ex)
		goto out;
	v = calloc(total ? total : 1, sizeof(*v));
	origins = calloc(total ? total : 1, sizeof(*origins));
	if (!v || !origins) {
		log_error("out of memory");
		ex = S2C_EXIT_FAILURE;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (ts[i].t->error) {
			failed++;
			warn_unreadable(ts[i].t);
		} else if (ts[i].incomplete) {
			incomplete++;
			warn_incomplete(&ts[i], tr->out.allow_incomplete);
		}
		if (fill_target(&ts[i], i, &at[i], v, origins, &k) < 0) {
			log_error("out of memory");
			ex = S2C_EXIT_FAILURE;
			goto out;
		}
		if (!report_host && ts[i].host)
			report_host = ts[i].host;
	}
	/* Nothing privileged anywhere: the report's target facts come from an empty root. */
	if (!report_host) {
		ex = empty_host(tr, run, &own_host);
		if (ex)
			goto out;
		report_host = own_host;
	}
	au = (struct audit){
		.root = "/",
		.root_abs = "/",
		.complete = failed == 0 && incomplete == 0,
		.scan_warnings = failed,
		.targets_incomplete = incomplete,
		.incomplete_allowed = incomplete > 0 && tr->out.allow_incomplete,
		.directories = 0,
		.entries = n,
		.db = db,
		.host = report_host,
		.v = v,
		.n = total,
		.argv = (const char *const *)argv,
		.targets = at,
		.n_targets = n,
		.origins = origins,
	};
	ex = write_report(tr, &au, targets, n, ctx);
out:
	host_free(own_host);
	for (size_t i = 0; i < n; i++)
		tstate_release(&ts[i]);
	rules_db_free(db);
	return ex;
}
