/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "dbargs.h"
#include "hash.h"
#include "parents.h"
#include "plan.h"
#include "planload.h"
#include "privs.h"
#include "privsep.h"
#include "scanargs.h"
#include "util.h"
#include "common.h"

/* In the child: everything that reads untrusted bytes, then the plan on @out. */
static int child_decide(const struct privsep_job *job, FILE *out)
{
	struct scan_result *res = NULL;
	struct decisions ds = { 0 };
	struct plan *p = NULL;
	struct s2c_error err = { 0 };
	int ex, r;

	ex = scanargs_run(job->scan, job->ctx, job->db, &res);
	if (ex)
		return ex;
	ex = decide_run(job->dbargs, job->db, res, &ds);
	if (ex) {
		scan_result_free(res);
		return ex;
	}
	r = plan_build((const struct decision *const *)ds.v, ds.n, ds.host, ds.db, res->root,
		       res->host, &p, &err);
	/* What apply would refuse for its directories is held back, and said, now. */
	if (r == 0 && job->hold_unsafe)
		r = parents_check(p, res->rootfd, cmd_plan_warn_held, res->root);
	if (r < 0) {
		log_error("cannot make the plan: %s", err.msg[0] ? err.msg : strerror(-r));
		ex = S2C_EXIT_FAILURE;
	} else if (job->plan_limits && (ex = scanargs_plan_limits(job->scan, res, ds.host, p))) {
		/* printed */
	} else {
		if (plan_write_json(p, out) < 0)
			ex = S2C_EXIT_FAILURE;
		else if (res->warnings)
			ex = S2C_EXIT_INCOMPLETE;
	}
	plan_free(p);
	decisions_release(&ds);
	scan_result_free(res);
	return ex;
}

static _Noreturn void child(const struct privsep_job *job, int fd)
{
	FILE *out;
	int ex;

	if (privs_restrict(S2C_CAPMASK(CAP_DAC_READ_SEARCH), 0, "for the deciding process"))
		_exit(S2C_EXIT_PRIVILEGE);
	if (job->verbose) {
		_cleanup_free_ char *kept = privs_describe();
		log_notice("the deciding process keeps: %s", kept ? kept : "?");
	}
	out = fdopen(fd, "w");
	if (!out)
		_exit(S2C_EXIT_FAILURE);
	ex = child_decide(job, out);
	if (fclose(out) != 0 && (ex == 0 || ex == S2C_EXIT_INCOMPLETE))
		ex = S2C_EXIT_FAILURE;
	/* _exit: the parent's stdio buffers and exit handlers are not ours to run. */
	_exit(ex);
}

int privsep_plan(const struct privsep_job *job, struct plan **ret_plan,
		 char ret_sha256[static HASH_HEX_LEN], bool *ret_incomplete)
{
	_cleanup_free_ char *buf = NULL;
	struct s2c_error err = { 0 };
	size_t len = 0;
	int pfd[2], status, r, rs;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		log_error("cannot create a pipe: %s", strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	(void)fflush(stdout);
	(void)fflush(stderr);
	pid = fork();
	if (pid < 0) {
		log_error("cannot fork: %s", strerror(errno));
		(void)close(pfd[0]);
		(void)close(pfd[1]);
		return S2C_EXIT_FAILURE;
	}
	if (pid == 0) {
		(void)close(pfd[0]);
		child(job, pfd[1]);
	}
	(void)close(pfd[1]);
	rs = read_all(pfd[0], PLAN_MAX_SIZE, &buf, &len);
	(void)close(pfd[0]);
	if (rs < 0)
		(void)kill(pid, SIGKILL);
	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (r < 0) {
		log_error("cannot wait for the deciding process: %s", strerror(errno));
		return S2C_EXIT_FAILURE;
	}
	if (rs < 0) {
		log_error("cannot read the plan of the deciding process: %s", strerror(-rs));
		return S2C_EXIT_FAILURE;
	}
	if (WIFSIGNALED(status)) {
		log_error("the deciding process was killed by signal %d", WTERMSIG(status));
		return S2C_EXIT_FAILURE;
	}
	if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != S2C_EXIT_INCOMPLETE)
		return WEXITSTATUS(status);
	if (hash_mem_sha256(buf, len, ret_sha256) < 0)
		return S2C_EXIT_FAILURE;
	r = plan_from_mem(buf, len, "the deciding process's plan", ret_plan, &err);
	if (r < 0) {
		log_error("%s", err.msg[0] ? err.msg : strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	*ret_incomplete = WEXITSTATUS(status) == S2C_EXIT_INCOMPLETE;
	return 0;
}
