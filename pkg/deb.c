/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <archive.h>
#include <archive_entry.h>

#include "arread.h"
#include "deb.h"
#include "maintscript.h"
#include "stage.h"
#include "target.h"
#include "util.h"
#include "common.h"

static void archive_freep(struct archive **a)
{
	if (*a)
		archive_read_free(*a);
}

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

struct control {
	char *text;             /* ./control */
	char *scripts[2];       /* ./preinst, ./postinst */
	size_t lens[2];
};

static void control_release(struct control *c)
{
	free(c->text);
	free(c->scripts[0]);
	free(c->scripts[1]);
}

static const char *const script_names[2] = { "preinst", "postinst" };

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
		for (int i = 0; i < 2 && r == 0; i++) {
			char want[32];
			(void)snprintf(want, sizeof(want), "/%s", script_names[i]);
			if (s2c_streq(path, want)) {
				free(c->scripts[i]);
				c->scripts[i] = NULL;
				r = arread_slurp(a, DEB_CONTROL_MAX, &c->scripts[i], &c->lens[i], err);
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

static int read_deb(int fd, struct target *t, const struct target_select *sel, struct stage *run,
		    const char *stage_name, struct s2c_error *err)
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
			struct ms_context ctx;
			const char *args[] = { "configure", "" };
			t->name = control_field(c.text, "Package");
			t->version = control_field(c.text, "Version");
			t->arch = control_field(c.text, "Architecture");
			if (!plain_value(t->name) || !plain_value(t->version) || !plain_value(t->arch)) {
				r = s2c_error_set(err, -EINVAL, "control file without a plain Package, "
						  "Version and Architecture");
				break;
			}
			ctx = (struct ms_context){ args, 2, t->arch };
			for (int i = 0; i < 2 && r == 0; i++)
				if (c.scripts[i]) {
					/* preinst runs with "install": nothing else differs for us */
					args[0] = i == 0 ? "install" : "configure";
					r = maintscript_analyse(script_names[i], c.scripts[i], c.lens[i], &ctx,
								&t->scripts);
				}
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
	control_release(&c);
	if (r < 0)
		return r;
	if (seen != 7)
		return s2c_error_set(err, -EINVAL, "not a complete .deb: %s is missing",
				     !(seen & 1) ? "debian-binary" : !(seen & 2) ? "control.tar" :
				     "data.tar");
	return 0;
}

int deb_read(int fd, const char *source, const struct target_select *sel, struct stage *run,
	     const char *stage_name, struct target **ret)
{
	struct s2c_error err = { 0 };
	struct target *t = target_new(TARGET_DEB, source);
	int r;

	if (!t)
		return -ENOMEM;
	r = read_deb(fd, t, sel, run, stage_name, &err);
	return target_read_done(t, r, &err, ret);
}
