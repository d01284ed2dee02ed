#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools/dev.sh audit installs only what the build needs, and runs the audit in
the caller's directory, so `-o report.html` and relative paths mean what they
say.  The script runs on a copy of itself, with apt-get, dpkg-query and cmake
replaced by recorders and a stand-in for the built program: nothing is
installed or built."""
import os
import re
import shutil
import subprocess
import sys

import s2ctest

DEVSH = os.path.join(s2ctest.SRC, "tools", "dev.sh")


def script(path, text):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + text)
    os.chmod(path, 0o755)


def packages(var):
    """The package names of a list variable of tools/dev.sh."""
    with open(DEVSH) as f:
        text = f.read()
    m = re.search(var + r'="([^"]*)"', text)
    return m.group(1).split() if m else []


def test_audit(ctx):
    checkout = ctx.tree("checkout")
    os.makedirs(os.path.join(checkout, "tools"))
    shutil.copy(DEVSH, os.path.join(checkout, "tools", "dev.sh"))
    log = os.path.join(ctx.tmp, "log")
    shims = ctx.tree("shims")
    # nothing is installed; apt-get records what it is asked for
    script(os.path.join(shims, "dpkg-query"), "exit 1\n")
    script(os.path.join(shims, "apt-get"), f'echo "apt-get $*" >> {log}\n')
    script(os.path.join(shims, "sudo"), '"$@"\n')
    script(os.path.join(shims, "npm"), f'echo "npm $*" >> {log}\n')
    script(os.path.join(shims, "cmake"), f'echo "cmake $*" >> {log}\n')
    # the built program says where it runs and with what
    os.makedirs(os.path.join(checkout, "build", "release", "cli"))
    script(os.path.join(checkout, "build", "release", "cli", "suid2cap"),
           f'echo "suid2cap cwd=$(pwd) args=$*" >> {log}\n')
    caller = ctx.tree("elsewhere")
    env = {"PATH": shims + ":/usr/bin:/bin", "HOME": ctx.tmp, "LC_ALL": "C"}
    p = subprocess.run(["sh", os.path.join(checkout, "tools", "dev.sh"), "audit", "--format", "html",
                        "-o", "audit.html", "usr"], cwd=caller, env=env, capture_output=True)
    ctx.check("dev.sh audit ran", p.returncode == 0, p.stderr)
    with open(log) as f:
        lines = f.read().splitlines()
    installs = [x for x in lines if x.startswith("apt-get") and " install " in x]
    asked = set(installs[0].split()[1:]) if installs else set()
    build = set(packages("BUILD_PACKAGES"))
    ctx.check("build packages listed", {"gcc", "cmake", "libcap-dev"} <= build, build)
    ctx.check("audit installs exactly the build packages", len(installs) == 1 and build <= asked and
              not (asked - build - {"install", "-y", "-q", "--no-install-recommends"}), installs)
    for heavy in ("chromium", "clang", "npm", "nodejs", "lintian", "python3-pil"):
        ctx.check(f"audit does not install {heavy}", heavy not in asked, installs)
    ctx.check("audit fetches nothing with npm", not any(x.startswith("npm") for x in lines), lines)
    ctx.check("release build", any(x.startswith("cmake --preset release") for x in lines), lines)
    run = [x for x in lines if x.startswith("suid2cap ")]
    ctx.check("the audit runs in the caller's directory with the arguments given",
              run == [f"suid2cap cwd={caller} args=audit --format html -o audit.html usr"], run)
    # the test command still installs the test packages
    for heavy in ("chromium", "clang", "lintian", "debhelper", "zsh", "bash-completion"):
        ctx.check(f"the test packages include {heavy}", heavy in packages("TEST_PACKAGES"), "")


TESTS = [test_audit]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
