#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI tests of `suid2cap audit-image`: OCI layouts (directory and tar) and docker-save
archives written here by tests/cli/mkarchive.py, layers with whiteouts and opaque
directories, docker's symlinked layer tars, container bounding sets, the image's package
databases, the Dockerfile plan, and hostile images.  No container engine is used; nothing here needs root.
"""
import base64
import hashlib
import json
import os
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
              "setcap 'cap_net_raw=ep' '/usr/bin/ping' && chmod 0755 '/usr/bin/ping'" in
              plan["text"], json.dumps(plan)[:600])
    netd = files_by_path(doc).get("/usr/sbin/netd")
    ctx.check("bounding: cap_net_admin flagged for Docker and Podman", netd and any(
        "cap_net_admin is outside the default bounding set of Docker and Podman" in w and
        "execve fails with EPERM" in w and "--cap-add NET_ADMIN" in w
        for w in netd["warnings"]), json.dumps(netd["warnings"] if netd else None))
    ping = files_by_path(doc).get("/usr/bin/ping")
    ctx.check("bounding: cap_net_raw flagged for Podman only", ping and any(
        "outside the default bounding set of Podman containers (Docker has it)" in w
        for w in ping["warnings"]), json.dumps(ping["warnings"] if ping else None))


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


def test_platform(ctx):
    """A multi-platform index: --platform picks the image, the default is the first linux one."""
    root = ctx.tree("multi")
    arm = mk.oci_layout(os.path.join(root, "arm"), [[mk.entry("usr/bin/armonly", mode=0o4755,
                                                             data=ELF)]])
    amd = mk.oci_layout(os.path.join(root, "amd"), [[mk.entry("usr/bin/amdonly", mode=0o4755,
                                                             data=ELF)]])
    # One layout with both manifests: blobs of both, an index naming both platforms.
    multi = os.path.join(root, "both")
    os.makedirs(os.path.join(multi, "blobs", "sha256"))
    manifests = []
    for src, arch in ((arm, "arm64"), (amd, "amd64")):
        for blob in os.listdir(os.path.join(src, "blobs", "sha256")):
            os.link(os.path.join(src, "blobs", "sha256", blob),
                    os.path.join(multi, "blobs", "sha256", blob))
        m = json.load(open(os.path.join(src, "index.json")))["manifests"][0]
        m["platform"]["architecture"] = arch
        manifests.append(m)
    mk.write(os.path.join(multi, "oci-layout"), b'{"imageLayoutVersion": "1.0.0"}')
    mk.write(os.path.join(multi, "index.json"), json.dumps({"schemaVersion": 2,
                                                            "manifests": manifests}).encode())
    for args, want in (([], "/usr/bin/armonly"), (["--platform", "linux/amd64"],
                                                   "/usr/bin/amdonly"),
                       (["--platform", "linux/arm64"], "/usr/bin/armonly")):
        rc, out, err = audit(ctx, "--format", "json", *args, multi)
        got = sorted(files_by_path(json.loads(out))) if rc == 0 else err
        ctx.check(f"platform {args}", got == [want], f"{rc} {got}")
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
    out["through-symlink"] = mk.docker_archive(os.path.join(root, "through.tar"), [
        [mk.entry("usr/lib/libcap.so.9", "symlink", 0o777, link=outside)],
        [mk.entry("usr/lib/libcap.so.9/evil", mode=0o4755, data=ELF)]])
    bad = mk.oci_layout(os.path.join(root, "digest-dotdot"), good)
    idx = json.load(open(os.path.join(bad, "index.json")))
    idx["manifests"][0]["digest"] = "sha256:../../../../etc/passwd"
    mk.write(os.path.join(bad, "index.json"), json.dumps(idx).encode())
    out["digest-with-path"] = bad
    out["manifest-garbage"] = mk.write(os.path.join(root, "garbage.tar"), mk.tar_bytes(
        [mk.entry("manifest.json", data=b"[{\"Config\": 1")]))
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
            "through-symlink": "libcap.so.9/evil", "digest-with-path": "without a plain digest",
            "manifest-garbage": "not valid JSON", "not-an-image": "",
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


TESTS = [test_layers_and_whiteouts, test_symlinked_layers, test_plan_and_bounding,
         test_known_bounding_set, test_package_databases, test_formats,
         test_platform, test_hostile, test_relative_path, test_other_verbs_input, test_quiet,
         test_usage]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
