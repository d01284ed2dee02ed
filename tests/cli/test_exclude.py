#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI tests of what scans leave out: --exclude and the exclude file on image roots
(golden files), and, on a live-like root (a throwaway root entered with chroot in a
private mount namespace, so it is "the running system"), other OS roots, container
storage and overlayfs layers reported instead of walked, and plans that change only
files the package database owns unless --include-unpackaged."""
import json
import os
import shutil
import subprocess
import sys

import s2ctest
from s2ctest import SKIP, is_root, mkfile, normalise_json, fix_dir_times

KERNEL = "6.1.0"

# A reserved port: strong ELF evidence for cap_net_bind_service, so the engine
# decides "migrate" without a rule wherever the file lives.
RESVPORT = ("#include <netinet/in.h>\n"
            "int bindresvport(int, struct sockaddr_in *);\n"
            "int main(void) { return bindresvport(0, 0); }\n")


def resvport(ctx):
    if getattr(ctx, "resvport", None):
        return ctx.resvport
    out = ctx.tree("bin")
    src = os.path.join(out, "resvport.c")
    with open(src, "w") as f:
        f.write(RESVPORT)
    subprocess.run(["cc", "-o", os.path.join(out, "resvport"), src], check=True)
    ctx.resvport = os.path.join(out, "resvport")
    return ctx.resvport


def install(root, rel, src, mode=0o4755):
    dst = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)
    if is_root():
        os.chown(dst, 0, 0)
    os.chmod(dst, mode)
    os.utime(dst, (s2ctest.FIXED_MTIME, s2ctest.FIXED_MTIME))
    return dst


def validate(ctx, name, data, schema):
    s2ctest.validate_json(ctx, name, json.loads(data), schema)


def not_scanned(data):
    return [(e["path"], e["reason"], e["source"]) for e in json.loads(data)["not_scanned"]]


# --- image roots: --exclude and the image's own exclude file -------------------------

# Files of root's, where the tests run as root; the runner's own otherwise.
ROOTS = {"uid": 0, "gid": 0} if is_root() else {}


def tree_image(ctx, name="image"):
    """An image with data directories to exclude and an OS root nested in it."""
    root = ctx.tree(name)
    mkfile(root, "etc/passwd", 0o644, b"root:x:0:0:root:/root:/bin/sh\n", **ROOTS)
    mkfile(root, "etc/group", 0o644, b"root:x:0:\n", **ROOTS)
    for rel in ("usr/bin/su", "srv/data/a/su", "srv/data/b/su", "srv/www/su",
                "opt/app/bin/helper", "var/tmp/bookworm/usr/bin/su"):
        mkfile(root, rel, 0o4755, **ROOTS)
    mkfile(root, "var/tmp/bookworm/etc/os-release", 0o644, b"ID=debian\n", **ROOTS)
    fix_dir_times(root)
    return root


def test_exclude_option(ctx):
    if not is_root():
        return SKIP     # the golden reports show root's files
    root = tree_image(ctx)
    args = ["--root", root, "--exclude", "/srv/data/*", "--exclude", "/opt/app/"]
    rc, out, err = ctx.run(["scan", *args])
    ctx.check("exclude text exit", rc == 0, f"exit {rc}, stderr {err!r}")
    ctx.golden("exclude", "option.txt", out)
    # An image keeps the OS root nested in it: only what is excluded is left out.
    ctx.check("exclude keeps nested root", b"/var/tmp/bookworm/usr/bin/su" in out, out)
    rc, out, err = ctx.run(["scan", "--format", "json", *args])
    ctx.check("exclude json exit", rc == 0, f"exit {rc}, stderr {err!r}")
    validate(ctx, "exclude/option.json", out, "scan.schema.json")
    ctx.golden("exclude", "option.json", normalise_json(out, ctx.tmp))
    ctx.check("exclude json list", not_scanned(out) == [
        ("/opt/app", "excluded", "--exclude /opt/app/"),
        ("/srv/data/a", "excluded", "--exclude /srv/data/*"),
        ("/srv/data/b", "excluded", "--exclude /srv/data/*")], not_scanned(out))
    paths = [f["path"] for f in json.loads(out)["files"]]
    ctx.check("exclude json files", paths == ["/srv/www/su", "/usr/bin/su",
                                              "/var/tmp/bookworm/usr/bin/su"], paths)

    # audit: the same lines in the header, the same list in JSON
    rc, out, err = ctx.run(["audit", "--kernel", KERNEL, *args])
    ctx.check("exclude audit exit", rc == 0, f"exit {rc}, stderr {err!r}")
    head = out.split(b"\n\n")[0]
    ctx.check("exclude audit header", head.endswith(
        b"\nexcluded (not scanned): /opt/app, /srv/data/a, /srv/data/b"), head)
    rc, out, err = ctx.run(["audit", "--kernel", KERNEL, "--format", "json", *args])
    validate(ctx, "exclude audit json", out, "audit.schema.json")
    ctx.check("exclude audit json", len(not_scanned(out)) == 3, not_scanned(out))

    # plan: the list travels with the plan, and plan --check reads it back
    rc, out, err = ctx.run(["plan", "--kernel", KERNEL, *args])
    ctx.check("exclude plan exit", rc == 0, f"exit {rc}, stderr {err!r}")
    validate(ctx, "exclude plan json", out, "plan.schema.json")
    ctx.check("exclude plan json", len(not_scanned(out)) == 3, not_scanned(out))
    ctx.check("exclude plan notice",
              err == b"suid2cap: excluded (not scanned): /opt/app, /srv/data/a, /srv/data/b\n",
              err)
    path = os.path.join(ctx.tmp, "exclude-plan.json")
    with open(path, "wb") as f:
        f.write(out)
    rc, out, err = ctx.run(["plan", "--check", path])
    ctx.check("exclude plan --check", rc == 0, f"exit {rc}, {out!r} {err!r}")

    # --include-unpackaged changes nothing on an image
    rc, a, _ = ctx.run(["plan", "--kernel", KERNEL, "--root", root])
    rc2, b, _ = ctx.run(["plan", "--kernel", KERNEL, "--root", root, "--include-unpackaged"])
    ctx.check("image plan ignores --include-unpackaged", rc == rc2 == 0 and a == b)

    # explain says why it did not look at an excluded path
    rc, out, err = ctx.run(["explain", "--kernel", KERNEL, *args, "/srv/data/a/su"])
    ctx.check("exclude explain", rc == 0 and out == b"" and err ==
              b"suid2cap: '/srv/data/a/su' was not looked at: '/srv/data/a' is excluded "
              b"(--exclude /srv/data/*)\n", f"exit {rc}, {out!r} {err!r}")


def test_exclude_errors(ctx):
    root = tree_image(ctx)
    for case, args in [("relative", ["--exclude", "srv/data"]),
                       ("dotdot", ["--exclude", "/srv/../etc"]),
                       ("bracket", ["--exclude", "/srv/[ab"]),
                       ("include-unpackaged", ["--include-unpackaged"])]:
        rc, out, err = ctx.run(["scan", "--root", root, *args])
        ctx.check(f"exclude error {case} exit", rc == 2 and out == b"", f"exit {rc}")
        ctx.golden("exclude", f"usage-{case}.err", s2ctest.normalise_text(err, ctx.tmp))


def test_exclude_file(ctx):
    root = tree_image(ctx, "image-conf")
    conf = os.path.join(root, "etc/suid2cap/exclude")
    mkfile(root, "etc/suid2cap/exclude", 0o644,
           b"# data that is not this image's\n\n  /srv/data  \n/opt/*\n", **ROOTS)
    rc, out, err = ctx.run(["scan", "--root", root, "--format", "json"])
    ctx.check("exclude file exit", rc == 0, f"exit {rc}, stderr {err!r}")
    listed = [(p, r, s.replace(ctx.tmp, "<tmp>")) for p, r, s in not_scanned(out)]
    ctx.check("exclude file list", listed == [
        ("/opt/app", "excluded", "<tmp>/image-conf/etc/suid2cap/exclude line 4"),
        ("/srv/data", "excluded", "<tmp>/image-conf/etc/suid2cap/exclude line 3")], listed)

    # a malformed line: the file and the line, a non-zero exit, no output
    with open(conf, "ab") as f:
        f.write(b"srv/www\n")
    rc, out, err = ctx.run(["scan", "--root", root])
    ctx.check("exclude file bad line exit", rc == 4 and out == b"", f"exit {rc}, {out!r}")
    ctx.golden("exclude", "file-bad-line.err", s2ctest.normalise_text(err, ctx.tmp))
    rc, out, err = ctx.run(["plan", "--root", root, "--kernel", KERNEL])
    ctx.check("exclude file bad line plan", rc == 4 and out == b"" and
              b"exclude' line 5: not an absolute path" in err, f"exit {rc}, {err!r}")

    # as root, a file others could have written is refused
    if not is_root():
        return
    mkfile(root, "etc/suid2cap/exclude.new", 0o644, b"/srv/data\n", uid=0, gid=0)
    os.replace(conf + ".new", conf)
    os.chmod(conf, 0o664)
    rc, out, err = ctx.run(["scan", "--root", root])
    ctx.check("exclude file writable exit", rc == 5 and out == b"", f"exit {rc}")
    ctx.golden("exclude", "file-writable.err", s2ctest.normalise_text(err, ctx.tmp))
    os.chmod(conf, 0o644)
    os.chown(conf, 4242, 4242)
    rc, out, err = ctx.run(["scan", "--root", root])
    ctx.check("exclude file owner exit", rc == 5 and b"is not owned by root, refusing it" in err,
              f"exit {rc}, {err!r}")
    # unprivileged, the same file is honoured (images unpacked by a user)
    os.chmod(ctx.tmp, 0o755)
    rc, out, err = ctx.run(["scan", "--root", root], prefix=[
        "setpriv", "--reuid=4242", "--regid=4242", "--clear-groups", "--inh-caps=-all"])
    ctx.check("exclude file unprivileged", rc == 0 and b"excluded (not scanned): /srv/data" in out,
              f"exit {rc}, {out!r} {err!r}")


# --- a live-like root -----------------------------------------------------------------

# Runs in a private mount namespace: /usr and the host's merged-/usr links become the
# throwaway root's system, /proc is mounted, an overlayfs is mounted from inside (so
# its options name paths as the root sees them), then suid2cap runs with that root
# as "/".
LIVE_SCRIPT = r'''
set -eu
R=$1; shift
for d in bin sbin lib lib32 lib64; do
	if [ ! -L "/$d" ] && [ -d "/$d" ]; then mount --bind "/$d" "$R/$d"; fi
done
mount --bind /usr "$R/usr"
mount -o remount,bind,ro "$R/usr"
mount -t proc proc "$R/proc"
cd "$R"
exec chroot . /bin/sh -c '
	mount -n -t overlay overlay \
		-o lowerdir=/srv/ovl/lower,upperdir=/srv/ovl/upper,workdir=/srv/ovl/work \
		/srv/ovl/merged
	exec /s2c/bin/suid2cap "$@"' sh "$@"
'''


def live_capable(ctx):
    if not is_root() or not shutil.which("unshare") or not shutil.which("chroot"):
        return False
    if getattr(ctx, "live_ok", None) is None:
        p = subprocess.run(["unshare", "-m", "--propagation", "private", "true"],
                           capture_output=True)
        ctx.live_ok = p.returncode == 0
    return ctx.live_ok


def tree_live(ctx, dpkg=True):
    """A small system: this machine's /usr, a package database of its own, a packaged
    and an unpackaged program, and other systems' files where they usually are."""
    b = resvport(ctx)
    root = ctx.tree("live")
    mkfile(root, "etc/os-release", 0o644, b'ID=debian\nPRETTY_NAME="Fixture Linux"\n', uid=0, gid=0)
    mkfile(root, "etc/passwd", 0o644, b"root:x:0:0:root:/root:/bin/sh\n"
           b"alice:x:1000:1000::/home/alice:/bin/sh\n", uid=0, gid=0)
    mkfile(root, "etc/group", 0o644, b"root:x:0:\n", uid=0, gid=0)
    mkfile(root, "etc/nsswitch.conf", 0o644, b"passwd: files\ngroup: files\n", uid=0, gid=0)
    mkfile(root, "etc/suid2cap/exclude", 0o644,
           b"# this system's software, and the tool under test\n/usr\n/s2c\n/srv/big\n",
           uid=0, gid=0)
    install(root, "opt/pkg/bin/netd", b)                      # packaged: changed
    install(root, "opt/local/bin/netd", b)                    # nobody's: left alone
    install(root, "srv/big/netd", b)                          # excluded
    install(root, "srv/ovl/lower/bin/lowd", b)                # an overlay layer ...
    for d in ("srv/ovl/upper", "srv/ovl/work", "srv/ovl/merged"):
        os.makedirs(os.path.join(root, d))                    # ... seen through merged
    install(root, "var/tmp/bookworm/usr/bin/su", b)           # another OS root
    mkfile(root, "var/tmp/bookworm/etc/os-release", 0o644, b"ID=debian\n", uid=0, gid=0)
    install(root, "var/lib/docker/overlay2/abc/diff/usr/bin/su", b)
    install(root, "home/alice/.local/share/containers/storage/overlay/x/diff/usr/bin/su", b)
    if dpkg:
        mkfile(root, "var/lib/dpkg/info/fixture-netd.list", 0o644,
               b"/.\n/opt\n/opt/pkg\n/opt/pkg/bin\n/opt/pkg/bin/netd\n", uid=0, gid=0)
    # mount points for this machine's /usr and /proc; its merged-/usr links as they are
    for d in ("usr", "proc"):
        os.makedirs(os.path.join(root, d))
    for d in ("bin", "sbin", "lib", "lib32", "lib64"):
        if os.path.islink("/" + d):
            os.symlink(os.readlink("/" + d), os.path.join(root, d))
        elif os.path.isdir("/" + d):
            os.makedirs(os.path.join(root, d))
    # the tool, with its bundled database next to it
    exe = os.path.realpath(ctx.binary)
    install(root, "s2c/bin/suid2cap", exe, 0o755)
    shutil.copytree(os.path.join(os.path.dirname(os.path.dirname(exe)), "share/suid2cap/db"),
                    os.path.join(root, "s2c/share/suid2cap/db"))
    fix_dir_times(root)
    return root


def run_live(ctx, root, args):
    e = {"LC_ALL": "C", "TZ": "UTC", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
         "SOURCE_DATE_EPOCH": str(s2ctest.FIXED_MTIME)}
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", LIVE_SCRIPT,
                        "sh", root, *args], capture_output=True, env=e)
    return p.returncode, p.stdout, p.stderr


OTHER_ROOTS = [
    ("/home/alice/.local/share/containers", "container-storage",
     "rootless containers of user alice"),
    ("/s2c", "excluded", "/etc/suid2cap/exclude line 3"),
    ("/srv/big", "excluded", "/etc/suid2cap/exclude line 4"),
    ("/srv/ovl/lower", "overlay", "overlayfs lowerdir of /srv/ovl/merged"),
    ("/srv/ovl/upper", "overlay", "overlayfs upperdir of /srv/ovl/merged"),
    ("/srv/ovl/work", "overlay", "overlayfs workdir of /srv/ovl/merged"),
    ("/usr", "excluded", "/etc/suid2cap/exclude line 2"),
    ("/var/lib/docker", "container-storage", "container and VM storage"),
    ("/var/tmp/bookworm", "os-root", None),
]


def test_live_scan(ctx):
    if not live_capable(ctx):
        return SKIP
    root = tree_live(ctx)
    rc, out, err = run_live(ctx, root, ["scan"])
    ctx.check("live scan exit", rc == 0, f"exit {rc}, stderr {err!r}")
    ctx.golden("exclude", "live-scan.txt", out)
    rc, out, err = run_live(ctx, root, ["scan", "--format", "json"])
    ctx.check("live scan json exit", rc == 0, f"exit {rc}, stderr {err!r}")
    validate(ctx, "exclude/live-scan.json", out, "scan.schema.json")
    ctx.golden("exclude", "live-scan.json", normalise_json(out, ctx.tmp))
    ctx.check("live scan json list", not_scanned(out) == OTHER_ROOTS, not_scanned(out))

    # --other-roots walks them all: the files of the other systems are found
    rc, out, err = run_live(ctx, root, ["scan", "--other-roots", "--format", "json"])
    paths = [f["path"] for f in json.loads(out)["files"]] if rc == 0 else []
    ctx.check("live --other-roots", rc == 0 and paths == [
        "/home/alice/.local/share/containers/storage/overlay/x/diff/usr/bin/su",
        "/opt/local/bin/netd", "/opt/pkg/bin/netd", "/srv/ovl/lower/bin/lowd",
        "/srv/ovl/merged/bin/lowd", "/var/lib/docker/overlay2/abc/diff/usr/bin/su",
        "/var/tmp/bookworm/usr/bin/su"], f"exit {rc}, {paths}, {err!r}")
    ctx.check("live --other-roots list", [x for x in not_scanned(out) if x[1] != "excluded"] == [],
              not_scanned(out))

    # audit: the same lines in the report header
    rc, out, err = run_live(ctx, root, ["audit", "--kernel", KERNEL])
    # (the bounding set depends on where the tests run: left out, with its wrapped lines)
    head, skip = [], False
    for x in out.split(b"\n\n")[0].split(b"\n")[1:]:
        skip = x.startswith(b"bounding set: ") or (skip and x.startswith(b" "))
        if not skip:
            head.append(x)
    ctx.check("live audit header", rc == 0 and len(head) > 4 and head == [
        b"target: this host " + s2ctest.HOSTNAME.encode() + b", kernel 6.1.0, Fixture Linux",
        b"audited: 2023-11-14T22:13:20Z, suid2cap " + head[1].split(b"suid2cap ")[-1],
        b"package database: dpkg",
        # the running system's: it varies with the machine
        head[3] if head[3].startswith(b"net.ipv4.ping_group_range: ") else b"(no ping line)",
        head[4],
        b"local rules: /etc/suid2cap/rules.d: none",
        # a list too long for the width goes below its lead, wrapped two spaces in
        b"other roots (not scanned; audit them with --root):",
        b"  /home/alice/.local/share/containers (container storage), /srv/ovl/lower "
        b"(overlayfs layer),",
        b"  /srv/ovl/upper (overlayfs layer), /srv/ovl/work (overlayfs layer), "
        b"/var/lib/docker (container",
        b"  storage), /var/tmp/bookworm (OS root)",
        b"excluded (not scanned): /s2c, /srv/big, /usr"], f"exit {rc}, {head}, {err!r}")

    # explain says whose a path inside another root is
    rc, out, err = run_live(ctx, root, ["explain", "--kernel", KERNEL,
                                        "/var/tmp/bookworm/usr/bin/su"])
    ctx.check("live explain", rc == 0 and out == b"" and err ==
              b"suid2cap: '/var/tmp/bookworm/usr/bin/su' was not looked at: '/var/tmp/bookworm' "
              b"is another system's (OS root); explain it with --root or --other-roots\n",
              f"exit {rc}, {out!r}, {err!r}")


def entry(doc, path):
    return next(e for e in doc["entries"] if e["path"] == path)


UNPACKAGED = (b"not owned by any package: on the running system only packaged files are "
              b"changed; use --include-unpackaged").decode()


def test_live_plan(ctx):
    if not live_capable(ctx):
        return SKIP
    root = tree_live(ctx)
    rc, out, err = run_live(ctx, root, ["plan", "--kernel", KERNEL, "-o", "/plan.json"])
    ctx.check("live plan exit", rc == 0 and out == b"", f"exit {rc}, {out!r}, {err!r}")
    ctx.golden("exclude", "live-plan.err", err)
    with open(os.path.join(root, "plan.json"), "rb") as f:
        data = f.read()
    validate(ctx, "live plan json", data, "plan.schema.json")
    doc = json.loads(data)
    ctx.check("live plan live", doc["host"]["live"] is True)
    ctx.check("live plan not_scanned", not_scanned(data) == OTHER_ROOTS, not_scanned(data))
    pkg = entry(doc, "/opt/pkg/bin/netd")
    ctx.check("live plan packaged changes", pkg["action"] == "change" and
              pkg["package"] == "fixture-netd" and pkg["after"]["mode"] == "0755" and
              pkg["after"]["caps"] == "cap_net_bind_service=ep", pkg)
    for path in ("/opt/local/bin/netd", "/srv/ovl/merged/bin/lowd"):
        e = entry(doc, path)
        ctx.check(f"live plan {path} held", e["action"] == "none" and e["verdict"] == "migrate"
                  and e["package"] is None and e["reason"] == UNPACKAGED and
                  e["after"] == {k: v for k, v in e["before"].items() if k != "caps_raw"} and
                  e["risk"] == e["risk_now"], e)
    ctx.check("live plan summary", doc["summary"]["change"] == 1 and
              doc["summary"]["unchanged"] == 2, doc["summary"])
    # what apply would read: the held entries load as "nothing to do"
    rc, out, err = run_live(ctx, root, ["plan", "--check", "/plan.json"])
    ctx.check("live plan --check", rc == 0 and b"3 entries for /: 1 to change" in out,
              f"exit {rc}, {out!r}, {err!r}")

    # --include-unpackaged changes them too
    rc, out, err = run_live(ctx, root, ["plan", "--kernel", KERNEL, "--include-unpackaged"])
    doc = json.loads(out) if rc == 0 else {"entries": []}
    actions = [(e["path"], e["action"]) for e in doc["entries"]]
    ctx.check("live plan --include-unpackaged", rc == 0 and actions == [
        ("/opt/local/bin/netd", "change"), ("/opt/pkg/bin/netd", "change"),
        ("/srv/ovl/merged/bin/lowd", "change")] and b"no package owns" not in err,
        f"exit {rc}, {actions}, {err!r}")

    # migrate shows the same plan; --dry-run stops before anything is touched
    rc, out, err = run_live(ctx, root, ["migrate", "--kernel", KERNEL, "--dry-run"])
    ctx.check("live migrate --dry-run", rc == 0 and out.endswith(
        b"1 change, 2 files left as they are\n") and b"/opt/local/bin/netd" not in out and
        b"2 files no package owns left as they are" in err, f"exit {rc}, {out!r}, {err!r}")


def test_live_no_package_database(ctx):
    if not live_capable(ctx):
        return SKIP
    root = tree_live(ctx, dpkg=False)
    rc, out, err = run_live(ctx, root, ["plan", "--kernel", KERNEL])
    doc = json.loads(out) if rc == 0 else {"entries": []}
    reasons = {e["path"]: (e["action"], e["reason"]) for e in doc["entries"]}
    want = ("none", "not owned by any package (this system has no package database suid2cap "
            "can read; it reads dpkg's): on the running system only packaged files are "
            "changed; use --include-unpackaged")
    ctx.check("live no dpkg", rc == 0 and len(reasons) == 3 and
              all(v == want for v in reasons.values()), f"exit {rc}, {reasons}, {err!r}")


TESTS = [test_exclude_option, test_exclude_errors, test_exclude_file, test_live_scan,
         test_live_plan, test_live_no_package_database]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
