/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "util.h"
#include "common.h"

/* More options than any verb has; a table that outgrows it is a programming error. */
#define OPTS_MAX 64
/* getopt_long() values of the options: OPT_VAL + the option's index. */
#define OPT_VAL 0x1000
#define VAL_HELP (OPT_VAL - 1)
#define VAL_VERSION (OPT_VAL - 2)
/* Where the help texts start. */
#define HELP_COLUMN 24

/* Every option of @t and its nested tables, in order, into @v. */
static size_t flatten(const struct opt *t, const struct opt **v, size_t n)
{
	for (; t && t->kind != OPT_KIND_END; t++) {
		if (t->kind == OPT_KIND_TABLE)
			n = flatten(t->value, v, n);
		else if (n < OPTS_MAX)
			v[n++] = t;
	}
	return n;
}

static const char *option_name(const struct opt *o, char buf[static 4])
{
	if (o->long_name)
		return o->long_name;
	(void)snprintf(buf, 4, "%c", o->short_name);
	return buf;
}

/* "unknown format 'x': expected text, json or html" */
static int choice_error(const struct opt *o, const char *arg, const char *verb)
{
	char list[256] = "";
	size_t len = 0, n = 0;

	while (o->choices[n])
		n++;
	for (size_t i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", o->choices[i]);
	if (str_closest(arg, (const char *const *)o->choices))
		return usage_error(verb, "unknown %s '%s'; did you mean '%s'? (expected %s)",
				   o->long_name, arg, str_closest(arg, (const char *const *)o->choices),
				   list);
	return usage_error(verb, "unknown %s '%s': expected %s", o->long_name, arg, list);
}

/* Store @arg as @o says.  Returns 0 or S2C_EXIT_USAGE after printing. */
static int apply_opt(const struct opt *o, const char *arg, const char *verb)
{
	struct opt_list *l;

	switch (o->kind) {
	case OPT_KIND_BOOL:
		*(bool *)o->value = true;
		return 0;
	case OPT_KIND_SET_INT:
		*(int *)o->value = (int)o->defval;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_KIND_LIST:
		l = o->value;
		if (l->n == OPT_LIST_MAX)
			return usage_error(verb, "too many --%s options", o->long_name);
		l->v[l->n++] = arg;
		return 0;
	case OPT_KIND_CALLBACK:
		return o->cb(o, arg, verb);
	case OPT_KIND_CHOICE:
		for (int i = 0; o->choices[i]; i++)
			if (s2c_streq(o->choices[i], arg)) {
				*(int *)o->value = i;
				return 0;
			}
		return choice_error(o, arg, verb);
	default:
		return usage_error(verb, "unexpected option");
	}
}

static int check_exclusive(const struct opt *const *v, const bool *seen, size_t n,
			   const char *verb)
{
	char a[4], b[4];

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; seen[i] && v[i]->excl && j < n; j++)
			if (seen[j] && v[j]->excl == v[i]->excl)
				return usage_error(verb, "--%s and --%s exclude each other",
						   option_name(v[i], a), option_name(v[j], b));
	return 0;
}

/*
 * "unknown option '--formt'; did you mean '--format'?": the nearest long option of
 * the verb (@v, @n), --help and --version included, to what @arg names before any
 * "=VALUE".
 */
static int unknown_option(const char *verb, const struct opt *const *v, size_t n,
			  const char *arg)
{
	const char *names[OPTS_MAX + 3], *best;
	char typed[64];
	size_t k = 0;

	if (strncmp(arg, "--", 2) != 0 || strlen(arg) >= sizeof(typed))
		return usage_error(verb, "unknown option '%s'", arg);
	(void)snprintf(typed, sizeof(typed), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	for (size_t i = 0; i < n; i++)
		if (v[i]->long_name && v[i]->help)
			names[k++] = v[i]->long_name;
	names[k++] = "help";
	names[k++] = "version";
	names[k] = NULL;
	best = str_closest(typed, names);
	if (best)
		return usage_error(verb, "unknown option '%s'; did you mean '--%s'?", arg, best);
	return usage_error(verb, "unknown option '%s'", arg);
}

static int check_operands(const struct cmd *c, int argc, char **argv, int first)
{
	unsigned count = (unsigned)(argc - first);
	const char *what = c->operand ? c->operand : "operand";

	if (count < c->min_args)
		return usage_error(c->name, "missing %s", what);
	if (c->max_args != CMD_ANY && count > c->max_args)
		return usage_error(c->name, "unexpected argument '%s'", argv[first + c->max_args]);
	return 0;
}

int opts_parse(const struct cmd *c, const struct opt *table, const char *intro, int argc,
	       char **argv, int *ret_first)
{
	const struct opt *v[OPTS_MAX];
	struct option lopts[OPTS_MAX + 3];
	bool seen[OPTS_MAX] = { false };
	char shorts[2 * OPTS_MAX + 5];
	size_t n = flatten(table, v, 0), k = 0, s = 0;
	int ch, r;

	/* '+' stops at the first operand; ':' reports a missing argument apart */
	if (c->flags & CMD_OPTIONS_FIRST)
		shorts[s++] = '+';
	shorts[s++] = ':';
	for (size_t i = 0; i < n; i++) {
		if (v[i]->long_name)
			lopts[k++] = (struct option){ v[i]->long_name,
						      v[i]->argh ? required_argument : no_argument,
						      NULL, OPT_VAL + (int)i };
		if (v[i]->short_name) {
			shorts[s++] = v[i]->short_name;
			if (v[i]->argh)
				shorts[s++] = ':';
		}
	}
	lopts[k++] = (struct option){ "help", no_argument, NULL, VAL_HELP };
	lopts[k++] = (struct option){ "version", no_argument, NULL, VAL_VERSION };
	lopts[k] = (struct option){ 0 };
	shorts[s++] = 'h';
	shorts[s] = '\0';
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		size_t i = n;

		if (ch == VAL_HELP || ch == 'h') {
			opts_help(c, table, intro, stdout);
			*ret_first = 0;
			return 0;
		}
		if (ch == VAL_VERSION) {
			(void)printf("suid2cap %s\n", S2C_VERSION);
			*ret_first = 0;
			return 0;
		}
		if (ch == '?' && optopt && optopt < 0x80)
			return usage_error(c->name, "unknown option '%s'",
					    (char[]){ '-', (char)optopt, '\0' });
		if (ch == '?')
			return unknown_option(c->name, v, n, argv[optind - 1]);
		if (ch == ':')
			return usage_error(c->name, "option '%s' needs an argument", argv[optind - 1]);
		if (ch >= OPT_VAL)
			i = (size_t)(ch - OPT_VAL);
		else
			for (size_t j = 0; j < n && i == n; j++)
				if (v[j]->short_name == ch)
					i = j;
		if (i >= n)
			return usage_error(c->name, "unexpected option");
		seen[i] = true;
		r = apply_opt(v[i], optarg, c->name);
		if (r)
			return r;
	}
	r = check_exclusive(v, seen, n, c->name);
	if (r == 0)
		r = check_operands(c, argc, argv, optind);
	for (int i = optind; r == 0 && i < argc; i++)
		if (!argv[i][0])
			r = usage_error(c->name, "empty operand");
	if (r == 0)
		*ret_first = optind;
	return r;
}

/* Write @text at @col, its lines after the first indented to @col too. */
static void put_help(FILE *out, const char *text, size_t col)
{
	for (const char *p = text; *p; p++) {
		(void)fputc(*p, out);
		if (*p == '\n' && p[1])
			(void)fprintf(out, "%*s", (int)col, "");
	}
	(void)fputc('\n', out);
}

static void put_option(FILE *out, const char *left, const char *help)
{
	size_t len = strlen(left);

	(void)fputs(left, out);
	if (len + 2 > HELP_COLUMN)
		(void)fprintf(out, "\n%*s", HELP_COLUMN, "");
	else
		(void)fprintf(out, "%*s", (int)(HELP_COLUMN - len), "");
	put_help(out, help, HELP_COLUMN);
}

void opts_help(const struct cmd *c, const struct opt *table, const char *intro, FILE *out)
{
	const struct opt *v[OPTS_MAX];
	size_t n = flatten(table, v, 0);

	const char *epilogue = intro ? strchr(intro, '\f') : NULL;

	cmd_print_usage(c, out);
	if (intro)
		(void)fprintf(out, "\n%.*s", (int)(epilogue ? (size_t)(epilogue - intro) :
						   strlen(intro)), intro);
	(void)fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		char left[128], sname[8] = "";

		if (!v[i]->help)
			continue;
		if (v[i]->short_name)
			(void)snprintf(sname, sizeof(sname), "-%c%s", v[i]->short_name,
				       v[i]->long_name ? ", " : "");
		(void)snprintf(left, sizeof(left), "  %s%s%s%s%s", sname, v[i]->long_name ? "--" : "",
			       v[i]->long_name ? v[i]->long_name : "", v[i]->argh ? " " : "",
			       v[i]->argh ? v[i]->argh : "");
		put_option(out, left, v[i]->help);
	}
	put_option(out, "  -h, --help", "show this help");
	put_option(out, "  --version", "show the version");
	if (epilogue)
		(void)fprintf(out, "\n%s", epilogue + 1);
}

void opts_list(const struct opt *table, FILE *out)
{
	const struct opt *v[OPTS_MAX];
	size_t n = flatten(table, v, 0);

	for (size_t i = 0; i < n; i++)
		if (v[i]->help && v[i]->long_name)
			(void)fprintf(out, "--%s\n", v[i]->long_name);
}

int opts_absolute_path(const struct opt *o, const char *arg, const char *verb)
{
	struct opt_list *l = o->value;

	if (arg[0] != '/')
		return usage_error(verb, "--%s needs an absolute path, not '%s'", o->long_name, arg);
	if (l->n == OPT_LIST_MAX)
		return usage_error(verb, "too many --%s options", o->long_name);
	l->v[l->n++] = arg;
	return 0;
}
