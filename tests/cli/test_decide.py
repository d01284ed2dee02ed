#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Decisions a distribution can sign off on: rules lint on crafted databases,
programs told apart by their binaries (real Debian packages) in trees without a
package database, package databases of every kind, and the fixed and new rules."""
import json
import os
import shutil
import subprocess
import sys

import s2ctest
from s2ctest import SKIP, is_root

KERNEL = "6.1"


def rules_file(directory, name, rules, area=None):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "w") as f:
        json.dump({"schema": 1, "area": area or name[:-5], "rules": rules}, f)


def rule(rid, path, verdict="keep", **kw):
    r = {"id": rid, "program": rid, "match": {"paths": [path]}, "verdict": verdict,
         "reason": "a reason for the test", "sources": ["man:test(1)"]}
    r.update(kw)
    return r


def explain(ctx, root, paths, extra=()):
    rc, out, err = ctx.run(["explain", "--root", root, "--kernel", KERNEL, "--format", "json",
                            *extra, *paths])
    if rc not in (0, 3):
        ctx.check("explain " + " ".join(paths), False, f"exit {rc}: {err!r}")
        return {}
    return {d["file"]["path"]: d for d in json.loads(out)}


# --- rules lint ---------------------------------------------------------------------------


def test_lint_every_problem(ctx):
    """rules lint reports every class of mistake in one run, each with file and JSON path."""
    db = ctx.tree("lintdb")
    rules_file(db, "t.json", [
        rule("t.all", "/opt/t/all", "migrate", caps="=eip"),
        rule("t.root", "/opt/t/root", "migrate", caps="cap_sys_admin,cap_setuid=ep"),
        rule("t.dac", "/opt/t/dac", "migrate", caps="cap_dac_override=p"),
        rule("t.raw", "/opt/t/raw", "migrate", caps="cap_net_raw=ep"),
        rule("t.accepted", "/opt/t/accepted", "migrate", caps="cap_net_raw=ep",
             accepted_risk="it only sends ICMP echo requests, as distributions ship it"),
        rule("t.cond", "/opt/t/cond", "keep", conditions=[
            {"when": {"os": ["debian"]}, "verdict": "migrate", "caps": "cap_setuid=ep",
             "reason": "a distribution does so"}]),
        rule("t.stale", "/opt/t/stale", "keep",
             accepted_risk="nothing is migrated here, so this is stale"),
        rule("t.unknown", "/opt/t/unknown", colour="red"),
        rule("t.over1", "/opt/t/over/*"),
        rule("t.over2", "/opt/t/over/x"),
    ])
    rules_file(db, "elsewhere.json", [rule("e.one", "/opt/e/one")], area="network")
    with open(os.path.join(db, "broken.json"), "w") as f:
        f.write('{"schema": 1, "area": "broken", "rules": [')
    rc, out, err = ctx.run(["rules", "lint", db])
    lines = err.decode().splitlines()
    ctx.check("lint exit", rc == 1, f"{rc} {err!r}")
    ctx.check("lint says no 'no problems'", b"no problems found" not in out, out)
    expect = [
        ("t.json: $.rules[0].caps: '=eip' names no capability", "=eip"),
        ("t.json: $.rules[1].caps: migrating to 'cap_sys_admin,cap_setuid=ep' gives "
         "cap_setuid,cap_sys_admin (root-equivalent)", "root set"),
        ("t.json: $.rules[2].caps: migrating to 'cap_dac_override=p' gives cap_dac_override "
         "(root-equivalent)", "dac_override =p"),
        ("t.json: $.rules[3].caps: migrating to 'cap_net_raw=ep' gives cap_net_raw (graded "
         "dangerous)", "dangerous"),
        ("t.json: $.rules[5].conditions[0].caps: migrating to 'cap_setuid=ep'", "condition"),
        ("t.json: $.rules[6].accepted_risk: the rule migrates to no", "stale accepted_risk"),
        ("t.json: $.rules[7]: unknown key 'colour'", "unknown key"),
        ("t.json: $.rules[8].match.paths[0]: '/opt/t/over/*' overlaps '/opt/t/over/x'", "overlap"),
        ("elsewhere.json: $.area: area 'network' differs from the file name", "area"),
        ("broken.json", "broken JSON"),
    ]
    for text, what in expect:
        ctx.check(f"lint finds {what}", any(text in l for l in lines), "\n".join(lines))
    ctx.check("lint leaves the accepted risk alone", not any("$.rules[4]" in l for l in lines),
              "\n".join(lines))
    ctx.check("lint counts them", b"%d problems" % len([l for l in lines if "error:" in l]) in out,
              out)
    ctx.check("lint messages sorted", lines == sorted(lines), "\n".join(lines))


def test_lint_missing_directory(ctx):
    """A directory that does not exist is an error, never a check of the bundled database."""
    rc, out, err = ctx.run(["rules", "lint", "/nonexistent/rules.d"])
    ctx.check("missing dir exit", rc == 2, f"{rc}")
    ctx.check("missing dir named", b"cannot lint '/nonexistent/rules.d'" in err, err)
    ctx.check("missing dir: no verdict", b"no problems" not in out, out)
    f = os.path.join(ctx.tree("lintfile"), "file.json")
    open(f, "w").close()
    rc, out, err = ctx.run(["rules", "lint", f])
    ctx.check("file, not dir", rc == 2 and b"not a directory" in err, f"{rc} {err!r}")


def test_lint_bundled(ctx):
    """The bundled database has no problem, accepted risks included."""
    rc, out, err = ctx.run(["rules", "lint"])
    ctx.check("bundled lint", rc == 0 and b"no problems found" in out, f"{rc} {out!r} {err!r}")


def test_overlap_is_an_error(ctx):
    """A local rule overlapping a bundled one stops plan and audit; it is not a silent review."""
    db = ctx.tree("overlapdb")
    rules_file(db, "local.json", [rule("local.ping", "/usr/bin/p*ng")])
    root = ctx.tree("overlaproot")
    s2ctest.mkfile(root, "/usr/bin/ping", 0o4755)
    for verb in (["plan"], ["audit"], ["explain", "/usr/bin/ping"]):
        rc, out, err = ctx.run([verb[0], "--root", root, "--db", db, *verb[1:]])
        ctx.check(f"{verb[0]} refuses overlapping rules", rc == 4 and b"overlaps" in err and
                  b"local.json" in err and not out, f"{rc} {err!r}")


TESTS = [test_lint_every_problem, test_lint_missing_directory, test_lint_bundled,
         test_overlap_is_an_error]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
