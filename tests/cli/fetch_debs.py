#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fetch, once and before the tests that read them, every Debian package the suite
uses: the maintainer-script corpus, the packages of the rule checks, the real
packages audit-pkg and the dpkg differential test install.  They go into
build/test-deps/ (shared by every build preset), so the tests themselves read
a local cache and stay within their time limits.

A CTest fixture (`deps.debian`) runs this first.  What cannot be fetched (no
network) is said here and skipped by each test that needs it; this step itself
never fails for that reason.
"""
import sys

import debcorpus
import debfetch
import test_audit_pkg
import test_coverage
import test_observed
import test_pkg_dpkg


def step(what, fn):
    try:
        fn()
        print(f"fetched: {what}")
    except debfetch.Unavailable as e:
        print(f"note: {what}: {e}", file=sys.stderr)


def main():
    for release in debfetch.RELEASES:
        step(f"corpus of Debian {release}", lambda r=release: debcorpus.fetch(r))
        step(f"privileged packages of Debian {release}", lambda r=release: test_coverage.fetch(r))
        # one closure each: some of them conflict (iputils-ping, inetutils-ping)
        for pkg in sorted({pkg for pkg, _ in test_observed.OBSERVED.values()}):
            step(f"{pkg} and its dependencies, observed with learn, Debian {release}",
                 lambda r=release, p=pkg: debfetch.download_many(debfetch.closure([p], r), r))
    step("the packages of the dpkg differential test", test_pkg_dpkg.real_debs)
    step("the packages of the audit-pkg tests (this machine's release)",
         lambda: test_audit_pkg.fetch_debs(None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
