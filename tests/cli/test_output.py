#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""-o FILE never destroys a file: devices, FIFOs and sockets are written into, regular
files are replaced atomically keeping mode, owner and group, symlinks, directories and
block devices are refused, and a failure leaves the old file and no temporary file."""
import os
import re
import socket
import stat
import subprocess
import sys
import threading

import s2ctest
from s2ctest import SKIP, is_root, mkfile

# The name of a temporary file next to the target, as it must never appear in a message.
TMP_NAME = re.compile(rb"\.[^/']+\.[A-Za-z0-9]{8}")


def scan_root(ctx):
    root = ctx.tree("root")
    mkfile(root, "usr/bin/su", 0o4755)
    return root


def stdout_report(ctx, root, verb="scan", *extra):
    rc, out, err = ctx.run([verb, "--root", root, *extra])
    ctx.check(f"{verb} to stdout", rc == 0, f"exit {rc} {err!r}")
    return out


def identity(path):
    st = os.lstat(path)
    return (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_rdev, st.st_ino,
            st.st_uid, st.st_gid)


def only_entries(ctx, name, d, want):
    got = sorted(os.listdir(d))
    ctx.check(f"{name}: no temporary file left", got == sorted(want), f"{got}")


def says(ctx, name, err, path, needle=None):
    """The message names the path as given, and never a temporary name."""
    ctx.check(f"{name}: names '{path}'", f"'{path}'".encode() in err, f"{err!r}")
    ctx.check(f"{name}: no temporary name", not TMP_NAME.search(err), f"{err!r}")
    if needle:
        ctx.check(f"{name}: says why", needle.encode() in err, f"{err!r}")


def test_device_node(ctx):
    """A null device made with mknod stays a character device with its mode and rdev,
    for scan, every audit format and plan; the machine's /dev/null is untouched."""
    if not is_root():
        return SKIP
    real = identity("/dev/null")
    root = scan_root(ctx)
    d = ctx.tree("dev")
    null = os.path.join(d, "null")
    os.mknod(null, 0o620 | stat.S_IFCHR, os.makedev(1, 3))
    before = identity(null)
    runs = [["scan"], ["scan", "--format", "json"], ["plan"], ["plan", "--format", "sh"]]
    runs += [["audit", "--format", f] for f in ("text", "json", "markdown", "html", "sarif")]
    for argv in runs:
        rc, out, err = ctx.run([argv[0], "--root", root, *argv[1:], "-o", null])
        name = " ".join(argv) + " -o null"
        ctx.check(f"{name}: exit 0", rc == 0, f"exit {rc} {err!r}")
        ctx.check(f"{name}: nothing on stdout", out == b"", f"{out!r}")
        ctx.check(f"{name}: still the same character device", identity(null) == before,
                  f"{identity(null)} != {before}")
    only_entries(ctx, "device", d, ["null"])
    ctx.check("the machine's /dev/null is untouched", identity("/dev/null") == real,
              f"{identity('/dev/null')} != {real}")


def test_full_device(ctx):
    """A full device is a clear error naming it, exit 4, and stays a device."""
    if not is_root():
        return SKIP
    root = scan_root(ctx)
    d = ctx.tree("full")
    full = os.path.join(d, "full")
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    before = identity(full)
    for verb in ("scan", "audit", "plan"):
        rc, out, err = ctx.run([verb, "--root", root, "-o", full])
        ctx.check(f"{verb} -o full: exit 4", rc == 4, f"exit {rc} {err!r}")
        says(ctx, f"{verb} -o full", err, full, "No space left on device")
        ctx.check(f"{verb} -o full: still the device", identity(full) == before, "")
    only_entries(ctx, "full device", d, ["full"])


def reader(path, sink):
    with open(path, "rb") as f:
        sink.append(f.read())


def test_fifo(ctx):
    """A FIFO with a reader gets the report, and stays a FIFO."""
    root = scan_root(ctx)
    want = stdout_report(ctx, root)
    d = ctx.tree("fifo")
    fifo = os.path.join(d, "pipe")
    os.mkfifo(fifo, 0o600)
    got = []
    t = threading.Thread(target=reader, args=(fifo, got), daemon=True)
    t.start()
    rc, out, err = ctx.run(["scan", "--root", root, "-o", fifo])
    t.join(10)
    if t.is_alive() and stat.S_ISFIFO(os.lstat(fifo).st_mode):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))    # never written: unblock it
        t.join(10)
    ctx.check("fifo: exit 0", rc == 0, f"exit {rc} {err!r}")
    ctx.check("fifo: the reader got the report", got == [want], f"{got!r}")
    ctx.check("fifo: still a FIFO", stat.S_ISFIFO(os.lstat(fifo).st_mode), "")
    only_entries(ctx, "fifo", d, ["pipe"])


def test_socket(ctx):
    """A listening stream socket gets the report; a datagram socket is an error; both stay."""
    root = scan_root(ctx)
    want = stdout_report(ctx, root)
    d = ctx.tree("sock")
    path = os.path.join(d, "s")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    srv.settimeout(10)
    p = subprocess.Popen([ctx.binary, "scan", "--root", root, "-o", path],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    data = b""
    try:
        conn, _ = srv.accept()
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        conn.close()
    except socket.timeout:
        p.kill()
    out, err = p.communicate(timeout=10)
    srv.close()
    ctx.check("socket: exit 0", p.returncode == 0, f"exit {p.returncode} {err!r}")
    ctx.check("socket: the listener got the report", data == want, f"{data!r}")
    ctx.check("socket: still a socket", stat.S_ISSOCK(os.lstat(path).st_mode), "")
    dgram = os.path.join(d, "dgram")
    ds = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ds.bind(dgram)
    rc, out, err = ctx.run(["scan", "--root", root, "-o", dgram])
    ds.close()
    ctx.check("datagram socket: exit 4", rc == 4, f"exit {rc}")
    says(ctx, "datagram socket", err, dgram, "socket")
    ctx.check("datagram socket: still a socket", stat.S_ISSOCK(os.lstat(dgram).st_mode), "")


def test_existing_file_keeps_mode_and_group(ctx):
    """A 0640 file of group 4242 is replaced (new inode) and keeps 0640, its owner and group
    when the process may give the file that group; otherwise nothing is written."""
    if not is_root():
        return SKIP
    root = scan_root(ctx)
    want = stdout_report(ctx, root)
    d = ctx.tree("existing")
    target = os.path.join(d, "report.txt")
    with open(target, "wb") as f:
        f.write(b"old report\n")
    os.chown(target, 0, 4242)
    os.chmod(target, 0o640)
    ino = os.lstat(target).st_ino
    # Without CAP_CHOWN (the verb drops it) root may only give its own file a group it is in.
    in_group = ["setpriv", "--groups", "4242", "--"]
    rc, out, err = ctx.run(["scan", "--root", root, "-o", target], prefix=in_group)
    st = os.lstat(target)
    ctx.check("existing: exit 0", rc == 0, f"exit {rc} {err!r}")
    ctx.check("existing: keeps 0640", stat.S_IMODE(st.st_mode) == 0o640, oct(st.st_mode))
    ctx.check("existing: keeps owner and group", (st.st_uid, st.st_gid) == (0, 4242),
              f"{st.st_uid}:{st.st_gid}")
    ctx.check("existing: replaced, not rewritten in place", st.st_ino != ino, "")
    ctx.check("existing: holds the report", open(target, "rb").read() == want, "")
    only_entries(ctx, "existing", d, ["report.txt"])

    # Outside that group the owner cannot be kept: a clear error, the file untouched.
    with open(target, "wb") as f:
        f.write(b"old report\n")
    before = identity(target)
    rc, out, err = ctx.run(["scan", "--root", root, "-o", target],
                           prefix=["setpriv", "--clear-groups", "--"])
    ctx.check("foreign group: exit 4", rc == 4, f"exit {rc} {err!r}")
    says(ctx, "foreign group", err, target, "owner and group (0:4242)")
    ctx.check("foreign group: untouched", identity(target) == before and
              open(target, "rb").read() == b"old report\n", "")
    only_entries(ctx, "foreign group", d, ["report.txt"])
    os.chown(target, 4243, 4243)
    rc, out, err = ctx.run(["plan", "--root", root, "-o", target])
    ctx.check("foreign owner: exit 4", rc == 4, f"exit {rc} {err!r}")
    says(ctx, "foreign owner", err, target, "owner and group (4243:4243)")
    ctx.check("foreign owner: untouched", open(target, "rb").read() == b"old report\n", "")
    only_entries(ctx, "foreign owner", d, ["report.txt"])


def test_new_file_umask(ctx):
    """A new file gets 0666 & ~umask."""
    root = scan_root(ctx)
    d = ctx.tree("new")
    for umask, want in ((0o027, 0o640), (0o022, 0o644), (0o077, 0o600)):
        target = os.path.join(d, "report-%03o.json" % umask)
        rc, out, err = ctx.run(["scan", "--root", root, "--format", "json", "-o", target],
                               prefix=["sh", "-c", 'umask %03o && exec "$0" "$@"' % umask])
        mode = stat.S_IMODE(os.lstat(target).st_mode) if os.path.exists(target) else None
        ctx.check(f"umask {umask:03o}: exit 0", rc == 0, f"exit {rc} {err!r}")
        ctx.check(f"umask {umask:03o}: mode {want:04o}", mode == want, f"{mode and oct(mode)}")
    only_entries(ctx, "new files", d, ["report-%03o.json" % u for u in (0o027, 0o022, 0o077)])


def test_refused(ctx):
    """A directory, a symlink (to a file, to nothing) and a block device are refused;
    nothing is written and nothing is left behind."""
    root = scan_root(ctx)
    d = ctx.tree("refused")
    sub = os.path.join(d, "dir")
    os.mkdir(sub)
    decoy = os.path.join(d, "decoy")
    with open(decoy, "wb") as f:
        f.write(b"keep me\n")
    link = os.path.join(d, "link")
    os.symlink("decoy", link)
    dangling = os.path.join(d, "dangling")
    os.symlink("nowhere", dangling)
    cases = [(sub, "Is a directory"), (sub + "/", "Is a directory"),
             (link, "symbolic link"), (dangling, "symbolic link")]
    entries = ["dir", "decoy", "link", "dangling"]
    if is_root():
        blk = os.path.join(d, "blk")
        os.mknod(blk, 0o600 | stat.S_IFBLK, os.makedev(7, 200))
        cases.append((blk, "block device"))
        entries.append("blk")
    for target, needle in cases:
        for verb in ("scan", "audit", "plan"):
            rc, out, err = ctx.run([verb, "--root", root, "-o", target])
            ctx.check(f"{verb} -o {os.path.basename(target)}: exit 4", rc == 4, f"exit {rc}")
            says(ctx, f"{verb} -o {target}", err, target, needle)
    ctx.check("directory still empty", os.listdir(sub) == [], f"{os.listdir(sub)}")
    ctx.check("link still points to the decoy", os.readlink(link) == "decoy", "")
    ctx.check("decoy untouched", open(decoy, "rb").read() == b"keep me\n", "")
    ctx.check("dangling link still dangles", os.readlink(dangling) == "nowhere" and
              not os.path.exists(os.path.join(d, "nowhere")), "")
    only_entries(ctx, "refused", d, entries)
    rc, out, err = ctx.run(["scan", "--root", root, "-o", "/nonexistent-dir/x"])
    ctx.check("missing directory: exit 4", rc == 4, f"exit {rc}")
    says(ctx, "missing directory", err, "/nonexistent-dir/x", "No such file or directory")


def test_failure_keeps_old_file(ctx):
    """A full filesystem: the old file stays as it was, no temporary file is left, and the
    message names the file as given (in a private mount namespace)."""
    if not is_root():
        return SKIP
    root = scan_root(ctx)
    for i in range(40):
        mkfile(root, "usr/lib/x%02d/%s" % (i, "helper-with-a-long-name" * 4), 0o4755)
    d = ctx.tree("fullfs")
    script = ('set -e; mount -t tmpfs -o size=8k,mode=0755 tmpfs "$D"; '
              'printf "old report\\n" > "$D/report.txt"; '
              'dd if=/dev/zero of="$D/fill" bs=1k count=64 2>/dev/null || true; '
              'set +e; "$S2C" scan --root "$R" -o "$D/report.txt"; echo "rc=$?" >&2; '
              'cat "$D/report.txt"; ls -A "$D" >&2')
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                       capture_output=True, env={"PATH": os.environ["PATH"], "LC_ALL": "C",
                                                 "S2C": ctx.binary, "D": d, "R": root})
    target = os.path.join(d, "report.txt")
    ctx.check("full fs: exit 4", b"rc=4" in p.stderr, f"{p.stderr!r}")
    says(ctx, "full fs", p.stderr, target, "No space left on device")
    ctx.check("full fs: old file untouched", p.stdout == b"old report\n", f"{p.stdout!r}")
    ctx.check("full fs: no temporary file", p.stderr.endswith(b"fill\nreport.txt\n"),
              f"{p.stderr!r}")


def run_in(ctx, cwd, args, prefix=()):
    """The binary with @args in the directory @cwd (relative -o paths)."""
    p = subprocess.run([*prefix, ctx.binary, *args], capture_output=True, cwd=cwd,
                       env={"LC_ALL": "C", "TZ": "UTC", "PATH": os.environ["PATH"]})
    return p.returncode, p.stdout, p.stderr


def test_relative_path(ctx):
    """A relative FILE is named in messages with the directory it is relative to, and each
    message says which step failed: opening the directory, creating the temporary file."""
    root = scan_root(ctx)
    d = ctx.tree("relative")
    rc, out, err = run_in(ctx, d, ["scan", "--root", root, "-o", "report.txt"])
    ctx.check("relative: exit 0", rc == 0, f"exit {rc} {err!r}")
    ctx.check("relative: written there", os.path.isfile(os.path.join(d, "report.txt")), "")
    rc, out, err = run_in(ctx, d, ["scan", "--root", root, "-o", "missing/report.txt"])
    ctx.check("missing directory: exit 4", rc == 4, f"exit {rc}")
    says(ctx, "missing directory", err, os.path.join(d, "missing/report.txt"),
         "opening its directory: No such file or directory")
    ro = os.path.join(d, "ro")
    os.mkdir(ro, 0o555)
    # root writes anywhere: the child loses the capabilities that let it
    prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] \
        if is_root() else []
    for verb in ("scan", "plan"):
        rc, out, err = run_in(ctx, ro, [verb, "--root", root, "-o", "report.txt"], prefix)
        ctx.check(f"{verb} read-only directory: exit 4", rc == 4, f"exit {rc} {err!r}")
        says(ctx, f"{verb} read-only directory", err, os.path.join(ro, "report.txt"),
             "creating a temporary file beside it: Permission denied")
    ctx.check("read-only directory: still empty", os.listdir(ro) == [], f"{os.listdir(ro)}")
    rc, out, err = run_in(ctx, d, ["scan", "--root", root, "-o", "./ro/../ro/x"], prefix)
    says(ctx, "as typed", err, os.path.join(d, "ro/../ro/x"), "Permission denied")
    return None


TESTS = [test_device_node, test_full_device, test_fifo, test_socket,
         test_existing_file_keeps_mode_and_group, test_new_file_umask, test_refused,
         test_failure_keeps_old_file, test_relative_path]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
