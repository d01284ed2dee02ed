#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Benchmark suid2cap against find, bfs and getcap on the same tree in the same
# run, with hyperfine: warm cache, then cold cache (page cache, dentries and
# inodes dropped before every run; root only), and audit against scan in both.
# Prints every ratio against its target (cold scan / find <= 0.33, audit / scan
# <= 1.10) and the peak RSS of scan and of audit (audit <= 24 MiB).
#
#   bench/bench.sh [--warm-only] [--runs N] [--cold-runs N] [--tree DIR] [--big N]
#
#   --warm-only    skip the cold-cache half (needs no root)
#   --runs N       hyperfine runs per command, warm (default 15)
#   --cold-runs N  hyperfine runs per command, cold (default 3)
#   --tree DIR     benchmark DIR instead of / (e.g. a generated tree)
#   --big N        generate a tree of N entries under $BENCH_TMP (default /var/tmp)
#                  and measure peak RSS on it (the bound must not grow with size)
#
# The floor, bench/floor.c, is the system calls alone (openat, getdents64, close a
# directory, statx a file) on as many threads: scan / floor is what the scanner's
# own work costs, floor / find what no scan on this machine can go under.
#
# Then scan --xdev, the floor and find one after the other in rounds (as many as
# runs), warm and cold: the median of the ratios within each round, which a
# machine that speeds up or slows down during the run moves less than the ratio of
# hyperfine's means.
#
# Results go to bench/results/ (JSON from hyperfine, and the pairs) and a summary
# to stdout.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/build/release/cli/suid2cap"
floor="$here/build/release/bench/s2c-floor"
results="$here/bench/results"
cold=1
runs=15
cold_runs=3
tree=/
big=0

while [ $# -gt 0 ]; do
	case "$1" in
	--warm-only) cold=0 ;;
	--cold) ;;      # the default now; kept for old command lines
	--runs) runs=$2; shift ;;
	--cold-runs) cold_runs=$2; shift ;;
	--tree) tree=$2; shift ;;
	--big) big=$2; shift ;;
	*) echo "usage: $0 [--warm-only] [--runs N] [--cold-runs N] [--tree DIR] [--big N]" >&2
	   exit 2 ;;
	esac
	shift
done
if [ "$cold" -eq 1 ] && [ "$(id -u)" -ne 0 ]; then
	echo "bench: dropping caches needs root; measuring warm only" >&2
	cold=0
fi
for tool in hyperfine find bfs getcap python3; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (tools/dev.sh deps)" >&2; exit 1; }
done
if [ ! -x "$bin" ] || [ ! -x "$floor" ]; then
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

if [ "$tree" = / ]; then label=root; else label=$(basename "$tree"); fi

# The floor (bench/floor.c) runs on as many threads as the scan does by default:
# four a CPU, at least 16, at most 64.
threads=$((4 * $(nproc)))
[ "$threads" -ge 16 ] || threads=16
[ "$threads" -le 64 ] || threads=64

# One hyperfine run of every command; $1: warm or cold.
measure() {
	json="$results/scan-$label-$1.json"
	set -- "$1" \
		-n suid2cap "$bin scan $tree" \
		-n suid2cap-xdev "$bin scan --xdev $tree" \
		-n audit-xdev "$bin audit --xdev $tree" \
		-n floor "$floor $tree $threads" \
		-n find "find $tree -xdev -perm /6000 -type f" \
		-n bfs "bfs $tree -xdev -perm /6000 -type f" \
		-n getcap "getcap -r $getcap_roots"
	if [ "$1" = cold ]; then
		shift
		echo "==> tree $tree (cold cache, $cold_runs runs); getcap roots: $getcap_roots"
		# hyperfine -N runs --prepare without a shell too
		hyperfine -N --ignore-failure --style basic --runs "$cold_runs" --warmup 0 \
			--prepare "sh -c 'sync; echo 3 > /proc/sys/vm/drop_caches'" \
			--export-json "$json" --output=null "$@"
	else
		shift
		echo "==> tree $tree (warm cache, $runs runs); getcap roots: $getcap_roots"
		hyperfine -N --ignore-failure --style basic --runs "$runs" --warmup 3 \
			--export-json "$json" --output=null "$@"
	fi
}

measure warm
if [ "$cold" -eq 1 ]; then
	measure cold
fi

# hyperfine runs every run of one command before the next command's, so a machine
# that slows down or speeds up during the run moves the ratio of the means.  Rounds
# of scan, floor and find, one after the other (which goes first rotating), the
# ratios taken within each round; the median and quartiles of those ratios.
# $1: warm or cold, $2: rounds.
rounds() {
	python3 - "$1" "$2" "$bin" "$tree" "$results/rounds-$label-$1.json" "$floor" "$threads" <<'PY'
import json, statistics, subprocess, sys, time
mode, n, binary, tree, out, floor, threads = sys.argv[1:8]
n = int(n)
cmds = {"scan": [binary, "scan", "--xdev", tree],
        "floor": [floor, tree, threads],
        "find": ["find", tree, "-xdev", "-perm", "/6000", "-type", "f"]}
def run(name):
    if mode == "cold":
        subprocess.run(["sh", "-c", "sync; echo 3 > /proc/sys/vm/drop_caches"], check=True)
    t = time.perf_counter()
    subprocess.run(cmds[name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t
if mode == "warm":
    for name in cmds:
        run(name)
rounds = []
names = list(cmds)
for i in range(n):
    order = names[i % 3:] + names[:i % 3]
    rounds.append({name: run(name) for name in order})
json.dump({"mode": mode, "rounds": rounds}, open(out, "w"), indent=1)
for a, b in (("scan", "find"), ("floor", "find"), ("scan", "floor")):
    ratios = sorted(r[a] / r[b] for r in rounds)
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    print(f"{mode}: {a} / {b}, {n} rounds: median {statistics.median(ratios):.2f}, "
          f"quartiles {q[0]:.2f} to {q[2]:.2f}, range {ratios[0]:.2f} to {ratios[-1]:.2f}")
PY
}
rounds_warm=$(rounds warm "$runs")
rounds_cold=""
if [ "$cold" -eq 1 ]; then
	rounds_cold=$(rounds cold "$cold_runs")
fi

# Peak RSS of one verb of suid2cap on the tree (KiB, max over 5 runs), from
# getrusage of the children: a process of its own per verb.
peak_rss() {
	python3 - "$bin" "$1" "$tree" <<'PY'
import resource, subprocess, sys
for _ in range(5):
    subprocess.run([sys.argv[1], sys.argv[2], sys.argv[3]], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
rss_scan=$(peak_rss scan)
rss_audit=$(peak_rss audit)

entries=$("$bin" scan --format json "$tree" 2>/dev/null | python3 -c \
	'import json,sys; d=json.load(sys.stdin); print(d["stats"]["entries"], len(d["files"]))')

python3 - "$results/scan-$label-warm.json" "$results/scan-$label-cold.json" "$cold" \
	"$rss_scan" "$rss_audit" "$entries" "$rounds_warm" "$rounds_cold" <<'PY'
import json, sys
warm_file, cold_file, cold, rss_scan, rss_audit, entries = sys.argv[1:7]
rounds = sys.argv[7:9]
entries, found = entries.split()
print(f"entries walked: {entries}, privileged files found: {found}")
targets = {"warm": ("0.33", "0.25"), "cold": ("0.33", "0.25")}
for mode, path in (("warm", warm_file), ("cold", cold_file)):
    if mode == "cold" and cold != "1":
        print("cold: not measured (--warm-only, or not root)")
        continue
    res = {r["command"]: r for r in json.load(open(path))["results"]}
    s = res["suid2cap-xdev"]["mean"]
    print(f"--- {mode} cache")
    for name in ("suid2cap", "suid2cap-xdev", "audit-xdev", "floor", "find", "bfs", "getcap"):
        r = res[name]
        print(f"{name:14s} {r['mean']:.3f} s ± {r['stddev'] or 0:.3f}")
    t_find, t_getcap = targets[mode]
    print(f"ratio scan / find       = {s / res['find']['mean']:.2f}  (target <= {t_find})")
    print(f"ratio scan / bfs        = {s / res['bfs']['mean']:.2f}")
    print(f"ratio scan / floor      = {s / res['floor']['mean']:.2f}  (the scanner's own work)")
    print(f"ratio floor / find      = {res['floor']['mean'] / res['find']['mean']:.2f}"
          f"  (what no scan on this machine can go under)")
    print(f"ratio scan / getcap     = {res['suid2cap']['mean'] / res['getcap']['mean']:.2f}"
          f"  (target <= {t_getcap})")
    print(f"ratio audit / scan      = {res['audit-xdev']['mean'] / s:.2f}  (target <= 1.10)")
print("--- rounds of scan, floor and find (the ratios within each round)")
for block in rounds:
    if block:
        print(block)
print(f"peak RSS scan           = {int(rss_scan) / 1024:.1f} MiB")
print(f"peak RSS audit          = {int(rss_audit) / 1024:.1f} MiB  (target <= 24 MiB)")
PY
