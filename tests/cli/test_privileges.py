#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Each verb runs with only the capabilities its dispatch entry names."""
import sys

import s2ctest
from s2ctest import SKIP, is_root


def parse(out):
    """The first phase's keys (scan and the other reading verbs have one)."""
    return phases(out)[0][1]


def phases(out):
    """[(phase name, {key: value})] in the order printed."""
    result = []
    for block in out.decode().split("\n\n"):
        d = {}
        for line in block.splitlines():
            k, _, v = line.partition(": ")
            d[k] = v
        result.append((d.get("phase"), d))
    return result


READ = {"CapEff": "cap_dac_read_search", "CapPrm": "cap_dac_read_search",
        "CapBnd": "cap_dac_read_search", "CapInh": "(none)", "CapAmb": "(none)",
        "no_new_privs": "yes"}
APPLY = "cap_chown,cap_dac_read_search,cap_fowner,cap_fsetid,cap_kill,cap_setgid,cap_setuid,cap_setfcap"
ROLLBACK = "cap_chown,cap_dac_read_search,cap_fowner,cap_fsetid,cap_setfcap"


def test_phases(ctx):
    """Verbs that change files read and decide in a narrowed phase and change files
    in another; each phase shows what it really keeps."""
    if not is_root():
        return SKIP
    want = {
        "audit": [("read", READ)],
        "plan": [("read", READ)],
        "apply": [("decide", READ), ("apply", {"CapEff": APPLY, "no_new_privs": "no"})],
        "migrate": [("decide", READ), ("apply", {"CapEff": APPLY, "no_new_privs": "no"})],
        "verify": [("check", READ), ("decide", READ),
                   ("apply", {"CapEff": APPLY, "no_new_privs": "no"})],
        "rollback": [("rollback", {"CapEff": ROLLBACK, "CapBnd": ROLLBACK,
                                   "no_new_privs": "yes"})],
    }
    for verb, expected in want.items():
        rc, out, err = ctx.run(["privileges", verb])
        got = phases(out)
        ctx.check(f"{verb}: phases", rc == 0 and [n for n, _ in got] == [n for n, _ in expected],
                  f"{rc} {out!r} {err!r}")
        for (name, keys), (_, d) in zip(expected, got):
            for k, v in keys.items():
                ctx.check(f"{verb} {name} {k}", d.get(k) == v, f"{d.get(k)!r} != {v!r}")


def test_scan_is_read_only(ctx):
    if not is_root():
        return SKIP
    rc, out, err = ctx.run(["privileges", "scan"])
    ctx.check("privileges scan exit", rc == 0, f"exit {rc} {err!r}")
    d = parse(out)
    ctx.check("scan effective", d.get("CapEff") == "cap_dac_read_search", repr(d))
    ctx.check("scan permitted", d.get("CapPrm") == "cap_dac_read_search", repr(d))
    ctx.check("scan bounding", d.get("CapBnd") == "cap_dac_read_search", repr(d))
    ctx.check("scan inheritable", d.get("CapInh") == "(none)", repr(d))
    ctx.check("scan ambient", d.get("CapAmb") == "(none)", repr(d))
    ctx.check("scan no_new_privs", d.get("no_new_privs") == "yes", repr(d))


def test_unprivileged(ctx):
    """Without privileges nothing is gained, and no_new_privs is still set."""
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] if is_root() else None
    rc, out, err = ctx.run(["privileges", "scan"], prefix=prefix)
    d = parse(out)
    ctx.check("unprivileged exit", rc == 0, f"exit {rc} {err!r}")
    ctx.check("unprivileged effective", d.get("CapEff") == "(none)", repr(d))
    ctx.check("unprivileged no_new_privs", d.get("no_new_privs") == "yes", repr(d))


def test_usage(ctx):
    rc, out, err = ctx.run(["privileges"])
    ctx.check("privileges without verb", rc == 2, f"exit {rc}")
    rc, out, err = ctx.run(["privileges", "nosuch"])
    ctx.check("privileges unknown verb", rc == 2 and b"unknown verb 'nosuch'" in err, f"{rc} {err!r}")


TESTS = [test_scan_is_read_only, test_phases, test_unprivileged, test_usage]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
