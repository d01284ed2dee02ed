#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every verb's --help, generated from the option tables it parses, agrees with
the man page's synopsis; `help VERB`, --version and usage errors behave the same
for every verb."""
import os
import re
import shutil
import subprocess
import sys

import s2ctest

MAN = os.path.join(s2ctest.SRC, "docs", "suid2cap.8")


def verbs(ctx):
    rc, out, err = ctx.run(["--help"])
    block = out.decode().split("Verbs:\n")[1].split("\n\n")[0]
    return [line.split()[0] for line in block.splitlines()]


def help_options(text):
    """Options a --help text lists, short -o counted as its long name."""
    opts = set(re.findall(r"^\s+(?:-\w, )?--([a-z][a-z-]*)", text, re.M))
    return opts - {"help", "version"}


def man_synopsis():
    """{verb: options named in its SYNOPSIS lines} ('Fl o' is --output)."""
    with open(MAN) as f:
        man = f.read()
    syn = man.split(".Sh SYNOPSIS")[1].split(".Sh DESCRIPTION")[0]
    blocks = {}
    for part in syn.split(".Nm\n")[1:]:
        m = re.match(r"\.Cm (\S+)", part)
        if not m:
            continue
        opts = set(re.findall(r"Fl -([a-z][a-z-]*)", part))
        if re.search(r"Fl o\b", part):
            opts.add("output")
        blocks.setdefault(m.group(1), set()).update(opts)
    return man, blocks


def test_help_matches_man_page(ctx):
    man, blocks = man_synopsis()
    for v in verbs(ctx):
        rc, out, err = ctx.run([v, "--help"])
        ctx.check(f"{v} --help exit", rc == 0 and out.startswith(b"usage: suid2cap " + v.encode()),
                  f"{rc} {out[:80]!r}")
        opts = help_options(out.decode())
        ctx.check(f"{v}: --help and SYNOPSIS list the same options", opts == blocks.get(v, set()),
                  f"only in --help: {sorted(opts - blocks.get(v, set()))}, only in the man page: "
                  f"{sorted(blocks.get(v, set()) - opts)}")
        ctx.check(f"{v}: a section in the man page", f".Ss {v}\n" in man, v)
        # the usage line (the dispatch table) names no option the verb does not parse
        usage = out.decode().split("\n\n")[0]
        named = set(re.findall(r"--([a-z][a-z-]*)", usage)) - {"help", "version"}
        ctx.check(f"{v}: usage line options are parsed", named <= opts | {"output"},
                  f"{sorted(named - opts)}")


def test_man_page_renders(ctx):
    """The man page renders as written: a literal line keeps its trailing backslash (a
    bare one would join it with the next), and a word split around a macro (merged-/usr)
    has no space in it."""
    with open(MAN) as f:
        lines = f.read().splitlines()
    literal = False
    for n, line in enumerate(lines, 1):
        if line.startswith(".Bd -literal"):
            literal = True
        elif line.startswith(".Ed"):
            literal = False
        elif literal:
            ctx.check(f"man page line {n}: a literal line ends in \\e, not \\",
                      not (line.endswith("\\") and not line.endswith("\\\\")), line)
    mandoc = shutil.which("mandoc")
    if not mandoc:
        print("note: mandoc missing; the rendered page not checked", file=sys.stderr)
        return None
    out = subprocess.run([mandoc, "-Tascii", MAN], capture_output=True, check=True).stdout
    text = re.sub(rb".\x08", b"", out).decode()
    ctx.check("rendered: merged-/usr in one word", "merged- " not in text and
              "merged-/usr" in text, "")
    ctx.check("rendered: the continued example on two lines",
              "-o audit.sarif \\\n" in text and "audit.sarif     --fail-on" not in text, "")
    return None


def test_help_verb_and_version(ctx):
    for v in verbs(ctx):
        if v == "help":
            continue
        rc1, out1, _ = ctx.run([v, "--help"])
        rc2, out2, _ = ctx.run(["help", v])
        ctx.check(f"help {v} is {v} --help", rc1 == rc2 == 0 and out1 == out2, f"{rc1} {rc2}")
        rc, out, err = ctx.run([v, "--version"])
        ctx.check(f"{v} --version", rc == 0 and out.startswith(b"suid2cap "), f"{rc} {out!r}")
        rc, out, err = ctx.run([v, "--no-such-option"])
        ctx.check(f"{v}: unknown option", rc == 2 and b"unknown option '--no-such-option'" in err
                  and b"Try 'suid2cap " + v.encode() + b" --help'" in err, f"{rc} {err!r}")
    rc, out, err = ctx.run(["help"])
    ctx.check("help alone lists the verbs", rc == 0 and b"Verbs:" in out, out[:200])
    rc, out, err = ctx.run(["help", "nosuch"])
    ctx.check("help of an unknown verb", rc == 2 and b"unknown verb 'nosuch'" in err, err)


def test_operands_and_exclusions(ctx):
    cases = [
        (["apply"], b"missing PLAN"),
        (["apply", "a", "b"], b"unexpected argument 'b'"),
        (["explain"], b"missing PATH"),
        (["privileges"], b"missing VERB"),
        (["verify", "x"], b"unexpected argument 'x'"),
        (["verify", "--fix", "--forget", "/x"], b"--fix and --forget exclude each other"),
        (["rollback", "--last", "--list"], b"--last and --list exclude each other"),
        (["scan", "--threads"], b"option '--threads' needs an argument"),
        (["scan", "--format", "xml"], b"unknown format 'xml': expected text or json"),
        (["scan", ""], b"empty operand"),
        # a slip gets the nearest word, as a mistyped verb does; another word gets none
        (["audit", "--formt", "json"], b"unknown option '--formt'; did you mean '--format'?"),
        (["audit", "--formt=json"], b"unknown option '--formt=json'; did you mean '--format'?"),
        (["audit-image", "--qiet", "x"], b"did you mean '--quiet'?"),
        (["scan", "--format", "jsn"], b"unknown format 'jsn'; did you mean 'json'?"),
        (["audit", "--fail-on", "review,reveiw"], b"unknown --fail-on 'reveiw'; did you mean "
                                                  b"'review'?"),
        (["audti"], b"unknown verb 'audti'; did you mean 'audit'?"),
        (["audit", "--format", "yaml"], b"unknown format 'yaml': expected"),
        (["scan", "--zzzzzz"], b"unknown option '--zzzzzz'\n"),
    ]
    for argv, want in cases:
        rc, out, err = ctx.run(argv)
        ctx.check(" ".join(argv) or "(none)", rc == 2 and want in err, f"{rc} {err!r}")


def test_architecture_names_every_module(ctx):
    """docs/ARCHITECTURE.md names every module of the source; the map atop cli/main.c has
    one line per directory and stays short."""
    arch = open(os.path.join(s2ctest.SRC, "docs", "ARCHITECTURE.md")).read()
    main_c = open(os.path.join(s2ctest.SRC, "cli", "main.c")).read()
    start = main_c.index("Architecture map")
    mapped = main_c[start:main_c.index("*/", start)]
    for top in LAYERS:
        for name in sorted(os.listdir(os.path.join(s2ctest.SRC, top))):
            if not name.endswith(".c"):
                continue
            module = f"{top}/{name[:-2]}"
            # backends of one module are named by their file in its row and entry
            ctx.check(f"ARCHITECTURE.md names {module}",
                      re.search(re.escape(module) + r"\b", arch) or f"`{name}`" in arch, "")
    # the map stays short: one line per directory, the table of modules in the document
    for top in LAYERS + ("dist",):
        ctx.check(f"the map in cli/main.c has a line for {top}/",
                  re.search(r"^ \* " + top + r"/ ", mapped, re.M), "")
    ctx.check("the map in cli/main.c stays short", mapped.count("\n") <= 45,
              f"{mapped.count(chr(10))} lines")


LAYERS = ("common", "scanner", "rules", "plan", "report", "pkg", "learn", "pipeline", "cli")


def allowed_arrows():
    """The "Layers" table of docs/ARCHITECTURE.md: layer -> the layers it may include."""
    arch = open(os.path.join(s2ctest.SRC, "docs", "ARCHITECTURE.md")).read()
    table = arch.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    allowed = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] in LAYERS:
            allowed[cells[0]] = {c.strip() for c in cells[1].split(",")} & set(LAYERS)
    return allowed


def sources(top):
    """Every .c and .h file beneath the layer directory @top."""
    for dirpath, _, names in os.walk(os.path.join(s2ctest.SRC, top)):
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                yield os.path.join(dirpath, name)


def test_layers_include_only_below(ctx):
    """Every #include between directories is an arrow the Layers table of
    docs/ARCHITECTURE.md allows: no layer reaches sideways or up."""
    allowed = allowed_arrows()
    ctx.check("the Layers table names every layer", set(allowed) == set(LAYERS),
              f"{sorted(allowed)}")
    owner = {}
    for top in LAYERS:
        for path in sources(top):
            name = os.path.basename(path)
            if name.endswith(".h"):
                # the include path is flat: a header name means one file
                ctx.check(f"header {name} is unique", owner.get(name, top) == top,
                          f"{owner.get(name)}/{name} and {top}/{name}")
                owner[name] = top
    for top in LAYERS:
        for path in sources(top):
            text = open(path, errors="replace").read()
            for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
                to = owner.get(os.path.basename(inc))
                if to is None or to == top:
                    continue    # generated (config.h, skeletons) or its own layer
                rel = os.path.relpath(path, s2ctest.SRC)
                ctx.check(f"{rel} includes {to}/{os.path.basename(inc)}",
                          to in allowed.get(top, set()),
                          f"{top}/ may include {sorted(allowed.get(top, set()))} only")


def test_internal_headers(ctx):
    """A header whose comment says "Internal: a b c." is included only by the files of
    those modules (tests may include it): what a module keeps to itself stays there."""
    internal = {}
    for top in LAYERS:
        for path in sources(top):
            if path.endswith(".h"):
                m = re.search(r"^ \* Internal: ([a-z0-9_. ]+)\.$", open(path).read(), re.M)
                if m:
                    internal[os.path.basename(path)] = set(m.group(1).split())
    ctx.check("internal headers are marked", len(internal) >= 20, f"{sorted(internal)}")
    for top in LAYERS:
        for path in sources(top):
            module = os.path.basename(path).rsplit(".", 1)[0]   # capable.bpf.c: capable.bpf
            text = open(path, errors="replace").read()
            for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
                allowed = internal.get(os.path.basename(inc))
                if allowed is not None:
                    ctx.check(f"{os.path.relpath(path, s2ctest.SRC)} may include {inc}",
                              module in allowed, f"internal to {sorted(allowed)}")


TESTS = [test_help_matches_man_page, test_man_page_renders, test_architecture_names_every_module,
         test_layers_include_only_below, test_internal_headers, test_help_verb_and_version, test_operands_and_exclusions]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
