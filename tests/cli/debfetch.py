# SPDX-License-Identifier: GPL-2.0-or-later
"""Real Debian packages for the tests, from Debian's archive.

Each release has a private apt state under build/test-deps/debian/RELEASE
(its own sources list, package lists, an empty dpkg status): the machine's own
apt configuration and database are never read for packages nor changed.  The
lists are refreshed once a day; the .deb files are kept, so a second run
downloads nothing.

    path = debfetch.download("iputils-ping", "trixie")      # the .deb
    names = debfetch.closure(["iputils-ping"], "trixie")     # it and what it depends on
    debfetch.unpack_closure(["iputils-ping"], "trixie", root)
    debfetch.privileged_files(path)     # set-ID files in its data archive
    debfetch.control_file(path, "postinst")
    debfetch.script_privileges(debfetch.maintainer_script(path, "postinst"))

Anything that cannot be fetched (no network, a package the release does not
have) raises Unavailable with a message for a skip note.  Several test
processes may fetch at once: each release's directory is locked while apt runs.

PRIVILEGED lists, per release, the packages known to ship a set-ID file in
their data archive or to make one set-ID or give it capabilities from a
maintainer script.
"""
import contextlib
import fcntl
import functools
import io
import os
import re
import shlex
import subprocess
import tarfile
import time

import s2ctest

CACHE = os.path.join(s2ctest.SRC, "build", "test-deps", "debian")
MIRROR = "http://deb.debian.org/debian"
SECURITY = "http://deb.debian.org/debian-security"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
RELEASES = {"bookworm": "12", "trixie": "13"}
LIST_MAX_AGE = 24 * 3600

# Packages that ship a set-ID file or make one privileged from a maintainer
# script (setcap, chmod u+s, dpkg-statoverride, also behind a debconf question),
# per release, read from the packages themselves.  tests/cli/test_coverage.py
# checks that every such file has a rule.
_COMMON = [
    "amanda-client", "apache2-suexec-custom", "apache2-suexec-pristine", "at", "bsdgames",
    "chromium-sandbox", "cifs-utils", "clevis-udisks2", "cron", "davfs2", "dbus", "dma",
    "enlightenment", "exim4-daemon-light", "firejail", "fping", "fuse3", "gnokii-cli", "hercules",
    "incron", "inetutils-ping", "inetutils-traceroute", "inn2", "iproute2", "iputils-arping",
    "iputils-clockdiff", "iputils-ping", "kinit", "krb5-user", "kwin-wayland",
    "libgstreamer1.0-0", "liblockfile-bin", "libpam-modules-bin", "libutempter0",
    "libx2go-server-db-perl", "lockfile-progs", "login", "lpr", "mailutils", "mariadb-server", "mc",
    "mgetty-fax", "mon", "mount", "mtr", "mtr-tiny", "mutt", "ndisc6", "nethack-console",
    "netselect", "nfs-common", "ntfs-3g", "nullmailer", "open-vm-tools-desktop", "opendoas",
    "openssh-client", "opensmtpd", "oping", "passwd", "physlock", "pkexec", "plocate", "pmount",
    "polkitd", "postfix", "powerdevil", "ppp", "procmail", "pwauth", "rxvt-unicode", "s-nail",
    "schroot", "sendmail-bin", "snapd", "spice-client-glib-usb-acl-helper", "squid", "ssmtp",
    "sssd-ipa", "sssd-krb5-common", "suckless-tools", "sudo", "sympa", "tcptraceroute", "uidmap",
    "uml-utilities", "util-linux", "uucp", "vlock", "wireshark-common", "xscreensaver",
    "xserver-xorg-legacy", "xtrlock",
]
PRIVILEGED = {
    "bookworm": sorted(_COMMON + ["cockpit-ws", "ecryptfs-utils", "fuse", "rsh-client",
                                  "rsh-redone-client"]),
    "trixie": sorted([p for p in _COMMON if p != "iputils-ping"] + ["sssd-common", "sudo-rs"]),
}


class Unavailable(Exception):
    """The archive or a package cannot be fetched; the message says why."""


def _dir(release):
    if release not in RELEASES:
        raise ValueError(f"unknown release {release!r}")
    return os.path.join(CACHE, release)


@contextlib.contextmanager
def _locked(release):
    d = _dir(release)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, ".lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield d
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _sources(release):
    opt = f"[signed-by={KEYRING}]"
    lines = [f"deb {opt} {MIRROR} {release} main", f"deb {opt} {MIRROR} {release}-updates main",
             f"deb {opt} {SECURITY} {release}-security main"]
    return "".join(line + "\n" for line in lines)


def _apt_options(d):
    state = os.path.join(d, "state")
    return ["-o", f"Dir::State={state}", "-o", f"Dir::State::status={state}/status",
            "-o", f"Dir::Cache={d}/cache", "-o", f"Dir::Etc::sourcelist={d}/sources.list",
            "-o", f"Dir::Etc::sourceparts={d}/none", "-o", f"Dir::Etc::preferencesparts={d}/none",
            "-o", "Acquire::Languages=none", "-o", "APT::Install-Recommends=0",
            "-o", "Debug::NoLocking=1", "-o", "APT::Get::List-Cleanup=0", "-q"]


def _apt(d, args, cwd=None):
    try:
        return subprocess.run(["apt-get", *_apt_options(d), *args], capture_output=True,
                              cwd=cwd, timeout=600)
    except subprocess.TimeoutExpired:
        raise Unavailable(f"apt-get {args[0]} took more than 10 minutes") from None


def _lists_fresh(d):
    lists = os.path.join(d, "state", "lists")
    stamp = os.path.join(d, "updated")
    return os.path.isdir(lists) and os.path.exists(stamp) and \
        time.time() - os.stat(stamp).st_mtime < LIST_MAX_AGE


def _update(d, release):
    """Fetch the package lists once a day; stale lists are used when the archive is down."""
    if _lists_fresh(d):
        return
    for sub in ("state/lists/partial", "cache/archives/partial", "debs", "none"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    open(os.path.join(d, "state", "status"), "a").close()
    with open(os.path.join(d, "sources.list"), "w") as f:
        f.write(_sources(release))
    p = _apt(d, ["update"])
    if p.returncode == 0 and b"Err:" not in p.stdout:
        open(os.path.join(d, "updated"), "w").close()
        return
    if not os.path.exists(os.path.join(d, "updated")):
        raise Unavailable(f"cannot fetch the package lists of Debian {release}: "
                          f"{p.stderr.decode(errors='replace').strip()[-300:]}")


def _have(d, package):
    """The newest .deb of @package downloaded so far, or None."""
    debs = os.path.join(d, "debs")
    found = [os.path.join(debs, n) for n in os.listdir(debs)
             if n.endswith(".deb") and n.split("_")[0] == package]
    return max(found, key=os.path.getmtime) if found else None


def _download_locked(d, release, packages):
    missing = [p for p in packages if not _have(d, p)]
    if missing:
        _update(d, release)
        p = _apt(d, ["download", *missing], cwd=os.path.join(d, "debs"))
        if p.returncode != 0:
            # one at a time, to name the one that failed
            for pkg in missing:
                q = _apt(d, ["download", pkg], cwd=os.path.join(d, "debs"))
                if q.returncode != 0:
                    raise Unavailable(f"cannot download {pkg} from Debian {release}: "
                                      f"{q.stderr.decode(errors='replace').strip()[-300:]}")
    return {p: _have(d, p) for p in packages}


def download(package, release):
    """The .deb of @package in @release (bookworm, trixie), downloaded once."""
    return download_many([package], release)[package]


def download_many(packages, release):
    """{package: .deb path} for every one of @packages; Unavailable names the first that
    cannot be fetched."""
    with _locked(release) as d:
        return _download_locked(d, release, list(packages))


def closure(packages, release):
    """@packages and everything they depend on (Depends and Pre-Depends, recursively, without
    Recommends), as apt resolves it on an empty system."""
    with _locked(release) as d:
        _update(d, release)
        p = _apt(d, ["install", "--print-uris", "-qq", *packages])
        if p.returncode != 0:
            raise Unavailable(f"cannot resolve {' '.join(packages)} in Debian {release}: "
                              f"{p.stderr.decode(errors='replace').strip()[-300:]}")
        names = [line.split()[1].split("_")[0]
                 for line in p.stdout.decode().splitlines() if line.startswith("'")]
        return sorted(set(names) | set(packages))


def unpack_closure(packages, release, root):
    """Unpack @packages and their dependencies into @root with dpkg-deb -x (no maintainer
    script runs, no package database is written).  Returns {package: .deb path}."""
    debs = download_many(closure(packages, release), release)
    for deb in debs.values():
        subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
    return debs


def field(deb, name):
    """A control field of @deb, such as Version."""
    return subprocess.run(["dpkg-deb", "-f", deb, name], capture_output=True,
                          check=True).stdout.decode().strip()


@functools.lru_cache(maxsize=None)
def _ctrl_tar(deb):
    return subprocess.run(["dpkg-deb", "--ctrl-tarfile", deb], capture_output=True,
                          check=True).stdout


@functools.lru_cache(maxsize=4)
def _data_tar(deb):
    return subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], capture_output=True,
                          check=True).stdout


def control_file(deb, name):
    """The text of a control member (postinst, preinst ...), or None."""
    with tarfile.open(fileobj=io.BytesIO(_ctrl_tar(deb))) as t:
        for m in t.getmembers():
            if m.name.lstrip("./") == name:
                return t.extractfile(m).read().decode(errors="replace")
    return None


def data_members(deb):
    """Every member of the data archive: (absolute path, tarfile.TarInfo)."""
    with tarfile.open(fileobj=io.BytesIO(_data_tar(deb))) as t:
        return [("/" + m.name.lstrip("./"), m) for m in t.getmembers()]


def data_file(deb, path):
    """The bytes of the regular file @path of the data archive, or None."""
    with tarfile.open(fileobj=io.BytesIO(_data_tar(deb))) as t:
        for m in t.getmembers():
            if "/" + m.name.lstrip("./") == path and m.isfile():
                return t.extractfile(m).read()
    return None


def maintainer_script(deb, name):
    """The text of a maintainer script with the package's own shell files it sources
    (". /usr/share/PKG/functions") put in place, or None."""
    text = control_file(deb, name)
    if text is None:
        return None
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s*(?:\.|source)\s+(/\S+)\s*$", line)
        sourced = data_file(deb, m.group(1)) if m else None
        out.append(sourced.decode(errors="replace") if sourced else line)
    return "\n".join(out)


def privileged_files(deb):
    """Regular files of the data archive that are set-user-ID or set-group-ID:
    [(path, mode, owner, group)]."""
    return [(path, m.mode & 0o7777, m.uname, m.gname) for path, m in data_members(deb)
            if m.isfile() and m.mode & 0o6000]


_SETID_MODE = re.compile(r"0?[0-7]?[2467][0-7]{3}$")
_SYMBOLIC_SETID = re.compile(r"[ugoa]*[+=][rwxXt]*s")


_SEPARATORS = {";", "&&", "||", "|", "if", "then", "else", "elif", "fi", "do", "done", "!"}
_ASSIGNMENT = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_TRUENAME = re.compile(r"^\$\(dpkg-divert --truename (\S+)\)$")


def _segments(line):
    """The simple commands of one shell line: lists of words, quotes removed, split at
    separators and keywords, without comments."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        words = line.split("#", 1)[0].split()
    seg = []
    for w in words:
        w = w.rstrip(";")
        if w in _SEPARATORS or not w:
            if seg:
                yield seg
            seg = []
        else:
            seg.append(w)
    if seg:
        yield seg


def _variables(text):
    """NAME -> absolute path for the script's plain assignments (NAME=/path, and
    NAME=$(dpkg-divert --truename /path))."""
    found = {}
    for line in text.splitlines():
        m = _ASSIGNMENT.match(line)
        if not m:
            continue
        value = m.group(2).strip().strip("'\"")
        t = _TRUENAME.match(value)
        value = t.group(1) if t else value
        if value.startswith("/") and " " not in value:
            found[m.group(1)] = value
    return found


def _expand(word, variables):
    for name, value in variables.items():
        word = word.replace("${%s}" % name, value).replace("$" + name, value)
    return word


def _setcap(args):
    args = [a for a in args if a not in ("-q", "-v", "-f")]
    if len(args) >= 2 and args[0] != "-r":
        return [("setcap", args[1], args[0])]
    return []


def _statoverride(args):
    if "--add" not in args:
        return []
    rest = [a for a in args[args.index("--add") + 1:] if not a.startswith("--")]
    return [("statoverride", rest[3], " ".join(rest[:3]))] if len(rest) >= 4 else []


def _chmod(args):
    args = [a for a in args if not a.startswith("-")]
    if args and (_SETID_MODE.match(args[0]) or _SYMBOLIC_SETID.match(args[0])):
        return [("chmod", path, args[0]) for path in args[1:]]
    return []


def _owner_group_mode_path(words):
    """OWNER GROUP MODE PATH in a line: the tables scripts hand to dpkg-statoverride
    (set -- root postdrop 02555 /usr/sbin/postdrop ...)."""
    out = []
    for i in range(len(words) - 3):
        owner, group, mode, path = words[i:i + 4]
        if _SETID_MODE.match(mode) and path.startswith("/") and \
                all(w[:1] not in "-/$" and "=" not in w for w in (owner, group)):
            out.append(("statoverride", path, f"{owner} {group} {mode}"))
    return out


_COMMANDS = {"setcap": _setcap, "dpkg-statoverride": _statoverride, "chmod": _chmod}


def script_privileges(text):
    """What a maintainer script makes privileged, by the forms Debian's scripts use:
    setcap, chmod to a set-ID mode, dpkg-statoverride --add (and the OWNER GROUP MODE
    PATH tables handed to it), whatever condition guards them, with the script's plain
    variables expanded.  [(kind, path or unexpanded variable, argument)], kind one of
    setcap, statoverride, chmod."""
    text = (text or "").replace("\\\n", " ")
    variables = _variables(text)
    out = []
    for line in text.splitlines():
        for words in _segments(line):
            words = [_expand(w, variables) for w in words]
            out += _owner_group_mode_path(words)
            fn = _COMMANDS.get(os.path.basename(words[0]))
            if fn:
                out += fn(words[1:])
    return out
