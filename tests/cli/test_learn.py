#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""learn: compiled programs that need exactly one capability (or none) are
learned exactly, through BPF and through ptrace; a migrated ping; failing,
hanging and forking commands leave nothing running; the command gets only its
candidates; records reach explain and audit; clear errors."""
import ctypes
import hashlib
import json
import os
import platform
import shutil
import signal
import struct
import subprocess
import sys
import time

import s2ctest
from s2ctest import SKIP, is_root

CAP = {"cap_chown": 0, "cap_setgid": 6, "cap_setuid": 7, "cap_setpcap": 8,
       "cap_net_bind_service": 10, "cap_net_admin": 12, "cap_net_raw": 13, "cap_ipc_lock": 14,
       "cap_sys_ptrace": 19, "cap_sys_admin": 21, "cap_sys_nice": 23, "cap_sys_resource": 24,
       "cap_syslog": 34, "cap_perfmon": 38, "cap_bpf": 39}
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]

PROGRAMS = {
    "raw": ("cap_net_raw", r"""
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
int main(void)
{
	if (socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) < 0) {
		perror("socket");
		return 1;
	}
	return 0;
}
"""),
    "bind80": ("cap_net_bind_service", r"""
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(80) };
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		return 2;
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("bind");
		return 1;
	}
	return 0;
}
"""),
    "fifo": ("cap_sys_nice", r"""
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
int main(void)
{
	struct rlimit rl = { 0, 0 };
	struct sched_param p = { .sched_priority = 1 };

	if (setrlimit(RLIMIT_RTPRIO, &rl) < 0)
		return 2;
	if (sched_setscheduler(0, SCHED_FIFO, &p) < 0) {
		perror("sched_setscheduler");
		return 1;
	}
	return 0;
}
"""),
    "mlock": ("cap_ipc_lock", r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
int main(void)
{
	struct rlimit rl;
	size_t len = 1 << 20;
	char *p;

	/* Lower the limit (no privilege needed), then lock more than it allows. */
	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return 2;
	if (rl.rlim_max > 65536)
		rl.rlim_max = 65536;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0 || !(p = aligned_alloc(4096, len)))
		return 2;
	memset(p, 1, len);
	if (mlock(p, len) < 0) {
		perror("mlock");
		return 1;
	}
	return 0;
}
"""),
    "hardlimit": ("cap_sys_resource", r"""
#include <stdio.h>
#include <sys/resource.h>
int main(void)
{
	struct rlimit rl;
	rlim_t max;

	/* Lower the hard limit (no privilege needed), then raise it back. */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max < 2)
		return 2;
	max = rl.rlim_max;
	rl.rlim_max = max - 1;
	if (rl.rlim_cur > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 2;
	rl.rlim_max = max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		perror("setrlimit");
		return 1;
	}
	return 0;
}
"""),
    "none": (None, r"""
#include <fcntl.h>
#include <stdio.h>
int main(void)
{
	puts("nothing privileged");
	return open("/dev/null", O_RDONLY) < 0;
}
"""),
}

HELPERS = {
    "fail": r"""
int main(void) { return 3; }
""",
    "hang": r"""
#include <unistd.h>
int main(void) { for (;;) pause(); }
""",
    # Starts N children that never end; every other one leaves our session
    # and double-forks, so its grandchild escapes process groups and parents.
    "forker": r"""
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	for (int i = 0; i < n; i++) {
		if (fork() == 0) {
			if (i % 2 && setsid() >= 0 && fork() > 0)
				_exit(0);
			for (;;)
				pause();
		}
	}
	while (argc > 2)        /* "wait": outlive them */
		pause();
	return 0;
}
""",
    # A child started with clone(CLONE_UNTRACED), or clone3 with it ("clone3"), which
    # ptrace cannot follow, opens a raw socket; the parent does nothing privileged.
    "untraced": r"""
#define _GNU_SOURCE
#include <linux/sched.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	struct clone_args args;
	int status;
	long pid;

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_UNTRACED;
	args.exit_signal = SIGCHLD;
	if (argc > 1 && strcmp(argv[1], "clone3") == 0)
		pid = syscall(SYS_clone3, &args, sizeof(args));
	else
		pid = syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
	if (pid < 0) {
		perror("clone");
		return 2;
	}
	if (pid == 0)
		_exit(socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) < 0);
	if (waitpid((pid_t)pid, &status, 0) < 0)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
""",
    # Prints its own credentials (on learn's standard error).
    "creds": r"""
#include <stdio.h>
#include <string.h>
int main(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cap", 3) || !strncmp(line, "NoNewPrivs", 10) ||
		    !strncmp(line, "Uid", 3) || !strncmp(line, "Gid", 3))
			printf("creds %s", line);
	return 0;
}
""",
}


def caps_of(field="CapEff", pid="self"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1], 16)
    return 0


def have(*names):
    eff = caps_of()
    return all(eff & (1 << CAP[n]) for n in names)


def mask(names):
    m = 0
    for n in names:
        m |= 1 << CAP[n]
    return m


def can_learn():
    return is_root() and have("cap_sys_admin", "cap_setuid", "cap_setgid", "cap_setpcap")


class Env:
    """A throwaway root with the compiled programs in /usr/bin; records go to its
    /var/lib/suid2cap, never to the host's."""
    root = None
    bpf = None


def make_root(ctx):
    if Env.root:
        return Env.root
    root = ctx.tree("learn-root")
    for d in ("usr/bin", "var/lib", "etc", "src"):
        os.makedirs(os.path.join(root, d))
    for f in ("passwd", "group"):
        shutil.copyfile("/etc/" + f, os.path.join(root, "etc", f))
    for name, src in [(n, s) for n, (_, s) in PROGRAMS.items()] + list(HELPERS.items()):
        c = os.path.join(root, "src", name + ".c")
        with open(c, "w") as f:
            f.write(src)
        out = os.path.join(root, "usr/bin", name)
        subprocess.run(["cc", "-O1", "-o", out, c], check=True)
        os.chmod(out, 0o755)
    Env.root = root
    return root


def learn(ctx, args, mech=None, root=None, prefix=None):
    """Run learn --json; returns (exit, document or None, stderr)."""
    argv = ["learn", "--json", "--root", root or Env.root]
    if mech:
        argv += ["--mechanism", mech]
    rc, out, err = ctx.run(argv + list(args), prefix=prefix)
    try:
        doc = json.loads(out) if out else None
    except ValueError:
        doc = None
        ctx.check("learn output is JSON", False, repr(out[:200]))
    if doc is not None:
        s2ctest.validate_json(ctx, "learn " + " ".join(args), doc, "learn.schema.json")
    return rc, doc, err


def mechanisms(ctx):
    """ptrace always; bpf when this build and kernel allow it (else reported as skipped)."""
    make_root(ctx)
    if Env.bpf is None:
        rc, doc, err = learn(ctx, ["--no-record", "--caps", "none", "--", "/usr/bin/none"], "bpf")
        Env.bpf = rc == 0
        if not Env.bpf:
            usable = have("cap_perfmon") and (have("cap_bpf") or have("cap_sys_admin")) and \
                os.path.exists("/sys/kernel/btf/vmlinux")
            built = b"no BPF support" not in err
            # A build with BPF on a kernel that allows it must not silently fall back.
            ctx.check("bpf works where it can", not (built and usable and rc == 4 and
                                                     b"no way to hook" not in err), err)
            print(f"note: BPF not usable here ({err.decode(errors='replace').strip()}); "
                  "ptrace only", file=sys.stderr)
    return ["bpf", "ptrace"] if Env.bpf else ["ptrace"]


def leftovers(root):
    """Processes still running a program from @root."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        if exe.startswith(root + "/"):
            found.append((pid, exe))
    return found


def test_exact(ctx):
    """Each program needs exactly its capability (or none), with both mechanisms."""
    if not can_learn():
        return SKIP
    make_root(ctx)
    ran = 0
    for mech in mechanisms(ctx):
        for name, (cap, _) in PROGRAMS.items():
            if cap and not have(cap):
                print(f"skip {name}: this process lacks {cap}", file=sys.stderr)
                continue
            ran += 1
            label = f"{mech} {name}"
            rc, doc, err = learn(ctx, ["--", "/usr/bin/" + name], mech)
            ctx.check(label + " exit", rc == 0, f"{rc} {err!r}")
            if not doc:
                continue
            ctx.check(label + " mechanism", doc["mechanism"]["name"] == mech, doc["mechanism"])
            ctx.check(label + " succeeded", doc["run"]["succeeded"], doc["run"])
            ctx.check(label + " used", doc["used"] == cap, f"used {doc['used']}, want {cap}")
            ctx.check(label + " denied", doc["denied"] is None, doc["denied"])
            ctx.check(label + " seen whole", doc["run"]["complete"] and
                      doc["run"]["untraced"] == 0, doc["run"])
            ctx.check(label + " candidates hold it", not cap or cap in (doc["candidates"] or ""),
                      doc["candidates"])
            # Without it, the run is refused exactly that capability.
            rc, doc, err = learn(ctx, ["--no-record", "--caps", "none", "--", "/usr/bin/" + name],
                                 mech)
            ctx.check(label + " without caps: exit", rc == (1 if cap else 0), f"{rc} {err!r}")
            if doc:
                ctx.check(label + " without caps: denied", doc["denied"] == cap,
                          f"denied {doc['denied']}, want {cap}")
                ctx.check(label + " without caps: used", doc["used"] is None, doc["used"])
                ctx.check(label + " without caps: outcome",
                          doc["run"]["succeeded"] == (cap is None), doc["run"])
    return None if ran else SKIP


def test_draft_rule(ctx):
    """The draft rule is a valid rules file: =ep for a capability-dumb program."""
    if not can_learn():
        return SKIP
    make_root(ctx)
    rc, doc, err = learn(ctx, ["--no-record", "--caps", "cap_net_raw", "--", "/usr/bin/raw"],
                         "ptrace")
    ctx.check("draft exit", rc == 0, err)
    if not doc:
        return None
    rule = doc["rule"]
    s2ctest.validate_json(ctx, "draft rule", rule, "rules.schema.json")
    r = rule["rules"][0]
    ctx.check("draft id", r["id"] == "local.raw", r)
    ctx.check("draft verdict", r["verdict"] == "migrate" and r["caps"] == "cap_net_raw=ep", r)
    ctx.check("draft path", r["match"]["paths"] == ["/usr/bin/raw"], r)
    ctx.check("no record kept", doc["record"] == {"saved": False, "file": None}, doc["record"])
    rc, doc, err = learn(ctx, ["--no-record", "--caps", "none", "--", "/usr/bin/raw"], "ptrace")
    r = doc["rule"]["rules"][0] if doc else {}
    ctx.check("draft of a refused run is review", r.get("verdict") == "review" and
              r.get("needs") == "cap_net_raw=ep" and "caps" not in r, r)
    rc, doc, err = learn(ctx, ["--no-record", "--", "/usr/bin/none"], "ptrace")
    r = doc["rule"]["rules"][0] if doc else {}
    ctx.check("draft of a run that needs nothing is drop", r.get("verdict") == "drop" and
              "caps" not in r and "needs" not in r, r)
    # A script runs (through its interpreter), but privilege on it is never honoured.
    s2ctest.mkfile(Env.root, "usr/bin/script.sh", 0o755, b"#!/bin/sh\necho script ran\n")
    rc, doc, err = learn(ctx, ["--no-record", "--caps", "cap_net_raw", "--", "/usr/bin/script.sh"],
                         "ptrace")
    r = doc["rule"]["rules"][0] if doc else {}
    ctx.check("a script runs", rc == 0 and doc["program"]["script"] and
              b"script ran" in err, f"{rc} {err!r}")
    ctx.check("draft of a script is drop", r.get("verdict") == "drop" and "caps" not in r and
              "#! script" in r.get("reason", ""), r)


def test_failing(ctx):
    if not can_learn():
        return SKIP
    make_root(ctx)
    for mech in mechanisms(ctx):
        rc, doc, err = learn(ctx, ["--no-record", "--caps", "none", "--", "/usr/bin/fail"], mech)
        ctx.check(f"{mech} failing: exit 1", rc == 1, f"{rc} {err!r}")
        if doc:
            ctx.check(f"{mech} failing: exit code", doc["run"]["exit_code"] == 3 and
                      not doc["run"]["succeeded"] and not doc["run"]["timed_out"], doc["run"])
        rc, out, err = ctx.run(["learn", "--root", Env.root, "--no-record", "--caps", "none",
                                "--mechanism", mech, "--", "/usr/bin/fail"])
        ctx.check(f"{mech} failing: text says so", b"exited 3" in out and
                  b"the run did not succeed" in out, out)


def test_timeout(ctx):
    """A command that hangs is stopped at the time limit, with everything it started."""
    if not can_learn():
        return SKIP
    make_root(ctx)
    for mech in mechanisms(ctx):
        start = time.monotonic()
        rc, doc, err = learn(ctx, ["--no-record", "--caps", "none", "--timeout", "2", "--",
                                   "/usr/bin/hang"], mech)
        took = time.monotonic() - start
        ctx.check(f"{mech} hang: exit 1", rc == 1, f"{rc} {err!r}")
        ctx.check(f"{mech} hang: stopped in time", 1.5 < took < 15, took)
        if doc:
            run = doc["run"]
            ctx.check(f"{mech} hang: timed out", run["timed_out"] and run["signal"] == "KILL" and
                      run["exit_code"] is None and run["killed"] >= 1, run)
        ctx.check(f"{mech} hang: nothing left", not leftovers(Env.root), leftovers(Env.root))


def test_many_children(ctx):
    """Children, grandchildren that left the session, all gone when the command exits."""
    if not can_learn():
        return SKIP
    make_root(ctx)
    for mech in mechanisms(ctx):
        rc, doc, err = learn(ctx, ["--no-record", "--caps", "none", "--", "/usr/bin/forker",
                                   "60"], mech)
        ctx.check(f"{mech} forker: exit 0", rc == 0, f"{rc} {err!r}")
        if doc:
            run = doc["run"]
            ctx.check(f"{mech} forker: processes counted", run["processes"] >= 61, run)
            ctx.check(f"{mech} forker: every process followed", run["complete"] and
                      run["untraced"] == 0, run)
            ctx.check(f"{mech} forker: leftovers killed and said so", run["killed"] >= 30, run)
        ctx.check(f"{mech} forker: nothing left", not leftovers(Env.root), leftovers(Env.root))
        # The same at the time limit, while the parent still runs.
        rc, doc, err = learn(ctx, ["--no-record", "--caps", "none", "--timeout", "2", "--",
                                   "/usr/bin/forker", "40", "wait"], mech)
        ctx.check(f"{mech} forker at the time limit", rc == 1 and doc and
                  doc["run"]["timed_out"] and doc["run"]["killed"] >= 41, doc and doc["run"])
        ctx.check(f"{mech} forker at the time limit: nothing left", not leftovers(Env.root),
                  leftovers(Env.root))


def test_untraced(ctx):
    """A child started with clone(CLONE_UNTRACED) (and clone3) opens a raw socket: BPF
    sees cap_net_raw; ptrace cannot follow the child, and the record, the report and
    the draft say the run is incomplete (review, never drop), also for auto where BPF
    is not available."""
    if not can_learn() or not have("cap_net_raw"):
        return SKIP
    root = make_root(ctx)
    for how in ("clone", "clone3"):
        for mech in mechanisms(ctx):
            label = f"{mech} {how}"
            rc, doc, err = learn(ctx, ["--caps", "cap_net_raw", "--", "/usr/bin/untraced", how],
                                 mech)
            ctx.check(label + ": a report", doc is not None, f"{rc} {err!r}")
            if not doc:
                continue
            run, rule = doc["run"], doc["rule"]["rules"][0]
            if mech == "bpf":
                ctx.check(label + ": sees cap_net_raw", rc == 0 and doc["used"] == "cap_net_raw" and
                          run["complete"] and run["untraced"] == 0 and
                          rule["verdict"] == "migrate", f"{rc} {doc['used']} {run} {rule}")
                continue
            ctx.check(label + ": says what it could not see", rc == 1 and run["untraced"] >= 1 and
                      not run["complete"] and run["succeeded"], f"{rc} {run}")
            ctx.check(label + ": the draft is review, not drop", rule["verdict"] == "review" and
                      "CLONE_UNTRACED" in rule["reason"], rule)
            with open(os.path.join(root, "var/lib/suid2cap/learn",
                                   doc["program"]["sha256"] + ".json")) as f:
                kept = json.load(f)["run"]
            ctx.check(label + ": the record says so", not kept["complete"] and
                      kept["untraced"] == run["untraced"], kept)
    rc, out, err = ctx.run(["learn", "--root", root, "--no-record", "--mechanism", "ptrace",
                            "--caps", "cap_net_raw", "--", "/usr/bin/untraced"])
    ctx.check("ptrace: the text report says so", rc == 1 and
              b"  incomplete  ptrace could not follow 1 process or thread of the run (started "
              b"with clone(CLONE_UNTRACED))" in out and b'"verdict": "review"' in out, out)
    # auto where BPF is unavailable: ptrace, with the same honesty
    p = subprocess.run([ctx.binary, "learn", "--root", root, "--no-record", "--json", "--caps",
                        "cap_net_raw", "--", "/usr/bin/untraced"], capture_output=True,
                       env={"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                       preexec_fn=seccomp_deny_bpf)
    doc = json.loads(p.stdout) if p.stdout else {}
    ctx.check("auto without BPF: ptrace, incomplete, review",
              doc.get("mechanism", {}).get("name") == "ptrace" and
              not doc["run"]["complete"] and doc["rule"]["rules"][0]["verdict"] == "review",
              f"{p.returncode} {doc.get('run')} {p.stderr!r}")


def creds_of(err):
    d = {}
    for line in err.decode(errors="replace").splitlines():
        if line.startswith("creds "):
            k, _, v = line[6:].partition(":")
            d[k] = v.split()
    return d


def test_credentials(ctx):
    """The command gets exactly its candidates, in every set, as nobody with no_new_privs;
    learn keeps only what the run needs."""
    if not can_learn():
        return SKIP
    root = make_root(ctx)
    want = mask(["cap_net_raw", "cap_sys_nice"])
    for mech in mechanisms(ctx):
        rc, out, err = ctx.run(["learn", "--root", root, "--no-record", "--verbose",
                                "--mechanism", mech, "--caps", "cap_net_raw,cap_sys_nice", "--",
                                "/usr/bin/creds"])
        ctx.check(f"{mech} creds exit", rc == 0, err)
        c = creds_of(err)
        for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
            ctx.check(f"{mech} command {k}", k in c and int(c[k][0], 16) == want, c.get(k))
        ctx.check(f"{mech} command no_new_privs", c.get("NoNewPrivs") == ["1"], c)
        ctx.check(f"{mech} command uid", c.get("Uid") == ["65534"] * 4, c.get("Uid"))
        ctx.check(f"{mech} command gid", c.get("Gid") == ["65534"] * 4, c.get("Gid"))
        kept = {"cap_sys_admin", "cap_setuid", "cap_setgid", "cap_setpcap", "cap_net_raw",
                "cap_sys_nice"}
        kept |= {"cap_bpf", "cap_perfmon", "cap_syslog"} if mech == "bpf" else {"cap_sys_ptrace"}
        line = [ln for ln in err.decode().splitlines() if "capabilities kept:" in ln]
        got = set(line[0].split(": ")[-1].split(",")) if line else set()
        ctx.check(f"{mech} learn keeps only what it needs", got == kept, f"{got} != {kept}")

    # A program cannot keep capabilities it was not given: not from its file
    # capabilities, not from a set-user-ID-root bit.
    fcap = os.path.join(root, "usr/bin/creds-fcap")
    suid = os.path.join(root, "usr/bin/creds-suid")
    for p in (fcap, suid):
        shutil.copyfile(os.path.join(root, "usr/bin/creds"), p)
        os.chown(p, 0, 0)
    os.chmod(fcap, 0o755)
    s2ctest.setcap(fcap, "cap_net_admin,cap_sys_admin=p")
    os.chmod(suid, 0o4755)
    for mech in mechanisms(ctx):
        rc, out, err = ctx.run(["learn", "--root", root, "--no-record", "--mechanism", mech,
                                "--caps", "cap_net_raw", "--", "/usr/bin/creds-fcap"])
        c = creds_of(err)
        extra = mask(["cap_net_admin", "cap_sys_admin"])
        ctx.check(f"{mech} file capabilities beyond the candidates are not granted",
                  rc == 0 and all(k in c and not int(c[k][0], 16) & extra
                                  for k in ("CapPrm", "CapEff", "CapBnd")), f"{rc} {c} {err!r}")
        rc, out, err = ctx.run(["learn", "--root", root, "--no-record", "--mechanism", mech,
                                "--caps", "none", "--", "/usr/bin/creds-suid"])
        c = creds_of(err)
        ctx.check(f"{mech} a setuid-root program stays nobody", rc == 0 and
                  c.get("Uid") == ["65534"] * 4 and c.get("CapEff") == ["0000000000000000"],
                  f"{rc} {c} {err!r}")
    os.unlink(fcap)
    os.unlink(suid)


def test_privileges_verb(ctx):
    rc, out, err = ctx.run(["privileges", "learn"])
    ctx.check("privileges learn exit", rc == 0, err)
    ctx.check("privileges learn shows both phases", b"verb: learn" in out and
              b"phase: start" in out and b"phase: run" in out and
              b"plus the candidate capabilities" in out, out)
    run = out.split(b"phase: run")[1] if b"phase: run" in out else b""
    if not is_root():
        return None     # an unprivileged process has no capability to keep or drop
    ctx.check("the run phase keeps only what a run needs",
              b"CapEff: cap_setgid,cap_setuid,cap_setpcap,cap_sys_ptrace,cap_sys_admin,"
              b"cap_syslog,cap_perfmon,cap_bpf\n" in run and b"no_new_privs: yes" in run, run)


def stage_ping(ctx):
    """A root with a copy of ping that is not setuid but has cap_net_raw, as after
    migration, with its dpkg file list so the rules recognise it."""
    root = ctx.tree("ping-root")
    for d in ("usr/bin", "var/lib/dpkg/info", "etc"):
        os.makedirs(os.path.join(root, d))
    for f in ("passwd", "group"):
        shutil.copyfile("/etc/" + f, os.path.join(root, "etc", f))
    for info in ("iputils-ping.list", "iputils-ping:amd64.list"):
        src = os.path.join("/var/lib/dpkg/info", info)
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(root, "var/lib/dpkg/info", info))
    ping = os.path.join(root, "usr/bin/ping")
    shutil.copyfile("/usr/bin/ping", ping)
    os.chown(ping, 0, 0)
    os.chmod(ping, 0o755)
    s2ctest.setcap(ping, "cap_net_raw=p")
    return root, ping


def ping_sockets_for_nobody():
    """net.ipv4.ping_group_range admits nobody's group: ping needs no capability."""
    try:
        with open("/proc/sys/net/ipv4/ping_group_range") as f:
            lo, hi = (int(x) for x in f.read().split())
    except (OSError, ValueError):
        return False
    return lo <= 65534 <= hi


def test_ping(ctx):
    """The migrated ping learns cap_net_raw (nothing when ping sockets are open to it),
    and explain and audit show it as observed evidence."""
    if not can_learn() or not have("cap_net_raw") or not os.path.exists("/usr/bin/ping"):
        return SKIP
    root, ping = stage_ping(ctx)
    want = None if ping_sockets_for_nobody() else "cap_net_raw"
    for mech in mechanisms(ctx):
        rc, doc, err = learn(ctx, ["--", "/usr/bin/ping", "-c", "1", "-W", "2", "127.0.0.1"],
                             mech, root=root)
        ctx.check(f"{mech} ping exit", rc == 0, f"{rc} {err!r}")
        if not doc:
            continue
        ctx.check(f"{mech} ping used", doc["used"] == want, f"{doc['used']} != {want}")
        ctx.check(f"{mech} ping denied", doc["denied"] is None, doc["denied"])
        ctx.check(f"{mech} ping capability-aware", doc["program"]["aware"], doc["program"])
        ctx.check(f"{mech} ping record", doc["record"]["saved"], doc["record"])
        if want:
            r = doc["rule"]["rules"][0]
            ctx.check(f"{mech} ping draft", r["caps"] == "cap_net_raw=p", r)
    rec = os.path.join(root, "var/lib/suid2cap/learn", doc["program"]["sha256"] + ".json")
    st = os.stat(rec)
    ctx.check("record is root-only", st.st_uid == 0 and st.st_mode & 0o777 == 0o600, oct(st.st_mode))
    ctx.check("record directory is root-only",
              os.stat(os.path.dirname(rec)).st_mode & 0o777 == 0o700, "")

    rc, out, err = ctx.run(["explain", "--root", root, "/usr/bin/ping"])
    ctx.check("explain shows the observed evidence", rc == 0 and
              b"learned     observed evidence: suid2cap learn" in out and
              (b"used cap_net_raw;" if want else b"used no capability;") in out, out)
    rc, out, err = ctx.run(["explain", "--root", root, "--format", "json", "/usr/bin/ping"])
    d = json.loads(out)[0] if rc == 0 else {}
    ctx.check("explain JSON learned", d.get("learned", {}).get("evidence") == "observed" and
              d["learned"]["used"] == want, d.get("learned"))
    rc, out, err = ctx.run(["audit", "--root", root, "--format", "json"])
    doc = json.loads(out) if out else {}
    if doc:
        s2ctest.validate_json(ctx, "audit with learned", doc, "audit.schema.json")
    f = [x for x in doc.get("files", []) if x["file"]["path"] == "/usr/bin/ping"]
    ctx.check("audit JSON learned", f and f[0].get("learned", {}).get("used") == want, f)
    rc, out, err = ctx.run(["audit", "--root", root, "--no-color"])
    ctx.check("audit text observed", b"observed: used " in out, out)

    # The draft, added as a rules layer, is what the engine then uses.
    dbdir = ctx.tree("draft-db")
    with open(os.path.join(dbdir, "local.json"), "w") as fh:
        json.dump(doc_rule(ctx, root, mechanisms(ctx)[-1]), fh)
    rc, out, err = ctx.run(["explain", "--root", root, "--db", dbdir, "--format", "json",
                            "/usr/bin/ping"])
    d = json.loads(out)[0] if rc == 0 else {}
    ctx.check("draft loads as a rules layer", rc == 0 and d.get("rule") and
              d["rule"]["file"].endswith("local.json"), f"{rc} {err!r}")
    # It never takes the bundled rule's id (saved, it would replace that rule and its
    # conditions): it is about this build only, and says which conditions it lacks.
    draft = doc_rule(ctx, root, mechanisms(ctx)[-1])
    r = draft["rules"][0] if draft else {}
    ctx.check("draft: a fresh local id, this build only", r.get("id") == "local.ping" and
              r["match"].get("sha256") == [doc_sha(ctx, ping)], r)
    ctx.check("draft: names the conditions of iputils.ping it lacks",
              "goes before rule 'iputils.ping'" in draft.get("description", "") and
              "when net.ipv4.ping_group_range covers 0..2147483647: drop" in draft["description"]
              and "when the kernel is below 5.17: migrate" in draft["description"], draft)

    # A record others could have written is not believed.
    os.chmod(rec, 0o644)
    rc, out, err = ctx.run(["explain", "--root", root, "/usr/bin/ping"])
    ctx.check("untrusted record ignored", rc == 0 and b"learned" not in out and
              b"cannot use the learn record" in err and b"ignoring it" in err, f"{out!r} {err!r}")
    os.chmod(rec, 0o600)
    # A changed binary does not inherit what the old one was seen to do.
    with open(ping, "ab") as fh:
        fh.write(b"\0")
    s2ctest.setcap(ping, "cap_net_raw=p")
    rc, out, err = ctx.run(["explain", "--root", root, "/usr/bin/ping"])
    ctx.check("changed binary has no learned evidence", rc == 0 and b"learned" not in out, out)
    rc, out, err = ctx.run(["explain", "--root", root, "--db", dbdir, "--format", "json",
                            "/usr/bin/ping"])
    d = json.loads(out)[0] if rc == 0 else {}
    ctx.check("another build keeps the bundled rule", d.get("rule", {}).get("id") == "iputils.ping",
              f"{rc} {err!r} {d.get('rule')}")


def doc_sha(ctx, path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def doc_rule(ctx, root, mech):
    rc, doc, err = learn(ctx, ["--no-record", "--", "/usr/bin/ping", "-c", "1", "-W", "2",
                               "127.0.0.1"], mech, root=root)
    return doc["rule"] if doc else {}


def seccomp_deny_bpf():
    """In the child: make bpf(2) fail with EPERM, as a locked-down system or a
    container's seccomp profile does."""
    machine = platform.machine()
    arch, nr = {"x86_64": (0xc000003e, 321), "aarch64": (0xc00000b7, 280)}[machine]
    insns = [(0x20, 0, 0, 4), (0x15, 0, 3, arch), (0x20, 0, 0, 0), (0x15, 0, 1, nr),
             (0x06, 0, 0, 0x00050000 | 1), (0x06, 0, 0, 0x7fff0000)]
    buf = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in insns))
    prog = struct.pack("HxxxxxxP", len(insns), ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(22, 2, ctypes.c_char_p(prog), 0, 0) != 0:  # PR_SET_SECCOMP, FILTER
        os._exit(99)


def test_errors(ctx):
    """Not root, BPF refused, no such command, no PID namespace: a clear message each."""
    if not can_learn():
        return SKIP
    root = make_root(ctx)
    rc, out, err = ctx.run(["learn", "--root", root, "--", "/usr/bin/none"], prefix=NOBODY)
    ctx.check("not root: exit 5", rc == 5 and b"learn must run as root" in err, f"{rc} {err!r}")
    rc, out, err = ctx.run(["learn", "--root", root, "--", "nosuch-program"])
    ctx.check("no such command: exit 2", rc == 2 and
              b"command 'nosuch-program' not found" in err, f"{rc} {err!r}")
    rc, out, err = ctx.run(["learn", "--root", root, "--", "/usr/bin/nosuch"])
    ctx.check("no such path: exit 2", rc == 2 and b"not found" in err, f"{rc} {err!r}")
    rc, out, err = ctx.run(["learn", "--root", root, "--caps", "cap_nosuch", "--", "none"])
    ctx.check("bad --caps: exit 2", rc == 2 and b"unknown capability 'cap_nosuch'" in err, err)
    rc, out, err = ctx.run(["learn", "--root", root, "--user", "root", "--", "none"])
    ctx.check("never as root", rc == 2 and b"does not run the command as root" in err, err)
    rc, out, err = ctx.run(["learn", "--root", root])
    ctx.check("missing COMMAND", rc == 2 and b"missing COMMAND" in err, err)
    rc, out, err = ctx.run(["learn", "--root", root, "--", "/usr/bin/none"],
                           prefix=["setpriv", "--bounding-set", "-sys_admin", "--"])
    ctx.check("no cap_sys_admin: exit 5", rc == 5 and b"learn needs cap_sys_admin" in err,
              f"{rc} {err!r}")

    env = {"LC_ALL": "C", "TZ": "UTC", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    base = [ctx.binary, "learn", "--root", root, "--no-record", "--caps", "cap_net_raw"]
    rc, doc, err = learn(ctx, ["--no-record", "--caps", "none", "--", "/usr/bin/none"], "ptrace")
    built = bool(doc and doc["bpf_support"])
    p = subprocess.run(base + ["--mechanism", "bpf", "--", "/usr/bin/raw"], env=env,
                       capture_output=True, preexec_fn=seccomp_deny_bpf)
    if built:
        ctx.check("BPF locked down: --mechanism bpf exits 5", p.returncode == 5 and
                  b"BPF is not available: the kernel refused" in p.stderr,
                  f"{p.returncode} {p.stderr!r}")
    else:
        ctx.check("no BPF in this build: --mechanism bpf exits 4", p.returncode == 4 and
                  b"this build of suid2cap has no BPF support" in p.stderr,
                  f"{p.returncode} {p.stderr!r}")
        rc, out, err = ctx.run(["learn", "--help"])
        ctx.check("no BPF in this build: --help says so", b"no BPF support" in out, out)
    p = subprocess.run(base + ["--json", "--", "/usr/bin/raw"], env=env, capture_output=True,
                       preexec_fn=seccomp_deny_bpf)
    doc = json.loads(p.stdout) if p.returncode in (0, 1) and p.stdout else {}
    ctx.check("BPF locked down: auto falls back to ptrace and says why",
              doc.get("mechanism", {}).get("name") == "ptrace" and
              doc["mechanism"]["fallback"] and doc.get("used") == "cap_net_raw",
              f"{p.returncode} {doc.get('mechanism')} {p.stderr!r}")
    p = subprocess.run(base + ["--", "/usr/bin/raw"], env=env, capture_output=True,
                       preexec_fn=seccomp_deny_bpf)
    ctx.check("BPF locked down: text names the fallback", p.returncode == 0 and
              (b"BPF not used: " in p.stdout and b"using ptrace" in p.stderr if built else
               b"this build has no BPF support" in p.stdout),
              f"{p.returncode} {p.stdout!r} {p.stderr!r}")


# Where libbpf looks for the kernel's BTF when /sys/kernel/btf/vmlinux is not there.
BTF_ELSEWHERE = ["/boot", "/lib/modules", "/usr/lib/modules", "/usr/lib/debug"]


def test_bpf_missing(ctx):
    """Without the kernel's BTF (hidden in a private mount namespace) BPF cannot hook
    anything: learn says what is missing, not only which attach calls failed."""
    if not can_learn():
        return SKIP
    root = make_root(ctx)
    rc, doc, err = learn(ctx, ["--no-record", "--caps", "none", "--", "/usr/bin/none"], "ptrace")
    if not doc or not doc["bpf_support"] or not os.path.exists("/sys/kernel/btf/vmlinux"):
        print("skip: no BPF in this build, or no BTF to hide", file=sys.stderr)
        return SKIP
    hide = ["/sys/kernel/btf"] + [d for d in BTF_ELSEWHERE
                                   if os.path.isdir(d) and not os.path.islink(d)]
    script = "".join(f"mount -t tmpfs s2ctest '{d}' && " for d in hide) + 'exec "$@"'
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    def hidden(*args):
        return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script,
                               "sh", ctx.binary, "learn", "--root", root, "--no-record",
                               *args], capture_output=True, env=env)
    want = b"missing here: the kernel's BTF, /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)"
    p = hidden("--mechanism", "bpf", "--caps", "none", "--", "/usr/bin/none")
    ctx.check("no BTF: --mechanism bpf says what is missing", p.returncode == 4 and
              b"BPF is not available: no way to hook" in p.stderr and want in p.stderr,
              f"{p.returncode} {p.stderr!r}")
    p = hidden("--json", "--caps", "none", "--", "/usr/bin/none")
    doc = json.loads(p.stdout) if p.returncode == 0 and p.stdout else {}
    ctx.check("no BTF: auto falls back to ptrace and keeps the reason",
              doc.get("mechanism", {}).get("name") == "ptrace" and
              want.decode() in (doc["mechanism"]["fallback"] or ""),
              f"{p.returncode} {doc.get('mechanism')} {p.stderr!r}")


def test_help(ctx):
    rc, out, err = ctx.run(["learn", "--help"])
    ctx.check("learn --help", rc == 0 and b"usage: suid2cap learn" in out and
              b"--mechanism M" in out and b"--no-record" in out, out)
    rc, out, err = ctx.run(["--help"])
    ctx.check("learn in the verb list", b"  learn " in out, out)


def test_interrupted(ctx):
    """learn interrupted (^C, SIGTERM, SIGHUP) ends by that signal at once, and nothing it
    started outlives it."""
    if not is_root():
        return SKIP
    make_root(ctx)
    for mech, sig in zip(mechanisms(ctx) * 3, (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)):
        p = subprocess.Popen([ctx.binary, "learn", "--root", Env.root, "--no-record", "--caps",
                              "none", "--timeout", "60", "--mechanism", mech, "--",
                              "/usr/bin/hang"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(1.5)
        start = time.monotonic()
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
        took = time.monotonic() - start
        ctx.check(f"{mech} {sig.name}: ended by it", p.returncode == -sig,
                  f"exit {p.returncode} {err[-300:]!r}")
        ctx.check(f"{mech} {sig.name}: at once", took < 10, took)
        for _ in range(50):
            if not leftovers(Env.root):
                break
            time.sleep(0.1)
        ctx.check(f"{mech} {sig.name}: nothing left", not leftovers(Env.root),
                  leftovers(Env.root))


TESTS = [test_help, test_privileges_verb, test_exact, test_draft_rule, test_failing,
         test_timeout, test_many_children, test_interrupted, test_untraced, test_credentials, test_ping,
         test_errors, test_bpf_missing]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
