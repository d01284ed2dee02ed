/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the dynamic linker would look for an object's DT_NEEDED libraries,
 * computed for a root directory (the host's "/" or a mounted image).
 *
 * The order follows ld.so(8) for a secure-execution (setuid or file
 * capability) program: DT_RPATH when there is no DT_RUNPATH, then
 * DT_RUNPATH, then the directories of the root's /etc/ld.so.conf (with its
 * "include" globs), then the multiarch directories of the object's machine
 * (/lib/<triplet>, /usr/lib/<triplet>) and the generic /lib, /usr/lib,
 * /lib64, /usr/lib64.  LD_LIBRARY_PATH is never consulted: ld.so ignores it
 * in secure-execution mode.  The binary /etc/ld.so.cache is not read; the
 * configuration it is built from stands in for it.
 *
 * Every file is opened beneath the root: directories without following any
 * symlink (resolve_open()), the library name itself allowing exactly one
 * symlink, because sonames are nearly always symlinks to the real file.
 */
#ifndef S2C_SCANNER_LDPATH_H
#define S2C_SCANNER_LDPATH_H

#include <stdbool.h>
#include <stddef.h>

/** Most directories one search list holds; later ones are dropped. */
#define LDPATH_DIRS_MAX 1024

/** What the search list of one object depends on.  All strings are borrowed. */
struct ldpath_request {
	const char *rpath;      /**< DT_RPATH or NULL; ignored when @runpath is set */
	const char *runpath;    /**< DT_RUNPATH or NULL */
	const char *origin;     /**< directory of the object for $ORIGIN ("/usr/bin"), relative
				     to the root; NULL when unknown: entries using it are dropped */
	unsigned machine;       /**< e_machine of the object, picks the multiarch triplets */
	unsigned elf_class;     /**< 32 or 64 */
	bool big_endian;        /**< EI_DATA is ELFDATA2MSB */
};

/** An ordered list of directories to search. */
struct ldpath {
	char **dirs;            /**< owned; absolute, normalised paths relative to the root,
				     without duplicates, in search order */
	size_t n;               /**< number of entries in @dirs */
};

/**
 * Build the search list for one object.
 * @rootfd  the root (an O_PATH directory fd) whose /etc/ld.so.conf is read;
 *          a missing or unreadable configuration only leaves its part out.
 * @req     the object's properties; borrowed.
 * @ret     on success receives the list; release it with ldpath_release().
 *          Left untouched on failure.
 * Entries that ld.so would resolve against the current directory (relative
 * ones, empty ones) and entries with dynamic string tokens other than
 * $ORIGIN ($LIB, $PLATFORM) are dropped, since they depend on the process
 * that runs the program, not on the file.
 * Returns 0, or -ENOMEM.
 */
int ldpath_build(int rootfd, const struct ldpath_request *req, struct ldpath *ret);

/** Free the directories of @p and reset it to empty; accepts an empty list. */
void ldpath_release(struct ldpath *p);

/**
 * Open the library @name in directory @dir for reading, beneath @rootfd.
 * The directory is opened with resolve_open(), so no component of it may be
 * a symlink.  @name may be a symlink, followed once: a target without '/' is
 * opened in the same directory; any other target is resolved with
 * openat2(RESOLVE_IN_ROOT), so neither ".." nor an absolute target can leave
 * the root.  The opened file must itself not be a symlink.  Anything but a
 * regular file (devices, FIFOs, directories) is refused before it is opened.
 * @rootfd  the root directory fd.
 * @dir     an absolute directory relative to the root ("/usr/lib").
 * @name    a file name without '/' ("libpcap.so.0.8").
 * Returns a new fd (O_RDONLY|O_CLOEXEC; the caller closes it) or -errno:
 * -ENOENT when absent, -ELOOP for a symlink chain, -EINVAL for a non-regular
 * file, -ENOMEM.
 */
int ldpath_open(int rootfd, const char *dir, const char *name);

/**
 * Look for the library @name as ld.so would and let @accept judge each
 * candidate.  A @name containing '/' is a path: an absolute one is opened
 * beneath the root, a relative one (it depends on the working directory of
 * the process) is never found.  Any other name is opened with ldpath_open()
 * in each directory of @lp in turn; candidates that cannot be opened are
 * skipped.
 * @rootfd    the root directory fd.
 * @lp        the search list from ldpath_build(); borrowed.
 * @name      the DT_NEEDED string.
 * @accept    called with each opened candidate (the fd is closed afterwards)
 *            and @userdata; returns 1 to take it, 0 to keep searching (as
 *            ld.so does for a library of another class or machine), or
 *            -errno to stop the search.
 * @ret_path  on a match receives the candidate's normalised path relative to
 *            the root, e.g. "/usr/lib/libpcap.so.0.8" (free() it); untouched
 *            otherwise.
 * Returns 1 when a candidate was taken, 0 when none was, or -errno from
 * @accept or -ENOMEM.
 */
int ldpath_find(int rootfd, const struct ldpath *lp, const char *name,
		int (*accept)(int fd, void *userdata), void *userdata, char **ret_path);

/**
 * Normalise an absolute or relative path lexically, as RESOLVE_IN_ROOT
 * would: the result is absolute, "." and empty components are removed and
 * ".." removes the previous component (never climbing above "/").
 * Returns a new string (free() it) or NULL on OOM.
 */
char *ldpath_normalise(const char *path);

/**
 * Short name of an ELF machine as used by uname(1) and Debian's multiarch
 * tuples: "x86_64", "aarch64", "i386", "arm", "ppc64le", "riscv64", ...
 * @machine     e_machine
 * @elf_class   32 or 64 (some machines have one name per class)
 * @big_endian  EI_DATA is ELFDATA2MSB (some machines are named by byte order)
 * Returns a static string, "unknown" for machines not in the table.
 */
const char *ldpath_machine_name(unsigned machine, unsigned elf_class, bool big_endian);

#endif /* S2C_SCANNER_LDPATH_H */
