#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run one unit suite as nobody, without groups or capabilities: the proof that
# it needs neither privilege nor files of its own.  Run by root only (a user
# runs every suite as themselves already).
set -eu
unit=$1
suite=$2
srcdir=$3
if [ "$(id -u)" != 0 ]; then
	echo "skip: not root; unit.$suite already runs as $(id -un)"
	exit 77
fi
nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$@"
}
if ! nobody test -x "$unit" || ! nobody test -r "$srcdir/db/capabilities.json"; then
	echo "skip: nobody cannot reach $unit or $srcdir/db"
	exit 77
fi
nobody "$unit" "$suite"
