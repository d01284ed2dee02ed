#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every set-ID or capability file of the real Debian 12 and 13 packages known to
ship one (debfetch.PRIVILEGED) has a rule, or is on the short list of files left
to review on purpose (REVIEW, documented in docs/RULES.md).

The files are found twice, independently: from each package's data archive
(set-ID modes) and maintainer scripts (setcap, chmod, dpkg-statoverride naming
a file of the package, debconf-guarded ones included), and by `suid2cap
audit-pkg`, which evaluates the scripts as dpkg would run them.  A file the
audit does not report privileged (a debconf question answered no by default)
is given its privilege in an unpacked tree and explained there.  A package that
cannot be fetched skips with a message.
"""
import json
import os
import subprocess
import sys

import debfetch
import s2ctest
from s2ctest import SKIP, is_root

# Files left for a person to review on purpose: path -> why.  Keep it short, and
# in step with the list in docs/RULES.md.
REVIEW = {}


def script_files(deb, members):
    """Files of the package its maintainer scripts make privileged: path -> what."""
    found = {}
    for script in ("preinst", "postinst"):
        for kind, target, arg in debfetch.script_privileges(debfetch.maintainer_script(deb, script)):
            for path in (target, "/usr" + target):
                m = members.get(path)
                if m is not None and m.isfile():
                    found.setdefault(path, f"{script}: {kind} {arg}")
    return found


def privileged_files(deb):
    """path -> why it is privileged, read from the package alone."""
    members = dict(debfetch.data_members(deb))
    found = {p: f"{m.mode & 0o7777:04o} {m.uname}:{m.gname} in the data archive"
             for p, m in members.items() if m.isfile() and m.mode & 0o6000}
    for path, why in script_files(deb, members).items():
        found.setdefault(path, why)
    return found


def audited(ctx, debs):
    """(package, path) -> rule id (None without one) for every file audit-pkg reports."""
    rc, out, err = ctx.run(["audit-pkg", "--kernel", "6.1", "--format", "json", *debs])
    # 3: some packages' scripts are not modelled (tests/cli/test_debcorpus.py checks which);
    # their files are still reported, which is what the rules are checked against here
    ctx.check("audit-pkg of the packages", rc in (0, 1, 3) and out, f"{rc} {err[-2000:]!r}")
    if not out:
        return {}
    return {(f["package"], f["file"]["path"]): (f["rule"] or {}).get("id")
            for f in json.loads(out)["files"]}


def explained(ctx, release, wanted):
    """Rules of files the audit leaves unprivileged: each is unpacked, made set-user-ID
    root, and explained.  @wanted: [(package, deb, path)].  Returns (package, path) -> id."""
    if not wanted:
        return {}
    if not is_root():
        print(f"skip the {len(wanted)} files Debian {debfetch.RELEASES[release]} makes "
              "privileged only on request: they are explained as root", file=sys.stderr)
        return {}
    root = ctx.tree("optional-" + release)
    for deb in sorted({deb for _, deb, _ in wanted}):
        subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
    for _, _, path in wanted:
        full = os.path.join(root, path.lstrip("/"))
        os.chown(full, 0, 0)
        os.chmod(full, 0o4755)
    paths = sorted({path for _, _, path in wanted})
    rc, out, err = ctx.run(["explain", "--root", root, "--kernel", "6.1", "--format", "json",
                            *paths])
    ctx.check(f"explain the optional files of Debian {release}", rc in (0, 3) and out,
              f"{rc} {err[-2000:]!r}")
    rules = {d["file"]["path"]: (d["rule"] or {}).get("id") for d in json.loads(out or "[]")}
    return {(pkg, path): rules.get(path) for pkg, _, path in wanted}


def fetch(release):
    """{package: .deb} of the release's PRIVILEGED packages that can be fetched."""
    debs = {}
    for package in debfetch.PRIVILEGED[release]:
        try:
            debs[package] = debfetch.download(package, release)
        except debfetch.Unavailable as e:
            print(f"skip {package} (Debian {debfetch.RELEASES[release]}): {e}", file=sys.stderr)
    return debs


def check_release(ctx, release):
    name = f"Debian {debfetch.RELEASES[release]}"
    debs = fetch(release)
    if not debs:
        return False
    rules = audited(ctx, list(debs.values()))
    optional = []
    for package, deb in sorted(debs.items()):
        files = privileged_files(deb)
        reported = {path for pkg, path in rules if pkg == package}
        ctx.check(f"{name} {package}: ships a privileged file", files or reported,
                  "the package is on the list but has none: take it off")
        optional += [(package, deb, p) for p in sorted(files) if p not in reported]
    rules.update(explained(ctx, release, optional))
    missing = [f"{pkg} {path}" for (pkg, path), rid in sorted(rules.items())
               if not rid and path not in REVIEW]
    ctx.check(f"{name}: every privileged file of {len(debs)} packages has a rule "
              f"({len(rules)} files)", not missing, "no rule: " + "; ".join(missing))
    stale = [p for p in REVIEW if any(path == p and rid for (_, path), rid in rules.items())]
    ctx.check(f"{name}: the files left to review have no rule", not stale, repr(stale))
    return True


def test_coverage(ctx):
    """Every set-ID or capability file of the real packages has a rule."""
    ran = [check_release(ctx, release) for release in debfetch.RELEASES]
    return None if any(ran) else SKIP


TESTS = [test_coverage]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
