/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A plan as a Debian package's postinst and postrm, written the way Debian's own
 * packages of capability programs are (iputils-ping, mtr-tiny, fping): the
 * package ships each file in its state after the migration, and the postinst
 * only runs setcap, with a fallback to the state before where setcap is
 * missing or fails.  dpkg-statoverride, which Debian Policy (10.9.1) leaves to
 * the administrator, is used only for a file whose owner or group is
 * allocated at install time, which no package can ship.
 */
#ifndef S2C_PLAN_EMITDEB_H
#define S2C_PLAN_EMITDEB_H

#include <stdio.h>

struct plan;
struct rules_db;

/**
 * A Debian postinst.  Its comments say what the package must ship (each file in
 * its state after; the debian/rules lines after dh_fixperms, which clears every
 * set-ID bit, that put back what stays; Recommends: libcap2-bin), the rule of
 * each file and its sources (from @db, or NULL), and nothing of the machine the
 * plan was made on.  In "configure", for each migrate or drop entry, on the
 * file `dpkg-divert --truename` names: when the administrator has a
 * dpkg-statoverride for it, nothing; else, for a file whose owner and group
 * base-passwd allocates, setcap and the exact mode after, or where setcap is
 * missing or fails the exact owner, group and mode before (never "chmod u+s");
 * for any other owner or group, dpkg-statoverride --add with the state after,
 * that state put on the file, setcap, and where it fails the state before and
 * the override removed.  A name dpkg-statoverride cannot take literally (a
 * newline, a glob character or backslash) is a comment.
 * Returns 0, -ENOMEM or -EIO.
 */
int emit_deb(const struct plan *p, const struct rules_db *db, FILE *out);

/**
 * The matching Debian postrm: on "remove" and "purge", for each entry the
 * postinst gives an override (an owner or group allocated at install time),
 * dpkg-statoverride --remove, but only when the override is still exactly the
 * one the postinst adds (owner, group, mode and path as dpkg-statoverride
 * --list prints them); another one (the admin's, or one changed since) stays,
 * and the script says so.  Names are treated as in emit_deb().  Returns 0,
 * -ENOMEM or -EIO.
 */
int emit_deb_postrm(const struct plan *p, const struct rules_db *db, FILE *out);

#endif /* S2C_PLAN_EMITDEB_H */
