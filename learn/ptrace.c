/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <linux/audit.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "observed.h"
#include "ptrace.h"
#include "sysmap.h"
#include "common.h"

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#define NATIVE_ARCH 0
#endif

/** One traced thread. */
struct tracee {
	pid_t pid;
	bool process;             /**< a thread-group leader: counts as a process */
	bool in_call;             /**< between a syscall's entry and exit stops */
	bool got_child;           /**< a fork, vfork or clone event came during that syscall */
	struct sysmap_call call;  /**< the syscall in progress, as seen at its entry */
};

struct ptracer {
	struct learn_record *rec;
	pid_t init;               /**< the run's init: followed, never stopped at syscalls */
	bool armed;               /**< the command has been executed */
	uint64_t started;
	uint64_t tasks;           /**< every thread ever followed, the init's included */
	uint64_t untraced;        /**< tasks started that ptrace did not follow */
	uint64_t refused;         /**< forks and clones that failed (each may have taken a pid) */
	struct tracee *v;
	size_t n, cap;
};

int ptracer_new(struct learn_record *rec, struct ptracer **ret)
{
	struct ptracer *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->rec = rec;
	*ret = t;
	return 0;
}

struct ptracer *ptracer_free(struct ptracer *t)
{
	if (t) {
		free(t->v);
		free(t);
	}
	return NULL;
}

static struct tracee *find(struct ptracer *t, pid_t pid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].pid == pid)
			return &t->v[i];
	return NULL;
}

/* Whether @pid leads its thread group (from /proc/PID/status). */
static bool leads(pid_t pid)
{
	char path[64], line[128];
	_cleanup_fclose_ FILE *f = NULL;

	(void)snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "Tgid:", 5) == 0)
			return strtol(line + 5, NULL, 10) == pid;
	return true;
}

static struct tracee *add(struct ptracer *t, pid_t pid, bool process)
{
	struct tracee *e = find(t, pid);

	if (e)
		return e;
	if (t->n == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 64;
		struct tracee *nv = realloc(t->v, nc * sizeof(*nv));
		if (!nv)
			return NULL;
		t->v = nv;
		t->cap = nc;
	}
	e = &t->v[t->n++];
	*e = (struct tracee){ .pid = pid, .process = process };
	t->tasks++;
	if (process && pid != t->init)
		t->started++;
	return e;
}

/*
 * @pid ended.  One never seen before (killed before its first stop) still
 * counts as followed.  One that ended inside a fork or clone, before its
 * syscall-exit stop, may have started a child: with CLONE_UNTRACED one
 * nobody follows, else one whose event never came (it may have taken a pid).
 */
static void drop(struct ptracer *t, pid_t pid)
{
	struct tracee *e = find(t, pid);

	if (!e) {
		t->tasks++;
		return;
	}
	if (e->in_call && e->call.spawns && !e->got_child) {
		if (e->call.clone_flags & CLONE_UNTRACED)
			t->untraced++;
		else
			t->refused++;
	}
	*e = t->v[--t->n];
}

int ptracer_seize(struct ptracer *t, pid_t pid)
{
	const long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			  PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;

	t->init = pid;
	if (!add(t, pid, true))
		return -ENOMEM;
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)opts) < 0)
		return -errno;
	return 0;
}

uint64_t ptracer_started(const struct ptracer *t)
{
	return t->started;
}

uint64_t ptracer_untraced(const struct ptracer *t, uint64_t allocated)
{
	uint64_t known = t->tasks + t->refused;
	uint64_t beyond = allocated > known ? allocated - known : 0;

	return S2C_MAX(t->untraced, beyond);
}

uint64_t ptracer_running(const struct ptracer *t)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].process && t->v[i].pid != t->init;
	return n;
}

/* Resume @pid, stopping at its syscalls once the command runs. */
static void resume(struct ptracer *t, pid_t pid, int sig)
{
	enum __ptrace_request how = t->armed && pid != t->init ? PTRACE_SYSCALL : PTRACE_CONT;

	/* ESRCH: it was killed meanwhile; its exit is reported next. */
	(void)ptrace(how, pid, NULL, (void *)(uintptr_t)sig);
}

static int syscall_stop(struct ptracer *t, struct tracee *e)
{
	struct __ptrace_syscall_info info;
	uint64_t args[6];

	if (ptrace(PTRACE_GET_SYSCALL_INFO, e->pid, (void *)sizeof(info), &info) <= 0)
		return 0;
	if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
		e->in_call = info.arch == NATIVE_ARCH;
		e->got_child = false;
		if (e->in_call) {
			memcpy(args, info.entry.args, sizeof(args));
			sysmap_enter(e->pid, (long)info.entry.nr, args, &e->call);
		}
		return 0;
	}
	if (info.op != PTRACE_SYSCALL_INFO_EXIT || !e->in_call)
		return 0;
	e->in_call = false;
	/* A child started (its pid returned) with no event: CLONE_UNTRACED, or lost to us. */
	if (e->call.spawns && !info.exit.is_error && info.exit.rval > 0 && !e->got_child)
		t->untraced++;
	t->refused += e->call.spawns && info.exit.is_error;
	return sysmap_exit(&e->call, info.exit.rval, info.exit.is_error, t->rec);
}

int ptracer_event(struct ptracer *t, pid_t pid, int status)
{
	struct tracee *e;
	unsigned long msg = 0;
	int event, sig, r = 0;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		drop(t, pid);
		return 0;
	}
	if (!WIFSTOPPED(status))
		return 0;
	/* A new tracee may report before its parent's fork event. */
	e = find(t, pid);
	if (!e && !(e = add(t, pid, leads(pid))))
		return -ENOMEM;
	sig = WSTOPSIG(status);
	event = (unsigned)status >> 16;
	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		e->got_child = true;
		if (ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg) == 0 &&
		    !add(t, (pid_t)msg, event != PTRACE_EVENT_CLONE || leads((pid_t)msg)))
			r = -ENOMEM;
		resume(t, pid, 0);
		return r;
	case PTRACE_EVENT_EXEC:
		if (pid != t->init)
			t->armed = true;
		e->in_call = false;
		resume(t, pid, 0);
		return 0;
	case PTRACE_EVENT_STOP:
	case PTRACE_EVENT_EXIT:
		resume(t, pid, 0);
		return 0;
	default:
		break;
	}
	if (sig == (SIGTRAP | 0x80)) {
		r = syscall_stop(t, e);
		resume(t, pid, 0);
		return r;
	}
	/* A signal on its way to the tracee: deliver it. */
	resume(t, pid, sig);
	return 0;
}
