# SPDX-License-Identifier: GPL-2.0-or-later
"""A corpus of real Debian 12 and 13 maintainer scripts, fetched once.

The corpus of a release is every package debfetch.PRIVILEGED lists for it and a
fixed sample of its archive (every SAMPLE_STEP-th package by name among those
under SAMPLE_SIZE_MAX bytes), of which those with a maintainer script (config,
preinst or postinst) count.  Each is downloaded once through debfetch (its
private apt state) and kept as a compact .deb under build/test-deps/debcorpus:
the control archive as it is, and a data archive with every member's name,
type, mode, owner and link target but only the content of the scripts the
maintainer scripts may read or run (files starting with "#!", tmpfiles.d
entries, /etc/default), so that a replay reads a few megabytes.

    debs = debcorpus.fetch("trixie")        # {package: compact .deb}
"""
import io
import os
import subprocess
import tarfile

import debfetch
import mkarchive as mk
import s2ctest

CACHE = os.path.join(s2ctest.SRC, "build", "test-deps", "debcorpus")
SAMPLE_STEP = 90
SAMPLE_SIZE_MAX = 400_000
SCRIPTS = ("config", "preinst", "postinst")
CONTENT_MAX = 1 << 20


class Unavailable(debfetch.Unavailable):
    pass


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


def names(release):
    """The packages of the release's corpus: the privileged ones it has, and the sample."""
    sizes = _available(release)
    small = sorted(n for n, s in sizes.items() if s < SAMPLE_SIZE_MAX)
    return sorted({n for n in debfetch.PRIVILEGED[release] if n in sizes} |
                  set(small[::SAMPLE_STEP]))


def _keep_content(path, data):
    return len(data) < CONTENT_MAX and (data.startswith(b"#!") or "/tmpfiles.d/" in path or
                                        path.startswith("./etc/default/"))


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
        for m in src.getmembers():
            content = b""
            if m.isfile():
                f = src.extractfile(m)
                head = f.read(CONTENT_MAX)
                content = head if _keep_content(m.name, head) else b""
                m.size = len(content)
            dst.addfile(m, io.BytesIO(content) if m.isfile() else None)
    import lzma
    members = [("debian-binary", b"2.0\n"), ("control.tar", ctrl),
               ("data.tar.xz", lzma.compress(buf.getvalue(), preset=1))]
    mk.write(out, mk.ar_bytes(members))
    return out


def fetch(release):
    """{package: compact .deb} of the release's corpus; Unavailable when nothing can be had."""
    d = os.path.join(CACHE, release)
    os.makedirs(d, exist_ok=True)
    done = os.path.join(d, ".complete")
    if not os.path.exists(done):
        for name, deb in sorted(debfetch.download_many(names(release), release).items()):
            out = os.path.join(d, os.path.basename(deb))
            if not os.path.exists(out) and not os.path.exists(out + ".none"):
                if compact(deb, out) is None:
                    open(out + ".none", "w").close()
        open(done, "w").close()
    debs = {}
    for f in sorted(os.listdir(d)):
        if f.endswith(".deb"):
            debs[f.split("_")[0]] = os.path.join(d, f)
    if not debs:
        raise Unavailable(f"no package of Debian {release} could be fetched")
    return debs
