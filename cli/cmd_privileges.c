/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap privileges VERB: narrow privileges exactly as VERB would, then
 * show what the process kept, so an admin (and the test suite) can see that
 * each verb runs with only what it needs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fcaps.h"
#include "privs.h"
#include "util.h"
#include "common.h"

static const char help_text[] =
	"Narrow privileges as VERB does, then print the capability sets and the\n"
	"no_new_privs flag this process kept.\n";

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

int cmd_privileges(int argc, char **argv, struct s2c_ctx *ctx)
{
	const struct cmd *c;
	int r;

	(void)ctx;
	if (argc == 2 && (s2c_streq(argv[1], "--help") || s2c_streq(argv[1], "-h"))) {
		cmd_print_usage(cmd_lookup("privileges"), stdout);
		(void)fputs(help_text, stdout);
		return S2C_EXIT_OK;
	}
	if (argc != 2)
		return usage_error("privileges", "expected exactly one VERB");
	c = cmd_lookup(argv[1]);
	if (!c)
		return usage_error("privileges", "unknown verb '%s'", argv[1]);
	r = privs_restrict(c->caps, (c->flags & CMD_WRITES) ? PRIVS_KEEP_BOUNDING : 0);
	if (r < 0) {
		log_error("cannot restrict privileges for '%s': %s", c->name, strerror(-r));
		return S2C_EXIT_PRIVILEGE;
	}
	(void)printf("verb: %s\n", c->name);
	r = print_status();
	/* Verbs that narrow further once they have read their options. */
	if (r == 0 && s2c_streq(c->name, "learn"))
		(void)printf("then: %s", cmd_learn_privileges);
	return r;
}
