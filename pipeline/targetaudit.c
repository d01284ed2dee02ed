/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "db.h"
#include "decide.h"
#include "dockerfile.h"
#include "elfinfo.h"
#include "emit.h"
#include "emitdeb.h"
#include "engine.h"
#include "facts.h"
#include "fcaps.h"
#include "host.h"
#include "oci.h"
#include "plan.h"
#include "scan.h"
#include "stage.h"
#include "target.h"
#include "targetaudit.h"
#include "util.h"
#include "common.h"

struct fileinfo {
	char *packed, *fallback;
	char **install;               /* NULL-terminated */
	struct audit_lib *libs;
	size_t n_libs;
};

/* One target: its files and the decisions about them (decide_all()), their origins. */
struct tstate {
	struct target *t;
	struct target_file *files;
	size_t n_files;
	struct decisions ds;          /* ds.v parallel to files */
	struct fileinfo *info;
	char *plan;
	const char *plan_format;
	char **notes;                 /* NULL-terminated */
	char **incomplete;            /* NULL-terminated */
	const char **layers, **layer_cmds;
};

static void tstate_release(struct tstate *ts)
{
	decisions_release(&ts->ds);
	for (size_t i = 0; ts->info && i < ts->n_files; i++) {
		free(ts->info[i].packed);
		free(ts->info[i].fallback);
		strv_free(ts->info[i].install);
		free(ts->info[i].libs);
	}
	free(ts->info);
	target_files_free(ts->files, ts->n_files);
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
	const struct decision *d = ts->ds.v[i];
	struct fileinfo *fi = &ts->info[i];
	size_t n_install = 0;
	int r = 0;

	if (tf->changed) {
		_cleanup_free_ char *caps = NULL;
		if (m->has_caps) {
			struct fcaps c;
			if (member_caps(m) &&
			    fcaps_decode(member_caps(m), member_caps_len(m), &c, NULL) == 0)
				caps = fcaps_to_text(&c);
		}
		fi->packed = state_text(m->mode, member_uname(m), member_uid(m), member_gname(m),
					member_gid(m), m->has_caps, caps);
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
static int bounding_warning(struct decision *d, struct strpool *pool)
{
	uint64_t caps = d->has_caps ? d->caps.permitted | d->caps.inheritable : 0, docker, podman;
	_cleanup_free_ char *names = NULL, *opts = NULL;
	const char *effect;
	char *w = NULL;

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
	return decision_add_warning(d, w, pool);
}

static int make_plan(struct tstate *ts, const struct rules_db *db)
{
	struct s2c_error err = { 0 };
	struct plan *p = NULL;
	struct plan_summary sum;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r = plan_build((const struct decision *const *)ts->ds.v, ts->ds.n, ts->ds.host, db, "/",
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

/*
 * Decide about the privileged files of target @self of the @n @all (@ts) with @db and @dt
 * (the user's kernel and bounding set), and make its plan.  What keeps the installed state
 * from being worked out is recorded on the target.  Returns 0 or -ENOMEM.
 */
static int decide_target(const struct rules_db *db, const struct decide_target *dt,
			 struct tstate *ts, struct target *const *all, size_t n, size_t self,
			 const struct libindex *li)
{
	struct target *t = ts->t;
	struct decide_target tt = *dt;
	struct scan_result res;
	struct s2c_error err = { 0 };
	_cleanup_free_ struct facts **facts = NULL;
	int r;

	if (t->error)
		return 0;
	r = target_share_libs(t, all, n);
	if (r >= 0)
		r = target_files(t, &ts->files, &ts->n_files, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		int f = target_fail(t, r, &err);
		/* past the budget, as when reading: the run stops and writes nothing */
		return f < 0 ? f : r == -ENOBUFS ? r : 0;
	}
	if (ts->n_files == 0)
		return 0;
	facts = calloc(ts->n_files, sizeof(*facts));
	ts->info = calloc(ts->n_files, sizeof(*ts->info));
	if (!facts || !ts->info)
		return -ENOMEM;
	for (size_t i = 0; i < ts->n_files; i++)
		facts[i] = ts->files[i].facts;
	/* The target's files beneath its stage, handed over as decide_all() reads a scan's. */
	res = (struct scan_result){ .rootfd = stage_rootfd(t->stage), .v = facts,
				    .n = ts->n_files };
	tt.set_names = t->kind == TARGET_IMAGE;
	tt.package = t->kind == TARGET_IMAGE ? NULL : t->name;
	tt.package_version = t->kind == TARGET_IMAGE ? NULL : t->version;
	r = decide_all(db, &res, &tt, &ts->ds, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return target_fail(t, r, &err);
	/* a known bounding set (--bounding-set, /.dockerenv) already shaped the verdict */
	for (size_t i = 0; i < ts->ds.n && r == 0; i++)
		if (t->kind == TARGET_IMAGE && !dt->has_bounding &&
		    ts->ds.host->bounding == HOST_BOUNDING_ALL)
			r = bounding_warning(ts->ds.v[i], &ts->ds.sentences);
	for (size_t i = 0; i < ts->n_files && r == 0; i++)
		r = file_info(ts, i, all, n, li, self);
	if (r == 0)
		r = make_plan(ts, db);
	return r;
}

/* Notes of the target and why its audit is incomplete: its own and its scripts'. */
static int collect_notes(struct tstate *ts)
{
	size_t n = 0, k = 0;
	int r = 0;

	while (ts->notes && ts->notes[n])
		n++;
	for (size_t i = 0; i < ts->t->n_notes && r == 0; i++)
		r = strv_push(&ts->notes, &n, strdup(ts->t->notes[i]));
	for (size_t i = 0; i < ts->t->scripts.n_notes && r == 0; i++)
		r = strv_push(&ts->notes, &n, strdup(ts->t->scripts.notes[i]));
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
		v[*k] = ts->ds.v[f];
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


/* The facts of the report's target when no target has a privileged file: those of an empty
 * root.  Returns 0 or -errno with @err. */
static int empty_host(const struct decide_target *dt, int rootfd, struct host **ret,
		      struct s2c_error *err)
{
	int r = host_new(rootfd, false, dt->kernel, ret, err);

	if (r == 0 && dt->has_bounding)
		r = host_set_bounding(*ret, dt->bounding, dt->bounding_what);
	if (r < 0) {
		*ret = host_free(*ret);
		if (s2c_error_isset(err))
			return s2c_error_prefix(err, "cannot read facts of the target");
		return s2c_error_errno(err, r, "cannot read facts of the target");
	}
	return 0;
}

/* Decide about every target of @ta, and fill the report's entries.  Returns 0 or -ENOMEM. */
static int decide_targets(const struct rules_db *db, const struct decide_target *dt,
			  struct targetaudit *ta)
{
	struct libindex li = { 0 };
	size_t total = 0, k = 0;
	int r = libindex_build(&li, ta->targets, ta->n);

	for (size_t i = 0; i < ta->n && r == 0; i++) {
		r = decide_target(db, dt, &ta->ts[i], ta->targets, ta->n, i, &li);
		if (r == 0)
			r = collect_notes(&ta->ts[i]);
		total += ta->ts[i].n_files;
	}
	libindex_release(&li);
	if (r < 0)
		return r;
	ta->v = calloc(total ? total : 1, sizeof(*ta->v));
	ta->origins = calloc(total ? total : 1, sizeof(*ta->origins));
	if (!ta->v || !ta->origins)
		return -ENOMEM;
	for (size_t i = 0; i < ta->n && r == 0; i++)
		r = fill_target(&ta->ts[i], i, &ta->at[i], ta->v, ta->origins, &k);
	ta->au.n = total;
	return r;
}

/* The report's model of the decided targets of @ta. */
static void fill_audit(struct targetaudit *ta, const struct rules_db *db)
{
	size_t failed = 0, incomplete = 0;
	const struct host *h = ta->own_host;

	for (size_t i = 0; i < ta->n; i++) {
		if (ta->targets[i]->error)
			failed++;
		else if (ta->ts[i].incomplete)
			incomplete++;
		if (!h && ta->ts[i].ds.host)
			h = ta->ts[i].ds.host;
	}
	ta->au = (struct audit){
		.root = "/",
		.root_abs = "/",
		.complete = failed == 0 && incomplete == 0,
		.scan_warnings = failed,
		.targets_incomplete = incomplete,
		.entries = ta->n,
		.db = db,
		.host = h,
		.v = ta->v,
		.n = ta->au.n,
		.targets = ta->at,
		.n_targets = ta->n,
		.origins = ta->origins,
	};
}

int targetaudit_build(const struct rules_db *db, struct target **targets, size_t n,
		      const struct decide_target *t, int empty_rootfd, struct targetaudit *out,
		      struct s2c_error *err)
{
	bool any_host = false;
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->targets = targets;
	out->n = n;
	out->ts = calloc(n ? n : 1, sizeof(*out->ts));
	out->at = calloc(n ? n : 1, sizeof(*out->at));
	if (!out->ts || !out->at) {
		for (size_t i = 0; i < n; i++)
			target_free(targets[i]);
		out->n = 0;
		return s2c_error_errno(err, -ENOMEM, "cannot decide");
	}
	if (n)
		qsort(targets, n, sizeof(*targets), cmp_target);
	for (size_t i = 0; i < n; i++) {
		out->ts[i].t = targets[i];
		if (targets[i]->error_code == -ENOBUFS)
			r = -ENOBUFS;
	}
	if (r == -ENOBUFS)
		return s2c_error_set(err, r, "a target passed the memory budget");
	r = decide_targets(db, t, out);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot decide");
	for (size_t i = 0; i < n; i++)
		any_host |= out->ts[i].ds.host != NULL;
	/* Nothing privileged anywhere: the report's target facts come from an empty root. */
	if (!any_host && (r = empty_host(t, empty_rootfd, &out->own_host, err)) < 0)
		return r;
	fill_audit(out, db);
	return 0;
}

void targetaudit_release(struct targetaudit *ta)
{
	host_free(ta->own_host);
	for (size_t i = 0; ta->ts && i < ta->n; i++)
		tstate_release(&ta->ts[i]);
	free(ta->ts);
	free(ta->at);
	free(ta->v);
	free(ta->origins);
	memset(ta, 0, sizeof(*ta));
}
