#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every migrate rule with a smoke command is proven by watching the real program:
the binary of its Debian 12 and Debian 13 package, with the libraries of that
release, runs its smoke command under `learn` (BPF where the kernel allows it,
else ptrace) given exactly the capabilities suid2cap would set, and must succeed,
be denied nothing and use every one of them.

The packages come from Debian's archive through a private apt state
(tests/cli/debfetch.py) and are unpacked with dpkg-deb into a throwaway root;
the program runs through that root's own dynamic loader, in a network namespace
of its own whose loopback is up (nothing leaves the machine, and ICMP datagram
sockets are closed there as on a default kernel).  A package that cannot be
fetched, or a capability this machine's bounding set lacks, skips that check
with a message.  S2C_OBSERVED_TABLE=FILE writes the results as the table of
docs/RULES.md.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import time

import debfetch
import s2ctest
from s2ctest import SKIP, is_root

# The Debian package and program of every migrate rule that has a smoke command.
OBSERVED = {
    "iputils.ping": ("iputils-ping", "ping"),
    "iputils.clockdiff": ("iputils-clockdiff", "clockdiff"),
    "mtr.mtr-packet": ("mtr-tiny", "mtr-packet"),
    "fping.fping": ("fping", "fping"),
    "inetutils.ping": ("inetutils-ping", "ping"),
}
# Capabilities of a rule's set its smoke command does not exercise (an option's, say):
# rule id -> names.  The rule's reason or breaks must say why, naming each.
UNEXERCISED = {}
RELEASES = ("bookworm", "trixie")


def cap_numbers():
    """Capability names to numbers, from the bundled capability table."""
    with open(os.path.join(s2ctest.SRC, "db", "capabilities.json")) as f:
        return {c["name"]: c["number"] for c in json.load(f)["capabilities"]}


def bounding_set():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("CapBnd:"):
                return int(line.split()[1], 16)
    return 0


def smoke_rules():
    """id -> rule for every migrate rule of the bundled database with a smoke command."""
    found = {}
    for path in sorted(glob.glob(os.path.join(s2ctest.SRC, "db", "*.json"))):
        with open(path) as f:
            for r in json.load(f).get("rules", []):
                if r["verdict"] == "migrate" and "smoke" in r:
                    found[r["id"]] = r
    return found


def can_learn(ctx):
    """learn needs root with cap_sys_admin and friends; the namespace needs unshare."""
    if not is_root() or not shutil.which("unshare") or not shutil.which("ip"):
        return False
    caps = cap_numbers()
    with open("/proc/self/status") as f:
        eff = next(int(l.split()[1], 16) for l in f if l.startswith("CapEff:"))
    return all(eff & (1 << caps[c]) for c in ("cap_sys_admin", "cap_setuid", "cap_setgid",
                                               "cap_setpcap"))


def program_in(deb, name):
    """The path of the regular file @name the package ships in a bin or sbin directory."""
    for path, m in debfetch.data_members(deb):
        if m.isfile() and os.path.basename(path) == name and \
                os.path.basename(os.path.dirname(path)) in ("bin", "sbin"):
            return path
    return None


def loader_of(root):
    """The root's dynamic loader (a regular file, not one of its links) and its directory."""
    for path in sorted(glob.glob(os.path.join(root, "**", "ld-linux*.so.*"), recursive=True)):
        if os.path.isfile(path) and not os.path.islink(path):
            return "/" + os.path.relpath(path, root), os.path.dirname(path)
    return None, None


def expected_set(ctx, root, path):
    """What suid2cap decides for the program set-user-ID root in @root: (caps text, names)."""
    full = os.path.join(root, path.lstrip("/"))
    os.chown(full, 0, 0)
    os.chmod(full, 0o4755)
    rc, out, err = ctx.run(["explain", "--root", root, "--format", "json", path])
    os.chmod(full, 0o755)
    if rc not in (0, 3):
        return None, None, f"explain: exit {rc}: {err!r}"
    d = json.loads(out)[0]
    text = d["caps_after"]
    if d["verdict"] != "migrate" or not text:
        return None, None, f"explain decided {d['verdict']}: {d['reason']}"
    return d, set(text.split("=")[0].split(",")), None


def learn_run(ctx, root, loader, libdirs, program, smoke, caps):
    """Run the smoke command under learn in a network namespace; the learn document."""
    argv = [loader, "--library-path", ":".join(libdirs), os.path.join(root, program.lstrip("/"))]
    argv += smoke[1:]
    learn = [ctx.binary, "learn", "--json", "--no-record", "--root", root, "--caps",
             ",".join(sorted(caps)), "--timeout", "20", "--"] + argv
    script = 'ip link set lo up && exec "$@"'
    env = {"LC_ALL": "C", "TZ": "UTC", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    p = subprocess.run(["unshare", "--net", "sh", "-c", script, "learn"] + learn,
                       capture_output=True, env=env, timeout=120)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except ValueError:
        return p.returncode, None, p.stderr


def observe(ctx, rid, rule, release, rows):
    package, name = OBSERVED[rid]
    label = f"{rid} ({package}, Debian {debfetch.RELEASES[release]})"
    try:
        root = ctx.tree(f"{release}-{package}")
        debs = debfetch.unpack_closure([package], release, root)
    except debfetch.Unavailable as e:
        print(f"skip {label}: {e}", file=sys.stderr)
        return
    version = debfetch.field(debs[package], "Version")
    program = program_in(debs[package], name)
    loader, libdir = loader_of(root)
    ctx.check(f"{label}: the package ships {name}", program is not None, "")
    ctx.check(f"{label}: the release's dynamic loader", loader is not None, "")
    if not program or not loader:
        return
    d, want, why = expected_set(ctx, root, program)
    ctx.check(f"{label}: suid2cap migrates it with its rule", d is not None and
              (d.get("rule") or {}).get("id") == rid, why or repr(d and d.get("rule")))
    if not d:
        return
    caps = cap_numbers()
    lacking = sorted(c for c in want if not bounding_set() & (1 << caps[c]))
    if lacking:
        print(f"skip {label}: this machine's bounding set lacks {','.join(lacking)}, which no "
              "process here can hold, so the run cannot be observed", file=sys.stderr)
        rows.append((rid, package, version, release, "not observed (bounding set lacks "
                     + ",".join(lacking) + ")", d["caps_after"]))
        return
    multiarch = os.path.basename(libdir)
    libdirs = [os.path.join(root, "usr/lib", multiarch), os.path.join(root, "lib", multiarch)]
    rc, doc, err = learn_run(ctx, root, loader, libdirs, program, rule["smoke"], want)
    ctx.check(f"{label}: learn ran it", doc is not None, f"exit {rc}: {err[-2000:]!r}")
    if not doc:
        return
    used = set((doc["used"] or "").split(",")) - {""}
    ctx.check(f"{label}: the smoke command succeeded", doc["run"]["succeeded"],
              f"{doc['run']} {err[-1500:]!r}")
    ctx.check(f"{label}: denied nothing", doc["denied"] is None, doc["denied"])
    unused = UNEXERCISED.get(rid, set())
    said = rule["reason"] + " " + rule.get("breaks", "")
    ctx.check(f"{label}: the rule says why the smoke run leaves {sorted(unused)} unused",
              all(c in said for c in unused), said)
    ctx.check(f"{label}: used exactly the rule's set {d['caps_after']}", used == want - unused,
              f"used {sorted(used)}")
    rows.append((rid, package, version, release, ",".join(sorted(used)) or "none",
                 d["caps_after"], doc["mechanism"]["name"]))
    # ... and the observation can fail: without the set the same run is refused it
    rc, doc, err = learn_run(ctx, root, loader, libdirs, program, rule["smoke"], {"none"})
    denied = set(((doc or {}).get("denied") or "").split(",")) - {""}
    ctx.check(f"{label}: without the set the run fails, denied part of it",
              doc is not None and not doc["run"]["succeeded"] and denied and denied <= want,
              f"exit {rc}: {doc and doc['run']} denied {sorted(denied)}")


def test_rules_observed(ctx):
    """The capabilities each smoke run uses are the rule's set, on Debian 12 and 13."""
    rules = smoke_rules()
    ctx.check("every migrate rule with a smoke command is observed", set(rules) == set(OBSERVED),
              f"rules {sorted(rules)}, observed {sorted(OBSERVED)}")
    if not can_learn(ctx):
        return SKIP
    rows = []
    os.chmod(ctx.tmp, 0o711)    # the program runs as nobody, from a root beneath it
    for rid in sorted(OBSERVED):
        for release in RELEASES:
            observe(ctx, rid, rules[rid], release, rows)
    table = os.environ.get("S2C_OBSERVED_TABLE")
    if table:
        write_table(table, rows)
    return None if rows else SKIP


def write_table(path, rows):
    """The rows as docs/RULES.md shows them."""
    day = time.strftime("%Y-%m-%d", time.gmtime())
    with open(path, "w") as f:
        f.write("| program (rule) | package and version | observed | rule's set | learn | date |\n")
        f.write("|---|---|---|---|---|---|\n")
        for rid, package, version, release, used, rule_set, *mech in rows:
            f.write(f"| `{rid}` | {package} {version} (Debian {debfetch.RELEASES[release]}) | "
                    f"`{used}` | `{rule_set}` | {mech[0] if mech else '-'} | {day} |\n")


TESTS = [test_rules_observed]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
