/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Package databases: owner, version and digest from dpkg, apk and pacman
 * databases written here in their documented formats (rpm needs rpm's own
 * tools to build one: tests/cli/test_decide.py), the digest comparison of
 * host_package_digest(), and version comparison.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>
#include <zlib.h>

#include "dirlist.h"
#include "fixture.h"
#include "hash.h"
#include "host.h"
#include "pkgdb.h"
#include "pkgdb-backend.h"
#include "suites.h"
#include "util.h"

static char *root;

static void setup(void)
{
	root = fx_tempdir();
}

static void teardown(void)
{
	fx_rmrf(root);
	free(root);
}

static struct pkgdb_entry *lookup_thrice(int fd, const char *const *paths, size_t n);

/* Content of the test program, and its digests (computed by the test). */
#define CONTENT "\177ELF not really, but content\n"

static int open_root(void)
{
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	return fd;
}

static void digest_of(enum hash_algo a, char hex[HASH_ANY_HEX_LEN])
{
	char *p = fx_path(root, "usr/bin/ping");
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(hash_fd_algo(fd, a, hex), 0);
	close(fd);
	free(p);
}

/* Look up the paths and check the first one's owner, version and digest. */
static void check_entry(const char *package, const char *version, enum hash_algo algo,
			const char *digest)
{
	const char *paths[] = { "/usr/bin/ping", "/usr/bin/unowned" };
	struct pkgdb_entry e[2] = { 0 };
	struct pkgdb *db = NULL;
	int fd = open_root();

	ck_assert_int_eq(pkgdb_open(fd, &db), 0);
	ck_assert_uint_eq(pkgdb_count(db), 1);
	ck_assert_int_eq(pkgdb_lookup(db, paths, 2, e), 0);
	ck_assert_str_eq(e[0].package, package);
	if (version)
		ck_assert_str_eq(e[0].version, version);
	else
		ck_assert_ptr_null(e[0].version);
	ck_assert_int_eq(e[0].algo, algo);
	if (digest)
		ck_assert_str_eq(e[0].digest, digest);
	ck_assert_ptr_null(e[1].package);
	pkgdb_entry_release(&e[0]);
	pkgdb_entry_release(&e[1]);
	pkgdb_free(db);
	close(fd);
}

START_TEST(test_dpkg)
{
	char md5[HASH_ANY_HEX_LEN], *sums = NULL;

	fx_file(root, "usr/bin/ping", 04755, CONTENT);
	digest_of(HASH_MD5, md5);
	/* merged /usr: dpkg lists /bin/ping; the arch-qualified list names the package */
	fx_write(root, "var/lib/dpkg/info/iputils-ping:amd64.list", "/.\n/bin\n/bin/ping\n");
	fx_write(root, "var/lib/dpkg/info/other.list", "/usr/bin/other\n");
	ck_assert_int_gt(asprintf(&sums, "%s  bin/ping\n0123456789abcdef0123456789abcdef  "
				  "usr/share/doc/x\n", md5), 0);
	fx_write(root, "var/lib/dpkg/info/iputils-ping:amd64.md5sums", sums);
	free(sums);
	fx_write(root, "var/lib/dpkg/status",
		 "Package: iputils-ping\nStatus: deinstall ok config-files\nArchitecture: i386\n"
		 "Version: 1:1-1\n\n"
		 "Package: iputils-ping\nStatus: install ok installed\nArchitecture: amd64\n"
		 "Version: 3:20221126-1+deb12u1\nDescription: x\n more\n");
	check_entry("iputils-ping", "3:20221126-1+deb12u1", HASH_MD5, md5);
}
END_TEST

START_TEST(test_dpkg_without_status)
{
	fx_file(root, "usr/bin/ping", 04755, CONTENT);
	fx_write(root, "var/lib/dpkg/info/inetutils-ping.list", "/bin/ping\n");
	check_entry("inetutils-ping", NULL, HASH_NONE, NULL);
}
END_TEST

/* Lists read whole: one past the first 64 KiB read, the last line of each without its
 * newline, a short list after a long one in the same buffer, the status's last stanza
 * unterminated. */
START_TEST(test_dpkg_lists_whole)
{
	const char *paths[] = { "/usr/bin/big", "/usr/bin/small", "/usr/share/doc/big/f04999" };
	struct pkgdb_entry e[3] = { 0 };
	struct pkgdb *db = NULL;
	size_t len = 0;
	char *big = NULL;
	int fd;

	for (int i = 0; i < 5000; i++) {
		ck_assert_ptr_nonnull(big = realloc(big, len + 64));
		len += (size_t)sprintf(big + len, "/usr/share/doc/big/f%05d\n", i);
	}
	ck_assert_ptr_nonnull(big = realloc(big, len + 64));
	strcpy(big + len, "/usr/bin/big");
	ck_assert_uint_gt(len, 65536);
	fx_write(root, "var/lib/dpkg/info/a-big.list", big);
	free(big);
	fx_write(root, "var/lib/dpkg/info/b-small.list", "/usr/bin/small");
	fx_write(root, "var/lib/dpkg/status",
		 "Package: a-big\nStatus: install ok installed\nVersion: 1\n\n"
		 "Package: b-small\nStatus: install ok installed\nVersion: 2");
	fd = open_root();
	ck_assert_int_eq(pkgdb_open(fd, &db), 0);
	ck_assert_int_eq(pkgdb_lookup(db, paths, 3, e), 0);
	ck_assert_str_eq(e[0].package, "a-big");
	ck_assert_str_eq(e[0].version, "1");
	ck_assert_str_eq(e[1].package, "b-small");
	ck_assert_str_eq(e[1].version, "2");
	ck_assert_str_eq(e[2].package, "a-big");
	for (int i = 0; i < 3; i++)
		pkgdb_entry_release(&e[i]);
	pkgdb_free(db);
	close(fd);
}
END_TEST

/* Check that @t gives the lines of the @len bytes at @text, as memchr() splits them. */
static void check_lines(struct pkgdb_text *t, const char *text, size_t len)
{
	size_t off = 0, n, lines = 0;
	const char *line;

	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t want = nl ? (size_t)(nl - (text + off)) : len - off;
		line = pkgdb_text_line(t, &n);
		ck_assert_msg(line, "line %zu missing", lines);
		ck_assert_uint_eq(n, want);
		ck_assert_int_eq(line[n], '\0');
		ck_assert_msg(memcmp(line, text + off, n) == 0, "line %zu differs", lines);
		off += want + 1;
		lines++;
	}
	ck_assert_ptr_null(pkgdb_text_line(t, &n));
	ck_assert_ptr_null(pkgdb_text_line(t, &n));
	ck_assert_int_eq(t->error, 0);
}

static int open_file(const char *rel)
{
	char *p = fx_path(root, rel);
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	free(p);
	return fd;
}

/* Lines read a window at a time: across the window's edges, longer than it, with a NUL
 * inside, empty, the last without its newline; one buffer for several files; a read
 * error and a file past PKGDB_TEXT_MAX end the lines with the error. */
START_TEST(test_text_lines)
{
	struct pkgdb_text t = { 0 };
	size_t len = 0, n, lines = 0;
	char *text = malloc(400000);
	int fd;

	ck_assert_ptr_nonnull(text);
	len += (size_t)sprintf(text, "a\n\n");
	memset(text + len, 'x', 70000);
	len += 70000;
	text[len++] = '\n';
	memcpy(text + len, "b\0c\n", 4);
	len += 4;
	for (int i = 0; i < 5000; i++)
		len += (size_t)sprintf(text + len, "/usr/share/doc/some-package/file-%08d.txt\n", i);
	len += (size_t)sprintf(text + len, "end");
	fx_file(root, "lines", 0644, "");
	{
		char *p = fx_path(root, "lines");
		FILE *f = fopen(p, "w");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(text, 1, len, f), len);
		ck_assert_int_eq(fclose(f), 0);
		free(p);
	}
	ck_assert_int_eq(pkgdb_text_open(open_file("lines"), &t), 0);
	check_lines(&t, text, len);
	fx_write(root, "short", "x\ny\n");
	ck_assert_int_eq(pkgdb_text_open(open_file("short"), &t), 0);
	check_lines(&t, "x\ny\n", 4);
	/* a file opened and left before its end, then another */
	ck_assert_int_eq(pkgdb_text_open(open_file("lines"), &t), 0);
	ck_assert_ptr_nonnull(pkgdb_text_line(&t, &n));
	ck_assert_int_eq(pkgdb_text_open(open_file("lines"), &t), 0);
	check_lines(&t, text, len);
	ck_assert_int_eq(pkgdb_text_open(-ENOENT, &t), -ENOENT);
	ck_assert_ptr_null(pkgdb_text_line(&t, &n));
	free(text);

	/* reading fails: no line, and the error */
	fx_mkdirs(root, "dir");
	ck_assert_int_eq(pkgdb_text_open(open_file("dir"), &t), 0);
	ck_assert_ptr_null(pkgdb_text_line(&t, &n));
	ck_assert_int_eq(t.error, -EISDIR);

	/* 257 MiB, a newline at the end of every MiB (sparse): the lines of the first
	 * PKGDB_TEXT_MAX bytes, then -EFBIG */
	fd = open_file("lines");
	ck_assert_int_eq(close(fd), 0);
	{
		char *p = fx_path(root, "huge");
		int w = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		ck_assert_int_ge(w, 0);
		for (off_t mib = 1; mib <= 257; mib++)
			ck_assert_int_eq(pwrite(w, "\n", 1, (mib << 20) - 1), 1);
		ck_assert_int_eq(close(w), 0);
		free(p);
	}
	ck_assert_int_eq(pkgdb_text_open(open_file("huge"), &t), 0);
	while (pkgdb_text_line(&t, &n)) {
		ck_assert_uint_eq(n, ((size_t)1 << 20) - 1);
		lines++;
	}
	ck_assert_uint_eq(lines, PKGDB_TEXT_MAX >> 20);
	ck_assert_int_eq(t.error, -EFBIG);
	ck_assert_uint_le(t.size, (size_t)2 << 20);
	pkgdb_text_release(&t);
}
END_TEST

/* /bin/su and /usr/bin/su both wanted (a /bin not merged into /usr): each list line
 * is the file it names, and the merged-/usr alias only answers a path no line names,
 * whichever order the paths are asked in. */
START_TEST(test_exact_before_alias)
{
	fx_write(root, "var/lib/dpkg/info/a.list", "/bin/su\n/bin/mount\n");
	fx_write(root, "var/lib/dpkg/info/b.list", "/usr/bin/su\n");
	for (int order = 0; order < 2; order++) {
		const char *paths[2][3] = { { "/usr/bin/su", "/bin/su", "/usr/bin/mount" },
					    { "/bin/su", "/usr/bin/su", "/usr/bin/mount" } };
		struct pkgdb_entry e[3] = { 0 };
		struct pkgdb *db = NULL;
		int fd = open_root();

		ck_assert_int_eq(pkgdb_open(fd, &db), 0);
		ck_assert_int_eq(pkgdb_lookup(db, paths[order], 3, e), 0);
		for (int i = 0; i < 3; i++) {
			const char *want = s2c_streq(paths[order][i], "/bin/su") ? "a"
					   : s2c_streq(paths[order][i], "/usr/bin/su") ? "b" : "a";
			ck_assert_msg(e[i].package && s2c_streq(e[i].package, want),
				      "order %d: %s owned by %s, not %s", order, paths[order][i],
				      e[i].package, want);
			pkgdb_entry_release(&e[i]);
		}
		pkgdb_free(db);
		close(fd);
	}
}
END_TEST

static void base64(const unsigned char *raw, size_t n, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)raw[i] << 16 | (i + 1 < n ? (unsigned)raw[i + 1] << 8 : 0) |
			     (i + 2 < n ? raw[i + 2] : 0);
		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? tab[v & 63] : '=';
	}
	out[o] = '\0';
}

static void hex_to_raw(const char *hex, unsigned char *raw)
{
	for (size_t i = 0; hex[2 * i]; i++) {
		unsigned v;
		ck_assert_int_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
		raw[i] = (unsigned char)v;
	}
}

START_TEST(test_apk)
{
	char sha1[HASH_ANY_HEX_LEN], b64[64], *db = NULL;
	unsigned char raw[20];

	fx_file(root, "usr/bin/ping", 04755, CONTENT);
	digest_of(HASH_SHA1, sha1);
	hex_to_raw(sha1, raw);
	base64(raw, 20, b64);
	ck_assert_int_gt(asprintf(&db,
				  "C:Q1abcdefghijklmnopqrstuvwxyz0=\nP:busybox\nV:1.36.1-r5\nA:x86_64\n"
				  "F:bin\nR:busybox\nZ:Q1AAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n"
				  "C:Q1bbbbbbbbbbbbbbbbbbbbbbbbbbb=\nP:iputils-ping\nV:20240905-r0\n"
				  "A:x86_64\nF:usr\nF:usr/bin\nR:ping\na:0:0:4755\nZ:Q1%s\n\n", b64), 0);
	fx_write(root, "lib/apk/db/installed", db);
	free(db);
	check_entry("iputils-ping", "20240905-r0", HASH_SHA1, sha1);
}
END_TEST

START_TEST(test_pacman)
{
	char sha256[HASH_ANY_HEX_LEN], *line = NULL, *p;
	gzFile g;

	fx_file(root, "usr/bin/ping", 04755, CONTENT);
	digest_of(HASH_SHA256, sha256);
	fx_write(root, "var/lib/pacman/local/ALPM_DB_VERSION", "9\n");
	fx_write(root, "var/lib/pacman/local/iputils-20240905-1/desc",
		 "%NAME%\niputils\n\n%VERSION%\n20240905-1\n\n%BASE%\niputils\n");
	fx_write(root, "var/lib/pacman/local/iputils-20240905-1/files",
		 "%FILES%\nusr/\nusr/bin/\nusr/bin/ping\n\n%BACKUP%\n");
	fx_write(root, "var/lib/pacman/local/glibc-2.40-1/desc", "%NAME%\nglibc\n\n%VERSION%\n2.40-1\n");
	fx_write(root, "var/lib/pacman/local/glibc-2.40-1/files", "%FILES%\nusr/lib/libc.so.6\n");
	p = fx_path(root, "var/lib/pacman/local/iputils-20240905-1/mtree");
	g = gzopen(p, "wb");
	ck_assert_ptr_nonnull(g);
	ck_assert_int_gt(asprintf(&line, "#mtree\n/set type=file uid=0 gid=0 mode=644\n"
				  "./.BUILDINFO time=1 size=1 md5digest=00 sha256digest=00\n"
				  "./usr time=1 type=dir mode=755\n"
				  "./usr/bin/ping time=1 mode=4755 size=30 md5digest=0123 sha256digest=%s\n"
				  "./usr/bin/tab\\040name time=1 size=1 sha256digest=11\n", sha256), 0);
	ck_assert_int_gt(gzputs(g, line), 0);
	ck_assert_int_eq(gzclose(g), Z_OK);
	free(line);
	free(p);
	check_entry("iputils", "20240905-1", HASH_SHA256, sha256);
	/* the same through the index a run of several lookups makes */
	fx_write(root, "var/lib/pacman/local/zother-1-1/desc",
		 "%NAME%\nzother\n\n%VERSION%\n1-1\n");
	fx_write(root, "var/lib/pacman/local/zother-1-1/files",
		 "%FILES%\nusr/bin/ping\nbin/other\n");
	{
		const char *paths[] = { "/usr/bin/ping", "/usr/lib/libc.so.6", "/usr/bin/other",
					"/usr/bin/none" };
		int fd = open_root();
		struct pkgdb_entry *e = lookup_thrice(fd, paths, 4);

		ck_assert_str_eq(e[0].package, "iputils");   /* read before "zother" */
		ck_assert_str_eq(e[0].digest, sha256);
		ck_assert_str_eq(e[1].package, "glibc");
		ck_assert_str_eq(e[2].package, "zother");   /* through its merged-/usr twin */
		ck_assert_ptr_null(e[3].package);
		for (int i = 0; i < 4; i++)
			pkgdb_entry_release(&e[i]);
		free(e);
		close(fd);
	}
}
END_TEST

START_TEST(test_rpm_formats_not_read)
{
	struct pkgdb *db = NULL;
	int fd;

	fx_write(root, "var/lib/rpm/Packages", "not really Berkeley DB\n");
	fd = open_root();
	ck_assert_int_eq(pkgdb_open(fd, &db), 0);
	ck_assert_uint_eq(pkgdb_count(db), 0);
	ck_assert_ptr_nonnull(strstr(pkgdb_problem(db), "Berkeley DB"));
	pkgdb_free(db);
	close(fd);
}
END_TEST

/* verify --fix asks host_package_digest(): same content, other content, no digest. */
START_TEST(test_host_digest)
{
	char sha1[HASH_ANY_HEX_LEN], b64[64], *db = NULL;
	unsigned char raw[20];
	const char *paths[] = { "/usr/bin/ping", "/usr/bin/nodigest" };
	struct host *h = NULL;
	enum host_digest dg;
	const char *pkg = NULL;
	char *p;
	int rootfd, fd;

	fx_file(root, "usr/bin/ping", 04755, CONTENT);
	fx_file(root, "usr/bin/nodigest", 04755, CONTENT);
	digest_of(HASH_SHA1, sha1);
	hex_to_raw(sha1, raw);
	base64(raw, 20, b64);
	ck_assert_int_gt(asprintf(&db, "P:iputils\nV:1-r0\nF:usr/bin\nR:ping\nZ:Q1%s\nR:nodigest\n\n",
				  b64), 0);
	fx_write(root, "lib/apk/db/installed", db);
	free(db);
	rootfd = open_root();
	ck_assert_int_eq(host_new(rootfd, false, "6.1", &h, NULL), 0);
	ck_assert(h->pkg_db);
	ck_assert_int_eq(host_load_packages(h, paths, 2), 0);
	p = fx_path(root, "usr/bin/ping");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(host_package_digest(h, "/usr/bin/ping", fd, &dg, &pkg), 0);
	ck_assert_int_eq(dg, HOST_DIGEST_MATCH);
	ck_assert_str_eq(pkg, "iputils");
	close(fd);
	/* the file changes: not what the package shipped */
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(host_package_digest(h, "/usr/bin/ping", fd, &dg, &pkg), 0);
	ck_assert_int_eq(dg, HOST_DIGEST_DIFFERS);
	close(fd);
	free(p);
	/* owned, but no digest recorded */
	p = fx_path(root, "usr/bin/nodigest");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(host_package_digest(h, "/usr/bin/nodigest", fd, &dg, &pkg), 0);
	ck_assert_int_eq(dg, HOST_DIGEST_UNKNOWN);
	ck_assert_str_eq(pkg, "iputils");
	close(fd);
	free(p);
	host_free(h);
	close(rootfd);
}
END_TEST

/* Two databases under one root: the first owner wins, the second fills the rest. */
START_TEST(test_several)
{
	const char *paths[] = { "/usr/bin/ping", "/usr/bin/arping" };
	struct pkgdb_entry e[2] = { 0 };
	struct pkgdb *db = NULL;
	int fd;

	fx_write(root, "var/lib/dpkg/info/iputils-ping.list", "/usr/bin/ping\n");
	fx_write(root, "lib/apk/db/installed",
		 "P:ping-from-apk\nV:1\nF:usr/bin\nR:ping\nR:arping\n");
	fd = open_root();
	ck_assert_int_eq(pkgdb_open(fd, &db), 0);
	ck_assert_uint_eq(pkgdb_count(db), 2);
	ck_assert_int_eq(pkgdb_lookup(db, paths, 2, e), 0);
	ck_assert_str_eq(e[0].package, "iputils-ping");
	ck_assert_int_eq(e[0].format, PKGDB_DPKG);
	ck_assert_str_eq(e[1].package, "ping-from-apk");
	ck_assert_int_eq(e[1].format, PKGDB_APK);
	pkgdb_entry_release(&e[0]);
	pkgdb_entry_release(&e[1]);
	pkgdb_free(db);
	close(fd);
}
END_TEST

/* Whether two answers about a path are the same. */
static void same_entry(const struct pkgdb_entry *a, const struct pkgdb_entry *b, const char *path)
{
	ck_assert_msg((a->package == NULL) == (b->package == NULL) &&
		      (!a->package || strcmp(a->package, b->package) == 0),
		      "%s: package %s, then %s", path, a->package, b->package);
	ck_assert_msg((a->version == NULL) == (b->version == NULL) &&
		      (!a->version || strcmp(a->version, b->version) == 0),
		      "%s: version %s, then %s", path, a->version, b->version);
	ck_assert_msg(a->algo == b->algo && (a->digest == NULL) == (b->digest == NULL) &&
		      (!a->digest || strcmp(a->digest, b->digest) == 0),
		      "%s: digest %s, then %s", path, a->digest, b->digest);
}

/*
 * Look @paths up three times in one database: the first lookup reads every list, the
 * second makes the index while it does, the third reads only the lists the index names.
 * All three must say the same of every path; returns the first answers.
 */
static struct pkgdb_entry *lookup_thrice(int fd, const char *const *paths, size_t n)
{
	struct pkgdb_entry *e[3];
	struct pkgdb *db = NULL;

	ck_assert_int_eq(pkgdb_open(fd, &db), 0);
	for (int k = 0; k < 3; k++) {
		ck_assert_ptr_nonnull(e[k] = calloc(n + 1, sizeof(**e)));
		ck_assert_int_eq(pkgdb_lookup(db, paths, n, e[k]), 0);
	}
	for (int k = 1; k < 3; k++) {
		for (size_t i = 0; i < n; i++) {
			same_entry(&e[0][i], &e[k][i], paths[i]);
			pkgdb_entry_release(&e[k][i]);
		}
		free(e[k]);
	}
	pkgdb_free(db);
	return e[0];
}

/* A run of several lookups answers from an index made on the second, exactly as reading
 * every list would: the first list that names a path owns it, merged-/usr twins, a list's
 * architecture and a list without one, removed and unlisted packages, digests; and what
 * the lists say after the index was made is not what it answers. */
START_TEST(test_dpkg_index)
{
	const char *paths[] = { "/usr/bin/ping", "/bin/shared", "/usr/lib/x86_64/libx.so",
				"/usr/lib/i386/libx.so", "/usr/bin/gone", "/usr/bin/unlisted",
				"/usr/bin/nobody", "/usr/sbin/multi", "/usr/bin/late" };
	size_t n = sizeof(paths) / sizeof(paths[0]);
	struct pkgdb_entry *e, late[1] = { { 0 } };
	struct pkgdb *db = NULL;
	char *sums = NULL;
	int fd;

	fx_write(root, "var/lib/dpkg/info/a.list", "/.\n/usr\n/usr/bin\n/usr/bin/shared\n");
	fx_write(root, "var/lib/dpkg/info/b.list", "/bin/shared\n/usr/bin/ping\n");
	ck_assert_int_gt(asprintf(&sums, "%s  usr/bin/ping\n", "0123456789abcdef0123456789abcdef"),
			 0);
	fx_write(root, "var/lib/dpkg/info/b.md5sums", sums);
	free(sums);
	fx_write(root, "var/lib/dpkg/info/libx:amd64.list", "/usr/lib/x86_64/libx.so\n");
	fx_write(root, "var/lib/dpkg/info/libx:i386.list", "/usr/lib/i386/libx.so\n");
	fx_write(root, "var/lib/dpkg/info/gone.list", "/usr/bin/gone\n");
	fx_write(root, "var/lib/dpkg/info/unlisted.list", "/usr/bin/unlisted\n");
	fx_write(root, "var/lib/dpkg/info/multi.list", "/usr/sbin/multi\n");
	fx_write(root, "var/lib/dpkg/status",
		 "Package: a\nStatus: install ok installed\nVersion: 1\n\n"
		 "Package: b\nStatus: install ok installed\nVersion: 2\n\n"
		 "Package: libx\nStatus: install ok installed\nArchitecture: i386\nVersion: 3i\n\n"
		 "Package: libx\nStatus: install ok installed\nArchitecture: amd64\nVersion: 3a\n\n"
		 "Package: gone\nStatus: deinstall ok config-files\nVersion: 4\n\n"
		 "Package: multi\nStatus: install ok installed\nArchitecture: arm64\n"
		 "Version: 5b\n\n"
		 "Package: multi\nStatus: install ok installed\nArchitecture: amd64\n"
		 "Version: 5a\n");
	fd = open_root();
	e = lookup_thrice(fd, paths, n);
	ck_assert_str_eq(e[0].package, "b");                 /* /usr/bin/ping */
	ck_assert_str_eq(e[0].digest, "0123456789abcdef0123456789abcdef");
	ck_assert_str_eq(e[1].package, "a");    /* /bin/shared: a lists its twin first */
	ck_assert_str_eq(e[1].version, "1");
	ck_assert_str_eq(e[2].version, "3a");
	ck_assert_str_eq(e[3].version, "3i");
	ck_assert_str_eq(e[4].package, "gone");
	ck_assert_ptr_null(e[4].version);
	ck_assert_str_eq(e[5].package, "unlisted");
	ck_assert_ptr_null(e[5].version);
	ck_assert_ptr_null(e[6].package);
	ck_assert_str_eq(e[7].version, "5b");                /* no architecture: the first */
	ck_assert_ptr_null(e[8].package);
	for (size_t i = 0; i < n; i++)
		pkgdb_entry_release(&e[i]);
	free(e);

	/* The index is of the lists as they were when it was made. */
	ck_assert_int_eq(pkgdb_open(fd, &db), 0);
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(pkgdb_lookup(db, paths, 1, late), 0);
		ck_assert_str_eq(late[0].package, "b");
		pkgdb_entry_release(&late[0]);
	}
	fx_write(root, "var/lib/dpkg/info/b.list", "/bin/shared\n/usr/bin/ping\n/usr/bin/late\n");
	ck_assert_int_eq(pkgdb_lookup(db, paths + 8, 1, late), 0);
	ck_assert_ptr_null(late[0].package);
	pkgdb_free(db);
	close(fd);
}
END_TEST

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* This machine's own dpkg database, read only: a path of every tenth line of every list
 * and names no list has, looked up the three ways, say the same. */
START_TEST(test_dpkg_index_host)
{
	char **lists = NULL, **paths = NULL;
	size_t n = 0, alloc = 0, nlists;
	struct pkgdb_entry *e;
	int fd, dfd;

	dfd = open("/var/lib/dpkg/info", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;      /* not a dpkg system */
	nlists = (size_t)dirlist(dfd, "*.list", 0, &lists);
	for (size_t k = 0; k < nlists; k++) {
		FILE *f = fdopen(openat(dfd, lists[k], O_RDONLY | O_CLOEXEC), "r");
		char *line = NULL;
		size_t size = 0, i = 0;
		ssize_t len;

		ck_assert_ptr_nonnull(f);
		while ((len = getline(&line, &size, f)) > 0) {
			if (i++ % 10 || line[0] != '/')
				continue;
			line[len - 1] = line[len - 1] == '\n' ? '\0' : line[len - 1];
			if (n + 2 >= alloc) {
				alloc = 2 * alloc + 64;
				ck_assert_ptr_nonnull(paths = realloc(paths, alloc * sizeof(*paths)));
			}
			ck_assert_ptr_nonnull(paths[n++] = strdup(line));
			if (n % 100 == 0)
				ck_assert_int_gt(asprintf(&paths[n++], "%s.not-listed", line), 0);
		}
		free(line);
		fclose(f);
	}
	strv_free(lists);
	close(dfd);
	/* each path once, as a scan asks */
	qsort(paths, n, sizeof(*paths), cmp_strp);
	for (size_t i = 1, k = 1; i <= n; i++) {
		if (i == n) {
			n = k;
			break;
		}
		if (strcmp(paths[i], paths[k - 1]) == 0)
			free(paths[i]);
		else
			paths[k++] = paths[i];
	}
	ck_assert_uint_gt(n, 1000);
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	e = lookup_thrice(fd, (const char *const *)paths, n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg((e[i].package != NULL) != (strstr(paths[i], ".not-listed") != NULL),
			      "%s: %s", paths[i], e[i].package);
		pkgdb_entry_release(&e[i]);
		free(paths[i]);
	}
	free(e);
	free(paths);
	close(fd);
}
END_TEST

/* Symbolic links in a database's path are not followed out of the root. */
START_TEST(test_no_symlinks)
{
	struct pkgdb *db = NULL;
	int fd;

	fx_mkdirs(root, "elsewhere/info");
	fx_mkdirs(root, "var/lib");
	fx_symlink(root, "var/lib/dpkg", "/var/lib/dpkg");
	fd = open_root();
	ck_assert_int_eq(pkgdb_open(fd, &db), 0);
	ck_assert_uint_eq(pkgdb_count(db), 0);
	pkgdb_free(db);
	close(fd);
}
END_TEST

START_TEST(test_versions)
{
	static const struct {
		const char *in, *out;
	} up[] = {
		{ "3:20221126-1+deb12u1", "20221126" }, { "1.4.9-1+b1", "1.4.9" },
		{ "1.36.1-r5", "1.36.1" }, { "2:6.0.5-1.fc40", "6.0.5" }, { "330", "330" },
		{ "4.13+dfsg1-1", "4.13+dfsg1" },
	};
	for (size_t i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
		char *v = pkgdb_upstream_version(up[i].in);
		ck_assert_str_eq(v, up[i].out);
		free(v);
	}
	ck_assert_int_lt(pkgdb_version_cmp("1.3.4", "1.4"), 0);
	ck_assert_int_gt(pkgdb_version_cmp("1.4.9", "1.4"), 0);
	ck_assert_int_eq(pkgdb_version_cmp("1.4", "1.4"), 0);
	ck_assert_int_eq(pkgdb_version_cmp("1.04", "1.4"), 0);
	ck_assert_int_gt(pkgdb_version_cmp("1.10", "1.9"), 0);
	ck_assert_int_lt(pkgdb_version_cmp("2.70~rc1", "2.70"), 0);
	ck_assert_int_gt(pkgdb_version_cmp("5.27.80", "5.27.11"), 0);
	ck_assert_int_lt(pkgdb_version_cmp("329", "330"), 0);
}
END_TEST

Suite *pkgdb_suite(void)
{
	Suite *s = suite_create("pkgdb");
	TCase *tc = tcase_create("pkgdb");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_dpkg);
	tcase_add_test(tc, test_dpkg_without_status);
	tcase_add_test(tc, test_dpkg_lists_whole);
	tcase_add_test(tc, test_text_lines);
	tcase_add_test(tc, test_exact_before_alias);
	tcase_add_test(tc, test_dpkg_index);
	tcase_add_test(tc, test_dpkg_index_host);
	tcase_add_test(tc, test_apk);
	tcase_add_test(tc, test_pacman);
	tcase_add_test(tc, test_rpm_formats_not_read);
	tcase_add_test(tc, test_host_digest);
	tcase_add_test(tc, test_several);
	tcase_add_test(tc, test_no_symlinks);
	tcase_add_test(tc, test_versions);
	suite_add_tcase(s, tc);
	return s;
}
