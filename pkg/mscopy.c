/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Commands that copy, move, link, remove or rewrite files, in the
 * maintainer-script evaluator.  install over a file of the package is an
 * action (owner, group and mode, no capabilities); a new set-ID file
 * anywhere else is not seen and makes the analysis incomplete.  What cp,
 * mv, ln, rm, sed -i, tee and the like do to a file is recorded as a touch:
 * it matters when that file is privileged (maintscript_check()).  Files and
 * directories they make are remembered, so that later commands on them are
 * known to work.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "member.h"
#include "mscommand.h"
#include "shparse.h"
#include "strhash.h"
#include "util.h"
#include "common.h"

/* Options of a copying command. */
struct copyopts {
	const char *target_dir;     /* -t DIR */
	bool no_target_dir;         /* -T */
	bool preserve;              /* cp -p, -a, --preserve */
	bool recursive;             /* cp -r */
	bool hardlink;              /* cp -l, ln without -s */
	bool symbolic;              /* ln -s, cp -s */
	bool directory;             /* install -d */
	const char *mode, *owner, *group; /* install -m, -o, -g */
	bool unknown_value;         /* an option's value is not known */
	size_t first;               /* the first operand */
};

/*
 * Whether option @i is @shrt or @lng with a value ("-m 755", "-m755", "--mode=755",
 * "--mode 755"): 1 with the value in @ret, 0 when it is another, -1 when its value is not
 * known.
 */
static int optval(const struct ms_call *c, size_t *i, const char *shrt, const char *lng,
		  const char **ret)
{
	const char *o = c->v[*i].s;
	size_t n = strlen(lng);

	if (s2c_streq(o, shrt) || s2c_streq(o, lng)) {
		if (++*i >= c->argc || !c->v[*i].known)
			return -1;
		*ret = c->v[*i].s;
		return 1;
	}
	if (strncmp(o, shrt, 2) == 0 && o[2] && o[1] != '-') {
		*ret = o + 2;
		return 1;
	}
	if (strncmp(o, lng, n) == 0 && o[n] == '=') {
		*ret = o + n + 1;
		return 1;
	}
	return 0;
}

/* One option with a value of install or cp (-t, -m, -o, -g): 1, 0 or -1 as optval(). */
static int value_option(const struct ms_call *c, size_t *i, bool install, struct copyopts *o)
{
	int r = optval(c, i, "-t", "--target-directory", &o->target_dir);

	if (r == 0 && install)
		r = optval(c, i, "-m", "--mode", &o->mode);
	if (r == 0 && install)
		r = optval(c, i, "-o", "--owner", &o->owner);
	if (r == 0 && install)
		r = optval(c, i, "-g", "--group", &o->group);
	return r;
}

/* Options of cp, mv, ln and install.  Returns false (after a note) for one it does not know. */
static bool copy_options(struct ms_eval *e, const struct ms_call *c, struct copyopts *o)
{
	const char *cmd = member_base_name(c->v[0].s);
	bool install = s2c_streq(cmd, "install"), ln = s2c_streq(cmd, "ln");
	size_t i = 1;

	*o = (struct copyopts){ .hardlink = ln };
	for (; i < c->argc && mscommand_is_option(&c->v[i]); i++) {
		const char *s = c->v[i].s;
		int r;
		if (s2c_streq(s, "--")) {
			i++;
			break;
		}
		r = value_option(c, &i, install, o);
		if (r < 0) {
			o->unknown_value = true;        /* matters unless it makes directories */
			continue;
		}
		if (r > 0) {
			continue;
		} else if (s2c_streq(s, "-T") || s2c_streq(s, "--no-target-directory")) {
			o->no_target_dir = true;
		} else if (strncmp(s, "--preserve", 10) == 0 || s2c_streq(s, "--archive")) {
			o->preserve = !strstr(s, "=timestamps") && !strstr(s, "=links");
			o->recursive = o->recursive || s2c_streq(s, "--archive");
		} else if (s2c_streq(s, "--symbolic")) {
			o->symbolic = true;
		} else if (s2c_streq(s, "--recursive") || s2c_streq(s, "--directory")) {
			o->recursive = !install;
			o->directory = install;
		} else if (s[1] != '-') {
			for (const char *p = s + 1; *p; p++) {
				if (*p == 'a' && !install)
					o->preserve = o->recursive = true;
				else if (*p == 'p' && !install)
					o->preserve = true;
				else if (*p == 'r' || *p == 'R')
					o->recursive = true;
				else if (*p == 'l' && !install)
					o->hardlink = true;
				else if (*p == 's' && !install)
					o->symbolic = true;
				else if (*p == 'd' && install)
					o->directory = true;
			}
		} else if (!strchr(s, '=') && !s2c_streq(s, "--force") && !s2c_streq(s, "--verbose") &&
			   !s2c_streq(s, "--no-dereference") && !s2c_streq(s, "--relative") &&
			   !s2c_streq(s, "--remove-destination") && !s2c_streq(s, "--no-clobber") &&
			   !s2c_streq(s, "--update") && !s2c_streq(s, "--compare") &&
			   !s2c_streq(s, "--backup") && !s2c_streq(s, "--strip") &&
			   !s2c_streq(s, "--preserve-timestamps") && !s2c_streq(s, "--dereference") &&
			   !s2c_streq(s, "--no-preserve") && !s2c_streq(s, "--interactive")) {
			mscommand_incomplete(e, c, "an option that is not modelled");
			return false;
		}
	}
	if (o->symbolic)
		o->hardlink = false;
	o->first = i;
	return true;
}

/* Whether @path is a directory of the package or one the script made. */
static bool is_dir(const struct ms_eval *e, const char *path)
{
	const struct member *m = msfile_member(e, path);

	if (m)
		return m->type == MEMBER_DIR;
	return msfile_made_dir_is(e, path);
}

/*
 * The destination of copying source @k: DIR/base for -t DIR, for several
 * sources or a directory destination, else the destination itself.
 */
static char *destination(struct ms_eval *e, const struct ms_call *c, const struct copyopts *o,
			 size_t k, const char *dest)
{
	const char *base;

	if (!dest || !c->v[k].known)
		return NULL;
	base = member_base_name(c->v[k].s);
	if (o->target_dir || (!o->no_target_dir && (c->argc - o->first > 2 || is_dir(e, dest))))
		return path_join(dest, base);
	return strdup(dest);
}

/* The destination operand: -t DIR or the last one. */
static char *dest_operand(struct ms_eval *e, const struct ms_call *c, const struct copyopts *o,
			  size_t *ret_end)
{
	if (o->target_dir) {
		_cleanup_free_ char *dir = strdup(o->target_dir);
		struct ms_field t = { .s = dir, .len = dir ? strlen(dir) : 0, .known = dir != NULL };
		*ret_end = c->argc;
		return dir ? msfile_path(e, &t) : NULL;
	}
	*ret_end = c->argc - 1;
	return msfile_path(e, &c->v[c->argc - 1]);
}

/*
 * Touch every source (@src_what) and the destinations (@dest_what: "replaces", or "writes
 * to" for a plain cp, which writes over a file that is there and keeps its mode), and
 * remember those made.
 */
static enum ms_st copy_like(struct ms_eval *e, const struct ms_call *c, const struct copyopts *o,
			    const char *src_what, const char *dest_what)
{
	_cleanup_free_ char *dest = NULL;
	size_t end;

	if (c->argc - o->first < (o->target_dir ? 1u : 2u))
		return MS_FALSE;
	dest = dest_operand(e, c, o, &end);
	for (size_t k = o->first; k < end && !e->error; k++) {
		_cleanup_free_ char *src = msfile_path(e, &c->v[k]);
		_cleanup_free_ char *to = destination(e, c, o, k, dest);
		if (src_what)
			mseval_touch(e, c->n->line, src, o->recursive, src_what);
		if (src_what && s2c_streq(src_what, "moves"))
			msfile_gone(e, c->v[k].glob ? NULL : src);
		mseval_touch(e, c->n->line, to, o->recursive, dest_what);
		if (to)
			msfile_made(e, to);
	}
	return MS_TRUE;
}

enum ms_st mscopy_cp(struct ms_eval *e, const struct ms_call *c)
{
	struct copyopts o;

	if (!copy_options(e, c, &o))
		return MS_UNKNOWN;
	if (o.unknown_value) {
		mscommand_incomplete(e, c, "an option whose value is not known");
		return MS_UNKNOWN;
	}
	return copy_like(e, c, &o, o.hardlink ? "links to" : o.preserve ? "copies with its mode" :
			 NULL, o.hardlink || o.preserve || o.symbolic ? "replaces" : "writes to");
}

enum ms_st mscopy_mv(struct ms_eval *e, const struct ms_call *c)
{
	struct copyopts o;

	if (!copy_options(e, c, &o))
		return MS_UNKNOWN;
	if (o.unknown_value) {
		mscommand_incomplete(e, c, "an option whose value is not known");
		return MS_UNKNOWN;
	}
	o.recursive = true;     /* a directory moves with what is in it */
	return copy_like(e, c, &o, "moves", "replaces");
}

/*
 * @dir as the kernel finds it: through the links the script made and the
 * package's own directory links; "/" (anywhere) through a link to somewhere
 * not known.  NULL on OOM.
 */
static char *physical_dir(struct ms_eval *e, const char *dir)
{
	_cleanup_free_ char *copy = strdup(dir), *p = NULL;
	struct ms_field f = { .s = copy, .len = strlen(dir), .known = true };
	const struct member *m;

	if (!copy)
		return NULL;
	if (!(p = msfile_path(e, &f)))
		return e->error ? NULL : strdup("/");
	m = msfile_member(e, p);
	return strdup(m && m->type == MEMBER_DIR ? m->path : p);
}

/*
 * The last part of the name of a link that may land anywhere, when the last
 * operand ends in a known one ("$d/django.mo": "django.mo"), into @ret: the
 * link is named so, or, when that operand is a directory, is in a directory
 * named so.  Field splitting and globbing of the unknown part leave a known
 * last part with no glob character as it is.  NULL when not known.
 */
static int link_base(const struct ms_call *c, const struct copyopts *o, char **ret)
{
	const struct ms_field *f = o->target_dir ? NULL : &c->v[c->argc - 1];
	const char *tail, *slash;

	*ret = NULL;
	if (!f || f->known || f->tail >= f->len)
		return 0;
	tail = f->s + f->tail;
	slash = strrchr(tail, '/');
	if (!slash || !slash[1] || s2c_streq(slash + 1, ".") || s2c_streq(slash + 1, "..") ||
	    strpbrk(slash + 1, "*?[\\"))
		return 0;
	*ret = strdup(slash + 1);
	return *ret ? 0 : -ENOMEM;
}

/*
 * Whether a symbolic link named @base may already be where a link named so is
 * made (then what is made lands where it points): one the script made, of that
 * name or of one not known (recorded by its directory), or one of the package's.
 */
static bool link_named(const struct ms_eval *e, const char *base)
{
	for (size_t i = 0; i < e->n_links; i++) {
		const struct ms_link *l = &e->links[i];
		if (l->base ? s2c_streq(l->base, base) :
		    !l->target || s2c_streq(member_base_name(l->path), base))
			return true;
	}
	return e->ctx->members && memberset_has_link_named(e->ctx->members, base);
}

/*
 * The directory a link of unknown name lands in, from the known start of its
 * name when the rest holds no '/' ("/run/x/openvpn.$b" -> "/run/x", or "/run"
 * for "/run/x/$b", which may be ".."; a name found by find stays below where
 * find started); "/" when the rest may climb out ("/tmp/$x" with x
 * "../usr/bin/y") or nothing is known; NULL (incomplete) when not even the
 * operand is known.  The directory is the one the kernel finds, through links
 * made earlier ("/tmp/d/$b" after ln -s /usr/local/bin /tmp/d lands in
 * /usr/local/bin).  Landing anywhere, its last name where known goes to
 * *@ret_base (link_base()), unless a link of that name may be there already.
 */
static char *unknown_link_dir(struct ms_eval *e, const struct ms_call *c,
			      const struct copyopts *o, size_t k, char **ret_base)
{
	const struct ms_field *f = o->target_dir || c->argc - o->first > 2 ? NULL :
				   &c->v[c->argc - 1];
	bool anywhere = f && !f->known && (!f->prefix || f->s[0] != '/' ||
					   !(f->flat || f->below));
	_cleanup_free_ char *start = f && !f->known ? strndup(anywhere ? "/" : f->s,
							      anywhere ? 1 : f->prefix) : NULL;
	char *slash = start ? strrchr(start, '/') : NULL;
	_cleanup_free_ char *up = NULL, *real = NULL;
	char *dir;

	(void)k;
	if (!slash || start[0] != '/') {
		mscommand_incomplete(e, c, "a symbolic link whose name is not known");
		return NULL;
	}
	*slash = '\0';
	if (!(real = physical_dir(e, *start ? start : "/"))) {
		mseval_oom(e);
		return NULL;
	}
	/* the last part may be "." or "..": the name is then the directory or its parent */
	if (f->flat && !f->below && (!slash[1] || s2c_streq(slash + 1, ".") ||
				     s2c_streq(slash + 1, "..")) && !(up = strdup_printf("%s/..", real))) {
		mseval_oom(e);
		return NULL;
	}
	dir = member_normalise(up ? up : real);
	if (!dir) {
		mseval_oom(e);
		return NULL;
	}
	if (s2c_streq(dir, "/") && link_base(c, o, ret_base) < 0) {
		free(dir);
		mseval_oom(e);
		return NULL;
	}
	if (*ret_base && link_named(e, *ret_base)) {
		free(*ret_base);
		*ret_base = NULL;
	}
	mseval_touch_named(e, c->n->line, dir, true, *ret_base, "puts a link of unknown name in");
	return dir;
}

/* ln: a symbolic link is remembered, so later paths go through it; a hard link is a touch. */
enum ms_st mscopy_ln(struct ms_eval *e, const struct ms_call *c)
{
	_cleanup_free_ char *dest = NULL;
	struct copyopts o;
	size_t end;

	if (!copy_options(e, c, &o))
		return MS_UNKNOWN;
	if (o.unknown_value) {
		mscommand_incomplete(e, c, "an option whose value is not known");
		return MS_UNKNOWN;
	}
	if (!o.symbolic)
		return copy_like(e, c, &o, "links to", "replaces");
	if (c->argc - o.first < 1)
		return MS_FALSE;
	if (c->argc - o.first == 1)
		return MS_TRUE;          /* ln -s TARGET: a link in the working directory */
	dest = dest_operand(e, c, &o, &end);
	for (size_t k = o.first; k < end && !e->error; k++) {
		_cleanup_free_ char *to = destination(e, c, &o, k, dest), *base = NULL;
		bool named = to != NULL;
		struct ms_link *v;
		if (!to) {
			/* a link whose name is not known: below the directory its name starts in,
			 * no later path is known */
			to = unknown_link_dir(e, c, &o, k, &base);
			if (!to)
				continue;
		}
		mseval_touch(e, c->n->line, to, false, "replaces");
		msfile_made(e, to);
		v = realloc(e->links, (e->n_links + 1) * sizeof(*v));
		if (v)
			e->links = v;
		if (!v || hashindex_add(&e->links_index, strhash(to), e->n_links) < 0) {
			mseval_oom(e);
			break;
		}
		/* below the directory of a link of unknown name, no path is known */
		v[e->n_links] = (struct ms_link){ .path = TAKE_PTR(to),
						  .target = named && c->v[k].known ?
							    strdup(c->v[k].s) : NULL,
						  .base = TAKE_PTR(base) };
		e->n_links++;
		if (named && c->v[k].known && !v[e->n_links - 1].target)
			mseval_oom(e);
	}
	return MS_TRUE;
}

/* install: -d makes directories; a file gets -m's mode (0755), -o's and -g's owner (root). */
enum ms_st mscopy_install(struct ms_eval *e, const struct ms_call *c)
{
	_cleanup_free_ char *dest = NULL;
	struct copyopts o;
	uint32_t bits;
	char mode[8];
	size_t end;

	if (!copy_options(e, c, &o))
		return MS_UNKNOWN;
	if (o.unknown_value && !o.directory) {
		mscommand_incomplete(e, c, "an option whose value is not known");
		return MS_UNKNOWN;
	}
	if (o.directory) {
		for (size_t k = o.first; k < c->argc; k++) {
			_cleanup_free_ char *p = msfile_path(e, &c->v[k]);
			if (p)
				msfile_made_dir(e, p);
		}
		return MS_TRUE;
	}
	if (c->argc - o.first < (o.target_dir ? 1u : 2u))
		return MS_FALSE;
	/* The mode: chmod's, from no permissions; 0755 without -m. */
	if (ms_chmod(o.mode ? o.mode : "0755", 0, false, &bits) < 0)
		return MS_FALSE;
	(void)snprintf(mode, sizeof(mode), "%04o", bits);
	dest = dest_operand(e, c, &o, &end);
	for (size_t k = o.first; k < end && !e->error; k++) {
		_cleanup_free_ char *to = destination(e, c, &o, k, dest);
		struct ms_field f = { .s = to, .len = to ? strlen(to) : 0, .known = to != NULL };

		if ((bits & 06000) && to && msfile_member(e, to))
			mscommand_incomplete(e, c, "it puts a new set-ID file in place of one of the "
					     "package's");
		else
			msfile_act(e, c, MS_INSTALL, &f, mode, o.owner ? o.owner : "root",
				   o.group ? o.group : "root", NULL, false);
		if (to)
			msfile_made(e, to);
	}
	return MS_TRUE;
}

/* The directory a name find found lies below ("/var/lock/x/" -> "/var/lock/x"), or NULL. */
static char *found_dir(struct ms_eval *e, const struct ms_field *f)
{
	char *d;

	if (f->known || !f->below || !f->prefix || f->s[0] != '/')
		return NULL;
	d = strndup(f->s, f->prefix);
	if (!d) {
		mseval_oom(e);
		return NULL;
	}
	if (d[1])
		d[strlen(d) - 1] = '\0';
	return d;
}

enum ms_st mscopy_rm(struct ms_eval *e, const struct ms_call *c)
{
	bool recursive = false, options = true;

	for (size_t i = 1; i < c->argc && !e->error; i++) {
		const struct ms_field *f = &c->v[i];
		_cleanup_free_ char *p = NULL;
		if (options && mscommand_is_option(f)) {
			if (s2c_streq(f->s, "--"))
				options = false;
			else if (f->s[1] != '-' ? strpbrk(f->s, "rR") != NULL :
				 s2c_streq(f->s, "--recursive"))
				recursive = true;
			continue;
		}
		p = f->below ? found_dir(e, f) : msfile_path(e, f);
		mseval_touch(e, c->n->line, p, recursive || f->glob || f->below, "removes");
		msfile_gone(e, f->glob || f->below ? NULL : p);
	}
	return MS_TRUE;
}

/* mkdir [-p] [-m MODE] DIR…: directories are never privileged files. */
enum ms_st mscopy_mkdir(struct ms_eval *e, const struct ms_call *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		_cleanup_free_ char *p = NULL;
		if (mscommand_is_option(&c->v[i])) {
			if (s2c_streq(c->v[i].s, "-m"))
				i++;
			continue;
		}
		p = msfile_path(e, &c->v[i]);
		if (p)
			msfile_made_dir(e, p);
	}
	return MS_TRUE;
}

/* touch FILE…: a new file gets the umask's mode; an old one keeps its own. */
enum ms_st mscopy_touch(struct ms_eval *e, const struct ms_call *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		_cleanup_free_ char *p = NULL;
		if (mscommand_is_option(&c->v[i])) {
			if (strchr("dtr", c->v[i].s[1]) && !c->v[i].s[2])
				i++;
			continue;
		}
		p = msfile_path(e, &c->v[i]);
		if (p)
			msfile_made(e, p);
	}
	return MS_TRUE;
}

/* sed -i rewrites its files: a new file in place of each (capabilities go). */
enum ms_st mscopy_sed(struct ms_eval *e, const struct ms_call *c)
{
	bool inplace = false, script_given = false;
	size_t first = 0;

	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (!f->known || f->s[0] != '-' || !f->s[1]) {
			if (!script_given) {
				script_given = true;
				continue;
			}
			if (!first)
				first = i;
			continue;
		}
		if (strncmp(f->s, "-i", 2) == 0 || strncmp(f->s, "--in-place", 10) == 0 ||
		    (f->s[1] != '-' && strchr(f->s, 'i')))
			inplace = true;
		if (s2c_streq(f->s, "-e") || s2c_streq(f->s, "-f") || s2c_streq(f->s, "--expression") ||
		    s2c_streq(f->s, "--file")) {
			script_given = true;
			i++;
		} else if (strncmp(f->s, "--expression=", 13) == 0 || strncmp(f->s, "--file=", 7) == 0 ||
			   (f->s[1] == 'e' && f->s[2])) {
			script_given = true;
		}
	}
	for (size_t i = first; inplace && first && i < c->argc; i++) {
		_cleanup_free_ char *p = NULL;
		if (mscommand_is_option(&c->v[i]))
			continue;
		p = msfile_path(e, &c->v[i]);
		mseval_touch(e, c->n->line, p, c->v[i].glob, "rewrites");
	}
	return MS_TRUE;
}

/* tee FILE…, truncate FILE…, dd of=FILE: they write to their files. */
enum ms_st mscopy_writes(struct ms_eval *e, const struct ms_call *c)
{
	bool dd = s2c_streq(member_base_name(c->v[0].s), "dd");

	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		struct ms_field g = *f;
		_cleanup_free_ char *p = NULL;
		if (dd) {
			if (!f->known || strncmp(f->s, "of=", 3) != 0) {
				if (!f->known)
					mseval_touch(e, c->n->line, NULL, false, "writes to");
				continue;
			}
			g.s = f->s + 3;
			g.len = f->len - 3;
		} else if (mscommand_is_option(f)) {
			if (s2c_streq(f->s, "-s") || s2c_streq(f->s, "-r"))
				i++;
			continue;
		}
		p = msfile_path(e, &g);
		mseval_touch(e, c->n->line, p, false, "writes to");
		if (p)
			msfile_made(e, p);
	}
	return MS_TRUE;
}

/* setfattr: security.capability is setcap's business; other attributes change nothing here. */
enum ms_st mscopy_setfattr(struct ms_eval *e, const struct ms_call *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		const char *name = NULL;
		if (!f->known) {
			mscommand_incomplete(e, c, "an attribute that is not known");
			return MS_UNKNOWN;
		}
		if ((s2c_streq(f->s, "-n") || s2c_streq(f->s, "-x")) && i + 1 < c->argc)
			name = c->v[i + 1].known ? c->v[i + 1].s : "";
		else if (strncmp(f->s, "--name=", 7) == 0 || strncmp(f->s, "--remove=", 9) == 0)
			name = strchr(f->s, '=') + 1;
		if (name && (strncmp(name, "security.", 9) == 0 || !*name)) {
			mscommand_incomplete(e, c, "a security attribute that is not modelled");
			return MS_UNKNOWN;
		}
	}
	return MS_TRUE;
}

/* dpkg-divert --rename moves the file it diverts. */
enum ms_st mscopy_divert(struct ms_eval *e, const struct ms_call *c)
{
	bool rename = false, add = false;

	for (size_t i = 1; i < c->argc; i++) {
		if (!c->v[i].known)
			continue;
		rename = rename || s2c_streq(c->v[i].s, "--rename");
		add = add || s2c_streq(c->v[i].s, "--add") || !mscommand_is_option(&c->v[i]);
	}
	if (rename && add && c->argc > 1) {
		_cleanup_free_ char *p = msfile_path(e, &c->v[c->argc - 1]);
		mseval_touch(e, c->n->line, p, false, "moves");
	}
	return MS_TRUE;
}
