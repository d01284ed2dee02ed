# SPDX-License-Identifier: GPL-2.0-or-later
"""A corpus of real Debian 12 and 13 maintainer scripts, fetched once.

The corpus of a release is pinned: every package its golden file
(tests/expected/debcorpus/RELEASE.txt) names, and every package
debfetch.PRIVILEGED lists for it, of which those with a maintainer script
(config, preinst or postinst) count.  A fresh cache therefore holds the same
packages on any machine; one the archive no longer has is skipped by name.
The golden files were drawn as every SAMPLE_STEP-th package by name among
those under SAMPLE_SIZE_MAX bytes; draw() draws again (test_debcorpus.py
--update --redraw).

Each package is downloaded once through debfetch (its private apt state) and
kept as a compact .deb under build/test-deps/debcorpus: the control archive
as it is, and a data archive with every member's name, type, mode, owner and
link target but only the content the maintainer scripts may read or run
(files starting with "#!", tmpfiles.d entries, /etc/default, and every member
whose path the maintainer scripts name, such as a shell library they source),
so that a replay reads a few megabytes.  COMPACT_VERSION marks how a cache
was compacted: a cache of another version is compacted again from the
downloaded packages.

    corpus = debcorpus.fetch("trixie")      # Corpus: .debs {package: compact .deb},
                                            # .gone [packages the archive no longer has]
"""
import io
import lzma
import os
import re
import subprocess
import tarfile
import typing

import debfetch
import mkarchive as mk
import s2ctest

CACHE = os.path.join(s2ctest.SRC, "build", "test-deps", "debcorpus")
GOLDEN = os.path.join(s2ctest.EXPECTED, "debcorpus")
# How the compact .debs are made: a cache marked with another version is
# compacted again (2: the members the maintainer scripts name keep their content; 3: names
# with a '~', such as a list named after the package's version, count as named; 4: the
# files a model reads by a name made from the package's, below KEPT_DIRS).
COMPACT_VERSION = 4
SAMPLE_STEP = 90
SAMPLE_SIZE_MAX = 400_000
SCRIPTS = ("config", "preinst", "postinst")
CONTENT_MAX = 1 << 20
# Where a command model reads a file the script does not name: cli-common's
# gac-package-install reads packages.d/PACKAGE.installcligac.
KEPT_DIRS = ("./usr/share/cli-common/packages.d/",)


class Unavailable(debfetch.Unavailable):
    pass


class Corpus(typing.NamedTuple):
    debs: dict          # {package: compact .deb} of the packages with a maintainer script
    gone: list          # the packages of the corpus the archive no longer has


def _available(release):
    """{package: size} of the release's packages for amd64 (or all)."""
    with debfetch._locked(release) as d:
        debfetch._update(d, release)
        p = subprocess.run(["apt-cache", *debfetch._apt_options(d), "dumpavail"],
                           capture_output=True, timeout=600)
    sizes = {}
    for para in p.stdout.decode(errors="replace").split("\n\n"):
        fields = dict(l.split(": ", 1) for l in para.splitlines() if ": " in l and l[0] != " ")
        if "Package" in fields and fields.get("Architecture") in ("amd64", "all"):
            sizes[fields["Package"]] = int(fields.get("Size", "0"))
    return sizes


def draw(release):
    """A new sample of the release's archive: the privileged packages it has, and every
    SAMPLE_STEP-th package by name among those under SAMPLE_SIZE_MAX bytes."""
    sizes = _available(release)
    small = sorted(n for n, s in sizes.items() if s < SAMPLE_SIZE_MAX)
    return sorted({n for n in debfetch.PRIVILEGED[release] if n in sizes} |
                  set(small[::SAMPLE_STEP]))


def golden_names(release):
    """The packages the release's golden file names."""
    path = os.path.join(GOLDEN, f"{release}.txt")
    if not os.path.exists(path):
        return set()
    return {line.split()[0] for line in open(path).read().splitlines()
            if line and not line.startswith(" ")}


def names(release):
    """The packages of the release's pinned corpus."""
    return sorted(golden_names(release) | set(debfetch.PRIVILEGED[release]))


def _script_paths(ctrl_tar):
    """The absolute paths the maintainer scripts of @ctrl_tar name, as data members
    ("./usr/share/foo/lib.sh"): a cheap scan of their text."""
    paths = set()
    with tarfile.open(fileobj=io.BytesIO(ctrl_tar)) as t:
        for m in t.getmembers():
            if m.isfile() and m.name.lstrip("./") in SCRIPTS + ("postrm", "prerm"):
                text = t.extractfile(m).read().decode(errors="replace")
                paths |= {"." + p for p in PATH.findall(text)}
    return paths


PATH = re.compile(r"/(?:[A-Za-z0-9_.+@~-]+/)*[A-Za-z0-9_.+@~-]+")


def _keep_content(path, data, named):
    return len(data) < CONTENT_MAX and (data.startswith(b"#!") or "/tmpfiles.d/" in path or
                                        path.startswith("./etc/default/") or path in named or
                                        path.startswith(KEPT_DIRS))


def _named_members(members, named):
    """@named, and the targets of the symbolic links among @members it holds."""
    links = {m.name: m.linkname for m in members if m.issym()}
    out = set(named)
    for path in named:
        seen = 0
        while path in links and seen < 16:
            target = links[path]
            path = os.path.normpath(target if target.startswith("/") else
                                    os.path.join(os.path.dirname(path[1:]), target))
            path = "./" + path.lstrip("/")
            out.add(path)
            seen += 1
    return out


def compact(deb, out):
    """Write to @out the .deb @deb with only the content the scripts may read; returns
    @out, or None when @deb has no maintainer script."""
    ctrl = subprocess.run(["dpkg-deb", "--ctrl-tarfile", deb], capture_output=True,
                          check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(ctrl)) as t:
        if not any(m.name.lstrip("./") in SCRIPTS for m in t.getmembers()):
            return None
    data = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], capture_output=True,
                          check=True).stdout
    buf = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(data)) as src, \
            tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as dst:
        members = src.getmembers()
        named = _named_members(members, _script_paths(ctrl))
        for m in members:
            content = b""
            if m.isfile():
                head = src.extractfile(m).read(CONTENT_MAX)
                content = head if _keep_content(m.name, head, named) else b""
                m.size = len(content)
            dst.addfile(m, io.BytesIO(content) if m.isfile() else None)
    members = [("debian-binary", b"2.0\n"), ("control.tar", ctrl),
               ("data.tar.xz", lzma.compress(buf.getvalue(), preset=1))]
    mk.write(out, mk.ar_bytes(members))
    return out


def _cached(d):
    """{package: compact .deb, or None when it has no maintainer script} of the cache @d;
    a cache compacted otherwise than COMPACT_VERSION is emptied first."""
    os.makedirs(d, exist_ok=True)
    mark = os.path.join(d, ".version")
    version = open(mark).read().strip() if os.path.exists(mark) else "1"
    if version != str(COMPACT_VERSION):
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        with open(mark, "w") as f:
            f.write(f"{COMPACT_VERSION}\n")
    cached = {}
    for f in sorted(os.listdir(d)):
        if f.endswith(".deb"):
            cached[f.split("_")[0]] = os.path.join(d, f)
        elif f.endswith(".deb.none"):
            cached[f.split("_")[0]] = None
    return cached


def _download(release, packages):
    """{package: .deb} of @packages, and the list of those the archive does not have.  The
    archive's list is read only when a package is not downloaded yet."""
    d = debfetch._dir(release)
    local = os.path.isdir(os.path.join(d, "debs"))
    rest = [p for p in packages if not (local and debfetch._have(d, p))]
    gone = []
    if rest:
        sizes = _available(release)
        gone = [p for p in rest if p not in sizes]
    return debfetch.download_many([p for p in packages if p not in gone], release), gone


def fetch(release, redraw=False):
    """The release's corpus (the pinned one, or a new sample with @redraw), downloaded and
    compacted once; Unavailable when nothing can be had."""
    d = os.path.join(CACHE, release)
    cached = _cached(d)
    wanted = draw(release) if redraw else names(release)
    missing = [n for n in wanted if n not in cached]
    gone = []
    if missing:
        debs, gone = _download(release, missing)
        for deb in debs.values():
            out = os.path.join(d, os.path.basename(deb))
            if compact(deb, out) is None:
                open(out + ".none", "w").close()
        cached = _cached(d)
    debs = {n: cached[n] for n in wanted if cached.get(n)}
    if not debs:
        raise Unavailable(f"no package of Debian {release} could be fetched")
    return Corpus(debs, gone)
