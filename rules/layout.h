/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where distributions put a program.  The same file is /bin/ping on an old
 * Debian, /usr/bin/ping on a merged-/usr system and /usr/sbin/ping merged
 * into /usr/bin on Arch and Fedora 42; a helper is in /usr/lib/PKG (Debian),
 * /usr/lib/<multiarch>/PKG, /usr/lib64/PKG or /usr/libexec/PKG (Fedora,
 * openSUSE).  The rules name a program where one distribution installs it,
 * and the matcher (rules/match.h) finds it in every layout through two forms
 * of a path or glob:
 *
 *  - the layout form: /usr merged (/bin, /sbin, /lib, /lib64 are /usr's),
 *    sbin merged into bin, and lib64, libexec, a multiarch directory
 *    (x86_64-linux-gnu, or the glob '*' in its place) and a libexec below it
 *    folded into lib: /sbin/mount.nfs and /usr/bin/mount.nfs are both
 *    /usr/bin/mount.nfs, /usr/lib/x86_64-linux-gnu/libexec/kf5/start_kdeinit
 *    and /usr/libexec/kf5/start_kdeinit both /usr/lib/kf5/start_kdeinit;
 *  - the package-directory form, for a helper directly in the lib
 *    directory or one package directory below it: /usr/lib/gvfs/gvfsd-nfs
 *    is /usr/lib/gvfsd-nfs in the package directory 'gvfs', which the
 *    matcher accepts only for a rule of that project or package.
 *
 * Internal: match layout ruleparse.
 */
#ifndef S2C_RULES_LAYOUT_H
#define S2C_RULES_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

/**
 * The layout form of @path, an absolute path or glob (rules/glob.h), into
 * @buf of @size bytes.  Only literal leading components are rewritten; the
 * rest is copied as it is.  Returns the length, or -ENAMETOOLONG when it
 * does not fit (@buf is then undefined).
 */
int layout_form(const char *path, char *buf, size_t size);

/**
 * The package-directory form of the layout form @form: for /usr/lib/NAME,
 * @ret_flat is NAME and @ret_dir is NULL; for /usr/lib/DIR/NAME, @ret_flat
 * is NAME and @ret_dir is DIR with its length in @ret_dir_len.  Both point
 * into @form (borrowed).  Returns false, writing nothing, for any other
 * path (deeper, or not in the lib directory).
 */
bool layout_package_dir(const char *form, const char **ret_flat, const char **ret_dir,
			size_t *ret_dir_len);

/** True when @component (of @len bytes) is a multiarch tuple such as x86_64-linux-gnu. */
bool layout_multiarch(const char *component, size_t len);

#endif /* S2C_RULES_LAYOUT_H */
