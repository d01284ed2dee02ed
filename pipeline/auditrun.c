/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auditrun.h"
#include "batch.h"
#include "config.h"
#include "db.h"
#include "member.h"
#include "oci.h"
#include "stage.h"
#include "target.h"
#include "targetaudit.h"
#include "util.h"
#include "common.h"

/*
 * The library globs the capability table names as evidence ("libpcap.so*"),
 * which the readers keep from every target: NULL-terminated, borrowed from
 * @db; free() the array.  NULL when out of memory.
 */
static const char **evidence_globs(const struct rules_db *db)
{
	const struct captable *t = &db->caps;
	const char **globs = calloc(t->n_evidence + 1, sizeof(*globs));
	size_t n = 0;

	if (!globs)
		return NULL;
	for (size_t i = 0; i < t->n_evidence; i++) {
		bool seen = false;
		if (!t->evidence[i].library)
			continue;
		for (size_t j = 0; j < n && !seen; j++)
			seen = s2c_streq(globs[j], t->evidence[i].library);
		if (!seen)
			globs[n++] = t->evidence[i].library;
	}
	return globs;
}

/* Make the run's private stage in @o->tmpdir, guarded in the same hold: a signal removes
 * it whenever it comes. */
static int make_stage(const struct auditrun_opts *o, struct auditrun *ar, struct s2c_error *err)
{
	const struct auditrun_hooks *h = ar->hooks;
	_cleanup_close_ int parent = open(o->tmpdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int r;

	if (parent < 0)
		return s2c_error_errno(err, -errno, "cannot create a private directory in '%s'",
				       o->tmpdir);
	h->hold(h->userdata);
	r = stage_new_temp(o->tmpdir, &ar->run, err);
	if (r == 0) {
		r = h->guard(parent, strrchr(stage_dir(ar->run), '/') + 1, h->userdata);
		if (r < 0) {
			ar->run = stage_free(ar->run);
			ar->stop = AUDITRUN_HOOK_FAILED;
		}
		ar->guarded = r == 0;
	}
	h->release(h->userdata);
	if (r < 0)
		return r;
	stage_set_limits(ar->run, &o->lim);
	return 0;
}

/* The start every run shares: @out set up, the database loaded, the stage made, and the
 * libraries the readers keep in @sel, @globs (free() them). */
static int start(const struct auditrun_opts *o, const struct auditrun_hooks *h,
		 struct auditrun *out, struct target_select *sel, const char ***globs,
		 struct s2c_error *err)
{
	int r;

	memset(out, 0, sizeof(*out));
	out->hooks = h;
	r = h->load_rules(NULL, &out->db, h->userdata);
	if (r < 0) {
		out->stop = AUDITRUN_HOOK_FAILED;
		return r;
	}
	*globs = evidence_globs(out->db);
	sel->lib_globs = *globs;
	if (!*globs)
		return s2c_error_set(err, -ENOMEM, "out of memory");
	return make_stage(o, out, err);
}

/* Decide about what was read and build the report's model. */
static int finish(const struct auditrun_opts *o, struct auditrun *out, struct s2c_error *err)
{
	int r;

	out->decided = true;
	r = targetaudit_build(out->db, out->targets, out->n, &o->dt, stage_rootfd(out->run),
			      &out->ta, err);
	out->n = out->ta.n;
	if (r == -ENOBUFS)
		out->stop = AUDITRUN_OVER_BUDGET;
	return r;
}

int auditrun_pkgs(const struct auditrun_opts *o, const struct batch_list *l, bool follow,
		  const struct auditrun_hooks *h, struct auditrun *out, struct s2c_error *err)
{
	_cleanup_free_ const char **globs = NULL;
	struct target_select sel = { 0 };
	int r = start(o, h, out, &sel, &globs, err);

	if (r == 0 && batch_read(l, follow, o->threads, &sel, out->run, h->progress, h->userdata,
				 &out->targets) < 0)
		r = s2c_error_set(err, -ENOMEM, "out of memory");
	if (r < 0)
		return r;
	out->n = l->n;
	return finish(o, out, err);
}

/* Say on @t which of its own configuration files were found, and whether they are used. */
static int note_own_config(struct target *t, const struct auditrun_image *img)
{
	const char *const own[] = { img->waivers_file, S2C_SYSCONF_DBDIR, img->exclude_file };
	int r = 0;

	for (size_t i = 0; i < S2C_ELEMENTSOF(own) && r == 0; i++) {
		if (!memberset_exists(&t->members, own[i]))
			continue;
		if (s2c_streq(own[i], img->exclude_file))
			r = target_note(t, "the image's own %s is not used: an image is not walked, "
					"every file of it is audited", own[i]);
		else if (img->trust)
			r = target_note(t, "the image's own %s is used (--trust-image-config)",
					own[i]);
		else
			r = target_note(t, "the image's own %s is not used: the image is untrusted "
					"(--trust-image-config uses it)", own[i]);
	}
	return r < 0 ? -ENOMEM : 0;
}

/* The database again with the image's own rules.d in place of this host's, as
 * `audit --root` loads a root's. */
static int trusted_rules(struct auditrun *out, const struct target *t, struct s2c_error *err)
{
	const struct auditrun_hooks *h = out->hooks;
	_cleanup_free_ char *root = NULL;
	struct rules_db *own = NULL;
	int r;

	if (!t->stage)
		return 0;
	root = path_join(stage_dir(t->stage), "root");
	if (!root)
		return s2c_error_set(err, -ENOMEM, "out of memory");
	r = h->load_rules(root, &own, h->userdata);
	if (r < 0) {
		out->stop = AUDITRUN_HOOK_FAILED;
		return r;
	}
	rules_db_free(out->db);
	out->db = own;
	return 0;
}

int auditrun_image(const struct auditrun_opts *o, const struct auditrun_image *img,
		   const struct auditrun_hooks *h, struct auditrun *out, struct s2c_error *err)
{
	_cleanup_free_ const char **globs = NULL;
	struct target_select sel = { .system_files = true };
	int r = start(o, h, out, &sel, &globs, err);

	if (r == 0 && oci_read(img->path, img->platform, img->host, &sel, out->run, "image",
			       &out->targets, &out->n) < 0)
		r = s2c_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; r == 0 && i < out->n; i++)
		if (out->targets[i]->bad_digest) {
			out->stop = AUDITRUN_TAMPERED;
			r = -EBADMSG;
		}
	for (size_t i = 0; r == 0 && i < out->n; i++)
		if (!out->targets[i]->error && note_own_config(out->targets[i], img) < 0)
			r = s2c_error_set(err, -ENOMEM, "out of memory");
	if (r == 0 && img->trust && out->n == 1 && !out->targets[0]->error)
		r = trusted_rules(out, out->targets[0], err);
	if (r < 0)
		return r;
	return finish(o, out, err);
}

void auditrun_release(struct auditrun *r)
{
	if (r->decided)
		targetaudit_release(&r->ta);
	else
		for (size_t i = 0; r->targets && i < r->n; i++)
			target_free(r->targets[i]);
	free(r->targets);
	rules_db_free(r->db);
	stage_free(r->run);
	if (r->guarded)
		r->hooks->unguard(r->hooks->userdata);
	memset(r, 0, sizeof(*r));
}
