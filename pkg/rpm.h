/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading an rpm package: librpm reads the header (name, version, release,
 * epoch, architecture; every file's mode, owner and group names, size, link
 * target and %caps; the %pre, %post and %posttrans scripts), libarchive the
 * compressed cpio payload that follows it.  The header comes first, so the
 * files worth keeping are known before the payload streams past, and the
 * payload is decompressed once.  Signatures are not checked (no keyring is
 * configured); the header's own digests are, by librpm.
 *
 * librpm keeps process-wide state (macros, its log), so header reading is
 * serialised with one lock; payloads are read in parallel.  librpm's log
 * messages are captured into the error, never printed.
 */
#ifndef S2C_PKG_RPM_H
#define S2C_PKG_RPM_H

struct stage;
struct target;
struct target_select;

/**
 * Read the rpm open on @fd (borrowed; from offset 0) named @source, as
 * deb_read() does for a .deb: 0 with a new target in @ret (t->error set when
 * the package could not be read), or -ENOMEM.
 */
int rpm_read(int fd, const char *source, const struct target_select *sel, struct stage *run,
	     const char *stage_name, struct target **ret);

#endif /* S2C_PKG_RPM_H */
