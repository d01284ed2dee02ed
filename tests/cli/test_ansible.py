#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Ansible role in contrib/ansible, run by Debian's ansible-playbook against two
local targets: this machine (ansible_connection=local) and a chroot made from this
system (community.general.chroot), never a remote address.

Everything runs in a private mount namespace (unshare --mount): the chroot is a
temporary directory with this system's /usr bound read-only, a copy of /etc with its
own machine id, a copy of the dpkg database, and tmpfs where the role writes.  suid2cap is installed into temporary
prefixes, the reports land in a temporary directory; the host is only read.  Needs root
(chroot, mounts): exits 77 otherwise, and when ansible-playbook is missing.
"""
import json
import os
import shutil
import subprocess
import sys

import s2ctest
from s2ctest import SKIP

PLAYBOOK = os.path.join(s2ctest.SRC, "contrib", "ansible", "playbook.yml")

SETUP = r"""
set -eu
T="$1"; C="$T/chroot"
mount --make-rprivate /
mkdir -p "$C/usr" "$C/proc" "$C/dev" "$C/tmp" "$C/var" "$C/opt" "$C/root" "$C/run"
mount --bind /usr "$C/usr"
mount -o remount,bind,ro "$C/usr"
for d in bin sbin lib lib32 lib64 libx32; do
    if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$C/$d"; fi
done
cp -a /etc "$C/etc"
printf '%s\n' 0123456789abcdef0123456789abcdef > "$C/etc/machine-id"
mount --bind /dev "$C/dev"
mount -t proc proc "$C/proc"
for d in tmp var opt root run; do mount -t tmpfs -o mode=0755 tmpfs "$C/$d"; done
mkdir -p "$C/var/tmp" "$C/var/lib"; chmod 1777 "$C/var/tmp" "$C/tmp"
cp -a /var/lib/dpkg "$C/var/lib/dpkg"
shift
exec "$@"
"""


def test_role(ctx):
    if not shutil.which("ansible-playbook"):
        print("note: ansible-playbook missing (Debian package ansible)", file=sys.stderr)
        return SKIP
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("note: the chroot target needs root and unshare", file=sys.stderr)
        return SKIP
    t = ctx.tree("ansible")
    for d in ("home", "reports", "local/prefix", "local/work", "local/tmp", "ansible-tmp"):
        os.makedirs(os.path.join(t, d), exist_ok=True)
    binary = ctx.binary
    db = os.path.join(os.path.dirname(os.path.dirname(binary)), "share", "suid2cap", "db")
    inventory = os.path.join(t, "inventory")
    with open(inventory, "w") as f:
        f.write(f"""[targets]
local ansible_connection=local ansible_python_interpreter=/usr/bin/python3 \
ansible_remote_tmp={t}/local/tmp suid2cap_prefix={t}/local/prefix suid2cap_workdir={t}/local/work
chrooted ansible_connection=community.general.chroot ansible_host={t}/chroot \
ansible_python_interpreter=/usr/bin/python3 ansible_remote_tmp=/tmp/.ansible \
suid2cap_prefix=/opt/suid2cap suid2cap_workdir=/var/tmp/suid2cap

[targets:vars]
ansible_become=false
suid2cap_install=copy
""")
    with open(os.path.join(t, "ansible.cfg"), "w") as f:
        f.write("[defaults]\n")            # no system or user configuration
    host_before = {p: os.path.lexists(p) for p in ("/usr/local/sbin/suid2cap", "/opt/suid2cap",
                                                   "/var/tmp/suid2cap")}
    env = {"HOME": os.path.join(t, "home"), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
           "ANSIBLE_LOCAL_TEMP": os.path.join(t, "ansible-tmp"), "ANSIBLE_NOCOLOR": "1",
           "ANSIBLE_RETRY_FILES_ENABLED": "0", "ANSIBLE_CONFIG": os.path.join(t, "ansible.cfg"),
           "ANSIBLE_STDOUT_CALLBACK": "default", "LC_ALL": "C.UTF-8", "TZ": "UTC",
           "SOURCE_DATE_EPOCH": str(s2ctest.FIXED_MTIME)}
    cmd = ["unshare", "--mount", "sh", "-c", SETUP, "setup", t,
           "ansible-playbook", "-i", inventory, PLAYBOOK,
           "-e", f"suid2cap_local_binary={binary}", "-e", f"suid2cap_local_db={db}",
           "-e", f"suid2cap_report_dir={t}/reports", "-e", "suid2cap_plan=true",
           "-e", "suid2cap_verify=true", "-e", "suid2cap_kernel=6.1"]
    syntax = subprocess.run(["ansible-playbook", "--syntax-check", "-i", inventory, PLAYBOOK],
                            capture_output=True, env=env)
    ctx.check("syntax", syntax.returncode == 0, syntax.stderr.decode(errors="replace")[-800:])
    p = subprocess.run(cmd, capture_output=True, env=env, timeout=600)
    out = p.stdout.decode(errors="replace")
    # the failed tasks first (their output can be long), then the end of the run
    fatal = "\n".join(line[:1500] for line in out.splitlines() if line.startswith("fatal:"))
    ctx.check("playbook", p.returncode == 0, f"exit {p.returncode}\n{fatal}\n...\n"
              f"{out[-2000:]}\n{p.stderr.decode(errors='replace')[-2000:]}")
    if p.returncode != 0:
        return
    ctx.check("both targets ok", "local" in out and "chrooted" in out and
              "failed=0" in out and "unreachable=0" in out, out[-1500:])
    reports = sorted(os.listdir(os.path.join(t, "reports")))
    ctx.check("reports fetched", reports == ["chrooted.json", "chrooted.plan.json", "fleet.html",
                                             "fleet.json", "fleet.txt", "local.json",
                                             "local.plan.json"], f"{reports}")
    docs = {}
    for name in ("local", "chrooted"):
        with open(os.path.join(t, "reports", f"{name}.json")) as f:
            docs[name] = json.load(f)
        s2ctest.validate_json(ctx, f"{name}.json", docs[name], "audit.schema.json")
        with open(os.path.join(t, "reports", f"{name}.plan.json")) as f:
            ctx.check(f"{name}: a plan", json.load(f)["kind"] == "suid2cap-plan", "")
    ctx.check("two machines told apart", docs["local"]["target"]["machine_id"] !=
              docs["chrooted"]["target"]["machine_id"], "")
    with open(os.path.join(t, "reports", "fleet.json")) as f:
        fleet = json.load(f)
    s2ctest.validate_json(ctx, "fleet.json", fleet, "fleet.schema.json")
    ctx.check("fleet: two targets", fleet["summary"]["targets"] == 2 and
              fleet["summary"]["reports"] == 2, json.dumps(fleet["summary"]))
    # The same system twice: the programs of /usr agree on both.
    usr = [pr for pr in fleet["programs"] if pr["path"].startswith("/usr/")]
    ctx.check("fleet: /usr agrees", usr and all(pr["targets"] == 2 and pr["agree"] == 2
                                                for pr in usr), json.dumps(usr)[:500])
    ctx.check("verify ran", "nothing was migrated here" in out, out[-1500:])
    ctx.check("installed into the temporary prefix",
              os.path.isfile(os.path.join(t, "local", "prefix", "sbin", "suid2cap")), "")
    host_after = {pth: os.path.lexists(pth) for pth in host_before}
    ctx.check("host unchanged", host_before == host_after, f"{host_before} {host_after}")


TESTS = [test_role]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
