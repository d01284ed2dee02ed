#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generate a benchmark tree of N entries: 1000-entry directories, three levels
deep, with one setuid, one setgid and one executable file in every directory."""
import os
import sys


def main():
    root, n = sys.argv[1], int(sys.argv[2])
    per_dir = 1000
    made = 0
    d = 0
    os.makedirs(root, exist_ok=True)
    while made < n:
        path = os.path.join(root, f"a{d // 100:03d}", f"b{d % 100:02d}")
        os.makedirs(path, exist_ok=True)
        made += 1
        for i in range(min(per_dir, n - made)):
            fn = os.path.join(path, f"f{i:04d}")
            fd = os.open(fn, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.close(fd)
            if i == 0:
                os.chmod(fn, 0o4755)
            elif i == 1:
                os.chmod(fn, 0o2755)
            elif i == 2:
                os.chmod(fn, 0o755)
        made += min(per_dir, n - made)
        d += 1
    print(f"{root}: {made} entries in {d} directories")


if __name__ == "__main__":
    main()
