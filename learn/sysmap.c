/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "observed.h"
#include "sysmap.h"
#include "sysnames.h"
#include "common.h"

#define M(c) S2C_CAPMASK(c)
#define PAGE 4096ULL
#define UNLIMITED UINT64_MAX

/* --- the tracee ------------------------------------------------------------------------ */

/* Read @len bytes at @addr of the stopped tracee @pid. */
static int peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	unsigned char *out = buf;

	for (size_t done = 0; done < len;) {
		size_t take = S2C_MIN(sizeof(long), len - done);
		long word;

		errno = 0;
		word = ptrace(PTRACE_PEEKDATA, pid, (void *)(uintptr_t)(addr + done), NULL);
		if (errno)
			return -errno;
		memcpy(out + done, &word, take);
		done += take;
	}
	return 0;
}

/* The first line of /proc/@pid/@file starting with @prefix, into @buf. */
static int proc_line(pid_t pid, const char *file, const char *prefix, char *buf, size_t size)
{
	char path[64];
	_cleanup_fclose_ FILE *f = NULL;
	size_t plen = strlen(prefix);

	(void)snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(buf, (int)size, f))
		if (strncmp(buf, prefix, plen) == 0)
			return 0;
	return -ENOENT;
}

static uint64_t parse_limit(const char *s)
{
	return strncmp(s, "unlimited", 9) == 0 ? UNLIMITED : strtoull(s, NULL, 10);
}

/* Soft and hard limit of resource @res of @pid, from /proc/PID/limits. */
static int proc_limit(pid_t pid, int res, uint64_t *ret_soft, uint64_t *ret_hard)
{
	static const char *const names[] = {
		[RLIMIT_CPU] = "Max cpu time", [RLIMIT_FSIZE] = "Max file size",
		[RLIMIT_DATA] = "Max data size", [RLIMIT_STACK] = "Max stack size",
		[RLIMIT_CORE] = "Max core file size", [RLIMIT_RSS] = "Max resident set",
		[RLIMIT_NPROC] = "Max processes", [RLIMIT_NOFILE] = "Max open files",
		[RLIMIT_MEMLOCK] = "Max locked memory", [RLIMIT_AS] = "Max address space",
		[RLIMIT_LOCKS] = "Max file locks", [RLIMIT_SIGPENDING] = "Max pending signals",
		[RLIMIT_MSGQUEUE] = "Max msgqueue size", [RLIMIT_NICE] = "Max nice priority",
		[RLIMIT_RTPRIO] = "Max realtime priority", [RLIMIT_RTTIME] = "Max realtime timeout",
	};
	char line[256], soft[32], hard[32];
	int r;

	if (res < 0 || (size_t)res >= S2C_ELEMENTSOF(names) || !names[res])
		return -EINVAL;
	r = proc_line(pid, "limits", names[res], line, sizeof(line));
	if (r < 0)
		return r;
	if (strlen(line) < 26 || sscanf(line + 26, "%31s %31s", soft, hard) != 2)
		return -EINVAL;
	*ret_soft = parse_limit(soft);
	*ret_hard = parse_limit(hard);
	return 0;
}

/* "VmLck:" and similar, in bytes. */
static int proc_kb(pid_t pid, const char *key, uint64_t *ret)
{
	char line[128];
	int r = proc_line(pid, "status", key, line, sizeof(line));

	if (r < 0)
		return r;
	*ret = strtoull(line + strlen(key), NULL, 10) * 1024;
	return 0;
}

/* Real, effective and saved uids ("Uid:") or gids ("Gid:"). */
static int proc_ids(pid_t pid, const char *key, uint32_t ids[3])
{
	char line[128];
	unsigned long a, b, c;
	int r = proc_line(pid, "status", key, line, sizeof(line));

	if (r < 0)
		return r;
	if (sscanf(line + strlen(key), "%lu %lu %lu", &a, &b, &c) != 3)
		return -EINVAL;
	ids[0] = (uint32_t)a;
	ids[1] = (uint32_t)b;
	ids[2] = (uint32_t)c;
	return 0;
}

/* The nice value, field 19 of /proc/PID/stat. */
static int proc_nice(pid_t pid, long *ret)
{
	char path[64], buf[1024], *p;
	_cleanup_close_ int fd = -1;
	ssize_t n;

	(void)snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	/* After "comm)": state is field 3, nice field 19. */
	for (int field = 3; field < 19; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EINVAL;
	}
	*ret = strtol(p + 1, NULL, 10);
	return 0;
}

static uint64_t read_u64_file(const char *path, uint64_t fallback)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	unsigned long long v;

	return f && fscanf(f, "%llu", &v) == 1 ? v : fallback;
}

/* --- the rules ------------------------------------------------------------------------ */

static void need(struct sysmap_call *c, uint64_t caps, unsigned refusals)
{
	c->needs |= caps;
	c->explains |= caps;
	c->refusals |= refusals;
}

/* A refusal points at @caps, but success says nothing. */
static void explain(struct sysmap_call *c, uint64_t caps, unsigned refusals)
{
	c->explains |= caps;
	c->refusals |= refusals;
}

static void sock_socket(const uint64_t *a, struct sysmap_call *c)
{
	int domain = (int)a[0], type = (int)a[1] & 0xf;

	if (domain == AF_PACKET || ((domain == AF_INET || domain == AF_INET6) && type == SOCK_RAW))
		need(c, M(CAP_NET_RAW), SYSMAP_EPERM);
}

static void sock_bind(pid_t pid, const uint64_t *a, struct sysmap_call *c)
{
	unsigned char sa[4];
	uint16_t family, port;
	uint64_t start;

	if (a[2] < sizeof(sa) || peek(pid, a[1], sa, sizeof(sa)) < 0)
		return;
	memcpy(&family, sa, 2);
	port = (uint16_t)(sa[2] << 8 | sa[3]);
	if (family != AF_INET && family != AF_INET6)
		return;
	start = read_u64_file("/proc/sys/net/ipv4/ip_unprivileged_port_start", 1024);
	if (port != 0 && port < start)
		need(c, M(CAP_NET_BIND_SERVICE), SYSMAP_EACCES);
}

static void sock_setsockopt(pid_t pid, const uint64_t *a, struct sysmap_call *c)
{
	int level = (int)a[1], opt = (int)a[2];

	if (level == SOL_SOCKET) {
		int v = 0;
		switch (opt) {
		case SO_DEBUG:
		case SO_MARK:
		case SO_SNDBUFFORCE:
		case SO_RCVBUFFORCE:
			need(c, M(CAP_NET_ADMIN), SYSMAP_EPERM);
			break;
		case SO_PRIORITY:
			if (a[4] >= sizeof(v) && peek(pid, a[3], &v, sizeof(v)) == 0 &&
			    (v < 0 || v > 6))
				need(c, M(CAP_NET_ADMIN), SYSMAP_EPERM);
			break;
		case SO_BINDTODEVICE:
			explain(c, M(CAP_NET_RAW), SYSMAP_EPERM);
			break;
		default:
			break;
		}
	} else if ((level == IPPROTO_IP && opt == IP_TRANSPARENT) ||
		   (level == IPPROTO_IPV6 && opt == IPV6_TRANSPARENT)) {
		need(c, M(CAP_NET_ADMIN), SYSMAP_EPERM);
	}
}

/* A real-time policy beyond RLIMIT_RTPRIO. */
static void sched_rt(pid_t pid, unsigned policy, uint64_t prio, struct sysmap_call *c)
{
	uint64_t soft = 0, hard = 0;

	policy &= ~(unsigned)SCHED_RESET_ON_FORK;
	if (policy == 6 /* SCHED_DEADLINE */) {
		need(c, M(CAP_SYS_NICE), SYSMAP_EPERM);
		return;
	}
	if (policy != SCHED_FIFO && policy != SCHED_RR)
		return;
	if (proc_limit(pid, RLIMIT_RTPRIO, &soft, &hard) < 0 || soft == 0 || prio > soft)
		need(c, M(CAP_SYS_NICE), SYSMAP_EPERM);
}

/* Lowering the nice value below the current one and below RLIMIT_NICE's floor. */
static void nice_lower(pid_t pid, long niceval, struct sysmap_call *c)
{
	uint64_t soft = 0, hard = 0;
	long cur = 0;

	if (proc_nice(pid, &cur) < 0 || niceval >= cur)
		return;
	if (proc_limit(pid, RLIMIT_NICE, &soft, &hard) < 0 || (uint64_t)(20 - niceval) > soft)
		need(c, M(CAP_SYS_NICE), SYSMAP_EACCES | SYSMAP_EPERM);
}

static void sched_setscheduler_(pid_t pid, const uint64_t *a, struct sysmap_call *c)
{
	int prio = 0;

	if (a[2] && peek(pid, a[2], &prio, sizeof(prio)) < 0)
		return;
	sched_rt(pid, (unsigned)a[1], (uint64_t)(prio < 0 ? 0 : prio), c);
}

static void sched_setattr_(pid_t pid, const uint64_t *a, struct sysmap_call *c)
{
	/* struct sched_attr: size, policy, flags (u64), nice (s32), priority (u32). */
	unsigned char attr[24];
	uint32_t policy, prio;
	int32_t niceval;

	if (!a[1] || peek(pid, a[1], attr, sizeof(attr)) < 0)
		return;
	memcpy(&policy, attr + 4, 4);
	memcpy(&niceval, attr + 16, 4);
	memcpy(&prio, attr + 20, 4);
	if (policy == SCHED_OTHER || policy == SCHED_BATCH)
		nice_lower(pid, niceval, c);
	else
		sched_rt(pid, policy, prio, c);
}

/* Page-rounded length of [addr, addr + len). */
static uint64_t span(uint64_t addr, uint64_t len)
{
	uint64_t start = addr & ~(PAGE - 1), end = (addr + len + PAGE - 1) & ~(PAGE - 1);

	return end > start ? end - start : 0;
}

/* Locking @bytes more memory than RLIMIT_MEMLOCK allows (or any, with a limit of 0). */
static void memlock(pid_t pid, uint64_t bytes, bool add_locked, struct sysmap_call *c)
{
	uint64_t soft = 0, hard = 0, locked = 0;

	if (proc_limit(pid, RLIMIT_MEMLOCK, &soft, &hard) < 0)
		return;
	if (add_locked)
		(void)proc_kb(pid, "VmLck:", &locked);
	if (soft != UNLIMITED && (soft == 0 || locked + bytes > soft))
		need(c, M(CAP_IPC_LOCK), SYSMAP_EPERM | SYSMAP_ENOMEM | SYSMAP_EAGAIN);
}

static void mlockall_(pid_t pid, uint64_t flags, struct sysmap_call *c)
{
	uint64_t size = 0;

	/* MCL_FUTURE alone is refused only by a zero limit. */
	if ((flags & MCL_CURRENT) && proc_kb(pid, "VmSize:", &size) < 0)
		return;
	memlock(pid, size, false, c);
}

/* Raising a hard limit above its current value. */
static void rlimit_raise(pid_t pid, int res, uint64_t addr, struct sysmap_call *c)
{
	uint64_t nl[2], soft = 0, hard = 0;

	if (!addr || peek(pid, addr, nl, sizeof(nl)) < 0)
		return;
	if (proc_limit(pid, res, &soft, &hard) < 0 || nl[1] > hard)
		need(c, M(CAP_SYS_RESOURCE), SYSMAP_EPERM);
}

static bool holds(const uint32_t ids[3], uint64_t id)
{
	return id == ids[0] || id == ids[1] || id == ids[2];
}

/* setuid-like calls: a new id the process does not already hold needs @cap. */
static void setid(pid_t pid, const char *key, int cap, const uint64_t *ids, size_t n, bool one,
		  struct sysmap_call *c)
{
	uint32_t cur[3];
	bool foreign = false;

	explain(c, M(cap), SYSMAP_EPERM);
	if (proc_ids(pid, key, cur) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = (uint32_t)ids[i];
		/* setuid(2): the real or saved id; the others: any of the three. */
		uint32_t allowed[3] = { cur[0], one ? cur[0] : cur[1], cur[2] };
		if (id != UINT32_MAX && !holds(allowed, id))
			foreign = true;
	}
	if (foreign)
		need(c, M(cap), SYSMAP_EPERM);
}

/* unshare(2)/setns(2)/clone(2) flags that need cap_sys_admin (unless with a new user ns). */
static void namespaces(uint64_t flags, struct sysmap_call *c)
{
	const uint64_t ns = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID |
			    CLONE_NEWNET | CLONE_NEWCGROUP | 0x80 /* CLONE_NEWTIME */;

	if ((flags & ns) && !(flags & CLONE_NEWUSER))
		need(c, M(CAP_SYS_ADMIN), SYSMAP_EPERM);
}

static void open_flags(uint64_t flags, struct sysmap_call *c)
{
	bool write = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_TRUNC | O_CREAT));

	explain(c, write ? M(CAP_DAC_OVERRIDE) : M(CAP_DAC_READ_SEARCH), SYSMAP_EACCES);
}

static void xattr_name(pid_t pid, uint64_t addr, struct sysmap_call *c)
{
	char name[32] = { 0 };

	if (!addr || peek(pid, addr, name, sizeof(name) - 1) < 0)
		return;
	if (strncmp(name, "security.capability", 20) == 0)
		need(c, M(CAP_SETFCAP), SYSMAP_EPERM);
	else if (strncmp(name, "trusted.", 8) == 0)
		need(c, M(CAP_SYS_ADMIN), SYSMAP_EPERM);
}

/*
 * Syscalls whose capability does not depend on their arguments: the call
 * needs it to succeed (@needs), or only a refusal points at it (the kernel
 * may allow the call on other grounds: the caller's own file, process or
 * namespace).
 */
struct fixed_rule {
	long nr;
	bool needs;
	uint64_t caps;
	unsigned refusals;
};

#define NEED(nr, caps, refusals) { nr, true, caps, refusals }
#define EXPLAIN(nr, caps, refusals) { nr, false, caps, refusals }

static const struct fixed_rule fixed_rules[] = {
	/* scheduling */
	EXPLAIN(SYS_sched_setparam, M(CAP_SYS_NICE), SYSMAP_EPERM),
	EXPLAIN(SYS_sched_setaffinity, M(CAP_SYS_NICE), SYSMAP_EPERM),
	/* ids and capabilities */
	NEED(SYS_setgroups, M(CAP_SETGID), SYSMAP_EPERM),
	EXPLAIN(SYS_capset, M(CAP_SETPCAP), SYSMAP_EPERM),
	/* mounts, swap, host names, handles */
	NEED(SYS_mount, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	NEED(SYS_umount2, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	NEED(SYS_pivot_root, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	NEED(SYS_swapon, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	NEED(SYS_swapoff, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	NEED(SYS_sethostname, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	NEED(SYS_setdomainname, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	NEED(SYS_fanotify_init, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	NEED(SYS_open_by_handle_at, M(CAP_DAC_READ_SEARCH), SYSMAP_EPERM),
#ifdef SYS_fsopen
	NEED(SYS_fsopen, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	NEED(SYS_fsmount, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	NEED(SYS_move_mount, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
#endif
	EXPLAIN(SYS_setns, M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	NEED(SYS_chroot, M(CAP_SYS_CHROOT), SYSMAP_EPERM),
	/* the machine */
	NEED(SYS_reboot, M(CAP_SYS_BOOT), SYSMAP_EPERM),
	NEED(SYS_kexec_load, M(CAP_SYS_BOOT), SYSMAP_EPERM),
	NEED(SYS_kexec_file_load, M(CAP_SYS_BOOT), SYSMAP_EPERM),
	NEED(SYS_init_module, M(CAP_SYS_MODULE), SYSMAP_EPERM),
	NEED(SYS_finit_module, M(CAP_SYS_MODULE), SYSMAP_EPERM),
	NEED(SYS_delete_module, M(CAP_SYS_MODULE), SYSMAP_EPERM),
#ifdef SYS_iopl
	NEED(SYS_iopl, M(CAP_SYS_RAWIO), SYSMAP_EPERM),
	NEED(SYS_ioperm, M(CAP_SYS_RAWIO), SYSMAP_EPERM),
#endif
	NEED(SYS_acct, M(CAP_SYS_PACCT), SYSMAP_EPERM),
	NEED(SYS_settimeofday, M(CAP_SYS_TIME), SYSMAP_EPERM),
	NEED(SYS_clock_settime, M(CAP_SYS_TIME), SYSMAP_EPERM),
	EXPLAIN(SYS_adjtimex, M(CAP_SYS_TIME), SYSMAP_EPERM),
	EXPLAIN(SYS_clock_adjtime, M(CAP_SYS_TIME), SYSMAP_EPERM),
	EXPLAIN(SYS_syslog, M(CAP_SYSLOG), SYSMAP_EPERM),
	NEED(SYS_vhangup, M(CAP_SYS_TTY_CONFIG), SYSMAP_EPERM),
	/* other processes */
	EXPLAIN(SYS_kill, M(CAP_KILL), SYSMAP_EPERM),
	EXPLAIN(SYS_tkill, M(CAP_KILL), SYSMAP_EPERM),
	EXPLAIN(SYS_tgkill, M(CAP_KILL), SYSMAP_EPERM),
	EXPLAIN(SYS_rt_sigqueueinfo, M(CAP_KILL), SYSMAP_EPERM),
	EXPLAIN(SYS_process_vm_readv, M(CAP_SYS_PTRACE), SYSMAP_EPERM),
	EXPLAIN(SYS_process_vm_writev, M(CAP_SYS_PTRACE), SYSMAP_EPERM),
	/* other users' files */
	EXPLAIN(SYS_fchown, M(CAP_CHOWN), SYSMAP_EPERM),
	EXPLAIN(SYS_fchownat, M(CAP_CHOWN), SYSMAP_EPERM),
#ifdef SYS_chown
	EXPLAIN(SYS_chown, M(CAP_CHOWN), SYSMAP_EPERM),
	EXPLAIN(SYS_lchown, M(CAP_CHOWN), SYSMAP_EPERM),
#endif
	EXPLAIN(SYS_fchmod, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_fchmodat, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_utimensat, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_unlinkat, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_renameat2, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_linkat, M(CAP_FOWNER), SYSMAP_EPERM),
#ifdef SYS_chmod
	EXPLAIN(SYS_chmod, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_utime, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_utimes, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_futimesat, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_unlink, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_rmdir, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_rename, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_renameat, M(CAP_FOWNER), SYSMAP_EPERM),
	EXPLAIN(SYS_link, M(CAP_FOWNER), SYSMAP_EPERM),
#endif
	EXPLAIN(SYS_execve, M(CAP_DAC_OVERRIDE), SYSMAP_EACCES),
	EXPLAIN(SYS_execveat, M(CAP_DAC_OVERRIDE), SYSMAP_EACCES),
	/* BPF and performance monitoring */
	EXPLAIN(SYS_bpf, M(CAP_BPF) | M(CAP_SYS_ADMIN), SYSMAP_EPERM),
	EXPLAIN(SYS_perf_event_open, M(CAP_PERFMON), SYSMAP_EACCES | SYSMAP_EPERM),
};

#undef NEED
#undef EXPLAIN

/* The fixed rule of @nr into @c.  Returns true when there is one. */
static bool apply_fixed_rule(long nr, struct sysmap_call *c)
{
	for (size_t i = 0; i < S2C_ELEMENTSOF(fixed_rules); i++) {
		const struct fixed_rule *f = &fixed_rules[i];
		if (f->nr != nr)
			continue;
		if (f->needs)
			need(c, f->caps, f->refusals);
		else
			explain(c, f->caps, f->refusals);
		return true;
	}
	return false;
}

/* Sockets: raw and packet sockets, ports below the unprivileged start, options. */
static void socket_rules(pid_t pid, long nr, const uint64_t *a, struct sysmap_call *c)
{
	switch (nr) {
	case SYS_socket: sock_socket(a, c); break;
	case SYS_bind: sock_bind(pid, a, c); break;
	case SYS_setsockopt: sock_setsockopt(pid, a, c); break;
	default: break;
	}
}

/* Scheduling: real-time policies, lower nice values, real-time I/O priority. */
static void sched_rules(pid_t pid, long nr, const uint64_t *a, struct sysmap_call *c)
{
	switch (nr) {
	case SYS_sched_setscheduler: sched_setscheduler_(pid, a, c); break;
	case SYS_sched_setattr: sched_setattr_(pid, a, c); break;
	case SYS_setpriority:
		if (a[0] == PRIO_PROCESS && (a[1] == 0 || a[1] == (uint64_t)pid))
			nice_lower(pid, (long)(int)a[2], c);
		explain(c, M(CAP_SYS_NICE), SYSMAP_EACCES | SYSMAP_EPERM);
		break;
	case SYS_ioprio_set:
		if ((a[2] >> 13) == 1 /* IOPRIO_CLASS_RT */)
			need(c, M(CAP_SYS_NICE), SYSMAP_EPERM);
		break;
	default:
		break;
	}
}

/* Memory locking beyond RLIMIT_MEMLOCK, raising hard limits. */
static void memory_rules(pid_t pid, long nr, const uint64_t *a, struct sysmap_call *c)
{
	switch (nr) {
	case SYS_mlock: memlock(pid, span(a[0], a[1]), true, c); break;
	case SYS_mlock2: memlock(pid, span(a[0], a[1]), true, c); break;
	case SYS_mlockall: mlockall_(pid, a[0], c); break;
	case SYS_mmap:
		if (a[3] & MAP_LOCKED)
			memlock(pid, span(0, a[1]), true, c);
		break;
	case SYS_shmctl:
		if ((a[1] & 0xff) == SHM_LOCK)
			explain(c, M(CAP_IPC_LOCK), SYSMAP_EPERM | SYSMAP_ENOMEM);
		break;
	case SYS_setrlimit: rlimit_raise(pid, (int)a[0], a[1], c); break;
	case SYS_prlimit64:
		if (a[0] == 0 || a[0] == (uint64_t)pid)
			rlimit_raise(pid, (int)a[1], a[2], c);
		else if (a[2])
			explain(c, M(CAP_SYS_RESOURCE), SYSMAP_EPERM);
		break;
	default:
		break;
	}
}

/* Switching to user and group ids the process does not hold. */
static void id_rules(pid_t pid, long nr, const uint64_t *a, struct sysmap_call *c)
{
	switch (nr) {
	case SYS_setuid: setid(pid, "Uid:", CAP_SETUID, a, 1, true, c); break;
	case SYS_setreuid: setid(pid, "Uid:", CAP_SETUID, a, 2, false, c); break;
	case SYS_setresuid: setid(pid, "Uid:", CAP_SETUID, a, 3, false, c); break;
	case SYS_setgid: setid(pid, "Gid:", CAP_SETGID, a, 1, true, c); break;
	case SYS_setregid: setid(pid, "Gid:", CAP_SETGID, a, 2, false, c); break;
	case SYS_setresgid: setid(pid, "Gid:", CAP_SETGID, a, 3, false, c); break;
	default: break;
	}
}

/* Namespaces, device nodes, tracing, opening files, privileged attributes. */
static void other_rules(pid_t pid, long nr, const uint64_t *a, struct sysmap_call *c)
{
	switch (nr) {
	case SYS_unshare: namespaces(a[0], c); break;
	case SYS_clone: namespaces(a[0], c); break;
	case SYS_mknodat:
		if (S_ISCHR(a[2]) || S_ISBLK(a[2]))
			need(c, M(CAP_MKNOD), SYSMAP_EPERM);
		break;
#ifdef SYS_mknod
	case SYS_mknod:
		if (S_ISCHR(a[1]) || S_ISBLK(a[1]))
			need(c, M(CAP_MKNOD), SYSMAP_EPERM);
		break;
#endif
	case SYS_ptrace:
		if (a[0] == PTRACE_ATTACH || a[0] == PTRACE_SEIZE)
			explain(c, M(CAP_SYS_PTRACE), SYSMAP_EPERM);
		break;
	case SYS_openat: open_flags(a[2], c); break;
#ifdef SYS_open
	case SYS_open: open_flags(a[1], c); break;
	case SYS_creat: open_flags(O_WRONLY | O_CREAT, c); break;
#endif
	case SYS_fsetxattr:
	case SYS_setxattr:
	case SYS_lsetxattr:
		xattr_name(pid, a[1], c);
		break;
	default:
		break;
	}
}

/*
 * Whether @nr starts a process or thread, and with which clone flags: clone's
 * first argument, the first field of clone3's struct clone_args.
 */
static void spawn_rules(pid_t pid, long nr, const uint64_t *a, struct sysmap_call *c)
{
	switch (nr) {
#ifdef SYS_fork
	case SYS_fork:
	case SYS_vfork:
		c->spawns = true;
		break;
#endif
	case SYS_clone:
		c->spawns = true;
		c->clone_flags = a[0];
		break;
#ifdef SYS_clone3
	case SYS_clone3:
		c->spawns = true;
		if (a[0] && a[1] >= sizeof(uint64_t) &&
		    peek(pid, a[0], &c->clone_flags, sizeof(c->clone_flags)) == 0)
			namespaces(c->clone_flags, c);
		break;
#endif
	default:
		break;
	}
}

/* What syscall @nr with @a needs: a fixed rule, or one that reads the arguments. */
static void rules(pid_t pid, long nr, const uint64_t *a, struct sysmap_call *c)
{
	if (apply_fixed_rule(nr, c))
		return;
	socket_rules(pid, nr, a, c);
	sched_rules(pid, nr, a, c);
	memory_rules(pid, nr, a, c);
	id_rules(pid, nr, a, c);
	other_rules(pid, nr, a, c);
}

void sysmap_enter(pid_t pid, long nr, const uint64_t args[6], struct sysmap_call *ret)
{
	*ret = (struct sysmap_call){ .nr = nr, .name = sysnames_name(nr) };
	rules(pid, nr, args, ret);
	spawn_rules(pid, nr, args, ret);
}

static unsigned refusal_of(int err)
{
	switch (err) {
	case EPERM: return SYSMAP_EPERM;
	case EACCES: return SYSMAP_EACCES;
	case ENOMEM: return SYSMAP_ENOMEM;
	case EAGAIN: return SYSMAP_EAGAIN;
	default: return 0;
	}
}

int sysmap_exit(const struct sysmap_call *c, long rval, bool is_error, struct learn_record *rec)
{
	char buf[32];
	const char *name = c->name;
	int err = is_error ? (int)-rval : 0;
	uint64_t caps;
	int r = 0;

	if (!name) {
		(void)snprintf(buf, sizeof(buf), "syscall %ld", c->nr);
		name = buf;
	}
	if (!is_error) {
		for (int cap = 0; cap < 64 && r == 0; cap++)
			if (c->needs & M(cap))
				r = learn_record_add_check(rec, cap, true, false, name, NULL, 1);
		return r;
	}
	if (c->refusals & refusal_of(err)) {
		caps = c->explains;
		for (int cap = 0; cap < 64 && r == 0; cap++)
			if (caps & M(cap))
				r = learn_record_add_check(rec, cap, false, false, name, NULL, 1);
		return r < 0 ? r : learn_record_add_failure(rec, name, err, caps, 1);
	}
	if (err == EPERM || err == EACCES)
		return learn_record_add_failure(rec, name, err, 0, 1);
	return 0;
}
