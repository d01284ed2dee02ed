/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Signals end a run cleanly (see interrupt.h): a handler that records, a
 * thread that removes what is registered and ends the process by the signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
#include "privs.h"
#include "rmtree.h"
#include "util.h"
#include "common.h"

/* Deeper than anything a stage makes (pkg/stage.c: 256). */
#define TREE_DEPTH_MAX 300
/* A tree that workers still write into is emptied again until its directory can go. */
#define TREE_ATTEMPTS 100

static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };

struct entry {
	int handle;
	int dirfd;
	char *name;
	bool tree;
};

/* The one process-wide state of cli/: what to remove, the holds, the wake-up pipe. */
static struct {
	pthread_mutex_t lock;
	struct entry *v;
	size_t n, alloc;
	int last_handle;
	unsigned holds;
	int wake[2];
	pid_t owner;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = { -1, -1 } };

/* The first signal that came; written by the handler. */
static int received;

/* Whether standard output is a pipe or socket whose reader went away. */
static bool stdout_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

static void on_signal(int sig)
{
	int saved = errno, none = 0;
	unsigned char b = (unsigned char)sig;

	if (getpid() != st.owner) {
		/* A forked child that did not exec: the default action, as if nothing were here. */
		(void)signal(sig, SIG_DFL);
		(void)raise(sig);
		errno = saved;
		return;
	}
	/* Another broken pipe (-o into a FIFO whose reader left) is a write that fails. */
	if (sig == SIGPIPE && !stdout_gone()) {
		errno = saved;
		return;
	}
	(void)__atomic_compare_exchange_n(&received, &none, sig, false, __ATOMIC_SEQ_CST,
					  __ATOMIC_SEQ_CST);
	(void)!write(st.wake[1], &b, 1);
	/* Nobody reads what this thread writes: let it wait for the end, as the default
	 * action would have ended it; under a hold the write fails and the verb stops. */
	if (sig == SIGPIPE && !__atomic_load_n(&st.holds, __ATOMIC_SEQ_CST))
		for (;;)
			pause();
	errno = saved;
}

static void remove_entry(const struct entry *e)
{
	struct stat sb;

	for (int i = 0; i < TREE_ATTEMPTS; i++) {
		if (e->tree)
			(void)rmtree_at(e->dirfd, e->name, TREE_DEPTH_MAX);
		else
			(void)unlinkat(e->dirfd, e->name, 0);
		if (!e->tree || (fstatat(e->dirfd, e->name, &sb, AT_SYMLINK_NOFOLLOW) < 0 &&
				 errno == ENOENT))
			return;
	}
}

/* With st.lock held: remove everything registered and end the process by @sig. */
static _Noreturn void end_run(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set;

	for (size_t i = 0; i < st.n; i++)
		remove_entry(&st.v[i]);
	(void)sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	(void)pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	(void)kill(getpid(), sig);
	for (;;)
		pause();
}

static void *watch(void *arg)
{
	unsigned char b;

	/* Capabilities are per thread: this one needs none (it removes what the run made), and
	 * must not keep what the verb's own threads give up.  interrupt_init() waits for it. */
	(void)privs_restrict(0, 0, "for the signal thread");
	(void)pthread_barrier_wait(arg);
	for (;;) {
		ssize_t n = read(st.wake[0], &b, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1)
			return NULL;
		pthread_mutex_lock(&st.lock);
		if (st.holds == 0)
			end_run(__atomic_load_n(&received, __ATOMIC_SEQ_CST));
		pthread_mutex_unlock(&st.lock);
	}
}

/* The pipe, the watching thread and the handlers.  Returns 0 or -errno. */
static int start(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	static pthread_barrier_t started;
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t tid;
	int r;

	st.owner = getpid();
	if (pipe2(st.wake, O_CLOEXEC) < 0)
		return -errno;
	/* The handler must never block on a full pipe; one byte is enough to wake. */
	if (fcntl(st.wake[1], F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	if (pthread_attr_init(&attr) != 0 || pthread_barrier_init(&started, NULL, 2) != 0)
		return -ENOMEM;
	(void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	(void)pthread_attr_setstacksize(&attr, 256u << 10);
	/* Born with every signal blocked, and so it stays: a signal for the process (SIGCHLD
	 * that learn reads through a signalfd) must go to the threads that expect it. */
	sigfillset(&all);
	(void)pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&tid, &attr, watch, &started);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	(void)pthread_attr_destroy(&attr);
	if (r < 0)
		return r;
	/* Not a moment with a thread of ours holding more than the verb will. */
	(void)pthread_barrier_wait(&started);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < S2C_ELEMENTSOF(caught); i++)
		if (sigaction(caught[i], &sa, NULL) < 0)
			return -errno;
	return 0;
}

void interrupt_init(void)
{
	if (start() < 0)
		log_warning("cannot catch signals: an interrupted run may leave temporary files");
}

void interrupt_hold(void)
{
	pthread_mutex_lock(&st.lock);
	__atomic_add_fetch(&st.holds, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&st.lock);
}

void interrupt_release(void)
{
	int sig;

	pthread_mutex_lock(&st.lock);
	sig = __atomic_load_n(&received, __ATOMIC_SEQ_CST);
	if (st.holds > 0 && __atomic_sub_fetch(&st.holds, 1, __ATOMIC_SEQ_CST) == 0 && sig)
		end_run(sig);
	pthread_mutex_unlock(&st.lock);
}

int interrupt_requested(void)
{
	return __atomic_load_n(&received, __ATOMIC_SEQ_CST);
}

bool interrupt_stop(void)
{
	return interrupt_requested() != 0;
}

/* Returns a handle > 0, or -errno. */
static int add(int dirfd, const char *name, bool tree)
{
	struct entry e = { .dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3), .name = strdup(name),
			   .tree = tree };
	int r = 0;

	if (e.dirfd < 0 || !e.name) {
		r = e.dirfd < 0 ? -errno : -ENOMEM;
		if (e.dirfd >= 0)
			(void)close(e.dirfd);
		free(e.name);
		return r;
	}
	pthread_mutex_lock(&st.lock);
	if (S2C_ARRAY_RESERVE(st.v, st.alloc, st.n + 1, 8) == 0) {
		e.handle = ++st.last_handle;
		st.v[st.n++] = e;
		r = e.handle;
	} else {
		r = -ENOMEM;
	}
	pthread_mutex_unlock(&st.lock);
	if (r < 0) {
		(void)close(e.dirfd);
		free(e.name);
	}
	return r;
}

int interrupt_register(int dirfd, const char *name, bool tree, int *ret_handle)
{
	int r = add(dirfd, name, tree);

	if (r < 0) {
		log_error("cannot keep '%s' for removal on a signal: %s", name, strerror(-r));
		return S2C_EXIT_FAILURE;
	}
	*ret_handle = r;
	return S2C_EXIT_OK;
}

void interrupt_forget(int handle)
{
	if (handle <= 0)
		return;
	pthread_mutex_lock(&st.lock);
	for (size_t i = 0; i < st.n; i++)
		if (st.v[i].handle == handle) {
			(void)close(st.v[i].dirfd);
			free(st.v[i].name);
			st.v[i] = st.v[--st.n];
			break;
		}
	pthread_mutex_unlock(&st.lock);
}

void interrupt_exit(void)
{
	int sig = interrupt_requested();

	if (!sig)
		return;
	pthread_mutex_lock(&st.lock);
	end_run(sig);
}
