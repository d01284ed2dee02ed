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
        rule("t.partial", "/opt/t/partial", "migrate", caps="cap_sys_admin,cap_net_raw=ep",
             accepted_risk="cap_net_raw is all it needs to send ICMP echo requests"),
        rule("t.named", "/opt/t/named", "migrate", caps="cap_sys_admin,cap_net_raw=ep",
             accepted_risk="CAP_SYS_ADMIN mounts its filesystem and cap_net_raw sends probes"),
        rule("t.prefix", "/opt/t/prefix", "migrate", caps="cap_setgid=ep",
             accepted_risk="cap_setgids is not a capability, so nothing here is named"),
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
        ("t.json: $.rules[10].caps: accepted_risk does not name cap_sys_admin, which "
         "'cap_sys_admin,cap_net_raw=ep' grants (root-equivalent)", "unnamed root capability"),
        ("t.json: $.rules[12].caps: accepted_risk does not name cap_setgid", "a name as a word"),
    ]
    for text, what in expect:
        ctx.check(f"lint finds {what}", any(text in l for l in lines), "\n".join(lines))
    ctx.check("lint leaves the accepted risk alone", not any("$.rules[4]" in l or "$.rules[11]" in l
                                                             for l in lines), "\n".join(lines))
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


# --- the fixed rules ----------------------------------------------------------------------

GROUPS = "root:x:0:\nshadow:x:42:\nsquid:x:31:\napache:x:48:\nwww-data:x:33:\ngames:x:60:\n"


def image(ctx, name, os_id, files, packages=(), groups=GROUPS):
    """A tree with os-release, group file, the files (path -> (mode, gid)) and a dpkg
    database naming (package, version, [paths])."""
    root = ctx.tree(name)
    s2ctest.mkfile(root, "/etc/os-release", 0o644, f"ID={os_id}\n".encode())
    s2ctest.mkfile(root, "/etc/group", 0o644, groups.encode())
    s2ctest.mkfile(root, "/etc/passwd", 0o644, b"root:x:0:0::/root:/bin/sh\n")
    for path, (mode, gid) in files.items():
        s2ctest.mkfile(root, path, mode, uid=0 if is_root() else None,
                       gid=gid if is_root() else None)
    if packages:
        info = os.path.join(root, "var/lib/dpkg/info")
        os.makedirs(info, exist_ok=True)
        status = []
        for pkg, version, paths in packages:
            with open(os.path.join(info, pkg + ".list"), "w") as f:
                f.write("".join(p + "\n" for p in paths))
            status.append(f"Package: {pkg}\nStatus: install ok installed\nVersion: {version}\n")
        with open(os.path.join(root, "var/lib/dpkg/status"), "w") as f:
            f.write("\n".join(status))
    return root


def check_decision(ctx, name, d, rule=None, verdict=None, caps=None, mode=None, group=None,
                   reason=None, warning=None):
    if not d:
        ctx.check(name, False, "no decision")
        return
    got = (d["rule"] or {}).get("id")
    if rule:
        ctx.check(f"{name}: rule", got == rule, f"{got} {d['reason']}")
    if verdict:
        ctx.check(f"{name}: verdict", d["verdict"] == verdict, f"{d['verdict']}: {d['reason']}")
    if caps is not None:
        ctx.check(f"{name}: caps", d["caps_after"] == caps, f"{d['caps_after']}")
    if mode:
        ctx.check(f"{name}: mode", d["mode_after"] == mode, d["mode_after"])
    if group is not None:
        ctx.check(f"{name}: group", d["gid_after"] == group, f"{d['gid_after']}")
    if reason:
        ctx.check(f"{name}: reason", reason in d["reason"], d["reason"])
    if warning:
        ctx.check(f"{name}: warning", any(warning in w for w in d["warnings"]), repr(d["warnings"]))


def test_fixed_rules(ctx):
    """Each corrected rule decides what its sources say."""
    if not is_root():
        return SKIP   # the files must be owned by root for the engine to decide about them
    root = image(ctx, "fixed-debian", "debian", {
        "/usr/bin/tcptraceroute.mt": (0o4755, 0),
        "/usr/sbin/nethogs": (0o4755, 0),
        "/usr/bin/xtrlock": (0o2755, 42),
        "/usr/lib/policykit-1/polkit-agent-helper-1": (0o4755, 0),
        "/usr/lib/squid/pinger": (0o4755, 0),
        "/usr/lib/qemu/qemu-bridge-helper": (0o4755, 0),
        "/usr/bin/kwin_wayland": (0o4755, 0),
        "/usr/bin/kwin_x11": (0o4755, 0),
        "/usr/lib/cockpit/cockpit-session": (0o4750, 0),
        "/usr/lib/snapd/snap-confine": (0o4755, 0),
        "/usr/lib/apache2/suexec-pristine": (0o4754, 33),
    }, packages=[("kwin-wayland", "4:5.27.5-3", ["/usr/bin/kwin_wayland"]),
                 ("cockpit-ws", "287.1-0+deb12u3", ["/usr/lib/cockpit/cockpit-session"]),
                 ("snapd", "2.57.6-1+deb12u1", ["/usr/lib/snapd/snap-confine"])])
    d = explain(ctx, root, ["/usr/bin/tcptraceroute.mt", "/usr/sbin/nethogs", "/usr/bin/xtrlock",
                            "/usr/lib/policykit-1/polkit-agent-helper-1", "/usr/lib/squid/pinger",
                            "/usr/lib/qemu/qemu-bridge-helper", "/usr/bin/kwin_wayland",
                            "/usr/bin/kwin_x11", "/usr/lib/cockpit/cockpit-session",
                            "/usr/lib/snapd/snap-confine", "/usr/lib/apache2/suexec-pristine"])
    check_decision(ctx, "tcptraceroute", d.get("/usr/bin/tcptraceroute.mt"),
                   "tcptraceroute.tcptraceroute", "keep", reason="Got root?")
    check_decision(ctx, "nethogs", d.get("/usr/sbin/nethogs"), "nethogs.nethogs", "review",
                   reason="cap_dac_read_search,cap_sys_ptrace")
    check_decision(ctx, "xtrlock 2755 root:shadow", d.get("/usr/bin/xtrlock"), "xtrlock.xtrlock",
                   "keep", caps=None, mode="2755")
    check_decision(ctx, "polkit helper, old path", d.get("/usr/lib/policykit-1/polkit-agent-helper-1"),
                   "polkit.polkit-agent-helper-1", "keep")
    check_decision(ctx, "pinger on Debian", d.get("/usr/lib/squid/pinger"), "squid.pinger",
                   "migrate", "cap_net_raw=ep", "0755", 0)
    check_decision(ctx, "qemu-bridge-helper", d.get("/usr/lib/qemu/qemu-bridge-helper"),
                   "qemu.qemu-bridge-helper", "migrate", "cap_net_admin=ep",
                   warning="drop_privileges() runs only when geteuid() == 0")
    check_decision(ctx, "kwin_wayland Plasma 5 on Debian", d.get("/usr/bin/kwin_wayland"),
                   "kwin.kwin_wayland", "migrate", "cap_sys_resource=ep")
    check_decision(ctx, "kwin_x11", d.get("/usr/bin/kwin_x11"), "kwin.kwin_x11", "review")
    check_decision(ctx, "cockpit-session 287", d.get("/usr/lib/cockpit/cockpit-session"),
                   "cockpit.cockpit-session", "keep")
    check_decision(ctx, "snap-confine 2.57", d.get("/usr/lib/snapd/snap-confine"),
                   "snapd.snap-confine", "keep")
    check_decision(ctx, "suexec on Debian", d.get("/usr/lib/apache2/suexec-pristine"),
                   "httpd.suexec", "migrate", "cap_setgid,cap_setuid=ep", "0750", 33)

    # newer versions: Plasma 6, cockpit 330, snapd 2.70
    root = image(ctx, "fixed-newer", "debian", {
        "/usr/bin/kwin_wayland": (0o4755, 0),
        "/usr/lib/cockpit/cockpit-session": (0o4750, 0),
        "/usr/lib/snapd/snap-confine": (0o4755, 0),
        "/usr/bin/xtrlock": (0o4755, 0),
    }, packages=[("kwin-wayland", "4:6.3.5-1", ["/usr/bin/kwin_wayland"]),
                 ("cockpit-ws", "330-1", ["/usr/lib/cockpit/cockpit-session"]),
                 ("snapd", "2.70-1", ["/usr/lib/snapd/snap-confine"])])
    d = explain(ctx, root, ["/usr/bin/kwin_wayland", "/usr/lib/cockpit/cockpit-session",
                            "/usr/lib/snapd/snap-confine", "/usr/bin/xtrlock"])
    check_decision(ctx, "kwin_wayland Plasma 6", d.get("/usr/bin/kwin_wayland"), "kwin.kwin_wayland",
                   "migrate", "cap_sys_nice=ep")
    check_decision(ctx, "cockpit-session 330", d.get("/usr/lib/cockpit/cockpit-session"),
                   "cockpit.cockpit-session", "drop", None, "0750")
    check_decision(ctx, "snap-confine 2.70", d.get("/usr/lib/snapd/snap-confine"),
                   "snapd.snap-confine", "migrate",
                   "cap_chown,cap_dac_override,cap_dac_read_search,cap_fowner,cap_sys_chroot,"
                   "cap_sys_ptrace,cap_sys_admin=p")
    check_decision(ctx, "xtrlock setuid root", d.get("/usr/bin/xtrlock"), "xtrlock.xtrlock",
                   "review", reason="This copy is setuid root")
    ctx.check("xtrlock setuid root: unchanged", d.get("/usr/bin/xtrlock", {}).get("changes") is False, "")

    # openSUSE: the pinger stays executable by group squid only; Fedora: suexec 0510 root:apache
    root = image(ctx, "fixed-suse", "opensuse-tumbleweed", {"/usr/libexec/squid/pinger": (0o4750, 31)})
    d = explain(ctx, root, ["/usr/libexec/squid/pinger"])
    check_decision(ctx, "pinger on openSUSE", d.get("/usr/libexec/squid/pinger"), "squid.pinger",
                   "migrate", "cap_net_raw=ep", "0750", 31)
    root = image(ctx, "fixed-fedora", "fedora", {"/usr/sbin/suexec": (0o4755, 0),
                                                "/usr/bin/kwin_wayland": (0o4755, 0)})
    d = explain(ctx, root, ["/usr/sbin/suexec", "/usr/bin/kwin_wayland"])
    check_decision(ctx, "suexec on Fedora", d.get("/usr/sbin/suexec"), "httpd.suexec", "migrate",
                   "cap_setgid,cap_setuid=ep", "0510", 48)
    check_decision(ctx, "kwin_wayland on Fedora", d.get("/usr/bin/kwin_wayland"), "kwin.kwin_wayland",
                   "migrate", "cap_sys_nice=ep")
    # Ubuntu's GStreamer 1.24 helper also gets cap_sys_nice; Kali's nmap its own set
    gst = "/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper"
    root = image(ctx, "fixed-ubuntu", "ubuntu", {gst: (0o4755, 0)},
                 packages=[("libgstreamer1.0-0", "1.24.2-1ubuntu0.1", [gst])])
    d = explain(ctx, root, [gst])
    check_decision(ctx, "gst-ptp-helper Ubuntu 24.04", d.get(gst), "gstreamer.gst-ptp-helper",
                   "migrate", "cap_net_bind_service,cap_net_admin,cap_sys_nice=ep")
    root = image(ctx, "fixed-kali", "kali", {"/usr/lib/nmap/nmap": (0o4755, 0)})
    d = explain(ctx, root, ["/usr/lib/nmap/nmap"])
    check_decision(ctx, "nmap on Kali", d.get("/usr/lib/nmap/nmap"), "nmap.nmap", "migrate",
                   "cap_net_bind_service,cap_net_admin,cap_net_raw=eip")


def test_ping_without_libcap(ctx):
    """iputils ping built without libcap cannot raise cap_net_raw: it gets =ep, and says so."""
    if not is_root() or not shutil.which("cc"):
        return SKIP
    root = ctx.tree("nolibcap")
    src = os.path.join(ctx.tmp, "ping.c")
    with open(src, "w") as f:
        f.write('#include <stdio.h>\nint main(void) { puts("ping from iputils 20240905"); return 0; }\n')
    os.makedirs(os.path.join(root, "usr/bin"))
    subprocess.run(["cc", "-o", os.path.join(root, "usr/bin/ping"), src], check=True)
    os.chmod(os.path.join(root, "usr/bin/ping"), 0o4755)
    d = explain(ctx, root, ["/usr/bin/ping"])
    check_decision(ctx, "ping without libcap", d.get("/usr/bin/ping"), "iputils.ping", "migrate",
                   "cap_net_raw=ep", warning="capability-dumb")


# --- the programs that had no rule ----------------------------------------------------------

NEW_GROUPS = GROUPS + "mail:x:8:\nstapusr:x:156:\nvirtlogin:x:157:\nsmmsp:x:51:\nlock:x:54:\ntlog:x:158:\n"


def test_new_rules(ctx):
    """A sample of the programs that had no rule: each has one, with its sources, and the
    verdict the distribution's packaging supports."""
    if not is_root():
        return SKIP
    files = {
        "/usr/bin/sudo-rs": (0o4111, 0), "/usr/bin/su-rs": (0o4755, 0), "/usr/bin/doas": (0o4755, 0),
        "/usr/bin/staprun": (0o4110, 156), "/usr/bin/virt-login-shell": (0o4750, 157),
        "/usr/sbin/grub2-set-bootflag": (0o4755, 0), "/usr/bin/lockfile": (0o2755, 8),
        "/usr/bin/dotlockfile": (0o2755, 8), "/usr/bin/mail-lock": (0o2755, 8),
        "/usr/libexec/sendmail/sendmail": (0o2755, 51), "/usr/sbin/lockdev": (0o2711, 54),
        "/usr/games/hack": (0o2755, 60), "/usr/games/rogue": (0o4755, 0),
        "/usr/bin/dotlock.mailutils": (0o2755, 0), "/bin/bbsuid": (0o4111, 0),
        "/usr/libexec/hercules/hercifc": (0o4755, 0), "/usr/bin/hercules": (0o4755, 0),
        "/usr/lib/eject/dmcrypt-get-device": (0o4755, 0), "/usr/libexec/mktex/public": (0o2755, 0),
    }
    root = image(ctx, "new-rules", "fedora", files, groups=NEW_GROUPS)
    d = explain(ctx, root, list(files))
    want = {
        "/usr/bin/sudo-rs": ("sudo-rs.sudo-rs", "keep", None),
        "/usr/bin/su-rs": ("sudo-rs.su-rs", "keep", None),
        "/usr/bin/doas": ("opendoas.doas", "keep", None),
        "/usr/bin/staprun": ("systemtap.staprun", "keep", None),
        "/usr/bin/virt-login-shell": ("libvirt.virt-login-shell", "keep", None),
        "/usr/sbin/grub2-set-bootflag": ("grub2.grub2-set-bootflag", "keep", None),
        "/usr/bin/lockfile": ("procmail.lockfile", "keep", None),
        "/usr/bin/dotlockfile": ("liblockfile.dotlockfile", "keep", None),
        "/usr/bin/mail-lock": ("lockfile-progs.mail-lock", "keep", None),
        "/usr/libexec/sendmail/sendmail": ("sendmail.sendmail", "keep", None),
        "/usr/sbin/lockdev": ("lockdev.lockdev", "keep", None),
        "/usr/games/hack": ("games.setgid-games", "keep", None),
        "/usr/games/rogue": ("games.setgid-games", "review", None),
        "/usr/bin/dotlock.mailutils": ("mailutils.dotlock", "review", None),
        "/bin/bbsuid": ("busybox.bbsuid", "keep", None),
        "/usr/libexec/hercules/hercifc": ("hercules.hercifc", "migrate", "cap_net_admin=ep"),
        "/usr/bin/hercules": ("hercules.hercules", "migrate", "cap_sys_nice=eip"),
        "/usr/lib/eject/dmcrypt-get-device": ("eject.dmcrypt-get-device", "keep", None),
        "/usr/libexec/mktex/public": ("texlive.mktex-public", "keep", None),
    }
    for path, (rid, verdict, caps) in want.items():
        check_decision(ctx, path, d.get(path), rid, verdict, caps)
        dd = d.get(path) or {}
        ctx.check(f"{path}: sources", bool((dd.get("rule") or {}).get("sources")), "")
        if verdict == "keep":
            ctx.check(f"{path}: unchanged", dd.get("changes") is False, "")
    # the rules say why in their own words, not the generic fallback
    ctx.check("games: narrow group", "high-score" in d["/usr/games/hack"]["reason"], "")
    ctx.check("setuid-root game: by hand", "2755 root:games" in d["/usr/games/rogue"]["reason"], "")


# --- real Debian binaries, told apart in trees without a package database ----------------

DEBS = ["iputils-ping", "inetutils-ping", "iputils-arping", "arping", "passwd", "util-linux", "beep"]
DEB_CACHE = os.path.join(s2ctest.SRC, "build", "test-deps", "debs")


def debs(ctx):
    """The Debian packages of DEBS, fetched once with apt-get download into
    build/test-deps/debs (never installed); None when the archive cannot be reached."""
    os.makedirs(DEB_CACHE, exist_ok=True)
    have = {}
    for name in os.listdir(DEB_CACHE):
        if name.endswith(".deb"):
            have[name.split("_")[0]] = os.path.join(DEB_CACHE, name)
    missing = [p for p in DEBS if p not in have]
    if missing:
        p = subprocess.run(["apt-get", "download", *missing], cwd=DEB_CACHE, capture_output=True)
        if p.returncode != 0:
            print(f"apt-get download failed: {p.stderr.decode(errors='replace')}", file=sys.stderr)
            return None
        return debs(ctx)
    return have


def extract(ctx, deb, name):
    """dpkg-deb -x into a fresh tree: files and modes, no package database."""
    root = ctx.tree(name)
    subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
    return root


def setuid(root, rel):
    path = os.path.join(root, rel.lstrip("/"))
    os.chown(path, 0, 0)
    os.chmod(path, 0o4755)
    return rel


def test_identify_real_binaries(ctx):
    """Each program of a pair that shares a name gets its own rule from its binary alone:
    iputils and GNU inetutils ping, iputils and Habets' arping, shadow and util-linux chfn."""
    if not is_root() or not shutil.which("dpkg-deb"):
        return SKIP
    pkgs = debs(ctx)
    if pkgs is None:
        return SKIP
    cases = [
        ("iputils-ping", "/bin/ping", "iputils.ping", "cap_net_raw=p", "the string 'iputils'"),
        ("inetutils-ping", "/bin/ping", "inetutils.ping", "cap_net_raw=ep", "'GNU inetutils'"),
        ("iputils-arping", "/usr/bin/arping", "iputils.arping", "cap_net_raw=p", "'iputils'"),
        ("arping", "/usr/sbin/arping", "arping.arping", "cap_net_raw=ep", "NEEDs libnet.so"),
        ("passwd", "/usr/bin/chfn", "shadow.chfn", None, "[options] [LOGIN]"),
        ("passwd", "/usr/bin/chsh", "shadow.chsh", None, "[options] [LOGIN]"),
    ]
    for pkg, path, rid, caps, sign in cases:
        root = extract(ctx, pkgs[pkg], "id-" + pkg)
        ctx.check(f"{pkg}: no package database", not os.path.exists(os.path.join(root, "var/lib/dpkg")), "")
        setuid(root, path)
        d = explain(ctx, root, [path]).get(path)
        check_decision(ctx, f"{pkg} {path}", d, rid, "keep" if caps is None else "migrate", caps)
        if d:
            ctx.check(f"{pkg} {path}: identified by its binary", d["confidence"] == "high" and
                      "identify signs of '%s' only" % rid in (d["rule"] or {}).get("matched", "") and
                      sign in d["rule"]["matched"], repr(d.get("rule")))
            ctx.check(f"{pkg} {path}: the look-alike tied", len(d["ambiguous"]) == 2, repr(d["ambiguous"]))
    # util-linux's chfn and chsh are not built in Debian; util-linux's own su from the same
    # build carries the banner they would carry ("util-linux 2.38.1")
    root = extract(ctx, pkgs["util-linux"], "id-util-linux")
    os.makedirs(os.path.join(root, "usr/bin"), exist_ok=True)
    shutil.copyfile(os.path.join(root, "bin/su"), os.path.join(root, "usr/bin/chfn"))
    setuid(root, "/usr/bin/chfn")
    d = explain(ctx, root, ["/usr/bin/chfn"]).get("/usr/bin/chfn")
    check_decision(ctx, "util-linux chfn", d, "util-linux.chfn", "keep")
    # a binary that shows neither program's signs: review, naming both and what settles it
    root = ctx.tree("id-neither")
    os.makedirs(os.path.join(root, "bin"))
    shutil.copyfile("/usr/bin/true", os.path.join(root, "bin/ping"))
    setuid(root, "/bin/ping")
    d = explain(ctx, root, ["/bin/ping"]).get("/bin/ping")
    check_decision(ctx, "neither ping", d, None, "review",
                   reason="(inetutils.ping, iputils.ping) and decide differently")
    if d:
        ctx.check("neither ping: what settles it", "would settle it" in d["reason"] and
                  "no package database" in d["reason"] and d["rule"] is None, d["reason"])
    # the same binary with a package database: the package decides
    root = extract(ctx, pkgs["inetutils-ping"], "id-with-db")
    setuid(root, "/bin/ping")
    os.makedirs(os.path.join(root, "var/lib/dpkg/info"))
    with open(os.path.join(root, "var/lib/dpkg/info/inetutils-ping.list"), "w") as f:
        f.write("/bin/ping\n")
    d = explain(ctx, root, ["/bin/ping"]).get("/bin/ping")
    check_decision(ctx, "inetutils ping by package", d, "inetutils.ping", "migrate")
    if d:
        ctx.check("by package: no tie", d["ambiguous"] == [] and d["package"] == "inetutils-ping",
                  repr(d))


def test_version_from_binary(ctx):
    """beep 1.4.9 (Debian's) refuses to run set-ID: its version, read from the binary, drops it."""
    if not is_root() or not shutil.which("dpkg-deb"):
        return SKIP
    pkgs = debs(ctx)
    if pkgs is None:
        return SKIP
    root = extract(ctx, pkgs["beep"], "beep")
    setuid(root, "/usr/bin/beep")
    d = explain(ctx, root, ["/usr/bin/beep"]).get("/usr/bin/beep")
    check_decision(ctx, "beep 1.4.9", d, "beep.beep", "drop", None, "0755",
                   reason="Running setuid or setgid")
    if d:
        ctx.check("beep version from the binary", d["version"] == "1.4.9" and
                  d["version_source"] == "binary" and d["package"] is None, repr(d))


# --- package databases of every kind ---------------------------------------------------------


def tree_state(root):
    """Every file under @root with its size, mode and mtime: what must not change."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            out[os.path.relpath(p, root)] = (st.st_size, st.st_mode, st.st_mtime_ns)
    return out


def build_rpm(ctx, name, version, release, files):
    """An rpm of @files (path -> (source file, mode)) built with Debian's rpmbuild in a
    private directory; returns its path."""
    top = ctx.tree("rpm-" + name)
    stage = os.path.join(top, "stage")
    lines = []
    for path, (src, mode) in files.items():
        dst = os.path.join(stage, path.lstrip("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
        lines.append(f"%attr({mode:04o},root,root) {path}")
    spec = os.path.join(top, "t.spec")
    with open(spec, "w") as f:
        f.write(f"Name: {name}\nVersion: {version}\nRelease: {release}\nSummary: t\nLicense: none\n"
                "%description\nt\n%install\nmkdir -p %{buildroot}\n"
                f"cp -a {stage}/. %{{buildroot}}/\n%files\n" + "\n".join(lines) + "\n")
    p = subprocess.run(["rpmbuild", "-bb", "--define", f"_topdir {top}/top", "--define",
                        f"_dbpath {top}/db", "--define", "_build_id_links none", "--define",
                        "__strip /bin/true", "--define", "debug_package %{nil}", spec],
                       capture_output=True)
    if p.returncode != 0:
        ctx.check("rpmbuild", False, p.stderr.decode(errors="replace")[-2000:])
        return None
    for dirpath, _, filenames in os.walk(os.path.join(top, "top/RPMS")):
        for n in filenames:
            return os.path.join(dirpath, n)
    return None


def test_rpm_database(ctx):
    """An rpm database built with rpm's own tools: owner and version from it, the tie between
    iputils and inetutils ping settled by it, verify --fix tells the package's content from
    tampering by rpm's SHA-256 file digests, and reading it changes nothing in the tree."""
    if not is_root() or not shutil.which("rpmbuild") or not os.path.exists("/usr/bin/ping"):
        return SKIP
    rpm = build_rpm(ctx, "iputils", "20240905", "1.fc41",
                    {"/usr/bin/ping": ("/usr/bin/ping", 0o4755)})
    if not rpm:
        return
    root = ctx.tree("rpmroot")
    p = subprocess.run(["rpm", "--root", root, "--dbpath", "/usr/lib/sysimage/rpm", "-i", "--nodeps",
                        "--noscripts", "--notriggers", rpm], capture_output=True)
    ctx.check("rpm -i", p.returncode == 0, p.stderr.decode(errors="replace"))
    os.makedirs(os.path.join(root, "var/lib"), exist_ok=True)
    dbdir = os.path.join(root, "usr/lib/sysimage/rpm")
    for junk in ("rpmdb.sqlite-shm", "rpmdb.sqlite-wal", ".rpm.lock"):
        if os.path.exists(os.path.join(dbdir, junk)):
            os.unlink(os.path.join(dbdir, junk))
    before = tree_state(root)
    d = explain(ctx, root, ["/usr/bin/ping"]).get("/usr/bin/ping")
    check_decision(ctx, "ping from rpm", d, "iputils.ping", "migrate")
    if d:
        ctx.check("rpm owner and version", d["package"] == "iputils" and
                  d["package_version"] == "20240905-1.fc41" and d["ambiguous"] == [], repr(d))
    rc, out, err = ctx.run(["audit", "--root", root, "--kernel", KERNEL])
    ctx.check("rpm: audit says which database", b"package database: rpm" in out, out[:600])
    ctx.check("rpm: reading the database changes nothing", tree_state(root) == before,
              f"{sorted(set(tree_state(root)) ^ set(before))}")
    # verify --fix: the package's own content comes back (an update) and is repaired;
    # other content is tampering
    rc, out, err = ctx.run(["migrate", "--root", root, "--kernel", KERNEL, "--yes", "--no-smoke"])
    ctx.check("rpm: migrate", rc == 0, f"{rc} {err!r}")
    ping = os.path.join(root, "usr/bin/ping")
    shutil.copyfile("/usr/bin/ping", ping + ".new")
    os.chmod(ping + ".new", 0o4755)
    os.rename(ping + ".new", ping)
    rc, out, err = ctx.run(["verify", "--root", root, "--kernel", KERNEL, "--fix", "--no-smoke"])
    ctx.check("rpm: update recognised", b"the content of package 'iputils' (a package update)" in out,
              f"{rc} {out!r} {err!r}")
    ctx.check("rpm: update repaired", not os.stat(ping).st_mode & 0o4000, oct(os.stat(ping).st_mode))
    shutil.copyfile("/usr/bin/id", ping + ".new")
    os.chmod(ping + ".new", 0o4755)
    os.rename(ping + ".new", ping)
    rc, out, err = ctx.run(["verify", "--root", root, "--kernel", KERNEL, "--fix", "--no-smoke"])
    ctx.check("rpm: tampering recognised", rc == 1 and b"not what package 'iputils' shipped" in out,
              f"{rc} {out!r}")
    ctx.check("rpm: tampering left alone", os.stat(ping).st_mode & 0o7777 == 0o4755, "")


def test_apk_and_pacman_databases(ctx):
    """apk's installed database and pacman's local database, written in their documented
    formats: owner and version of each file, and the tie settled by the package."""
    if not is_root():
        return SKIP
    import base64
    import hashlib
    root = ctx.tree("apkroot")
    s2ctest.mkfile(root, "/bin/ping", 0o4755, b"\x7fELF ping of inetutils\n", uid=0, gid=0)
    sha1 = base64.b64encode(hashlib.sha1(b"\x7fELF ping of inetutils\n").digest()).decode()
    s2ctest.mkfile(root, "/lib/apk/db/installed", 0o644,
                   ("C:Q1abcdefghijklmnopqrstuvwxyz0=\nP:busybox\nV:1.36.1-r5\nF:bin\nR:busybox\n\n"
                    f"P:inetutils-ping\nV:2.5-r0\nA:x86_64\nF:bin\nR:ping\na:0:0:4755\nZ:Q1{sha1}\n\n").encode())
    d = explain(ctx, root, ["/bin/ping"]).get("/bin/ping")
    check_decision(ctx, "apk ping", d, "inetutils.ping", "migrate")
    if d:
        ctx.check("apk owner and version", d["package"] == "inetutils-ping" and
                  d["package_version"] == "2.5-r0" and d["ambiguous"] == [], repr(d))
    rc, out, err = ctx.run(["audit", "--root", root, "--kernel", KERNEL])
    ctx.check("apk: audit says which database", b"package database: apk" in out, out[:600])

    root = ctx.tree("pacmanroot")
    s2ctest.mkfile(root, "/usr/bin/arping", 0o4755, b"\x7fELF arping of iputils\n", uid=0, gid=0)
    local = "/var/lib/pacman/local"
    s2ctest.mkfile(root, local + "/ALPM_DB_VERSION", 0o644, b"9\n")
    s2ctest.mkfile(root, local + "/iputils-20240905-1/desc", 0o644,
                   b"%NAME%\niputils\n\n%VERSION%\n20240905-1\n\n%ARCH%\nx86_64\n")
    s2ctest.mkfile(root, local + "/iputils-20240905-1/files", 0o644,
                   b"%FILES%\nusr/\nusr/bin/\nusr/bin/arping\nusr/bin/ping\n\n")
    d = explain(ctx, root, ["/usr/bin/arping"]).get("/usr/bin/arping")
    check_decision(ctx, "pacman arping", d, "iputils.arping", "migrate")
    if d:
        ctx.check("pacman owner and version", d["package"] == "iputils" and
                  d["package_version"] == "20240905-1", repr(d))


# --- the target's own local rules ----------------------------------------------------------


def test_target_rules_d(ctx):
    """An image's etc/suid2cap/rules.d is its local layer: read beneath the root, with the
    trust checks of the host's, named in the audit header; the host's is not used for it."""
    if not is_root():
        return SKIP
    root = image(ctx, "target-rules", "debian", {"/usr/bin/fping": (0o4755, 0)})
    local = os.path.join(root, "etc/suid2cap/rules.d")
    rules_file(local, "site.json", [
        rule("fping.fping", "/usr/bin/fping", "keep",
             reason="this site keeps fping setuid for a monitoring tool"),
    ])
    d = explain(ctx, root, ["/usr/bin/fping"]).get("/usr/bin/fping")
    check_decision(ctx, "target rule replaces bundled", d, "fping.fping", "keep",
                   reason="this site keeps fping setuid")
    if d:
        ctx.check("target rule file", d["rule"]["file"].startswith(local), d["rule"]["file"])
    rc, out, err = ctx.run(["audit", "--root", root, "--kernel", KERNEL])
    ctx.check("header names the target's rules",
              f"local rules (the target's): {local}: 1 rule".encode() in out, out[:500])
    # the same trust checks as the host's: refused when others could write it
    os.chmod(os.path.join(local, "site.json"), 0o664)
    rc, out, err = ctx.run(["explain", "--root", root, "/usr/bin/fping"])
    ctx.check("group-writable target rules refused", rc == 5 and b"site.json" in err and
              b"writable" in err and not out, f"{rc} {err!r}")
    os.chmod(os.path.join(local, "site.json"), 0o644)
    # a symbolic link on the way is refused, not followed out of the image
    shutil.rmtree(os.path.join(root, "etc/suid2cap"))
    elsewhere = ctx.tree("elsewhere-rules")
    rules_file(elsewhere, "evil.json", [rule("fping.fping", "/usr/bin/fping", "drop")])
    os.symlink(elsewhere, os.path.join(root, "etc/suid2cap"))
    rc, out, err = ctx.run(["explain", "--root", root, "/usr/bin/fping"])
    ctx.check("symlinked target rules refused", rc != 0 and b"symbolic link" in err and not out,
              f"{rc} {err!r}")
    # without a rules.d the bundled rule decides
    os.unlink(os.path.join(root, "etc/suid2cap"))
    d = explain(ctx, root, ["/usr/bin/fping"]).get("/usr/bin/fping")
    check_decision(ctx, "no target rules", d, "fping.fping", "migrate")


# --- containers ------------------------------------------------------------------------------


def test_container_bounding_set(ctx):
    """In a container image, a migration outside the runtime's default bounding set cannot
    work: another set of the rule that fits is used, or the file is left for review."""
    if not is_root():
        return SKIP
    gst = "/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper"
    files = {"/usr/bin/mtr-packet": (0o4755, 0), gst: (0o4755, 0), "/usr/bin/fping": (0o4755, 0)}
    root = image(ctx, "docker-image", "debian", files)
    s2ctest.mkfile(root, "/.dockerenv", 0o755, b"")
    d = explain(ctx, root, list(files))
    # Docker keeps cap_net_raw: mtr-packet migrates as usual
    check_decision(ctx, "docker: mtr-packet", d.get("/usr/bin/mtr-packet"), "mtr.mtr-packet",
                   "migrate", "cap_net_raw=ep")
    # gst-ptp-helper needs cap_net_admin, which Docker lacks: openSUSE's set fits
    check_decision(ctx, "docker: gst-ptp-helper", d.get(gst), "gstreamer.gst-ptp-helper", "migrate",
                   "cap_net_bind_service=ep", warning="Docker's default bounding set (the image has "
                   "/.dockerenv) lacks cap_net_admin")
    rc, out, err = ctx.run(["audit", "--root", root, "--kernel", KERNEL])
    head = b" ".join(out.split(b"\n\n")[0].split())
    ctx.check("docker: header", b"bounding set: cap_chown, cap_dac_override," in head and
              b"; from Docker's default bounding set (the image has /.dockerenv)" in head,
              out[:900])
    # Podman lacks cap_net_raw: an =ep file would not even start
    d = explain(ctx, root, ["/usr/bin/fping"], ["--bounding-set", "podman"])
    check_decision(ctx, "podman: fping", d.get("/usr/bin/fping"), "fping.fping", "review",
                   reason="lacks cap_net_raw: a file with the effective bit then fails to execute")
    ctx.check("podman: unchanged", d.get("/usr/bin/fping", {}).get("changes") is False, "")
    # a list of names; and "all" lifts the limit of the image
    d = explain(ctx, root, [gst], ["--bounding-set", "cap_net_bind_service,cap_net_admin,cap_sys_nice"])
    check_decision(ctx, "listed set: gst-ptp-helper", d.get(gst), "gstreamer.gst-ptp-helper",
                   "migrate", "cap_net_bind_service,cap_net_admin=ep")
    d = explain(ctx, root, [gst], ["--bounding-set", "all"])
    check_decision(ctx, "all: gst-ptp-helper", d.get(gst), "gstreamer.gst-ptp-helper", "migrate",
                   "cap_net_bind_service,cap_net_admin=ep")
    rc, out, err = ctx.run(["explain", "--root", root, "--bounding-set", "cap_nonsense", gst])
    ctx.check("bad bounding set", rc == 2 and b"unknown capability 'cap_nonsense'" in err, err)
    # plan and migrate agree with explain: nothing outside the bounding set is planned
    rc, out, err = ctx.run(["plan", "--root", root, "--kernel", KERNEL, "--bounding-set", "podman"])
    doc = json.loads(out) if rc == 0 else {"entries": []}
    fping = [e for e in doc["entries"] if e["path"] == "/usr/bin/fping"]
    ctx.check("podman plan: fping not changed", fping and fping[0]["action"] == "none", repr(fping))


TESTS = [test_lint_every_problem, test_lint_missing_directory, test_lint_bundled,
         test_overlap_is_an_error, test_fixed_rules, test_ping_without_libcap, test_new_rules,
         test_identify_real_binaries, test_version_from_binary, test_rpm_database,
         test_apk_and_pacman_databases, test_target_rules_d, test_container_bounding_set]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
