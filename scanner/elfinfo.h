/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What an executable file tells about the privileges it may need: its kind
 * (ELF, "#!" script, anything else), ELF class and machine, the dynamic
 * symbols it imports (with their GNU symbol versions), the libraries it
 * needs, and for each of those, resolved beneath a root as ld.so would,
 * the symbols the library itself imports and exports.  Optionally it also
 * looks for literal strings in the read-only data ("must be setuid root"),
 * and reads the version that follows a literal ("beep " in "beep 1.4.9").
 *
 * All ELF structures are read through libelf (elfutils) with the gelf_*
 * interface, so 32- and 64-bit files of either byte order are handled alike.
 * The input is untrusted: a malformed file is refused with -EINVAL and a
 * message, counts are capped (ELFINFO_NEEDED_MAX, ELFINFO_SYMBOLS_MAX, ...)
 * and files larger than elfinfo_options::max_size are not read, so neither
 * memory nor time grows without bound.
 *
 * The functions keep no state between calls and may run concurrently on
 * several threads.  They never print; failures are a negative errno plus a
 * message in the optional struct s2c_error.
 */
#ifndef S2C_SCANNER_ELFINFO_H
#define S2C_SCANNER_ELFINFO_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include "cleanup.h"

struct s2c_error;

/** Most DT_NEEDED entries accepted; a file with more is malformed. */
#define ELFINFO_NEEDED_MAX 65536
/** Most dynamic symbols accepted in one object; a file with more is malformed. */
#define ELFINFO_SYMBOLS_MAX (1 << 20)
/** Most bytes of symbol names kept for one object; a file with more is malformed. */
#define ELFINFO_NAMES_MAX (64 << 20)
/** Most DT_NEEDED libraries resolved; entries after these keep path == NULL. */
#define ELFINFO_LIBS_MAX 256
/** Default for elfinfo_options::max_size. */
#define ELFINFO_SIZE_DEFAULT (256u << 20)

/** What kind of file was read. */
enum elfinfo_kind {
	ELFINFO_ELF,            /**< an ELF object (executable, PIE, shared object, ...) */
	ELFINFO_SCRIPT,         /**< starts with "#!": the kernel runs an interpreter */
	ELFINFO_OTHER,          /**< anything else (text, empty, unknown binary format) */
	_ELFINFO_KIND_MAX,
	_ELFINFO_KIND_INVALID = -EINVAL,
};

/** One imported (undefined) dynamic symbol. */
struct elfinfo_symbol {
	char *name;             /**< owned; e.g. "socket" */
	char *version;          /**< owned; the version required through .gnu.version and
				     .gnu.version_r, e.g. "GLIBC_2.2.5"; NULL when unversioned */
};

/** One DT_NEEDED library of an ELF object. */
struct elfinfo_lib {
	char *soname;           /**< owned; the DT_NEEDED string, e.g. "libpcap.so.0.8" */
	char *path;             /**< owned; where the library was found, absolute relative to
				     the root ("/usr/lib/x86_64-linux-gnu/libpcap.so.0.8": the name
				     ld.so opens, even when that is a symlink); NULL when not found
				     or not resolved */
	struct elfinfo_symbol *imports; /**< owned; the library's own undefined dynamic
					     symbols (what it calls), sorted by name, unique */
	size_t n_imports;
	char **exports;         /**< owned; the library's defined dynamic function symbols,
				     sorted, unique */
	size_t n_exports;
};

/**
 * Everything read from one file.  All pointers are owned by the object and
 * freed by elfinfo_free(), except machine_name, which is static.  Fields
 * after script_interp are only set for ELFINFO_ELF (zero, NULL or "unknown"
 * otherwise), except strings_found.
 */
struct elfinfo {
	enum elfinfo_kind kind;
	char *script_interp;    /**< ELFINFO_SCRIPT: the interpreter path of the "#!" line ("" when
				     the line names none); NULL otherwise */
	unsigned elf_class;     /**< 32 or 64 */
	unsigned machine;       /**< e_machine (EM_X86_64, EM_AARCH64, ...) */
	const char *machine_name; /**< static: "x86_64", "aarch64", "i386", "arm", ... or
				       "unknown" (also for non-ELF files) */
	unsigned elf_type;      /**< e_type (ET_EXEC, ET_DYN, ...) */
	bool pie;               /**< ET_DYN with PT_INTERP, or DF_1_PIE set */
	bool is_static;         /**< no PT_INTERP and no DT_NEEDED (static or static-pie) */
	char *interp;           /**< PT_INTERP ("/lib64/ld-linux-x86-64.so.2"), NULL if none */
	char **needed;          /**< DT_NEEDED strings in file order */
	size_t n_needed;
	char *rpath;            /**< DT_RPATH, NULL if none */
	char *runpath;          /**< DT_RUNPATH, NULL if none */
	struct elfinfo_symbol *imports; /**< undefined dynamic symbols, sorted by name, unique;
					     only those of elfinfo_options::symbols when it was
					     given */
	size_t n_imports;
	size_t n_imports_all;   /**< how many distinct symbols the object imports, kept or not */
	bool links_libcap;      /**< a DT_NEEDED entry is libcap.so.* */
	bool links_libcap_ng;   /**< a DT_NEEDED entry is libcap-ng.so.* */
	struct elfinfo_lib *libs; /**< one per DT_NEEDED, in the same order as @needed; path and
				       symbols are only filled when resolved under a root */
	size_t n_libs;
	bool *strings_found;    /**< when elfinfo_options::strings was given (for every kind):
				     parallel to it, true when the literal occurs in read-only data;
				     NULL otherwise */
	char *soname;           /**< DT_SONAME (a shared object's own name), NULL if none */
	char **prefix_values;   /**< when elfinfo_options::prefixes was given: parallel to it, the
				     version that follows the first occurrence of the prefix in
				     read-only data (a digit, then up to 31 more of digits, letters
				     and ". + ~ _ -"), NULL when none does */
	size_t n_prefix_values;
};

/** How to load.  A NULL options pointer means { .rootfd = -1 }. */
struct elfinfo_options {
	int rootfd;             /**< the root against which DT_NEEDED libraries are resolved (an
				     O_PATH directory fd standing for "/", or an image root), or -1
				     to not resolve them.  Note that 0 is a valid fd: set -1. */
	const char *path;       /**< the file's own path relative to the root ("/usr/bin/ping"),
				     for $ORIGIN in DT_RPATH/DT_RUNPATH, which is expanded as ld.so
				     does for setuid programs (see ldpath.h); optional (NULL:
				     elements using $ORIGIN are skipped) */
	const char *const *strings; /**< NULL-terminated literals to look for in read-only data,
					 or NULL.  A literal matches as a byte substring of an
					 allocated, non-writable, non-executable SHT_PROGBITS section
					 (.rodata, ...); "" always matches an ELF file with such data */
	const char *const *prefixes; /**< NULL-terminated literals after which a version is
					  read from the same data (e.g. "beep " for "beep 1.4.9"),
					  or NULL */
	const char *const *symbols; /**< NULL-terminated and sorted by strcmp(): the only
					 imported symbols to keep, of the object and of each
					 library, or NULL to keep them all.  Whoever asks
					 elfinfo_imports() and elfinfo_lib_imports() only about
					 these spares a copy of every other name */
	bool lib_exports;       /**< also collect each resolved library's exported functions
				     (elfinfo_lib::exports); off, they stay empty: sorting a
				     libc's symbols for every binary is most of the cost */
	size_t max_size;        /**< refuse larger files with -EFBIG (0: ELFINFO_SIZE_DEFAULT);
				     also applies to each library */
};

/**
 * Read the file open on @fd (borrowed; read with pread(2), so its offset is
 * unchanged; it must be a regular file).
 * @opts  optional, borrowed for the call only.
 * @ret   on success receives a new object; free it with elfinfo_free().
 *        Left untouched on failure.
 * @err   optional; on failure holds a message naming what is wrong.
 * A file that is not ELF is not an error: it loads as ELFINFO_SCRIPT or
 * ELFINFO_OTHER.  When opts->rootfd is set, each DT_NEEDED library is
 * searched for as ldpath.h describes; a candidate of another class or
 * machine is skipped as ld.so skips it, and so is one that is not ELF or is
 * malformed (where ld.so would fail); a library not found keeps path NULL.
 * Returns 0, or -EINVAL for a malformed ELF file (or not a regular file),
 * -EFBIG when larger than max_size, -ENOMEM, -EIO and other read errors.
 */
int elfinfo_load_fd(int fd, const struct elfinfo_options *opts, struct elfinfo **ret,
		    struct s2c_error *err);

/**
 * Like elfinfo_load_fd() on @name relative to @dirfd, which is opened with
 * O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_NOCTTY|O_CLOEXEC after checking it is a
 * regular file (so a symlink fails with -ELOOP and a device is never
 * opened).  Remember to set opts->path for $ORIGIN.
 */
int elfinfo_load_at(int dirfd, const char *name, const struct elfinfo_options *opts,
		    struct elfinfo **ret, struct s2c_error *err);

/**
 * Like elfinfo_load_fd() on @size bytes at @data (borrowed, never modified;
 * libelf works on a private copy).  Used by the fuzzer.
 */
int elfinfo_load_mem(const void *data, size_t size, const struct elfinfo_options *opts,
		     struct elfinfo **ret, struct s2c_error *err);

/** Free @e and everything it owns.  Accepts NULL; returns NULL. */
struct elfinfo *elfinfo_free(struct elfinfo *e);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct elfinfo *, elfinfo_free)

/** True when @e (an ELF file) imports the dynamic symbol @symbol (binary search). */
bool elfinfo_imports(const struct elfinfo *e, const char *symbol);

/** True when library @lib itself imports @symbol (by name). */
bool elfinfo_lib_imports(const struct elfinfo_lib *lib, const char *symbol);

/**
 * The first DT_NEEDED library of @e whose soname matches the fnmatch(3) glob
 * @soname_glob (e.g. "libpcap.so*"), whether it was resolved or not.
 * Returns a pointer into @e (valid until elfinfo_free()), or NULL.
 */
const struct elfinfo_lib *elfinfo_lib_matching(const struct elfinfo *e, const char *soname_glob);

/** Stable name of a kind: "elf", "script", "other"; NULL for values out of range. */
const char *elfinfo_kind_name(enum elfinfo_kind k);

#endif /* S2C_SCANNER_ELFINFO_H */
