/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "smoke.h"
#include "common.h"

static long now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* In the child: become the user and execute the file; never returns. */
static void child(int fd, int out, char *const *argv, uid_t uid, gid_t gid)
{
	static char path_env[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
	static char lang_env[] = "LC_ALL=C";
	char *const envp[] = { path_env, lang_env, NULL };
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(out, STDERR_FILENO) < 0)
		_exit(126);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		_exit(126);
	/* Paranoia: the change of uid must have dropped every capability. */
	if (geteuid() != uid || getuid() != uid)
		_exit(126);
	(void)syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
	_exit(127);
}

int smoke_run(int fd, const char *display_path, char *const *argv_t, size_t argc, uid_t uid,
	      gid_t gid, unsigned timeout, char **ret_output)
{
	char *argv[64];
	char out[SMOKE_OUTPUT_MAX + 1];
	size_t n = 0, got = 0;
	int pipefd[2], status = 0;
	long deadline;
	bool eof = false, timed_out = false;
	pid_t pid;

	if (argc == 0 || argc >= S2C_ELEMENTSOF(argv))
		return -E2BIG;
	for (; n < argc; n++)
		argv[n] = s2c_streq(argv_t[n], "{}") ? (char *)(uintptr_t)display_path : argv_t[n];
	argv[n] = NULL;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = -errno;
		(void)close(pipefd[0]);
		(void)close(pipefd[1]);
		return e;
	}
	if (pid == 0)
		child(fd, pipefd[1], argv, uid, gid);
	(void)close(pipefd[1]);
	deadline = now_ms() + (long)timeout * 1000;
	while (!eof) {
		struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
		long left = deadline - now_ms();
		int r;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		r = poll(&p, 1, (int)S2C_MIN(left, 1000L));
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0) {
			char buf[512];
			ssize_t k = read(pipefd[0], buf, sizeof(buf));
			if (k <= 0) {
				eof = true;
			} else if (got < SMOKE_OUTPUT_MAX) {
				size_t take = S2C_MIN((size_t)k, SMOKE_OUTPUT_MAX - got);
				memcpy(out + got, buf, take);
				got += take;
			}
		}
	}
	(void)close(pipefd[0]);
	if (timed_out)
		(void)kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	out[got] = '\0';
	if (ret_output)
		*ret_output = strdup(out);
	if (timed_out)
		return -ETIMEDOUT;
	if (WIFSIGNALED(status))
		return -EINTR;
	return WEXITSTATUS(status);
}
