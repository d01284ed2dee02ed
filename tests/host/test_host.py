#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The test suite never changes the host: the throwaway system tests run in
(s2ctest.throwaway_system) keeps every change to itself, the host manifest
(manifest.py) sees every change that matters, and every test is watched by it."""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cli"))

import s2ctest  # noqa: E402
from s2ctest import SKIP, is_root  # noqa: E402

MANIFEST = os.path.join(HERE, "manifest.py")
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


# --- the host manifest on a tree standing for the machine -------------------------------

def manifest(*args, env=None):
    e = {k: v for k, v in os.environ.items() if k not in ("CI", "S2C_HOST_STRICT")}
    e.update(env or {})
    p = subprocess.run([sys.executable, MANIFEST, *args], capture_output=True, env=e)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def fake_host(ctx):
    root = ctx.tree("host")
    files = {"etc/passwd": (0o644, b"root:x:0:0::/root:/bin/sh\n"),
             "etc/foo.conf": (0o644, b"foo\n"),
             "var/lib/dpkg/status": (0o644, b"Package: login\n"),
             "var/lib/dpkg/info/login.list": (0o644, b"/usr\n/usr/bin\n/usr/bin/su\n"),
             "var/lib/dpkg/info/foo:amd64.list": (0o644, b"/usr\n/bin/foo-helper\n"),
             "usr/local/bin/tool": (0o755, b"tool\n"),
             "usr/bin/su": (0o4755, b"su\n"),
             "usr/bin/foo-helper": (0o4755, b"helper\n"),
             "usr/bin/plain": (0o755, b"plain\n"),
             "var/log/dpkg.log": (0o644, b"2020-01-01 00:00:00 status installed login:amd64 1\n")}
    for rel, (mode, data) in files.items():
        s2ctest.mkfile(root, rel, mode, data)
    s2ctest.mkfile(root, "usr/bin/ping", 0o755, b"ping\n")
    s2ctest.setcap(os.path.join(root, "usr/bin/ping"), "cap_net_raw=ep")
    os.makedirs(os.path.join(root, "dev"))
    os.mknod(os.path.join(root, "dev/null"), 0o20666, os.makedev(1, 3))
    os.chmod(os.path.join(root, "dev/null"), 0o666)
    return root


def append(root, rel, data):
    with open(os.path.join(root, rel), "ab") as f:
        f.write(data)


def remove_null(r):
    os.unlink(os.path.join(r, "dev/null"))
    s2ctest.mkfile(r, "dev/null", 0o666, b"")


DAMAGE = {
    "/etc/passwd": lambda r: append(r, "etc/passwd", b"x:x:0:0::/:/bin/sh\n"),
    "/etc/suid2cap": lambda r: os.makedirs(os.path.join(r, "etc/suid2cap/rules.d")),
    "/usr/local/bin/new": lambda r: s2ctest.mkfile(r, "usr/local/bin/new", 0o755),
    "/usr/bin/su": lambda r: os.chmod(os.path.join(r, "usr/bin/su"), 0o755),
    "/usr/bin/ping": lambda r: subprocess.run(["setcap", "-r", os.path.join(r, "usr/bin/ping")],
                                              check=True),
    "/usr/lib/s2c/pinger": lambda r: s2ctest.mkfile(r, "usr/lib/s2c/pinger", 0o4755),
    "/var/lib/dpkg/status": lambda r: append(r, "var/lib/dpkg/status", b"Package: s2c\n"),
    "/var/lib/suid2cap": lambda r: os.makedirs(os.path.join(r, "var/lib/suid2cap"), 0o700),
    "/dev/null": remove_null,
}


def test_manifest_names_each_change(ctx):
    """Every kind of damage is found and named; a plain program in /usr is not watched."""
    if not is_root():
        return SKIP
    for path, damage in DAMAGE.items():
        root = fake_host(ctx)
        state_file = root + ".json"
        rc, out, err = manifest("record", state_file, "--root", root)
        ctx.check(f"record {path}", rc == 0 and os.stat(state_file).st_mode & 0o077 == 0,
                  f"{rc} {err}")
        damage(root)
        rc, out, err = manifest("compare", state_file)
        ctx.check(f"{path} changed: fails and says where", rc == 1 and
                  f"changed while the tests ran: {path}" in err, f"{rc} {out} {err}")
        ctx.check(f"{path}: nothing else named", err.count("changed while the tests ran:") ==
                  1 + (path == "/etc/suid2cap"), err)
    root = fake_host(ctx)
    manifest("record", root + ".json", "--root", root)
    append(root, "usr/bin/plain", b"x")
    rc, out, err = manifest("compare", root + ".json")
    ctx.check("unchanged host passes", rc == 0 and "the host is as it was" in out, f"{rc} {err}")
    rc, out, err = manifest("compare", root + ".json")
    ctx.check("a missing state file is an error naming it", rc == 2 and root + ".json" in err,
              f"{rc} {err}")


def test_manifest_outside_dpkg(ctx):
    """While dpkg handled a package outside the suite, what it may write is listed and
    not counted; never the suite's own paths, never with --strict or CI.  dpkg handling
    the suite's own test package is a warning, and a failure with --strict."""
    if not is_root():
        return SKIP

    def run(log, damages, args=(), env=None):
        root = fake_host(ctx)
        manifest("record", root + ".json", "--root", root)
        append(root, "var/log/dpkg.log", log)
        for d in damages:
            d(root)
        return manifest("compare", root + ".json", *args, env=env)
    foo = b"2030-01-01 00:00:00 install foo:amd64 <none> 1.0\n" \
          b"2030-01-01 00:00:01 status installed foo:amd64 1.0\n"
    package_writes = [lambda r: append(r, "var/lib/dpkg/status", b"Package: foo\n"),
                      lambda r: append(r, "etc/foo.conf", b"new\n"),
                      lambda r: os.chmod(os.path.join(r, "usr/bin/foo-helper"), 0o755)]
    rc, out, err = run(foo, package_writes)
    ctx.check("outside dpkg: passes", rc == 0, f"{rc} {out} {err}")
    for p in ("/var/lib/dpkg/status", "/etc/foo.conf", "/usr/bin/foo-helper"):
        ctx.check(f"outside dpkg: {p} listed", f"not counted (dpkg ran outside the suite): {p}:"
                  in out, out)
    ctx.check("outside dpkg: says which package", "handled foo during the run" in out, out)
    rc, out, err = run(foo, package_writes, ["--strict"])
    counted = "changed while the tests ran:"
    ctx.check("--strict counts them", rc == 1 and err.count(counted) == 3, err)
    rc, out, err = run(foo, package_writes, env={"CI": "1"})
    ctx.check("CI counts them", rc == 1 and err.count(counted) == 3, err)
    for path in ("/etc/suid2cap", "/var/lib/suid2cap", "/dev/null", "/usr/bin/su",
                 "/usr/lib/s2c/pinger"):
        rc, out, err = run(foo, [DAMAGE[path]])
        ctx.check(f"outside dpkg: {path} still counts", rc == 1 and
                  f"changed while the tests ran: {path}" in err, f"{rc} {out} {err}")
    ours = foo + b"2030-01-01 00:00:02 install s2c-hook-test:all <none> 1.0\n"
    warning = "warning: dpkg on this machine handled the suite's own test package s2c-hook-test"
    rc, out, err = run(ours, package_writes)
    ctx.check("dpkg ran the suite's test package: said, dpkg's own writes not counted",
              rc == 0 and warning in err and out.count("not counted (dpkg") == 3,
              f"{rc} {out} {err}")
    rc, out, err = run(ours, package_writes + [DAMAGE["/etc/suid2cap"]])
    ctx.check("dpkg ran the suite's test package: the suite's paths count", rc == 1 and
              "changed while the tests ran: /etc/suid2cap:" in err, f"{rc} {err}")
    rc, out, err = run(ours, [], ["--strict"])
    ctx.check("dpkg ran the suite's test package: with --strict, fails when nothing is left",
              rc == 1 and "suite's own test package s2c-hook-test" in err, f"{rc} {err}")
    rc, out, err = run(ours, [])
    ctx.check("dpkg ran the suite's test package: else warns when nothing is left",
              rc == 0 and warning in err, f"{rc} {err}")


def test_manifest_waits_for_dpkg(ctx):
    """A record is not taken halfway through someone's dpkg run: it waits for the lock."""
    if not is_root():
        return SKIP
    root = fake_host(ctx)
    lock = os.path.join(root, "var/lib/dpkg/lock")
    open(lock, "w").close()
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time\n"
                               f"f = open({lock!r}, 'r+'); fcntl.lockf(f, fcntl.LOCK_EX)\n"
                               "print('locked', flush=True); time.sleep(2)"],
                              stdout=subprocess.PIPE)
    holder.stdout.readline()
    start = time.monotonic()
    rc, out, err = manifest("record", root + ".json", "--root", root)
    waited = time.monotonic() - start
    holder.wait()
    ctx.check("record waits while dpkg's lock is held", rc == 0 and waited > 1 and
              "waiting for dpkg" in out, f"{rc} {waited:.1f}s {out} {err}")


def test_every_test_watched(ctx):
    """Every CTest test requires the host fixture, so the manifest brackets them all."""
    build = os.environ.get("S2C_BUILD_DIR")
    ctest = shutil.which("ctest")
    if not build or not ctest:
        return SKIP
    # ctest writes its log even to list the tests: list them from a copy of the test
    # files, not in the build directory a running ctest is writing to.
    copy = ctx.tree("ctest")
    for dirpath, _, files in os.walk(build):
        if "CTestTestfile.cmake" in files:
            dst = os.path.join(copy, os.path.relpath(dirpath, build))
            os.makedirs(dst, exist_ok=True)
            shutil.copyfile(os.path.join(dirpath, "CTestTestfile.cmake"),
                            os.path.join(dst, "CTestTestfile.cmake"))
    p = subprocess.run([ctest, "--show-only=json-v1", "--test-dir", copy], capture_output=True)
    ctx.check("ctest lists the tests", p.returncode == 0, p.stderr)
    tests = json.loads(p.stdout)["tests"]
    roles = {}
    for t in tests:
        props = {x["name"]: x["value"] for x in t.get("properties", [])}
        roles[t["name"]] = (props.get("FIXTURES_SETUP", []), props.get("FIXTURES_CLEANUP", []),
                            props.get("FIXTURES_REQUIRED", []))
    ctx.check("the manifest is recorded first", "host" in roles.get("host.manifest.record",
                                                                      ((), (), ()))[0], repr(roles))
    ctx.check("and compared last", "host" in roles.get("host.manifest.compare", ((), (), ()))[1],
              repr(roles))
    loose = [n for n, (s, c, r) in roles.items() if "host" not in s + c and "host" not in r]
    ctx.check("every other test requires it", not loose, f"not watched: {loose}")
    ctx.check("the tests are all there", len(roles) > 20, f"{len(roles)}")


TESTS = [test_changes_stay_inside, test_running_system_inside, test_function_inside,
         test_manifest_names_each_change, test_manifest_outside_dpkg, test_manifest_waits_for_dpkg,
         test_every_test_watched]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
