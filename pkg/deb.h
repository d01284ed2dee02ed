/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a Debian binary package (deb(5)): an ar archive whose members are
 * debian-binary ("2.x"), control.tar[.gz|.xz|.zst] and data.tar[.gz|.xz|.zst|
 * .bz2|.lzma], in that order (extra members starting with "_" are skipped, as
 * dpkg does).  The control archive gives the package's name, version and
 * architecture and its preinst and postinst, which maintscript.h analyses
 * before the data archive is read, so the files they change are known while
 * the data streams past: each compressed member is decompressed once, and
 * only the members target_wants() asks for are kept.
 */
#ifndef S2C_PKG_DEB_H
#define S2C_PKG_DEB_H

struct s2c_error;
struct stage;
struct target;
struct target_select;

/** Largest control file or maintainer script read, in bytes. */
#define DEB_CONTROL_MAX (1u << 20)

/**
 * Read the .deb open on @fd (borrowed; read from its current offset) named
 * @source in messages, keeping what @sel asks for in a new stage @stage_name
 * inside @run.
 * Returns 0 with a new target in @ret, or -errno.  A package that is corrupt,
 * truncated, hostile or over a limit is not an error of the call: the target
 * comes back with t->error set (and no stage), so a batch goes on.
 */
int deb_read(int fd, const char *source, const struct target_select *sel, struct stage *run,
	     const char *stage_name, struct target **ret);

#endif /* S2C_PKG_DEB_H */
