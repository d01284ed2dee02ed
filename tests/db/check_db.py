#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Validate the suid2cap rules database.

Usage: python3 tests/db/check_db.py DBDIR SCHEMADIR

Every DBDIR/*.json is checked against SCHEMADIR/capabilities.schema.json
(the file named capabilities.json) or SCHEMADIR/rules.schema.json (every
other file).  On top of the schemas this checks what JSON Schema cannot:

  * no duplicate keys in any JSON object;
  * a rules file's "area" equals its file name;
  * rule ids are unique across all files;
  * every capability named in caps, needs and evidence is in the table, and
    no name is repeated inside one capability text;
  * the capability table has unique names and numbers 0..N-1;
  * every rule has at least one source;
  * a literal path pattern (or name) used by two rules is allowed only when
    both rules have non-empty, disjoint match.packages lists;
  * every migrate rule has caps, every drop rule has none, and a migrate
    condition has caps of its own or inherits the rule's.

Problems are printed as "file: json.path: message"; the exit status is 0
when there are none and 1 otherwise (2 for a usage error).
"""

import json
import os
import re
import sys

try:
    import jsonschema
except ImportError:  # pragma: no cover - reported, not hidden
    sys.stderr.write("check_db.py: the jsonschema module is required (Debian: python3-jsonschema)\n")
    sys.exit(2)

CAPS_FILE = "capabilities.json"
CAP_NAME = re.compile(r"cap_[a-z_]+")


class DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKey("duplicate key %s" % json.dumps(key))
        obj[key] = value
    return obj


def jpath(parts):
    """Render a list of keys and indexes as a JSONPath-like string."""
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += "[%d]" % p
        else:
            out += "." + p if p.replace("_", "a").isalnum() else "[%s]" % json.dumps(p)
    return out


def _required_keys(schema):
    """Keys named by {"required": [...]} or an anyOf of such schemas."""
    if isinstance(schema, dict) and "required" in schema:
        return list(schema["required"])
    if isinstance(schema, dict) and "anyOf" in schema:
        keys = []
        for sub in schema["anyOf"]:
            keys += _required_keys(sub)
        return keys
    if isinstance(schema, list):
        keys = []
        for sub in schema:
            keys += _required_keys(sub)
        return keys
    return []


def schema_message(error):
    """A short message for a jsonschema error (never the whole instance)."""
    v = error.validator
    if v == "pattern":
        return "%s does not have the required form" % json.dumps(error.instance)
    if v == "not":
        keys = _required_keys(error.validator_value)
        if keys:
            return "%s not allowed here" % " or ".join(keys)
    if v == "anyOf":
        keys = _required_keys(error.validator_value)
        if keys:
            return "needs at least one of: %s" % ", ".join(keys)
    if v in ("minProperties", "maxProperties") and isinstance(error.instance, dict):
        return "%s properties, %s is %s" % (len(error.instance), v, error.validator_value)
    message = error.message
    if len(message) > 200:
        message = message[:197] + "..."
    return message


class Checker:
    def __init__(self, dbdir, schemadir):
        self.dbdir = dbdir
        self.schemadir = schemadir
        self.problems = []

    def report(self, fname, parts, message):
        self.problems.append("%s: %s: %s" % (fname, jpath(parts), message))

    def load_json(self, path, fname):
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f, object_pairs_hook=_no_duplicates)
        except (OSError, UnicodeDecodeError) as e:
            self.report(fname, [], "cannot read: %s" % e)
        except DuplicateKey as e:
            self.report(fname, [], str(e))
        except json.JSONDecodeError as e:
            self.report(fname, [], "invalid JSON: %s (line %d, column %d)" % (e.msg, e.lineno, e.colno))
        return None

    def validator(self, name):
        path = os.path.join(self.schemadir, name)
        schema = self.load_json(path, path)
        if schema is None:
            return None
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as e:
            self.report(path, list(e.path), "invalid schema: %s" % e.message)
            return None
        return jsonschema.Draft202012Validator(schema)

    def validate(self, validator, doc, fname):
        errors = sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
        for e in errors:
            self.report(fname, list(e.absolute_path), schema_message(e))
        return not errors

    # -- capability texts -------------------------------------------------

    def cap_names(self, fname, parts, text, known):
        """Check the capability names in a cap_from_text clause or a list."""
        if not isinstance(text, str):
            return
        names = text.split("=", 1)[0].split(",")
        if not all(CAP_NAME.fullmatch(n) for n in names):
            return  # malformed text: the schema has reported it
        seen = set()
        for n in names:
            if n in seen:
                self.report(fname, parts, "capability %s is listed twice" % n)
            seen.add(n)
            if known is not None and n not in known:
                self.report(fname, parts, "unknown capability %s" % n)

    # -- capability table -------------------------------------------------

    def check_table(self, doc, fname):
        known = set()
        numbers = {}
        caps = doc.get("capabilities") if isinstance(doc, dict) else None
        if not isinstance(caps, list):
            return None
        for i, cap in enumerate(caps):
            if not isinstance(cap, dict):
                continue
            name, number = cap.get("name"), cap.get("number")
            if name in known:
                self.report(fname, ["capabilities", i, "name"], "duplicate capability %s" % name)
            known.add(name)
            if isinstance(number, int):
                if number in numbers:
                    self.report(fname, ["capabilities", i, "number"],
                                "number %d already used by %s" % (number, numbers[number]))
                numbers[number] = name
        if numbers and sorted(numbers) != list(range(len(numbers))):
            missing = sorted(set(range(max(numbers) + 1)) - set(numbers))
            self.report(fname, ["capabilities"], "capability numbers are not contiguous; missing %s" % missing)
        return known

    def check_evidence(self, doc, fname, known):
        for i, ev in enumerate(doc.get("evidence") or []):
            if isinstance(ev, dict) and "caps" in ev:
                self.cap_names(fname, ["evidence", i, "caps"], ev["caps"], known)

    # -- rules ------------------------------------------------------------

    def check_rules(self, doc, fname, known, ids, literals):
        if not isinstance(doc, dict):
            return
        stem = os.path.basename(fname)[:-len(".json")]
        if isinstance(doc.get("area"), str) and doc["area"] != stem:
            self.report(fname, ["area"], "area %s does not match the file name %s" % (doc["area"], stem))
        rules = doc.get("rules")
        if not isinstance(rules, list):
            return
        for i, rule in enumerate(rules):
            if not isinstance(rule, dict):
                continue
            at = ["rules", i]
            rid = rule.get("id")
            if isinstance(rid, str):
                if rid in ids:
                    self.report(fname, at + ["id"], "duplicate rule id %s (first in %s)" % (rid, ids[rid]))
                else:
                    ids[rid] = fname
            sources = rule.get("sources")
            if not isinstance(sources, list) or not sources:
                self.report(fname, at + ["sources"], "a rule needs at least one source")
            verdict = rule.get("verdict")
            if verdict == "migrate" and "caps" not in rule:
                self.report(fname, at, "a migrate rule needs caps")
            if verdict == "drop" and "caps" in rule:
                self.report(fname, at + ["caps"], "a drop rule must not have caps")
            for key in ("caps", "needs"):
                if key in rule:
                    self.cap_names(fname, at + [key], rule[key], known)
            for j, cond in enumerate(rule.get("conditions") or []):
                if not isinstance(cond, dict):
                    continue
                cat = at + ["conditions", j]
                for key in ("caps", "needs"):
                    if key in cond:
                        self.cap_names(fname, cat + [key], cond[key], known)
                if cond.get("verdict") == "migrate" and "caps" not in cond and "caps" not in rule:
                    self.report(fname, cat, "a migrate condition needs caps of its own or on its rule")
                if cond.get("verdict") == "drop" and "caps" in cond:
                    self.report(fname, cat + ["caps"], "a drop condition must not have caps")
            match = rule.get("match")
            if not isinstance(match, dict):
                continue
            packages = match.get("packages")
            pkgs = frozenset(packages) if isinstance(packages, list) else frozenset()
            for kind in ("paths", "names"):
                for k, pattern in enumerate(match.get(kind) or []):
                    if not isinstance(pattern, str):
                        continue
                    if kind == "paths":
                        self.check_pattern(fname, at + ["match", kind, k], pattern)
                    literals.setdefault((kind, pattern), []).append((fname, at + ["match", kind, k], rid, pkgs))

    def check_pattern(self, fname, parts, pattern):
        segments = pattern.split("/")[1:]
        if any(s in ("", ".", "..") for s in segments):
            self.report(fname, parts, "path pattern %s has an empty, . or .. component" % pattern)
        if "**" in pattern:
            self.report(fname, parts, "path pattern %s uses **, which fnmatch(3) treats as *" % pattern)
        depth = 0
        for ch in pattern:
            if ch == "[":
                depth += 1
            elif ch == "]" and depth:
                depth -= 1
        if depth:
            self.report(fname, parts, "path pattern %s has an unbalanced [" % pattern)

    def check_overlaps(self, literals):
        for (kind, pattern), users in sorted(literals.items()):
            if len(users) < 2:
                continue
            for a in range(len(users)):
                for b in range(a + 1, len(users)):
                    fa, pa, ida, ka = users[a]
                    fb, pb, idb, kb = users[b]
                    if ka and kb and not (ka & kb):
                        continue
                    why = ("their match.packages overlap" if ka and kb
                           else "both rules need non-empty, disjoint match.packages")
                    self.report(fb, pb, "%s %s is also used by rule %s (%s: %s); %s"
                                % (kind[:-1], pattern, ida, fa, jpath(pa), why))

    # -- driver -----------------------------------------------------------

    def run(self):
        rules_v = self.validator("rules.schema.json")
        caps_v = self.validator("capabilities.schema.json")
        try:
            files = sorted(f for f in os.listdir(self.dbdir) if f.endswith(".json"))
        except OSError as e:
            self.report(self.dbdir, [], "cannot list: %s" % e)
            return
        if CAPS_FILE not in files:
            self.report(os.path.join(self.dbdir, CAPS_FILE), [], "the capability table is missing")
        docs = {}
        for f in files:
            fname = os.path.join(self.dbdir, f)
            doc = self.load_json(fname, fname)
            if doc is None:
                continue
            v = caps_v if f == CAPS_FILE else rules_v
            if v is not None:
                self.validate(v, doc, fname)
            docs[f] = (fname, doc)
        known = None
        if CAPS_FILE in docs:
            fname, doc = docs[CAPS_FILE]
            known = self.check_table(doc, fname)
            if known is not None and isinstance(doc, dict):
                self.check_evidence(doc, fname, known)
        ids, literals = {}, {}
        for f, (fname, doc) in docs.items():
            if f != CAPS_FILE:
                self.check_rules(doc, fname, known, ids, literals)
        self.check_overlaps(literals)


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: %s DBDIR SCHEMADIR\n" % os.path.basename(argv[0]))
        return 2
    checker = Checker(argv[1], argv[2])
    checker.run()
    for line in checker.problems:
        print(line)
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
