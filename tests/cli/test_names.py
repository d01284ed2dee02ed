#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Untrusted names never reach a terminal or a report raw: file names holding an OSC
title sequence, a CSI colour sequence and a bidi override go through scan, audit (all
five formats), plan (all formats), explain, migrate, verify, rollback and the error
paths of apply, plan --check and rules lint.  No raw ESC, BEL or bidi control comes
out on stderr or in text meant for people, the names stay recognisable in their
escaped form, and JSON keeps the exact bytes."""
import json
import os
import shutil
import sys

import s2ctest
from s2ctest import SKIP, is_root, run_on_pty

NAMES = [b"osc\x1b]0;pwned\x07name", b"csi\x1b[31mred", "bidi\u202etxt.exe".encode()]
ESCAPED = [b"osc\\x1b]0;pwned\\x07name", b"csi\\x1b[31mred", b"bidi\\u{202e}txt.exe"]
BIDI = [chr(c).encode() for c in
        [0x061c, 0x200e, 0x200f, *range(0x202a, 0x202f), *range(0x2066, 0x206a)]]
RAW = [b"\x1b", b"\x07", b"\xc2\x9b", b"\xc2\x9d"] + BIDI     # ESC, BEL, C1 CSI and OSC, bidi


def path_of(n):
    return b"/opt/" + n + b"/tool"


def clean(ctx, name, data):
    """No raw terminal control or bidi control in @data."""
    found = [r for r in RAW if r in data]
    ctx.check(f"{name}: nothing raw", not found, f"{found!r} in {data[:2000]!r}")


def shows(ctx, name, data, forms):
    """Every name is there in its escaped form."""
    missing = [f for f in forms if f not in data]
    ctx.check(f"{name}: names recognisable", not missing, f"{missing!r} not in {data[:3000]!r}")


def md(form):
    """A name as markdown_escape() writes it: after escape_text(), Markdown syntax escaped."""
    out = b""
    for c in form:
        ch = bytes([c])
        out += b"\\" + ch if ch in b"\\`*_{}[]#|~$" else ch
    return out.replace(b"&", b"&amp;").replace(b"<", b"&lt;").replace(b">", b"&gt;")


def stage(ctx, name):
    """A root with a copy of /usr/bin/true, setuid root, under /opt/NAME/tool for each
    name, and a rules layer that migrates them to cap_net_raw."""
    root = ctx.tree(name)
    for d in ("etc", "var/lib/dpkg/info"):
        os.makedirs(os.path.join(root, d))
    for f in ("passwd", "group"):
        shutil.copyfile("/etc/" + f, os.path.join(root, "etc", f))
    for n in NAMES:
        p = os.path.join(root.encode(), path_of(n)[1:])
        os.makedirs(os.path.dirname(p))
        shutil.copyfile("/usr/bin/true", p)
        os.chown(p, 0, 0)
        os.chmod(p, 0o4755)
    db = ctx.tree(name + "-db")
    with open(os.path.join(db, "local.json"), "w") as f:
        json.dump({"schema": 1, "area": "local", "rules": [{
            "id": "local.tool", "program": "a test tool", "match": {"paths": ["/opt/*/tool"]},
            "verdict": "migrate", "caps": "cap_net_raw=ep", "reason": "test",
            "sources": ["man:true(1)"]}]}, f)
    return root, db


def exact_paths(files, key=None):
    got = set()
    for f in files:
        f = f[key] if key else f
        got.add(bytes.fromhex(f["path_hex"]) if "path_hex" in f else f["path"].encode())
    return got


def test_scan_and_audit(ctx):
    if not is_root():
        return SKIP
    root, db = stage(ctx, "reports")
    want = {path_of(n) for n in NAMES}
    rc, out, err = ctx.run(["scan", "--root", root])
    ctx.check("scan exit", rc == 0, f"{rc} {err!r}")
    clean(ctx, "scan text", out + err)
    shows(ctx, "scan text", out, ESCAPED)
    rc, out, err = ctx.run(["scan", "--root", root, "--format", "json"])
    clean(ctx, "scan json stderr", err)
    ctx.check("scan json exact", exact_paths(json.loads(out)["files"]) == want, "")

    outs = {}
    for fmt in ("text", "json", "markdown", "html", "sarif"):
        rc, out, err = ctx.run(["audit", "--root", root, "--db", db, "--format", fmt])
        ctx.check(f"audit {fmt} exit", rc == 0, f"{rc} {err!r}")
        clean(ctx, f"audit {fmt} stderr", err)
        outs[fmt] = out
    for fmt in ("text", "html"):
        clean(ctx, f"audit {fmt}", outs[fmt])
        shows(ctx, f"audit {fmt}", outs[fmt], ESCAPED)
    clean(ctx, "audit markdown", outs["markdown"])
    shows(ctx, "audit markdown", outs["markdown"], [md(f) for f in ESCAPED])
    ctx.check("audit json exact",
              exact_paths(json.loads(outs["json"])["files"], "file") == want, "")
    sarif = json.loads(outs["sarif"])
    texts = "\n".join(r["message"]["text"] for r in sarif["runs"][0]["results"]).encode()
    clean(ctx, "audit sarif messages", texts)
    clean(ctx, "audit sarif document", outs["sarif"])
    shows(ctx, "audit sarif messages", texts,
          [f.replace(b"{", b"{{").replace(b"}", b"}}") for f in ESCAPED])

    for n, form in zip(NAMES, ESCAPED):
        rc, out, err = ctx.run(["explain", "--root", root, "--db", db, path_of(n).decode(
            "utf-8", "surrogateescape")])
        ctx.check(f"explain {form!r} exit", rc == 0, f"{rc} {err!r}")
        clean(ctx, f"explain {form!r}", out + err)
        shows(ctx, f"explain {form!r}", out, [form])


def test_plan_formats(ctx):
    if not is_root():
        return SKIP
    root, db = stage(ctx, "plans")
    rc, out, err = ctx.run(["plan", "--root", root, "--db", db])
    clean(ctx, "plan json stderr", err)
    ctx.check("plan json exact", exact_paths(json.loads(out)["entries"]) ==
              {path_of(n) for n in NAMES}, "")
    for fmt in ("sh", "deb", "deb-postrm", "rpm", "permissions"):
        rc, out, err = ctx.run(["plan", "--root", root, "--db", db, "--format", fmt])
        ctx.check(f"plan {fmt} exit", rc == 0, f"{rc} {err!r}")
        clean(ctx, f"plan {fmt} stderr", err)
        # The exact bytes may appear only as single-quoted shell operands (data); every
        # comment and every message carries the escaped form.
        text = out
        for n in NAMES:
            text = text.replace(b"'" + path_of(n) + b"'", b"<operand>")
        clean(ctx, f"plan {fmt} comments and messages", text)
        comments = b"\n".join(ln for ln in out.split(b"\n") if ln.lstrip().startswith(b"#"))
        # the postrm names only files with an owner or group allocated at install time
        # (root's are shipped so, nothing to take back)
        if fmt == "deb-postrm":
            ctx.check("plan deb-postrm: nothing to take back for root's files",
                      b"\t: nothing to take back\n" in out, out.decode(errors="replace"))
            continue
        shows(ctx, f"plan {fmt} comments", comments, ESCAPED)
    # rpm and permissions take a path literally: a name they would show reordered or
    # with controls is left out, with a comment saying so
    for fmt, what in (("rpm", b"a spec file cannot name this path"),
                      ("permissions", b"a permissions file cannot name this path")):
        rc, out, err = ctx.run(["plan", "--root", root, "--db", db, "--format", fmt])
        ctx.check(f"plan {fmt}: every name left out", out.count(what) == len(NAMES), f"{out!r}")


def run_tty_stderr(ctx, args):
    """Run with stderr on a pseudo-terminal (colour allowed); returns (rc, stderr bytes)."""
    env = {"LC_ALL": "C", "TZ": "UTC", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "TERM": "xterm"}
    rc, data, _ = run_on_pty([ctx.binary, *args], env, stream="stderr")
    return rc, data.replace(b"\r\n", b"\n")


def test_apply_verify_rollback(ctx):
    if not is_root():
        return SKIP
    root, db = stage(ctx, "apply")
    rc, out, err = ctx.run(["migrate", "--root", root, "--db", db, "--yes", "--no-smoke"])
    ctx.check("migrate exit", rc == 0, f"{rc} {out!r} {err!r}")
    clean(ctx, "migrate", out + err)
    shows(ctx, "migrate listing and outcomes", out, ESCAPED)
    ctx.check("migrate outcomes", out.count(b"applied            /opt/") == 3, f"{out!r}")

    # drift: set-ID bit back, file swapped for a symlink, parent made writable
    osc, csi, bidi = (os.path.join(root.encode(), path_of(n)[1:]) for n in NAMES)
    os.chmod(csi, 0o4755)
    os.rename(osc, osc + b".real")
    os.symlink(b"tool.real", osc)
    os.chmod(os.path.dirname(bidi), 0o777)
    rc, out, err = ctx.run(["verify", "--root", root, "--db", db])
    ctx.check("verify finds drift", rc == 1, f"{rc} {out!r} {err!r}")
    clean(ctx, "verify", out + err)
    shows(ctx, "verify drift lines", out, ESCAPED)
    ctx.check("verify: the symlink message names it escaped",
              b"'/opt/osc\\x1b]0;pwned\\x07name/tool' is a symbolic link" in out, f"{out!r}")
    os.unlink(osc)
    os.rename(osc + b".real", osc)
    os.chmod(os.path.dirname(bidi), 0o755)
    os.chmod(csi, 0o755)

    rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
    ctx.check("rollback exit", rc == 0, f"{rc} {out!r} {err!r}")
    clean(ctx, "rollback", out + err)
    shows(ctx, "rollback outcomes", out, ESCAPED)

    # apply: a file changed since the plan; the warning is escaped, its colour kept
    plan = os.path.join(ctx.tmp, "apply-plan.json")
    rc, out, err = ctx.run(["plan", "--root", root, "--db", db, "-o", plan])
    ctx.check("plan for apply", rc == 0, f"{rc} {err!r}")
    with open(csi, "ab") as f:
        f.write(b"\0")
    rc, out, err = ctx.run(["apply", "--no-smoke", "--db", db, plan])
    clean(ctx, "apply race", out + err)
    ctx.check("apply race: skipped, escaped",
              b"warning: skipped '/opt/csi\\x1b[31mred/tool' beneath the root '" +
              root.encode() + b"': changed since the plan" in err,
              f"{err!r}")
    ctx.run(["rollback", "--root", root, "--last"])
    rc, tty = run_tty_stderr(ctx, ["apply", "--no-smoke", "--db", db, plan])
    ctx.check("apply on a terminal: the warning prefix is coloured",
              b"\x1b[1;33mwarning:\x1b[0m skipped '/opt/csi\\x1b[31mred/tool'" in tty, f"{tty!r}")
    rest = tty.replace(b"\x1b[1;33m", b"").replace(b"\x1b[1;31m", b"").replace(b"\x1b[0m", b"")
    clean(ctx, "apply on a terminal: no other escape", rest)


def test_error_paths(ctx):
    if not is_root():
        return SKIP
    root, db = stage(ctx, "errors")
    good = os.path.join(ctx.tmp, "good-plan.json")
    rc, out, err = ctx.run(["plan", "--root", root, "--db", db, "-o", good])
    text = open(good, "rb").read()
    d = ctx.tree("bad-plans").encode()
    # a root with a state directory, so a journal name is looked up
    migrated, _ = stage(ctx, "errors-migrated")
    rc, out, err = ctx.run(["migrate", "--root", migrated, "--db", db, "--yes", "--no-smoke"])
    ctx.check("migrate for the journal lookup", rc == 0, f"{rc} {err!r}")
    for n, form in zip(NAMES, ESCAPED):
        bad = os.path.join(d, b"plan-" + n + b".json")
        with open(bad, "wb") as f:
            f.write(text[: len(text) // 2])
        arg = bad.decode("utf-8", "surrogateescape")
        rc, out, err = ctx.run(["apply", arg])
        ctx.check(f"apply bad plan {form!r}: exit 4", rc == 4, f"{rc} {err!r}")
        clean(ctx, f"apply bad plan {form!r}", out + err)
        shows(ctx, f"apply bad plan {form!r}", err, [b"plan-" + form + b".json"])
        rc, out, err = ctx.run(["plan", "--check", arg])
        ctx.check(f"plan --check {form!r}: fails", rc != 0, f"{rc} {err!r}")
        clean(ctx, f"plan --check {form!r}", out + err)
        shows(ctx, f"plan --check {form!r}", err, [b"plan-" + form + b".json"])
        journal = "journal-" + n.decode("utf-8", "surrogateescape")
        rc, out, err = ctx.run(["rollback", "--root", root, journal + "/"])
        ctx.check(f"rollback bad journal name {form!r}: exit 2", rc == 2, f"{rc} {err!r}")
        clean(ctx, f"rollback bad journal name {form!r}", out + err)
        shows(ctx, f"rollback bad journal name {form!r}", err, [b"journal-" + form + b"/"])
        rc, out, err = ctx.run(["rollback", "--root", migrated, journal])
        ctx.check(f"rollback missing journal {form!r}: fails", rc != 0, f"{rc} {err!r}")
        clean(ctx, f"rollback missing journal {form!r}", out + err)
        shows(ctx, f"rollback missing journal {form!r}", err,
              [b"/var/lib/suid2cap/journals/journal-" + form + b"'"])
    # a plan whose entry path is not absolute: the loader quotes the value
    bad = os.path.join(d, b"relative.json")
    with open(bad, "wb") as f:
        f.write(text.replace(json.dumps(path_of(NAMES[0]).decode()).encode(),
                             json.dumps("osc\x1b]0;pwned\x07\u202e").encode(), 1))
    rc, out, err = ctx.run(["plan", "--check", bad.decode()])
    ctx.check("plan --check relative path: fails", rc != 0, f"{rc} {err!r}")
    clean(ctx, "plan --check relative path", out + err)

    # rules lint: a rules file named after the names, with an unknown key holding them
    rules = ctx.tree("bad-rules").encode()
    for n, form in zip(NAMES, ESCAPED):
        with open(os.path.join(rules, b"rules-" + n + b".json"), "wb") as f:
            f.write(json.dumps({"schema": 1, "area": "x", "rules": [],
                                n.decode(): 1}).encode())
        rc, out, err = ctx.run(["rules", "lint", rules.decode("utf-8", "surrogateescape")])
        ctx.check(f"rules lint {form!r}: fails", rc != 0, f"{rc} {err!r}")
        clean(ctx, f"rules lint {form!r}", out + err)
        shows(ctx, f"rules lint {form!r}", err, [b"rules-" + form + b".json"])
        os.unlink(os.path.join(rules, b"rules-" + n + b".json"))


TESTS = [test_scan_and_audit, test_plan_formats, test_apply_verify_rollback, test_error_paths]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
