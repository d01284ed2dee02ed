#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The maintainer scripts of real Debian 12 and 13 packages, replayed.

debcorpus.py fetches the corpus once (compact .debs under build/test-deps).
Each release is audited in one run and every package's outcome is compared
with tests/expected/debcorpus/RELEASE.txt: complete, or incomplete with the
script lines it names, and the privileged files it predicts (mode, owner,
group, capabilities, the fallback where setcap fails).  A package whose version
in the archive moved on since the golden file was written is said and not
compared, and one the archive no longer has is skipped by name.  The corpus is
pinned to the packages the golden files name (and debfetch.PRIVILEGED), so a
fresh cache audits the same packages; `--update` rewrites the golden files with
the outcomes of the packages audited, and `--update --redraw` replaces the
corpus with a new sample of the archive (debcorpus.draw()).  At least
MIN_COMPLETE of the packages must be complete, and each incomplete one must
name its script and line.
"""
import json
import os
import re
import sys

import debcorpus
import s2ctest
from s2ctest import SKIP

KERNEL = ["--kernel", "6.1"]
# The share of the corpus the audit must find complete.  What keeps the rest
# incomplete is listed in docs/MAINTSCRIPTS.md (other packages' helpers that
# run code, the package's own programs, names read at run time).
MIN_COMPLETE = 0.95
RELEASES = ("bookworm", "trixie")
# --redraw (with --update): the corpus is a new sample of the archive, not the golden files'
REDRAW = False
LINE = re.compile(r"^(config|preinst|postinst):(\d+)")


def outcome(doc):
    """{package: (version, text)} of an audit-pkg JSON report, in the golden files' form."""
    files = {}
    for f in doc["files"]:
        o, fa = f["origin"], f["file"]
        caps = f" caps={fa['caps']['text']}" if fa["caps"] else ""
        fb = f" fallback={o['fallback']}" if o.get("fallback") else ""
        files.setdefault(o["name"], []).append(
            f"  {fa['path']} {fa['mode']} {fa['owner']}:{fa['group']}{caps}{fb}")
    out = {}
    for t in doc["targets"]:
        if t["error"]:
            state = f"error {t['error']}"
        elif t["complete"]:
            state = "complete"
        else:
            lines = sorted({m.group(0) if (m := LINE.match(r)) else r.split(";")[0]
                            for r in t["incomplete"]})
            state = "incomplete " + " ".join(lines)
        text = "\n".join([f"{t['name']} {t['version']} {state}"] + sorted(files.get(t["name"], [])))
        out[t["name"]] = (t["version"], text)
    return out


def read_golden(path):
    """{package: (version, text)} of a golden file."""
    out = {}
    if not os.path.exists(path):
        return out
    block = []
    for line in open(path).read().splitlines() + [""]:
        if line.startswith("  "):
            block.append(line)
            continue
        if block:
            name, version = block[0].split()[:2]
            out[name] = (version, "\n".join(block))
        block = [line] if line else []
    return out


def test_corpus(ctx):
    """Every package of the corpus: its outcome is the golden one; MIN_COMPLETE complete."""
    total = complete = compared = 0
    for release in RELEASES:
        try:
            corpus = debcorpus.fetch(release, redraw=REDRAW)
        except debcorpus.Unavailable as e:
            print(f"  ({e})")
            continue
        debs = corpus.debs
        for pkg in corpus.gone:
            print(f"  skip: {release}/{pkg} is no longer in the archive")
        rc, out, err = ctx.run(["audit-pkg", *KERNEL, "--format", "json", *debs.values()])
        ctx.check(f"{release}: audited", rc in (0, 3) and out, f"exit {rc}: {err[-300:]!r}")
        got = outcome(json.loads(out))
        path = os.path.join(s2ctest.EXPECTED, "debcorpus", f"{release}.txt")
        want = read_golden(path)
        missed = sorted(set(want) - set(got) - set(corpus.gone))
        ctx.check(f"{release}: every package of the golden file audited", not missed,
                  " ".join(missed))
        if ctx.update:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("\n".join(got[p][1] for p in sorted(got)) + "\n")
            want = got
        for pkg, (version, text) in sorted(got.items()):
            total += 1
            complete += " complete" in text.splitlines()[0]
            head = text.splitlines()[0]
            if " incomplete " in head:
                ctx.check(f"{release}/{pkg}: names its lines",
                          all(LINE.match(x) or "line " in x for x in head.split()[3:]), head)
            if pkg not in want:
                print(f"  note: {release}/{pkg} {version} is not in the golden file")
            elif want[pkg][0] != version:
                print(f"  note: {release}/{pkg} is {version} now, the golden file has "
                      f"{want[pkg][0]}: not compared")
            else:
                compared += 1
                ctx.check(f"{release}/{pkg}", want[pkg][1] == text,
                          f"\n--- golden\n{want[pkg][1]}\n--- now\n{text}")
    if total == 0:
        print("  (no package could be downloaded)")
        return SKIP
    rate = complete / total
    print(f"  {total} packages, {complete} complete ({rate:.1%}), {compared} compared")
    ctx.check("at least 300 packages", total >= 300, f"{total}")
    ctx.check(f"at least {MIN_COMPLETE:.0%} complete", rate >= MIN_COMPLETE, f"{rate:.1%}")
    return None


TESTS = [test_corpus]

if __name__ == "__main__":
    REDRAW = "--redraw" in sys.argv
    if REDRAW and "--update" not in sys.argv:
        sys.exit("test_debcorpus.py: --redraw draws a new corpus only with --update")
    sys.exit(s2ctest.main(TESTS, [a for a in sys.argv[1:] if a != "--redraw"]))
