#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The built .deb, installed and used the way an admin would, in a throwaway
root: an overlay of / whose changes go to a tmpfs, in a private mount
namespace, entered with chroot.  Nothing reaches the machine itself (checked
before and after).

Usage: tests/pkg/test_deb.py build/pkg/suid2cap_VERSION_ARCH.deb
Exit 0 when every check passed, 1 otherwise, 77 without root or namespaces.

What it proves: dpkg installs the package; the installed program finds its
database; audit and verify run from the installed files; the audit JSON
validates against the installed schema with a validator that may not fetch;
the systemd units pass systemd-analyze, the timer is enabled and the
service's command is quiet when nothing drifted and reports drift; the dpkg
hook names the installed program and repairs drift on the next dpkg run;
bash (through bash-completion's loader) and zsh load the completion; a
removal leaves an inert hook and a purge removes it, but keeps the journals.
"""
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cli"))
import s2ctest  # noqa: E402
from test_schemas import errors as schema_errors  # noqa: E402

INSIDE = "S2C_DEB_TEST_ROOT"
SKIP = 77
# What the package puts on a machine: none of it may change on the host.
HOST_PATHS = ["/usr/sbin/suid2cap", "/usr/share/suid2cap", "/etc/suid2cap", "/lib/systemd/system",
              "/etc/systemd/system/timers.target.wants", "/etc/dpkg/dpkg.cfg.d", "/etc/apt/apt.conf.d",
              "/var/lib/suid2cap", "/usr/share/bash-completion/completions/suid2cap",
              "/usr/share/zsh/vendor-completions/_suid2cap", "/usr/bin/ping"]


def fingerprint():
    """Names, modes, owners, capabilities and contents under HOST_PATHS, and
    dpkg's view of the package."""
    h = hashlib.sha256()

    def one(p):
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            h.update(f"{p} absent\n".encode())
            return
        h.update(f"{p} {st.st_mode:o} {st.st_uid}:{st.st_gid}\n".encode())
        if os.path.isfile(p) and not os.path.islink(p):
            with open(p, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
            try:
                h.update(os.getxattr(p, "security.capability", follow_symlinks=False))
            except OSError:
                pass
    for top in HOST_PATHS:
        one(top)
        if os.path.isdir(top) and not os.path.islink(top):
            for d, dirs, files in os.walk(top):
                for n in sorted(dirs + files):
                    one(os.path.join(d, n))
    q = subprocess.run(["dpkg-query", "-W", "-f", "${Status} ${Version}", "suid2cap"],
                       capture_output=True)
    h.update(q.stdout)
    return h.hexdigest()


def sh(*args):
    subprocess.run(args, check=True)


class Root:
    """The overlay root and commands run in it."""

    def __init__(self, base):
        self.base = base
        self.path = os.path.join(base, "root")
        sh("mount", "-t", "tmpfs", "-o", "mode=0755", "s2c-deb-test", base)
        for d in ("upper", "work", "root"):
            os.mkdir(os.path.join(base, d))
        sh("mount", "-t", "overlay", "overlay", "-o",
           f"lowerdir=/,upperdir={base}/upper,workdir={base}/work", self.path)
        sh("mount", "--rbind", "/dev", self.path + "/dev")
        sh("mount", "-t", "proc", "proc", self.path + "/proc")
        sh("mount", "--rbind", "/sys", self.path + "/sys")
        for d in ("/run", "/tmp"):
            sh("mount", "-t", "tmpfs", "-o", "mode=1777" if d == "/tmp" else "mode=0755", "tmpfs",
               self.path + d)

    def file(self, p):
        return os.path.join(self.path, p.lstrip("/"))

    def run(self, *cmd, input=None):
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "TZ": "UTC", "HOME": "/root",
               "DEBIAN_FRONTEND": "noninteractive", "TERM": "dumb"}
        p = subprocess.run(["chroot", self.path, *cmd], capture_output=True, env=env, input=input)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def dpkg(root, *args):
    return root.run("dpkg", "--force-confdef", "--force-confold", *args)


def mode(root, p):
    return os.lstat(root.file(p)).st_mode & 0o7777


def caps(root, p):
    try:
        return os.getxattr(root.file(p), "security.capability", follow_symlinks=False)
    except OSError:
        return None


def check_installed(ctx, root, version):
    rc, out, err = dpkg(root, "-i", "/tmp/suid2cap.deb")
    ctx.check("dpkg -i", rc == 0, out + err)
    rc, out, err = root.run("dpkg-query", "-W", "-f", "${Status} ${Version}", "suid2cap")
    ctx.check("installed", out == f"install ok installed {version}", out + err)
    rc, out, err = root.run("suid2cap", "--version")
    ctx.check("suid2cap --version", rc == 0 and out == f"suid2cap {version}\n", out + err)
    rc, out, err = root.run("suid2cap", "rules", "list", "--format", "json")
    files = {r["file"] for r in json.loads(out)["rules"]} if rc == 0 else set()
    ctx.check("the installed program reads the installed database",
              files and all(f.startswith("/usr/share/suid2cap/db/") for f in files), f"{rc} {err} {files}")
    rc, out, err = root.run("suid2cap", "rules", "lint", "/usr/share/suid2cap/db", "/etc/suid2cap/rules.d")
    ctx.check("rules lint of the installed layers", rc == 0 and "no problems found" in out, out + err)


def check_audit(ctx, root):
    # an image root with setuid copies, as older systems shipped them
    img = "/tmp/img"
    os.makedirs(root.file(img + "/etc"))
    for name in ("passwd", "group"):
        shutil.copyfile(root.file("/etc/" + name), root.file(f"{img}/etc/{name}"))
    for p in ("/usr/bin/ping", "/usr/bin/su", "/usr/bin/passwd"):
        if os.path.isfile(root.file(p)):
            os.makedirs(os.path.dirname(root.file(img + p)), exist_ok=True)
            shutil.copyfile(root.file(p), root.file(img + p))
            os.chmod(root.file(img + p), 0o4755)
    rc, out, err = root.run("suid2cap", "audit", "--root", img)
    ctx.check("audit of an image", rc == 0 and "Summary:" in out and "/usr/bin/su" in out, f"{rc} {err}")
    rc, out, err = root.run("suid2cap", "audit", "--root", img, "--format", "json", "-o", "/tmp/audit.json")
    ctx.check("audit --format json -o", rc == 0, err)
    with open(root.file("/usr/share/suid2cap/schema/audit.schema.json")) as f:
        schema = json.load(f)
    with open(root.file("/tmp/audit.json")) as f:
        doc = json.load(f)
    e = schema_errors(schema, doc)
    ctx.check("audit JSON valid against the installed schema, nothing fetched", not e, e[:3])
    if os.path.exists(root.file("/usr/bin/jsonschema")):
        rc, out, err = root.run("jsonschema", "-i", "/tmp/audit.json",
                                "/usr/share/suid2cap/schema/audit.schema.json")
        ctx.check("jsonschema -i with the installed schema", rc == 0, err[-400:])
    rc, out, err = root.run("suid2cap", "audit", "/usr/bin")
    ctx.check("audit of the (overlay) system", rc == 0 and "Summary:" in out, f"{rc} {err}")


def service_command(root):
    with open(root.file("/lib/systemd/system/suid2cap-verify.service")) as f:
        m = re.search(r"^ExecStart=(.*)$", f.read(), re.M)
    return shlex.split(m.group(1)) if m else ["false"]


def check_units(ctx, root):
    units = ["/lib/systemd/system/suid2cap-verify.service", "/lib/systemd/system/suid2cap-verify.timer"]
    if os.path.exists(root.file("/usr/bin/systemd-analyze")):
        rc, out, err = root.run("systemd-analyze", "verify", "--man=no", *units)
        ctx.check("systemd-analyze verify", rc == 0, out + err)
    ctx.check("timer enabled", os.path.islink(
        root.file("/etc/systemd/system/timers.target.wants/suid2cap-verify.timer")), "")
    cmd = service_command(root)
    ctx.check("the service runs the installed program", cmd[:2] == ["/usr/sbin/suid2cap", "verify"], cmd)
    rc, out, err = root.run(*cmd)
    ctx.check("service command before any migration: quiet, success", rc == 0 and out == "",
              f"{rc} {out!r} {err!r}")


def check_verify_and_hook(ctx, root):
    ping = "/usr/bin/ping"
    if not os.path.isfile(root.file(ping)) or not shutil.which("setcap"):
        ctx.check("ping and setcap for the migration test", False, "install iputils-ping and libcap2-bin")
        return
    # ping as older systems had it: setuid root, no capabilities
    root.run("setcap", "-r", ping)
    os.chmod(root.file(ping), 0o4755)
    rc, out, err = root.run("suid2cap", "verify")
    ctx.check("verify before a migration", rc == 0 and "nothing was migrated here" in out, out + err)
    rc, out, err = root.run("suid2cap", "migrate", "--yes", ping)
    ctx.check("migrate ping", rc == 0 and not mode(root, ping) & 0o4000, f"{rc} {out} {err}")
    cmd = service_command(root)
    rc, out, err = root.run(*cmd)
    ctx.check("service command, nothing drifted: quiet, success", rc == 0 and out == "", f"{rc} {out!r} {err!r}")
    os.chmod(root.file(ping), mode(root, ping) | 0o4000)
    rc, out, err = root.run(*cmd)
    ctx.check("service command reports drift and fails", rc == 1 and f"drift      {ping}" in out,
              f"{rc} {out!r} {err!r}")
    # the dpkg hook runs the installed program after the next dpkg run
    rc, out, err = root.run("suid2cap", "verify", "--install-hook", "dpkg")
    hook = root.file("/etc/dpkg/dpkg.cfg.d/suid2cap")
    text = open(hook).read() if os.path.exists(hook) else ""
    ctx.check("dpkg hook names the installed program",
              rc == 0 and "if [ -x '/usr/sbin/suid2cap' ]; then '/usr/sbin/suid2cap' verify --fix" in text,
              f"{rc} {err} {text!r}")
    rc, out, err = dpkg(root, "-i", "/tmp/suid2cap.deb")
    ctx.check("dpkg run with the hook", rc == 0, out + err)
    rc, out, err = root.run(*cmd)
    ctx.check("the hook repaired the drift", rc == 0 and out == "" and not mode(root, ping) & 0o4000,
              f"{rc} {out!r} {oct(mode(root, ping))} {caps(root, ping)!r}")
    return hook


def check_completion(ctx, root):
    rc, out, err = root.run("bash", "--norc", "--noprofile", "-c",
                            ". /usr/share/bash-completion/bash_completion; "
                            "_completion_loader suid2cap; complete -p suid2cap")
    ctx.check("bash: complete -p suid2cap", rc == 0 and out == "complete -F _suid2cap suid2cap\n",
              out + err)
    rc, out, err = root.run("bash", "--norc", "--noprofile", "-c",
                            ". /usr/share/bash-completion/completions/suid2cap; "
                            "COMP_WORDS=(suid2cap audit --format ''); COMP_CWORD=3; _suid2cap; "
                            "echo \"${COMPREPLY[*]}\"")
    ctx.check("bash: audit --format completes the formats", out == "text json markdown html sarif\n",
              out + err)
    if os.path.exists(root.file("/usr/bin/zsh")):
        rc, out, err = root.run("zsh", "-fc", "autoload -Uz compinit; compinit -u -d /tmp/zcompdump; "
                                "print -r -- $_comps[suid2cap]")
        ctx.check("zsh: compinit finds _suid2cap", out == "_suid2cap\n", out + err)


def check_remove_and_purge(ctx, root, hook):
    rc, out, err = dpkg(root, "-r", "suid2cap")
    ctx.check("dpkg -r (its own post-invoke hook stays silent)", rc == 0 and "suid2cap" not in err,
              out + err)
    ctx.check("program gone", not os.path.exists(root.file("/usr/sbin/suid2cap")), "")
    if hook:
        ctx.check("after removal the hook stays, inert", os.path.exists(hook), "")
    rc, out, err = dpkg(root, "--purge", "suid2cap")
    ctx.check("dpkg --purge", rc == 0, out + err)
    if hook:
        ctx.check("purge removed the hook", not os.path.exists(hook), "")
    ctx.check("purge kept the journals", os.path.isdir(root.file("/var/lib/suid2cap/journals")), "")
    ctx.check("purge removed /etc/suid2cap", not os.path.exists(root.file("/etc/suid2cap/rules.d/README")), "")


def inside(deb, base):
    """In the private mount namespace: build the root, install, check."""
    version = re.match(r"suid2cap_([^_]+)_", os.path.basename(deb)).group(1)
    ctx = s2ctest.Ctx(deb)
    try:
        root = Root(base)
        shutil.copyfile(deb, root.file("/tmp/suid2cap.deb"))
        check_installed(ctx, root, version)
        check_audit(ctx, root)
        check_units(ctx, root)
        hook = check_verify_and_hook(ctx, root)
        check_completion(ctx, root)
        check_remove_and_purge(ctx, root, hook)
    finally:
        ctx.cleanup()
    print(f"{ctx.passed} passed, {len(ctx.failures)} failed")
    return 1 if ctx.failures else 0


def main(argv):
    if len(argv) != 1 or not argv[0].endswith(".deb"):
        print("usage: test_deb.py PACKAGE.deb", file=sys.stderr)
        return 2
    deb = os.path.abspath(argv[0])
    if os.environ.get(INSIDE):
        return inside(deb, os.environ[INSIDE])
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("chroot"):
        print("skip: installing the package in a throwaway root needs root, unshare and chroot")
        return SKIP
    p = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True)
    if p.returncode != 0:
        print(f"skip: no private mount namespace here: {p.stderr.decode().strip()}")
        return SKIP
    before = fingerprint()
    base = tempfile.mkdtemp(prefix="s2c-deb-")
    try:
        p = subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable,
                            os.path.abspath(__file__), deb], env=dict(os.environ, **{INSIDE: base}))
    finally:
        os.rmdir(base)
    if fingerprint() != before:
        print("FAIL the machine itself changed", file=sys.stderr)
        return 1
    return p.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
