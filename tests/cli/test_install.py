#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`cmake --install` of the build under test into a staging directory (DESTDIR):
everything a system tool needs is installed, every path an installed file names
is where the install put it, and the installed program finds its database."""
import json
import os
import re
import shutil
import subprocess
import sys

import s2ctest
from s2ctest import SKIP

UNITS = ("suid2cap-verify.service", "suid2cap-verify.timer")


def build_dir(ctx):
    return os.path.dirname(os.path.dirname(ctx.binary))


def installed(dest):
    """Every installed file, as its path on the target system."""
    out = []
    for d, dirs, files in os.walk(dest):
        out += [os.path.join(d, f)[len(dest):] for f in files]
    return sorted(out)


def one(ctx, files, pattern):
    """The installed file whose path matches @pattern (a regex, anchored at the end)."""
    hits = [f for f in files if re.search(pattern + "$", f)]
    ctx.check(f"one installed file matches {pattern}", len(hits) == 1, hits or files)
    return hits[0] if hits else "/nonexistent" + pattern


def staged(ctx):
    dest = ctx.tree("destdir")
    env = dict(os.environ, DESTDIR=dest)
    p = subprocess.run(["cmake", "--install", build_dir(ctx)], env=env, capture_output=True)
    ctx.check("cmake --install", p.returncode == 0, p.stderr)
    return dest


def test_installed_files(ctx):
    """The program, database, schemas, completions, systemd units, man pages, the
    local rules directory with its README and the license are installed, and
    the files that name paths name the installed ones."""
    if not shutil.which("cmake"):
        return SKIP
    dest = staged(ctx)
    files = installed(dest)
    program = one(ctx, files, r"/sbin/suid2cap")
    data = one(ctx, files, r"/suid2cap/db/network\.json").rsplit("/suid2cap/db/", 1)[0]
    for name in ("capabilities.json", "accounts.json"):
        ctx.check(f"database {name}", f"{data}/suid2cap/db/{name}" in files, "")
    for name in os.listdir(os.path.join(s2ctest.SRC, "docs", "schema")):
        ctx.check(f"schema {name}", f"{data}/suid2cap/schema/{name}" in files, "")
    bash = one(ctx, files, r"/bash-completion/completions/suid2cap")
    zsh = one(ctx, files, r"/zsh/(site-functions|vendor-completions)/_suid2cap")
    unitdir = os.path.dirname(one(ctx, files, r"/systemd/system/suid2cap-verify\.service"))
    ctx.check("timer next to the service", f"{unitdir}/suid2cap-verify.timer" in files, "")
    ctx.check("man pages", f"{data}/man/man8/suid2cap.8" in files and
              f"{data}/man/man5/suid2cap-rules.5" in files, "")
    docdir = os.path.dirname(one(ctx, files, r"/doc/suid2cap/COPYING"))
    for name in ("README.md", "RULES.md", "contrib/ansible/playbook.yml",
                 "contrib/ansible/roles/suid2cap/tasks/main.yml"):
        ctx.check(f"doc {name}", f"{docdir}/{name}" in files, "")
    rulesd = os.path.dirname(one(ctx, files, r"/rules\.d/README"))
    ctx.check("rules.d in /etc, whatever the prefix", rulesd == "/etc/suid2cap/rules.d", rulesd)
    with open(dest + f"{docdir}/COPYING") as f:
        ctx.check("COPYING is the GPL 2", "GNU GENERAL PUBLIC LICENSE" in f.read(2000), "")

    # the units run the installed program and read the state where apply writes it
    with open(dest + f"{unitdir}/suid2cap-verify.service") as f:
        service = f.read()
    m = re.search(r"^ExecStart=(\S+) verify --quiet$", service, re.M)
    ctx.check("service runs the installed program", m and m.group(1) == program, service)
    ctx.check("service only runs when something was migrated",
              re.search(r"^ConditionPathExists=/var/lib/suid2cap/state.json$", service, re.M), "")
    ctx.check("service keeps only CAP_DAC_READ_SEARCH",
              re.search(r"^CapabilityBoundingSet=CAP_DAC_READ_SEARCH$", service, re.M), "")
    with open(dest + f"{unitdir}/suid2cap-verify.timer") as f:
        timer = f.read()
    ctx.check("timer: daily, installed into timers.target",
              "OnCalendar=daily" in timer and "WantedBy=timers.target" in timer, timer)
    if shutil.which("systemd-analyze"):
        p = subprocess.run(["systemd-analyze", "security", "--offline=true", "--threshold=40",
                            f"--root={dest}", f"{unitdir}/suid2cap-verify.service"],
                           capture_output=True)
        level = re.search(rb"Overall exposure level for \S+: ([0-9.]+)", p.stdout)
        ctx.check("service exposure at most 4.0 (systemd-analyze security)", p.returncode == 0 and level,
                  f"{p.returncode} {level and level.group(1)} {p.stderr!r}")

    # completions and the README name the installed places
    for path in (bash, zsh):
        with open(dest + path) as f:
            text = f.read()
        ctx.check(f"{os.path.basename(path)} falls back to the installed program", program in text, "")
        ctx.check(f"{os.path.basename(path)}: no placeholder left", "@S2C_" not in text, "")
    with open(dest + f"{rulesd}/README") as f:
        readme = f.read()
    paths = [x for x in re.findall(r"(/\S+?)[.,]?(?:\s|$)", readme) if "PROGRAM" not in x]
    ctx.check("rules.d/README names paths", len(paths) >= 4, paths)
    for path in paths:
        ctx.check(f"rules.d/README names {path}, which is installed", os.path.exists(dest + path), readme)

    # the waivers file next to rules.d: comments only, accepted by the parser, no waiver
    waivers = os.path.join(os.path.dirname(rulesd), "waivers")
    ctx.check("waivers file in /etc, whatever the prefix", os.path.isfile(dest + waivers), waivers)
    if os.path.isfile(dest + waivers):
        empty = ctx.tree("install-waivers-root")
        p = subprocess.run([dest + program, "audit", "--root", empty, "--format", "json",
                            "--waivers", dest + waivers], capture_output=True)
        ctx.check("installed waivers file parses and waives nothing", p.returncode == 0 and
                  "waivers" not in json.loads(p.stdout), p.stderr)

    # the installed program finds the installed database, and the hook names it
    p = subprocess.run([dest + program, "rules", "list", "--format", "json"], capture_output=True)
    ctx.check("installed program lists the rules", p.returncode == 0, p.stderr)
    if p.returncode == 0:
        files = {r["file"] for r in json.loads(p.stdout)["rules"]}
        ctx.check("from the installed database", files and all(
            f.startswith(dest + data + "/suid2cap/db/") or f.startswith(data + "/suid2cap/db/")
            for f in files), sorted(files)[:3])
    p = subprocess.run([dest + program, "verify", "--help"], capture_output=True)
    ctx.check("verify --help names the installed program for hooks",
              re.search(rb"--hook-program PATH .*?\(default: " + re.escape(program.encode()) + b",",
                        p.stdout, re.S), p.stdout)


def test_package_scripts_know_the_hooks(ctx):
    """The Debian postrm and the rpm %postun remove exactly the hook files that
    verify --install-hook writes, recognised by the same marker line."""
    with open(os.path.join(s2ctest.SRC, "plan", "hook.c")) as f:
        hook_c = f.read()
    marker = re.search(r'#define MARKER "(.*)"', hook_c).group(1)
    paths = {f"{d}/{n}" for d, n in re.findall(r'\{ "\w+", "(/etc/[^"]+)", "([^"]+)" \}', hook_c)}
    ctx.check("hook.c names three hook files", len(paths) == 3, paths)
    for script in ("debian/suid2cap.postrm", "dist/rpm/suid2cap.spec"):
        with open(os.path.join(s2ctest.SRC, script)) as f:
            text = f.read()
        ctx.check(f"{script}: the marker of plan/hook.c", f"marker='{marker}'" in text, "")
        listed = set(re.findall(r"/etc/[\w./-]+", text.split("for hook in", 1)[1].split("; do", 1)[0]))
        ctx.check(f"{script}: every hook file", listed == paths, f"{sorted(listed)} != {sorted(paths)}")


TESTS = [test_installed_files, test_package_scripts_know_the_hooks]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
