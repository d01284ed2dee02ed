/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf.h"
#include "ptrace.h"
#include "run.h"
#include "util.h"
#include "common.h"

/** Where the set-up of the run failed, reported by the child. */
enum stage {
	STAGE_FORK,
	STAGE_SESSION,
	STAGE_FDS,
	STAGE_BOUNDING,
	STAGE_KEEPCAPS,
	STAGE_GROUPS,
	STAGE_GID,
	STAGE_UID,
	STAGE_CAPS,
	STAGE_AMBIENT,
	STAGE_NNP,
	STAGE_VERIFY,
	STAGE_EXEC,
	_STAGE_MAX,
};

static const char *const stage_what[_STAGE_MAX] = {
	[STAGE_FORK] = "cannot start the command's process",
	[STAGE_SESSION] = "cannot give the command a session of its own",
	[STAGE_FDS] = "cannot set up the command's standard streams",
	[STAGE_BOUNDING] = "cannot reduce the bounding set to the candidate capabilities",
	[STAGE_KEEPCAPS] = "cannot keep capabilities across the change of user",
	[STAGE_GROUPS] = "cannot set the user's groups",
	[STAGE_GID] = "cannot switch to the user's group",
	[STAGE_UID] = "cannot switch to the user",
	[STAGE_CAPS] = "cannot set the candidate capabilities",
	[STAGE_AMBIENT] = "cannot raise the candidate capabilities into the ambient set",
	[STAGE_NNP] = "cannot set no_new_privs",
	[STAGE_VERIFY] = "the command's credentials are not what they must be",
	[STAGE_EXEC] = "cannot execute the command",
};

struct report {
	int stage;
	int err;
};

static long now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static _Noreturn void fail(int fd, enum stage stage, int err)
{
	struct report r = { stage, err };

	(void)!write(fd, &r, sizeof(r));
	_exit(127);
}

/* --- the command's process --------------------------------------------------------------- */

static int set_caps(uint64_t caps)
{
	cap_t c = cap_init();
	int r = c ? 0 : -ENOMEM;

	for (cap_value_t v = 0; r == 0 && v < 64; v++) {
		if (!(caps & S2C_CAPMASK(v)))
			continue;
		if (cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_SET) < 0 ||
		    cap_set_flag(c, CAP_INHERITABLE, 1, &v, CAP_SET) < 0 ||
		    cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET) < 0)
			r = -errno;
	}
	if (r == 0 && cap_set_proc(c) < 0)
		r = -errno;
	if (c)
		(void)cap_free(c);
	return r;
}

/* Exactly @caps in every set, the ids of the user, and no_new_privs. */
static bool verify(const struct learn_spec *s)
{
	cap_t c = cap_get_proc();
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	bool ok = c != NULL;

	for (cap_value_t v = 0; ok && v < (cap_value_t)cap_max_bits(); v++) {
		cap_flag_value_t p, i, e;
		bool want = s->caps & S2C_CAPMASK(v);

		ok = cap_get_flag(c, v, CAP_PERMITTED, &p) == 0 &&
		     cap_get_flag(c, v, CAP_INHERITABLE, &i) == 0 &&
		     cap_get_flag(c, v, CAP_EFFECTIVE, &e) == 0 && (p == CAP_SET) == want &&
		     (i == CAP_SET) == want && (e == CAP_SET) == want &&
		     (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, v, 0, 0) == 1) == want &&
		     (prctl(PR_CAPBSET_READ, v, 0, 0, 0) == 1) == want;
	}
	if (c)
		(void)cap_free(c);
	return ok && getresuid(&ru, &eu, &su) == 0 && ru == s->uid && eu == s->uid && su == s->uid &&
	       getresgid(&rg, &eg, &sg) == 0 && rg == s->gid && eg == s->gid && sg == s->gid &&
	       prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
}

/* Every descriptor above stderr closes at exec (close_range(2) where the kernel has it). */
static int cloexec_from_3(void)
{
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	for (int fd = 3; fd < 65536; fd++)
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 && errno != EBADF)
			return -errno;
	return 0;
}

static _Noreturn void command(const struct learn_spec *s, int errfd, const sigset_t *mask)
{
	if (sigprocmask(SIG_SETMASK, mask, NULL) < 0 || setsid() < 0)
		fail(errfd, STAGE_SESSION, errno);
	if (dup2(s->stdin_fd, STDIN_FILENO) < 0 || dup2(s->output_fd, STDOUT_FILENO) < 0 ||
	    dup2(s->output_fd, STDERR_FILENO) < 0 ||
	    cloexec_from_3() < 0 ||
	    (s->script && fcntl(s->exe_fd, F_SETFD, 0) < 0))
		fail(errfd, STAGE_FDS, errno);
	for (cap_value_t v = 0; v < (cap_value_t)cap_max_bits(); v++)
		if (!(s->caps & S2C_CAPMASK(v)) && prctl(PR_CAPBSET_DROP, v, 0, 0, 0) < 0)
			fail(errfd, STAGE_BOUNDING, errno);
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		fail(errfd, STAGE_KEEPCAPS, errno);
	if (setgroups(s->n_groups, s->groups) < 0)
		fail(errfd, STAGE_GROUPS, errno);
	if (setresgid(s->gid, s->gid, s->gid) < 0)
		fail(errfd, STAGE_GID, errno);
	if (setresuid(s->uid, s->uid, s->uid) < 0)
		fail(errfd, STAGE_UID, errno);
	if (set_caps(s->caps) < 0)
		fail(errfd, STAGE_CAPS, errno);
	for (cap_value_t v = 0; v < 64; v++)
		if ((s->caps & S2C_CAPMASK(v)) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, v, 0, 0) < 0)
			fail(errfd, STAGE_AMBIENT, errno);
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail(errfd, STAGE_NNP, errno);
	if (!verify(s))
		fail(errfd, STAGE_VERIFY, EPERM);
	(void)syscall(SYS_execveat, s->exe_fd, "", s->argv, s->envp, AT_EMPTY_PATH);
	fail(errfd, STAGE_EXEC, errno);
}

/* --- the run's init -------------------------------------------------------------------------- */

/*
 * The last pid the run's PID namespace handed out (ns_last_pid answers for
 * the reader's namespace), to @fd: every task of the run took one, so the
 * tracer can tell whether it followed them all.
 */
static void report_allocated(int fd)
{
	char buf[32] = { 0 };
	_cleanup_close_ int f = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
	uint64_t last;

	if (f < 0 || read(f, buf, sizeof(buf) - 1) <= 0)
		return;
	buf[strcspn(buf, "\n")] = '\0';
	if (parse_u64(buf, 10, UINT32_MAX, &last) < 0)
		return;
	(void)!write(fd, &last, sizeof(last));
}

/*
 * Pid 1 of the run's namespace: start the command when told, reap whatever
 * ends, report the command's wait status, and exit when told (or when
 * suid2cap is gone): the kernel then kills the rest of the namespace.
 */
static _Noreturn void init(const struct learn_spec *s, int pipes[3][2], const sigset_t *mask)
{
	int go = pipes[0][0], errfd = pipes[1][1], statfd = pipes[2][1];
	int status = 0;
	char b;
	pid_t cmd;

	/* Only suid2cap writes the go pipe and reads the others: their end of file matters. */
	(void)close(pipes[0][1]);
	(void)close(pipes[1][0]);
	(void)close(pipes[2][0]);
	/*
	 * Die with suid2cap.  Its death before this point is seen too: the go
	 * pipe then reads end-of-file.  (getppid() is 0 here: the parent lives
	 * outside this namespace.)
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		_exit(126);
	if (read(go, &b, 1) != 1)
		_exit(126);
	cmd = fork();
	if (cmd < 0)
		fail(errfd, STAGE_FORK, errno);
	if (cmd == 0)
		command(s, errfd, mask);
	(void)close(errfd);
	/* Nothing here needs privilege any more. */
	(void)set_caps(0);
	(void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	for (;;) {
		pid_t pid = waitpid(-1, &status, 0);
		if (pid == cmd)
			break;
		if (pid < 0 && errno != EINTR)
			_exit(126);
	}
	if (write(statfd, &status, sizeof(status)) != sizeof(status))
		_exit(126);
	(void)!read(go, &b, 1);
	report_allocated(statfd);
	_exit(0);
}

/* --- the observer ------------------------------------------------------------------------------ */

struct run {
	const struct learn_spec *s;
	struct learn_record *rec;
	struct ptracer *tracer;
	pid_t init;
	int sfd, go, errp, statp;
	int nsfd;                     /**< the run's PID namespace, held until it is counted */
	bool init_done, have_status, killed;
	long grace;                   /**< after the command's end: when to stop waiting for the init */
	int status;
	struct report report;
	bool have_report;
	uint64_t running_at_end;
	uint64_t allocated;           /**< the namespace's last pid, from the init; 0: unknown */
};

static uint64_t running(const struct run *r)
{
	return r->tracer ? ptracer_running(r->tracer) : learn_bpf_running(r->s->bpf);
}

static int reap(struct run *r)
{
	struct signalfd_siginfo si;
	int status, ret = 0;
	pid_t pid;

	while (read(r->sfd, &si, sizeof(si)) == sizeof(si))
		;
	while ((pid = waitpid(r->tracer ? -1 : r->init, &status, WNOHANG | __WALL)) > 0) {
		if (pid == r->init && (WIFEXITED(status) || WIFSIGNALED(status)))
			r->init_done = true;
		if (r->tracer && ret == 0)
			ret = ptracer_event(r->tracer, pid, status);
	}
	return ret;
}

static void end_run(struct run *r)
{
	if (!r->killed) {
		if (!r->have_status)
			r->running_at_end = running(r);
		(void)kill(r->init, SIGKILL);
		r->killed = true;
	}
}

/* The init's report of the last pid of the run's namespace, then the end of its pipe. */
static void read_allocated(struct run *r)
{
	uint64_t last;

	if (r->statp < 0)
		return;
	if (read(r->statp, &last, sizeof(last)) == sizeof(last))
		r->allocated = last;
	(void)close(r->statp);
	r->statp = -1;
}

static void read_pipes(struct run *r, const struct pollfd *p)
{
	if (p[1].revents) {
		ssize_t n = read(r->errp, &r->report, sizeof(r->report));
		if (n == sizeof(r->report) && r->report.stage >= 0 && r->report.stage < _STAGE_MAX)
			r->have_report = true;
		if (n <= 0 || r->have_report) {
			(void)close(r->errp);
			r->errp = -1;
		}
	}
	if (p[2].revents && !r->have_status) {
		ssize_t n = read(r->statp, &r->status, sizeof(r->status));
		if (n == sizeof(r->status)) {
			r->have_status = true;
			r->grace = now_ms() + 5000;
			/* The command is done; whatever it left running dies with the init. */
			r->running_at_end = running(r);
			(void)close(r->go);
			r->go = -1;
			return;         /* the init's last word, its namespace's last pid, follows */
		}
		(void)close(r->statp);
		r->statp = -1;
	} else if (p[2].revents) {
		read_allocated(r);
	}
}

static int observe(struct run *r, long deadline)
{
	int ret = 0;

	while (!r->init_done) {
		struct pollfd p[3] = {
			{ .fd = r->sfd, .events = POLLIN },
			{ .fd = r->errp, .events = POLLIN },
			{ .fd = r->statp, .events = POLLIN },
		};
		int wait = 1000, k;

		if (!r->killed) {
			long left = (r->have_status ? r->grace : deadline) - now_ms();
			if (left <= 0) {
				/* After the command's end the init only has to exit: make it. */
				r->rec->timed_out = !r->have_status;
				end_run(r);
				continue;
			}
			wait = (int)S2C_MIN(left, 1000L);
		}
		k = poll(p, S2C_ELEMENTSOF(p), wait);
		if (k < 0 && errno != EINTR) {
			ret = -errno;
			end_run(r);
		}
		if (k > 0)
			read_pipes(r, p);
		if (reap(r) < 0 && ret == 0) {
			ret = -ENOMEM;
			end_run(r);
		}
	}
	return ret;
}

/* Start the init in a new PID namespace; our own namespace for children is restored. */
static int spawn(struct run *r, int pipes[3][2], const sigset_t *mask, struct s2c_error *err)
{
	_cleanup_close_ int own = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);

	if (own < 0)
		return s2c_error_errno(err, -errno, "cannot open '/proc/self/ns/pid'");
	if (unshare(CLONE_NEWPID) < 0)
		return s2c_error_errno(err, -errno, "cannot make a PID namespace for the run");
	r->init = fork();
	if (r->init == 0)
		init(r->s, pipes, mask);
	if (setns(own, CLONE_NEWPID) < 0 && r->init > 0) {
		int e = -errno;
		(void)kill(r->init, SIGKILL);
		(void)waitpid(r->init, NULL, 0);
		return s2c_error_errno(err, e, "cannot return to our own PID namespace");
	}
	if (r->init < 0)
		return s2c_error_errno(err, -errno, "cannot start the run");
	return 0;
}

static int arm(struct run *r, struct s2c_error *err)
{
	char path[64];
	struct stat st;
	int e;

	if (r->s->mechanism == LEARN_PTRACE) {
		e = ptracer_new(r->rec, &r->tracer);
		if (e == 0)
			e = ptracer_seize(r->tracer, r->init);
		return e < 0 ? s2c_error_errno(err, e, "cannot trace the run") : 0;
	}
	/*
	 * The namespace is known to the BPF program by its inode number, which
	 * the kernel hands to the next namespace made once this one is gone:
	 * the fd keeps it alive until the counts are read, so no later run,
	 * another suid2cap's included, can be counted as this one.
	 */
	(void)snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)r->init);
	r->nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->nsfd < 0 || fstat(r->nsfd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot read the PID namespace of the run");
	learn_bpf_target(r->s->bpf, st.st_dev, st.st_ino);
	return 0;
}

static void close_fds(struct run *r)
{
	int *fds[] = { &r->sfd, &r->go, &r->errp, &r->statp, &r->nsfd };

	for (size_t i = 0; i < S2C_ELEMENTSOF(fds); i++)
		if (*fds[i] >= 0) {
			(void)close(*fds[i]);
			*fds[i] = -1;
		}
}

static void outcome(struct run *r, long elapsed)
{
	struct learn_record *rec = r->rec;

	rec->elapsed_ms = (uint64_t)S2C_MAX(elapsed, 0L);
	rec->processes = r->tracer ? ptracer_started(r->tracer) : learn_bpf_started(r->s->bpf);
	rec->untraced = r->tracer ? ptracer_untraced(r->tracer, r->allocated) : 0;
	rec->killed = r->running_at_end;
	if (rec->timed_out || !r->have_status) {
		rec->exit_code = -1;
		rec->signal = SIGKILL;
	} else if (WIFSIGNALED(r->status)) {
		rec->exit_code = -1;
		rec->signal = WTERMSIG(r->status);
	} else {
		rec->exit_code = WEXITSTATUS(r->status);
		rec->signal = 0;
	}
}

int learn_run(const struct learn_spec *s, struct learn_record *rec, struct s2c_error *err)
{
	struct run r = { .s = s, .rec = rec, .init = -1, .sfd = -1, .go = -1, .errp = -1, .statp = -1,
			.nsfd = -1 };
	int pipes[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old_act;
	sigset_t chld, old_mask;
	long start = 0;
	int e = 0;

	rec->timeout = s->timeout;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, &old_mask) < 0)
		return s2c_error_errno(err, -errno, "cannot block SIGCHLD");
	(void)sigaction(SIGCHLD, &dfl, &old_act);
	r.sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r.sfd < 0)
		e = s2c_error_errno(err, -errno, "cannot watch the run");
	for (size_t i = 0; e == 0 && i < 3; i++)
		if (pipe2(pipes[i], O_CLOEXEC) < 0)
			e = s2c_error_errno(err, -errno, "cannot make a pipe");
	if (e == 0)
		e = spawn(&r, pipes, &old_mask, err);
	/* Our ends: go (write), errors (read), status (read). */
	r.go = TAKE_FD(pipes[0][1]);
	r.errp = TAKE_FD(pipes[1][0]);
	r.statp = TAKE_FD(pipes[2][0]);
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 2; j++)
			if (pipes[i][j] >= 0)
				(void)close(pipes[i][j]);
	if (e == 0)
		e = arm(&r, err);
	if (e == 0 && write(r.go, "g", 1) != 1)
		e = s2c_error_errno(err, -errno, "cannot start the run");
	if (e < 0 && r.init > 0)
		end_run(&r);
	start = now_ms();
	if (r.init > 0) {
		int o = observe(&r, start + (long)s->timeout * 1000);
		if (e == 0 && o < 0)
			e = s2c_error_errno(err, o, "cannot follow the run");
	}
	if (r.have_status)
		read_allocated(&r);
	outcome(&r, now_ms() - start);
	/* A report written just before the init ended. */
	if (r.errp >= 0 && !r.have_report &&
	    read(r.errp, &r.report, sizeof(r.report)) == sizeof(r.report) &&
	    r.report.stage >= 0 && r.report.stage < _STAGE_MAX)
		r.have_report = true;
	if (e == 0 && r.have_report)
		e = s2c_error_errno(err, -(r.report.err ? r.report.err : EIO), "%s",
				    stage_what[r.report.stage]);
	if (e == 0 && !r.have_status && !rec->timed_out)
		e = s2c_error_set(err, -EIO, "the run ended before the command did");
	if (e == 0 && s->mechanism == LEARN_BPF)
		e = learn_bpf_collect(s->bpf, rec, err);
	ptracer_free(r.tracer);
	close_fds(&r);
	(void)sigaction(SIGCHLD, &old_act, NULL);
	(void)sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return e;
}
