# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers for suid2cap CLI tests: fixture trees, running the binary, golden files.

Each test module builds its trees in a fresh temporary directory, runs the
built binary with --root on them, and compares stdout/stderr with golden files
under tests/expected/<verb>/<case>.{txt,json,err}.  `--update` rewrites them.

A test that must change the running system itself (dpkg, /etc, /var/lib, a verb
without --root) runs in a throwaway copy of it: in_throwaway_system().
"""
import fcntl
import json
import os
import pty
import re
import select
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import termios

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
EXPECTED = os.path.join(SRC, "tests", "expected")
FIXED_MTIME = 1700000000  # 2023-11-14T22:13:20Z

SKIP = 77


class Failure(Exception):
    pass


class Ctx:
    def __init__(self, binary, update=False):
        self.binary = binary
        self.update = update
        self.failures = []
        self.passed = 0
        self.skipped = 0
        self.tmp = tempfile.mkdtemp(prefix="s2c-cli-")

    def cleanup(self):
        subprocess.run(["chmod", "-R", "u+rwx", self.tmp], check=False)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def tree(self, name):
        """A new empty directory; a second tree of the same name gets a suffix."""
        path = os.path.join(self.tmp, name)
        n = 1
        while os.path.exists(path):
            n += 1
            path = os.path.join(self.tmp, f"{name}{n}")
        os.makedirs(path)
        return path

    def run(self, args, env=None, prefix=None, input=None, cwd=None):
        """The binary with @args (in the directory @cwd, for relative paths)."""
        e = {"LC_ALL": "C", "TZ": "UTC", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
             "SOURCE_DATE_EPOCH": str(FIXED_MTIME)}
        if env:
            e.update(env)
        cmd = (prefix or []) + [self.binary] + list(args)
        p = subprocess.run(cmd, capture_output=True, env=e, input=input, cwd=cwd)
        return p.returncode, p.stdout, p.stderr

    def check(self, name, cond, msg=""):
        if cond:
            self.passed += 1
        else:
            self.failures.append(f"{name}: {msg}")
            print(f"FAIL {name}: {msg}", file=sys.stderr)

    def golden(self, verb, case, data):
        """Compare bytes with tests/expected/<verb>/<case>; rewrite on --update."""
        path = os.path.join(EXPECTED, verb, case)
        if self.update:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
            self.passed += 1
            return
        try:
            with open(path, "rb") as f:
                want = f.read()
        except FileNotFoundError:
            self.check(f"{verb}/{case}", False, f"missing golden file {path} (run with --update)")
            return
        if want != data:
            import difflib
            diff = "".join(difflib.unified_diff(
                want.decode("utf-8", "replace").splitlines(True),
                data.decode("utf-8", "replace").splitlines(True),
                "expected/" + case, "actual/" + case))
            self.check(f"{verb}/{case}", False, "output differs from golden file:\n" + diff)
        else:
            self.passed += 1


def run_on_pty(argv, env, stream="stdout", cols=None, cwd=None):
    """Run @argv with @stream ("stdout" or "stderr") on a pseudo-terminal and the other
    stream a pipe.  Returns (exit status, terminal bytes as written, other stream).

    The parent keeps its own copy of the terminal's side open until the child has
    exited and everything it wrote has been read: closed early, a read may meet EIO
    before the last bytes are passed on, and a run would look as if it printed nothing."""
    master, slave = pty.openpty()
    if cols:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST          # the bytes as written, no \r added
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    kw = {"stdout": slave, "stderr": subprocess.PIPE} if stream == "stdout" else \
         {"stdout": subprocess.PIPE, "stderr": slave}
    p = subprocess.Popen(argv, env=env, cwd=cwd, **kw)
    other = p.stdout if stream == "stderr" else p.stderr
    data, rest = b"", b""
    fds = [master, other.fileno()]
    try:
        while True:
            ready, _, _ = select.select(fds, [], [], 0.05)
            if master in ready:
                data += os.read(master, 65536)
            if other.fileno() in ready:
                chunk = os.read(other.fileno(), 65536)
                if chunk:
                    rest += chunk
                else:
                    fds.remove(other.fileno())
            if not ready and p.poll() is not None:
                break
    finally:
        os.close(slave)
        os.close(master)
        other.close()
    return p.wait(), data, rest


def is_root():
    return os.geteuid() == 0


def mkfile(root, rel, mode, content=b"\x7fELF-fixture\n", uid=None, gid=None):
    path = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    os.write(fd, content)
    if uid is not None:
        os.fchown(fd, uid, gid if gid is not None else uid)
    os.fchmod(fd, mode)
    os.close(fd)
    os.utime(path, (FIXED_MTIME, FIXED_MTIME))
    return path


def mklink(root, rel, target):
    path = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)
    return path


def setcap(path, text):
    subprocess.run(["setcap", text, path], check=True)


def fix_dir_times(root):
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            p = os.path.join(dirpath, d)
            if not os.path.islink(p):
                os.utime(p, (FIXED_MTIME, FIXED_MTIME), follow_symlinks=False)


def validate_json(ctx, name, doc, schema_name):
    """Validate @doc against docs/schema/@schema_name (draft 2020-12, local $refs)."""
    import warnings
    import jsonschema
    schemadir = os.path.join(SRC, "docs", "schema")
    store = {}
    for fn in os.listdir(schemadir):
        if fn.endswith(".json"):
            with open(os.path.join(schemadir, fn)) as f:
                sch = json.load(f)
            store[sch.get("$id", fn)] = sch
            store[fn] = sch
    schema = store[schema_name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver(base_uri=schema["$id"], referrer=schema, store=store)
        validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        ctx.check(name, False, f"does not match {schema_name}: {e.message} at {list(e.path)}")
    else:
        ctx.passed += 1


def normalise_json(data, tmp=None):
    """Blank what differs between machines: inode, device, mount details."""
    doc = json.loads(data)

    def walk(o):
        if isinstance(o, dict):
            for k in list(o):
                if k in ("ino", "dev"):
                    o[k] = "<" + k + ">"
                elif k == "mount" and isinstance(o[k], dict):
                    o[k] = {kk: o[k][kk] for kk in ("nosuid", "readonly", "noexec")}
                else:
                    walk(o[k])
        elif isinstance(o, list):
            for x in o:
                walk(x)
    walk(doc)
    text = json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False) + "\n"
    if tmp:
        text = text.replace(tmp, "<tmp>")
    return text.encode()


HOSTNAME = os.uname().nodename


def normalise_auditor(data):
    """The host that ran an audit of a root, packages or an image differs between machines."""
    host = re.escape(HOSTNAME.encode())
    data = re.sub(rb" on " + host + rb",", b" on <auditor>,", data)
    return re.sub(rb"on <code>" + host + rb"</code>", b"on <code>&lt;auditor&gt;</code>", data)


def normalise_text(data, tmp=None):
    if tmp:
        data = data.replace(tmp.encode(), b"<tmp>")
    return data


# --- a throwaway copy of the running system ---------------------------------------------

# Filesystems that hold none of the system's files: left out of the copy (/proc, /sys
# and /dev are mounted fresh in it instead).
PSEUDO_FS = {"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "mqueue", "debugfs",
             "tracefs", "securityfs", "pstore", "bpf", "configfs", "fusectl", "binfmt_misc",
             "autofs", "hugetlbfs", "efivarfs", "nsfs", "rpc_pipefs", "nfsd", "selinuxfs"}
CAP_SYS_CHROOT, CAP_SYS_ADMIN = 18, 21
THROWAWAY_FAILED = 125      # exit status when the copy could not be made

THROWAWAY_SETUP = r"""
set -eu
script_path=$PATH
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
fail() { echo "throwaway system: $*" >&2; exit 125; }
# File capabilities set in the copy must stay there, or the migration tests prove nothing.
probe() {
	f=$1/.s2c-caps-probe.$$
	: > "$f" || fail "cannot write to the copy of '$2'"
	setcap cap_net_raw=ep "$f" || fail "cannot set file capabilities on the copy of '$2'"
	case $(getcap "$f") in
	*cap_net_raw=ep*) ;;
	*) fail "file capabilities do not stay on the copy of '$2'" ;;
	esac
	rm -f "$f"
}
"""


def _unescape(field):
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field)


def host_mounts():
    """[(mount point, fstype, per-mount options)] as this process sees them, in mount order."""
    mounts = []
    with open("/proc/self/mountinfo", errors="surrogateescape") as f:
        for line in f:
            pre, _, post = line.partition(" - ")
            fields = pre.split()
            mounts.append((_unescape(fields[4]), post.split()[0], fields[5].split(",")))
    return mounts


def throwaway_layout():
    """What a throwaway system is made of, outermost first: [(mount point, 'overlay' or
    'bind', flags)].  Every writable mount of a filesystem that holds files gets an
    overlay of its own with the host mount as the lower layer; a read-only mount is
    bound read-only; pseudo and FUSE filesystems, file mounts and everything under
    /proc, /sys and /dev are left out (their directory is empty in the copy)."""
    top = {}
    for point, fstype, opts in host_mounts():
        top[point] = (fstype, opts)       # a later mount on the same point hides the earlier
    layout, left_out = [], []
    for point in sorted(top, key=lambda p: (p != "/", p.count("/"), p)):
        fstype, opts = top[point]
        inside = [d for d in ["/proc", "/sys", "/dev"] + left_out
                  if point == d or point.startswith(d + "/")]
        # overlayfs options cannot carry these characters safely
        if (inside or fstype in PSEUDO_FS or fstype.startswith("fuse") or
                not os.path.isdir(point) or re.search(r'[,:\\"\n]', point)):
            left_out.append(point)
            continue
        flags = [o for o in opts if o in ("nosuid", "nodev", "noexec")]
        layout.append((point, "bind" if "ro" in opts else "overlay", flags))
    return layout


def throwaway_unavailable():
    """None when this process can make a throwaway system, else why it cannot."""
    try:
        with open("/proc/self/status") as f:
            eff = int(next(l for l in f if l.startswith("CapEff:")).split()[1], 16)
    except (OSError, StopIteration, ValueError):
        return "cannot read this process's capabilities"
    missing = [name for name, bit in (("cap_sys_admin", CAP_SYS_ADMIN),
                                      ("cap_sys_chroot", CAP_SYS_CHROOT)) if not eff >> bit & 1]
    if missing:
        return "a throwaway system needs " + " and ".join(missing)
    path = os.environ.get("PATH", "") + ":/usr/sbin:/usr/bin:/sbin:/bin"
    for tool in ("unshare", "chroot", "mount", "setcap", "getcap"):
        if not shutil.which(tool, path=path):
            return f"a throwaway system needs {tool}"
    return None


def throwaway_system(ctx, script, env=None, timeout=600, binds=()):
    """Run @script under sh, as root, in a throwaway copy of the running system.

    The copy lives in a private mount namespace (unshare -m, propagation private)
    and a PID namespace of its own: an overlayfs over each of the host's mounts
    (upper and work layers on a tmpfs, which keeps security.capability and the
    trusted.overlay.* xattrs; file capabilities set in the copy are checked to stay),
    fresh /proc with a read-only /proc/sys, a read-only /sys, a read-only bind of /dev
    with a fresh /dev/pts and /dev/shm, and then chroot into it.  There `/` is the
    running system for suid2cap, so verbs without --root, dpkg and its hooks, /etc
    and /var/lib all act for real, on the copy only.  The source tree, the binary's
    directory and @binds are seen at their own paths (bound read-only when they lie
    on a mount the copy leaves out).  When the script ends, every process of the copy
    is killed and the namespace, the mounts and the layers go with it.

    Returns (exit status, stdout, stderr); THROWAWAY_FAILED when the copy could not
    be made, with the reason on stderr."""
    q = shlex.quote
    base = ctx.tree("throwaway")
    root, layers = os.path.join(base, "root"), os.path.join(base, "layers")
    os.mkdir(root)
    os.mkdir(layers)
    lines = [f"R={q(root)} L={q(layers)}",
             'mount -t tmpfs -o mode=0700 s2c-layers "$L" || fail "cannot mount a tmpfs"']
    layout = throwaway_layout()
    for i, (point, kind, flags) in enumerate(layout):
        target = q(root + point.rstrip("/"))
        if kind == "bind":
            lines.append(f"mount --bind {q(point)} {target}")
            lines.append(f"mount -o {q(','.join(['remount', 'bind', 'ro'] + flags))} {target}")
            continue
        opts = ",".join([f"lowerdir={point}", f"upperdir={layers}/upper{i}",
                         f"workdir={layers}/work{i}"] + flags)
        lines.append(f'mkdir "$L/upper{i}" "$L/work{i}"')
        lines.append(f"mount -t overlay -o {q(opts)} s2c-throwaway {target} || "
                     f"fail {q('cannot mount an overlay of ' + repr(point))}")
        lines.append(f"probe {target} {q(point)}")
    lines += [
        'mount -t proc -o nosuid,nodev,noexec proc "$R/proc"',
        'mount --bind "$R/proc/sys" "$R/proc/sys"',
        'mount -o remount,bind,ro "$R/proc/sys"',
        'mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$R/sys"',
        'mount --bind /dev "$R/dev"',
        'mount -o remount,bind,ro,nosuid "$R/dev"',
        'mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$R/dev/pts"',
        'mount -t tmpfs -o mode=1777,nosuid,nodev s2c-shm "$R/dev/shm"',
    ]
    # What lies on a mount left out of the copy (a FUSE home, say) is bound read-only.
    copied = [point for point, _, _ in layout]
    every = [point for point, _, _ in host_mounts()]
    ro = []
    for d in [SRC, os.path.dirname(ctx.binary), *binds]:
        d = os.path.realpath(d)
        mount = max((m for m in every if d == m or d.startswith(m.rstrip("/") + "/")), key=len)
        if mount not in copied and not any(d == r or d.startswith(r + "/") for r in ro):
            ro.append(d)
    for d in ro:
        lines.append(f"mkdir -p {q(root + d)}")
        lines.append(f"mount --bind {q(d)} {q(root + d)}")
        lines.append(f"mount -o remount,bind,ro {q(root + d)}")
    lines += ['chroot=$(command -v chroot)', 'PATH=$script_path',
              'exec "$chroot" "$R" /bin/sh -c "$1"']
    e = dict(os.environ)
    e.update({"LC_ALL": "C", "TZ": "UTC", "HOME": "/root"})
    e.pop("TMPDIR", None)
    e.update(env or {})
    cmd = ["unshare", "--mount", "--pid", "--fork", "--kill-child", "--propagation", "private",
           "sh", "-c", THROWAWAY_SETUP + "\n".join(lines), "throwaway", script]
    try:
        p = subprocess.run(cmd, capture_output=True, env=e, timeout=timeout, cwd="/")
    except subprocess.TimeoutExpired as t:
        return (THROWAWAY_FAILED, t.stdout or b"",
                (t.stderr or b"") + b"throwaway system: timed out after %d s\n" % timeout)
    return p.returncode, p.stdout, p.stderr


def in_throwaway_system(ctx, fn, timeout=600):
    """Run the test function @fn of the calling test module in a throwaway copy of
    the running system (see throwaway_system()): the module is run again there with
    --inside, and its checks count as this run's.  Returns SKIP when no copy can be
    made here (not root, or without the capabilities it needs)."""
    why = throwaway_unavailable()
    if why:
        print(f"  ({why})")
        return SKIP
    module = os.path.abspath(sys.modules[fn.__module__].__file__)
    argv = [sys.executable, module, ctx.binary, "--inside", fn.__name__]
    rc, out, err = throwaway_system(ctx, "exec " + " ".join(shlex.quote(a) for a in argv),
                                    timeout=timeout, binds=[os.path.dirname(module)])
    sys.stdout.write("".join("  | " + l + "\n" for l in out.decode(errors="replace").splitlines()))
    sys.stderr.write(err.decode(errors="replace"))
    name = f"{fn.__name__} in a throwaway system"
    m = re.search(rb"^(\d+) passed, (\d+) failed, (\d+) skipped$", out, re.M)
    if rc not in (0, 1, SKIP) or not m:
        ctx.check(name, False, f"exit {rc}: {err[-3000:]!r}")
        return None
    ctx.passed += int(m[1])
    fails = [l[5:].decode(errors="replace") for l in err.splitlines() if l.startswith(b"FAIL ")]
    ctx.failures += [f"{name}: {f}" for f in fails]
    if len(fails) < int(m[2]):
        ctx.check(name, False, f"{int(m[2])} checks failed")
    return SKIP if rc == SKIP else None


def main(tests, argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("-k", dest="only", default=None, help="run tests whose name contains this")
    ap.add_argument("--inside", default=None, help="run only this function (in_throwaway_system)")
    a = ap.parse_args(argv)
    ctx = Ctx(os.path.abspath(a.binary), a.update)
    if a.inside:
        tests = [getattr(sys.modules["__main__"], a.inside)]
    ran = 0
    try:
        for t in tests:
            if a.only and a.only not in t.__name__:
                continue
            r = t(ctx)
            if r == SKIP:
                ctx.skipped += 1
                print(f"skip {t.__name__}")
            else:
                ran += 1
                print(f"ran  {t.__name__}")
    finally:
        ctx.cleanup()
    print(f"{ctx.passed} passed, {len(ctx.failures)} failed, {ctx.skipped} skipped")
    if ctx.failures:
        return 1
    if ran == 0 and ctx.skipped:
        return SKIP
    return 0
