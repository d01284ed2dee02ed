#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Benchmark `suid2cap scan` against find, bfs and getcap on the same tree in
# the same run, with hyperfine, and print each ratio and suid2cap's peak RSS.
#
#   bench/bench.sh [--cold] [--runs N] [--tree DIR] [--big N]
#
#   --cold      drop the page cache before every run (root only)
#   --runs N    hyperfine runs per command (default 15; 3 with --cold)
#   --tree DIR  benchmark DIR instead of / (e.g. a generated tree)
#   --big N     generate a tree of N entries under $BENCH_TMP (default /var/tmp)
#               and measure peak RSS on it (the bound must not grow with size)
#
# Results go to bench/results/ (JSON from hyperfine) and a summary to stdout.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/build/release/cli/suid2cap"
results="$here/bench/results"
cold=0
runs=""
tree=/
big=0

while [ $# -gt 0 ]; do
	case "$1" in
	--cold) cold=1 ;;
	--runs) runs=$2; shift ;;
	--tree) tree=$2; shift ;;
	--big) big=$2; shift ;;
	*) echo "usage: $0 [--cold] [--runs N] [--tree DIR] [--big N]" >&2; exit 2 ;;
	esac
	shift
done

for tool in hyperfine find bfs getcap python3; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (tools/dev.sh deps)" >&2; exit 1; }
done
if [ ! -x "$bin" ]; then
	(cd "$here" && cmake --preset release >/dev/null && cmake --build --preset release -j "$(nproc)")
fi
mkdir -p "$results"

if [ "$big" -gt 0 ]; then
	tree="${BENCH_TMP:-/var/tmp}/s2c-bench-tree"
	# 2 million files under / would skew every later scan of /: removed at exit
	# unless BENCH_KEEP=1.
	if [ "${BENCH_KEEP:-0}" != 1 ]; then
		trap 'rm -rf "$tree"' EXIT
	fi
	if [ ! -f "$tree/.complete-$big" ]; then
		rm -rf "$tree"
		python3 "$here/bench/gentree.py" "$tree" "$big"
		touch "$tree/.complete-$big"
	fi
fi

# getcap has no -xdev: give it the top-level directories of the tree that are
# on the filesystems the scan walks (pseudo filesystems excluded, no symlinks).
getcap_roots=$(python3 - "$tree" <<'PY'
import os, sys
root = sys.argv[1]
pseudo = {"proc", "sysfs", "cgroup", "cgroup2", "devtmpfs", "debugfs", "tracefs", "securityfs",
          "pstore", "bpf", "configfs", "fusectl", "mqueue", "hugetlbfs", "devpts", "autofs",
          "binfmt_misc", "efivarfs", "selinuxfs", "rpc_pipefs", "nsfs"}
mounts = {}
with open("/proc/self/mountinfo") as f:
    for line in f:
        p = line.split()
        sep = p.index("-")
        mounts[p[4].encode().decode("unicode_escape")] = p[sep + 1]
out = []
for name in sorted(os.listdir(root)):
    path = os.path.join(root, name)
    if os.path.islink(path) or not os.path.isdir(path):
        continue
    if mounts.get(path) in pseudo:
        continue
    out.append(path)
print(" ".join(out))
PY
)

prepare=""
if [ "$cold" -eq 1 ]; then
	# hyperfine -N runs --prepare without a shell too
	prepare="sh -c 'sync; echo 3 > /proc/sys/vm/drop_caches'"
	runs=${runs:-3}
	warmup=0
else
	runs=${runs:-15}
	warmup=3
fi

if [ "$tree" = / ]; then label=root; else label=$(basename "$tree"); fi
if [ "$cold" -eq 1 ]; then mode=cold; else mode=warm; fi
json="$results/scan-$label-$mode.json"

echo "==> tree $tree ($mode cache, $runs runs); getcap roots: $getcap_roots"
set -- \
	-n suid2cap "$bin scan $tree" \
	-n suid2cap-xdev "$bin scan --xdev $tree" \
	-n find "find $tree -xdev -perm /6000 -type f" \
	-n bfs "bfs $tree -xdev -perm /6000 -type f" \
	-n getcap "getcap -r $getcap_roots"
if [ -n "$prepare" ]; then
	hyperfine -N --ignore-failure --style basic --runs "$runs" --warmup "$warmup" \
		--prepare "$prepare" --export-json "$json" --output=null "$@"
else
	hyperfine -N --ignore-failure --style basic --runs "$runs" --warmup "$warmup" \
		--export-json "$json" --output=null "$@"
fi

# Peak RSS of suid2cap (max over 5 runs), from getrusage of the children.
rss=$(python3 - "$bin" "$tree" <<'PY'
import resource, subprocess, sys
for _ in range(5):
    subprocess.run([sys.argv[1], "scan", sys.argv[2]], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
)

entries=$("$bin" scan --format json "$tree" 2>/dev/null | python3 -c \
	'import json,sys; d=json.load(sys.stdin); print(d["stats"]["entries"], len(d["files"]))')

python3 - "$json" "$rss" "$entries" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
rss_kib = int(sys.argv[2])
entries, found = sys.argv[3].split()
s = res["suid2cap"]["mean"]
print(f"entries walked: {entries}, privileged files found: {found}")
for name in ("suid2cap", "suid2cap-xdev", "find", "bfs", "getcap"):
    r = res[name]
    print(f"{name:14s} {r['mean']:.3f} s ± {r['stddev'] or 0:.3f}")
print(f"ratio suid2cap / find   = {s / res['find']['mean']:.2f}  (target <= 0.50 warm, <= 0.40 cold)")
print(f"ratio suid2cap / bfs    = {s / res['bfs']['mean']:.2f}")
print(f"ratio suid2cap / getcap = {s / res['getcap']['mean']:.2f}  (target <= 0.25)")
print(f"peak RSS suid2cap       = {rss_kib / 1024:.1f} MiB  (target <= 32 MiB)")
PY
