/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <archive.h>
#include <archive_entry.h>

#include "actindex.h"
#include "arread.h"
#include "deb.h"
#include "maintscript.h"
#include "stage.h"
#include "target.h"
#include "util.h"
#include "common.h"

/* The value of @field in the control paragraph @text (first line only), or NULL. */
static char *control_field(const char *text, const char *field)
{
	size_t n = strlen(field);

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *v, *end;
		if (strncasecmp(line, field, n) != 0 || line[n] != ':')
			continue;
		v = line + n + 1;
		v += strspn(v, " \t");
		end = v + strcspn(v, "\n");
		while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		return strndup(v, (size_t)(end - v));
	}
	return NULL;
}

/* A plain field value: printable ASCII without blanks (names, versions, architectures). */
static bool plain_value(const char *s)
{
	if (!s || !*s || strlen(s) > 256)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return false;
	return true;
}

/* Which compressed tar a member name is: "control.tar.xz" -> true for prefix "control.tar". */
static bool tar_member(const char *name, const char *prefix)
{
	static const char *const ext[] = { "", ".gz", ".xz", ".zst", ".bz2", ".lzma" };
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) != 0)
		return false;
	for (size_t i = 0; i < S2C_ELEMENTSOF(ext); i++)
		if (s2c_streq(name + n, ext[i]))
			return true;
	return false;
}

/* The scripts that run when a package is installed, in the order they run. */
enum { CONFIG, PREINST, POSTINST, TEMPLATES, CONFFILES, N_CONTROL };

struct control {
	char *text;             /* ./control */
	char *files[N_CONTROL]; /* ./config, ./preinst, ./postinst, ./templates, ./conffiles */
	size_t lens[N_CONTROL];
};

static void control_release(struct control *c)
{
	free(c->text);
	for (int i = 0; i < N_CONTROL; i++)
		free(c->files[i]);
}

static const char *const control_names[N_CONTROL] = { "config", "preinst", "postinst",
						      "templates", "conffiles" };

static int read_control(struct archive *outer, struct arread_budget *b, struct control *c,
			struct s2c_error *err)
{
	_cleanup_(archive_freep) struct archive *a = NULL;
	struct archive_entry *e;
	int r = arread_new(ARREAD_TAR, &a);

	if (r == 0)
		r = arread_open_nested(a, outer, err);
	while (r == 0 && (r = arread_next(a, b, &e, err)) > 0) {
		_cleanup_free_ char *path = NULL;
		size_t len;

		r = 0;
		r = member_path(archive_entry_pathname(e) ? archive_entry_pathname(e) : "", &path,
				err);
		if (r < 0)
			break;
		if (archive_entry_filetype(e) != AE_IFREG)
			continue;       /* r is 0: the loop goes on */
		if (s2c_streq(path, "/control")) {
			free(c->text);
			c->text = NULL;
			r = arread_slurp(a, DEB_CONTROL_MAX, &c->text, &len, err);
		}
		for (int i = 0; i < N_CONTROL && r == 0; i++) {
			char want[32];
			(void)snprintf(want, sizeof(want), "/%s", control_names[i]);
			if (s2c_streq(path, want)) {
				free(c->files[i]);
				c->files[i] = NULL;
				r = arread_slurp(a, DEB_CONTROL_MAX, &c->files[i], &c->lens[i], err);
			}
		}
		if (r < 0)
			(void)s2c_error_prefix(err, "control member '%s'", path);
	}
	if (r < 0)
		return s2c_error_prefix(err, "control archive");
	if (!c->text)
		return s2c_error_set(err, -EINVAL, "control archive without a control file");
	return 0;
}

static int read_data(struct archive *outer, struct arread_budget *b, struct target *t,
		     const struct target_select *sel, struct stage *run, const char *stage_name,
		     struct s2c_error *err)
{
	_cleanup_(archive_freep) struct archive *a = NULL;
	struct archive_entry *e;
	int r = arread_new(ARREAD_TAR, &a);

	if (r == 0)
		r = arread_open_nested(a, outer, err);
	while (r == 0 && (r = arread_next(a, b, &e, err)) > 0)
		r = target_take_entry(t, a, e, sel, run, stage_name, 0, err);
	return r < 0 ? s2c_error_prefix(err, "data archive") : 0;
}

/* The package's name, version and architecture from its control file. */
static int identity(struct target *t, const struct control *c, struct s2c_error *err)
{
	t->name = control_field(c->text, "Package");
	t->version = control_field(c->text, "Version");
	t->arch = control_field(c->text, "Architecture");
	if (!plain_value(t->name) || !plain_value(t->version) || !plain_value(t->arch))
		return s2c_error_set(err, -EINVAL, "control file without a plain Package, Version "
				     "and Architecture");
	return 0;
}

/*
 * The preinst runs before dpkg unpacks the package: on a fresh installation none of its
 * files exists yet, and dpkg then writes each with its packed mode and owner, so what the
 * preinst does to them has no effect (a dpkg-statoverride it adds is a note: dpkg read
 * its database before the preinst ran).
 */
static void before_unpack(struct ms_analysis *a, size_t from)
{
	for (size_t k = from; k < a->n; k++)
		for (int sc = 0; sc < _MS_SCENARIO_MAX; sc++)
			a->v[k].seq[sc] = SIZE_MAX;
}

/*
 * Analyse the scripts in the order a fresh installation runs them: config
 * (debconf runs it first), preinst install, postinst configure; with the
 * members once known, and for an alternative with one debconf answer other
 * than its default, or one conffile changed by the administrator.
 */
static int analyse_with(const struct target *t, const struct control *c,
			const struct ms_templates *tpl, const struct memberset *members, int stagefd,
			const char *answer_template, const char *answer_value,
			const char *changed_conffile, struct ms_analysis *out)
{
	static const char *const first[N_CONTROL] = { "configure", "install", "configure" };
	const char *args[] = { "configure", "" };
	struct ms_context ctx = { .args = args, .n_args = 2, .arch = t->arch, .package = t->name,
				  .members = members,
				  .stagefd = stagefd, .templates = tpl,
				  .answer_template = answer_template,
				  .answer_value = answer_value,
				  .conffiles = c->files[CONFFILES],
				  .changed_conffile = changed_conffile };
	int r = 0;

	for (int i = CONFIG; i <= POSTINST && r == 0; i++)
		if (c->files[i]) {
			size_t before = out->n;

			args[0] = first[i];
			ctx.before_unpack = i == PREINST;
			r = maintscript_analyse(control_names[i], c->files[i], c->lens[i], &ctx, out);
			if (r == 0 && i == PREINST)
				before_unpack(out, before);
		}
	if (r == 0 && members)
		r = maintscript_check(out, members);
	if (r == 0)
		r = ms_analysis_index(out);
	return r;
}

static int analyse(const struct target *t, const struct control *c,
		   const struct memberset *members, int stagefd, struct ms_analysis *out)
{
	struct ms_templates tpl = { 0 };
	int r = c->files[TEMPLATES] ? ms_templates_parse(c->files[TEMPLATES], c->lens[TEMPLATES],
							 &tpl) : 0;

	if (r == 0)
		r = analyse_with(t, c, &tpl, members, stagefd, NULL, NULL, NULL, out);
	ms_templates_release(&tpl);
	return r;
}

static int read_deb(int fd, struct target *t, const struct target_select *sel, struct stage *run,
		    const char *stage_name, struct control *ret_control, struct s2c_error *err)
{
	_cleanup_(archive_freep) struct archive *a = NULL;
	struct stage_limits lim = *stage_limits(run);
	struct arread_budget b = { .lim = &lim };
	struct control c = { 0 };
	struct archive_entry *e;
	unsigned seen = 0;      /* 1 debian-binary, 2 control, 4 data */
	int r = arread_new(ARREAD_AR, &a);

	if (r == 0)
		r = arread_open_fd(a, fd, err);
	while (r == 0 && (r = arread_next(a, &b, &e, err)) > 0) {
		const char *name = archive_entry_pathname(e);
		_cleanup_free_ char *shown = escape_text(name ? name : "");

		r = 0;
		if (!name || !shown) {
			r = name ? -ENOMEM : s2c_error_set(err, -EINVAL, "ar member without a name");
			break;
		}
		if (s2c_streq(name, "debian-binary") && seen == 0) {
			_cleanup_free_ char *v = NULL;
			size_t len;
			r = arread_slurp(a, 64, &v, &len, err);
			if (r == 0 && strncmp(v, "2.", 2) != 0)
				r = s2c_error_set(err, -EINVAL, "unsupported format version in "
						  "debian-binary");
			seen |= 1;
		} else if (tar_member(name, "control.tar") && seen == 1) {
			r = read_control(a, &b, &c, err);
			seen |= 2;
		} else if (tar_member(name, "data.tar") && seen == 3) {
			r = identity(t, &c, err);
			/* Without scripts nothing asks about a file not kept but a hard link. */
			t->members.note_files = !c.files[CONFIG] && !c.files[PREINST] &&
						!c.files[POSTINST];
			if (r == 0)
				r = analyse(t, &c, NULL, -1, &t->scripts);
			if (r == 0)
				r = read_data(a, &b, t, sel, run, stage_name, err);
			seen |= 4;
		} else if (name[0] == '_' && seen != 0) {
			continue;       /* dpkg ignores these */
		} else {
			r = s2c_error_set(err, -EINVAL, "unexpected member '%s' (a .deb holds "
					  "debian-binary, control.tar and data.tar, in that order)", shown);
		}
	}
	if (r < 0) {
		control_release(&c);
		return r;
	}
	*ret_control = c;
	if (seen != 7)
		return s2c_error_set(err, -EINVAL, "not a complete .deb: %s is missing",
				     !(seen & 1) ? "debian-binary" : !(seen & 2) ? "control.tar" :
				     "data.tar");
	return 0;
}

/*
 * Mark (member::again) the members whose content the second analysis needs
 * and that are not kept: privileged files, and the files the scripts run or
 * read.  Returns how many.
 */
static size_t missing_members(struct target *t, const struct target_select *sel)
{
	size_t n = 0;

	for (size_t i = 0; i < t->members.n_slots; i++) {
		struct member *m = t->members.slots[i];
		bool cand;
		if (!m)
			continue;
		(void)target_wants(t, sel, m, &cand);
		m->candidate = cand;
		m->again = !m->staged &&
			   (cand || (m->type == MEMBER_FILE && target_tmpfiles_conf(m->path)));
		n += m->again;
	}
	for (size_t i = 0; i < t->scripts.n_wants; i++) {
		struct member *m = NULL;
		if (memberset_reach(&t->members, t->scripts.wants[i], &m) == 0 && !m->staged &&
		    !m->again) {
			m->again = true;
			n++;
		}
	}
	return n;
}

/* Read the data archive again, keeping the members marked member::again. */
static int reread(int fd, struct target *t, struct stage *run, const char *stage_name,
		  struct s2c_error *err)
{
	_cleanup_(archive_freep) struct archive *a = NULL;
	struct stage_limits lim = *stage_limits(run);
	struct arread_budget b = { .lim = &lim };
	struct archive_entry *e;
	int r;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	r = arread_new(ARREAD_AR, &a);
	if (r == 0)
		r = arread_open_fd(a, fd, err);
	while (r == 0 && (r = arread_next(a, &b, &e, err)) > 0) {
		const char *name = archive_entry_pathname(e);
		_cleanup_(archive_freep) struct archive *d = NULL;
		struct archive_entry *de;
		r = 0;
		if (!name || !tar_member(name, "data.tar"))
			continue;
		r = arread_new(ARREAD_TAR, &d);
		if (r == 0)
			r = arread_open_nested(d, a, err);
		while (r == 0 && (r = arread_next(d, &b, &de, err)) > 0)
			r = target_take_again(t, d, de, run, stage_name, err);
		return r < 0 ? s2c_error_prefix(err, "data archive") : 0;
	}
	return r < 0 ? r : 0;
}

/*
 * The scripts once more with the members known (links followed, the
 * package's own programs and sourced scripts found); what that names and
 * is not kept yet is read from the archive again.
 */
static int second_reading(int fd, struct target *t, const struct target_select *sel,
			  struct stage *run, const char *stage_name, const struct control *c,
			  struct s2c_error *err)
{
	int r = 0;

	for (int round = 0; round < 3 && r == 0; round++) {
		struct ms_analysis a = { 0 };
		size_t n;

		r = analyse(t, c, &t->members, t->stage ? stage_rootfd(t->stage) : -1, &a);
		if (r < 0) {
			ms_analysis_release(&a);
			break;
		}
		ms_analysis_release(&t->scripts);
		t->scripts = a;
		n = missing_members(t, sel);
		if (n > 0 && round < 2)
			r = reread(fd, t, run, stage_name, err);
		if (r < 0 || n == 0)
			break;
	}
	return r;
}

/* One alternative, labelled @label (taken), with another debconf answer or a conffile changed. */
static int add_alt(struct target *t, const struct control *c, const struct ms_templates *tpl,
		   char *label, const char *answer_template, const char *answer_value,
		   const char *changed_conffile)
{
	struct ms_analysis *out = target_alt_add(t, label);

	if (!out)
		return -ENOMEM;
	return analyse_with(t, c, tpl, &t->members, t->stage ? stage_rootfd(t->stage) : -1,
			    answer_template, answer_value, changed_conffile, out);
}

/*
 * What another answer to each boolean or select question the scripts read
 * would install, and each conffile they read if it held the administrator's
 * text instead of the packed one.
 */
static int alternatives(struct target *t, const struct control *c)
{
	struct ms_templates tpl = { 0 };
	int r = c->files[TEMPLATES] ? ms_templates_parse(c->files[TEMPLATES], c->lens[TEMPLATES],
							 &tpl) : 0;

	for (size_t i = 0; i < t->scripts.n_asked && r == 0; i++) {
		const struct ms_template *q = ms_templates_find(&tpl, t->scripts.asked[i]);
		const char *other[8];
		size_t n = 0;
		if (!q || t->n_alts >= TARGET_ALTS_MAX)
			continue;
		if (s2c_streq(q->type, "boolean"))
			other[n++] = q->def && s2c_streq(q->def, "true") ? "false" : "true";
		for (size_t k = 0; q->choices && q->choices[k] && n < S2C_ELEMENTSOF(other); k++)
			if (!q->def || !s2c_streq(q->choices[k], q->def))
				other[n++] = q->choices[k];
		for (size_t k = 0; k < n && r == 0 && t->n_alts < TARGET_ALTS_MAX; k++)
			r = add_alt(t, c, &tpl, strdup_printf("where debconf %s is %s", q->name,
							      other[k]), q->name, other[k], NULL);
	}
	for (size_t i = 0; i < t->scripts.n_conffiles && r == 0 && t->n_alts < TARGET_ALTS_MAX; i++)
		r = add_alt(t, c, &tpl, strdup_printf("where the conffile %s is not as packed",
						      t->scripts.conffiles[i]),
			    NULL, NULL, t->scripts.conffiles[i]);
	ms_templates_release(&tpl);
	return r;
}

int deb_read(int fd, const char *source, const struct target_select *sel, struct stage *run,
	     const char *stage_name, struct target **ret)
{
	struct s2c_error err = { 0 };
	struct target *t = target_new(TARGET_DEB, source);
	struct control c = { 0 };
	int r;

	if (!t)
		return -ENOMEM;
	r = read_deb(fd, t, sel, run, stage_name, &c, &err);
	if (r == 0)
		r = second_reading(fd, t, sel, run, stage_name, &c, &err);
	if (r == 0)
		r = alternatives(t, &c);
	if (r == 0)
		r = target_alt_notes(t);
	control_release(&c);
	return target_read_done(t, r, &err, ret);
}
