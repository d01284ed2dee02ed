#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every exit leaves nothing behind: SIGINT, SIGTERM, SIGHUP and a broken pipe at
chosen and at random points of every verb.  A reading verb removes its private
stage and the temporary file of -o and ends by the signal; a changing verb
finishes the file it is changing, stops before the next one with its journal
complete, says so, and ends by the signal.

The random points come from a seeded generator, so a failure can be replayed;
whatever the point, the same must hold, so the test cannot flake on timing."""
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

import mkarchive as mk
import s2ctest
from s2ctest import SKIP, is_root
from test_apply import after_ok, fault_injection, make_plan, present, snapshot, stage

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
SEEDS = [1, 2, 3]
ENV = {"LC_ALL": "C", "TZ": "UTC", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def start(ctx, args, **kw):
    return subprocess.Popen([ctx.binary] + args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=ENV, **kw)


def duration(ctx, args):
    """How long a whole run of @args takes here (the random points fall inside it)."""
    t = time.monotonic()
    p = start(ctx, args)
    p.communicate()
    return time.monotonic() - t


def leftovers(directory, keep):
    return sorted(n for n in os.listdir(directory) if n not in keep)


def kill_at(ctx, args, delay, sig):
    """Run @args, send @sig after @delay seconds; returns exit status, stdout, stderr."""
    p = start(ctx, args)
    time.sleep(delay)
    if p.poll() is None:
        p.send_signal(sig)
    out, err = p.communicate()
    return p.returncode, out, err


def check_run(ctx, name, rc, err, sig, report, tmpdir):
    """A run ended by @sig left nothing but, if it got that far, its whole report."""
    outdir = os.path.dirname(report)
    ctx.check(f"{name}: ended by the signal or finished", rc in (-sig, 0, 1, 3),
              f"exit {rc} {err[-300:]!r}")
    ctx.check(f"{name}: private directory removed", not tmpdir or os.listdir(tmpdir) == [],
              f"{tmpdir and os.listdir(tmpdir)}")
    ctx.check(f"{name}: no temporary file beside the report",
              leftovers(outdir, [os.path.basename(report)]) == [], f"{os.listdir(outdir)}")
    # A signal after the rename into place finds a whole report: never a part of one.
    if os.path.exists(report):
        with open(report, "rb") as f:
            data = f.read()
        try:
            json.loads(data)
            ok = True
        except ValueError:
            ok = False
        ctx.check(f"{name}: the report is whole", ok, f"{len(data)} bytes")
    if os.path.exists(report):
        os.unlink(report)


def reading_verbs(ctx):
    """Each reading verb, with a --tmpdir (or None) and a report -o in a directory of its
    own; the packages and the image are big enough that a run takes a while."""
    work = ctx.tree("reading")
    pkgs = [mk.many_members_deb(os.path.join(work, f"p{i}_1_amd64.deb"), 600 if i == 0 else 20000,
                                setid=i == 0, package=f"p{i}") for i in range(3)]
    layer = [mk.entry("./usr/", "dir", 0o755), mk.entry("./usr/bin/", "dir", 0o755)]
    layer += [mk.entry(f"./usr/bin/s{i}", mode=0o4755, data=b"\x7fELF" + bytes(60))
              for i in range(300)]
    image = mk.docker_archive(os.path.join(work, "image.tar"), [
        layer, [mk.entry("./usr/bin/.wh.s1"), mk.entry("./etc/", "dir", 0o755)]])
    tree = ctx.tree("reading-root")
    for i in range(300):
        d = os.path.join(tree, "usr", f"d{i}")
        os.makedirs(d)
        for k in range(3):
            with open(os.path.join(d, f"f{k}"), "wb") as f:
                f.write(b"\x7fELF" + bytes(60))
            os.chmod(os.path.join(d, f"f{k}"), 0o4755 if k == 0 else 0o644)
    reports = ctx.tree("reading-reports")
    merged = []
    for i in range(4):
        r = os.path.join(reports, f"r{i}.json")
        rc, out, err = ctx.run(["audit", "--root", tree, "--format", "json", "-o", r])
        merged.append(r)
    pkg = ["audit-pkg", "--format", "json"]
    verbs = [("audit-pkg", lambda t, o: pkg + ["--tmpdir", t, "-o", o] + pkgs, True),
             ("audit-image", lambda t, o: ["audit-image", "--format", "json", "--tmpdir", t,
                                           "-o", o, image], True),
             ("scan", lambda t, o: ["scan", "--root", tree, "--format", "json", "-o", o], False),
             ("audit", lambda t, o: ["audit", "--root", tree, "--format", "json", "-o", o],
              False),
             ("plan", lambda t, o: ["plan", "--root", tree, "-o", o], False),
             ("report merge", lambda t, o: ["report", "merge", "--format", "json", "-o", o] +
              merged, False)]
    return [(name, argv, ctx.tree("private-" + name.replace(" ", "-")) if tmp else None,
             ctx.tree("out-" + name.replace(" ", "-"))) for name, argv, tmp in verbs]


def test_reading_verbs(ctx):
    """Killed at seeded random points: the stage and -o's temporary file are gone, the
    run ends by the signal, and a report is either whole or absent."""
    for name, argv, tmpdir, outdir in reading_verbs(ctx):
        report = os.path.join(outdir, "report.json")
        args = argv(tmpdir, report)
        whole = duration(ctx, args)
        if os.path.exists(report):
            os.unlink(report)
        for seed in SEEDS:
            rnd = random.Random(f"{name}-{seed}")
            for sig in SIGNALS:
                delay = rnd.uniform(0, whole)
                rc, out, err = kill_at(ctx, args, delay, sig)
                check_run(ctx, f"{name} {sig.name} at {delay:.3f}s (seed {seed})", rc, err,
                          sig, report, tmpdir)
        # Right at the start, before anything: the same.
        rc, out, err = kill_at(ctx, args, 0, signal.SIGTERM)
        check_run(ctx, f"{name} SIGTERM at once", rc, err, signal.SIGTERM, report, tmpdir)


def test_broken_pipe(ctx):
    """The reader of standard output goes away: the run unwinds, removes its stage and
    ends by SIGPIPE without a word, as it would have without catching it."""
    for name, argv, tmpdir, outdir in reading_verbs(ctx)[:3]:
        args = [a for a in argv(tmpdir, "-")]
        r, w = os.pipe()
        p = subprocess.Popen([ctx.binary] + args, stdout=w, stderr=subprocess.PIPE, env=ENV)
        os.close(w)
        os.close(r)
        _, err = p.communicate()
        ctx.check(f"{name}: ended by SIGPIPE", p.returncode == -signal.SIGPIPE,
                  f"exit {p.returncode} {err[-300:]!r}")
        ctx.check(f"{name}: nothing said about it", b"standard output" not in err, f"{err!r}")
        ctx.check(f"{name}: private directory removed", not tmpdir or os.listdir(tmpdir) == [],
                  f"{tmpdir and os.listdir(tmpdir)}")


def journal_list(ctx, root):
    rc, out, err = ctx.run(["rollback", "--root", root, "--list"])
    rows = [l.split() for l in out.decode().splitlines()[1:] if l.strip()]
    return rc, out, rows


def consistent(ctx, name, root):
    """No change begun and left unfinished, and every run's journal ended."""
    rc, out, rows = journal_list(ctx, root)
    ctx.check(f"{name}: journal complete", rc == 0 and all(r[5] == "0" for r in rows) and
              b"did not finish" not in out, f"{out!r}")


def test_apply_stops_between_files(ctx):
    """A signal at every step of every file of apply: that file is finished, the next is
    not begun, the journal is complete, the run says where it stopped and ends by the
    signal; apply again does the rest, rollback undoes it exactly."""
    if not is_root():
        return SKIP
    if not fault_injection(ctx):
        print("skip: this build has no crash points (S2C_FAULT_INJECTION=OFF)", file=sys.stderr)
        return SKIP
    progs = present(["/usr/bin/ping", "/usr/bin/fping", "/usr/bin/mtr-packet"])
    steps = ["intent", "setcap", "chmod", "smoke", "done", "state"]
    rnd = random.Random("apply")
    for step in steps:
        for seq in range(1, len(progs) + 1):
            sig = rnd.choice(SIGNALS)
            name = f"apply {step}:{seq}={sig.name[3:]}"
            root = stage(ctx, f"stop-{step}-{seq}", progs)
            before = snapshot(root)
            plan, doc = make_plan(ctx, root)
            rc, out, err = ctx.run(["apply", "--smoke", "--quiet", "--fault",
                                    f"{step}:{seq}={sig.name[3:]}", plan])
            ctx.check(f"{name}: ended by the signal", rc == -sig, f"exit {rc} {err!r}")
            changed = [e["path"] for e in doc["entries"] if e["action"] == "change"]
            mid = snapshot(root)
            done = [p for p in changed if mid[p] != before[p]]
            ctx.check(f"{name}: the files up to this one are done, none after",
                      done == changed[:seq], f"{done} of {changed}")
            if seq < len(changed):
                ctx.check(f"{name}: says where it stopped",
                          f"stopped before changing '{changed[seq]}'".encode() in err, f"{err!r}")
            consistent(ctx, name, root)
            if rnd.random() < 0.5:
                rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
                ctx.check(f"{name} then rollback", rc == 0 and snapshot(root) == before,
                          f"{rc} {err!r}")
            else:
                rc, out, err = ctx.run(["apply", "--smoke", "--quiet", plan])
                ctx.check(f"{name} then apply again", rc == 0 and after_ok(snapshot(root), doc,
                                                                            root),
                          f"{rc} {out!r} {err!r}")
            consistent(ctx, name + " afterwards", root)


def test_rollback_stops_between_files(ctx):
    """rollback stops between two restored files; rollback again restores the rest."""
    if not is_root():
        return SKIP
    if not fault_injection(ctx):
        return SKIP
    progs = present(["/usr/bin/ping", "/usr/bin/fping", "/usr/bin/mtr-packet"])
    for step in ["undo", "setcap", "chmod", "undone"]:
        for seq in range(1, len(progs) + 1):
            name = f"rollback {step}:{seq}=INT"
            root = stage(ctx, f"rbstop-{step}-{seq}", progs)
            before = snapshot(root)
            plan, doc = make_plan(ctx, root)
            rc, out, err = ctx.run(["apply", "--no-smoke", "--quiet", plan])
            rc, out, err = ctx.run(["rollback", "--root", root, "--last", "--fault",
                                    f"{step}:{seq}=INT"])
            ctx.check(f"{name}: ended by SIGINT", rc == -signal.SIGINT, f"exit {rc} {err!r}")
            # the way back goes from the last change to the first: entry 1 is restored last
            if seq > 1:
                ctx.check(f"{name}: says where it stopped", b"stopped before restoring" in err,
                          f"{err!r}")
            consistent(ctx, name, root)
            rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
            ctx.check(f"{name} then rollback again", rc == 0 and snapshot(root) == before,
                      f"{rc} {err!r}")


def test_changing_verbs_random_points(ctx):
    """migrate, verify --fix and rollback killed at seeded random points: whatever the
    point, no change is left half done and the journal is complete."""
    if not is_root():
        return SKIP
    progs = present(["/usr/bin/ping", "/usr/bin/fping", "/usr/bin/mtr-packet",
                     "/usr/bin/arping", "/usr/bin/clockdiff"])
    for seed in SEEDS:
        rnd = random.Random(f"changing-{seed}")
        root = stage(ctx, f"random-{seed}", progs)
        before = snapshot(root)
        args = ["migrate", "--root", root, "--yes", "--smoke"]
        whole = duration(ctx, args)
        rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
        ctx.check(f"seed {seed}: set up", rc == 0 and snapshot(root) == before, f"{rc} {err!r}")
        for verb in ("migrate", "rollback", "verify --fix"):
            sig = rnd.choice(SIGNALS)
            delay = rnd.uniform(0, whole)
            if verb == "rollback":
                ctx.run(["migrate", "--root", root, "--yes", "--no-smoke"])
                a = ["rollback", "--root", root, "--last"]
            elif verb == "verify --fix":
                ctx.run(["migrate", "--root", root, "--yes", "--no-smoke"])
                for p in progs:
                    os.chmod(os.path.join(root, p.lstrip("/")), 0o4755)
                a = ["verify", "--root", root, "--fix", "--smoke-user", "nobody"]
            else:
                a = args
            rc, out, err = kill_at(ctx, a, delay, sig)
            name = f"seed {seed}: {verb} {sig.name} at {delay:.3f}s"
            ctx.check(f"{name}: ended by the signal or finished", rc in (-sig, 0, 1),
                      f"exit {rc} {err[-300:]!r}")
            consistent(ctx, name, root)
            rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
            said, worst = err, rc
            for _ in range(5):
                if rc not in (0, 4) or b"nothing to roll back" in out:
                    break
                rc, out, err = ctx.run(["rollback", "--root", root, "--last"])
                said, worst = said + err, max(worst, rc)
            rc, err = (worst if rc in (0, 4) else rc), said
            now = snapshot(root)
            if verb == "verify --fix":
                # The set-ID bit put back by hand is a change since the migration: rollback
                # restores what it can and leaves, naming it, a file whose set-ID bit is
                # back, with the capabilities the migration gave it.
                kept = [p for p in now if now[p] != before[p]]
                ctx.check(f"{name}: rollback leaves only the drifted files, named",
                          rc in (0, 4) and all(now[p][:3] == before[p][:3] and now[p][4] == before[p][4]
                                          and now[p][3] is not None and
                                          f"not restored '{p}'".encode() in err for p in kept),
                          f"{rc} {kept} {err[-400:]!r}")
                for p in kept:
                    subprocess.run(["setcap", "-r", root + p], check=True)
                now, rc = snapshot(root), 0 if rc == 4 and kept else rc
            ctx.check(f"{name}: rollback restores", rc == 0 and now == before, f"{rc} {err!r}")


def caps_of(status):
    return {k: int(v, 16) for k, v in re.findall(r"^(Cap(?:Prm|Eff|Bnd)):\s+([0-9a-f]+)$",
                                                  status, re.M)}


def test_threads_keep_nothing_more(ctx):
    """The thread that acts on signals keeps no capability the verb gave up: every thread
    of a running audit-pkg holds at most what its main thread holds."""
    work = ctx.tree("threads")
    pkg = mk.many_members_deb(os.path.join(work, "t_1_amd64.deb"), 1000, setid=True)
    p = start(ctx, ["audit-pkg", "--tmpdir", work, pkg])
    seen = {}
    for _ in range(50):
        time.sleep(0.05)
        try:
            for tid in os.listdir(f"/proc/{p.pid}/task"):
                with open(f"/proc/{p.pid}/task/{tid}/status") as f:
                    seen[int(tid)] = caps_of(f.read())
        except OSError:
            break
        if len(seen) > 1:
            break
    p.kill()
    p.communicate()
    main = seen.get(p.pid, {})
    others = {t: c for t, c in seen.items() if t != p.pid}
    ctx.check("threads: seen", main and others, f"{seen}")
    for tid, c in others.items():
        ctx.check(f"thread {tid}: no more than the main thread",
                  all(c[k] & ~main[k] == 0 for k in c), f"{c} against {main}")


TESTS = [test_threads_keep_nothing_more, test_reading_verbs, test_broken_pipe, test_apply_stops_between_files,
         test_rollback_stops_between_files, test_changing_verbs_random_points]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
