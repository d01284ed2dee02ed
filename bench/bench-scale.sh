#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Cost against size: time and memory must grow with the input, not faster.
#
#  1. audit-pkg of synthetic packages of 10k, 100k and 1M members (bench/genpkg.py:
#     directories of 1000 entries, two set-ID files in each) against
#     `dpkg-deb -c` of the same package.  Targets: at most 2x its time at every
#     size, peak RSS at most 128 MiB.
#     The same with a postinst of A actions of each kind (--actions, default
#     100, so 300 commands: longer than 99 % of the 1,189 scripts of the
#     Debian corpus the tests replay, whose median is 7 lines and longest 912;
#     genpkg.py --actions): a chmod that makes a member set-user-ID, an rm -rf
#     of a tree, a modprobe, so that the check of what the scripts touch shows
#     if it costs members x actions.  The same targets.  --actions 1000 is the
#     stress of that check (1,000 set-ID candidates made by the script): its
#     cost grows with the actions, not with members x actions
#     (docs/PERFORMANCE.md).  --before BIN times another build of suid2cap on
#     the same packages, for a before and after.
#     Then .rpm packages of the same trees (genpkg.py OUT.rpm, built by
#     rpmbuild: minutes for a million members; --rpm-sizes, default --sizes,
#     "" for none), with the same %post, against `rpm -qlp --nosignature`.
#  2. report merge of 1, 10 and 100 JSON reports (each the audit of a package of
#     2,000 set-ID files, 4 MB; half of the programs shared by every report, half
#     each report's own).  Target: the time per report stays the same.
#  3. audit and plan of trees of F set-ID files (--files, default "1000 10000
#     30000": --root trees of directories of 1,000 set-ID scripts) against scan of
#     the same tree.  Target: the time per file stays the same (audit / scan and
#     plan / scan do not grow with F).  --before BIN times another build too.
#
#   bench/bench-scale.sh [--runs N] [--sizes "10000 100000 1000000"] [--reports N]
#                        [--max-memory SIZE] [--actions A] [--before BIN]
#                        [--rpm-sizes "N ..."] [--files "F ..."]
#
# audit-pkg runs with --max-memory SIZE (default 1G, so that every size is
# measured); the budget check of a size is a separate line: whether the
# default budget (256M) takes the package.
#
# The packages and reports are written under $BENCH_TMP (default /var/tmp) and
# removed at exit; hyperfine's JSON goes to bench/results/.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/build/release/cli/suid2cap"
runs=3
sizes="10000 100000 1000000"
reports=100
max_memory=1G
actions=100
before=
rpm_sizes="unset"
files="1000 10000 30000"

while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift ;;
	--sizes) sizes=$2; shift ;;
	--reports) reports=$2; shift ;;
	--max-memory) max_memory=$2; shift ;;
	--actions) actions=$2; shift ;;
	--before) before=$2; shift ;;
	--rpm-sizes) rpm_sizes=$2; shift ;;
	--files) files=$2; shift ;;
	*) echo "usage: $0 [--runs N] [--sizes \"N ...\"] [--reports N] [--max-memory SIZE]" \
		"[--actions A] [--before BIN] [--rpm-sizes \"N ...\"] [--files \"F ...\"]" >&2
	   exit 2 ;;
	esac
	shift
done
[ "$rpm_sizes" != unset ] || rpm_sizes=$sizes
for tool in hyperfine dpkg-deb python3 /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (tools/dev.sh deps)" >&2; exit 1; }
done
if [ ! -x "$bin" ]; then
	(cd "$here" && cmake --preset release >/dev/null && cmake --build --preset release -j "$(nproc)")
fi
results="$here/bench/results"
mkdir -p "$results"
work=$(mktemp -d "${BENCH_TMP:-/var/tmp}/s2c-bench-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Peak RSS in KiB of a command (its stdout thrown away); GNU time, as a fork of a
# larger process would count that process's pages too.
peak_rss() {
	/usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1 || [ $? -eq 1 ] || [ -s "$work/rss" ]
	cat "$work/rss"
}

# One package of $2 members at $1 (its genpkg.py options after): time and peak RSS of
# audit-pkg against listing it (dpkg-deb -c, rpm -qlp), and of the --before build.
measure() {
	deb=$1 n=$2
	shift 2
	python3 "$here/bench/genpkg.py" "$deb" "$n" "$@"
	case $deb in
	*.rpm) list="rpm -qlp --nosignature" ;;
	*) list="dpkg-deb -c" ;;
	esac
	set -- -n dpkg "$list $deb" \
		-n audit "$bin audit-pkg --tmpdir $work --max-memory $max_memory --format json $deb"
	[ -z "$before" ] || set -- "$@" -n before \
		"$before audit-pkg --tmpdir $work --max-memory $max_memory --format json $deb"
	hyperfine --warmup 1 --runs "$runs" --style none --output=null -i \
		--export-json "$results/scale-$(basename "$deb").json" "$@" >/dev/null
	# shellcheck disable=SC2086 # $list is a command and its options, split on purpose
	rss_dpkg=$(peak_rss $list "$deb")
	rss_audit=$(peak_rss "$bin" audit-pkg --tmpdir "$work" --max-memory "$max_memory" \
		--format json "$deb")
	rc=0
	"$bin" audit-pkg --tmpdir "$work" --format json "$deb" >/dev/null 2>"$work/err" || rc=$?
	case $rc in
	0|1|3) echo "$n members: within the default --max-memory" ;;  # 3: scripts not all modelled
	*) echo "$n members: past the default --max-memory: $(tail -n 1 "$work/err")" ;;
	esac
	python3 - "$results/scale-$(basename "$deb").json" "$n" "$rss_dpkg" "$rss_audit" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
d, a = r["dpkg"]["mean"], r["audit"]["mean"]
cpu = {k: v["user"] + v["system"] for k, v in r.items()}
line = (f"{int(sys.argv[2]):<10} {d:10.2f} s {a:10.2f} s {a / d:6.2f}x "
        f"{int(sys.argv[3]) / 1024:7.1f} MiB {int(sys.argv[4]) / 1024:7.1f} MiB  "
        f"CPU {cpu['dpkg']:.2f} / {cpu['audit']:.2f} s")
if "before" in r:
    line += f"  before {r['before']['mean']:.2f} s, CPU {cpu['before']:.2f} s"
print(line)
PY
	rm -f "$deb"
}

echo "==> audit-pkg against dpkg-deb -c"
printf '%-10s %12s %12s %7s %10s %10s\n' members "dpkg-deb -c" audit-pkg ratio "RSS dpkg" "RSS audit"
for n in $sizes; do
	measure "$work/m$n.deb" "$n"
done
if [ "$actions" -gt 0 ]; then
	echo "==> the same with a postinst of $actions actions of each kind"
	for n in $sizes; do
		measure "$work/s$n.deb" "$n" --actions "$actions"
	done
fi

if [ -n "$rpm_sizes" ]; then
	command -v rpmbuild >/dev/null || { echo "bench: rpmbuild is missing" >&2; exit 1; }
	echo "==> .rpm packages with a %post of $actions actions of each kind, against rpm -qlp"
	printf '%-10s %12s %12s %7s %10s %10s\n' members "rpm -qlp" audit-pkg ratio "RSS rpm" \
		"RSS audit"
	for n in $rpm_sizes; do
		measure "$work/r$n.rpm" "$n" --actions "$actions"
	done
fi

echo "==> report merge"
python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import mkarchive as mk
mk.many_members_deb(sys.argv[2], 2000, setid=True, package="s2c-merge")' \
	"$here/tests/cli" "$work/merge.deb"
"$bin" audit-pkg --format json -o "$work/base.json" "$work/merge.deb" || [ $? -eq 1 ]
python3 - "$work" "$reports" <<'PY'
import copy, json, os, sys
work, n = sys.argv[1], int(sys.argv[2])
base = json.load(open(os.path.join(work, "base.json")))
for i in range(n):
    d = copy.deepcopy(base)
    d["targets"][0]["name"] = f"s2c-merge-{i}"
    for k, f in enumerate(d["files"]):
        if k % 2:
            f["file"]["path"] = f"/host{i}" + f["file"]["path"]
    with open(os.path.join(work, f"r{i}.json"), "w") as out:
        json.dump(d, out)
PY
set -- "$work/r0.json"
one="$*"
i=1
while [ "$i" -lt "$reports" ]; do
	set -- "$@" "$work/r$i.json"
	i=$((i + 1))
	[ "$i" -eq 10 ] && ten="$*"
done
all="$*"
hyperfine --warmup 1 --runs "$runs" --style none --output=null \
	--export-json "$results/scale-merge.json" \
	-n 1 "$bin report merge --format json $one" \
	-n 10 "$bin report merge --format json ${ten:-$one}" \
	-n "$reports" "$bin report merge --format json $all" >/dev/null
# shellcheck disable=SC2086 # $all is the list of report files, split on purpose
rss_merge=$(peak_rss "$bin" report merge --format json $all)
python3 - "$results/scale-merge.json" "$rss_merge" "$(du -k "$work/r0.json" | cut -f1)" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
for r in res:
    n = int(r["command"])
    print(f"{n:>4} reports of {int(sys.argv[3]) / 1024:.1f} MB  {r['mean']:7.2f} s  "
          f"{r['mean'] / n * 1000:7.1f} ms per report")
print(f"peak RSS of the last: {int(sys.argv[2]) / 1024:.1f} MiB")
PY

if [ -n "$files" ]; then
	echo "==> audit and plan of F set-ID files, against scan of the same tree"
	printf '%-8s %9s %9s %9s %12s %12s %9s %9s\n' files scan audit plan "audit/scan" \
		"plan/scan" "RSS audit" "RSS plan"
	for f in $files; do
		tree="$work/tree$f"
		python3 - "$tree" "$f" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
os.makedirs(os.path.join(root, "etc"))
with open(os.path.join(root, "etc/os-release"), "w") as out:
    out.write("ID=debian\n")
for i in range(n):
    d = os.path.join(root, "usr/lib/d%04d" % (i // 1000))
    os.makedirs(d, exist_ok=True)
    fd = os.open(os.path.join(d, "f%04d" % (i % 1000)), os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                 0o600)
    os.write(fd, b"#!/bin/sh\n")
    os.fchmod(fd, 0o4755)
    os.close(fd)
PY
		set -- -n scan "$bin scan --root $tree" -n audit "$bin audit --root $tree" \
			-n plan "$bin plan --root $tree"
		[ -z "$before" ] || set -- "$@" -n before-audit "$before audit --root $tree" \
			-n before-plan "$before plan --root $tree"
		hyperfine --warmup 1 --runs "$runs" --style none --output=null -i \
			--export-json "$results/scale-files$f.json" "$@" >/dev/null
		rss_audit=$(peak_rss "$bin" audit --root "$tree")
		rss_plan=$(peak_rss "$bin" plan --root "$tree")
		python3 - "$results/scale-files$f.json" "$f" "$rss_audit" "$rss_plan" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
s, a, p = r["scan"], r["audit"], r["plan"]
line = (f"{int(sys.argv[2]):<8} {s:7.2f} s {a:7.2f} s {p:7.2f} s {a / s:11.2f}x {p / s:11.2f}x "
        f"{int(sys.argv[3]) / 1024:5.1f} MiB {int(sys.argv[4]) / 1024:5.1f} MiB")
if "before-audit" in r:
    line += f"  before: audit {r['before-audit']:.2f} s, plan {r['before-plan']:.2f} s"
print(line)
PY
		rm -rf "$tree"
	done
fi
