#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI tests of accepted findings and less noise in them: findings that need no action
are notes, one warning per cause.

The fixture trees need chown and setuid bits, so the module exits 77 (skip) when not
run as root; CI runs it as root.
"""
import json
import os
import shutil
import sys

import s2ctest
from s2ctest import SKIP, is_root, fix_dir_times, setcap

KERNEL = ["--kernel", "6.1"]
FPING = "/usr/bin/fping"
PASSWD = b"root:x:0:0:root:/root:/bin/sh\n"
GROUP = b"root:x:0:\n"


def staging_root(ctx, name):
    root = ctx.tree(name)
    s2ctest.mkfile(root, "etc/passwd", 0o644, PASSWD)
    s2ctest.mkfile(root, "etc/group", 0o644, GROUP)
    return root


def install(root, rel, src, mode, uid=0, gid=0):
    """Copy @src into the root (no capabilities), chown, chmod, fix mtime."""
    path = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.copyfile(src, path)
    os.chown(path, uid, gid)
    os.chmod(path, mode)
    os.utime(path, (s2ctest.FIXED_MTIME,) * 2)
    return path


def audit(ctx, root, *args, env=None):
    return ctx.run(["audit", "--root", root, *KERNEL, *args], env=env)


def sarif_results(data):
    return json.loads(data)["runs"][0]["results"]


# --- less noise ----------------------------------------------------------------------------

def test_nothing_to_change_is_a_note(ctx):
    """fping installed as Debian installs it (cap_net_raw=ep): migrate, nothing to change."""
    if not os.path.isfile(FPING):
        print(f"note: {FPING} missing (apt-get install fping); test skipped", file=sys.stderr)
        return SKIP
    root = staging_root(ctx, "fping-caps")
    p = install(root, FPING, FPING, 0o755)
    setcap(p, "cap_net_raw=ep")
    fix_dir_times(root)
    rc, out, err = audit(ctx, root, "--format", "sarif")
    ctx.check("nothing to change: sarif exit", rc == 0, f"exit {rc} {err!r}")
    levels = {r["ruleId"]: r["level"] for r in sarif_results(out)}
    ctx.check("nothing to change: S2C001 is a note", levels.get("S2C001") == "note", f"{levels}")
    # The capabilities it keeps are still a warning of their own.
    ctx.check("nothing to change: S2C006 stays a warning", levels.get("S2C006") == "warning",
              f"{levels}")
    rc, out, err = audit(ctx, root, "--format", "json")
    doc = json.loads(out)
    ctx.check("nothing to change: json levels", doc["summary"]["levels"] ==
              {"note": 1, "warning": 1, "error": 0}, f"{doc['summary']}")
    s2ctest.validate_json(ctx, "nothing to change: json schema", doc, "audit.schema.json")
    rc, out, err = audit(ctx, root)
    ctx.check("nothing to change: text counts it as a note",
              b"findings    0 errors, 1 warning, 1 note\n" in out, out.decode(errors="replace"))
    # The same program set-user-ID root: the migration is a change, and an error.
    root = staging_root(ctx, "fping-suid")
    install(root, FPING, FPING, 0o4755)
    fix_dir_times(root)
    rc, out, err = audit(ctx, root, "--format", "sarif")
    levels = {r["ruleId"]: r["level"] for r in sarif_results(out)}
    ctx.check("setuid fping: S2C001 is an error", levels == {"S2C001": "error"}, f"{levels}")


def test_one_warning_per_cause(ctx):
    """The rule's breaks text and the engine's capability-dumb warning said the same."""
    if not os.path.isfile(FPING):
        print(f"note: {FPING} missing (apt-get install fping); test skipped", file=sys.stderr)
        return SKIP
    for name, mode, caps in (("suid", 0o4755, None), ("caps", 0o755, "cap_net_raw=ep")):
        root = staging_root(ctx, f"fping-{name}")
        p = install(root, FPING, FPING, mode)
        if caps:
            setcap(p, caps)
        fix_dir_times(root)
        rc, out, err = ctx.run(["explain", "--root", root, *KERNEL, "--format", "json", FPING])
        ctx.check(f"explain fping ({name}) exit", rc == 0, f"exit {rc} {err!r}")
        warnings = json.loads(out)[0]["warnings"] if rc == 0 else []
        life = [w for w in warnings if "whole life" in w]
        ctx.check(f"explain fping ({name}): one warning about keeping cap_net_raw", len(life) == 1,
                  f"{warnings}")
        rc, out, err = ctx.run(["explain", "--root", root, *KERNEL, FPING])
        ctx.check(f"explain fping ({name}) text: once", out.count(b"whole life") == 1,
                  out.decode(errors="replace"))


TESTS = [test_nothing_to_change_is_a_note, test_one_warning_per_cause]


def main(argv):
    if not is_root():
        print("skip: the fixtures need root (chown, setuid bits, setcap)")
        return SKIP
    return s2ctest.main(TESTS, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
