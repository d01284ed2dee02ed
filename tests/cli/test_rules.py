#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The rules as their sources say: each corrected rule decides what the packaging of
the version at hand does (snapd, GStreamer, SSSD), and the programs that had no rule
get theirs, with sources, in the layouts their distributions use."""
import sys

import s2ctest
from s2ctest import SKIP, is_root
from test_decide import check_decision, explain, image

SNAP_BASE = ("cap_chown,cap_dac_override,cap_dac_read_search,cap_fowner,cap_sys_chroot,"
             "cap_sys_ptrace,cap_sys_admin")
GST = "/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper"
GROUPS = "root:x:0:\nsssd:x:120:\n"


def test_versioned_corrections(ctx):
    """snap-confine from 2.74.1 raises cap_sys_resource too; GStreamer's PTP helper from 1.24
    raises its priority on every distribution (but openSUSE's profiles); SSSD's proxy_child
    is no longer set-ID from 2.10."""
    if not is_root():
        return SKIP     # the files must be owned by root for the rules to decide about them
    cases = [
        # (os, package, version, path, mode, rule, verdict, caps)
        ("debian", "snapd", "2.74.1-1", "/usr/lib/snapd/snap-confine", 0o4755,
         "snapd.snap-confine", "migrate", SNAP_BASE + ",cap_sys_resource=p"),
        ("fedora", "snap-confine", "2.77-1.fc43", "/usr/libexec/snapd/snap-confine", 0o4755,
         "snapd.snap-confine", "migrate", SNAP_BASE + ",cap_sys_resource=p"),
        ("debian", "snapd", "2.72-1", "/usr/lib/snapd/snap-confine", 0o4755,
         "snapd.snap-confine", "migrate", SNAP_BASE + "=p"),
        ("debian", "snapd", "2.68.3-3+deb13u1", "/usr/lib/snapd/snap-confine", 0o4755,
         "snapd.snap-confine", "keep", None),
        ("debian", "libgstreamer1.0-0", "1.22.0-2+deb12u1", GST, 0o4755,
         "gstreamer.gst-ptp-helper", "migrate", "cap_net_bind_service,cap_net_admin=ep"),
        ("debian", "libgstreamer1.0-0", "1.26.2-2", GST, 0o4755,
         "gstreamer.gst-ptp-helper", "migrate",
         "cap_net_bind_service,cap_net_admin,cap_sys_nice=ep"),
        ("fedora", "gstreamer1", "1.26.5-1.fc43", "/usr/libexec/gstreamer-1.0/gst-ptp-helper",
         0o4755, "gstreamer.gst-ptp-helper", "migrate",
         "cap_net_bind_service,cap_net_admin,cap_sys_nice=ep"),
        ("opensuse-tumbleweed", "gstreamer", "1.26.5-1.1",
         "/usr/libexec/gstreamer-1.0/gst-ptp-helper", 0o4755, "gstreamer.gst-ptp-helper",
         "migrate", "cap_net_bind_service=ep"),
        ("fedora", "sssd-proxy", "2.9.6-1.fc41", "/usr/libexec/sssd/proxy_child", 0o4750,
         "sssd.proxy_child", "keep", None),
        ("fedora", "sssd-proxy", "2.10.2-1.fc42", "/usr/libexec/sssd/proxy_child", 0o4750,
         "sssd.proxy_child", "drop", None),
    ]
    for os_id, pkg, version, path, mode, rid, verdict, caps in cases:
        name = f"{pkg} {version} on {os_id}"
        root = image(ctx, "fix-" + pkg, os_id, {path: (mode, 0)},
                     packages=[(pkg, version, [path])], groups=GROUPS)
        d = explain(ctx, root, [path]).get(path)
        check_decision(ctx, name, d, rid, verdict, caps)
        if d and verdict == "drop":
            ctx.check(f"{name}: set-ID bit cleared, mode kept", d["mode_after"] == "0750",
                      d["mode_after"])


def test_games(ctx):
    """Set-group-ID games wherever distributions put them: /usr/games (Debian), a directory
    of /usr/lib/games (Debian's nethack-console), /usr/bin (Fedora), found by their group;
    another program of /usr/bin is not taken for a game."""
    if not is_root():
        return SKIP
    groups = "root:x:0:\nmail:x:8:\ngames:x:60:\n"
    files = {"/usr/games/hack": (0o2755, 60),
             "/usr/lib/games/nethack/nethack-console": (0o2755, 60),
             "/usr/bin/monsterz": (0o2755, 60), "/usr/bin/robotfindskitten": (0o6755, 60),
             "/usr/bin/not-a-game": (0o2755, 8), "/usr/bin/dotlockfile": (0o2755, 60)}
    root = image(ctx, "games", "fedora", files, groups=groups)
    d = explain(ctx, root, list(files))
    check_decision(ctx, "bsdgames hack", d.get("/usr/games/hack"), "games.setgid-games", "keep")
    check_decision(ctx, "nethack-console", d.get("/usr/lib/games/nethack/nethack-console"),
                   "games.setgid-games-elsewhere", "keep", reason="high-score")
    check_decision(ctx, "Fedora's monsterz", d.get("/usr/bin/monsterz"),
                   "games.setgid-games-elsewhere", "keep")
    check_decision(ctx, "a setuid-root game", d.get("/usr/bin/robotfindskitten"),
                   "games.setgid-games-elsewhere", "review", reason="2755 root:games")
    dd = d.get("/usr/bin/not-a-game") or {}
    ctx.check("a set-group-ID mail program is not a game", (dd.get("rule") or {}).get("id") is None,
              repr(dd.get("rule")))
    check_decision(ctx, "a program with its own rule", d.get("/usr/bin/dotlockfile"),
                   "liblockfile.dotlockfile", "keep")


TESTS = [test_versioned_corrections, test_games]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
