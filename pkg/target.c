/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A target: its life, its notes and error, and the archive entries the
 * readers hand it (member, staged content, hard links, later layers).  What
 * to keep is in targetkeep.c, the installed files in targetfiles.c, the
 * libraries shared between targets in targetlibs.c.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive_entry.h>

#include "arread.h"
#include "stage.h"
#include "target.h"
#include "targetkeep.h"
#include "util.h"
#include "common.h"

const char *target_kind_name(enum target_kind k)
{
	static const char *const names[_TARGET_KIND_MAX] = {
		[TARGET_DEB] = "deb", [TARGET_RPM] = "rpm", [TARGET_IMAGE] = "image",
	};
	return k < _TARGET_KIND_MAX ? names[k] : "?";
}

struct target *target_new(enum target_kind kind, const char *source)
{
	struct target *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->kind = kind;
	t->source = strdup(source);
	if (!t->source) {
		free(t);
		return NULL;
	}
	return t;
}

struct target *target_free(struct target *t)
{
	if (!t)
		return NULL;
	free(t->source);
	free(t->name);
	free(t->version);
	free(t->arch);
	memberset_release(&t->members);
	stage_free(t->stage);
	ms_analysis_release(&t->scripts);
	for (size_t i = 0; i < t->n_notes; i++)
		free(t->notes[i]);
	free(t->notes);
	for (size_t i = 0; i < t->n_incomplete; i++)
		free(t->incomplete[i]);
	free(t->incomplete);
	for (size_t i = 0; i < t->n_layers; i++) {
		free(t->layers[i].digest);
		free(t->layers[i].created_by);
	}
	free(t->layers);
	target_alts_release(t);
	free(t->error);
	free(t);
	return NULL;
}

struct ms_analysis *target_alt_add(struct target *t, char *label)
{
	struct target_alt *v;

	if (!label || t->n_alts >= TARGET_ALTS_MAX) {
		free(label);
		return NULL;
	}
	v = realloc(t->alts, (t->n_alts + 1) * sizeof(*v));
	if (!v) {
		free(label);
		return NULL;
	}
	t->alts = v;
	v[t->n_alts] = (struct target_alt){ .label = label };
	return &v[t->n_alts++].scripts;
}

void target_alts_release(struct target *t)
{
	for (size_t i = 0; i < t->n_alts; i++) {
		free(t->alts[i].label);
		ms_analysis_release(&t->alts[i].scripts);
	}
	free(t->alts);
	t->alts = NULL;
	t->n_alts = 0;
}

int target_note(struct target *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = strdup_vprintf(fmt, ap);
	va_end(ap);
	return strv_push(&t->notes, &t->n_notes, s);
}

int target_incomplete(struct target *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = strdup_vprintf(fmt, ap);
	va_end(ap);
	return strv_push(&t->incomplete, &t->n_incomplete, s);
}

bool target_complete(const struct target *t)
{
	return t->n_incomplete == 0 && t->scripts.n_incomplete == 0;
}

int target_over_budget(const struct target *t, struct s2c_error *err)
{
	return s2c_error_set(err, -ENOBUFS, "its members, names included, and its privileged "
			     "files take more than %zu MiB of memory (the budget; raise "
			     "--max-memory)", t->members.max_bytes >> 20);
}

bool target_run_keeps(const struct target *t, size_t *kept)
{
	if (t->error)
		return true;
	if (!member_budget_fits(t->members.max_bytes, *kept, t->members.bytes))
		return false;
	*kept += t->members.bytes;
	return true;
}

int target_over_run_budget(struct target *t)
{
	struct s2c_error err = { 0 };

	(void)s2c_error_set(&err, -ENOBUFS, "with the %s read before it, what the run keeps of "
			    "them takes more than %zu MiB of memory (the budget; raise "
			    "--max-memory)", t->kind == TARGET_IMAGE ? "images" : "packages",
			    t->members.max_bytes >> 20);
	return target_fail(t, -ENOBUFS, &err);
}

int target_count_candidate(struct target *t, struct member *m)
{
	int r;

	if (!m->candidate || !m->staged || m->counted)
		return 0;
	r = memberset_hold(&t->members, TARGET_FILE_MODEL_BYTES);
	m->counted = r == 0;
	return r;
}

int target_read_done(struct target *t, int r, const struct s2c_error *err, struct target **ret)
{
	struct s2c_error budget = { 0 };

	if (r == -ENOBUFS) {
		/* Whatever the reader was doing, the message is the budget's. */
		(void)target_over_budget(t, &budget);
		err = &budget;
	}
	if (r == -ENOMEM || (r < 0 && target_fail(t, r, err) < 0)) {
		target_free(t);
		return -ENOMEM;
	}
	stage_idle(t->stage);
	*ret = t;
	return 0;
}

int target_fail(struct target *t, int r, const struct s2c_error *err)
{
	t->error_code = r < 0 ? r : -r;
	free(t->error);
	t->error = strdup(s2c_error_isset(err) ? err->msg : strerror(r < 0 ? -r : r));
	t->stage = stage_free(t->stage);
	/* past the budget, what it read is given back: many such targets do not add up */
	if (r == -ENOBUFS)
		memberset_release(&t->members);
	return t->error ? 0 : -ENOMEM;
}

static int stage_open(struct target *t, struct stage *run, const char *name, struct s2c_error *err)
{
	if (t->stage)
		return 0;
	return stage_new_sub(run, name, &t->stage, err);
}

/*
 * A hard link is the inode it names, which the archive holds before it: the
 * same mode, owner, capabilities and size, and (for a link to a link) the
 * first name as its target.
 */
static int hardlink_inherit(const struct target *t, struct member *m, struct s2c_error *err)
{
	const struct member *to = memberset_get(&t->members, m->target);
	struct member_note note;

	if (!to && memberset_noted(&t->members, m->target, &note)) {
		/* A file not kept: neither set-ID nor capabilities, its name the link's target. */
		m->mode = note.mode;
		m->size = note.size;
		return member_set_owner(m, member_uname(m), member_gname(m), note.uid, note.gid) < 0 ||
		       member_set_caps(m, NULL, 0) < 0 ? -ENOMEM : 0;
	}
	if (!to || (to->type != MEMBER_FILE && to->type != MEMBER_HARDLINK)) {
		_cleanup_free_ char *shown = escape_text(m->path);
		return s2c_error_set(err, -EINVAL, "member '%s' is a hard link to nothing the "
				     "archive holds before it", shown ? shown : "?");
	}
	/* The same inode: the same mode, owner and capabilities. */
	m->mode = to->mode;
	if (member_set_owner(m, member_uname(m), member_gname(m), member_uid(to),
			     member_gid(to)) < 0 ||
	    member_set_caps(m, member_caps(to), member_caps_len(to)) < 0)
		return -ENOMEM;
	m->has_caps = to->has_caps;     /* an oversized attribute too */
	m->size = to->size;
	free(m->target);
	m->target = strdup(to->type == MEMBER_HARDLINK ? to->target : to->path);
	return m->target ? 0 : -ENOMEM;
}

/*
 * Keep @m in the stage (created on first use): a file's content from @a, a
 * hard link to a staged file, a symlink.  A file over the stage's limits is a
 * note and stays unstaged.  Returns 0, or -errno with a message naming the
 * member.
 */
static int stage_member(struct target *t, struct archive *a, struct member *m,
			struct stage *run, const char *stage_name, struct s2c_error *err)
{
	struct s2c_error serr = { 0 };
	int r = stage_open(t, run, stage_name, err);

	if (r < 0)
		return r;
	switch (m->type) {
	case MEMBER_FILE:
		r = arread_stage(a, t->stage, m->path, m->size, &serr);
		if (r == 0)
			m->staged = true;
		else if (r == -EFBIG)
			r = target_note(t, "%s: not kept: %s", m->path, serr.msg);
		break;
	case MEMBER_HARDLINK: {
		const struct member *to = memberset_get(&t->members, m->target);
		if (to && to->staged) {
			r = stage_link(t->stage, m->path, m->target, &serr);
			m->staged = r == 0;
		}
		break;
	}
	case MEMBER_SYMLINK:
		r = stage_symlink(t->stage, m->path, m->target, &serr);
		m->staged = r == 0;
		break;
	default:
		break;
	}
	if (r == 0)
		r = target_count_candidate(t, m);
	if (r < 0 && r != -ENOMEM && r != -ENOBUFS) {
		_cleanup_free_ char *shown = escape_text(m->path);
		r = s2c_error_set(err, r, "member '%s': %s", shown ? shown : "?",
				  serr.msg[0] ? serr.msg : strerror(-r));
	}
	return r;
}

/*
 * Whether of the member @m, which target_wants() does not keep, a note is
 * enough: a regular file that neither target_trim() nor a second reading of
 * the scripts keeps, of a target whose reader asks nothing else of it.
 */
static bool noted_only(const struct target *t, const struct member *m)
{
	return t->members.note_files && m->type == MEMBER_FILE && !m->staged && !m->candidate &&
	       !targetkeep_is_shared_lib(m->path) && !target_tmpfiles_conf(m->path);
}

int target_take_entry(struct target *t, struct archive *a, struct archive_entry *e,
		      const struct target_select *sel, struct stage *run, const char *stage_name,
		      unsigned layer, struct s2c_error *err)
{
	struct member *m = NULL;
	const struct member *old;
	bool candidate = false, wanted = false;
	int r = arread_member(e, &m, err);

	if (r < 0)
		return r;
	if (!t->members.max_bytes)
		t->members.max_bytes = (size_t)stage_limits(run)->max_memory;
	m->layer = layer;
	if (m->type == MEMBER_HARDLINK)
		r = hardlink_inherit(t, m, err);
	if (r == 0 && (wanted = target_wants(t, sel, m, &candidate))) {
		m->candidate = candidate;
		r = stage_member(t, a, m, run, stage_name, err);
	}
	/* A later layer's entry that is not kept hides the kept one of an earlier layer. */
	old = memberset_get(&t->members, m->path);
	if (r == 0 && old && old->staged && !m->staged && t->stage)
		r = stage_remove(t->stage, m->path);
	if (r == 0 && !wanted && noted_only(t, m)) {
		if (old)
			(void)memberset_remove(&t->members, m->path, false);
		r = memberset_note(&t->members, m);
		member_free(m);
		return r == -ENOBUFS ? target_over_budget(t, err) : r;
	}
	if (r < 0) {
		member_free(m);
		return r == -ENOBUFS ? target_over_budget(t, err) : r;
	}
	r = memberset_put(&t->members, m);
	return r == -ENOBUFS ? target_over_budget(t, err) : r;
}

int target_take_again(struct target *t, struct archive *a, struct archive_entry *e,
		      struct stage *run, const char *stage_name, struct s2c_error *err)
{
	_cleanup_free_ char *path = NULL;
	const char *name = archive_entry_pathname(e);
	struct member *m;
	int r = member_path(name ? name : "", &path, err);

	if (r < 0)
		return r;
	m = memberset_get(&t->members, path);
	if (!m || !m->again || m->staged)
		return 0;
	return stage_member(t, a, m, run, stage_name, err);
}

/*
 * Where other packages' dpkg triggers (rpm file triggers) load every package's modules
 * as root during the installation: gdk-pixbuf's loaders, GIO's modules and GTK's input
 * methods are loaded, and so run, to ask them what they are.  fnmatch patterns, '*'
 * crossing '/'; the tools load only "*.so", which every pattern ends with.
 */
static const char *const loaded_at_install[] = {
	"*/gdk-pixbuf-2.0/*/loaders/*.so", "*/gio/modules/*.so", "*/gtk-2.0/*/immodules/*.so",
	"*/gtk-3.0/*/immodules/*.so",
};

int target_check_loaded(struct target *t)
{
	int r = 0;

	for (size_t i = 0; i < t->members.n_slots && r == 0; i++) {
		const struct member *m = t->members.slots[i];
		if (!m || m->type == MEMBER_DIR || !str_endswith(m->path, ".so"))
			continue;
		for (size_t k = 0; k < S2C_ELEMENTSOF(loaded_at_install); k++)
			if (fnmatch(loaded_at_install[k], m->path, 0) == 0) {
				_cleanup_free_ char *shown = escape_text(m->path);
				r = target_incomplete(t, "'%s' is loaded as root during the "
						      "installation by another package's trigger, "
						      "which runs its code: not run by the audit",
						      shown ? shown : "?");
				break;
			}
	}
	return r;
}

/* What target_trim() keeps. */
static bool trim_keep(struct member *m, void *userdata)
{
	(void)userdata;
	return m->staged || m->candidate || targetkeep_is_shared_lib(m->path);
}

void target_trim(struct target *t)
{
	memberset_forget_notes(&t->members);
	(void)memberset_filter(&t->members, trim_keep, NULL);
	memberset_shrink(&t->members);
}
