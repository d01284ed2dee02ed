#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Packages per second of `audit-pkg` on a directory of real Debian packages,
# against the floor: only decompressing the same packages' data members
# (`dpkg-deb --fsys-tarfile`, one process per package, as many at once as
# there are CPUs).  Target: audit-pkg takes at most 1.3 x the floor's time.
#
# The packages are fetched once with `apt-get download` into
# build/test-deps/bench-debs (never installed): every 4th package installed
# on this machine whose installed size is below 60 MB and that the archive
# has, plus the set-ID ones the tests use, so the sizes are mixed and some
# files are privileged.
#
#   bench/bench-pkg.sh [--runs N]
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/build/release/cli/suid2cap"
runs=5
[ "${1:-}" = "--runs" ] && runs=$2
if [ ! -x "$bin" ]; then
	(cd "$here" && cmake --preset release >/dev/null && cmake --build --preset release -j "$(nproc)")
fi
mkdir -p "$here/bench/results"
dir="$here/build/test-deps/bench-debs"
mkdir -p "$dir"

if [ ! -f "$dir/.complete" ]; then
	list=$(dpkg-query -W -f '${Package} ${Installed-Size}\n' | sort |
		awk '$2 < 60000 && NR % 4 == 0 { print $1 }')
	# One by one: a package installed from elsewhere than the archive is left out.
	for p in $list iputils-ping mtr-tiny fping passwd mount sudo fuse3 dbus polkitd uidmap \
		libgstreamer1.0-0 libcap2; do
		(cd "$dir" && apt-get download -q "$p" >/dev/null 2>&1) || true
	done
	touch "$dir/.complete"
fi
n=$(find "$dir" -name '*.deb' | wc -l)
size=$(du -sm "$dir" | cut -f1)
jobs=$(nproc)
echo "==> $n packages, $size MB, $jobs CPUs"

# Some of these packages are incomplete (their scripts run programs the audit does not
# follow), which exits 3: --allow-incomplete, as this measures only the time.
hyperfine --warmup 1 --runs "$runs" --style basic --output=null \
	--export-json "$here/bench/results/pkg.json" \
	-n floor "find $dir -name '*.deb' -print0 | xargs -0 -P $jobs -n 1 sh -c 'dpkg-deb --fsys-tarfile \"\$0\" >/dev/null'" \
	-n audit-pkg "$bin audit-pkg --from-dir $dir --threads $jobs --format json --allow-incomplete"
python3 - "$here/bench/results/pkg.json" "$n" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
n = int(sys.argv[2])
floor, ours = r["floor"]["mean"], r["audit-pkg"]["mean"]
print(f"floor      {floor:.2f} s  {n / floor:.0f} packages/s")
print(f"audit-pkg  {ours:.2f} s  {n / ours:.0f} packages/s")
print(f"ratio      {ours / floor:.2f} x the floor (target: <= 1.3)")
PY
