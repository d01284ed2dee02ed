#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI tests of `suid2cap scan` on fixture trees, against golden files."""
import json
import os
import subprocess
import sys

import s2ctest
from s2ctest import SKIP, mkfile, mklink, setcap, is_root, normalise_json, fix_dir_times

SCHEMA = os.path.join(s2ctest.SRC, "docs", "schema", "scan.schema.json")


def validate(ctx, name, data):
    s2ctest.validate_json(ctx, name, json.loads(data), "scan.schema.json")


def tree_perms(ctx):
    """Every set-id/mode combination, owned by root, daemon (1) and a group."""
    root = ctx.tree("perms")
    for name, mode, uid, gid in [
            ("usr/bin/su", 0o4755, 0, 0), ("usr/bin/passwd", 0o4755, 0, 0),
            ("usr/bin/chage", 0o2755, 0, 42), ("usr/bin/at", 0o6755, 1, 1),
            ("usr/bin/plain", 0o755, 0, 0), ("usr/bin/latent", 0o4644, 0, 0),
            ("usr/bin/world", 0o4777, 0, 0), ("usr/bin/suid-bits-only", 0o6000, 0, 0),
            ("usr/bin/sticky", 0o1755, 0, 0), ("usr/lib/helper", 0o4750, 0, 105)]:
        mkfile(root, name, mode, uid=uid, gid=gid)
    mkfile(root, "usr/bin/script.sh", 0o4755, b"#!/bin/sh -e\necho hi\n", uid=0, gid=0)
    mkfile(root, "etc/passwd", 0o644, b"root:x:0:0:root:/root:/bin/sh\ndaemon:x:1:1::/:/bin/false\n")
    mkfile(root, "etc/group", 0o644, b"root:x:0:\ndaemon:x:1:\nshadow:x:42:\nmessagebus:x:105:\n")
    mklink(root, "bin", "usr/bin")
    fix_dir_times(root)
    return root


def tree_links(ctx):
    root = ctx.tree("links")
    mkfile(root, "usr/bin/su", 0o4755, uid=0, gid=0)
    os.makedirs(os.path.join(root, "old"))
    os.link(os.path.join(root, "usr/bin/su"), os.path.join(root, "old/su"))
    mklink(root, "usr/bin/su-link", "su")
    mklink(root, "usr/bin/outside", "/usr/bin/passwd")
    mklink(root, "usr/bin/dangling", "nowhere")
    mklink(root, "loop/a", "b")
    mklink(root, "loop/b", "a")
    mklink(root, "loop/parent", "..")
    mklink(root, "loop/abs-root", "/")
    fix_dir_times(root)
    return root


def tree_names(ctx):
    root = ctx.tree("names")
    for n in [b"new\nline", b"bad\xffutf8", b"sp ace", b"\x1b[31mred", b"caf\xc3\xa9", b"tab\tx",
              b"\x1b]0;title\x07", "bidi\u202etxt.exe".encode()]:
        path = os.path.join(root.encode(), b"odd", n)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        os.chown(path, 0, 0)
        os.chmod(path, 0o4755)
        os.utime(path, (s2ctest.FIXED_MTIME, s2ctest.FIXED_MTIME))
    fix_dir_times(root)
    return root


def tree_caps(ctx):
    root = ctx.tree("caps")
    mkfile(root, "etc/passwd", 0o644, b"root:x:0:0:root:/root:/bin/sh\n")
    mkfile(root, "etc/group", 0o644, b"root:x:0:\n")
    for name in ["ping", "ping-p", "gst-ptp-helper", "both", "empty", "ns", "latent", "script"]:
        mkfile(root, "usr/bin/" + name, 0o644 if name == "latent" else
               (0o4755 if name == "both" else 0o755),
               b"#!/usr/bin/python3\n" if name == "script" else b"\x7fELF-fixture\n", uid=0, gid=0)
    setcap(os.path.join(root, "usr/bin/ping"), "cap_net_raw+ep")
    setcap(os.path.join(root, "usr/bin/ping-p"), "cap_net_raw+p")
    setcap(os.path.join(root, "usr/bin/gst-ptp-helper"), "cap_net_bind_service,cap_net_admin+ep")
    setcap(os.path.join(root, "usr/bin/both"), "cap_net_raw+ep")
    setcap(os.path.join(root, "usr/bin/empty"), "=")
    subprocess.run(["setcap", "-n", "1000", "cap_net_raw+ep", os.path.join(root, "usr/bin/ns")], check=True)
    setcap(os.path.join(root, "usr/bin/latent"), "cap_sys_admin+ep")
    setcap(os.path.join(root, "usr/bin/script"), "cap_setuid+ep")
    for n in ["ping", "ping-p", "gst-ptp-helper", "both", "empty", "ns", "latent", "script"]:
        os.utime(os.path.join(root, "usr/bin", n), (s2ctest.FIXED_MTIME,) * 2)
    fix_dir_times(root)
    return root


def scan_golden(ctx, root, case, extra=(), findings=None):
    """@findings: the notice a tree with problem flags gives (and exit status 1)."""
    want_err = b"suid2cap: " + findings.encode() + b"\n" if findings else b""
    for fmt, ext in (("text", "txt"), ("json", "json")):
        rc, out, err = ctx.run(["scan", "--root", root, "--format", fmt, *extra])
        ctx.check(f"scan/{case}.{ext} exit", rc == (1 if findings else 0),
                  f"exit {rc}, stderr: {err!r}")
        ctx.check(f"scan/{case}.{ext} stderr", err == want_err, f"stderr: {err!r}")
        if fmt == "json":
            validate(ctx, f"scan/{case}.json", out)
            out = normalise_json(out, ctx.tmp)
        ctx.golden("scan", f"{case}.{ext}", out)


def test_perms(ctx):
    if not is_root():
        return SKIP
    scan_golden(ctx, tree_perms(ctx), "perms", findings="1 file with findings: writable (1)")


def test_links(ctx):
    if not is_root():
        return SKIP
    scan_golden(ctx, tree_links(ctx), "links", findings="2 files with findings: hardlinks (2)")


def test_names(ctx):
    if not is_root():
        return SKIP
    root = tree_names(ctx)
    scan_golden(ctx, root, "names")
    rc, out, _ = ctx.run(["scan", "--root", root, "--format", "json"])
    doc = json.loads(out)
    raw = set()
    for f in doc["files"]:
        raw.add(bytes.fromhex(f["path_hex"]) if "path_hex" in f else f["path"].encode())
    ctx.check("names exact bytes", b"/odd/bad\xffutf8" in raw and b"/odd/new\nline" in raw,
              f"paths: {raw!r}")


def test_caps(ctx):
    if not is_root():
        return SKIP
    root = tree_caps(ctx)
    both = "1 file with findings: suid-and-caps (1)"
    scan_golden(ctx, root, "caps", findings=both)
    scan_golden(ctx, root, "caps-all", ["--all-caps"], findings=both)


def listing_find_getcap(root, all_caps):
    """The reference set: find -perm /6000 plus getcap -r, as root-relative paths."""
    out = subprocess.run(["find", root, "-perm", "/6000", "-type", "f", "-print0"],
                         capture_output=True, check=False).stdout
    ref = {p[len(root):] for p in out.split(b"\0") if p}
    g = subprocess.run(["getcap", "-r", root], capture_output=True, check=False).stdout
    for line in g.splitlines():
        path = line.rsplit(b" ", 1)[0]
        if not all_caps:
            st = os.lstat(path)
            if not st.st_mode & 0o111:
                continue    # latent caps on non-executables are read only with --all-caps
        ref.add(path[len(root):])
    return ref


def test_same_as_find_and_getcap(ctx):
    """On every fixture tree, the result set equals find -perm /6000 + getcap -r."""
    if not is_root():
        return SKIP
    trees = [tree_perms(ctx), tree_links(ctx), tree_names(ctx), tree_caps(ctx)]
    for root in trees:
        rb = root.encode()
        for all_caps in (False, True):
            args = ["scan", "--format", "json", root] + (["--all-caps"] if all_caps else [])
            rc, out, err = ctx.run(args)
            doc = json.loads(out)
            got = set()
            for f in doc["files"]:
                p = bytes.fromhex(f["path_hex"]) if "path_hex" in f else f["path"].encode()
                got.add(p[len(rb):])
            ref = listing_find_getcap(rb, all_caps)
            ctx.check(f"find+getcap {os.path.basename(root)} all_caps={all_caps}", got == ref,
                      f"only suid2cap: {sorted(got - ref)}, only find/getcap: {sorted(ref - got)}")


def test_errors(ctx):
    rc, out, err = ctx.run(["scan", "--root", "/nonexistent-root"])
    ctx.check("missing root exit", rc == 2, f"exit {rc}")
    ctx.golden("scan", "missing-root.err", err)
    rc, out, err = ctx.run(["scan", "--format", "yaml", "/"])
    ctx.check("bad format exit", rc == 2, f"exit {rc}")
    ctx.golden("scan", "bad-format.err", err)
    rc, out, err = ctx.run(["scan", "--threads", "0"])
    ctx.check("bad threads exit", rc == 2, f"exit {rc}")
    rc, out, err = ctx.run(["scan", "--bogus"])
    ctx.check("unknown option exit", rc == 2, f"exit {rc}")
    ctx.golden("scan", "unknown-option.err", err)
    rc, out, err = ctx.run(["sacn"])
    ctx.check("typo exit", rc == 2, f"exit {rc}")
    ctx.golden("scan", "typo.err", err)
    rc, out, err = ctx.run(["scan", "--help"])
    ctx.check("help", rc == 0 and b"--root DIR" in out, f"exit {rc}")


def test_incomplete(ctx):
    """An unreadable directory is a warning naming it; the exit status says incomplete."""
    root = ctx.tree("incomplete")
    mkfile(root, "ok/su", 0o4755)
    mkfile(root, "locked/hidden", 0o4755)
    os.chmod(os.path.join(root, "locked"), 0)
    prefix = None
    if is_root():
        # root reads everything; drop the DAC capabilities for the child first
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]
    rc, out, err = ctx.run(["scan", "--root", root], prefix=prefix)
    ctx.check("incomplete exit", rc == 3, f"exit {rc}, stderr {err!r}")
    ctx.check("incomplete warning", b"cannot open directory '/locked' beneath the root '" +
              root.encode() + b"': Permission denied" in err, f"stderr {err!r}")
    ctx.check("incomplete still lists", b"/ok/su" in out, f"stdout {out!r}")
    os.chmod(os.path.join(root, "locked"), 0o755)


def test_exit_status(ctx):
    """scan exits 1 when a file has a problem flag (writable, suid-and-caps, hardlinks;
    caps-malformed too), says which on stderr, and still writes the whole report; 0 for a
    tree of privileged files with none; 3 (incomplete) wins over 1."""
    clean = ctx.tree("exit-clean")
    mkfile(clean, "usr/bin/su", 0o4755)
    mkfile(clean, "usr/bin/chage", 0o2755)
    mkfile(clean, "usr/bin/latent", 0o4644)
    mkfile(clean, "usr/bin/script", 0o4755, b"#!/bin/sh\n")
    rc, out, err = ctx.run(["scan", "--root", clean])
    ctx.check("no problem flag: exit 0", rc == 0 and err == b"", f"exit {rc} {err!r}")
    cases = [("writable", lambda r: mkfile(r, "usr/bin/w", 0o4777)),
             ("hardlinks", lambda r: os.link(mkfile(r, "usr/bin/h", 0o4755),
                                             os.path.join(r, "usr/bin/h2")))]
    if is_root():
        def both(r):
            setcap(mkfile(r, "usr/bin/b", 0o4755, uid=0, gid=0), "cap_net_raw+ep")

        # (caps-malformed cannot be made here: the kernel refuses a malformed
        # security.capability; unit.fcaps decodes such bytes)
        cases.append(("suid-and-caps", both))
    for flag, make in cases:
        root = ctx.tree("exit-" + flag)
        mkfile(root, "usr/bin/su", 0o4755)
        make(root)
        for fmt in ("text", "json"):
            rc, out, err = ctx.run(["scan", "--root", root, "--format", fmt])
            ctx.check(f"{flag} {fmt}: exit 1", rc == 1, f"exit {rc} {err!r}")
            ctx.check(f"{flag} {fmt}: says which", f"with findings: {flag} (".encode() in err,
                      f"{err!r}")
            ctx.check(f"{flag} {fmt}: the report is whole",
                      b"/usr/bin/su" in out and flag.encode() in out, f"{out!r}")
    # incomplete wins, and the findings are still said
    root = ctx.tree("exit-incomplete")
    mkfile(root, "usr/bin/w", 0o4777)
    mkfile(root, "locked/hidden", 0o4755)
    os.chmod(os.path.join(root, "locked"), 0)
    prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] \
        if is_root() else None
    rc, out, err = ctx.run(["scan", "--root", root], prefix=prefix)
    ctx.check("incomplete and writable: exit 3", rc == 3, f"exit {rc} {err!r}")
    ctx.check("incomplete and writable: findings said", b"with findings: writable (1)" in err,
              f"{err!r}")
    os.chmod(os.path.join(root, "locked"), 0o755)
    return None


def test_output_file(ctx):
    root = ctx.tree("outfile")
    mkfile(root, "su", 0o4755)
    target = os.path.join(ctx.tmp, "report.json")
    decoy = os.path.join(ctx.tmp, "decoy")
    with open(decoy, "w") as f:
        f.write("keep me\n")
    os.symlink(decoy, target)
    rc, out, err = ctx.run(["scan", "--root", root, "--format", "json", "-o", target])
    ctx.check("output to a symlink refused", rc == 4 and b"symbolic link" in err,
              f"exit {rc} {err!r}")
    ctx.check("output symlink and decoy kept",
              os.readlink(target) == decoy and open(decoy).read() == "keep me\n", "")
    os.unlink(target)
    rc, out, err = ctx.run(["scan", "--root", root, "--format", "json", "-o", target])
    ctx.check("output exit", rc == 0, f"exit {rc} {err!r}")
    ctx.check("output is json", json.load(open(target))["schema"] == 1, "")
    rc, out, err = ctx.run(["scan", "--root", root, "-o", "/nonexistent-dir/x"])
    ctx.check("output to missing dir fails", rc == 4, f"exit {rc}")


def test_full_stdout(ctx):
    """A write error on stdout is an error, never a silent truncation."""
    root = ctx.tree("full")
    mkfile(root, "su", 0o4755)
    with open("/dev/full", "wb") as full:
        p = subprocess.run([ctx.binary, "scan", "--root", root], stdout=full,
                           stderr=subprocess.PIPE)
    ctx.check("stdout full exit", p.returncode == 4, f"exit {p.returncode}")
    ctx.check("stdout full message", b"cannot write" in p.stderr, f"{p.stderr!r}")


def churn(top, stop, seed):
    """What a package manager does while a scan runs: in @top, set-ID files unpacked as
    NAME.dpkg-new and renamed over NAME, the old kept as NAME.dpkg-tmp and removed,
    directories made and removed, until @stop is set."""
    import random
    rnd = random.Random(seed)
    n = 0
    while not stop.is_set():
        d = os.path.join(top, f"pkg{rnd.randrange(8)}")
        os.makedirs(d, exist_ok=True)
        for i in range(200):
            name = os.path.join(d, f"prog{i}")
            try:
                fd = os.open(name + ".dpkg-new", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o755)
                os.write(fd, b"\x7fELF" + bytes(60))
                os.fchmod(fd, 0o4755)
                os.close(fd)
                if os.path.exists(name):
                    os.link(name, name + ".dpkg-tmp")
                os.rename(name + ".dpkg-new", name)
                if os.path.exists(name + ".dpkg-tmp"):
                    os.unlink(name + ".dpkg-tmp")
                if rnd.random() < 0.3:
                    os.unlink(name)
            except OSError:
                pass
        n += 1
        if rnd.random() < 0.2:
            subprocess.run(["rm", "-rf", d], check=False)


def test_package_manager_races(ctx):
    """Entries that vanish between getdents64 and the look at them (a package manager
    unpacking meanwhile) are skipped quietly: no warning, the scan complete; dpkg's
    temporary names of root's files in root's directories are not findings."""
    import threading
    root = ctx.tree("races")
    top = os.path.join(root, "usr", "lib")
    os.makedirs(top)
    for seed in (1, 2, 3):
        stop = threading.Event()
        t = threading.Thread(target=churn, args=(top, stop, seed))
        t.start()
        try:
            for i in range(6):
                rc, out, err = ctx.run(["scan", "--root", root, "--threads", "4", "--format",
                                        "json"])
                doc = json.loads(out) if rc in (0, 1) else {}
                ctx.check(f"races {seed}.{i}: scan complete, quiet", rc in (0, 1) and
                          doc.get("complete") is True and b"warning" not in err and
                          b"cannot" not in err, f"exit {rc} {err[-400:]!r}")
                if is_root():
                    names = [f["path"] for f in doc.get("files", [])]
                    ctx.check(f"races {seed}.{i}: no dpkg temporary names",
                              not any(n.endswith((".dpkg-new", ".dpkg-tmp")) for n in names),
                              f"{[n for n in names if 'dpkg-' in n][:5]}")
        finally:
            stop.set()
            t.join()
    rc, out, err = ctx.run(["plan", "--root", root])
    ctx.check("races: plan afterwards", rc == 0, f"exit {rc} {err[-300:]!r}")


def test_dpkg_temporary_names(ctx):
    """NAME.dpkg-new and NAME.dpkg-tmp are left out only when root owns them and their
    directory and nobody else can write there: anyone else's file of that name, or one in
    a directory others can write, is reported as any other."""
    if not is_root():
        return SKIP
    root = ctx.tree("dpkgtmp")
    for rel in ("usr/bin/ping.dpkg-new", "usr/bin/su.dpkg-tmp", "usr/bin/mount.dpkg-old",
                "tmp/evil.dpkg-new", "usr/sbin/user.dpkg-new"):
        mkfile(root, rel, 0o4755)
    os.chmod(os.path.join(root, "tmp"), 0o1777)
    os.chown(os.path.join(root, "usr/sbin/user.dpkg-new"), 65534, 65534)
    os.chmod(os.path.join(root, "usr/sbin/user.dpkg-new"), 0o4755)
    rc, out, err = ctx.run(["scan", "--root", root, "--format", "json"])
    names = sorted(f["path"] for f in json.loads(out)["files"])
    ctx.check("dpkg temporary names", names == ["/tmp/evil.dpkg-new", "/usr/bin/mount.dpkg-old",
                                                 "/usr/sbin/user.dpkg-new"], f"{names}")


def test_records(ctx):
    """A scan keeps its candidates as records, past 4 MiB of them in an unnamed file in
    $TMPDIR, and reads them back in path order as it writes: every file listed once, in
    order, the same as a scan kept in memory, $TMPDIR empty afterwards, and a finding among
    them still counted.  A $TMPDIR that is not there is said, names the directory, exits 4
    and writes nothing."""
    root = ctx.tree("records")
    long = "x" * 200     # so that the records outgrow 4 MiB
    for d in range(12):
        for i in range(1000):
            mkfile(root, f"usr/lib/d{d:02}/f{i:04}{long}", 0o4755, b"#!/bin/sh\n")
    mkfile(root, "usr/lib/d05/world", 0o4777, b"#!/bin/sh\n")
    every = sorted([f"/usr/lib/d{d:02}/f{i:04}{long}" for d in range(12) for i in range(1000)] +
                   ["/usr/lib/d05/world"])
    tmp = os.path.join(ctx.tmp, "records-tmp")
    os.makedirs(tmp, exist_ok=True)
    rc, big, err = ctx.run(["scan", "--root", root, "--format", "json"], env={"TMPDIR": tmp})
    files = json.loads(big)["files"] if rc == 1 else []
    ctx.check("records: 12,001 files in path order, the finding counted",
              [f["path"] for f in files] == every and b"writable (1)" in err,
              f"{rc} {err[-300:]!r}")
    ctx.check("records: nothing left in $TMPDIR", os.listdir(tmp) == [], f"{os.listdir(tmp)}")
    rc, small, err = ctx.run(["scan", "--root", root, "--format", "json", "/usr/lib/d05"],
                             env={"TMPDIR": tmp})
    part = [f for f in files if f["path"].startswith("/usr/lib/d05/")]
    ctx.check("records: read back from the file as they were made",
              rc == 1 and json.loads(small)["files"] == part, f"{rc} {err[-300:]!r}")
    rc, text, err = ctx.run(["scan", "--root", root], env={"TMPDIR": tmp})
    rows = [line.split()[-1] for line in text.decode().splitlines()[1:] if line.startswith("-")]
    ctx.check("records: the table lists them in path order", rc == 1 and rows == every,
              f"{rc} {len(rows)} {err[-300:]!r}")
    gone = os.path.join(ctx.tmp, "no-such-dir")
    rc, out, err = ctx.run(["scan", "--root", root], env={"TMPDIR": gone})
    ctx.check("records: a missing $TMPDIR is an error naming it",
              rc == 4 and out == b"" and gone.encode() in err and
              b"cannot keep the scan's records" in err, f"{rc} {err[-300:]!r}")


TESTS = [test_perms, test_links, test_names, test_caps, test_same_as_find_and_getcap,
         test_errors, test_incomplete, test_exit_status, test_output_file, test_full_stdout,
         test_package_manager_races, test_dpkg_temporary_names, test_records]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
