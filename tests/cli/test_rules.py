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


NEW_GROUPS = ("root:x:0:\nmail:x:8:\nlp:x:7:\nutmp:x:43:\nsmmsp:x:51:\nnogroup:x:65534:\n"
              "nobody:x:65533:\nsympa:x:120:\ngnokii:x:121:\nobsrun:x:122:\njwhois:x:123:\n"
              "x2gouser:x:124:\nuucp:x:10:\nmon:x:125:\nutempter:x:126:\n")

# path -> (mode, group, rule, verdict, caps), as Debian 12 and 13 install them
DEBIAN = {
    "/usr/bin/rsh-redone-rsh": (0o4755, "root", "rsh-redone.rsh", "migrate", "cap_net_bind_service=ep"),
    "/usr/bin/rsh-redone-rlogin": (0o4755, "root", "rsh-redone.rlogin", "migrate",
                                   "cap_net_bind_service=ep"),
    "/usr/bin/netselect": (0o4755, "root", "netselect.netselect", "migrate", "cap_net_raw=ep"),
    "/usr/sbin/mount.davfs": (0o4755, "root", "davfs2.mount.davfs", "keep", None),
    "/usr/sbin/vlock-main": (0o4755, "root", "vlock.vlock-main", "keep", None),
    "/usr/bin/lpr": (0o6755, "lp", "lpr.lpr", "keep", None),
    "/usr/bin/lpq": (0o6755, "lp", "lpr.lpr", "keep", None),
    "/usr/bin/lprm": (0o6755, "lp", "lpr.lpr", "keep", None),
    "/usr/sbin/lpc": (0o2755, "lp", "lpr.lpc", "keep", None),
    "/usr/sbin/dma": (0o2755, "mail", "dma.dma", "keep", None),
    "/usr/libexec/opensmtpd/mail.local": (0o2755, "mail", "opensmtpd.mail.local", "keep", None),
    "/usr/libexec/sendmail/mailstats": (0o2755, "smmsp", "sendmail.mailstats", "keep", None),
    "/usr/libexec/s-nail-dotlock": (0o2755, "mail", "s-nail.dotlock", "keep", None),
    "/usr/bin/urxvt": (0o2755, "utmp", "rxvt-unicode.urxvt", "keep", None),
    "/usr/bin/urxvtd": (0o2755, "utmp", "rxvt-unicode.urxvt", "keep", None),
    "/usr/lib/sympa/bin/sympa_newaliases-wrapper": (0o4750, "sympa", "sympa.newaliases-wrapper",
                                                    "keep", None),
    "/usr/sbin/mgnokiidev": (0o4754, "gnokii", "gnokii.mgnokiidev", "keep", None),
    "/usr/lib/mon/bin/smartctl.helper": (0o4750, "mon", "mon.helpers", "keep", None),
}
# ... and as Fedora does, lib64 and libexec included
FEDORA = {
    "/usr/libexec/kde4/kdesud": (0o2755, "nobody", "kde-runtime.kdesud", "keep", None),
    "/usr/libexec/kde4/kpac_dhcp_helper": (0o4755, "root", "kdelibs.kpac_dhcp_helper", "keep", None),
    "/usr/bin/kgrantpty": (0o4755, "root", "kdelibs.kgrantpty", "keep", None),
    "/usr/bin/konsole": (0o2755, "utempter", "kdebase3.konsole", "keep", None),
    "/usr/sbin/mgnokiidev": (0o4750, "gnokii", "gnokii.mgnokiidev", "keep", None),
    "/usr/bin/arc-job-cgroup": (0o4755, "root", "nordugrid-arc.arc-job-cgroup", "keep", None),
    "/usr/bin/sign": (0o4750, "obsrun", "obs-signd.sign", "keep", None),
    "/usr/libexec/sympa/sympa_newaliases-wrapper": (0o4750, "sympa", "sympa.newaliases-wrapper",
                                                    "keep", None),
    "/usr/bin/jwhois": (0o2755, "jwhois", "jwhois.jwhois", "keep", None),
    "/usr/lib64/x2go/libx2go-server-db-sqlite3-wrapper": (0o2755, "x2gouser",
                                                          "x2goserver.sqlite-wrapper", "keep", None),
    "/usr/lib64/mon/mon.d/dialin.monitor.wrap": (0o2755, "uucp", "mon.dialin-monitor-wrap", "keep",
                                                 None),
}


def test_new_rules(ctx):
    """The programs that had no rule, where Debian 12 and 13 and Fedora install them: each
    gets its own rule, with sources, and the verdict its packaging supports."""
    if not is_root():
        return SKIP
    gids = {line.split(":")[0]: int(line.split(":")[2]) for line in NEW_GROUPS.splitlines()}
    for os_id, files in (("debian", DEBIAN), ("fedora", FEDORA)):
        root = image(ctx, "new-" + os_id, os_id,
                     {p: (mode, gids[g]) for p, (mode, g, *_) in files.items()}, groups=NEW_GROUPS)
        d = explain(ctx, root, list(files))
        for path, (_, _, rid, verdict, caps) in files.items():
            check_decision(ctx, f"{os_id} {path}", d.get(path), rid, verdict, caps)
            rule = (d.get(path) or {}).get("rule") or {}
            ctx.check(f"{os_id} {path}: sources", bool(rule.get("sources")), repr(rule))
            if verdict == "keep":
                ctx.check(f"{os_id} {path}: unchanged", d[path]["changes"] is False, "")


def test_ip_vrf_capabilities(ctx):
    """ip with the capabilities Debian's debconf option gives it is for a person to decide,
    with the set of its version: cap_sys_admin before iproute2 6.5, cap_bpf from it."""
    if not is_root():
        return SKIP
    for version, caps, bpf in (("6.1.0-3", "cap_dac_override,cap_sys_admin,cap_net_admin=ep", False),
                               ("6.15.0-1", "cap_dac_override,cap_bpf,cap_net_admin=ep", True)):
        root = image(ctx, "ip", "debian", {"/usr/bin/ip": (0o755, 0)},
                     packages=[("iproute2", version, ["/bin/ip"])])
        s2ctest.setcap(root + "/usr/bin/ip", caps)
        d = explain(ctx, root, ["/usr/bin/ip"]).get("/usr/bin/ip")
        check_decision(ctx, f"ip {version}", d, "iproute2.ip", "review")
        if d:
            chosen = any(c["chosen"] for c in d["conditions"])
            ctx.check(f"ip {version}: the reason of its version", chosen == bpf and
                      ("cap_bpf instead of cap_sys_admin" in d["reason"]) == bpf, d["reason"])
            ctx.check(f"ip {version}: unchanged", d["changes"] is False, "")


TESTS = [test_versioned_corrections, test_games, test_new_rules, test_ip_vrf_capabilities]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
