#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build and check the distribution packages of this tree, each from a copy of
# it under build/pkg (dpkg-buildpackage writes beside its source directory and
# into debian/, rpmbuild into its top directory: neither touches the checkout):
#
#   tools/package.sh deb    build/pkg/suid2cap_VERSION_ARCH.deb with
#                           dpkg-buildpackage -us -uc -b, then lintian: no error
#                           or warning (overrides only with a reason)
#   tools/package.sh rpm    build/pkg/suid2cap-VERSION-1.ARCH.rpm with rpmbuild
#                           (Debian's is enough), then its file list
#   tools/package.sh test   install the .deb in a throwaway overlay of / in a
#                           private mount namespace and use it there (as root;
#                           the machine itself is not changed)
#   tools/package.sh all    all three
#
set -eu
umask 022

here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/build/pkg
version=$(sed -n 's/^project(suid2cap VERSION \([0-9.]*\) .*/\1/p' "$here/CMakeLists.txt")

die() {
	echo "package.sh: $*" >&2
	exit 1
}

# The tree as a commit would hold it (tracked files and new ones git does not
# ignore), or everything but build/ outside a git checkout.
export_tree() {
	rm -rf "$1"
	mkdir -p "$1"
	if git -C "$here" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$here" && git ls-files -z --cached --others --exclude-standard |
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -C "$1" -xf -
	else
		(cd "$here" && tar --exclude=./build -cf - .) | tar -C "$1" -xf -
	fi
}

deb() {
	v=$(dpkg-parsechangelog -l "$here/debian/changelog" -S Version)
	[ "$v" = "$version" ] || die "debian/changelog says $v, CMakeLists.txt $version"
	echo "==> deb: dpkg-buildpackage -us -uc -b"
	src=$out/deb/suid2cap-$version
	rm -rf "$out/deb"
	export_tree "$src"
	(cd "$src" && DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS-}" \
		dpkg-buildpackage -us -uc -b)
	arch=$(dpkg-architecture -qDEB_HOST_ARCH)
	changes=$out/deb/suid2cap_${version}_$arch.changes
	[ -f "$changes" ] || die "no $changes"
	rm -f "$out"/suid2cap_*.deb
	cp "$out/deb/suid2cap_${version}_$arch.deb" "$out/"
	echo "==> deb: lintian"
	lintian --fail-on error,warning "$changes"
	echo "==> $out/suid2cap_${version}_$arch.deb"
}

rpm_() {
	spec=$here/dist/rpm/suid2cap.spec
	v=$(sed -n 's/^Version: *//p' "$spec")
	[ "$v" = "$version" ] || die "dist/rpm/suid2cap.spec says $v, CMakeLists.txt $version"
	echo "==> rpm: rpmbuild -bb"
	top=$out/rpmbuild
	rm -rf "$top"
	mkdir -p "$top/SOURCES" "$top/tmp"
	export_tree "$top/tmp/suid2cap-$version"
	tar -C "$top/tmp" -czf "$top/SOURCES/suid2cap-$version.tar.gz" "suid2cap-$version"
	rm -rf "$top/tmp/suid2cap-$version"
	# --nodeps: the BuildRequires name Fedora's packages, which Debian has under
	# other names (tools/dev.sh deps installs them)
	rpmbuild --nodeps --define "_topdir $top" --define "_tmppath $top/tmp" \
		--define "_smp_build_ncpus $(nproc)" -bb "$spec"
	rm -f "$out"/suid2cap-*.rpm
	find "$top/RPMS" -name "suid2cap-$version-*.rpm" -exec cp {} "$out/" \;
	for f in "$out"/suid2cap-"$version"-*.rpm; do
		[ -f "$f" ] || die "no rpm built"
		echo "==> $f"
		list=$(rpm -qlp "$f")
		for want in /usr/sbin/suid2cap /usr/share/suid2cap/db/network.json \
			/usr/share/suid2cap/db/capabilities.json /usr/share/suid2cap/schema/audit.schema.json \
			/usr/share/bash-completion/completions/suid2cap /usr/share/zsh/site-functions/_suid2cap \
			/usr/lib/systemd/system/suid2cap-verify.service /usr/lib/systemd/system/suid2cap-verify.timer \
			/etc/suid2cap/rules.d/README /usr/share/man/man8/suid2cap.8 /usr/share/doc/suid2cap/RULES.md; do
			printf '%s\n' "$list" | grep -qx "$want" || die "$f lacks $want"
		done
		rpm -qp --configfiles "$f" | grep -qx /etc/suid2cap/rules.d/README ||
			die "$f: /etc/suid2cap/rules.d/README is not a configuration file"
		printf '%s\n' "$list"
	done
}

test_() {
	arch=$(dpkg-architecture -qDEB_HOST_ARCH)
	debfile=$out/suid2cap_${version}_$arch.deb
	[ -f "$debfile" ] || die "no $debfile: run '$0 deb' first"
	echo "==> test: the .deb installed in an overlay of / in a private mount namespace"
	/usr/bin/python3 "$here/tests/pkg/test_deb.py" "$debfile"
}

case "${1:-}" in
deb) deb ;;
rpm) rpm_ ;;
test) test_ ;;
all)
	deb
	rpm_
	test_
	;;
*)
	echo "usage: $0 deb|rpm|test|all" >&2
	exit 2
	;;
esac
