#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI tests of accepted findings and less noise in them: waivers in every format, with
--fail-on, expiry, stale waivers, malformed and untrusted files; local overrides of a
rule's verdict; findings that need no action are notes, one warning per cause.

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

def test_nothing_to_change(ctx):
    """fping installed as Debian installs it (cap_net_raw=ep): the verdict is migrate, but
    there is nothing to change, which every format shows as its own state, with no S2C001."""
    if not os.path.isfile(FPING):
        print(f"note: {FPING} missing (apt-get install fping); test skipped", file=sys.stderr)
        return SKIP
    root = staging_root(ctx, "fping-caps")
    p = install(root, FPING, FPING, 0o755)
    setcap(p, "cap_net_raw=ep")
    fix_dir_times(root)
    rc, out, err = audit(ctx, root, "--format", "sarif")
    ctx.check("nothing to change: sarif exit", rc == 0, f"exit {rc} {err!r}")
    results = sarif_results(out)
    levels = {r["ruleId"]: r["level"] for r in results}
    # The capabilities it keeps are still a warning of their own, and the only result.
    ctx.check("nothing to change: no S2C001, S2C006 stays a warning",
              levels == {"S2C006": "warning"}, f"{levels}")
    ctx.check("nothing to change: sarif says the state", all(
        r["properties"]["state"] == "nothing to change" and r["properties"]["verdict"] ==
        "migrate" for r in results), json.dumps([r["properties"] for r in results]))
    ctx.check("nothing to change: no 'can migrate' message",
              not any("can migrate" in r["message"]["text"] for r in results), "")
    rc, out, err = audit(ctx, root, "--format", "json")
    doc = json.loads(out)
    f = doc["files"][0]
    ctx.check("nothing to change: json state and findings", f["state"] == "nothing to change"
              and f["verdict"] == "migrate" and f["changes"] is False and
              f["findings"] == ["S2C006"], json.dumps({k: f[k] for k in ("state", "findings")}))
    ctx.check("nothing to change: json summary", doc["summary"]["states"] ==
              {"migrate": 0, "drop": 0, "review": 0, "keep": 0, "nothing to change": 1} and
              doc["summary"]["levels"] == {"note": 0, "warning": 1, "error": 0} and
              doc["summary"]["findings"].get("S2C001", 0) == 0, f"{doc['summary']}")
    s2ctest.validate_json(ctx, "nothing to change: json schema", doc, "audit.schema.json")
    rc, out, err = audit(ctx, root)
    text = out.decode(errors="replace")
    ctx.check("nothing to change: text", "0 migrate, 0 drop, 0 review, 0 keep, 1 nothing to "
              "change" in text and "\nNOTHING TO CHANGE: 1 file, already in the state the verdict "
              "asks for\n" in text and "\nMIGRATE" not in text and
              "findings    0 errors, 1 warning, 0 notes\n" in text, text)
    rc, out, err = audit(ctx, root, "--format", "markdown")
    ctx.check("nothing to change: markdown", b"\n## Nothing to change: already in the state the "
              b"verdict asks for (1)\n" in out and b"| nothing to change | 1 |" in out and
              b"S2C001" not in out.split(b"## Nothing to change")[1], out.decode()[-800:])
    rc, out, err = audit(ctx, root, "--format", "html")
    ctx.check("nothing to change: html", b'<td class="v v-done" data-sort="4">nothing to '
              b'change</td>' in out, "")
    rc, out, err = audit(ctx, root, "--fail-on", "migrate,S2C001")
    ctx.check("nothing to change: no gate on migrate", rc == 0 and b"--fail-on" not in err,
              f"exit {rc} {err!r}")
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


# --- waivers -------------------------------------------------------------------------------

SU = "/usr/bin/su"
TOOL = "/usr/local/bin/tool"     # unknown to the rules, writable by others: S2C004 and S2C008
# The audit's day is that of SOURCE_DATE_EPOCH (s2ctest.FIXED_MTIME): 2023-11-14.
WAIVERS = (b"# accepted on this site\n"
           b"S2C003 /usr/bin/su   su must switch users\n"
           b"\n"
           b"S2C008 /usr/local/bin/*  expires=2023-11-14  vendor fix due; ticket 12\n"
           b"S2C004 /usr/local/bin/to?l  expires=2023-11-13  reviewed last year\n"
           b"S2C001 /usr/bin/nothing-here  a waiver that matches nothing\n")


def waiver_root(ctx, name):
    root = staging_root(ctx, name)
    install(root, SU, SU, 0o4755)
    install(root, TOOL, "/bin/true", 0o4757)
    fix_dir_times(root)
    return root


def write_file(path, data, mode=0o644, uid=0):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.chown(path, uid, 0)
    os.chmod(path, mode)
    return path


def waived_of(doc):
    return {f["file"]["path"]: f.get("waived", {}) for f in doc["files"]}


def test_waivers_json(ctx):
    root = waiver_root(ctx, "waive-json")
    wfile = write_file(os.path.join(ctx.tmp, "waivers-json"), WAIVERS)
    rc, out, err = audit(ctx, root, "--format", "json", "--waivers", wfile)
    ctx.check("waivers json: exit", rc == 0, f"exit {rc} {err!r}")
    doc = json.loads(out)
    s2ctest.validate_json(ctx, "waivers json: schema", doc, "audit.schema.json")
    waived = waived_of(doc)
    ctx.check("waivers json: su's keep is waived with its reason",
              waived[SU].get("S2C003", {}).get("reason") == "su must switch users" and
              waived[SU]["S2C003"]["source"] == f"{wfile} line 2", f"{waived[SU]}")
    ctx.check("waivers json: a waiver holds through its expiry day",
              set(waived[TOOL]) == {"S2C008"} and
              waived[TOOL]["S2C008"]["expires"] == "2023-11-14", f"{waived[TOOL]}")
    tool = next(f for f in doc["files"] if f["file"]["path"] == TOOL)
    ctx.check("waivers json: waived findings stay in findings",
              "S2C004" in tool["findings"] and "S2C008" in tool["findings"], f"{tool['findings']}")
    status = {(w["finding"], w["path"]): (w["status"], w["findings"]) for w in doc["waivers"]}
    ctx.check("waivers json: used, expired and stale waivers", status == {
        ("S2C003", SU): ("used", 1), ("S2C008", "/usr/local/bin/*"): ("used", 1),
        ("S2C004", "/usr/local/bin/to?l"): ("expired", 1),
        ("S2C001", "/usr/bin/nothing-here"): ("stale", 0)}, f"{status}")
    summary = doc["summary"]
    ctx.check("waivers json: counts", summary["waived"] == 2 and summary["waivers_stale"] == 1 and
              summary["waivers_expired"] == 1, f"{summary}")
    # The waived findings leave the counts by level; without waivers they are there.
    rc, out, err = audit(ctx, root, "--format", "json")
    plain = json.loads(out)
    ctx.check("waivers json: levels leave the waived out",
              sum(plain["summary"]["levels"].values()) - sum(summary["levels"].values()) == 2,
              f"{plain['summary']['levels']} vs {summary['levels']}")
    ctx.check("waivers json: no waivers, no waiver keys",
              "waivers" not in plain and "waived" not in plain["summary"] and
              not any("waived" in f for f in plain["files"]), "")
    # One day later the S2C008 waiver has expired too.
    rc, out, err = audit(ctx, root, "--format", "json", "--waivers", wfile,
                         env={"SOURCE_DATE_EPOCH": str(s2ctest.FIXED_MTIME + 86400)})
    later = json.loads(out)
    ctx.check("waivers json: expired the day after", waived_of(later)[TOOL] == {} and
              later["summary"]["waivers_expired"] == 2, f"{later['summary']}")


def test_waivers_text_markdown_html(ctx):
    root = waiver_root(ctx, "waive-text")
    wfile = write_file(os.path.join(ctx.tmp, "waivers-text"), WAIVERS)
    rc, out, err = audit(ctx, root, "--waivers", wfile)
    text = out.decode(errors="replace")
    flat = " ".join(text.split())       # as the lines read, whatever the wrapping
    ctx.check("waivers text: exit", rc == 0, f"exit {rc} {err!r}")
    ctx.check("waivers text: count", "  waived      2 findings (not counted above); waivers: "
              "1 stale, 1 expired\n" in text, text)
    ctx.check("waivers text: marker with the reason",
              f"waived: S2C003 ({wfile} line 2): su must switch users" in flat, text)
    ctx.check("waivers text: expired on the file",
              f"waiver expired: S2C004 ({wfile} line 5, expires 2023-11-13): reviewed last year"
              in flat, text)
    ctx.check("waivers text: stale listed", "stale (no such finding): S2C001" in text and
              "path: /usr/bin/nothing-here" in text, text)
    rc, out, err = audit(ctx, root, "--waivers", wfile, "--format", "markdown")
    md = out.decode(errors="replace")
    ctx.check("waivers markdown: count", "Waived: **2** findings (not counted above); "
              "waivers: 1 stale, 1 expired." in md, md)
    ctx.check("waivers markdown: marker in the table", "S2C003 (waived)" in md, md)
    ctx.check("waivers markdown: reason on the file",
              "- **waived**: S2C003 (" in md and "su must switch users" in md, md)
    ctx.check("waivers markdown: waivers section",
              "| S2C001 | /usr/bin/nothing-here | stale | 0 | never |" in md, md)
    rc, out, err = audit(ctx, root, "--waivers", wfile, "--format", "html")
    html = out.decode(errors="replace")
    ctx.check("waivers html: count", "Waived: <strong>2</strong> findings" in html, html[-3000:])
    ctx.check("waivers html: marker", "<code title=\"Privileged program that must stay as it is "
              "(note)\">S2C003</code> <em class=\"waived\">waived</em>" in html, "")
    ctx.check("waivers html: reason and section", "<dt>waived</dt><dd>S2C003 (" in html and
              "<section id=\"waivers\">" in html and "<td>expired</td>" in html, "")


def test_waivers_sarif(ctx):
    import test_audit
    root = waiver_root(ctx, "waive-sarif")
    wfile = write_file(os.path.join(ctx.tmp, "waivers-sarif"), WAIVERS)
    rc, out, err = audit(ctx, root, "--waivers", wfile, "--format", "sarif")
    ctx.check("waivers sarif: exit", rc == 0, f"exit {rc} {err!r}")
    test_audit.validate_sarif(ctx, "waivers sarif", out)
    res = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]): r
           for r in sarif_results(out)}
    su = res[("S2C003", "usr/bin/su")]
    sup = su.get("suppressions", [])
    ctx.check("waivers sarif: waived result suppressed externally", len(sup) == 1 and
              sup[0]["kind"] == "external" and sup[0]["status"] == "accepted" and
              sup[0]["justification"] == "su must switch users", f"{sup}")
    ctx.check("waivers sarif: the expired waiver suppresses nothing",
              "suppressions" not in res[("S2C004", "usr/local/bin/tool")], "")
    ctx.check("waivers sarif: the waived result stays",
              "suppressions" in res[("S2C008", "usr/local/bin/tool")], f"{sorted(res)}")
    props = json.loads(out)["runs"][0]["properties"]
    ctx.check("waivers sarif: the waivers with their status",
              [w["status"] for w in props.get("waivers", [])] == ["used", "used", "expired",
                                                                   "stale"], f"{props}")


def test_waivers_fail_on(ctx):
    root = waiver_root(ctx, "waive-fail")
    only_su = write_file(os.path.join(ctx.tmp, "waivers-su"),
                         b"S2C003 /usr/bin/su su must switch users\n")
    tool = write_file(os.path.join(ctx.tmp, "waivers-tool"),
                      b"S2C004 /usr/local/bin/tool vendor tool, reviewed\n"
                      b"S2C008 /usr/local/bin/tool the vendor installs it so\n")
    cases = [
        (["--fail-on", "risk"], 1),                                   # su: kept setuid root
        (["--fail-on", "risk", "--waivers", only_su], 1),             # the tool still is
        (["--fail-on", "risk", "--waivers", only_su, "--waivers", tool], 0),
        (["--fail-on", "S2C008"], 1),
        (["--fail-on", "S2C008", "--waivers", tool], 0),
        (["--fail-on", "s2c008,review", "--waivers", tool], 0),       # ids in any case
        (["--fail-on", "S2C003,S2C008", "--waivers", tool], 1),       # su's keep
        (["--fail-on", "S2C005"], 0),                                 # no such finding
        (["--fail-on", "review,S2C003", "--waivers", only_su], 1),    # the tool's review
    ]
    for args, want in cases:
        rc, out, err = audit(ctx, root, *args)
        ctx.check(f"fail-on {' '.join(a.replace(ctx.tmp + '/', '') for a in args)}", rc == want,
                  f"exit {rc}, want {want} {err!r}")
    # --quiet lists what asks for a person: a waived finding has had one.
    rc, out, err = audit(ctx, root, "--quiet")
    ctx.check("quiet: the tool's review and writable bit", f"{TOOL}\n".encode() in out and
              b"S2C008" in out, out.decode(errors="replace"))
    rc, out, err = audit(ctx, root, "--quiet", "--waivers", tool)
    ctx.check("quiet: waived findings left out", TOOL.encode() not in out and
              b"; 2 waived; waivers: 0 stale, 0 expired\n" in out, out.decode(errors="replace"))
    rc, out, err = audit(ctx, root, "--fail-on", "S2C009")
    ctx.check("fail-on unknown id: usage error", rc == 2 and
              b"unknown --fail-on 'S2C009': expected review, migrate, risk, incomplete or a finding "
              b"id" in err,
              f"exit {rc} {err!r}")


def test_waivers_malformed(ctx):
    root = waiver_root(ctx, "waive-bad")
    cases = {
        b"S2C003 /usr/bin/su\n": "line 1: a waiver needs a reason after the path",
        b"# ok\nS2C077 /usr/bin/su why\n": "line 2: expected a finding id (S2C001 to S2C008) first",
        b"S2C003 usr/bin/su why\n": "line 1: 'usr/bin/su': not an absolute path",
        b"S2C003 /usr/bin/su expires=2023-02-29 why\n":
            "line 1: '/usr/bin/su': the expiry date must be a day written YYYY-MM-DD",
    }
    for i, (data, msg) in enumerate(cases.items()):
        wfile = write_file(os.path.join(ctx.tmp, f"bad-waivers-{i}"), data)
        outfile = os.path.join(ctx.tmp, f"bad-waivers-{i}.json")
        rc, out, err = audit(ctx, root, "--waivers", wfile, "--format", "json", "-o", outfile)
        ctx.check(f"malformed waivers {i}: exit 2, file and line named", rc == 2 and
                  f"'{wfile}' {msg}".encode() in err, f"exit {rc} {err!r}")
        ctx.check(f"malformed waivers {i}: nothing written", not os.path.exists(outfile), "")
    # Every malformed line of every file is named at once, one error a line.
    one = write_file(os.path.join(ctx.tmp, "bad-many-1"), b"".join(cases))
    two = write_file(os.path.join(ctx.tmp, "bad-many-2"), b"S2C003 /usr/bin/su fine\nnope\n")
    rc, out, err = audit(ctx, root, "--waivers", one, "--waivers", two)
    want = [f"suid2cap: error: '{one}' {msg}" for msg in (
        "line 1: a waiver needs a reason after the path",
        "line 3: expected a finding id (S2C001 to S2C008) first",
        "line 4: 'usr/bin/su': not an absolute path",
        "line 5: '/usr/bin/su': the expiry date must be a day written YYYY-MM-DD")]
    want.append(f"suid2cap: error: '{two}' line 2: expected a finding id (S2C001 to S2C008) "
                "first")
    ctx.check("malformed waivers: every bad line of every file", rc == 2 and out == b"" and
              err.decode().splitlines() == want, f"exit {rc} {err.decode()}")
    rc, out, err = audit(ctx, root, "--waivers", os.path.join(ctx.tmp, "no-such-waivers"))
    ctx.check("missing waivers file: exit 2", rc == 2 and b"cannot open waivers file" in err,
              f"exit {rc} {err!r}")
    # The target's own file is checked the same way.
    write_file(os.path.join(root, "etc/suid2cap/waivers"), b"S2C003 /usr/bin/su\n")
    rc, out, err = audit(ctx, root)
    ctx.check("malformed root waivers: exit 2", rc == 2 and
              f"'{root}/etc/suid2cap/waivers' line 1".encode() in err, f"exit {rc} {err!r}")


def test_waivers_of_the_root(ctx):
    root = waiver_root(ctx, "waive-root")
    own = write_file(os.path.join(root, "etc/suid2cap/waivers"),
                     b"S2C003 /usr/bin/su the image's own waiver\n")
    rc, out, err = audit(ctx, root, "--format", "json")
    doc = json.loads(out)
    ctx.check("root waivers: read beneath the root", rc == 0 and
              waived_of(doc)[SU].get("S2C003", {}).get("source") ==
              f"{root}/etc/suid2cap/waivers line 1", f"exit {rc} {err!r}")
    # A --waivers file comes after it: the root's waiver is the one in force.
    extra = write_file(os.path.join(ctx.tmp, "waivers-extra"), b"S2C003 /usr/bin/* mine\n")
    rc, out, err = audit(ctx, root, "--format", "json", "--waivers", extra)
    doc = json.loads(out)
    ctx.check("root waivers: first match wins", waived_of(doc)[SU]["S2C003"]["reason"] ==
              "the image's own waiver", f"{waived_of(doc)}")
    # Trust: not owned by root, writable by others, or a symbolic link: refused, exit 5.
    os.chown(own, 1, 0)
    rc, out, err = audit(ctx, root)
    ctx.check("root waivers: not owned by root", rc == 5 and b"is not owned by root" in err,
              f"exit {rc} {err!r}")
    os.chown(own, 0, 0)
    os.chmod(own, 0o646)
    rc, out, err = audit(ctx, root)
    ctx.check("root waivers: writable by others", rc == 5 and
              b"is writable by group or others" in err, f"exit {rc} {err!r}")
    os.chmod(own, 0o644)
    os.rename(own, own + ".real")
    os.symlink("waivers.real", own)
    rc, out, err = audit(ctx, root)
    ctx.check("root waivers: symbolic link refused", rc == 5 and b"symbolic link" in err,
              f"exit {rc} {err!r}")
    user = write_file(os.path.join(ctx.tmp, "waivers-user"), b"S2C003 /usr/bin/su x\n", uid=1)
    os.unlink(own)
    rc, out, err = audit(ctx, root, "--waivers", user)
    ctx.check("--waivers not owned by root: refused", rc == 5 and
              b"is not owned by root" in err, f"exit {rc} {err!r}")


def test_waivers_never_change_a_plan(ctx):
    """SECURITY.md: waivers change what is reported, never what is applied."""
    root = waiver_root(ctx, "waive-plan")
    # A program the plan migrates: its S2C001 is waived below like everything else.
    install(root, "/usr/bin/ping", "/usr/bin/ping", 0o4755)
    fix_dir_times(root)
    rc, before, err = ctx.run(["plan", "--root", root, *KERNEL, "--format", "json"])
    ctx.check("waivers plan: without", rc == 0 and b"cap_net_raw" in before,
              f"exit {rc} {err!r}")
    everything = b"".join(b"S2C00%d /** accepted\n" % k for k in range(1, 9))
    write_file(os.path.join(root, "etc/suid2cap/waivers"),
               everything.replace(b"/**", b"/usr/bin/*") + everything.replace(b"/**", b"/usr/local/bin/*"))
    rc, out, err = audit(ctx, root, "--format", "json")
    waived = waived_of(json.loads(out)) if rc == 0 else {}
    ctx.check("waivers plan: the audit sees them", "S2C001" in waived.get("/usr/bin/ping", {})
              and "S2C003" in waived.get(SU, {}), f"exit {rc} {err!r} {waived}")
    rc, after, err = ctx.run(["plan", "--root", root, *KERNEL, "--format", "json"])
    ctx.check("waivers plan: the same plan with every finding waived", rc == 0 and
              after == before, "plans differ")
    for verb in ("plan", "migrate", "apply"):
        rc, out, err = ctx.run([verb, "--waivers", "/dev/null"])
        ctx.check(f"waivers plan: {verb} has no --waivers", rc == 2, f"exit {rc} {err!r}")


def test_waivers_merge_and_targets(ctx):
    import mkarchive as mk
    root = waiver_root(ctx, "waive-merge")
    wfile = write_file(os.path.join(ctx.tmp, "waivers-merge"), WAIVERS)
    report = os.path.join(ctx.tmp, "waive-merge.json")
    rc, out, err = audit(ctx, root, "--format", "json", "--waivers", wfile, "-o", report)
    rc, out, err = ctx.run(["report", "merge", "--format", "json", report])
    ctx.check("waivers merge: exit", rc == 0, f"exit {rc} {err!r}")
    doc = json.loads(out)
    s2ctest.validate_json(ctx, "waivers merge: schema", doc, "fleet.schema.json")
    su = next(p["majority"] for p in doc["programs"] if p["path"] == SU)
    ctx.check("waivers merge: the file's waived object kept",
              su.get("waived", {}).get("S2C003", {}).get("reason") == "su must switch users",
              f"{su}")
    kept = doc.get("waivers", [])
    ctx.check("waivers merge: the report's waivers kept as it gave them",
              len(kept) == 1 and kept[0]["report"] == report and
              kept[0]["waivers"] == json.load(open(report))["waivers"], f"{kept}")
    # SARIF of the merge: suppressed where every target of the majority waives it.
    import test_audit
    rc, out, err = ctx.run(["report", "merge", "--format", "sarif", report])
    schema = test_audit.sarif_schema(ctx)
    if schema is not None:
        import jsonschema
        errors = list(jsonschema.Draft4Validator(schema).iter_errors(json.loads(out)))
        ctx.check("waivers merge sarif: SARIF 2.1.0 schema", not errors,
                  errors and f"{errors[0].message} at {list(errors[0].path)}")
    su = [r for r in sarif_results(out) if r["ruleId"] == "S2C003" and
          r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "usr/bin/su"]
    sup = su[0].get("suppressions", []) if su else []
    ctx.check("waivers merge sarif: waived on every target, suppressed",
              rc == 0 and len(sup) == 1 and sup[0]["kind"] == "external" and
              sup[0]["justification"] == "su must switch users", f"exit {rc} {su}")
    plain = os.path.join(ctx.tmp, "waive-merge-plain.json")
    audit(ctx, root, "--format", "json", "-o", plain)
    rc, out, err = ctx.run(["report", "merge", "--format", "sarif", report, plain])
    su = [r for r in sarif_results(out) if r["ruleId"] == "S2C003" and
          r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "usr/bin/su"]
    ctx.check("waivers merge sarif: waived on one target of two, not suppressed, said",
              rc == 0 and su and "suppressions" not in su[0] and
              "waived on 1 of them" in su[0]["message"]["text"], f"exit {rc} {su}")
    # audit-pkg and audit-image take --waivers too.
    su_bytes = open(SU, "rb").read()
    deb = mk.write(os.path.join(ctx.tmp, "waive-su_1_amd64.deb"), mk.deb_bytes(
        package="waive-su", data=[mk.entry("./usr/", "dir", 0o755),
                                  mk.entry("./usr/bin/", "dir", 0o755),
                                  mk.entry("./usr/bin/su", mode=0o4755, data=su_bytes)]))
    rc, out, err = ctx.run(["audit-pkg", *KERNEL, "--format", "json", "--waivers", wfile, deb])
    ctx.check("waivers audit-pkg", rc == 0 and "S2C003" in waived_of(json.loads(out)).get(SU, {}),
              f"exit {rc} {err!r}")
    img = os.path.join(ctx.tmp, "waive-image.tar")
    mk.docker_archive(img, [[mk.entry("usr/", "dir", 0o755), mk.entry("usr/bin/", "dir", 0o755),
                             mk.entry("usr/bin/su", mode=0o4755, data=su_bytes),
                             mk.entry("etc/", "dir", 0o755),
                             mk.entry("etc/suid2cap/", "dir", 0o755),
                             mk.entry("etc/suid2cap/waivers",
                                      data=b"S2C003 /usr/bin/su the image's own\n")]])
    # The image is untrusted: its own waivers count only with --trust-image-config.
    rc, out, err = ctx.run(["audit-image", *KERNEL, "--format", "json", img])
    w = waived_of(json.loads(out)).get(SU, {}) if rc == 0 else {"exit": rc}
    ctx.check("waivers audit-image: the image's own file is not used", w == {},
              f"exit {rc} {err!r} {w}")
    rc, out, err = ctx.run(["audit-image", *KERNEL, "--format", "json", "--trust-image-config",
                            img])
    w = waived_of(json.loads(out)).get(SU, {}) if rc == 0 else {}
    ctx.check("waivers audit-image: the image's own file, trusted",
              w.get("S2C003", {}).get("source") == f"{img}:/etc/suid2cap/waivers line 1",
              f"exit {rc} {err!r} {w}")


def test_large_site_layer(ctx):
    """A site layer as large as the bundled database (every rule of it again, and an
    override): each rule it holds replaces the bundled one, the override decides, and
    the rules the first layer loaded stay where they were while the second is read."""
    if not os.path.isfile(FPING):
        return SKIP
    root = fping_root(ctx, "ovr-large")
    db = os.path.join(ctx.tmp, "ovr-large.d")
    shutil.copytree(os.path.join(s2ctest.SRC, "db"), db)
    with open(os.path.join(db, "site.json"), "w") as f:
        json.dump(overrides(KEEP_FPING), f)
    d = explain_json(ctx, root, db)
    ctx.check("large layer: the override decides", d.get("verdict") == "keep" and
              (d.get("rule") or {}).get("id") == "fping.fping", f"{d.get('verdict')}")
    rc, out, err = ctx.run(["rules", "list", "--db", db, "--format", "json"])
    ctx.check("large layer: rules list", rc == 0 and b'"fping.fping"' in out, f"exit {rc} {err!r}")


TESTS = [test_waivers_json, test_waivers_text_markdown_html, test_waivers_sarif,
         test_waivers_fail_on, test_waivers_malformed, test_waivers_of_the_root,
         test_waivers_never_change_a_plan, test_waivers_merge_and_targets,
         test_nothing_to_change, test_one_warning_per_cause, test_override_verdict,
         test_override_privilege_refused, test_override_errors, test_large_site_layer]


def main(argv):
    if not is_root():
        print("skip: the fixtures need root (chown, setuid bits, setcap)")
        return SKIP
    return s2ctest.main(TESTS, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
