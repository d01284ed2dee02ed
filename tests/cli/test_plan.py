#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI tests of `suid2cap plan`: every format on a tree of compiled test binaries and on
staged copies of real Debian binaries (golden files), the generated shell script run on a
staging copy (the state it leaves is the plan's, a second run changes nothing, a changed
file is refused), shellcheck, and `plan --check` on good and bad plans."""
import json
import os
import re
import shutil
import subprocess
import sys

import s2ctest
from s2ctest import SKIP, is_root

KERNEL = "6.1.0"
FORMATS = (("json", "json"), ("sh", "sh"), ("rpm", "rpm"), ("deb", "deb"),
           ("permissions", "permissions"))

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
            if fmt in ("sh", "deb"):
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
        ctx.check(f"{case} script says what it did",
                  out.count(b": mode 4755 -> ") + out.count(b": mode 755 -> ") == len(changes),
                  out.decode(errors="replace"))
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
    """ROOT points the script at a copy; the tree the plan was made on stays as it was."""
    if not is_root() or not suid_ok(ctx):
        return SKIP
    root = tree_fixture(ctx)
    copy = os.path.join(ctx.tmp, "fixture-copy")
    subprocess.run(["cp", "-a", root, copy], check=True)
    rc, out, _ = plan(ctx, root)
    doc = json.loads(out)
    rc, script, _ = plan(ctx, root, "--format", "sh")
    before = {entry_path(root, e): state(entry_path(root, e)) for e in doc["entries"]}
    copy_before = {entry_path(copy, e): state(entry_path(copy, e)) for e in doc["entries"]}
    rc, out, err = run_script(ctx, script, {"ROOT": copy})
    ctx.check("ROOT copy exit", rc == 0, f"exit {rc}: {err!r}")
    ctx.check("ROOT original untouched", {p: state(p) for p in before} == before, "")
    check_applied(ctx, "ROOT copy", copy, doc, copy_before)


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
    os.link(target, os.path.join(root, "usr/bin/clockdiff.link"))
    rc, out, err = run_script(ctx, script)
    ctx.check("hard link refused", rc == 1 and b"2 hard links keep the privilege" in err,
              f"exit {rc}: {err!r}")
    rc, out, err = run_script(ctx, script, {"ALLOW_HARDLINKS": "1"})
    ctx.check("hard link allowed", rc == 0, f"exit {rc}: {err!r}")


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


TESTS = [test_fixture_formats, test_debian_formats, test_deterministic, test_sh_carries_out_plan,
         test_sh_root_variable, test_sh_refuses, test_check, test_check_trust, test_errors,
         test_output_file]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
