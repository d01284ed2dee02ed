#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Shell completion: the bash and zsh scripts the build generates complete the
verbs, the options, their values and paths that `suid2cap VERB --help` shows.

The expectations are read from the help here, with this file's own parser, so
the scripts (which parse the help with dist/completion/help.awk) are checked
against an independent reading of it."""
import os
import re
import shutil
import subprocess
import sys
import time

import s2ctest
from s2ctest import SKIP

OPTION = re.compile(r"(?:^|[^\w-])(--?[A-Za-z][\w-]*)")


def build_share(ctx):
    return os.path.join(os.path.dirname(os.path.dirname(ctx.binary)), "share")


def bash_script(ctx):
    return os.path.join(build_share(ctx), "bash-completion", "completions", "suid2cap")


def zsh_dir(ctx):
    return os.path.join(build_share(ctx), "zsh", "site-functions")


def helptext(ctx, *verb):
    rc, out, err = ctx.run([*verb, "--help"])
    return out.decode()


def verbs(ctx):
    text = helptext(ctx)
    block = text.split("Verbs:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines()]


def options(text):
    return set(OPTION.findall(text))


def value_lists(text):
    """{option: [values]} for every `--option a|b|c` of the synopsis (the usage
    line and the indented lines that continue it), and the values an option's
    description lists one a line, two columns in ("  docker  Docker's default")."""
    usage = text.split("\n\n", 1)[0]
    lists = {m.group(1): m.group(2).split("|")
             for m in re.finditer(r"(--[\w-]+) ([a-z0-9-]+(?:\|[a-z0-9-]+)+)", usage)}
    opt = None
    for line in text.split("\n\n", 1)[1].splitlines():
        m = re.match(r" +(?:-\w, )?(--[\w-]+) [A-Z]", line)
        if m:
            opt = m.group(1)
        elif re.match(r" +-", line) or not line.startswith(" " * 24):
            opt = None
        elif opt:
            v = re.match(r" {26}([A-Za-z0-9][\w-]*)  ", line)
            if v and v.group(1) not in lists.setdefault(opt, []):
                lists[opt].append(v.group(1))
    return lists


def bash_complete(ctx, words, cwd=None, program=None, env=None):
    """COMPREPLY of the bash script for the command line @words (the last one is
    completed), as a list."""
    program = program or ctx.binary
    line = " ".join(f"'{w}'" for w in [program, *words])
    script = (f"source '{bash_script(ctx)}'\n"
              f"COMP_WORDS=({line}); COMP_CWORD={len(words)}\n"
              "_suid2cap\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "HOME": ctx.tmp}
    e.update(env or {})
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True,
                       cwd=cwd, env=e)
    if p.returncode != 0 or p.stderr:
        ctx.check(f"bash completion of {words}", False, f"{p.returncode} {p.stderr!r}")
    return [x for x in p.stdout.decode().split("\n") if x]


def test_bash_loads(ctx):
    """The script loads in a plain bash and through bash-completion's loader."""
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c",
                        f"source '{bash_script(ctx)}' && complete -p suid2cap"], capture_output=True)
    ctx.check("complete -p suid2cap", p.returncode == 0 and
              p.stdout == b"complete -F _suid2cap suid2cap\n", f"{p.returncode} {p.stdout!r} {p.stderr!r}")
    p = subprocess.run(["shellcheck", "-s", "bash", bash_script(ctx)], capture_output=True)
    ctx.check("shellcheck", p.returncode == 0, p.stdout.decode())
    loader = "/usr/share/bash-completion/bash_completion"
    if os.path.exists(loader):
        env = {"PATH": "/usr/bin:/bin", "XDG_DATA_DIRS": build_share(ctx), "HOME": ctx.tmp}
        p = subprocess.run(["bash", "--norc", "--noprofile", "-c",
                            f". {loader}; _completion_loader suid2cap; complete -p suid2cap"],
                           capture_output=True, env=env)
        ctx.check("bash-completion loads it on demand", b"-F _suid2cap suid2cap" in p.stdout,
                  f"{p.stdout!r} {p.stderr!r}")


def test_bash_verbs_and_options(ctx):
    """Verbs, and for each verb exactly the options its help shows."""
    vs = verbs(ctx)
    ctx.check("verbs listed", len(vs) >= 10 and "verify" in vs, vs)
    ctx.check("verbs", bash_complete(ctx, [""]) == vs, f"{bash_complete(ctx, [''])} != {vs}")
    ctx.check("verb prefix", bash_complete(ctx, ["ro"]) == ["rollback"], "")
    ctx.check("global options", set(bash_complete(ctx, ["-"])) == options(helptext(ctx)), "")
    for v in vs:
        want = options(helptext(ctx, v))
        got = set(bash_complete(ctx, [v, "-"]))
        ctx.check(f"{v}: options", got == want,
                  f"only in completion {sorted(got - want)}, only in help {sorted(want - got)}")
        # after other options and operands too
        got = set(bash_complete(ctx, [v, "--root", "/", "x", "--"]))
        ctx.check(f"{v}: long options later on the line", got == {o for o in want if o.startswith("--")},
                  sorted(got))


def test_bash_values(ctx):
    """Formats, hook kinds and other value lists, as separate words, after '=' and
    in comma lists; users; the operands of rules and privileges."""
    seen = 0
    for v in verbs(ctx):
        for opt, values in value_lists(helptext(ctx, v)).items():
            seen += 1
            ctx.check(f"{v} {opt} values", bash_complete(ctx, [v, opt, ""]) == values,
                      f"{bash_complete(ctx, [v, opt, ''])} != {values}")
            # bash splits --opt=value at '=' (COMP_WORDBREAKS)
            ctx.check(f"{v} {opt}= values", bash_complete(ctx, [v, opt, "=", ""]) == values, "")
            ctx.check(f"{v} {opt}=x prefix", bash_complete(ctx, [v, opt, "=", values[-1][:1]]) ==
                      [x for x in values if x.startswith(values[-1][:1])], "")
    ctx.check("value lists found", seen >= 6, seen)
    ctx.check("scan --format", bash_complete(ctx, ["scan", "--format", ""]) == ["text", "json"], "")
    ctx.check("audit --format sarif", bash_complete(ctx, ["audit", "--format", "sa"]) == ["sarif"], "")
    ctx.check("--fail-on comma list", bash_complete(ctx, ["audit", "--fail-on", "review,m"]) ==
              ["review,migrate"], bash_complete(ctx, ["audit", "--fail-on", "review,m"]))
    # the finding ids, as the help lists them; incomplete only where it applies
    ids = [f"S2C{k:03d}" for k in range(1, 9)]
    got = bash_complete(ctx, ["audit", "--fail-on", "risk,S"])
    ctx.check("--fail-on finding ids", got == [f"risk,{i}" for i in ids], got)
    got = bash_complete(ctx, ["audit-pkg", "--fail-on", ""])
    ctx.check("audit-pkg --fail-on", got == ["review", "migrate", "risk", "incomplete", *ids], got)
    ctx.check("audit --fail-on: no incomplete",
              "incomplete" not in bash_complete(ctx, ["audit", "--fail-on", ""]), "")
    for v in ("audit", "audit-image", "plan", "explain", "verify"):
        got = bash_complete(ctx, [v, "--bounding-set", ""])
        ctx.check(f"{v} --bounding-set", got == ["docker", "podman", "all"], got)
    got = bash_complete(ctx, ["audit", "--bounding-set", "=", "p"])
    ctx.check("--bounding-set=p", got == ["podman"], got)
    ctx.check("--install-hook", bash_complete(ctx, ["verify", "--install-hook", ""]) ==
              ["dpkg", "apt", "rpm"], "")
    ctx.check("--smoke-user completes users", "root" in bash_complete(ctx, ["apply", "--smoke-user", "ro"]),
              "")
    ctx.check("--threads completes nothing", bash_complete(ctx, ["scan", "--threads", ""]) == [], "")
    ctx.check("rules subcommands", bash_complete(ctx, ["rules", ""]) == ["lint", "list"], "")
    ctx.check("privileges VERB", bash_complete(ctx, ["privileges", "ap"]) == ["apply"], "")
    if "help" in verbs(ctx):
        ctx.check("help VERB", bash_complete(ctx, ["help", "ve"]) == ["verify"], "")
    if "learn" in verbs(ctx):
        got = bash_complete(ctx, ["learn", "--user", "nobody", "setpri"])
        ctx.check("learn COMMAND completes programs", "setpriv" in got, got)


def test_bash_paths(ctx):
    """Operands and file options complete paths (names with spaces and quotes
    whole), --root and --db directories only."""
    d = ctx.tree("paths")
    os.makedirs(os.path.join(d, "a dir"))
    os.makedirs(os.path.join(d, "another"))
    for name in ("a file", "it's"):
        with open(os.path.join(d, name), "w"):
            pass
    for name, words, want in (
            ("explain PATH", ["explain", "a"], ["a dir", "a file", "another"]),
            ("quote in a name", ["scan", "it"], ["it's"]),
            ("--root: directories", ["scan", "--root", "a"], ["a dir", "another"]),
            ("--db=: directories", ["audit", "--db", "=", "a"], ["a dir", "another"]),
            ("-o FILE", ["audit", "-o", "a"], ["a dir", "a file", "another"]),
            ("apply PLAN", ["apply", "a "], ["a dir", "a file"]),
            ("rules lint DIR", ["rules", "lint", "an"], ["another"])):
        got = sorted(bash_complete(ctx, words, cwd=d))
        ctx.check(name, got == want, f"{got} != {want}")
    # the program as typed, found in PATH
    bindir = ctx.tree("bin")
    os.symlink(ctx.binary, os.path.join(bindir, "suid2cap"))
    got = bash_complete(ctx, ["scan", "--format", ""], program="suid2cap",
                        env={"PATH": bindir + ":/usr/bin:/bin"})
    ctx.check("program found in PATH", got == ["text", "json"], got)


ZDRIVER = r"""
zmodload zsh/zpty
dir=$1 log=$2; shift 2
: >> $log
# wait_for PATTERN COUNT: until COUNT lines of the log match PATTERN; all the
# while read what the shell writes, or it blocks on a full terminal.
wait_for() {
	local i
	for i in {1..1200}; do
		(( $(grep -c -- "$1" $log) >= $2 )) && return 0
		while zpty -rt z junk; do print -rn -- "$junk" >> $log.pty; done
		sleep 0.05
	done
	print -r -- "driver: timed out waiting for $1" >> $log
	exit 1
}
zpty z zsh -f -i
# Type only while the line editor waits for input: input that arrives while it
# sets the terminal up may be thrown away.  The first prompt is zsh -f's own
# (it ends in "# " or "% "); after that zle-line-init says when.
out=
for i in {1..1200}; do
	zpty -rt z chunk && out+=$chunk
	[[ $out == *'% '* || $out == *'# '* ]] && break
	sleep 0.05
done
zpty -w z "zle-line-init() { print -r -- '--- prompt' >> $log }; zle -N zle-line-init"
prompts=1
wait_for '^--- prompt$' $prompts
cmd() {
	zpty -w z "$1"
	(( prompts++ ))
	wait_for '^--- prompt$' $prompts
}
cmd "PS1=; unsetopt autolist listambiguous; fpath=($dir \$fpath)"
cmd "autoload -Uz compinit; compinit -u -D"
cmd "compadd() { local -a __h; builtin compadd -O __h \"\$@\"; (( \$#__h )) && print -rl -- \$__h >> $log; builtin compadd \"\$@\" }"
# TAB completes, then says so in the log
cmd "s2c-tab() { zle complete-word; print -r -- '--- done' >> $log }; zle -N s2c-tab; bindkey '^I' s2c-tab"
n=0
for line in "$@"; do
	cmd "print -r -- '=== $line' >> $log"
	zpty -w -n z "$line"$'\t'
	(( n++ ))
	wait_for '^--- done$' $n
	zpty -w -n z $'\C-u'
done
cmd "print -r -- '=== end' >> $log"
zpty -w z "exit"
zpty -d z
"""


def zsh_complete(ctx, lines, cwd):
    """{line: set of matches} of the zsh script in an interactive zsh on a pty."""
    driver = os.path.join(ctx.tmp, "zdriver.zsh")
    log = os.path.join(ctx.tmp, "zlog")
    with open(driver, "w") as f:
        f.write(ZDRIVER)
    if os.path.exists(log):
        os.unlink(log)
    bindir = ctx.tree("zbin")
    os.symlink(ctx.binary, os.path.join(bindir, "suid2cap"))
    # LeakSanitizer (asan preset) stops the world to scan at exit, and that can
    # hang under an interactive shell's job control on a pseudo-terminal; the
    # bash tests run the same --help calls with leak detection.
    env = {"PATH": bindir + ":/usr/bin:/bin", "LC_ALL": "C", "HOME": ctx.tmp, "TERM": "dumb",
           "ASAN_OPTIONS": "detect_leaks=0"}
    try:
        subprocess.run(["zsh", "-f", driver, zsh_dir(ctx), log, *lines], cwd=cwd, env=env,
                       capture_output=True, timeout=300)
    except subprocess.TimeoutExpired:
        ctx.check("zsh driver finished", False, "timed out")
    result, cur = {}, None
    if not os.path.exists(log):
        return result
    with open(log) as f:
        for x in f.read().splitlines():
            if x.startswith("=== "):
                cur = x[4:]
                result[cur] = set()
            elif cur is not None and not x.startswith("--- "):
                # _files adds some names quoted for the command line too
                result[cur].add(re.sub(r"\\(.)", r"\1", x))
    return result


def test_zsh(ctx):
    """The zsh function completes verbs, options with values, comma lists and
    directories, driven in an interactive zsh on a pseudo-terminal."""
    if not shutil.which("zsh"):
        return SKIP
    p = subprocess.run(["zsh", "-n", os.path.join(zsh_dir(ctx), "_suid2cap")], capture_output=True)
    ctx.check("zsh -n", p.returncode == 0, p.stderr)
    d = ctx.tree("zpaths")
    os.makedirs(os.path.join(d, "a dir"))
    with open(os.path.join(d, "a file"), "w"):
        pass
    lines = ["suid2cap ", "suid2cap scan --f", "suid2cap scan --format ", "suid2cap audit --format=",
             "suid2cap audit --fail-on review,", "suid2cap audit --fail-on S2C00",
             "suid2cap audit-pkg --fail-on in", "suid2cap audit --bounding-set ",
             "suid2cap verify --install-hook ",
             "suid2cap scan --root a", "suid2cap explain a", "suid2cap rules ", "suid2cap privileges mi",
             "suid2cap verify --"]
    t0 = time.time()
    got = zsh_complete(ctx, lines, d)
    if "end" not in got:
        with open(os.path.join(ctx.tmp, "zlog")) as f:
            log = f.read()
        with open(os.path.join(ctx.tmp, "zlog.pty"), "rb") as f:
            pty = f.read()
        ctx.check("zsh ran every line", False, f"after {time.time() - t0:.1f}s: log {log[-600:]!r}, "
                  f"terminal {pty[-600:]!r}")
    want = {
        "suid2cap ": set(verbs(ctx)),
        "suid2cap scan --f": {"--format"},
        "suid2cap scan --format ": {"text", "json"},
        "suid2cap audit --format=": set(value_lists(helptext(ctx, "audit"))["--format"]),
        "suid2cap audit --fail-on review,": {"migrate", "risk", *(f"S2C{k:03d}"
                                                                 for k in range(1, 9))},
        "suid2cap audit --fail-on S2C00": {f"S2C{k:03d}" for k in range(1, 9)},
        "suid2cap audit-pkg --fail-on in": {"incomplete"},
        "suid2cap audit --bounding-set ": {"docker", "podman", "all"},
        "suid2cap verify --install-hook ": {"dpkg", "apt", "rpm"},
        "suid2cap scan --root a": {"a dir"},
        "suid2cap explain a": {"a dir", "a file"},
        "suid2cap rules ": {"lint", "list"},
        "suid2cap privileges mi": {"migrate"},
        "suid2cap verify --": {o for o in options(helptext(ctx, "verify")) if o.startswith("--")},
    }
    for line, matches in want.items():
        ctx.check(f"zsh: {line!r}", got.get(line) == matches,
                  f"got {sorted(got.get(line, []))}, want {sorted(matches)}")


TESTS = [test_bash_loads, test_bash_verbs_and_options, test_bash_values, test_bash_paths, test_zsh]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
