#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write a synthetic Debian package of N data members, fast (tests/cli/mkarchive.py).

    genpkg.py OUT.deb N [--name-len L] [--empty] [--actions A]

The data archive holds N entries: directories of 1000 entries, each with one
set-user-ID-root and one set-group-ID file (a candidate per 500 members) and
empty 0644 files; --empty makes every member a plain empty file in one
directory, the cheapest hostile package; --name-len pads the file names to
about L bytes; --actions A gives it a postinst of A actions of each kind the
check of what scripts touch looks up (a chmod that makes a member set-user-ID,
an rm -rf of a tree, a modprobe), so that a cost per member and action shows.
Nothing here runs a packaging tool; dpkg-deb -c reads it.
"""
import argparse
import os
import sys

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("n", type=int)
    ap.add_argument("--name-len", type=int, default=0)
    ap.add_argument("--empty", action="store_true")
    ap.add_argument("--actions", type=int, default=0)
    a = ap.parse_args()
    scripts = {"postinst": postinst(a.n, a.actions)} if a.actions else None
    mkarchive.many_members_deb(a.out, a.n, a.name_len, a.empty, scripts=scripts)


if __name__ == "__main__":
    main()
