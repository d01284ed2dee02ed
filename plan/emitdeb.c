/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Debian postinst and postrm of a plan (plan/emitdeb.h).  A file whose state
 * after has an owner and group base-passwd allocates is shipped so by the package,
 * as iputils-ping, mtr-tiny and fping ship theirs; the postinst only adds the
 * capabilities dpkg cannot keep.  dpkg-statoverride, the administrator's tool
 * (Debian Policy 10.9.1), serves only an owner or group allocated at install time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "em.h"
#include "emitdeb.h"
#include "plan.h"
#include "util.h"
#include "common.h"

/*
 * An id base-passwd allocates (Debian Policy 9.2.2): 0-99, 60000-64999 and 65534.  The
 * others are allocated when a package is installed (adduser), so no package can ship a
 * file owned by one.
 */
static bool deb_static_id(uint32_t id)
{
	return id < 100 || (id >= 60000 && id <= 64999) || id == 65534;
}

/* The package ships @x in its state after: owner and group are base-passwd's. */
static bool deb_shipped(const struct plan_entry *x)
{
	return deb_static_id(x->after.uid) && deb_static_id(x->after.gid);
}

/*
 * Whether the postinst has anything to do for @x: a migration or drop that changes the
 * file, or capabilities to give it again on every configure (dpkg keeps none).  A held
 * back entry (its state after is its state now, without capabilities) is a comment.
 */
static bool deb_acts(const struct plan_entry *x)
{
	return (x->verdict == VERDICT_MIGRATE || x->verdict == VERDICT_DROP) &&
	       (x->change || x->after_names.caps_text);
}

/*
 * A path dpkg-statoverride takes literally: it refuses a newline (its database is one line
 * per file), and --list matches its operand as a glob (a file named "*" in /usr/bin would
 * match every override there), with a backslash as the glob's escape.
 */
static bool deb_path_ok(const char *path)
{
	return !strpbrk(path, "\n*?[]\\");
}

/* How dpkg-statoverride takes an owner or group: the name when it is a plain one or
 * plain text without a space (quoted by the caller), else "#ID". */
static bool deb_id_named(const char *name)
{
	return name && *name && em_plain_text_ok(name) && !strchr(name, ' ');
}

/* Owner or group for dpkg-statoverride: the name as is when it is a plain one, else
 * quoted, or "#ID" when it has none. */
static void deb_id(struct em *e, const char *name, uint32_t id)
{
	if (name && *name && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") ==
				     strlen(name))
		em_put(e, "%s", name);
	else if (deb_id_named(name))
		em_quoted(e, name);
	else
		em_put(e, "'#%u'", id);
}

/* OWNER:GROUP for chown: plain names as they are, else the numbers. */
static void deb_chown_ids(struct em *e, const struct file_state *s, const struct plan_names *n)
{
	if (em_plain_name_ok(n->owner))
		em_put(e, "%s", n->owner);
	else
		em_put(e, "%u", s->uid);
	if (em_plain_name_ok(n->group))
		em_put(e, ":%s", n->group);
	else
		em_put(e, ":%u", s->gid);
}

/*
 * Record the state after with dpkg-statoverride unless the admin has an override, and put
 * it on the file ("$f", its true name); "added" says whether this snippet did (for the undo
 * of a failed setcap).  No --update: it would chown and chmod the package's name, which a
 * diversion may have given to another file.  chown clears capabilities and set-ID bits, so
 * it comes first.
 */
static void deb_statoverride(struct em *e, const struct plan_entry *x)
{
	em_put(e, "\tadded=0\n\tif ! dpkg-statoverride --list ");
	em_quoted(e, x->path);
	em_put(e, " >/dev/null 2>&1; then\n\t\tdpkg-statoverride --add ");
	deb_id(e, x->after_names.owner, x->after.uid);
	em_put(e, " ");
	deb_id(e, x->after_names.group, x->after.gid);
	em_put(e, " %04o ", x->after.mode);
	em_quoted(e, x->path);
	em_put(e, "\n\t\tadded=1\n\t\tchown ");
	deb_chown_ids(e, &x->after, &x->after_names);
	em_put(e, " \"$f\"\n\t\tchmod %04o \"$f\"\n\tfi\n", x->after.mode);
}

/*
 * setcap, then the set-user-ID bit goes.  When setcap fails the file gets back exactly
 * the owner, group and mode it had (never "chmod u+s", which would make a setgid-only file
 * setuid root as well), and the override this snippet added goes, or the next upgrade
 * would give the file the mode without privilege again.
 */
static void deb_setcap(struct em *e, const struct plan_entry *x)
{
	const struct file_state *b = &x->id.state;
	_cleanup_free_ char *msg = NULL;
	_cleanup_free_ char *esc = escape_text(x->path);

	em_put(e, "\tif command -v setcap >/dev/null 2>&1 && setcap ");
	em_quoted(e, x->after_names.caps_text);
	em_put(e, " \"$f\"; then\n\t\tchmod u-s \"$f\"\n\telse\n\t\tprintf '%%s\\n' ");
	if (!esc || asprintf(&msg, "setcap failed on %s, putting back mode %04o and owner %u:%u",
			     esc, b->mode, b->uid, b->gid) < 0)
		e->oom = true;
	else
		em_quoted(e, msg);
	em_put(e, " >&2\n\t\tif [ \"$added\" = 1 ]; then\n\t\t\tdpkg-statoverride --remove ");
	em_quoted(e, x->path);
	em_put(e, "\n\t\tfi\n\t\tchown ");
	deb_chown_ids(e, b, &x->before_names);
	em_put(e, " \"$f\"\n\t\tchmod %04o \"$f\"\n\tfi\n", b->mode);
}

/* "# PATH: VERDICT: dpkg-statoverride cannot take this name...", or false when it can. */
static bool deb_unnamed(struct em *e, const struct plan_entry *x)
{
	if (deb_path_ok(x->path))
		return false;
	em_put(e, "\t# ");
	em_escaped(e, x->path);
	em_put(e, ": %s: dpkg-statoverride cannot take this name literally (a newline, or a "
	    "glob character), skipping it\n", verdict_name(x->verdict));
	return true;
}

/*
 * A file the package ships in its state after: setcap, then the exact mode after (a package
 * built before its debian/rules changed still ships it set-ID); where setcap is missing or
 * fails, the exact owner, group and mode before (never "chmod u+s", which would make a
 * setgid-only file setuid root as well).  An administrator's dpkg-statoverride for the file
 * stands: dpkg put that state on it, and the postinst leaves it.
 */
static void deb_shipped_entry(struct em *e, const struct plan_entry *x)
{
	const struct file_state *a = &x->after, *b = &x->id.state;
	const char *caps = x->after_names.caps_text;
	_cleanup_free_ char *esc = escape_text(x->path), *msg = NULL;

	em_put(e, "\tif dpkg-statoverride --list ");
	em_quoted(e, x->path);
	em_put(e, " >/dev/null 2>&1; then\n\t\t: # the administrator's dpkg-statoverride stands\n");
	if (!caps) {
		em_put(e, "\telse\n\t\tchmod %04o \"$f\"\n\tfi\n", a->mode);
		return;
	}
	em_put(e, "\telif command -v setcap >/dev/null 2>&1 && setcap ");
	em_quoted(e, caps);
	em_put(e, " \"$f\"; then\n\t\tchmod %04o \"$f\"\n\telse\n\t\tprintf '%%s\\n' ", a->mode);
	if (!esc || !(msg = strdup_printf("setcap failed on %s, putting back mode %04o and owner "
					  "%u:%u", esc, b->mode, b->uid, b->gid)))
		e->oom = true;
	else
		em_quoted(e, msg);
	em_put(e, " >&2\n");
	if (b->uid != a->uid || b->gid != a->gid) {
		em_put(e, "\t\tchown ");
		deb_chown_ids(e, b, &x->before_names);
		em_put(e, " \"$f\"\n");
	}
	em_put(e, "\t\tchmod %04o \"$f\"\n\tfi\n", b->mode);
}

/*
 * Drop: the capabilities go too.  A fresh unpack has none (dpkg keeps none); a failed
 * setcap -r is said, never swallowed.
 */
static void deb_setcap_r(struct em *e, const struct plan_entry *x)
{
	_cleanup_free_ char *esc = escape_text(x->path), *msg = NULL;

	if (!esc || asprintf(&msg, "setcap -r failed on %s: it keeps its capabilities", esc) < 0) {
		e->oom = true;
		return;
	}
	em_put(e, "\tif command -v setcap >/dev/null 2>&1 && [ -n \"$(getcap \"$f\")\" ] &&\n"
	    "\t    ! setcap -r \"$f\"; then\n\t\tprintf '%%s\\n' ");
	em_quoted(e, msg);
	em_put(e, " >&2\n\tfi\n");
}

/* The postinst's lines for @x: its true name, then its own way or dpkg-statoverride's. */
static void deb_entry(struct em *e, const struct plan_entry *x, const struct rules_db *db)
{
	const struct plan_names *a = &x->after_names;

	if (deb_unnamed(e, x))
		return;
	em_put(e, "\t# ");
	em_escaped(e, x->path);
	if (x->verdict == VERDICT_MIGRATE && a->caps_text) {
		em_put(e, ": migrate to ");
		em_escaped(e, a->caps_text);
	} else {
		em_put(e, ": drop every privilege");
	}
	em_put(e, "\n");
	em_rule(e, "\t", x, db);
	/* The file itself may have been diverted elsewhere; dpkg-statoverride names the
	 * package's path, which dpkg looks it up by when it unpacks. */
	em_put(e, "\tf=$(dpkg-divert --truename ");
	em_quoted(e, x->path);
	em_put(e, ")\n");
	if (deb_shipped(x)) {
		deb_shipped_entry(e, x);
		return;
	}
	/* An owner or group allocated at install time: only a statoverride gives the file
	 * that state, and keeps it across upgrades. */
	deb_statoverride(e, x);
	if (x->verdict == VERDICT_MIGRATE && a->caps_text) {
		deb_setcap(e, x);
	} else if (x->id.state.has_xattr) {
		deb_setcap_r(e, x);
	}
}

/*
 * "debian/PKG/usr/bin/ping", the path in the package's build directory, for a comment:
 * as it is when a shell takes it as one word, else escaped and quoted.
 */
static void deb_build_path(struct em *e, const struct plan_entry *x)
{
	const char *pkg = x->package && em_plain_name_ok(x->package) ? x->package : "PACKAGE";
	_cleanup_free_ char *path = strdup_printf("debian/%s%s", pkg, x->path);

	if (!path)
		e->oom = true;
	else if (em_plain_text_ok(path) && !strpbrk(path, " $`;&|<>()'#~"))
		em_put(e, "%s", path);
	else
		em_quoted_escaped(e, path);
}

/*
 * What the package must ship for the postinst to work: each file in its state after,
 * and how debian/rules gets there.  dh_fixperms clears every set-ID bit and leaves
 * 0755 root:root for a program, so only what else stays needs a line after it.
 */
static void deb_packaging(struct em *e, const struct plan *p)
{
	size_t shipped = 0, fix = 0, dynamic = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct plan_entry *x = &p->v[i];

		if (!deb_acts(x) || !deb_path_ok(x->path))
			continue;
		if (!deb_shipped(x)) {
			dynamic++;
			continue;
		}
		if (!shipped++)
			em_put(e, "#\n# The package ships these files in their state after the migration:\n");
		em_put(e, "#   ");
		em_escaped(e, x->path);
		em_put(e, "  %04o ", x->after.mode);
		deb_chown_ids(e, &x->after, &x->after_names);
		em_put(e, "\n");
		fix += x->after.mode != 0755 || x->after.uid || x->after.gid;
	}
	if (shipped)
		em_put(e, "# dh_fixperms clears every set-ID bit and leaves a program 0755 root:root,\n"
		       "# so drop whatever made these files set-ID after it in debian/rules%s\n",
		       fix ? ", and put\n# back only what stays:" : ".");
	if (fix) {
		em_put(e, "#\n#   override_dh_fixperms:\n#   \tdh_fixperms\n");
		for (size_t i = 0; i < p->n; i++) {
			const struct plan_entry *x = &p->v[i];
			const struct file_state *a = &x->after;

			if (!deb_acts(x) || !deb_path_ok(x->path) || !deb_shipped(x) ||
			    (a->mode == 0755 && !a->uid && !a->gid))
				continue;
			if (a->uid || a->gid) {
				em_put(e, "#   \tchown ");
				deb_chown_ids(e, a, &x->after_names);
				em_put(e, " ");
				deb_build_path(e, x);
				em_put(e, "\n");
			}
			em_put(e, "#   \tchmod %04o ", a->mode);
			deb_build_path(e, x);
			em_put(e, "\n");
		}
		em_put(e, "#\n# (an owner or group other than root needs\n"
		       "# Rules-Requires-Root: binary-targets in debian/control).\n");
	}
	if (shipped)
		em_put(e, "# setcap is in libcap2-bin: name it in Recommends (or Depends).\n");
	if (dynamic)
		em_put(e, "#\n# A file whose owner or group is allocated at install time cannot be\n"
		       "# shipped so: dpkg-statoverride gives it its state (unless the administrator\n"
		       "# has an override), and the postrm from 'suid2cap plan --format deb-postrm'\n"
		       "# takes the override back.\n");
}

int emit_deb(const struct plan *p, const struct rules_db *db, FILE *out)
{
	struct em e = { .f = out };
	size_t done = 0;

	em_put(&e, "#!/bin/sh\n");
	em_package_header(&e, p, "Debian postinst");
	em_put(&e, "#\n# dpkg keeps no file capabilities, so setcap runs on every configure, as\n"
	    "# iputils-ping's postinst does; where setcap is missing or fails, the file gets\n"
	    "# back exactly the owner, group and mode it had.  An administrator's\n"
	    "# dpkg-statoverride for a file stands.  Every change goes to the file\n"
	    "# dpkg-divert --truename names, where a diversion put the program.\n");
	deb_packaging(&e, p);
	for (size_t i = 0, n = 0; i < p->n; i++)
		if (!deb_acts(&p->v[i]))
			em_comment_entry(&e, n++ ? "" : "#\n", &p->v[i]);
	em_put(&e, "\nset -e\n\ncase \"$1\" in\nconfigure)\n");
	for (size_t i = 0; i < p->n; i++)
		if (deb_acts(&p->v[i])) {
			deb_entry(&e, &p->v[i], db);
			done++;
		}
	if (!done)
		em_put(&e, "\t: nothing to migrate\n");
	em_put(&e, "\t;;\nesac\n\n#DEBHELPER#\n\nexit 0\n");
	return em_finish(&e);
}

/* An owner or group as dpkg-statoverride --list prints the one the postinst gave. */
static char *deb_id_listed(const char *name, uint32_t id)
{
	char *s;

	if (deb_id_named(name))
		return strdup(name);
	return asprintf(&s, "#%u", id) < 0 ? NULL : s;
}

static void deb_postrm_entry(struct em *e, const struct plan_entry *x, const struct rules_db *db)
{
	_cleanup_free_ char *owner = deb_id_listed(x->after_names.owner, x->after.uid);
	_cleanup_free_ char *group = deb_id_listed(x->after_names.group, x->after.gid);
	_cleanup_free_ char *fields = NULL, *msg = NULL, *esc = escape_text(x->path);

	if (deb_unnamed(e, x))
		return;
	if (!owner || !group || !esc ||
	    asprintf(&fields, "%s %s %o ", owner, group, x->after.mode & 07777) < 0 ||
	    asprintf(&msg, "%s: keeping its dpkg-statoverride entry, which is not the one the "
		     "postinst added", esc) < 0) {
		e->oom = true;
		return;
	}
	/* The path is one quoted word of its own, never part of a longer one. */
	em_put(e, "\t# ");
	em_escaped(e, x->path);
	em_put(e, "\n");
	em_rule(e, "\t", x, db);
	em_put(e, "\tp=");
	em_quoted(e, x->path);
	em_put(e, "\n\tover=$(dpkg-statoverride --list \"$p\" 2>/dev/null) || over=\n"
	    "\tif [ \"$over\" = ");
	em_quoted(e, fields);
	em_put(e, "\"$p\" ]; then\n\t\tdpkg-statoverride --remove \"$p\"\n"
	    "\telif [ -n \"$over\" ]; then\n\t\tprintf '%%s\\n' ");
	em_quoted(e, msg);
	em_put(e, " >&2\n\tfi\n");
}

int emit_deb_postrm(const struct plan *p, const struct rules_db *db, FILE *out)
{
	struct em e = { .f = out };
	size_t done = 0;

	em_put(&e, "#!/bin/sh\n");
	em_package_header(&e, p, "Debian postrm");
	em_put(&e, "#\n# The postrm of the postinst from 'suid2cap plan --format deb': on remove and\n"
	    "# purge it takes back the dpkg-statoverride entries that postinst adds for\n"
	    "# files whose owner or group is allocated at install time, and only those.\n"
	    "# An entry with another owner, group or mode (the admin's own, or one changed\n"
	    "# since) stays, and the script says so; one with exactly those is taken for\n"
	    "# the postinst's.  The files the package ships in their state after need\n"
	    "# nothing: file capabilities go with the files.\n"
	    "\nset -e\n\ncase \"$1\" in\nremove|purge)\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_entry *x = &p->v[i];

		if (!deb_acts(x) || deb_shipped(x))
			continue;
		deb_postrm_entry(&e, x, db);
		done++;
	}
	if (!done)
		em_put(&e, "\t: nothing to take back\n");
	em_put(&e, "\t;;\nesac\n\n#DEBHELPER#\n\nexit 0\n");
	return em_finish(&e);
}
