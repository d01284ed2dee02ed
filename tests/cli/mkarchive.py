# SPDX-License-Identifier: GPL-2.0-or-later
"""Build package and image archives for the tests, byte by byte where needed.

Debian packages (ar + tars), hostile variants of them, and container images:
docker-save archives and OCI layouts (directory or tar), with layers made of
tar entries including whiteouts.  Nothing here runs a packaging tool.
"""
import gzip
import hashlib
import io
import json
import lzma
import os
import tarfile

FIXED_MTIME = 1700000000


def entry(name, kind="file", mode=0o644, data=b"", uid=0, gid=0, uname="root", gname="root",
          link=None, xattrs=None, size=None):
    """One tar entry; @size overrides the header's size (hostile archives)."""
    return dict(name=name, kind=kind, mode=mode, data=data, uid=uid, gid=gid, uname=uname,
                gname=gname, link=link, xattrs=xattrs or {}, size=size)


def tar_bytes(entries, compress=None):
    """A tar (pax format) of @entries; compress: None, "gz", "xz"."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for e in entries:
            ti = tarfile.TarInfo(e["name"])
            ti.mode = e["mode"]
            ti.uid, ti.gid, ti.uname, ti.gname = e["uid"], e["gid"], e["uname"], e["gname"]
            ti.mtime = FIXED_MTIME
            if e["xattrs"]:
                ti.pax_headers = {"SCHILY.xattr." + k: v.decode("latin-1") if isinstance(v, bytes)
                                  else v for k, v in e["xattrs"].items()}
            kind = e["kind"]
            if kind == "dir":
                ti.type = tarfile.DIRTYPE
                t.addfile(ti)
            elif kind == "symlink":
                ti.type = tarfile.SYMTYPE
                ti.linkname = e["link"]
                t.addfile(ti)
            elif kind == "hardlink":
                ti.type = tarfile.LNKTYPE
                ti.linkname = e["link"]
                t.addfile(ti)
            else:
                ti.size = len(e["data"])
                t.addfile(ti, io.BytesIO(e["data"]))
    data = buf.getvalue()
    for e in entries:
        if e["size"] is not None:
            data = lie_size(data, e["name"], e["size"])
    if compress == "gz":
        return gzip.compress(data, mtime=0)
    if compress == "xz":
        return lzma.compress(data, format=lzma.FORMAT_XZ)
    return data


def lie_size(data, name, size):
    """Make the ustar header of @name in tar @data declare @size bytes (octal, < 8 GiB)."""
    data = bytearray(data)
    want = name.encode()
    for off in range(0, len(data) - 512, 512):
        if data[off:off + 100].rstrip(b"\0") == want and data[off + 257:off + 262] == b"ustar":
            data[off + 124:off + 136] = b"%011o\0" % size
            data[off + 148:off + 156] = b" " * 8
            data[off + 148:off + 156] = b"%06o\0 " % sum(data[off:off + 512])
            return bytes(data)
    raise ValueError(f"no header for {name}")


def ar_bytes(members):
    """An ar archive of (name, bytes) pairs, as dpkg-deb writes it."""
    out = [b"!<arch>\n"]
    for name, data in members:
        hdr = b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name.encode(), FIXED_MTIME, 0, 0, b"100644",
                                                   len(data))
        out.append(hdr)
        out.append(data)
        if len(data) % 2:
            out.append(b"\n")
    return b"".join(out)


def deb_bytes(package="s2c-test", version="1.0", arch="amd64", scripts=None, data=(),
              compress="xz", order=None, extra=()):
    """A .deb: control fields, maintainer scripts {name: text}, data entries."""
    control = (f"Package: {package}\nVersion: {version}\nArchitecture: {arch}\n"
               "Maintainer: nobody <nobody@example.invalid>\nDescription: test\n").encode()
    centries = [entry("./", "dir", 0o755), entry("./control", data=control)]
    for name, text in (scripts or {}).items():
        centries.append(entry("./" + name, mode=0o755, data=text.encode()))
    members = {
        "debian-binary": b"2.0\n",
        "control.tar." + compress if compress else "control.tar": tar_bytes(centries, compress),
        "data.tar." + compress if compress else "data.tar": tar_bytes(list(data), compress),
    }
    names = list(members)
    if order:
        names = order
    return ar_bytes([(n, members[n]) for n in names] + list(extra))


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


# --- packages of many members, written fast --------------------------------------------

def ustar_header(name, kind, mode, size=0):
    """One 512-byte ustar header of a root-owned entry; a name over 100 bytes gets a GNU 'L'
    record first.  Written directly: tarfile takes minutes for a million members."""
    out = b""
    if len(name) > 100:
        long = name + b"\0"
        out = ustar_header(b"././@LongLink", b"L", 0o644, len(long)) + long
        out += b"\0" * (-len(long) % 512)
        name = name[:100]
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = b"%07o\0" % mode
    h[108:116] = b"%07o\0" % 0
    h[116:124] = b"%07o\0" % 0
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"%011o\0" % FIXED_MTIME
    h[148:156] = b" " * 8
    h[156:157] = kind
    h[257:265] = b"ustar  \0"
    h[265:269] = b"root"
    h[297:301] = b"root"
    h[148:156] = b"%06o\0 " % sum(h)
    return out + bytes(h)


def many_members_tar(out, n, name_len=0, empty=False, setid=False):
    """Stream a data tar of @n members into the file object @out: directories of 1000
    entries, each with one set-user-ID and one set-group-ID file and empty 0644 files, or
    with @empty every member a plain empty file in one directory.  @name_len pads the
    names to about that many bytes with directories of 200-byte names; with @setid every
    file is set-user-ID root."""
    pad = b"x" * 199 + b"/"
    pad = pad * (max(0, name_len - 40) // len(pad))
    made, d = 0, 0
    if empty:
        out.write(ustar_header(b"./", b"5", 0o755))
        made = 1
        while made < n:
            out.write(ustar_header(b"./%sf%09d" % (pad, made), b"0", 0o644))
            made += 1
    while made < n:
        dname = b"./usr/share/s2c-many/d%05d/" % d
        out.write(ustar_header(dname, b"5", 0o755))
        made += 1
        for i in range(min(999, n - made)):
            mode = 0o4755 if i == 0 or setid else 0o2755 if i == 1 else 0o644
            out.write(ustar_header(b"%s%sf%04d" % (dname, pad, i), b"0", mode))
            made += 1
        d += 1
    out.write(b"\0" * 1024)


def many_members_deb(path, n, name_len=0, empty=False, package="s2c-many", setid=False,
                     scripts=None):
    """A .deb whose data archive many_members_tar() writes, gzip level 1: seconds for a
    million members; maintainer scripts {name: text}.  Returns @path."""
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1, mtime=0) as z:
        many_members_tar(z, n, name_len, empty, setid)
    control = (f"Package: {package}\nVersion: 1.0\nArchitecture: amd64\n"
               "Maintainer: nobody <nobody@example.invalid>\nDescription: many\n").encode()
    ctl = tar_bytes([entry("./", "dir", 0o755), entry("./control", data=control)] +
                    [entry("./" + name, mode=0o755, data=text.encode())
                     for name, text in (scripts or {}).items()], "gz")
    with open(path, "wb") as f:
        f.write(ar_bytes([("debian-binary", b"2.0\n"), ("control.tar.gz", ctl),
                          ("data.tar.gz", raw.getvalue())]))
    return path


# --- images ------------------------------------------------------------------------------

def _digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def image_parts(layers, tag="s2c/test:1", arch="amd64", created_by=None, gzip_layers=False):
    """Blobs of an image: (config bytes, [(layer blob bytes, diff id)])."""
    blobs = []
    for entries in layers:
        raw = tar_bytes(entries)
        blob = gzip.compress(raw, mtime=0) if gzip_layers else raw
        blobs.append((blob, _digest(raw)))
    history = [{"created": "2023-11-14T22:13:20Z",
                "created_by": (created_by[i] if created_by else f"layer {i + 1}")}
               for i in range(len(layers))]
    config = json.dumps({
        "architecture": arch, "os": "linux",
        "config": {}, "rootfs": {"type": "layers", "diff_ids": [d for _, d in blobs]},
        "history": history,
    }, sort_keys=True).encode()
    return config, blobs


def oci_layout(root, layers, tag="s2c/test:1", gzip_layers=True, **kw):
    """Write an OCI image layout into directory @root."""
    config, blobs = image_parts(layers, tag=tag, gzip_layers=gzip_layers, **kw)
    bdir = os.path.join(root, "blobs", "sha256")
    os.makedirs(bdir, exist_ok=True)

    def put(data):
        d = _digest(data)
        write(os.path.join(bdir, d.split(":")[1]), data)
        return d
    cdig = put(config)
    mt = "application/vnd.oci.image.layer.v1.tar" + ("+gzip" if gzip_layers else "")
    manifest = json.dumps({
        "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": cdig,
                   "size": len(config)},
        "layers": [{"mediaType": mt, "digest": put(b), "size": len(b)} for b, _ in blobs],
    }).encode()
    mdig = put(manifest)
    write(os.path.join(root, "oci-layout"), b'{"imageLayoutVersion": "1.0.0"}')
    write(os.path.join(root, "index.json"), json.dumps({
        "schemaVersion": 2,
        "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                       "digest": mdig, "size": len(manifest),
                       "annotations": {"org.opencontainers.image.ref.name": tag},
                       "platform": {"os": "linux", "architecture": "amd64"}}],
    }).encode())
    return root


def dir_to_tar(root, path):
    """Tar the directory @root (an OCI layout) into @path."""
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as t:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                t.add(full, arcname=os.path.relpath(full, root), recursive=False)
    return path


def docker_archive(path, layers, tag="s2c/test:1", symlink_layers=(), outside_link=None, **kw):
    """A `docker save` archive: <id>/layer.tar per layer, the config, manifest.json.

    Layers whose index is in @symlink_layers are stored as a symlink to the
    previous layer's tar (docker does this for identical layers; the content
    must then be the same).  @outside_link: (index, target) makes that layer
    tar a symlink to @target instead (hostile).
    """
    config, blobs = image_parts(layers, tag=tag, gzip_layers=False, **kw)
    chash = hashlib.sha256(config).hexdigest()
    entries = []
    names = []
    for i, (blob, diff) in enumerate(blobs):
        lid = hashlib.sha256(f"layer{i}".encode()).hexdigest()
        names.append(f"{lid}/layer.tar")
        entries.append(entry(f"{lid}/", "dir", 0o755))
        entries.append(entry(f"{lid}/VERSION", data=b"1.0"))
        if outside_link and outside_link[0] == i:
            entries.append(entry(f"{lid}/layer.tar", "symlink", 0o777, link=outside_link[1]))
        elif i in symlink_layers:
            entries.append(entry(f"{lid}/layer.tar", "symlink", 0o777,
                                 link=f"../{names[i - 1].split('/')[0]}/layer.tar"))
        else:
            entries.append(entry(f"{lid}/layer.tar", data=blob))
    entries.append(entry(f"{chash}.json", data=config))
    entries.append(entry("manifest.json", data=json.dumps(
        [{"Config": f"{chash}.json", "RepoTags": [tag], "Layers": names}]).encode()))
    return write(path, tar_bytes(entries))
