#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every CTest test is labelled with a module it covers, and every module has a test.

Usage: check_labels.py CTEST BUILDDIR ARCHITECTURE.md MODULE...

The modules are the layers of docs/ARCHITECTURE.md's table (each must be one of
MODULE...) and the other areas named there (db, dist, harness); `ctest -L '^pkg$'`
then runs what covers pkg/.  The document must say how.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def layers(doc):
    """The layers of the "may include" table."""
    text = open(doc, encoding="utf-8").read()
    table = text.split("| layer | may include |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\| (\w+) \|", table, re.M), text


def tests(ctest, builddir):
    """Each test's name and labels, as CTest knows them.  CTest is run on a copy of
    the build's test files: in the build it would replace the log of the run
    this check is part of (Testing/Temporary/LastTest.log)."""
    with tempfile.TemporaryDirectory() as tmp:
        for d, dirs, files in os.walk(builddir):
            dirs[:] = [x for x in dirs if x != "Testing"]
            if "CTestTestfile.cmake" in files:
                to = os.path.join(tmp, os.path.relpath(d, builddir))
                os.makedirs(to, exist_ok=True)
                shutil.copy(os.path.join(d, "CTestTestfile.cmake"), to)
        out = subprocess.run([ctest, "--show-only=json-v1"], cwd=tmp, check=True,
                             capture_output=True, text=True).stdout
    result = {}
    for t in json.loads(out)["tests"]:
        labels = []
        for p in t.get("properties", []):
            if p["name"] == "LABELS":
                labels = p["value"]
        result[t["name"]] = labels
    return result


def main():
    ctest, builddir, doc, modules = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    problems = []
    names, text = layers(doc)
    if not names:
        problems.append(f"{doc}: no layer table found")
    for layer in names:
        if layer not in modules:
            problems.append(f"layer '{layer}' of {doc} is not a test label (S2C_MODULES)")
    if "ctest --preset dev -L '^" not in text:
        problems.append(f"{doc} does not say how to run one module's tests (ctest -L)")
    found = tests(ctest, builddir)
    covered = set()
    for name, labels in sorted(found.items()):
        mine = [lab for lab in labels if lab in modules]
        if not mine:
            problems.append(f"test {name} has no module label (labels: {', '.join(labels)})")
        covered.update(mine)
    for m in modules:
        if m not in covered:
            problems.append(f"module '{m}' has no test")
    for p in problems:
        print(p)
    print(f"{len(found)} tests, {len(covered)} modules covered" if not problems else
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
