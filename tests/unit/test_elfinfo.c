/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ELF reader on small programs and libraries compiled with cc(1) during
 * the test, each in its own temporary directory, plus scripts, text and
 * malformed files.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <check.h>

#include "elfinfo.h"
#include "error.h"
#include "fixture.h"
#include "ldpath.h"
#include "suites.h"

static char *tmp;       /* per-test directory (checked fixture: one per forked test) */

static void setup(void)
{
	tmp = fx_tempdir();
}

static void teardown(void)
{
	fx_rmrf(tmp);
	free(tmp);
}

/* Run argv[0] from PATH and fail the test unless it exits 0; frees the arguments. */
static void run(char **argv)
{
	int status = 0;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "'%s' failed (status %d)",
		      argv[0], status);
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
}

/* Compile @source into @rel under tmp with cc and the NULL-terminated extra arguments. */
static void compile(const char *rel, const char *source, ...)
{
	static int counter;
	char *argv[32] = { strdup("cc"), strdup("-o"), fx_path(tmp, rel) };
	char *src = NULL, *srcpath, *parent = strdup(rel);
	size_t n = 3;
	va_list ap;

	if (strrchr(parent, '/')) {
		*strrchr(parent, '/') = '\0';
		fx_mkdirs(tmp, parent);
	}
	ck_assert_int_gt(asprintf(&src, "src-%d.c", counter++), 0);
	fx_file(tmp, src, 0644, source);
	srcpath = fx_path(tmp, src);
	argv[n++] = strdup(srcpath);
	va_start(ap, source);
	for (const char *a; (a = va_arg(ap, const char *)) && n < 31;)
		argv[n++] = strdup(a);
	va_end(ap);
	argv[n] = NULL;
	run(argv);
	(void)unlink(srcpath);
	free(srcpath);
	free(src);
	free(parent);
}

/* Load tmp/@rel with elfinfo_load_at() and fail the test on error. */
static struct elfinfo *load(const char *rel, const struct elfinfo_options *o)
{
	char *p = fx_path(tmp, rel);
	struct s2c_error err = { 0 };
	struct elfinfo *e = NULL;
	int r = elfinfo_load_at(AT_FDCWD, p, o, &e, &err);

	ck_assert_msg(r == 0, "load %s: %s (%d)", p, err.msg, r);
	ck_assert_ptr_nonnull(e);
	free(p);
	return e;
}

static const struct elfinfo_symbol *find_sym(const struct elfinfo_symbol *v, size_t n,
					     const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

static bool has_export(const struct elfinfo_lib *lib, const char *name)
{
	for (size_t i = 0; i < lib->n_exports; i++)
		if (strcmp(lib->exports[i], name) == 0)
			return true;
	return false;
}

static void assert_sorted_unique(const struct elfinfo_symbol *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		ck_assert_msg(strcmp(v[i - 1].name, v[i].name) < 0, "'%s' before '%s'",
			      v[i - 1].name, v[i].name);
}

static int open_root(const char *rel)
{
	char *p = fx_path(tmp, rel);
	int fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	free(p);
	return fd;
}

static const char src_socket[] =
	"#include <sys/socket.h>\n"
	"int main(void) {\n"
	"	int one = 1, s = socket(AF_INET, SOCK_RAW, 1);\n"
	"	return setsockopt(s, SOL_SOCKET, SO_DEBUG, &one, sizeof(one));\n"
	"}\n";

static const char src_main[] = "int main(void) { return 0; }\n";

/* A fake libpcap: exports pcap_open_live, imports socket. */
static const char src_lib[] =
	"#include <sys/socket.h>\n"
	"int pcap_version = 1;\n"
	"int pcap_open_live(void) { return socket(AF_INET, SOCK_RAW, pcap_version); }\n"
	"int x_func(void) { return 2; }\n";

static const char src_uselib[] =
	"int pcap_open_live(void);\n"
	"int main(void) { return pcap_open_live(); }\n";

START_TEST(test_imports_socket)
{
	struct elfinfo *e;
	const struct elfinfo_symbol *s;

	compile("prog", src_socket, NULL);
	e = load("prog", NULL);
	ck_assert_int_eq(e->kind, ELFINFO_ELF);
	ck_assert_uint_eq(e->elf_class, sizeof(void *) * 8);
	ck_assert_str_ne(e->machine_name, "unknown");
	ck_assert_ptr_nonnull(e->interp);
	ck_assert(!e->is_static);
	ck_assert(elfinfo_imports(e, "socket"));
	ck_assert(elfinfo_imports(e, "setsockopt"));
	ck_assert(!elfinfo_imports(e, "mount"));
	ck_assert(!elfinfo_imports(e, "main"));
	ck_assert(!e->links_libcap && !e->links_libcap_ng);
	assert_sorted_unique(e->imports, e->n_imports);
	/* Not resolved without a root, but one entry per DT_NEEDED all the same. */
	ck_assert_uint_eq(e->n_libs, e->n_needed);
	ck_assert_ptr_nonnull(elfinfo_lib_matching(e, "libc.so*"));
	ck_assert_ptr_null(elfinfo_lib_matching(e, "libc.so*")->path);
	ck_assert_ptr_null(elfinfo_lib_matching(e, "libpcap*"));
	s = find_sym(e->imports, e->n_imports, "socket");
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(s->version);
	if (e->machine == EM_X86_64 && e->elf_class == 64)
		ck_assert_str_eq(s->version, "GLIBC_2.2.5");
	else
		ck_assert_int_eq(strncmp(s->version, "GLIBC_", 6), 0);
	ck_assert_ptr_null(elfinfo_free(e));
}
END_TEST

START_TEST(test_imports_mount)
{
	struct elfinfo *e;

	compile("prog", "#include <sys/mount.h>\n"
			"int main(int c, char **v) { return c > 2 ? mount(v[1], v[2], 0, MS_BIND, 0) : 0; }\n",
		NULL);
	e = load("prog", NULL);
	ck_assert(elfinfo_imports(e, "mount"));
	ck_assert(!elfinfo_imports(e, "socket"));
	elfinfo_free(e);
}
END_TEST

START_TEST(test_libcap)
{
	struct elfinfo *e;

	compile("prog", "#include <sys/capability.h>\n#include <sys/resource.h>\n"
			"int main(void) {\n"
			"	struct rlimit r = { 0, 0 };\n"
			"	cap_t c = cap_get_proc();\n"
			"	(void)setrlimit(RLIMIT_CORE, &r);\n"
			"	return cap_set_proc(c);\n"
			"}\n",
		"-lcap", NULL);
	e = load("prog", NULL);
	ck_assert(e->links_libcap);
	ck_assert(!e->links_libcap_ng);
	ck_assert(elfinfo_imports(e, "setrlimit"));
	ck_assert(elfinfo_imports(e, "cap_set_proc"));
	ck_assert_ptr_nonnull(elfinfo_lib_matching(e, "libcap.so*"));
	elfinfo_free(e);
}
END_TEST

START_TEST(test_static)
{
	struct elfinfo *e;

	compile("prog", src_main, "-static", NULL);
	e = load("prog", NULL);
	ck_assert_int_eq(e->kind, ELFINFO_ELF);
	ck_assert(e->is_static);
	ck_assert_ptr_null(e->interp);
	ck_assert_uint_eq(e->n_needed, 0);
	ck_assert_uint_eq(e->n_imports, 0);
	ck_assert_uint_eq(e->n_libs, 0);
	elfinfo_free(e);
}
END_TEST

START_TEST(test_pie)
{
	struct elfinfo *e;

	compile("pie", src_main, "-fPIE", "-pie", NULL);
	compile("nopie", src_main, "-fno-pie", "-no-pie", NULL);
	e = load("pie", NULL);
	ck_assert(e->pie);
	ck_assert_uint_eq(e->elf_type, ET_DYN);
	elfinfo_free(e);
	e = load("nopie", NULL);
	ck_assert(!e->pie);
	ck_assert_uint_eq(e->elf_type, ET_EXEC);
	elfinfo_free(e);
}
END_TEST

/* libfakepcap.so.1 in root/@libdir, and root/@bin linked against it with @flags. */
static void build_pcap(const char *libdir, const char *bin, const char *flag1, const char *flag2)
{
	char *lib = NULL, *libpath;

	ck_assert_int_gt(asprintf(&lib, "root/%s/libfakepcap.so.1", libdir), 0);
	compile(lib, src_lib, "-shared", "-fPIC", "-Wl,-soname,libfakepcap.so.1", NULL);
	libpath = fx_path(tmp, lib);
	compile(bin, src_uselib, libpath, flag1, flag2, NULL);
	free(libpath);
	free(lib);
}

static void check_pcap_lib(const struct elfinfo *e, const char *path)
{
	const struct elfinfo_lib *lib = elfinfo_lib_matching(e, "libfakepcap.so*");

	ck_assert_ptr_nonnull(lib);
	ck_assert_str_eq(lib->soname, "libfakepcap.so.1");
	ck_assert_ptr_nonnull(lib->path);
	ck_assert_str_eq(lib->path, path);
	ck_assert(has_export(lib, "pcap_open_live"));
	ck_assert(has_export(lib, "x_func"));
	ck_assert(!has_export(lib, "pcap_version"));    /* data, not a function */
	ck_assert(!has_export(lib, "socket"));
	ck_assert_ptr_nonnull(find_sym(lib->imports, lib->n_imports, "socket"));
	assert_sorted_unique(lib->imports, lib->n_imports);
	for (size_t i = 1; i < lib->n_exports; i++)
		ck_assert_int_lt(strcmp(lib->exports[i - 1], lib->exports[i]), 0);
}

START_TEST(test_runpath_origin)
{
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1, .path = "/usr/bin/prog" };
	struct elfinfo *e;

	build_pcap("usr/lib/fake", "root/usr/bin/prog", "-Wl,-rpath,$ORIGIN/../lib/fake",
		   "-Wl,--enable-new-dtags");
	o.rootfd = open_root("root");
	e = load("root/usr/bin/prog", &o);
	ck_assert_ptr_nonnull(e->runpath);
	ck_assert_str_eq(e->runpath, "$ORIGIN/../lib/fake");
	ck_assert_ptr_null(e->rpath);
	ck_assert_uint_eq(e->n_libs, e->n_needed);
	check_pcap_lib(e, "/usr/lib/fake/libfakepcap.so.1");
	/* No libc inside this root. */
	ck_assert_ptr_null(elfinfo_lib_matching(e, "libc.so*")->path);
	elfinfo_free(e);

	/* Without the binary's own path, $ORIGIN cannot be expanded. */
	o.path = NULL;
	e = load("root/usr/bin/prog", &o);
	ck_assert_ptr_null(elfinfo_lib_matching(e, "libfakepcap.so*")->path);
	elfinfo_free(e);
	close(o.rootfd);
}
END_TEST

/* With elfinfo_options::symbols, only those imports are kept, of the program and of
 * each library; the count of all the program imports stays. */
START_TEST(test_symbols_kept)
{
	static const char *const keep[] = { "bind", "pcap_open_live", "socket", "zzz_none", NULL };
	struct elfinfo_options o = { .rootfd = -1, .path = "/usr/bin/prog" };
	struct elfinfo *all, *e;
	const struct elfinfo_lib *lib;

	build_pcap("usr/lib/fake", "root/usr/bin/prog", "-Wl,-rpath,/usr/lib/fake",
		   "-Wl,--disable-new-dtags");
	o.rootfd = open_root("root");
	all = load("root/usr/bin/prog", &o);
	o.symbols = keep;
	e = load("root/usr/bin/prog", &o);
	ck_assert_uint_gt(all->n_imports, 1);
	ck_assert_uint_eq(all->n_imports_all, all->n_imports);
	ck_assert_uint_eq(e->n_imports_all, all->n_imports);
	/* The program imports pcap_open_live (and libc's start-up), not socket or bind. */
	ck_assert_uint_eq(e->n_imports, 1);
	ck_assert_str_eq(e->imports[0].name, "pcap_open_live");
	ck_assert(elfinfo_imports(e, "pcap_open_live"));
	ck_assert(!elfinfo_imports(e, "socket"));
	/* The library imports socket and keeps it alone. */
	lib = elfinfo_lib_matching(e, "libfakepcap.so*");
	ck_assert_ptr_nonnull(lib->path);
	ck_assert_uint_eq(lib->n_imports, 1);
	ck_assert(elfinfo_lib_imports(lib, "socket"));
	ck_assert_uint_gt(elfinfo_lib_matching(all, "libfakepcap.so*")->n_imports, 1);
	ck_assert_uint_eq(e->n_libs, all->n_libs);
	ck_assert_str_eq(lib->soname, "libfakepcap.so.1");
	elfinfo_free(e);
	elfinfo_free(all);
	/* An empty list keeps nothing, and still counts. */
	o.symbols = (const char *const[]){ NULL };
	e = load("root/usr/bin/prog", &o);
	ck_assert_uint_eq(e->n_imports, 0);
	ck_assert_uint_gt(e->n_imports_all, 1);
	ck_assert(!elfinfo_imports(e, "pcap_open_live"));
	elfinfo_free(e);
	close(o.rootfd);
}
END_TEST

START_TEST(test_rpath)
{
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1, .path = "/usr/bin/prog" };
	struct elfinfo *e;

	build_pcap("usr/lib/fake", "root/usr/bin/prog", "-Wl,-rpath,/nonexistent:/usr/lib/fake",
		   "-Wl,--disable-new-dtags");
	o.rootfd = open_root("root");
	e = load("root/usr/bin/prog", &o);
	ck_assert_ptr_nonnull(e->rpath);
	ck_assert_str_eq(e->rpath, "/nonexistent:/usr/lib/fake");
	ck_assert_ptr_null(e->runpath);
	check_pcap_lib(e, "/usr/lib/fake/libfakepcap.so.1");
	elfinfo_free(e);
	close(o.rootfd);
}
END_TEST

/* ld.so in secure-execution mode ignores $ORIGIN outside the trusted directories. */
START_TEST(test_origin_untrusted)
{
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1, .path = "/opt/app/bin/prog" };
	struct elfinfo *e;

	build_pcap("opt/app/lib", "root/opt/app/bin/prog", "-Wl,-rpath,$ORIGIN/../lib", NULL);
	o.rootfd = open_root("root");
	e = load("root/opt/app/bin/prog", &o);
	ck_assert_ptr_null(elfinfo_lib_matching(e, "libfakepcap.so*")->path);
	elfinfo_free(e);
	close(o.rootfd);
}
END_TEST

START_TEST(test_ld_so_conf)
{
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1, .path = "/usr/bin/prog" };
	struct elfinfo *e;

	build_pcap("opt/fake/lib", "root/usr/bin/prog", NULL, NULL);
	fx_file(tmp, "root/etc/ld.so.conf", 0644, "# the usual\ninclude /etc/ld.so.conf.d/*.conf\n");
	fx_file(tmp, "root/etc/ld.so.conf.d/fake.conf", 0644, "  /opt/fake/lib/  # trailing comment\n");
	fx_file(tmp, "root/etc/ld.so.conf.d/other.txt", 0644, "/opt/wrong\n");
	o.rootfd = open_root("root");
	e = load("root/usr/bin/prog", &o);
	ck_assert_ptr_null(e->rpath);
	ck_assert_ptr_null(e->runpath);
	check_pcap_lib(e, "/opt/fake/lib/libfakepcap.so.1");
	elfinfo_free(e);
	close(o.rootfd);
}
END_TEST

START_TEST(test_ld_so_conf_relative_include)
{
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1 };
	struct elfinfo *e;

	build_pcap("opt/fake/lib", "root/usr/bin/prog", NULL, NULL);
	fx_file(tmp, "root/etc/ld.so.conf", 0644, "include conf.d/*.conf\ninclude /etc/loop.conf\n");
	fx_file(tmp, "root/etc/conf.d/a.conf", 0644, "/opt/nothing\n/opt/fake/lib\n");
	fx_file(tmp, "root/etc/loop.conf", 0644, "include /etc/loop.conf\n");       /* bounded */
	o.rootfd = open_root("root");
	e = load("root/usr/bin/prog", &o);
	check_pcap_lib(e, "/opt/fake/lib/libfakepcap.so.1");
	elfinfo_free(e);
	close(o.rootfd);
}
END_TEST

/* A library @soname built as root/@file, and root/usr/bin/@bin linked against it. */
static void build_soname(const char *file, const char *soname, const char *bin)
{
	char *flag = NULL, *path = fx_path(tmp, file);

	ck_assert_int_gt(asprintf(&flag, "-Wl,-soname,%s", soname), 0);
	compile(file, src_lib, "-shared", "-fPIC", flag, NULL);
	compile(bin, src_uselib, path, NULL);
	free(flag);
	free(path);
}

START_TEST(test_symlinked_soname)
{
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1 };
	const struct elfinfo_lib *lib;
	struct elfinfo *e;

	build_soname("root/usr/lib/libx.so.1.2.3", "libx.so.1", "root/usr/bin/x");
	fx_symlink(tmp, "root/usr/lib/libx.so.1", "libx.so.1.2.3");
	/* An absolute target is resolved inside the root. */
	build_soname("root/opt/real/liby.so.1", "liby.so.1", "root/usr/bin/y");
	fx_symlink(tmp, "root/usr/lib64/liby.so.1", "/opt/real/liby.so.1");
	o.rootfd = open_root("root");

	e = load("root/usr/bin/x", &o);
	lib = elfinfo_lib_matching(e, "libx.so.1");
	ck_assert_ptr_nonnull(lib);
	ck_assert_ptr_nonnull(lib->path);
	ck_assert_str_eq(lib->path, "/usr/lib/libx.so.1");
	ck_assert(has_export(lib, "pcap_open_live"));
	elfinfo_free(e);

	e = load("root/usr/bin/y", &o);
	lib = elfinfo_lib_matching(e, "liby.so.1");
	ck_assert_ptr_nonnull(lib->path);
	ck_assert_str_eq(lib->path, "/usr/lib64/liby.so.1");
	ck_assert(has_export(lib, "x_func"));
	elfinfo_free(e);
	close(o.rootfd);
}
END_TEST

START_TEST(test_symlink_limits)
{
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1 };
	char *outside;
	struct elfinfo *e;

	/* A target outside the root: as an absolute path it is looked up inside. */
	build_soname("outside/libz.so.1", "libz.so.1", "root/usr/bin/z");
	outside = fx_path(tmp, "outside/libz.so.1");
	fx_symlink(tmp, "root/usr/lib/libz.so.1", outside);
	fx_symlink(tmp, "root/usr/lib64/libz.so.1", "../../../outside/libz.so.1");
	/* Two levels: not followed. */
	build_soname("root/usr/lib/libw.so.1.0.0", "libw.so.1", "root/usr/bin/w");
	fx_symlink(tmp, "root/usr/lib/libw.so.1.0", "libw.so.1.0.0");
	fx_symlink(tmp, "root/usr/lib/libw.so.1", "libw.so.1.0");
	/* A symlinked directory: not followed. */
	fx_symlink(tmp, "root/lib", "usr/lib");
	o.rootfd = open_root("root");

	e = load("root/usr/bin/z", &o);
	ck_assert_ptr_null(elfinfo_lib_matching(e, "libz.so.1")->path);
	elfinfo_free(e);
	e = load("root/usr/bin/w", &o);
	ck_assert_ptr_null(elfinfo_lib_matching(e, "libw.so.1")->path);
	elfinfo_free(e);
	close(o.rootfd);
	free(outside);
}
END_TEST

/* Rewrite e_machine of the ELF file at tmp/@rel. */
static void set_machine(const char *rel, unsigned machine)
{
	char *p = fx_path(tmp, rel);
	unsigned char m[2], data = 0;
	int fd = open(p, O_RDWR | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &data, 1, EI_DATA), 1);
	m[data == ELFDATA2MSB ? 1 : 0] = machine & 0xff;
	m[data == ELFDATA2MSB ? 0 : 1] = (machine >> 8) & 0xff;
	ck_assert_int_eq(pwrite(fd, m, 2, 18), 2);
	close(fd);
	free(p);
}

START_TEST(test_wrong_machine_skipped)
{
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1 };
	struct elfinfo *e;
	char *real;

	build_soname("root/usr/lib/second/libm9.so.1", "libm9.so.1", "bin-tmp");
	real = fx_path(tmp, "root/usr/lib/second/libm9.so.1");
	compile("root/usr/bin/m", src_uselib, real,
		"-Wl,-rpath,/usr/lib/zero:/usr/lib/first:/usr/lib/second", NULL);
	fx_file(tmp, "root/usr/lib/zero/libm9.so.1", 0644, "not a library\n");
	compile("root/usr/lib/first/libm9.so.1", src_lib, "-shared", "-fPIC",
		"-Wl,-soname,libm9.so.1", NULL);
	e = load("root/usr/lib/first/libm9.so.1", NULL);
	set_machine("root/usr/lib/first/libm9.so.1", e->machine == EM_S390 ? EM_ARM : EM_S390);
	elfinfo_free(e);
	o.rootfd = open_root("root");
	e = load("root/usr/bin/m", &o);
	ck_assert_str_eq(elfinfo_lib_matching(e, "libm9.so.1")->path,
			 "/usr/lib/second/libm9.so.1");
	elfinfo_free(e);
	close(o.rootfd);
	free(real);
}
END_TEST

START_TEST(test_host_root)
{
	struct elfinfo_options o = { .lib_exports = true, .rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) };
	const struct elfinfo_lib *libc;
	struct elfinfo *e;

	ck_assert_int_ge(o.rootfd, 0);
	compile("prog", src_socket, NULL);
	e = load("prog", &o);
	libc = elfinfo_lib_matching(e, "libc.so*");
	ck_assert_ptr_nonnull(libc);
	ck_assert_ptr_nonnull(libc->path);
	ck_assert(has_export(libc, "socket"));
	elfinfo_free(e);
	close(o.rootfd);
}
END_TEST

START_TEST(test_strings)
{
	static const char *const strings[] = { "must be setuid root", "not in this binary", "", NULL };
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1, .strings = strings };
	struct elfinfo *e;

	compile("prog", "#include <stdio.h>\n"
			"int main(int c, char **v) { if (c > 5) puts(\"must be setuid root\");\n"
			"	return v[0][0]; }\n",
		NULL);
	e = load("prog", &o);
	ck_assert_ptr_nonnull(e->strings_found);
	ck_assert(e->strings_found[0]);
	ck_assert(!e->strings_found[1]);
	ck_assert(e->strings_found[2]);
	elfinfo_free(e);
}
END_TEST

/* Offset of the section @name in the ELF file @path, through libelf. */
static long section_offset(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	long off = -1;

	ck_assert_int_ge(fd, 0);
	(void)elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		ck_assert_ptr_nonnull(gelf_getshdr(scn, &sh));
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && strcmp(n, name) == 0)
			off = (long)sh.sh_offset;
	}
	elf_end(elf);
	close(fd);
	return off;
}

/* Offset of @needle in the file @path. */
static long file_offset(const char *path, const char *needle)
{
	FILE *f = fopen(path, "rb");
	static char buf[1 << 20];
	size_t n;
	char *hit;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	hit = memmem(buf, n, needle, strlen(needle));
	ck_assert_ptr_nonnull(hit);
	return hit - buf;
}

/* A program with @pad bytes of 'A' between "BEGIN" and the literal, in .rodata. */
static void compile_padded(const char *rel, long pad)
{
	char *src = malloc((size_t)pad + 256);
	int n = snprintf(src, 256, "const char big[] = \"BEGIN");

	memset(src + n, 'A', (size_t)pad);
	(void)snprintf(src + n + pad, 200, "must be setuid root\";\n"
		       "int main(int c, char **v) { return big[c] + v[0][0]; }\n");
	compile(rel, src, NULL);
	free(src);
}

/* A literal straddling the 64 KiB chunks of the streaming search is still found. */
START_TEST(test_strings_chunk_boundary)
{
	static const char *const strings[] = { "must be setuid root", NULL };
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1, .strings = strings };
	char *path = fx_path(tmp, "prog");
	struct elfinfo *e;
	long rel;

	compile_padded("prog", 70000);
	rel = file_offset(path, "BEGIN") - section_offset(path, ".rodata");
	ck_assert_int_ge(rel, 0);
	/* Now put the literal's 6th byte at 65536 bytes into .rodata. */
	(void)unlink(path);
	compile_padded("prog", 65536 - 5 - rel - 5);
	ck_assert_int_eq(file_offset(path, "must be setuid") - section_offset(path, ".rodata"),
			 65536 - 5);
	e = load("prog", &o);
	ck_assert(e->strings_found[0]);
	elfinfo_free(e);
	free(path);
}
END_TEST

/* The version after a prefix: the first occurrence followed by a digit; DT_SONAME. */
START_TEST(test_prefix_versions)
{
	static const char *const prefixes[] = { "beep ", "util-linux ", "absent ", NULL };
	struct elfinfo_options o = { .rootfd = -1, .prefixes = prefixes };
	struct elfinfo *e;

	compile("libx.so", "const char *v[] = { \"beep [options]\", \"beep 1.4.9\",\n"
			   "\"util-linux 2.38.1\\n\" };\nconst char *f(int i) { return v[i]; }\n",
		"-shared", "-fPIC", "-Wl,-soname,libx.so.7", NULL);
	e = load("libx.so", &o);
	ck_assert_str_eq(e->soname, "libx.so.7");
	ck_assert_uint_eq(e->n_prefix_values, 3);
	ck_assert_str_eq(e->prefix_values[0], "1.4.9");
	ck_assert_str_eq(e->prefix_values[1], "2.38.1");
	ck_assert_ptr_null(e->prefix_values[2]);
	ck_assert_ptr_null(e->strings_found);
	elfinfo_free(e);
}
END_TEST

/* A version straddling two chunks of the streaming search is read whole. */
START_TEST(test_prefix_chunk_boundary)
{
	static const char *const prefixes[] = { "beep ", NULL };
	struct elfinfo_options o = { .rootfd = -1, .prefixes = prefixes };
	char *path = fx_path(tmp, "prog"), *src = malloc(70000 + 256);
	struct elfinfo *e;
	long rel;

	for (int round = 0; round < 2; round++) {
		long pad = round ? 65536 - rel - 5 - 7 : 70000;
		int n = snprintf(src, 256, "const char big[] = \"BEGIN");

		memset(src + n, 'A', (size_t)pad);
		(void)snprintf(src + n + pad, 200, "beep 1.4.9\";\n"
			       "int main(int c, char **v) { return big[c] + v[0][0]; }\n");
		(void)unlink(path);
		compile("prog", src, NULL);
		rel = file_offset(path, "BEGIN") - section_offset(path, ".rodata");
	}
	/* "beep 1." ends the first 64 KiB of .rodata, "4.9" starts the next */
	ck_assert_int_eq(file_offset(path, "beep 1.") - section_offset(path, ".rodata"), 65536 - 7);
	e = load("prog", &o);
	ck_assert_str_eq(e->prefix_values[0], "1.4.9");
	elfinfo_free(e);
	free(src);
	free(path);
}
END_TEST

START_TEST(test_script)
{
	struct elfinfo *e;

	fx_file(tmp, "py", 0755, "#!/usr/bin/python3\nprint('hi')\n");
	e = load("py", NULL);
	ck_assert_int_eq(e->kind, ELFINFO_SCRIPT);
	ck_assert_str_eq(e->script_interp, "/usr/bin/python3");
	ck_assert_str_eq(elfinfo_kind_name(e->kind), "script");
	ck_assert_str_eq(e->machine_name, "unknown");
	elfinfo_free(e);
	fx_file(tmp, "sh", 0755, "#! /bin/sh -e\n");
	e = load("sh", NULL);
	ck_assert_str_eq(e->script_interp, "/bin/sh");
	elfinfo_free(e);
}
END_TEST

START_TEST(test_other)
{
	static const char *const strings[] = { "x", NULL };
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1, .strings = strings };
	struct elfinfo *e;

	fx_file(tmp, "text", 0644, "just some text\n");
	e = load("text", &o);
	ck_assert_int_eq(e->kind, ELFINFO_OTHER);
	ck_assert_ptr_null(e->script_interp);
	ck_assert_ptr_nonnull(e->strings_found);
	ck_assert(!e->strings_found[0]);
	elfinfo_free(e);
	fx_file(tmp, "empty", 0644, "");
	e = load("empty", NULL);
	ck_assert_int_eq(e->kind, ELFINFO_OTHER);
	elfinfo_free(e);
}
END_TEST

/* Load @data both from memory and from a file: an error with a message, or a result. */
static int load_both(const void *data, size_t size)
{
	struct s2c_error err = { 0 }, err2 = { 0 };
	struct elfinfo *e = NULL, *e2 = NULL;
	int r = elfinfo_load_mem(data, size, NULL, &e, &err), r2, fd;
	char *p = fx_path(tmp, "malformed");

	if (r < 0) {
		ck_assert_ptr_null(e);
		ck_assert_msg(err.msg[0], "no message for error %d", r);
	} else {
		ck_assert_ptr_nonnull(e);
	}
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, size), (ssize_t)size);
	close(fd);
	r2 = elfinfo_load_at(AT_FDCWD, p, NULL, &e2, &err2);
	ck_assert_int_eq(r2, r);
	if (r == 0)
		ck_assert_int_eq(e2->kind, e->kind);
	elfinfo_free(e);
	elfinfo_free(e2);
	free(p);
	return r;
}

static unsigned char *read_file(const char *rel, size_t *ret_size)
{
	char *p = fx_path(tmp, rel);
	struct stat st;
	unsigned char *buf;
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	ck_assert_int_eq(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	free(p);
	*ret_size = (size_t)st.st_size;
	return buf;
}

START_TEST(test_malformed_short)
{
	ck_assert_int_eq(load_both("", 0), 0);
	ck_assert_int_lt(load_both("\x7f" "ELF", 4), 0);
	ck_assert_int_lt(load_both("\x7f" "ELF\x02\x01\x01", 7), 0);
}
END_TEST

START_TEST(test_malformed_truncated)
{
	static const size_t cuts[] = { 5, 16, 52, 63, 64, 100, 256, 1000, 4096 };
	unsigned char *elf;
	size_t size;

	compile("prog", src_socket, NULL);
	elf = read_file("prog", &size);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		ck_assert_int_lt(load_both(elf, cuts[i]), 0);
	(void)load_both(elf, size / 2);
	ck_assert_int_lt(load_both(elf, size - 1), 0);
	ck_assert_int_eq(load_both(elf, size), 0);
	free(elf);
}
END_TEST

/* Overwrite @len bytes at @off of a copy of @elf with @value (little-endian) and load it. */
static int load_patched(const unsigned char *elf, size_t size, size_t off, size_t len,
			unsigned long long value)
{
	unsigned char *copy = malloc(size);
	int r;

	memcpy(copy, elf, size);
	for (size_t i = 0; i < len; i++)
		copy[off + i] = (unsigned char)(value >> (8 * i));
	r = load_both(copy, size);
	free(copy);
	return r;
}

START_TEST(test_malformed_headers)
{
	unsigned char *elf;
	size_t size;

	compile("prog", src_socket, NULL);
	elf = read_file("prog", &size);
	if (elf[EI_CLASS] == ELFCLASS64) {
		ck_assert_int_lt(load_patched(elf, size, 40, 8, 0xffffffffff00ULL), 0); /* e_shoff */
		ck_assert_int_lt(load_patched(elf, size, 40, 8, size - 8), 0);
		ck_assert_int_lt(load_patched(elf, size, 60, 2, 0xfeff), 0);             /* e_shnum */
		ck_assert_int_lt(load_patched(elf, size, 56, 2, 0xffff), 0);             /* e_phnum */
		ck_assert_int_lt(load_patched(elf, size, 56, 2, 0x1000), 0);
		ck_assert_int_lt(load_patched(elf, size, 32, 8, size), 0);               /* e_phoff */
		ck_assert_int_lt(load_patched(elf, size, 32, 8, size - 60), 0);
		ck_assert_int_lt(load_patched(elf, size, 58, 2, 7), 0);                  /* e_shentsize */
		(void)load_patched(elf, size, 62, 2, 0xfffe);                            /* e_shstrndx */
	}
	ck_assert_int_lt(load_patched(elf, size, EI_CLASS, 1, 7), 0);
	(void)load_patched(elf, size, EI_DATA, 1, ELFDATA2MSB);
	free(elf);
}
END_TEST

START_TEST(test_malformed_random)
{
	unsigned char buf[8192];
	unsigned seed = 12345;

	for (int round = 0; round < 20; round++) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (unsigned char)(rand_r(&seed) >> 7);
		if (round % 2)
			memcpy(buf, "\x7f" "ELF\x02\x01\x01", 7);
		(void)load_both(buf, sizeof(buf));
	}
}
END_TEST

START_TEST(test_not_regular)
{
	struct s2c_error err = { 0 };
	struct elfinfo *e = NULL;
	char *fifo = fx_path(tmp, "fifo");

	fx_mkdirs(tmp, "dir");
	fx_symlink(tmp, "link", "dir");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(elfinfo_load_at(AT_FDCWD, tmp, NULL, &e, &err), -EINVAL);
	ck_assert_int_eq(elfinfo_load_at(AT_FDCWD, fifo, NULL, &e, &err), -EINVAL);
	free(fifo);
	fifo = fx_path(tmp, "link");
	ck_assert_int_eq(elfinfo_load_at(AT_FDCWD, fifo, NULL, &e, &err), -ELOOP);
	ck_assert_ptr_null(e);
	ck_assert(err.msg[0]);
	free(fifo);
}
END_TEST

START_TEST(test_max_size)
{
	static const char big[101];
	struct elfinfo_options o = { .lib_exports = true, .rootfd = -1, .max_size = 100 };
	struct s2c_error err = { 0 };
	struct elfinfo *e = NULL;
	char *p;

	compile("prog", src_main, NULL);
	p = fx_path(tmp, "prog");
	ck_assert_int_eq(elfinfo_load_at(AT_FDCWD, p, &o, &e, &err), -EFBIG);
	ck_assert_int_eq(elfinfo_load_mem(big, sizeof(big), &o, &e, &err), -EFBIG);
	ck_assert_ptr_null(e);
	free(p);
}
END_TEST

/* On success @err is left alone. */
START_TEST(test_err_untouched)
{
	struct s2c_error err = { .code = -1, .msg = "previous" };
	struct elfinfo *e = NULL;

	ck_assert_int_eq(elfinfo_load_mem("hello", 5, NULL, &e, &err), 0);
	ck_assert_str_eq(err.msg, "previous");
	ck_assert_int_eq(e->kind, ELFINFO_OTHER);
	elfinfo_free(e);
}
END_TEST

struct thread_arg {
	const char *path;
	int rootfd;
	size_t n_imports;
	bool ok;
};

static void *load_many(void *p)
{
	struct thread_arg *a = p;
	struct elfinfo_options o = { .lib_exports = true, .rootfd = a->rootfd, .path = "/usr/bin/prog" };

	a->ok = true;
	for (int i = 0; i < 10 && a->ok; i++) {
		struct elfinfo *e = NULL;
		const struct elfinfo_lib *lib;

		a->ok = elfinfo_load_at(AT_FDCWD, a->path, &o, &e, NULL) == 0;
		lib = a->ok ? elfinfo_lib_matching(e, "libfakepcap.so.1") : NULL;
		a->ok = lib && lib->path && lib->n_exports > 0;
		a->n_imports = a->ok ? e->n_imports : 0;
		elfinfo_free(e);
	}
	return NULL;
}

START_TEST(test_threads)
{
	struct thread_arg args[4];
	pthread_t t[4];
	char *path;
	int rootfd;

	build_pcap("usr/lib/fake", "root/usr/bin/prog", "-Wl,-rpath,$ORIGIN/../lib/fake", NULL);
	rootfd = open_root("root");
	path = fx_path(tmp, "root/usr/bin/prog");
	for (int i = 0; i < 4; i++) {
		args[i] = (struct thread_arg){ .path = path, .rootfd = rootfd };
		ck_assert_int_eq(pthread_create(&t[i], NULL, load_many, &args[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		ck_assert(args[i].ok);
		ck_assert_uint_eq(args[i].n_imports, args[0].n_imports);
	}
	close(rootfd);
	free(path);
}
END_TEST

START_TEST(test_ldpath_normalise)
{
	static const char *const cases[][2] = {
		{ "/usr/bin/../lib/fake", "/usr/lib/fake" },
		{ "../../x", "/x" },
		{ "a//b/./c/", "/a/b/c" },
		{ "/..", "/" },
		{ "", "/" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *p = ldpath_normalise(cases[i][0]);

		ck_assert_str_eq(p, cases[i][1]);
		free(p);
	}
}
END_TEST

static void assert_dirs(const struct ldpath *p, const char *const *want)
{
	size_t n = 0;

	for (; want[n]; n++) {
		ck_assert_uint_gt(p->n, n);
		ck_assert_str_eq(p->dirs[n], want[n]);
	}
	ck_assert_uint_eq(p->n, n);
}

START_TEST(test_ldpath_order)
{
	static const char *const with_rpath[] = {
		"/r1", "/usr/lib/x", "/opt/a", "/usr/lib", "/lib/x86_64-linux-gnu",
		"/usr/lib/x86_64-linux-gnu", "/lib", "/lib64", "/usr/lib64", NULL,
	};
	static const char *const with_runpath[] = {
		"/run", "/opt/a", "/usr/lib", "/lib/aarch64-linux-gnu",
		"/usr/lib/aarch64-linux-gnu", "/lib", "/lib64", "/usr/lib64", NULL,
	};
	struct ldpath_request req = {
		/* relative, $LIB and untrusted or misplaced $ORIGIN elements are dropped */
		.rpath = "/r1:$ORIGIN/../lib/x:relative;$LIB/y:/r1/:$ORIGIN/../../opt:x/$ORIGIN",
		.origin = "/usr/bin",
		.machine = EM_X86_64,
		.elf_class = 64,
	};
	struct ldpath p = { 0 };
	int rootfd;

	fx_file(tmp, "root/etc/ld.so.conf", 0644, "/opt/a\n\n# comment\n/usr/lib\nhwcap 0 x\n");
	rootfd = open_root("root");
	ck_assert_int_eq(ldpath_build(rootfd, &req, &p), 0);
	assert_dirs(&p, with_rpath);
	ldpath_release(&p);
	ck_assert_uint_eq(p.n, 0);

	req.runpath = "/run";
	req.machine = EM_AARCH64;
	ck_assert_int_eq(ldpath_build(rootfd, &req, &p), 0);
	assert_dirs(&p, with_runpath);
	ldpath_release(&p);
	close(rootfd);
}
END_TEST

START_TEST(test_machine_names)
{
	ck_assert_str_eq(ldpath_machine_name(EM_X86_64, 64, false), "x86_64");
	ck_assert_str_eq(ldpath_machine_name(EM_AARCH64, 64, false), "aarch64");
	ck_assert_str_eq(ldpath_machine_name(EM_386, 32, false), "i386");
	ck_assert_str_eq(ldpath_machine_name(EM_ARM, 32, false), "arm");
	ck_assert_str_eq(ldpath_machine_name(EM_PPC64, 64, true), "ppc64");
	ck_assert_str_eq(ldpath_machine_name(EM_PPC64, 64, false), "ppc64le");
	ck_assert_str_eq(ldpath_machine_name(EM_RISCV, 64, false), "riscv64");
	ck_assert_str_eq(ldpath_machine_name(0xfff0, 64, false), "unknown");
}
END_TEST

START_TEST(test_kind_names)
{
	ck_assert_str_eq(elfinfo_kind_name(ELFINFO_ELF), "elf");
	ck_assert_str_eq(elfinfo_kind_name(ELFINFO_SCRIPT), "script");
	ck_assert_str_eq(elfinfo_kind_name(ELFINFO_OTHER), "other");
	ck_assert_ptr_null(elfinfo_kind_name(_ELFINFO_KIND_MAX));
	ck_assert_ptr_null(elfinfo_kind_name(_ELFINFO_KIND_INVALID));
	ck_assert_ptr_null(elfinfo_free(NULL));
}
END_TEST

Suite *elfinfo_suite(void)
{
	Suite *s = suite_create("elfinfo");
	TCase *tc = tcase_create("elfinfo");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_imports_socket);
	tcase_add_test(tc, test_imports_mount);
	tcase_add_test(tc, test_symbols_kept);
	tcase_add_test(tc, test_libcap);
	tcase_add_test(tc, test_static);
	tcase_add_test(tc, test_pie);
	tcase_add_test(tc, test_runpath_origin);
	tcase_add_test(tc, test_rpath);
	tcase_add_test(tc, test_origin_untrusted);
	tcase_add_test(tc, test_ld_so_conf);
	tcase_add_test(tc, test_ld_so_conf_relative_include);
	tcase_add_test(tc, test_symlinked_soname);
	tcase_add_test(tc, test_symlink_limits);
	tcase_add_test(tc, test_wrong_machine_skipped);
	tcase_add_test(tc, test_host_root);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_strings_chunk_boundary);
	tcase_add_test(tc, test_prefix_versions);
	tcase_add_test(tc, test_prefix_chunk_boundary);
	tcase_add_test(tc, test_script);
	tcase_add_test(tc, test_other);
	tcase_add_test(tc, test_malformed_short);
	tcase_add_test(tc, test_malformed_truncated);
	tcase_add_test(tc, test_malformed_headers);
	tcase_add_test(tc, test_malformed_random);
	tcase_add_test(tc, test_not_regular);
	tcase_add_test(tc, test_max_size);
	tcase_add_test(tc, test_err_untouched);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_ldpath_normalise);
	tcase_add_test(tc, test_ldpath_order);
	tcase_add_test(tc, test_machine_names);
	tcase_add_test(tc, test_kind_names);
	suite_add_tcase(s, tc);
	return s;
}
