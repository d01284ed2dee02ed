/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Other packages' helpers that write files, in the maintainer-script
 * evaluator, each as read in its source: where it writes, with what mode,
 * and whether a file there keeps its own (a write in place keeps a set-ID
 * program's bits).  What they write is recorded as touches, checked against
 * the privileged files by maintscript_check().
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "member.h"
#include "mscommand.h"
#include "shparse.h"
#include "util.h"
#include "common.h"

/*
 * plocate-build [-b SIZE] [-l FLAG] [-p] MLOCATE_DB PLOCATE_DB reads the first
 * and writes the second: a new file of mode 0640 (umask 027), never set-ID.
 * Its status depends on the database it reads.
 */
enum ms_st mshelper_plocate_build(struct ms_eval *e, const struct ms_call *c)
{
	const struct ms_field *out = NULL;
	_cleanup_free_ char *p = NULL;

	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (f->known && (s2c_streq(f->s, "-b") || s2c_streq(f->s, "-l") ||
				 s2c_streq(f->s, "--block-size") ||
				 s2c_streq(f->s, "--require-visibility")))
			i++;
		else if (!mscommand_is_option(f))
			out = f;
	}
	if (!out)
		return MS_UNKNOWN;
	p = msfile_path(e, out);
	mseval_touch(e, c->n->line, p, false, "writes to");
	if (p)
		msfile_made(e, p);
	return MS_UNKNOWN;
}

/*
 * courier's mkcouriercert, run as mkpop3dcert (the link courier-pop ships):
 * with no operand a key and a self-signed certificate in
 * /etc/courier/pop3d.pem, made 0600 and owned by courier (`install -m 600
 * -o courier`, then `chmod 600`, `chown courier`), with pop3d.key and
 * pop3d.cert made and removed on the way; an operand names the files
 * instead (without the extension, from /etc/courier).  It fails when the
 * .pem is there already.  It changes no other file.
 */
enum ms_st mshelper_mkcert(struct ms_eval *e, const struct ms_call *c)
{
	static const char *const ext[] = { ".pem", ".key", ".cert", ".rand" };
	_cleanup_free_ char *base = NULL, *pem = NULL;
	bool exists;

	if (c->argc > 2)
		return MS_UNKNOWN;      /* it reads one operand; the rest is not its use */
	if (c->argc == 1)
		base = strdup("/etc/courier/pop3d");
	else if (c->v[1].known && c->v[1].s[0] == '/')
		base = msfile_path(e, &c->v[1]);
	if (!base) {
		/* a name not known, or relative to /etc/courier: written where it cannot be said */
		mseval_touch(e, c->n->line, NULL, false, "writes to");
		return MS_UNKNOWN;
	}
	pem = strdup_printf("%s.pem", base);
	if (!pem) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	exists = msfile_exists(e, pem);
	for (size_t i = 0; i < S2C_ELEMENTSOF(ext); i++) {
		_cleanup_free_ char *p = strdup_printf("%s%s", base, ext[i]);
		if (!p) {
			mseval_oom(e);
			return MS_UNKNOWN;
		}
		mseval_touch(e, c->n->line, p, false, "writes to");
	}
	if (exists)
		return MS_FALSE;
	msfile_made(e, pem);
	return MS_TRUE;
}

/* A command and the options that name a file it writes: "-o" takes the next operand or
 * what follows it ("-oFILE"), "--output=" what follows the '='. */
struct output_options {
	const char *command;
	const char *options[4];
};

static const struct output_options output_options[] = {
	{ "dbus-uuidgen", { "--ensure=" } },
	{ "iconv", { "-o", "--output", "--output=" } },
	{ "install-info", { "--dir-file", "--dir-file=" } },
	{ "keytool", { "-keystore", "-destkeystore", "-file" } },
	{ "mkfontscale", { "-o" } },
	{ "openssl", { "-out", "-keyout" } },
	{ "rndc-confgen", { "-c" } },
	{ "sort", { "-o", "--output", "--output=" } },
	{ "ssh-keygen", { "-f" } },
	{ "update-xmlcatalog", { "--catalog" } },
};

/* The file option @opt of @f names, or NULL: @f is @opt (*@ret_next: the next field
 * names it), "-oFILE" for a short @opt, or "--output=FILE". */
static const char *output_value(const struct ms_field *f, const char *opt, bool *ret_next)
{
	size_t n = strlen(opt);

	*ret_next = false;
	if (!f->known || strncmp(f->s, opt, n) != 0)
		return NULL;
	if (!f->s[n]) {
		*ret_next = opt[n - 1] != '=';
		return *ret_next ? NULL : f->s + n;
	}
	return opt[n - 1] == '=' || (n == 2 && opt[1] != '-') ? f->s + n : NULL;
}

/*
 * openssl -out, sort -o, iconv -o, keytool -keystore, ssh-keygen -f, rndc-confgen -c,
 * dbus-uuidgen --ensure=, install-info --dir-file, mkfontscale -o, update-xmlcatalog
 * --catalog: they write the file the option names, in place where it is
 * there (it keeps its mode, set-ID bits included); nothing else of theirs changes a
 * mode, owner or capability.  A value not known is a write to a file that cannot be
 * named.
 */
enum ms_st mshelper_outputs(struct ms_eval *e, const struct ms_call *c)
{
	const char *cmd = member_base_name(c->v[0].s);
	const struct output_options *o = NULL;

	for (size_t i = 0; i < S2C_ELEMENTSOF(output_options); i++)
		if (s2c_streq(output_options[i].command, cmd))
			o = &output_options[i];
	for (size_t i = 1; o && i < c->argc; i++) {
		for (size_t k = 0; k < S2C_ELEMENTSOF(o->options) && o->options[k]; k++) {
			_cleanup_free_ char *p = NULL, *value = NULL;
			struct ms_field g = { 0 };
			bool next;
			const char *v = output_value(&c->v[i], o->options[k], &next);
			if (!v && !next)
				continue;
			if (next && ++i >= c->argc)
				break;
			if (!next && !(value = strdup(v))) {
				mseval_oom(e);
				return MS_UNKNOWN;
			}
			g = next ? c->v[i] : (struct ms_field){ .s = value, .len = strlen(value),
								.known = true };
			p = msfile_path(e, &g);
			mseval_touch(e, c->n->line, p, false, "writes to");
			break;
		}
	}
	return MS_TRUE;
}

/*
 * ucf [OPTION...] NEW DEST: NEW replaces DEST's content in place where DEST is there (it
 * keeps its mode), and is copied with its mode where it is not, and into ucf's cache;
 * --purge and a single operand only change ucf's own records.
 */
enum ms_st mshelper_ucf(struct ms_eval *e, const struct ms_call *c)
{
	size_t first = 0, n = 0;

	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (!f->known) {
			mscommand_incomplete(e, c, "an operand or option that is not known");
			return MS_UNKNOWN;
		}
		if (s2c_streq(f->s, "-p") || s2c_streq(f->s, "--purge"))
			return MS_TRUE;
		if (s2c_streq(f->s, "--sum-file") || s2c_streq(f->s, "--state-dir") ||
		    s2c_streq(f->s, "--src-dir") || s2c_streq(f->s, "-s")) {
			i++;
		} else if (f->s[0] != '-' || !f->s[1]) {
			first = first ? first : i;
			n++;
		}
	}
	if (n != 2)
		return MS_TRUE;
	{
		_cleanup_free_ char *src = msfile_path(e, &c->v[first]);
		_cleanup_free_ char *dest = msfile_path(e, &c->v[c->argc - 1]);
		mseval_touch(e, c->n->line, src, false, "copies with its mode");
		mseval_touch(e, c->n->line, dest, false, "writes to");
	}
	return MS_TRUE;
}

/*
 * x2goserver's x2godbadmin --createdb or --updatedb, with its SQLite backend (the
 * others keep the sessions in a database server): the database x2go_sessions in the
 * home of the account x2gouser, made anew (mode 0660, root:x2gouser) or altered in
 * place, and that directory made 0770, root:x2gouser.  It makes no file set-ID.  The
 * home is /var/lib/x2go as x2goserver-common makes the account; where the package's
 * own scripts make it, it is not known.
 */
enum ms_st mshelper_x2godbadmin(struct ms_eval *e, const struct ms_call *c)
{
	static const char *const files[] = { "/var/lib/x2go", "/var/lib/x2go/x2go_sessions" };
	bool own_account = false;

	if (c->argc != 2 || !c->v[1].known || (!s2c_streq(c->v[1].s, "--createdb") &&
					       !s2c_streq(c->v[1].s, "--updatedb"))) {
		mscommand_incomplete(e, c, "an action of x2godbadmin that is not modelled");
		return MS_UNKNOWN;
	}
	for (size_t i = 0; i < e->n_groups; i++)
		own_account |= s2c_streq(e->groups[i], "x2gouser");
	if (own_account) {
		mseval_touch(e, c->n->line, NULL, false, "writes to");
		return MS_UNKNOWN;
	}
	for (size_t i = 0; i < S2C_ELEMENTSOF(files); i++)
		mseval_touch(e, c->n->line, files[i], false, "writes to");
	return MS_UNKNOWN;
}

/* Whether the ACL text @f (setfacl -m, --set) may grant a write: a 'w' in it, or not known. */
static bool acl_writes(const struct ms_field *f)
{
	return !f->known || strchr(f->s, 'w') != NULL;
}

/*
 * setfacl: an ACL that grants a write opens its files to users other than the owner,
 * and a set-ID program so opened runs what they write; its files are touched as
 * "opens to others" (maintscript_check()).  One that only removes or grants no write
 * changes nothing that matters here.  --restore names its files in a file.
 */
enum ms_st mshelper_setfacl(struct ms_eval *e, const struct ms_call *c)
{
	static const char *const grant[] = { "-m", "--modify", "--set" };
	static const char *const grant_file[] = { "-M", "--modify-file", "--set-file" };
	static const char *const other[] = { "-x", "--remove", "-X", "--remove-file" };
	bool writes = false;
	size_t i = 1;

	for (; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		const char *eq;
		if (!f->known) {
			mscommand_incomplete(e, c, "an option or operand that is not known");
			return MS_UNKNOWN;
		}
		if (f->s[0] != '-' || s2c_streq(f->s, "-"))
			break;
		if (s2c_streq(f->s, "--")) {
			i++;
			break;
		}
		if (strncmp(f->s, "--restore", 9) == 0) {
			mscommand_incomplete(e, c, "--restore names its files in a file");
			return MS_UNKNOWN;
		}
		eq = strchr(f->s, '=');
		if (strv_contains(grant, S2C_ELEMENTSOF(grant), f->s) && i + 1 < c->argc)
			writes |= acl_writes(&c->v[++i]);
		else if (eq && (strncmp(f->s, "--modify=", 9) == 0 || strncmp(f->s, "--set=", 6) == 0))
			writes |= strchr(eq, 'w') != NULL;
		else if (strv_contains(grant_file, S2C_ELEMENTSOF(grant_file), f->s))
			writes = ++i < c->argc || writes;       /* what the file says is not known */
		else if (strv_contains(other, S2C_ELEMENTSOF(other), f->s))
			i++;
	}
	for (; writes && i < c->argc; i++) {
		_cleanup_free_ char *p = msfile_path(e, &c->v[i]);
		mseval_touch(e, c->n->line, p, false, "opens to others");
	}
	return MS_TRUE;
}

/*
 * Helpers that run every package's code from where packages put it: the hooks and
 * configuration that update-initramfs and update-grub run or source, the menu methods
 * and executable menu files update-menus runs, the modules the query tools of
 * gdk-pixbuf, GIO and GTK load (a library runs code as it loads).  Patterns match
 * whole paths (fnmatch, '*' crossing '/').
 */
struct hook_dirs {
	const char *command;
	const char *patterns[5];
	bool executable;        /* only executable files there are run */
	bool evaluated;         /* run as a script with run_hook() */
};

static const struct hook_dirs hook_dirs[] = {
	{ "dbc_go", { "/usr/share/dbconfig-common/data/*", "/usr/share/dbconfig-common/scripts/*" },
	  false, false },
	{ "gac-package-install", { "/usr/share/cli-common/runtimes.d/*" }, false, false },
	{ "gdk-pixbuf-query-loaders", { "*/gdk-pixbuf-2.0/*/loaders/*" }, false, false },
	{ "gio-querymodules", { "*/gio/modules/*" }, false, false },
	{ "gtk-query-immodules-2.0", { "*/gtk-2.0/*/immodules/*" }, false, false },
	{ "gtk-query-immodules-3.0", { "*/gtk-3.0/*/immodules/*" }, false, false },
	{ "update-grub", { "/etc/grub.d/*", "/etc/default/grub", "/etc/default/grub.d/*" },
	  false, false },
	{ "update-ca-certificates", { "/etc/ca-certificates/update.d/*" }, false, false },
	{ "update-initramfs", { "/usr/share/initramfs-tools/hooks/*",
				"/etc/initramfs-tools/hooks/*" }, false, true },
	{ "update-initramfs", { "/usr/share/initramfs-tools/conf-hooks.d/*",
				"/etc/initramfs-tools/conf.d/*", "/etc/initramfs-tools/*.conf" },
	  false, false },
	{ "update-menus", { "/etc/menu-methods/*", "/usr/lib/menu/*" }, false, false },
	{ "update-menus", { "/usr/share/menu/*" }, true, false },
};

static bool runs_member(const struct hook_dirs *h, const struct member *m)
{
	if (m->type == MEMBER_DIR || (h->executable && !(m->mode & 0111)))
		return false;
	for (size_t k = 0; k < S2C_ELEMENTSOF(h->patterns) && h->patterns[k]; k++)
		if (fnmatch(h->patterns[k], m->path, 0) == 0)
			return true;
	return false;
}

/*
 * update-initramfs runs each hook twice, as mkinitramfs does: with "prereqs" and with
 * no operand; a shell script of the package is evaluated (it sources hook-functions,
 * whose functions copy into the initramfs being built), anything else is incomplete.
 */
static void run_hook(struct ms_eval *e, const struct ms_call *c, const char *path)
{
	_cleanup_free_ char *name = strdup(path), *prereqs = strdup("prereqs");
	struct ms_field v[2] = {
		{ .s = name, .len = name ? strlen(name) : 0, .known = true },
		{ .s = prereqs, .len = 7, .known = true },
	};

	if (!name || !prereqs) {
		mseval_oom(e);
		return;
	}
	for (size_t argc = 2; argc > 0 && !e->error; argc--) {
		struct ms_call hook = { .n = c->n, .v = v, .argc = argc };
		(void)msrun_member(e, &hook, path);
	}
}

/*
 * update-initramfs, update-grub, update-menus, update-ca-certificates and the query tools
 * run or load the hooks
 * of every package: the package's own among them is its code, run as root.  The
 * package's initramfs hooks that are shell scripts are evaluated; any other is not run
 * by the audit, and incomplete.  Where the package ships none, they change no mode,
 * owner or capability.
 */
static enum ms_st hooks_of(struct ms_eval *e, const struct ms_call *c, const char *cmd)
{
	const struct memberset *s = e->ctx->members;

	if (!s)
		return MS_TRUE;
	if (s->note_files && s->notes.n) {
		mscommand_incomplete(e, c, "it runs packages' hooks, and some files of the package "
				     "were not kept by name");
		return MS_TRUE;
	}
	for (size_t i = 0; i < S2C_ELEMENTSOF(hook_dirs); i++) {
		if (!s2c_streq(hook_dirs[i].command, cmd))
			continue;
		for (size_t k = 0; k < s->n_slots && !e->error; k++) {
			const struct member *m = s->slots[k];
			if (!m || !runs_member(&hook_dirs[i], m))
				continue;
			if (hook_dirs[i].evaluated) {
				run_hook(e, c, m->path);
				continue;
			}
			{
				_cleanup_free_ char *shown = escape_text(m->path);
				_cleanup_free_ char *why = strdup_printf(
					"it runs or loads the package's own '%s' as root, which the "
					"audit does not run", shown ? shown : "?");
				if (!why)
					mseval_oom(e);
				else
					mscommand_incomplete(e, c, why);
				return MS_TRUE;
			}
		}
	}
	return MS_TRUE;
}

enum ms_st mshelper_hooks(struct ms_eval *e, const struct ms_call *c)
{
	return hooks_of(e, c, member_base_name(c->v[0].s));
}

/*
 * dpkg-trigger NAME activates another package's trigger, whose script runs later in
 * the installation: initramfs-tools' update-initramfs trigger runs update-initramfs,
 * so the package's own hooks.  Other triggers run other packages' scripts on their
 * own files.
 */
enum ms_st mshelper_dpkg_trigger(struct ms_eval *e, const struct ms_call *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (!f->known) {
			mscommand_incomplete(e, c, "a trigger whose name is not known");
			return MS_TRUE;
		}
		if (s2c_streq(f->s, "--by-package") || s2c_streq(f->s, "--admindir"))
			i++;
		else if (f->s[0] != '-' && s2c_streq(f->s, "update-initramfs"))
			return hooks_of(e, c, "update-initramfs");
	}
	return MS_TRUE;
}

/* Whether the assembly list @text names an assembly: a line that is neither blank nor
 * a comment, as gac-package-install reads it. */
static bool lists_assembly(const char *text, size_t len)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;

		while (i < end && strchr(" \t\r\f\v", text[i]))
			i++;
		if (i < end && text[i] != '#')
			return true;
		i = end + 1;
	}
	return false;
}

/*
 * cli-common's gac-package-install PACKAGE [RUNTIME] reads the package's list of
 * assemblies, /usr/share/cli-common/packages.d/PACKAGE.installcligac, and runs each
 * installed runtime's hook (each file of /usr/share/cli-common/runtimes.d; mono-gac's is
 * Debian's) with those the list names.  Given none, mono's hook moves its own
 * /etc/mono/config into place if it must and writes its list for removal,
 * packages.d/PACKAGE.mono (a write, recorded): no mode, owner or capability changes.
 * Assemblies listed go into shell command lines in mono's hook, and gacutil copies
 * into the GAC, with their modes, each assembly, its .config and .mdb, and the linked
 * resource files its own metadata names (paths the package chooses): incomplete.  So is a hook of
 * the package's own, and a list that is not the package's file as packed.
 */
enum ms_st mshelper_gac_install(struct ms_eval *e, const struct ms_call *c)
{
	_cleanup_free_ char *list = NULL, *uninstall = NULL, *text = NULL;
	size_t len = 0;

	if (c->argc < 2 || c->argc > 3 || !c->v[1].known || !c->v[1].s[0] ||
	    strchr(c->v[1].s, '/') || (c->argc == 3 && !c->v[2].known)) {
		mscommand_incomplete(e, c, "a package or runtime that is not known");
		return MS_UNKNOWN;
	}
	list = strdup_printf("/usr/share/cli-common/packages.d/%s.installcligac", c->v[1].s);
	uninstall = strdup_printf("/usr/share/cli-common/packages.d/%s.mono", c->v[1].s);
	if (!list || !uninstall) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	text = msgrep_package_text(e, list, &len);
	if (!msfile_members_known(e))
		return MS_UNKNOWN;
	(void)hooks_of(e, c, "gac-package-install");
	if (!text) {
		mscommand_incomplete(e, c, "its list of assemblies is not a file of the package as "
				     "packed");
		return MS_UNKNOWN;
	}
	if (lists_assembly(text, len)) {
		mscommand_incomplete(e, c, "it installs the assemblies the package lists with each "
				     "runtime's hook, which the audit does not follow");
		return MS_UNKNOWN;
	}
	mseval_touch(e, c->n->line, uninstall, false, "writes to");
	return MS_TRUE;
}

/* --- dbconfig-common ---------------------------------------------------------------------- */

/* The value of @name (NULL: unset); *@ret_known is false when it is set to what is not known. */
static const char *dbc_var(const struct ms_eval *e, const char *name, bool *ret_known)
{
	const struct ms_var *v = mseval_env_find(&e->env, name);

	*ret_known = !v || v->value;
	return v ? v->value : NULL;
}

/*
 * Whether @s is one word that dbconfig-common's unquoted expansions (echo $x | cut,
 * chown $owner, chmod $perms) pass on as it is: no blank, glob, quote or backslash.
 */
static bool dbc_word(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-+/:@%,~", *s))
			return false;
	return true;
}

/*
 * The file of the FORMAT:FILE setting @var, as `echo $var | cut -d: -f2` (@rest: -f2-)
 * takes it, absolute through the script's links, in *@ret: NULL when @var is unset or
 * empty.  Returns false, incomplete with @what, when it cannot be said.
 */
static bool dbc_include_file(struct ms_eval *e, const struct ms_call *c, const char *var,
			     bool rest, const char *what, char **ret)
{
	_cleanup_free_ char *name = NULL;
	bool known;
	const char *spec = dbc_var(e, var, &known), *colon, *end;

	*ret = NULL;
	if (known && (!spec || !*spec))
		return true;
	colon = known && dbc_word(spec) ? strchr(spec, ':') : NULL;
	if (colon) {
		end = rest ? NULL : strchr(colon + 1, ':');
		name = end ? strndup(colon + 1, (size_t)(end - colon - 1)) : strdup(colon + 1);
		if (!name) {
			mseval_oom(e);
			return false;
		}
		if (name[0] == '/') {
			struct ms_field f = { .s = name, .len = strlen(name), .known = true };
			*ret = msfile_path(e, &f);
		}
	}
	if (!*ret && !e->error)
		mscommand_incomplete(e, c, what);
	return *ret != NULL;
}

/* Whether every database type in @types (blank- or comma-separated) is mysql or pgsql. */
static bool dbc_types_modelled(const char *types)
{
	bool any = false;

	for (const char *t = types; *t;) {
		size_t n = strcspn(t, ", \t");
		if (n) {
			if (!((n == 5 && strncmp(t, "mysql", 5) == 0) ||
			      (n == 5 && strncmp(t, "pgsql", 5) == 0)))
				return false;
			any = true;
		}
		t += n + (t[n] != 0);
	}
	return any;
}

/*
 * config: with dbc_load_include=FORMAT:FILE, dbconfig-load-include reads FILE with
 * the format's interpreter (php, perl, or `.` for sh), as root.  The file the
 * package ships, or one the script wrote, is code the audit does not run; any
 * other is the one dbconfig-common generated, or none on a fresh installation.
 */
static enum ms_st dbc_config(struct ms_eval *e, const struct ms_call *c)
{
	_cleanup_free_ char *path = NULL;

	if (!dbc_include_file(e, c, "dbc_load_include", true, "an include file to read that is "
			      "not known or not FORMAT:FILE", &path))
		return MS_UNKNOWN;
	if (!path)
		return MS_TRUE;
	if (msfile_member(e, path) || msrun_written(e, path)) {
		mscommand_incomplete(e, c, "dbconfig-common reads the include file with its "
				     "format's interpreter (php, perl or the shell) as root, and the "
				     "package ships or writes it");
		return MS_UNKNOWN;
	}
	return MS_TRUE;
}

/*
 * postinst configure: dbconfig-generate-include writes the include file of
 * dbc_generate_include=FORMAT:FILE: in place when it is there (its attributes
 * copied to the new file, set-ID bits kept), else new (mktemp, 0600), then
 * `chown $dbc_generate_include_owner FILE` and `chmod $dbc_generate_include_perms
 * FILE`, both unquoted.
 */
static enum ms_st dbc_include(struct ms_eval *e, const struct ms_call *c)
{
	_cleanup_free_ char *path = NULL;
	const char *owner, *perms;
	bool known_owner, known_perms;
	unsigned long mode = 0600;

	if (!dbc_include_file(e, c, "dbc_generate_include", false, "an include file to write "
			      "that is not known or not FORMAT:FILE", &path))
		return MS_UNKNOWN;
	if (!path)
		return MS_TRUE;
	mseval_touch(e, c->n->line, path, false, "writes to");
	if (msfile_exists(e, path))
		return MS_TRUE;
	owner = dbc_var(e, "dbc_generate_include_owner", &known_owner);
	perms = dbc_var(e, "dbc_generate_include_perms", &known_perms);
	if (!known_owner || (owner && *owner && !dbc_word(owner))) {
		mscommand_incomplete(e, c, "an owner for the include file that is not known or not "
				     "one word");
		return MS_UNKNOWN;
	}
	if (perms && *perms)
		mode = strspn(perms, "01234567") == strlen(perms) && strlen(perms) <= 8 ?
		       strtoul(perms, NULL, 8) : ~0UL;
	if (!known_perms || mode > 07777) {
		mscommand_incomplete(e, c, "a mode for the include file that is not known or not "
				     "octal");
		return MS_UNKNOWN;
	}
	if (mode & 07000) {
		mscommand_incomplete(e, c, "it makes the include file set-ID or sticky, which is not "
				     "modelled");
		return MS_UNKNOWN;
	}
	msfile_made(e, path);
	return MS_TRUE;
}

/*
 * postinst configure: ucf writes the settings, /etc/dbconfig-common/PACKAGE.conf
 * (0600, values quoted: the script may read it as settings), then the include file;
 * for a new database the client runs as root the package's SQL and scripts in
 * /usr/share/dbconfig-common/data and scripts (psql and mysql have shell escapes):
 * incomplete where there are any.  An sqlite3 database file takes the mode and owner
 * the package names (dbc_file_perms, dbc_file_owner): not modelled.
 */
static enum ms_st dbc_postinst(struct ms_eval *e, const struct ms_call *c, const char *pkg)
{
	_cleanup_free_ char *conf = strdup_printf("/etc/dbconfig-common/%s.conf", pkg);
	const char *types;
	bool known;

	if (!conf) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	types = dbc_var(e, "dbc_hardcoded_dbtype", &known);
	if (known && !types)
		types = dbc_var(e, "dbc_dbtypes", &known);
	if (!known || !types || !dbc_types_modelled(types)) {
		mscommand_incomplete(e, c, "database types that are not known or not mysql and "
				     "pgsql (an sqlite3 database takes the mode and owner the package "
				     "names): not modelled");
		return MS_UNKNOWN;
	}
	if (msfile_unpacked(e, conf))
		mseval_touch(e, c->n->line, conf, false, "writes to");
	(void)hooks_of(e, c, "dbc_go");
	return dbc_include(e, c);
}

/*
 * dbconfig-common's dbc_go PACKAGE ARGS… (read in dbconfig-common 2.0.24: dpkg/config,
 * dpkg/postinst, dpkg/common, internal/, dbconfig-generate-include and
 * dbconfig-load-include), called by the package for itself with its script's
 * arguments: in config, the include file read (dbc_config()); in postinst
 * configure, the settings, the include file and the package's SQL and scripts
 * (dbc_postinst()); in preinst nothing.  In other scripts it is not modelled.  Its
 * status is taken as true, as the installation assumes it works.
 */
enum ms_st mshelper_dbconfig(struct ms_eval *e, const struct ms_call *c)
{
	const char *pkg = e->ctx->package;
	const char *cmd = c->argc > 2 ? c->v[2].s : "";

	if (c->argc < 2 || !c->v[1].known || !pkg || !s2c_streq(c->v[1].s, pkg)) {
		mscommand_incomplete(e, c, "a package that is not known to be this one");
		return MS_UNKNOWN;
	}
	for (size_t i = 2; i < c->argc; i++)
		if (!c->v[i].known) {
			mscommand_incomplete(e, c, "arguments that are not known");
			return MS_UNKNOWN;
		}
	if (s2c_streq(e->name, "preinst"))
		return MS_TRUE;
	if (s2c_streq(e->name, "config"))
		return dbc_config(e, c);
	if (!s2c_streq(e->name, "postinst")) {
		mscommand_incomplete(e, c, "dbconfig-common in this script is not modelled");
		return MS_UNKNOWN;
	}
	if (!s2c_streq(cmd, "configure") && !s2c_streq(cmd, "reconfigure"))
		return MS_TRUE;
	return dbc_postinst(e, c, pkg);
}
