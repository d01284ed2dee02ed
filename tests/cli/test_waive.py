#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI tests of accepted findings and less noise in them: findings that need no action
are notes, one warning per cause.

The fixture trees need chown and setuid bits, so the module exits 77 (skip) when not
run as root; CI runs it as root.
"""
import json
import os
import shutil
import sys

import s2ctest
from s2ctest import SKIP, is_root, fix_dir_times, setcap

KERNEL = ["--kernel", "6.1"]
FPING = "/usr/bin/fping"
PASSWD = b"root:x:0:0:root:/root:/bin/sh\n"
GROUP = b"root:x:0:\n"


def staging_root(ctx, name):
    root = ctx.tree(name)
    s2ctest.mkfile(root, "etc/passwd", 0o644, PASSWD)
    s2ctest.mkfile(root, "etc/group", 0o644, GROUP)
    return root


def install(root, rel, src, mode, uid=0, gid=0):
    """Copy @src into the root (no capabilities), chown, chmod, fix mtime."""
    path = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.copyfile(src, path)
    os.chown(path, uid, gid)
    os.chmod(path, mode)
    os.utime(path, (s2ctest.FIXED_MTIME,) * 2)
    return path


def audit(ctx, root, *args, env=None):
    return ctx.run(["audit", "--root", root, *KERNEL, *args], env=env)


def sarif_results(data):
    return json.loads(data)["runs"][0]["results"]


# --- less noise ----------------------------------------------------------------------------

def test_nothing_to_change_is_a_note(ctx):
    """fping installed as Debian installs it (cap_net_raw=ep): migrate, nothing to change."""
    if not os.path.isfile(FPING):
        print(f"note: {FPING} missing (apt-get install fping); test skipped", file=sys.stderr)
        return SKIP
    root = staging_root(ctx, "fping-caps")
    p = install(root, FPING, FPING, 0o755)
    setcap(p, "cap_net_raw=ep")
    fix_dir_times(root)
    rc, out, err = audit(ctx, root, "--format", "sarif")
    ctx.check("nothing to change: sarif exit", rc == 0, f"exit {rc} {err!r}")
    levels = {r["ruleId"]: r["level"] for r in sarif_results(out)}
    ctx.check("nothing to change: S2C001 is a note", levels.get("S2C001") == "note", f"{levels}")
    # The capabilities it keeps are still a warning of their own.
    ctx.check("nothing to change: S2C006 stays a warning", levels.get("S2C006") == "warning",
              f"{levels}")
    rc, out, err = audit(ctx, root, "--format", "json")
    doc = json.loads(out)
    ctx.check("nothing to change: json levels", doc["summary"]["levels"] ==
              {"note": 1, "warning": 1, "error": 0}, f"{doc['summary']}")
    s2ctest.validate_json(ctx, "nothing to change: json schema", doc, "audit.schema.json")
    rc, out, err = audit(ctx, root)
    ctx.check("nothing to change: text counts it as a note",
              b"findings    0 errors, 1 warning, 1 note\n" in out, out.decode(errors="replace"))
    # The same program set-user-ID root: the migration is a change, and an error.
    root = staging_root(ctx, "fping-suid")
    install(root, FPING, FPING, 0o4755)
    fix_dir_times(root)
    rc, out, err = audit(ctx, root, "--format", "sarif")
    levels = {r["ruleId"]: r["level"] for r in sarif_results(out)}
    ctx.check("setuid fping: S2C001 is an error", levels == {"S2C001": "error"}, f"{levels}")


def test_one_warning_per_cause(ctx):
    """The rule's breaks text and the engine's capability-dumb warning said the same."""
    if not os.path.isfile(FPING):
        print(f"note: {FPING} missing (apt-get install fping); test skipped", file=sys.stderr)
        return SKIP
    for name, mode, caps in (("suid", 0o4755, None), ("caps", 0o755, "cap_net_raw=ep")):
        root = staging_root(ctx, f"fping-{name}")
        p = install(root, FPING, FPING, mode)
        if caps:
            setcap(p, caps)
        fix_dir_times(root)
        rc, out, err = ctx.run(["explain", "--root", root, *KERNEL, "--format", "json", FPING])
        ctx.check(f"explain fping ({name}) exit", rc == 0, f"exit {rc} {err!r}")
        warnings = json.loads(out)[0]["warnings"] if rc == 0 else []
        life = [w for w in warnings if "whole life" in w]
        ctx.check(f"explain fping ({name}): one warning about keeping cap_net_raw", len(life) == 1,
                  f"{warnings}")
        rc, out, err = ctx.run(["explain", "--root", root, *KERNEL, FPING])
        ctx.check(f"explain fping ({name}) text: once", out.count(b"whole life") == 1,
                  out.decode(errors="replace"))


# --- local overrides of a rule's verdict -------------------------------------------------

def rules_file(ctx, name, doc, mode=0o644, dirmode=0o755):
    """A rules directory holding @doc as <area>.json."""
    d = os.path.join(ctx.tmp, name)
    os.makedirs(d)
    path = os.path.join(d, doc["area"] + ".json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
    os.chmod(path, mode)
    os.chmod(d, dirmode)
    return d


def overrides(*entries, area="site"):
    return {"schema": 1, "area": area, "description": "Local decisions of this site.",
            "overrides": list(entries)}


KEEP_FPING = {"override": "fping.fping", "verdict": "keep",
              "reason": "This site keeps fping setuid root until its monitoring agent is replaced."}


def fping_root(ctx, name, mode=0o4755, caps=None):
    root = staging_root(ctx, name)
    p = install(root, FPING, FPING, mode)
    if caps:
        setcap(p, caps)
    fix_dir_times(root)
    return root


def explain_json(ctx, root, db, path=FPING):
    rc, out, err = ctx.run(["explain", "--root", root, *KERNEL, "--db", db, "--format", "json",
                            path])
    ctx.check(f"explain {path} with {os.path.basename(db)}", rc == 0, f"exit {rc} {err!r}")
    return json.loads(out)[0] if rc == 0 else {}


def test_override_verdict(ctx):
    """One line changes what a rule decides; every output says it was the override."""
    if not os.path.isfile(FPING):
        return SKIP
    root = fping_root(ctx, "ovr-keep")
    db = rules_file(ctx, "ovr-keep.d", overrides(KEEP_FPING))
    d = explain_json(ctx, root, db)
    ctx.check("override keep: verdict", d.get("verdict") == "keep" and not d.get("changes"),
              f"{d.get('verdict')} {d.get('reason')}")
    ctx.check("override keep: reason is the override's", d.get("reason") == KEEP_FPING["reason"],
              f"{d.get('reason')}")
    ov = d.get("override") or {}
    ctx.check("override keep: json names file, place and the rule's verdict",
              os.path.basename(ov.get("file", "")) == "site.json" and
              ov.get("where") == "$.overrides[0]" and ov.get("rule_verdict") == "migrate" and
              ov.get("verdict") == "keep" and d["rule"]["id"] == "fping.fping", f"{ov}")
    rc, out, err = ctx.run(["explain", "--root", root, *KERNEL, "--db", db, FPING])
    ctx.check("override keep: explain text", b"override    keep instead of the rule's migrate, by "
              b"the local override in " + db.encode() + b"/site.json $.overrides[0]" in out,
              out.decode(errors="replace"))
    for fmt, needle in (("text", b"override: keep instead of the rule's migrate"),
                        ("markdown", b"**override**: keep instead of the rule's migrate"),
                        ("html", b"<dt>override</dt><dd>keep instead of the rule&#39;s migrate"),
                        ("sarif", b'"override": "keep instead of the rule\'s migrate')):
        rc, out, err = audit(ctx, root, "--db", db, "--format", fmt)
        ctx.check(f"override keep: audit {fmt}", rc == 0 and needle in out,
                  f"exit {rc} {err!r} {out[:3000]!r}")
    rc, out, err = audit(ctx, root, "--db", db, "--format", "json")
    doc = json.loads(out)
    s2ctest.validate_json(ctx, "override keep: audit json schema", doc, "audit.schema.json")
    ctx.check("override keep: audit json", doc["files"][0]["override"]["verdict"] == "keep" and
              doc["files"][0]["findings"] == ["S2C003"], f"{doc['files'][0]['findings']}")
    # The plan, which apply carries out, follows the override too.
    rc, out, err = ctx.run(["plan", "--root", root, *KERNEL, "--db", db, "--format", "json"])
    entries = json.loads(out)["entries"] if rc == 0 else []
    ctx.check("override keep: plan changes nothing", rc == 0 and
              all(e["action"] == "none" for e in entries), f"exit {rc} {err!r} {entries}")

    # migrate to a =p set: fping cannot raise it, so the effective bit is added, as for a rule
    db = rules_file(ctx, "ovr-migrate.d", overrides(
        {"override": "fping.fping", "verdict": "migrate", "caps": "cap_net_raw=p",
         "reason": "This site ships a fping build that raises cap_net_raw itself.",
         "accepted_risk": "cap_net_raw is what the setuid-root bit it replaces was for."}))
    d = explain_json(ctx, root, db)
    ctx.check("override migrate: caps with the effective bit",
              d.get("verdict") == "migrate" and d.get("caps_after") == "cap_net_raw=ep" and
              any("local override gives 'cap_net_raw=p'" in w for w in d.get("warnings", [])),
              f"{d.get('caps_after')} {d.get('warnings')}")
    rc, out, err = ctx.run(["rules", "lint", db])
    ctx.check("override migrate with accepted_risk lints clean", rc == 0, f"exit {rc} {err!r}")

    # drop: the set-ID bit goes, no capabilities
    db = rules_file(ctx, "ovr-drop.d", overrides(
        {"override": "fping.fping", "verdict": "drop",
         "reason": "Only root runs fping on this site, so it needs no privilege."}))
    d = explain_json(ctx, root, db)
    ctx.check("override drop", d.get("verdict") == "drop" and d.get("mode_after") == "0755" and
              d.get("caps_after") is None, f"{d.get('verdict')} {d.get('mode_after')}")

    # A later directory's override of the same rule replaces an earlier one.
    first = rules_file(ctx, "ovr-first.d", overrides(KEEP_FPING, area="first"))
    rc, out, err = ctx.run(["explain", "--root", root, *KERNEL, "--db", first, "--db", db,
                            "--format", "json", FPING])
    d = json.loads(out)[0] if rc == 0 else {}
    ctx.check("override: the later layer wins", d.get("verdict") == "drop", f"{d.get('verdict')}")
    rc, out, err = ctx.run(["rules", "list", "--db", first, "--db", db, "--format", "json"])
    ovs = json.loads(out).get("overrides") if rc == 0 else None
    ctx.check("rules list: the override in force", ovs and len(ovs) == 1 and
              ovs[0]["verdict"] == "drop", f"{ovs}")


def test_override_privilege_refused(ctx):
    """An override goes through the privilege order like a rule: never more than the file has."""
    if not os.path.isfile(FPING):
        return SKIP
    # fping with cap_net_raw only: an override may not add cap_net_admin
    root = fping_root(ctx, "ovr-more", mode=0o755, caps="cap_net_raw=ep")
    db = rules_file(ctx, "ovr-more.d", overrides(
        {"override": "fping.fping", "verdict": "migrate", "caps": "cap_net_raw,cap_net_admin=ep",
         "reason": "A site wants fping to set marks on its packets.",
         "accepted_risk": "cap_net_admin lets it reconfigure interfaces, which this site accepts."}))
    d = explain_json(ctx, root, db)
    ctx.check("override asking more than the file has: review, nothing changes",
              d.get("verdict") == "review" and not d.get("changes") and
              d.get("caps_after") == "cap_net_raw=ep" and
              d.get("reason", "").startswith("the local override of 'fping.fping' would migrate "
                                             "it to cap_net_admin,cap_net_raw=ep, but it would "
                                             "gain cap_net_admin") and
              d.get("override", {}).get("verdict") == "migrate", f"{d.get('verdict')}: "
              f"{d.get('reason')}")
    rc, out, err = ctx.run(["plan", "--root", root, *KERNEL, "--db", db, "--format", "json"])
    entries = json.loads(out)["entries"] if rc == 0 else [{}]
    ctx.check("override refused: the plan changes nothing",
              rc == 0 and all(e["action"] == "none" for e in entries), f"{entries}")
    # A dangerous set without accepted_risk is a lint error, as in a rule.
    db = rules_file(ctx, "ovr-risk.d", overrides(
        {"override": "fping.fping", "verdict": "migrate", "caps": "cap_net_raw,cap_sys_admin=ep",
         "reason": "A test of an override to a root-equivalent set."}))
    rc, out, err = ctx.run(["rules", "lint", db])
    ctx.check("override to a root-equivalent set without accepted_risk: lint error",
              rc == 1 and b"site.json: $.overrides[0].caps: migrating to "
              b"'cap_net_raw,cap_sys_admin=ep' gives cap_sys_admin (root-equivalent)" in err,
              f"exit {rc} {err!r}")
    # ... and what it decides is setuid in disguise, which apply refuses without acceptance.
    root = fping_root(ctx, "ovr-disguise")
    d = explain_json(ctx, root, db)
    ctx.check("override to a root-equivalent set: setuid in disguise",
              d.get("verdict") == "migrate" and d.get("setuid_in_disguise") is True,
              f"{d.get('verdict')} {d.get('setuid_in_disguise')}")


def test_override_errors(ctx):
    """A bad override is an error naming the file and JSON path; nothing is decided."""
    root = staging_root(ctx, "ovr-errors")
    cases = [
        ("unknown-id", [{"override": "fping.nosuch", "verdict": "keep", "reason": "No such rule."}],
         b"$.overrides[0].override: no rule 'fping.nosuch' to override"),
        ("no-reason", [{"override": "fping.fping", "verdict": "keep"}],
         b"$.overrides[0]: missing key 'reason'"),
        ("empty-reason", [{"override": "fping.fping", "verdict": "keep", "reason": "  "}],
         b"$.overrides[0].reason: empty"),
        ("review", [{"override": "fping.fping", "verdict": "review", "reason": "Somebody decides."}],
         b"$.overrides[0].verdict: unknown verdict 'review'"),
        ("keep-caps", [{"override": "fping.fping", "verdict": "keep", "caps": "cap_net_raw=ep",
                        "reason": "Keep it."}],
         b"$.overrides[0]: 'caps' belongs to verdict 'migrate' only"),
        ("migrate-no-caps", [{"override": "fping.fping", "verdict": "migrate",
                              "reason": "Migrate it."}],
         b"$.overrides[0]: verdict 'migrate' needs 'caps'"),
        ("bad-caps", [{"override": "fping.fping", "verdict": "migrate", "caps": "cap_net_rwa=ep",
                       "reason": "Migrate it."}],
         b"$.overrides[0].caps:"),
        ("unknown-key", [{"override": "fping.fping", "verdict": "keep", "reason": "Keep it.",
                          "match": {"paths": ["/x"]}}],
         b"$.overrides[0]: unknown key 'match'"),
        ("twice", [KEEP_FPING, dict(KEEP_FPING, verdict="drop")],
         b"$.overrides[1]: a second override of rule 'fping.fping'"),
    ]
    for name, entries, needle in cases:
        db = rules_file(ctx, f"ovr-{name}.d", overrides(*entries))
        rc, out, err = ctx.run(["rules", "lint", db])
        ctx.check(f"override {name}: rules lint", rc == 1 and needle in err and b"site.json" in err,
                  f"exit {rc} {err!r}")
        rc, out, err = audit(ctx, root, "--db", db)
        ctx.check(f"override {name}: audit refuses the database", rc == 4 and out == b"" and
                  needle in err, f"exit {rc} {err!r}")
    db = rules_file(ctx, "ovr-empty.d", {"schema": 1, "area": "site",
                                          "description": "Nothing at all in here."})
    rc, out, err = ctx.run(["rules", "lint", db])
    ctx.check("a rules file with neither rules nor overrides", rc == 1 and
              b"site.json: $: needs 'rules' or 'overrides'" in err, f"exit {rc} {err!r}")
    # As root, a rules file others may write is refused, overrides and all.
    db = rules_file(ctx, "ovr-writable.d", overrides(KEEP_FPING), mode=0o664)
    rc, out, err = audit(ctx, root, "--db", db)
    ctx.check("override in a group-writable file: refused", rc == 5 and out == b"" and
              b"writable by group or others" in err, f"exit {rc} {err!r}")


TESTS = [test_nothing_to_change_is_a_note, test_one_warning_per_cause, test_override_verdict,
         test_override_privilege_refused, test_override_errors]


def main(argv):
    if not is_root():
        print("skip: the fixtures need root (chown, setuid bits, setcap)")
        return SKIP
    return s2ctest.main(TESTS, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
