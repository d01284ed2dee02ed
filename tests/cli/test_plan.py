#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI tests of `suid2cap plan`: every format on a tree of compiled test binaries and on
staged copies of real Debian binaries (golden files), the generated shell script run on a
staging copy (the state it leaves is the plan's, a second run changes nothing, a changed
file or an unsafe directory is refused), shellcheck, the rpm lines of hostile names built
with the real rpmbuild, the deb postinst run in a throwaway chroot, changes held back below
unsafe directories, and `plan --check` on good and bad plans."""
import json
import os
import re
import shutil
import subprocess
import sys

import s2ctest
import test_audit_pkg
from s2ctest import SKIP, is_root

KERNEL = "6.1.0"
FORMATS = (("json", "json"), ("sh", "sh"), ("rpm", "rpm"), ("deb", "deb"),
           ("deb-postrm", "postrm"), ("permissions", "permissions"))

SOURCES = {
    # raw socket and setsockopt: weak evidence only, no rule -> review
    "sock": "#include <sys/socket.h>\n#include <netinet/in.h>\n"
            "int main(void) { int s = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP); int one = 1;\n"
            " return setsockopt(s, SOL_SOCKET, SO_DEBUG, &one, sizeof one); }\n",
    # a reserved port: strong evidence for cap_net_bind_service -> migrate without a rule
    "resvport": "#include <netinet/in.h>\n"
                "int bindresvport(int, struct sockaddr_in *);\n"
                "int main(void) { return bindresvport(0, 0); }\n",
    # capability-aware (links libcap, raises what it needs): =p
    "aware": "#include <sys/capability.h>\n#include <netinet/in.h>\n"
             "int bindresvport(int, struct sockaddr_in *);\n"
             "int main(void) { cap_t c = cap_get_proc(); cap_value_t v = CAP_NET_BIND_SERVICE;\n"
             " cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET); cap_set_proc(c); cap_free(c);\n"
             " return bindresvport(0, 0); }\n",
    "plain": "int main(void) { return 0; }\n",
}
FLAGS = {"aware": ["-lcap"]}

DEBIAN = ["/usr/bin/ping", "/usr/bin/arping", "/usr/bin/clockdiff", "/usr/bin/mtr-packet",
          "/usr/bin/fping", "/usr/bin/su", "/usr/bin/passwd", "/usr/bin/mount"]

ODD_NAMES = [b"new\nline", b"bad\xffutf8", b"quo'te $(x) `y`", b"back\\slash\\", b"-dash"]


# --- trees ---------------------------------------------------------------------------

def compiled(ctx):
    """Compile the test programs once per run; return {name: path}."""
    if getattr(ctx, "bins", None):
        return ctx.bins
    out = ctx.tree("bins")
    bins = {}
    for name, src in SOURCES.items():
        c = os.path.join(out, name + ".c")
        with open(c, "w") as f:
            f.write(src)
        exe = os.path.join(out, name)
        subprocess.run(["cc", "-o", exe, c] + FLAGS.get(name, []), check=True)
        bins[name] = exe
    exe = os.path.join(out, "static")
    subprocess.run(["cc", "-static", "-o", exe, os.path.join(out, "plain.c")], check=True)
    bins["static"] = exe
    ctx.bins = bins
    return bins


def install(root, rel, src, mode, uid=0, gid=0, caps=None):
    dst = os.path.join(root.encode(), rel.lstrip(b"/") if isinstance(rel, bytes) else
                       rel.lstrip("/").encode())
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if isinstance(src, bytes):
        with open(dst, "wb") as f:
            f.write(src)
    else:
        shutil.copyfile(src, dst)
    os.chown(dst, uid, gid)
    os.chmod(dst, mode)
    if caps:
        subprocess.run(["setcap", caps, dst], check=True)
    os.utime(dst, (s2ctest.FIXED_MTIME, s2ctest.FIXED_MTIME))
    return dst


def tree_fixture(ctx, name="fixture"):
    """Compiled binaries, set-user-ID root: with and without rules, scripts, odd names."""
    b = compiled(ctx)
    root = ctx.tree(name)
    s2ctest.mkfile(root, "etc/os-release", 0o644, b'ID=debian\nPRETTY_NAME="Fixture Linux"\n')
    s2ctest.mkfile(root, "etc/passwd", 0o644, b"root:x:0:0:root:/root:/bin/sh\n")
    s2ctest.mkfile(root, "etc/group", 0o644, b"root:x:0:\nwireshark:x:142:\n")
    install(root, "usr/bin/clockdiff", b["sock"], 0o4755)          # rule: migrate
    install(root, "usr/bin/dumpcap", b["sock"], 0o4755)            # rule: root:wireshark 0750
    install(root, "usr/bin/su", b["plain"], 0o4755)                # rule: keep
    install(root, "usr/local/bin/rawsock", b["sock"], 0o4755)      # no rule: review
    install(root, "usr/local/bin/resvport", b["resvport"], 0o4755)  # no rule: migrate =ep
    install(root, "usr/local/bin/aware", b["aware"], 0o4755)       # no rule: migrate =p
    install(root, "usr/local/bin/static", b["static"], 0o4755)     # static: review
    install(root, "usr/local/bin/sgid", b["plain"], 0o2755)        # setgid root: review
    install(root, "usr/local/bin/script.sh", b"#!/bin/sh\necho hi\n", 0o4755)      # drop
    install(root, "usr/local/bin/oddscript", b"#!/usr/bin/\xffsh\n", 0o4755)  # reason not UTF-8
    install(root, "usr/local/bin/capscript", b"#!/bin/sh\necho hi\n", 0o755,
            caps="cap_net_raw=ep")                                                  # drop caps
    nscap = install(root, "usr/local/bin/nscap", b["plain"], 0o755)  # v3 caps: review
    subprocess.run(["setcap", "-n", "1000", "cap_net_raw+ep", nscap], check=True)
    os.utime(nscap, (s2ctest.FIXED_MTIME, s2ctest.FIXED_MTIME))
    for name in ODD_NAMES:
        install(root, b"opt/odd/" + name, b["resvport"], 0o4755)
    s2ctest.fix_dir_times(root)
    return root


def dpkg_lists(paths):
    """{package list file name: matching lines} for the packages owning @paths."""
    want = set()
    for p in paths:
        want.add(p)
        want.add(p.replace("/usr/bin/", "/bin/"))
    lists = {}
    for name in sorted(os.listdir("/var/lib/dpkg/info")):
        if not name.endswith(".list"):
            continue
        with open(os.path.join("/var/lib/dpkg/info", name), "rb") as f:
            lines = [l for l in f.read().decode(errors="replace").splitlines() if l in want]
        if lines:
            lists[name] = lines
    return lists


def tree_debian(ctx):
    """This machine's binaries as old systems had them: setuid root, no capabilities."""
    root = ctx.tree("debian")
    for path in DEBIAN:
        install(root, path, path, 0o4755)
    os.makedirs(os.path.join(root, "etc"))
    for name in ("os-release", "passwd", "group"):
        shutil.copyfile("/etc/" + name, os.path.join(root, "etc", name))
    info = os.path.join(root, "var/lib/dpkg/info")
    os.makedirs(info)
    for name, lines in dpkg_lists(DEBIAN).items():
        with open(os.path.join(info, name), "w") as f:
            f.write("".join(l + "\n" for l in lines))
    s2ctest.fix_dir_times(root)
    return root


# --- helpers --------------------------------------------------------------------------

def plan(ctx, root, *extra):
    return ctx.run(["plan", "--root", root, "--kernel", KERNEL, *extra])


def normalise_plan(data, tmp):
    """Blank what differs between machines and runs: identities, hashes, the tmp dir."""
    doc = json.loads(data)
    doc["database"]["hash"] = "<sha256>"
    doc["database"]["rules"] = "<rules>"
    for m in doc["mounts"]:
        m["fstype"] = "<fstype>"
    for e in doc["entries"]:
        for k in ("dev", "ino", "size", "mtime_ns"):
            e["identity"][k] = "<" + k + ">"
        if e["identity"]["sha256"]:
            e["identity"]["sha256"] = "<sha256>"
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return text.replace(tmp, "<tmp>").encode()


def normalise_text(data, tmp):
    data = data.replace(tmp.encode(), b"<tmp>")
    data = re.sub(rb"\b[0-9a-f]{64}\b", b"<sha256>", data)
    data = re.sub(rb"database [0-9a-f]{12}\b", b"database <hash>", data)
    return re.sub(rb"\(\d+ rules\)", b"(<n> rules)", data)


def validate(ctx, name, data):
    s2ctest.validate_json(ctx, name, json.loads(data), "plan.schema.json")


def lint_script(ctx, name, data):
    """sh -n and shellcheck, with no findings."""
    path = os.path.join(ctx.tmp, "lint-" + name.replace("/", "-"))
    with open(path, "wb") as f:
        f.write(data)
    p = subprocess.run(["sh", "-n", path], capture_output=True)
    ctx.check(f"{name} sh -n", p.returncode == 0, p.stderr.decode(errors="replace"))
    if shutil.which("shellcheck"):
        p = subprocess.run(["shellcheck", "-s", "sh", path], capture_output=True)
        ctx.check(f"{name} shellcheck", p.returncode == 0, p.stdout.decode(errors="replace"))


def goldens(ctx, root, case):
    for fmt, ext in FORMATS:
        rc, out, err = plan(ctx, root, "--format", fmt)
        ctx.check(f"plan/{case}.{ext} exit", rc == 0, f"exit {rc}, stderr {err!r}")
        ctx.check(f"plan/{case}.{ext} stderr", err == b"", f"stderr {err!r}")
        if fmt == "json":
            validate(ctx, f"plan/{case}.json", out)
            path = write(ctx, f"{case}-plan.json", out)
            rc, _, err = ctx.run(["plan", "--check", path])
            ctx.check(f"plan/{case}.json loads", rc == 0, f"exit {rc}: {err!r}")
            out = normalise_plan(out, ctx.tmp)
        else:
            if fmt in ("sh", "deb", "deb-postrm"):
                lint_script(ctx, f"plan/{case}.{ext}", out)
            out = normalise_text(out, ctx.tmp)
        ctx.golden("plan", f"{case}.{ext}", out)


def suid_ok(ctx):
    """Set-ID bits must be honoured where the trees live, or every file is inert."""
    return not os.statvfs(ctx.tmp).f_flag & os.ST_NOSUID


def state(path):
    st = os.lstat(path)
    caps = subprocess.run(["getcap", path], capture_output=True).stdout.strip()
    caps = caps[len(path) + 1:].decode() if caps else None
    return (st.st_mode & 0o7777, st.st_uid, st.st_gid, caps, st.st_ctime_ns)


def entry_path(root, e):
    raw = bytes.fromhex(e["path_hex"]) if "path_hex" in e else e["path"].encode()
    return root.encode() + raw


# --- tests ----------------------------------------------------------------------------

def test_fixture_formats(ctx):
    """Every format on compiled binaries (with and without rules, scripts, odd names)."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    goldens(ctx, tree_fixture(ctx), "fixture")


def test_debian_formats(ctx):
    """Every format on staged copies of ping, arping, clockdiff, mtr-packet, fping, su,
    passwd and mount."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    if not all(os.path.exists(p) for p in DEBIAN):
        print("  (needs " + " ".join(p for p in DEBIAN if not os.path.exists(p)) + ")")
        return SKIP
    goldens(ctx, tree_debian(ctx), "debian")


def test_deterministic(ctx):
    """The same system gives the same bytes; --timestamp adds only "created"."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    root = tree_fixture(ctx)
    runs = [plan(ctx, root)[1] for _ in range(3)]
    ctx.check("plan deterministic", runs[0] == runs[1] == runs[2], "plans differ")
    rc, out, err = plan(ctx, root, "--timestamp")
    doc = json.loads(out)
    ctx.check("timestamp", rc == 0 and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
                                                    doc.get("created", "")), repr(doc.get("created")))
    del doc["created"]
    ctx.check("timestamp only adds created", json.loads(runs[0]) == doc, "")
    validate(ctx, "plan --timestamp", out)


def acting(root):
    """What the script says on stderr before anything else when ROOT is the plan's."""
    return (f"suid2cap: acting on the root {root} (the plan's; ROOT=DIR in the environment "
            f"acts on DIR instead)\n").encode()


def run_script(ctx, script, env=None):
    path = os.path.join(ctx.tmp, "plan-run.sh")
    with open(path, "wb") as f:
        f.write(script)
    e = {"PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"), "LC_ALL": "C"}
    e.update(env or {})
    p = subprocess.run(["sh", path], capture_output=True, env=e)
    return p.returncode, p.stdout, p.stderr


def check_applied(ctx, case, root, doc, before):
    """Every change entry is in its state after, every other one as it was."""
    for e in doc["entries"]:
        path = entry_path(root, e)
        mode, uid, gid, caps, _ = state(path)
        want = e["after"] if e["action"] == "change" else e["before"]
        got = (f"{mode:04o}", uid, gid, caps)
        exp = (want["mode"], want["uid"], want["gid"], want["caps"])
        ctx.check(f"{case} {e['path']!r} state", got == exp, f"got {got}, plan says {exp}")
        if e["action"] == "none":
            ctx.check(f"{case} {e['path']!r} untouched", state(path) == before[path], "")


def test_sh_carries_out_plan(ctx):
    """The script leaves exactly the plan's state; a second run changes nothing; a plan
    of the result has nothing left to change."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    trees = [("fixture", tree_fixture(ctx))]
    if all(os.path.exists(p) for p in DEBIAN):
        trees.append(("debian", tree_debian(ctx)))
    for case, root in trees:
        rc, out, err = plan(ctx, root)
        doc = json.loads(out)
        rc, script, err = plan(ctx, root, "--format", "sh")
        changes = [e for e in doc["entries"] if e["action"] == "change"]
        ctx.check(f"{case} has changes", len(changes) >= 3, repr(doc["summary"]))
        before = {entry_path(root, e): state(entry_path(root, e)) for e in doc["entries"]}
        rc, out, err = run_script(ctx, script)
        ctx.check(f"{case} script exit", rc == 0, f"exit {rc}: {err!r}")
        # every mode with four digits, as the plan and the reports give them
        said = re.findall(rb": mode ([0-7]+) -> ([0-7]+), owner ", out)
        ctx.check(f"{case} script says what it did, modes in four digits",
                  len(said) == len(changes) and all(len(m) == 4 for pair in said for m in pair)
                  and (b"4755", b"0755") in said, out.decode(errors="replace"))
        check_applied(ctx, case, root, doc, before)
        after = {p: state(p) for p in before}
        rc, out, err = run_script(ctx, script)
        ctx.check(f"{case} second run exit", rc == 0, f"exit {rc}: {err!r}")
        ctx.check(f"{case} second run already done", out.count(b": already done\n") == len(changes),
                  out.decode(errors="replace"))
        ctx.check(f"{case} second run changes nothing", {p: state(p) for p in before} == after, "")
        rc, out, err = plan(ctx, root)
        ctx.check(f"{case} replan: nothing to change", json.loads(out)["summary"]["change"] == 0,
                  repr(json.loads(out)["summary"]))


def test_sh_root_variable(ctx):
    """ROOT points the script at a copy; the tree the plan was made on stays as it was.
    The header says so, and the script says on stderr which root it acts on, and from
    where, before it checks or changes anything; a root whose name tries to steer the
    script is only ever a quoted word and an escaped message."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    root = tree_fixture(ctx)
    copy = os.path.join(ctx.tmp, "fixture-copy")
    subprocess.run(["cp", "-a", root, copy], check=True)
    rc, out, _ = plan(ctx, root)
    doc = json.loads(out)
    rc, script, _ = plan(ctx, root, "--format", "sh")
    ctx.check("ROOT in the header", b"\n# ROOT in the environment overrides the root above: "
              b"ROOT=/mnt/copy sh SCRIPT\n" in script, script[:1500])
    before = {entry_path(root, e): state(entry_path(root, e)) for e in doc["entries"]}
    copy_before = {entry_path(copy, e): state(entry_path(copy, e)) for e in doc["entries"]}
    rc, out, err = run_script(ctx, script, {"ROOT": copy})
    ctx.check("ROOT copy exit", rc == 0, f"exit {rc}: {err!r}")
    ctx.check("ROOT copy: says where, first", err.startswith(
        f"suid2cap: acting on the root {copy} (ROOT in the environment)\n".encode()), f"{err!r}")
    ctx.check("ROOT original untouched", {p: state(p) for p in before} == before, "")
    check_applied(ctx, "ROOT copy", copy, doc, copy_before)

    # said before the directories are checked: a refusal comes after it, nothing changed
    bad = os.path.join(ctx.tmp, "fixture-bad")
    subprocess.run(["cp", "-a", root, bad], check=True)
    os.chmod(os.path.join(bad, "usr/bin"), 0o775)
    bad_before = {entry_path(bad, e): state(entry_path(bad, e)) for e in doc["entries"]}
    rc, out, err = run_script(ctx, script, {"ROOT": bad})
    lines = err.splitlines()
    ctx.check("unsafe copy: refused", rc == 1 and len(lines) == 2 and
              lines[0] == f"suid2cap: acting on the root {bad} (ROOT in the environment)".encode()
              and b"writable by group or others" in lines[1], f"exit {rc}: {err!r}")
    ctx.check("unsafe copy: untouched", {p: state(p) for p in bad_before} == bad_before, "")

    # the plan's own root, named to steer the script: quoted, escaped, obeyed as a path
    steer = ctx.tree("r $(touch PWNED) `touch PWNED2` 'q\x1b[31m")
    for rel in ("usr/local/bin/resvport", "usr/bin/clockdiff", "etc/passwd", "etc/group"):
        os.makedirs(os.path.dirname(os.path.join(steer, rel)), exist_ok=True)
        shutil.copy2(os.path.join(root, rel), os.path.join(steer, rel))
    rc, out, _ = plan(ctx, steer)
    sdoc = json.loads(out)
    rc, script, _ = plan(ctx, steer, "--format", "sh")
    lint_script(ctx, "steering root", script)
    sbefore = {entry_path(steer, e): state(entry_path(steer, e)) for e in sdoc["entries"]}
    path = os.path.join(ctx.tmp, "steer.sh")
    with open(path, "wb") as f:
        f.write(script)
    p = subprocess.run(["sh", path], capture_output=True, cwd=ctx.tmp,
                       env={"PATH": os.environ["PATH"], "LC_ALL": "C"})
    shown = steer.replace("\x1b", "\\x1b")
    ctx.check("steering root: exit 0", p.returncode == 0, f"{p.returncode} {p.stderr!r}")
    ctx.check("steering root: says where, escaped", p.stderr.startswith(
        f"suid2cap: acting on the root {shown} (the plan's; ROOT=DIR in the environment acts "
        f"on DIR instead)\n".encode()), f"{p.stderr!r}")
    ctx.check("steering root: nothing run", not any(n.startswith("PWNED") for n in
                                                    os.listdir(ctx.tmp)), f"{os.listdir(ctx.tmp)}")
    check_applied(ctx, "steering root", steer, sdoc, sbefore)


def test_sh_refuses(ctx):
    """A file whose content changed, or that became a symlink, is refused, untouched."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    root = tree_fixture(ctx)
    rc, script, _ = plan(ctx, root, "--format", "sh")
    target = os.path.join(root, "usr/bin/clockdiff")
    with open(target, "ab") as f:
        f.write(b"\0")
    os.chmod(target, 0o4755)
    rc, out, err = run_script(ctx, script)
    ctx.check("changed file refused", rc == 1 and
              b"suid2cap: /usr/bin/clockdiff: changed since the plan was made (SHA-256 differs), "
              b"refusing it\n" in err, f"exit {rc}: {err!r}")
    ctx.check("changed file untouched", state(target)[:4] == (0o4755, 0, 0, None), repr(state(target)))
    root = tree_fixture(ctx)
    rc, script, _ = plan(ctx, root, "--format", "sh")
    target = os.path.join(root, "usr/bin/clockdiff")
    os.rename(target, target + ".real")
    os.symlink("clockdiff.real", target)
    rc, out, err = run_script(ctx, script)
    ctx.check("symlink refused", rc == 1 and
              b"suid2cap: /usr/bin/clockdiff: not a regular file, refusing it\n" in err,
              f"exit {rc}: {err!r}")
    ctx.check("symlink target untouched", state(target + ".real")[0] == 0o4755, "")
    root = tree_fixture(ctx)
    rc, script, _ = plan(ctx, root, "--format", "sh")
    target = os.path.join(root, "usr/bin/clockdiff")
    os.chmod(target, 0o700)
    rc, out, err = run_script(ctx, script)
    ctx.check("another mode refused, modes in four digits", rc == 1 and
              b"suid2cap: /usr/bin/clockdiff: mode and owner are 0700 0:0, the plan says 4755 0:0; "
              b"refusing it\n" in err, f"exit {rc}: {err!r}")
    ctx.check("another mode untouched", state(target)[0] == 0o700, "")
    root = tree_fixture(ctx)
    rc, script, _ = plan(ctx, root, "--format", "sh")
    target = os.path.join(root, "usr/bin/clockdiff")
    os.link(target, os.path.join(root, "usr/bin/clockdiff.link"))
    rc, out, err = run_script(ctx, script)
    ctx.check("hard link refused", rc == 1 and b"2 hard links keep the privilege" in err,
              f"exit {rc}: {err!r}")
    rc, out, err = run_script(ctx, script, {"ALLOW_HARDLINKS": "1"})
    ctx.check("hard link allowed", rc == 0, f"exit {rc}: {err!r}")


def snapshot_tree(root):
    """(mode, uid, gid, caps, ctime) of every regular file under @root."""
    out = {}
    for dirpath, _, files in os.walk(root.encode()):
        for f in files:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                out[p] = state(p)
    return out


def test_sh_unsafe_dirs(ctx):
    """A directory on the way that is not root's, or that group or others can write, is
    refused before anything changes, whichever file it leads to."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    cases = [("usr/local/bin", lambda d: os.chown(d, 1, 1),
              b"suid2cap: /usr/local/bin/aware: directory /usr/local/bin is owned by uid 1, not "
              b"root: its owner could swap the file, refusing it\n"),
             ("usr/local", lambda d: os.chmod(d, 0o775),
              b"suid2cap: /usr/local/bin/aware: directory /usr/local is writable by group or "
              b"others: they could swap the file, refusing it\n"),
             ("opt/odd", lambda d: os.chmod(d, 0o1777),
              b"suid2cap: /opt/odd/-dash: directory /opt/odd is writable by group or others: they "
              b"could swap the file, refusing it\n"),
             ("", lambda d: os.chmod(d, 0o757),
              b"suid2cap: /opt/odd/-dash: directory / is writable by group or others: they could "
              b"swap the file, refusing it\n")]
    for rel, spoil, want in cases:
        root = tree_fixture(ctx)
        rc, script, _ = plan(ctx, root, "--format", "sh")
        spoil(os.path.join(root, rel))
        before = snapshot_tree(root)
        rc, out, err = run_script(ctx, script)
        ctx.check(f"unsafe {rel or '/'}: refused", rc == 1 and err == acting(root) + want,
                  f"exit {rc}: {err!r}")
        ctx.check(f"unsafe {rel or '/'}: nothing changed", snapshot_tree(root) == before, "")
    # a symbolic link on the way: the plan's directory moved, a link put in its place
    root = tree_fixture(ctx)
    rc, script, _ = plan(ctx, root, "--format", "sh")
    os.rename(os.path.join(root, "usr/local"), os.path.join(root, "usr/local.real"))
    os.symlink("local.real", os.path.join(root, "usr/local"))
    before = snapshot_tree(root)
    rc, out, err = run_script(ctx, script)
    ctx.check("symlinked directory refused", rc == 1 and err == acting(root) +
              b"suid2cap: /usr/local/bin/aware: /usr/local is a symbolic link or not a directory, "
              b"refusing it\n", f"exit {rc}: {err!r}")
    ctx.check("symlinked directory: nothing changed", snapshot_tree(root) == before, "")


# Run as root, with the directory open: become nobody, then swap NAME and DECOY in it
# (renameat2 RENAME_EXCHANGE), as the directory's owner can at any moment.
SWAP = r'''
import ctypes, os, sys
dfd = os.open(sys.argv[1], os.O_PATH | os.O_DIRECTORY)
os.setgroups([])
os.setgid(65534)
os.setuid(65534)
libc = ctypes.CDLL(None, use_errno=True)
if libc.renameat2(dfd, sys.argv[2].encode(), dfd, sys.argv[3].encode(), 2) != 0:
    sys.exit(os.strerror(ctypes.get_errno()))
'''


def test_sh_symlink_swap(ctx):
    """The owner of a directory on the way swaps the file for a symbolic link to a root-only
    file after the checks, right before chmod (renameat2 RENAME_EXCHANGE, as nobody), which
    follows the link.  The script refuses the directory before it runs chown, setcap or
    chmod at all, and the secret stays 0600."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    b = compiled(ctx)
    root = ctx.tree("swap")
    s2ctest.mkfile(root, "etc/passwd", 0o644, b"root:x:0:0:root:/root:/bin/sh\n")
    s2ctest.mkfile(root, "etc/group", 0o644, b"root:x:0:\n")
    secret = s2ctest.mkfile(root, "etc/secret", 0o600, b"root only\n")
    install(root, "opt/swap/tool", b["resvport"], 0o4755)
    rc, script, err = plan(ctx, root, "--format", "sh")
    ctx.check("swap plan", rc == 0 and b"\nchange '/opt/swap/tool'" in script, err)
    swapdir = os.path.join(root, "opt/swap")
    os.symlink(secret, os.path.join(swapdir, "decoy"))
    os.chown(swapdir, 65534, 65534)
    # chown, setcap and chmod log their calls; chmod lets the swap happen first
    wrap = ctx.tree("swap-bin")
    log = os.path.join(ctx.tmp, "swap.log")
    for tool in ("chown", "setcap", "chmod"):
        real = shutil.which(tool)
        swap = (f"[ -e {log}.swapped ] || {{ {sys.executable} -c \"$SWAP\" {swapdir} tool decoy "
                f"&& : > {log}.swapped; }}\n" if tool == "chmod" else "")
        with open(os.path.join(wrap, tool), "w") as f:
            f.write(f"#!/bin/sh\necho {tool} \"$@\" >> {log}\n{swap}exec {real} \"$@\"\n")
        os.chmod(os.path.join(wrap, tool), 0o755)
    rc, out, err = run_script(ctx, script, {"PATH": wrap + ":" + os.environ["PATH"],
                                            "SWAP": SWAP})
    ctx.check("swap refused", rc == 1 and err == acting(root) +
              b"suid2cap: /opt/swap/tool: directory /opt/swap is owned by uid 65534, not root: "
              b"its owner could swap the file, refusing it\n", f"exit {rc}: {err!r}")
    ctx.check("swap: no chown, setcap or chmod ran", not os.path.exists(log),
              open(log).read() if os.path.exists(log) else "")
    ctx.check("swap: the secret is still root's alone", state(secret)[:4] == (0o600, 0, 0, None),
              repr(state(secret)))
    ctx.check("swap: the program is untouched",
              state(os.path.join(swapdir, "tool"))[:4] == (0o4755, 0, 0, None), "")


def test_parents(ctx):
    """A file below a directory that is not root's, or that group or others can write, is
    planned as action "none" with the directory in its reason and a warning; the plan
    loads, the script leaves it alone, and migrate holds it back too."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    b = compiled(ctx)
    root = ctx.tree("parents")
    s2ctest.mkfile(root, "etc/os-release", 0o644, b"ID=debian\n")
    s2ctest.mkfile(root, "etc/passwd", 0o644, b"root:x:0:0:root:/root:/bin/sh\n")
    s2ctest.mkfile(root, "etc/group", 0o644, b"root:x:0:\n")
    install(root, "usr/bin/clockdiff", b["sock"], 0o4755)
    install(root, "opt/vendor/bin/tool", b["resvport"], 0o4755)
    install(root, "srv/shared/tool", b["resvport"], 0o4755)
    install(root, "srv/group/tool", b["resvport"], 0o4755)
    os.chown(os.path.join(root, "opt/vendor"), 1000, 1000)
    os.chmod(os.path.join(root, "srv/shared"), 0o1777)
    os.chmod(os.path.join(root, "srv/group"), 0o775)
    s2ctest.fix_dir_times(root)
    rc, out, err = plan(ctx, root)
    ctx.check("parents plan exit", rc == 0, f"exit {rc}: {err!r}")
    validate(ctx, "plan/parents.json", out)
    ctx.golden("plan", "parents.json", normalise_plan(out, ctx.tmp))
    ctx.golden("plan", "parents.err", normalise_text(err, ctx.tmp))
    doc = json.loads(out)
    held = {e["path"]: e for e in doc["entries"] if e["action"] == "none"}
    ctx.check("parents: three held back", sorted(held) == [
        "/opt/vendor/bin/tool", "/srv/group/tool", "/srv/shared/tool"], repr(sorted(held)))
    ctx.check("parents: the rest changes", doc["summary"]["change"] == 1, repr(doc["summary"]))
    path = write(ctx, "parents-plan.json", out)
    rc, out, err = ctx.run(["plan", "--check", path])
    ctx.check("parents: the plan loads", rc == 0, f"exit {rc}: {err!r}")
    rc, script, err = plan(ctx, root, "--format", "sh")
    lint_script(ctx, "plan/parents.sh", script)
    ctx.golden("plan", "parents.sh", normalise_text(script, ctx.tmp))
    before = snapshot_tree(root)
    rc, out, err = run_script(ctx, script)
    ctx.check("parents: script exit", rc == 0, f"exit {rc}: {err!r}")
    after = snapshot_tree(root)
    for p in held:
        f = root.encode() + p.encode()
        ctx.check(f"parents: {p} untouched", after[f] == before[f], repr(after[f]))
    ctx.check("parents: clockdiff changed",
              after[root.encode() + b"/usr/bin/clockdiff"][0] == 0o755, "")
    # migrate plans the same way: the held files are left as they are, with a warning
    rc, out, err = ctx.run(["migrate", "--root", root, "--kernel", KERNEL, "--dry-run"])
    ctx.check("parents: migrate holds back", rc == 0 and err.count(b"cannot change '") == 3 and
              b"0 changes, 4 files left as they are\n" in out, f"exit {rc}: {out!r} {err!r}")


def write(ctx, name, data):
    path = os.path.join(ctx.tmp, name)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, 0o644)
    return path


def check_golden(ctx, case, path, want_rc):
    rc, out, err = ctx.run(["plan", "--check", path])
    ctx.check(f"check {case} exit", rc == want_rc, f"exit {rc}: {err!r}")
    if want_rc == 0:
        ctx.golden("plan", f"check-{case}.txt", normalise_text(out, ctx.tmp))
    else:
        ctx.check(f"check {case} stdout", out == b"", repr(out))
        ctx.golden("plan", f"check-{case}.err", normalise_text(err, ctx.tmp))


def check_json(ctx, path, want_rc):
    """--format json gives the problems the text names, each as {file, path, message}."""
    rc, text_out, err = ctx.run(["plan", "--check", path])
    rc_json, out, err_json = ctx.run(["plan", "--check", path, "--format", "json"])
    name = os.path.basename(path)
    ctx.check(f"check {name} json exit", rc_json == rc == want_rc, f"exit {rc_json}: {err_json!r}")
    doc = json.loads(out)
    ctx.check(f"check {name} json document", doc["kind"] == "suid2cap-plan-check" and
              doc["file"] == path and doc["valid"] == (want_rc == 0) and
              doc["problems_not_shown"] == 0, repr(doc))
    lines = [p["message"] if p["path"] is None else f"{p['file']}: {p['path']}: {p['message']}"
             for p in doc["problems"]]
    said = [line[len("suid2cap: error: "):] for line in err.decode().splitlines()
            if line.startswith("suid2cap: error: ")]
    ctx.check(f"check {name} json problems are the text's", lines == said and
              (want_rc == 0) == (lines == []), f"{lines!r} != {said!r}")
    ctx.check(f"check {name} json stderr", err_json == b"", repr(err_json))


def mutated(doc, fn):
    d = json.loads(json.dumps(doc))
    fn(d)
    return json.dumps(d, indent=1).encode()


def test_check(ctx):
    """plan --check: a good plan, and every kind of bad one, each problem with its path."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    root = tree_fixture(ctx, "check")
    good = os.path.join(ctx.tmp, "good.json")
    rc, out, err = plan(ctx, root, "-o", good)
    ctx.check("plan -o exit", rc == 0 and out == b"", f"exit {rc}: {err!r}")
    check_golden(ctx, "good", good, 0)
    text = open(good, "rb").read()
    doc = json.loads(text)
    check_golden(ctx, "truncated", write(ctx, "truncated.json", text[:len(text) // 2]), 1)
    check_golden(ctx, "malformed", write(ctx, "malformed.json",
                                         b'{"schema": 1, "kind": \'suid2cap-plan\'}'), 1)
    check_golden(ctx, "empty", write(ctx, "empty.json", b""), 1)

    def types(d):
        d["schema"] = "1"
        d["host"]["live"] = 0
        d["entries"][0]["before"]["uid"] = "0"
        d["entries"][1]["identity"]["size"] = 1.5
        d["entries"][2]["warnings"] = "none"
    check_golden(ctx, "types", write(ctx, "types.json", mutated(doc, types)), 1)

    def unknown(d):
        d["comment"] = "hand-edited"
        d["entries"][3]["approved"] = True
        d["entries"][3]["after"]["caps_raw"] = None
        del d["entries"][4]["reason"]
    check_golden(ctx, "unknown-keys", write(ctx, "unknown.json", mutated(doc, unknown)), 1)

    def values(d):
        change = [e for e in d["entries"] if e["action"] == "change"]
        change[0]["after"]["mode"] = "4755"
        change[1]["after"]["caps"] = "cap_bogus=ep"
        change[2]["identity"]["sha256"] = None
        change[3]["after"]["uid"] = 4294967295
        d["entries"][-1]["path"] = d["entries"][-2]["path"]
        d["summary"]["review"] += 1
    check_golden(ctx, "values", write(ctx, "values.json", mutated(doc, values)), 1)
    check_json(ctx, good, 0)
    for name in ("types.json", "unknown.json", "values.json", "malformed.json"):
        check_json(ctx, os.path.join(ctx.tmp, name), 1)
    rc, out, err = ctx.run(["plan", "--check", os.path.join(ctx.tmp, "missing.json")])
    ctx.check("check missing file", rc == 4 and b"cannot open" in err, f"exit {rc}: {err!r}")
    link = os.path.join(ctx.tmp, "link.json")
    os.symlink(good, link)
    rc, out, err = ctx.run(["plan", "--check", link])
    ctx.check("check symlink not followed", rc == 4 and b"Too many levels of symbolic links" in err,
              f"exit {rc}: {err!r}")


def test_check_trust(ctx):
    """As root, a plan writable by others or not owned by root is refused (exit 5)."""
    if not is_root():
        return SKIP
    root = ctx.tree("trust")
    s2ctest.mkfile(root, "usr/bin/su", 0o4755, uid=0, gid=0)
    good = os.path.join(ctx.tmp, "trusted.json")
    rc, out, err = plan(ctx, root, "-o", good)
    os.chmod(good, 0o666)
    rc, out, err = ctx.run(["plan", "--check", good])
    ctx.check("check writable exit", rc == 5, f"exit {rc}: {err!r}")
    ctx.golden("plan", "check-writable.err", normalise_text(err, ctx.tmp))
    os.chmod(good, 0o644)
    os.chown(good, 1, 1)
    rc, out, err = ctx.run(["plan", "--check", good])
    ctx.check("check not root-owned exit", rc == 5, f"exit {rc}: {err!r}")
    ctx.golden("plan", "check-owner.err", normalise_text(err, ctx.tmp))
    # unprivileged, the same file is only checked for what it says
    os.chmod(ctx.tmp, 0o755)
    rc, out, err = ctx.run(["plan", "--check", good],
                           prefix=["setpriv", "--reuid=1", "--regid=1", "--clear-groups", "--"])
    ctx.check("check unprivileged", rc == 0, f"exit {rc}: {err!r}")


def test_errors(ctx):
    rc, out, err = ctx.run(["plan", "--check", "x.json", "--format", "sh"])
    ctx.check("check with format", rc == 2, f"exit {rc}")
    ctx.golden("plan", "check-with-format.err", err)
    rc, out, err = ctx.run(["plan", "--format", "yaml"])
    ctx.check("bad format", rc == 2, f"exit {rc}")
    ctx.golden("plan", "bad-format.err", err)
    rc, out, err = ctx.run(["plan", "--help"])
    ctx.check("help", rc == 0 and b"--check PLAN" in out and b"--timestamp" in out, out)
    rc, out, err = ctx.run(["plan", "--root", "/nonexistent-root"])
    ctx.check("missing root", rc == 2, f"exit {rc}")
    # a relative path is named with the directory it is relative to
    d = ctx.tree("relative")
    env = {"LC_ALL": "C", "PATH": os.environ["PATH"]}
    for argv, want, code in (
            (["plan", "--root", d, "--db", "nosuch"],
             f"cannot use --db '{d}/nosuch': No such file or directory", 2),
            (["explain", "--root", d, "--db", "nosuch", "/"],
             f"cannot use --db '{d}/nosuch': No such file or directory", 2),
            (["plan", "--check", "nosuch.json"],
             f"cannot open '{d}/nosuch.json': No such file or directory", 4),
            (["apply", "nosuch.json"],
             f"cannot open '{d}/nosuch.json': No such file or directory", 4),
            (["scan", "--root", "nosuch"],
             f"cannot use root '{d}/nosuch': No such file or directory", 2)):
        p = subprocess.run([ctx.binary, *argv], capture_output=True, cwd=d, env=env)
        ctx.check(f"{' '.join(argv)}: exit {code}", p.returncode == code, f"exit {p.returncode}")
        ctx.check(f"{' '.join(argv)}: names the full path", want.encode() in p.stderr,
                  f"{p.stderr!r}")


def test_output_file(ctx):
    """-o neither follows nor replaces a symlink, writes atomically, and a full stdout is an
    error."""
    root = ctx.tree("outfile")
    s2ctest.mkfile(root, "usr/bin/su", 0o4755)
    target = os.path.join(ctx.tmp, "plan-out.sh")
    decoy = os.path.join(ctx.tmp, "plan-decoy")
    with open(decoy, "w") as f:
        f.write("keep me\n")
    os.symlink(decoy, target)
    rc, out, err = plan(ctx, root, "--format", "sh", "-o", target)
    ctx.check("-o symlink refused", rc == 4 and b"symbolic link" in err, f"exit {rc}: {err!r}")
    ctx.check("-o symlink and decoy kept", os.readlink(target) == decoy and
              open(decoy).read() == "keep me\n", "")
    os.unlink(target)
    rc, out, err = plan(ctx, root, "--format", "sh", "-o", target)
    ctx.check("-o exit", rc == 0, f"exit {rc}: {err!r}")
    ctx.check("-o wrote the script", open(target).read().startswith("#!/bin/sh"), "")
    with open("/dev/full", "wb") as full:
        p = subprocess.run([ctx.binary, "plan", "--root", root, "--kernel", KERNEL],
                           stdout=full, stderr=subprocess.PIPE)
    ctx.check("full stdout", p.returncode == 4 and b"cannot write" in p.stderr,
              f"exit {p.returncode}: {p.stderr!r}")


# --- rpm: hostile names through a real rpmbuild ---------------------------------------

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]

# Names rpm must not read as anything but themselves: macros and %files directives (bare,
# doubled, in braces), spaces and quotes, escapes, globs, controls, bad UTF-8.
HOSTILE_PIECES = [
    b"%", b"%%", b"%%%", b"%{", b"%{x}", b"%{?x:y}", b"%{!?x:y}", b"%(id)", b"%{lua:print(1)}",
    b"%caps(cap_sys_admin=ep)", b"%%caps(cap_sys_admin=ep)", b"%attr(4755,root,root)",
    b"%attr(-,root,root)", b"%defattr(-,root,root)", b"%config", b"%config(noreplace)", b"%dir",
    b"%doc", b"%ghost", b"%exclude", b"%license", b"%lang(de)", b"%verify(not md5)",
    b"%dev(c,1,3)", b"%artifact", b"%readme", b"%missingok", b"%docdir", b"%_bindir",
    b" ", b"  ", b"\t", b"\n", b"\r", b"\v", b"\f", b"\x1b[31m", b"\x7f", b"\xc2\x85",
    b'"', b"'", b"\\", b"\\\\", b"\\*", b"*", b"?", b"[", b"]", b"[ab]", b"{", b"}", b"{a,b}",
    b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80",
    b"\xc3\xbcn\xc3\xafc\xc3\xb6de", b"\xf0\x9f\x98\x80", b"\xc2\xa0", b"\xe3\x80\x80",
    b"\xe2\x80\xa8", b"#", b",", b"(", b")", b"=", b"~", b"$(id)", b"`id`", b"$HOME", b";",
    b"&", b"|", b"<", b">", b"!", b"@", b"^", b"-", b"--", b"-rf", b":", b"+",
]

# Names a spec file can carry: these must be packaged, not skipped.
EXPRESSIBLE = [b"plain", b"two words", b"two  spaces", b" lead", b"trail ", b"-dash", b"--",
               b"\xc3\xbcn\xc3\xafc\xc3\xb6de", b"\xf0\x9f\x98\x80", b"nbsp\xc2\xa0x", b"#hash",
               b"x#y", b"c,d", b"p(q)", b"e=f", b"~tilde", b"q'uote", b"$(id)", b"`id`", b"semi;",
               b"L" * 255]


def hostile_names(count=160, seed=20240611):
    """The pieces alone, the expressible names, and seeded random mixes of both."""
    import random
    rng = random.Random(seed)
    names = set(EXPRESSIBLE)
    for piece in HOSTILE_PIECES:
        names.add(b"x" + piece)
        names.add(piece + b"y")
    words = HOSTILE_PIECES + [b"a", b"bin", b"tool", b"sp ace"]
    while len(names) < len(EXPRESSIBLE) + 2 * len(HOSTILE_PIECES) + count:
        name = b"".join(rng.choice(words) for _ in range(rng.randint(2, 5)))
        if b"/" not in name and name not in (b".", b"..") and len(name) <= 255:
            names.add(name)
    names.add(b"L" * 200 + b"%caps(cap_sys_admin=ep)" + b"M" * 32)
    return sorted(names)


def tree_hostile(ctx, names, passwd=b"root:x:0:0:root:/root:/bin/sh\n", dirs=True):
    """Each name set-user-ID root, alternately a program (migrate) and a script (drop);
    a few in directories with hostile names of their own."""
    b = compiled(ctx)
    root = ctx.tree("hostile")
    s2ctest.mkfile(root, "etc/os-release", 0o644, b"ID=debian\n")
    s2ctest.mkfile(root, "etc/passwd", 0o644, passwd)
    s2ctest.mkfile(root, "etc/group", 0o644, b"root:x:0:\n")
    rels = [b"usr/local/bin/" + name for name in names]
    for d in (b"%{x}", b"sp ace", b"st*r", b"%caps(cap_sys_admin=ep)", b"\xff") if dirs else ():
        rels.append(b"opt/" + d + b"/tool")
    for i, rel in enumerate(rels):
        if i % 3 == 2:
            install(root, rel, b"#!/bin/sh\necho hi\n", 0o4755)
        else:
            install(root, rel, b["resvport"], 0o4755)
    s2ctest.fix_dir_times(root)
    return root, [b"/" + r for r in rels]


RPM_QF = "[%{FILENAMES}\\t%{FILEMODES:octal}\\t%{FILEUSERNAME}\\t%{FILEGROUPNAME}\\t%{FILECAPS}\\n]"


def rpmbuild(ctx, files, paths):
    """Build a package from the %files lines @files, over a buildroot holding every one of
    @paths, as nobody in a private directory (no host rpm database is read or written).
    Returns (rpmbuild result, {path: (mode, user, group, caps)})."""
    import tempfile
    top = tempfile.mkdtemp(prefix="s2c-rpm-")
    try:
        stage = os.path.join(top, "stage").encode()
        for p in paths:
            dst = stage + p
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(b"payload\n")
        spec = os.path.join(top, "t.spec")
        with open(spec, "wb") as f:
            f.write(b"Name: s2ctest\nVersion: 1\nRelease: 1\nSummary: t\nLicense: none\n"
                    b"BuildArch: noarch\nAutoReqProv: no\n"
                    b"%define _unpackaged_files_terminate_build 0\n"
                    b"%define debug_package %{nil}\n%global __os_install_post %{nil}\n"
                    b"%description\nsuid2cap rpm emitter test\n"
                    b"%install\ncp -a '" + stage + b"/.' '%{buildroot}/'\n%files\n" + files)
        subprocess.run(["chown", "-R", "65534:65534", top], check=True)
        defs = []
        for k, v in (("_topdir", top), ("_dbpath", top + "/db"), ("_tmppath", top),
                     ("_build_id_links", "none")):
            defs += ["--define", f"{k} {v}"]
        env = {"HOME": top, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
        p = subprocess.run(NOBODY + ["rpmbuild", "-bb", "--nodeps", *defs, spec],
                           capture_output=True, env=env)
        if p.returncode != 0:
            return p, None
        rpms = [os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(top, "RPMS"))
                for f in fs if f.endswith(".rpm")]
        q = subprocess.run(NOBODY + ["rpm", "-qp", "--dbpath", top + "/db", "--qf", RPM_QF,
                                     *rpms], capture_output=True, env=env)
        if q.returncode != 0:
            return q, None
        got = {}
        for line in q.stdout.split(b"\n"):
            if line:
                name, mode, user, group, caps = line.split(b"\t")
                got[name] = (int(mode, 8) & 0o7777, user.decode(), group.decode(),
                             caps.decode() if caps not in (b"", b"(none)") else None)
        return p, got
    finally:
        shutil.rmtree(top, ignore_errors=True)


def planned(doc):
    """{path: (mode, owner, group, caps)} of the entries a package would carry."""
    want = {}
    for e in doc["entries"]:
        if e["verdict"] in ("migrate", "drop"):
            a = e["after"]
            raw = bytes.fromhex(e["path_hex"]) if "path_hex" in e else e["path"].encode()
            want[raw] = (int(a["mode"], 8), a["owner"], a["group"], a["caps"])
    return want


def check_rpm(ctx, case, names, dirs=True):
    """Plan a tree of @names, build its rpm; the package holds only planned files, each as
    planned, and each file left out has its comment.  Returns (packaged, left out)."""
    root, paths = tree_hostile(ctx, names, dirs=dirs)
    rc, out, err = plan(ctx, root)
    ctx.check(f"{case}: plan", rc == 0, f"exit {rc}: {err!r}")
    want = planned(json.loads(out))
    ctx.check(f"{case}: every file planned", len(want) == len(paths), f"{len(want)} {len(paths)}")
    rc, spec, err = plan(ctx, root, "--format", "rpm")
    ctx.check(f"{case}: rpm exit", rc == 0, f"exit {rc}: {err!r}")
    p, got = rpmbuild(ctx, spec, paths)
    ctx.check(f"{case}: rpmbuild", got is not None, p.stderr.decode(errors="replace")[-3000:])
    if got is None:
        return {}, []
    extra = {k: v for k, v in got.items() if k not in want or want[k] != v}
    ctx.check(f"{case}: only planned files, as planned", not extra,
              f"{extra!r}; planned: {[want.get(k) for k in extra]!r}")
    skipped = [k for k in want if k not in got]
    comments = spec.count(b", skipping it\n")
    ctx.check(f"{case}: every file left out has a comment", comments == len(skipped),
              f"{comments} comments, {len(skipped)} left out")
    return got, skipped


def test_rpm_hostile_names(ctx):
    """rpmbuild packages exactly the planned files with the planned modes, owners and
    capabilities, whatever the names; names it cannot take literally are comments."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    if not shutil.which("rpmbuild"):
        print("  (needs rpmbuild, from Debian's rpm package)")
        return SKIP
    # "%%caps(...)" is expanded to "%caps(...)" before %files is read, and obeyed (the
    # third name is a script: a drop entry, no %caps() of its own)
    got, skipped = check_rpm(ctx, "rpm %caps", [b"bash", b"sh", b"bash%caps(cap_sys_admin=ep)"],
                             dirs=False)
    ctx.check("rpm %caps: bash as planned", got.get(b"/usr/local/bin/bash") ==
              (0o755, "root", "root", "cap_net_bind_service=ep"), repr(got))
    names = hostile_names()
    got, skipped = check_rpm(ctx, "rpm names", names)
    for name in EXPRESSIBLE:
        path = b"/usr/local/bin/" + name
        ctx.check(f"rpm carries {name!r}", path in got, repr(got.get(path)))
    ctx.check("rpm carries /opt/sp ace/tool", b"/opt/sp ace/tool" in got, "")
    ctx.check("rpm has %caps() files", sum(1 for v in got.values() if v[3]) > 20, "")
    ctx.check("rpm leaves hostile names out", len(skipped) > len(HOSTILE_PIECES), len(skipped))
    print(f"  ({len(names) + 5} names: {len(got)} packaged, {len(skipped)} left out)")
    # an owner or group name %attr() cannot carry: every entry is a comment
    for owner in (b"r%caps(cap_sys_admin=ep)", b"ro,ot", b"r o", b"-", b'r"', b"r#x"):
        root, paths = tree_hostile(ctx, [b"plain", b"two words"],
                                   passwd=owner + b":x:0:0::/root:/bin/sh\n")
        rc, spec, err = plan(ctx, root, "--format", "rpm")
        ctx.check(f"owner {owner!r}: no %attr line", rc == 0 and b"\n%attr" not in spec and
                  spec.count(b", skipping it\n") == len(paths) and
                  b"cannot carry the name of its owner or group, skipping it\n" in spec,
                  spec.decode(errors="replace"))
        p, got = rpmbuild(ctx, spec, paths)
        ctx.check(f"owner {owner!r}: empty package", got == {}, repr(got) + repr(p.stderr[-2000:]))
    return None

# --- deb: the postinst run in a throwaway root -----------------------------------------

# Run in a private mount namespace: a fresh ramfs or tmpfs as the root of a chroot, the
# host's /usr bound read-only, its own /etc, an empty dpkg database, the planned files
# copied in; then the postinst, then the state of each file and of the database as JSON.
DEB_NS = r'''
import json, os, shutil, subprocess, sys
c = json.loads(sys.argv[1])
new = c["new"]
def run(*a):
    subprocess.run(a, check=True)
run("mount", "-t", c["fstype"], "s2ctest", new)
for d in ("usr", "etc", "dev", "var/lib/dpkg/updates", "tmp"):
    os.makedirs(os.path.join(new, d))
for d in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"):
    if d != "usr" and os.path.islink("/" + d):
        os.symlink(os.readlink("/" + d), os.path.join(new, d))
    elif os.path.isdir("/" + d) and not os.path.islink("/" + d):
        os.makedirs(os.path.join(new, d), exist_ok=True)
        run("mount", "--bind", "/" + d, os.path.join(new, d))
        run("mount", "-o", "remount,bind,ro", os.path.join(new, d))
open(new + "/dev/null", "w").close()
run("mount", "--bind", "/dev/null", new + "/dev/null")
with open(new + "/etc/passwd", "w") as f:
    f.write("root:x:0:0:root:/root:/bin/sh\n")
with open(new + "/etc/group", "w") as f:
    f.write("root:x:0:\ngames:x:60:\nmessagebus:x:105:\n")
with open(new + "/var/lib/dpkg/statoverride", "w") as f:
    f.write(c["overrides"])
run("cp", "-a", c["tree"] + "/opt", new + "/opt")
# what dpkg unpacks: the package's modes and owners, then the administrator's overrides
for rel, (mode, uid, gid) in c["shipped"].items():
    os.chown(new + rel, uid, gid)
    os.chmod(new + rel, int(mode, 8))
for line in c["overrides"].splitlines():
    owner, group, mode, rel = line.split(" ", 3)
    os.chown(new + rel, 0 if owner == "root" else int(owner.lstrip("#")),
             {"root": 0, "games": 60, "messagebus": 105}.get(group, 0))
    os.chmod(new + rel, int(mode, 8))
for name in ("postinst", "postrm"):
    if c.get(name):
        shutil.copyfile(c[name], new + "/" + name)
def chroot(*argv):
    return subprocess.run(["chroot", new, *argv], capture_output=True, cwd=new + "/tmp")
# a local diversion: the package's program moved aside, the admin's own file in its place
for path, wrapper in c.get("divert", {}).items():
    p = chroot("dpkg-divert", "--local", "--rename", "--divert", path + ".real", "--add", path)
    assert p.returncode == 0, p.stderr
    with open(new + path, "w") as f:
        f.write(wrapper)
    os.chmod(new + path, 0o750)
def states():
    files = {}
    for rel in c["rels"]:
        st = os.lstat(new + rel)
        caps = subprocess.run(["getcap", new + rel], capture_output=True).stdout.decode()
        files[rel] = [oct(st.st_mode & 0o7777)[2:], st.st_uid, st.st_gid,
                      caps[len(new + rel):].strip() if caps else None]
    return files
def overrides():
    with open(new + "/var/lib/dpkg/statoverride") as f:
        return sorted(f.read().splitlines())
out = {}
p = chroot("/bin/sh", "/postinst", "configure")
out["postinst"] = {"rc": p.returncode, "stderr": p.stderr.decode(errors="replace"),
                   "files": states(), "statoverride": overrides()}
if c.get("postrm"):
    for line in c.get("changed", []):        # an override changed after the postinst
        path = line.rsplit(" ", 1)[1]
        assert chroot("dpkg-statoverride", "--remove", path).returncode == 0
        assert chroot("dpkg-statoverride", "--add", *line.split(" ")).returncode == 0
    p = chroot("/bin/sh", "/postrm", "remove")
    out["postrm"] = {"rc": p.returncode, "stderr": p.stderr.decode(errors="replace"),
                     "statoverride": overrides()}
out["pwned"] = [n for n in os.listdir(new + "/tmp") + os.listdir(new) if "PWNED" in n]
print(json.dumps(out))
'''

STEER = "/opt/s2ctest/bin/st'eer $(touch PWNED) `touch PWNED2`;x"
HELPER = "/opt/s2ctest/bin/helper"
DEB_FILES = ["/opt/s2ctest/games/mygame", "/opt/s2ctest/bin/pinger", "/opt/s2ctest/bin/drop.sh",
             "/opt/s2ctest/bin/x*", STEER, HELPER]
# What the package ships when built as the postinst's comments say: each file the postinst
# migrates whose owner and group base-passwd allocates, in its state after; the others as
# they were (x* is left out of the snippet, the helper's group is allocated at install time).
DEB_SHIPPED = {"/opt/s2ctest/games/mygame": ["2755", 0, 60],
               "/opt/s2ctest/bin/pinger": ["0755", 0, 0],
               "/opt/s2ctest/bin/drop.sh": ["0755", 0, 0], STEER: ["0755", 0, 0]}


def tree_deb(ctx):
    """A setuid-root, setgid-games program a local rule migrates (6755 root:games -> 2755 +
    caps: the set-group-ID bit to a non-root group stays), a set-user-ID program, a
    set-user-ID script, a set-user-ID program named "x*", and one whose name tries to
    steer the scripts (quotes, $(...), backquotes, a semicolon)."""
    b = compiled(ctx)
    root = ctx.tree("deb")
    s2ctest.mkfile(root, "etc/os-release", 0o644, b"ID=debian\n")
    s2ctest.mkfile(root, "etc/passwd", 0o644, b"root:x:0:0:root:/root:/bin/sh\n")
    s2ctest.mkfile(root, "etc/group", 0o644, b"root:x:0:\ngames:x:60:\nmessagebus:x:105:\n")
    install(root, "opt/s2ctest/games/mygame", b["sock"], 0o6755, gid=60)
    install(root, "opt/s2ctest/bin/pinger", b["resvport"], 0o4755)
    install(root, "opt/s2ctest/bin/drop.sh", b"#!/bin/sh\necho hi\n", 0o4755)
    install(root, "opt/s2ctest/bin/x*", b["resvport"], 0o4755)
    install(root, STEER, b["resvport"], 0o4755)
    # set-user-ID root, group messagebus (allocated at install time): only a statoverride
    install(root, HELPER, b["resvport"], 0o4754, gid=105)
    s2ctest.fix_dir_times(root)
    db = ctx.tree("debdb")
    with open(os.path.join(db, "local.json"), "w") as f:
        json.dump({"schema": 1, "area": "local", "rules": [{
            "id": "s2ctest.mygame", "program": "a game that pings",
            "match": {"paths": ["/opt/s2ctest/games/mygame"]}, "verdict": "migrate",
            "caps": "cap_net_raw=ep", "reason": "test", "sources": ["man:ping(8)"]}, {
            "id": "s2ctest.helper", "program": "a helper of a group allocated at install time",
            "match": {"paths": [HELPER]}, "verdict": "migrate", "caps": "cap_net_bind_service=ep",
            "reason": "test", "sources": ["man:bind(2)"]}]}, f)
    return root, db


def run_deb_scripts(ctx, fstype, root, postinst, postrm=None, overrides="", divert=None,
                    changed=(), rels=DEB_FILES, shipped=None):
    """The postinst (then the postrm with "remove") chrooted into a fresh @fstype with its
    own dpkg database, in a private mount namespace, on the files as dpkg unpacks them."""
    new = ctx.tree("postinst-" + fstype)
    conf = {"new": new, "fstype": fstype, "tree": root, "postinst": postinst, "postrm": postrm,
            "overrides": overrides, "divert": divert or {}, "changed": list(changed),
            "rels": list(rels), "shipped": DEB_SHIPPED if shipped is None else shipped}
    p = subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable, "-c",
                        DEB_NS, json.dumps(conf)],
                       capture_output=True, env={"PATH": os.environ["PATH"], "LC_ALL": "C"})
    ctx.check(f"postinst on {fstype} ran", p.returncode == 0, p.stderr.decode(errors="replace"))
    return json.loads(p.stdout) if p.returncode == 0 else None


def test_deb_postinst(ctx):
    """The postinst and postrm in a throwaway root, on the files as dpkg unpacks a package
    built as the postinst says (each in its state after; a group allocated at install time
    as before): where setcap fails (ramfs) each file gets back its exact owner, group and
    mode, and an override added for it goes; where it works (tmpfs) each file ends as
    planned, with a dpkg-statoverride only for the group allocated at install time; an
    administrator's override stands; a name with a glob character is never handed to
    dpkg-statoverride, and one that tries to steer the script is a quoted word; a diverted
    program is changed where dpkg-divert --truename says it is; the postrm takes back
    exactly the overrides the postinst added and keeps any other."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    for tool in ("unshare", "chroot", "dpkg-statoverride", "dpkg-divert", "setcap"):
        if not shutil.which(tool):
            print(f"  (needs {tool})")
            return SKIP
    with open("/var/lib/dpkg/statoverride", "rb") as f:
        host_db = f.read()
    with open("/var/lib/dpkg/diversions", "rb") as f:
        host_div = f.read()
    root, db = tree_deb(ctx)
    rc, out, err = plan(ctx, root, "--db", db)
    doc = json.loads(out)
    got = {e["path"]: (e["verdict"], e["action"], e["after"]["mode"]) for e in doc["entries"]}
    ctx.check("deb plan", rc == 0 and got == {
        "/opt/s2ctest/bin/drop.sh": ("drop", "change", "0755"),
        HELPER: ("migrate", "change", "0754"),
        "/opt/s2ctest/bin/pinger": ("migrate", "change", "0755"),
        STEER: ("migrate", "change", "0755"),
        "/opt/s2ctest/bin/x*": ("migrate", "change", "0755"),
        "/opt/s2ctest/games/mygame": ("migrate", "change", "2755")}, f"{got!r} {err!r}")
    rc, text, err = plan(ctx, root, "--db", db, "--format", "deb")
    lint_script(ctx, "deb postinst", text)
    ctx.check("deb: no statoverride for x*", b"'/opt/s2ctest/bin/x*'" not in text and
              b"\t# /opt/s2ctest/bin/x*: migrate: dpkg-statoverride cannot take this name "
              b"literally (a newline, or a glob character), skipping it\n" in text, text)
    ctx.check("deb: never chmod u+s", b"u+s" not in text, text)
    ctx.check("deb: the true name of each file", text.count(b"\tf=$(dpkg-divert --truename '") ==
              5, text)
    ctx.check("deb: dpkg-statoverride only for the group allocated at install time",
              text.count(b"dpkg-statoverride --add") == 1 and
              b"dpkg-statoverride --add root messagebus 0754 '/opt/s2ctest/bin/helper'" in text,
              text)
    ctx.check("deb: the packaging says what to ship", b"#   /opt/s2ctest/games/mygame  2755 "
              b"root:games\n" in text and b"#   \tchmod 2755 debian/PACKAGE/opt/s2ctest/games/"
              b"mygame\n" in text, text)
    ctx.check("deb: nothing of the machine the plan was made on",
              b"# root:" not in text and b"# host:" not in text and root.encode() not in text,
              text)
    ctx.check("deb: the rule and its sources", b"#   rule s2ctest.mygame; sources: man:ping(8)\n"
              in text, text)
    postinst = write(ctx, "postinst", text)
    rc, text, err = plan(ctx, root, "--db", db, "--format", "deb-postrm")
    ctx.check("deb-postrm: exit 0", rc == 0, f"{rc} {err!r}")
    lint_script(ctx, "deb postrm", text)
    ctx.check("deb-postrm: only the override the postinst adds", b"'/opt/s2ctest/bin/x*'" not in
              text and text.count(b"dpkg-statoverride --remove") == 1, text)
    postrm = write(ctx, "postrm", text)
    helper_override = "root messagebus 754 " + HELPER

    # where setcap fails, everything is as it was; the admin's own override stands
    admin = "root root 4755 /opt/s2ctest/bin/pinger\n"
    r = run_deb_scripts(ctx, "ramfs", root, postinst, postrm, admin)
    if r:
        i = r["postinst"]
        ctx.check("ramfs: postinst exit", i["rc"] == 0, i["stderr"])
        ctx.check("ramfs: says what it put back",
                  "setcap failed on /opt/s2ctest/games/mygame, putting back mode 6755 and owner "
                  "0:60\n" in i["stderr"], i["stderr"])
        ctx.check("ramfs: states", i["files"] == {
            "/opt/s2ctest/games/mygame": ["6755", 0, 60, None],
            "/opt/s2ctest/bin/pinger": ["4755", 0, 0, None],
            "/opt/s2ctest/bin/drop.sh": ["755", 0, 0, None],
            "/opt/s2ctest/bin/x*": ["4755", 0, 0, None],
            STEER: ["4755", 0, 0, None],
            HELPER: ["4754", 0, 105, None]}, repr(i["files"]))
        ctx.check("ramfs: only the admin's override left", i["statoverride"] == [admin.strip()],
                  repr(i["statoverride"]))
        rm = r["postrm"]
        ctx.check("ramfs: postrm keeps the admin's", rm["rc"] == 0 and
                  rm["statoverride"] == [admin.strip()], repr(rm))
        ctx.check("ramfs: nothing run from a name", r["pwned"] == [], repr(r["pwned"]))

    # where it works, each file ends as planned; the postrm takes back what it added
    r = run_deb_scripts(ctx, "tmpfs", root, postinst, postrm)
    if r:
        i = r["postinst"]
        ctx.check("tmpfs: postinst exit", i["rc"] == 0 and i["stderr"] == "", i["stderr"])
        ctx.check("tmpfs: states as planned", i["files"] == {
            "/opt/s2ctest/games/mygame": ["2755", 0, 60, "cap_net_raw=ep"],
            "/opt/s2ctest/bin/pinger": ["755", 0, 0, "cap_net_bind_service=ep"],
            "/opt/s2ctest/bin/drop.sh": ["755", 0, 0, None],
            "/opt/s2ctest/bin/x*": ["4755", 0, 0, None],
            STEER: ["755", 0, 0, "cap_net_bind_service=ep"],
            HELPER: ["754", 0, 105, "cap_net_bind_service=ep"]}, repr(i["files"]))
        ctx.check("tmpfs: one override, the helper's", i["statoverride"] == [helper_override],
                  repr(i["statoverride"]))
        rm = r["postrm"]
        ctx.check("tmpfs: postrm takes back the override it added",
                  rm["rc"] == 0 and rm["statoverride"] == [] and rm["stderr"] == "", repr(rm))
        ctx.check("tmpfs: nothing run from a name", r["pwned"] == [], repr(r["pwned"]))

    # a package built before its debian/rules changed still ships the files set-ID: the
    # postinst gives them the state after all the same
    old = {rel: [oct(st)[2:].zfill(4), 0, gid] for rel, st, gid in (
        ("/opt/s2ctest/games/mygame", 0o6755, 60), ("/opt/s2ctest/bin/pinger", 0o4755, 0))}
    r = run_deb_scripts(ctx, "tmpfs", root, postinst, shipped=old,
                        rels=list(old))
    if r:
        ctx.check("set-ID as shipped: the state after", r["postinst"]["files"] == {
            "/opt/s2ctest/games/mygame": ["2755", 0, 60, "cap_net_raw=ep"],
            "/opt/s2ctest/bin/pinger": ["755", 0, 0, "cap_net_bind_service=ep"]},
            repr(r["postinst"]))

    # a diverted program: changed where it really is; the file in its place is left alone.
    # An override changed after the postinst (mode 2750) is not the postrm's to remove.
    pinger = "/opt/s2ctest/bin/pinger"
    changed = "root messagebus 2750 " + HELPER
    r = run_deb_scripts(ctx, "tmpfs", root, postinst, postrm,
                        divert={pinger: "#!/bin/sh\nexec /opt/s2ctest/bin/pinger.real \"$@\"\n"},
                        changed=[changed], rels=[pinger, pinger + ".real"],
                        shipped={k: v for k, v in DEB_SHIPPED.items() if k != pinger})
    if r:
        i = r["postinst"]
        ctx.check("diverted: postinst exit", i["rc"] == 0 and i["stderr"] == "", i["stderr"])
        ctx.check("diverted: the true file migrated, the admin's file untouched", i["files"] == {
            pinger + ".real": ["755", 0, 0, "cap_net_bind_service=ep"],
            pinger: ["750", 0, 0, None]}, repr(i["files"]))
        rm = r["postrm"]
        ctx.check("diverted: postrm keeps the changed override",
                  rm["rc"] == 0 and rm["statoverride"] == [changed] and
                  HELPER + ": keeping its dpkg-statoverride entry" in rm["stderr"], repr(rm))
    with open("/var/lib/dpkg/statoverride", "rb") as f:
        ctx.check("the host's statoverride database is untouched", f.read() == host_db, "")
    with open("/var/lib/dpkg/diversions", "rb") as f:
        ctx.check("the host's diversions are untouched", f.read() == host_div, "")
    return None


# --- deb: a real package with the snippets, through lintian and dpkg ---------------------

PKG_DIR = "/usr/lib/s2c-snippet-test"


def snippet_package(ctx, name="s2c-snippet-test"):
    """A .deb built as the postinst's comments say: a program shipped 0755 root:root, one of
    a group allocated at install time (gid 105) shipped root's, Recommends: libcap2-bin, and
    the postinst and postrm suid2cap writes for them (#DEBHELPER# left out: no debhelper
    here).  Returns (the .deb, its postinst text, the plan's root)."""
    b = compiled(ctx)
    root = ctx.tree("snippet-root")
    s2ctest.mkfile(root, "etc/os-release", 0o644, b"ID=debian\n")
    s2ctest.mkfile(root, "etc/group", 0o644, b"root:x:0:\ns2cgroup:x:105:\n")
    install(root, PKG_DIR.lstrip("/") + "/pinger", b["resvport"], 0o4755)
    install(root, PKG_DIR.lstrip("/") + "/helper", b["resvport"], 0o4754, gid=105)
    db = ctx.tree("snippet-db")
    with open(os.path.join(db, "local.json"), "w") as f:
        json.dump({"schema": 1, "area": "local", "rules": [{
            "id": "s2ctest.postinst", "program": "test programs",
            "match": {"paths": [PKG_DIR + "/pinger", PKG_DIR + "/helper"]}, "verdict": "migrate",
            "caps": "cap_net_bind_service=ep", "reason": "test", "sources": ["man:bind(2)"]}]}, f)
    pkg = ctx.tree(name)
    os.makedirs(os.path.join(pkg, "DEBIAN"))
    for script, fmt in (("postinst", "deb"), ("postrm", "deb-postrm")):
        rc, text, err = plan(ctx, root, "--db", db, "--format", fmt)
        ctx.check(f"package: {fmt} exit", rc == 0, f"{rc} {err!r}")
        path = os.path.join(pkg, "DEBIAN", script)
        with open(path, "wb") as f:
            f.write(text.replace(b"\n#DEBHELPER#\n", b"\n"))
        os.chmod(path, 0o755)
        if script == "postinst":
            postinst = text
    for prog, mode in (("pinger", 0o755), ("helper", 0o754)):
        dst = os.path.join(pkg, PKG_DIR.lstrip("/"), prog)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(b["resvport"], dst)
        os.chmod(dst, mode)
    with open(os.path.join(pkg, "DEBIAN/control"), "w") as f:
        f.write(f"Package: {name}\nVersion: 1.0\nArchitecture: "
                f"{subprocess.run(['dpkg', '--print-architecture'], capture_output=True, text=True).stdout.strip()}"
                "\nMaintainer: suid2cap tests <tests@suid2cap.invalid>\nRecommends: libcap2-bin\n"
                "Section: net\nPriority: optional\nDescription: programs a suid2cap postinst "
                "migrates\n The postinst and postrm suid2cap writes, in a package.\n")
    deb = pkg + ".deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", pkg, deb], check=True,
                   capture_output=True)
    return deb, postinst, root


def test_deb_lintian(ctx):
    """lintian finds nothing to say about the postinst and postrm of a package built with
    them (its other tags are about the test package itself: no changelog, no copyright)."""
    if not shutil.which("lintian") or not shutil.which("dpkg-deb"):
        print("  (needs lintian and dpkg-deb)")
        return SKIP
    deb, postinst, root = snippet_package(ctx)
    p = subprocess.run(["lintian", "-I", "-E", "--pedantic", "--tag-display-limit", "0", deb],
                       capture_output=True, text=True)
    tags = [l for l in p.stdout.splitlines() if re.match(r"[EWIPX]: ", l)]
    about = [t for t in tags if re.search(r"postinst|postrm|maintainer-script|maintscript|"
                                           r"statoverride|setcap|command-with-path", t)]
    ctx.check("lintian ran", p.returncode in (0, 1, 2) and tags, p.stdout + p.stderr)
    ctx.check("lintian: nothing about the maintainer scripts", about == [], "\n".join(tags))
    return None


def deb_dpkg_in_throwaway(ctx):
    """The body of test_deb_dpkg, in a throwaway copy of the running system."""
    deb, postinst, root = snippet_package(ctx)
    pinger, helper = PKG_DIR + "/pinger", PKG_DIR + "/helper"
    # the group the package allocates when installed (its own postinst would, with adduser)
    subprocess.run(["groupadd", "-g", "105", "-o", "s2cgroup"], capture_output=True)
    p = subprocess.run(["dpkg", "-i", deb], capture_output=True, text=True)
    ctx.check("dpkg -i", p.returncode == 0, p.stdout + p.stderr)
    for path, mode, gid in ((pinger, 0o755, 0), (helper, 0o754, 105)):
        st = os.stat(path)
        caps = subprocess.run(["getcap", path], capture_output=True, text=True).stdout
        ctx.check(f"dpkg -i: {path} as planned", (st.st_mode & 0o7777, st.st_uid, st.st_gid) ==
                  (mode, 0, gid) and "cap_net_bind_service=ep" in caps,
                  f"{oct(st.st_mode)} {st.st_uid}:{st.st_gid} {caps!r}")
    over = subprocess.run(["dpkg-statoverride", "--list"], capture_output=True, text=True).stdout
    ctx.check("dpkg -i: an override for the helper only", [l for l in over.splitlines()
                                                           if PKG_DIR in l] ==
              [f"root s2cgroup 754 {helper}"], over)
    # a reinstall (an upgrade): dpkg writes new files without capabilities, the postinst
    # gives them back
    p = subprocess.run(["dpkg", "-i", deb], capture_output=True, text=True)
    caps = subprocess.run(["getcap", pinger], capture_output=True, text=True).stdout
    ctx.check("reinstall: capabilities back", p.returncode == 0 and
              "cap_net_bind_service=ep" in caps, p.stderr + caps)
    # an administrator's override stands
    subprocess.run(["dpkg-statoverride", "--add", "root", "root", "4755", pinger], check=True)
    p = subprocess.run(["dpkg", "-i", deb], capture_output=True, text=True)
    st = os.stat(pinger)
    ctx.check("the administrator's override stands", p.returncode == 0 and
              st.st_mode & 0o7777 == 0o4755, f"{oct(st.st_mode)} {p.stderr}")
    subprocess.run(["dpkg-statoverride", "--remove", pinger], check=True)
    p = subprocess.run(["dpkg", "--purge", "s2c-snippet-test"], capture_output=True, text=True)
    over = subprocess.run(["dpkg-statoverride", "--list"], capture_output=True, text=True).stdout
    ctx.check("dpkg --purge: the override taken back, the files gone", p.returncode == 0 and
              PKG_DIR not in over and not os.path.exists(pinger), p.stdout + p.stderr + over)


def test_deb_dpkg(ctx):
    """The postinst and postrm in a package that real dpkg installs, upgrades and purges,
    in a throwaway copy of this system: each file ends as planned, a dpkg-statoverride only
    for the group allocated at install time, an administrator's override stands, and purge
    takes back the override."""
    if not shutil.which("dpkg-deb") or not is_root():
        return SKIP
    return s2ctest.in_throwaway_system(ctx, deb_dpkg_in_throwaway)


def test_memory(ctx):
    """A plan of many files costs the memory of its model, not of its document: the JSON is
    written one entry at a time.  17,000 set-ID scripts plan within 80 MiB (about 180 MiB
    when the document was built whole), every one of them an entry; the directories'
    check (apply would refuse a file below a directory others can write) still holds back
    each file of such a directory, and only those, when one of them sits between safe ones.
    The plan, past the 16 MiB of other JSON inputs, is read back one entry at a time too:
    `plan --check` within 80 MiB, and apply carries it out whole within 120 MiB (json-c's
    objects of the whole document took 10 KiB an entry)."""
    root = ctx.tree("memory")
    s2ctest.mkfile(root, "etc/os-release", 0o644, b"ID=debian\n")
    for d in range(17):
        for i in range(1000):
            s2ctest.mkfile(root, f"usr/lib/d{d:02}/f{i:04}", 0o4755, b"#!/bin/sh\n")
    for name in ("a", "b", "c"):
        s2ctest.mkfile(root, f"usr/lib/d05x/{name}", 0o4755, b"#!/bin/sh\n")
    os.chmod(os.path.join(root, "usr/lib/d05x"), 0o775)
    sanitized = "ASAN_OPTIONS" in os.environ
    rc, out, err, rss = test_audit_pkg.peak_rss_run(ctx, ["plan", "--root", root,
                                                          "--kernel", KERNEL])
    doc = json.loads(out) if rc == 0 else {"entries": []}
    entries = doc["entries"]
    ctx.check("memory: every file an entry", rc == 0 and len(entries) == 17003,
              f"{rc} {len(entries)} {err[-300:]!r}")
    ctx.check("memory: within 80 MiB", sanitized or rss < 80 << 10, f"{rss} KiB")
    print(f"  plan: peak RSS {rss >> 10} MiB, {len(out) >> 20} MiB of plan")
    plan = os.path.join(ctx.tmp, "memory-plan.json")
    with open(plan, "wb") as f:
        f.write(out)
    rc, out, err, rss = test_audit_pkg.peak_rss_run(ctx, ["plan", "--check", plan])
    ctx.check("memory: a plan past 16 MiB checks", len(doc["entries"]) and os.path.getsize(
        plan) > 16 << 20 and rc == 0 and b"valid plan of 17003 entries" in out,
              f"{rc} {os.path.getsize(plan)} {out[-200:]!r} {err[-300:]!r}")
    ctx.check("memory: checked within 80 MiB", sanitized or rss < 80 << 10, f"{rss} KiB")
    print(f"  plan --check: peak RSS {rss >> 10} MiB")
    if not is_root():
        return      # the tree is ours, not root's: every directory is refused
    held = sorted(e["path"] for e in entries if e["action"] == "none")
    ctx.check("memory: the group-writable directory's files held, only they",
              held == ["/usr/lib/d05x/a", "/usr/lib/d05x/b", "/usr/lib/d05x/c"], f"{held[:5]}")
    rc, out, err, rss = test_audit_pkg.peak_rss_run(ctx, ["apply", plan, "--kernel", KERNEL,
                                                          "--no-smoke", "--quiet"])
    left = [os.path.join(dp, n) for dp, _, ns in os.walk(os.path.join(root, "usr/lib"))
            for n in ns if os.lstat(os.path.join(dp, n)).st_mode & 0o6000]
    ctx.check("memory: apply carries out the whole plan", rc == 0 and sorted(
        os.path.relpath(p, root) for p in left) == [f"usr/lib/d05x/{n}" for n in "abc"],
              f"{rc} {len(left)} {err[-300:]!r}")
    ctx.check("memory: applied within 120 MiB", sanitized or rss < 120 << 10, f"{rss} KiB")
    print(f"  apply: peak RSS {rss >> 10} MiB")


TESTS = [test_deb_lintian, test_deb_dpkg, test_fixture_formats, test_debian_formats, test_deterministic, test_sh_carries_out_plan,
         test_sh_root_variable, test_sh_refuses, test_sh_unsafe_dirs, test_sh_symlink_swap,
         test_parents, test_rpm_hostile_names, test_deb_postinst, test_check, test_check_trust,
         test_errors, test_output_file, test_memory]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
