/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The package layer's building blocks: archive names, the member table, the
 * private stage (nothing lands outside it, nothing in it is usable), and the
 * maintainer-script analysis on the scripts of real Debian packages.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>
#include <archive_entry.h>

#include "error.h"
#include "fixture.h"
#include "maintscript.h"
#include "member.h"
#include "shparse.h"
#include "stage.h"
#include "target.h"
#include "suites.h"

/* --- names and members ---------------------------------------------------------------------- */

START_TEST(test_member_path)
{
	static const struct {
		const char *in, *out;
	} ok[] = {
		{ "./usr/bin/ping", "/usr/bin/ping" }, { "usr//bin/./x/", "/usr/bin/x" },
		{ ".", "/" }, { "./", "/" }, { "a/.../b", "/a/.../b" }, { "..a/b..", "/..a/b.." },
	};
	static const char *const bad[] = { "", "/etc/passwd", "../x", "a/../../x", "a/..",
					   "./..", "..", "//x" };
	struct s2c_error err = { 0 };
	char *p = NULL, longname[MEMBER_PATH_MAX + 2];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_int_eq(member_path(ok[i].in, &p, NULL), 0);
		ck_assert_str_eq(p, ok[i].out);
		free(p);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = NULL;
		s2c_error_clear(&err);
		ck_assert_int_eq(member_path(bad[i], &p, &err), -EINVAL);
		ck_assert_ptr_null(p);
		ck_assert(err.msg[0]);
	}
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_int_eq(member_path(longname, &p, NULL), -EINVAL);
}
END_TEST

/*
 * Owner and capabilities share one record: setting either keeps the other, a copy
 * has both, root:root 0:0 costs nothing, and the budget counts what a member owns.
 */
START_TEST(test_member_owner)
{
	static const unsigned char blob[20] = { 0x01, 0x00, 0x00, 0x02, 0x00, 0x20 };
	unsigned char big[FCAPS_BLOB_MAX + 1] = { 0 };
	struct member *m = member_new("/usr/bin/x"), *c;
	size_t plain;

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_null(member_uname(m));
	ck_assert_ptr_null(member_caps(m));
	ck_assert_int_eq(member_set_owner(m, "root", "root", 0, 0), 0);
	plain = member_bytes(m);
	ck_assert_uint_eq(plain, offsetof(struct member, path) + strlen(m->path) + 1 + 16);
	ck_assert_int_eq(member_set_caps(m, blob, sizeof(blob)), 0);
	ck_assert(m->has_caps);
	ck_assert_uint_eq(member_caps_len(m), sizeof(blob));
	ck_assert_str_eq(member_uname(m), "root");
	ck_assert_uint_gt(member_bytes(m), plain + sizeof(blob));
	ck_assert_int_eq(member_set_owner(m, "daemon", NULL, 1, 7), 0);
	ck_assert_mem_eq(member_caps(m), blob, sizeof(blob));
	ck_assert_str_eq(member_uname(m), "daemon");
	ck_assert_ptr_null(member_gname(m));
	c = member_dup(m);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_ne(c->owner, m->owner);
	ck_assert_str_eq(member_uname(c), "daemon");
	ck_assert_uint_eq(member_uid(c), 1);
	ck_assert_uint_eq(member_gid(c), 7);
	ck_assert_mem_eq(member_caps(c), blob, sizeof(blob));
	ck_assert_uint_eq(member_bytes(c), member_bytes(m));
	/* oversized: said to be there, without its bytes */
	ck_assert_int_eq(member_set_caps(c, big, sizeof(big)), 0);
	ck_assert(c->has_caps);
	ck_assert_ptr_null(member_caps(c));
	ck_assert_uint_eq(member_uid(c), 1);
	ck_assert_int_eq(member_set_caps(m, NULL, 0), 0);
	ck_assert(!m->has_caps);
	ck_assert_int_eq(member_set_owner(m, "root", "root", 0, 0), 0);
	ck_assert_uint_eq(member_bytes(m), plain);
	member_free(c);
	member_free(m);
}
END_TEST

static void put(struct memberset *s, const char *path, enum member_type t, const char *target,
		unsigned layer)
{
	struct member *m = member_new(path);

	ck_assert_ptr_nonnull(m);
	m->type = t;
	m->layer = layer;
	if (target)
		m->target = strdup(target);
	ck_assert_int_eq(memberset_put(s, m), 0);
}

START_TEST(test_memberset)
{
	struct memberset s = { 0 };
	struct member *m = NULL, **sorted = NULL;
	char name[64];

	for (int i = 0; i < 1000; i++) {
		(void)snprintf(name, sizeof(name), "/d%d/f%d", i % 7, i);
		put(&s, name, MEMBER_FILE, NULL, (unsigned)(i % 3));
	}
	ck_assert_uint_eq(s.n, 1000);
	put(&s, "/d1/f1", MEMBER_DIR, NULL, 5);     /* replaces */
	ck_assert_uint_eq(s.n, 1000);
	ck_assert_int_eq(memberset_get(&s, "/d1/f1")->type, MEMBER_DIR);
	ck_assert_uint_eq(memberset_remove(&s, "/d1", true), 143);
	ck_assert_ptr_null(memberset_get(&s, "/d1/f8"));
	ck_assert_ptr_nonnull(memberset_get(&s, "/d2/f2"));
	/* opaque: only what older layers added goes */
	ck_assert_uint_gt(memberset_remove_older_below(&s, "/d2", 1), 0);
	for (int i = 2; i < 1000; i += 7) {
		(void)snprintf(name, sizeof(name), "/d2/f%d", i);
		m = memberset_get(&s, name);
		ck_assert(m ? m->layer >= 1 : i % 3 == 0);
	}
	ck_assert_uint_eq(s.n, 1000 - 143 - 48);
	/* every other member is still found, in its own slot */
	for (int i = 0; i < 1000; i++) {
		(void)snprintf(name, sizeof(name), "/d%d/f%d", i % 7, i);
		m = memberset_get(&s, name);
		ck_assert(m ? i % 7 != 1 && (i % 7 != 2 || i % 3 != 0) : i % 7 == 1 ||
			  (i % 7 == 2 && i % 3 == 0));
	}
	ck_assert_int_eq(memberset_sorted(&s, &sorted), 0);
	for (size_t i = 1; i < s.n; i++)
		ck_assert_int_lt(strcmp(sorted[i - 1]->path, sorted[i]->path), 0);
	free(sorted);
	memberset_release(&s);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

/* A table trimmed to a few members shrinks to their size, finds each, counts less, grows. */
START_TEST(test_memberset_shrink)
{
	struct memberset s = { 0 };
	size_t before;
	char name[64];

	for (int i = 0; i < 5000; i++) {
		(void)snprintf(name, sizeof(name), "/d/f%d", i);
		put(&s, name, MEMBER_FILE, NULL, 0);
	}
	ck_assert_uint_eq(s.n_slots, 16384);
	for (int i = 0; i < 5000; i++)
		if (i % 1000) {
			(void)snprintf(name, sizeof(name), "/d/f%d", i);
			ck_assert_uint_eq(memberset_remove(&s, name, false), 1);
		}
	ck_assert_uint_eq(s.n, 5);
	before = s.bytes;
	memberset_shrink(&s);
	ck_assert_uint_eq(s.n_slots, 16);
	ck_assert_uint_eq(s.bytes, before - (16384 - 16) * sizeof(*s.slots));
	for (int i = 0; i < 5000; i += 1000) {
		(void)snprintf(name, sizeof(name), "/d/f%d", i);
		ck_assert_ptr_nonnull(memberset_get(&s, name));
	}
	ck_assert_ptr_null(memberset_get(&s, "/d/f1"));
	memberset_shrink(&s);           /* already as small as it can be */
	ck_assert_uint_eq(s.n_slots, 16);
	for (int i = 0; i < 100; i++) {
		(void)snprintf(name, sizeof(name), "/e/f%d", i);
		put(&s, name, MEMBER_FILE, NULL, 0);
	}
	ck_assert_uint_eq(s.n, 105);
	ck_assert_ptr_nonnull(memberset_get(&s, "/d/f4000"));
	ck_assert_ptr_nonnull(memberset_get(&s, "/e/f99"));
	memberset_release(&s);
	memberset_shrink(&s);           /* empty: nothing to do */
	ck_assert_uint_eq(s.n_slots, 0);
}
END_TEST

START_TEST(test_memberset_resolve)
{
	struct memberset s = { 0 };
	struct member *m = NULL;

	put(&s, "/", MEMBER_DIR, NULL, 0);
	put(&s, "/usr", MEMBER_DIR, NULL, 0);
	put(&s, "/usr/lib", MEMBER_DIR, NULL, 0);
	put(&s, "/lib", MEMBER_SYMLINK, "usr/lib", 0);
	put(&s, "/usr/lib/libcap.so.2.66", MEMBER_FILE, NULL, 0);
	put(&s, "/usr/lib/libcap.so.2", MEMBER_SYMLINK, "libcap.so.2.66", 0);
	put(&s, "/usr/lib/abs", MEMBER_SYMLINK, "/lib/libcap.so.2", 0);
	put(&s, "/usr/lib/up", MEMBER_SYMLINK, "../../../../usr/lib/libcap.so.2", 0);
	put(&s, "/loop", MEMBER_SYMLINK, "loop", 0);
	ck_assert_int_eq(memberset_resolve(&s, "/lib/libcap.so.2", &m), 0);
	ck_assert_str_eq(m->path, "/usr/lib/libcap.so.2.66");
	ck_assert_int_eq(memberset_resolve(&s, "/usr/lib/abs", &m), 0);
	ck_assert_str_eq(m->path, "/usr/lib/libcap.so.2.66");
	ck_assert_int_eq(memberset_resolve(&s, "/usr/lib/up", &m), 0);
	ck_assert_str_eq(m->path, "/usr/lib/libcap.so.2.66");
	ck_assert_int_eq(memberset_resolve(&s, "/loop", &m), -ELOOP);
	ck_assert_int_eq(memberset_resolve(&s, "/lib/nothere", &m), -ENOENT);
	ck_assert_int_eq(memberset_resolve(&s, "/usr/lib/libcap.so.2.66/x", &m), -ENOTDIR);
	memberset_release(&s);
}
END_TEST

/* --- the stage ------------------------------------------------------------------------------ */

static char *tmp;

static void stage_setup(void)
{
	tmp = fx_tempdir();
}

static void stage_teardown(void)
{
	fx_rmrf(tmp);
	free(tmp);
}

/* Names of every entry under @dir, recursively, sorted, one per line. */
static void list_tree(const char *dir, char *out, size_t size)
{
	char cmd[4096];
	FILE *p;

	(void)snprintf(cmd, sizeof(cmd), "cd '%s' && find . | sort", dir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	out[fread(out, 1, size - 1, p)] = '\0';
	pclose(p);
}

/* How many fds this process has open. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3;   /* ".", ".." and the directory's own fd */
}

START_TEST(test_stage_contains)
{
	struct stage *s = NULL;
	struct s2c_error err = { 0 };
	struct stat st;
	char before[4096], after[4096], dir[4096], *outside;
	int fd;

	fx_mkdirs(tmp, "outside");
	fx_file(tmp, "outside/secret", 0600, "secret");
	outside = fx_path(tmp, "outside");
	list_tree(outside, before, sizeof(before));
	ck_assert_int_eq(stage_new_temp(tmp, &s, &err), 0);
	ck_assert_int_eq(stat(stage_dir(s), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);

	/* A staged symlink pointing outside is never written through. */
	ck_assert_int_eq(stage_symlink(s, "/usr/lib/libx.so", outside, &err), 0);
	s2c_error_clear(&err);
	ck_assert_int_lt(stage_create(s, "/usr/lib/libx.so/evil", &err), 0);
	ck_assert(err.msg[0]);
	fd = stage_create(s, "/usr/lib/libx.so", &err);     /* replaces the link itself */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	close(fd);
	ck_assert_int_lt(stage_create(s, "/a/../../x", &err), 0);
	/* A directory made a symlink, or a file, after a file was created in it is not
	 * written into again (the last directory is not reused past such a change). */
	fd = stage_create(s, "/t/x/f", &err);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(stage_symlink(s, "/t/x", outside, &err), 0);
	ck_assert_int_lt(stage_create(s, "/t/x/g", &err), 0);
	fd = stage_create(s, "/t/y/f", &err);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = stage_create(s, "/t/y", &err);                 /* a file replaces the tree */
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_lt(stage_create(s, "/t/y/g", &err), 0);
	fd = stage_create(s, "/t/z/f", &err);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = stage_create(s, "/t/z/f", &err);               /* the same name again: replaced */
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_lt(stage_create(s, "/t/z/..", &err), 0);
	ck_assert_int_lt(stage_create(s, "/t/z/", &err), 0);
	/* Idle, the stage keeps no directory open; it opens one again when it creates. */
	{
		int open_before = open_fds();

		stage_idle(s);
		ck_assert_int_eq(open_fds(), open_before - 1);
		fd = stage_create(s, "/t/z/g", &err);
		ck_assert_int_ge(fd, 0);
		close(fd);
		ck_assert_int_eq(open_fds(), open_before);
	}
	list_tree(outside, after, sizeof(after));
	ck_assert_str_eq(before, after);

	/* Hard links and whiteouts stay inside too. */
	ck_assert_int_eq(stage_link(s, "/usr/bin/other", "/usr/lib/libx.so", &err), 0);
	ck_assert_int_eq(stage_remove(s, "/usr"), 0);
	ck_assert_int_eq(stage_remove(s, "/not/there"), 0);
	(void)snprintf(dir, sizeof(dir), "%s", stage_dir(s));
	stage_free(s);
	ck_assert_int_lt(stat(dir, &st), 0);
	list_tree(tmp, after, sizeof(after));
	ck_assert_ptr_null(strstr(after, "suid2cap-"));
	free(outside);
}
END_TEST

START_TEST(test_stage_limits)
{
	struct stage *s = NULL, *sub = NULL;
	struct s2c_error err = { 0 };
	struct stage_limits lim = STAGE_LIMITS_DEFAULT;
	char deep[4096] = "";

	ck_assert_int_eq(stage_new_temp(tmp, &s, &err), 0);
	lim.max_total = 100;
	stage_set_limits(s, &lim);
	ck_assert_int_eq(stage_new_sub(s, "t1", &sub, &err), 0);
	ck_assert_int_eq(stage_reserve(sub, 60, &err), 0);
	ck_assert_int_eq(stage_reserve(sub, 60, &err), -EFBIG);
	ck_assert_int_eq(stage_new_sub(s, "t1", &sub, &err), -EEXIST);
	ck_assert_int_eq(stage_new_sub(s, "../x", &sub, &err), -EINVAL);
	for (int i = 0; i < 300; i++)
		strcat(deep, "/d");
	ck_assert_int_eq(stage_create(s, deep, &err), -ELOOP);
	stage_free(sub);
	stage_free(s);
}
END_TEST

START_TEST(test_stage_share)
{
	struct stage *run = NULL, *a = NULL, *b = NULL;
	struct s2c_error err = { 0 };
	struct stat sa, sb;
	char pa[4096], pb[4096];
	int fd;

	ck_assert_int_eq(stage_new_temp(tmp, &run, &err), 0);
	ck_assert_int_eq(stage_new_sub(run, "a", &a, &err), 0);
	ck_assert_int_eq(stage_new_sub(run, "b", &b, &err), 0);
	fd = stage_create(a, "/usr/lib/libcap.so.2.66", &err);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(stage_symlink(a, "/usr/lib/libcap.so.2", "libcap.so.2.66", &err), 0);
	ck_assert_int_eq(stage_share(b, a, "/usr/lib/libcap.so.2.66"), 0);
	ck_assert_int_eq(stage_share(b, a, "/usr/lib/libcap.so.2"), 0);
	ck_assert_int_eq(stage_share(b, a, "/usr/lib/nothere"), -ENOENT);
	(void)snprintf(pa, sizeof(pa), "%s/root/usr/lib/libcap.so.2.66", stage_dir(a));
	(void)snprintf(pb, sizeof(pb), "%s/root/usr/lib/libcap.so.2", stage_dir(b));
	ck_assert_int_eq(stat(pa, &sa), 0);
	ck_assert_int_eq(stat(pb, &sb), 0);     /* through b's own symlink */
	ck_assert_uint_eq(sa.st_ino, sb.st_ino);
	stage_free(b);
	stage_free(a);
	stage_free(run);
}
END_TEST

/* --- maintainer scripts --------------------------------------------------------------------- */

static const char *const configure[] = { "configure", "" };

static struct ms_analysis analyse(const char *text)
{
	struct ms_context ctx = { .args = configure, .n_args = 2, .arch = "amd64", .stagefd = -1 };
	struct ms_analysis a = { 0 };

	ck_assert_int_eq(maintscript_analyse("postinst", text, strlen(text), &ctx, &a), 0);
	return a;
}

/* The state of @path after the actions of scenario @sc, from @mode root:root. */
static struct ms_state state_after(const struct ms_analysis *a, const char *path, uint32_t mode,
				   enum ms_scenario sc)
{
	struct ms_state st = { .mode = mode, .owner = "root", .group = "root" };

	for (size_t seq = 0; seq < 64; seq++)
		for (size_t i = 0; i < a->n; i++)
			if (a->v[i].seq[sc] == seq && ms_applies(&a->v[i], sc) &&
			    strcmp(a->v[i].path, path) == 0)
				ck_assert_int_eq(ms_apply(&a->v[i], false, &st), 0);
	return st;
}

/* iputils-ping 3:20221126-1+deb12u1 postinst, verbatim in the essentials. */
static const char ping_postinst[] =
	"#!/bin/sh\n\nset -e\n\nPROGRAM=$(dpkg-divert --truename /bin/ping)\n\n"
	"if [ \"$1\" = configure ]; then\n"
	"    # If we have setcap installed, try setting cap_net_raw+ep,\n"
	"    if command -v setcap > /dev/null; then\n"
	"        if setcap cap_net_raw+ep $PROGRAM; then\n"
	"            chmod u-s $PROGRAM\n"
	"        else\n"
	"            echo \"Setcap failed on $PROGRAM, falling back to setuid\" >&2\n"
	"            chmod u+s $PROGRAM\n"
	"        fi\n"
	"    else\n"
	"        echo \"Setcap is not installed, falling back to setuid\" >&2\n"
	"        chmod u+s $PROGRAM\n"
	"    fi\n"
	"fi\n\nexit 0\n";

START_TEST(test_ms_ping)
{
	struct ms_analysis a = analyse(ping_postinst);
	struct ms_state ok = state_after(&a, "/bin/ping", 0755, MS_SCENARIO_WORKS);
	struct ms_state fails = state_after(&a, "/bin/ping", 0755, MS_SCENARIO_FAILS);

	ck_assert_uint_eq(a.n_incomplete, 0);
	ck_assert_int_eq(ok.mode, 0755);
	ck_assert(ok.has_caps);
	ck_assert_str_eq(ok.caps, "cap_net_raw+ep");
	ck_assert_int_eq(fails.mode, 04755);
	ck_assert(!fails.has_caps);
	for (size_t i = 0; i < a.n; i++) {
		ck_assert_str_eq(a.v[i].path, "/bin/ping");
		ck_assert(!a.v[i].conditional);
		if (a.v[i].kind == MS_SETCAP)
			ck_assert_int_eq(a.v[i].when, MS_SETCAP_WORKS);
		if (a.v[i].kind == MS_CHMOD && strcmp(a.v[i].mode, "u+s") == 0) {
			ck_assert_int_eq(a.v[i].when, MS_SETCAP_FAILS);
			ck_assert_str_eq(a.v[i].command, "chmod u+s $PROGRAM");
		}
	}
	ms_analysis_release(&a);
}
END_TEST

/* dbus 1.14.10-1~deb12u1: statoverride with variables, guarded by --list. */
static const char dbus_postinst[] =
	"#!/bin/sh\nset -e\nMESSAGEUSER=messagebus\n"
	"LAUNCHER=/usr/lib/dbus-1.0/dbus-daemon-launch-helper\n"
	"reload_dbus_config() {\n    [ -S /var/run/dbus/system_bus_socket ] || return 0\n"
	"    dbus-send --print-reply --system --type=method_call \\\n"
	"        --dest=org.freedesktop.DBus \\\n        / org.freedesktop.DBus.ReloadConfig > /dev/null || true\n}\n"
	"if [ \"$1\" = triggered ]; then\n    reload_dbus_config\n    exit 0\nfi\n"
	"if [ \"$1\" = configure ]; then\n"
	"    if ! dpkg-statoverride --list \"$LAUNCHER\" >/dev/null; then\n"
	"        dpkg-statoverride --update --add root \"$MESSAGEUSER\" 4754 \"$LAUNCHER\"\n"
	"    fi\nfi\n"
	"if [ -z \"${DPKG_ROOT:-}\" ] && [ \"$1\" = configure ] && [ -n \"$2\" ]; then\n"
	"    if pidof -c /bin/dbus-daemon /usr/bin/dbus-daemon >/dev/null; then\n"
	"        touch /var/run/reboot-required || true\n"
	"        if ! grep -Fqsx dbus /run/reboot-required.pkgs; then\n"
	"            echo dbus >> /run/reboot-required.pkgs || true\n        fi\n"
	"        [ -x /usr/share/update-notifier/notify-reboot-required ] && \\\n"
	"            /usr/share/update-notifier/notify-reboot-required || true\n    fi\nfi\n";

START_TEST(test_ms_dbus)
{
	struct ms_analysis a = analyse(dbus_postinst);
	struct ms_state st = state_after(&a, "/usr/lib/dbus-1.0/dbus-daemon-launch-helper", 0754,
					 MS_SCENARIO_WORKS);

	ck_assert_uint_eq(a.n, 1);
	ck_assert_int_eq(a.v[0].kind, MS_STATOVERRIDE);
	ck_assert_int_eq(a.v[0].when, MS_ALWAYS);
	ck_assert_int_eq(a.v[0].line, 17);
	ck_assert_int_eq(st.mode, 04754);
	ck_assert_str_eq(st.owner, "root");
	ck_assert_str_eq(st.group, "messagebus");
	ms_analysis_release(&a);
}
END_TEST

/* polkitd 122-3: a function that chowns and chmods, called with arguments. */
static const char polkit_postinst[] =
	"set -e\nset_perms() {\n    USER=$1\n    GROUP=$2\n    MODE=$3\n    FILE=$4\n"
	"    if ! dpkg-statoverride --list \"$FILE\" > /dev/null 2>&1; then\n"
	"        chown \"$USER:$GROUP\" \"$FILE\"\n        chmod \"$MODE\" \"$FILE\"\n    fi\n}\n"
	"case \"$1\" in\n    configure)\n"
	"        if ! getent passwd polkitd >/dev/null; then\n            user_changed=yes\n"
	"        else\n            user_changed=\n        fi\n"
	"        set_perms polkitd root 700 /var/lib/polkit-1\n"
	"        set_perms root root 4755 /usr/lib/polkit-1/polkit-agent-helper-1\n"
	"    ;;\n    abort-upgrade|abort-remove|abort-deconfigure)\n    ;;\n"
	"    *)\n        echo \"postinst called with unknown argument \\`$1'\" >&2\n        exit 1\n"
	"    ;;\nesac\nexit 0\n";

START_TEST(test_ms_polkit)
{
	struct ms_analysis a = analyse(polkit_postinst);
	struct ms_state st = state_after(&a, "/usr/lib/polkit-1/polkit-agent-helper-1", 0755,
					 MS_SCENARIO_FAILS);

	ck_assert_uint_eq(a.n, 4);
	ck_assert_int_eq(st.mode, 04755);
	ck_assert_str_eq(st.owner, "root");
	ms_analysis_release(&a);
}
END_TEST

/* fping 5.1-1: setcap, and a statoverride only when it fails. */
static const char fping_postinst[] =
	"case \"$1\" in\n    (configure)\n"
	"        if [ \"$(uname -s)\" = \"Linux\" ]; then\n"
	"            if ! setcap cap_net_raw+ep /usr/bin/fping; then\n"
	"                if dpkg-statoverride --list /usr/bin/fping > /dev/null; then\n"
	"                    if dpkg-statoverride --list /usr/bin/fping | fgrep -q 4755; then\n"
	"                        echo already 1>&2\n                    else\n"
	"                        echo exists 1>&2\n                    fi\n"
	"               else\n"
	"                    dpkg-statoverride --update --add root root 4755 /usr/bin/fping\n"
	"                fi\n            fi\n        fi\n    ;;\n"
	"    (abort-upgrade|abort-remove|abort-deconfigure)\n        exit 0\n    ;;\nesac\n";

START_TEST(test_ms_fping)
{
	struct ms_analysis a = analyse(fping_postinst);
	struct ms_state ok = state_after(&a, "/usr/bin/fping", 0755, MS_SCENARIO_WORKS);
	struct ms_state fails = state_after(&a, "/usr/bin/fping", 0755, MS_SCENARIO_FAILS);

	ck_assert(ok.has_caps && ok.mode == 0755);
	ck_assert(!fails.has_caps && fails.mode == 04755);
	ms_analysis_release(&a);
}
END_TEST

START_TEST(test_ms_forms)
{
	/* ||, &&, for, globs, chgrp, setcap -r, unknown names, an rpm-style $1 */
	static const char text[] =
		"chmod 4755 /bin/fusermount3 || true\n"
		"setcap cap_net_raw+ep /usr/bin/a && chmod u-s /usr/bin/a || chmod u+s /usr/bin/a\n"
		"for f in /usr/bin/b /usr/bin/c; do chgrp -R games \"$f\"; chmod g+s $f; done\n"
		"chmod u+s /usr/lib/foo/*\n"
		"setcap -r /usr/bin/d\n"
		"chmod u+s \"$(some-command)\"\n"
		"X=`dpkg-divert --truename /usr/bin/e`; chmod 04711 \"$X\"\n"
		"if [ -e /etc/something ]; then chmod u+s /usr/bin/f; fi\n"
		"cat <<EOF\nchmod u+s /not/a/command\nEOF\n"
		"chown daemon:daemon /usr/bin/at; chmod 6755 /usr/bin/at\n";
	struct ms_analysis a = analyse(text);
	struct ms_state st;
	bool glob = false, cond = false;

	st = state_after(&a, "/usr/bin/a", 04755, MS_SCENARIO_WORKS);
	ck_assert_int_eq(st.mode, 0755);
	st = state_after(&a, "/usr/bin/a", 0755, MS_SCENARIO_FAILS);
	ck_assert_int_eq(st.mode, 04755);
	st = state_after(&a, "/usr/bin/c", 0755, MS_SCENARIO_WORKS);
	ck_assert_int_eq(st.mode, 02755);
	ck_assert_str_eq(st.group, "games");
	st = state_after(&a, "/usr/bin/e", 0755, MS_SCENARIO_WORKS);
	ck_assert_int_eq(st.mode, 04711);
	st = state_after(&a, "/usr/bin/at", 0755, MS_SCENARIO_WORKS);
	ck_assert_int_eq(st.mode, 06755);
	ck_assert_str_eq(st.owner, "daemon");
	st = state_after(&a, "/not/a/command", 0755, MS_SCENARIO_WORKS);
	ck_assert_int_eq(st.mode, 0755);
	for (size_t i = 0; i < a.n; i++) {
		if (strcmp(a.v[i].path, "/usr/lib/foo/*") == 0)
			glob = a.v[i].glob;
		if (strcmp(a.v[i].path, "/usr/bin/f") == 0)
			cond = a.v[i].conditional;
	}
	ck_assert(glob);
	ck_assert(cond);
	/* some-command is not modelled, and then the file is not known */
	ck_assert_uint_eq(a.n_incomplete, 2);
	for (size_t i = 0; i < a.n_incomplete; i++)
		ck_assert_ptr_nonnull(strstr(a.incomplete[i], "postinst:6:"));
	ck_assert_ptr_nonnull(strstr(a.incomplete[0], "not modelled"));
	ck_assert_ptr_nonnull(strstr(a.incomplete[1], "cannot tell which file"));
	ms_analysis_release(&a);
}
END_TEST

START_TEST(test_ms_hostile)
{
	struct ms_context ctx = { .args = configure, .n_args = 2, .stagefd = -1 };
	struct ms_analysis a = { 0 };
	static const char *const bad[] = {
		"if true; then\n", "echo \"unterminated\n", "f() { f; }; f\n",
		"while true; do chmod u+s /x; done\n", "$(((((\n", "case x in\n",
		"cat <<EOF\nno end\n",
	};
	char *deep;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(maintscript_analyse("postinst", bad[i], strlen(bad[i]), &ctx, &a), 0);
	}
	/* Syntax errors are notes; the recursive function and the loop terminate. */
	ck_assert_uint_ge(a.n_incomplete, 5);
	/* Nesting beyond the limit is refused, not a stack overflow. */
	deep = malloc(100000);
	for (int i = 0; i < 20000; i++)
		n += (size_t)sprintf(deep + n, "$(");
	ck_assert_int_eq(maintscript_analyse("postinst", deep, n, &ctx, &a), 0);
	ck_assert_ptr_nonnull(strstr(a.incomplete[a.n_incomplete - 1], "nested more than"));
	free(deep);
	ms_analysis_release(&a);
}
END_TEST

START_TEST(test_ms_chmod)
{
	static const struct {
		const char *spec;
		uint32_t from, to;
		bool dir;
	} cases[] = {
		{ "u+s", 0755, 04755, false }, { "+s", 0755, 06755, false },
		{ "g+s", 0755, 02755, false }, { "u-s", 06755, 02755, false },
		{ "4755", 0644, 04755, false }, { "04754", 0, 04754, false },
		{ "755", 04755, 0755, false }, { "755", 02755, 02755, true },
		{ "a=rx,u+w", 07777, 0755, false }, { "u=rwxs,g=rx,o=r", 0, 04754, false },
		{ "go-w", 0777, 0755, false }, { "+x", 0600, 0711, false },
		{ "o=u", 0700, 0707, false }, { "a+X", 0644, 0644, false },
		{ "a+X", 0744, 0755, false }, { "=", 04755, 0, false },
	};
	static const char *const bad[] = { "", "z+s", "u", "u+s,", "99999", "8", "u+q" };
	uint32_t m;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_msg(ms_chmod(cases[i].spec, cases[i].from, cases[i].dir, &m) == 0, "%s",
			      cases[i].spec);
		ck_assert_msg(m == cases[i].to, "chmod %s %o: %o, want %o", cases[i].spec,
			      cases[i].from, m, cases[i].to);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(ms_chmod(bad[i], 0755, false, &m) == -EINVAL, "%s", bad[i]);
}
END_TEST

START_TEST(test_ms_chown_clears)
{
	char root[] = "root", shadow[] = "shadow";
	struct ms_action chown = { .kind = MS_CHOWN, .owner = root, .group = shadow };
	struct ms_state st = { .mode = 06755, .owner = "root", .group = "root", .has_caps = true };

	ck_assert_int_eq(ms_apply(&chown, false, &st), 0);
	ck_assert_int_eq(st.mode, 0755);
	ck_assert(!st.has_caps);
	ck_assert_str_eq(st.group, "shadow");
	st.mode = 02745;        /* setgid without group execute survives */
	ck_assert_int_eq(ms_apply(&chown, false, &st), 0);
	ck_assert_int_eq(st.mode, 02745);
}
END_TEST

/* --- notes of the files not kept -------------------------------------------------------------- */

/* Take a tar entry of @type into @t as a reader does (@link: a hard link's target). */
static int take(struct target *t, struct stage *run, const char *name, unsigned type,
		unsigned mode, const char *link, unsigned layer)
{
	static const char *const no_libs[] = { NULL };
	const struct target_select sel = { .lib_globs = no_libs };
	struct archive_entry *e = archive_entry_new();
	struct s2c_error err = { 0 };
	int r;

	ck_assert_ptr_nonnull(e);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, mode);
	archive_entry_set_uid(e, 7);
	archive_entry_set_gid(e, 8);
	archive_entry_set_size(e, 0);
	if (link)
		archive_entry_set_hardlink(e, link);
	r = target_take_entry(t, NULL, e, &sel, run, "t", layer, &err);
	archive_entry_free(e);
	return r;
}

START_TEST(test_note_hardlink)
{
	struct target *t = target_new(TARGET_DEB, "x.deb");
	struct stage *run = NULL;
	struct member_note note;
	const struct member *m;
	size_t bytes;

	ck_assert_int_eq(stage_new_temp(tmp, &run, NULL), 0);
	t->members.note_files = true;
	ck_assert_int_eq(take(t, run, "./usr/share/a", AE_IFREG, 0640, NULL, 0), 0);
	/* noted, not kept: no name, but what a hard link inherits, counted */
	ck_assert_ptr_null(memberset_get(&t->members, "/usr/share/a"));
	ck_assert(memberset_noted(&t->members, "/usr/share/a", &note));
	ck_assert_uint_eq(note.mode, 0640);
	ck_assert_uint_eq(note.uid, 7);
	ck_assert_uint_eq(note.gid, 8);
	ck_assert(!memberset_noted(&t->members, "/usr/share/b", NULL));
	ck_assert_uint_eq(t->members.n, 0);
	bytes = t->members.bytes;
	ck_assert_uint_gt(bytes, 0);
	ck_assert_uint_eq(bytes, t->members.notes.bytes);
	/* a hard link to the noted file is that inode */
	ck_assert_int_eq(take(t, run, "./usr/share/b", AE_IFREG, 0, "usr/share/a", 0), 0);
	m = memberset_get(&t->members, "/usr/share/b");
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->type, MEMBER_HARDLINK);
	ck_assert_uint_eq(m->mode, 0640);
	ck_assert_uint_eq(member_uid(m), 7);
	ck_assert_str_eq(m->target, "/usr/share/a");
	ck_assert(!m->candidate);
	/* one to nothing is still refused */
	ck_assert_int_eq(take(t, run, "./usr/share/c", AE_IFREG, 0, "usr/share/none", 0), -EINVAL);
	/* a member put at the noted path replaces the note */
	ck_assert_int_eq(take(t, run, "./usr/share/a", AE_IFDIR, 0755, NULL, 0), 0);
	ck_assert(!memberset_noted(&t->members, "/usr/share/a", NULL));
	ck_assert_int_eq(take(t, run, "./usr/share/d", AE_IFREG, 0, "usr/share/a", 0), -EINVAL);
	/* the notes go with the trim */
	target_trim(t);
	ck_assert_uint_eq(t->members.notes.n, 0);
	ck_assert_uint_eq(t->members.n, 0);
	target_free(t);
	stage_free(run);
}
END_TEST

START_TEST(test_note_whiteout)
{
	struct target *t = target_new(TARGET_IMAGE, "img");
	struct stage *run = NULL;

	ck_assert_int_eq(stage_new_temp(tmp, &run, NULL), 0);
	t->members.note_files = true;
	ck_assert_int_eq(take(t, run, "etc/f", AE_IFREG, 0644, NULL, 0), 0);
	ck_assert_int_eq(take(t, run, "opt/d/g", AE_IFREG, 0644, NULL, 0), 0);
	ck_assert_int_eq(take(t, run, "srv/x/y", AE_IFREG, 0644, NULL, 0), 0);
	ck_assert_int_eq(take(t, run, "etc/fg", AE_IFREG, 0644, NULL, 0), 0);
	/* layer 1: a whiteout of /etc/f (not /etc/fg), an opaque /opt/d */
	ck_assert_int_eq(memberset_hide(&t->members, "/etc/f", true, 1), 0);
	ck_assert_int_eq(memberset_hide(&t->members, "/opt/d", false, 1), 0);
	ck_assert(!memberset_noted(&t->members, "/etc/f", NULL));
	ck_assert(memberset_noted(&t->members, "/etc/fg", NULL));
	ck_assert(!memberset_noted(&t->members, "/opt/d/g", NULL));
	ck_assert(memberset_noted(&t->members, "/srv/x/y", NULL));
	/* a hard link of layer 1 to the hidden file is one to nothing */
	ck_assert_int_eq(take(t, run, "etc/h", AE_IFREG, 0, "etc/f", 1), -EINVAL);
	/* what layer 1 puts after its whiteouts is there */
	ck_assert_int_eq(take(t, run, "opt/d/g", AE_IFREG, 0600, NULL, 1), 0);
	ck_assert(memberset_noted(&t->members, "/opt/d/g", NULL));
	ck_assert_int_eq(take(t, run, "etc/h", AE_IFREG, 0, "opt/d/g", 1), 0);
	ck_assert_uint_eq(memberset_get(&t->members, "/etc/h")->mode, 0600);
	/* a whiteout of a directory hides the notes below it, of the layers before */
	ck_assert_int_eq(memberset_hide(&t->members, "/srv", true, 2), 0);
	ck_assert(!memberset_noted(&t->members, "/srv/x/y", NULL));
	ck_assert(memberset_noted(&t->members, "/opt/d/g", NULL));
	/* a directory replaced in layer 2 (hides up to layer 2): what comes after is there */
	ck_assert_int_eq(memberset_hide(&t->members, "/opt", false, 3), 0);
	ck_assert(!memberset_noted(&t->members, "/opt/d/g", NULL));
	ck_assert_int_eq(take(t, run, "opt/d/g", AE_IFREG, 0644, NULL, 2), 0);
	ck_assert(memberset_noted(&t->members, "/opt/d/g", NULL));
	target_free(t);
	stage_free(run);
}
END_TEST

START_TEST(test_note_scripts)
{
	struct target *t = target_new(TARGET_DEB, "x.deb");
	static const char *const no_libs[] = { NULL };
	const struct target_select sel = { .lib_globs = no_libs };
	char path[] = "/usr/bin/tool", mode[] = "u+s";
	struct ms_action chmod = { .kind = MS_CHMOD, .path = path, .mode = mode };
	struct stage *run = NULL;
	struct member *m;
	bool cand = false;

	ck_assert_int_eq(stage_new_temp(tmp, &run, NULL), 0);
	/* A package with scripts: a second analysis may name any file, so none is noted. */
	t->members.note_files = false;
	ck_assert_int_eq(take(t, run, "./usr/bin/tool", AE_IFREG, 0755, NULL, 0), 0);
	m = memberset_get(&t->members, "/usr/bin/tool");
	ck_assert_ptr_nonnull(m);
	ck_assert(!memberset_noted(&t->members, "/usr/bin/tool", NULL));
	/* the action of that analysis finds it by path and makes it a candidate */
	t->scripts.v = &chmod;
	t->scripts.n = 1;
	ck_assert(target_wants(t, &sel, m, &cand));
	ck_assert(cand);
	t->scripts.v = NULL;
	t->scripts.n = 0;
	/* tmpfiles.d files, which the second reading keeps, are not noted either */
	t->members.note_files = true;
	ck_assert_int_eq(take(t, run, "./usr/lib/tmpfiles.d/x.conf", AE_IFREG, 0644, NULL, 0), 0);
	ck_assert_ptr_nonnull(memberset_get(&t->members, "/usr/lib/tmpfiles.d/x.conf"));
	ck_assert_int_eq(take(t, run, "./usr/lib/libx.so.1", AE_IFREG, 0644, NULL, 0), 0);
	ck_assert_ptr_nonnull(memberset_get(&t->members, "/usr/lib/libx.so.1"));
	target_free(t);
	stage_free(run);
}
END_TEST

Suite *pkg_suite(void)
{
	Suite *s = suite_create("pkg");
	TCase *tc = tcase_create("members");
	TCase *st = tcase_create("stage");
	TCase *ms = tcase_create("maintscript");

	tcase_add_test(tc, test_member_path);
	tcase_add_test(tc, test_member_owner);
	tcase_add_test(tc, test_memberset);
	tcase_add_test(tc, test_memberset_shrink);
	tcase_add_test(tc, test_memberset_resolve);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(st, stage_setup, stage_teardown);
	tcase_add_test(st, test_stage_contains);
	tcase_add_test(st, test_stage_limits);
	tcase_add_test(st, test_stage_share);
	tcase_add_test(st, test_note_hardlink);
	tcase_add_test(st, test_note_whiteout);
	tcase_add_test(st, test_note_scripts);
	suite_add_tcase(s, st);
	tcase_set_timeout(ms, 30);
	tcase_add_test(ms, test_ms_ping);
	tcase_add_test(ms, test_ms_dbus);
	tcase_add_test(ms, test_ms_polkit);
	tcase_add_test(ms, test_ms_fping);
	tcase_add_test(ms, test_ms_forms);
	tcase_add_test(ms, test_ms_hostile);
	tcase_add_test(ms, test_ms_chmod);
	tcase_add_test(ms, test_ms_chown_clears);
	suite_add_tcase(s, ms);
	return s;
}
