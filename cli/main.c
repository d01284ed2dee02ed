/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap: move Linux systems off setuid-root programs onto minimal file
 * capabilities.
 *
 * Architecture map (keep true; review when a module is added):
 *
 *   walk ─► facts ─► classify ─► decide ─► plan ─► emit / apply ─► journal ─► verify
 *                                      └──────► report
 *
 * Entry functions: scan_run() → walk_run(), facts_from_entry(), binary_read()
 * → elfinfo_load_fd(), decide_all() → engine_decide(), plan_build(),
 * emit_plan() / apply_run() (rollback_run()), journal_intent(), verify_entry().
 *
 * One line per directory; docs/ARCHITECTURE.md has the table of every module.
 *
 * common/   macros, cleanup, errors, strings and UTF-8, trust, hashes of untrusted
 *           names, the state directory: what every layer needs
 * scanner/  the parallel walker, safe resolution beneath a root, mounts, file
 *           capabilities, facts, ELF through libelf, SHA-256, the one file identity
 * rules/    the rules database and its strict reader, host facts and package
 *           databases, matching, the engine and decide_all(), overrides
 * plan/     plans and their formats (sh, rpm, deb, permissions, Dockerfile), apply
 *           with its journal, rollback, verify and the state record
 * learn/    running a program with candidate capabilities and recording what the
 *           kernel checked (BPF, ptrace); learn records
 * pkg/      packages and images: archives, maintainer scripts and rpm scriptlets
 *           read without running them, layers, the installed state predicted
 * report/   every report format: audit, explain, learn, results, report merge
 * pipeline/ packages and images from their files to the report: read, decided, planned
 * cli/      this file (dispatch table, privilege narrowing, exit codes), option
 *           parsing, output files, signals, one cmd_*.c per verb
 * dist/     completion, schemas, systemd units, rpm spec; debian/ beside it
 *
 * Layers include only those below them (docs/ARCHITECTURE.md, "Layers", checked by
 * cli.help): common <- scanner <- rules <- plan, learn; pkg on scanner; report on all
 * of those; pipeline on report, plan, pkg; cli on everything.  Libraries (every
 * directory but cli/) never print to stdout, exit or read the environment; they
 * return -errno and fill a struct s2c_error.  cli/ functions return exit codes (enum s2c_exit); error_exit() maps a
 * library's error to one.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
#include "opts.h"
#include "privs.h"
#include "term.h"
#include "util.h"
#include "common.h"

/*
 * What each verb keeps, phase by phase (suid2cap privileges VERB shows it).
 * The dispatcher narrows to the union of a verb's phases; each phase then
 * narrows further with the same constants (cli/privs.h).  Reading verbs are
 * one phase.  Verbs that change files start with CAP_SETPCAP so that the
 * child that reads untrusted files can drop the bounding set too; the parent
 * that changes files keeps the bounding set (and no no_new_privs) because
 * smoke tests must get the file capabilities they prove.
 */
static const struct privs_phase phases_read[] = {
	{ "read", PRIVS_READ, 0, "walks the tree, reads the files and decides" },
	{ 0 },
};
static const struct privs_phase phases_change[] = {
	{ "decide", PRIVS_READ, 0,
	  "a child process walks the tree, reads the binaries with libelf, decides and hands "
	  "the plan over" },
	{ "apply", PRIVS_APPLY | PRIVS_APPLY_CHOWN | PRIVS_SMOKE, PRIVS_KEEP_BOUNDING,
	  "checks and changes the files (at most: CAP_CHOWN only for an owner change, "
	  "CAP_SETUID, CAP_SETGID and CAP_KILL only for smoke tests)" },
	{ 0 },
};
static const struct privs_phase phases_verify[] = {
	{ "check", PRIVS_READ, 0, "compares the recorded files with the disk (verify without --fix)" },
	{ "decide", PRIVS_READ, 0, "with --fix: a child process decides about the drifted files" },
	{ "apply", PRIVS_APPLY | PRIVS_APPLY_CHOWN | PRIVS_SMOKE, PRIVS_KEEP_BOUNDING,
	  "with --fix: repairs them (at most; as for apply)" },
	{ 0 },
};
static const struct privs_phase phases_none[] = {
	{ "help", 0, 0, "prints a help text" },
	{ 0 },
};
static const struct privs_phase phases_rollback[] = {
	{ "rollback", PRIVS_ROLLBACK, 0, "restores journalled states; runs no program" },
	{ 0 },
};
/* Verbs that change files start with every set one of their phases keeps. */
#define CAPS_CHANGE (PRIVS_READ | PRIVS_APPLY | PRIVS_APPLY_CHOWN | PRIVS_SMOKE | \
		     S2C_CAPMASK(CAP_SETPCAP))
/* `privileges` narrows for the verb it inspects, so it starts with everything. */
#define CAPS_ALL UINT64_MAX
/*
 * learn may grant any capability to the command it runs, so it keeps every one
 * until it has read --caps; then it narrows to what the run needs (cmd_learn.c).
 */
#define CAPS_LEARN (S2C_CAPMASK(CAP_LAST_CAP + 1) - 1)
static const struct privs_phase phases_learn[] = {
	{ "start", CAPS_LEARN, PRIVS_KEEP_BOUNDING,
	  "reads its options, the rules and the program: the candidate capabilities are "
	  "not known yet" },
	{ "run", PRIVS_LEARN_RUN | PRIVS_LEARN_BPF | PRIVS_LEARN_PTRACE, 0,
	  "runs and watches the command (at most: the BPF set only for BPF, CAP_SYS_PTRACE "
	  "only for ptrace), plus the candidate capabilities; the command gets only the "
	  "candidates, in every set, as an unprivileged user with no_new_privs" },
	{ 0 },
};

static const struct cmd commands[] = {
	/* name, fn, flags, min and max operands and what they are, capabilities at
	 * dispatch, phases, synopsis, one line */
	{ "scan", cmd_scan, 0, 0, CMD_ANY, "PATH", PRIVS_READ, phases_read,
	  "[--root DIR] [--format text|json] [--threads N] [--xdev] [--all-caps] "
	  "[--cross-pseudo] [--exclude PATH] [--other-roots] [--output FILE] [--quiet] [PATH ...]",
	  "list every setuid, setgid and capability-carrying file" },
	{ "audit", cmd_audit, 0, 0, CMD_ANY, "PATH", PRIVS_READ, phases_read,
	  "[--root DIR] [--db DIR] [--kernel VER] [--bounding-set SET] "
	  "[--format text|json|markdown|html|sarif] [--output FILE] "
	  "[--fail-on review|migrate|risk] [--label NAME] [--waivers FILE] "
	  "[--color auto|always|never] [--quiet] [--exclude PATH] "
	  "[--other-roots] [PATH ...]",
	  "audit report: every privileged file with verdict, evidence and risk" },
	{ "audit-pkg", cmd_audit_pkg, 0, 0, CMD_ANY, "FILE", PRIVS_READ, phases_read,
	  "[--db DIR] [--kernel VER] [--bounding-set SET] "
	  "[--format text|json|markdown|html|sarif] [--output FILE] "
	  "[--fail-on review|migrate|risk|incomplete] [--allow-incomplete] [--label NAME] "
	  "[--waivers FILE] [--color auto|always|never] [--quiet] [--threads N] [--tmpdir DIR] "
	  "[--max-unpacked SIZE] [--max-memory SIZE] [--shard K/N] FILE ... | --from-dir DIR",
	  "audit .deb and .rpm packages without installing them" },
	{ "audit-image", cmd_audit_image, 0, 1, 1, "FILE|DIR", PRIVS_READ, phases_read,
	  "[--db DIR] [--kernel VER] [--bounding-set SET] "
	  "[--format text|json|markdown|html|sarif] [--output FILE] "
	  "[--fail-on review|migrate|risk|incomplete] [--allow-incomplete] [--label NAME] "
	  "[--waivers FILE] [--color auto|always|never] [--quiet] [--platform OS/ARCH] [--tmpdir DIR] "
	  "[--max-unpacked SIZE] [--max-memory SIZE] FILE|DIR",
	  "audit a container image (docker save, OCI layout) without running it" },
	{ "report", cmd_report, 0, 1, CMD_ANY, "'merge'", PRIVS_READ, phases_read,
	  "merge [--format text|json|markdown|html|sarif] [--output FILE] [--quiet] "
	  "[--allow-incomplete] [--fail-on-drift] FILE ...",
	  "join JSON audit reports of many hosts, images or package shards" },
	{ "plan", cmd_plan, 0, 0, CMD_ANY, "PATH", PRIVS_READ, phases_read,
	  "[--root DIR] [--db DIR] [--kernel VER] [--bounding-set SET] "
	  "[--format json|sh|rpm|deb|deb-postrm|permissions] "
	  "[--output FILE] [--timestamp] [--exclude PATH] [--other-roots] "
	  "[--include-unpackaged] [PATH ...] | --check PLAN",
	  "dry-run plan of the migration, as JSON, shell or packaging snippets" },
	{ "apply", cmd_apply, CMD_WRITES, 1, 1, "PLAN", CAPS_CHANGE, phases_change,
	  "PLAN [--db DIR] [--kernel VER] [--bounding-set SET] [--only PATH ...] [--no-smoke] "
	  "[--smoke] "
	  "[--smoke-user USER] [--smoke-timeout SEC] [--allow-hardlinks] "
	  "[--allow-root-equivalent] [--quiet] [--verbose] [--format text|json]",
	  "carry out a plan: journalled, checked, smoke-tested" },
	{ "migrate", cmd_migrate, CMD_WRITES, 0, CMD_ANY, "PATH", CAPS_CHANGE, phases_change,
	  "[--root DIR] [--db DIR] [--kernel VER] [--bounding-set SET] [--yes] [--dry-run] "
	  "[--exclude PATH] [--other-roots] [--include-unpackaged] [--format text|json] "
	  "[apply options] [PATH ...]",
	  "plan and apply in one step, after asking" },
	{ "rollback", cmd_rollback, CMD_WRITES, 0, 1, "JOURNAL", CAPS_CHANGE, phases_rollback,
	  "[--root DIR] JOURNAL | --last | --list [--only PATH ...] [--format text|json]",
	  "undo an apply, restoring the exact previous state" },
	{ "verify", cmd_verify, CMD_WRITES, 0, 0, NULL, CAPS_CHANGE, phases_verify,
	  "[--root DIR] [--fix] [--db DIR] [--kernel VER] [--bounding-set SET] [--no-smoke] "
	  "[--smoke-user USER] "
	  "[--allow-root-equivalent] [--exclude PATH] [--include-unpackaged] [--forget PATH ...] "
	  "[--install-hook dpkg|apt|rpm] [--hook-program PATH] [--remove-hook dpkg|apt|rpm] "
	  "[--quiet] [--format text|json]",
	  "find and repair drift: set-ID bits back, capabilities lost in updates" },
	{ "explain", cmd_explain, 0, 1, CMD_ANY, "PATH", PRIVS_READ, phases_read,
	  "[--root DIR] [--db DIR] [--kernel VER] [--bounding-set SET] [--format text|json] "
	  "[--color auto|always|never] [--exclude PATH] [--other-roots] PATH ...",
	  "explain the decision about a file: facts, rule, evidence, verdict" },
	{ "rules", cmd_rules, 0, 1, CMD_ANY, "'lint' or 'list'", PRIVS_READ, phases_read,
	  "lint [DIR ...] | list [--db DIR] [--format text|json]",
	  "check or list the rules database" },
	{ "learn", cmd_learn, CMD_WRITES | CMD_OPTIONS_FIRST, 1, CMD_ANY, "COMMAND", CAPS_LEARN,
	  phases_learn,
	  "[--user USER] [--caps SET] [--timeout S] [--mechanism auto|bpf|ptrace] "
	  "[--json | --format text|json] [--color auto|always|never] [--root DIR] [--db DIR] "
	  "[--kernel VER] [--no-record] "
	  "[--verbose] [--] COMMAND [ARG ...]",
	  "run a program and record which capabilities it really uses" },
	{ "privileges", cmd_privileges, 0, 1, 1, "VERB", CAPS_ALL, NULL, "VERB",
	  "show the capabilities and no_new_privs a verb runs with" },
	{ "help", cmd_help, 0, 0, 1, "VERB", 0, phases_none, "[VERB]",
	  "show the help of a verb, or the list of verbs" },
};

const struct cmd *cmd_lookup(const char *name)
{
	for (size_t i = 0; i < S2C_ELEMENTSOF(commands); i++)
		if (s2c_streq(commands[i].name, name))
			return &commands[i];
	return NULL;
}

void cmd_print_usage(const struct cmd *c, FILE *out)
{
	/* The synopsis wrapped at 80 columns, continued under its first word. */
	size_t indent = strlen("usage: suid2cap ") + strlen(c->name) + 1, col = indent - 1;
	const char *p = c->synopsis;

	(void)fprintf(out, "usage: suid2cap %s", c->name);
	while (*p) {
		/* a bracketed group is one word */
		size_t len = 0, depth = 0;
		while (p[len] && (depth || p[len] != ' ')) {
			depth += p[len] == '[';
			depth -= depth && p[len] == ']';
			len++;
		}
		if (col > indent && col + 1 + len > 80) {
			(void)fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else {
			(void)fputc(' ', out);
			col++;
		}
		(void)fprintf(out, "%.*s", (int)len, p);
		col += len;
		p += len;
		while (*p == ' ')
			p++;
	}
	(void)fputc('\n', out);
}

static void print_help(FILE *out)
{
	(void)fputs("usage: suid2cap [--version] [--help] VERB [OPTIONS] [ARGS]\n\n"
		    "Find setuid/setgid programs and file capabilities, decide what each\n"
		    "program needs, and migrate it to minimal file capabilities.\n\n"
		    "Verbs:\n", out);
	for (size_t i = 0; i < S2C_ELEMENTSOF(commands); i++)
		if (!(commands[i].flags & CMD_HIDDEN))
			(void)fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].help);
	(void)fputs("\nRun 'suid2cap VERB --help' for the options of a verb; see suid2cap(8).\n"
		    "\nExit status: 0 success, 1 findings or drift, 2 usage error, 3 incomplete\n"
		    "(some files could not be read), 4 operation failed, 5 privilege error.\n", out);
}

static int unknown_verb(const char *name)
{
	const char *names[S2C_ELEMENTSOF(commands) + 1];
	const char *best;
	size_t n = 0;

	for (size_t i = 0; i < S2C_ELEMENTSOF(commands); i++)
		if (!(commands[i].flags & CMD_HIDDEN))
			names[n++] = commands[i].name;
	names[n] = NULL;
	best = str_closest(name, names);
	if (best)
		return usage_error(NULL, "unknown verb '%s'; did you mean '%s'?", name, best);
	return usage_error(NULL, "unknown verb '%s'", name);
}

/*
 * Standard input, output and error open, on /dev/null where they were closed:
 * otherwise the first files this run opens would take their numbers, and what
 * it prints would go into a journal or a staged file.
 */
static void open_std_fds(void)
{
	for (int fd = 0; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest free number: @fd itself, the ones below it being open. */
		if (open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY) != fd)
			_exit(S2C_EXIT_FAILURE);
	}
}

/* Fail when stdout cannot be flushed and closed: a truncated report or plan
 * must never look like success (git's run_builtin, bfs).  A reader that went
 * away is said by the signal the process then ends with (interrupt_exit()).
 * Returns 0, or S2C_EXIT_FAILURE (after saying why). */
static int close_stdout(void)
{
	bool gone = interrupt_requested() == SIGPIPE;

	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (!gone)
			log_error("cannot write to standard output: %s", strerror(errno ? errno : EIO));
		return S2C_EXIT_FAILURE;
	}
	if (fclose(stdout) != 0) {
		if (!gone)
			log_error("cannot close standard output: %s", strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	return S2C_EXIT_OK;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	/* The walker keeps one fd per directory with pending children. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void ctx_init(struct s2c_ctx *ctx, const char *argv0)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	ctx->argv0 = argv0;
	ctx->stdout_tty = isatty(STDOUT_FILENO);
	ctx->stderr_tty = isatty(STDERR_FILENO);
	ctx->ncpus = n > 0 ? (unsigned)n : 1;
	/* glibc gives each thread its own heap, up to 8 per CPU: the walk's workers (four
	 * per CPU) would each keep one, mostly empty.  No more heaps than CPUs can use. */
	(void)mallopt(M_ARENA_MAX, (int)ctx->ncpus);
	log_set_program(argv0);
	term_init();
}

/* Narrow, run the verb, and check stdout once for every verb (git's run_builtin). */
static int run(const struct cmd *c, int argc, char **argv, struct s2c_ctx *ctx)
{
	char what[64];
	int ex, closed;

	/* `privileges` narrows for the verb it inspects, per phase. */
	(void)snprintf(what, sizeof(what), "for '%s'", c->name);
	if (c->caps != CAPS_ALL &&
	    privs_restrict(c->caps, (c->flags & CMD_WRITES) ? PRIVS_KEEP_BOUNDING : 0, what))
		return S2C_EXIT_PRIVILEGE;
	ex = c->fn(argc, argv, ctx);
	closed = close_stdout();
	/* A signal a changing verb held until it stopped (a broken pipe too): end by it. */
	interrupt_exit();
	if (closed && ex < S2C_EXIT_FAILURE)
		ex = S2C_EXIT_FAILURE;
	return ex;
}

int cmd_help(int argc, char **argv, struct s2c_ctx *ctx)
{
	static const struct opt opts[] = { OPT_END() };
	char help[] = "--help";
	const struct cmd *c;
	int first, ex = opts_parse(cmd_lookup("help"), opts,
				   "Show the help of VERB, or the list of verbs.\n", argc, argv, &first);

	if (ex || !first)
		return ex;
	if (first == argc) {
		print_help(stdout);
		return S2C_EXIT_OK;
	}
	c = cmd_lookup(argv[first]);
	if (!c || (c->flags & CMD_HIDDEN))
		return unknown_verb(argv[first]);
	optind = 0;
	return c->fn(2, (char *[]){ argv[first], help, NULL }, ctx);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	struct s2c_ctx ctx = { 0 };
	const struct cmd *c;
	int opt;

	open_std_fds();
	(void)setlocale(LC_ALL, "");
	ctx_init(&ctx, argv[0]);
	raise_fd_limit();
	interrupt_init();
	/* '+': stop at the verb; its options belong to it. */
	while ((opt = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			print_help(stdout);
			return close_stdout();
		case 'V':
			(void)printf("suid2cap %s\n", S2C_VERSION);
			return close_stdout();
		default:
			return usage_error(NULL, "unknown option");
		}
	}
	if (optind >= argc)
		return usage_error(NULL, "missing verb");
	c = cmd_lookup(argv[optind]);
	if (!c)
		return unknown_verb(argv[optind]);
	argc -= optind;
	argv += optind;
	optind = 0;     /* reset getopt for the verb's own parser */
	return run(c, argc, argv, &ctx);
}
