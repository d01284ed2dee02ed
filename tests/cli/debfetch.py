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

Anything that cannot be fetched (no network, a package the release does not
have) raises Unavailable with a message for a skip note.  Several test
processes may fetch at once: each release's directory is locked while apt runs.

PRIVILEGED lists, per release, the packages known to ship a set-ID file in
their data archive or to make one set-ID or give it capabilities from a
maintainer script.
"""
import contextlib
import fcntl
import io
import os
import re
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
# script (setcap, chmod u+s, dpkg-statoverride), per release.  Checked by
# tests/cli/test_rules_observed.py: every such file has a rule.
_COMMON = [
    "apache2-suexec-custom", "apache2-suexec-pristine", "at", "bsdgames", "chromium-sandbox",
    "cifs-utils", "cron", "davfs2", "dbus", "dma", "enlightenment", "exim4-daemon-light",
    "firejail", "fping", "fuse3", "inetutils-ping", "inetutils-traceroute", "inn2",
    "iproute2", "iputils-arping", "iputils-clockdiff", "iputils-ping", "kinit",
    "krb5-user", "libgstreamer1.0-0", "liblockfile-bin", "libpam-modules-bin", "libutempter0",
    "lockfile-progs", "login", "lpr", "mount", "mtr", "mtr-tiny", "ndisc6", "netselect",
    "nfs-common", "ntfs-3g", "nullmailer", "openssh-client", "opensmtpd", "oping", "passwd",
    "pkexec", "plocate", "pmount", "polkitd", "postfix", "ppp", "procmail", "rxvt-unicode",
    "s-nail", "schroot", "sendmail-bin", "spice-client-glib-usb-acl-helper", "sudo",
    "tcptraceroute", "uidmap", "uml-utilities", "util-linux", "uucp", "vlock",
    "xscreensaver", "xserver-xorg-legacy", "nethack-console",
]
PRIVILEGED = {
    "bookworm": sorted(_COMMON + ["fuse", "kwin-wayland", "rsh-client", "rsh-redone-client",
                                  "ecryptfs-utils"]),
    "trixie": sorted(_COMMON + ["sudo-rs", "kwin-wayland"]),
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
    return subprocess.run(["apt-get", *_apt_options(d), *args], capture_output=True, cwd=cwd,
                          timeout=600)


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
    debs = os.path.join(d, "debs")
    for name in os.listdir(debs):
        if name.endswith(".deb") and name.split("_")[0] == package:
            return os.path.join(debs, name)
    return None


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


def control_file(deb, name):
    """The text of a control member (postinst, preinst ...), or None."""
    data = subprocess.run(["dpkg-deb", "--ctrl-tarfile", deb], capture_output=True,
                          check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        for m in t.getmembers():
            if m.name.lstrip("./") == name:
                return t.extractfile(m).read().decode(errors="replace")
    return None


def data_members(deb):
    """Every member of the data archive: (absolute path, tarfile.TarInfo)."""
    data = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], capture_output=True,
                          check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        return [("/" + m.name.lstrip("./"), m) for m in t.getmembers()]


def privileged_files(deb):
    """Regular files of the data archive that are set-user-ID or set-group-ID:
    [(path, mode, owner, group)]."""
    return [(path, m.mode & 0o7777, m.uname, m.gname) for path, m in data_members(deb)
            if m.isfile() and m.mode & 0o6000]


_SETCAP = re.compile(r"setcap\s+(?:-\S+\s+)*(['\"]?)([^'\"\s]+)\1\s+(\S+)")
_STATOVERRIDE = re.compile(r"dpkg-statoverride\s+(?:--\S+\s+)*--add\s+(\S+)\s+(\S+)\s+(0?[0-7]{4})\s+(\S+)")
_CHMOD = re.compile(r"chmod\s+(u\+s|g\+s|[0-7]*[2467][0-7]{3}|u=rwxs\S*)\s+(\S+)")


def script_privileges(text):
    """What a maintainer script makes privileged, by the plain forms Debian uses:
    [(kind, path or variable, argument)], kind one of setcap, statoverride, chmod."""
    out = []
    for line in (text or "").splitlines():
        line = line.split("#", 1)[0]
        for m in _SETCAP.finditer(line):
            out.append(("setcap", m.group(3).strip("'\""), m.group(2)))
        for m in _STATOVERRIDE.finditer(line):
            out.append(("statoverride", m.group(4).strip("'\""), " ".join(m.group(1, 2, 3))))
        for m in _CHMOD.finditer(line):
            out.append(("chmod", m.group(2).strip("'\""), m.group(1)))
    return out
