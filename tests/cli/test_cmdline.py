#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The command line as a user meets it: PATH operands relative to the current
directory and through symbolic links (beneath the root only), missing paths,
tables that fit the width of the output (COLUMNS, the terminal), --color and
--quiet."""
import json
import os
import re
import sys

import s2ctest
from s2ctest import SKIP, mkfile, mklink, setcap, is_root, fix_dir_times
import test_audit

PASSWD = b"root:x:0:0:root:/root:/bin/sh\ndaemon:x:1:1::/:/bin/false\n"
GROUP = b"root:x:0:\nshadow:x:42:\nmessagebus:x:105:\n"


def tree_merged(ctx, name="merged"):
    """A merged-/usr system: /bin and /sbin are links into /usr, plus links that try to leave."""
    root = ctx.tree(name)
    mkfile(root, "etc/passwd", 0o644, PASSWD)
    mkfile(root, "etc/group", 0o644, GROUP)
    mkfile(root, "usr/bin/su", 0o4755)
    mkfile(root, "usr/bin/chage", 0o2755)
    mkfile(root, "usr/sbin/unix_chkpwd", 0o2755)
    mklink(root, "bin", "usr/bin")
    mklink(root, "sbin", "usr/sbin")
    mklink(root, "usr/lib/abs", "/bin")                   # absolute: starts at the root
    mklink(root, "usr/bin/su-link", "su")                 # inside the walk: never followed
    mklink(root, "usr/lib/dangling", "nowhere")
    fix_dir_times(root)
    return root


def tree_outside(ctx, root):
    """Beside @root, a setuid file @root's links point at: it must never be reached."""
    secret = ctx.tree("secret")
    mkfile(secret, "bin/hostonly", 0o4755)
    mklink(root, "out-abs", os.path.join(secret, "bin"))   # a host path: read beneath the root
    mklink(root, "usr/out-rel", "../../../../../../../../../" + secret.lstrip("/") + "/bin")
    return secret


def scan_json(ctx, root, *args, cwd=None):
    rc, out, err = ctx.run(["scan", "--root", root, "--format", "json", *args], cwd=cwd)
    doc = json.loads(out) if rc in (0, 3) and out else {"files": []}
    return rc, [f["path"] for f in doc["files"]], err


# --- PATH operands -----------------------------------------------------------------------

def test_relative_on_host(ctx):
    """Without --root a relative PATH is read from the current directory, as a shell would."""
    root = tree_merged(ctx, "hostrel")
    usr = os.path.join(root, "usr")
    rc, out, err = ctx.run(["scan", "--format", "json", "bin/su"], cwd=usr)
    paths = [f["path"] for f in json.loads(out)["files"]] if rc == 0 else []
    ctx.check("host: relative operand exit", rc == 0, f"exit {rc}, {err!r}")
    ctx.check("host: relative operand is the file under the current directory",
              paths == [os.path.join(usr, "bin/su")], f"{paths}")
    rc, out, err = ctx.run(["explain", "--format", "json", "su"], cwd=os.path.join(usr, "bin"))
    doc = json.loads(out) if rc == 0 else []
    ctx.check("host: explain of a relative name", rc == 0 and len(doc) == 1 and
              doc[0]["file"]["path"] == os.path.join(usr, "bin/su"), f"exit {rc}, {err!r}")
    rc, out, err = ctx.run(["scan", "../usr/./bin/../bin/su"], cwd=usr)
    ctx.check("host: '..' and '.' of a relative operand", rc == 0 and
              os.path.join(usr, "bin/su").encode() in out, f"exit {rc}, {err!r}")
    rc, out, err = ctx.run(["scan", "pnig"], cwd=os.path.join(usr, "bin"))
    ctx.check("host: a relative name that does not exist", rc == 2 and out == b"" and
              b"cannot use 'pnig' (" + os.path.join(usr, "bin/pnig").encode() +
              b"): No such file or directory" in err, f"exit {rc}, {err!r}")


def test_relative_under_root(ctx):
    """Under --root DIR a relative PATH is read from a current directory inside DIR and
    names the same file beneath the root; from outside DIR, or climbing out, it is refused."""
    root = tree_merged(ctx, "rootrel")
    usr = os.path.join(root, "usr")
    _, want, _ = scan_json(ctx, root, "/usr/bin")
    for cwd, arg in ((usr, "bin"), (root, "usr/bin"), (root, "./usr//bin/"),
                     (os.path.join(usr, "sbin"), "../bin"), (root, "bin")):
        rc, got, err = scan_json(ctx, root, arg, cwd=cwd)
        ctx.check(f"--root: '{arg}' in {os.path.relpath(cwd, root)}",
                  rc == 0 and got == want == ["/usr/bin/chage", "/usr/bin/su"],
                  f"exit {rc}, {got}, {err!r}")
    # --root itself relative, the operand too
    rc, got, err = scan_json(ctx, ".", "usr/bin", cwd=root)
    ctx.check("--root . with a relative operand", rc == 0 and got == want, f"{rc} {got} {err!r}")
    rc, out, err = ctx.run(["explain", "--root", root, "--format", "json", "su"],
                           cwd=os.path.join(usr, "bin"))
    doc = json.loads(out) if rc == 0 else []
    ctx.check("--root: explain of a relative name", rc == 0 and len(doc) == 1 and
              doc[0]["file"]["path"] == "/usr/bin/su", f"exit {rc}, {err!r}")
    # from outside the root
    rc, out, err = ctx.run(["scan", "--root", root, "usr/bin"], cwd=ctx.tmp)
    ctx.check("--root: a relative operand from outside the root is refused",
              rc == 2 and out == b"" and b"'usr/bin' is relative to the current directory '" +
              os.path.realpath(ctx.tmp).encode() + b"', which is not inside the root" in err,
              f"exit {rc}, {err!r}")
    # a sibling whose name starts like the root is not inside it
    sibling = root + "-sibling"
    os.makedirs(sibling)
    rc, _, err = ctx.run(["scan", "--root", root, "x"], cwd=sibling)
    ctx.check("--root: a sibling directory is not inside the root", rc == 2 and
              b"not inside the root" in err, f"exit {rc}, {err!r}")
    # climbing above the root
    for arg in ("../../x", "../..", "/../usr/bin"):
        rc, out, err = ctx.run(["scan", "--root", root, arg], cwd=usr)
        ctx.check(f"--root: '{arg}' climbs out of the root", rc == 2 and out == b"" and
                  f"'{arg}' leads out of the root '{root}'".encode() in err, f"exit {rc}, {err!r}")
    # the same climb on the host stays at "/", as for the kernel
    rc, out, err = ctx.run(["scan", "--format", "json", "/../" + usr.lstrip("/") + "/bin/su"])
    ctx.check("host: '/..' is '/'", rc == 0 and json.loads(out)["files"][0]["path"] ==
              os.path.join(usr, "bin/su"), f"exit {rc}, {err!r}")


def test_symlink_operands(ctx):
    """A PATH's links are followed beneath the root (find -H), with a notice; the results
    name real paths; nothing outside the root is reached; links in the walk stay unfollowed."""
    root = tree_merged(ctx)
    tree_outside(ctx, root)
    _, usr_bin, _ = scan_json(ctx, root, "/usr/bin")
    rc, got, err = scan_json(ctx, root, "/bin")
    ctx.check("/bin walks /usr/bin", rc == 0 and got == usr_bin == ["/usr/bin/chage",
                                                                    "/usr/bin/su"],
              f"exit {rc}, {got}, {err!r}")
    ctx.check("/bin: the notice names the path walked",
              err == b"suid2cap: '/bin' is or passes through a symbolic link: walking "
              b"'/usr/bin' instead\n", f"{err!r}")
    rc, got, err = scan_json(ctx, root, "/bin/su")
    ctx.check("/bin/su is /usr/bin/su", rc == 0 and got == ["/usr/bin/su"], f"{rc} {got} {err!r}")
    rc, got, err = scan_json(ctx, root, "/usr/lib/abs")
    ctx.check("an absolute target starts at the root", rc == 0 and got == usr_bin and
              b"walking '/usr/bin' instead" in err, f"{rc} {got} {err!r}")
    rc, got, err = scan_json(ctx, root, "/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr")
    ctx.check("each file walked once", rc == 0 and got == ["/usr/bin/chage", "/usr/bin/su",
                                                           "/usr/sbin/unix_chkpwd"],
              f"{rc} {got} {err!r}")
    rc, got, err = scan_json(ctx, root, "/usr/bin/su-link")
    ctx.check("an operand that is a link to a file", rc == 0 and got == ["/usr/bin/su"],
              f"{rc} {got} {err!r}")
    # links that try to leave the root lead to nothing beneath it
    for arg in ("/out-abs", "/usr/out-rel", "/out-abs/hostonly"):
        rc, out, err = ctx.run(["scan", "--root", root, arg])
        ctx.check(f"{arg}: no file outside the root", rc == 2 and b"hostonly" not in out and
                  f"cannot use '{arg}' (beneath the root '{root}'): No such file or "
                  "directory (it leads through a symbolic link)".encode() in err,
                  f"exit {rc}, {out!r}, {err!r}")
    # the audit and plan documents name the real start paths
    rc, out, err = ctx.run(["audit", "--root", root, "--format", "json", "/bin"])
    ctx.check("audit paths: the real path", rc == 0 and json.loads(out)["paths"] == ["/usr/bin"],
              f"exit {rc}, {err!r}")
    rc, out, err = ctx.run(["explain", "--root", root, "/sbin/unix_chkpwd"])
    ctx.check("explain through a link", rc == 0 and b"/usr/sbin/unix_chkpwd" in out and
              b"nothing to decide" not in err, f"exit {rc}, {err!r}")


def test_missing_path(ctx):
    """A PATH that names nothing is a usage error naming it, before any output is opened."""
    root = tree_merged(ctx, "missing")
    for verb in ("scan", "audit", "plan", "explain", "migrate"):
        rc, out, err = ctx.run([verb, "--root", root, "/usr/bin", "/nonexistent"])
        ctx.check(f"{verb} /nonexistent", rc == 2 and out == b"" and
                  f"cannot use '/nonexistent' (beneath the root '{root}'): No such file or "
                  "directory".encode() in err, f"exit {rc}, {err!r}")
    rc, out, err = ctx.run(["scan", "--root", root, "/usr/bin/su/x"])
    ctx.check("a path through a file", rc == 2 and b"Not a directory" in err, f"{rc} {err!r}")
    rc, out, err = ctx.run(["scan", "--root", root, "/usr/lib/dangling"])
    ctx.check("a dangling link", rc == 2 and b"(it leads through a symbolic link)" in err,
              f"{rc} {err!r}")
    rc, out, err = ctx.run(["scan", "/nonexistent-s2c-path"])
    ctx.check("host: /nonexistent", rc == 2 and
              b"cannot use '/nonexistent-s2c-path': No such file or directory" in err,
              f"{rc} {err!r}")
    # plan -o: no plan written, and an existing file left as it was
    target = os.path.join(ctx.tmp, "p.json")
    rc, out, err = ctx.run(["plan", "--root", root, "/nonexistent", "-o", target])
    ctx.check("plan /nonexistent -o writes nothing", rc == 2 and not os.path.exists(target) and
              not [n for n in os.listdir(ctx.tmp) if n.startswith(".p.json.")], f"{rc} {err!r}")
    with open(target, "w") as f:
        f.write("keep me\n")
    rc, out, err = ctx.run(["plan", "--root", root, "/nonexistent", "-o", target])
    with open(target) as f:
        kept = f.read()
    ctx.check("plan /nonexistent -o keeps the old file", rc == 2 and kept == "keep me\n",
              f"{rc} {kept!r}")


# --- width ---------------------------------------------------------------------------------

def on_pty(ctx, args, env=None, cols=None, cwd=None):
    """Run with stdout on a terminal of @cols columns (stderr a pipe).  Returns
    (exit status, stdout bytes as written, stderr)."""
    e = {"LC_ALL": "C", "TZ": "UTC", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
         "SOURCE_DATE_EPOCH": str(s2ctest.FIXED_MTIME), "TERM": "xterm", **(env or {})}
    return s2ctest.run_on_pty([ctx.binary, *args], e, cols=cols, cwd=cwd)


def tree_wide(ctx):
    """Cells of every width: long paths, long capabilities, extra flags, a long group."""
    root = ctx.tree("wide")
    mkfile(root, "etc/passwd", 0o644, PASSWD)
    mkfile(root, "etc/group", 0o644, GROUP)
    mkfile(root, "usr/bin/su", 0o4755, uid=0, gid=0)
    mkfile(root, "usr/bin/chage", 0o2755, uid=0, gid=42)
    mkfile(root, "usr/bin/ping", 0o755, uid=0, gid=0)
    setcap(os.path.join(root, "usr/bin/ping"), "cap_net_raw+ep")
    gst = "usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper"
    mkfile(root, gst, 0o755, uid=0, gid=0)
    setcap(os.path.join(root, gst), "cap_net_bind_service,cap_net_admin+ep")
    mkfile(root, "usr/lib/dbus-1.0/dbus-daemon-launch-helper", 0o4754, uid=0, gid=105)
    mkfile(root, "usr/sbin/setuid-script.sh", 0o4755, b"#!/bin/sh\n", uid=0, gid=0)
    mkfile(root, "usr/bin/linked", 0o4755, uid=0, gid=0)
    os.makedirs(os.path.join(root, "old"))
    os.link(os.path.join(root, "usr/bin/linked"), os.path.join(root, "old/linked"))
    for p in ("usr/bin/ping", gst):
        os.utime(os.path.join(root, p), (s2ctest.FIXED_MTIME,) * 2)
    fix_dir_times(root)
    return root


# tree_wide's hard links are a problem flag: scan writes its whole table and exits 1
WIDE_RC = 1
WIDE_ERR = b"suid2cap: 2 files with findings: hardlinks (2)\n"


def paths_of(ctx, verb, root, *args):
    rc, out, _ = ctx.run([verb, "--root", root, "--format", "json", *args])
    doc = json.loads(out)
    files = doc["files"]
    return [f["path"] if verb == "scan" else f["file"]["path"] for f in files]


def check_fits(ctx, name, text, width, paths, first_table_line=0):
    """Every line from @first_table_line on fits in @width, unless it is a path alone;
    every path appears whole."""
    lines = text.decode().split("\n")
    for line in lines[first_table_line:]:
        if len(line) > width and line.strip() not in paths:
            ctx.check(f"{name}: fits in {width}", False, f"{len(line)} columns: {line!r}")
            return
    ctx.passed += 1
    missing = [p for p in paths
               if not any(re.search(r"(^|\s)" + re.escape(p) + r"(\s|$)", l) for l in lines)]
    ctx.check(f"{name}: every path whole", not missing, f"{missing}")


def test_width_scan(ctx):
    if not is_root():
        return SKIP
    root = tree_wide(ctx)
    paths = paths_of(ctx, "scan", root)
    rc, piped, err = ctx.run(["scan", "--root", root])
    ctx.check("scan piped: whole table",
              rc == WIDE_RC and max(len(l) for l in piped.split(b"\n")) > 150,
              f"exit {rc} {err!r}")
    for cols in (60, 80, 200):
        rc, out, err = ctx.run(["scan", "--root", root], env={"COLUMNS": str(cols)})
        ctx.check(f"scan COLUMNS={cols} exit", rc == WIDE_RC and err == WIDE_ERR,
                  f"exit {rc} {err!r}")
        ctx.golden("scan", f"width-{cols}.txt", out)
        check_fits(ctx, f"scan COLUMNS={cols}", out, cols, paths)
        # the terminal's width when COLUMNS is not set
        rc, tty, err = on_pty(ctx, ["scan", "--root", root], cols=cols)
        ctx.check(f"scan on a {cols}-column terminal", rc == WIDE_RC and tty == out,
                  f"exit {rc}\n{tty.decode()}")
    narrow = ctx.run(["scan", "--root", root], env={"COLUMNS": "60"})[1]
    rc, tty, _ = on_pty(ctx, ["scan", "--root", root], env={"COLUMNS": "60"}, cols=200)
    ctx.check("COLUMNS wins over the terminal's width", rc == WIDE_RC and tty == narrow,
              tty.decode())
    ctx.check("scan narrow: capabilities under the row",
              b"    capabilities: cap_net_bind_service,cap_net_admin=ep\n" in narrow, "")
    ctx.check("scan narrow: flags the columns do not show", b"    flags: setuid-root,script\n"
              in narrow and b"    flags: setuid-root,hardlinks\n" in narrow and
              b"    flags: setuid-root\n" not in narrow, narrow.decode())
    for bad in ("", "0", "abc", "-5", "80x"):
        rc, out, _ = ctx.run(["scan", "--root", root], env={"COLUMNS": bad})
        ctx.check(f"COLUMNS={bad!r} is ignored", rc == WIDE_RC and out == piped, out.decode())
    # the wide layout when everything fits
    rc, out, _ = ctx.run(["scan", "--root", root], env={"COLUMNS": "200"})
    ctx.check("COLUMNS=200: the wide table", out == piped, out.decode())
    # -o FILE is not the terminal: the whole table
    target = os.path.join(ctx.tmp, "scan.txt")
    rc, _, err = on_pty(ctx, ["scan", "--root", root, "-o", target], cols=60)
    with open(target, "rb") as f:
        ctx.check("-o on a terminal: the file gets the whole table",
                  rc == WIDE_RC and f.read() == piped,
                  f"exit {rc} {err!r}")


def test_width_audit(ctx):
    if not is_root():
        return SKIP
    root = test_audit.tree_compiled(ctx)
    db = ["--db", test_audit.rules_dir(ctx)]
    paths = paths_of(ctx, "audit", root, *test_audit.KERNEL, *db)
    _, piped, _ = test_audit.audit(ctx, root, *db)
    for cols in (60, 80, 200):
        rc, out, err = test_audit.audit(ctx, root, *db, env={"COLUMNS": str(cols)})
        ctx.check(f"audit COLUMNS={cols} exit", rc == 0 and err == b"", f"exit {rc} {err!r}")
        ctx.golden("audit", f"width-{cols}.txt",
                   test_audit.normalise("text", out.replace(root.encode(), b"<root>"), ctx.tmp))
        lines = out.decode().split("\n")
        first = next(i for i, l in enumerate(lines) if l.startswith("MIGRATE:"))
        check_fits(ctx, f"audit COLUMNS={cols}", out, cols, paths, first)
        rc, tty, _ = on_pty(ctx, ["audit", "--root", root, *test_audit.KERNEL, *db,
                                  "--color", "never"], cols=cols)
        ctx.check(f"audit on a {cols}-column terminal", rc == 0 and tty == out, tty.decode())
    narrow = test_audit.audit(ctx, root, *db, env={"COLUMNS": "60"})[1]
    ctx.check("audit narrow: dropped cells under their row",
              b"  /usr/local/bin/insists     4755 -> 0755  root -> dangerous\n"
              b"      capabilities: - -> cap_net_raw=ep\n      owner: root:root\n"
              b"      rule: test.insists\n" in narrow, narrow.decode())
    ctx.check("audit narrow: a long path on a line of its own",
              b"  /usr/local/sbin/adminhelper\n                             0755          root\n"
              in narrow, narrow.decode())
    narrowest = test_audit.audit(ctx, root, *db, env={"COLUMNS": "40"})[1]
    ctx.check("audit narrow: headings wrapped",
              b"\nMIGRATE: 2 files, file capabilities\n"
              b"         replace the set-ID bit\n" in narrowest, narrowest.decode())
    ctx.check("audit narrow: no line for '-'", b"rule: -" not in narrow and
              b"capabilities: -\n" not in narrow, "")
    # in a pipe: the table as wide as its cells, reasons wrapped at 100 columns as before
    lines = piped.decode().split("\n")
    rows = [l for l in lines if l.startswith("  /usr/")]
    notes = [l for l in lines if l.startswith("      ")]
    ctx.check("audit piped: the whole table", rows and max(len(l) for l in rows) > 100 and
              all("root:root" in l or "root:shadow" in l for l in rows), piped.decode())
    ctx.check("audit piped: reasons at 100", notes and max(len(l) for l in notes) <= 100 and
              max(len(l) for l in notes) > 80, piped.decode())


# --- colour ------------------------------------------------------------------------------

def test_color(ctx):
    if not is_root():
        return SKIP
    root = test_audit.tree_compiled(ctx)
    db = ["--db", test_audit.rules_dir(ctx)]
    for verb, extra in (("audit", []), ("explain", ["/usr/local/bin/insists"])):
        base = [verb, "--root", root, *test_audit.KERNEL, *db]
        cases = [
            ("pipe, auto", False, [], {}, False),
            ("pipe, always", False, ["--color", "always"], {}, True),
            ("pipe, always, NO_COLOR", False, ["--color=always"], {"NO_COLOR": "1"}, True),
            ("terminal, auto", True, [], {}, True),
            ("terminal, auto, NO_COLOR", True, [], {"NO_COLOR": "1"}, False),
            ("terminal, auto, empty NO_COLOR", True, [], {"NO_COLOR": ""}, True),
            ("terminal, auto, TERM=dumb", True, [], {"TERM": "dumb"}, False),
            ("terminal, never", True, ["--color", "never"], {}, False),
            ("terminal, always then never", True, ["--color", "always", "--color", "never"], {},
             False),
        ]
        if verb == "audit":
            cases += [("terminal, --no-color", True, ["--no-color"], {}, False),
                      ("pipe, --no-color then always", False, ["--no-color", "--color=always"], {},
                       True)]
        for name, tty, opts, env, want in cases:
            args = base + opts + extra
            rc, out, err = on_pty(ctx, args, env=env) if tty else ctx.run(args, env=env)
            coloured = b"\x1b[" in out
            ctx.check(f"{verb} {name}", rc == 0 and coloured == want,
                      f"exit {rc}, escapes {coloured}, {err!r}")
    rc, out, err = ctx.run(["audit", "--root", root, "--color", "sometimes"])
    ctx.check("--color: an unknown word", rc == 2 and
              b"unknown color 'sometimes': expected auto, always or never" in err, f"{rc} {err!r}")
    # the prefix of a message follows --color too
    rc, out, err = ctx.run(["explain", "--root", root, "--color", "always", "/nonexistent"])
    ctx.check("stderr prefix coloured with always", rc == 2 and err.startswith(
        b"suid2cap: \x1b[1;31merror:\x1b[0m "), f"{err!r}")
    rc, out, err = ctx.run(["explain", "--root", root, "/nonexistent"])
    ctx.check("stderr prefix plain in a pipe", b"\x1b" not in err, f"{err!r}")
    rc, out, err = ctx.run(["learn", "--color", "sometimes", "--", "true"])
    ctx.check("learn --color is parsed", rc == 2 and b"unknown color 'sometimes'" in err,
              f"{rc} {err!r}")


# --- quiet -------------------------------------------------------------------------------

def test_quiet(ctx):
    if not is_root():
        return SKIP
    root = tree_wide(ctx)
    rc, full, _ = ctx.run(["scan", "--root", root])
    rc, quiet, err = ctx.run(["scan", "--root", root, "-q"])
    table = full.split(b"\n\n")[0] + b"\n"
    # the findings on stderr stay: they are what a quiet run is for
    ctx.check("scan -q: the table alone",
              rc == WIDE_RC and quiet == table and err == WIDE_ERR,
              f"exit {rc}\n{quiet.decode()}")
    rc, out, err = ctx.run(["scan", "--root", root, "--quiet"], env={"COLUMNS": "60"})
    ctx.check("scan -q: narrow too", rc == WIDE_RC and out.startswith(b"PATH ") and
              b"privileged files" not in out, out.decode())
    empty = ctx.tree("empty")
    rc, out, err = ctx.run(["scan", "--root", empty, "-q"])
    ctx.check("scan -q: nothing when nothing is privileged", rc == 0 and out == b"",
              f"{rc} {out!r}")
    rc, out, err = ctx.run(["scan", "--root", root, "-q", "--format", "json"])
    ctx.check("scan -q --format json", rc == 2 and b"--quiet shapes the text table" in err,
              f"{rc} {err!r}")

    root = test_audit.tree_compiled(ctx)
    db = ["--db", test_audit.rules_dir(ctx)]
    rc, out, err = test_audit.audit(ctx, root, *db, "-q")
    ctx.check("audit -q exit", rc == 0 and err == b"", f"exit {rc} {err!r}")
    ctx.golden("audit", "quiet.txt",
               test_audit.normalise("text", out.replace(root.encode(), b"<root>"), ctx.tmp))
    _, js, _ = test_audit.audit(ctx, root, *db, "--format", "json")
    problems = {"S2C004", "S2C005", "S2C006", "S2C007", "S2C008"}
    want = []
    for f in json.loads(js)["files"]:
        found = [x for x in f["findings"] if x in problems]
        if found:
            want.append(f["file"]["path"])
            want += [x for x in sorted(found)]
    got = [l.split()[0] for l in out.decode().splitlines()[1:]]
    ctx.check("audit -q: the files with a finding for a person, and those findings",
              got == want, f"got {got}\nwant {want}")
    ctx.check("audit -q: one summary line",
              out.startswith(b"suid2cap audit of ") and b": 9 privileged files: 2 migrate, "
              b"1 drop, 5 review, 1 keep, 0 nothing to change; 3 would change; 2 setuid in "
              b"disguise\n" in out,
              out.decode())
    rc, _, _ = test_audit.audit(ctx, root, *db, "-q", "--fail-on", "review")
    ctx.check("audit -q keeps the exit status", rc == 1, f"exit {rc}")
    rc, out, err = test_audit.audit(ctx, root, *db, "-q", "--format", "sarif")
    ctx.check("audit -q --format sarif", rc == 2 and out == b"" and
              b"--quiet shapes the text report" in err, f"{rc} {err!r}")


TESTS = [test_relative_on_host, test_relative_under_root, test_symlink_operands,
         test_missing_path, test_width_scan, test_width_audit, test_color, test_quiet]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
