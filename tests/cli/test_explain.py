#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""explain and rules: decisions on this machine's real binaries and on staged copies."""
import json
import os
import shutil
import sys

import s2ctest
from s2ctest import SKIP, is_root

MUST_KEEP = ["/usr/bin/su", "/usr/bin/sudo", "/usr/bin/passwd", "/usr/bin/chsh", "/usr/bin/chfn",
             "/usr/bin/gpasswd", "/usr/bin/newgrp", "/usr/bin/mount", "/usr/bin/umount",
             "/usr/bin/pkexec", "/usr/lib/polkit-1/polkit-agent-helper-1",
             "/usr/lib/openssh/ssh-keysign", "/usr/lib/dbus-1.0/dbus-daemon-launch-helper"]

# Debian's capability sets (postinsts); clockdiff also needs cap_sys_nice to work
# for a user (it calls nice(-16) and exits when that fails), which the rule says.
NETWORK = {
    "/usr/bin/ping": ("iputils.ping", "iputils-ping", {"cap_net_raw"}),
    "/usr/bin/arping": ("iputils.arping", "iputils-arping", {"cap_net_raw"}),
    "/usr/bin/clockdiff": ("iputils.clockdiff", "iputils-clockdiff", {"cap_net_raw", "cap_sys_nice"}),
    "/usr/bin/mtr-packet": ("mtr.mtr-packet", "mtr-tiny", {"cap_net_raw"}),
    "/usr/bin/fping": ("fping.fping", "fping", {"cap_net_raw"}),
}


def caps_set(text):
    """'cap_a,cap_b=ep' -> {'cap_a', 'cap_b'}"""
    names = set()
    for clause in (text or "").split():
        names.update(n for n in clause.split("=")[0].split("+")[0].split(",") if n)
    return names


def explain(ctx, args):
    rc, out, err = ctx.run(["explain", "--format", "json", *args])
    if rc not in (0, 3):
        ctx.check("explain " + " ".join(args), False, f"exit {rc}: {err!r}")
        return []
    return json.loads(out)


def test_must_stay_setuid(ctx):
    """su, passwd, mount and the others are kept, with a reason, as they are."""
    present = [p for p in MUST_KEEP if os.path.exists(p) and os.stat(p).st_mode & 0o4000]
    ctx.check("some setuid programs present", len(present) >= 8, repr(present))
    for d in explain(ctx, present):
        path = d["file"]["path"]
        ctx.check(f"{path} keep", d["verdict"] == "keep", f"{d['verdict']}: {d['reason']}")
        ctx.check(f"{path} has a rule", d["rule"] is not None and d["rule"]["sources"], repr(d["rule"]))
        ctx.check(f"{path} reason", len(d["reason"]) > 20, d["reason"])
        ctx.check(f"{path} unchanged", d["changes"] is False, "")
        ctx.check(f"{path} root-equivalent needs", d["needs"] is not None or d["risk"] == "root", repr(d))


def test_network_tools_on_host(ctx):
    """The installed iputils/mtr/fping binaries keep exactly the distribution's set."""
    paths = [p for p in NETWORK if os.path.exists(p)]
    if not paths:
        return SKIP
    for d in explain(ctx, paths):
        path = d["file"]["path"]
        rule, pkg, caps = NETWORK[path]
        ctx.check(f"{path} rule", d["rule"] and d["rule"]["id"] == rule, repr(d["rule"]))
        ctx.check(f"{path} package", d["package"] == pkg, repr(d["package"]))
        before = caps_set((d["file"]["caps"] or {}).get("text"))
        if d["file"]["setuid"] or not before or caps <= before:
            ctx.check(f"{path} migrate", d["verdict"] == "migrate", d["reason"])
            ctx.check(f"{path} caps", caps_set(d["caps_after"]) == caps, d["caps_after"])
        else:
            # Debian's clockdiff has cap_net_raw only: it never gains cap_sys_nice
            # on its own; a person decides, and nothing changes.
            ctx.check(f"{path} review", d["verdict"] == "review" and not d["changes"] and
                      "would gain" in d["reason"], f"{d['verdict']}: {d['reason']}")
            ctx.check(f"{path} caps kept", caps_set(d["caps_after"]) == before, d["caps_after"])


def stage(ctx, paths):
    """Copy real binaries into a root, setuid root without capabilities, with
    their dpkg file lists so the owning package is known."""
    root = ctx.tree("staged")
    info = os.path.join(root, "var/lib/dpkg/info")
    os.makedirs(info)
    for path in paths:
        dst = os.path.join(root, path.lstrip("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(path, dst)
        os.chown(dst, 0, 0)
        os.chmod(dst, 0o4755)
        pkg = NETWORK.get(path, (None, None))[1]
        if pkg:
            for name in os.listdir("/var/lib/dpkg/info"):
                if name in (pkg + ".list", pkg + ":amd64.list"):
                    shutil.copyfile(os.path.join("/var/lib/dpkg/info", name), os.path.join(info, name))
    return root


def test_network_tools_staged(ctx):
    """As old systems had them (setuid root, no caps): migrate to the distribution's set."""
    if not is_root():
        return SKIP
    paths = [p for p in NETWORK if os.path.exists(p)]
    root = stage(ctx, paths)
    for d in explain(ctx, ["--root", root, *paths]):
        path = d["file"]["path"]
        rule, pkg, caps = NETWORK[path]
        ctx.check(f"staged {path} rule", d["rule"] and d["rule"]["id"] == rule, repr(d["rule"]))
        ctx.check(f"staged {path} migrate", d["verdict"] == "migrate", d["reason"])
        ctx.check(f"staged {path} caps", caps_set(d["caps_after"]) == caps, d["caps_after"])
        ctx.check(f"staged {path} mode", d["mode_after"] == "0755", d["mode_after"])
        ctx.check(f"staged {path} changes", d["changes"] is True, "")
        aware = d["elf"]["links_libcap"]
        flags = d["caps_after"].split("=")[1]
        ctx.check(f"staged {path} flags", flags == ("p" if aware else "ep") or "e" in flags,
                  f"{d['caps_after']} aware={aware}")


def test_gst_ptp_helper(ctx):
    path = "/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper"
    if not os.path.exists(path):
        return SKIP
    (d,) = explain(ctx, [path])
    ctx.check("gst-ptp-helper recognised", d["rule"]["id"] == "gstreamer.gst-ptp-helper" and
              d["verdict"] == "migrate" and d["changes"] is False and
              caps_set(d["caps_after"]) == {"cap_net_bind_service", "cap_net_admin"}, repr(d))


def test_text_and_errors(ctx):
    rc, out, err = ctx.run(["explain", "/usr/bin/su"])
    ctx.check("explain text", rc == 0 and b"verdict     keep" in out and b"sources" in out, out[:400])
    rc, out, err = ctx.run(["explain"])
    ctx.check("explain without path", rc == 2 and b"missing PATH" in err, err)
    rc, out, err = ctx.run(["explain", "/etc/hostname"])
    ctx.check("explain a plain file", rc == 0 and b"nothing to decide" in err, err)
    rc, out, err = ctx.run(["explain", "--db", "/nonexistent-db", "/usr/bin/su"])
    ctx.check("explain bad --db", rc == 2 and b"/nonexistent-db" in err, f"{rc} {err!r}")


def test_rules_lint_and_list(ctx):
    rc, out, err = ctx.run(["rules", "lint"])
    ctx.check("rules lint bundled", rc == 0 and b"no problems found" in out, f"{rc} {out!r} {err!r}")
    bad = ctx.tree("baddb")
    with open(os.path.join(bad, "x.json"), "w") as f:
        f.write('{"schema": 1, "area": "x", "rules": [{"id": "x.a", "program": "a",'
                ' "match": {"paths": ["/usr/bin/su"]}, "verdict": "keep", "reason": "r",'
                ' "sources": ["man:su(1)"]}]}')
    rc, out, err = ctx.run(["rules", "lint", bad])
    ctx.check("rules lint overlap", rc == 1 and b"overlaps" in err and b"x.json" in err, f"{rc} {err!r}")
    rc, out, err = ctx.run(["rules", "list", "--format", "json"])
    doc = json.loads(out)
    ctx.check("rules list", rc == 0 and len(doc["rules"]) > 150, f"{rc}")
    ids = {r["id"] for r in doc["rules"]}
    ctx.check("rules list ids", {"iputils.ping", "util-linux.su", "shadow.passwd"} <= ids, "")


TESTS = [test_must_stay_setuid, test_network_tools_on_host, test_network_tools_staged,
         test_gst_ptp_helper, test_text_and_errors, test_rules_lint_and_list]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
