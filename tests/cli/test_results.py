#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""apply, migrate, rollback and verify with --format json, on staged copies of real
Debian programs: one document on stdout that validates against
docs/schema/result.schema.json, and whose outcomes, reasons and states before and
after are what the files really went through (read back with os.stat and getxattr)."""
import json
import os
import subprocess
import sys

import s2ctest
from s2ctest import SKIP, is_root
from test_apply import XATTR, make_plan, present, stage


def names(root, fn):
    """{id: name} from the passwd or group file of @root (the image's own names)."""
    out = {}
    with open(os.path.join(root, "etc", fn)) as f:
        for line in f:
            parts = line.rstrip("\n").split(":")
            if len(parts) > 2 and parts[2].isdigit():
                out.setdefault(int(parts[2]), parts[0])
    return out


def getcap(path):
    """The capability text getcap(8) shows for @path, or None."""
    p = subprocess.run(["getcap", path], capture_output=True, text=True, check=True)
    return p.stdout.split()[-1] if p.stdout.strip() else None


def real_state(root, rel):
    """The state object of @rel as the file has it now, read independently of suid2cap."""
    path = os.path.join(root, rel.lstrip("/"))
    st = os.lstat(path)
    try:
        raw = os.getxattr(path, XATTR, follow_symlinks=False)
    except OSError:
        raw = None
    return {"uid": st.st_uid, "gid": st.st_gid, "owner": names(root, "passwd").get(st.st_uid),
            "group": names(root, "group").get(st.st_gid), "mode": "%04o" % (st.st_mode & 0o7777),
            "caps": getcap(path) if raw is not None else None,
            "caps_raw": raw.hex() if raw is not None else None}


def run_json(ctx, name, args):
    """Run a verb with --format json: (exit status, the document or None, stderr).
    The whole of stdout must be the one document, valid against the schema."""
    rc, out, err = ctx.run([*args, "--format", "json"])
    try:
        doc = json.loads(out)
    except ValueError as e:
        ctx.check(f"{name}: stdout is one JSON document", False, f"{e}: {out[:300]!r} {err!r}")
        return rc, None, err
    s2ctest.validate_json(ctx, f"{name}: valid", doc, "result.schema.json")
    ctx.check(f"{name}: the summary's exit status is the exit status",
              doc["summary"]["exit_status"] == rc, f"{doc['summary']} {rc}")
    ctx.check(f"{name}: the summary counts the entries",
              doc["summary"]["entries"] == len(doc["entries"]) ==
              sum(doc["summary"]["outcomes"].values()), doc["summary"])
    return rc, doc, err


def by_path(doc):
    return {e["path"]: e for e in doc["entries"]}


def journals(root):
    return sorted(os.listdir(os.path.join(root, "var/lib/suid2cap/journals")))


def failing_smoke_db(ctx):
    """A rules layer whose fping smoke test fails: apply rolls fping back."""
    db = ctx.tree("smokedb")
    with open(os.path.join(db, "local.json"), "w") as f:
        json.dump({"schema": 1, "area": "local", "rules": [{
            "id": "fping.fping", "program": "fping with a failing smoke test",
            "match": {"paths": ["/usr/bin/fping"], "packages": ["fping"]},
            "verdict": "migrate", "caps": "cap_net_raw=ep", "reason": "test",
            "sources": ["man:fping(8)"], "smoke": ["{}", "--no-such-option"]}]}, f)
    return db


def test_apply(ctx):
    """apply: one file applied (smoke test passed), one rolled back (smoke test failed),
    one skipped (changed since the plan); then rollback restores the applied one only,
    and a second rollback has nothing left."""
    third = present(["/usr/bin/clockdiff", "/usr/bin/arping"])
    if not is_root() or len(present(["/usr/bin/ping", "/usr/bin/fping"])) < 2 or not third:
        return SKIP
    ping, fping, other = "/usr/bin/ping", "/usr/bin/fping", third[0]
    root = stage(ctx, "results-apply", [ping, fping, other])
    db = failing_smoke_db(ctx)
    plan, _ = make_plan(ctx, root, ["--db", db])
    os.chmod(os.path.join(root, other.lstrip("/")), 0o6755)
    before = {p: real_state(root, p) for p in (ping, fping, other)}
    rc, doc, err = run_json(ctx, "apply", ["apply", "--db", db, "--smoke", plan])
    if doc is None:
        return None
    e = by_path(doc)
    ctx.check("apply: exit 4 (a file skipped, one rolled back)", rc == 4, f"{rc} {err!r}")
    ctx.check("apply: verb, root, journal", doc["verb"] == "apply" and doc["root"] == root and
              [doc["journal"]] == journals(root), f"{doc['verb']} {doc['root']} {doc['journal']}")
    ctx.check("apply: one entry per file", sorted(e) == sorted([ping, fping, other]) and
              all(x["action"] == "change" for x in e.values()), sorted(e))
    now = {p: real_state(root, p) for p in (ping, fping, other)}
    x = e.get(ping, {})
    ctx.check("apply: ping applied after its smoke test", x.get("outcome") == "applied" and
              x.get("smoke") == "passed" and x.get("reason") is None, x)
    ctx.check("apply: ping's states are the real ones", x.get("before") == before[ping] and
              x.get("after") == now[ping] and now[ping]["caps"] and now[ping]["mode"] == "0755",
              f"{x.get('before')} {before[ping]} {x.get('after')} {now[ping]}")
    x = e.get(fping, {})
    ctx.check("apply: fping rolled back", x.get("outcome") == "rolled-back" and
              x.get("smoke") == "failed" and "smoke test failed" in (x.get("reason") or ""), x)
    ctx.check("apply: fping's states are the real ones, as before",
              x.get("before") == before[fping] == x.get("after") == now[fping],
              f"{x.get('before')} {x.get('after')} {now[fping]}")
    x = e.get(other, {})
    ctx.check("apply: the changed file skipped", x.get("outcome") == "skipped" and
              x.get("smoke") is None and "changed since the plan" in (x.get("reason") or ""), x)
    ctx.check("apply: the skipped file's states are the real ones", x.get("before") ==
              x.get("after") == now[other] == before[other] and now[other]["mode"] == "6755",
              f"{x.get('before')} {now[other]}")
    ctx.check("apply: summary", doc["summary"]["outcomes"] == {
        "applied": 1, "already": 0, "skipped": 1, "failed": 0, "rolled-back": 1, "recovered": 0,
        "not-restored": 0} and "drift" not in doc["summary"], doc["summary"])
    ctx.check("apply: problems still warned about on stderr, with the root they are beneath",
              f"skipped '{other}' beneath the root '{root}': ".encode() in err and
              f"rolled back '{fping}' beneath the root '{root}': ".encode() in err, err)

    applied = real_state(root, ping)
    rc, doc, err = run_json(ctx, "rollback", ["rollback", "--root", root, "--last"])
    if doc is None:
        return None
    ctx.check("rollback: exit 0, the journal undone", rc == 0 and doc["verb"] == "rollback" and
              [doc["journal"]] == journals(root), f"{rc} {doc['journal']} {err!r}")
    ctx.check("rollback: only what is still applied", [x["path"] for x in doc["entries"]] == [ping]
              and doc["entries"][0]["action"] == "restore" and
              doc["entries"][0]["outcome"] == "restored", doc["entries"])
    x = doc["entries"][0]
    ctx.check("rollback: the states are the real ones", x["before"] == applied and
              x["after"] == real_state(root, ping) == before[ping],
              f"{x['before']} {applied} {x['after']} {before[ping]}")
    ctx.check("rollback: summary",
              doc["summary"]["outcomes"] == {"restored": 1, "not-restored": 0}, doc["summary"])
    rc, doc, err = run_json(ctx, "rollback again", ["rollback", "--root", root, "--last"])
    ctx.check("rollback again: nothing left, no journal", doc is not None and rc == 0 and
              doc["journal"] is None and doc["entries"] == [], f"{rc} {doc}")
    return None


def test_rollback_not_restored(ctx):
    """rollback: a file rewritten since the change is named and left as it is (exit 4);
    the other is restored."""
    if not is_root() or len(present(["/usr/bin/ping", "/usr/bin/fping"])) < 2:
        return SKIP
    ping, fping = "/usr/bin/ping", "/usr/bin/fping"
    root = stage(ctx, "results-rollback", [ping, fping])
    before = real_state(root, ping)
    rc, out, err = ctx.run(["migrate", "--root", root, "--yes", "--no-smoke"])
    ctx.check("migrate (text)", rc == 0, f"{rc} {err!r}")
    with open(os.path.join(root, fping.lstrip("/")), "ab") as f:
        f.write(b"appended")
    tampered, applied = real_state(root, fping), real_state(root, ping)
    rc, doc, err = run_json(ctx, "rollback", ["rollback", "--root", root, "--last"])
    if doc is None:
        return None
    e = by_path(doc)
    ctx.check("rollback: exit 4", rc == 4, f"{rc} {err!r}")
    x = e.get(fping, {})
    ctx.check("rollback: the rewritten file is not restored", x.get("outcome") == "not-restored"
              and "content changed" in (x.get("reason") or "") and
              x.get("before") == x.get("after") == tampered == real_state(root, fping), x)
    x = e.get(ping, {})
    ctx.check("rollback: the other one is", x.get("outcome") == "restored" and
              x.get("before") == applied and x.get("after") == before == real_state(root, ping), x)
    ctx.check("rollback: summary",
              doc["summary"]["outcomes"] == {"restored": 1, "not-restored": 1}, doc["summary"])
    ctx.check("rollback: named on stderr with the root",
              f"not restored '{fping}' beneath the root '{root}': ".encode() in err, err)
    return None


def test_verify(ctx):
    """verify lists every recorded file with its drift kind, "none" when clean (exit 0),
    exit 1 with drift; --fix says what became of each drifted file."""
    if not is_root() or len(present(["/usr/bin/ping", "/usr/bin/fping"])) < 2:
        return SKIP
    ping, fping = "/usr/bin/ping", "/usr/bin/fping"
    root = stage(ctx, "results-verify", [ping, fping])
    rc, out, err = ctx.run(["migrate", "--root", root, "--yes", "--no-smoke"])
    ctx.check("migrate (text)", rc == 0, f"{rc} {err!r}")
    recorded = {p: real_state(root, p) for p in (ping, fping)}
    rc, doc, err = run_json(ctx, "verify clean", ["verify", "--root", root])
    if doc is None:
        return None
    ctx.check("verify clean: exit 0, no journal", rc == 0 and doc["verb"] == "verify" and
              doc["journal"] is None, f"{rc} {err!r}")
    ctx.check("verify clean: every recorded file", [x["path"] for x in doc["entries"]] ==
              [fping, ping], doc["entries"])
    for x in doc["entries"]:
        p = x["path"]
        ctx.check(f"verify clean: {p}", x["action"] == "check" and x["outcome"] == "none" and
                  x["reason"] is None and x["drift"] == {"kind": "none", "reason": None} and
                  x["before"] == x["after"] == x["recorded"] == recorded[p] == real_state(root, p),
                  x)
    ctx.check("verify clean: summary", doc["summary"]["drift"]["none"] == 2 and
              doc["summary"]["outcomes"]["none"] == 2 and
              sum(doc["summary"]["drift"].values()) == 2, doc["summary"])

    os.chmod(os.path.join(root, ping.lstrip("/")), 0o4755)
    subprocess.run(["setcap", "-r", os.path.join(root, fping.lstrip("/"))], check=True)
    drifted = {p: real_state(root, p) for p in (ping, fping)}
    rc, doc, err = run_json(ctx, "verify drift", ["verify", "--root", root])
    if doc is None:
        return None
    e = by_path(doc)
    ctx.check("verify drift: exit 1", rc == 1, f"{rc} {err!r}")
    x = e.get(ping, {})
    ctx.check("verify drift: the set-ID bit back", x.get("action") == "check" and
              x.get("outcome") == "state" and "set-ID bit is back" in (x.get("reason") or "") and
              x.get("drift", {}).get("kind") == "state", x)
    x = e.get(fping, {})
    ctx.check("verify drift: the capabilities gone", x.get("outcome") == "state" and
              "capabilities are gone" in (x.get("reason") or ""), x)
    for p, x in e.items():
        ctx.check(f"verify drift: {p}'s states are the real ones and the record",
                  x["before"] == x["after"] == drifted[p] == real_state(root, p) and
                  x["recorded"] == recorded[p], x)
    ctx.check("verify drift: summary", doc["summary"]["outcomes"]["state"] == 2 and
              doc["summary"]["drift"]["state"] == 2, doc["summary"])

    rc, doc, err = run_json(ctx, "verify --fix", ["verify", "--root", root, "--fix", "--no-smoke"])
    if doc is None:
        return None
    e = by_path(doc)
    ctx.check("verify --fix: exit 1 (one file not repaired)", rc == 1, f"{rc} {err!r}")
    ctx.check("verify --fix: the repair's journal", doc["journal"] == journals(root)[-1] and
              len(journals(root)) == 2, f"{doc['journal']} {journals(root)}")
    x = e.get(ping, {})
    ctx.check("verify --fix: the set-ID bit cleared again", x.get("action") == "repair" and
              x.get("outcome") == "applied" and x.get("drift", {}).get("kind") == "state", x)
    ctx.check("verify --fix: the repaired file's states are the real ones",
              x.get("before") == drifted[ping] and x.get("after") == real_state(root, ping) ==
              recorded[ping], f"{x.get('before')} {x.get('after')} {recorded[ping]}")
    x = e.get(fping, {})
    ctx.check("verify --fix: capabilities not given back", x.get("action") == "repair" and
              x.get("outcome") == "not-repaired" and
              "capabilities are gone" in (x.get("reason") or "") and
              x.get("before") == x.get("after") == drifted[fping] == real_state(root, fping), x)
    ctx.check("verify --fix: named on stderr too, with the root",
              f"not repaired '{fping}' beneath the root '{root}': ".encode() in err, err)
    ctx.check("verify --fix: summary", doc["summary"]["outcomes"]["applied"] == 1 and
              doc["summary"]["outcomes"]["not-repaired"] == 1 and
              doc["summary"]["outcomes"]["state"] == 0 and
              doc["summary"]["drift"]["state"] == 2, doc["summary"])
    return None


def test_migrate(ctx):
    """migrate --yes --format json: the document alone on stdout, the plan not printed."""
    if not is_root() or not present(["/usr/bin/ping"]):
        return SKIP
    ping = "/usr/bin/ping"
    root = stage(ctx, "results-migrate", [ping])
    before = real_state(root, ping)
    rc, doc, err = run_json(ctx, "migrate", ["migrate", "--root", root, "--yes", "--no-smoke"])
    if doc is None:
        return None
    ctx.check("migrate: exit 0", rc == 0, f"{rc} {err!r}")
    ctx.check("migrate: verb, root, journal", doc["verb"] == "migrate" and doc["root"] == root and
              [doc["journal"]] == journals(root), doc)
    ctx.check("migrate: the change", len(doc["entries"]) == 1 and doc["entries"][0]["path"] == ping
              and doc["entries"][0]["action"] == "change" and
              doc["entries"][0]["outcome"] == "applied" and doc["entries"][0]["smoke"] is None,
              doc["entries"])
    ctx.check("migrate: the states are the real ones", doc["entries"][0]["before"] == before and
              doc["entries"][0]["after"] == real_state(root, ping) and
              doc["entries"][0]["after"]["caps"] is not None, doc["entries"])
    rc, doc, err = run_json(ctx, "migrate again", ["migrate", "--root", root, "--yes",
                                                   "--no-smoke"])
    ctx.check("migrate again: nothing to change", doc is not None and rc == 0 and
              doc["entries"] == [] and doc["journal"] is None, f"{rc} {doc} {err!r}")
    return None


def test_nothing_there(ctx):
    """A root where nothing was ever migrated: verify gives an empty document and exit 0,
    rollback one with exit 4 and the error on stderr."""
    root = ctx.tree("results-empty")
    rc, doc, err = run_json(ctx, "verify", ["verify", "--root", root])
    ctx.check("verify: nothing recorded", doc is not None and rc == 0 and
              doc["entries"] == [] and doc["journal"] is None and doc["root"] == root and
              set(doc["summary"]["drift"].values()) == {0}, f"{rc} {doc} {err!r}")
    rc, doc, err = run_json(ctx, "rollback", ["rollback", "--root", root, "--last"])
    ctx.check("rollback: no state directory", doc is not None and rc == 4 and
              doc["entries"] == [] and doc["journal"] is None and
              f"error: nothing was ever applied here: no state directory "
              f"'{root}/var/lib/suid2cap'".encode() in err, f"{rc} {doc} {err!r}")


def test_usage(ctx):
    """--format json where no result document fits, or inputs that cannot be used: a usage
    error or failure, and nothing on stdout."""
    root = ctx.tree("results-usage")
    plan = os.path.join(ctx.tmp, "missing.plan.json")
    for args, want_rc, needle in (
            (["verify", "--root", root, "--format", "xml"], 2,
             b"unknown format 'xml': expected text or json"),
            (["rollback", "--root", root, "--list", "--format", "json"], 2,
             b"--list takes no JOURNAL, --only or --format json"),
            (["migrate", "--root", root, "--dry-run", "--format", "json"], 2, b"--dry-run"),
            (["verify", "--root", root, "--forget", "/x", "--format", "json"], 2,
             b"not with --forget"),
            (["verify", "--root", root, "--install-hook", "dpkg", "--format", "json"], 2,
             b"not with --install-hook"),
            (["apply", plan, "--format", "json"], 4, b"missing.plan.json")):
        rc, out, err = ctx.run(args)
        ctx.check(" ".join(args[:1] + args[3:]), rc == want_rc and out == b"" and needle in err,
                  f"{rc} {out!r} {err!r}")


TESTS = [test_apply, test_rollback_not_restored, test_verify, test_migrate, test_nothing_there,
         test_usage]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
