#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One entry point for a fresh Debian 12 machine (run as root, or with sudo):
#
#   tools/dev.sh audit   install what the build needs, build, audit this machine
#                        (arguments go to `suid2cap audit`; relative paths, -o
#                        included, are relative to the current directory); the
#                        build log goes to standard error, the report alone to
#                        standard output; learn is built without its BPF
#                        mechanism (ptrace only), whatever is installed
#   tools/dev.sh test    install the build and test dependencies, build, run every
#                        test: gcc, clang, and ASan+UBSan builds, header and
#                        man-page lint, then the packages (tools/package.sh)
#   tools/dev.sh package install the dependencies, build the .deb and the .rpm,
#                        lintian, and test the .deb in a throwaway root
#   tools/dev.sh deps    only install the build and test dependencies
#
# apt-get (the packages below, when missing) and npm (one schema file into
# build/test-deps/, its cache in a temporary directory) are all that change the
# machine outside build/: the tests keep to temporary directories and throwaway
# copies of the system, and the host manifest tests check that they did.  As a
# normal user, apt-get runs through sudo and everything else as you; the tests
# that need root then skip (exit 77), the package test included.
#
set -eu

# Files the build stages (the rules database) must not be group-writable:
# as root, suid2cap refuses a database others could have changed.
umask 022

caller=$(pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

# What the build needs, from Debian.
BUILD_PACKAGES="gcc make cmake pkg-config libcap-dev libelf-dev libjson-c-dev nettle-dev
zlib1g-dev librpm-dev libsqlite3-dev libarchive-dev"
# What the tests, the packages, the BPF mechanism of learn and the benchmarks
# need on top.
TEST_PACKAGES="clang libclang-rt-14-dev check
libbpf-dev bpftool
libcap2-bin acl util-linux findutils bfs hyperfine time mandoc shellcheck
python3 python3-jsonschema python3-pil chromium fonts-dejavu-core
iputils-ping iputils-arping iputils-clockdiff mtr-tiny fping rpm
dpkg-dev debhelper lintian bash-completion zsh ansible iproute2 debian-archive-keyring umoci
skopeo"

# The SARIF 2.1.0 JSON Schema the audit tests validate against (draft-04), taken from
# an npm package because Debian ships none; kept out of git under build/test-deps/.
SARIF_PKG="@microsoft/jest-sarif@1.0.0-beta.0"
SARIF_FILE="package/lib/schemas/sarif-2.1.0-rtm.5.json"
SARIF_SCHEMA="build/test-deps/sarif-2.1.0.json"

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

# install PACKAGE...: those of them that are missing
install_missing() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
			missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "==> installing:$missing"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
		# shellcheck disable=SC2086 # word splitting of the package list is wanted
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
	fi
}

deps() {
	# npm fetches the SARIF schema; Debian's when the machine has none of its own
	npm=""
	command -v npm >/dev/null 2>&1 || npm="nodejs npm"
	# shellcheck disable=SC2086 # word splitting of the package lists is wanted
	install_missing $BUILD_PACKAGES $TEST_PACKAGES $npm
	sarif_schema
}

sarif_schema() {
	[ -s "$SARIF_SCHEMA" ] && return 0
	echo "==> SARIF 2.1.0 schema from npm $SARIF_PKG"
	tmp=$(mktemp -d)
	# npm's cache and logs stay in the temporary directory, not in ~/.npm
	(cd "$tmp" && npm pack --silent --cache "$tmp/npm-cache" "$SARIF_PKG" >/dev/null &&
		tar -xzf ./*.tgz "$SARIF_FILE")
	mkdir -p "$(dirname "$SARIF_SCHEMA")"
	cp "$tmp/$SARIF_FILE" "$SARIF_SCHEMA.part"
	mv "$SARIF_SCHEMA.part" "$SARIF_SCHEMA"
	rm -rf "$tmp"
}

# build PRESET [CMAKE-OPTION...]
build() {
	preset=$1
	shift
	echo "==> build ($preset)"
	cmake --preset "$preset" "$@" >/dev/null
	cmake --build --preset "$preset" -j "$(nproc)"
}

# The .deb and the .rpm, built and checked; then the .deb installed in a throwaway
# root, which needs root: without it that test says so with 77, a skip.
packages() {
	tools/package.sh deb
	tools/package.sh rpm
	rc=0
	tools/package.sh test || rc=$?
	if [ "$rc" -eq 77 ]; then
		echo "==> packages: installing the .deb in a throwaway root needs root, skipped"
	elif [ "$rc" -ne 0 ]; then
		exit "$rc"
	fi
}

run_tests() {
	preset=$1
	echo "==> test ($preset)"
	ctest --preset "$preset" -j "$(nproc)"
}

lint() {
	echo "==> lint: headers compile on their own"
	cmake --build build/dev --target check-headers -j "$(nproc)"
	echo "==> lint: man pages"
	for m in docs/*.[0-9]; do
		out=$(mandoc -Tlint -W warning "$m" || true)
		if [ -n "$out" ]; then
			echo "$out"
			exit 1
		fi
	done
	echo "==> lint: shell scripts"
	shellcheck tools/*.sh bench/*.sh .ci/run debian/suid2cap.postrm
}

case "${1:-}" in
deps)
	deps
	;;
audit)
	# Only what the audit needs, the same build every time: learn's BPF mechanism needs
	# libbpf-dev, bpftool and clang (tools/dev.sh deps), so it is left out here rather
	# than built in one run and not the next.  Standard output is the report's.
	{
		# shellcheck disable=SC2086 # word splitting of the package list is wanted
		install_missing $BUILD_PACKAGES
		build release -DS2C_BPF=OFF
	} >&2
	shift
	cd "$caller"
	echo "==> audit: suid2cap audit $*" >&2
	exec "$here/build/release/cli/suid2cap" audit "$@"
	;;
package)
	deps
	packages
	;;
test)
	deps
	build dev
	lint
	echo "==> lint build (gcc -O2, _FORTIFY_SOURCE=3, -Werror)"
	build lint
	run_tests dev
	build clang
	run_tests clang
	build asan
	ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 run_tests asan
	echo "==> test (asan, Check without fork so LeakSanitizer sees test bodies)"
	# every suite the runner has (its usage line lists them) but harness_fail, which
	# fails on purpose
	suites=$({ ./build/asan/tests/unit/s2c-unit || true; } 2>&1 | sed -n 's/^suites: //p')
	[ -n "$suites" ] || { echo "dev.sh: no suites listed by s2c-unit" >&2; exit 1; }
	for s in $suites; do
		[ "$s" != harness_fail ] || continue
		CK_FORK=no ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
			UBSAN_OPTIONS=halt_on_error=1 ./build/asan/tests/unit/s2c-unit "$s"
	done
	echo "==> packages"
	packages
	echo "==> all tests passed"
	;;
*)
	echo "usage: $0 audit|test|package|deps" >&2
	exit 2
	;;
esac
