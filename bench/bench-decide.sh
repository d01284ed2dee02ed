#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What deciding costs on top of the scan: `scan` against `audit` and `plan`
# (hash + ELF + rules for every candidate) on the same tree in one hyperfine
# run, on this machine's / and on a root holding 200 setuid copies of real
# programs.  Target: plan + audit add less than 0.2 s.
#
#   bench/bench-decide.sh [--runs N]
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/build/release/cli/suid2cap"
runs=10
[ "${1:-}" = "--runs" ] && runs=$2
if [ ! -x "$bin" ]; then
	(cd "$here" && cmake --preset release >/dev/null && cmake --build --preset release -j "$(nproc)")
fi
mkdir -p "$here/bench/results"

# 200 candidates: copies of real setuid/capability programs under distinct names.
# While it exists it is part of / too, so the / run decides about 200 more files.
tree="${BENCH_TMP:-/var/tmp}/s2c-bench-200"
trap 'rm -rf "$tree"' EXIT
if [ ! -f "$tree/.complete" ]; then
	rm -rf "$tree"
	mkdir -p "$tree/usr/bin" "$tree/etc"
	cp /etc/passwd /etc/group "$tree/etc/"
	i=0
	while [ $i -lt 200 ]; do
		for p in /usr/bin/passwd /usr/bin/su /usr/bin/mount /usr/bin/ping /usr/bin/chfn; do
			[ $i -lt 200 ] || break
			[ -f "$p" ] || continue
			cp "$p" "$tree/usr/bin/$(basename "$p")-$i"
			chmod 4755 "$tree/usr/bin/$(basename "$p")-$i"
			i=$((i + 1))
		done
	done
	touch "$tree/.complete"
fi

for root in / "$tree"; do
	label=$( [ "$root" = / ] && echo root || echo 200 )
	echo "==> root $root"
	# scan exits 1 when a file has a problem flag (a shared machine's /tmp may hold
	# test fixtures with some): that is a finding, not a failed run
	hyperfine -N --ignore-failure --warmup 2 --runs "$runs" --style basic --output=null \
		--export-json "$here/bench/results/decide-$label.json" \
		-n scan "$bin scan --root $root" \
		-n audit "$bin audit --root $root" \
		-n plan "$bin plan --root $root"
	python3 - "$here/bench/results/decide-$label.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"audit adds {r['audit'] - r['scan']:.3f} s, plan adds {r['plan'] - r['scan']:.3f} s "
      f"(target: < 0.2 s each)")
PY
done
