#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The JSON schemas the build installs are self-contained: each validates the
program's real output with a plain validator that is not allowed to fetch
anything, and says exactly what the schema of docs/schema says."""
import json
import os
import shutil
import subprocess
import sys
import warnings

import s2ctest
from s2ctest import mkfile

SRC_SCHEMAS = os.path.join(s2ctest.SRC, "docs", "schema")


def bundled_dir(ctx):
    return os.path.join(os.path.dirname(os.path.dirname(ctx.binary)), "share", "suid2cap", "schema")


def load(path):
    with open(path) as f:
        return json.load(f)


class Fetch(Exception):
    pass


def refuse(uri):
    raise Fetch(f"the validator tried to fetch {uri}")


def errors(schema, doc):
    """Validation errors of @doc with nothing but @schema: no store, no network."""
    from jsonschema.validators import validator_for
    cls = validator_for(schema)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import referencing  # noqa: F401  (jsonschema >= 4.18 never fetches by itself)
            v = cls(schema)
        except ImportError:
            from jsonschema import RefResolver
            v = cls(schema, resolver=RefResolver.from_schema(
                schema, handlers={"http": refuse, "https": refuse}))
        try:
            return [f"{e.message} at {list(e.path)}" for e in v.iter_errors(doc)]
        except Fetch as e:
            return [str(e)]
        except Exception as e:  # an unresolvable reference
            return [f"{type(e).__name__}: {e}"]


def refs(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "$ref":
                yield v
            else:
                yield from refs(v)
    elif isinstance(o, list):
        for v in o:
            yield from refs(v)


def tree(ctx):
    root = ctx.tree("schemas")
    mkfile(root, "etc/passwd", 0o644, b"root:x:0:0:root:/root:/bin/sh\n")
    mkfile(root, "etc/group", 0o644, b"root:x:0:\n")
    for p in ("/usr/bin/ping", "/usr/bin/su", "/bin/true"):
        if os.path.isfile(p):
            dst = os.path.join(root, p.lstrip("/"))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(p, dst)
            os.chmod(dst, 0o4755)
    mkfile(root, "usr/local/bin/odd name\n", 0o4755, b"#!/bin/sh\n")
    return root


def test_bundled_like_sources(ctx):
    """Every schema is installed; each is its source with the schemas it refers to
    embedded under $defs by their own $id, and every reference resolves inside."""
    names = sorted(n for n in os.listdir(SRC_SCHEMAS) if n.endswith(".schema.json"))
    have = sorted(os.listdir(bundled_dir(ctx)))
    ctx.check("every schema bundled", names == have, f"{names} != {have}")
    for name in names:
        src, out = load(os.path.join(SRC_SCHEMAS, name)), load(os.path.join(bundled_dir(ctx), name))
        embedded = {k: v for k, v in out.get("$defs", {}).items() if k.endswith(".schema.json")}
        rest = dict(out)
        if "$defs" in rest:
            rest["$defs"] = {k: v for k, v in out["$defs"].items() if k not in embedded}
            if not rest["$defs"] and "$defs" not in src:
                del rest["$defs"]
        ctx.check(f"{name}: the source itself", rest == src, "differs")
        ids = {src["$id"]}
        for k, v in embedded.items():
            orig = load(os.path.join(SRC_SCHEMAS, k))
            orig.pop("$schema", None)
            ctx.check(f"{name}: embedded {k}", v == orig and v["$id"] == orig["$id"], "differs")
            ids.add(v["$id"])
        base = src["$id"].rsplit("/", 1)[0] + "/"
        for r in refs(out):
            target = r.split("#", 1)[0]
            ctx.check(f"{name}: $ref {r} resolves inside", not target or base + target in ids, ids)
    ctx.check("a schema with a cross-file reference exists",
              any(r.startswith("facts.schema.json") for r in refs(load(os.path.join(SRC_SCHEMAS,
                                                                                  "scan.schema.json")))), "")


def test_validates_output(ctx):
    """scan, audit, plan and verify JSON (migrate's too, as root), and the bundled rules
    database, validate against the installed schemas alone, with the library and with
    the jsonschema command."""
    root = tree(ctx)
    outputs = {
        "scan.schema.json": ["scan", "--root", root, "--format", "json"],
        "audit.schema.json": ["audit", "--root", root, "--format", "json", "--kernel", "6.1"],
        "plan.schema.json": ["plan", "--root", root, "--format", "json", "--kernel", "6.1"],
        "result.schema.json": ["verify", "--root", root, "--format", "json"],
    }
    if s2ctest.is_root():
        # a result with entries and states, whose schema refers to the plan's state object
        os.makedirs(os.path.join(root, "var", "lib"), exist_ok=True)
        outputs["result.schema.json"] = ["migrate", "--root", root, "--yes", "--no-smoke",
                                         "--kernel", "6.1", "--format", "json"]
    for name, args in outputs.items():
        rc, out, err = ctx.run(args)
        ctx.check(f"{args[0]} ran", rc in (0, 1), f"{rc} {err!r}")
        doc = json.loads(out)
        schema = load(os.path.join(bundled_dir(ctx), name))
        e = errors(schema, doc)
        ctx.check(f"{args[0]} output valid against installed {name}", not e, e[:3])
        path = os.path.join(ctx.tmp, name.replace(".schema", ""))
        with open(path, "wb") as f:
            f.write(out)
        cli = shutil.which("jsonschema", path="/usr/bin:/usr/local/bin")
        if cli:
            p = subprocess.run([cli, "-i", path, os.path.join(bundled_dir(ctx), name)],
                               capture_output=True, timeout=60)
            ctx.check(f"jsonschema -i {args[0]} output", p.returncode == 0, p.stderr[-400:])
        if name == "result.schema.json" and s2ctest.is_root():
            ctx.check("migrate: a result with states", any(
                e["outcome"] == "applied" and e["before"]["mode"] != e["after"]["mode"]
                for e in doc["entries"]), doc["entries"])
            # a state that breaks the embedded plan schema's state object is refused
            bad = json.loads(out)
            bad["entries"][0]["after"]["mode"] = "x"
            ctx.check("migrate: broken document refused", errors(schema, bad), "")
        # a document that breaks the embedded facts schema is refused
        if name != "plan.schema.json" and doc.get("files"):
            bad = json.loads(out)
            bad["files"][0]["file" if "file" in bad["files"][0] else "mode"] = "x"
            ctx.check(f"{args[0]}: broken document refused", errors(schema, bad), "")
    dbdir = os.path.join(s2ctest.SRC, "db")
    for fn in sorted(os.listdir(dbdir)):
        name = "capabilities.schema.json" if fn == "capabilities.json" else "rules.schema.json"
        e = errors(load(os.path.join(bundled_dir(ctx), name)), load(os.path.join(dbdir, fn)))
        ctx.check(f"db/{fn} valid against installed {name}", not e, e[:3])


TESTS = [test_bundled_like_sources, test_validates_output]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
