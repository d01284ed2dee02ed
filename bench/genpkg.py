#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write a synthetic Debian package of N data members, fast (tests/cli/mkarchive.py).

    genpkg.py OUT.deb N [--name-len L] [--empty] [--actions A]
    genpkg.py OUT.rpm N [--actions A]

The data archive holds N entries: directories of 1000 entries, each with one
set-user-ID-root and one set-group-ID file (a candidate per 500 members) and
empty 0644 files; --empty makes every member a plain empty file in one
directory, the cheapest hostile package; --name-len pads the file names to
about L bytes; --actions A gives it a postinst of A actions of each kind the
check of what scripts touch looks up (a chmod that makes a member set-user-ID,
an rm -rf of a tree, a modprobe), so that a cost per member and action shows.
Nothing here runs a packaging tool; dpkg-deb -c reads it.

An OUT ending in .rpm is the same tree built by rpmbuild (a private _topdir and
_dbpath, no debuginfo or build-id links), its %post the postinst: about 15 s
for 100,000 members, minutes for a million; rpm -qlp reads it.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
import mkarchive  # noqa: E402


def postinst(n, actions):
    """A postinst of @actions actions of each kind, on the members of a package of @n."""
    dirs = max(1, n // 1000)
    lines = ["#!/bin/sh", "set -e"]
    for i in range(actions):
        f = 2 + (i // dirs) % 997
        lines += [f"chmod 4755 /usr/share/s2c-many/d{i % dirs:05d}/f{f:04d}",
                  f"rm -rf /var/lib/s2c-many/t{i}",
                  f"modprobe s2c-many-{i} || true"]
    return "\n".join(lines) + "\n"


SPEC = """%global __os_install_post %{nil}
%global _build_id_links none
%global debug_package %{nil}
Name: s2c-many
Version: 1.0
Release: 1
Summary: many members
License: GPL-2.0-or-later
BuildArch: noarch
AutoReqProv: no
%description
Written by suid2cap's bench/genpkg.py.
%install
python3 - "%{buildroot}/usr/share/s2c-many" COUNT <<'PY'
import os, sys
top, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(top, "d%%05d" %% (i // 1000))
    if i %% 1000 == 0:
        os.makedirs(d)
    open(os.path.join(d, "f%%04d" %% (i %% 1000)), "w").close()
PY
%files
%defattr(0644,root,root,0755)
/usr/share/s2c-many
"""


def rpm(out, n, actions):
    """Build the .rpm of @n members at @out with rpmbuild, in a directory of its own."""
    dirs = (n + 999) // 1000
    spec = SPEC.replace("COUNT", str(n))
    # two candidates a directory, as in the .deb: set-user-ID root and set-group-ID
    attrs = [f"%attr(4755,root,root) /usr/share/s2c-many/d{d:05d}/f0000" for d in range(dirs)]
    attrs += [f"%attr(2755,root,root) /usr/share/s2c-many/d{d:05d}/f0001"
              for d in range(dirs) if d * 1000 + 1 < n]
    spec += "\n".join(attrs) + "\n"
    if actions:
        spec += "%post\n" + postinst(n, actions).split("\n", 2)[2]
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(out))) as top:
        path = os.path.join(top, "many.spec")
        with open(path, "w") as f:
            f.write(spec)
        # the %attr lines name files the directory line lists too: rpmbuild warns of each
        p = subprocess.run(["rpmbuild", "--quiet", "--define", f"_topdir {top}", "--define",
                            f"_dbpath {top}/db", "-bb", path], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"genpkg.py: rpmbuild failed:\n{p.stderr[-2000:]}")
        rpms = os.path.join(top, "RPMS", "noarch")
        shutil.move(os.path.join(rpms, os.listdir(rpms)[0]), out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("n", type=int)
    ap.add_argument("--name-len", type=int, default=0)
    ap.add_argument("--empty", action="store_true")
    ap.add_argument("--actions", type=int, default=0)
    a = ap.parse_args()
    if a.out.endswith(".rpm"):
        rpm(a.out, a.n, a.actions)
        return
    scripts = {"postinst": postinst(a.n, a.actions)} if a.actions else None
    mkarchive.many_members_deb(a.out, a.n, a.name_len, a.empty, scripts=scripts)


if __name__ == "__main__":
    main()
