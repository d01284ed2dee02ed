#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI tests of `suid2cap audit-image`: OCI layouts (directory and tar) and docker-save
archives written here by tests/cli/mkarchive.py, layers with whiteouts and opaque
directories, docker's symlinked layer tars, container bounding sets, the image's package
databases, the Dockerfile plan, platforms, digests, the image's own configuration, and
hostile images.  No container engine is used; only the run of the Dockerfile line and the
small private directory need root (a private mount namespace), the rest does not.
"""
import base64
import gzip
import hashlib
import io
import json
import os
import platform
import shutil
import subprocess
import tarfile
import sys

import mkarchive as mk
import s2ctest
import test_audit
from s2ctest import SKIP

KERNEL = ["--kernel", "6.1"]
FORMATS = test_audit.FORMATS
ELF = b"\x7fELF-fixture\n"
PASSWD = b"root:x:0:0:root:/root:/bin/sh\ndaemon:x:1:1::/:/bin/false\n"
GROUP = b"root:x:0:\ndaemon:x:1:\nshadow:x:42:\n"
OS_RELEASE = b'ID=debian\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'
# v2 security.capability: effective, permitted cap_net_raw (13) and cap_net_admin (12)
CAPS_NET = bytes([1, 0, 0, 2, 0, 0x30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])


def base_layer():
    return [mk.entry("etc/", "dir", 0o755), mk.entry("etc/passwd", data=PASSWD),
            mk.entry("etc/group", data=GROUP), mk.entry("etc/os-release", data=OS_RELEASE),
            mk.entry("var/lib/dpkg/info/iputils-ping.list", data=b"/.\n/usr/bin/ping\n"),
            mk.entry("usr/", "dir", 0o755), mk.entry("usr/bin/", "dir", 0o755),
            mk.entry("usr/bin/ping", mode=0o4755, data=ELF),
            mk.entry("usr/bin/su", mode=0o4755, data=ELF),
            mk.entry("usr/bin/gone", mode=0o4755, data=ELF),
            mk.entry("opt/app/", "dir", 0o755),
            mk.entry("opt/app/helper", mode=0o4755, data=ELF),
            mk.entry("usr/sbin/netd", mode=0o755, data=ELF, xattrs={"security.capability": CAPS_NET})]


def layers():
    """Layer 1 adds setuid files; layer 2 whites one out, makes /opt/app opaque and adds a
    setgid tool; layer 3 clears the setuid bit of another (dockle's case)."""
    l2 = [mk.entry("usr/bin/.wh.gone", data=b""),
          mk.entry("opt/app/.wh..wh..opq", data=b""),
          mk.entry("opt/app/readme", data=b"hello"),
          mk.entry("usr/local/bin/tool", mode=0o2750, gid=42, gname="shadow", data=ELF)]
    l3 = [mk.entry("usr/bin/su", mode=0o755, data=ELF)]
    return [base_layer(), l2, l3]


CREATED = ["ADD rootfs /", "RUN rm /usr/bin/gone && install -g shadow -m 2750 tool",
           "RUN chmod u-s /usr/bin/su"]


def build_images(ctx, name="images"):
    root = ctx.tree(name)
    oci = mk.oci_layout(os.path.join(root, "oci"), layers(), created_by=CREATED)
    return {
        "oci": oci,
        "oci.tar": mk.dir_to_tar(oci, os.path.join(root, "oci.tar")),
        "docker.tar": mk.docker_archive(os.path.join(root, "docker.tar"), layers(),
                                        created_by=CREATED),
    }


def audit(ctx, *args):
    return ctx.run(["audit-image", *KERNEL, *args])


def files_by_path(doc):
    return {f["file"]["path"]: f for f in doc["files"]}


def test_layers_and_whiteouts(ctx):
    """The final tree only: whited-out and opaque-hidden files are gone, a setuid bit a
    later layer cleared is gone, each finding names the layer that added it."""
    for name, path in build_images(ctx).items():
        rc, out, err = audit(ctx, "--format", "json", path)
        ctx.check(f"{name}: exit", rc == 0 and err == b"", f"{rc} {err!r}")
        test_audit.validate_audit(ctx, f"{name}.json", out)
        doc = json.loads(out)
        got = files_by_path(doc)
        ctx.check(f"{name}: the final tree's privileged files",
                  sorted(got) == ["/usr/bin/ping", "/usr/local/bin/tool", "/usr/sbin/netd"],
                  f"{sorted(got)}")
        t = doc["targets"][0]
        ctx.check(f"{name}: identity", (t["kind"], t["name"], t["architecture"]) ==
                  ("image", "s2c/test:1", "linux/amd64") and len(t["layers"]) == 3,
                  json.dumps(t)[:300])
        for path, index in (("/usr/bin/ping", 1), ("/usr/local/bin/tool", 2),
                            ("/usr/sbin/netd", 1)):
            f = got.get(path)
            if not f:
                continue
            layer = f["origin"]["layer"]
            ctx.check(f"{name} {path}: layer", layer["index"] == index and
                      layer["digest"] == t["layers"][index - 1]["digest"] and
                      layer["created_by"] == CREATED[index - 1], json.dumps(layer))
        # an image: the CIS Docker Benchmark's set-ID control, and the image's distribution's
        docker = [(c["benchmark"], c["version"], c["id"]) for k in doc["findings"]
                  if k["id"] == "S2C001" for c in k["controls"]]
        ctx.check(f"{name}: compliance", ("CIS Docker Benchmark", "1.6.0", "4.8") in docker and
                  ("CIS Debian Linux 12 Benchmark", "1.1.0", "7.1.13") in docker, docker)
        # the staging copy's device, inode and mount mean nothing for an image
        ctx.check(f"{name}: no dev, ino or mount", all(
            not {"dev", "ino", "mount"} & set(f["file"]) for f in got.values()),
            json.dumps([sorted(f["file"]) for f in got.values()]))
        tool = got.get("/usr/local/bin/tool")
        ctx.check(f"{name}: owner names from the image", tool and
                  (tool["file"]["owner"], tool["file"]["group"], tool["file"]["mode"]) ==
                  ("root", "shadow", "2750"), json.dumps(tool["file"] if tool else None)[:200])


def test_symlinked_layers(ctx):
    """docker save stores a repeated layer as a symlink to the first copy's tar
    (goodwithtech/dockle#58): it is followed inside the archive and gives the same tree."""
    root = ctx.tree("symlinked")
    ls = layers()
    ls.insert(2, ls[1])         # layer 3 repeats layer 2
    plain = mk.docker_archive(os.path.join(root, "plain.tar"), ls)
    linked = mk.docker_archive(os.path.join(root, "linked.tar"), ls, symlink_layers=(2,))
    docs = []
    for path in (plain, linked):
        rc, out, err = audit(ctx, "--format", "json", path)
        ctx.check(f"{os.path.basename(path)}: exit", rc == 0, f"{rc} {err!r}")
        docs.append(sorted((p, f["file"]["mode"], f["origin"]["layer"]["index"])
                           for p, f in files_by_path(json.loads(out)).items()))
    ctx.check("symlinked layer: same findings", docs[0] == docs[1] and len(docs[0]) == 3,
              f"{docs}")


def test_plan_and_bounding(ctx):
    """A migration becomes a Dockerfile RUN line; capabilities outside the default
    bounding sets are flagged."""
    path = build_images(ctx)["oci"]
    rc, out, err = audit(ctx, "--format", "json", path)
    doc = json.loads(out)
    plan = doc["targets"][0]["plan"]
    ctx.check("dockerfile plan", plan and plan["format"] == "dockerfile" and
              "setcap 'cap_net_raw=ep' '/usr/bin/ping' || { printf '%s\\n' 'suid2cap: setcap "
              "failed on /usr/bin/ping, stopping the build (the file would keep its set-ID "
              "bit)' >&2; exit 1; }; \\\n    chmod 0755 '/usr/bin/ping'" in plan["text"],
              json.dumps(plan)[:600])
    netd = files_by_path(doc).get("/usr/sbin/netd")
    ctx.check("bounding: cap_net_admin flagged for Docker and Podman", netd and any(
        "cap_net_admin is outside the default bounding set of Docker and Podman" in w and
        "execve fails with EPERM" in w and "--cap-add NET_ADMIN" in w
        for w in netd["warnings"]), json.dumps(netd["warnings"] if netd else None))
    ping = files_by_path(doc).get("/usr/bin/ping")
    ctx.check("bounding: cap_net_raw flagged for Podman only", ping and any(
        "outside the default bounding set of Podman containers (Docker has it)" in w
        for w in ping["warnings"]), json.dumps(ping["warnings"] if ping else None))


# The RUN line in a private mount namespace: /opt a fresh tmpfs (setcap works there),
# /opt/s2ctest/a-ram a ramfs (no extended attributes: setcap fails) when asked, the
# image's files copied in with their modes, owners and capabilities, then the line run
# by sh as Docker runs it; prints its exit status, stderr and each file's state.
RUN_NS = r'''
import json, os, subprocess, sys
c = json.loads(sys.argv[1])
subprocess.run(["mount", "-t", "tmpfs", "s2ctest", "/opt"], check=True)
if c["ramfs"]:
    os.makedirs("/opt/s2ctest/a-ram")
    subprocess.run(["mount", "-t", "ramfs", "s2ctest", "/opt/s2ctest/a-ram"], check=True)
for path, (mode, gid, caps) in c["files"].items():
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"\\x7fELF-fixture\\n")
    os.chown(path, 0, gid)
    os.chmod(path, mode)
    if caps:
        os.setxattr(path, "security.capability", bytes.fromhex(caps))
p = subprocess.run(["sh", "-c", c["line"]], capture_output=True)
states = {}
for path in c["files"]:
    st = os.stat(path)
    caps = subprocess.run(["getcap", path], capture_output=True).stdout.decode().split()
    states[path] = [oct(st.st_mode & 0o7777), st.st_uid, st.st_gid, caps[1] if caps else None]
print(json.dumps({"rc": p.returncode, "stderr": p.stderr.decode(errors="replace"),
                  "files": states}))
'''


def test_dockerfile_line_fails_loudly(ctx):
    """The RUN line run for real: where setcap works every file ends as planned; where it
    fails for a file that is not the last, the build stops there with a message, the file
    keeps its set-ID bit and nothing after it changes."""
    if not s2ctest.is_root() or not os.path.isdir("/opt"):
        return SKIP
    files = {"/opt/s2ctest/a-ram/pinger": (0o4755, 0, None),
             "/opt/s2ctest/bin/grouped": (0o4755, 0, None),
             "/opt/s2ctest/bin/netd": (0o4755, 0, CAPS_NET.hex()),
             "/opt/s2ctest/bin/pinger": (0o4755, 0, None)}
    image = [mk.entry("etc/", "dir", 0o755), mk.entry("etc/passwd", data=PASSWD),
             mk.entry("etc/group", data=GROUP + b"games:x:60:\n"),
             mk.entry("etc/os-release", data=OS_RELEASE)]
    image += [mk.entry(p.lstrip("/"), mode=m, data=ELF, xattrs={"security.capability":
                                                                  bytes.fromhex(c)} if c else None)
              for p, (m, _, c) in files.items()]
    root = ctx.tree("run-line")
    path = mk.oci_layout(os.path.join(root, "oci"), [image])
    rule = {"program": "a test program", "reason": "test", "sources": ["man:ping(8)"]}
    with open(os.path.join(root, "local.json"), "w") as f:
        json.dump({"schema": 1, "area": "local", "rules": [
            dict(rule, id="local.pinger", verdict="migrate", caps="cap_net_raw=ep", match={
                "paths": ["/opt/s2ctest/a-ram/pinger", "/opt/s2ctest/bin/pinger"]}),
            dict(rule, id="local.grouped", verdict="migrate", caps="cap_net_raw=ep",
                 group="games", match={"paths": ["/opt/s2ctest/bin/grouped"]}),
            dict(rule, id="local.netd", verdict="drop", match={"paths": ["/opt/s2ctest/bin/netd"]}),
        ]}, f)
    rc, out, err = audit(ctx, "--format", "json", "--bounding-set", "all", "--db", root, path)
    plan = json.loads(out)["targets"][0]["plan"]["text"] if rc == 0 else ""
    line = plan.split("\nRUN ", 1)[-1].replace("\\\n", "") if "\nRUN " in plan else ""
    ctx.check("a RUN line with chown, setcap and setcap -r", "chown 0:60 " in line and
              "setcap -r " in line and line.count("setcap 'cap_net_raw=ep'") == 3,
              f"{rc} {err!r} {plan}")
    want = {"/opt/s2ctest/a-ram/pinger": ["0o755", 0, 0, "cap_net_raw=ep"],
            "/opt/s2ctest/bin/grouped": ["0o755", 0, 60, "cap_net_raw=ep"],
            "/opt/s2ctest/bin/netd": ["0o755", 0, 0, None],
            "/opt/s2ctest/bin/pinger": ["0o755", 0, 0, "cap_net_raw=ep"]}
    before = {p: [oct(m), 0, g, "cap_net_admin,cap_net_raw=ep" if c else None]
              for p, (m, g, c) in files.items()}
    for ramfs in (False, True):
        conf = {"ramfs": ramfs, "files": files, "line": line}
        p = subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable, "-c",
                            RUN_NS, json.dumps(conf)], capture_output=True,
                           env={"PATH": os.environ["PATH"], "LC_ALL": "C"})
        ctx.check(f"ramfs {ramfs}: ran", p.returncode == 0, p.stderr.decode(errors="replace"))
        got = json.loads(p.stdout) if p.returncode == 0 else {"rc": None, "stderr": "", "files": {}}
        if not ramfs:
            ctx.check("tmpfs: builds, every file as planned", got["rc"] == 0 and
                      got["files"] == want, repr(got))
            continue
        ctx.check("ramfs: the build fails at the first file, saying so", got["rc"] == 1 and
                  "suid2cap: setcap failed on /opt/s2ctest/a-ram/pinger, stopping the build" in
                  got["stderr"], repr(got))
        ctx.check("ramfs: that file keeps its set-ID bit, no later file changed",
                  got["files"] == before, f"{got['files']} != {before}")


def test_known_bounding_set(ctx):
    """A known bounding set shapes the verdict as for audit, and the default-set warning
    is not added: --bounding-set, and the runtime's marker kept from the image's layers."""
    root = ctx.tree("bounding")
    plain = build_images(ctx, "bounding-images")["oci"]
    rc, out, err = audit(ctx, "--format", "json", "--bounding-set", "podman", plain)
    ctx.check("--bounding-set podman: exit", rc == 0 and err == b"", f"{rc} {err!r}")
    doc = json.loads(out)
    ping = files_by_path(doc).get("/usr/bin/ping")
    b = doc["host"]["bounding_set"]
    ctx.check("--bounding-set podman: named in the report",
              b and "--bounding-set podman" in b["source"], json.dumps(b))
    ctx.check("--bounding-set podman: ping is review, it cannot work there", ping and
              ping["verdict"] == "review" and "lacks cap_net_raw" in ping["reason"] and
              not any("outside the default bounding set" in w for w in ping["warnings"]),
              json.dumps(ping)[:800] if ping else None)
    rc, out, err = audit(ctx, "--format", "json", "--bounding-set", "all", plain)
    ping = files_by_path(json.loads(out)).get("/usr/bin/ping")
    ctx.check("--bounding-set all: ping migrates without a warning", ping and
              ping["verdict"] == "migrate" and
              not any("bounding set" in w for w in ping["warnings"]),
              json.dumps(ping["warnings"]) if ping else None)

    docker = layers()
    docker[0].append(mk.entry(".dockerenv", data=b""))
    path = mk.oci_layout(os.path.join(root, "docker"), docker)
    rc, out, err = audit(ctx, "--format", "json", path)
    doc = json.loads(out)
    ping = files_by_path(doc).get("/usr/bin/ping")
    b = doc["host"]["bounding_set"]
    ctx.check("/.dockerenv: Docker's set", b and "/.dockerenv" in b["source"], json.dumps(b))
    ctx.check("/.dockerenv: ping migrates, no Podman warning", ping and
              ping["verdict"] == "migrate" and
              not any("bounding set" in w for w in ping["warnings"]),
              json.dumps(ping)[:800] if ping else None)
    rc, out, err = audit(ctx, "--bounding-set", "bogus", path)
    ctx.check("--bounding-set bogus: usage error", rc == 2 and b"invalid bounding set" in err,
              f"{rc} {err!r}")


def test_package_databases(ctx):
    """The image's package database is kept from its layers: apk, pacman and dpkg name the
    owner and version of a file, as audit --root does."""
    root = ctx.tree("pkgdbs")
    sha1 = base64.b64encode(hashlib.sha1(ELF).digest()).decode()
    accounts = [mk.entry("etc/", "dir", 0o755), mk.entry("etc/passwd", data=PASSWD),
                mk.entry("etc/group", data=GROUP)]
    apk = accounts + [
        mk.entry("lib/apk/db/installed", data=(
            "P:busybox\nV:1.36.1-r5\nF:bin\nR:busybox\n\n"
            f"P:iputils-ping\nV:20240905-r0\nA:x86_64\nF:bin\nR:ping\na:0:0:4755\nZ:Q1{sha1}\n\n"
        ).encode()),
        mk.entry("bin/ping", mode=0o4755, data=ELF)]
    local = "var/lib/pacman/local/iputils-20240905-1/"
    pacman = accounts + [
        mk.entry(local + "desc", data=b"%NAME%\niputils\n\n%VERSION%\n20240905-1\n\n"
                                    b"%ARCH%\nx86_64\n"),
        mk.entry(local + "files", data=b"%FILES%\nusr/\nusr/bin/\nusr/bin/arping\n\n"),
        mk.entry("usr/bin/arping", mode=0o4755, data=ELF)]
    dpkg = accounts + [
        mk.entry("var/lib/dpkg/info/iputils-ping.list", data=b"/.\n/usr/bin/ping\n"),
        mk.entry("var/lib/dpkg/info/iputils-ping.md5sums",
                 data=hashlib.md5(ELF).hexdigest().encode() + b"  usr/bin/ping\n"),
        mk.entry("var/lib/dpkg/status", data=b"Package: iputils-ping\nStatus: install ok "
                 b"installed\nArchitecture: amd64\nVersion: 3:20221126-1\n\n"),
        mk.entry("usr/bin/ping", mode=0o4755, data=ELF)]
    for name, tree, path, owner in (("apk", apk, "/bin/ping", ("iputils-ping", "20240905-r0")),
                                    ("pacman", pacman, "/usr/bin/arping",
                                     ("iputils", "20240905-1")),
                                    ("dpkg", dpkg, "/usr/bin/ping",
                                     ("iputils-ping", "3:20221126-1"))):
        image = mk.oci_layout(os.path.join(root, name), [tree])
        rc, out, err = audit(ctx, "--format", "json", image)
        ctx.check(f"{name}: exit", rc == 0 and err == b"", f"{rc} {err!r}")
        doc = json.loads(out)
        ctx.check(f"{name}: the database is read", doc["host"]["package_databases"] == [name],
                  json.dumps(doc["host"]))
        f = files_by_path(doc).get(path)
        ctx.check(f"{name}: owner and version of {path}",
                  f and (f["package"], f["package_version"]) == owner,
                  json.dumps({k: f[k] for k in ("package", "package_version")} if f else None))


def test_formats(ctx):
    """Every format against golden files, JSON Schema and SARIF 2.1.0."""
    path = build_images(ctx, "formats")["oci"]
    for fmt, ext in FORMATS:
        rc, out, err = audit(ctx, "--format", fmt, path)
        ctx.check(f"{fmt}: exit", rc == 0 and err == b"", f"{rc} {err!r}")
        if fmt == "sarif":
            test_audit.validate_sarif(ctx, f"image.{ext}", out)
        elif fmt == "json":
            test_audit.validate_audit(ctx, f"image.{ext}", out)
        ctx.golden("audit-image", f"layers.{ext}", test_audit.normalise(fmt, out, ctx.tmp))


def merged_index(root, images):
    """An OCI layout at @root with the blobs of every (layout, architecture) of @images and
    an index naming each manifest for its architecture: a multi-platform image."""
    os.makedirs(os.path.join(root, "blobs", "sha256"))
    manifests = []
    for src, arch in images:
        for blob in os.listdir(os.path.join(src, "blobs", "sha256")):
            os.link(os.path.join(src, "blobs", "sha256", blob),
                    os.path.join(root, "blobs", "sha256", blob))
        m = json.load(open(os.path.join(src, "index.json")))["manifests"][0]
        m["platform"]["architecture"] = arch
        manifests.append(m)
    mk.write(os.path.join(root, "oci-layout"), b'{"imageLayoutVersion": "1.0.0"}')
    mk.write(os.path.join(root, "index.json"), json.dumps({"schemaVersion": 2,
                                                           "manifests": manifests}).encode())
    return root


def test_platform(ctx):
    """A multi-platform index: --platform picks the image, the default is this host's, the
    others are named; --platform all audits each."""
    root = ctx.tree("multi")
    arm = mk.oci_layout(os.path.join(root, "arm"), [[mk.entry("usr/bin/armonly", mode=0o4755,
                                                             data=ELF)]], arch="arm64")
    amd = mk.oci_layout(os.path.join(root, "amd"), [[mk.entry("usr/bin/amdonly", mode=0o4755,
                                                             data=ELF)]])
    # One layout with both manifests: blobs of both, an index naming both platforms.
    multi = merged_index(os.path.join(root, "both"), ((arm, "arm64"), (amd, "amd64")))
    host = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine())
    for args, want, other in (([], f"/usr/bin/{(host or '')[:3]}only", "arm64"),
                              (["--platform", "linux/amd64"], "/usr/bin/amdonly", "arm64"),
                              (["--platform", "linux/arm64"], "/usr/bin/armonly", "amd64")):
        if not args and not host:
            continue
        if not args and host == "arm64":
            other = "amd64"
        rc, out, err = audit(ctx, "--format", "json", *args, multi)
        doc = json.loads(out) if rc == 0 else {"targets": [{"notes": []}]}
        got = sorted(files_by_path(doc)) if rc == 0 else err
        ctx.check(f"platform {args}", got == [want], f"{rc} {got}")
        ctx.check(f"platform {args}: the other named", any(
            f"not audited: the image's image for linux/{other}" in n
            for n in doc["targets"][0]["notes"]), json.dumps(doc["targets"][0]["notes"]))
    # An index that says amd64 for an image whose config says arm64: the note says so.
    liar = os.path.join(root, "liar")
    shutil.copytree(arm, liar)
    rc, out, err = audit(ctx, "--format", "json", liar)
    notes = json.loads(out)["targets"][0]["notes"] if out else []
    ctx.check("platform: the index and the config disagree", rc == 0 and any(
        "the index lists this image for linux/amd64, its config says linux/arm64" in n
        for n in notes), f"{rc} {err!r} {notes}")
    rc, out, err = audit(ctx, "--format", "json", "--platform", "all", multi)
    doc = json.loads(out) if rc == 0 else {"targets": [], "files": []}
    ctx.check("platform all: both", rc == 0 and
              sorted(t["architecture"] for t in doc["targets"]) == ["linux/amd64", "linux/arm64"]
              and sorted(files_by_path(doc)) == ["/usr/bin/amdonly", "/usr/bin/armonly"],
              f"{rc} {err!r} {json.dumps(doc['targets'])[:300]}")
    rc, out, err = audit(ctx, "--platform", "linux/s390x", multi)
    ctx.check("platform missing", rc == 3 and b"has no image for linux/s390x" in err, f"{rc} {err!r}")


def hostile_images(ctx, outside):
    root = ctx.tree("hostile-images")
    secret = os.path.join(outside, "secret")
    mk.write(secret, b"not for the audit")
    good = layers()
    out = {}
    out["layer-symlink-absolute"] = mk.docker_archive(os.path.join(root, "abs.tar"), good,
                                                      outside_link=(1, "/etc/shadow"))
    out["layer-symlink-escapes"] = mk.docker_archive(os.path.join(root, "esc.tar"), good,
                                                     outside_link=(1, "../../../../etc/passwd"))
    oci = mk.oci_layout(os.path.join(root, "oci-link"), good)
    blobs = os.path.join(oci, "blobs", "sha256")
    manifest = json.load(open(os.path.join(oci, "index.json")))["manifests"][0]["digest"]
    layer = json.load(open(os.path.join(blobs, manifest.split(":")[1])))["layers"][1]["digest"]
    os.unlink(os.path.join(blobs, layer.split(":")[1]))
    os.symlink(secret, os.path.join(blobs, layer.split(":")[1]))
    out["blob-symlink-out-of-dir"] = oci
    out["dotdot-member"] = mk.docker_archive(os.path.join(root, "dotdot.tar"), [
        [mk.entry("../../evil", mode=0o4755, data=ELF)]])
    out["absolute-member"] = mk.docker_archive(os.path.join(root, "absmember.tar"), [
        [mk.entry("/evil", mode=0o4755, data=ELF)]])
    bad = mk.oci_layout(os.path.join(root, "digest-dotdot"), good)
    idx = json.load(open(os.path.join(bad, "index.json")))
    idx["manifests"][0]["digest"] = "sha256:../../../../etc/passwd"
    mk.write(os.path.join(bad, "index.json"), json.dumps(idx).encode())
    out["digest-with-path"] = bad
    out["manifest-garbage"] = mk.write(os.path.join(root, "garbage.tar"), mk.tar_bytes(
        [mk.entry("manifest.json", data=b"[{\"Config\": 1")]))
    # json-c would keep the second Config silently: the strict reader names the object
    twice = b'[{"Config": "a.json", "Config": "b.json", "Layers": []}]'
    out["manifest-key-twice"] = mk.write(os.path.join(root, "twice.tar"), mk.tar_bytes(
        [mk.entry("manifest.json", data=twice)]))
    out["not-an-image"] = mk.write(os.path.join(root, "random.tar"), b"\x00\x01garbage" * 100)
    data = open(os.path.join(root, "abs.tar"), "rb").read()
    out["truncated"] = mk.write(os.path.join(root, "truncated.tar"), data[:len(data) // 3])
    out["bomb"] = mk.docker_archive(os.path.join(root, "bomb.tar"), [
        [mk.entry("usr/bin/big", mode=0o4755, data=b"x" * 512, size=(4 << 30))]])
    return out, secret


def test_hostile(ctx):
    """Hostile images: a clear error, exit 3, nothing written outside the private
    directory, the private directory removed, the secret never read into a report."""
    outside = ctx.tree("outside")
    images, secret = hostile_images(ctx, outside)
    tmpdir = ctx.tree("private")
    before = sorted(os.listdir(outside))
    want = {"layer-symlink-absolute": "symlink to an absolute path",
            "layer-symlink-escapes": "leads out of the image",
            "blob-symlink-out-of-dir": "leads out of the image directory",
            "dotdot-member": "'..' component", "absolute-member": "absolute name",
            "digest-with-path": "without a plain digest",
            "manifest-garbage": "not valid JSON", "not-an-image": "",
            "manifest-key-twice": "manifest.json: $[0]: an object has the same key twice",
            "truncated": "", "bomb": "bytes to unpack"}
    for name, path in images.items():
        rc, out, err = audit(ctx, "--format", "json", "--tmpdir", tmpdir, "--max-unpacked", "1G",
                             path)
        ctx.check(f"{name}: exit 3", rc == 3, f"exit {rc} {err!r}")
        doc = json.loads(out) if out else {"targets": [{}]}
        e = doc["targets"][0].get("error") or ""
        ctx.check(f"{name}: reason", e and want[name] in e, f"{e!r}")
        ctx.check(f"{name}: named on stderr", b"cannot read '" in err, repr(err))
        ctx.check(f"{name}: secret not read", b"not for the audit" not in out, "")
        ctx.check(f"{name}: private directory removed", os.listdir(tmpdir) == [],
                  f"{os.listdir(tmpdir)}")
    # A later layer's file beneath an earlier layer's symlink to a directory outside: the
    # unpacker follows the link inside the image's root, so the file is there, in the image.
    through = mk.docker_archive(os.path.join(ctx.tree("through"), "through.tar"), [
        [mk.entry("usr/lib/libcap.so.9", "symlink", 0o777, link=outside)],
        [mk.entry("usr/lib/libcap.so.9/evil", mode=0o4755, data=ELF)]])
    rc, out, err = audit(ctx, "--format", "json", "--tmpdir", tmpdir, through)
    got = sorted(files_by_path(json.loads(out))) if out else err
    ctx.check("through-symlink: the file where the unpacker puts it",
              rc == 0 and got == [outside + "/evil"], f"{rc} {got}")
    ctx.check("nothing written outside", sorted(os.listdir(outside)) == before,
              f"{os.listdir(outside)}")
    ctx.check("no /evil", not os.path.lexists("/evil"), "")


def test_relative_path(ctx):
    """An image given by a relative name is named in messages with the directory it is
    relative to, as typed; the report keeps the name as given."""
    d = ctx.tree("relative")
    mk.write(os.path.join(d, "random.tar"), b"\x00\x01garbage" * 100)
    for name in ("random.tar", "./missing"):
        rc, out, err = ctx.run(["audit-image", "--format", "json", name], cwd=d)
        shown = os.path.join(d, name.removeprefix("./"))
        ctx.check(f"{name}: exit 3, named in full", rc == 3 and
                  f"cannot read '{shown}': ".encode() in err, f"{rc} {err!r}")
        ctx.check(f"{name}: the report names it as given",
                  json.loads(out)["targets"][0]["source"] == name, out[:300])


def test_untrusted_config(ctx):
    """An image's own waivers (packed by uid 1000), rules.d and exclude list do not change its
    audit: its world-writable root shell fails --fail-on; the report names them as not used.
    --trust-image-config uses the waivers and rules.d, and says so."""
    waivers = b"".join(b"S2C00%d /usr/bin/rootsh  the image says so\n" % i for i in range(1, 9))
    layer = [mk.entry("etc/", "dir", 0o755), mk.entry("etc/passwd", data=PASSWD),
             mk.entry("etc/suid2cap/", "dir", 0o755),
             mk.entry("etc/suid2cap/waivers", data=waivers, uid=1000, gid=1000, uname="u",
                      gname="u"),
             mk.entry("etc/suid2cap/rules.d/", "dir", 0o755),
             mk.entry("etc/suid2cap/exclude", data=b"/usr/bin\n"),
             mk.entry("usr/bin/rootsh", mode=0o4777, data=ELF)]
    path = mk.oci_layout(os.path.join(ctx.tree("untrusted"), "oci"), [layer])
    gate = ["--fail-on", "risk,review,S2C008", "--format", "json"]
    rc, out, err = audit(ctx, *gate, path)
    notes = " ".join(json.loads(out)["targets"][0]["notes"]) if out else ""
    ctx.check("untrusted: --fail-on fails", rc == 1, f"{rc} {err!r}")
    ctx.check("untrusted: nothing waived", out and "waivers" not in json.loads(out), out[:300])
    for f in ("waivers", "rules.d", "exclude"):
        ctx.check(f"untrusted: its {f} named as not used",
                  f"the image's own /etc/suid2cap/{f} is not used" in notes, notes)
    rc, out, err = audit(ctx, *gate, "--trust-image-config", path)
    notes = " ".join(json.loads(out)["targets"][0]["notes"]) if out else ""
    ctx.check("trusted: its waivers waive", rc == 0 and json.loads(out)["summary"]["waived"] > 0,
              f"{rc} {err!r}")
    ctx.check("trusted: the report says they were used",
              "the image's own /etc/suid2cap/waivers is used (--trust-image-config)" in notes and
              "the image's own /etc/suid2cap/exclude is not used" in notes, notes)
    rc, out, err = audit(ctx, "--trust-image-config", "--platform", "all", path)
    ctx.check("trusted: one image only", rc == 2 and b"not with --platform all" in err,
              f"{rc} {err!r}")


def tampered_images(ctx):
    """{name: (path, what the error names)} of images with a blob that is not what its
    digest says."""
    root = ctx.tree("tampered")
    out = {}
    clean = [[mk.entry("usr/bin/clean", data=ELF)]]

    def blob(oci, digest):
        return os.path.join(oci, "blobs", "sha256", digest.split(":")[1])

    def manifest_of(oci):
        d = json.load(open(os.path.join(oci, "index.json")))["manifests"][0]["digest"]
        return d, json.load(open(blob(oci, d)))
    # A layer blob swapped for a clean one: the manifest still names the old digest.
    oci = mk.oci_layout(os.path.join(root, "layer"), layers(), created_by=CREATED)
    other = mk.oci_layout(os.path.join(root, "clean"), clean)
    _, m = manifest_of(oci)
    _, cm = manifest_of(other)
    with open(blob(other, cm["layers"][0]["digest"]), "rb") as f:
        mk.write(blob(oci, m["layers"][0]["digest"]), f.read())
    out["layer swapped"] = (oci, "the blob does not match its digest")
    # The same uncompressed layer compressed otherwise: the blob's digest differs.
    oci = mk.oci_layout(os.path.join(root, "recompressed"), layers(), created_by=CREATED)
    _, m = manifest_of(oci)
    path = blob(oci, m["layers"][1]["digest"])
    data = gzip.decompress(open(path, "rb").read())
    mk.write(path, gzip.compress(data, compresslevel=1, mtime=1))
    out["layer recompressed"] = (oci, "the blob does not match its digest")
    # The config edited in place.
    oci = mk.oci_layout(os.path.join(root, "config"), layers(), created_by=CREATED)
    _, m = manifest_of(oci)
    path = blob(oci, m["config"]["digest"])
    mk.write(path, open(path, "rb").read().replace(b"\"amd64\"", b"\"arm64\""))
    out["config edited"] = (oci, "the content does not match its digest")
    # The manifest edited in place: it now names a clean layer, which is itself intact.
    oci = mk.oci_layout(os.path.join(root, "manifest"), layers(), created_by=CREATED)
    d, m = manifest_of(oci)
    m["layers"] = m["layers"][:1]
    mk.write(blob(oci, d), json.dumps(m).encode())
    out["manifest edited"] = (oci, "the content does not match its digest")
    # docker save: a layer tar swapped for clean content: its diff_id differs.
    good = mk.docker_archive(os.path.join(root, "good.tar"), layers(), created_by=CREATED)
    names = {}
    with tarfile.open(good) as t:
        members = [(m, t.extractfile(m).read() if m.isfile() else None) for m in t.getmembers()]
    names = json.loads(dict((m.name, d) for m, d in members)["manifest.json"])[0]["Layers"]
    path = os.path.join(root, "swapped.tar")
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as t:
        for m, d in members:
            if m.name == names[0]:
                d = mk.tar_bytes(clean[0])
                m.size = len(d)
            t.addfile(m, io.BytesIO(d) if d is not None else None)
    out["docker layer swapped"] = (path, "the uncompressed layer does not match its digest")
    # docker save: a config not named by its digest cannot be checked.
    path = os.path.join(root, "renamed.tar")
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as t:
        for m, d in members:
            if m.name == "manifest.json":
                doc = json.loads(d)
                doc[0]["Config"] = "config.json"
                d = json.dumps(doc).encode()
                m.size = len(d)
            elif m.name.endswith(".json"):
                m.name = "config.json"
            t.addfile(m, io.BytesIO(d) if d is not None else None)
    out["docker config renamed"] = (path, "is not named by its digest")
    return out


def test_digests(ctx):
    """Every blob is checked against its digest: a mismatch is exit 2, named on stderr, and no
    report is written (nothing is reported clean)."""
    for name, (path, why) in tampered_images(ctx).items():
        rc, out, err = audit(ctx, "--format", "json", path)
        ctx.check(f"{name}: exit 2, no report", rc == 2 and out == b"", f"{rc} {out[:200]!r}")
        ctx.check(f"{name}: named", b"is not the image its digests say" in err and
                  why.encode() in err, repr(err))


def test_spool_budget(ctx):
    """A compressed docker-save archive spools only the layers its manifest names, within the
    limits, and reads the rest again: a member the manifest never names (256 MiB of zeros)
    and a layer larger than the private directory's 16 MiB tmpfs cost no disk."""
    if not s2ctest.is_root() or not shutil.which("unshare"):
        return SKIP
    root = ctx.tree("spool")
    big = [mk.entry("usr/", "dir", 0o755), mk.entry("usr/bin/", "dir", 0o755),
           mk.entry("usr/bin/small", mode=0o4755, data=ELF),
           mk.entry("usr/share/zeros", data=bytes(48 << 20))]
    plain = mk.docker_archive(os.path.join(root, "plain.tar"), [base_layer(), big])
    path = os.path.join(root, "image.tar.gz")
    with tarfile.open(plain) as src, tarfile.open(path, "w:gz", compresslevel=1) as dst:
        for m in src.getmembers():
            dst.addfile(m, src.extractfile(m) if m.isfile() else None)
        junk = tarfile.TarInfo("junk/unnamed.bin")
        junk.size = 256 << 20
        dst.addfile(junk, Zeros(junk.size))
    tmp = os.path.join(root, "tmp")
    os.mkdir(tmp)
    script = ('mount -t tmpfs -o size=16m,mode=0700 s2c-small "$1" && shift && '
              'exec "$@"')
    rc, out, err = ctx.run(["audit-image", *KERNEL, "--format", "json", "--tmpdir", tmp, path],
                           prefix=["unshare", "--mount", "--propagation", "private", "sh", "-c",
                                   script, "sh", tmp])
    got = sorted(files_by_path(json.loads(out))) if out else err
    ctx.check("compressed archive on a small tmpfs: read", rc == 0 and
              got == ["/opt/app/helper", "/usr/bin/gone", "/usr/bin/ping", "/usr/bin/small",
                      "/usr/bin/su", "/usr/sbin/netd"], f"{rc} {got}")


class Zeros(io.RawIOBase):
    """@n zero bytes to read."""
    def __init__(self, n):
        self.left = n

    def readable(self):
        return True

    def readinto(self, b):
        k = min(len(b), self.left)
        b[:k] = bytes(k)
        self.left -= k
        return k


def test_usage(ctx):
    rc, out, err = ctx.run(["audit-image", "--help"])
    ctx.check("help", rc == 0 and b"--platform" in out and b"whiteout" in out, f"{rc}")
    for args, text in ((["audit-image"], b"missing FILE|DIR"),
                       (["audit-image", "a", "b"], b"unexpected argument 'b'"),
                       (["audit-image", "--platform", "amd64", "x"], b"invalid --platform")):
        rc, out, err = ctx.run(args)
        ctx.check(f"usage {args}", rc == 2 and text in err, f"{rc} {err!r}")
    rc, out, err = ctx.run(["audit-image", "/nonexistent-image"])
    ctx.check("missing image", rc == 3 and b"cannot open" in err, f"{rc} {err!r}")


def test_other_verbs_input(ctx):
    """Each verb names the other when given its input: nothing written, exit 2."""
    images = build_images(ctx, "other-verb")
    root = ctx.tree("other-verb-pkgs")
    deb = mk.write(os.path.join(root, "tool_1_amd64.deb"), mk.deb_bytes(
        "tool", data=[mk.entry("./usr/bin/", "dir", 0o755),
                      mk.entry("./usr/bin/tool", mode=0o4755, data=ELF)]))
    # an rpm's lead: what tells it apart before any reader runs
    rpm = mk.write(os.path.join(root, "tool-1-1.x86_64.rpm"),
                   b"\xed\xab\xee\xdb\x03\x00\x00\x00" + b"\0" * 88)
    report = os.path.join(root, "report.txt")
    for name, path in sorted(images.items()):
        rc, out, err = ctx.run(["audit-pkg", "-o", report, deb, path])
        ctx.check(f"audit-pkg {name}: exit 2, names audit-image, writes nothing",
                  rc == 2 and b"'suid2cap audit-image'" in err and path.encode() in err and
                  not os.path.exists(report), f"exit {rc} {err!r}")
    for path in (deb, rpm):
        rc, out, err = audit(ctx, "-o", report, path)
        ctx.check(f"audit-image {os.path.basename(path)}: exit 2, names audit-pkg",
                  rc == 2 and b"'suid2cap audit-pkg'" in err and path.encode() in err and
                  not os.path.exists(report), f"exit {rc} {err!r}")
    rc, out, err = ctx.run(["audit-pkg", "--format", "json", deb])
    ctx.check("audit-pkg of a .deb still reads it", rc == 0 and json.loads(out)["targets"],
              f"exit {rc} {err!r}")


def test_quiet(ctx):
    """--quiet as for audit: the summary line and the files a person must look at."""
    images = build_images(ctx, "quiet")
    rc, out, err = audit(ctx, "--quiet", images["oci"])
    lines = out.decode().splitlines()
    ctx.check("quiet: summary line first", rc == 0 and lines and
              lines[0].startswith("suid2cap audit of 1 image: ") and "PATH" not in out.decode(),
              out.decode())
    rc, out, err = audit(ctx, "--quiet", "--format", "json", images["oci"])
    ctx.check("quiet: text only", rc == 2 and b"--quiet shapes the text report" in err,
              f"exit {rc} {err!r}")


def test_noted_files(ctx):
    """Plain files are noted without their names, and a note answers as the member did: a
    later layer's hard link to one is that file, to one a whiteout or an opaque directory hid
    is to nothing (the image is refused, naming the link), and an entry beneath one is not
    applied (the audit is incomplete)."""
    root = ctx.tree("noted")
    E = mk.entry
    lower = [E("etc/", "dir", 0o755), E("etc/f", data=b"a"), E("opt/", "dir", 0o755),
             E("opt/d/", "dir", 0o755), E("opt/d/g", data=b"g"), E("srv/", "dir", 0o755),
             E("srv/x", data=b"x"), E("usr/", "dir", 0o755), E("usr/bin/", "dir", 0o755),
             E("usr/bin/ping", mode=0o4755, data=b"\x7fELF")]
    hides = [E("etc/.wh.f"), E("opt/d/.wh..wh..opq"), E("opt/d/h", mode=0o600, data=b"h"),
             E("srv/x/y", data=b"y")]
    cases = {"whiteout": ([E("etc/g", "hardlink", link="etc/f")], "'/etc/g' is a hard link"),
             "opaque": ([E("opt/d/m", "hardlink", link="opt/d/g")], "'/opt/d/m' is a hard link"),
             "kept": ([E("opt/d/k", "hardlink", link="opt/d/h"),
                       E("usr/bin/k", "hardlink", link="opt/d/h")], None)}
    for name, (top, error) in cases.items():
        path = mk.oci_layout(os.path.join(root, name), [lower, hides, top])
        rc, out, err = audit(ctx, "--format", "json", path)
        doc = json.loads(out) if rc in (0, 1, 3) and out else {"targets": [{}]}
        t = doc["targets"][0]
        ctx.check(f"noted {name}: beneath a file not applied", any(
            "'/srv/x/y' lies beneath a file" in i for i in t.get("incomplete", [])), f"{t}")
        if error:
            ctx.check(f"noted {name}: refused naming the link", error in (t.get("error") or ""),
                      f"{rc} {t}")
        else:
            ctx.check(f"noted {name}: a hard link to a noted file is read",
                      t.get("error") is None and "/usr/bin/ping" in files_by_path(doc),
                      f"{rc} {t}")


def test_memory_budget(ctx):
    """A layer's privileged files count against --max-memory with their decision and report
    model (2 KiB each): an image of 20,000 empty set-ID files, under 1 MB of layer, is
    refused past 32M while it is read (exit 2, the image and the budget named, nothing
    written, the private directory removed) and audited within 64M.  The images of one
    index (--platform all), each within the budget, are refused together past it."""
    root = ctx.tree("memory-budget")
    tmpdir = ctx.tree("memory-budget-private")
    k = 10 if "ASAN_OPTIONS" in os.environ else 1
    n = 20000 // k
    small, large = ("32M", "64M") if k == 1 else ("2M", "16M")
    E = mk.entry
    layer = [E("usr/", "dir", 0o755), E("usr/lib/", "dir", 0o755)]
    for d in range(n // 1000):
        layer.append(E(f"usr/lib/d{d:02}/", "dir", 0o755))
        layer += [E(f"usr/lib/d{d:02}/f{i:04}", mode=0o4755, data=b"") for i in range(1000)]
    image = mk.oci_layout(os.path.join(root, "oci"), [layer])
    report = os.path.join(root, "report.json")
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--max-memory", small, "-o", report, image)
    ctx.check(f"memory budget: {n} set-ID files past {small}: exit 2 naming the image and "
              "the budget", rc == 2 and b"oci" in err and f"{small[:-1]} MiB".encode() in err
              and b"privileged files" in err, f"{rc} {err[-400:]!r}")
    ctx.check("memory budget: nothing written", out == b"" and not os.path.exists(report),
              f"{out[:100]!r}")
    ctx.check("memory budget: private directory removed", os.listdir(tmpdir) == [],
              f"{os.listdir(tmpdir)}")
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--max-memory", large, "--format", "json",
                         image)
    files = json.loads(out)["files"] if rc in (0, 1) else []
    ctx.check(f"memory budget: {n} set-ID files within {large}, every one reported",
              len(files) == n, f"{rc} {len(files)} {err[-300:]!r}")
    # --platform all: the images of one index, each within the budget, must not add up
    # past it.
    n = 12000 // k
    budget = "32M" if k == 1 else "4M"
    images = []
    for arch in ("amd64", "arm64"):
        layer = [E("opt/", "dir", 0o755), E(f"opt/{arch}/", "dir", 0o755)]
        layer += [E(f"opt/{arch}/f{i:05}", mode=0o4755, data=b"") for i in range(n)]
        images.append((mk.oci_layout(os.path.join(root, arch), [layer], arch=arch), arch))
    multi = merged_index(os.path.join(root, "multi"), images)
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--max-memory", budget, "--platform",
                         "linux/arm64", "--format", "json", multi)
    files = json.loads(out)["files"] if rc in (0, 1) else []
    ctx.check(f"memory budget: one image of {n} set-ID files within {budget}",
              len(files) == n, f"{rc} {len(files)} {err[-300:]!r}")
    rc, out, err = audit(ctx, "--tmpdir", tmpdir, "--max-memory", budget, "--platform", "all",
                         "-o", report, multi)
    ctx.check(f"memory budget: two images together past {budget}: exit 2, the run's budget "
              "named, nothing written", rc == 2 and b"with the images read before it" in err
              and f"{budget[:-1]} MiB".encode() in err and not os.path.exists(report),
              f"{rc} {err[-400:]!r}")
    ctx.check("memory budget: two images: private directory removed",
              os.listdir(tmpdir) == [], f"{os.listdir(tmpdir)}")


TESTS = [test_layers_and_whiteouts, test_symlinked_layers, test_plan_and_bounding,
         test_dockerfile_line_fails_loudly,
         test_known_bounding_set, test_package_databases, test_formats,
         test_platform, test_hostile, test_relative_path, test_untrusted_config,
         test_digests, test_spool_budget, test_other_verbs_input, test_quiet, test_usage,
         test_noted_files, test_memory_budget]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
