/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scriptlets of an rpm header (rpmscript.h): the plain ones, triggers
 * and file triggers, each analysed in the order rpm runs them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#ifdef HAVE_LIBRPM
#include <rpm/header.h>
#include <rpm/rpmds.h>
#include <rpm/rpmfiles.h>
#include <rpm/rpmtag.h>
#include <rpm/rpmtd.h>
#endif

#include "actindex.h"
#include "maintscript.h"
#include "member.h"
#include "rpmscript.h"
#include "target.h"
#include "util.h"
#include "common.h"

#ifdef HAVE_LIBRPM

/* rpm's scriptlet flags (lib/rpmscript.h): the text is macro- or query-expanded when run. */
#define SCRIPT_FLAG_EXPAND (1u << 0)
#define SCRIPT_FLAG_QFORMAT (1u << 1)

/* When a scriptlet runs, in rpm's order on installation. */
enum run_at {
	ST_PRETRANS,
	ST_TRIGGERPREIN,
	ST_PRE,
	ST_FILETRIGGERIN,
	ST_POST,
	ST_TRIGGERIN,
	ST_POSTTRANS,
	ST_TRANSFILETRIGGERIN,
	ST_LATER,               /* only when another package or file is removed later */
	_ST_MAX,
};

/* One scriptlet to analyse. */
struct scriptlet {
	enum run_at stage;
	char *name;             /* "%post", "%triggerin -- otherpkg" */
	const char *body;       /* NULL: only a program */
	const char **prog;      /* the interpreter or program and its arguments (NULL-terminated),
				   or NULL for /bin/sh */
	uint32_t flags;
	const char *const *args;
	size_t n_args;
	char *unless;           /* conditional: "when otherpkg is installed"; NULL: always */
	int priority;           /* file triggers: higher first */
};

struct scriptlets {
	struct scriptlet *v;
	size_t n;
	struct rpmtd_s keep[64]; /* tag data the scriptlets borrow */
	size_t n_keep;
};

static void scriptlets_release(struct scriptlets *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].prog);
		free(s->v[i].unless);
	}
	free(s->v);
	for (size_t i = 0; i < s->n_keep; i++)
		rpmtdFreeData(&s->keep[i]);
}

/* The tag @tag of @h kept in @s until release; NULL when absent. */
static rpmtd keep_tag(struct scriptlets *s, Header h, rpmTagVal tag)
{
	rpmtd td;

	if (s->n_keep == S2C_ELEMENTSOF(s->keep))
		return NULL;
	td = &s->keep[s->n_keep];
	if (!headerGet(h, tag, td, HEADERGET_MINMEM))
		return NULL;
	s->n_keep++;
	return td;
}

static const char *td_string(rpmtd td, uint32_t i)
{
	return td && rpmtdSetIndex(td, (int)i) >= 0 ? rpmtdGetString(td) : NULL;
}

static uint32_t td_number(rpmtd td, uint32_t i)
{
	return td && rpmtdSetIndex(td, (int)i) >= 0 ? (uint32_t)rpmtdGetNumber(td) : 0;
}

static int add(struct scriptlets *s, const struct scriptlet *x)
{
	struct scriptlet *v = realloc(s->v, (s->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->v = v;
	v[s->n++] = *x;
	return 0;
}

/* A program with arguments from a string array tag (the plain scriptlets' -p). */
static int prog_of(rpmtd td, const char ***ret)
{
	uint32_t n = td ? rpmtdCount(td) : 0;
	const char **v;

	*ret = NULL;
	if (n == 0)
		return 0;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		v[i] = td_string(td, i) ? td_string(td, i) : "";
	*ret = v;
	return 0;
}

/* A one-word program (the triggers' -p). */
static int prog_word(const char *p, const char ***ret)
{
	*ret = NULL;
	if (!p || !*p)
		return 0;
	*ret = calloc(2, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	(*ret)[0] = p;
	return 0;
}

static int plain_scriptlets(struct scriptlets *s, Header h)
{
	static const struct {
		rpmTagVal body, prog, flags;
		enum run_at stage;
		const char *name;
	} tags[] = {
		{ RPMTAG_PRETRANS, RPMTAG_PRETRANSPROG, RPMTAG_PRETRANSFLAGS, ST_PRETRANS, "%pretrans" },
		{ RPMTAG_PREIN, RPMTAG_PREINPROG, RPMTAG_PREINFLAGS, ST_PRE, "%pre" },
		{ RPMTAG_POSTIN, RPMTAG_POSTINPROG, RPMTAG_POSTINFLAGS, ST_POST, "%post" },
		{ RPMTAG_POSTTRANS, RPMTAG_POSTTRANSPROG, RPMTAG_POSTTRANSFLAGS, ST_POSTTRANS,
		  "%posttrans" },
	};
	/* A first installation: rpm passes the number of instances after it, 1. */
	static const char *const one[] = { "1" };
	int r = 0;

	for (size_t i = 0; i < S2C_ELEMENTSOF(tags) && r == 0; i++) {
		rpmtd body = keep_tag(s, h, tags[i].body), prog = keep_tag(s, h, tags[i].prog);
		struct scriptlet x = { .stage = tags[i].stage, .args = one, .n_args = 1,
				       .body = td_string(body, 0),
				       .flags = (uint32_t)headerGetNumber(h, tags[i].flags) };

		if (!x.body && !prog)
			continue;
		r = prog_of(prog, &x.prog);
		if (r == 0 && !(x.name = strdup(tags[i].name)))
			r = -ENOMEM;
		if (r == 0)
			r = add(s, &x);
		else
			free(x.prog);
	}
	return r;
}

/* Add trigger @x with its one-word program @prog, taking over what it holds. */
static int add_trigger(struct scriptlets *s, struct scriptlet *x, const char *prog)
{
	int r = prog_word(prog, &x->prog);

	if (r == 0)
		r = add(s, x);
	if (r < 0) {
		free(x->name);
		free(x->unless);
		free(x->prog);
	}
	return r;
}

/* The package's own name, version and release match the trigger condition @k. */
static bool fires_on_self(Header h, const char *self, rpmtd names, rpmtd versions, rpmtd flags,
			  uint32_t k)
{
	const char *n = td_string(names, k), *v = td_string(versions, k);
	rpmsenseFlags f = (rpmsenseFlags)td_number(flags, k);
	rpmds ds;
	bool match;

	if (!n || !s2c_streq(n, self))
		return false;
	if (!(f & RPMSENSE_SENSEMASK) || !v || !*v)
		return true;
	ds = rpmdsSingle(RPMTAG_TRIGGERNAME, n, v, f & RPMSENSE_SENSEMASK);
	match = ds && rpmdsAnyMatchesDep(h, ds, 1);
	rpmdsFree(ds);
	return match;
}

/*
 * The trigger of script @i: its name ("%triggerin -- a, b >= 2"), whether it
 * fires on this installation for certain, and else when it may.
 */
static int trigger_of(Header h, const char *self, rpmtd names, rpmtd versions, rpmtd flags,
		      rpmtd index, uint32_t i, struct scriptlet *x)
{
	static const struct {
		rpmsenseFlags sense;
		const char *name, *unless;
		enum run_at stage;
		bool on_self;           /* fires on installing this package itself */
	} types[] = {
		{ RPMSENSE_TRIGGERPREIN, "%triggerprein", "installed", ST_TRIGGERPREIN, false },
		{ RPMSENSE_TRIGGERIN, "%triggerin", "installed", ST_TRIGGERIN, true },
		{ RPMSENSE_TRIGGERUN, "%triggerun", "removed", ST_LATER, false },
		{ RPMSENSE_TRIGGERPOSTUN, "%triggerpostun", "removed", ST_LATER, false },
	};
	_cleanup_free_ char *conds = NULL, *others = NULL;
	size_t ty = SIZE_MAX, clen = 0, olen = 0;
	FILE *c = open_memstream(&conds, &clen), *o = open_memstream(&others, &olen);
	bool certain = false;

	for (uint32_t k = 0; c && o && k < rpmtdCount(index); k++) {
		rpmsenseFlags f = (rpmsenseFlags)td_number(flags, k);
		_cleanup_free_ char *shown = NULL;
		if (td_number(index, k) != i)
			continue;
		for (size_t j = 0; j < S2C_ELEMENTSOF(types) && ty == SIZE_MAX; j++)
			if (f & types[j].sense)
				ty = j;
		shown = escape_text(td_string(names, k) ? td_string(names, k) : "?");
		(void)fprintf(c, "%s%s", clen ? ", " : "", shown ? shown : "?");
		if (ty != SIZE_MAX && types[ty].on_self &&
		    fires_on_self(h, self, names, versions, flags, k)) {
			certain = true;
		} else if (!td_string(names, k) || !s2c_streq(td_string(names, k), self)) {
			(void)fprintf(o, "%s%s", olen ? " or " : "", shown ? shown : "?");
		}
	}
	if (!c || !o || fclose(c) != 0 || fclose(o) != 0)
		return -ENOMEM;
	if (ty == SIZE_MAX || (!certain && olen == 0))
		return 0;       /* only on this package's own removal or upgrade */
	x->stage = types[ty].stage;
	x->name = strdup_printf("%s -- %s", types[ty].name, conds);
	if (!x->name)
		return -ENOMEM;
	if (!certain && !(x->unless = strdup_printf("when %s is %s", others, types[ty].unless)))
		return -ENOMEM;
	return 1;
}

static int triggers(struct scriptlets *s, Header h, const char *self)
{
	/* $1: instances of this package after the operation; $2: of the other one. */
	static const char *const in[] = { "1", "1" }, *const prein[] = { "0", "1" },
			  *const un[] = { "1", "0" };
	rpmtd bodies = keep_tag(s, h, RPMTAG_TRIGGERSCRIPTS);
	rpmtd progs = keep_tag(s, h, RPMTAG_TRIGGERSCRIPTPROG);
	rpmtd sflags = keep_tag(s, h, RPMTAG_TRIGGERSCRIPTFLAGS);
	rpmtd names = keep_tag(s, h, RPMTAG_TRIGGERNAME);
	rpmtd versions = keep_tag(s, h, RPMTAG_TRIGGERVERSION);
	rpmtd flags = keep_tag(s, h, RPMTAG_TRIGGERFLAGS);
	rpmtd index = keep_tag(s, h, RPMTAG_TRIGGERINDEX);
	int r = 0;

	for (uint32_t i = 0; bodies && names && index && i < rpmtdCount(bodies) && r == 0; i++) {
		struct scriptlet x = { .body = td_string(bodies, i), .flags = td_number(sflags, i) };
		r = trigger_of(h, self, names, versions, flags, index, i, &x);
		if (r <= 0) {
			free(x.name);
			free(x.unless);
			continue;
		}
		x.args = x.stage == ST_TRIGGERPREIN ? prein : x.stage == ST_LATER ? un : in;
		x.n_args = 2;
		r = add_trigger(s, &x, td_string(progs, i));
	}
	return r;
}

/* Whether a file of the package (not a ghost) begins with @prefix, as rpm matches. */
static bool own_file_under(Header h, const char *prefix)
{
	rpmfiles fi = rpmfilesNew(NULL, h, RPMTAG_BASENAMES, RPMFI_FLAGS_QUERY);
	int n = fi ? rpmfilesFC(fi) : 0;
	bool found = false;

	for (int i = 0; i < n && !found; i++) {
		char *fn = rpmfilesFN(fi, i);
		found = fn && !(rpmfilesFFlags(fi, i) & RPMFILE_GHOST) &&
			strncmp(fn, prefix, strlen(prefix)) == 0;
		free(fn);
	}
	rpmfilesFree(fi);
	return found;
}

/* The tags of one kind of file trigger. */
struct ftags {
	rpmTagVal bodies, progs, sflags, names, flags, index, prio;
	const char *name;
	enum run_at in;
};

static int file_trigger_of(Header h, const struct ftags *ft, rpmtd names, rpmtd flags,
			   rpmtd index, uint32_t i, struct scriptlet *x)
{
	_cleanup_free_ char *conds = NULL;
	size_t clen = 0;
	FILE *c = open_memstream(&conds, &clen);
	bool certain = false, install = false;
	uint32_t type = 0;

	for (uint32_t k = 0; c && k < rpmtdCount(index); k++) {
		const char *p = td_string(names, k);
		_cleanup_free_ char *shown = NULL;
		if (td_number(index, k) != i)
			continue;
		type = td_number(flags, k);
		install = type & RPMSENSE_TRIGGERIN;
		certain = certain || (install && p && own_file_under(h, p));
		shown = escape_text(p ? p : "?");
		(void)fprintf(c, "%s%s", clen ? ", " : "", shown ? shown : "?");
	}
	if (!c || fclose(c) != 0)
		return -ENOMEM;
	x->stage = install ? ft->in : ST_LATER;
	x->name = strdup_printf("%s%s -- %s", ft->name,
				install ? "in" : (type & RPMSENSE_TRIGGERUN) ? "un" :
				"postun", conds);
	if (!x->name)
		return -ENOMEM;
	if (!certain && !(x->unless = strdup_printf("when a file under %s is %s", conds,
						    install ? "installed" : "removed")))
		return -ENOMEM;
	return 0;
}

static int file_triggers(struct scriptlets *s, Header h, const struct ftags *ft)
{
	/* rpm passes the number of instances of the package, which it counts as 0 here. */
	static const char *const args[] = { "0" };
	rpmtd bodies = keep_tag(s, h, ft->bodies), progs = keep_tag(s, h, ft->progs);
	rpmtd sflags = keep_tag(s, h, ft->sflags), names = keep_tag(s, h, ft->names);
	rpmtd flags = keep_tag(s, h, ft->flags), index = keep_tag(s, h, ft->index);
	rpmtd prio = keep_tag(s, h, ft->prio);
	int r = 0;

	for (uint32_t i = 0; bodies && names && index && i < rpmtdCount(bodies) && r == 0; i++) {
		struct scriptlet x = { .body = td_string(bodies, i), .flags = td_number(sflags, i),
				       .args = args, .n_args = 1,
				       .priority = (int)td_number(prio, i) };
		r = file_trigger_of(h, ft, names, flags, index, i, &x);
		if (r == 0) {
			r = add_trigger(s, &x, td_string(progs, i));
		} else {
			free(x.name);
			free(x.unless);
		}
	}
	return r;
}

/* --- analysis ------------------------------------------------------------------------------- */

static const char *base_name(const char *p)
{
	const char *slash = strrchr(p, '/');
	return slash ? slash + 1 : p;
}

static bool is_shell(const char *p)
{
	const char *b = base_name(p);
	return s2c_streq(b, "sh") || s2c_streq(b, "bash") || s2c_streq(b, "dash");
}

/* A program run without a script whose command line the evaluator models exactly. */
static bool modelled_program(const char *p)
{
	static const char *const known[] = { "chmod", "chown", "chgrp", "setcap" };
	const char *b = base_name(p);

	for (size_t i = 0; i < S2C_ELEMENTSOF(known); i++)
		if (s2c_streq(b, known[i]))
			return true;
	return false;
}

/* The command line of @argv as shell text, each word quoted. */
static char *command_line(const char *const *argv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; argv[i]; i++) {
		(void)fputs(i ? " '" : "'", f);
		for (const char *c = argv[i]; *c; c++)
			(void)(*c == '\'' ? fputs("'\\''", f) : fputc(*c, f));
		(void)fputc('\'', f);
	}
	(void)fputc('\n', f);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * One analysis of the scriptlets: into @out, with @changed (a %config file
 * taken to hold other text than the packed one, or NULL); the reasons a
 * scriptlet is not analysed go to @t, unless @alt (an alternative: the
 * analysis of the installed state gave them already).
 */
struct run {
	struct target *t;
	struct ms_analysis *out;
	const struct memberset *members;
	int stagefd;
	const char *config;     /* the %config(noreplace) files, a path per line, or NULL */
	const char *changed;
	bool alt;
};

static int not_analysed(const struct run *run, const struct scriptlet *x, const char *why,
			const char *what)
{
	_cleanup_free_ char *shown = NULL;

	if (run->alt)
		return 0;
	if (what && !(shown = escape_text(what)))
		return -ENOMEM;
	return target_incomplete(run->t, "%s: %s%s; not analysed", x->name, why,
				 shown ? shown : "");
}

/* The actions of @x into run->out, or why it is not analysed. */
static int analyse_one(const struct run *run, const struct scriptlet *x)
{
	const char *prog = x->prog ? x->prog[0] : "/bin/sh";
	struct ms_context ctx = { .args = x->args, .n_args = x->n_args, .arch = run->t->arch,
				  .package = run->t->name, .members = run->members,
				  .stagefd = run->stagefd,
				  .before_unpack = x->stage < ST_FILETRIGGERIN,
				  .conffiles = run->config, .changed_conffile = run->changed };

	if (!x->body && !x->prog)
		return 0;

	if ((x->flags & (SCRIPT_FLAG_EXPAND | SCRIPT_FLAG_QFORMAT)) && x->body &&
	    strpbrk(x->body, "%["))
		return not_analysed(run, x, "rpm expands its text when it runs it", NULL);
	if (!x->body) {
		if (s2c_streq(base_name(prog), "ldconfig") && !x->prog[1])
			return 0;       /* it makes library links, nothing else */
		if (!modelled_program(prog))
			return not_analysed(run, x, "runs the program ", prog);
		{
			_cleanup_free_ char *sh = command_line(x->prog);
			return sh ? maintscript_analyse(x->name, sh, strlen(sh), &ctx, run->out) :
				    -ENOMEM;
		}
	}
	if (s2c_streq(prog, "<lua>") && !x->prog[1])
		return rpmscript_lua(x->name, x->body, strlen(x->body), &ctx, run->out);
	if (!is_shell(prog) || (x->prog && x->prog[1]))
		return not_analysed(run, x, "runs in ", prog);
	return maintscript_analyse(x->name, x->body, strlen(x->body), &ctx, run->out);
}

/* rpm's order: by stage; file triggers of one stage by priority, higher first. */
static int cmp_scriptlet(const void *a, const void *b)
{
	const struct scriptlet *x = a, *y = b;

	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	return x->priority != y->priority ? (x->priority > y->priority ? -1 : 1) : 0;
}

/* Sort @s into the order rpm runs the scriptlets; stable: equal stages keep the header's. */
static void order(struct scriptlets *s)
{
	for (size_t i = 1; i < s->n; i++)
		for (size_t j = i; j > 0 && cmp_scriptlet(&s->v[j], &s->v[j - 1]) < 0; j--) {
			struct scriptlet tmp = s->v[j];
			s->v[j] = s->v[j - 1];
			s->v[j - 1] = tmp;
		}
}

static int analyse_all(const struct run *run, const struct scriptlets *s)
{
	struct ms_analysis *out = run->out;
	int r = 0;

	for (size_t i = 0; i < s->n && r == 0; i++) {
		const struct scriptlet *x = &s->v[i];
		size_t before = out->n;

		r = analyse_one(run, x);
		/* Before the files are unpacked, none of them exists on a fresh installation,
		 * and rpm then writes each with its packed mode and owner: what these scripts do
		 * to the package's files has no effect. */
		for (size_t k = before; r == 0 && x->stage < ST_FILETRIGGERIN && k < out->n; k++)
			out->v[k].seq[MS_SCENARIO_WORKS] = out->v[k].seq[MS_SCENARIO_FAILS] = SIZE_MAX;
		if (r < 0 || !x->unless || x->stage < ST_FILETRIGGERIN || out->n == before)
			continue;
		/* It may not run: what it does is conditional, and the prediction not exact. */
		for (size_t k = before; k < out->n; k++)
			out->v[k].conditional = true;
		if (!run->alt)
			r = target_incomplete(run->t, "%s runs only %s; its actions are shown as if "
					      "it ran", x->name, x->unless);
	}
	if (r == 0 && run->members)
		r = maintscript_check(out, run->members);
	return r;
}

/*
 * The files of @h marked %config(noreplace), a path per line, into @ret (NULL
 * when none): on a fresh installation over a file already there (an earlier
 * installation's, kept when it was erased), rpm keeps that file and writes
 * the packed one beside it as .rpmnew, so a scriptlet reading it may read
 * the administrator's text.  A plain %config file is replaced (the old one
 * saved as .rpmorig): it holds the packed text.  A name with a line break
 * cannot be listed: the audit is incomplete.
 */
/* The path @dir@base as a member's (member_path()) on a line of @f; a name it refuses
 * fails the reading of the package's files anyway. */
static int config_file(FILE *f, const char *dir, const char *base)
{
	_cleanup_free_ char *full = strdup_printf("%s%s", dir, base), *path = NULL;
	struct s2c_error err = { 0 };
	int r;

	if (!full)
		return -ENOMEM;
	r = member_path(full[0] == '/' ? full + 1 : full, &path, &err);
	if (r == -ENOMEM)
		return r;
	if (r == 0)
		(void)fprintf(f, "%s\n", path);
	return 0;
}

static int config_files(Header h, struct target *t, char **ret)
{
	/* the header's own arrays, not a copy of the file list: a million files cost nothing */
	struct scriptlets tags = { 0 };
	rpmtd flags = keep_tag(&tags, h, RPMTAG_FILEFLAGS);
	rpmtd base = keep_tag(&tags, h, RPMTAG_BASENAMES), dir = keep_tag(&tags, h, RPMTAG_DIRNAMES);
	rpmtd index = keep_tag(&tags, h, RPMTAG_DIRINDEXES);
	uint32_t n = flags ? rpmtdCount(flags) : 0;
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int r = f ? 0 : -ENOMEM;

	for (uint32_t i = 0; i < n && r == 0; i++) {
		uint32_t a = td_number(flags, i);
		const char *b = td_string(base, i), *d = td_string(dir, td_number(index, i));
		if (!(a & RPMFILE_CONFIG) || !(a & RPMFILE_NOREPLACE))
			continue;
		if (!b || !d)
			r = target_incomplete(t, "a %%config(noreplace) file without a name");
		else if (strchr(b, '\n') || strchr(d, '\n'))
			r = target_incomplete(t, "a %%config(noreplace) file whose name holds a line "
					      "break");
		else
			r = config_file(f, d, b);
	}
	scriptlets_release(&tags);
	if (f && fclose(f) != 0)
		return r < 0 ? r : -ENOMEM;
	if (r == 0 && len)
		*ret = TAKE_PTR(text);
	return r;
}

/*
 * An alternative for each %config(noreplace) file the scriptlets read: what
 * they would install if it held the administrator's text (target_alt_notes()).
 */
static int alternatives(const struct run *main_run, const struct scriptlets *s)
{
	struct target *t = main_run->t;
	int r = 0;

	for (size_t i = 0; i < t->scripts.n_conffiles && r == 0 && t->n_alts < TARGET_ALTS_MAX;
	     i++) {
		struct run run = *main_run;
		run.out = target_alt_add(t, strdup_printf("where the %%config file %s is not as "
							  "packed", t->scripts.conffiles[i]));
		if (!run.out)
			return -ENOMEM;
		run.changed = t->scripts.conffiles[i];
		run.alt = true;
		r = analyse_all(&run, s);
	}
	return r;
}

void rpmscript_forget(struct target *t, size_t n_incomplete)
{
	ms_analysis_release(&t->scripts);
	while (t->n_incomplete > n_incomplete)
		free(t->incomplete[--t->n_incomplete]);
	target_alts_release(t);
}

int rpmscript_analyse(struct headerToken_s *h, struct target *t, const struct memberset *members,
		      int stagefd)
{
	static const struct ftags ft[] = {
		{ RPMTAG_FILETRIGGERSCRIPTS, RPMTAG_FILETRIGGERSCRIPTPROG,
		  RPMTAG_FILETRIGGERSCRIPTFLAGS, RPMTAG_FILETRIGGERNAME, RPMTAG_FILETRIGGERFLAGS,
		  RPMTAG_FILETRIGGERINDEX, RPMTAG_FILETRIGGERPRIORITIES, "%filetrigger",
		  ST_FILETRIGGERIN },
		{ RPMTAG_TRANSFILETRIGGERSCRIPTS, RPMTAG_TRANSFILETRIGGERSCRIPTPROG,
		  RPMTAG_TRANSFILETRIGGERSCRIPTFLAGS, RPMTAG_TRANSFILETRIGGERNAME,
		  RPMTAG_TRANSFILETRIGGERFLAGS, RPMTAG_TRANSFILETRIGGERINDEX,
		  RPMTAG_TRANSFILETRIGGERPRIORITIES, "%transfiletrigger", ST_TRANSFILETRIGGERIN },
	};
	_cleanup_free_ char *config = NULL;
	struct scriptlets s = { 0 };
	struct run run = { .t = t, .out = &t->scripts, .members = members, .stagefd = stagefd };
	int r = plain_scriptlets(&s, h);

	if (r == 0)
		r = triggers(&s, h, t->name);
	for (size_t i = 0; i < S2C_ELEMENTSOF(ft) && r == 0; i++)
		r = file_triggers(&s, h, &ft[i]);
	if (r == 0 && members)
		r = config_files(h, t, &config);
	run.config = config;
	order(&s);
	if (r == 0)
		r = analyse_all(&run, &s);
	if (r == 0)
		r = ms_analysis_index(&t->scripts);
	if (r == 0 && members)
		r = alternatives(&run, &s);
	scriptlets_release(&s);
	return r;
}

#endif /* HAVE_LIBRPM */
