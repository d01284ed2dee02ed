#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The test suite never changes the host: the throwaway system tests run in
(s2ctest.throwaway_system) keeps every change to itself."""
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cli"))

import s2ctest  # noqa: E402
from s2ctest import SKIP, is_root  # noqa: E402

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
CAP_NET_RAW = 13


def xattr(path):
    try:
        return os.getxattr(path, "security.capability", follow_symlinks=False)
    except OSError:
        return None


def state(path):
    st = os.lstat(path)
    with open(path, "rb") as f:
        return (st.st_mode, st.st_uid, st.st_ino, f.read(), xattr(path))


def test_changes_stay_inside(ctx):
    """Files written, changed and removed in a throwaway system, its mounts and its
    processes: none of it is seen on the host afterwards."""
    if s2ctest.throwaway_unavailable():
        return SKIP
    tag = f"s2c-throwaway-probe-{os.getpid()}-{time.monotonic_ns()}"
    probes = [f"/etc/{tag}", f"/usr/local/{tag}", f"/var/lib/dpkg/{tag}", f"/root/{tag}",
              f"/var/lib/suid2cap/{tag}"]
    victim = os.path.join(ctx.tree("victims"), "victim")
    doomed = victim + "-doomed"
    for p in (victim, doomed):
        with open(p, "wb") as f:
            f.write(b"as it was\n")
        os.chmod(p, 0o755)
    before = state(victim), state(doomed)
    script = "\n".join([
        "set -e",
        *[f"mkdir -p \"$(dirname {p})\" && echo inside > {p}" for p in probes],
        f"echo changed >> {victim}",
        f"chmod 4755 {victim}",
        f"setcap cap_net_raw=ep {victim}",
        f"rm {doomed}",
        f"test -u {victim} && getcap {victim} | grep -q cap_net_raw",
        f"mkdir -p /mnt/{tag} && mount -t tmpfs {tag} /mnt/{tag}",
        f"cp /bin/sleep /mnt/{tag}/{tag}",
        f"/mnt/{tag}/{tag} 600 &",
        "kill -0 $!",
        "echo inside-done",
    ])
    rc, out, err = s2ctest.throwaway_system(ctx, script)
    ctx.check("the script ran inside", rc == 0 and b"inside-done" in out, f"exit {rc}: {err!r}")
    for p in probes:
        ctx.check(f"{p} written inside is not on the host", not os.path.lexists(p), "")
    ctx.check("a host file changed inside (content, mode, capabilities) is as it was",
              state(victim) == before[0], f"{state(victim)!r} != {before[0]!r}")
    ctx.check("a host file removed inside is still there",
              os.path.exists(doomed) and state(doomed) == before[1], "")
    with open("/proc/self/mountinfo") as f:
        mounts = f.read()
    ctx.check("no mount made inside is on the host", tag not in mounts, "")
    copies = [os.path.join(ctx.tmp, d) for d in os.listdir(ctx.tmp) if d.startswith("throwaway")]
    ctx.check("the copy's root and layers are unmounted and empty", copies and
              all(os.listdir(os.path.join(c, d)) == [] for c in copies for d in ("root", "layers"))
              and ctx.tmp not in mounts, repr(copies))
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if tag.encode() in f.read():
                    left.append(pid)
        except OSError:
            pass
    ctx.check("no process started inside outlives it", not left, f"still running: {left}")


def test_running_system_inside(ctx):
    """Inside, / is the running system for suid2cap, and file capabilities set there
    are kept and honoured by the kernel."""
    if s2ctest.throwaway_unavailable():
        return SKIP
    cat = "/usr/local/bin/s2c-throwaway-cat"
    script = "\n".join([
        "set -e",
        'awk \'$5 == "/" { print "root-fs", $(NF-2) }\' /proc/self/mountinfo',
        '"$S2C" plan --format json /usr/bin | grep \'"live"\'',
        f"cp /bin/cat {cat}",
        f"setcap cap_net_raw=ep {cat}",
        f"getcap {cat}",
        " ".join(NOBODY) + f" {cat} /proc/self/status | grep '^CapEff'",
    ])
    rc, out, err = s2ctest.throwaway_system(ctx, script, env={"S2C": ctx.binary})
    ctx.check("inside exit", rc == 0, f"exit {rc}: {out!r} {err!r}")
    ctx.check("the root is an overlay", b"root-fs overlay" in out, out)
    ctx.check("suid2cap sees the running system", b'"live": true' in out, out)
    ctx.check("capabilities set inside stay", f"{cat} cap_net_raw=ep".encode() in out, out)
    eff = [l.split()[1] for l in out.splitlines() if l.startswith(b"CapEff:")]
    ctx.check("the kernel grants them to nobody", eff and int(eff[0], 16) == 1 << CAP_NET_RAW,
              repr(eff))
    ctx.check("nothing of it on the host", not os.path.lexists(cat), "")
    rc, out, err = s2ctest.throwaway_system(ctx, "echo out; echo err >&2; exit 3")
    ctx.check("the script's exit status and output come back",
              (rc, out, err) == (3, b"out\n", b"err\n"), f"{rc} {out!r} {err!r}")


def inside_passes(ctx):
    with open("/proc/self/mountinfo") as f:
        root = [l for l in f if l.split()[4] == "/"]
    ctx.check("inside: the root is an overlay", root and " - overlay " in root[0], repr(root))
    with open(os.path.join(MARKER, "from-inside"), "w") as f:
        f.write("written inside\n")


def inside_fails(ctx):
    ctx.check("first", True, "")
    ctx.check("deliberate failure, expected by test_function_inside", False,
              "this check fails on purpose")
    return None


MARKER = os.environ.get("S2C_MARKER_DIR", "/nonexistent")


def test_function_inside(ctx):
    """in_throwaway_system runs a test function there; its checks and failures count."""
    if s2ctest.throwaway_unavailable():
        return SKIP
    sub = s2ctest.Ctx(ctx.binary)
    try:
        marker = os.environ["S2C_MARKER_DIR"] = sub.tree("marker")
        r = s2ctest.in_throwaway_system(sub, inside_passes)
        ctx.check("checks inside pass", r is None and sub.passed == 1 and not sub.failures,
                  f"{r} {sub.passed} {sub.failures}")
        ctx.check("a file written inside the host's directory is not there",
                  os.listdir(marker) == [], repr(os.listdir(marker)))
        sub.passed = 0
        r = s2ctest.in_throwaway_system(sub, inside_fails)
        ctx.check("a failure inside is a failure outside",
                  sub.passed == 1 and len(sub.failures) == 1 and
                  "this check fails on purpose" in sub.failures[0], f"{sub.passed} {sub.failures}")
    finally:
        os.environ.pop("S2C_MARKER_DIR", None)
        sub.cleanup()


TESTS = [test_changes_stay_inside, test_running_system_inside, test_function_inside]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
