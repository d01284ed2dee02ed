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
    # the same build whatever is installed: learn without BPF, said in the README
    ctx.check("release build without BPF, every time",
              any(x == "cmake --preset release -DS2C_BPF=OFF" for x in lines), lines)
    with open(os.path.join(s2ctest.SRC, "README.md")) as f:
        readme = f.read()
    ctx.check("the README says so", "without the BPF mechanism of `learn`" in readme, "")
    # the build's lines on stderr, then the line that says the audit starts; stdout is
    # the report's alone
    err = p.stderr.decode()
    ctx.check("stdout is the report's alone", p.stdout == b"", p.stdout)
    ctx.check("the audit start is said after the build",
              "==> build (release)" in err and
              err.rstrip("\n").endswith("==> audit: suid2cap audit --format html -o audit.html usr"),
              err)
    run = [x for x in lines if x.startswith("suid2cap ")]
    ctx.check("the audit runs in the caller's directory with the arguments given",
              run == [f"suid2cap cwd={caller} args=audit --format html -o audit.html usr"], run)
    # the test command still installs the test packages
    for heavy in ("chromium", "clang", "lintian", "debhelper", "zsh", "bash-completion"):
        ctx.check(f"the test packages include {heavy}", heavy in packages("TEST_PACKAGES"), "")


def checkout_with_shims(ctx, name):
    """A copy of tools/dev.sh in a checkout of its own, and shims that record what it runs:
    every package installed already, npm and tools/package.sh stand-ins."""
    checkout = ctx.tree(name)
    os.makedirs(os.path.join(checkout, "tools"))
    shutil.copy(DEVSH, os.path.join(checkout, "tools", "dev.sh"))
    log = os.path.join(ctx.tmp, name + ".log")
    shims = ctx.tree(name + "-shims")
    script(os.path.join(shims, "dpkg-query"), "echo 'install ok installed'\n")
    script(os.path.join(shims, "apt-get"), f'echo "apt-get $*" >> {log}\n')
    script(os.path.join(shims, "sudo"), '"$@"\n')
    home = ctx.tree(name + "-home")
    env = {"PATH": shims + ":/usr/bin:/bin", "HOME": home, "LC_ALL": "C"}
    return checkout, shims, log, env


def test_deps_npm(ctx):
    """deps fetches the SARIF schema with npm into build/test-deps/ and nowhere else: npm's
    cache and logs go to the temporary directory, which is removed; HOME stays empty."""
    checkout, shims, log, env = checkout_with_shims(ctx, "deps")
    # npm pack: record the arguments, write the tarball and a cache where --cache says
    script(os.path.join(shims, "npm"), f"""echo "npm $* cwd=$(pwd)" >> {log}
cache=
while [ $# -gt 0 ]; do
	[ "$1" = --cache ] && cache=$2
	shift
done
[ -n "$cache" ] || cache=$HOME/.npm
mkdir -p "$cache/_logs" package/lib/schemas
echo '{{"title": "sarif"}}' > package/lib/schemas/sarif-2.1.0-rtm.5.json
tar -czf microsoft-jest-sarif-1.0.0-beta.0.tgz package
rm -r package
""")
    p = subprocess.run(["sh", os.path.join(checkout, "tools", "dev.sh"), "deps"], cwd=checkout,
                       env=env, capture_output=True)
    ctx.check("dev.sh deps ran", p.returncode == 0, p.stderr)
    with open(log) as f:
        lines = f.read().splitlines()
    npm = [x for x in lines if x.startswith("npm ")]
    ctx.check("npm pack once", len(npm) == 1 and " pack " in npm[0], lines)
    m = re.search(r"--cache (\S+) .* cwd=(\S+)$", npm[0]) if npm else None
    ctx.check("npm's cache in the temporary directory",
              m is not None and m.group(1).startswith(m.group(2) + "/"), npm)
    ctx.check("the temporary directory is gone", m is not None and not os.path.exists(m.group(2)),
              npm)
    ctx.check("HOME untouched", os.listdir(env["HOME"]) == [], os.listdir(env["HOME"]))
    schema = os.path.join(checkout, "build", "test-deps", "sarif-2.1.0.json")
    ctx.check("the schema in build/test-deps", os.path.isfile(schema) and
              os.listdir(os.path.join(checkout, "build")) == ["test-deps"] and
              os.listdir(os.path.join(checkout, "build", "test-deps")) == ["sarif-2.1.0.json"],
              os.listdir(checkout))
    ctx.check("nothing installed", not any(x.startswith("apt-get") for x in lines), lines)


def test_package_test_skips(ctx):
    """Without root the package test exits 77: dev.sh package says it skipped it and
    succeeds; any other failure still fails."""
    for rc, want in ((77, 0), (1, 1), (0, 0)):
        checkout, shims, log, env = checkout_with_shims(ctx, f"package{rc}")
        os.makedirs(os.path.join(checkout, "build", "test-deps"))
        with open(os.path.join(checkout, "build", "test-deps", "sarif-2.1.0.json"), "w") as f:
            f.write("{}")
        script(os.path.join(checkout, "tools", "package.sh"),
               f'echo "package.sh $*" >> {log}\n[ "$1" = test ] && exit {rc}\nexit 0\n')
        p = subprocess.run(["sh", os.path.join(checkout, "tools", "dev.sh"), "package"],
                           cwd=checkout, env=env, capture_output=True)
        with open(log) as f:
            steps = [x for x in f.read().splitlines() if x.startswith("package.sh")]
        ctx.check(f"package test exit {rc}: dev.sh exit {want}", p.returncode == want,
                  f"{p.returncode} {p.stdout!r} {p.stderr!r}")
        ctx.check(f"package test exit {rc}: deb, rpm, test", steps == [
            "package.sh deb", "package.sh rpm", "package.sh test"], steps)
        ctx.check(f"package test exit {rc}: a skip is said", (b"needs root, skipped" in p.stdout)
                  == (rc == 77), p.stdout)


TESTS = [test_audit, test_deps_npm, test_package_test_skips]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
