#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The test suite never changes the host: a manifest of what it could damage,
recorded before the first test and compared after the last (CTest fixture).

    manifest.py record STATE [--root DIR]
    manifest.py compare STATE [--strict]

The manifest covers /etc, /var/lib/dpkg, /var/lib/suid2cap and /usr/local
(every entry: type, mode, owner, symlink target, and for a regular file its
size, SHA-256 and security.capability bytes), every set-ID or capability file
under /usr (the same), and /dev/null (type, mode, owner, device number).
`compare` names every path that differs and fails.

Other people may run apt-get on the machine while the suite runs.  A change
made while dpkg handled a package outside the suite (its log, /var/log/dpkg.log,
says so) is listed as such and not counted, when it lies where a package
operation writes: dpkg's database, /etc and /usr/local, or a /usr file of a
package dpkg handled.  Nothing else is ever excused: not /var/lib/suid2cap, not
the files suid2cap's hooks and rules use in /etc, not /dev/null.  dpkg handling
one of the suite's own test packages (s2c-*) on the machine is said even when
nothing of it is left.  Both the record and the comparison wait (a while) for
dpkg to be idle, so that neither is taken halfway through someone's apt-get.

With --strict, or CI or S2C_HOST_STRICT set in the environment, no change is
excused, and dpkg handling a test package on the machine fails by itself: a CI
machine runs one checkout's suite and nothing else.  On a shared machine that
may be another checkout's (older) suite, so there it is a warning.

--root DIR records a tree that stands for the machine (the self-test).  The
state file holds hashes of root-only files: it is written with mode 0600.
"""
import argparse
import fcntl
import hashlib
import json
import os
import re
import stat
import struct
import sys
import time

TREES = ["/etc", "/var/lib/dpkg", "/var/lib/suid2cap", "/usr/local"]
PRIVILEGED_UNDER = "/usr"
DEVICES = ["/dev/null"]
XATTR = "security.capability"
DPKG_LOG = "/var/log/dpkg.log"

# Where a package operation may write, and where only suid2cap (or its tests) does.
PACKAGE_AREAS = ["/var/lib/dpkg", "/etc", "/usr/local"]
SUITE_PATHS = ["/var/lib/suid2cap", "/etc/suid2cap", "/etc/dpkg/dpkg.cfg.d/suid2cap",
               "/etc/apt/apt.conf.d/80suid2cap",
               "/etc/dnf/plugins/post-transaction-actions.d/suid2cap.action", "/dev/null"]
SUITE_PACKAGE = re.compile(r"^s2c-")
DPKG_LINE = re.compile(r"^\S+ \S+ (install|upgrade|remove|purge|configure|trigproc|status"
                       r"(?: \S+)?) (\S+?)(?::\S+)? ")


def under(path, top):
    return path == top or path.startswith(top.rstrip("/") + "/")


def caps(path):
    try:
        return os.getxattr(path, XATTR, follow_symlinks=False).hex()
    except OSError:
        return None


def sha256(path, st):
    """SHA-256 of the regular file at @path if it is still the inode @st, else a marker."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except PermissionError:
        return "unreadable"
    except OSError:
        return "vanished"
    with os.fdopen(fd, "rb") as f:
        now = os.fstat(f.fileno())
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            return "replaced"
        return hashlib.file_digest(f, "sha256").hexdigest()


def describe(path, st):
    """The entry of one path: what a test could change about it."""
    base = [stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid]
    if stat.S_ISREG(st.st_mode):
        return ["file", *base, st.st_size, sha256(path, st), caps(path)]
    if stat.S_ISDIR(st.st_mode):
        return ["dir", *base]
    if stat.S_ISLNK(st.st_mode):
        return ["symlink", *base, os.readlink(path)]
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        kind = "char" if stat.S_ISCHR(st.st_mode) else "block"
        return [kind, *base, os.major(st.st_rdev), os.minor(st.st_rdev)]
    return ["fifo" if stat.S_ISFIFO(st.st_mode) else "socket", *base]


def walk(top, keep=None):
    """(path, entry) for @top and everything beneath it; @keep filters regular files."""
    errors = []

    def onerror(e):
        errors.append(e)
    try:
        st = os.lstat(top)
    except FileNotFoundError:
        return
    yield top, describe(top, st)
    if not stat.S_ISDIR(st.st_mode):
        return
    for dirpath, dirs, files in os.walk(top, onerror=onerror):
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                continue
            if keep and not keep(p, st):
                continue
            yield p, describe(p, st)
    for e in errors:
        if not isinstance(e, FileNotFoundError):
            yield e.filename, ["unlistable", e.strerror]


def privileged(path, st):
    return stat.S_ISREG(st.st_mode) and (st.st_mode & 0o6000 or caps(path) is not None)


def record(root):
    """{path relative to @root: entry} for everything the manifest covers."""
    entries = {}

    def add(items):
        for p, e in items:
            entries[p[len(root):]] = e
    for t in TREES:
        add(walk(root + t))
    add((p, e) for p, e in walk(root + PRIVILEGED_UNDER, privileged)
        if not under(p, root + "/usr/local") and e[0] != "dir")
    for d in DEVICES:
        add(walk(root + d))
    return entries


def log_position(root):
    try:
        st = os.stat(root + DPKG_LOG)
        return {"ino": st.st_ino, "size": st.st_size}
    except FileNotFoundError:
        return None


def log_since(root, pos):
    """The lines dpkg logged since @pos (a rotated log is read from its old offset)."""
    def read(path, offset):
        try:
            with open(path, "rb") as f:
                f.seek(offset)
                return f.read().decode(errors="replace").splitlines()
        except FileNotFoundError:
            return []
    now = log_position(root)
    if now is None:
        return []
    if pos and pos["ino"] == now["ino"]:
        return read(root + DPKG_LOG, pos["size"])
    old = []
    if pos:
        try:
            if os.stat(root + DPKG_LOG + ".1").st_ino == pos["ino"]:
                old = read(root + DPKG_LOG + ".1", pos["size"])
        except FileNotFoundError:
            pass
    return old + read(root + DPKG_LOG, 0)


def owners(root, paths):
    """{path: sorted packages whose dpkg file list names it} for @paths (a list may
    name /bin/x for /usr/bin/x on a merged-/usr system)."""
    want = {}
    for p in paths:
        want.setdefault(p, p)
        if p.startswith("/usr/"):
            want.setdefault(p[4:], p)
    found = {}
    info = root + "/var/lib/dpkg/info"
    for name in sorted(os.listdir(info)) if os.path.isdir(info) else ():
        if not name.endswith(".list"):
            continue
        with open(os.path.join(info, name), errors="replace") as f:
            for line in f:
                p = want.get(line.rstrip("\n"))
                if p:
                    found.setdefault(p, set()).add(name[:-5].split(":")[0])
    return {p: sorted(v) for p, v in found.items()}


def differences(before, after):
    """[(path, what changed)], sorted by path."""
    names = {"file": ["mode", "uid", "gid", "size", "sha256", "capabilities"],
             "dir": ["mode", "uid", "gid"], "symlink": ["mode", "uid", "gid", "target"],
             "char": ["mode", "uid", "gid", "major", "minor"],
             "block": ["mode", "uid", "gid", "major", "minor"]}
    out = []
    for p in sorted(set(before) | set(after)):
        a, b = before.get(p), after.get(p)
        if a == b:
            continue
        if a is None and under(p, PRIVILEGED_UNDER) and not under(p, "/usr/local"):
            out.append((p, f"set-ID or with capabilities now: mode {b[1]:04o}, "
                           f"capabilities {b[6] if b[0] == 'file' else None}"))
        elif a is None:
            out.append((p, f"appeared ({b[0]})"))
        elif b is None:
            out.append((p, f"disappeared ({a[0]})"))
        elif a[0] != b[0]:
            out.append((p, f"was a {a[0]}, is a {b[0]}"))
        else:
            fields = names.get(a[0], ["mode", "uid", "gid", "detail"])
            what = []
            for n, x, y in zip(fields, a[1:], b[1:]):
                if x != y:
                    if n == "mode":
                        x, y = f"{x:04o}", f"{y:04o}"
                    what.append(f"{n} {x} -> {y}")
            out.append((p, ", ".join(what)))
    return out


def dpkg_busy(root):
    """Whether a process holds dpkg's lock (looked at, never taken: F_GETLK)."""
    for name in ("lock-frontend", "lock"):
        try:
            fd = os.open(f"{root}/var/lib/dpkg/{name}", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            flock = struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
            if struct.unpack("hhqqi4x", fcntl.fcntl(fd, fcntl.F_GETLK, flock))[0] != fcntl.F_UNLCK:
                return True
        finally:
            os.close(fd)
    return False


def wait_for_dpkg(root, limit=300):
    """A snapshot taken halfway through someone's apt-get differs from everything:
    wait (up to @limit seconds) until dpkg is idle."""
    start = time.monotonic()
    said = False
    while dpkg_busy(root) and time.monotonic() - start < limit:
        if not said:
            print("waiting for dpkg: another process holds its lock")
            said = True
        time.sleep(1)
    if dpkg_busy(root):
        print(f"dpkg still busy after {limit} s, going on")


def cmd_record(args):
    root = os.path.realpath(args.root) if args.root else ""
    wait_for_dpkg(root)
    entries = record(root)
    doc = {"schema": 1, "root": root, "dpkg_log": log_position(root), "entries": entries,
           "owners": owners(root, [p for p in entries if under(p, PRIVILEGED_UNDER)])}
    tmp = args.state + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, args.state)
    print(f"recorded {len(doc['entries'])} paths: {', '.join(TREES)}, set-ID and capability "
          f"files under {PRIVILEGED_UNDER}, {', '.join(DEVICES)}")
    return 0


def cmd_compare(args):
    try:
        with open(args.state) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"manifest: cannot read '{args.state}': {e}", file=sys.stderr)
        return 2
    root = doc["root"]
    strict = args.strict or bool(os.environ.get("CI")) or bool(os.environ.get("S2C_HOST_STRICT"))
    wait_for_dpkg(root)
    now = record(root)
    # A /usr file that lost its set-ID bit or capabilities leaves the watched set:
    # show what it is now rather than "disappeared".
    for p in doc["entries"]:
        if p not in now and under(p, PRIVILEGED_UNDER) and os.path.lexists(root + p):
            now[p] = describe(root + p, os.lstat(root + p))
    diffs = differences(doc["entries"], now)
    os.unlink(args.state)

    ops = [m for m in (DPKG_LINE.match(l) for l in log_since(root, doc["dpkg_log"])) if m]
    pkgs = {m[2] for m in ops}
    ours = sorted(p for p in pkgs if SUITE_PACKAGE.match(p))
    if pkgs:
        print(f"note: dpkg on this machine handled {', '.join(sorted(pkgs))} during the run "
              f"({len(ops)} lines in {DPKG_LOG})")
    if ours:
        # Even when it cleaned up after itself, a test suite ran dpkg on the machine.
        print(f"{'' if strict else 'warning: '}dpkg on this machine handled the suite's own "
              f"test package {', '.join(ours)}: a test suite (this one, or another "
              "checkout's) ran dpkg here", file=sys.stderr)
    excusable = bool(pkgs) and not strict
    usr = [p for p, _ in diffs if under(p, PRIVILEGED_UNDER)] if excusable else []
    owned = {p: set(o) for p, o in doc["owners"].items()}
    for p, o in owners(root, usr).items():
        owned.setdefault(p, set()).update(o)

    def excused(path):
        """Written where a package operation outside the suite writes."""
        if not excusable or any(under(path, s) for s in SUITE_PATHS):
            return False
        return any(under(path, a) for a in PACKAGE_AREAS) or bool(owned.get(path, set()) & pkgs)
    bad = [(p, w) for p, w in diffs if not excused(p)]
    for p, w in diffs:
        if excused(p):
            print(f"not counted (dpkg ran outside the suite): {p}: {w}")
    for p, w in bad:
        print(f"changed while the tests ran: {p}: {w}", file=sys.stderr)
    if bad:
        print(f"the host changed: {len(bad)} path{'s' * (len(bad) != 1)} differ"
              f"{'s' * (len(bad) == 1)}", file=sys.stderr)
    if bad or (ours and strict):
        return 1
    print(f"the host is as it was: {len(doc['entries'])} paths compared" +
          (f", {len(diffs)} changes made by dpkg outside the suite not counted" if diffs else ""))
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("state")
    r.add_argument("--root", default=None, help="a tree standing for the machine")
    c = sub.add_parser("compare")
    c.add_argument("state")
    c.add_argument("--strict", action="store_true", help="excuse no change")
    args = ap.parse_args(argv)
    return cmd_record(args) if args.cmd == "record" else cmd_compare(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
