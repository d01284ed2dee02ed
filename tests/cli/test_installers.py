#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What audit-pkg and audit-image predict, against what the real installers produce.

rpm: packages built here with rpmbuild (plain ones and hostile ones: triggers on
themselves and on other packages, file triggers, lua, programs without a script)
are installed with `rpm --root` into a throwaway root, in a private mount
namespace where the host's /usr is the lower layer of an overlay, so that the
scriptlets can run and nothing is written to the host.
Images: OCI layouts and docker-save archives written here (hostile ones among
them) are unpacked with `umoci unpack` (docker archives after `skopeo copy` to an
OCI layout).  Every installed file's mode, owner, group and capabilities are
compared with the JSON prediction: each file exactly, or the target says it is
incomplete; never complete and wrong.  Needs root (77 otherwise).
"""
import json
import os
import re
import shutil
import stat
import subprocess
import sys

import mkarchive as mk
import s2ctest
import test_audit_pkg
from s2ctest import SKIP

KERNEL = ["--kernel", "6.1"]
PASSWD = b"root:x:0:0:root:/root:/bin/sh\ndaemon:x:1:1::/:/bin/false\nbin:x:2:2::/:/bin/false\n"
GROUP = b"root:x:0:\ndaemon:x:1:\nbin:x:2:\n"


def caps_text(path):
    """getcap's text of @path's capabilities, or None."""
    p = subprocess.run(["getcap", path], capture_output=True, text=True)
    out = p.stdout.strip()
    if p.returncode != 0 or not out:
        return None
    return out.split(None, 1)[1].replace(" ", "") if " " in out else None


def installed_state(root, under, names):
    """{path: (mode, owner, group, caps)} of every privileged regular file below @under
    in @root, owners by @names ({uid: name}, {gid: name})."""
    got = {}
    base = os.path.join(root, under.lstrip("/"))
    for dirpath, _, files in os.walk(base):
        for name in files:
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            if not stat.S_ISREG(st.st_mode):
                continue
            caps = caps_text(full)
            if not (st.st_mode & 0o6000) and not caps:
                continue
            path = "/" + os.path.relpath(full, root)
            got[path] = ("%04o" % (st.st_mode & 0o7777), names[0].get(st.st_uid, str(st.st_uid)),
                         names[1].get(st.st_gid, str(st.st_gid)), caps)
    return got


def predicted_state(doc, under):
    """{path: (mode, owner, group, caps)} of the report's files below @under ("" for all)."""
    want = {}
    for f in doc["files"]:
        fa = f["file"]
        if not fa["path"].startswith(under + "/"):
            continue
        caps = fa["caps"]["text"] if fa.get("caps") else None
        want[fa["path"]] = (fa["mode"], fa["owner"], fa["group"], caps)
    return want


def norm_caps(c):
    """'cap_net_raw=ep' and 'cap_net_raw+ep' alike."""
    return c.replace("+", "=") if c else c


def compare(ctx, name, doc, got, under, want_complete=None):
    """Exact, or the target says it is incomplete; never complete and wrong."""
    t = doc["targets"][0]
    want = predicted_state(doc, under)
    same = {p: (m, o, g, norm_caps(c)) for p, (m, o, g, c) in want.items()} == \
           {p: (m, o, g, norm_caps(c)) for p, (m, o, g, c) in got.items()}
    ctx.check(f"{name}: exact or incomplete", same or not t["complete"],
              f"complete={t['complete']}\npredicted {want}\ninstalled {got}")
    if want_complete is not None:
        ctx.check(f"{name}: complete is {want_complete}", t["complete"] == want_complete,
                  json.dumps(t.get("incomplete")))
    return same


# --- rpm ------------------------------------------------------------------------------------

HEAD = """Name: NAME
Version: 1.0
Release: 1
Summary: suid2cap installer test
License: GPL-2.0-or-later
BuildArch: noarch
%description
Built by the suid2cap tests.
%install
mkdir -p %{buildroot}/opt/NAME
for f in FILES; do printf 'x' > %{buildroot}/opt/NAME/$f; done
%files
%attr(0755,root,root) /opt/NAME/*
"""


def spec(name, files, body, attrs=""):
    """A noarch spec installing /opt/@name/<each of @files> 0755, with @attrs lines
    replacing the %files default for some, and the scriptlets in @body."""
    s = HEAD.replace("NAME", name).replace("FILES", " ".join(files))
    if attrs:
        s = s.replace("%attr(0755,root,root) /opt/" + name + "/*\n", attrs)
    return s + body


# Every scriptlet here is modelled exactly: the audit must be complete and right.
EXACT = spec("s2c-exact", "a c d e f g h i j l".split(), """
%pretrans
chmod 4755 /opt/s2c-exact/l 2>/dev/null || :
%pre
chmod 4755 /opt/s2c-exact/l 2>/dev/null || :
%post -p "/bin/chmod 4755 /opt/s2c-exact/a"
%triggerin -- s2c-exact
chmod 4755 /opt/s2c-exact/c
%triggerin -- s2c-exact < 1.0
chmod 4755 /opt/s2c-exact/d
%triggerprein -- s2c-exact
chmod 4755 /opt/s2c-exact/e
%triggerun -- s2c-exact
chmod 4755 /opt/s2c-exact/f
%filetriggerin -- /opt/s2c-exact
chmod 2755 /opt/s2c-exact/g
%transfiletriggerin -- /opt/s2c-ex
chmod 4711 /opt/s2c-exact/h
""", attrs="""%attr(0755,root,root) /opt/s2c-exact/[ac-h]
%attr(4750,root,daemon) /opt/s2c-exact/i
%attr(0755,root,root) %caps(cap_net_raw=ep) /opt/s2c-exact/j
%attr(0755,root,root) /opt/s2c-exact/l
""")

# lua that names only what is modelled, or nothing that reaches a file: complete and right.
LUA = spec("s2c-lua", ["b", "k", "m"], """
%pretrans -p <lua>
-- posix.chmod("/opt/s2c-lua/m", "4755") in a comment, and os.execute in a string:
print("nothing but words: os.execute")
%posttrans -p <lua>
posix.chmod("/opt/s2c-lua/b", "4755")
posix.chown("/opt/s2c-lua/k", "daemon", "bin");
posix.chmod("/opt/s2c-lua/k", "u+s")
os.execute("chmod g+s /opt/s2c-lua/k")
""")

# Scriptlets that may or may not run, or that are not modelled: incomplete.
MAYBE = spec("s2c-maybe", "a b c d".split(), """
%triggerin -- s2c-other
chmod 4755 /opt/s2c-maybe/a
%filetriggerin -- /opt/s2c-other
chmod 4755 /opt/s2c-maybe/b
%post -p <lua>
local p = "/opt/s2c-maybe/" .. "c"
posix.chmod(p, "4755")
%posttrans -p /usr/bin/perl
chmod 04755, "/opt/s2c-maybe/d";
""")

OTHER = spec("s2c-other", ["x"], "")

# Scriptlets that run the package's own files: a shell script is evaluated (complete and
# right); another program is code the audit does not run (incomplete), and rpm runs it.
OWN = "%global __os_install_post %{nil}\n" + spec("s2c-own", ["a", "b", "helper.sh", "setup"], """
%post
. /opt/s2c-own/helper.sh
/opt/s2c-own/setup
""").replace("""for f in FILES; do printf 'x' > %{buildroot}/opt/s2c-own/$f; done
""".replace("FILES", "a b helper.sh setup"), """for f in a b; do printf 'x' > %{buildroot}/opt/s2c-own/$f; done
printf 'chmod 4755 /opt/s2c-own/a\\n' > %{buildroot}/opt/s2c-own/helper.sh
printf '#!/usr/bin/perl\\nchmod 04755, "/opt/s2c-own/b";\\n' > %{buildroot}/opt/s2c-own/setup
""")
SHELL_ONLY = OWN.replace("s2c-own", "s2c-shown").replace(
    "helper.sh\n/opt/s2c-shown/setup\n", "helper.sh\n")


# A %post that reads a %config file: rpm keeps a (noreplace) one that is already there, and
# replaces a plain one (saving the old as .rpmorig).
def config_spec(name, flag):
    return spec(name, ["a"], f"""
%post
if grep -q '^setuid=yes' /etc/{name}.conf; then chmod 4755 /opt/{name}/a; fi
""", attrs=f"""%attr(0755,root,root) /opt/{name}/a
{flag} %attr(0644,root,root) /etc/{name}.conf
""").replace("%files", f"printf 'setuid=no\\n' > %{{buildroot}}/etc/{name}.conf\n%files").replace(
        "mkdir -p %{buildroot}/opt", "mkdir -p %{buildroot}/etc %{buildroot}/opt")


def rpmbuild(ctx, top, text, arch="noarch"):
    name = re.search(r"^Name: (\S+)", text, re.M).group(1)
    path = os.path.join(top, name + ".spec")
    mk.write(path, text.encode())
    p = subprocess.run(["rpmbuild", "--define", f"_topdir {top}/top", "--define",
                        f"_dbpath {top}/db", "--define", "_build_id_links none", "-bb", path],
                       capture_output=True)
    if p.returncode != 0:
        ctx.check(f"rpmbuild {name}", False, p.stderr.decode(errors="replace")[-800:])
        return None
    rpms = os.path.join(top, "top", "RPMS", arch)
    return os.path.join(rpms, next(f for f in os.listdir(rpms) if f.startswith(name + "-")))


# The host's /usr in the new root as the lower layer of an overlay (the scriptlets' /bin/sh
# and tools; what the packages put in /usr goes to the upper layer, a directory beside the
# root), then install: everything rpm writes stays in the root and the upper layer.
INSTALL = r"""
set -e
R=$1 U=$2 W=$3; shift 3
mkdir -p "$R/usr" "$R/tmp" "$R/etc" "$R/var/tmp"
for d in bin sbin lib lib64; do [ -e "/$d" ] && ln -s "usr/$d" "$R/$d"; done
mount -t overlay -o "lowerdir=/usr,upperdir=$U,workdir=$W" s2c-usr "$R/usr"
rpm --root "$R" --initdb
for p in "$@"; do rpm --root "$R" -i --nodeps --nosignature --noplugins "$p" 2>&1; done
"""


def rpm_install(ctx, name, rpms, names, etc=None):
    """Install @rpms into a new root holding the files @etc ({name: bytes}) in /etc already;
    {path: state} of the privileged files below /opt and those the packages put in /usr."""
    root = ctx.tree(name)
    upper, work = ctx.tree(name + "-usr"), ctx.tree(name + "-work")
    os.makedirs(os.path.join(root, "etc"))
    mk.write(os.path.join(root, "etc", "passwd"), PASSWD)
    mk.write(os.path.join(root, "etc", "group"), GROUP)
    for f, data in (etc or {}).items():
        mk.write(os.path.join(root, "etc", f), data)
    p = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", INSTALL,
                        "install", root, upper, work, *rpms], capture_output=True, timeout=300)
    ctx.check(f"rpm --root {name}", p.returncode == 0, p.stdout.decode(errors="replace")[-800:]
              + p.stderr.decode(errors="replace")[-800:])
    got = installed_state(root, "/opt", names)
    got.update({"/usr" + path: st for path, st in installed_state(upper, "/", names).items()})
    return got


def audit_pkg(ctx, rpm):
    rc, out, err = ctx.run(["audit-pkg", *KERNEL, "--format", "json", rpm])
    try:
        return rc, json.loads(out), err
    except ValueError:
        ctx.check(f"audit-pkg {rpm}", False, f"{rc} {err!r}")
        return rc, None, err


def rpm_tools():
    """Whether this runner can build and install rpms (root, and the tools)."""
    if not s2ctest.is_root():
        return False
    for tool in ("rpmbuild", "rpm", "unshare", "getcap"):
        if not shutil.which(tool):
            print(f"note: {tool} missing", file=sys.stderr)
            return False
    return True


def test_rpm_installs(ctx):
    """Each file's installed state is the prediction; a scriptlet that may not run, or
    one in a language not modelled, makes the target incomplete."""
    if not rpm_tools():
        return SKIP
    top = ctx.tree("rpmbuild")
    built = {n: rpmbuild(ctx, top, s) for n, s in (("exact", EXACT), ("lua", LUA),
                                                   ("maybe", MAYBE), ("other", OTHER),
                                                   ("own", OWN), ("shown", SHELL_ONLY))}
    # The package of the audit-pkg tests: setuid, %caps with owner names, a %post chmod.
    built["rpmtest"] = rpmbuild(ctx, top, test_audit_pkg.SPEC.replace("PROGRAM", "/usr/bin/true"),
                                "x86_64")
    if None in built.values():
        return None
    names = ({0: "root", 1: "daemon", 2: "bin"}, {0: "root", 1: "daemon", 2: "bin"})
    for name, want in (("exact", "acghij"), ("lua", "bk"), ("shown", "a"), ("rpmtest", None)):
        rc, doc, err = audit_pkg(ctx, built[name])
        if not doc:
            continue
        ctx.check(f"{name}: exit 0", rc == 0, f"{rc} {err!r}")
        got = rpm_install(ctx, name, [built[name]], names)
        compare(ctx, name, doc, got, "", want_complete=True)
        if want:
            ctx.check(f"{name}: what rpm did",
                      sorted(got) == [f"/opt/s2c-{name}/{c}" for c in want], f"{sorted(got)}")
    rc, doc, err = audit_pkg(ctx, built["maybe"])
    if doc:
        why = " ".join(doc["targets"][0]["incomplete"])
        ctx.check("maybe: exit 3, incomplete", rc == 3 and not doc["targets"][0]["complete"],
                  f"{rc} {err!r}")
        for frag in ("%triggerin -- s2c-other runs only when s2c-other is installed",
                     "%filetriggerin -- /opt/s2c-other runs only when a file under",
                     "%post: a lua scriptlet that can reach files or programs (posix)",
                     "%posttrans: runs in /usr/bin/perl"):
            ctx.check(f"maybe: names {frag!r}", frag in why, why)
        # Alone and with the other package present: neither is predicted exactly.
        for label, rpms in (("alone", [built["maybe"]]),
                            ("with s2c-other", [built["other"], built["maybe"]])):
            got = rpm_install(ctx, "maybe", rpms, names)
            compare(ctx, f"maybe {label}", doc, got, "")
            ctx.check(f"maybe {label}: the lua and perl scriptlets ran",
                      {"/opt/s2c-maybe/c", "/opt/s2c-maybe/d"} <= set(got), f"{sorted(got)}")
        ctx.check("maybe with s2c-other: the triggers fired",
                  {"/opt/s2c-maybe/a", "/opt/s2c-maybe/b"} <= set(got), f"{sorted(got)}")
    rc, doc, err = audit_pkg(ctx, built["own"])
    if doc:
        why = " ".join(doc["targets"][0]["incomplete"])
        ctx.check("own: exit 3, the program of the package named", rc == 3 and
                  "/opt/s2c-own/setup" in why and "%post" in why, f"{rc} {why}")
        got = rpm_install(ctx, "own", [built["own"]], names)
        compare(ctx, "own", doc, got, "")
        ctx.check("own: rpm ran the helper and the program",
                  sorted(got) == ["/opt/s2c-own/a", "/opt/s2c-own/b"], f"{sorted(got)}")
    return None


def test_rpm_config(ctx):
    """A %post that reads a %config(noreplace) file: the packed text decides the installed
    state, and the administrator's text (a file rpm keeps) is a note that rpm bears out; a
    plain %config file is replaced, so its packed text is what the %post reads."""
    if not rpm_tools():
        return SKIP
    top = ctx.tree("rpmbuild-config")
    built = {n: rpmbuild(ctx, top, config_spec(n, flag))
             for n, flag in (("s2c-keep", "%config(noreplace)"), ("s2c-repl", "%config"))}
    if None in built.values():
        return None
    names = ({0: "root"}, {0: "root"})
    note = ("/opt/s2c-keep/a: where the %config file /etc/s2c-keep.conf is not as packed: "
            "4755 root:root")
    for name, rpm in built.items():
        rc, doc, err = audit_pkg(ctx, rpm)
        if not doc:
            continue
        t = doc["targets"][0]
        ctx.check(f"{name}: exit 0, complete, nothing privileged",
                  rc == 0 and t["complete"] and doc["files"] == [], f"{rc} {err!r} {t}")
        ctx.check(f"{name}: the note only where rpm keeps the file",
                  (note in t["notes"]) == (name == "s2c-keep"), f"{t['notes']}")
        got = rpm_install(ctx, name, [rpm], names)
        compare(ctx, f"{name} fresh", doc, got, "", want_complete=True)
        got = rpm_install(ctx, name + "-over", [rpm], names, {name + ".conf": b"setuid=yes\n"})
        if name == "s2c-keep":
            ctx.check("s2c-keep over the administrator's file: as the note says",
                      got == {"/opt/s2c-keep/a": ("4755", "root", "root", None)}, f"{got}")
        else:
            compare(ctx, f"{name} over an earlier file", doc, got, "", want_complete=True)
    return None


# --- images ---------------------------------------------------------------------------------

ELF = b"\x7fELF-fixture\n"
IMG_PASSWD = b"root:x:0:0:root:/root:/bin/sh\ndaemon:x:1:1::/:/bin/false\n"
IMG_GROUP = b"root:x:0:\ndaemon:x:1:\nshadow:x:42:\n"
CAPS_RAW = bytes([1, 0, 0, 2, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])


def accounts():
    return [mk.entry("etc/", "dir", 0o755), mk.entry("etc/passwd", data=IMG_PASSWD),
            mk.entry("etc/group", data=IMG_GROUP)]


def hostile_layers():
    """{name: layers} of images whose layers act through symbolic links: what containerd
    and umoci do there is what the audit must predict."""
    e = mk.entry
    return {
        # a whiteout and an opaque marker reached through a symlinked directory, a symlink
        # replacing a directory, a file placed through an absolute symlink
        "through-links": [
            accounts() + [e("b/", "dir", 0o755), e("b/x", mode=0o4755, data=ELF),
                          e("b/y", mode=0o4755, data=ELF), e("a", "symlink", 0o777, link="b"),
                          e("d/", "dir", 0o755), e("d/z", mode=0o4755, data=ELF),
                          e("c", "symlink", 0o777, link="/b"), e("e/", "dir", 0o755),
                          e("e/f", mode=0o755, data=ELF, xattrs={"security.capability": CAPS_RAW})],
            [e("a/.wh.x", data=b""), e("d", "symlink", 0o777, link="b"),
             e("c/w", mode=0o2755, gid=42, gname="shadow", data=ELF),
             e("e/g", mode=0o2750, gid=42, gname="shadow", data=ELF)],
            [e("c/.wh..wh..opq", data=b"")]],
        # a file put through a symlink that is later pointed elsewhere, then "whited out"
        # through the new target: the file stays
        "retargeted": [
            accounts() + [e("b/", "dir", 0o755), e("c/", "dir", 0o755),
                          e("a", "symlink", 0o777, link="b")],
            [e("a/v", mode=0o4755, data=ELF)],
            [e("a", "symlink", 0o777, link="c")],
            [e("a/.wh.v", data=b"")]],
        # whiteouts hide only the lower layers; ".." never climbs above the root; a hard
        # link through a symlinked directory
        "same-layer": [
            accounts() + [e("s/", "dir", 0o755), e("s/old", mode=0o4755, data=ELF),
                          e("l", "symlink", 0o777, link="../../../x"), e("x/", "dir", 0o755),
                          e("h/", "dir", 0o755), e("h/orig", mode=0o4755, data=ELF),
                          e("k", "symlink", 0o777, link="h")],
            [e("s/new", mode=0o4755, data=ELF), e("s/.wh.new", data=b""),
             e("s/.wh..wh..opq", data=b""), e("l/p", mode=0o4755, data=ELF),
             e("k/again", "hardlink", 0o4755, link="k/orig")]],
    }


def plain_layers():
    """The everyday case: setuid files, a whiteout, an opaque directory, a setgid tool, a
    capability, a setuid bit a later layer clears."""
    e = mk.entry
    return [accounts() + [e("usr/", "dir", 0o755), e("usr/bin/", "dir", 0o755),
                          e("usr/bin/ping", mode=0o4755, data=ELF),
                          e("usr/bin/su", mode=0o4755, data=ELF),
                          e("usr/bin/gone", mode=0o4755, data=ELF),
                          e("opt/app/", "dir", 0o755), e("opt/app/helper", mode=0o4755, data=ELF),
                          e("usr/sbin/netd", mode=0o755, data=ELF,
                            xattrs={"security.capability": CAPS_RAW})],
            [e("usr/bin/.wh.gone", data=b""), e("opt/app/.wh..wh..opq", data=b""),
             e("usr/local/bin/tool", mode=0o2750, gid=42, gname="shadow", data=ELF)],
            [e("usr/bin/su", mode=0o755, data=ELF)]]


def image_names(rootfs):
    """({uid: name}, {gid: name}) from the unpacked image's own passwd and group."""
    names = ({}, {})
    for i, f in enumerate(("etc/passwd", "etc/group")):
        try:
            for line in open(os.path.join(rootfs, f)):
                p = line.split(":")
                if len(p) > 2 and p[2].isdigit():
                    names[i].setdefault(int(p[2]), p[0])
        except OSError:
            pass
    return names


def umoci_unpack(ctx, layout, name):
    bundle = os.path.join(ctx.tree("bundle-" + name), "bundle")
    p = subprocess.run(["umoci", "unpack", "--image", layout + ":test", bundle],
                       capture_output=True, timeout=300)
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace")[-500:]
    rootfs = os.path.join(bundle, "rootfs")
    return installed_state(rootfs, "/", image_names(rootfs)), None


def audit_image(ctx, path):
    rc, out, err = ctx.run(["audit-image", *KERNEL, "--format", "json", path])
    try:
        return rc, json.loads(out), err
    except ValueError:
        ctx.check(f"audit-image {path}", False, f"{rc} {err!r}")
        return rc, None, err


def test_images_unpacked(ctx):
    """OCI layouts and docker-save archives (converted by skopeo) unpacked by umoci: each
    privileged file as predicted, or the image incomplete."""
    if not s2ctest.is_root():
        return SKIP
    for tool in ("umoci", "skopeo", "getcap"):
        if not shutil.which(tool):
            print(f"note: {tool} missing (Debian packages umoci, skopeo)", file=sys.stderr)
            return SKIP
    root = ctx.tree("images")
    cases = dict(hostile_layers(), plain=plain_layers())
    for name, layers in cases.items():
        layout = mk.oci_layout(os.path.join(root, name), layers, tag="test")
        archive = mk.docker_archive(os.path.join(root, name + ".tar"), layers)
        converted = os.path.join(root, name + "-skopeo")
        p = subprocess.run(["skopeo", "--insecure-policy", "copy", "docker-archive:" + archive,
                            "oci:" + converted + ":test"], capture_output=True, timeout=300)
        ctx.check(f"{name}: skopeo copy", p.returncode == 0, p.stderr.decode(errors="replace"))
        for label, audited, unpacked in ((name, layout, layout),
                                         (name + " (docker-archive)", archive, converted)):
            rc, doc, err = audit_image(ctx, audited)
            got, why = umoci_unpack(ctx, unpacked, name)
            if doc is None or got is None:
                ctx.check(f"{label}: umoci unpack", got is not None, why or "")
                continue
            ctx.check(f"{label}: exit 0, complete", rc == 0 and doc["targets"][0]["complete"],
                      f"{rc} {err!r}")
            compare(ctx, label, doc, got, "")
    return None


def test_image_beneath_a_file(ctx):
    """A layer's file beneath a lower layer's file: umoci refuses the image, the audit says
    it is incomplete."""
    if not s2ctest.is_root() or not shutil.which("umoci"):
        return SKIP
    layers = [accounts() + [mk.entry("f", data=b"x")], [mk.entry("f/g", mode=0o4755, data=ELF)]]
    layout = mk.oci_layout(os.path.join(ctx.tree("beneath"), "img"), layers, tag="test")
    got, why = umoci_unpack(ctx, layout, "beneath")
    ctx.check("umoci refuses it", got is None and "not a directory" in (why or ""), f"{got} {why}")
    rc, doc, err = audit_image(ctx, layout)
    ctx.check("the audit is incomplete", doc and rc == 3 and not doc["targets"][0]["complete"]
              and "lies beneath a file" in " ".join(doc["targets"][0]["incomplete"]),
              f"{rc} {err!r}")
    return None


if __name__ == "__main__":
    sys.exit(s2ctest.main([test_rpm_installs, test_rpm_config, test_images_unpacked,
                           test_image_beneath_a_file], sys.argv[1:]))
