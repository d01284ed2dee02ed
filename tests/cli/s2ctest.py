# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers for suid2cap CLI tests: fixture trees, running the binary, golden files.

Each test module builds its trees in a fresh temporary directory, runs the
built binary with --root on them, and compares stdout/stderr with golden files
under tests/expected/<verb>/<case>.{txt,json,err}.  `--update` rewrites them.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
EXPECTED = os.path.join(SRC, "tests", "expected")
FIXED_MTIME = 1700000000  # 2023-11-14T22:13:20Z

SKIP = 77


class Failure(Exception):
    pass


class Ctx:
    def __init__(self, binary, update=False):
        self.binary = binary
        self.update = update
        self.failures = []
        self.passed = 0
        self.skipped = 0
        self.tmp = tempfile.mkdtemp(prefix="s2c-cli-")

    def cleanup(self):
        subprocess.run(["chmod", "-R", "u+rwx", self.tmp], check=False)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def tree(self, name):
        """A new empty directory; a second tree of the same name gets a suffix."""
        path = os.path.join(self.tmp, name)
        n = 1
        while os.path.exists(path):
            n += 1
            path = os.path.join(self.tmp, f"{name}{n}")
        os.makedirs(path)
        return path

    def run(self, args, env=None, prefix=None, input=None):
        e = {"LC_ALL": "C", "TZ": "UTC", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
             "SOURCE_DATE_EPOCH": str(FIXED_MTIME)}
        if env:
            e.update(env)
        cmd = (prefix or []) + [self.binary] + list(args)
        p = subprocess.run(cmd, capture_output=True, env=e, input=input)
        return p.returncode, p.stdout, p.stderr

    def check(self, name, cond, msg=""):
        if cond:
            self.passed += 1
        else:
            self.failures.append(f"{name}: {msg}")
            print(f"FAIL {name}: {msg}", file=sys.stderr)

    def golden(self, verb, case, data):
        """Compare bytes with tests/expected/<verb>/<case>; rewrite on --update."""
        path = os.path.join(EXPECTED, verb, case)
        if self.update:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
            self.passed += 1
            return
        try:
            with open(path, "rb") as f:
                want = f.read()
        except FileNotFoundError:
            self.check(f"{verb}/{case}", False, f"missing golden file {path} (run with --update)")
            return
        if want != data:
            import difflib
            diff = "".join(difflib.unified_diff(
                want.decode("utf-8", "replace").splitlines(True),
                data.decode("utf-8", "replace").splitlines(True),
                "expected/" + case, "actual/" + case))
            self.check(f"{verb}/{case}", False, "output differs from golden file:\n" + diff)
        else:
            self.passed += 1


def is_root():
    return os.geteuid() == 0


def mkfile(root, rel, mode, content=b"\x7fELF-fixture\n", uid=None, gid=None):
    path = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    os.write(fd, content)
    if uid is not None:
        os.fchown(fd, uid, gid if gid is not None else uid)
    os.fchmod(fd, mode)
    os.close(fd)
    os.utime(path, (FIXED_MTIME, FIXED_MTIME))
    return path


def mklink(root, rel, target):
    path = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)
    return path


def setcap(path, text):
    subprocess.run(["setcap", text, path], check=True)


def fix_dir_times(root):
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            p = os.path.join(dirpath, d)
            if not os.path.islink(p):
                os.utime(p, (FIXED_MTIME, FIXED_MTIME), follow_symlinks=False)


def validate_json(ctx, name, doc, schema_name):
    """Validate @doc against docs/schema/@schema_name (draft 2020-12, local $refs)."""
    import warnings
    import jsonschema
    schemadir = os.path.join(SRC, "docs", "schema")
    store = {}
    for fn in os.listdir(schemadir):
        if fn.endswith(".json"):
            with open(os.path.join(schemadir, fn)) as f:
                sch = json.load(f)
            store[sch.get("$id", fn)] = sch
            store[fn] = sch
    schema = store[schema_name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver(base_uri=schema["$id"], referrer=schema, store=store)
        validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        ctx.check(name, False, f"does not match {schema_name}: {e.message} at {list(e.path)}")
    else:
        ctx.passed += 1


def normalise_json(data, tmp=None):
    """Blank what differs between machines: inode, device, mount details."""
    doc = json.loads(data)

    def walk(o):
        if isinstance(o, dict):
            for k in list(o):
                if k in ("ino", "dev"):
                    o[k] = "<" + k + ">"
                elif k == "mount" and isinstance(o[k], dict):
                    o[k] = {kk: o[k][kk] for kk in ("nosuid", "readonly", "noexec")}
                else:
                    walk(o[k])
        elif isinstance(o, list):
            for x in o:
                walk(x)
    walk(doc)
    text = json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False) + "\n"
    if tmp:
        text = text.replace(tmp, "<tmp>")
    return text.encode()


HOSTNAME = os.uname().nodename


def normalise_auditor(data):
    """The host that ran an audit of a root, packages or an image differs between machines."""
    host = re.escape(HOSTNAME.encode())
    data = re.sub(rb" on " + host + rb",", b" on <auditor>,", data)
    return re.sub(rb"on <code>" + host + rb"</code>", b"on <code>&lt;auditor&gt;</code>", data)


def normalise_text(data, tmp=None):
    if tmp:
        data = data.replace(tmp.encode(), b"<tmp>")
    return data


def main(tests, argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("-k", dest="only", default=None, help="run tests whose name contains this")
    a = ap.parse_args(argv)
    ctx = Ctx(os.path.abspath(a.binary), a.update)
    ran = 0
    try:
        for t in tests:
            if a.only and a.only not in t.__name__:
                continue
            r = t(ctx)
            if r == SKIP:
                ctx.skipped += 1
                print(f"skip {t.__name__}")
            else:
                ran += 1
                print(f"ran  {t.__name__}")
    finally:
        ctx.cleanup()
    print(f"{ctx.passed} passed, {len(ctx.failures)} failed, {ctx.skipped} skipped")
    if ctx.failures:
        return 1
    if ran == 0 and ctx.skipped:
        return SKIP
    return 0
