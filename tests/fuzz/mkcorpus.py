#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the seed inputs of the deb, rpm, oci, maintscript, plan and fleet fuzz targets.

    tests/fuzz/mkcorpus.py [DEBDIR]

DEBDIR (default build/test-deps/debs) holds real Debian packages whose
maintainer scripts become maintscript seeds.  The rpm seeds need rpmbuild.
Every seed is named by the SHA-1 of its bytes, as libFuzzer names its finds.
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
import mkarchive as mk  # noqa: E402

CORPUS = os.path.join(HERE, "corpus")
ELF = b"\x7fELF\x02\x01\x01" + b"\0" * 57
PING_POSTINST = """#!/bin/sh
set -e
PROGRAM=$(dpkg-divert --truename /bin/ping)
if [ "$1" = configure ]; then
    if command -v setcap > /dev/null; then
        if setcap cap_net_raw+ep $PROGRAM; then
            chmod u-s $PROGRAM
        else
            chmod u+s $PROGRAM
        fi
    else
        chmod u+s $PROGRAM
    fi
fi
"""


def put(target, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def debs():
    data = [mk.entry("./", "dir", 0o755), mk.entry("./bin/", "dir", 0o755),
            mk.entry("./bin/ping", mode=0o755, data=ELF),
            mk.entry("./usr/bin/su", mode=0o4755, data=ELF),
            mk.entry("./usr/bin/su2", "hardlink", 0o4755, link="./usr/bin/su"),
            mk.entry("./usr/lib/libcap.so.2", "symlink", 0o777, link="libcap.so.2.66"),
            mk.entry("./usr/lib/libcap.so.2.66", mode=0o644, data=ELF),
            mk.entry("./usr/sbin/capped", mode=0o755, data=ELF,
                     xattrs={"security.capability": bytes([1, 0, 0, 2, 0, 0x20] + [0] * 14)})]
    for compress in ("xz", "gz", None):
        put("deb", mk.deb_bytes(scripts={"postinst": PING_POSTINST}, data=data, compress=compress))
    put("deb", mk.deb_bytes(data=[mk.entry("/abs", mode=0o4755, data=ELF)]))
    put("deb", mk.deb_bytes(data=[mk.entry("./a/../../b", mode=0o4755, data=ELF)]))
    put("deb", mk.deb_bytes(data=[mk.entry("./usr/lib/libcap.so.1", "symlink", 0o777, link="/tmp"),
                                  mk.entry("./usr/lib/libcap.so.1/x", mode=0o4755, data=ELF)]))
    put("deb", mk.deb_bytes(order=["debian-binary", "data.tar.xz", "control.tar.xz"]))
    put("deb", mk.deb_bytes(data=[mk.entry("./x", mode=0o4755, data=b"y" * 512, size=1 << 30)],
                            compress=None))


def rpms():
    if not shutil.which("rpmbuild"):
        print("rpmbuild missing: no rpm seeds", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as top:
        spec = os.path.join(top, "s.spec")
        with open(spec, "w") as f:
            f.write("""Name: seed
Version: 1
Release: 1
Summary: seed
License: GPL-2.0-or-later
BuildArch: noarch
%description
seed
%install
mkdir -p %{buildroot}/usr/bin
printf '#!/bin/sh\\n' > %{buildroot}/usr/bin/s
printf '#!/bin/sh\\n' > %{buildroot}/usr/bin/c
%files
%attr(4755,root,root) /usr/bin/s
%attr(0755,root,daemon) %caps(cap_net_raw=ep) /usr/bin/c
%post
chmod u+s /usr/bin/c || :
%pretrans -p <lua>
posix.chmod("/usr/bin/s", "4755")
%triggerin -- seed
chmod 4755 /usr/bin/s
%triggerin -- other >= 2
chmod g+s /usr/bin/c
%filetriggerin -- /usr/bin
chmod 4755 /usr/bin/c
%transfiletriggerin -- /opt
chmod 4755 /usr/bin/c
%posttrans -p "/bin/chmod 4755 /usr/bin/c"
""")
        subprocess.run(["rpmbuild", "--define", f"_topdir {top}/t", "--define", f"_dbpath {top}/db",
                        "--define", "_build_id_links none", "--define", "_binary_payload w9.gzdio",
                        "-bb", spec], check=True, capture_output=True)
        path = os.path.join(top, "t", "RPMS", "noarch", "seed-1-1.noarch.rpm")
        data = open(path, "rb").read()
        put("rpm", data)
        put("rpm", data[: len(data) // 2])


def images():
    base = [mk.entry("etc/passwd", data=b"root:x:0:0::/:/bin/sh\n"),
            mk.entry("usr/bin/ping", mode=0o4755, data=ELF),
            mk.entry("usr/bin/su", mode=0o4755, data=ELF),
            mk.entry("opt/a/s", mode=0o4755, data=ELF)]
    top = [mk.entry("usr/bin/.wh.ping", data=b""), mk.entry("opt/a/.wh..wh..opq", data=b""),
           mk.entry("opt/a/n", mode=0o2755, data=ELF)]
    with tempfile.TemporaryDirectory() as d:
        put("oci", open(mk.docker_archive(os.path.join(d, "a.tar"), [base, top, top],
                                          symlink_layers=(2,)), "rb").read())
        put("oci", open(mk.docker_archive(os.path.join(d, "b.tar"), [base, top],
                                          outside_link=(1, "../../x")), "rb").read())
        lay = mk.oci_layout(os.path.join(d, "oci"), [base, top], gzip_layers=False)
        put("oci", open(mk.dir_to_tar(lay, os.path.join(d, "oci.tar")), "rb").read())
        # whiteouts, opaque markers and files through symlinked directories
        links = [mk.entry("b/x", mode=0o4755, data=ELF), mk.entry("a", "symlink", 0o777, link="b"),
                 mk.entry("c", "symlink", 0o777, link="/b/../b")]
        through = [mk.entry("a/.wh.x", data=b""), mk.entry("c/w", mode=0o4755, data=ELF),
                   mk.entry("c/.wh..wh..opq", data=b""), mk.entry("a", "symlink", 0o777, link="c")]
        put("oci", open(mk.docker_archive(os.path.join(d, "c.tar"), [links, through]),
                        "rb").read())


def strict_json():
    """Documents the strict JSON reader refuses: a key twice, nesting deeper than it
    allows, data after the document (an image's manifest.json, a plan)."""
    layer = mk.tar_bytes([mk.entry("usr/bin/su", mode=0o4755, data=ELF)])
    deep = b"[" * 70 + b"]" * 70
    for manifest in (b'[{"Config": "c.json", "Config": "d.json", "Layers": ["l.tar"]}]',
                     b'[{"Config": "c.json", "Layers": ["l.tar"], "x": ' + deep + b"}]",
                     b'[{"Config": "c.json", "Layers": ["l.tar"]}] []'):
        put("oci", mk.tar_bytes([mk.entry("manifest.json", data=manifest),
                                 mk.entry("c.json", data=b'{"rootfs": {"diff_ids": []}}'),
                                 mk.entry("l.tar", data=layer)]))
    put("plan", b'{"kind": "suid2cap-plan", "kind": "suid2cap-plan", "schema": 1}')
    put("plan", b'{"kind": "suid2cap-plan", "entries": ' + deep + b"}")


def scripts(debdir):
    put("maintscript", PING_POSTINST.encode())
    put("maintscript", b"f() { chmod \"$1\" \"$2\"; }\ncase \"$1\" in configure) f 4755 /x;; *) exit 1;; esac\n")
    put("maintscript", b"for x in /a /b; do setcap cap_net_raw+ep $x || chmod u+s $x; done\n")
    put("maintscript", b"cat <<EOF\nchmod u+s /y\nEOF\nX=`dpkg-divert --truename /z`; chown root:games \"$X\" && chmod 2755 $X\n")
    put("maintscript", b". /usr/share/dbconfig-common/dpkg/postinst.pgsql\ndbc_generate_include=php:/etc/x/db.php\ndbc_generate_include_perms=660\ndbc_go \"$DPKG_MAINTSCRIPT_PACKAGE\" \"$@\"\nip -o link show | grep -q UP && ip netns exec n chmod 4755 /x\n")
    if not os.path.isdir(debdir):
        return
    with tempfile.TemporaryDirectory() as d:
        for deb in sorted(os.listdir(debdir)):
            sub = os.path.join(d, deb)
            subprocess.run(["dpkg-deb", "-e", os.path.join(debdir, deb), sub], check=True)
            for name in ("preinst", "postinst"):
                path = os.path.join(sub, name)
                if os.path.exists(path):
                    put("maintscript", open(path, "rb").read())


def pkgdbs():
    """Package databases: "@@N" starts file N of fuzz_pkgdb.c's table."""
    status = (b"@@0\nPackage: a\nStatus: install ok installed\nVersion: 1:2.0-1\n\n"
              b"Package: b\nArchitecture: amd64\nStatus: install ok installed\nVersion: 3\n\n"
              b"Package: c\nStatus: deinstall ok config-files\nVersion: 4\n")
    lists = (b"@@1\n/.\n/usr\n/usr/bin\n/usr/bin/ping\n/bin/su\n"
             b"@@2\n/usr/bin/su\n/usr/bin/ping\n@@7\n/x\n/usr/bin/newgrp\n")
    md5 = b"@@3\n" + b"0123456789abcdef0123456789abcdef  usr/bin/ping\n"
    put("pkgdb", status + lists + md5)
    put("pkgdb", lists + b"\n@@0\nPackage: a\nStatus: install ok installed\nVersion: 1")
    put("pkgdb", b"@@4\nP:iputils\nV:1-r0\nF:usr/bin\nR:ping\n"
                 b"Z:Q1AAAAAAAAAAAAAAAAAAAAAAAAAAA=\nR:su\nZ:0123456789abcdef0123456789abcdef\n\n"
                 b"P:x\nV:2\nF:\nR:x\n/usr/bin/ping\n/x\n")
    put("pkgdb", b"@@5\n%FILES%\nusr/\nusr/bin/\nusr/bin/ping\nbin/su\n"
                 b"@@6\n%NAME%\np\n\n%VERSION%\n1-1\n\n/bin/su\n")
    put("pkgdb", b"@@1\n" + b"/usr/share/doc/a/" + b"x" * 70000 + b"\n/usr/bin/ping")


def reports():
    """The audit reports the tests compare (tests/expected), and a few that bend them."""
    expected = os.path.join(HERE, "..", "expected")
    for verb in sorted(os.listdir(expected)):
        for name in sorted(os.listdir(os.path.join(expected, verb))):
            data = open(os.path.join(expected, verb, name), "rb").read()
            if name.endswith(".json") and b'"kind": "suid2cap-audit"' in data:
                put("fleet", data)
    put("fleet", b'{"schema": 1, "kind": "suid2cap-audit", "files": [{}]}')
    put("fleet", b'{"schema": 1, "kind": "suid2cap-audit", "files": [], "targets": [{"kind": '
                 b'"package", "name": "p"}, 7]}')


if __name__ == "__main__":
    debs()
    rpms()
    images()
    strict_json()
    reports()
    pkgdbs()
    scripts(sys.argv[1] if len(sys.argv) > 1 else
            os.path.join(HERE, "..", "..", "build", "test-deps", "debs"))
