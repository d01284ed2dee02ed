/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>

#include "error.h"
#include "facts.h"
#include "fixture.h"
#include "mounts.h"
#include "scan.h"
#include "skip.h"
#include "suites.h"

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

static const char *const *one(const char *rel)
{
	static char *paths[2];

	free(paths[0]);
	paths[0] = fx_path(root, rel);
	paths[1] = NULL;
	return (const char *const *)paths;
}

static int find_rel(const struct scan_result *r, const char *rel)
{
	char *p = fx_path(root, rel);
	int i = fx_find(r, p);

	free(p);
	return i;
}

START_TEST(test_modes)
{
	static const struct {
		const char *name;
		mode_t mode;
		bool found;
	} cases[] = {
		{ "plain", 0755, false },     { "suid", 04755, true },
		{ "sgid", 02755, true },      { "both", 06755, true },
		{ "suid-nox", 04644, true },  { "sgid-nox", 02644, true },
		{ "suid-own", 04700, true },  { "bits-only", 06000, true },
		{ "data", 0644, false },      { "sticky", 01755, false },
		{ "suid-x", 04711, true },    { "sgid-x", 02711, true },
		{ "suid-bare", 04000, true }, { "world-w", 04777, true },
	};
	struct scan_result *r;
	size_t expected = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "bin/%s", cases[i].name);
		fx_file(root, rel, cases[i].mode, "#!/bin/sh\n");
		/* rewrite to a non-script for the plain cases below */
		expected += cases[i].found;
	}
	fx_file(root, "bin/elfish", 04755, "\177ELF");
	expected++;
	r = fx_scan(NULL, one("."), 0, 4, NULL);
	ck_assert_uint_eq(r->n, expected);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char rel[64];
		int idx;
		snprintf(rel, sizeof(rel), "bin/%s", cases[i].name);
		idx = find_rel(r, rel);
		ck_assert_msg((idx >= 0) == cases[i].found, "%s: found=%d", rel, idx >= 0);
		if (idx < 0)
			continue;
		const struct facts *f = r->v[idx];
		ck_assert_uint_eq(f->mode & 07777, cases[i].mode);
		ck_assert_uint_eq(f->uid, getuid());
		ck_assert(!!(f->flags & FACT_SETGID) == !!(cases[i].mode & S_ISGID));
		if (cases[i].mode & S_ISUID)
			ck_assert(f->flags & (getuid() == 0 ? FACT_SETUID_ROOT : FACT_SETUID_USER));
		ck_assert(!!(f->flags & FACT_NOT_EXECUTABLE) == !(cases[i].mode & 0111));
		ck_assert(!!(f->flags & FACT_WRITABLE) == !!(cases[i].mode & 0022));
		/* every one of these is a "#!" script: the kernel ignores the bits (only
		 * root can read the "#!" line of a file without a read bit for its owner) */
		if (getuid() == 0 || cases[i].mode & 0400) {
			ck_assert(f->flags & FACT_SCRIPT);
			ck_assert_str_eq(f->interpreter, "/bin/sh");
		}
	}
	ck_assert(!(r->v[find_rel(r, "bin/elfish")]->flags & FACT_SCRIPT));
	ck_assert_uint_eq(r->warnings, 0);
	/* sorted by path */
	for (size_t i = 1; i < r->n; i++)
		ck_assert(strcmp(r->v[i - 1]->path, r->v[i]->path) < 0);
	scan_result_free(r);
}
END_TEST

START_TEST(test_symlinks_not_followed)
{
	struct fx_warnings w = { 0 };
	struct scan_result *r;

	fx_file(root, "real/su", 04755, "x");
	fx_symlink(root, "link-to-su", "real/su");
	fx_symlink(root, "link-to-dir", "real");
	fx_symlink(root, "outside", "/usr/bin");
	fx_symlink(root, "loop/a", "b");
	fx_symlink(root, "loop/b", "a");
	fx_symlink(root, "loop/up", "..");
	fx_symlink(root, "dangling", "nowhere");
	r = fx_scan(NULL, one("."), 0, 2, &w);
	ck_assert_uint_eq(r->n, 1);
	ck_assert_int_ge(find_rel(r, "real/su"), 0);
	ck_assert_uint_eq(w.n, 0);
	scan_result_free(r);

	/* A start path that is a symlink is refused, not followed. */
	r = fx_scan(NULL, one("link-to-dir"), 0, 2, &w);
	ck_assert_uint_eq(r->n, 0);
	ck_assert_uint_eq(w.n, 1);
	ck_assert_int_eq(w.errors[0], -ELOOP);
	fx_warnings_release(&w);
	scan_result_free(r);
}
END_TEST

START_TEST(test_hardlinks)
{
	struct scan_result *r;

	fx_file(root, "a/su", 04755, "x");
	fx_hardlink(root, "a/su", "b/old-su");
	r = fx_scan(NULL, one("."), 0, 2, NULL);
	ck_assert_uint_eq(r->n, 2);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_uint_eq(r->v[i]->nlink, 2);
		ck_assert(r->v[i]->flags & FACT_HARDLINKS);
	}
	ck_assert_uint_eq(r->v[0]->ino, r->v[1]->ino);
	scan_result_free(r);
}
END_TEST

/* A tree deeper than PATH_MAX, built fd-relative as nothing else can. */
static size_t build_deep(int levels)
{
	const char *name = "abcdefghijklmnopqrstuvwxyz0123456789";
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t len = strlen(root);

	for (int i = 0; i < levels; i++) {
		int next;
		ck_assert_int_eq(mkdirat(fd, name, 0755), 0);
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ck_assert_int_ge(next, 0);
		close(fd);
		fd = next;
		len += 1 + strlen(name);
	}
	{
		int f = openat(fd, "deep-su", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		ck_assert_int_ge(f, 0);
		ck_assert_int_eq(fchmod(f, 04755), 0);
		close(f);
	}
	close(fd);
	return len + strlen("/deep-su");
}

START_TEST(test_deep_tree)
{
	struct scan_result *r;
	size_t len = build_deep(150);   /* ~5.5 KiB, beyond PATH_MAX */

	ck_assert_uint_gt(len, 4096);
	r = fx_scan(NULL, one("."), 0, 3, NULL);
	ck_assert_uint_eq(r->n, 1);
	ck_assert_uint_eq(strlen(r->v[0]->path), len);
	ck_assert_uint_eq(r->warnings, 0);
	scan_result_free(r);
}
END_TEST

START_TEST(test_too_deep_warns)
{
	struct scan_options o = { .paths = one("."), .threads = 2, .max_depth = 10 };
	struct scan_result *r = NULL;

	build_deep(20);
	fx_file(root, "shallow-su", 04755, "x");
	ck_assert_int_eq(scan_run(&o, &r, NULL), 0);
	ck_assert_uint_eq(r->n, 1);        /* the shallow one is still found */
	ck_assert_uint_eq(r->warnings, 1); /* the deep part is reported */
	scan_result_free(r);
}
END_TEST

START_TEST(test_odd_names)
{
	static const char *const names[] = {
		"new\nline", "bad\xffutf8", "sp ace", "-dash", "\x1b[31mred", "tab\there",
		"caf\xc3\xa9", "back\\slash",
	};
	struct scan_result *r;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "odd/%s", names[i]);
		fx_file(root, rel, 04755, "x");
	}
	r = fx_scan(NULL, one("."), 0, 2, NULL);
	ck_assert_uint_eq(r->n, sizeof(names) / sizeof(names[0]));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "odd/%s", names[i]);
		ck_assert_msg(find_rel(r, rel) >= 0, "missing %s", rel);
	}
	scan_result_free(r);
}
END_TEST

START_TEST(test_threads_agree)
{
	struct scan_result *a, *b;

	for (int d = 0; d < 30; d++)
		for (int f = 0; f < 20; f++) {
			char rel[64];
			snprintf(rel, sizeof(rel), "d%02d/s%02d/f%02d", d, d % 7, f);
			fx_file(root, rel, (f % 3 == 0) ? 04755 : (f % 5 == 0) ? 02755 : 0755, "x");
		}
	a = fx_scan(NULL, one("."), 0, 1, NULL);
	b = fx_scan(NULL, one("."), 0, 16, NULL);
	ck_assert_uint_eq(a->n, b->n);
	ck_assert_uint_eq(a->n, 30 * (7 + 2));
	for (size_t i = 0; i < a->n; i++)
		ck_assert_str_eq(a->v[i]->path, b->v[i]->path);
	ck_assert_uint_eq(a->stats.dirs, b->stats.dirs);
	ck_assert_uint_eq(a->stats.files, b->stats.files);
	scan_result_free(a);
	scan_result_free(b);
}
END_TEST

/*
 * Directories listed in one getdents64 call and in many (3,000 names of 200
 * bytes are about ten of its 64 KiB buffers), empty ones and one-entry ones,
 * set-ID files first, last and between: every one is found, however the
 * filesystem marks a directory's end, on the host and as an image.
 */
START_TEST(test_directory_sizes)
{
	static const unsigned sizes[] = { 0, 1, 2, 100, 3000 };
	size_t want = 0, entries = 0;
	char name[256];

	for (size_t k = 0; k < S2C_ELEMENTSOF(sizes); k++) {
		snprintf(name, sizeof(name), "d%zu", k);
		fx_mkdirs(root, name);
		entries++;
		for (unsigned i = 0; i < sizes[k]; i++) {
			bool setid = i == 0 || i + 1 == sizes[k] || i % 499 == 0;

			snprintf(name, sizeof(name), "d%zu/%0200u", k, i);
			fx_file(root, name, setid ? 04755 : 0644, "x");
			want += setid;
			entries++;
		}
	}
	for (int image = 0; image < 2; image++)
		for (unsigned threads = 1; threads <= 4; threads += 3) {
			struct scan_result *r = fx_scan(image ? root : NULL, image ? NULL : one("."),
							0, threads, NULL);

			ck_assert_uint_eq(r->n, want);
			ck_assert_uint_eq(r->stats.files, entries);
			snprintf(name, sizeof(name), "d4/%0200u", 2999u);
			if (!image)
				ck_assert_int_ge(find_rel(r, name), 0);
			scan_result_free(r);
		}
}
END_TEST

START_TEST(test_single_file_and_missing)
{
	struct fx_warnings w = { 0 };
	struct scan_result *r;
	char *paths[3];

	fx_file(root, "bin/su", 04755, "x");
	fx_file(root, "bin/ls", 0755, "x");
	paths[0] = fx_path(root, "bin/su");
	paths[1] = fx_path(root, "bin/missing");
	paths[2] = NULL;
	r = fx_scan(NULL, (const char *const *)paths, 0, 2, &w);
	ck_assert_uint_eq(r->n, 1);
	ck_assert_uint_eq(w.n, 1);
	ck_assert_int_eq(w.errors[0], -ENOENT);
	ck_assert_str_eq(w.paths[0], paths[1]);
	fx_warnings_release(&w);
	scan_result_free(r);
	free(paths[0]);
	free(paths[1]);
}
END_TEST

START_TEST(test_image_root)
{
	struct fx_warnings w = { 0 };
	struct scan_result *r;

	fx_file(root, "usr/bin/su", 04755, "x");
	fx_file(root, "usr/sbin/unix_chkpwd", 02755, "x");
	fx_symlink(root, "bin", "usr/bin");
	fx_file(root, "etc/passwd", 0644, "root:x:0:0::/root:/bin/sh\nimg:x:4242:4242::/:/bin/sh\n");
	fx_file(root, "etc/group", 0644, "root:x:0:\nimggrp:x:4343:\n");
	r = fx_scan(root, NULL, 0, 2, &w);
	ck_assert(!r->host);
	ck_assert_uint_eq(r->n, 2);
	ck_assert_str_eq(r->v[0]->path, "/usr/bin/su");
	ck_assert_str_eq(r->v[1]->path, "/usr/sbin/unix_chkpwd");
	ck_assert_uint_eq(w.n, 0);
	if (getuid() == 0) {
		/* names come from the image, not from the host */
		char *su = fx_path(root, "usr/bin/su");
		fx_chown(root, "usr/bin/su", 4242, 4343);
		ck_assert_int_eq(chmod(su, 04755), 0);   /* chown cleared the bit */
		free(su);
		scan_result_free(r);
		r = fx_scan(root, NULL, 0, 2, NULL);
		ck_assert_str_eq(r->v[0]->owner, "img");
		ck_assert_str_eq(r->v[0]->group, "imggrp");
		ck_assert(r->v[0]->flags & FACT_SETUID_USER);
	}
	scan_result_free(r);
}
END_TEST

/* --- what a scan leaves out ------------------------------------------------------- */

/* The skipped entry for @rel (under root), or NULL. */
static const struct skip_entry *skipped_rel(const struct scan_result *r, const char *rel)
{
	char *p = fx_path(root, rel);
	const struct skip_entry *e = NULL;

	for (size_t i = 0; i < r->n_skipped && !e; i++)
		if (strcmp(r->skipped[i].path, p) == 0)
			e = &r->skipped[i];
	free(p);
	return e;
}

/* Another OS root: its own usr/ and an os-release in etc/ or usr/lib/. */
static void os_tree(const char *dir, bool usr_lib)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/usr/bin/su", dir);
	fx_file(root, rel, 04755, "x");
	snprintf(rel, sizeof(rel), "%s/top-su", dir);       /* a candidate in the root itself */
	fx_file(root, rel, 04755, "x");
	snprintf(rel, sizeof(rel), usr_lib ? "%s/usr/lib/os-release" : "%s/etc/os-release", dir);
	fx_file(root, rel, 0644, "ID=debian\n");
	snprintf(rel, sizeof(rel), "%s/etc", dir);
	fx_mkdirs(root, rel);
}

START_TEST(test_nested_os_root)
{
	struct scan_result *r;

	fx_file(root, "usr/bin/ours", 04755, "x");
	os_tree("var/tmp/bookworm", false);
	os_tree("srv/machines/ubi", true);
	/* Look-alikes that are not OS roots: no os-release; usr a symlink; etc a symlink
	 * with nothing in usr/lib; os-release a directory. */
	fx_file(root, "var/tmp/notroot/usr/bin/z", 04755, "x");
	fx_mkdirs(root, "var/tmp/notroot/etc");
	fx_file(root, "var/tmp/linkusr/real/bin/z", 04755, "x");
	fx_symlink(root, "var/tmp/linkusr/usr", "real");
	fx_file(root, "var/tmp/linkusr/etc/os-release", 0644, "ID=x\n");
	fx_file(root, "var/tmp/linketc/usr/bin/z", 04755, "x");
	fx_file(root, "var/tmp/linketc/real-etc/os-release", 0644, "ID=x\n");
	fx_symlink(root, "var/tmp/linketc/etc", "real-etc");
	fx_file(root, "var/tmp/dirrel/usr/bin/z", 04755, "x");
	fx_mkdirs(root, "var/tmp/dirrel/etc/os-release");

	for (unsigned threads = 1; threads <= 8; threads *= 8) {
		r = fx_scan(NULL, one("."), 0, threads, NULL);
		ck_assert_int_ge(find_rel(r, "usr/bin/ours"), 0);
		ck_assert_int_ge(find_rel(r, "var/tmp/notroot/usr/bin/z"), 0);
		ck_assert_int_ge(find_rel(r, "var/tmp/linkusr/real/bin/z"), 0);
		ck_assert_int_ge(find_rel(r, "var/tmp/linketc/usr/bin/z"), 0);
		ck_assert_int_ge(find_rel(r, "var/tmp/dirrel/usr/bin/z"), 0);
		ck_assert_uint_eq(r->n, 5);     /* nothing of either OS root, not even top-su */
		ck_assert_uint_eq(r->n_skipped, 2);
		ck_assert_ptr_nonnull(skipped_rel(r, "srv/machines/ubi"));
		ck_assert_ptr_nonnull(skipped_rel(r, "var/tmp/bookworm"));
		for (size_t i = 0; i < r->n_skipped; i++) {
			ck_assert_int_eq(r->skipped[i].reason, SKIP_OS_ROOT);
			ck_assert_ptr_null(r->skipped[i].source);
		}
		ck_assert_uint_eq(r->warnings, 0);
		scan_result_free(r);
	}

	/* A start path inside another OS root is left out too, and says where. */
	r = fx_scan(NULL, one("var/tmp/bookworm/usr/bin"), 0, 2, NULL);
	ck_assert_uint_eq(r->n, 0);
	ck_assert_uint_eq(r->n_skipped, 1);
	ck_assert_ptr_nonnull(skipped_rel(r, "var/tmp/bookworm"));
	scan_result_free(r);
	r = fx_scan(NULL, one("var/tmp/bookworm/top-su"), 0, 2, NULL);
	ck_assert_uint_eq(r->n, 0);
	ck_assert_ptr_nonnull(skipped_rel(r, "var/tmp/bookworm"));
	scan_result_free(r);

	/* --other-roots walks them. */
	r = fx_scan(NULL, one("."), SCAN_OTHER_ROOTS, 2, NULL);
	ck_assert_uint_eq(r->n, 9);
	ck_assert_int_ge(find_rel(r, "var/tmp/bookworm/top-su"), 0);
	ck_assert_int_ge(find_rel(r, "srv/machines/ubi/usr/bin/su"), 0);
	ck_assert_uint_eq(r->n_skipped, 0);
	scan_result_free(r);

	/* An image run walks everything under its root. */
	r = fx_scan(root, NULL, 0, 2, NULL);
	ck_assert(!r->host);
	ck_assert_uint_eq(r->n, 9);
	ck_assert_int_ge(fx_find(r, "/var/tmp/bookworm/usr/bin/su"), 0);
	ck_assert_uint_eq(r->n_skipped, 0);
	scan_result_free(r);
}
END_TEST

static struct scan_result *scan_excluding(const char *rt, const char *const *paths,
					  const char *const *exclude, struct s2c_error *err, int *ret)
{
	struct scan_options o = {
		.root = rt, .paths = paths, .threads = 3, .exclude = exclude,
		.exclude_file = "/etc/suid2cap/exclude",
	};
	struct scan_result *r = NULL;

	*ret = scan_run(&o, &r, err);
	return r;
}

START_TEST(test_exclude_globs)
{
	static const char *const exclude[] = { "/srv/*/cache", "/opt/app/", "/usr/bin/ex[cx]luded",
					       "/usr//local/./sbin", NULL };
	struct s2c_error err = { 0 };
	struct scan_result *r, *all;
	const struct skip_entry *e;
	int ret;

	fx_file(root, "srv/a/cache/su", 04755, "x");
	fx_file(root, "srv/b/cache/deeper/su", 04755, "x");
	fx_file(root, "srv/b/cached/su", 04755, "x");           /* not "cache" */
	fx_file(root, "srv/b/c/cache/su", 04755, "x");          /* '*' does not match '/' */
	fx_file(root, "opt/app/bin/su", 04755, "x");
	fx_file(root, "opt/application/su", 04755, "x");
	fx_file(root, "usr/bin/excluded", 04755, "x");
	fx_file(root, "usr/bin/included", 04755, "x");
	fx_file(root, "usr/local/sbin/su", 04755, "x");
	all = fx_scan(root, NULL, 0, 2, NULL);
	ck_assert_uint_eq(all->n, 9);

	r = scan_excluding(root, NULL, exclude, &err, &ret);
	ck_assert_msg(ret == 0, "%s", err.msg);
	ck_assert_uint_eq(r->n, 4);
	ck_assert_int_ge(fx_find(r, "/srv/b/cached/su"), 0);
	ck_assert_int_ge(fx_find(r, "/srv/b/c/cache/su"), 0);
	ck_assert_int_ge(fx_find(r, "/opt/application/su"), 0);
	ck_assert_int_ge(fx_find(r, "/usr/bin/included"), 0);
	ck_assert_uint_eq(r->n_skipped, 5);
	ck_assert_str_eq(r->skipped[0].path, "/opt/app");
	ck_assert_str_eq(r->skipped[0].source, "--exclude /opt/app/");
	ck_assert_str_eq(r->skipped[1].path, "/srv/a/cache");
	ck_assert_str_eq(r->skipped[2].path, "/srv/b/cache");
	ck_assert_str_eq(r->skipped[2].source, "--exclude /srv/*/cache");
	ck_assert_str_eq(r->skipped[3].path, "/usr/bin/excluded");
	ck_assert_str_eq(r->skipped[4].path, "/usr/local/sbin");
	for (size_t i = 0; i < r->n_skipped; i++)
		ck_assert_int_eq(r->skipped[i].reason, SKIP_EXCLUDED);
	/* An excluded directory is not read at all. */
	ck_assert_uint_lt(r->stats.dirs, all->stats.dirs);
	e = scan_result_skipped(r, "/srv/b/cache/deeper/su");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->path, "/srv/b/cache");
	ck_assert_ptr_null(scan_result_skipped(r, "/srv/b/cached/su"));
	scan_result_free(r);
	scan_result_free(all);

	/* A start path below an excluded directory is left out. */
	r = scan_excluding(root, (const char *const[]){ "/srv/a/cache/su", NULL }, exclude, &err,
			   &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(r->n, 0);
	ck_assert_uint_eq(r->n_skipped, 1);
	ck_assert_str_eq(r->skipped[0].path, "/srv/a/cache");
	scan_result_free(r);

	/* Malformed patterns are refused with the reason. */
	{
		static const struct {
			const char *pattern, *msg;
		} bad[] = {
			{ "srv/*", "invalid exclude pattern 'srv/*': not an absolute path (paths and "
				   "globs are taken under the root and start with '/')" },
			{ "/srv/../etc", "invalid exclude pattern '/srv/../etc': '..' components are "
					 "not allowed" },
			{ "/srv/[ab", "invalid exclude pattern '/srv/[ab': unterminated '['" },
			{ "//", "invalid exclude pattern '//': '/' is the whole root" },
			{ "/srv\\", "invalid exclude pattern '/srv\\': a backslash at the end of a "
				     "component escapes nothing" },
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			const char *one_bad[] = { bad[i].pattern, NULL };
			memset(&err, 0, sizeof(err));
			r = scan_excluding(root, NULL, one_bad, &err, &ret);
			ck_assert_int_eq(ret, -EINVAL);
			ck_assert_ptr_null(r);
			ck_assert_str_eq(err.msg, bad[i].msg);
		}
	}
}
END_TEST

START_TEST(test_exclude_file)
{
	struct s2c_error err = { 0 };
	struct scan_result *r;
	char *want = NULL;
	int ret;

	fx_file(root, "srv/data/su", 04755, "x");
	fx_file(root, "srv/tmp-1/su", 04755, "x");
	fx_file(root, "home/al ice/su", 04755, "x");
	fx_file(root, "usr/bin/su", 04755, "x");
	fx_file(root, "etc/suid2cap/exclude", 0644,
		"# what this image does not ship\n"
		"\n"
		"   /srv/data  \n"
		"\t/srv/tmp-*\n"
		"/home/al ice\n"
		"  # indented comment\n");
	r = scan_excluding(root, NULL, NULL, &err, &ret);
	ck_assert_msg(ret == 0, "%s", err.msg);
	ck_assert_uint_eq(r->n, 1);
	ck_assert_str_eq(r->v[0]->path, "/usr/bin/su");
	ck_assert_uint_eq(r->n_skipped, 3);
	ck_assert_str_eq(r->skipped[0].path, "/home/al ice");
	ck_assert_str_eq(r->skipped[1].path, "/srv/data");
	ck_assert_str_eq(r->skipped[2].path, "/srv/tmp-1");
	ck_assert(asprintf(&want, "%s/etc/suid2cap/exclude line 3", root) > 0);
	ck_assert_str_eq(r->skipped[1].source, want);
	free(want);
	scan_result_free(r);

	/* A malformed line: an error naming the file and the line, and no scan. */
	fx_write(root, "etc/suid2cap/exclude", "# ok\n/srv/data\n\nsrv/relative\n");
	r = scan_excluding(root, NULL, NULL, &err, &ret);
	ck_assert_int_eq(ret, -EINVAL);
	ck_assert_ptr_null(r);
	ck_assert(asprintf(&want, "'%s/etc/suid2cap/exclude' line 4: not an absolute path (paths "
			   "and globs are taken under the root and start with '/')", root) > 0);
	ck_assert_str_eq(err.msg, want);
	free(want);
	fx_write(root, "etc/suid2cap/exclude", "/srv/[x\n");
	r = scan_excluding(root, NULL, NULL, &err, &ret);
	ck_assert_int_eq(ret, -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "exclude' line 1: unterminated '['"));

	/* The file is read beneath the root without following a symlink. */
	fx_file(root, "elsewhere", 0644, "/usr\n");
	{
		char *f = fx_path(root, "etc/suid2cap/exclude");
		ck_assert_int_eq(unlink(f), 0);
		free(f);
	}
	fx_symlink(root, "etc/suid2cap/exclude", "../../elsewhere");
	r = scan_excluding(root, NULL, NULL, &err, &ret);
	ck_assert_int_eq(ret, -ELOOP);
	ck_assert_ptr_nonnull(strstr(err.msg, "is or passes through a symbolic link, refusing it"));
}
END_TEST

/* As root, an exclude file someone else could have written is refused. */
START_TEST(test_exclude_file_trust)
{
	struct scan_options o = {
		.root = root, .threads = 2, .exclude_file = "/etc/suid2cap/exclude", .trusted = true,
	};
	struct s2c_error err = { 0 };
	struct scan_result *r = NULL;
	char *f = fx_path(root, "etc/suid2cap/exclude");

	fx_file(root, "srv/su", 04755, "x");
	fx_file(root, "etc/suid2cap/exclude", 0644, "/srv\n");
	if (getuid() != 0) {
		/* Owned by this (unprivileged) user: not root. */
		ck_assert_int_eq(scan_run(&o, &r, &err), -EPERM);
		ck_assert_ptr_nonnull(strstr(err.msg, "exclude' is not owned by root, refusing it"));
	} else {
		ck_assert_msg(scan_run(&o, &r, &err) == 0, "%s", err.msg);
		ck_assert_uint_eq(r->n, 0);
		ck_assert_uint_eq(r->n_skipped, 1);
		r = scan_result_free(r);
		ck_assert_int_eq(chmod(f, 0664), 0);
		ck_assert_int_eq(scan_run(&o, &r, &err), -EPERM);
		ck_assert_ptr_nonnull(strstr(err.msg, "exclude' is writable by group or others, "
					  "refusing it"));
		ck_assert_int_eq(chmod(f, 0644), 0);
		fx_chown(root, "etc/suid2cap/exclude", 4242, 4242);
		ck_assert_int_eq(scan_run(&o, &r, &err), -EPERM);
		ck_assert_ptr_nonnull(strstr(err.msg, "exclude' is not owned by root, refusing it"));
	}
	ck_assert_ptr_null(r);
	/* Unprivileged callers (tests, images) are not held to it. */
	o.trusted = false;
	ck_assert_int_eq(chmod(f, 0666), 0);
	ck_assert_msg(scan_run(&o, &r, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(r->n, 0);
	scan_result_free(r);
	free(f);
}
END_TEST

/* A failed scan says which part failed: the same errno means another thing in each. */
START_TEST(test_failed_part)
{
	char *missing = fx_path(root, "no-such-dir");
	struct scan_options o = { .root = missing, .threads = 2 };
	enum scan_part part = SCAN_PART_NONE;
	struct s2c_error err = { 0 };
	struct scan_result *r = NULL;

	o.failed = &part;
	fx_file(root, "srv/su", 04755, "x");
	ck_assert_int_eq(scan_run(&o, &r, &err), -ENOENT);
	ck_assert_int_eq(part, SCAN_PART_ROOT);
	ck_assert_ptr_nonnull(strstr(err.msg, "no-such-dir"));

	/* the records directory missing: -ENOENT as well, of the records */
	part = SCAN_PART_NONE;
	o.root = root;
	o.records_dir = missing;
	o.records_memory = 1;
	ck_assert_int_eq(scan_run(&o, &r, &err), -ENOENT);
	ck_assert_int_eq(part, SCAN_PART_RECORDS);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot keep the scan's records in"));
	ck_assert_ptr_null(r);

	part = SCAN_PART_NONE;
	o.records_dir = NULL;
	o.exclude = (const char *const[]){ "relative/path", NULL };
	ck_assert_int_eq(scan_run(&o, &r, &err), -EINVAL);
	ck_assert_int_eq(part, SCAN_PART_EXCLUDE);

	part = SCAN_PART_NONE;
	o.exclude = NULL;
	ck_assert_msg(scan_run(&o, &r, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(part, SCAN_PART_NONE);
	ck_assert_uint_eq(r->n, 1);
	scan_result_free(r);
	free(missing);
}
END_TEST

START_TEST(test_skip_rules)
{
	struct skip_list l = { 0 };
	struct s2c_error err = { 0 };
	char *norm = NULL;

	ck_assert_int_eq(skip_list_add(&l, "/var/lib/docker", SKIP_CONTAINERS, NULL, &err), 0);
	ck_assert_int_eq(skip_list_add(&l, "/home/*/.cache", SKIP_EXCLUDED, "x", &err), 0);
	ck_assert_int_eq(skip_list_add(&l, "/*.img", SKIP_EXCLUDED, "y", &err), 0);
	ck_assert_uint_eq(l.max_depth, 3);
	ck_assert_uint_eq(l.v[1].literal, strlen("/home"));
	ck_assert_uint_eq(l.v[2].literal, 0);
	/* Matches need the same depth. */
	ck_assert_ptr_eq(skip_list_match(&l, "/var/lib/docker", 3), &l.v[0]);
	ck_assert_ptr_null(skip_list_match(&l, "/var/lib/docker2", 3));
	ck_assert_ptr_eq(skip_list_match(&l, "/home/al/.cache", 3), &l.v[1]);
	ck_assert_ptr_null(skip_list_match(&l, "/home/al/x/.cache", 4));
	ck_assert_ptr_null(skip_list_match(&l, "/homes/al/.cache", 3));
	ck_assert_ptr_eq(skip_list_match(&l, "/disk.img", 1), &l.v[2]);
	/* Subtrees a rule can reach, and those it cannot. */
	ck_assert(skip_list_below(&l, "/", 0));
	ck_assert(skip_list_below(&l, "/var", 1));
	ck_assert(skip_list_below(&l, "/var/lib", 2));
	ck_assert(!skip_list_below(&l, "/usr", 1));
	ck_assert(!skip_list_below(&l, "/var/libx", 2));
	ck_assert(skip_list_below(&l, "/home/al", 2));
	ck_assert(!skip_list_below(&l, "/home/al/.cache2", 3));
	ck_assert(!skip_list_below(&l, "/var/lib/docker2", 3));
	skip_list_release(&l);
	ck_assert_int_eq(skip_pattern_normalise("//a/./b//", &norm, &err), 0);
	ck_assert_str_eq(norm, "/a/b");
	free(norm);
	ck_assert_uint_eq(skip_path_depth("/"), 0);
	ck_assert_uint_eq(skip_path_depth("/a/b"), 2);
}
END_TEST

/* Drop the DAC override capabilities so permissions apply even to root. */
static void drop_dac(void)
{
	cap_t c = cap_get_proc();
	cap_value_t v[] = { CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH };

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(cap_set_flag(c, CAP_EFFECTIVE, 2, v, CAP_CLEAR), 0);
	ck_assert_int_eq(cap_set_proc(c), 0);
	cap_free(c);
}

START_TEST(test_unreadable_dir)
{
	struct fx_warnings w = { 0 };
	struct scan_result *r;
	char *locked;

	fx_file(root, "open/su", 04755, "x");
	fx_file(root, "locked/hidden-su", 04755, "x");
	locked = fx_path(root, "locked");
	ck_assert_int_eq(chmod(locked, 0), 0);
	drop_dac();
	r = fx_scan(NULL, one("."), 0, 2, &w);
	ck_assert_uint_eq(r->n, 1);
	ck_assert_uint_eq(w.n, 1);
	ck_assert_str_eq(w.paths[0], locked);
	ck_assert_int_eq(w.errors[0], -EACCES);
	ck_assert_uint_eq(r->warnings, 1);
	fx_warnings_release(&w);
	scan_result_free(r);
	free(locked);
}
END_TEST

/* --- privileged: capabilities, mounts ----------------------------------------- */

START_TEST(test_caps_found)
{
	struct scan_result *r;
	int i;

	fx_file(root, "ping", 0755, "x");
	fx_file(root, "latent", 0644, "x");
	fx_file(root, "both", 04755, "x");
	fx_file(root, "ns", 0755, "x");
	ck_assert_int_eq(fx_setcaps(root, "ping", "cap_net_raw+ep"), 0);
	ck_assert_int_eq(fx_setcaps(root, "latent", "cap_sys_admin+ep"), 0);
	ck_assert_int_eq(fx_setcaps(root, "both", "cap_net_raw+p"), 0);
	{
		static const unsigned char v3[24] = { 0x01, 0, 0, 0x03, 0x00, 0x20, [20] = 0xe8, 0x03 };
		ck_assert_int_eq(fx_setcaps_raw(root, "ns", v3, sizeof(v3)), 0);
	}
	/* chmod after setcap: caps survive chmod (setcap order matters for chown only) */
	r = fx_scan(NULL, one("."), 0, 2, NULL);
	ck_assert_uint_eq(r->n, 3);     /* the non-executable one is latent: not read */
	i = find_rel(r, "ping");
	ck_assert_int_ge(i, 0);
	ck_assert_str_eq(r->v[i]->caps_text, "cap_net_raw=ep");
	i = find_rel(r, "both");
	ck_assert(r->v[i]->flags & FACT_SUID_AND_CAPS);
	i = find_rel(r, "ns");
	ck_assert(r->v[i]->flags & FACT_FOREIGN_ROOTID);
	scan_result_free(r);

	r = fx_scan(NULL, one("."), SCAN_ALL_CAPS, 2, NULL);
	ck_assert_uint_eq(r->n, 4);
	i = find_rel(r, "latent");
	ck_assert(r->v[i]->flags & FACT_NOT_EXECUTABLE);
	ck_assert_str_eq(r->v[i]->caps_text, "cap_sys_admin=ep");
	scan_result_free(r);
}
END_TEST

static void private_ns(void)
{
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
}

START_TEST(test_nosuid_bind_mount)
{
	struct scan_result *r;
	char *mnt = fx_path(root, "mnt");
	char *src = fx_path(root, "src");

	fx_file(root, "src/su", 04755, "x");
	fx_mkdirs(root, "mnt");
	private_ns();
	ck_assert_int_eq(mount(src, mnt, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount(NULL, mnt, NULL, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_RDONLY, NULL), 0);
	r = fx_scan(NULL, one("."), 0, 2, NULL);
	ck_assert_uint_eq(r->n, 2);
	{
		int a = find_rel(r, "src/su"), b = find_rel(r, "mnt/su");
		ck_assert(!(r->v[a]->flags & FACT_NOSUID_MOUNT));
		ck_assert(r->v[b]->flags & FACT_NOSUID_MOUNT);
		ck_assert(r->v[b]->mount.rdonly);
		ck_assert_str_eq(r->v[b]->mount.target, mnt);
	}
	scan_result_free(r);
	/* --xdev stays off the bind mount only when it is another device: here it
	 * is the same filesystem, as find -xdev would also cross it. */
	r = fx_scan(root, NULL, 0, 2, NULL);   /* image mode uses fstatvfs */
	ck_assert_uint_eq(r->n, 2);
	ck_assert(r->v[fx_find(r, "/mnt/su")]->flags & FACT_NOSUID_MOUNT);
	scan_result_free(r);
	ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
	free(mnt);
	free(src);
}
END_TEST

START_TEST(test_pseudo_and_xdev)
{
	struct scan_result *r;
	char *proc = fx_path(root, "proc"), *tmp = fx_path(root, "tmp");

	fx_file(root, "usr/su", 04755, "x");
	fx_mkdirs(root, "proc");
	fx_mkdirs(root, "tmp");
	private_ns();
	ck_assert_int_eq(mount("proc", proc, "proc", 0, NULL), 0);
	ck_assert_int_eq(mount("tmpfs", tmp, "tmpfs", 0, "size=1m"), 0);
	fx_file(root, "tmp/dropped-su", 04755, "x");
	for (int image = 0; image < 2; image++) {
		const char *rt = image ? root : NULL;
		const char *const *ps = image ? NULL : one(".");
		r = fx_scan(rt, ps, 0, 2, NULL);
		ck_assert_uint_eq(r->n, 2);            /* tmpfs crossed, proc skipped */
		ck_assert(r->stats.dirs < 50);
		scan_result_free(r);
		r = fx_scan(rt, ps, SCAN_XDEV, 2, NULL);
		ck_assert_uint_eq(r->n, 1);            /* only the start filesystem */
		scan_result_free(r);
	}
	ck_assert_int_eq(umount2(proc, MNT_DETACH), 0);
	ck_assert_int_eq(umount2(tmp, MNT_DETACH), 0);
	free(proc);
	free(tmp);
}
END_TEST

/*
 * The running system, simulated: the fixture tree becomes "/" (chroot in a
 * private mount namespace, undone at the end), so the scan treats it as the
 * live root, reads its passwd through NSS and a mount table written for it.
 */
START_TEST(test_live_other_roots)
{
	static const char mountinfo[] =
		"1 0 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
		"2 1 0:40 / /srv/ovl/merged rw - overlay overlay rw,lowerdir=/srv/ovl/lo\\134:wer:"
		"/srv/ovl/lower2,upperdir=/srv/ovl/up\\040per,workdir=/srv/ovl/work\n"
		"3 1 0:41 / /usr rw - overlay overlay rw,lowerdir=/usr,upperdir=/var/usr-rw/upper,"
		"workdir=/var/usr-rw/work\n";
	static const char *const expect[][3] = {
		{ "/home/alice/.local/share/containers", "container-storage",
		  "rootless containers of user alice" },
		{ "/home/ldap-user/.local/share/containers", "container-storage",
		  "rootless containers in a home directory" },
		{ "/srv/ovl/lo:wer", "overlay", "overlayfs lowerdir of /srv/ovl/merged" },
		{ "/srv/ovl/lower2", "overlay", "overlayfs lowerdir of /srv/ovl/merged" },
		{ "/srv/ovl/up per", "overlay", "overlayfs upperdir of /srv/ovl/merged" },
		{ "/srv/ovl/work", "overlay", "overlayfs workdir of /srv/ovl/merged" },
		{ "/var/lib/docker", "container-storage", "container and VM storage" },
		{ "/var/lib/libvirt/images", "container-storage", "container and VM storage" },
		{ "/var/tmp/bookworm", "os-root", NULL },
		{ "/var/usr-rw/upper", "overlay", "overlayfs upperdir of /usr" },
	};
	struct scan_options o = { .threads = 4, .mountinfo = "/mountinfo" };
	struct scan_result *r = NULL;
	struct s2c_error err = { 0 };
	int oldroot;

	if (!fx_have_cap(CAP_SYS_CHROOT))
		return;
	fx_file(root, "mountinfo", 0644, mountinfo);
	fx_file(root, "etc/passwd", 0644, "root:x:0:0::/root:/bin/sh\n"
		"alice2:x:1002:1002::/home/alice:/bin/sh\n"
		"alice:x:1000:1000::/home/alice:/bin/sh\n"
		"glob:x:1001:1001::/srv/h*me:/bin/sh\n");
	fx_file(root, "etc/group", 0644, "root:x:0:\n");
	fx_file(root, "etc/nsswitch.conf", 0644, "passwd: files\ngroup: files\n");
	fx_file(root, "usr/bin/passwd", 04755, "x");                     /* this system's */
	fx_file(root, "home/alice/bin/mine", 04755, "x");                /* this system's */
	fx_file(root, "home/alice/.local/share/containers/storage/overlay/l/diff/su", 04755, "x");
	fx_file(root, "srv/hxme/.local/share/containers/su", 04755, "x"); /* '*' is no glob */
	fx_file(root, "home/ldap-user/.local/share/containers/su", 04755, "x"); /* not in passwd */
	fx_file(root, "var/lib/docker/overlay2/abc/diff/usr/bin/su", 04755, "x");
	fx_file(root, "var/lib/libvirt/images/guest/su", 04755, "x");
	fx_file(root, "var/lib/libvirt/qemu/su", 04755, "x");             /* not storage */
	fx_file(root, "srv/ovl/lo:wer/usr/bin/su", 04755, "x");
	fx_file(root, "srv/ovl/lower2/su", 04755, "x");
	fx_file(root, "srv/ovl/up per/usr/bin/su", 04755, "x");
	fx_mkdirs(root, "srv/ovl/work/work");
	fx_file(root, "srv/ovl/merged/usr/bin/su", 04755, "x");           /* the mounted view */
	fx_file(root, "var/usr-rw/upper/bin/su", 04755, "x");
	os_tree("var/tmp/bookworm", false);

	/* The way back, taken in the namespace the test runs in. */
	private_ns();
	oldroot = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(oldroot, 0);
	ck_assert_int_eq(chroot(root), 0);
	ck_assert_int_eq(chdir("/"), 0);
	{
		int ret = scan_run(&o, &r, &err);
		/* Back to the real root before anything can fail. */
		ck_assert_int_eq(fchdir(oldroot), 0);
		ck_assert_int_eq(chroot("."), 0);
		ck_assert_msg(ret == 0, "%s", err.msg);
	}
	ck_assert(r->host);
	ck_assert_uint_eq(r->n, 5);
	ck_assert_int_ge(fx_find(r, "/usr/bin/passwd"), 0);
	ck_assert_int_ge(fx_find(r, "/home/alice/bin/mine"), 0);
	ck_assert_int_ge(fx_find(r, "/srv/hxme/.local/share/containers/su"), 0);
	ck_assert_int_ge(fx_find(r, "/var/lib/libvirt/qemu/su"), 0);
	ck_assert_int_ge(fx_find(r, "/srv/ovl/merged/usr/bin/su"), 0);
	ck_assert_uint_eq(r->n_skipped, sizeof(expect) / sizeof(expect[0]));
	for (size_t i = 0; i < r->n_skipped; i++) {
		const struct skip_entry *e = &r->skipped[i];
		ck_assert_str_eq(e->path, expect[i][0]);
		ck_assert_str_eq(skip_reason_name(e->reason), expect[i][1]);
		if (expect[i][2])
			ck_assert_str_eq(e->source, expect[i][2]);
		else
			ck_assert_ptr_null(e->source);
	}
	scan_result_free(r);
	r = NULL;

	/* --other-roots: the same system, everything walked. */
	o.flags = SCAN_OTHER_ROOTS;
	ck_assert_int_eq(chroot(root), 0);
	ck_assert_int_eq(chdir("/"), 0);
	{
		int ret = scan_run(&o, &r, &err);
		ck_assert_int_eq(fchdir(oldroot), 0);
		ck_assert_int_eq(chroot("."), 0);
		ck_assert_msg(ret == 0, "%s", err.msg);
	}
	ck_assert_uint_eq(r->n, 15);
	ck_assert_uint_eq(r->n_skipped, 0);
	scan_result_free(r);
	close(oldroot);
}
END_TEST

Suite *walk_suite(void)
{
	Suite *s = suite_create("walk");
	TCase *tc = tcase_create("walk");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_modes);
	tcase_add_test(tc, test_symlinks_not_followed);
	tcase_add_test(tc, test_hardlinks);
	tcase_add_test(tc, test_deep_tree);
	tcase_add_test(tc, test_too_deep_warns);
	tcase_add_test(tc, test_odd_names);
	tcase_add_test(tc, test_threads_agree);
	tcase_add_test(tc, test_directory_sizes);
	tcase_add_test(tc, test_single_file_and_missing);
	tcase_add_test(tc, test_image_root);
	tcase_add_test(tc, test_unreadable_dir);
	tcase_add_test(tc, test_nested_os_root);
	tcase_add_test(tc, test_exclude_globs);
	tcase_add_test(tc, test_exclude_file);
	tcase_add_test(tc, test_exclude_file_trust);
	tcase_add_test(tc, test_skip_rules);
	tcase_add_test(tc, test_failed_part);
	suite_add_tcase(s, tc);
	return s;
}

Suite *walk_priv_suite(void)
{
	Suite *s = suite_create("walk_priv");
	TCase *tc = tcase_create("privileged");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_caps_found);
	tcase_add_test(tc, test_nosuid_bind_mount);
	tcase_add_test(tc, test_pseudo_and_xdev);
	tcase_add_test(tc, test_live_other_roots);
	suite_add_tcase(s, tc);
	return s;
}
