/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel side of `suid2cap learn`: count every capability check that the
 * command under test, and every process it starts, makes.
 *
 * The command runs as the second process of a PID namespace made for the run
 * (learn/run.c); its first process is suid2cap's own init, which never counts.
 * A check counts when the current task is in that namespace and the command
 * has been executed there (sched_process_exec): the set-up between fork and
 * exec (dropping to the user, granting the candidate capabilities) makes
 * checks of its own that say nothing about the program.
 *
 * The checks are taken at cap_capable(), the commoncap hook every capable(),
 * ns_capable() and has_capability() reaches, through fexit (return value and
 * arguments together) or, where trampolines are missing, a kprobe/kretprobe
 * pair.  Its opts argument tells the kernel's quiet probes (CAP_OPT_NOAUDIT,
 * e.g. the cap_sys_admin test of memory overcommit accounting on every mmap)
 * from checks that decide whether an operation is allowed; the capable
 * tracepoint of Linux 6.14+ lacks opts, so it is not used.  The syscall in
 * progress comes from the raw sys_enter/sys_exit tracepoints, which also tell
 * which syscalls failed after a denial.  Everything is counted in hash maps
 * here, so nothing is lost to a slow reader.
 */
#include "bpfmin.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "capable.h"

#define CAP_OPT_NOAUDIT (1 << 1)

char LICENSE[] SEC("license") = "GPL";

/* The namespace of the run; set by the loader before the command starts. */
__u64 ns_dev;
__u64 ns_ino;
/* Set at the first exec in that namespace: from then on checks count. */
__u32 armed;
/* Processes started and ended after that exec (thread-group leaders only). */
__u64 forks;
__u64 exits;
/* Checks and failures that found their map full. */
__u64 lost;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct capable_key);
	__type(value, __u64);
} checks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct capable_fail_key);
	__type(value, __u64);
} failures SEC(".maps");

/* Kernel stacks of the checks: where in the kernel each one was made. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1024);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, CAPABLE_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* The syscall each thread of the run is in. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct capable_inflight);
} inflight SEC(".maps");

/* kprobe to kretprobe: the arguments of the check in progress, per thread. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct capable_key);
} pending SEC(".maps");

/* The current task belongs to the run and is not its init. */
static __always_inline bool ours(void)
{
	struct bpf_pidns_info ns;

	if (!ns_ino)
		return false;
	if (bpf_get_ns_current_pid_tgid(ns_dev, ns_ino, &ns, sizeof(ns)))
		return false;
	return ns.tgid != 1;
}

static __always_inline void count(void *map, const void *key)
{
	__u64 one = 1, *v = bpf_map_lookup_elem(map, key);

	if (!v && bpf_map_update_elem(map, key, &one, BPF_NOEXIST) == 0)
		return;
	if (!v)
		v = bpf_map_lookup_elem(map, key);   /* another CPU added it meanwhile */
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		__sync_fetch_and_add(&lost, 1);
}

/*
 * Count one check.  @opts_known: the hook saw cap_capable()'s opts; the
 * tracepoint does not, and user space then tells the quiet probes by the
 * kernel functions on the stack.
 */
static __always_inline void record(void *ctx, int cap, unsigned int opts, bool opts_known,
				   int stack, int ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct capable_inflight *in = bpf_map_lookup_elem(&inflight, &id);
	struct capable_key k = { .cap = cap, .nr = in ? in->nr : -1, .stack = stack };

	if (ret == 0)
		k.flags |= CAPABLE_GRANTED;
	if (opts_known)
		k.flags |= CAPABLE_OPTS_KNOWN;
	if (opts & CAP_OPT_NOAUDIT)
		k.flags |= CAPABLE_QUIET;
	count(&checks, &k);
	if (in && ret != 0 && !(opts & CAP_OPT_NOAUDIT) && cap >= 0 && cap < 64)
		in->denied |= 1ULL << cap;
}

SEC("fexit/cap_capable")
int BPF_PROG(fexit_capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts, int ret)
{
	if (armed && ours())
		record(ctx, cap, opts, true, bpf_get_stackid(ctx, &stacks, 0), ret);
	return 0;
}

SEC("tp_btf/cap_capable")
int BPF_PROG(tp_capable, const struct cred *cred, struct user_namespace *target_ns,
	     const struct user_namespace *capable_ns, int cap, int ret)
{
	if (armed && ours())
		record(ctx, cap, 0, false, bpf_get_stackid(ctx, &stacks, 0), ret);
	return 0;
}

SEC("kprobe/cap_capable")
int BPF_KPROBE(kprobe_capable, const struct cred *cred, struct user_namespace *ns, int cap,
	       unsigned int opts)
{
	struct capable_key k = { .cap = cap, .flags = opts };
	__u64 id;

	if (!armed || !ours())
		return 0;
	k.stack = bpf_get_stackid(ctx, &stacks, 0);
	id = bpf_get_current_pid_tgid();
	bpf_map_update_elem(&pending, &id, &k, BPF_ANY);
	return 0;
}

SEC("kretprobe/cap_capable")
int BPF_KRETPROBE(kretprobe_capable, int ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct capable_key *k = bpf_map_lookup_elem(&pending, &id);

	if (!k)
		return 0;
	record(ctx, k->cap, k->flags, true, k->stack, ret);
	bpf_map_delete_elem(&pending, &id);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct capable_inflight in = { .nr = (int)id };
	__u64 tid;

	if (!armed || !ours())
		return 0;
	tid = bpf_get_current_pid_tgid();
	bpf_map_update_elem(&inflight, &tid, &in, BPF_ANY);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	__u64 tid = bpf_get_current_pid_tgid();
	struct capable_inflight *in;

	if (!armed)
		return 0;
	in = bpf_map_lookup_elem(&inflight, &tid);
	if (!in)
		return 0;
	if (in->denied && ret < 0 && ret >= -4095) {
		struct capable_fail_key k = { .nr = in->nr, .err = (int)-ret, .denied = in->denied };
		count(&failures, &k);
	}
	bpf_map_delete_elem(&inflight, &tid);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(process_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	if (ours())
		armed = 1;
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(process_fork, struct task_struct *parent, struct task_struct *child)
{
	if (armed && ours() && child->pid == child->tgid)
		__sync_fetch_and_add(&forks, 1);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(process_exit, struct task_struct *p)
{
	if (armed && ours() && p->pid == p->tgid)
		__sync_fetch_and_add(&exits, 1);
	return 0;
}
