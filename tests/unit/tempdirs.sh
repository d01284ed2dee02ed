#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A unit test that fails in its forked child never reaches its teardown: the
# runner must still remove the tree it made (here with a set-ID file) from
# $TMPDIR.  Runs the harness_fail suite, which fails on purpose.
set -u
unit=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
TMPDIR=$tmp "$unit" harness_fail
rc=$?
if [ "$rc" != 1 ]; then
	echo "FAIL: harness_fail exited $rc, not 1 (one failed test)"
	exit 1
fi
left=$(find "$tmp" -mindepth 1)
if [ -n "$left" ]; then
	echo "FAIL: left behind in \$TMPDIR:"
	echo "$left"
	exit 1
fi
echo "ok: the failed test's tree was removed"
