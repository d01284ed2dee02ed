#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write a synthetic Debian package of N data members, fast (tests/cli/mkarchive.py).

    genpkg.py OUT.deb N [--name-len L] [--empty]

The data archive holds N entries: directories of 1000 entries, each with one
set-user-ID-root and one set-group-ID file (a candidate per 500 members) and
empty 0644 files; --empty makes every member a plain empty file in one
directory, the cheapest hostile package; --name-len pads the file names to
about L bytes.  Nothing here runs a packaging tool; dpkg-deb -c reads it.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
import mkarchive  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("n", type=int)
    ap.add_argument("--name-len", type=int, default=0)
    ap.add_argument("--empty", action="store_true")
    a = ap.parse_args()
    mkarchive.many_members_deb(a.out, a.n, a.name_len, a.empty)


if __name__ == "__main__":
    main()
