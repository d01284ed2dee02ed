/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * File names and the commands that change files, in the maintainer-script
 * evaluator: chmod, chown, chgrp, setcap, dpkg-statoverride and install
 * become actions on the package's files (symbolic links among them
 * followed as the command follows them); cp, mv, ln, rm, sed -i and
 * redirections are recorded as touches, which matter once the privileged
 * files are known (maintscript_check()).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fcaps.h"
#include "member.h"
#include "mscommand.h"
#include "shparse.h"
#include "strhash.h"
#include "util.h"
#include "common.h"

/* --- names ---------------------------------------------------------------------------------- */

struct link_key {
	const struct ms_eval *e;
	const char *path;       /* the whole path, for a link's base */
	size_t len;             /* the prefix of it looked for */
};

static bool link_same(size_t pos, const void *userdata)
{
	const struct link_key *k = userdata;
	const struct ms_link *l = pos < k->e->n_links ? &k->e->links[pos] : NULL;

	return l && strlen(l->path) == k->len && strncmp(l->path, k->path, k->len) == 0 &&
	       (!l->base || member_has_part(k->path, l->base));
}

/*
 * The first link the script made at the longest prefix of @path that ends
 * where a name does (a link of unknown name anywhere is recorded as "/", a
 * prefix of every path), or NULL; its length in *@ret_len.  Each prefix is
 * looked up by its hash, so the cost is that of the path, not of the links.
 */
static const struct ms_link *longest_link(const struct ms_eval *e, const char *path,
					  size_t *ret_len)
{
	size_t len = strlen(path);

	if (!e->n_links)
		return NULL;
	for (;;) {
		struct link_key k = { e, path, len ? len : 1 };
		size_t pos = hashindex_find(&e->links_index, strhash_n(path, k.len), link_same, &k);

		if (pos != SIZE_MAX) {
			*ret_len = k.len;
			return &e->links[pos];
		}
		if (len <= 1)
			return NULL;
		while (len > 0 && path[--len] != '/')
			;
	}
}

/*
 * @path (taken) with the links the script made resolved (a prefix that is one
 * is replaced); NULL with *@unknown set when it goes through a link to
 * somewhere not known (one that may be anywhere goes only through a part of
 * its last name, when that is known).
 */
static char *through_links(struct ms_eval *e, char *path, bool *unknown)
{
	for (unsigned hops = 0; hops < 40 && path; hops++) {
		size_t hl = 0;
		const struct ms_link *hit = path[0] == '/' ? longest_link(e, path, &hl) : NULL;

		if (!hit)
			return path;
		if (!hit->target) {
			free(path);     /* through a link to somewhere not known */
			*unknown = true;
			return NULL;
		}
		_cleanup_free_ char *dir = strndup(hit->path, (size_t)(member_base_name(hit->path) -
								      hit->path));
		_cleanup_free_ char *joined = NULL;
		if (!dir)
			break;
		joined = hit->target[0] == '/' ? strdup_printf("%s%s", hit->target, path + hl) :
			 strdup_printf("%s/%s%s", dir, hit->target, path + hl);
		free(path);
		path = joined ? member_normalise(joined) : NULL;
	}
	if (!path)
		return NULL;
	return path;
}

char *msfile_path(struct ms_eval *e, const struct ms_field *f)
{
	_cleanup_free_ char *abs = NULL;
	bool unknown = false;
	char *path;

	if (!f->known || !f->len)
		return NULL;
	if (f->s[0] == '/')
		abs = strdup(f->s);
	else if (e->cwd)
		abs = strdup_printf("%s/%s", e->cwd, f->s);
	else
		return NULL;
	path = abs ? member_normalise(abs) : NULL;
	if (path)
		path = through_links(e, path, &unknown);
	if (!path && !unknown)
		mseval_oom(e);
	return path;
}

bool msfile_members_known(const struct ms_eval *e)
{
	return e->ctx->members != NULL;
}

struct member *msfile_member(const struct ms_eval *e, const char *path)
{
	struct member *m = NULL;

	if (!e->ctx->members || memberset_reach(e->ctx->members, path, &m) < 0)
		return NULL;
	return m;
}

struct member *msfile_unpacked(const struct ms_eval *e, const char *path)
{
	return e->ctx->before_unpack ? NULL : msfile_member(e, path);
}

/* Whether the script made @path. */
static bool made(const struct ms_eval *e, const char *path)
{
	for (size_t i = 0; i < e->n_made; i++)
		if (s2c_streq(e->made[i], path))
			return true;
	return false;
}

void msfile_made(struct ms_eval *e, const char *path)
{
	mseval_strset_add(e, &e->made, &e->n_made, path);
	/* a file where a directory was (rm -rf, then cp): no directory there, nor below */
	msfile_gone(e, path);
}

void msfile_made_dir(struct ms_eval *e, const char *path)
{
	mseval_strset_add(e, &e->made, &e->n_made, path);
	mseval_strset_add(e, &e->made_dirs, &e->n_made_dirs, path);
}

void msfile_gone(struct ms_eval *e, const char *path)
{
	size_t n = path ? strlen(path) : 0;

	for (size_t i = 0; i < e->n_made_dirs;) {
		const char *d = e->made_dirs[i];
		if (!path || (strncmp(d, path, n) == 0 && (!d[n] || d[n] == '/' || n == 1))) {
			free(e->made_dirs[i]);
			e->made_dirs[i] = e->made_dirs[--e->n_made_dirs];
		} else {
			i++;
		}
	}
}

bool msfile_made_dir_is(const struct ms_eval *e, const char *path)
{
	for (size_t i = 0; i < e->n_made_dirs; i++)
		if (s2c_streq(e->made_dirs[i], path))
			return true;
	return false;
}

bool msfile_exists(const struct ms_eval *e, const char *path)
{
	return made(e, path) || msfile_member(e, path);
}

/* --- actions -------------------------------------------------------------------------------- */

/* Whether @kind with @mode can leave a file set-ID or with capabilities. */
static bool adds_privilege(enum ms_kind kind, const char *mode)
{
	uint32_t a = 0, b = 0;
	unsigned long v;
	char *end;

	switch (kind) {
	case MS_SETCAP:
		return true;
	case MS_CHMOD:
		return (ms_chmod(mode, 0755, false, &a) == 0 && (a & 06000)) ||
		       (ms_chmod(mode, 0, false, &b) == 0 && (b & 06000));
	case MS_STATOVERRIDE:
	case MS_INSTALL:
		v = strtoul(mode, &end, 8);
		return *end || (v & 06000);
	default:
		return false;
	}
}

/*
 * Whether @kind with @mode can leave a file writable by its group or by others: a
 * set-ID program of the system so opened runs what anyone who may write it puts there.
 */
static bool opens_to_others(enum ms_kind kind, const char *mode)
{
	uint32_t a = 0, b = 0;

	switch (kind) {
	case MS_CHMOD:
		return (ms_chmod(mode, 04755, false, &a) == 0 && (a & 022)) ||
		       (ms_chmod(mode, 0, false, &b) == 0 && (b & 022));
	case MS_STATOVERRIDE:
	case MS_INSTALL:
		return strtoul(mode, NULL, 8) & 022;
	default:
		return false;
	}
}

static int record(struct ms_eval *e, const struct ms_call *c, struct ms_action *a)
{
	_cleanup_free_ char *cmd = mscommand_text(c->n);

	if (!cmd || !(a->script = strdup(e->name)))
		return -ENOMEM;
	a->command = TAKE_PTR(cmd);
	a->line = e->at_line ? e->at_line : c->n->line;
	return mseval_action_add(e, a);
}

/* The path an action lands on once the members are known, or NULL when it is none of them. */
/* Whether @path, or where the members' links take it, is in a directory of programs. */
static bool lands_in_program_dir(const struct ms_eval *e, const char *path)
{
	_cleanup_free_ char *to = NULL;

	if (member_in_program_dir(path))
		return true;
	return e->ctx->members && (memberset_landing(e->ctx->members, path, &to) == -ENOMEM ||
				   (to && member_in_program_dir(to)));
}

static const char *landing(struct ms_eval *e, const struct ms_call *c, enum ms_kind kind,
			   const char *path, const char *mode, bool *skip)
{
	const struct member *m = msfile_member(e, path);

	*skip = m == NULL;
	if (m)
		return m->path;
	if (msfile_made_dir_is(e, path))
		return NULL;            /* a directory the script made is no privileged file */
	if (adds_privilege(kind, mode))
		mscommand_incomplete(e, c, made(e, path) ?
				     "it makes privileged a file the script made, which the audit "
				     "does not see" :
				     "it changes a file that is not the package's, which the audit "
				     "does not see");
	else if (opens_to_others(kind, mode) && !made(e, path) && lands_in_program_dir(e, path))
		mscommand_incomplete(e, c, "it may make a set-ID program of the system writable by "
				     "others, which the audit does not see");
	return NULL;
}

void msfile_act(struct ms_eval *e, const struct ms_call *c, enum ms_kind kind,
		const struct ms_field *f, const char *mode, const char *owner, const char *group,
		const char *caps, bool recursive)
{
	struct ms_action a = { .kind = kind, .recursive = recursive, .glob = f->glob,
			       .conditional = mseval_uncertain(e) };
	_cleanup_free_ char *path = msfile_path(e, f);
	const char *where = path;
	bool skip = false;
	int r;

	if (e->error || (f->known && !f->len))
		return;                 /* "": no such file, the command fails */
	if (path && recursive && msfile_member(e, path) &&
	    msfile_member(e, path)->type != MEMBER_DIR)
		recursive = false;      /* -R on a file is that file */
	a.recursive = recursive;
	if (!path) {
		if (adds_privilege(kind, mode) || opens_to_others(kind, mode))
			mscommand_incomplete(e, c, "cannot tell which file it changes");
		else
			mseval_touch(e, c->n->line, NULL, recursive, "changes");
		return;
	}
	if (msfile_members_known(e) && (f->glob || recursive) &&
	    (adds_privilege(kind, mode) ||
	     (opens_to_others(kind, mode) && member_reaches_program_dir(path))))
		mscommand_incomplete(e, c, "a glob or a recursive change may reach files that are "
				     "not the package's");
	else if (msfile_members_known(e) && !f->glob && !recursive)
		where = landing(e, c, kind, path, mode, &skip);
	if (skip)
		return;
	a.path = strdup(where);
	if (!a.path || (mode && !(a.mode = strdup(mode))) || (owner && !(a.owner = strdup(owner))) ||
	    (group && !(a.group = strdup(group))) || (caps && !(a.caps = strdup(caps)))) {
		mseval_action_release(&a);
		mseval_oom(e);
		return;
	}
	r = record(e, c, &a);
	mseval_action_release(&a);
	if (r < 0)
		mseval_oom(e);
}

/*
 * The status of a command on files: it works (an installation in which it
 * fails stops with an error dpkg reports), except on an empty name.
 */
static enum ms_st files_status(struct ms_eval *e, const struct ms_call *c, size_t from)
{
	(void)e;
	for (size_t i = from; i < c->argc; i++)
		if (c->v[i].known && !c->v[i].len)
			return MS_FALSE;
	return MS_TRUE;
}

/* --- chmod, chown, setcap, dpkg-statoverride ------------------------------------------------- */

/* chmod [-R -f -v -c …] MODE FILE… */
enum ms_st msfile_chmod(struct ms_eval *e, const struct ms_call *c)
{
	size_t i = 1;
	bool recursive = false;
	uint32_t dummy;

	for (; i < c->argc && mscommand_is_option(&c->v[i]); i++) {
		const char *o = c->v[i].s;
		if (s2c_streq(o, "--")) {
			i++;
			break;
		}
		if (ms_chmod(o, 0755, false, &dummy) == 0)
			break;          /* "-x", "-w", "-s": a mode, not an option */
		if (s2c_streq(o, "-R") || s2c_streq(o, "--recursive"))
			recursive = true;
		else if (strncmp(o, "--reference", 11) == 0) {
			mscommand_incomplete(e, c, "a mode copied from another file is not modelled");
			return MS_UNKNOWN;
		} else if (!strchr("fvc", o[1]) && strncmp(o, "--", 2) != 0) {
			mscommand_incomplete(e, c, "an option that is not modelled");
			return MS_UNKNOWN;
		}
	}
	if (i >= c->argc)
		return MS_FALSE;
	if (!c->v[i].known) {
		/* on directories the script made it changes no privileged file */
		for (size_t j = i + 1; j < c->argc; j++) {
			_cleanup_free_ char *p = msfile_path(e, &c->v[j]);
			if (!p || !msfile_made_dir_is(e, p) || msfile_member(e, p)) {
				mscommand_incomplete(e, c, "a mode that is not known");
				return MS_UNKNOWN;
			}
		}
		return MS_TRUE;
	}
	if (ms_chmod(c->v[i].s, 0755, false, &dummy) < 0)
		return MS_FALSE;        /* chmod refuses it and changes nothing */
	for (size_t j = i + 1; j < c->argc; j++)
		msfile_act(e, c, MS_CHMOD, &c->v[j], c->v[i].s, NULL, NULL, NULL, recursive);
	return files_status(e, c, i + 1);
}

static bool login_group_known(const struct ms_eval *e, const char *user)
{
	static const char *const base[] = { "root", "daemon", "bin", "sys", "man", "lp", "mail",
					    "news", "uucp", "proxy", "www-data", "backup", "list",
					    "irc", "gnats", "nobody" };

	for (size_t i = 0; i < S2C_ELEMENTSOF(base); i++)
		if (s2c_streq(base[i], user))
			return true;
	for (size_t i = 0; i < e->n_groups; i++)
		if (s2c_streq(e->groups[i], user))
			return true;
	return false;
}

/*
 * "owner:group", "owner.group", ":group", "owner"; "owner:" is the owner's
 * login group, which *@unknown says is not known.
 */
static int owner_spec(struct ms_eval *e, const char *spec, char **owner, char **group,
		      bool *unknown)
{
	size_t k = strcspn(spec, ":.");

	*owner = k ? strndup(spec, k) : NULL;
	*group = spec[k] && spec[k + 1] ? strdup(spec + k + 1) : NULL;
	if ((k && !*owner) || (spec[k] && spec[k + 1] && !*group))
		return -ENOMEM;
	if (spec[k] && !spec[k + 1] && k) {
		/* "owner:" is the owner's login group: known for an account the script made with
		 * a group of its name, and for Debian's static ones */
		*unknown = !login_group_known(e, *owner);
		if (*unknown)
			return 0;
		*group = strdup(s2c_streq(*owner, "nobody") ? "nogroup" : *owner);
		if (!*group)
			return -ENOMEM;
	}
	return 0;
}

/* chown [opts] OWNER[:GROUP] FILE…, chgrp [opts] GROUP FILE… */
enum ms_st msfile_chown(struct ms_eval *e, const struct ms_call *c)
{
	bool chgrp = s2c_streq(member_base_name(c->v[0].s), "chgrp");
	_cleanup_free_ char *owner = NULL, *group = NULL;
	size_t i = 1;
	bool recursive = false, nofollow = false, group_unknown = false;
	int r;

	for (; i < c->argc && mscommand_is_option(&c->v[i]); i++) {
		const char *o = c->v[i].s;
		if (s2c_streq(o, "--")) {
			i++;
			break;
		}
		if (s2c_streq(o, "-R") || s2c_streq(o, "--recursive"))
			recursive = true;
		else if (s2c_streq(o, "-h") || s2c_streq(o, "--no-dereference"))
			nofollow = true;
		else if (strncmp(o, "--reference", 11) == 0 || strncmp(o, "--from", 6) == 0) {
			mscommand_incomplete(e, c, "an option that is not modelled");
			return MS_UNKNOWN;
		}
	}
	if (i >= c->argc)
		return MS_FALSE;
	if (!c->v[i].known) {
		/* a new owner takes privilege away: it matters only on a privileged file */
		for (size_t j = i + 1; j < c->argc; j++) {
			_cleanup_free_ char *p = msfile_path(e, &c->v[j]);
			mseval_touch(e, c->n->line, p, recursive, "gives an owner not known to");
		}
		return MS_TRUE;
	}
	if (chgrp)
		r = (group = strdup(c->v[i].s)) ? 0 : -ENOMEM;
	else
		r = owner_spec(e, c->v[i].s, &owner, &group, &group_unknown);
	if (r < 0) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	for (size_t j = i + 1; j < c->argc; j++) {
		_cleanup_free_ char *p = msfile_path(e, &c->v[j]);
		const struct member *m = nofollow && p && e->ctx->members ?
					 memberset_get(e->ctx->members, p) : NULL;
		if (m && m->type == MEMBER_SYMLINK)
			continue;       /* -h changes the link itself */
		msfile_act(e, c, MS_CHOWN, &c->v[j], NULL, owner, group, NULL, recursive);
		/* like an owner not known: it matters only on a privileged file */
		if (group_unknown)
			mseval_touch(e, c->n->line, c->v[j].glob ? NULL : p, recursive,
				     "gives a group not known to");
	}
	return files_status(e, c, i + 1);
}

/* Whether this script did anything to @path, or to a file it cannot name. */
static bool handled(const struct ms_eval *e, const char *path)
{
	if (mseval_acted_on(e, path))
		return true;
	for (size_t i = 0; i < e->n_touches; i++)
		if (!e->touches[i].path || s2c_streq(e->touches[i].path, path) ||
		    e->touches[i].below)
			return true;
	return false;
}

/*
 * setcap -v CAPS FILE: fails where setcap does not work; where it works, on a
 * file of the package the script has not touched (dpkg unpacks none with
 * capabilities), it fails for capabilities that are not empty.
 */
static enum ms_st setcap_verify(struct ms_eval *e, const struct ms_call *c, size_t i)
{
	_cleanup_free_ char *path = NULL;
	const struct member *m;
	struct fcaps caps;

	if (e->sc != MS_SCENARIO_WORKS)
		return MS_FALSE;
	if (i + 2 != c->argc || !c->v[i].known || !msfile_members_known(e))
		return MS_UNKNOWN;
	path = msfile_path(e, &c->v[i + 1]);
	m = path ? memberset_get(e->ctx->members, path) : NULL;
	if (!m || m->type != MEMBER_FILE || m->has_caps || handled(e, path) ||
	    fcaps_from_text(c->v[i].s, &caps, NULL) < 0 || !(caps.permitted | caps.inheritable))
		return MS_UNKNOWN;
	return MS_FALSE;
}

/* setcap [-q] [-n ROOTID] (CAPS|-r) FILE [(CAPS|-r) FILE …]; setcap -v only checks. */
enum ms_st msfile_setcap(struct ms_eval *e, const struct ms_call *c)
{
	size_t i = 1;

	for (; i < c->argc && c->v[i].known; i++) {
		if (s2c_streq(c->v[i].s, "-v"))
			return setcap_verify(e, c, i + 1);
		if (s2c_streq(c->v[i].s, "-n"))
			i++;
		else if (!s2c_streq(c->v[i].s, "-q"))
			break;
	}
	for (; i + 1 < c->argc; i += 2) {
		if (!c->v[i].known) {
			mscommand_incomplete(e, c, "capabilities that are not known");
			continue;
		}
		if (s2c_streq(c->v[i].s, "-r"))
			msfile_act(e, c, MS_SETCAP_REMOVE, &c->v[i + 1], NULL, NULL, NULL, NULL, false);
		else
			msfile_act(e, c, MS_SETCAP, &c->v[i + 1], NULL, NULL, NULL, c->v[i].s, false);
	}
	return e->sc == MS_SCENARIO_WORKS ? MS_TRUE : MS_FALSE;
}

static enum ms_st statoverride_add(struct ms_eval *e, const struct ms_call *c, size_t i,
				   bool update)
{
	const struct ms_field *user = &c->v[i], *group = &c->v[i + 1], *mode = &c->v[i + 2];
	_cleanup_free_ char *path = NULL;

	if (!user->known || !group->known || !mode->known) {
		mscommand_incomplete(e, c, "an owner, group or mode that is not known");
		return MS_UNKNOWN;
	}
	path = msfile_path(e, &c->v[i + 3]);
	if (path)
		mseval_strset_add(e, &e->overrides, &e->n_overrides, path);
	/* Without --update the override waits for the next unpack: dpkg reads its database
	 * once, before the preinst runs, so not even this installation's.  In the preinst,
	 * --update has no file to change yet. */
	if (!update || e->ctx->before_unpack) {
		mseval_note(e, c->n->line, "dpkg-statoverride records %s %s:%s %s for the next "
			    "upgrade", mode->s, user->s, group->s, path ? path : "(a file)");
		return MS_TRUE;
	}
	msfile_act(e, c, MS_STATOVERRIDE, &c->v[i + 3], mode->s, user->s, group->s, NULL, false);
	/* it fails for an account that does not exist: the installation then fails */
	return MS_TRUE;
}

/*
 * dpkg-statoverride [OPTION...] --add USER GROUP MODE FILE, in any order of its options,
 * which come before the operands (dpkg's option parser stops at the first); --list: none
 * on a fresh system.
 */
enum ms_st msfile_statoverride(struct ms_eval *e, const struct ms_call *c)
{
	const char *action = NULL;
	bool update = false;
	size_t i = 1;

	for (; i < c->argc; i++) {
		const char *o = c->v[i].known ? c->v[i].s : NULL;
		if (!o) {
			mscommand_incomplete(e, c, "an option or operand that is not known");
			return MS_UNKNOWN;
		}
		if (o[0] != '-' || !o[1])
			break;
		if (s2c_streq(o, "--")) {
			i++;
			break;
		}
		if (s2c_streq(o, "--update"))
			update = true;
		else if (s2c_streq(o, "--add") || s2c_streq(o, "--remove") || s2c_streq(o, "--list"))
			action = o;
		else if (!s2c_streq(o, "--quiet") && !s2c_streq(o, "--force") &&
			 !s2c_startswith(o, "--force-") && !s2c_startswith(o, "--no-force-") &&
			 !s2c_startswith(o, "--refuse-")) {
			/* --root, --instdir, --admindir: another root or database */
			mscommand_incomplete(e, c, "an option that is not modelled");
			return MS_UNKNOWN;
		}
	}
	if (action && s2c_streq(action, "--list")) {
		_cleanup_free_ char *p = i < c->argc ? msfile_path(e, &c->v[i]) : NULL;
		for (size_t k = 0; p && k < e->n_overrides; k++)
			if (s2c_streq(e->overrides[k], p))
				return MS_TRUE;
		return i < c->argc ? MS_FALSE : MS_TRUE;
	}
	if (!action || s2c_streq(action, "--remove"))
		return MS_UNKNOWN;
	if (c->argc - i != 4) {
		mscommand_incomplete(e, c, "--add without its four operands");
		return MS_UNKNOWN;
	}
	return statoverride_add(e, c, i, update);
}

/* adduser, addgroup, useradd, groupadd: the groups they create, by name. */
enum ms_st msfile_useradd(struct ms_eval *e, const struct ms_call *c)
{
	const char *cmd = member_base_name(c->v[0].s);
	bool group_cmd = s2c_streq(cmd, "addgroup") || s2c_streq(cmd, "groupadd");
	bool with_group = group_cmd, takes_value = false;
	const char *last = NULL;
	size_t names = 0;

	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (takes_value) {
			takes_value = false;
			continue;
		}
		if (!f->known)
			return MS_TRUE;         /* a name not known: no group recorded */
		if (s2c_streq(f->s, "--group") || s2c_streq(f->s, "-U") ||
		    s2c_streq(f->s, "--user-group"))
			with_group = !s2c_streq(cmd, "adduser") || s2c_streq(f->s, "--group") ||
				     with_group;
		else if (f->s[0] == '-' && !strchr(f->s, '=') &&
			 !(s2c_streq(f->s, "--system") || s2c_streq(f->s, "-r") ||
			   s2c_streq(f->s, "--quiet") || s2c_streq(f->s, "-q") ||
			   s2c_streq(f->s, "--disabled-password") || s2c_streq(f->s, "--disabled-login") ||
			   s2c_streq(f->s, "--no-create-home") || s2c_streq(f->s, "-M") ||
			   s2c_streq(f->s, "-f") || s2c_streq(f->s, "--force-badname") ||
			   s2c_streq(f->s, "--allow-bad-names") || s2c_streq(f->s, "--no-user-group") ||
			   s2c_streq(f->s, "-N")))
			takes_value = true;
		else if (f->s[0] != '-') {
			last = f->s;
			names++;
		}
	}
	/* "adduser USER GROUP" adds a user to a group that exists */
	if (last && with_group && names == 1)
		mseval_strset_add(e, &e->groups, &e->n_groups, last);
	return MS_TRUE;
}
