#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CLI tests of `suid2cap report merge`: reports of three "hosts" (images with their own
host names and machine ids, audited with audit-image) with one of them drifting, shards
of a package run joined back, every format, and bad reports.  Nothing here needs root.
"""
import json
import os
import re
import sys

import mkarchive as mk
import s2ctest
import test_audit
import test_audit_pkg
from s2ctest import SKIP

KERNEL = ["--kernel", "6.1"]
ELF = b"\x7fELF-fixture\n"
CAPS_RAW = bytes([1, 0, 0, 2, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])  # cap_net_raw=ep


PING_VERSION = "3:20221126-1+deb12u1"
DPKG_STATUS = (f"Package: iputils-ping\nStatus: install ok installed\nArchitecture: amd64\n"
               f"Version: {PING_VERSION}\n\nPackage: util-linux\nStatus: install ok installed\n"
               f"Architecture: amd64\nVersion: 2.38.1-5+deb12u3\n\n").encode()


def host_image(root, name, machine, ping_setuid, extra=()):
    """A one-layer image standing for a host: its host name, machine id and ping."""
    ping = (mk.entry("usr/bin/ping", mode=0o4755, data=ELF) if ping_setuid else
            mk.entry("usr/bin/ping", mode=0o755, data=ELF, xattrs={"security.capability":
                                                                   CAPS_RAW}))
    layer = [mk.entry("etc/hostname", data=name.encode() + b"\n"),
             mk.entry("etc/machine-id", data=machine.encode() + b"\n"),
             mk.entry("etc/passwd", data=b"root:x:0:0::/root:/bin/sh\n"),
             mk.entry("etc/group", data=b"root:x:0:\n"),
             mk.entry("var/lib/dpkg/info/iputils-ping.list", data=b"/usr/bin/ping\n"),
             mk.entry("var/lib/dpkg/info/util-linux.list", data=b"/usr/bin/su\n"),
             mk.entry("var/lib/dpkg/status", data=DPKG_STATUS),
             ping, mk.entry("usr/bin/su", mode=0o4755, data=ELF), *extra]
    return mk.oci_layout(os.path.join(root, name), [layer], tag=f"hosts/{name}:1")


def host_reports(ctx):
    root = ctx.tree("hosts")
    out = []
    for name, machine, setuid in (("web1", "1" * 32, True), ("web2", "2" * 32, True),
                                  ("db1", "3" * 32, False)):
        img = host_image(root, name, machine, setuid)
        path = os.path.join(root, f"{name}.json")
        rc, o, e = ctx.run(["audit-image", *KERNEL, "--format", "json", "-o", path, img])
        ctx.check(f"audit {name}", rc == 0, f"{rc} {e!r}")
        out.append(path)
    return out


def merge(ctx, *args):
    return ctx.run(["report", "merge", *args])


def test_drift(ctx):
    """Three hosts: ping is setuid on two and has capabilities on the third."""
    reports = host_reports(ctx)
    rc, out, err = merge(ctx, "--format", "json", *reports)
    ctx.check("merge exit", rc == 0 and err == b"", f"{rc} {err!r}")
    doc = json.loads(out)
    s2ctest.validate_json(ctx, "fleet.json", doc, "fleet.schema.json")
    ctx.check("summary", doc["summary"] == {"reports": 3, "targets": 3, "unreadable": 0,
                                            "incomplete": 0, "reports_unread": 0,
                                            "programs": 2, "drifting": 1} and
              doc["complete"] is True, f"{doc['summary']}")
    targets = {t["name"]: t for t in doc["targets"]}
    ctx.check("images named as images", set(targets) == {"image hosts/web1:1", "image hosts/web2:1",
                                                       "image hosts/db1:1"}, f"{set(targets)}")
    progs = {p["path"]: p for p in doc["programs"]}
    ping = progs["/usr/bin/ping"]
    ctx.check("ping: majority", ping["targets"] == 3 and ping["agree"] == 2 and
              ping["majority"]["mode"] == "4755", json.dumps(ping)[:400])
    ctx.check("ping: drift names db1", [d["target"] for d in ping["drift"]] == ["image hosts/db1:1"]
              and ping["drift"][0]["caps"] == "cap_net_raw=ep", json.dumps(ping["drift"]))
    # the versions the reports carry, in the list and in every state
    ctx.check("ping: versions", ping["versions"] == [f"iputils-ping {PING_VERSION} (3)"] and
              ping["majority"]["version"] == PING_VERSION and
              ping["drift"][0]["version"] == PING_VERSION, json.dumps(ping)[:600])
    rc, out, err = merge(ctx, *reports)
    ctx.check("text: versions", f"versions: iputils-ping {PING_VERSION} (3)\n".encode() in out,
              out.decode())
    su = progs["/usr/bin/su"]
    ctx.check("su: all agree", su["agree"] == 3 and su["drift"] == [] and
              su["verdicts"]["keep"] == 3, json.dumps(su)[:300])
    rc, out, err = merge(ctx, "--fail-on-drift", *reports)
    ctx.check("--fail-on-drift", rc == 1, f"{rc}")
    rc, out, err = merge(ctx, "--fail-on-drift", reports[0], reports[1])
    ctx.check("--fail-on-drift without drift", rc == 0, f"{rc}")
    # The identity of each audit: host name from the image, machine id hashed.
    one = json.loads(open(reports[0]).read())["target"]
    ctx.check("identity: host name", one["hostname"] == "web1", f"{one}")
    ctx.check("identity: machine id hashed", re.fullmatch(r"[0-9a-f]{64}", one["machine_id"] or "")
              and "1" * 32 not in one["machine_id"], f"{one}")


def test_formats(ctx):
    """Every format renders; SARIF is valid SARIF 2.1.0 with the drift rule; HTML runs no
    script; text escapes names."""
    reports = host_reports(ctx)
    for fmt in ("text", "markdown", "html", "sarif"):
        rc, out, err = merge(ctx, "--format", fmt, *reports)
        ctx.check(f"{fmt}: exit", rc == 0 and err == b"", f"{rc} {err!r}")
        ctx.check(f"{fmt}: names the drifting host", b"db1" in out, "")
        ctx.golden("report", f"drift.{ {'text': 'txt', 'markdown': 'md'}.get(fmt, fmt) }",
                   test_audit.normalise(fmt, out, ctx.tmp))
        if fmt == "sarif":
            doc = json.loads(out)
            schema = test_audit.sarif_schema(ctx)
            if schema is not None:
                import jsonschema
                errors = list(jsonschema.Draft4Validator(schema).iter_errors(doc))
                ctx.check("sarif: schema", not errors, errors and errors[0].message)
            ids = [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]]
            ctx.check("sarif: rules", ids == [f"S2C00{i}" for i in range(1, 10)], f"{ids}")
            drift = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "S2C009"]
            ctx.check("sarif: one drift result", len(drift) == 1 and
                      drift[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
                      "usr/bin/ping", json.dumps(drift)[:300])
        if fmt == "html":
            ctx.check("html: no script", b"<script" not in out and b"script-src 'none'" in out, "")
    # A hostile name in a report is escaped in text.
    doc = json.loads(open(reports[0]).read())
    doc["files"][0]["file"]["path"] = "/usr/bin/\x1b[31mred\nline"
    bad = mk.write(os.path.join(ctx.tree("names"), "names.json"), json.dumps(doc).encode())
    rc, out, err = merge(ctx, bad)
    ctx.check("text: escaped", rc == 0 and b"\x1b" not in out and b"\\x1b[31mred\\nline" in out,
              f"{rc} {out[-300:]!r}")


def test_shards(ctx):
    """Shards of a package run, merged, hold exactly what one run over all packages holds."""
    debs = test_audit_pkg.fetch_debs(ctx)
    if not debs:
        return SKIP
    root = ctx.tree("shards")
    pool = ctx.tree("shardpool")
    for path in debs.values():
        os.link(path, os.path.join(pool, os.path.basename(path)))
    full = os.path.join(root, "full.json")
    rc, _, err = ctx.run(["audit-pkg", *KERNEL, "--from-dir", pool, "--format", "json", "-o", full])
    ctx.check("full run", rc == 0, f"{rc} {err!r}")
    shards = []
    for k in (1, 2, 3):
        path = os.path.join(root, f"shard{k}.json")
        rc, _, err = ctx.run(["audit-pkg", *KERNEL, "--from-dir", pool, "--shard", f"{k}/3",
                              "--format", "json", "-o", path])
        ctx.check(f"shard {k}", rc == 0, f"{rc} {err!r}")
        shards.append(path)
    docs = []
    for args in ([full], shards):
        rc, out, err = merge(ctx, "--format", "json", *args)
        ctx.check(f"merge {len(args)}", rc == 0, f"{rc} {err!r}")
        d = json.loads(out)
        s2ctest.validate_json(ctx, "shards.json", d, "fleet.schema.json")
        docs.append(d)
    def view(d):
        return (sorted(t["name"] for t in d["targets"]),
                [(p["path"], p["targets"], p["majority"]["verdict"], p["versions"])
                 for p in d["programs"]])
    ctx.check("shards merged = one run", view(docs[0]) == view(docs[1]),
              f"{view(docs[0])} != {view(docs[1])}")
    ctx.check("twelve packages", len(docs[1]["targets"]) == len(test_audit_pkg.DEBS), "")


def test_bad_reports(ctx):
    """A report that is not an audit report is named and left out (exit 3); the rest merge."""
    reports = host_reports(ctx)
    root = ctx.tree("bad")
    plan = mk.write(os.path.join(root, "plan.json"), b'{"schema": 1, "kind": "suid2cap-plan"}')
    garbage = mk.write(os.path.join(root, "garbage.json"), b"{not json")
    future = json.loads(open(reports[0]).read())
    future["schema"] = 99
    future = mk.write(os.path.join(root, "future.json"), json.dumps(future).encode())
    wrong = json.loads(open(reports[0]).read())
    wrong["files"][0]["verdict"] = "rm -rf"
    wrong = mk.write(os.path.join(root, "wrong.json"), json.dumps(wrong).encode())
    missing = os.path.join(root, "missing.json")
    rc, out, err = merge(ctx, "--format", "json", reports[0], plan, garbage, future, wrong,
                         missing, reports[1])
    doc = json.loads(out)
    ctx.check("bad: exit 3", rc == 3, f"{rc}")
    for name, text in (("plan.json", b"not a suid2cap audit report"),
                       ("garbage.json", b"garbage.json:1:"), ("future.json", b"not version 1"),
                       ("wrong.json", b"not a verdict"), ("missing.json", b"No such file")):
        ctx.check(f"bad: {name}", re.search(rb"cannot read '[^']*" + re.escape(name.encode()) +
                                            rb"': [^\n]*" + re.escape(text), err) is not None,
                  repr(err))
    ctx.check("bad: the good ones merged", doc["summary"]["reports"] == 2 and
              len(doc["notes"]) == 5, json.dumps(doc["summary"]))
    # Nothing readable at all: an empty report in every format, still exit 3.
    for fmt in ("json", "text", "markdown", "html", "sarif"):
        rc, out, err = merge(ctx, "--format", fmt, plan, garbage, missing)
        ctx.check(f"bad: none readable, {fmt}: exit 3 and a report", rc == 3 and len(out) > 0 and
                  b"garbage.json" in err, f"{rc} {out[:200]!r} {err[-300:]!r}")
        if fmt in ("json", "sarif"):
            doc = json.loads(out)
            ctx.check(f"bad: none readable, {fmt}: no programs",
                      doc.get("programs", []) == [] if fmt == "json" else
                      doc["runs"][0]["results"] == [], json.dumps(doc)[:300])


def test_relative_paths(ctx):
    """Reports given by relative names are named in messages and notes with the directory
    they are relative to; the fleet report lists the ones read as given."""
    d = ctx.tree("relative")
    img = host_image(d, "web1", "1" * 32, True)
    rc, o, e = ctx.run(["audit-image", *KERNEL, "--format", "json", "-o", "web1.json", img],
                       cwd=d)
    ctx.check("relative: audit", rc == 0, f"{rc} {e!r}")
    mk.write(os.path.join(d, "garbage.json"), b"{not json")
    rc, out, err = ctx.run(["report", "merge", "--format", "json", "web1.json", "garbage.json",
                            "./missing.json"], cwd=d)
    doc = json.loads(out)
    ctx.check("relative: exit 3", rc == 3, f"{rc} {err!r}")
    for name, why in (("garbage.json", f"{d}/garbage.json:1:"),
                      ("missing.json", "No such file")):
        full = os.path.join(d, name)
        ctx.check(f"relative: {name} named in full",
                  f"cannot read '{full}': ".encode() in err and why.encode() in err, repr(err))
        ctx.check(f"relative: {name} noted in full",
                  any(n.startswith(f"'{full}' could not be read: ") for n in doc["notes"]),
                  doc["notes"])
    ctx.check("relative: the report read, as given", doc["reports"] == ["web1.json"],
              doc["reports"])


def test_identity(ctx):
    """Targets that share a host name (a host and a root that copied its /etc/hostname) are
    told apart by their machine, by where a root is, or by the label their audit was given."""
    base = ctx.tree("same-name")
    reports = {}
    for name, machine, label in (("a", "4" * 32, None), ("b", None, None),
                                 ("c", None, "bookworm-chroot")):
        root = os.path.join(base, name)
        test_audit.install(root, "usr/bin/su", "/usr/bin/su", 0o4755)
        os.makedirs(os.path.join(root, "etc"))
        mk.write(os.path.join(root, "etc/hostname"), b"vm\n")
        if machine:
            mk.write(os.path.join(root, "etc/machine-id"), machine.encode() + b"\n")
        path = os.path.join(base, f"{name}.json")
        rc, o, e = ctx.run(["audit", "--root", root, *KERNEL, "--format", "json", "-o", path,
                            *(["--label", label] if label else [])])
        ctx.check(f"identity: audit {name}", rc == 0, f"{rc} {e!r}")
        reports[name] = path
    doc = json.loads(open(reports["c"]).read())
    ctx.check("identity: the label in the report", doc["target"]["label"] == "bookworm-chroot",
              json.dumps(doc["target"]))
    rc, out, err = merge(ctx, "--format", "json", reports["a"], reports["b"], reports["c"])
    doc = json.loads(out)
    s2ctest.validate_json(ctx, "identity.json", doc, "fleet.schema.json")
    names = [t["name"] for t in doc["targets"]]
    ctx.check("identity: roots by where they are, the label as it is", names == [
        f"vm (root {base}/a on {s2ctest.HOSTNAME})", f"vm (root {base}/b on {s2ctest.HOSTNAME})",
        "bookworm-chroot"], names)
    ctx.check("identity: root, label, auditor kept", [(t["root"], t["label"]) for t in
                                                     doc["targets"]] == [
        (f"{base}/a", None), (f"{base}/b", None), (f"{base}/c", "bookworm-chroot")], "")
    rc, out, err = merge(ctx, reports["a"], reports["a"])
    ctx.check("identity: the same report twice, told apart by it", rc == 0 and
              out.count(f"vm (root {base}/a on {s2ctest.HOSTNAME}, machine ".encode()) == 2 and
              b"a.json)" in out, out.decode())
    rc, out, err = ctx.run(["audit", "--label", "bad\nlabel", "--root", base])
    ctx.check("identity: a label is one line", rc == 2 and b"invalid --label" in err, err)


def test_incomplete(ctx):
    """A merged report of an incomplete target is incomplete: the target says why in every
    format, the run exits 3 unless allowed (by the target's audit or by --allow-incomplete)."""
    root = ctx.tree("fleet-incomplete")
    unknown = test_audit_pkg.unknown_deb(root)
    strict, allowed = os.path.join(root, "strict.json"), os.path.join(root, "allowed.json")
    rc, o, e = ctx.run(["audit-pkg", *KERNEL, "--format", "json", "-o", strict, unknown])
    ctx.check("incomplete: the audit fails closed", rc == 3, f"{rc} {e!r}")
    rc, o, e = ctx.run(["audit-pkg", *KERNEL, "--allow-incomplete", "--format", "json", "-o",
                        allowed, unknown])
    ctx.check("incomplete: allowed audit", rc == 0, f"{rc} {e!r}")
    hosts = host_reports(ctx)
    rc, out, err = merge(ctx, "--format", "json", hosts[0], strict)
    doc = json.loads(out)
    s2ctest.validate_json(ctx, "incomplete fleet.json", doc, "fleet.schema.json")
    t = [x for x in doc["targets"] if x["kind"] == "package"][0]
    ctx.check("incomplete: exit 3, named on stderr", rc == 3 and b"incomplete" in err and
              b"unknown" in err, f"{rc} {err!r}")
    ctx.check("incomplete: the target and why", t["complete"] is False and
              any(r.startswith("postinst:4:") for r in t["incomplete"]) and
              t["incomplete_allowed"] is False, json.dumps(t))
    ctx.check("incomplete: the fleet", doc["complete"] is False and
              doc["summary"]["incomplete"] == 1, json.dumps(doc["summary"]))
    ctx.check("incomplete: the host stays complete",
              [x for x in doc["targets"] if x["kind"] == "image"][0]["complete"] is True, "")
    rc, out, err = merge(ctx, "--allow-incomplete", hosts[0], strict)
    ctx.check("incomplete: --allow-incomplete, exit 0, still said", rc == 0 and
              b"INCOMPLETE: 1 target is incomplete" in out and b"incomplete: postinst:4:" in out,
              f"{rc} {out.decode()}")
    rc, out, err = merge(ctx, "--format", "json", hosts[0], allowed)
    doc = json.loads(out)
    ctx.check("incomplete: allowed by its audit, exit 0, still incomplete", rc == 0 and
              doc["complete"] is False and [x["incomplete_allowed"] for x in doc["targets"]
                                            if x["kind"] == "package"] == [True],
              f"{rc} {json.dumps(doc['targets'])[:600]}")
    for fmt, said in (("text", b"INCOMPLETE (allowed by its audit)"),
                      ("markdown", b"**no** (allowed by its audit): postinst:4:"),
                      ("html", b"<strong>no</strong> (allowed by its audit): postinst:4:")):
        rc, out, err = merge(ctx, "--format", fmt, hosts[0], allowed)
        ctx.check(f"incomplete: {fmt}", rc == 0 and said in out, out.decode()[-1500:])
    rc, out, err = merge(ctx, "--format", "sarif", hosts[0], strict)
    inv = json.loads(out)["runs"][0]["invocations"][0]
    ctx.check("incomplete: sarif", rc == 3 and inv["executionSuccessful"] is False and
              "incomplete" in json.dumps(inv["toolExecutionNotifications"]), json.dumps(inv))
    rc, out, err = merge(ctx, "--quiet", hosts[0], strict)
    ctx.check("incomplete: --quiet names the target", rc == 3 and
              b"\nTARGETS INCOMPLETE\n" in out and b"unknown" in out, out.decode())


def test_quiet(ctx):
    """--quiet: the summary and only the programs that differ."""
    reports = host_reports(ctx)
    rc, out, err = merge(ctx, "--quiet", *reports)
    text = out.decode()
    ctx.check("quiet: summary, then what differs", rc == 0 and
              text.startswith("suid2cap fleet report: 3 reports") and
              "\nPROGRAMS THAT DIFFER\n  /usr/bin/ping:" in text and "/usr/bin/su" not in text and
              "TARGETS" not in text, text)
    rc, out, err = merge(ctx, "--quiet", reports[0], reports[1])
    ctx.check("quiet: nothing differs, one line", rc == 0 and len(out.splitlines()) == 1,
              out.decode())
    rc, out, err = merge(ctx, "--quiet", "--format", "json", *reports)
    ctx.check("quiet: text only", rc == 2 and b"--quiet shapes the text report" in err, err)


def test_memory(ctx):
    """A fleet of many programs costs the memory of its model, not of its documents: the JSON
    and SARIF reports are written one program (result) at a time, and the states' repeated
    strings are kept once.  20 reports of 2,000 set-ID files each, half of them each
    report's own (21,000 programs), merge within 80 MiB (about 170 MiB when the documents
    were built whole); the streamed JSON is the document json parses whole.  A report of
    16,000 files, 19 MB, is read one file at a time: merged within 80 MiB (refused before,
    past the 16 MiB every JSON document was bounded by)."""
    root = ctx.tree("memory")
    deb = mk.many_members_deb(os.path.join(root, "merge_1_amd64.deb"), 2000, setid=True,
                              package="s2c-merge")
    rc, base, err = ctx.run(["audit-pkg", *KERNEL, "--format", "json", deb])
    ctx.check("memory: the package audited", rc in (0, 1), f"{rc} {err[-300:]!r}")
    base = json.loads(base)
    paths = []
    for i in range(20):
        base["targets"][0]["name"] = f"s2c-merge-{i}"
        for k, f in enumerate(base["files"]):
            if k % 2:
                f["file"]["path"] = re.sub(r"^(/host\d+)?", f"/host{i}", f["file"]["path"])
        paths.append(os.path.join(root, f"r{i}.json"))
        with open(paths[-1], "w") as out:
            json.dump(base, out)
    sanitized = "ASAN_OPTIONS" in os.environ
    for fmt in ("json", "sarif"):
        rc, out, err, rss = test_audit_pkg.peak_rss_run(ctx, ["report", "merge", "--format",
                                                              fmt, *paths])
        doc = json.loads(out) if rc == 0 else {}
        n = (len(doc.get("programs", [])) if fmt == "json" else
             len(doc["runs"][0]["results"]) if doc else 0)
        ctx.check(f"memory: {fmt} of 21,000 programs", rc == 0 and n > 20000 if fmt == "json"
                  else rc == 0 and n > 0, f"{rc} {n} {err[-300:]!r}")
        ctx.check(f"memory: {fmt} within 80 MiB", sanitized or rss < 80 << 10, f"{rss} KiB")
        print(f"  {fmt}: peak RSS {rss >> 10} MiB")
    # One report past the 16 MiB of other JSON inputs: its files read one at a time.
    rc, out, err = ctx.run(["report", "merge", "--format", "json", paths[-1]])
    one = len(json.loads(out)["programs"]) if rc == 0 else -1
    files = base["files"]
    base["files"] = [dict(f, file=dict(f["file"], path=f"/big{k}{f['file']['path']}"))
                     for k in range(8) for f in files]
    big = os.path.join(root, "big.json")
    with open(big, "w") as out:
        json.dump(base, out)
    rc, out, err, rss = test_audit_pkg.peak_rss_run(ctx, ["report", "merge", "--format", "json",
                                                          big])
    n = len(json.loads(out)["programs"]) if rc == 0 else 0
    ctx.check("memory: a report of 16,000 files past 16 MiB merged", os.path.getsize(big) >
              16 << 20 and rc == 0 and n == 8 * one, f"{os.path.getsize(big)} {rc} {n} {one} "
              f"{err[-300:]!r}")
    ctx.check("memory: merged within 80 MiB", sanitized or rss < 80 << 10, f"{rss} KiB")
    print(f"  one report of {os.path.getsize(big) >> 20} MiB: peak RSS {rss >> 10} MiB")


def test_usage(ctx):
    for args, text in ((["report"], b"missing 'merge'"), (["report", "join"], b"unknown report command"),
                       (["report", "merge"], b"at least one report"),
                       (["report", "merge", "--fail-on=review", "x"], b"unknown option")):
        rc, out, err = ctx.run(args)
        ctx.check(f"usage {args}", rc == 2 and text in err, f"{rc} {err!r}")
    rc, out, err = ctx.run(["report", "merge", "--help"])
    ctx.check("help", rc == 0 and b"--fail-on-drift" in out, f"{rc}")


TESTS = [test_drift, test_formats, test_shards, test_bad_reports, test_relative_paths,
         test_identity, test_incomplete, test_quiet, test_memory, test_usage]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
