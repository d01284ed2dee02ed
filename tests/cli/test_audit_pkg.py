#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI tests of `suid2cap audit-pkg`: real Debian packages, an rpm built here,
directories and shards, and hostile archives.

The Debian packages are fetched with `apt-get download` into build/test-deps/debs
(once; never installed).  Their expected findings are the modes in their data
archives (read with dpkg-deb, independently of suid2cap) and the privilege their
maintainer scripts add (docs/reference: capfacts §1.2).  The rpm is built with
rpmbuild in a temporary _topdir and _dbpath.  Nothing here needs root.
"""
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import mkarchive as mk
import s2ctest
import test_audit
from s2ctest import SKIP

KERNEL = ["--kernel", "6.1"]
DEBS = ["iputils-ping", "mtr-tiny", "fping", "passwd", "mount", "sudo", "fuse3", "dbus",
        "polkitd", "uidmap", "libgstreamer1.0-0", "libcap2"]
DEBDIR = os.path.join(s2ctest.SRC, "build", "test-deps", "debs")

# What each package's files are once installed on a fresh system: mode, owner,
# group, capabilities where setcap works, and the state where it fails (None:
# the same).  From the data archives and the maintainer scripts of bookworm.
GST = "/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper"
EXPECTED = {
    "iputils-ping": {"/bin/ping": ("0755", "root", "root", "cap_net_raw=ep", "4755 root:root")},
    "mtr-tiny": {"/usr/bin/mtr-packet": ("0755", "root", "root", "cap_net_raw=ep",
                                         "4755 root:root")},
    "fping": {"/usr/bin/fping": ("0755", "root", "root", "cap_net_raw=ep", "4755 root:root")},
    "passwd": {"/usr/bin/chfn": ("4755", "root", "root", None, None),
               "/usr/bin/chsh": ("4755", "root", "root", None, None),
               "/usr/bin/gpasswd": ("4755", "root", "root", None, None),
               "/usr/bin/passwd": ("4755", "root", "root", None, None),
               "/usr/bin/chage": ("2755", "root", "shadow", None, None),
               "/usr/bin/expiry": ("2755", "root", "shadow", None, None)},
    "mount": {"/bin/mount": ("4755", "root", "root", None, None),
              "/bin/umount": ("4755", "root", "root", None, None)},
    "sudo": {"/usr/bin/sudo": ("4755", "root", "root", None, None)},
    "fuse3": {"/bin/fusermount3": ("4755", "root", "root", None, None)},
    "dbus": {"/usr/lib/dbus-1.0/dbus-daemon-launch-helper": ("4754", "root", "messagebus", None,
                                                              None)},
    "polkitd": {"/usr/lib/polkit-1/polkit-agent-helper-1": ("4755", "root", "root", None, None)},
    "uidmap": {"/usr/bin/newuidmap": ("4755", "root", "root", None, None),
               "/usr/bin/newgidmap": ("4755", "root", "root", None, None)},
    "libgstreamer1.0-0": {GST: ("0755", "root", "root", "cap_net_bind_service,cap_net_admin=ep",
                                "4755 root:root")},
    "libcap2": {},
}


def fetch_debs(ctx):
    """The packages, downloaded once into build/test-deps/debs; None when impossible."""
    os.makedirs(DEBDIR, exist_ok=True)
    have = {f.split("_")[0]: f for f in os.listdir(DEBDIR) if f.endswith(".deb")}
    missing = [p for p in DEBS if p not in have]
    if missing:
        p = subprocess.run(["apt-get", "download", "-q", *missing], cwd=DEBDIR,
                           capture_output=True)
        if p.returncode != 0:
            print(f"note: apt-get download failed: {p.stderr.decode(errors='replace')[-300:]}",
                  file=sys.stderr)
            return None
        have = {f.split("_")[0]: f for f in os.listdir(DEBDIR) if f.endswith(".deb")}
    return {p: os.path.join(DEBDIR, have[p]) for p in DEBS}


def audit(ctx, *args, env=None):
    return ctx.run(["audit-pkg", *KERNEL, *args], env=env)


def packed_modes(deb):
    """path -> (mode, owner, group) of regular files, from dpkg-deb -c (not suid2cap)."""
    out = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, check=True).stdout
    modes = {}
    for line in out.decode().splitlines():
        m = re.match(r"(-[-rwxsStT]{9}) (\S+)/(\S+)\s+\d+ \S+ \S+ \.(/\S+)$", line)
        if not m:
            continue
        perm, owner, group, path = m.groups()
        bits = 0
        for i, c in enumerate(perm[1:]):
            if c not in "-ST":
                bits |= 0o400 >> i
        if perm[3] in "sS":
            bits |= 0o4000
        if perm[6] in "sS":
            bits |= 0o2000
        modes[path] = (f"{bits:04o}", owner, group)
    return modes


def validate(ctx, name, out):
    s2ctest.validate_json(ctx, name, json.loads(out), "audit.schema.json")


def test_real_debs(ctx):
    """Eleven real packages plus libcap2: findings match the archives and the scripts."""
    debs = fetch_debs(ctx)
    if not debs:
        return SKIP
    rc, out, err = audit(ctx, "--format", "json", *debs.values())
    ctx.check("exit", rc == 0, f"exit {rc}: {err!r}")
    ctx.check("no stderr", err == b"", repr(err))
    validate(ctx, "real.json", out)
    doc = json.loads(out)
    targets = doc["targets"]
    ctx.check("every package read", len(targets) == len(DEBS) and
              all(t["error"] is None for t in targets), json.dumps(targets)[:500])
    ctx.check("identity", doc["target"]["kind"] == "packages" and
              doc["target"]["time"] == "2023-11-14T22:13:20Z", json.dumps(doc["target"]))
    seen = {}
    for f in doc["files"]:
        o = f["origin"]
        seen.setdefault(o["name"], {})[f["file"]["path"]] = f
    for pkg, files in EXPECTED.items():
        got = seen.get(pkg, {})
        ctx.check(f"{pkg}: the privileged files", set(got) == set(files),
                  f"{sorted(got)} != {sorted(files)}")
        packed = packed_modes(debs[pkg])
        for path, (mode, owner, group, caps, fallback) in files.items():
            f = got.get(path)
            if not f:
                continue
            fa = f["file"]
            state = (fa["mode"], fa["owner"], fa["group"],
                     fa["caps"]["text"] if fa["caps"] else None)
            ctx.check(f"{pkg} {path}: installed state", state == (mode, owner, group, caps),
                      f"{state}")
            ctx.check(f"{pkg} {path}: fallback", f["origin"]["fallback"] == fallback,
                      f"{f['origin']['fallback']}")
            # "packed" is given exactly when the scripts change something, and it is
            # what dpkg-deb lists.
            pm, po, pg = packed[path]
            changed = (pm, po, pg, None) != (mode, owner, group, caps)
            want = f"{pm} {po}:{pg}" if changed else None
            ctx.check(f"{pkg} {path}: packed", f["origin"]["packed"] == want,
                      f"{f['origin']['packed']} != {want}")
            ctx.check(f"{pkg} {path}: version and architecture",
                      f["origin"]["architecture"] == "amd64" and
                      debs[pkg].split("_")[1].replace("%3a", ":") == f["origin"]["version"],
                      json.dumps(f["origin"])[:300])
    ping = seen["iputils-ping"]["/bin/ping"]
    libs = {x["soname"]: x["provider"] for x in ping["origin"]["libraries"]}
    ctx.check("ping's libcap comes from libcap2 in the run", libs.get("libcap.so.2") == "libcap2",
              f"{libs}")
    ctx.check("ping's libcap evidence read from the sibling",
              any(e["what"] == "imports cap_set_flag" for e in ping["evidence"]), "")
    steps = ping["origin"]["installed"]
    ctx.check("ping's postinst actions", any("setcap cap_net_raw+ep $PROGRAM (where setcap works)"
                                             in s for s in steps) and
              any("chmod u+s $PROGRAM (where setcap fails)" in s for s in steps), f"{steps}")
    dbus = seen["dbus"]["/usr/lib/dbus-1.0/dbus-daemon-launch-helper"]
    ctx.check("dbus statoverride named", any("dpkg-statoverride --update --add root "
                                             "\"$MESSAGEUSER\" 4754" in s
                                             for s in dbus["origin"]["installed"]), "")
    # Every format renders the same run.
    for fmt in ("text", "markdown", "html", "sarif"):
        rc, o, e = audit(ctx, "--format", fmt, *debs.values())
        ctx.check(f"format {fmt}", rc == 0 and e == b"" and b"iputils-ping" in o, f"exit {rc}")
        if fmt == "sarif":
            sarif = json.loads(o)
            res = sarif["runs"][0]["results"]
            fps = [r["partialFingerprints"] for r in res]
            ctx.check("sarif fingerprints unique", len({json.dumps(x) for x in fps}) == len(fps), "")
            ctx.check("sarif names the package", all(r["properties"]["origin"]["name"] for r in res),
                      "")
        if fmt == "text":
            ctx.check("text: fallback line", b"fallback: 4755 root:root where setcap fails" in o, "")


def test_plans(ctx):
    """A package that ships ping setuid root (as iputils-ping did before it used setcap)
    gets a postinst that migrates it; for Podman's bounding set it is review instead."""
    root = ctx.tree("plans")
    ping = open("/usr/bin/ping", "rb").read() if os.path.exists("/usr/bin/ping") else None
    if ping is None:
        return SKIP
    deb = mk.write(os.path.join(root, "iputils-ping_1.0_amd64.deb"), mk.deb_bytes(
        "iputils-ping", data=[mk.entry("./bin/", "dir", 0o755),
                         mk.entry("./bin/ping", mode=0o4755, data=ping)]))
    rc, out, err = audit(ctx, "--format", "json", deb)
    doc = json.loads(out)
    validate(ctx, "plans.json", out)
    t = doc["targets"][0]
    ctx.check("plan exit", rc == 0, f"{rc} {err!r}")
    ctx.check("plan is a postinst", t["plan"] and t["plan"]["format"] == "deb" and
              "f=$(dpkg-divert --truename '/bin/ping')" in t["plan"]["text"] and
              "setcap 'cap_net_raw=p' \"$f\"" in t["plan"]["text"], json.dumps(t)[:800])
    post = os.path.join(root, "postinst")
    mk.write(post, t["plan"]["text"].encode())
    ctx.check("postinst parses", subprocess.run(["sh", "-n", post]).returncode == 0, "")

    # for packages meant for Podman containers: cap_net_raw cannot work there, no plan
    rc, out, err = audit(ctx, "--format", "json", "--bounding-set", "podman", deb)
    doc = json.loads(out)
    f = doc["files"][0] if doc["files"] else None
    ctx.check("--bounding-set podman: review, no plan", rc == 0 and f and
              f["verdict"] == "review" and "lacks cap_net_raw" in f["reason"] and
              not doc["targets"][0]["plan"] and
              "--bounding-set podman" in doc["host"]["bounding_set"]["source"],
              f"{rc} {err!r} {json.dumps(f)[:600]}")


SPEC = """Name: s2c-rpmtest
Version: 1.2
Release: 3
Epoch: 1
Summary: suid2cap test package
License: GPL-2.0-or-later
BuildArch: x86_64
%description
Files with every kind of privilege rpm can carry.
%install
mkdir -p %{buildroot}/usr/bin %{buildroot}/usr/sbin
cp PROGRAM %{buildroot}/usr/bin/suidprog
cp PROGRAM %{buildroot}/usr/bin/capprog
cp PROGRAM %{buildroot}/usr/sbin/postprog
cp PROGRAM %{buildroot}/usr/bin/plain
%files
%attr(4755,root,root) /usr/bin/suidprog
%attr(0750,root,daemon) %caps(cap_net_raw=ep) /usr/bin/capprog
%attr(0755,daemon,bin) /usr/sbin/postprog
%attr(0755,root,root) /usr/bin/plain
%ghost %attr(4755,root,root) /usr/bin/ghost
%post
if [ "$1" = 1 ]; then
    chmod u+s /usr/sbin/postprog || :
fi
"""


def test_rpm(ctx):
    """An rpm built here: setuid, %caps with owner names, and a %post chmod."""
    if not shutil.which("rpmbuild"):
        print("note: rpmbuild missing (Debian package rpm)", file=sys.stderr)
        return SKIP
    top = ctx.tree("rpm")
    spec = os.path.join(top, "t.spec")
    mk.write(spec, SPEC.replace("PROGRAM", "/usr/bin/true").encode())
    p = subprocess.run(["rpmbuild", "--define", f"_topdir {top}/top", "--define",
                        f"_dbpath {top}/db", "--define", "_build_id_links none", "-bb", spec],
                       capture_output=True)
    if p.returncode != 0:
        ctx.check("rpmbuild", False, p.stderr.decode(errors="replace")[-800:])
        return
    rpm = os.path.join(top, "top", "RPMS", "x86_64", "s2c-rpmtest-1.2-3.x86_64.rpm")
    rc, out, err = audit(ctx, "--format", "json", rpm)
    if b"built without librpm" in err:
        # S2C_RPMDB=OFF or no librpm: the package is a failed target that says why.
        ctx.check("rpm without librpm", rc == 3, f"{rc} {err!r}")
        print("note: built without librpm, the rpm checks are skipped", file=sys.stderr)
        return
    ctx.check("rpm exit", rc == 0 and err == b"", f"{rc} {err!r}")
    validate(ctx, "rpm.json", out)
    doc = json.loads(out)
    t = doc["targets"][0]
    ctx.check("rpm identity", (t["kind"], t["name"], t["version"], t["architecture"]) ==
              ("rpm", "s2c-rpmtest", "1:1.2-3", "x86_64"), json.dumps(t)[:400])
    files = {f["file"]["path"]: f for f in doc["files"]}
    ctx.check("rpm files", sorted(files) == ["/usr/bin/capprog", "/usr/bin/suidprog",
                                             "/usr/sbin/postprog"], f"{sorted(files)}")
    want = {"/usr/bin/suidprog": ("4755", "root", "root", None),
            "/usr/bin/capprog": ("0750", "root", "daemon", "cap_net_raw=ep"),
            "/usr/sbin/postprog": ("4755", "daemon", "bin", None)}
    for path, w in want.items():
        fa = files.get(path, {}).get("file")
        if fa:
            got = (fa["mode"], fa["owner"], fa["group"], fa["caps"]["text"] if fa["caps"] else None)
            ctx.check(f"rpm {path}", got == w, f"{got} != {w}")
    post = files.get("/usr/sbin/postprog")
    ctx.check("rpm %post named", post and any(s.startswith("%post line 2: chmod u+s")
                                             for s in post["origin"]["installed"]),
              json.dumps(post["origin"] if post else None))
    if t["plan"]:
        ctx.check("rpm plan format", t["plan"]["format"] == "rpm" and
                  "%attr(" in t["plan"]["text"], t["plan"]["text"][:300])


def test_from_dir_and_shards(ctx):
    """--from-dir finds every package; --shard K/N splits them stably by file name."""
    debs = fetch_debs(ctx)
    if not debs:
        return SKIP
    pool = ctx.tree("pool")
    flat = ctx.tree("flat")
    for i, (pkg, path) in enumerate(sorted(debs.items())):
        sub = os.path.join(pool, "main", pkg[0], pkg)
        os.makedirs(sub)
        shutil.copy(path, sub)
        shutil.copy(path, flat)
    os.symlink(debs["sudo"], os.path.join(pool, "link.deb"))
    mk.write(os.path.join(pool, "README"), b"not a package")
    rc, out, err = audit(ctx, "--format", "json", "--from-dir", pool)
    names = sorted(t["name"] for t in json.loads(out)["targets"])
    ctx.check("from-dir: every package once", rc == 0 and names == sorted(DEBS), f"{rc} {names}")
    ctx.check("from-dir: the symlink is not followed", b"1 symbolic link" in err, repr(err))
    shards = []
    for tree in (pool, flat):
        got = []
        for k in (1, 2, 3):
            rc, out, err = audit(ctx, "--format", "json", "--from-dir", tree, "--shard", f"{k}/3")
            doc = json.loads(out)
            got.append(sorted(t["name"] for t in doc["targets"]))
            ctx.check(f"shard {k}/3 identity", doc["target"]["shard"] == f"{k}/3", "")
        shards.append(got)
    ctx.check("shards: disjoint and complete", sorted(sum(shards[0], [])) == sorted(DEBS),
              f"{shards[0]}")
    ctx.check("shards: stable whatever the layout", shards[0] == shards[1],
              f"{shards[0]} != {shards[1]}")


def test_relative_paths(ctx):
    """Packages and --from-dir given by relative names are named in messages with the
    directory they are relative to, as typed; the report keeps the names as given."""
    d = ctx.tree("relative")
    elf = b"\x7fELF" + b"\0" * 60
    mk.write(os.path.join(d, "good.deb"),
             mk.deb_bytes(data=[mk.entry("./usr/bin/prog", mode=0o4755, data=elf)]))
    mk.write(os.path.join(d, "bad.deb"), b"not a package")
    rc, out, err = ctx.run(["audit-pkg", *KERNEL, "--format", "json", "good.deb", "bad.deb",
                            "missing.deb"], cwd=d)
    ctx.check("files: exit 3", rc == 3, f"{rc} {err!r}")
    for name in ("bad.deb", "missing.deb"):
        ctx.check(f"files: {name} named in full",
                  f"cannot read '{os.path.join(d, name)}': ".encode() in err, repr(err))
    ctx.check("files: the report names them as given",
              sorted(t["source"] for t in json.loads(out)["targets"]) ==
              ["bad.deb", "good.deb", "missing.deb"], out[:300])
    os.makedirs(os.path.join(d, "pool", "sub"))
    shutil.copy(os.path.join(d, "bad.deb"), os.path.join(d, "pool", "sub"))
    os.symlink(os.path.join(d, "good.deb"), os.path.join(d, "pool", "link.deb"))
    rc, out, err = ctx.run(["audit-pkg", *KERNEL, "--from-dir", "./pool/"], cwd=d)
    ctx.check("from-dir: exit 3", rc == 3, f"{rc} {err!r}")
    ctx.check("from-dir: the package named in full",
              f"cannot read '{d}/pool/sub/bad.deb': ".encode() in err, repr(err))
    ctx.check("from-dir: the directory named in full",
              f"1 symbolic link below '{d}/pool/' not followed".encode() in err, repr(err))
    rc, out, err = ctx.run(["audit-pkg", *KERNEL, "--from-dir", "nopool"], cwd=d)
    ctx.check("from-dir missing: exit 2, named in full", rc == 2 and
              f"cannot open '{d}/nopool': No such file".encode() in err, f"{rc} {err!r}")


def test_nothing_found(ctx):
    """--from-dir below which there is no package (or a shard that gets none): a report of
    no packages in every format, exit 0, that report merge takes like any other."""
    empty = ctx.tree("nopackages")
    mk.write(os.path.join(empty, "README"), b"not a package")
    for fmt in ("text", "json", "markdown", "html", "sarif"):
        rc, out, err = audit(ctx, "--format", fmt, "--from-dir", empty)
        ctx.check(f"{fmt}: exit 0", rc == 0 and out, f"{rc} {err!r}")
        if fmt == "json":
            validate(ctx, "json: valid", out)
            doc = json.loads(out)
            ctx.check("json: no packages", doc["targets"] == [] and doc["files"] == [],
                      out[:300])
            report = mk.write(os.path.join(empty, "shard.json"), out)
        elif fmt == "sarif":
            test_audit.validate_sarif(ctx, "sarif: valid", out)
        elif fmt == "text":
            ctx.check("text: says so", b"PACKAGES: 0, 0 with privileged files" in out, out)
    rc, out, err = ctx.run(["report", "merge", "--format", "json", report])
    ctx.check("merge: taken", rc == 0 and json.loads(out)["summary"]["reports"] == 1,
              f"{rc} {err!r}")


def hostile_debs(root, outside):
    """Packages that try to escape, lie or explode; each must be refused on its own."""
    elf = b"\x7fELF" + b"\0" * 60
    big = lzma.compress(b"\0" * (300 << 20), format=lzma.FORMAT_XZ, preset=1)
    bomb_tar = mk.tar_bytes([mk.entry("./usr/bin/bomb", mode=0o4755, data=b"\0" * (300 << 20))])
    cases = {
        "absolute": mk.deb_bytes(data=[mk.entry("/etc/evil", mode=0o4755, data=elf)]),
        "dotdot": mk.deb_bytes(data=[mk.entry("./usr/../../evil", mode=0o4755, data=elf)]),
        "symlinked": mk.deb_bytes(data=[
            mk.entry("./usr/lib/libcap.so.1", "symlink", 0o777, link=outside),
            mk.entry("./usr/lib/libcap.so.1/evil", mode=0o4755, data=elf)]),
        "hardlink-to-nothing": mk.deb_bytes(data=[
            mk.entry("./usr/bin/x", "hardlink", 0o4755, link="./usr/bin/nothing")]),
        "huge-size": mk.deb_bytes(data=[
            mk.entry("./usr/bin/huge", mode=0o4755, data=b"x" * 512, size=(8 << 30) - 1)],
            compress=None),
        "lying-size": mk.deb_bytes(data=[
            mk.entry("./usr/bin/liar", mode=0o4755, data=b"x" * 512, size=50 << 20)],
            compress=None),
        "bomb": mk.ar_bytes([("debian-binary", b"2.0\n"),
                             ("control.tar.xz", mk.tar_bytes([mk.entry("./control", data=(
                                 b"Package: bomb\nVersion: 1\nArchitecture: amd64\n"))], "xz")),
                             ("data.tar.xz", lzma.compress(bomb_tar, format=lzma.FORMAT_XZ,
                                                           preset=1))]),
        "data-first": mk.deb_bytes(order=["debian-binary", "data.tar.xz", "control.tar.xz"]),
        "no-data": mk.ar_bytes([("debian-binary", b"2.0\n")]),
        "not-an-archive": b"garbage\n" * 10,
        "xz-garbage": mk.ar_bytes([("debian-binary", b"2.0\n"), ("control.tar.xz", big[:4096])]),
    }
    return {name: mk.write(os.path.join(root, f"{name}_1_amd64.deb"), data)
            for name, data in cases.items()}


def test_hostile(ctx):
    """Every hostile package is named with its reason, the others are audited, nothing is
    written outside the private directory, and that directory is gone afterwards."""
    root = ctx.tree("hostile")
    outside = ctx.tree("outside")
    tmpdir = ctx.tree("private")
    files = hostile_debs(root, outside)
    good = mk.write(os.path.join(root, "good_1_amd64.deb"), mk.deb_bytes(
        "good", data=[mk.entry("./usr/bin/", "dir", 0o755),
                      mk.entry("./usr/bin/good", mode=0o4755, data=b"\x7fELF")]))
    # A real package cut short and one with a corrupted data archive.
    real = open(good, "rb").read()
    files["truncated"] = mk.write(os.path.join(root, "truncated_1_amd64.deb"),
                                  real[:len(real) // 2])
    corrupt = bytearray(real)
    for i in range(len(corrupt) - 200, len(corrupt) - 100):
        corrupt[i] ^= 0x5a
    files["corrupt"] = mk.write(os.path.join(root, "corrupt_1_amd64.deb"), bytes(corrupt))
    before = sorted(os.listdir(outside))
    rc, out, err = audit(ctx, "--format", "json", "--tmpdir", tmpdir, "--max-unpacked", "100M",
                         good, *files.values())
    doc = json.loads(out)
    validate(ctx, "hostile.json", out)
    ctx.check("hostile: exit 3", rc == 3, f"exit {rc}")
    errors = {os.path.basename(t["source"]).split("_")[0]: t["error"] for t in doc["targets"]}
    for name in files:
        ctx.check(f"hostile {name}: refused", errors.get(name), f"{errors.get(name)!r}")
        ctx.check(f"hostile {name}: named on stderr", f"{name}_1_amd64.deb".encode() in err,
                  err.decode(errors="replace"))
    ctx.check("hostile: the good package audited", errors.get("good") is None and
              [f["file"]["path"] for f in doc["files"]] == ["/usr/bin/good"],
              json.dumps(doc["files"])[:300])
    want = {"absolute": "absolute name", "dotdot": "'..' component", "bomb": "bytes to unpack",
            "huge-size": "bytes to unpack", "data-first": "unexpected member",
            "no-data": "control.tar is missing", "symlinked": "libcap.so.1/evil",
            "lying-size": "truncated", "not-an-archive": "unrecognized archive format",
            "hardlink-to-nothing": "hard link to nothing"}
    for name, text in want.items():
        ctx.check(f"hostile {name}: reason", text in (errors.get(name) or ""),
                  f"{errors.get(name)!r}")
    ctx.check("hostile: nothing written outside", sorted(os.listdir(outside)) == before,
              f"{os.listdir(outside)}")
    ctx.check("hostile: private directory removed", os.listdir(tmpdir) == [],
              f"{os.listdir(tmpdir)}")
    for p in ("/etc/evil", "/evil", os.path.join(ctx.tmp, "evil")):
        ctx.check(f"hostile: no {p}", not os.path.lexists(p), "")


def unknown_deb(root):
    """A package whose postinst makes a file set-user-ID that the evaluator cannot name (it
    reads the name from the system): its audit is incomplete, at postinst line 4."""
    return mk.write(os.path.join(root, "unknown_1_amd64.deb"), mk.deb_bytes(
        "unknown", scripts={"postinst": '#!/bin/sh\nset -e\nf=$(cat /etc/which)\n'
                                         'chmod 4755 "$f"\n'},
        data=[mk.entry("./usr/bin/", "dir", 0o755),
              mk.entry("./usr/bin/plain", mode=0o755, data=b"\x7fELF")]))


def test_incomplete(ctx):
    """A script the evaluator cannot work out makes its package incomplete in every format:
    named with the script and line, on standard error too, and the run exits 3 whatever
    --fail-on says; a complete package in the same run stays complete."""
    root = ctx.tree("incomplete")
    unknown = unknown_deb(root)
    plain = mk.write(os.path.join(root, "plain_1_amd64.deb"), mk.deb_bytes(
        "plain", data=[mk.entry("./usr/bin/", "dir", 0o755),
                       mk.entry("./usr/bin/other", mode=0o755, data=b"\x7fELF")]))
    rc, out, err = audit(ctx, "--format", "json", unknown, plain)
    validate(ctx, "incomplete.json", out)
    doc = json.loads(out)
    by = {t["name"]: t for t in doc["targets"]}
    ctx.check("json: exit 3", rc == 3, f"exit {rc} {err!r}")
    ctx.check("json: run incomplete", doc["complete"] is False, "")
    ctx.check("json: target incomplete with script and line",
              by["unknown"]["complete"] is False and
              any(r.startswith("postinst:4:") for r in by["unknown"]["incomplete"]),
              json.dumps(by["unknown"]))
    ctx.check("json: the other complete", by["plain"]["complete"] is True and
              by["plain"]["incomplete"] == [], json.dumps(by["plain"]))
    ctx.check("stderr names it", b"unknown_1_amd64.deb" in err and b"incomplete" in err,
              repr(err))
    for gate in ("review", "risk", "migrate"):
        rc, out, err = audit(ctx, "--fail-on", gate, unknown)
        ctx.check(f"--fail-on {gate}: fails closed", rc == 3, f"exit {rc}")
    rc, out, err = audit(ctx, unknown)
    ctx.check("text: says so", b"INCOMPLETE: the audit of 1 package is incomplete" in out and
              b"incomplete: postinst:4:" in out and b"1 incomplete" in out, out.decode())
    rc, out, err = audit(ctx, "--format", "markdown", unknown)
    ctx.check("markdown: says so", b"**incomplete**: postinst:4:" in out, out.decode()[-600:])
    rc, out, err = audit(ctx, "--format", "html", unknown)
    ctx.check("html: says so", b'class="incomplete">incomplete: postinst:4:' in out, "")
    rc, out, err = audit(ctx, "--format", "sarif", unknown)
    test_audit.validate_sarif(ctx, "sarif: valid", out)
    inv = json.loads(out)["runs"][0]["invocations"][0]
    ctx.check("sarif: a notification", inv["executionSuccessful"] is False and
              "incomplete" in json.dumps(inv["toolExecutionNotifications"]), json.dumps(inv))
    ctx.check("json: the run's reasons", doc["incomplete_allowed"] is False and
              [(x["source"], x["name"]) for x in doc["incomplete"]] == [(unknown, "unknown")] and
              any(r.startswith("postinst:4:") for r in doc["incomplete"][0]["reasons"]),
              json.dumps(doc["incomplete"]))
    rc, out, err = audit(ctx, "--fail-on", "incomplete", unknown)
    ctx.check("--fail-on incomplete without --allow-incomplete: exit 3, named",
              rc == 3 and b"--fail-on incomplete: package 'unknown': postinst:4:" in err,
              f"exit {rc} {err!r}")
    allowed_incomplete(ctx, unknown, plain)


def allowed_incomplete(ctx, unknown, plain):
    """--allow-incomplete: the user's choice is said in every format, the report stays
    incomplete, and the exit status follows --fail-on and the findings only."""
    rc, out, err = audit(ctx, "--allow-incomplete", "--format", "json", unknown, plain)
    validate(ctx, "incomplete-allowed.json", out)
    doc = json.loads(out)
    ctx.check("allowed: exit 0", rc == 0, f"exit {rc} {err!r}")
    ctx.check("allowed: json says so, still incomplete", doc["complete"] is False and
              doc["incomplete_allowed"] is True and len(doc["incomplete"]) == 1 and
              doc["incomplete"][0]["target"] == [t["name"] for t in
                                                  doc["targets"]].index("unknown"),
              json.dumps({k: doc[k] for k in ("complete", "incomplete", "incomplete_allowed")}))
    ctx.check("allowed: still warned", b"unknown_1_amd64.deb" in err and b"incomplete" in err,
              repr(err))
    rc, out, err = audit(ctx, "--allow-incomplete", "--fail-on", "incomplete", unknown, plain)
    ctx.check("allowed, --fail-on incomplete: exit 1 naming the package", rc == 1 and
              b"--fail-on incomplete: package 'unknown': postinst:4:" in err,
              f"exit {rc} {err!r}")
    rc, out, err = audit(ctx, "--allow-incomplete", "--fail-on", "review", plain)
    ctx.check("allowed, complete run, no match: exit 0", rc == 0, f"exit {rc} {err!r}")
    said = b"allowed by the user with --allow-incomplete"
    for fmt in ("text", "markdown", "html", "sarif"):
        rc, out, err = audit(ctx, "--allow-incomplete", "--format", fmt, unknown)
        ctx.check(f"allowed: {fmt} says so", rc == 0 and said in out, f"exit {rc}")
    rc, out, err = audit(ctx, "--allow-incomplete", "--quiet", unknown)
    ctx.check("allowed: --quiet says so", rc == 0 and b"INCOMPLETE: " in out and said in out,
              out.decode())
    rc, out, err = audit(ctx, "--allow-incomplete", "--format", "sarif", unknown)
    run = json.loads(out)["runs"][0]
    ctx.check("allowed: sarif property", run["properties"]["incomplete_allowed"] is True and
              run["invocations"][0]["executionSuccessful"] is False, json.dumps(run["properties"]))


TEMPLATES = """Template: s2c-dc/install-setuid
Type: boolean
Default: DEFAULT
Description: install the helper set-ID?
 Long text.
"""

DC_POSTINST = """#!/bin/sh
set -e
. /usr/share/debconf/confmodule
db_get s2c-dc/install-setuid
if [ "$RET" = true ]; then
    addgroup --quiet --system s2cgrp
    dpkg-statoverride --update --add root s2cgrp 4754 /usr/bin/helper
fi
"""


def test_loaded_at_install(ctx):
    """A module where another package's trigger loads every package's modules as root
    during the installation (a gdk-pixbuf loader, a GIO module) runs the package's code:
    the package is incomplete, even without a maintainer script; the same library
    elsewhere is not loaded by anyone at installation."""
    root = ctx.tree("loaded")
    elf = open("/usr/bin/true", "rb").read()
    debs = {}
    for name, path in (("loader", "./usr/lib/x86_64-linux-gnu/gdk-pixbuf-2.0/2.10.0/loaders/"
                                  "libpixbufloader-s2c.so"),
                       ("giomod", "./usr/lib/x86_64-linux-gnu/gio/modules/libs2c.so"),
                       ("plainlib", "./usr/lib/x86_64-linux-gnu/s2c/libs2c.so")):
        debs[name] = mk.write(os.path.join(root, f"{name}_1_amd64.deb"), mk.deb_bytes(
            name, data=[mk.entry(path, mode=0o644, data=elf)]))
    rc, out, err = audit(ctx, "--format", "json", *debs.values())
    by = {t["name"]: t for t in json.loads(out)["targets"]}
    ctx.check("exit 3", rc == 3, f"exit {rc} {err!r}")
    for name in ("loader", "giomod"):
        ctx.check(f"{name}: incomplete, named", by[name]["complete"] is False and any(
            "loaded as root during the installation" in r for r in by[name]["incomplete"]),
            json.dumps(by[name]))
    ctx.check("plainlib: complete", by["plainlib"]["complete"] is True, json.dumps(by["plainlib"]))


def test_debconf(ctx):
    """A question the postinst reads with db_get is answered with its template's default:
    the other answer is a note, never the installed state or the plan; a group only the
    script creates is named in every format, never numbered."""
    root = ctx.tree("debconf")
    elf = open("/usr/bin/true", "rb").read()
    debs = {}
    for default in ("false", "true"):
        debs[default] = mk.write(os.path.join(root, f"s2c-dc-{default}_1_amd64.deb"), mk.deb_bytes(
            f"s2c-dc-{default}", scripts={"postinst": DC_POSTINST,
                                          "templates": TEMPLATES.replace("DEFAULT", default)},
            data=[mk.entry("./usr/bin/", "dir", 0o755),
                  mk.entry("./usr/bin/helper", mode=0o755, data=elf)]))
    rc, out, err = audit(ctx, "--format", "json", debs["false"])
    doc = json.loads(out)
    t = doc["targets"][0]
    ctx.check("default false: complete, nothing privileged, no plan", rc == 0 and t["complete"] and
              doc["files"] == [] and not t["plan"], f"{rc} {err!r} {json.dumps(t)[:600]}")
    ctx.check("default false: the other answer is a note", any(
        "/usr/bin/helper: where debconf s2c-dc/install-setuid is true: 4754 root:s2cgrp" in n
        for n in t["notes"]), f"{t['notes']}")
    rc, out, err = audit(ctx, "--format", "json", debs["true"])
    validate(ctx, "debconf.json", out)
    doc = json.loads(out)
    f = doc["files"][0]["file"] if doc["files"] else {}
    ctx.check("default true: installed as the script makes it", rc == 0 and
              (f.get("mode"), f.get("owner"), f.get("group")) == ("4754", "root", "s2cgrp"),
              f"{rc} {err!r} {json.dumps(f)[:400]}")
    ctx.check("default true: the new group has no number", f.get("gid") is None and
              doc["files"][0]["gid_after"] is None, json.dumps(doc["files"][0])[:600])
    ctx.check("default true: the other answer is a note",
              any("where debconf s2c-dc/install-setuid is false: 0755 root:root" in n
                  for n in doc["targets"][0]["notes"]), f"{doc['targets'][0]['notes']}")
    for fmt in ("json", "text", "markdown", "html", "sarif"):
        rc, out, err = audit(ctx, "--format", fmt, debs["true"])
        ctx.check(f"{fmt}: no stand-in id", b"2147483648" not in out + err and b"s2cgrp" in out,
                  f"{rc}")


HOSTILE_CONSTRUCTS = {
    # construct: (postinst body, complete) — complete ones must predict 4755 exactly
    "command": ("command chmod 4755 /usr/bin/prog", True),
    "eval": ("eval chmod u+s /usr/bin/prog", True),
    "zeros": ("chmod 0004755 /usr/bin/prog", True),
    "symlink member": ("chmod u+s /usr/bin/link", True),
    "symlinked directory": ("chmod u+s /usr/lib/bindir/prog", True),
    "sourced member": (". /usr/share/s2c/helper.sh", True),
    "run member": ("/usr/share/s2c/helper.sh", True),
    "unset -f": ("chmod(){ :; }; unset -f chmod; chmod 4755 /usr/bin/prog", True),
    "function in a branch": ("if [ -e /etc/x ]; then chmod(){ :; }; fi\nchmod 4755 /usr/bin/prog",
                             False),
    "alias": ("alias ch=chmod\nch 4755 /usr/bin/prog", True),
    "env": ("env chmod 4755 /usr/bin/prog", True),
    "nice": ("nice -n 5 chmod 4755 /usr/bin/prog", True),
    "timeout": ("timeout 10 chmod 4755 /usr/bin/prog", True),
    "stdbuf": ("stdbuf -o0 chmod 4755 /usr/bin/prog", True),
    "busybox": ("busybox chmod 4755 /usr/bin/prog", False),
    "exec": ("exec chmod 4755 /usr/bin/prog", True),
    "find -exec": ("find /usr/bin -exec chmod 4755 {} \\;", False),
    "xargs": ("echo /usr/bin/prog | xargs chmod 4755", False),
    "sh -c": ("sh -c 'chmod 4755 /usr/bin/prog'", True),
    "trap": ("trap 'chmod 4755 /usr/bin/prog' EXIT", True),
    "command substitution": ("x=$(chmod 4755 /usr/bin/prog)", True),
    "mode from echo": ("m=$(echo 4755); chmod $m /usr/bin/prog", True),
    "mode from a file": ("m=$(cat /etc/mode); chmod $m /usr/bin/prog", False),
    "read": ("read m < /etc/mode; chmod $m /usr/bin/prog", False),
    "IFS": ("IFS=:; x=4755:/usr/bin/prog; chmod $x", True),
    "here-document": ("cat <<EOF\n$(chmod 4755 /usr/bin/prog)\nEOF", True),
    "another file": ("chmod 4755 /bin/ping", False),
    "the package's own chmod": ("chmod 4755 /usr/bin/prog", False),
    "unknown command": ("s2c-frobnicate /usr/bin/prog", False),
    "su -c": ("su -c 'chmod 4755 /usr/bin/prog'", False),
}


def test_hostile_constructs(ctx):
    """Every construct that can hide a chmod: followed to the exact state, or incomplete
    with the script and line (tests/cli/test_pkg_dpkg.py installs them with real dpkg)."""
    root = ctx.tree("constructs")
    elf = open("/usr/bin/true", "rb").read()
    for name, (body, complete) in HOSTILE_CONSTRUCTS.items():
        data = [mk.entry("./usr/bin/", "dir", 0o755), mk.entry("./usr/bin/prog", mode=0o755, data=elf),
                mk.entry("./usr/bin/link", "symlink", 0o777, link="prog"),
                mk.entry("./usr/lib/", "dir", 0o755),
                mk.entry("./usr/lib/bindir", "symlink", 0o777, link="../bin"),
                mk.entry("./usr/share/s2c/helper.sh", mode=0o755,
                         data=b"#!/bin/sh\nchmod 4755 /usr/bin/prog\n")]
        if name == "the package's own chmod":
            data.append(mk.entry("./usr/sbin/chmod", mode=0o755, data=b"#!/usr/bin/perl\n"))
        deb = mk.write(os.path.join(root, "c.deb"), mk.deb_bytes(
            "s2c-construct", scripts={"postinst": "#!/bin/sh\nset -e\n" + body + "\n"}, data=data))
        rc, out, err = audit(ctx, "--format", "json", deb)
        t = json.loads(out)["targets"][0]
        files = {f["file"]["path"]: f["file"]["mode"] for f in json.loads(out)["files"]}
        if complete:
            ctx.check(f"{name}: followed", rc == 0 and t["complete"] and
                      files == {"/usr/bin/prog": "4755"}, f"{rc} {t['incomplete']} {files}")
        else:
            ctx.check(f"{name}: incomplete with the line", rc == 3 and not t["complete"] and
                      any(r.startswith("postinst:") for r in t["incomplete"]),
                      f"{rc} {t['incomplete']} {files}")
    deb = mk.write(os.path.join(root, "perl.deb"), mk.deb_bytes(
        "s2c-perl", scripts={"postinst": "#!/usr/bin/perl\nchmod 04755, '/usr/bin/prog';\n"},
        data=[mk.entry("./usr/bin/prog", mode=0o755, data=elf)]))
    rc, out, err = audit(ctx, "--format", "json", deb)
    t = json.loads(out)["targets"][0]
    ctx.check("perl postinst: incomplete", rc == 3 and
              t["incomplete"] == ["postinst:1: run by '/usr/bin/perl', which is not analysed"],
              f"{t['incomplete']}")


def test_maintscripts_doc(ctx):
    """docs/MAINTSCRIPTS.md lists every command of the table, and nothing else."""
    table = open(os.path.join(s2ctest.SRC, "pkg", "mstable.c")).read()
    names = set(re.findall(r'^\t\{ "([^"]+)", ', table, re.M))
    doc = open(os.path.join(s2ctest.SRC, "docs", "MAINTSCRIPTS.md")).read()
    part = doc[doc.index("## The table"):doc.index("## How it is checked")]
    listed = set()
    for line in part.splitlines():
        if line.startswith("| `"):
            listed |= {n.replace("\\|", "|") for n in re.findall(r"`([^`]+)`", line.split(" | ")[0])}
    ctx.check("every row documented", names == listed,
              f"missing {sorted(names - listed)}, extra {sorted(listed - names)}")
    ctx.check("the table is long", len(names) > 200, f"{len(names)}")


def test_usage(ctx):
    rc, out, err = ctx.run(["audit-pkg", "--help"])
    ctx.check("help", rc == 0 and b"--from-dir" in out and b"--shard" in out and
              b"--max-unpacked" in out, f"{rc}")
    for args, text in ((["audit-pkg"], b"no package given"),
                       (["audit-pkg", "--from-dir", "/", "x.deb"], b"not both"),
                       (["audit-pkg", "--shard", "0/3", "x.deb"], b"invalid --shard"),
                       (["audit-pkg", "--shard", "4/3", "x.deb"], b"invalid --shard"),
                       (["audit-pkg", "--shard", "x", "x.deb"], b"invalid --shard"),
                       (["audit-pkg", "--max-unpacked", "lots", "x.deb"], b"invalid --max-unpacked"),
                       (["audit-pkg", "--max-memory", "10K", "x.deb"], b"invalid --max-memory"),
                       (["audit-pkg", "--tmpdir", "rel", "x.deb"], b"absolute"),
                       (["audit-pkg", "--format", "yaml", "x.deb"], b"unknown format")):
        rc, out, err = ctx.run(args)
        ctx.check(f"usage {args}", rc == 2 and text in err and out == b"", f"{rc} {err!r}")


def peak_rss_run(ctx, args):
    """Run the binary under GNU time; returns exit status, stdout, stderr and its peak RSS
    in KiB (a fork of this Python process would count Python's pages too)."""
    with tempfile.NamedTemporaryFile() as rss:
        rc, out, err = ctx.run(args, prefix=["/usr/bin/time", "-f", "%M", "-o", rss.name])
        return rc, out, err, int(open(rss.name).read().split()[-1])


def test_budget(ctx):
    """Every pass over the members is linear, and the members with their names count against
    --max-memory: a package past it stops the run with exit 2, naming it and the budget, with
    nothing written and the private directory removed."""
    root = ctx.tree("budget")
    tmpdir = ctx.tree("budget-private")
    # AddressSanitizer's shadow memory and checks: its own time and memory, not the program's.
    sanitized = "ASAN_OPTIONS" in os.environ
    # 200,000 empty members: each pass over them once, not once per member dropped.
    many = mk.many_members_deb(os.path.join(root, "many_1_amd64.deb"), 200000, empty=True,
                               package="many")
    start = time.monotonic()
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--format", "json", many)
    took = time.monotonic() - start
    ctx.check("budget: 200,000 members audited", rc == 0 and json.loads(out)["targets"][0].get(
        "error") is None, f"{rc} {err[-300:]!r}")
    ctx.check("budget: 200,000 members in linear time", took < (150 if sanitized else 30),
              f"{took:.1f} s")
    # The hostile scripts below are a tenth of their size under AddressSanitizer: what they
    # check there is memory safety, not time.
    k = 10 if sanitized else 1
    # A maintainer script of one 1 MB word: parsed in linear time (10 s when the parser grew
    # a word a byte at a time).
    longword = mk.many_members_deb(os.path.join(root, "longword_1_amd64.deb"), 10, empty=True,
                                   package="longword", scripts={"postinst": (
                                       "#!/bin/sh\nset -e\nX=\"" + "x" * (1000000 // k) +
                                       "\"\necho \"$X\" >/dev/null\n")})
    # 60,000 variables set on one line (each looked up among all: 49 s for 100,000 when
    # they were a list), then 30,000 and 3,000 branches not decided, which copy them all:
    # past the budget of copies, the rest of the pass is not analysed, and says so.
    many_vars = mk.many_members_deb(os.path.join(root, "manyvars_1_amd64.deb"), 10,
                                    empty=True, package="manyvars", scripts={"postinst": (
                                        "#!/bin/sh\nset -e\n" +
                                        " ".join(f"V{i}=x" for i in range(60000 // k)) +
                                        " true\necho \"$V1\"\n")})
    branches = mk.many_members_deb(os.path.join(root, "branches_1_amd64.deb"), 10,
                                   empty=True, package="branches", scripts={"postinst": (
                                       "#!/bin/sh\nset -e\n" +
                                       "".join(f"V{i}=x\n" for i in range(30000 // k)) +
                                       "if [ -e /etc/x ]; then :; fi\n" * max(3000 // k, 600))})
    # 20,000 groups created (each looked up in what the pass had collected: 4 s) and 12,000
    # symbolic links made (each later path compared with every one: 15 s).
    groups = mk.many_members_deb(os.path.join(root, "groups_1_amd64.deb"), 10, empty=True,
                                 package="groups", scripts={"postinst": (
                                     "#!/bin/sh\nset -e\n" +
                                     "".join(f"addgroup --system g{i}\n"
                                             for i in range(20000 // k)))})
    links = mk.many_members_deb(os.path.join(root, "links_1_amd64.deb"), 10, empty=True,
                                package="links", scripts={"postinst": (
                                    "#!/bin/sh\nset -e\n" +
                                    "".join(f"ln -sf /usr/lib/a /usr/lib/l{i}\n"
                                            for i in range(12000 // k)))})
    for name, deb, why in (("a 1 MB word", longword, None),
                           ("60,000 variables", many_vars, None),
                           ("30,000 variables, 3,000 branches", branches, "variables copied"),
                           ("20,000 groups", groups, None),
                           ("12,000 symbolic links", links, None)):
        complete = why is None
        start = time.monotonic()
        rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--format", "json", deb)
        took = time.monotonic() - start
        target = json.loads(out)["targets"][0] if out else {}
        ctx.check(f"budget: {name}: complete {complete}", rc == (0 if complete else 3) and
                  target.get("complete") is complete and (complete or any(
                      why in x for x in target.get("incomplete", []))),
                  f"{rc} {str(target.get('incomplete'))[:300]} {err[-300:]!r}")
        ctx.check(f"budget: {name} in linear time", took < (30 if sanitized else 3),
                  f"{took:.1f} s")
    # Without maintainer scripts a plain file not kept is a note without its name (about
    # 48 bytes), and the notes count: 200,000 of them are past 4M.
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--max-memory", "4M", "--format", "json", many)
    ctx.check("budget: notes count, 200,000 past 4M", rc == 2 and b"4 MiB" in err and
              b"many_1_amd64.deb" in err, f"{rc} {err!r}")
    # 8,000 names of 3.9 KB, kept with their names as the postinst may name any of them: 33 MB
    # of names, within the default, past 16M; without the script only notes, within 16M.
    postinst = {"postinst": "#!/bin/sh\nset -e\necho configured\n"}
    wide = mk.many_members_deb(os.path.join(root, "wide_1_amd64.deb"), 8000, name_len=3900,
                               empty=True, package="wide", scripts=postinst)
    noscript = mk.many_members_deb(os.path.join(root, "noscript_1_amd64.deb"), 8000,
                                   name_len=3900, empty=True, package="noscript")
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--max-memory", "16M", "--format", "json",
                         noscript)
    ctx.check("budget: wide names without scripts noted, within 16M", rc == 0 and json.loads(
        out)["targets"][0].get("error") is None, f"{rc} {err[-300:]!r}")
    rc, out, err, rss = peak_rss_run(ctx, ["audit-pkg", *KERNEL, "--tmpdir", tmpdir,
                                           "--format", "json", wide])
    ctx.check("budget: wide names within the default", rc == 0 and json.loads(out)["targets"][
        0].get("error") is None, f"{rc} {err[-300:]!r}")
    ctx.check("budget: peak RSS within the budget and the program",
              sanitized or rss < 96 << 10, f"{rss} KiB")
    good = mk.write(os.path.join(root, "good_1_amd64.deb"), mk.deb_bytes(
        "good", data=[mk.entry("./usr/bin/good", mode=0o4755, data=b"\x7fELF")]))
    report = os.path.join(root, "report.json")
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--max-memory", "16M", "-o", report, good,
                         wide)
    ctx.check("budget: exit 2", rc == 2, f"{rc} {err!r}")
    ctx.check("budget: the package and the budget named", b"wide_1_amd64.deb" in err and
              b"16 MiB" in err and b"--max-memory" in err, f"{err!r}")
    ctx.check("budget: nothing written", out == b"" and not os.path.exists(report),
              f"{out[:100]!r}")
    ctx.check("budget: private directory removed", os.listdir(tmpdir) == [],
              f"{os.listdir(tmpdir)}")
    # Kept set-ID files with long names count too.
    kept = mk.many_members_deb(os.path.join(root, "kept_1_amd64.deb"), 2000, name_len=3900,
                               package="kept", setid=True)
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--max-memory", "4M", "--format", "json", kept)
    ctx.check("budget: kept members past 4M", rc == 2 and b"4 MiB" in err, f"{rc} {err!r}")
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--format", "json", kept)
    files = json.loads(out)["files"] if rc in (0, 1) else []
    ctx.check("budget: kept members within the default", len(files) > 1000,
              f"{rc} {len(files)} {err[-300:]!r}")
    # Each privileged file's decision and report model counts too, 2 KiB: a package of
    # 60,000 empty set-ID files (200 kB) took 130 MB when only its members counted, and
    # 300,000 took 630 MB past the default 256M.  Past the budget it is refused while it is
    # read; within it, the peak stays within it.
    n = 60000 // k
    setid = mk.many_members_deb(os.path.join(root, "setid_1_amd64.deb"), n, setid=True,
                                package="setid")
    small, large = ("64M", "160M") if not sanitized else ("8M", "64M")
    rc, out, err, rss = peak_rss_run(ctx, ["audit-pkg", *KERNEL, "--tmpdir", tmpdir,
                                           "--max-memory", small, "--format", "json", setid])
    ctx.check(f"budget: {n} set-ID files past {small}: exit 2, the package and the budget "
              "named, nothing written", rc == 2 and out == b"" and b"setid_1_amd64.deb" in err
              and f"{small[:-1]} MiB".encode() in err and b"privileged files" in err,
              f"{rc} {err[-400:]!r}")
    ctx.check(f"budget: {n} set-ID files refused within {small}",
              sanitized or rss < 64 << 10, f"{rss} KiB")
    ctx.check("budget: set-ID files: private directory removed", os.listdir(tmpdir) == [],
              f"{os.listdir(tmpdir)}")
    rc, out, err, rss = peak_rss_run(ctx, ["audit-pkg", *KERNEL, "--tmpdir", tmpdir,
                                           "--max-memory", large, "--format", "json", setid])
    files = json.loads(out)["files"] if rc in (0, 1) else []
    ctx.check(f"budget: {n} set-ID files within {large}: every one reported",
              len(files) == n - (n + 999) // 1000, f"{rc} {len(files)} {err[-300:]!r}")
    ctx.check(f"budget: {n} set-ID files: peak RSS within {large}",
              sanitized or rss < 160 << 10, f"{rss} KiB")
    # What the run keeps of its packages once read counts against the budget too: three
    # packages of 8,000 set-ID files, each within 40M, are past it together (each kept
    # its own budget's worth before: 3 x 210 MB for three packages of 100,000).
    n = 8000 // k
    budget = "40M" if not sanitized else "4M"
    three = [mk.many_members_deb(os.path.join(root, f"three{i}_1_amd64.deb"), n, setid=True,
                                 package=f"three{i}") for i in range(3)]
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--max-memory", budget, "--format", "json",
                         three[0])
    ctx.check(f"budget: one package of {n} set-ID files within {budget}", rc == 0 and len(
        json.loads(out)["files"]) == n - (n + 999) // 1000, f"{rc} {err[-300:]!r}")
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--max-memory", budget, "-o", report, *three)
    ctx.check(f"budget: three together past {budget}: exit 2, the run's budget named, nothing "
              "written", rc == 2 and b"with the packages read before it" in err and
              f"{budget[:-1]} MiB".encode() in err and not os.path.exists(report),
              f"{rc} {err[-400:]!r}")
    ctx.check("budget: three together: private directory removed", os.listdir(tmpdir) == [],
              f"{os.listdir(tmpdir)}")


def test_rpm_budget(ctx):
    """An .rpm's header, the list of its files, counts against --max-memory before librpm
    reads it: past the budget the run stops with exit 2, naming the package and the budget,
    without having read it; within it the package is audited."""
    if not shutil.which("rpmbuild"):
        return SKIP
    root = ctx.tree("rpm-budget")
    tmpdir = ctx.tree("rpm-budget-private")
    sanitized = "ASAN_OPTIONS" in os.environ
    rpm = os.path.join(root, "many.rpm")
    p = subprocess.run([sys.executable, os.path.join(s2ctest.SRC, "bench", "genpkg.py"), rpm,
                        "60000"], capture_output=True)
    if p.returncode != 0:
        ctx.check("genpkg.py .rpm", False, p.stderr.decode(errors="replace")[-800:])
        return
    rc, out, err, rss_in = peak_rss_run(ctx, ["audit-pkg", *KERNEL, "--tmpdir", tmpdir,
                                              "--format", "json", rpm])
    if b"built without librpm" in err:
        return SKIP
    ctx.check("rpm budget: 60,000 files within the default", rc == 0 and json.loads(out)[
        "targets"][0].get("error") is None, f"{rc} {err[-300:]!r}")
    report = os.path.join(root, "report.json")
    rc, out, err, rss_out = peak_rss_run(ctx, ["audit-pkg", *KERNEL, "--tmpdir", tmpdir,
                                               "--max-memory", "8M", "-o", report, rpm])
    ctx.check("rpm budget: past 8M, exit 2 naming the package and the budget",
              rc == 2 and b"many.rpm" in err and b"8 MiB" in err and b"--max-memory" in err,
              f"{rc} {err!r}")
    ctx.check("rpm budget: nothing written", out == b"" and not os.path.exists(report) and
              os.listdir(tmpdir) == [], f"{out[:100]!r} {os.listdir(tmpdir)}")
    # the header, 7 MB, is twice that while librpm reads it: refused before, it is not read
    ctx.check("rpm budget: the header not read", sanitized or rss_out + (10 << 10) < rss_in,
              f"{rss_out} KiB refused, {rss_in} KiB audited")


TESTS = [test_real_debs, test_plans, test_rpm, test_from_dir_and_shards, test_relative_paths,
         test_nothing_found, test_hostile, test_budget, test_rpm_budget, test_incomplete, test_loaded_at_install,
         test_debconf, test_hostile_constructs,
         test_maintscripts_doc, test_usage]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
