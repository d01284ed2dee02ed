/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap privileges VERB: narrow privileges exactly as VERB would, then
 * show what the process kept, so an admin (and the test suite) can see that
 * each verb runs with only what it needs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "fcaps.h"
#include "opts.h"
#include "privs.h"
#include "util.h"
#include "common.h"

static const char help_text[] =
	"For each phase of VERB, narrow privileges exactly as that phase does (in a\n"
	"child process per phase), then print the capability sets and the\n"
	"no_new_privs flag it kept.  Verbs that change files have several phases:\n"
	"a narrowed child reads and decides, the parent changes files.\n";

static int print_status(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/status", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	if (!f) {
		log_error("cannot open '/proc/self/status': %s", strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	while (getline(&line, &cap, f) > 0) {
		static const char *const keys[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
		uint64_t mask;

		if (strncmp(line, "NoNewPrivs:", 11) == 0) {
			(void)printf("no_new_privs: %s\n", strtol(line + 11, NULL, 10) ? "yes" : "no");
			continue;
		}
		for (size_t i = 0; i < S2C_ELEMENTSOF(keys); i++) {
			size_t kl = strlen(keys[i]);
			char *nl, *names;

			if (strncmp(line, keys[i], kl) != 0 || line[kl] != ':')
				continue;
			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			if (parse_u64(line + kl + 1 + strspn(line + kl + 1, " \t"), 16, UINT64_MAX,
				      &mask) < 0)
				continue;
			names = fcaps_mask_names(mask);
			(void)printf("%s: %s\n", keys[i], names && *names ? names : "(none)");
			free(names);
		}
	}
	return 0;
}

/* In a child: narrow as the dispatcher does, then as @ph does, and print the result. */
static int show_phase(const struct cmd *c, const struct privs_phase *ph)
{
	pid_t pid;
	int status, r;

	(void)fflush(stdout);
	pid = fork();
	if (pid < 0) {
		log_error("cannot fork: %s", strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	if (pid == 0) {
		char what[128];

		(void)snprintf(what, sizeof(what), "for '%s' phase '%s'", c->name, ph->name);
		if (privs_restrict(c->caps, (c->flags & CMD_WRITES) ? PRIVS_KEEP_BOUNDING : 0, what) ||
		    privs_restrict(ph->caps, ph->flags, what))
			_exit(S2C_EXIT_PRIVILEGE);
		(void)printf("phase: %s\nwhat: %s\n", ph->name, ph->what);
		r = print_status();
		(void)fflush(stdout);
		_exit(r);
	}
	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (r < 0 || !WIFEXITED(status))
		return S2C_EXIT_FAILURE;
	return WEXITSTATUS(status);
}

int cmd_privileges(int argc, char **argv, struct s2c_ctx *ctx)
{
	static const struct opt opts[] = { OPT_END() };
	const struct cmd *c;
	int ex = S2C_EXIT_OK, first;

	(void)ctx;
	ex = opts_parse(cmd_lookup("privileges"), opts, help_text, argc, argv, &first);
	if (ex || !first)
		return ex;
	c = cmd_lookup(argv[first]);
	if (!c || !c->phases)
		return usage_error("privileges", "unknown verb '%s'", argv[first]);
	(void)printf("verb: %s\n", c->name);
	for (const struct privs_phase *ph = c->phases; ph->name && ex == S2C_EXIT_OK; ph++) {
		if (ph != c->phases)
			(void)printf("\n");
		ex = show_phase(c, ph);
	}
	return ex;
}
