#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The proof behind `audit-pkg`: real dpkg installs, compared with the prediction.

Real Debian 12 and 13 packages that make files privileged in their maintainer
scripts, and hostile packages built here that hide a chmod in every construct
the shell offers, are installed with real dpkg in a throwaway copy of this
system (s2ctest.in_throwaway_system), one after the other, each freshly (purged
first when the system has it), with debconf's default answers.  After each,
every file of the package is compared with what `audit-pkg` predicted (mode,
owner, group, capabilities), and every set-ID or capability file of the whole
system that changed must be one of them.  A package the audit calls complete
must match exactly; an incomplete one only has to say so.  The plan audit-pkg
writes for a package must run cleanly after the default installation.
"""
import json
import os
import pwd
import grp
import stat
import subprocess
import sys

import debfetch
import mkarchive as mk
import s2ctest
from s2ctest import SKIP

KERNEL = ["--kernel", "6.1"]
WORK_ENV = "S2C_DPKG_DIFF"

# Real packages whose scripts make files privileged (setcap with its fallback,
# chmod, dpkg-statoverride), and some that ship them so, per release.
REAL = ["iputils-ping", "fping", "mtr-tiny", "fuse3", "dbus", "polkitd", "wireshark-common",
        "libgstreamer1.0-0", "passwd", "sudo", "uidmap", "iputils-arping", "iputils-clockdiff",
        "ntfs-3g", "lockfile-progs", "liblockfile-bin", "at", "netselect", "xserver-xorg-legacy",
        # other packages' helpers the audit models: gac-package-install with mono's hook
        # (cli-common itself is installed first; libgtk3.0-cil lists an assembly, and is
        # incomplete), a word list's Perl debconf config and dictionaries-common's helper
        "mono-gac", "libgtk3.0-cil", "dictionaries-common", "wcanadian-small",
        # dbconfig-common's dbc_go for PostgreSQL, with an include file of mode 0660
        "bandwidthd-pgsql"]
# Installed before every case: the helpers some hostile packages call, and what
# dictionaries-common needs to configure (so that a word list's config runs its helper).
PREREQ = [("bookworm", "cli-common"), ("bookworm", "libtext-iconv-perl"),
          ("bookworm", "emacsen-common"), ("bookworm", "dbconfig-common")]

# A package that uses dbconfig-common for PostgreSQL: its config and the start of its
# postinst, which then sets the include file's variables and calls dbc_go itself.
DBC_CONFIG = """#!/bin/sh
set -e
. /usr/share/debconf/confmodule
. /usr/share/dbconfig-common/dpkg/config.pgsql
dbc_go {pkg} "$@"
"""
DBC_POSTINST = """#!/bin/sh
set -e
. /usr/share/debconf/confmodule
. /usr/share/dbconfig-common/dpkg/postinst.pgsql
"""

# The debconf config dictionaries-common-dev writes for every word list.
DICT_CONFIG = """#!/usr/bin/perl -w
use Debconf::Client::ConfModule q(:all);

version ('2.0');

my $class  = "wordlist";
my $script = "/usr/share/dictionaries-common/dc-debconf-select.pl";

if ( -e $script ){{
    require $script;
    dc_debconf_select($class);
}}
"""

# Each hostile postinst hides `chmod 4755 $P` (P: the package's own program) in one
# construct; {P} and {D} (its directory) are filled in per package.  Those of
# PROVEN must make {P} set-ID when dpkg installs them (the construct really hides
# the change), and the audit must call them incomplete.
HOSTILE = {
    "command": "command chmod 4755 {P}",
    "eval": "eval chmod u+s {P}",
    "zeros": "chmod 0004755 {P}",
    "symlink": "chmod u+s {D}/link",
    "dirlink": "chmod u+s {D}/../hostile-dirlink-{N}/prog",
    "source": ". {D}/helper.sh",
    "run": "{D}/helper.sh",
    "unset-f": "chmod(){{ :; }}; unset -f chmod; chmod 4755 {P}",
    "func": "f(){{ chmod \"$@\"; }}; f 4755 {P}",
    "alias": "alias ch=chmod\nch 4755 {P}",
    "env": "env chmod 4755 {P}",
    "nice": "nice -n 5 chmod 4755 {P}",
    "timeout": "timeout 10 chmod 4755 {P}",
    "stdbuf": "stdbuf -o0 chmod 4755 {P}",
    "busybox": "busybox chmod 4755 {P} || true",
    "exec": "exec chmod 4755 {P}",
    "find": "find {D} -name prog -exec chmod 4755 {{}} \\;",
    "xargs": "echo {P} | xargs chmod 4755",
    "sh-c": "sh -c 'chmod 4755 {P}'",
    "trap": "trap 'chmod 4755 {P}' EXIT",
    "cmdsub": "x=$(chmod 4755 {P})",
    "cmdsub-mode": "m=$(echo 4755); chmod $m {P}",
    "cmdsub-sed": "p=$(echo {D}/prug | sed s:/prug:/prog:); chmod 4755 \"$p\"",
    "cmdsub-sed-g": "m=$(echo 4x5x | sed 's/x/7/g'); chmod 0 {P}; chmod \"$m\" {P}",
    "cmdsub-sed-group": "m=$(echo 47-55 | sed -e 's/\\(7\\)-/\\1/'); chmod $m {P}",
    "cmdsub-cat": "m=$(cat {D}/mode); chmod \"$m\" {P}",
    "read": "read m < {D}/mode; chmod \"$m\" {P}",
    "ifs": "IFS=:; x=\"4755:{P}\"; chmod $x",
    "heredoc": "cat >/dev/null <<EOF\n$(chmod 4755 {P})\nEOF",
    "install-m": "install -m 4755 {P} {D}/prog2",
    "cp-p": "chmod 4755 {P}; cp -p {P} {D}/copy",
    "other-file": "chmod 4755 /usr/bin/true",
    "set-e": "false\nchmod 4755 {P}",
    "statoverride": "dpkg-statoverride --update --add root root 4755 {P}",
    "statoverride-order": "dpkg-statoverride --add --quiet --update root root 4755 {P}",
    "setcap": "setcap cap_net_raw+ep {P} || chmod u+s {P}",
    "cmdsub-cut": "m=$(echo x:4755 | cut -d: -f2); chmod $m {P}",
    # a link whose name is partly known: its rest ("../usr/local/sbin/", read at run
    # time) climbs out of /tmp onto PATH, where a command of the table then runs the
    # package's helper; a rest that holds no '/' stays below the known start
    "link-climb": ("x=\"$(cat {D}/name)dictdconfig\"\nln -s {D}/helper.sh \"/tmp/$x\"\n"
                   "dictdconfig\nrm -f /usr/local/sbin/dictdconfig"),
    "link-climb-var": ("d=\"/tmp/$(cat {D}/name)update-pciids\"\nln -s {D}/helper.sh \"$d\"\n"
                       "update-pciids\nrm -f /usr/local/sbin/update-pciids"),
    # a link of unknown name in a link the script made to a directory on PATH lands there
    "link-dir-link": ("ln -s /usr/local/sbin /tmp/s2c-{N}\nx=$(cat {D}/word)\n"
                      "ln -s {D}/helper.sh \"/tmp/s2c-{N}/${{x##*/}}\"\nupdate-usbids\n"
                      "rm -f /usr/local/sbin/update-usbids /tmp/s2c-{N}"),
    "link-base": ("x=$(cat {D}/name)\nmkdir -p /etc/s2c-{N}\n"
                  "ln -s {D}/helper.sh \"/etc/s2c-{N}/${{x##*/}}l\"\nreadlink /etc/s2c-{N}/l\n"
                  "chmod 4755 {P}"),
    # a link that may land anywhere but has a known last name ("$x/django.mo") stands in
    # for no other command on PATH; one whose last name is that of a link to a directory
    # (the script's, the package's) lands in that directory, on PATH here
    "link-name": ("x=$(cat {D}/tmpdir)\nmkdir -p \"$x\"\nln -s {D}/helper.sh \"$x/django.mo\"\n"
                  "ldconfig\nchmod 4755 {P}"),
    "link-named": ("mkdir -p /tmp/s2c-{N}\nln -s /usr/local/sbin /tmp/s2c-{N}/sbin\n"
                   "x=$(cat {D}/tmpdir)\nln -s {D}/bin/update-usbids \"$x/sbin\"\nupdate-usbids\n"
                   "rm -rf /usr/local/sbin/update-usbids /tmp/s2c-{N}"),
    "link-named-member": ("x=$(cat {D}/dir)\nln -s {D}/bin/update-usbids \"$x/sbin\"\n"
                          "update-usbids\nrm -f /usr/local/sbin/update-usbids"),
    "link-named-unknown": ("mkdir -p /tmp/s2c-{N}\nn=$(cat {D}/dirname)\n"
                           "ln -s /usr/local/sbin \"/tmp/s2c-{N}/${{n##*/}}\"\n"
                           "x=$(cat {D}/tmpdir)\nln -s {D}/bin/update-usbids \"$x/sbin\"\n"
                           "update-usbids\nrm -rf /usr/local/sbin/update-usbids /tmp/s2c-{N}"),
    # a loop over the positional parameters runs as the shell runs it while its condition
    # is decided; where it is not, what a pass shifts is not known after it
    "shift-decided": "set -- 0755 {P} 4755 {P}\nwhile [ $# -ge 2 ]; do chmod $1 $2; shift 2; done",
    "shift-loop": ("set -- 0755 {P} 4755 {P}\n"
                   "while [ $# -ge 2 ] && [ -e /etc/passwd ]; do chmod $1 $2; shift 2; done"),
    # chmod -R of a glob reaches below each directory it matches: incomplete (a glob may
    # reach files that are not the package's), and what it makes of the package's is said
    "chmod-r-glob": "chmod -R u+s {D}/b*",
    # a for loop over the words of an expansion not known may make no pass at all
    "for-empty": "m=4755\nfor x in $(cat {D}/empty); do m=0755; done\nchmod $m {P}",
    # a file the script makes and then makes set-ID is privileged though no member is;
    # a set-GID directory it makes is no privileged file
    "made-file": "cp {P} /usr/local/bin/s2c-{N}; chmod 4755 /usr/local/bin/s2c-{N}",
    "made-mktemp": "f=$(mktemp -p /var/tmp); cp {P} \"$f\"; chmod u+s \"$f\"",
    "made-dir": "mkdir -p /var/lib/s2c-{N}; chmod 2775 /var/lib/s2c-{N}; chmod 4755 {P}",
    # a while read loop over a file of the package runs once per line, with the values
    # dash's read sets (a backslash quotes the next byte); a body that reads the loop's
    # input itself (head) eats a line the loop then never sees
    "while-read": "while read m f; do chmod \"$m\" \"$f\"; done < {D}/bslist",
    "while-read-eaten": ("while read m f; do chmod \"$m\" \"$f\"; head -n 1 >/dev/null; "
                         "done < {D}/list"),
    "while-read-asks": ("while read m f; do chmod \"$m\" \"$f\"; rm -i {D}/mode 2>/dev/null; "
                        "done < {D}/list"),
    # grep on a conffile the package ships decides as its packed content does (dpkg puts
    # it so on a fresh installation); on a file that is not the package's it is not known
    "conffile": "if grep -q '^suid=yes' /etc/s2c-{N}.conf; then chmod 4755 {P}; fi",
    "conffile-other": "if grep -q '^root:' /etc/passwd; then chmod 4755 {P}; fi",
    # root keeps a set-ID file's bits when it writes into it: a program of the system
    # written over in place runs the package's content set-ID
    "write-other": "cat {P} > /usr/bin/chfn",
    "write-unknown": "f=$(cat {D}/other); cp {P} \"$f\"",
    # a copy with its mode, or a hard link, keeps a set-ID program of the system so
    "copy-other": "cp -p /usr/bin/chfn /usr/local/bin/s2c-{N}",
    "link-other": "ln /usr/bin/chsh /usr/local/bin/s2c-{N}",
    # helpers that write a file their operands name: ucf over a file that is there, sort -o
    "ucf-other": "UCF_FORCE_CONFFNEW=1 ucf {P} /usr/bin/gpasswd",
    "sort-other": "sort -o /usr/bin/newgrp {D}/mode",
    # a set-ID program of the system made writable by others
    "chmod-other": "chmod o+w /usr/bin/su",
    "acl-other": "setfacl -m u:nobody:rw /usr/bin/passwd",
    # no script at all: a gdk-pixbuf loader, which gdk-pixbuf's trigger loads as root at
    # the installation (its constructor runs), makes the program set-ID
    "loader": ("postinst", ":"),
    "perl": None,
    # Perl debconf configs, which the postinst's confmodule runs: dictionaries-common-dev's
    # for a word list (its helper absent here: it asks nothing) changes nothing, and is
    # complete; the same with one statement more is a Perl program, not analysed
    "dict-config": ("config", DICT_CONFIG),
    "dict-config-chmod": ("config", DICT_CONFIG + "chmod 04755, '{P}';\n"),
    # cli-common's gac-package-install runs every runtime's hook, the package's own among
    # them (cli-common is installed first): it is not followed, and incomplete
    "gac-hook": "/usr/share/cli-common/gac-package-install s2c-hostile-gac-hook",
    # the preinst runs before dpkg unpacks: a chmod there has no effect on a fresh
    # installation, nor has a dpkg-statoverride (dpkg read its database before the
    # preinst ran: the override applies from the next upgrade)
    "preinst-chmod": ("preinst", "chmod 4755 {P} 2>/dev/null || :"),
    "preinst-statoverride": ("preinst", "dpkg-statoverride --add root root 4755 {P}"),
    # nor is any of its files there to test, read or run: a test that takes it as there
    # hides what runs when it is not
    "preinst-absent": ("preinst", "if [ -e {P} ]; then :; else chmod 4755 /usr/bin/yes; fi"),
    # dbconfig-common writes the include file the package names: a new one with the mode
    # and owner it names (chmod and chown get them unquoted), one that is there in place
    # with its own mode; the package's SQL runs in psql, whose \! runs a shell command
    "dbconfig-plain": ("dbconfig", "dbc_generate_include=php:/etc/s2c-{N}.php\n"
                       "dbc_generate_include_owner=root:daemon\n"
                       "dbc_generate_include_perms=640"),
    "dbconfig-member": ("dbconfig", "dbc_generate_include=sh:{P}\n"
                        "dbc_generate_include_perms=4755"),
    "dbconfig-perms": ("dbconfig", "dbc_generate_include=sh:/usr/local/bin/s2c-{N}\n"
                       "dbc_generate_include_perms=4755"),
    "dbconfig-word": ("dbconfig", "dbc_generate_include=sh:/etc/s2c-{N}.inc\n"
                      "dbc_generate_include_perms='4755 {P}'"),
    "dbconfig-sql": ("dbconfig", ""),
}
# Complete, so exact: what dpkg installs is checked file by file.
COMPLETE = ("dbconfig-plain", "dbconfig-member")
PROVEN = ("link-climb", "link-climb-var", "link-dir-link", "link-named", "link-named-member",
          "link-named-unknown", "shift-loop", "for-empty", "while-read-eaten", "while-read-asks",
          "conffile-other", "loader", "dict-config-chmod", "gac-hook")
# Incomplete, and yet what they predict of this file of theirs is what dpkg installs.
PREDICTED = {"chmod-r-glob": "bin/update-usbids"}
LOADERS = "./usr/lib/x86_64-linux-gnu/gdk-pixbuf-2.0/2.10.0/loaders/"
# Those that write over a set-ID program of the system (dpkg leaves it set-ID with the
# content of the member named, relative to the package's directory), or copy or link one
# (None): the audit must call them incomplete.
PROVEN_OTHER = {"write-other": ("/usr/bin/chfn", "prog"), "write-unknown": ("/usr/bin/chsh", "prog"),
                "ucf-other": ("/usr/bin/gpasswd", "prog"), "sort-other": ("/usr/bin/newgrp", "mode"),
                "chmod-other": ("/usr/bin/su", None), "acl-other": ("/usr/bin/passwd", None),
                "copy-other": ("/usr/local/bin/s2c-copy-other", None),
                "dbconfig-perms": ("/usr/local/bin/s2c-dbconfig-perms", None),
                "link-other": ("/usr/local/bin/s2c-link-other", None)}


def acl_grants(path):
    """Whether @path has an access ACL with a named user's entry (setfacl -m u:NAME:…)."""
    try:
        return b"user:nobody:" in subprocess.run(["getfacl", "-c", path], capture_output=True,
                                                  check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return False


def constructor_so(root, prog):
    """A shared library whose constructor makes @prog set-user-ID as it is loaded."""
    src = os.path.join(root, "loader.c")
    out = os.path.join(root, "loader.so")
    with open(src, "w") as f:
        f.write("#include <sys/stat.h>\n__attribute__((constructor)) static void s2c(void)\n"
                f"{{ chmod(\"{prog}\", 04755); }}\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", out, src], check=True)
    return open(out, "rb").read()


def hostile_debs(root):
    """{package: .deb path}: one package per construct, each with files of its own."""
    elf = open("/usr/bin/true", "rb").read()
    out = {}
    for name, body in HOSTILE.items():
        pkg = f"s2c-hostile-{name}"
        d = f"/usr/lib/{pkg}"
        p = f"{d}/prog"
        which = "postinst"
        if isinstance(body, tuple):
            which, body = body
        if body is None:
            script = f"#!/usr/bin/perl\nchmod 04755, '{p}';\n"
        elif body.startswith("#!"):
            script = body.format(P=p, D=d, N=name)
        else:
            script = "#!/bin/sh\nset -e\n" + body.format(P=p, D=d, N=name) + "\n"
        data = [mk.entry("./usr/", "dir", 0o755), mk.entry("./usr/lib/", "dir", 0o755),
                mk.entry(f".{d}/", "dir", 0o755),
                mk.entry(f".{d}/prog", mode=0o755, data=elf),
                mk.entry(f".{d}/link", "symlink", 0o777, link="prog"),
                mk.entry(f"./usr/lib/hostile-dirlink-{name}", "symlink", 0o777, link=pkg),
                mk.entry(f".{d}/mode", data=b"4755\n"),
                mk.entry(f".{d}/name", data=b"../usr/local/sbin/\n"),
                mk.entry(f".{d}/word", data=b"update-usbids\n"),
                mk.entry(f".{d}/other", data=b"/usr/bin/chsh\n"),
                mk.entry(f".{d}/list", data=f"4755 {p}\n0755 {p}\n".encode()),
                mk.entry(f".{d}/bslist", data=f"0700 {p}\n47\\55 {d}/pr\\og\n".encode()),
                mk.entry(f".{d}/helper.sh", mode=0o755,
                         data=f"#!/bin/sh\nchmod 4755 {p}\n".encode()),
                mk.entry(f".{d}/bin/", "dir", 0o755),
                mk.entry(f".{d}/bin/update-usbids", mode=0o755,
                         data=f"#!/bin/sh\nchmod 4755 {p}\n".encode()),
                mk.entry(f".{d}/tmpdir", data=f"/tmp/s2c-{name}\n".encode()),
                mk.entry(f".{d}/dir", data=f"{d}\n".encode()),
                mk.entry(f".{d}/dirname", data=b"sbin\n"),
                mk.entry(f".{d}/empty", data=b""),
                mk.entry("./etc/", "dir", 0o755),
                mk.entry(f"./etc/s2c-{name}.conf", data=b"# packed\nsuid=yes\n")]
        if name == "link-named-member":
            data.append(mk.entry(f".{d}/sbin", "symlink", 0o777, link="/usr/local/sbin"))
        if name == "loader":
            data += [mk.entry(d, "dir", 0o755) for d in (
                "./usr/lib/x86_64-linux-gnu/", "./usr/lib/x86_64-linux-gnu/gdk-pixbuf-2.0/",
                "./usr/lib/x86_64-linux-gnu/gdk-pixbuf-2.0/2.10.0/", LOADERS)]
            data.append(mk.entry(LOADERS + "libpixbufloader-s2c.so", mode=0o644,
                                 data=constructor_so(root, p)))
        if name == "gac-hook":
            data += [mk.entry(f"./usr/share/{x}", "dir", 0o755) for x in (
                "", "cli-common/", "cli-common/packages.d/", "cli-common/runtimes.d/")]
            data += [mk.entry(f"./usr/share/cli-common/packages.d/{pkg}.installcligac", data=b""),
                     mk.entry("./usr/share/cli-common/runtimes.d/s2c", mode=0o755,
                              data=f"#!/bin/sh\n[ \"$1\" = name ] && exit 0\n"
                                   f"chmod 4755 {p}\n".encode())]
        if name == "dbconfig-sql":
            data += [mk.entry(f"./usr/share/{x}", "dir", 0o755) for x in (
                "", "dbconfig-common/", "dbconfig-common/data/", f"dbconfig-common/data/{pkg}/",
                f"dbconfig-common/data/{pkg}/install/")]
            data.append(mk.entry(f"./usr/share/dbconfig-common/data/{pkg}/install/pgsql",
                                 data=f"\\! chmod 4755 {p}\n".encode()))
        control = {which: script, "conffiles": f"/etc/s2c-{name}.conf\n"}
        if which == "dbconfig":
            control = {"config": DBC_CONFIG.format(pkg=pkg),
                       "postinst": DBC_POSTINST + body.format(P=p, D=d, N=name) +
                       f"\ndbc_go {pkg} \"$@\"\n",
                       "conffiles": f"/etc/s2c-{name}.conf\n"}
        if which == "config":
            control["postinst"] = "#!/bin/sh\nset -e\n. /usr/share/debconf/confmodule\n"
        out[pkg] = mk.write(os.path.join(root, f"{pkg}_1.0_all.deb"),
                            mk.deb_bytes(pkg, arch="all", scripts=control, data=data))
    return out


def real_debs():
    """[(label, package, .deb path)] of both releases; packages a release lacks are left out."""
    out = []
    for release in ("bookworm", "trixie"):
        for pkg in REAL:
            try:
                out.append((f"{release}/{pkg}", pkg, debfetch.download(pkg, release)))
            except debfetch.Unavailable as e:
                print(f"note: {e}", file=sys.stderr)
    return out


def predict(ctx, deb):
    """What audit-pkg says of @deb: (complete, {path: (mode, owner, group, caps)}, plan)."""
    rc, out, err = ctx.run(["audit-pkg", *KERNEL, "--format", "json", deb])
    doc = json.loads(out)
    t = doc["targets"][0]
    files = {}
    for f in doc["files"]:
        fa = f["file"]
        files[fa["path"]] = (int(fa["mode"], 8), fa["owner"], fa["group"],
                             fa["caps"]["text"] if fa["caps"] else None)
    return {"complete": t["complete"] and t["error"] is None, "files": files,
            "incomplete": t["incomplete"], "error": t["error"],
            "plan": t["plan"]["text"] if t["plan"] and t["plan"]["format"] == "deb" else None}


def test_dpkg_differential(ctx):
    """Every package installed with real dpkg: complete means exact."""
    if s2ctest.throwaway_unavailable():
        print(f"  ({s2ctest.throwaway_unavailable()})")
        return SKIP
    work = ctx.tree("dpkgdiff")
    cases = [(f"hostile/{p}", p, d) for p, d in sorted(hostile_debs(work).items())]
    real = real_debs()
    if not real:
        print("  (no real package could be downloaded: only the hostile ones)")
    cases += real
    plan = []
    for label, pkg, deb in cases:
        plan.append({"label": label, "package": pkg, "deb": deb, **predict(ctx, deb)})
    try:
        prereq = [debfetch.download(p, release) for release, p in PREREQ]
    except debfetch.Unavailable as e:
        ctx.check("the packages the hostile cases need", False, f"{e}")
        return None
    with open(os.path.join(work, "cases.json"), "w") as f:
        json.dump({"prereq": prereq, "cases": plan}, f)
    os.environ[WORK_ENV] = work
    r = s2ctest.in_throwaway_system(ctx, dpkg_differential_inside, timeout=1500)
    ctx.check("hostile constructs all covered", len([c for c in plan
                                                       if c["label"].startswith("hostile/")])
              == len(HOSTILE), "")
    return r


# --- inside the throwaway system --------------------------------------------------------

STAMP = "/tmp/s2c-dpkg-diff.stamp"
ROOTS = ["/usr", "/etc", "/opt", "/var", "/srv"]


def stamp():
    """Mark the time before an installation: what changes after it is found by ctime."""
    with open(STAMP, "w"):
        pass
    os.utime(STAMP, (0, 0))
    os.utime(STAMP)


def privileged_since():
    """{path: (mode, uid, gid, caps)} of the set-ID or capability files whose inode changed
    since stamp() (chmod, chown, setcap and new files all change it)."""
    roots = [r for r in ROOTS if os.path.isdir(r) and not os.path.islink(r)]
    p = subprocess.run(["find", *roots, "-xdev", "-type", "f", "-cnewer", STAMP, "-print0"],
                       capture_output=True)
    out = {}
    for raw in p.stdout.split(b"\0"):
        path = raw.decode(errors="surrogateescape")
        if not path:
            continue
        try:
            st = os.lstat(path)
        except OSError:
            continue
        caps = None
        if st.st_mode & 0o111:
            c = subprocess.run(["getcap", path], capture_output=True).stdout.decode().split()
            caps = c[1] if len(c) == 2 else None
        if st.st_mode & 0o6000 or caps:
            out[path] = (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, caps)
    return out


def name_of(uid=None, gid=None):
    try:
        return pwd.getpwuid(uid).pw_name if uid is not None else grp.getgrgid(gid).gr_name
    except KeyError:
        return str(uid if uid is not None else gid)


def package_files(pkg):
    """{path: (mode, owner, group, caps)} of the regular files dpkg installed for @pkg."""
    p = subprocess.run(["dpkg-query", "-L", pkg], capture_output=True)
    out = {}
    for path in p.stdout.decode(errors="surrogateescape").splitlines():
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        c = subprocess.run(["getcap", path], capture_output=True).stdout.decode().split()
        out[path] = (stat.S_IMODE(st.st_mode), name_of(uid=st.st_uid), name_of(gid=st.st_gid),
                     c[1] if len(c) == 2 else None)
    return out


def privileged(state):
    return bool(state[0] & 0o6000) or state[3] is not None


def install(pkg, deb):
    """Install @deb freshly (its package purged first); dpkg's exit status."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive", DEBCONF_NONINTERACTIVE_SEEN="true")
    subprocess.run(["dpkg", "--purge", "--force-all", pkg], capture_output=True, env=env)
    p = subprocess.run(["dpkg", "-i", "--no-triggers", "--force-depends", "--force-confold",
                        "--force-overwrite",
                        deb], capture_output=True, env=env, timeout=300)
    return p.returncode, p.stderr.decode(errors="replace")[-400:]


def compare(ctx, case, changed, files):
    """Complete: every privileged file of the package exactly as predicted, nothing else
    made privileged.  Incomplete: nothing to check, it said so."""
    label = case["label"]
    want = {p: tuple(v) for p, v in case["files"].items()}
    real = {p: v for p, v in files.items() if privileged(v)}
    if not case["complete"]:
        ctx.check(f"{label}: incomplete with a reason", case["incomplete"] or case["error"], "")
        return "incomplete"
    for path in sorted(set(want) | set(real)):
        ctx.check(f"{label}: {path}", want.get(path) == real.get(path),
                  f"predicted {want.get(path)}, installed {real.get(path)}")
    # /bin is /usr/bin on a merged system: a package's /bin/ping is found as /usr/bin/ping
    mine = {os.path.realpath(p) for p in files}
    outside = sorted(p for p in changed if os.path.realpath(p) not in mine)
    ctx.check(f"{label}: no other file made privileged", not outside, f"{outside}")
    return "exact"


def run_plan(ctx, case):
    """The plan audit-pkg wrote for the package runs cleanly after its default installation."""
    if not case["plan"]:
        return
    path = "/tmp/s2c-plan-postinst"
    with open(path, "w") as f:
        f.write(case["plan"])
    p = subprocess.run(["sh", "-e", path, "configure", ""], capture_output=True)
    ctx.check(f"{case['label']}: its plan runs after a default install", p.returncode == 0,
              p.stderr.decode(errors="replace")[-400:])


def dpkg_differential_inside(ctx):
    work = os.environ.get(WORK_ENV)
    with open(os.path.join(work, "cases.json")) as f:
        doc = json.load(f)
    cases = doc["cases"]
    tally = {"exact": 0, "incomplete": 0, "failed": 0}
    for deb in doc["prereq"]:
        rc, err = install(os.path.basename(deb).split("_")[0], deb)
        ctx.check(f"{os.path.basename(deb)} installed first", rc == 0, err)
    for case in cases:
        stamp()
        rc, err = install(case["package"], case["deb"])
        if case["label"] == "hostile/loader":
            # what another package's trigger runs at the end of this installation
            subprocess.run(["dpkg", "--triggers-only", "--pending"], capture_output=True,
                           timeout=600)
        if rc != 0 and case["label"].startswith("hostile/"):
            print(f"  note: {case['label']}: dpkg exit {rc}: {err.strip()[-160:]!r}")
        if rc != 0 and not case["label"].startswith("hostile/"):
            # a Debian 13 package whose script needs what Debian 12 lacks: still compared,
            # as what is on disk is what matters, but said
            print(f"  note: {case['label']}: dpkg exit {rc}: {err.strip()[-200:]!r}")
            tally["failed"] += 1
        changed = privileged_since()
        files = package_files(case["package"])
        if case["label"].startswith("hostile/") and case["label"][8:] in PROVEN:
            prog = f"/usr/lib/{case['package']}/prog"
            ctx.check(f"{case['label']}: dpkg made the program set-ID, the audit said "
                      "incomplete", prog in files and privileged(files[prog]) and
                      not case["complete"], f"{files.get(prog)} {case['incomplete']}")
        if case["label"].startswith("hostile/") and case["label"][8:] in PREDICTED:
            path = f"/usr/lib/{case['package']}/{PREDICTED[case['label'][8:]]}"
            want = case["files"].get(path)
            ctx.check(f"{case['label']}: {path} set-ID by dpkg as predicted, incomplete",
                      path in files and privileged(files[path]) and want is not None and
                      tuple(want) == files[path] and not case["complete"],
                      f"predicted {want}, installed {files.get(path)}")
        other, content = PROVEN_OTHER.get(case["label"][8:], (None, None)) \
            if case["label"].startswith("hostile/") else (None, None)
        if other:
            st = os.stat(other)
            same = not content or open(other, "rb").read() == \
                open(f"/usr/lib/{case['package']}/{content}", "rb").read()
            ctx.check(f"{case['label']}: dpkg left {other} set-ID (with the member's "
                      "content where written), the audit said incomplete",
                      same and st.st_mode & 0o4000 and not case["complete"] and
                      (case["label"] != "hostile/chmod-other" or st.st_mode & 0o002) and
                      (case["label"] != "hostile/acl-other" or acl_grants(other)),
                      f"{oct(st.st_mode)} {same} {case['incomplete']}")
        if case["label"].startswith("hostile/") and case["label"][8:] in COMPLETE:
            ctx.check(f"{case['label']}: complete", case["complete"], f"{case['incomplete']}")
        tally[compare(ctx, case, changed, files)] += 1
        if rc == 0:
            run_plan(ctx, case)
    print(f"  {tally['exact']} exact, {tally['incomplete']} incomplete, "
          f"{tally['failed']} installations that failed")
    ctx.check("some packages were compared exactly", tally["exact"] > 0, f"{tally}")


TESTS = [test_dpkg_differential]

if __name__ == "__main__":
    sys.exit(s2ctest.main(TESTS, sys.argv[1:]))
