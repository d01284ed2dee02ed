#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""apply, migrate, rollback and verify on staged copies of real Debian programs:
end to end as 'nobody', crash safety at every step, races and bad input, drift
and the dpkg hook."""
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys

import s2ctest
from s2ctest import SKIP, is_root, mklink

NET = {"/usr/bin/ping": "iputils-ping", "/usr/bin/arping": "iputils-arping",
       "/usr/bin/clockdiff": "iputils-clockdiff", "/usr/bin/mtr-packet": "mtr-tiny",
       "/usr/bin/fping": "fping"}
KEEP = ["/usr/bin/su", "/usr/bin/passwd", "/usr/bin/mount"]
XATTR = "security.capability"
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]


def stage(ctx, name, paths, var=True):
    """A root with copies of @paths, setuid root and without capabilities, as
    old systems had them, with their dpkg file lists (unless not @var: then the
    root has no var/ at all) and passwd/group."""
    root = ctx.tree(name)
    for d in ("var/lib/dpkg/info", "etc") if var else ("etc",):
        os.makedirs(os.path.join(root, d))
    for f in ("passwd", "group"):
        shutil.copyfile("/etc/" + f, os.path.join(root, "etc", f))
    for path in paths:
        dst = os.path.join(root, path.lstrip("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(path, dst)
        os.chown(dst, 0, 0)
        os.chmod(dst, 0o4755)
        pkg = NET.get(path) if var else None
        for base in (pkg, pkg + ":amd64") if pkg else ():
            for ext in (".list", ".md5sums"):
                src = os.path.join("/var/lib/dpkg/info", base + ext)
                if os.path.exists(src):
                    shutil.copyfile(src, os.path.join(root, "var/lib/dpkg/info", base + ext))
    return root


def xattr(path):
    try:
        return os.getxattr(path, XATTR, follow_symlinks=False)
    except OSError:
        return None


def snapshot(root):
    """mode, owner, group, capability bytes and content hash of every file under usr/."""
    snap = {}
    for dirpath, _, files in os.walk(os.path.join(root, "usr")):
        for f in files:
            p = os.path.join(dirpath, f)
            st = os.lstat(p)
            with open(p, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
            snap[p[len(root):]] = (st.st_mode, st.st_uid, st.st_gid, xattr(p), digest)
    return snap


def privileged(path_state):
    mode, _, _, caps, _ = path_state
    return bool(mode & 0o6000) or caps is not None


def make_plan(ctx, root, extra=()):
    out = os.path.join(root + ".plan.json")
    rc, _, err = ctx.run(["plan", "--root", root, "-o", out, *extra])
    ctx.check("plan " + root, rc == 0, err)
    with open(out) as f:
        return out, json.load(f)


def present(paths):
    return [p for p in paths if os.path.exists(p)]


def test_end_to_end(ctx):
    """migrate --yes on real programs; they work as nobody; rollback is byte-exact."""
    if not is_root():
        return SKIP
    net = present(NET)
    root = stage(ctx, "e2e", net + present(KEEP))
    before = snapshot(root)
    rc, out, err = ctx.run(["migrate", "--root", root, "--yes", "--smoke"])
    ctx.check("migrate exit", rc == 0, f"{rc} {out!r} {err!r}")
    ctx.check("smoke tests ran", out.count(b"smoke test passed") >= 3, out)
    after = snapshot(root)
    for p in net:
        mode, uid, gid, caps, _ = after[p]
        ctx.check(f"{p} no setuid", not mode & 0o6000, oct(mode))
        ctx.check(f"{p} has caps", caps is not None, "")
    for p in present(KEEP):
        ctx.check(f"{p} untouched", after[p] == before[p], f"{after[p]} {before[p]}")
    r = os.path.join(root, "usr/bin")
    runs = [([os.path.join(r, "ping"), "-c", "1", "-W", "2", "127.0.0.1"], {}),
            ([os.path.join(r, "fping"), "127.0.0.1"], {})]
    if os.path.exists("/usr/bin/mtr"):
        runs.append((["/usr/bin/mtr", "--report", "-c", "1", "127.0.0.1"],
                     {"MTR_PACKET": os.path.join(r, "mtr-packet")}))
    for argv, env in runs:
        e = dict(os.environ, **env)
        p = subprocess.run(NOBODY + argv, capture_output=True, env=e)
        ctx.check("as nobody: " + " ".join(argv[-3:]), p.returncode == 0,
                  f"exit {p.returncode}: {p.stdout!r} {p.stderr!r}")
    rc, out, err = ctx.run(["verify", "--root", root])
    ctx.check("verify clean", rc == 0 and b"0 drifted" in out, f"{rc} {out!r}")
    rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
    ctx.check("rollback exit", rc == 0, f"{rc} {err!r}")
    ctx.check("rollback byte-exact", snapshot(root) == before, "")
    rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
    ctx.check("rollback twice is harmless", rc == 0 and snapshot(root) == before, f"{rc} {err!r}")


def test_privileges(ctx):
    """apply keeps only what the plan needs; verify without --fix is read-only."""
    if not is_root():
        return SKIP
    root = stage(ctx, "privs", present(["/usr/bin/ping"]))
    plan, _ = make_plan(ctx, root)
    rc, out, err = ctx.run(["apply", "--verbose", "--no-smoke", plan])
    ctx.check("apply --verbose", rc == 0, err)
    ctx.check("the deciding child is read-only", b"the deciding process keeps: effective "
              b"cap_dac_read_search; bounding cap_dac_read_search; no_new_privs yes" in err, err)
    ctx.check("apply keeps the change set only",
              b"capabilities kept: cap_dac_read_search,cap_fowner,cap_fsetid,cap_setfcap\n" in out,
              out)
    root2 = stage(ctx, "privs2", present(["/usr/bin/ping"]))
    plan2, _ = make_plan(ctx, root2)
    rc, out, err = ctx.run(["apply", "--verbose", "--smoke", plan2])
    ctx.check("apply with smoke tests keeps setuid/setgid/kill too",
              b"cap_dac_read_search,cap_fowner,cap_fsetid,cap_kill,cap_setgid,cap_setuid,cap_setfcap"
              in out, out)
    rc, out, err = ctx.run(["privileges", "apply"])
    ctx.check("apply's dispatch set", b"no_new_privs: no" in out and b"cap_chown" in out, out)


def after_ok(snap, plan_doc, root):
    """Every entry of the plan in its planned after-state."""
    for e in plan_doc["entries"]:
        if e["action"] != "change":
            continue
        mode, uid, gid, caps, _ = snap[e["path"]]
        if "%04o" % (mode & 0o7777) != e["after"]["mode"] or caps is None:
            return False
    return True


def fault_injection(ctx):
    """The build has crash points (S2C_FAULT_INJECTION, every test preset)."""
    rc, _, err = ctx.run(["rollback", "--root", "/nonexistent", "--fault", "intent"])
    return b"only in test builds" not in err


def test_crash_points(ctx):
    """SIGKILL at every step of every entry: the files keep setuid or caps, and both
    rollback and a rerun of apply reach a consistent state."""
    if not is_root():
        return SKIP
    if not fault_injection(ctx):
        print("skip: this build has no crash points (S2C_FAULT_INJECTION=OFF)", file=sys.stderr)
        return SKIP
    progs = present(["/usr/bin/ping", "/usr/bin/fping", "/usr/bin/mtr-packet"])
    steps = ["intent", "setcap", "chmod", "smoke", "done", "state"]
    results = []
    for step in steps:
        for seq in range(1, len(progs) + 1):
            for then in ("rollback", "rerun"):
                root = stage(ctx, f"crash-{step}-{seq}-{then}", progs)
                before = snapshot(root)
                plan, doc = make_plan(ctx, root)
                rc, out, err = ctx.run(["apply", "--smoke", "--quiet", "--fault", f"{step}:{seq}", plan])
                ctx.check(f"crash {step}:{seq} killed", rc == -9, f"exit {rc} {err!r}")
                mid = snapshot(root)
                ctx.check(f"crash {step}:{seq}: never neither setuid nor caps",
                          all(privileged(mid[p]) for p in mid), repr(mid))
                if then == "rollback":
                    rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
                    ok = rc == 0 and snapshot(root) == before
                else:
                    rc, out, err = ctx.run(["apply", "--smoke", "--quiet", plan])
                    ok = rc == 0 and after_ok(snapshot(root), doc, root)
                ctx.check(f"crash {step}:{seq} then {then}", ok, f"exit {rc} {out!r} {err!r}")
                results.append((step, seq, then, ok))
    # crashes while rolling back: a second rollback completes it
    for step in ["undo", "setcap", "chmod", "undone"]:
        for seq in range(1, len(progs) + 1):
            root = stage(ctx, f"rbcrash-{step}-{seq}", progs)
            before = snapshot(root)
            plan, doc = make_plan(ctx, root)
            rc, out, err = ctx.run(["apply", "--no-smoke", "--quiet", plan])
            rc, out, err = ctx.run(["rollback", "--root", root, "--last", "--fault", f"{step}:{seq}"])
            ctx.check(f"rollback crash {step}:{seq} killed", rc == -9, f"exit {rc}")
            mid = snapshot(root)
            ctx.check(f"rollback crash {step}:{seq}: never neither",
                      all(privileged(mid[p]) for p in mid), repr(mid))
            rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
            ctx.check(f"rollback crash {step}:{seq} completed", rc == 0 and snapshot(root) == before,
                      f"{rc} {err!r}")
            results.append(("rollback-" + step, seq, "rollback", rc == 0))
    with open(os.path.join(s2ctest.SRC, "build", "crash-points.txt") if os.path.isdir(
            os.path.join(s2ctest.SRC, "build")) else os.devnull, "w") as f:
        for r in results:
            f.write("%s:%d then %s: %s\n" % (r[0], r[1], r[2], "ok" if r[3] else "FAILED"))


def expect_unchanged(ctx, name, root, before, argv, want_rc, needle):
    rc, out, err = ctx.run(argv)
    ctx.check(f"{name}: exit {want_rc}", rc == want_rc, f"exit {rc}: {out!r} {err!r}")
    if needle:
        ctx.check(f"{name}: says why", needle.encode() in err, err)
    ctx.check(f"{name}: nothing changed", snapshot(root) == before, "")


def test_crash_state(ctx):
    """The state is saved in batches (a run of n changes writes it O(log n) times, not n
    times); what a crash leaves out of it is in the run's journal, and the next run records
    it before it ends that journal: every change the crashed run finished, with its rule."""
    if not is_root():
        return SKIP
    if not fault_injection(ctx):
        print("skip: this build has no crash points (S2C_FAULT_INJECTION=OFF)", file=sys.stderr)
        return SKIP
    root = stage(ctx, "crash-state", present(["/usr/bin/ping"]))
    first = ["/usr/bin/ping"] if present(["/usr/bin/ping"]) else []
    for i in range(40):
        s2ctest.mkfile(root, f"usr/lib/s2c-scripts/s{i:02}", 0o4755, b"#!/bin/sh\n")
    plan, doc = make_plan(ctx, root)
    changes = [e["path"] for e in doc["entries"] if e["action"] == "change"]
    ctx.check("crash-state: every file a change", changes[:len(first)] == first and
              len(changes) == 40 + len(first), f"{changes}")
    rc, out, err = ctx.run(["apply", "--no-smoke", "--quiet", "--fault", "done:30", plan])
    ctx.check("crash-state: killed after the 30th change", rc == -9, f"exit {rc} {err!r}")
    state_file = os.path.join(root, "var/lib/suid2cap/state.json")
    with open(state_file) as f:
        saved = [e["path"] for e in json.load(f)["entries"]]
    ctx.check("crash-state: saved in batches, some changes not yet", 0 < len(saved) < 29,
              f"{len(saved)}")
    journals = os.listdir(os.path.join(root, "var/lib/suid2cap/journals"))
    ctx.check("crash-state: one journal", len(journals) == 1, f"{journals}")
    # A run that changes nothing recovers first: one entry, finished before the crash.
    rc, out, err = ctx.run(["apply", "--no-smoke", "--quiet", "--only", changes[-1], plan])
    ctx.check("crash-state: recovery", rc == 0, f"exit {rc} {out!r} {err!r}")
    with open(state_file) as f:
        entries = json.load(f)["entries"]
    recorded = {e["path"]: e for e in entries}
    ctx.check("crash-state: the 30 finished changes recorded from the journal",
              sorted(recorded) == sorted(changes[:30] + changes[-1:]) and
              all(recorded[p]["journal"] == journals[0] for p in changes[:30]),
              f"{sorted(recorded)[:3]} {len(recorded)} {entries[:1]}")
    if first:
        ctx.check("crash-state: the rule recorded",
                  recorded.get("/usr/bin/ping", {}).get("rule") == "iputils.ping", f"{entries[:1]}")
    snap = snapshot(root)
    ctx.check("crash-state: each recorded file as recorded",
              all("%04o" % (snap[e["path"]][0] & 0o7777) == e["after"]["mode"]
                  for e in entries), "")
    with open(os.path.join(root, "var/lib/suid2cap/journals", journals[0])) as f:
        ctx.check("crash-state: the crashed run's journal ended",
                  '"r":"end"' in f.read().replace(" ", ""), "")
    rc, out, err = ctx.run(["apply", "--no-smoke", "--quiet", plan])
    snap = snapshot(root)
    ctx.check("crash-state: apply again goes on",
              rc == 0 and all("%04o" % (snap[e["path"]][0] & 0o7777) == e["after"]["mode"]
                              for e in doc["entries"] if e["action"] == "change"),
              f"exit {rc} {err!r}")
    with open(state_file) as f:
        ctx.check("crash-state: then every change recorded",
                  [e["path"] for e in json.load(f)["entries"]] == sorted(changes), "")


def test_rollback_crash_state(ctx):
    """rollback saves the state in batches too; after a crash the state may still list
    files it restored, and the next run forgets them (from the journal's undone records)
    before anything else: apply lists exactly the files still changed, and rollback again
    restores the rest and leaves an empty record."""
    if not is_root():
        return SKIP
    if not fault_injection(ctx):
        print("skip: this build has no crash points (S2C_FAULT_INJECTION=OFF)", file=sys.stderr)
        return SKIP
    root = stage(ctx, "rollback-crash-state", [])
    for i in range(41):
        s2ctest.mkfile(root, f"usr/lib/s2c-scripts/s{i:02}", 0o4755, b"#!/bin/sh\n")
    before = snapshot(root)
    plan, doc = make_plan(ctx, root)
    changes = sorted(e["path"] for e in doc["entries"] if e["action"] == "change")
    rc, out, err = ctx.run(["apply", "--no-smoke", "--quiet", plan])
    ctx.check("rollback-crash: applied", rc == 0 and len(changes) == 41, f"exit {rc} {err!r}")
    state_file = os.path.join(root, "var/lib/suid2cap/state.json")

    def recorded():
        with open(state_file) as f:
            return sorted(e["path"] for e in json.load(f)["entries"])

    # Rolled back from the last entry down: killed once entry 10 is restored.
    rc, out, err = ctx.run(["rollback", "--root", root, "--last", "--fault", "undone:10"])
    ctx.check("rollback-crash: killed", rc == -9, f"exit {rc} {err!r}")
    snap = snapshot(root)
    restored = sorted(p for p in snap if snap[p][0] & 0o4000)
    ctx.check("rollback-crash: 32 restored", restored == changes[9:], f"{len(restored)}")
    ctx.check("rollback-crash: the state still lists some restored files",
              len(recorded()) > 9, f"{len(recorded())}")
    rc, out, err = ctx.run(["apply", "--no-smoke", "--quiet", "--only", changes[0], plan])
    ctx.check("rollback-crash: the next run forgets the restored files",
              rc == 0 and recorded() == changes[:9], f"exit {rc} {err!r} {recorded()[:12]}")
    rc, out, err = ctx.run(["rollback", "--root", root, "--last", "--quiet"])
    ctx.check("rollback-crash: rollback again restores the rest, the record empty",
              rc == 0 and snapshot(root) == before and recorded() == [],
              f"exit {rc} {err!r} {recorded()[:3]}")


def test_already_done_then_rest(ctx):
    """Files already done do not stop the rest: with ten of forty files changed by an earlier
    run, apply changes the thirty others.  (It once closed its standard input for each file
    already done, then took a file opened as fd 0 for "nothing to do": thirty files left
    set-ID, exit 0.)  The same with standard input closed: the run opens /dev/null there
    first, so that no file it opens takes that number."""
    if not is_root():
        return SKIP
    for closed in (False, True):
        root = stage(ctx, f"already-{'closed' if closed else 'open'}", [])
        for i in range(40):
            s2ctest.mkfile(root, f"usr/lib/s2c-scripts/s{i:02}", 0o4755, b"#!/bin/sh\n")
        plan, doc = make_plan(ctx, root)
        only = [a for i in range(10) for a in ("--only", f"/usr/lib/s2c-scripts/s{i:02}")]
        rc, out, err = ctx.run(["apply", "--no-smoke", "--quiet", *only, plan])
        ctx.check(f"already (stdin closed: {closed}): ten first", rc == 0, f"{rc} {err!r}")
        rc, out, err = ctx.run(["apply", "--no-smoke", plan],
                               prefix=["sh", "-c", 'exec "$@" <&-', "sh"] if closed else None)
        snap = snapshot(root)
        left = sorted(p for p in snap if snap[p][0] & 0o6000)
        ctx.check(f"already (stdin closed: {closed}): the thirty others changed",
                  rc == 0 and b"30 applied, 10 already done" in out and not left,
                  f"exit {rc} {out[-300:]!r} {err!r} set-ID left: {left[:3]} ({len(left)})")
    # Standard output and error closed: nothing it writes lands in a file it opened.
    root = stage(ctx, "already-no-output", [])
    for i in range(3):
        s2ctest.mkfile(root, f"usr/lib/s2c-scripts/s{i:02}", 0o4755, b"#!/bin/sh\n")
    before = snapshot(root)
    plan, doc = make_plan(ctx, root)
    rc, out, err = ctx.run(["apply", "--no-smoke", plan],
                           prefix=["sh", "-c", 'exec "$@" >&- 2>&-', "sh"])
    snap = snapshot(root)
    ctx.check("no output: applied", rc == 0 and not any(snap[p][0] & 0o6000 for p in snap),
              f"exit {rc}")
    rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
    ctx.check("no output: the journal intact, rolled back exactly",
              rc == 0 and snapshot(root) == before, f"exit {rc} {err!r}")


def test_bad_plans(ctx):
    if not is_root():
        return SKIP
    root = stage(ctx, "badplan", present(["/usr/bin/ping"]))
    plan, doc = make_plan(ctx, root)
    before = snapshot(root)
    text = open(plan, "rb").read()
    bad = os.path.join(ctx.tmp, "bad.json")
    with open(bad, "wb") as f:
        f.write(text[: len(text) // 2])
    expect_unchanged(ctx, "truncated plan", root, before, ["apply", bad], 4, "invalid plan")
    with open(bad, "wb") as f:
        f.write(text.replace(b'"mode": "0755"', b'"mode": "9755"', 1))
    expect_unchanged(ctx, "malformed plan", root, before, ["apply", bad], 4, "$.entries[")
    os.chown(plan, 1, 0)
    expect_unchanged(ctx, "plan not owned by root", root, before, ["apply", plan], 5, "not owned by root")
    os.chown(plan, 0, 0)
    os.chmod(plan, 0o666)
    expect_unchanged(ctx, "plan writable by others", root, before, ["apply", plan], 5, "writable")
    os.chmod(plan, 0o644)
    link = os.path.join(ctx.tmp, "plan-link.json")
    os.symlink(plan, link)
    expect_unchanged(ctx, "plan is a symlink", root, before, ["apply", link], 4, "")


def test_races(ctx):
    """Between plan and apply: the file or a parent swapped, content changed, linked."""
    if not is_root():
        return SKIP
    cases = ["append", "truncate", "replace", "hardlink", "symlink-file", "symlink-parent",
             "parent-writable", "mode"]
    for case in cases:
        root = stage(ctx, "race-" + case, present(["/usr/bin/ping"]))
        plan, doc = make_plan(ctx, root)
        ping = os.path.join(root, "usr/bin/ping")
        if case == "append":
            with open(ping, "ab") as f:
                f.write(b"\0")
        elif case == "truncate":
            os.truncate(ping, 1000)
        elif case == "replace":
            shutil.copyfile("/usr/bin/ping", ping + ".new")
            os.chmod(ping + ".new", 0o4755)
            os.rename(ping + ".new", ping)
        elif case == "hardlink":
            os.link(ping, os.path.join(root, "usr/ping-old"))
        elif case == "symlink-file":
            os.rename(ping, ping + ".real")
            os.symlink("ping.real", ping)
        elif case == "symlink-parent":
            os.rename(os.path.join(root, "usr/bin"), os.path.join(root, "usr/bin.real"))
            os.symlink("bin.real", os.path.join(root, "usr/bin"))
        elif case == "parent-writable":
            os.chmod(os.path.join(root, "usr/bin"), 0o777)
        elif case == "mode":
            os.chmod(ping, 0o6755)
        before = snapshot(root)
        expect_unchanged(ctx, "race " + case, root, before, ["apply", "--no-smoke", plan], 4, "")
        if case == "hardlink":
            rc, out, err = ctx.run(["apply", "--no-smoke", "--allow-hardlinks", plan])
            ctx.check("hardlink allowed", rc == 0 and xattr(ping) is not None, f"{rc} {err!r}")


def unshared(ctx, script):
    """Run @script under sh in a private mount namespace; returns (rc, out, err)."""
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                       capture_output=True, env={"PATH": os.environ["PATH"], "S2C": ctx.binary,
                                                 "LC_ALL": "C"})
    return p.returncode, p.stdout, p.stderr


def test_filesystems(ctx):
    """Read-only, nosuid and xattr-less filesystems, and a full disk for the journal."""
    if not is_root():
        return SKIP
    # (mount set-up, plan made before the mount?, what the refusal says)
    cases = {
        "ro": ("mount --bind $R/usr/bin $R/usr/bin && mount -o remount,bind,ro $R/usr/bin",
               False, "read-only"),
        # made on a plain mount, the plan no longer matches what the rules decide on the
        # nosuid mount (drop the inert bit): apply refuses it whole
        "nosuid": ("mount --bind $R/usr/bin $R/usr/bin && mount -o remount,bind,nosuid $R/usr/bin",
                   True, "the rules decide drop"),
        "ramfs": ("cp -a $R/usr/bin/ping /tmp/s2c-ping.$$ && mount -t ramfs ramfs $R/usr/bin && "
                  "cp -a /tmp/s2c-ping.$$ $R/usr/bin/ping && rm /tmp/s2c-ping.$$",
                  False, "cannot store file capabilities"),
        "fulldisk": ("mkdir -p $R/var/lib/suid2cap && mount -t tmpfs -o size=8k,mode=0700 tmpfs "
                     "$R/var/lib/suid2cap && dd if=/dev/zero of=$R/var/lib/suid2cap/fill bs=1k "
                     "count=64 2>/dev/null || true", False, "No space left on device"),
    }
    for name, (setup, plan_first, needle) in cases.items():
        root = stage(ctx, "fs-" + name, present(["/usr/bin/ping"]))
        mkplan = "\"$S2C\" plan --root $R -o $R.plan.json; "
        script = (f"set -e; R={root}; " + (mkplan if plan_first else "") + f"{setup}; " +
                  ("" if plan_first else mkplan) +
                  "stat -c %a $R/usr/bin/ping > $R.before; "
                  "set +e; \"$S2C\" apply --no-smoke $R.plan.json; echo \"rc=$?\" >&2; "
                  "stat -c %a $R/usr/bin/ping > $R.after; "
                  "getcap $R/usr/bin/ping > $R.caps")
        rc, out, err = unshared(ctx, script)
        ctx.check(f"fs {name}: apply refused", b"rc=4" in err, f"{err!r}")
        ctx.check(f"fs {name}: says why", needle.encode() in err, f"{err!r}")
        b, a = open(root + ".before").read(), open(root + ".after").read()
        ctx.check(f"fs {name}: the file keeps its setuid bit", b == a == "4755\n", f"{b!r} {a!r}")
        ctx.check(f"fs {name}: no capabilities", open(root + ".caps").read() == "", "")
    # A plan made on the nosuid mount drops the inert bit instead: that works there.
    root = stage(ctx, "fs-nosuid-drop", present(["/usr/bin/ping"]))
    rc, out, err = unshared(ctx, f"set -e; R={root}; " + cases["nosuid"][0] + "; "
                            "\"$S2C\" migrate --root $R --yes --no-smoke; stat -c %a $R/usr/bin/ping")
    ctx.check("nosuid: the inert bit is dropped", rc == 0 and out.endswith(b"755\n") and
              b"4755" not in out.splitlines()[-1], f"{rc} {out!r} {err!r}")


def test_bad_journal_and_state(ctx):
    if not is_root():
        return SKIP
    root = stage(ctx, "badjournal", present(["/usr/bin/ping"]))
    plan, doc = make_plan(ctx, root)
    rc, out, err = ctx.run(["apply", "--no-smoke", plan])
    jdir = os.path.join(root, "var/lib/suid2cap/journals")
    (jname,) = os.listdir(jdir)
    journal = os.path.join(jdir, jname)
    good = open(journal, "rb").read()
    before = snapshot(root)
    with open(journal, "wb") as f:
        f.write(good.replace(b'"mode":"0755"', b'"mode":"0775"', 1))
    expect_unchanged(ctx, "damaged journal", root, before, ["rollback", "--root", root, "--last"], 4,
                     "checksum mismatch")
    with open(journal, "wb") as f:
        f.write(good)
    os.chmod(journal, 0o644)
    expect_unchanged(ctx, "journal readable by others", root, before,
                     ["rollback", "--root", root, "--last"], 5, "accessible by group or others")
    os.chmod(journal, 0o600)
    os.chown(journal, 1, 0)
    expect_unchanged(ctx, "journal not owned by root", root, before,
                     ["rollback", "--root", root, "--last"], 5, "not owned by root")
    os.chown(journal, 0, 0)
    state = os.path.join(root, "var/lib/suid2cap/state.json")
    good_state = open(state, "rb").read()
    with open(state, "wb") as f:
        f.write(good_state[: len(good_state) // 2])
    rc, out, err = ctx.run(["verify", "--root", root])
    ctx.check("truncated state file", rc == 4 and b"state.json" in err, f"{rc} {err!r}")
    with open(state, "wb") as f:
        f.write(good_state)
    os.chmod(os.path.join(root, "var/lib/suid2cap"), 0o755)
    rc, out, err = ctx.run(["verify", "--root", root])
    ctx.check("state directory open to others", rc == 5, f"{rc} {err!r}")
    os.chmod(os.path.join(root, "var/lib/suid2cap"), 0o700)
    rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
    ctx.check("intact journal still rolls back", rc == 0, f"{rc} {err!r}")


def tree_listing(top):
    """Every path under @top (symbolic links not followed) with its type, mode and owner."""
    out = {}
    for dirpath, dirs, files in os.walk(top):
        for n in dirs + files:
            st = os.lstat(os.path.join(dirpath, n))
            out[os.path.join(dirpath, n)[len(top):]] = (st.st_mode, st.st_uid, st.st_gid)
    return out


def test_state_directory(ctx):
    """A root with no var/ at all: read-only verbs make nothing, apply makes the state
    directory the way package managers make theirs (root's, 0755 above it, 0700 itself);
    a symbolic link, a file or a directory others can write on its way is refused with
    the full path named, and nothing is made through it or changed."""
    if not is_root():
        return SKIP
    progs = present(["/usr/bin/fping", "/usr/bin/mtr-packet", "/usr/bin/clockdiff"])
    if not progs:
        print("  (needs fping, mtr-packet or clockdiff)")
        return SKIP
    root = stage(ctx, "novar", progs, var=False)
    plan, doc = make_plan(ctx, root)
    ctx.check("novar: the plan changes something",
              any(e["action"] == "change" for e in doc["entries"]), repr(doc["summary"]))
    sd = os.path.join(root, "var/lib/suid2cap")
    for argv, want_rc in ((["verify", "--root", root], 0), (["rollback", "--root", root, "--list"], 0),
                          (["rollback", "--root", root, "--last"], 4)):
        rc, out, err = ctx.run(argv)
        ctx.check(f"novar: {' '.join(argv[:1] + argv[3:])} exit {want_rc}", rc == want_rc,
                  f"{rc} {out!r} {err!r}")
        ctx.check(f"novar: {' '.join(argv[:1] + argv[3:])} makes nothing",
                  not os.path.lexists(os.path.join(root, "var")), "")
    ctx.check("novar: rollback names the full path",
              f"no state directory '{sd}'".encode() in err, f"{err!r}")
    rc, out, err = ctx.run(["apply", "--no-smoke", plan])
    ctx.check("novar: apply exit 0", rc == 0, f"{rc} {out!r} {err!r}")
    for rel, mode in (("var", 0o755), ("var/lib", 0o755), ("var/lib/suid2cap", 0o700),
                      ("var/lib/suid2cap/journals", 0o700)):
        st = os.lstat(os.path.join(root, rel))
        ctx.check(f"novar: {rel} is a directory {mode:04o} of root's",
                  stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == mode and
                  st.st_uid == 0, f"{st.st_mode:o} {st.st_uid}:{st.st_gid}")
    ctx.check("novar: a journal and the state", len(os.listdir(os.path.join(sd, "journals"))) == 1
              and os.path.isfile(os.path.join(sd, "state.json")), f"{os.listdir(sd)}")
    rc, out, err = ctx.run(["verify", "--root", root])
    ctx.check("novar: verify clean", rc == 0 and b"0 drifted" in out, f"{rc} {out!r} {err!r}")
    rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
    ctx.check("novar: rollback", rc == 0, f"{rc} {out!r} {err!r}")

    # what is on the way must be a directory only root can change
    outside = ctx.tree("outside")
    cases = [
        ("var/lib symlink", lambda r: (os.makedirs(os.path.join(r, "var")),
                                       os.symlink(outside, os.path.join(r, "var/lib"))),
         "directory '{r}/var/lib' is a symbolic link", 4),
        ("var symlink", lambda r: os.symlink(outside, os.path.join(r, "var")),
         "directory '{r}/var' is a symbolic link", 4),
        ("state directory symlink", lambda r: (os.makedirs(os.path.join(r, "var/lib")),
                                               os.symlink(outside, os.path.join(r, "var/lib/suid2cap"))),
         "state directory '{r}/var/lib/suid2cap' is a symbolic link", 4),
        ("var/lib a file", lambda r: (os.makedirs(os.path.join(r, "var")),
                                      open(os.path.join(r, "var/lib"), "w").close()),
         "directory '{r}/var/lib' is not a directory", 4),
        ("var/lib group-writable", lambda r: os.makedirs(os.path.join(r, "var/lib"), 0o775) or
         os.chmod(os.path.join(r, "var/lib"), 0o775),
         "directory '{r}/var/lib' is writable by group or others", 5),
        ("var not root's", lambda r: os.makedirs(os.path.join(r, "var/lib")) or
         os.chown(os.path.join(r, "var"), 1, 1),
         "directory '{r}/var' is not owned by root", 5),
    ]
    for name, make, needle, want_rc in cases:
        r = stage(ctx, "statedir", progs, var=False)
        p, _ = make_plan(ctx, r)
        make(r)
        before, around = snapshot(r), tree_listing(os.path.join(r, "var"))
        for argv in (["apply", "--no-smoke", p], ["migrate", "--root", r, "--yes", "--no-smoke"]):
            rc, out, err = ctx.run(argv)
            ctx.check(f"{name}: {argv[0]} exit {want_rc}", rc == want_rc, f"{rc} {out!r} {err!r}")
            ctx.check(f"{name}: {argv[0]} names the full path", needle.format(r=r).encode() in err,
                      f"{err!r}")
            ctx.check(f"{name}: {argv[0]} changes no file", snapshot(r) == before, "")
            ctx.check(f"{name}: {argv[0]} makes nothing",
                      tree_listing(os.path.join(r, "var")) == around and not os.listdir(outside),
                      f"{tree_listing(os.path.join(r, 'var'))} {os.listdir(outside)}")
    return None


def test_smoke_failure_rolls_back(ctx):
    """A failing smoke test undoes that entry automatically and says so."""
    if not is_root():
        return SKIP
    root = stage(ctx, "smokefail", present(["/usr/bin/fping"]))
    db = ctx.tree("smokedb")
    with open(os.path.join(db, "local.json"), "w") as f:
        json.dump({"schema": 1, "area": "local", "rules": [{
            "id": "fping.fping", "program": "fping with a failing smoke test",
            "match": {"paths": ["/usr/bin/fping"], "packages": ["fping"]},
            "verdict": "migrate", "caps": "cap_net_raw=ep", "reason": "test",
            "sources": ["man:fping(8)"], "smoke": ["{}", "--no-such-option"]}]}, f)
    before = snapshot(root)
    rc, out, err = ctx.run(["migrate", "--root", root, "--db", db, "--yes", "--smoke"])
    ctx.check("smoke failure exit", rc == 4, f"{rc} {out!r} {err!r}")
    ctx.check("smoke failure reported", b"rolled back" in err and b"smoke test failed" in err, err)
    ctx.check("smoke failure undone", snapshot(root) == before, "")


def test_drift(ctx):
    """A package update replaces the file by rename: verify sees it, --fix repairs it;
    content the package did not ship, and capabilities taken away, are named and left."""
    if not is_root():
        return SKIP
    root = stage(ctx, "drift", present(["/usr/bin/ping"]))
    rc, out, err = ctx.run(["migrate", "--root", root, "--yes", "--no-smoke"])
    ping = os.path.join(root, "usr/bin/ping")

    def replace(src, mode=0o4755):
        new = ping + ".dpkg-new"
        shutil.copyfile(src, new)
        os.chmod(new, mode)
        os.rename(new, ping)

    replace("/usr/bin/ping")
    rc, out, err = ctx.run(["verify", "--root", root])
    ctx.check("verify finds the replaced file", rc == 1 and b"replaced by another file" in out and
              b"package update" in out, f"{rc} {out!r}")
    rc, out, err = ctx.run(["verify", "--root", root, "--fix", "--no-smoke"])
    ctx.check("verify --fix", rc == 0 and xattr(ping) is not None and
              not os.stat(ping).st_mode & 0o4000, f"{rc} {out!r} {err!r}")
    rc, out, err = ctx.run(["verify", "--root", root])
    ctx.check("clean after --fix", rc == 0 and b"0 drifted" in out, f"{rc} {out!r}")
    os.chmod(ping, 0o4755)
    rc, out, err = ctx.run(["verify", "--root", root])
    ctx.check("setuid bit back: drift and how to repair it", rc == 1 and
              b"drift      /usr/bin/ping: the set-ID bit is back (mode 4755); 'suid2cap verify "
              b"--fix' repairs it\n" in out and b"not repaired" not in out, out)
    rc, out, err = ctx.run(["verify", "--root", root, "--fix", "--no-smoke"])
    ctx.check("setuid bit back: --fix", rc == 0 and not os.stat(ping).st_mode & 0o4000 and
              xattr(ping) is not None, f"{rc} {out!r} {err!r}")
    subprocess.run(["setcap", "-r", ping], check=True)
    rc, out, err = ctx.run(["verify", "--root", root])
    ctx.check("capabilities gone: what a person does instead", rc == 1 and
              b"capabilities are gone" in out and b"--forget" in out and
              b"not repaired" not in out, out)
    rc, out, err = ctx.run(["verify", "--root", root, "--fix", "--no-smoke"])
    ctx.check("capabilities gone: not repaired, named, exit 1",
              rc == 1 and b"not repaired '/usr/bin/ping'" in err and xattr(ping) is None and
              os.stat(ping).st_mode & 0o7777 == 0o755, f"{rc} {out!r} {err!r}")
    rc, out, err = ctx.run(["verify", "--root", root, "--forget", "/usr/bin/ping"])
    ctx.check("--forget", rc == 0 and b"forgotten" in out, f"{rc} {out!r} {err!r}")
    rc, out, err = ctx.run(["verify", "--root", root])
    ctx.check("clean after --forget", rc == 0 and b"0 migrated files checked" in out, f"{rc} {out!r}")


def test_tampering(ctx):
    """Content the owning package did not ship is tampering: reported, never repaired,
    and rollback does not put the set-ID bit on it."""
    if not is_root():
        return SKIP
    root = stage(ctx, "tamper", present(["/usr/bin/ping", "/usr/bin/fping"]))
    rc, out, err = ctx.run(["migrate", "--root", root, "--yes", "--no-smoke"])
    ctx.check("tamper: migrate", rc == 0, f"{rc} {out!r} {err!r}")
    ping = os.path.join(root, "usr/bin/ping")
    new = ping + ".new"
    shutil.copyfile("/usr/bin/id", new)
    os.chmod(new, 0o4755)
    os.rename(new, ping)
    rc, out, err = ctx.run(["verify", "--root", root, "--fix", "--no-smoke"])
    ctx.check("tamper: reported", rc == 1 and b"not what package 'iputils-ping' shipped" in out,
              f"{rc} {out!r}")
    ctx.check("tamper: named as not repaired", b"not repaired '/usr/bin/ping'" in err, err)
    ctx.check("tamper: left alone", xattr(ping) is None and os.stat(ping).st_mode & 0o7777 == 0o4755,
              oct(os.stat(ping).st_mode))
    # rewritten in place by its (non-root) owner: rollback must not make it set-ID again
    fping = os.path.join(root, "usr/bin/fping")
    os.chown(fping, 65534, 0)
    with open(fping, "r+b") as f:
        f.seek(0, 2)
        f.write(b"appended by its owner")
    rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
    st = os.stat(fping)
    ctx.check("rollback refuses rewritten content", rc == 4 and b"content changed" in err and
              not st.st_mode & 0o6000, f"{rc} {oct(st.st_mode)} {err!r}")


def build_deb(ctx, version, payload):
    pkg = ctx.tree("deb-" + version)
    os.makedirs(os.path.join(pkg, "DEBIAN"))
    dst = os.path.join(pkg, "usr/lib/s2c-hook-test/pinger")
    os.makedirs(os.path.dirname(dst))
    shutil.copyfile(payload, dst)
    os.chmod(dst, 0o4755)
    with open(os.path.join(pkg, "usr/lib/s2c-hook-test/version"), "w") as f:
        f.write(version + "\n")
    with open(os.path.join(pkg, "DEBIAN/control"), "w") as f:
        f.write(f"Package: s2c-hook-test\nVersion: {version}\nArchitecture: all\n"
                "Maintainer: suid2cap tests <tests@suid2cap.invalid>\n"
                "Description: setuid test program for the suid2cap dpkg hook test\n")
    deb = pkg + ".deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", pkg, deb], check=True,
                   capture_output=True)
    return deb


def dpkg(args):
    return subprocess.run(["dpkg", *args], capture_output=True)


HOOK_TRACES = ["/etc/dpkg/dpkg.cfg.d/suid2cap", "/etc/suid2cap", "/var/lib/suid2cap",
               "/usr/lib/s2c-hook-test", "/usr/local/sbin/s2c-hook-suid2cap",
               "/usr/local/share/suid2cap"]


def hook_traces():
    """What the dpkg hook test would leave on a machine: its files and its package."""
    seen = {}
    for top in HOOK_TRACES:
        for dirpath, dirs, files in os.walk(top) if os.path.isdir(top) else [(top, [], [])]:
            for p in [dirpath] + [os.path.join(dirpath, f) for f in files]:
                if os.path.lexists(p):
                    st = os.lstat(p)
                    seen[p] = (st.st_mode, st.st_uid, st.st_size, st.st_mtime_ns, xattr(p))
    q = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", "s2c-hook-test"],
                       capture_output=True)
    seen["dpkg s2c-hook-test"] = q.stdout
    return seen


def dpkg_hook_in_throwaway(ctx):
    """The body of test_dpkg_hook, run in a throwaway copy of the running system:
    dpkg, /etc and /var/lib/suid2cap are the copy's."""
    pinger = "/usr/lib/s2c-hook-test/pinger"
    rules = "/etc/suid2cap/rules.d"
    os.makedirs(rules, mode=0o755, exist_ok=True)
    with open(os.path.join(rules, "s2c-hook-test.json"), "w") as f:
        json.dump({"schema": 1, "area": "s2c-hook-test", "rules": [{
            "id": "s2ctest.pinger", "program": "pinger (test package)",
            "match": {"paths": [pinger]}, "verdict": "migrate", "caps": "cap_net_raw=ep",
            "reason": "test package", "sources": ["man:fping(8)"], "smoke": ["{}", "127.0.0.1"]}]}, f)
    os.chmod(os.path.join(rules, "s2c-hook-test.json"), 0o644)
    p = dpkg(["-i", build_deb(ctx, "1.0", "/usr/bin/fping")])
    ctx.check("hook: dpkg -i of the first version", p.returncode == 0, p.stderr)
    rc, out, err = ctx.run(["migrate", "--yes", os.path.dirname(pinger)])
    ctx.check("hook: migrate on the running system", rc == 0 and xattr(pinger) is not None,
              f"{rc} {out!r} {err!r}")
    # The hook runs a program only from where nobody but root can replace it; the build
    # tree may be anywhere (a clone under /tmp), so the copy's /usr/local holds the
    # program and, where it looks for it, its bundled database.
    hook_prog = "/usr/local/sbin/s2c-hook-suid2cap"
    os.makedirs(os.path.dirname(hook_prog), exist_ok=True)
    shutil.copyfile(ctx.binary, hook_prog)
    os.chmod(hook_prog, 0o755)
    shutil.copytree(os.path.join(os.path.dirname(os.path.dirname(ctx.binary)), "share/suid2cap"),
                    "/usr/local/share/suid2cap", dirs_exist_ok=True)
    rc, out, err = ctx.run(["verify", "--install-hook", "dpkg", "--hook-program", hook_prog])
    ctx.check("hook installed", rc == 0 and os.path.exists("/etc/dpkg/dpkg.cfg.d/suid2cap"),
              f"{rc} {err!r}")
    p = dpkg(["-i", build_deb(ctx, "2.0", "/usr/bin/fping")])
    ctx.check("hook: dpkg -i of the update", p.returncode == 0, p.stderr)
    with open("/usr/lib/s2c-hook-test/version") as f:
        ctx.check("hook: the update is installed", f.read() == "2.0\n", "")
    st = os.stat(pinger)
    ctx.check("hook restored the capabilities", xattr(pinger) is not None and
              not st.st_mode & 0o4000, f"{oct(st.st_mode)} {xattr(pinger)!r} {p.stdout!r}")
    rc, out, err = ctx.run(["verify"])
    ctx.check("hook: verify clean after the update", rc == 0, f"{rc} {out!r}")
    p = subprocess.run(NOBODY + [pinger, "127.0.0.1"], capture_output=True)
    ctx.check("hook: updated program works as nobody", p.returncode == 0, p.stderr)
    rc, out, err = ctx.run(["verify", "--remove-hook", "dpkg"])
    ctx.check("hook removed", rc == 0 and not os.path.exists("/etc/dpkg/dpkg.cfg.d/suid2cap"),
              f"{rc} {err!r}")


def test_dpkg_hook(ctx):
    """The installed dpkg hook repairs capabilities after a real dpkg -i of an update;
    all of it in a throwaway copy of this system, and the machine itself is left as it was."""
    if not shutil.which("dpkg-deb") or not os.path.exists("/usr/bin/fping"):
        return SKIP
    before = hook_traces()
    if s2ctest.in_throwaway_system(ctx, dpkg_hook_in_throwaway) == SKIP:
        return SKIP
    after = hook_traces()
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    ctx.check("hook: the host is as it was", not changed, f"changed: {changed}")
    return None


def test_hook_files(ctx):
    """Hooks in an image name the installed program; removal leaves files that are not ours."""
    root = ctx.tree("hooks")
    for d in ("etc/apt/apt.conf.d", "etc/dnf/plugins/post-transaction-actions.d", "etc/dpkg/dpkg.cfg.d"):
        os.makedirs(os.path.join(root, d))
    rc, out, err = ctx.run(["verify", "--help"])
    m = re.search(rb"--hook-program PATH .*?\(default: (/\S+/suid2cap),", out, re.S)
    ctx.check("help names the installed program", m is not None, out)
    installed = m.group(1).decode() if m else "/usr/sbin/suid2cap"
    dpkg_hook = os.path.join(root, "etc/dpkg/dpkg.cfg.d/suid2cap")
    # Not installed in the image: a hook would be a silent no-op there, so none is written.
    rc, out, err = ctx.run(["verify", "--root", root, "--install-hook", "dpkg"])
    ctx.check("hook refused without the program", rc == 4 and not os.path.exists(dpkg_hook) and
              f"it would run '{installed}'".encode() in err and b"--hook-program" in err,
              f"{rc} {err!r}")
    prog = os.path.join(root, installed.lstrip("/"))
    os.makedirs(os.path.dirname(prog))
    shutil.copyfile(ctx.binary, prog)
    os.chmod(prog, 0o755)
    for kind, path in (("dpkg", "etc/dpkg/dpkg.cfg.d/suid2cap"), ("apt", "etc/apt/apt.conf.d/80suid2cap"),
                       ("rpm", "etc/dnf/plugins/post-transaction-actions.d/suid2cap.action")):
        rc, out, err = ctx.run(["verify", "--root", root, "--install-hook", kind])
        text = open(os.path.join(root, path)).read() if os.path.exists(os.path.join(root, path)) else ""
        ctx.check(f"{kind} hook", rc == 0 and "verify --fix" in text, f"{rc} {err!r} {text!r}")
        ctx.check(f"{kind} hook names the installed program", installed in text and
                  ctx.binary not in text and installed.encode() in out, f"{text!r} {out!r}")
        rc, out, err = ctx.run(["verify", "--root", root, "--remove-hook", kind])
        ctx.check(f"{kind} hook removed", rc == 0 and out.startswith(b"removed ") and
                  not os.path.exists(os.path.join(root, path)), f"{rc} {out!r}")
        rc, out, err = ctx.run(["verify", "--root", root, "--remove-hook", kind])
        ctx.check(f"{kind} hook: a second removal removes nothing", rc == 0 and
                  b"nothing removed" in out and b"removed /" not in out, f"{rc} {out!r}")
    # The dpkg hook really runs the program it names, as dpkg would.
    rc, out, err = ctx.run(["verify", "--root", root, "--install-hook", "dpkg"])
    line = [x for x in open(dpkg_hook).read().splitlines() if x.startswith("post-invoke=")]
    p = subprocess.run(["sh", "-c", line[0][len("post-invoke="):].replace(
        f"'{installed}'", f"'{prog}'").replace("--quiet", f"--root '{root}'")],
        capture_output=True) if line else None
    ctx.check("dpkg hook command runs verify", p is not None and p.returncode == 0 and
              b"nothing was migrated here" in p.stdout, p and (p.stdout, p.stderr))
    ctx.run(["verify", "--root", root, "--remove-hook", "dpkg"])
    # --hook-program: another absolute path beneath the root, never a symbolic link
    alt = os.path.join(root, "opt/s2c/bin/suid2cap")
    os.makedirs(os.path.dirname(alt))
    shutil.copyfile(ctx.binary, alt)
    os.chmod(alt, 0o755)
    rc, out, err = ctx.run(["verify", "--root", root, "--install-hook", "apt", "--hook-program",
                            "/opt/s2c/bin/suid2cap"])
    text = open(os.path.join(root, "etc/apt/apt.conf.d/80suid2cap")).read()
    ctx.check("--hook-program named in the hook", rc == 0 and "'/opt/s2c/bin/suid2cap'" in text,
              f"{rc} {err!r} {text!r}")
    ctx.run(["verify", "--root", root, "--remove-hook", "apt"])
    mklink(root, "usr/bin/s2c-link", installed)
    for args, code, why in (
            (["--hook-program", "/usr/bin/s2c-link"], 4, b"symbolic link"),
            (["--hook-program", "opt/s2c/bin/suid2cap"], 4, b"absolute path"),
            (["--hook-program", "/opt/s2c"], 4, b"not a regular file")):
        rc, out, err = ctx.run(["verify", "--root", root, "--install-hook", "dpkg", *args])
        ctx.check(f"--hook-program {args[1]} refused", rc == code and why in err and
                  not os.path.exists(dpkg_hook), f"{rc} {err!r}")
    rc, out, err = ctx.run(["verify", "--root", root, "--remove-hook", "dpkg", "--hook-program", alt])
    ctx.check("--hook-program only with --install-hook", rc == 2, f"{rc} {err!r}")
    if is_root():
        # As root the hook runs as root: a program others could replace is refused.
        os.chmod(alt, 0o775)
        rc, out, err = ctx.run(["verify", "--root", root, "--install-hook", "dpkg", "--hook-program",
                                "/opt/s2c/bin/suid2cap"])
        ctx.check("group-writable program refused", rc == 5 and b"writable by group" in err and
                  not os.path.exists(dpkg_hook), f"{rc} {err!r}")
        os.chmod(alt, 0o755)
        os.chmod(os.path.dirname(alt), 0o777)
        rc, out, err = ctx.run(["verify", "--root", root, "--install-hook", "dpkg", "--hook-program",
                                "/opt/s2c/bin/suid2cap"])
        ctx.check("program below a world-writable directory refused", rc == 5 and
                  b"writable by group or others" in err and not os.path.exists(dpkg_hook),
                  f"{rc} {err!r}")
        os.chmod(os.path.dirname(alt), 0o755)
    foreign = dpkg_hook
    with open(foreign, "w") as f:
        f.write("# the admin's own file\n")
    rc, out, err = ctx.run(["verify", "--root", root, "--remove-hook", "dpkg"])
    ctx.check("foreign hook file kept", rc == 5 and os.path.exists(foreign), f"{rc} {err!r}")
    rc, out, err = ctx.run(["verify", "--root", root, "--install-hook", "yum"])
    ctx.check("unknown hook kind", rc == 2, f"{rc}")


TESTS = [test_end_to_end, test_privileges, test_crash_points, test_crash_state,
         test_rollback_crash_state, test_already_done_then_rest, test_bad_plans, test_races,
         test_filesystems, test_bad_journal_and_state, test_smoke_failure_rolls_back, test_drift,
         test_tampering, test_dpkg_hook, test_hook_files, test_state_directory]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
