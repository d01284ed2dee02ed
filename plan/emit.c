/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db.h"
#include "em.h"
#include "emit.h"
#include "emitdeb.h"
#include "plan.h"
#include "strtable.h"
#include "util.h"
#include "common.h"

static const char *const format_names[_EMIT_MAX] = { "json", "sh", "rpm", "deb",
						     "permissions", "deb-postrm" };

DEFINE_STRING_TABLE_TO_NAME(emit_format_name, enum emit_format, format_names, "invalid")

DEFINE_STRING_TABLE_FROM_NAME(emit_format_from_name, enum emit_format, format_names)

/* --- sh -------------------------------------------------------------------------------- */

static const char sh_intro[] =
	"#\n"
	"# Review it, then run it as root.  For each change it\n"
	"#  - refuses a file below a directory that is not owned by root or is writable\n"
	"#    by group or others, from ROOT down (their owners could swap the file for a\n"
	"#    symbolic link between the checks and the change); these are checked for\n"
	"#    every file before anything changes;\n"
	"#  - refuses a symbolic link or anything but a regular file, and a file with\n"
	"#    more than one hard link (another name would keep the privilege) unless\n"
	"#    ALLOW_HARDLINKS=1;\n"
	"#  - refuses a file whose SHA-256, mode or owner differ from the plan;\n"
	"#  - leaves a file that is already in the planned state alone (\"already\n"
	"#    done\"), so a second run changes nothing;\n"
	"#  - changes the owner first (chown clears capabilities and set-ID bits), then\n"
	"#    sets the capabilities, then clears the set-ID bits, and checks the result.\n"
	"# It stops at the first error.  ROOT is prepended to every path; ROOT itself\n"
	"# is checked, the directories above it are trusted.\n"
	"# Needs sha256sum and stat (coreutils), chown, chmod, setcap and getcap.\n";

/* Where the script acts: said in its header, and on stderr before anything changes. */
static const char sh_root_note[] =
	"#\n"
	"# ROOT in the environment overrides the root above: ROOT=/mnt/copy sh SCRIPT\n"
	"# changes the files beneath /mnt/copy instead (ROOT= means /).  Before it\n"
	"# changes anything the script says on standard error which root it acts on,\n"
	"# and whether that came from the plan or from the environment.\n";

static const char sh_functions[] =
	"fail() {\n"
	"\tprintf 'suid2cap: %s\\n' \"$1\" >&2\n"
	"\texit 1\n"
	"}\n"
	"\n"
	"# mode4 MODE: an octal mode as stat %a prints it (755), with four digits (0755).\n"
	"mode4() {\n"
	"\tprintf '%04d' \"$1\"\n"
	"}\n"
	"\n"
	"# has_caps FILE CAPS: FILE carries exactly the capabilities CAPS (\"\" for none).\n"
	"has_caps() {\n"
	"\tif [ -z \"$2\" ]; then\n"
	"\t\t[ -z \"$(getcap \"$1\")\" ]\n"
	"\telse\n"
	"\t\tsetcap -q -v \"$2\" \"$1\"\n"
	"\tfi\n"
	"}\n"
	"\n"
	"# safe_dirs NAME PATH: every directory from ROOT (or /) down to PATH's parent is\n"
	"#   owned by root and not writable by group or others, so only root can swap PATH\n"
	"#   or a directory on its way for a symbolic link while the checks and changes\n"
	"#   below run (chmod, chown and setcap follow symbolic links).  NAME is PATH as\n"
	"#   messages show it, with as many slashes, so it names the directory as well.\n"
	"safe_dirs() {\n"
	"\tdir=${ROOT:-/} shown=/ rest=${2#/} srest=${1#/}\n"
	"\twhile :; do\n"
	"\t\tif [ -L \"$dir\" ] || [ ! -d \"$dir\" ]; then\n"
	"\t\t\tfail \"$1: $shown is a symbolic link or not a directory, refusing it\"\n"
	"\t\tfi\n"
	"\t\tst=$(stat -c '%u %a' \"$dir\")\n"
	"\t\tif [ \"${st%% *}\" != 0 ]; then\n"
	"\t\t\tfail \"$1: directory $shown is owned by uid ${st%% *}, not root: its owner could swap the file, refusing it\"\n"
	"\t\tfi\n"
	"\t\tif [ $((0${st#* } & 022)) -ne 0 ]; then\n"
	"\t\t\tfail \"$1: directory $shown is writable by group or others: they could swap the file, refusing it\"\n"
	"\t\tfi\n"
	"\t\tcase $rest in\n"
	"\t\t*/*) ;;\n"
	"\t\t*) return 0 ;;\n"
	"\t\tesac\n"
	"\t\tdir=${dir%/}/${rest%%/*} rest=${rest#*/}\n"
	"\t\tshown=${shown%/}/${srest%%/*} srest=${srest#*/}\n"
	"\tdone\n"
	"}\n"
	"\n"
	"# change NAME PATH SHA256 MODE OWNER NEW_MODE NEW_OWNER NEW_CAPS\n"
	"#   NAME is PATH as messages show it; MODE is octal as stat %a prints it;\n"
	"#   OWNER is UID:GID; NEW_CAPS is \"\" for no capabilities.\n"
	"change() {\n"
	"\tname=$1 file=$ROOT$2 sum=$3 mode=$4 owner=$5 new_mode=$6 new_owner=$7 caps=$8\n"
	"\tsafe_dirs \"$name\" \"$2\"\n"
	"\tif [ -L \"$file\" ] || [ ! -f \"$file\" ]; then\n"
	"\t\tfail \"$name: not a regular file, refusing it\"\n"
	"\tfi\n"
	"\tlinks=$(stat -c %h \"$file\")\n"
	"\tif [ \"$links\" != 1 ] && [ \"${ALLOW_HARDLINKS-}\" != 1 ]; then\n"
	"\t\tfail \"$name: $links hard links keep the privilege under other names, refusing it\"\n"
	"\tfi\n"
	"\tgot=$(sha256sum <\"$file\")\n"
	"\tif [ \"${got%% *}\" != \"$sum\" ]; then\n"
	"\t\tfail \"$name: changed since the plan was made (SHA-256 differs), refusing it\"\n"
	"\tfi\n"
	"\tnow=$(stat -c '%a %u:%g' \"$file\")\n"
	"\tif [ \"$now\" = \"$new_mode $new_owner\" ] && has_caps \"$file\" \"$caps\"; then\n"
	"\t\tprintf '%s: already done\\n' \"$name\"\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif [ \"$now\" != \"$mode $owner\" ] && [ \"$now\" != \"$new_mode $new_owner\" ]; then\n"
	"\t\tfail \"$name: mode and owner are $(mode4 \"${now%% *}\") ${now#* }, the plan says $(mode4 \"$mode\") $owner; refusing it\"\n"
	"\tfi\n"
	"\tif [ \"$owner\" != \"$new_owner\" ]; then\n"
	"\t\tchown \"$new_owner\" \"$file\"\n"
	"\tfi\n"
	"\tif [ -n \"$caps\" ]; then\n"
	"\t\tsetcap \"$caps\" \"$file\" ||\n"
	"\t\t\tfail \"$name: setcap failed; mode and owner are $(mode4 \"$(stat -c %a \"$file\")\") $(stat -c %u:%g \"$file\")\"\n"
	"\telif [ -n \"$(getcap \"$file\")\" ]; then\n"
	"\t\tsetcap -r \"$file\"\n"
	"\tfi\n"
	"\tchmod \"0$new_mode\" \"$file\"\n"
	"\tif [ \"$(stat -c '%a %u:%g' \"$file\")\" != \"$new_mode $new_owner\" ] ||\n"
	"\t\t! has_caps \"$file\" \"$caps\"; then\n"
	"\t\tfail \"$name: the result differs from the plan\"\n"
	"\tfi\n"
	"\tprintf '%s: mode %s -> %s, owner %s -> %s, capabilities %s\\n' \"$name\" \\\n"
	"\t\t\"$(mode4 \"$mode\")\" \"$(mode4 \"$new_mode\")\" \"$owner\" \"$new_owner\" \"${caps:-none}\"\n"
	"}\n";

static void sh_safe_dirs(struct em *e, const struct plan_entry *x)
{
	em_put(e, "safe_dirs ");
	em_quoted_escaped(e, x->path);
	em_put(e, " ");
	em_quoted(e, x->path);
	em_put(e, "\n");
}

static void sh_change(struct em *e, const struct plan_entry *x)
{
	em_put(e, "\n# ");
	em_escaped(e, x->path);
	em_put(e, ": %s", verdict_name(x->verdict));
	if (x->rule_id) {
		em_put(e, " (rule ");
		em_escaped(e, x->rule_id);
		em_put(e, ")");
	}
	em_put(e, ", risk %s -> %s\nchange ", risk_name(x->risk_now), risk_name(x->risk));
	em_quoted_escaped(e, x->path);
	em_put(e, " ");
	em_quoted(e, x->path);
	em_put(e, " %s %o %u:%u %o %u:%u ", x->id.sha256, x->id.state.mode, x->id.state.uid,
	    x->id.state.gid, x->after.mode, x->after.uid, x->after.gid);
	em_quoted(e, x->after_names.caps_text ? x->after_names.caps_text : "");
	em_put(e, "\n");
}

int emit_sh(const struct plan *p, FILE *out)
{
	struct em e = { .f = out };
	struct plan_summary s;
	_cleanup_free_ char *shown = escape_text(p->root), *said = NULL;

	plan_summarise(p, &s);
	em_put(&e, "#!/bin/sh\n");
	em_header(&e, p, "Shell script");
	em_put(&e, "%s%s\nset -eu\n\nif [ -z \"${ROOT+set}\" ]; then\n\tROOT=", sh_root_note,
	    sh_intro);
	em_quoted(&e, s2c_streq(p->root, "/") ? "" : p->root);
	if (!shown || asprintf(&said, "suid2cap: acting on the root %s (the plan's; ROOT=DIR in "
				"the environment acts on DIR instead)", shown) < 0) {
		said = NULL;
		e.oom = true;
	}
	em_put(&e, "\n\tprintf '%%s\\n' ");
	em_quoted(&e, said ? said : "");
	em_put(&e, " >&2\nelse\n\t# A ROOT such as \"-x\" would read as an option.\n\tcase $ROOT in\n"
	    "\t-*) ROOT=./$ROOT ;;\n\tesac\n\tprintf 'suid2cap: acting on the root %%s (ROOT in "
	    "the environment)\\n' \"${ROOT:-/}\" >&2\nfi\n\n%s", sh_functions);
	if (s.change)
		em_put(&e, "\n# The directories on the way to every file first, so that a refusal there\n"
		    "# changes nothing.\n");
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].change)
			sh_safe_dirs(&e, &p->v[i]);
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].change)
			sh_change(&e, &p->v[i]);
	if (s.unchanged) {
		em_put(&e, "\n# Not changed:\n");
		for (size_t i = 0; i < p->n; i++)
			if (!p->v[i].change)
				em_comment_entry(&e, "", &p->v[i]);
	}
	em_put(&e, "\nprintf 'suid2cap: %%s\\n' '%zu change%s checked'\n", s.change,
	    s.change == 1 ? "" : "s");
	return em_finish(&e);
}

/* --- rpm ------------------------------------------------------------------------------- */

/*
 * A path rpmbuild reads literally in %files.  It expands macros in the section and then
 * looks for its directives (%caps(, %attr(, %config, %dir, ...) anywhere in a line, so a
 * '%' is never safe, doubled or not ("%%caps(...)" comes out as "%caps(...)" and is
 * obeyed).  It globs '*', '?', '[' and '{' with no escape for them (a backslash stays in
 * the name), refuses control characters and DEL, and splits at white space outside
 * double quotes; inside them a name keeps its spaces exactly, but cannot hold a quote.
 */
static bool rpm_path_ok(const char *path)
{
	return em_plain_text_ok(path) && !strchr(path, '%');
}

/* "# migrate /path: WHY, skipping it", '%' doubled for rpm. */
static void rpm_skip(struct em *e, const struct plan_entry *x, const char *why)
{
	em_put(e, "# %s ", verdict_name(x->verdict));
	em_escaped(e, x->path);
	em_put(e, ": ");
	em_escaped(e, why);
	em_put(e, ", skipping it\n");
}

static void rpm_entry(struct em *e, const struct plan_entry *x, const struct rules_db *db)
{
	const struct plan_names *a = &x->after_names;

	if (x->verdict != VERDICT_MIGRATE && x->verdict != VERDICT_DROP) {
		em_comment_entry(e, "", x);
		return;
	}
	if (!rpm_path_ok(x->path)) {
		rpm_skip(e, x, "a spec file cannot name this path literally");
		return;
	}
	if (!a->owner || !a->group) {
		rpm_skip(e, x, "the owner or group has no name");
		return;
	}
	if (!em_plain_name_ok(a->owner) || !em_plain_name_ok(a->group)) {
		rpm_skip(e, x, "%attr() cannot carry the name of its owner or group");
		return;
	}
	em_put(e, "# ");
	em_escaped(e, x->path);
	em_put(e, ": %s\n", verdict_name(x->verdict));
	em_rule(e, "", x, db);
	em_put(e, "%%attr(%04o,%s,%s) ", x->after.mode, a->owner, a->group);
	if (a->caps_text) {
		em_put(e, "%%caps(");
		em_escaped(e, a->caps_text);
		em_put(e, ") ");
	}
	em_put(e, strchr(x->path, ' ') ? "\"%s\"\n" : "%s\n", x->path);
}

int emit_rpm(const struct plan *p, const struct rules_db *db, FILE *out)
{
	struct em e = { .f = out, .rpm = true };

	em_package_header(&e, p, "rpm %files lines");
	em_put(&e, "#\n# migrate: %%caps() replaces the set-ID bit; drop: no privilege at all;\n"
	    "# keep and review: comments, the package's own %%attr stays.\n");
	for (size_t i = 0; i < p->n; i++)
		rpm_entry(&e, &p->v[i], db);
	return em_finish(&e);
}

/* --- permissions ------------------------------------------------------------------------- */

/* permctl reads three blank-separated words; "%{" starts a variable. */
static bool permissions_name_ok(const char *s)
{
	return em_plain_text_ok(s) && !strpbrk(s, " \t") && !strstr(s, "%{");
}

static void permissions_entry(struct em *e, const struct plan_entry *x)
{
	const struct plan_names *a = &x->after_names;
	int w;

	if (x->verdict != VERDICT_MIGRATE && x->verdict != VERDICT_DROP) {
		em_comment_entry(e, "", x);
		return;
	}
	if (!permissions_name_ok(x->path) || (a->owner && !permissions_name_ok(a->owner)) ||
	    (a->group && !permissions_name_ok(a->group))) {
		em_put(e, "# %s ", verdict_name(x->verdict));
		em_escaped(e, x->path);
		em_put(e, ": a permissions file cannot name this path or owner, skipping it\n");
		return;
	}
	w = fprintf(e->f, "%s", x->path);
	em_put(e, "%*s ", w < 55 ? 55 - w : 0, "");
	w = a->owner ? fprintf(e->f, "%s", a->owner) : fprintf(e->f, "%u", x->after.uid);
	w += a->group ? fprintf(e->f, ":%s", a->group) : fprintf(e->f, ":%u", x->after.gid);
	em_put(e, "%*s %04o\n", w < 17 ? 17 - w : 0, "", x->after.mode);
	if (a->caps_text) {
		em_put(e, " +capabilities ");
		em_escaped(e, a->caps_text);
		em_put(e, "\n");
	}
}

int emit_permissions(const struct plan *p, FILE *out)
{
	struct em e = { .f = out };

	em_header(&e, p, "openSUSE permissions entries (permissions.local)");
	em_put(&e, "#\n# Applied by chkstat/permctl --system --set; a capability replaces the set-ID\n"
	    "# bit, an entry without one has no privilege at all.\n");
	for (size_t i = 0; i < p->n; i++)
		permissions_entry(&e, &p->v[i]);
	return em_finish(&e);
}

/* --- all -------------------------------------------------------------------------------- */

int emit_plan(const struct plan *p, enum emit_format f, const struct rules_db *db, FILE *out)
{
	switch (f) {
	case EMIT_JSON:
		return plan_write_json(p, out);
	case EMIT_SH:
		return emit_sh(p, out);
	case EMIT_RPM:
		return emit_rpm(p, db, out);
	case EMIT_DEB:
		return emit_deb(p, db, out);
	case EMIT_PERMISSIONS:
		return emit_permissions(p, out);
	case EMIT_DEB_POSTRM:
		return emit_deb_postrm(p, db, out);
	case _EMIT_MAX:
	case _EMIT_INVALID:
		break;
	}
	return -EINVAL;         /* no default: a new format is a case the compiler asks for */
}
