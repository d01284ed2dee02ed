#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every rule finds its program wherever a distribution installs it: audit walks
roots laid out as Arch and Fedora 42 (sbin merged into bin), Debian 12 and 13
(merged /usr, renamed programs), an older Fedora (lib64, libexec), a system
without merged /usr and multiarch directories, and each privileged file gets
the rule written for it, with the symbolic links of the merged layouts in place
(the walk never follows them)."""
import json
import os
import sys

import s2ctest
from s2ctest import SKIP, is_root

GROUPS = "root:x:0:\nshadow:x:42:\nutmp:x:43:\nmail:x:8:\ndip:x:30:\npostdrop:x:90:\n" \
         "uucp:x:10:\nsmmsp:x:51:\nopensmtpq:x:91:\nhaclient:x:92:\ngames:x:60:\n"

# The programs whose rules named only /usr/sbin or /sbin, each with its rule.
SBIN = {
    "mount.nfs": "nfs-utils.mount.nfs", "unix_chkpwd": "pam.unix_chkpwd",
    "pam_timestamp_check": "pam.pam_timestamp_check", "suexec": "httpd.suexec",
    "postdrop": "postfix.postdrop", "postqueue": "postfix.postqueue",
    "postlog": "postfix.postlog", "pppd": "ppp.pppd", "mount.cifs": "cifs-utils.mount.cifs",
    "mount.ecryptfs_private": "ecryptfs-utils.mount.ecryptfs_private",
    "ns-slapd": "389-ds.ns-slapd", "uucico": "uucp.uucico", "uuxqt": "uucp.uuxqt",
    "smtpctl": "opensmtpd.smtpctl", "ssmtp": "ssmtp.ssmtp", "pccardctl": "pcmciautils.pccardctl",
    "hawk_chkpwd": "hawk2.hawk_chkpwd", "sendmail.sendmail": "sendmail.sendmail",
}

# The merged layouts' links: the walk finds /usr/bin/x, never /bin/x or /sbin/x.
MERGED_USR = {"bin": "usr/bin", "sbin": "usr/sbin", "lib": "usr/lib", "lib64": "usr/lib64"}
MERGED_SBIN = {"bin": "usr/bin", "sbin": "usr/bin", "usr/sbin": "bin", "lib": "usr/lib",
               "lib64": "usr/lib64"}

LAYOUTS = {
    "merged-sbin (Arch, Fedora 42)": (MERGED_SBIN, {
        **{"/usr/bin/" + name: rid for name, rid in SBIN.items()},
        "/usr/bin/fusermount3": "fuse3.fusermount3", "/usr/bin/newuidmap": "shadow.newuidmap",
        "/usr/lib/polkit-1/polkit-agent-helper-1": "polkit.polkit-agent-helper-1",
    }),
    "Debian 12 (merged /usr)": (MERGED_USR, {
        "/usr/sbin/mount.nfs": "nfs-utils.mount.nfs", "/usr/sbin/unix_chkpwd": "pam.unix_chkpwd",
        "/usr/sbin/pppd": "ppp.pppd", "/usr/bin/netkit-rsh": "rsh.rsh",
        "/usr/bin/netkit-rlogin": "rsh.rlogin", "/usr/bin/netkit-rcp": "rsh.rcp",
        "/usr/lib/x86_64-linux-gnu/libexec/kf5/start_kdeinit": "kinit.start_kdeinit",
        "/usr/lib/x86_64-linux-gnu/utempter/utempter": "libutempter.utempter",
    }),
    "Debian 13 (renamed programs)": (MERGED_USR, {
        "/usr/bin/ksu.mit": "krb5.ksu", "/usr/lib/cargo/bin/sudo": "sudo-rs.sudo-rs",
        "/usr/sbin/mount.cifs": "cifs-utils.mount.cifs",
    }),
    "Fedora 41 (lib64, libexec)": (MERGED_USR, {
        "/usr/lib64/vte/gnome-pty-helper": "vte.gnome-pty-helper",
        "/usr/libexec/kf5/start_kdeinit": "kinit.start_kdeinit",
        "/usr/libexec/gvfsd-nfs": "gvfs.gvfsd-nfs", "/usr/sbin/suexec": "httpd.suexec",
        "/usr/lib64/squid/pinger": "squid.pinger",
    }),
    "unmerged /usr, multiarch (arm64)": ({}, {
        "/bin/mount": "util-linux.mount", "/sbin/mount.nfs": "nfs-utils.mount.nfs",
        "/sbin/unix_chkpwd": "pam.unix_chkpwd", "/usr/sbin/postdrop": "postfix.postdrop",
        "/usr/lib/aarch64-linux-gnu/utempter/utempter": "libutempter.utempter",
        "/usr/lib/aarch64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper":
            "gstreamer.gst-ptp-helper",
        "/usr/lib/usbauth/usbauth-npriv": "usbauth.usbauth-npriv",
    }),
}


def build(ctx, name, links, files):
    root = ctx.tree(name.split()[0])
    s2ctest.mkfile(root, "/etc/os-release", 0o644, b"ID=linux\n")
    s2ctest.mkfile(root, "/etc/group", 0o644, GROUPS.encode())
    s2ctest.mkfile(root, "/etc/passwd", 0o644, b"root:x:0:0::/root:/bin/sh\n")
    for link, target in links.items():
        os.makedirs(os.path.join(root, os.path.dirname(link)), exist_ok=True)
        os.makedirs(os.path.join(root, os.path.dirname(link), target), exist_ok=True)
        os.symlink(target, os.path.join(root, link))
    for path in files:
        s2ctest.mkfile(root, path, 0o4755, uid=0, gid=0)
    return root


def test_layouts(ctx):
    """Each layout's files get their rules, found in the layout form where not as written."""
    if not is_root():
        return SKIP     # the files must be owned by root for the rules to decide about them
    for name, (links, files) in LAYOUTS.items():
        root = build(ctx, name, links, files)
        rc, out, err = ctx.run(["audit", "--root", root, "--kernel", "6.1", "--format", "json"])
        ctx.check(f"{name}: audit", rc in (0, 1) and out, f"{rc} {err!r}")
        if not out:
            continue
        doc = json.loads(out)
        found = {f["file"]["path"]: f for f in doc["files"]}
        ctx.check(f"{name}: the walk found the files, not their links",
                  sorted(found) == sorted(files), f"{sorted(found)}")
        for path, rid in files.items():
            f = found.get(path, {})
            got = (f.get("rule") or {}).get("id")
            ctx.check(f"{name}: {path} has its rule", got == rid,
                      f"{got} ({f.get('reason')}; ambiguous {f.get('ambiguous')})")


def test_layout_explained(ctx):
    """explain says how the path matched: as written, in another layout, or but for the
    package directory."""
    if not is_root():
        return SKIP
    helper = "/usr/lib/polkit-1/polkit-agent-helper-1"
    root = build(ctx, "explained", MERGED_SBIN, {"/usr/bin/mount.nfs": None, helper: None})
    rc, out, err = ctx.run(["explain", "--root", root, "--format", "json", "/usr/bin/mount.nfs",
                            helper])
    d = {x["file"]["path"]: x for x in json.loads(out)} if rc in (0, 3) else {}
    how = (d.get("/usr/bin/mount.nfs", {}).get("rule") or {}).get("matched", "")
    ctx.check("explain: in another layout", "in another layout (both are '/usr/bin/mount.nfs'"
              in how, how)
    how = (d.get(helper, {}).get("rule") or {}).get("matched", "")
    ctx.check("explain: as written", how == f"path matches '{helper}'", how)
    rc, out, err = ctx.run(["explain", "--root", root, "/usr/bin/mount.nfs"])
    ctx.check("explain text: in another layout", rc in (0, 3) and b"in another layout" in out,
              out)


def test_lint_layout_overlap(ctx):
    """A local rule for /sbin/mount.nfs overlaps the bundled rule on every layout: refused."""
    db = ctx.tree("overlap-db")
    with open(os.path.join(db, "local.json"), "w") as f:
        json.dump({"schema": 1, "area": "local", "rules": [{
            "id": "local.mount-nfs", "program": "mount.nfs", "verdict": "keep",
            "match": {"paths": ["/usr/bin/mount.nfs"]}, "reason": "a reason for the test",
            "sources": ["man:mount.nfs(8)"]}]}, f)
    rc, out, err = ctx.run(["rules", "lint", s2ctest.SRC + "/db", db])
    ctx.check("lint: overlap across layouts", rc == 1 and b"'/usr/bin/mount.nfs' overlaps "
              b"'/usr/sbin/mount.nfs' of rule 'nfs-utils.mount.nfs'" in err, f"{rc} {err!r}")


TESTS = [test_layouts, test_layout_explained, test_lint_layout_overlap]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
