/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Commands that run other commands, in the maintainer-script evaluator:
 * command, env and the prefixes (nice, timeout, stdbuf …), eval, exec,
 * sh -c, the . command, busybox, and the package's own programs (xargs and
 * find -exec are msfind.c's).  The inner command is looked up and modelled in turn; text run
 * at run time is parsed and evaluated; a program of the package that is a
 * shell script is evaluated, any other makes the analysis incomplete.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "member.h"
#include "mscommand.h"
#include "shparse.h"
#include "resolve.h"
#include "util.h"
#include "common.h"

/* Largest script of the package read to be evaluated. */
#define MSRUN_SCRIPT_MAX (1u << 20)

/* --- the package's programs ----------------------------------------------------------------- */

char *msrun_member_text(struct ms_eval *e, const char *path, size_t *ret_len)
{
	const struct member *m = msfile_member(e, path);
	_cleanup_close_ int dfd = -1, fd = -1;
	const char *name;
	char *buf = NULL;

	if (!m || !m->staged || e->ctx->stagefd < 0)
		return NULL;
	dfd = resolve_open_parent(e->ctx->stagefd, m->path, &name);
	if (dfd >= 0)
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || read_all(fd, MSRUN_SCRIPT_MAX, &buf, ret_len) < 0)
		return NULL;
	return buf;
}

/* Whether @text starts with #! and a shell the evaluator reads (sh, dash, bash). */
static bool shell_script(const char *text, size_t len, bool *bash)
{
	_cleanup_free_ char *first = NULL;
	const char *p;

	if (len < 3 || text[0] != '#' || text[1] != '!')
		return false;
	first = strndup(text + 2, strcspn(text + 2, "\n"));
	if (!first)
		return false;
	p = first + strspn(first, " \t");
	*bash = strncmp(p, "/bin/bash", 9) == 0 || strncmp(p, "/usr/bin/bash", 13) == 0;
	return *bash || strncmp(p, "/bin/sh", 7) == 0 || strncmp(p, "/usr/bin/sh", 11) == 0 ||
	       strncmp(p, "/bin/dash", 9) == 0 || strncmp(p, "/usr/bin/dash", 13) == 0;
}

/* What a new shell process keeps of its parent: the exported variables and debconf's answers. */
struct child_saved {
	struct ms_env env;
	struct ms_funcs funcs;
	struct ms_alias *aliases;
	size_t n_aliases;
	const char *const *pos;
	size_t n_pos;
	char *trap_exit;
	bool errexit, bash;
	unsigned calls, cond_base;
};

static void child_env(struct ms_eval *e, const struct ms_env *parent)
{
	for (size_t i = 0; i < parent->n && !e->error; i++) {
		const struct ms_var *v = &parent->v[i];
		if (!v->exported && strncmp(v->name, MSEVAL_DEBCONF_PREFIX,
					    strlen(MSEVAL_DEBCONF_PREFIX)) != 0)
			continue;
		mseval_env_set(e, &e->env, v->name, v->value ? strdup(v->value) : NULL);
		if (mseval_env_find(&e->env, v->name))
			mseval_env_find(&e->env, v->name)->exported = v->exported;
	}
}

/*
 * Run @text as a new shell (sh -c, a script of the package) with the
 * positional parameters @args: functions, aliases and variables that are not
 * exported stay behind; debconf's answers are shared.
 */
static enum ms_st run_child(struct ms_eval *e, unsigned line, const char *what, const char *text,
			    size_t len, const char *const *args, size_t n_args, bool unknown_args,
			    bool bash, bool errexit)
{
	bool pos_unknown = e->pos_unknown;
	struct child_saved s = { .env = e->env, .funcs = e->funcs,
				 .aliases = e->aliases, .n_aliases = e->n_aliases, .pos = e->pos,
				 .n_pos = e->n_pos, .trap_exit = e->trap_exit,
				 .errexit = e->errexit, .bash = e->bash, .calls = e->calls,
				 .cond_base = e->cond_base };
	size_t plen = strlen(MSEVAL_DEBCONF_PREFIX);
	bool maybe_stopped = e->maybe_stopped;
	enum ms_st r;

	e->env = (struct ms_env){ 0 };
	e->funcs = (struct ms_funcs){ 0 };
	e->aliases = NULL;
	e->n_aliases = 0;
	e->pos = args;
	e->n_pos = n_args;
	e->pos_unknown = unknown_args;
	e->trap_exit = NULL;
	e->errexit = errexit;
	e->bash = bash;
	e->calls = 0;
	e->cond_base = e->cond;
	child_env(e, &s.env);
	r = maintscript_eval_text(e, line, what, text, len);
	if (e->trap_exit && !e->error) {
		_cleanup_free_ char *t = TAKE_PTR(e->trap_exit);
		e->exited = false;
		(void)maintscript_eval_text(e, line, "the EXIT trap", t, strlen(t));
	}
	/* debconf's answers live in its database, which the parent reads too */
	for (size_t i = 0; i < e->env.n && !e->error; i++)
		if (strncmp(e->env.v[i].name, MSEVAL_DEBCONF_PREFIX, plen) == 0)
			mseval_env_set(e, &s.env, e->env.v[i].name,
				       e->env.v[i].value ? strdup(e->env.v[i].value) : NULL);
	mseval_env_release(&e->env);
	msfuncs_release(&e->funcs);
	for (size_t i = 0; i < e->n_aliases; i++) {
		free(e->aliases[i].name);
		free(e->aliases[i].value);
	}
	free(e->aliases);
	free(e->trap_exit);
	e->env = s.env;
	e->funcs = s.funcs;
	e->aliases = s.aliases;
	e->n_aliases = s.n_aliases;
	e->pos = s.pos;
	e->n_pos = s.n_pos;
	e->pos_unknown = pos_unknown;
	e->trap_exit = s.trap_exit;
	e->cond_base = s.cond_base;
	e->errexit = s.errexit;
	e->bash = s.bash;
	e->calls = s.calls;
	e->exited = e->returning = false;
	e->breaking = 0;
	e->maybe_stopped = maybe_stopped;
	return r;
}

/*
 * The texts of @c's fields from @from, as positional parameters (borrowed);
 * *@unknown when one of them is not known (then none is).
 */
static const char **field_args(struct ms_eval *e, const struct ms_call *c, size_t from, size_t *n,
			       bool *unknown)
{
	const char **v = calloc(c->argc + 1, sizeof(*v));

	*n = 0;
	*unknown = false;
	if (!v) {
		mseval_oom(e);
		return NULL;
	}
	for (size_t i = from; i < c->argc; i++) {
		v[(*n)++] = c->v[i].s;
		*unknown = *unknown || !c->v[i].known;
	}
	return v;
}

/* Run the script of the package (or another file) at @path with the arguments from @from. */
static enum ms_st run_script_file(struct ms_eval *e, const struct ms_call *c, const char *path,
				  size_t from, bool errexit)
{
	_cleanup_free_ char *text = NULL, *what = NULL;
	_cleanup_free_ const char **args = NULL;
	size_t len, n;
	bool bash = false, unknown;

	if (!msfile_members_known(e)) {
		mseval_strset_add(e, &e->wants, &e->n_wants, path);
		return MS_UNKNOWN;
	}
	if (!msfile_unpacked(e, path)) {
		mscommand_incomplete(e, c, "runs a program that is not the package's, which the "
				     "audit does not see");
		return MS_UNKNOWN;
	}
	text = msrun_member_text(e, path, &len);
	if (!text) {
		mseval_strset_add(e, &e->wants, &e->n_wants, path);
		mscommand_incomplete(e, c, "runs a file of the package whose content was not kept");
		return MS_UNKNOWN;
	}
	if (!shell_script(text, len, &bash) && from == 1) {
		mscommand_incomplete(e, c, "runs a program of the package, which the audit does "
				     "not run");
		return MS_UNKNOWN;
	}
	args = field_args(e, c, from, &n, &unknown);
	what = strdup(path);
	if (!args || !what)
		return MS_UNKNOWN;
	return run_child(e, c->n->line, what, text, len, args, n, unknown, bash, errexit);
}

enum ms_st msrun_member(struct ms_eval *e, const struct ms_call *c, const char *path)
{
	return run_script_file(e, c, path, 1, false);
}

/* --- wrappers ------------------------------------------------------------------------------- */

enum ms_st msrun_command(struct ms_eval *e, const struct ms_call *c)
{
	size_t i = 1;

	for (; i < c->argc && mscommand_is_option(&c->v[i]); i++) {
		if (s2c_streq(c->v[i].s, "-v") || s2c_streq(c->v[i].s, "-V"))
			return msshell_lookup(e, c);
		if (s2c_streq(c->v[i].s, "--")) {
			i++;
			break;
		}
	}
	struct ms_call inner = mscommand_shift(c, i);
	return mscommand_call(e, &inner, MSCALL_NO_FUNCS);
}

/* env [-i] [-u NAME] [NAME=VALUE …] [COMMAND …] */
enum ms_st msrun_env(struct ms_eval *e, const struct ms_call *c)
{
	size_t i = 1;

	for (; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (!f->known) {
			mscommand_incomplete(e, c, "an argument that is not known");
			return MS_UNKNOWN;
		}
		if (s2c_streq(f->s, "-u") || s2c_streq(f->s, "--unset")) {
			i++;
		} else if (s2c_streq(f->s, "-i") || s2c_streq(f->s, "-") ||
			   s2c_streq(f->s, "--ignore-environment") || s2c_streq(f->s, "-0") ||
			   strncmp(f->s, "--unset=", 8) == 0) {
			continue;
		} else if (s2c_streq(f->s, "--")) {
			i++;
			break;
		} else if (f->s[0] == '-') {
			mscommand_incomplete(e, c, "an option that is not modelled");
			return MS_UNKNOWN;
		} else if (strchr(f->s, '=')) {
			if (strncmp(f->s, "PATH=", 5) == 0) {
				mscommand_incomplete(e, c, "runs a command with a PATH of its own");
				return MS_UNKNOWN;
			}
		} else {
			break;
		}
	}
	struct ms_call inner = mscommand_shift(c, i);
	return mscommand_call(e, &inner, MSCALL_PROGRAM);
}

/* The commands that run the command after their options and a few operands. */
static const struct prefix {
	const char *name;
	const char *valued;     /* short options that take a value */
	unsigned operands;      /* operands before the command */
	const char *nocommand;  /* options after which there is no command */
} prefixes[] = {
	{ "chrt", "", 1, "p" },
	{ "flock", "wEc", 1, "" },
	{ "ionice", "cn", 0, "pPu" },
	{ "nice", "n", 0, "" },
	{ "nohup", "", 0, "" },
	{ "setsid", "", 0, "" },
	{ "stdbuf", "ioe", 0, "" },
	{ "taskset", "", 1, "p" },
	{ "time", "fo", 0, "" },
	{ "timeout", "sk", 1, "" },
};

enum ms_st msrun_prefix(struct ms_eval *e, const struct ms_call *c)
{
	const char *name = member_base_name(c->v[0].s);
	const struct prefix *p = NULL;
	size_t i = 1;

	for (size_t k = 0; k < S2C_ELEMENTSOF(prefixes) && !p; k++)
		if (s2c_streq(prefixes[k].name, name))
			p = &prefixes[k];
	if (!p)
		return MS_UNKNOWN;
	for (; i < c->argc && mscommand_is_option(&c->v[i]); i++) {
		const char *o = c->v[i].s;
		if (s2c_streq(o, "--")) {
			i++;
			break;
		}
		if (o[1] != '-' && strchr(p->nocommand, o[1]))
			return MS_TRUE;
		if (s2c_streq(name, "flock") && s2c_streq(o, "-c")) {
			/* flock FILE -c TEXT comes after the file; handled below */
			break;
		}
		if (o[1] != '-' && !o[2] && strchr(p->valued, o[1]))
			i++;
	}
	i += p->operands;
	if (s2c_streq(name, "flock") && i < c->argc && c->v[i].known &&
	    (s2c_streq(c->v[i].s, "-c") || s2c_streq(c->v[i].s, "--command"))) {
		if (i + 1 >= c->argc || !c->v[i + 1].known) {
			mscommand_incomplete(e, c, "a command text that is not known");
			return MS_UNKNOWN;
		}
		return run_child(e, c->n->line, "flock -c", c->v[i + 1].s, c->v[i + 1].len, NULL, 0,
				 false, false, false);
	}
	if (i >= c->argc)
		return MS_TRUE;         /* flock FD, nice alone: nothing runs */
	struct ms_call inner = mscommand_shift(c, i);
	return mscommand_call(e, &inner, MSCALL_PROGRAM);
}

/* eval ARGS: their text, joined with blanks, parsed and evaluated here. */
enum ms_st msrun_eval(struct ms_eval *e, const struct ms_call *c)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	for (size_t i = 1; i < c->argc; i++) {
		if (!c->v[i].known) {
			(void)fclose(f);
			mscommand_incomplete(e, c, "evaluates a text that is not known");
			return MS_UNKNOWN;
		}
		(void)fprintf(f, "%s%s", i > 1 ? " " : "", c->v[i].s);
	}
	if (fclose(f) != 0) {
		mseval_oom(e);
		return MS_UNKNOWN;
	}
	return maintscript_eval_text(e, c->n->line, "eval", text, len);
}

/* exec COMMAND: it replaces the shell, which then is gone; exec alone only redirects. */
enum ms_st msrun_exec(struct ms_eval *e, const struct ms_call *c)
{
	size_t i = 1;
	enum ms_st r;

	while (i < c->argc && mscommand_is_option(&c->v[i]))
		i += s2c_streq(c->v[i].s, "-a") ? 2 : 1;
	if (i >= c->argc)
		return MS_TRUE;
	struct ms_call inner = mscommand_shift(c, i);
	r = mscommand_call(e, &inner, MSCALL_PROGRAM);
	if (mseval_uncertain(e))
		e->maybe_stopped = true;
	else if (!e->error)
		e->exited = true;
	return r;
}

/* sh, dash, bash: -c TEXT [NAME ARGS…], FILE [ARGS…]; -n only reads. */
enum ms_st msrun_shell(struct ms_eval *e, const struct ms_call *c)
{
	bool bash = s2c_streq(member_base_name(c->v[0].s), "bash"), errexit = false;
	size_t i = 1;

	for (; i < c->argc && c->v[i].known && (c->v[i].s[0] == '-' || c->v[i].s[0] == '+') &&
	       c->v[i].s[1]; i++) {
		const char *o = c->v[i].s;
		if (s2c_streq(o, "--")) {
			i++;
			break;
		}
		if (o[0] == '-' && o[1] != '-' && strchr(o, 'n'))
			return MS_TRUE;
		if (o[0] == '-' && o[1] != '-' && strchr(o, 'e'))
			errexit = true;
		if (o[0] == '-' && o[1] != '-' && strchr(o, 'c')) {
			_cleanup_free_ const char **args = NULL;
			size_t n;
			bool unknown;
			if (i + 1 >= c->argc || !c->v[i + 1].known) {
				mscommand_incomplete(e, c, "a command text that is not known");
				return MS_UNKNOWN;
			}
			/* $0 is the next operand, then $1 … */
			args = field_args(e, c, S2C_MIN(i + 3, c->argc), &n, &unknown);
			if (!args)
				return MS_UNKNOWN;
			return run_child(e, c->n->line, "sh -c", c->v[i + 1].s, c->v[i + 1].len, args, n,
					 unknown, bash, errexit);
		}
		if (o[1] == '-' && !s2c_streq(o, "--posix") && !s2c_streq(o, "--norc") &&
		    !s2c_streq(o, "--noprofile")) {
			mscommand_incomplete(e, c, "an option that is not modelled");
			return MS_UNKNOWN;
		}
		if (o[1] == 'o' && !o[2])
			i++;
	}
	if (i >= c->argc) {
		mscommand_incomplete(e, c, "a shell that reads its commands from its input");
		return MS_UNKNOWN;
	}
	_cleanup_free_ char *path = msfile_path(e, &c->v[i]);
	if (!path) {
		mscommand_incomplete(e, c, "runs a script whose name is not known");
		return MS_UNKNOWN;
	}
	return run_script_file(e, c, path, i + 1, errexit);
}

/*
 * Files the . command reads that change no file: the libraries of debconf,
 * LSB and gettext, and the helpers of apache2 and php-common, which only set
 * variables and define the functions the table models.
 */
static bool known_library(const char *path)
{
	static const char *const libs[] = {
		"/usr/share/debconf/confmodule", "/usr/share/debconf/confmodule.sh",
		"/lib/lsb/init-functions", "/usr/lib/lsb/init-functions", "/usr/bin/gettext.sh",
		"/usr/share/apache2/apache2-maintscript-helper", "/usr/lib/php/php-maintscript-helper",
		"/usr/share/initramfs-tools/hook-functions",
	};

	for (size_t i = 0; i < S2C_ELEMENTSOF(libs); i++)
		if (s2c_streq(libs[i], path))
			return true;
	return false;
}

bool msrun_written(const struct ms_eval *e, const char *path)
{
	for (size_t i = 0; i < e->n_touches; i++)
		if (!e->touches[i].path || s2c_streq(e->touches[i].path, path))
			return true;
	return false;
}

/*
 * . of a file that is not the package's: the administrator's settings in /etc
 * (which the script did not write) leave every variable unknown; anything
 * else is code the audit does not see.
 */
static enum ms_st source_foreign(struct ms_eval *e, const struct ms_call *c, const char *path)
{
	size_t plen = strlen(MSEVAL_DEBCONF_PREFIX);

	if (strncmp(path, "/etc/", 5) != 0 || msrun_written(e, path)) {
		mscommand_incomplete(e, c, "reads a file that is not the package's");
		return MS_UNKNOWN;
	}
	mseval_note(e, c->n->line, "the settings read from %s are not known (PATH is taken to "
		    "stay)", path);
	for (size_t i = 0; i < e->env.n; i++)
		if (strncmp(e->env.v[i].name, MSEVAL_DEBCONF_PREFIX, plen) != 0 &&
		    !s2c_streq(e->env.v[i].name, "PATH")) {
			mseval_var_forget(&e->env.v[i]);
		}
	return MS_TRUE;
}

/* Whether the package is the one that ships those libraries. */
static bool library_package(const struct ms_eval *e)
{
	const char *p = e->ctx->package;

	return p && (s2c_streq(p, "debconf") || s2c_streq(p, "lsb-base") ||
		     s2c_streq(p, "sysvinit-utils") || s2c_streq(p, "gettext-base") ||
		     s2c_streq(p, "apache2") || s2c_streq(p, "php-common") ||
		     s2c_streq(p, "dbconfig-common"));
}

/*
 * dbconfig-common's libraries for a package's scripts,
 * /usr/share/dbconfig-common/dpkg/SCRIPT[.TYPE]: they only define dbc_go (the
 * table's model) and, with a TYPE, set dbc_hardcoded_dbtype to it.  *@ret_type is
 * that TYPE, or NULL.
 */
static bool dbconfig_library(const char *path, const char **ret_type)
{
	static const char dir[] = "/usr/share/dbconfig-common/dpkg/";
	static const char *const scripts[] = { "config", "preinst", "postinst", "prerm", "postrm" };
	static const char *const types[] = { "mysql", "pgsql", "sqlite3" };
	const char *name = path + sizeof(dir) - 1, *dot;
	size_t n;

	if (strncmp(path, dir, sizeof(dir) - 1) != 0)
		return false;
	dot = strchr(name, '.');
	n = dot ? (size_t)(dot - name) : strlen(name);
	*ret_type = NULL;
	for (size_t i = 0; i < S2C_ELEMENTSOF(scripts); i++) {
		if (strlen(scripts[i]) != n || strncmp(name, scripts[i], n) != 0)
			continue;
		if (!dot)
			return true;
		for (size_t k = 0; k < S2C_ELEMENTSOF(types); k++)
			if (s2c_streq(dot + 1, types[k])) {
				*ret_type = types[k];
				return true;
			}
	}
	return false;
}

/* . FILE (source FILE): read in this shell.  A name without / is found on PATH. */
enum ms_st msrun_source(struct ms_eval *e, const struct ms_call *c)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	const char *type;
	size_t len;

	if (c->argc < 2)
		return MS_FALSE;
	if (c->v[1].known && !strchr(c->v[1].s, '/'))
		path = s2c_streq(c->v[1].s, "gettext.sh") ? strdup("/usr/bin/gettext.sh") : NULL;
	else
		path = msfile_path(e, &c->v[1]);
	if (!path) {
		mscommand_incomplete(e, c, "reads a file whose name is not known");
		return MS_UNKNOWN;
	}
	if (known_library(path) && (!msfile_unpacked(e, path) || library_package(e)))
		return MS_TRUE;
	if (dbconfig_library(path, &type) && (!msfile_unpacked(e, path) || library_package(e))) {
		char *t = type ? strdup(type) : NULL;
		if (type && !t) {
			mseval_oom(e);
			return MS_UNKNOWN;
		}
		if (t)
			mseval_env_set(e, &e->env, "dbc_hardcoded_dbtype", t);
		return MS_TRUE;
	}
	if (!msfile_members_known(e)) {
		mseval_strset_add(e, &e->wants, &e->n_wants, path);
		return MS_UNKNOWN;
	}
	if (!msfile_unpacked(e, path))
		return source_foreign(e, c, path);
	text = msrun_member_text(e, path, &len);
	if (!text) {
		mseval_strset_add(e, &e->wants, &e->n_wants, path);
		mscommand_incomplete(e, c, "reads a file of the package whose content was not kept");
		return MS_UNKNOWN;
	}
	return maintscript_eval_text(e, c->n->line, path, text, len);
}

/*
 * busybox APPLET ARGS: the applet as the program of that name, where busybox
 * is installed (it is not essential): whether it runs is not known.
 */
enum ms_st msrun_busybox(struct ms_eval *e, const struct ms_call *c)
{
	if (c->argc < 2 || (c->v[1].known && c->v[1].s[0] == '-'))
		return MS_UNKNOWN;
	struct ms_call inner = mscommand_shift(c, 1);
	e->cond++;
	(void)mscommand_call(e, &inner, MSCALL_PROGRAM);
	e->cond--;
	return MS_UNKNOWN;
}

/* su, runuser, sudo, chroot, setpriv, unshare: another user, root or namespace. */
enum ms_st msrun_other_user(struct ms_eval *e, const struct ms_call *c)
{
	mscommand_incomplete(e, c, "runs a command as another user or in another root, which is "
			     "not modelled");
	return MS_UNKNOWN;
}

/* awk PROGRAM: system(), pipes and getline from a command run commands. */
enum ms_st msrun_awk(struct ms_eval *e, const struct ms_call *c)
{
	bool program = false;

	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (f->known && (s2c_streq(f->s, "-F") || s2c_streq(f->s, "-v"))) {
			i++;
			continue;
		}
		if (f->known && (s2c_streq(f->s, "-f") || strncmp(f->s, "--file", 6) == 0)) {
			mscommand_incomplete(e, c, "an awk program from a file is not modelled");
			return MS_UNKNOWN;
		}
		if (f->known && f->s[0] == '-' && f->s[1])
			continue;
		if (program)
			continue;
		program = true;
		if (!f->known || strstr(f->s, "system") || strchr(f->s, '|')) {
			mscommand_incomplete(e, c, "an awk program that may run commands");
			return MS_UNKNOWN;
		}
		if (strchr(f->s, '>'))
			mseval_touch(e, c->n->line, NULL, false, "writes to");
	}
	return MS_UNKNOWN;
}

/* dpkg: queries and --compare-versions; installing or removing packages is not modelled. */
enum ms_st msrun_dpkg(struct ms_eval *e, const struct ms_call *c)
{
	static const char *const queries[] = {
		"-l", "--list", "-s", "--status", "-L", "--listfiles", "-S", "--search", "-p",
		"--print-avail", "--get-selections", "--audit", "-C", "--print-architecture",
		"--print-foreign-architectures", "--version", "--help", "-W", "--show",
		"--assert-multi-conf-ver", "--assert-multi-arch", "--assert-versioned-provides",
		"--assert-working-epoch", "--assert-long-filenames", "--assert-support-predepends",
		"--assert-protected-field", "--compare-versions", "--validate-pkgname",
		"--validate-version", "--validate-archname", "--validate-trigname", "--yet-to-unpack",
		"--predep-package", "--verify", "-V",
	};

	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (!f->known || !mscommand_is_option(f))
			continue;
		if (strncmp(f->s, "--admindir", 10) == 0 || strncmp(f->s, "--root", 6) == 0 ||
		    strncmp(f->s, "--instdir", 9) == 0 || strncmp(f->s, "--force", 7) == 0 ||
		    strncmp(f->s, "--no-", 5) == 0 || strncmp(f->s, "--status-", 9) == 0)
			continue;
		if (s2c_streq(f->s, "--compare-versions") && i + 3 < c->argc + 0 && i + 3 <= c->argc) {
			const struct ms_field *a = &c->v[i + 1], *op = &c->v[i + 2];
			/* On a fresh installation the old version is empty: earlier than any. */
			if (i + 3 < c->argc && a->known && !a->len && op->known && c->v[i + 3].known &&
			    c->v[i + 3].len) {
				if (s2c_streq(op->s, "lt") || s2c_streq(op->s, "le") ||
				    s2c_streq(op->s, "<<") || s2c_streq(op->s, "<=") ||
				    s2c_streq(op->s, "ne") || s2c_streq(op->s, "gt-nl") ||
				    s2c_streq(op->s, "ge-nl"))
					return MS_TRUE;
				if (s2c_streq(op->s, "gt") || s2c_streq(op->s, "ge") ||
				    s2c_streq(op->s, ">>") || s2c_streq(op->s, ">=") ||
				    s2c_streq(op->s, "eq") || s2c_streq(op->s, "lt-nl") ||
				    s2c_streq(op->s, "le-nl"))
					return MS_FALSE;
			}
			return MS_UNKNOWN;
		}
		for (size_t k = 0; k < S2C_ELEMENTSOF(queries); k++)
			if (s2c_streq(f->s, queries[k]) || (strncmp(f->s, queries[k], strlen(queries[k])) == 0 &&
							    f->s[strlen(queries[k])] == '='))
				return s2c_streq(f->s, "--print-architecture") ? MS_TRUE : MS_UNKNOWN;
		mscommand_incomplete(e, c, "dpkg installs, removes or configures packages here, "
				     "which is not modelled");
		return MS_UNKNOWN;
	}
	return MS_UNKNOWN;
}

/* systemd-tmpfiles: the package's own tmpfiles.d entries are checked by the reader. */
enum ms_st msrun_tmpfiles(struct ms_eval *e, const struct ms_call *c)
{
	(void)e;
	(void)c;
	return MS_TRUE;
}

/*
 * start-stop-daemon: --stop and --status only signal and look; --start runs
 * the program of --exec (or --startas) with the arguments after "--".
 */
enum ms_st msrun_ssd(struct ms_eval *e, const struct ms_call *c)
{
	const struct ms_field *prog = NULL;
	size_t args = c->argc;
	bool start = false;

	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (!f->known)
			continue;
		if (s2c_streq(f->s, "--")) {
			args = i + 1;
			break;
		}
		if (s2c_streq(f->s, "--start") || s2c_streq(f->s, "-S"))
			start = true;
		else if ((s2c_streq(f->s, "--exec") || s2c_streq(f->s, "-x") ||
			  s2c_streq(f->s, "--startas") || s2c_streq(f->s, "-a")) && i + 1 < c->argc)
			prog = &c->v[++i];
	}
	if (!start)
		return MS_UNKNOWN;
	if (!prog) {
		mscommand_incomplete(e, c, "starts a program that is not named");
		return MS_UNKNOWN;
	}
	/* The program and its arguments, as a command of its own. */
	struct ms_fields f = { 0 };
	struct ms_field *x = mseval_field_new(e, &f);
	if (x) {
		mseval_field_append(e, x, prog->s, prog->len);
		x->known = prog->known;
	}
	for (size_t i = args; i < c->argc && !e->error; i++) {
		x = mseval_field_new(e, &f);
		if (x) {
			mseval_field_append(e, x, c->v[i].s, c->v[i].len);
			x->known = c->v[i].known;
		}
	}
	enum ms_st r = MS_UNKNOWN;
	if (!e->error) {
		struct ms_call inner = { .n = c->n, .v = f.v, .argc = f.n };
		r = mscommand_call(e, &inner, MSCALL_PROGRAM);
	}
	mseval_fields_release(&f);
	return r;
}

/*
 * ip (iproute2) shows and changes interfaces, addresses, routes and network
 * namespaces: no file's mode, owner or capability.  `ip netns exec` and `ip vrf
 * exec` run a command, and -batch reads commands from a file; ip takes any
 * abbreviation of a keyword, so a word that abbreviates "exec", an option that
 * begins "-b", and a word not known are incomplete.
 */
enum ms_st msrun_ip(struct ms_eval *e, const struct ms_call *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (!f->known) {
			mscommand_incomplete(e, c, "arguments that are not known");
			return MS_UNKNOWN;
		}
		if (f->s[0] && strncmp(f->s, "exec", f->len) == 0) {
			mscommand_incomplete(e, c, "runs a command in a network namespace or VRF, "
					     "which is not followed");
			return MS_UNKNOWN;
		}
		if (strncmp(f->s, "-b", 2) == 0 || strncmp(f->s, "--b", 3) == 0) {
			mscommand_incomplete(e, c, "reads its commands from a file");
			return MS_UNKNOWN;
		}
	}
	return MS_UNKNOWN;
}

/* modprobe NAME: a module the package ships itself is code the audit does not see. */
enum ms_st msrun_modprobe(struct ms_eval *e, const struct ms_call *c)
{
	const struct memberset *ms = e->ctx->members;

	for (size_t i = 1; i < c->argc; i++) {
		const struct ms_field *f = &c->v[i];
		if (mscommand_is_option(f))
			continue;
		if (!f->known) {
			mscommand_incomplete(e, c, "loads a kernel module whose name is not known");
			return MS_UNKNOWN;
		}
		if (ms && memberset_ships_module(ms, f->s)) {
			mscommand_incomplete(e, c, "loads a kernel module the package ships");
			return MS_UNKNOWN;
		}
	}
	return MS_UNKNOWN;
}
