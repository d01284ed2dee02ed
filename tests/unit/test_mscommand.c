/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the maintainer-script evaluator's command models
 * (pkg/mscommand.c and its table): each model on a package whose members are
 * known, as the second reading of a .deb sees it.
 */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "actindex.h"
#include "fixture.h"
#include "member.h"
#include "mscommand.h"
#include "msexpand.h"
#include "suites.h"
#include "util.h"

static struct memberset members;

static void add(const char *path, enum member_type type, uint32_t mode, const char *target)
{
	fx_member(&members, NULL, path, type, mode, target, NULL);
}

static void setup(void)
{
	members = (struct memberset){ 0 };
	add("/usr", MEMBER_DIR, 0755, NULL);
	add("/usr/bin", MEMBER_DIR, 0755, NULL);
	add("/usr/bin/prog", MEMBER_FILE, 0755, NULL);
	add("/usr/bin/suid", MEMBER_FILE, 04755, NULL);
	add("/usr/bin/link", MEMBER_SYMLINK, 0777, "prog");
	add("/usr/lib", MEMBER_DIR, 0755, NULL);
	add("/usr/lib/bindir", MEMBER_SYMLINK, 0777, "../bin");
	add("/usr/sbin", MEMBER_DIR, 0755, NULL);
	add("/usr/sbin/groupadd", MEMBER_FILE, 0755, NULL);
	add("/usr/sbin/own-tool", MEMBER_FILE, 0755, NULL);
}

static void teardown(void)
{
	memberset_release(&members);
}

static const char *const configure[] = { "configure", "" };

/* @text as the script @name of package @pkg with the members known; @before_unpack: it
 * runs before they are unpacked (a preinst). */
static struct ms_analysis run_script(const char *pkg, const char *name, bool before_unpack,
				     const char *text)
{
	struct ms_context ctx = { .args = configure, .n_args = 2, .arch = "amd64", .package = pkg,
				  .members = &members, .stagefd = -1,
				  .before_unpack = before_unpack };
	struct ms_analysis a = { 0 };

	ck_assert_int_eq(maintscript_analyse(name, text, strlen(text), &ctx, &a), 0);
	ck_assert_int_eq(maintscript_check(&a, &members), 0);
	return a;
}

/* @text as the postinst of package @pkg. */
static struct ms_analysis run_as(const char *pkg, const char *text)
{
	return run_script(pkg, "postinst", false, text);
}

static struct ms_analysis run(const char *text)
{
	return run_as("s2c-test", text);
}

/* The state of @path after the actions of scenario @sc, from its packed mode, root:root. */
static struct ms_state state(const struct ms_analysis *a, const char *path, enum ms_scenario sc)
{
	const struct member *m = memberset_get(&members, path);
	struct ms_state st = { .mode = m ? m->mode : 0755, .owner = "root", .group = "root" };

	for (size_t seq = 0; seq < 256; seq++)
		for (size_t i = 0; i < a->n; i++)
			if (a->v[i].seq[sc] == seq && ms_applies(&a->v[i], sc) &&
			    strcmp(a->v[i].path, path) == 0)
				(void)ms_apply(&a->v[i], false, &st);
	return st;
}

static bool incomplete_with(const struct ms_analysis *a, const char *what)
{
	for (size_t i = 0; i < a->n_incomplete; i++)
		if (strstr(a->incomplete[i], what))
			return true;
	return false;
}

/* @text leaves /usr/bin/prog with @mode where setcap works, and is complete. */
static void expect_mode(const char *text, uint32_t mode)
{
	struct ms_analysis a = run(text);

	ck_assert_msg(a.n_incomplete == 0, "%s: %s", text, a.n_incomplete ? a.incomplete[0] : "");
	ck_assert_msg(state(&a, "/usr/bin/prog", MS_SCENARIO_WORKS).mode == mode, "%s: %o", text,
		      state(&a, "/usr/bin/prog", MS_SCENARIO_WORKS).mode);
	ms_analysis_release(&a);
}

static void expect_incomplete(const char *text, const char *what)
{
	struct ms_analysis a = run(text);

	ck_assert_msg(incomplete_with(&a, what), "%s: no '%s' (%zu reasons%s%s)", text, what,
		      a.n_incomplete, a.n_incomplete ? ": " : "",
		      a.n_incomplete ? a.incomplete[0] : "");
	ms_analysis_release(&a);
}

/* Many variables: each looked up by its name (unset moves the last one into the gap), and
 * branches that would copy them all too often stop the pass, incomplete. */
/* What a pass collects stays a set however large (each string once), the symbolic links the
 * script made are found by prefix however many, and aliases and functions are bounded. */
START_TEST(test_many_names)
{
	size_t n = 0, size = 1u << 20;
	char *text = malloc(size);
	struct ms_analysis a;

	ck_assert_ptr_nonnull(text);
	for (int i = 0; i < 4000; i++)
		n += (size_t)sprintf(text + n, "addgroup --system g%d\n", i % 2000);
	a = run(text);
	ck_assert_uint_eq(a.n_incomplete, 0);
	ck_assert_uint_eq(a.n_groups, 2000);
	ck_assert_str_eq(a.groups[1999], "g1999");
	ms_analysis_release(&a);

	n = 0;
	for (int i = 0; i < 300; i++)
		n += (size_t)sprintf(text + n, "alias a%d=true\n", i);
	a = run(text);
	ck_assert_uint_ge(a.n_incomplete, 1);
	ck_assert_ptr_nonnull(strstr(a.incomplete[0], "more than 256 aliases"));
	ms_analysis_release(&a);

	/* A definition run again and again: every later command would be looked up among
	 * them all; past 1024 the rest is not analysed. */
	a = run("for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 "
		"27 28 29 30 31 32; do\nfor j in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 "
		"20 21 22 23 24 25 26 27 28 29 30 31 32 33; do\ng() { :; }\ng\ndone\ndone\n"
		"chmod 4755 /usr/bin/prog\n");
	ck_assert_uint_ge(a.n_incomplete, 1);
	ck_assert_ptr_nonnull(strstr(a.incomplete[0], "more than 1024 function definitions"));
	ms_analysis_release(&a);
	a = run("for i in 1 2 3 4 5 6 7 8 9 10; do\ng() { :; }\ng\ndone\nchmod 4755 /usr/bin/prog\n");
	ck_assert_msg(a.n_incomplete == 0, "%s", a.n_incomplete ? a.incomplete[0] : "");
	ck_assert_uint_eq(a.n, 1);
	ms_analysis_release(&a);

	/* 2,000 symbolic links, each path looked up through them by its prefixes. */
	n = 0;
	for (int i = 0; i < 2000; i++)
		n += (size_t)sprintf(text + n, "ln -sfn /usr/bin /var/lib/l%d\n", i);
	n += (size_t)sprintf(text + n, "ln -sfn /usr/sbin /var/lib/l77/own\n"
			     "chmod 4755 /var/lib/l77/prog\nchmod 4711 /var/lib/l77/own/own-tool\n");
	a = run(text);
	ck_assert_msg(a.n_incomplete == 0, "%s", a.n_incomplete ? a.incomplete[0] : "");
	ck_assert_uint_eq(a.n, 2);
	ck_assert_str_eq(a.v[0].path, "/usr/bin/prog");
	ck_assert_str_eq(a.v[0].mode, "4755");
	ck_assert_str_eq(a.v[1].path, "/usr/sbin/own-tool");
	ms_analysis_release(&a);
	free(text);
}
END_TEST

START_TEST(test_many_variables)
{
	size_t n = 0, size = 8u << 20;
	char *text = malloc(size);
	struct ms_analysis a;

	a = run("A=1\nB=2\nM=4755\nunset A\nunset B\nC=3\nchmod $M$A$B /usr/bin/prog\n"
		"[ \"$C\" = 3 ] || chmod 0 /usr/bin/prog\n");
	ck_assert_msg(a.n_incomplete == 0, "%s", a.n_incomplete ? a.incomplete[0] : "");
	ck_assert_uint_eq(a.n, 1);
	ck_assert_str_eq(a.v[0].mode, "4755");
	ms_analysis_release(&a);

	/* 5,000 assignments before one command, then their values. */
	ck_assert_ptr_nonnull(text);
	for (int i = 0; i < 5000; i++)
		n += (size_t)sprintf(text + n, "V%d=%d ", i, i);
	(void)sprintf(text + n, "true\nchmod $V4$V7$V5$V5 /usr/bin/prog\n");
	a = run(text);
	ck_assert_msg(a.n_incomplete == 0, "%s", a.n_incomplete ? a.incomplete[0] : "");
	ck_assert_uint_eq(a.n, 1);
	ck_assert_str_eq(a.v[0].mode, "4755");
	ms_analysis_release(&a);

	/* 3,000 variables and 400 branches not decided: 2.4 million copies, past the budget. */
	n = 0;
	for (int i = 0; i < 3000; i++)
		n += (size_t)sprintf(text + n, "V%d=x\n", i);
	for (int i = 0; i < 400; i++)
		n += (size_t)sprintf(text + n, "if [ -e /etc/x ]; then :; fi\n");
	a = run(text);
	ck_assert_uint_ge(a.n_incomplete, 1);
	ck_assert_ptr_nonnull(strstr(a.incomplete[0], "variables copied"));
	ms_analysis_release(&a);
	free(text);
}
END_TEST

START_TEST(test_table)
{
	size_t n;
	const struct mscmd *t = mscmd_table(&n);

	ck_assert_uint_gt(n, 200);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(i == 0 || strcmp(t[i - 1].name, t[i].name) < 0, "%s out of order",
			      t[i].name);
		ck_assert_msg(t[i].why && *t[i].why, "%s: no reason", t[i].name);
		ck_assert_msg(!!t[i].fn != !!(t[i].flags & MSCMD_NOEFFECT), "%s: a model or no effect",
			      t[i].name);
		ck_assert_ptr_eq(mscmd_find(t[i].name), &t[i]);
	}
	ck_assert_ptr_null(mscmd_find("s2c-frobnicate"));
	ck_assert_ptr_null(mscmd_find("perl"));
}
END_TEST

START_TEST(test_chmod)
{
	expect_mode("chmod 4755 /usr/bin/prog", 04755);
	expect_mode("chmod 0004755 /usr/bin/prog", 04755);
	expect_mode("chmod u+s,g+s /usr/bin/prog", 06755);
	expect_mode("chmod u=rwxs,go=rx /usr/bin/prog", 04755);
	expect_mode("chmod -R -v u+s /usr/bin/prog", 04755);
	expect_mode("chmod u+s /usr/bin/link", 04755);
	expect_mode("chmod u+s /usr/lib/bindir/prog", 04755);
	expect_mode("cd /usr/bin; chmod u+s prog", 04755);
	expect_mode("chmod 99999 /usr/bin/prog", 0755);  /* refused: no change */
	expect_incomplete("chmod u+s /usr/bin/*", "glob");
	expect_incomplete("chmod -R u+s /usr/bin", "recursive");
	expect_incomplete("chmod 4755 /bin/ping", "not the package's");
	expect_incomplete("chmod \"$(cat /etc/x)\" /usr/bin/prog", "mode that is not known");
	expect_incomplete("chmod --reference=/usr/bin/suid /usr/bin/prog", "another file");
}
END_TEST

START_TEST(test_chown)
{
	struct ms_analysis a = run("chmod 4755 /usr/bin/prog; chown root:staff /usr/bin/prog");
	struct ms_state st = state(&a, "/usr/bin/prog", MS_SCENARIO_WORKS);

	ck_assert_uint_eq(st.mode, 0755);     /* the kernel drops set-user-ID */
	ck_assert_str_eq(st.group, "staff");
	ms_analysis_release(&a);
	a = run("chgrp -h staff /usr/bin/link");
	ck_assert_uint_eq(a.n, 0);            /* the link itself */
	ms_analysis_release(&a);
	/* a login group not known matters only on a privileged file */
	expect_mode("chown s2cuser: /usr/bin/prog", 0755);
	expect_incomplete("chown s2cuser: /usr/bin/suid", "group not known to '/usr/bin/suid'");
	expect_incomplete("chown s2cuser: /usr/bin/prog; chmod 2755 /usr/bin/prog",
			  "group not known to '/usr/bin/prog'");
	expect_incomplete("chown -R s2cuser: /usr/bin", "group not known to '/usr/bin/suid'");
	expect_incomplete("chown s2cuser: /usr/bin/s*", "group not known to a file it cannot name");
	expect_incomplete("chown s2cuser: \"$x\"", "group not known to a file it cannot name");
	expect_mode("adduser --system --group s2cuser\nchown s2cuser: /usr/bin/prog\n"
		    "chmod 2755 /usr/bin/prog", 02755);
}
END_TEST

START_TEST(test_setcap)
{
	struct ms_analysis a = run("setcap cap_net_raw+ep /usr/bin/prog || chmod u+s /usr/bin/prog");
	struct ms_state w = state(&a, "/usr/bin/prog", MS_SCENARIO_WORKS);
	struct ms_state f = state(&a, "/usr/bin/prog", MS_SCENARIO_FAILS);

	ck_assert(w.has_caps);
	ck_assert_str_eq(w.caps, "cap_net_raw+ep");
	ck_assert_uint_eq(w.mode, 0755);
	ck_assert(!f.has_caps);
	ck_assert_uint_eq(f.mode, 04755);
	ms_analysis_release(&a);
	a = run("setcap -v cap_net_raw+ep /usr/bin/prog || true");
	ck_assert_uint_eq(a.n, 0);            /* -v only checks */
	ms_analysis_release(&a);
	/* dpkg unpacks no file with capabilities: -v fails on one the script did not touch */
	a = run("if ! setcap -v cap_net_raw+ep /usr/bin/prog; then\n"
		"setcap cap_net_raw+ep /usr/bin/prog || chmod u+s /usr/bin/prog; fi");
	ck_assert_uint_eq(a.n, 2);
	ck_assert(!a.v[0].conditional && !a.v[1].conditional);
	ck_assert_str_eq(state(&a, "/usr/bin/prog", MS_SCENARIO_WORKS).caps, "cap_net_raw+ep");
	ck_assert_uint_eq(state(&a, "/usr/bin/prog", MS_SCENARIO_FAILS).mode, 04755);
	ms_analysis_release(&a);
	static const char *const unknown[] = {
		"chmod 755 /usr/bin/prog\nif ! setcap -v cap_net_raw+ep /usr/bin/prog; then",
		"cp /etc/x /usr/bin/prog\nif ! setcap -v cap_net_raw+ep /usr/bin/prog; then",
		"if ! setcap -v = /usr/bin/prog; then", "if ! setcap -v cap_net_raw+ep /usr/bin/x; then",
		"if ! setcap -v cap_net_raw+ep /usr/bin/prog /usr/bin/suid; then",
	};
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		_cleanup_free_ char *text = strdup_printf("%s\nchmod u+s /usr/bin/suid; fi", unknown[i]);
		bool cond = false;
		a = run(text);
		for (size_t k = 0; k < a.n; k++)
			cond = cond || (strcmp(a.v[k].path, "/usr/bin/suid") == 0 && a.v[k].conditional);
		ck_assert_msg(cond, "%s", text);
		ms_analysis_release(&a);
	}
}
END_TEST

START_TEST(test_statoverride)
{
	struct ms_analysis a = run("if ! dpkg-statoverride --list /usr/bin/prog >/dev/null; then\n"
				   "  dpkg-statoverride --update --add root mail 2755 /usr/bin/prog\nfi\n");
	struct ms_state st = state(&a, "/usr/bin/prog", MS_SCENARIO_WORKS);

	ck_assert_uint_eq(st.mode, 02755);
	ck_assert_str_eq(st.group, "mail");
	ms_analysis_release(&a);
	/* without --update, postinst only records it for the next upgrade */
	a = run("dpkg-statoverride --add root root 4755 /usr/bin/prog");
	ck_assert_uint_eq(a.n, 0);
	ck_assert_uint_eq(a.n_notes, 1);
	ms_analysis_release(&a);
	/* its options come in any order before the operands, as dpkg's parser takes them */
	expect_mode("dpkg-statoverride --add --update root root 4755 /usr/bin/prog", 04755);
	expect_mode("dpkg-statoverride --quiet --add --force-all --update root root 4755 "
		    "/usr/bin/prog", 04755);
	expect_incomplete("dpkg-statoverride --add root root 4755 /usr/bin/prog --update",
			  "four operands");
	expect_incomplete("dpkg-statoverride --root /srv --update --add root root 4755 "
			  "/usr/bin/prog", "not modelled");
	expect_incomplete("dpkg-statoverride \"$(cat /etc/x)\" --add root root 4755 /usr/bin/prog",
			  "not known");
}
END_TEST

START_TEST(test_copies)
{
	struct ms_analysis a = run("install -m 0644 -o daemon /usr/bin/prog /usr/bin/suid");
	struct ms_state st = state(&a, "/usr/bin/suid", MS_SCENARIO_WORKS);

	ck_assert_uint_eq(st.mode, 0644);
	ck_assert_str_eq(st.owner, "daemon");
	ck_assert_uint_eq(a.n_incomplete, 0);
	ms_analysis_release(&a);
	expect_incomplete("install -m 4755 /usr/bin/prog /usr/bin/new", "not the package's");
	expect_incomplete("cp -p /usr/bin/suid /usr/local/bin/x", "copies with its mode");
	expect_incomplete("mv /usr/bin/suid /usr/bin/other", "moves");
	expect_incomplete("ln /usr/bin/suid /tmp/x", "links to");
	expect_incomplete("rm -f /usr/bin/suid", "removes");
	expect_incomplete("sed -i s/a/b/ /usr/bin/suid", "rewrites");
	expect_incomplete("echo x > /usr/bin/suid", "writes to");
	expect_incomplete("rm -f \"$(cat /etc/x)\"", "cannot name");
	a = run("rm -f /usr/bin/prog /etc/old.conf; cp /usr/bin/prog /tmp/x; mkdir -m 2775 /var/x");
	ck_assert_uint_eq(a.n_incomplete, 0);   /* nothing privileged touched */
	ms_analysis_release(&a);
	expect_mode("ln -s /usr/bin/prog /etc/alt; chmod u+s /etc/alt", 04755);
}
END_TEST

/* A file the script made and then made set-ID is a privileged file no member shows. */
START_TEST(test_made_files)
{
	static const char *const hidden[] = {
		"cp /bin/dash /usr/local/bin/rootsh; chmod 4755 /usr/local/bin/rootsh",
		"cp /bin/dash /usr/local/bin/rootsh && chmod u+s /usr/local/bin/rootsh",
		"x=$(mktemp); cp /bin/dash \"$x\"; chmod 4755 \"$x\"",
		"touch /tmp/f; setcap cap_net_raw+ep /tmp/f",
		"echo x > /usr/local/bin/t; chmod g+s /usr/local/bin/t",
		"mkdir /var/z; rm -rf /var/z; cp /bin/dash /var/z; chmod 4755 /var/z",
		"touch /usr/local/bin/n; install -m 4755 /bin/dash /usr/local/bin/n",
	};
	static const char *const dirs[] = {
		"mkdir /var/x; chmod 2775 /var/x", "mkdir -p /var/x/y; chmod g+s /var/x/y",
		"install -d /var/y; chmod 2770 /var/y", "d=$(mktemp -d); chmod 2775 \"$d\"",
		"mkdir /var/w; chmod \"$(cat /etc/m)\" /var/w",
	};

	for (size_t i = 0; i < S2C_ELEMENTSOF(hidden); i++)
		expect_incomplete(hidden[i], "does not see");
	expect_incomplete("touch /var/v; chmod \"$(cat /etc/m)\" /var/v", "not known");
	for (size_t i = 0; i < S2C_ELEMENTSOF(dirs); i++) {
		struct ms_analysis a = run(dirs[i]);
		ck_assert_msg(a.n_incomplete == 0, "%s: %s", dirs[i], a.n_incomplete ?
			      a.incomplete[0] : "");
		ms_analysis_release(&a);
	}
}
END_TEST

/* courier's certificate maker: files of its own, none privileged, or a name not known. */
START_TEST(test_mkcert)
{
	expect_mode("set -e\nif [ ! -f /etc/courier/pop3d.pem ]; then\n\tmkpop3dcert\n"
		    "\tchmod 0640 /etc/courier/pop3d.pem\n"
		    "\tchown root:courier /etc/courier/pop3d.pem\nfi\nchmod 4755 /usr/bin/prog", 04755);
	expect_mode("set -e\nmkpop3dcert /etc/courier/other\nchmod 4755 /usr/bin/prog", 04755);
	/* it fails where the certificate is there already: set -e stops the script */
	expect_mode("set -e\ntouch /etc/courier/pop3d.pem\nmkpop3dcert\nchmod 4755 /usr/bin/prog",
		    0755);
	expect_incomplete("mkpop3dcert; chmod 4755 /etc/courier/pop3d.pem", "does not see");
	expect_incomplete("mkpop3dcert \"$(cat /etc/name)\"", "cannot name");
	expect_incomplete("mkpop3dcert pop3d", "cannot name");
}
END_TEST

/*
 * Root keeps a set-ID file's bits when it writes into it: writing in place over a file
 * that is not the package's, where programs live, may make new content set-ID; a copy
 * with its mode or a hard link of one keeps a set-ID program under another name.
 */
START_TEST(test_writes_over)
{
	static const char *const over[] = {
		"cat /usr/bin/prog > /usr/sbin/chfn", "cat /usr/bin/prog >> /usr/local/bin/x",
		"cp /usr/bin/prog /usr/bin/chsh", "cp /usr/bin/prog /opt/x/bin/",
		"tee /usr/lib/x/helper < /usr/bin/prog", "sed -i s/a/b/ /usr/libexec/x",
		"dd if=/usr/bin/prog of=/bin/x", "cp -p /usr/bin/passwd /var/lib/s2c/x",
		"cp -a /usr/lib/x/helper /srv/x", "ln /usr/bin/passwd /var/tmp/x",
		"cp -l /usr/sbin/x /srv/x", "openssl req -x509 -out /usr/bin/chfn",
		"openssl genrsa -keyout /usr/lib/x/y 2048", "sort -o /usr/sbin/x /etc/y",
		"sort -o/usr/sbin/x /etc/y", "iconv --output=/usr/bin/x /etc/y",
		"ssh-keygen -q -f /usr/local/bin/x -N ''", "ucf /usr/share/s2c/new /usr/bin/chfn",
		"ucf --three-way --debconf-ok /usr/share/s2c/new /opt/s2c/bin/x",
		"install-info --dir-file=/usr/bin/x /usr/share/info/s2c.info",
		"mkfontscale -o /usr/sbin/x /usr/share/fonts/s2c",
		"update-xmlcatalog --add --catalog /usr/lib/x --type system --id x --package s2c",
	};
	static const char *const fine[] = {
		"echo x > /etc/s2c.conf", "cp /usr/bin/prog /var/lib/s2c/copy",
		"cp -p /usr/bin/prog /usr/local/bin/x", "mv /usr/bin/prog /usr/local/bin/x",
		"install -m 755 /usr/bin/prog /usr/local/bin/x", "ln -sf /usr/bin/prog /usr/sbin/x",
		"cat /etc/x > /usr/bin/prog", "cp -p /etc/x /usr/local/bin/x",
		"ln -s /usr/bin/passwd /var/tmp/x", "openssl req -x509 -out /etc/ssl/s2c.pem",
		"sort -u /usr/bin/x", "ucf /usr/share/s2c/new /etc/s2c.conf", "ucf --purge /usr/bin/x",
		"dbus-uuidgen --ensure", "dbus-uuidgen --ensure=/etc/machine-id",
		"chmod 775 /var/lib/s2c", "chmod -R g+w /var/lib/s2c", "chmod 0755 /usr/local/bin/x",
		"chmod g+w /usr/bin/prog", "setfacl -m u:nobody:r /usr/bin/chfn",
		"setfacl -x u:nobody /usr/bin/chfn", "setfacl -m u:nobody:rw /var/lib/s2c",
	};

	for (size_t i = 0; i < S2C_ELEMENTSOF(over); i++)
		expect_incomplete(over[i], "may be a set-ID program of the system");
	/* a program of the system made writable by others runs what they write */
	expect_incomplete("chmod o+w /usr/bin/chfn", "writable by others");
	expect_incomplete("chmod 0777 /usr/sbin/x", "writable by others");
	expect_incomplete("chmod 2775 \"$(cat /etc/x)\"", "cannot tell which file");
	expect_incomplete("chmod g+w \"$(cat /etc/x)\"", "cannot tell which file");
	expect_incomplete("chmod -R g+w /usr/lib", "may reach files");
	expect_incomplete("chmod -R o+w /", "may reach files");
	expect_incomplete("chmod g+w /usr/*/x", "may reach files");
	expect_incomplete("setfacl -m u:nobody:rwx /usr/bin/chfn", "may be a set-ID program");
	expect_incomplete("setfacl --modify=u:nobody:w /opt/x", "may be a set-ID program");
	expect_incomplete("setfacl -M /etc/acl /usr/bin/x", "may be a set-ID program");
	expect_incomplete("setfacl -m u:nobody:rw /usr/bin/suid", "which is privileged");
	/* through a link of the package to a program of the system */
	add("/etc/s2c", MEMBER_DIR, 0755, NULL);
	add("/etc/s2c/link", MEMBER_SYMLINK, 0777, "/usr/bin/chfn");
	add("/etc/s2c/dir", MEMBER_SYMLINK, 0777, "../../usr/sbin");
	expect_incomplete("cat /usr/bin/prog > /etc/s2c/link", "may be a set-ID program");
	expect_incomplete("cp /usr/bin/prog /etc/s2c/dir/x", "may be a set-ID program");
	expect_incomplete("chmod o+w /etc/s2c/link", "writable by others");
	/* ucf copies a new file with its mode where the destination is not there */
	expect_incomplete("ucf /usr/bin/suid /etc/s2c.conf", "which is privileged");
	for (size_t i = 0; i < S2C_ELEMENTSOF(fine); i++) {
		struct ms_analysis a = run(fine[i]);
		ck_assert_msg(!incomplete_with(&a, "set-ID program"), "%s: %s", fine[i],
			      a.n_incomplete ? a.incomplete[0] : "");
		ms_analysis_release(&a);
	}
}
END_TEST

/*
 * cli-common's gac-package-install runs every runtime's hook with the assemblies the
 * package lists: a list of none changes no file; assemblies listed, a hook of the
 * package's own, or a list the package does not ship, are not followed.
 */
START_TEST(test_gac_install)
{
	static const char text[] = "if [ \"$1\" = configure ] && "
				   "[ -x /usr/share/cli-common/gac-package-install ]; then\n"
				   "\t/usr/share/cli-common/gac-package-install s2c-test\nfi\n"
				   "chmod 4755 /usr/bin/prog\n";
	static const char list[] = "/usr/share/cli-common/packages.d/s2c-test.installcligac";
	static const struct {
		const char *list;       /* the list's content, or NULL: none shipped */
		const char *hook;       /* a runtime hook of the package's, or NULL */
		const char *reason;     /* the reason incomplete, or NULL: complete */
	} cases[] = {
		{ "", NULL, NULL },
		{ "# none yet\n\n  \t\n", NULL, NULL },
		{ NULL, NULL, "not a file of the package" },
		{ "/usr/lib/cli/s2c/s2c.dll\n", NULL, "assemblies the package lists" },
		{ "  /usr/lib/cli/s2c/s2c.dll -mono\n", NULL, "assemblies the package lists" },
		{ "", "#!/bin/sh\nchmod 4755 /bin/ping\n", "runtimes.d/s2c" },
	};

	for (size_t i = 0; i < S2C_ELEMENTSOF(cases); i++) {
		char *stage = fx_tempdir();
		int fd = open(stage, O_PATH | O_DIRECTORY | O_CLOEXEC);
		struct ms_context ctx = { .args = configure, .n_args = 2, .arch = "amd64",
					  .package = "s2c-test", .members = &members,
					  .stagefd = fd };
		struct ms_analysis a = { 0 };

		ck_assert_int_ge(fd, 0);
		teardown();
		setup();
		add("/usr/share", MEMBER_DIR, 0755, NULL);
		if (cases[i].list)
			fx_member(&members, stage, list, MEMBER_FILE, 0644, NULL, cases[i].list);
		if (cases[i].hook)
			fx_member(&members, stage, "/usr/share/cli-common/runtimes.d/s2c", MEMBER_FILE,
				  0755, NULL, cases[i].hook);
		ck_assert_int_eq(maintscript_analyse("postinst", text, strlen(text), &ctx, &a), 0);
		ck_assert_int_eq(maintscript_check(&a, &members), 0);
		if (cases[i].reason)
			ck_assert_msg(incomplete_with(&a, cases[i].reason), "case %zu: %s", i,
				      a.n_incomplete ? a.incomplete[0] : "complete");
		else
			ck_assert_msg(a.n_incomplete == 0 &&
				      state(&a, "/usr/bin/prog", MS_SCENARIO_WORKS).mode == 04755,
				      "case %zu: %s", i, a.n_incomplete ? a.incomplete[0] : "");
		ms_analysis_release(&a);
		close(fd);
		fx_rmrf(stage);
		free(stage);
	}
	expect_incomplete("/usr/share/cli-common/gac-package-install \"$(cat /etc/x)\"",
			  "not known");
	expect_incomplete("/usr/share/cli-common/gac-package-install ../../../../etc/x",
			  "not known");
}
END_TEST

/* A config of @text: its reasons incomplete and its notes. */
static struct ms_analysis run_config(const char *text)
{
	return run_script("s2c-test", "config", true, text);
}

/*
 * dbconfig-common's dbc_go: the include file it writes, new with the mode and owner the
 * package names (set-ID, or words that chmod and chown would split, incomplete), in place
 * where it is there; the package's SQL and scripts, sqlite3 databases, another package's
 * name and include files it reads with their interpreter are incomplete.
 */
START_TEST(test_dbconfig)
{
#define PG ". /usr/share/dbconfig-common/dpkg/postinst.pgsql\n"
#define GO "dbc_go s2c-test \"$@\"\n"
#define INC "dbc_generate_include=php:/etc/s2c/db.php\n"
#define LOAD ". /usr/share/dbconfig-common/dpkg/config.pgsql\n"
	static const struct {
		const char *script;     /* "postinst" unless said */
		const char *text;
		const char *member;     /* a file the package ships, or NULL */
		const char *reason;     /* the reason incomplete, or NULL: complete */
		uint32_t mode;          /* then /usr/bin/prog's mode */
	} cases[] = {
		{ NULL, PG INC "dbc_generate_include_owner=www-data:www-data\n"
		  "dbc_generate_include_perms=660\n" GO "chmod 4755 /usr/bin/prog\n", NULL, NULL,
		  04755 },
		{ NULL, PG GO "chmod 4755 /usr/bin/prog\n", NULL, NULL, 04755 },
		{ NULL, PG "dbc_go \"$DPKG_MAINTSCRIPT_PACKAGE\" \"$@\"\n", NULL, NULL, 0755 },
		{ NULL, PG INC "dbc_go s2c-test abort-upgrade\n", NULL, NULL, 0755 },
		/* there already: written in place, keeping its mode */
		{ NULL, PG "dbc_generate_include=sh:/usr/bin/prog\ndbc_generate_include_perms=4755\n"
		  GO, NULL, NULL, 0755 },
		{ NULL, ". /usr/share/dbconfig-common/dpkg/postinst\ndbc_dbtypes='mysql, pgsql'\n"
		  INC GO, NULL, NULL, 0755 },
		{ NULL, PG INC "dbc_generate_include_perms=04755\n" GO, NULL, "set-ID", 0 },
		{ NULL, PG INC "dbc_generate_include_perms='660 /usr/bin/prog'\n" GO, NULL,
		  "not octal", 0 },
		{ NULL, PG INC "dbc_generate_include_perms=u+s\n" GO, NULL, "not octal", 0 },
		{ NULL, PG INC "dbc_generate_include_owner='root /usr/bin/prog'\n" GO, NULL,
		  "not one word", 0 },
		{ NULL, PG "dbc_generate_include=\"php:$(cat /etc/x)\"\n" GO, NULL, "not known", 0 },
		{ NULL, PG "dbc_generate_include='php:/etc/s2c/*.php'\n" GO, NULL, "FORMAT:FILE", 0 },
		{ NULL, PG "dbc_generate_include=/etc/s2c/db.php\n" GO, NULL, "FORMAT:FILE", 0 },
		{ NULL, PG "dbc_generate_include=sh:/usr/bin/suid\n" GO, NULL, "privileged", 0 },
		{ NULL, PG "dbc_generate_include=sh:/usr/lib/bindir/suid\n" GO, NULL, "privileged", 0 },
		{ NULL, ". /usr/share/dbconfig-common/dpkg/postinst.sqlite3\n" GO, NULL, "sqlite3", 0 },
		{ NULL, ". /usr/share/dbconfig-common/dpkg/postinst\ndbc_dbtypes='sqlite3, mysql'\n"
		  GO, NULL, "sqlite3", 0 },
		{ NULL, ". /usr/share/dbconfig-common/dpkg/postinst\n" GO, NULL, "sqlite3", 0 },
		{ NULL, PG "dbc_go s2c-other \"$@\"\n", NULL, "not known to be this one", 0 },
		{ NULL, PG GO, "/usr/share/dbconfig-common/data/s2c-test/install/pgsql",
		  "as root", 0 },
		{ NULL, PG GO, "/usr/share/dbconfig-common/scripts/s2c-test/install/pgsql",
		  "as root", 0 },
		{ "prerm", PG GO, NULL, "not modelled", 0 },
		{ "config", LOAD "dbc_load_include=sh:/etc/s2c/db.sh\n" GO, NULL, NULL, 0755 },
		{ "config", LOAD GO, NULL, NULL, 0755 },
		{ "config", LOAD "dbc_load_include=php:/usr/bin/prog\n" GO, NULL, "ships or writes",
		  0 },
		{ "config", LOAD "echo x > /etc/s2c.sh\ndbc_load_include=sh:/etc/s2c.sh\n" GO, NULL,
		  "ships or writes", 0 },
		{ "config", LOAD "dbc_load_include=\"sh:$(cat /etc/x)\"\n" GO, NULL, "not known",
		  0 },
		/* an empty file of mktemp's; one the script fills, as sympa's config does */
		{ "config", LOAD "t=$(mktemp)\ndbc_load_include=\"sh:$t\"\n" GO, NULL, NULL, 0755 },
		{ "config", LOAD "t=$(mktemp)\nsed -n 's/^db_//p' /etc/s2c.conf > $t\n"
		  "dbc_load_include=\"sh:$t\"\n" GO, NULL, "ships or writes", 0 },
		{ "preinst", ". /usr/share/dbconfig-common/dpkg/preinst.pgsql\n" GO, NULL, NULL, 0755 },
	};
#undef PG
#undef GO
#undef INC
#undef LOAD

	for (size_t i = 0; i < S2C_ELEMENTSOF(cases); i++) {
		const char *script = cases[i].script ? cases[i].script : "postinst";
		struct ms_analysis a;

		teardown();
		setup();
		add("/usr/bin/suid", MEMBER_FILE, 04755, NULL);
		if (cases[i].member)
			add(cases[i].member, MEMBER_FILE, 0644, NULL);
		a = run_script("s2c-test", script, s2c_streq(script, "preinst"), cases[i].text);
		if (cases[i].reason)
			ck_assert_msg(incomplete_with(&a, cases[i].reason), "case %zu: %s", i,
				      a.n_incomplete ? a.incomplete[0] : "complete");
		else
			ck_assert_msg(a.n_incomplete == 0 &&
				      state(&a, "/usr/bin/prog", MS_SCENARIO_WORKS).mode ==
				      cases[i].mode, "case %zu: %s", i,
				      a.n_incomplete ? a.incomplete[0] : "");
		ms_analysis_release(&a);
	}
}
END_TEST

/*
 * ip, ifconfig and route change no file; `ip netns exec` (any abbreviation of exec)
 * and ip -batch run commands.  dpkg's environment names the package and the script.
 */
START_TEST(test_network_and_env)
{
	expect_mode("ip link show | grep UP\nip -o route show\nifconfig -a\nroute -n\n"
		    "ip netns add s2c\nchmod 4755 /usr/bin/prog\n", 04755);
	expect_incomplete("ip netns exec s2c chmod 4755 /usr/bin/prog", "network namespace");
	expect_incomplete("ip -n s2c netns e s2c chmod 4755 /usr/bin/prog", "network namespace");
	expect_incomplete("ip vrf exec blue chmod 4755 /usr/bin/prog", "network namespace");
	expect_incomplete("ip -batch /usr/bin/prog", "from a file");
	expect_incomplete("ip -b /usr/bin/prog", "from a file");
	expect_incomplete("ip $(cat /etc/x)", "not known");
	expect_mode("[ \"$DPKG_MAINTSCRIPT_PACKAGE\" = s2c-test ] && "
		    "[ \"$DPKG_MAINTSCRIPT_NAME\" = postinst ] && "
		    "[ \"$DPKG_MAINTSCRIPT_ARCH\" = amd64 ] && [ -z \"$DPKG_ROOT\" ] && "
		    "chmod 4755 $DPKG_ROOT/usr/bin/prog\n", 04755);
	/* exported: a shell the script runs sees them */
	expect_mode("sh -c '[ \"$DPKG_MAINTSCRIPT_PACKAGE\" = s2c-test ] && "
		    "chmod 4755 /usr/bin/prog'\n", 04755);
}
END_TEST

/*
 * The Perl debconf config dictionaries-common-dev writes for a dictionary is
 * recognised word for word, however spaced; any other Perl is not analysed.
 */
START_TEST(test_dictionary_config)
{
	static const char head[] =
		"use Debconf::Client::ConfModule q(:all);\n\nversion ('2.0');\n\nmy $class  = \"";
	static const char rest[] =
		"\";\nmy $script = \"/usr/share/dictionaries-common/dc-debconf-select.pl\";\n\n"
		"if ( -e $script ){\n    require $script;\n    dc_debconf_select($class);\n}\n";
	static const struct {
		const char *shebang, *class, *tail;
		bool known;
	} cases[] = {
		{ "#!/usr/bin/perl -w\n", "wordlist", "", true },
		{ "#!/usr/bin/perl\n", "ispell", "\n\n", true },
		{ "#!/usr/bin/perl -w\n", "hunspell", "", false },
		{ "#!/usr/bin/perl -w\n", "wordlist", "# a comment\n", false },
		{ "#!/usr/bin/perl -w\n", "wordlist", "chmod 04755, '/usr/bin/prog';\n", false },
		{ "#!/usr/bin/perl -w\n", "wordlist", "1;", false },
		{ "#!/usr/bin/perl -MPOSIX\n", "wordlist", "", false },
		{ "#!/usr/bin/perl -w\r\n", "wordlist", "", false },
		{ "#!/bin/perl -w\n", "wordlist", "", false },
	};
	/* the same words, spaced otherwise */
	static const char squeezed[] =
		"#!/usr/bin/perl -w\nuse Debconf::Client::ConfModule q(:all); version ('2.0'); "
		"my $class = \"ispell\"; my $script = "
		"\"/usr/share/dictionaries-common/dc-debconf-select.pl\"; if ( -e $script ){ "
		"require $script; dc_debconf_select($class); }";
	/* a word changed: the helper of another path */
	static const char other[] =
		"#!/usr/bin/perl -w\nuse Debconf::Client::ConfModule q(:all); version ('2.0'); "
		"my $class = \"ispell\"; my $script = \"/usr/lib/s2c-test/select.pl\"; "
		"if ( -e $script ){ require $script; dc_debconf_select($class); }";

	for (size_t i = 0; i < S2C_ELEMENTSOF(cases); i++) {
		_cleanup_free_ char *script = strdup_printf("%s%s%s%s%s", cases[i].shebang, head,
							    cases[i].class, rest, cases[i].tail);
		struct ms_analysis a;

		ck_assert_ptr_nonnull(script);
		a = run_config(script);
		ck_assert_msg(cases[i].known ? a.n_incomplete == 0 && a.n_notes == 1 &&
			      strstr(a.notes[0], "dictionaries-common") :
			      incomplete_with(&a, "which is not analysed") && a.n_notes == 0,
			      "case %zu: %s", i, a.n_incomplete ? a.incomplete[0] : "complete");
		ms_analysis_release(&a);
	}
	{
		struct ms_analysis a = run_config(squeezed);
		ck_assert_msg(a.n_incomplete == 0 && a.n_notes == 1 &&
			      strstr(a.notes[0], "ispell dictionary"), "%s",
			      a.n_incomplete ? a.incomplete[0] : "no note");
		ms_analysis_release(&a);
		a = run_config(other);
		ck_assert(incomplete_with(&a, "which is not analysed"));
		ms_analysis_release(&a);
		/* the same text as a postinst is not the config dictionaries-common-dev writes */
		a = run_as("s2c-test", squeezed);
		ck_assert(incomplete_with(&a, "which is not analysed"));
		ms_analysis_release(&a);
	}
}
END_TEST

/*
 * update-initramfs runs every package's hooks, the package's own among them: a shell
 * hook is evaluated, run with "prereqs" and then alone; update-menus, update-grub and
 * the module query tools run or load the package's code, which the audit does not.
 */
START_TEST(test_hooks)
{
	static const char hook[] = "#!/bin/sh\nset -e\nprereqs() { echo; }\n"
				   "case \"$1\" in prereqs) prereqs; exit 0;; esac\n"
				   ". /usr/share/initramfs-tools/hook-functions\n"
				   "copy_exec /usr/bin/prog /bin\nmanual_add_modules fuse\n";
	char *stage = fx_tempdir();
	int fd = open(stage, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct ms_context ctx = { .args = configure, .n_args = 2, .arch = "amd64",
				  .package = "s2c-test", .members = &members, .stagefd = fd };
	static const char *const texts[] = {
		"if [ -x /usr/sbin/update-initramfs ]; then update-initramfs -u; fi",
		"update-initramfs -u; chmod 4755 /usr/bin/prog",
	};

	ck_assert_int_ge(fd, 0);
	/* no hook of the package's: nothing of its code runs */
	expect_mode("update-initramfs -u\nupdate-menus\ngdk-pixbuf-query-loaders --update-cache\n"
		    "chmod 4755 /usr/bin/prog", 04755);
	fx_member(&members, stage, "/usr/share/initramfs-tools/hooks/s2c", MEMBER_FILE, 0755, NULL,
		  hook);
	for (size_t i = 0; i < S2C_ELEMENTSOF(texts); i++) {
		struct ms_analysis a = { 0 };
		ck_assert_int_eq(maintscript_analyse("postinst", texts[i], strlen(texts[i]), &ctx,
						     &a), 0);
		ck_assert_msg(a.n_incomplete == 0, "%s: %s", texts[i],
			      a.n_incomplete ? a.incomplete[0] : "");
		ms_analysis_release(&a);
	}
	/* a hook that changes a mode: evaluated, so the change is seen */
	fx_member(&members, stage, "/etc/initramfs-tools/hooks/s2c", MEMBER_FILE, 0755, NULL,
		  "#!/bin/sh\n[ \"$1\" = prereqs ] && exit 0\nchmod 4755 /bin/ping\n");
	{
		struct ms_analysis a = { 0 };
		ck_assert_int_eq(maintscript_analyse("postinst", "update-initramfs -u", 19, &ctx,
						     &a), 0);
		ck_assert(incomplete_with(&a, "not the package's"));
		ms_analysis_release(&a);
		/* its trigger runs update-initramfs later in the installation */
		ck_assert_int_eq(maintscript_analyse("postinst", "dpkg-trigger --no-await "
						     "update-initramfs", 40, &ctx, &a), 0);
		ck_assert(incomplete_with(&a, "not the package's"));
		ms_analysis_release(&a);
		ck_assert_int_eq(maintscript_analyse("postinst", "dpkg-trigger ldconfig", 21, &ctx,
						     &a), 0);
		ck_assert_uint_eq(a.n_incomplete, 0);
		ms_analysis_release(&a);
	}
	fx_member(&members, stage, "/usr/share/menu/s2c", MEMBER_FILE, 0755, NULL, NULL);
	fx_member(&members, stage, "/usr/lib/x86_64-linux-gnu/gdk-pixbuf-2.0/2.10.0/loaders/s2c.so",
		  MEMBER_FILE, 0644, NULL, NULL);
	expect_incomplete("update-menus", "the package's own '/usr/share/menu/s2c'");
	fx_member(&members, stage, "/etc/ca-certificates/update.d/s2c", MEMBER_FILE, 0755, NULL,
		  NULL);
	expect_incomplete("update-ca-certificates --fresh", "update.d/s2c");
	expect_incomplete("gdk-pixbuf-query-loaders --update-cache", "loaders/s2c.so");
	close(fd);
	fx_rmrf(stage);
	free(stage);
}
END_TEST

/* x2godbadmin writes the session database in /var/lib/x2go, x2gouser's home */
START_TEST(test_x2godbadmin)
{
	expect_mode("set -e\nx2godbadmin --createdb\nchmod 4755 /usr/bin/prog", 04755);
	expect_mode("x2godbadmin --updatedb || :\nchmod 4755 /usr/bin/prog", 04755);
	expect_incomplete("x2godbadmin --adduser bob", "not modelled");
	/* an account the package makes: its home is not known, and it has privileged files */
	expect_incomplete("addgroup --system x2gouser\nx2godbadmin --createdb", "cannot name");
	add("/var/lib/x2go", MEMBER_DIR, 0755, NULL);
	add("/var/lib/x2go/x2go_sessions", MEMBER_FILE, 04755, NULL);
	expect_incomplete("x2godbadmin --createdb", "x2go_sessions");
}
END_TEST

START_TEST(test_wrappers)
{
	static const char *const followed[] = {
		"command chmod 4755 /usr/bin/prog", "env chmod 4755 /usr/bin/prog",
		"env -i FOO=1 chmod 4755 /usr/bin/prog", "nice -n 5 chmod 4755 /usr/bin/prog",
		"timeout -s KILL 10 chmod 4755 /usr/bin/prog", "stdbuf -o0 chmod 4755 /usr/bin/prog",
		"nohup chmod 4755 /usr/bin/prog", "exec chmod 4755 /usr/bin/prog",
		"eval chmod u+s /usr/bin/prog", "eval 'chmod' '4755' /usr/bin/prog",
		"sh -c 'chmod 4755 /usr/bin/prog'", "sh -ec 'chmod \"$1\" /usr/bin/prog' x 4755",
		"trap 'chmod 4755 /usr/bin/prog' EXIT", "flock /tmp/l -c 'chmod 4755 /usr/bin/prog'",
		"x=$(chmod 4755 /usr/bin/prog)", "cat <<EOF\n$(chmod 4755 /usr/bin/prog)\nEOF",
		"start-stop-daemon --start --exec /bin/chmod -- 4755 /usr/bin/prog",
	};

	for (size_t i = 0; i < sizeof(followed) / sizeof(followed[0]); i++)
		expect_mode(followed[i], 04755);
	expect_incomplete("echo /usr/bin/prog | xargs chmod 4755", "cannot tell which file");
	expect_incomplete("find /usr/bin -exec chmod 4755 {} +", "cannot tell which file");
	expect_incomplete("su -c 'chmod 4755 /usr/bin/prog'", "another user");
	expect_incomplete("sh < /etc/script", "from its input");
	expect_incomplete("eval \"$(cat /etc/x)\"", "not known");
	expect_incomplete("awk 'BEGIN { system(\"chmod 4755 /usr/bin/prog\") }'", "run commands");
	expect_incomplete("dpkg -i /tmp/x.deb", "installs");
}
END_TEST

START_TEST(test_shell)
{
	expect_mode("chmod(){ :; }; unset -f chmod; chmod 4755 /usr/bin/prog", 04755);
	expect_mode("chmod(){ :; }; chmod 4755 /usr/bin/prog", 0755);
	expect_mode("f(){ chmod \"$@\"; }; f 4755 /usr/bin/prog", 04755);
	expect_mode("alias ch='chmod 4755'\nch /usr/bin/prog", 04755);
	expect_mode("IFS=:; x=4755:/usr/bin/prog; chmod $x", 04755);
	expect_mode("set -- 4755 /usr/bin/prog; chmod \"$@\"", 04755);
	expect_mode("m=$(echo 4755); chmod $m /usr/bin/prog", 04755);
	expect_mode("for f in /usr/bin/prog; do chmod u+s \"$f\"; done", 04755);
	expect_mode("set -e\nfalse\nchmod 4755 /usr/bin/prog", 0755);
	expect_mode("set -e\nfalse || true\nchmod 4755 /usr/bin/prog", 04755);
	expect_mode("set -e\nif false; then :; fi\nchmod 4755 /usr/bin/prog", 04755);
	expect_mode("f(){ local P=/usr/bin/prog; }; f; chmod 4755 \"$P\" || true", 0755);
	expect_incomplete("read m < /etc/x; chmod \"$m\" /usr/bin/prog", "not known");
	expect_incomplete("PATH=/opt/x:$PATH; chmod 4755 /usr/bin/prog", "PATH");
	expect_incomplete("s2c-frobnicate /usr/bin/prog", "not modelled");
	expect_incomplete("x=$(( $(cat /etc/x) ))", "arithmetic");
	/* a function defined in a branch may or may not replace the command */
	struct ms_analysis a = run("if [ -e /etc/x ]; then chmod(){ :; }; fi\n"
				   "chmod 4755 /usr/bin/prog");
	ck_assert_uint_eq(a.n, 1);
	ck_assert(a.v[0].conditional);
	ms_analysis_release(&a);
}
END_TEST

START_TEST(test_programs)
{
	struct ms_analysis a;

	expect_incomplete("own-tool --setup", "of the package");
	expect_incomplete("/usr/sbin/own-tool", "of the package");
	/* a program named after a row is the package's own when it ships it … */
	expect_incomplete("groupadd -r s2c", "of the package");
	/* … unless the package is the one Debian ships it in */
	a = run_as("passwd", "groupadd -r s2c\nchmod 4755 /usr/bin/prog");
	ck_assert_uint_eq(a.n_incomplete, 0);
	ms_analysis_release(&a);
}
END_TEST

START_TEST(test_interpreters)
{
	struct ms_analysis a = run("#!/usr/bin/perl\nchmod 04755, '/usr/bin/prog';\n");

	ck_assert_uint_eq(a.n, 0);
	ck_assert(incomplete_with(&a, "run by '/usr/bin/perl'"));
	ms_analysis_release(&a);
	expect_mode("#!/bin/bash -e\nchmod 4755 /usr/bin/prog\n", 04755);
	expect_mode("#! /bin/sh\nchmod 4755 /usr/bin/prog\n", 04755);
}
END_TEST

START_TEST(test_debconf)
{
	struct ms_templates tpl = { 0 };
	static const char templates[] = "Template: p/setuid\nType: boolean\nDefault: false\n"
					"Description: x\n long\n\nTemplate: p/mode\nType: select\n"
					"Choices: a, b\\, c\nDefault: a\nDescription: y\n";
	static const char text[] = ". /usr/share/debconf/confmodule\ndb_get p/setuid\n"
				   "if [ \"$RET\" = true ]; then chmod 4755 /usr/bin/prog; fi\n";
	struct ms_context ctx = { .args = configure, .n_args = 2, .members = &members,
				  .stagefd = -1, .templates = &tpl };
	struct ms_analysis a = { 0 };

	ck_assert_int_eq(ms_templates_parse(templates, strlen(templates), &tpl), 0);
	ck_assert_uint_eq(tpl.n, 2);
	ck_assert_str_eq(tpl.v[1].choices[1], "b, c");
	ck_assert_int_eq(maintscript_analyse("postinst", text, strlen(text), &ctx, &a), 0);
	ck_assert_uint_eq(a.n, 0);            /* the default answer: no chmod */
	ck_assert_uint_eq(a.n_asked, 1);
	ms_analysis_release(&a);
	ctx.answer_template = "p/setuid";
	ctx.answer_value = "true";
	ck_assert_int_eq(maintscript_analyse("postinst", text, strlen(text), &ctx, &a), 0);
	ck_assert_uint_eq(state(&a, "/usr/bin/prog", MS_SCENARIO_WORKS).mode, 04755);
	ms_analysis_release(&a);
	ms_templates_release(&tpl);
}
END_TEST

/* What find -exec rm removes lies below its one starting point, unless links are followed. */
START_TEST(test_find)
{
	static const char *const below_elsewhere[] = {
		"find /var/lock/x/ -name y -exec rm -f '{}' \\;", "find /var/lock/x -delete",
		"find -P /var/lock/x -type f -exec rm {} +", "find /usr/sbin/own-tool -exec rm {} \\;",
	};
	static const char *const reach_suid[] = {
		"find /usr/bin -name y -exec rm -f {} \\;", "find /usr/lib/bindir/ -exec rm {} +",
		"ln -s /usr/bin /tmp/l; find /tmp/l/ -exec rm {} \\;", "find /usr -delete",
		"cd /usr; find bin -exec rm {} \\;",
	};
	static const char *const anywhere[] = {
		"find -L /var/x -exec rm {} \\;", "find /var/x /var/y -exec rm {} \\;",
		"find /var/x -execdir rm {} \\;", "find /var/x $(cat /etc/y) -exec rm {} \\;",
		"find /var/x -name \"$(cat /etc/y)\" -exec rm {} \\;", "find /var/x -follow -exec rm {} \\;",
		"find /var/* -exec rm {} \\;", "find /var/x -exec rm {}.bak \\;",
		"find /var/x -exec sh -c 'rm \"$1\"' sh {} \\;", "echo /var/x/y | xargs rm",
	};

	for (size_t i = 0; i < sizeof(below_elsewhere) / sizeof(below_elsewhere[0]); i++) {
		_cleanup_free_ char *text = strdup_printf("%s\nchmod 4755 /usr/bin/prog",
							  below_elsewhere[i]);
		expect_mode(text, 04755);
	}
	for (size_t i = 0; i < sizeof(reach_suid) / sizeof(reach_suid[0]); i++)
		expect_incomplete(reach_suid[i], "removes '/usr/bin/suid'");
	for (size_t i = 0; i < S2C_ELEMENTSOF(anywhere); i++)
		expect_incomplete(anywhere[i], "removes a file it cannot name");
	expect_incomplete("find /var/x -exec chmod 4755 {} +", "cannot tell which file");
}
END_TEST

/* A link of a name not known lands anywhere: later names and programs on PATH are not known. */
START_TEST(test_unknown_links)
{
	struct ms_analysis a = run("ln -sf /usr/share/x \"$(cat /etc/x)\"\necho ok; [ -e /y ] || :");

	ck_assert_uint_eq(a.n_incomplete, 1);  /* only for the privileged file it may replace */
	ck_assert(incomplete_with(&a, "puts a link of unknown name in '/usr/bin/suid'"));
	ms_analysis_release(&a);
	expect_incomplete("ln -s /usr/share/x \"$(cat /etc/x)\"\nreadlink /y", "stand in for it");
	expect_incomplete("ln -s /usr/share/x \"$(cat /etc/x)\"\n/bin/chmod 4755 /usr/bin/prog",
			  "path is not known");
	expect_incomplete("ln -s /bin/true /usr/local/bin/readlink; readlink /y", "stand in for it");
	/* below the directory of a link of unknown name, names are not known */
	expect_incomplete("x=$(cat /etc/x)\nln -s /usr/bin /run/x/l.\"${x##*/}\"\n"
			  "chmod 4755 /run/x/l.y/prog", "cannot tell which file");
}
END_TEST

/*
 * A name partly known: a link lands below the directory its known start names
 * only when the rest holds no '/' (what ${x##PATTERN} leaves with a star and a
 * slash, kept through variables); a rest that may hold "../" lands anywhere.
 */
START_TEST(test_partial_names)
{
	static const char *const anywhere[] = {
		"x=$(cat /etc/x)\nln -s /usr/share/x \"/tmp/$x\"",
		"d=\"/tmp/$(cat /etc/x)\"\nln -s /usr/share/x \"$d\"",
		"x=$(cat /etc/x)\nd=\"/etc/s2c/${x##*/}\"\nln -s /usr/share/x $d",   /* split */
		"x=$(cat /etc/x)\nd=\"/etc/s2c/${x##*/}/$x\"\nln -s /usr/share/x \"$d\"",
		"x=$(cat /etc/x)\nd=\"/etc/s2c/${x##*/}/readlink\"\nln -s /usr/share/x \"$d\"",
		"x=$(cat /etc/x)\nln -s /usr/share/x \"/run/x/l.$x\"",
		("x=$(cat /etc/x)\nd=\"/etc/${x##*/}\"\nif grep -q y /y; then d=/etc/y; fi\n"
		 "ln -s /usr/share/x \"$d/readlink\""),
	};
	static const char *const below_etc[] = {
		"x=$(cat /etc/x)\nd=\"/etc/s2c/${x##*/}.conf\"\nln -s /usr/share/x \"$d\"",
		"x=$(cat /etc/x)\nn=${x##*/}\nd=/etc/s2c/$n\nln -s /usr/share/x \"$d\"",
		("x=$(cat /etc/x)\nd=\"/etc/s2c/${x##*/}\"\nif grep -q y /y; then :; fi\n"
		 "ln -s /usr/share/x \"$d\""),
	};

	for (size_t i = 0; i < S2C_ELEMENTSOF(anywhere); i++) {
		_cleanup_free_ char *t = strdup_printf("%s\nreadlink /y", anywhere[i]);
		expect_incomplete(t, "stand in for it");
	}
	for (size_t i = 0; i < S2C_ELEMENTSOF(below_etc); i++) {
		_cleanup_free_ char *t = strdup_printf("%s\nreadlink /y\nchmod 4755 /usr/bin/prog",
						       below_etc[i]);
		expect_mode(t, 04755);
	}
	/* "/usr/bin/$n" may be "/usr/bin/..": the link lands below /usr, on PATH */
	expect_incomplete("x=$(cat /etc/x)\nln -s /usr/share/x \"/usr/bin/${x##*/}\"\n"
			  "readlink /y", "stand in for it");
	expect_incomplete("x=$(cat /etc/x)\nln -s /usr/share/x \"/usr/lib/${x##*/}\"\n"
			  "readlink /y", "stand in for it");
	expect_mode("x=/a/b/prog\nchmod 4755 \"/usr/bin/${x##*/}\"", 04755);
}
END_TEST

/*
 * A link that may land anywhere but whose last name is known is named so, or is in a
 * directory named so: only a path with a part of that name may go through it, unless
 * a link of that name (the script's, the package's) may stand where it is made.
 */
START_TEST(test_link_names)
{
	static const char *const named[] = {
		"ln -s /usr/share/x \"$x/django.mo\"",
		"ln -s /usr/share/x \"$(dirname \"$x\")/LC_MESSAGES/django.mo\"",
		"d=\"$(dirname /a/$x)/django.mo\"\nln -s /usr/share/x ${d}",
		"d=$x/django.mo\nln -s ../$x $d",
		"ln -s /usr/share/x \"$x/d\"\nln -s /usr/share/x \"$x/django.mo\"",
		"IFS=\"$x\"\nln -s /usr/share/x \"$x/django.mo\"",  /* quoted: not cut */
		"for f in /usr/share/locale/*/x.mo; do ln -s \"$f\" \"${f%/*}/django.mo\"; done",
	};
	static const char *const not_named[] = {
		"ln -s /usr/share/x \"$x/\"*.mo",
		"ln -s /usr/share/x \"$x/..\"",
		"ln -s /usr/share/x \"$x/.\"",
		"ln -s /usr/share/x \"$x/\"",
		"ln -s /usr/share/x \"$x\"readlink",
		"ln -s /usr/share/x \"$x/readlink\"",
		"d=\"$x/readlink\"\nln -s /usr/share/x $d",
		"ln -s /usr/local/sbin /tmp/d.l\nln -s /usr/share/readlink \"$x/d.l\"",
		"ln -s /usr/share/readlink \"$x/bindir\"",      /* the package's /usr/lib/bindir */
		"ln -s /usr/local/sbin \"$x/d.l\"\nln -s /usr/share/readlink \"$x/d.l\"",
		"ln -s /usr/local/sbin \"$x\"\nln -s /usr/share/readlink \"$x/d.l\"",
		"ln -s /usr/local/sbin \"/run/x/${x##*/}\"\nln -s /usr/share/readlink \"$x/d.l\"",
		"d=$x/readlink\nIFS=\"$x\"\nln -s /usr/share/x $d",        /* cut anywhere */
	};

	for (size_t i = 0; i < S2C_ELEMENTSOF(named); i++) {
		_cleanup_free_ char *t = strdup_printf("x=$(cat /etc/x)\n%s\nreadlink /y\n"
						       "chmod 4755 /usr/bin/prog", named[i]);
		expect_mode(t, 04755);
	}
	for (size_t i = 0; i < S2C_ELEMENTSOF(not_named); i++) {
		_cleanup_free_ char *t = strdup_printf("x=$(cat /etc/x)\n%s\nreadlink /y",
						       not_named[i]);
		expect_incomplete(t, "stand in for it");
	}
	/* a path with a part of that name: through it, the file is not known */
	expect_incomplete("x=$(cat /etc/x)\nln -s /usr/share/x \"$x/prog\"\n"
			  "chmod 4755 /usr/bin/prog", "cannot tell which file");
	/* a privileged file of that name, which ln -f may replace */
	expect_incomplete("x=$(cat /etc/x)\nln -sf /usr/share/x \"$x/suid\"",
			  "puts a link of unknown name in");
}
END_TEST

/*
 * while and until run as the shell runs them while their condition is decided; where it
 * is not, what a pass changes (variables, the positional parameters) is not known after;
 * so with a for loop over words whose number is not known.
 */
START_TEST(test_loops)
{
	expect_mode("set -- 0755 /usr/bin/prog 4755 /usr/bin/prog\n"
		    "while [ $# -ge 2 ]; do chmod $1 $2; shift 2; done", 04755);
	expect_mode("x=\nuntil [ \"$x\" = aa ]; do x=a$x; done\n"
		    "[ \"$x\" = aa ] && chmod 4755 /usr/bin/prog", 04755);
	expect_mode("x=\nwhile :; do x=a$x; if [ \"$x\" = aaa ]; then break; fi; done\n"
		    "[ \"$x\" = aaa ] && chmod 4755 /usr/bin/prog", 04755);
	expect_mode("set -- 4755 /usr/bin/prog 0755 /usr/bin/prog\n"
		    "while [ $# -ge 2 ]; do chmod $1 $2; shift 2; done", 0755);
	expect_incomplete("set -- 0755 /usr/bin/prog 4755 /usr/bin/prog\n"
			  "while [ $# -ge 2 ] && [ -e /etc/y ]; do chmod $1 $2; shift 2; done",
			  "a mode that is not known");
	expect_incomplete("set -- a\nwhile [ $# -gt 0 ]; do set -- a; done", "runs more than");
	/* for over words whose number is not known: no pass, or many */
	expect_incomplete("m=4755\nfor x in $(cat /etc/y); do m=0755; done\nchmod $m /usr/bin/prog",
			  "a mode that is not known");
	expect_incomplete("m=4755\ny=$(cat /etc/y)\nfor x in $y; do m=0755; break; done\n"
			  "chmod $m /usr/bin/prog", "a mode that is not known");
	expect_incomplete("set -- $(cat /etc/y)\nm=4755\nfor x; do m=0755; done\n"
			  "chmod $m /usr/bin/prog", "a mode that is not known");
	expect_incomplete("set -- $(cat /etc/y)\nm=4755\nfor x in \"$@\"; do m=0755; done\n"
			  "chmod $m /usr/bin/prog", "a mode that is not known");
	/* a glob that matches nothing stays a word: at least one pass */
	expect_mode("m=4755\nfor x in /etc/s2c-*.conf; do m=0755; done\nchmod $m /usr/bin/prog",
		    0755);
	expect_mode("m=0755\nfor x in \"$(cat /etc/y)\"; do m=4755; done\nchmod $m /usr/bin/prog",
		    04755);
}
END_TEST

/* A link of unknown name lands where the kernel finds its directory: through links made
 * earlier and the package's own directory links. */
START_TEST(test_link_dirs)
{
	static const char *const on_path[] = {
		"ln -s /usr/local/sbin /tmp/d\nln -s /usr/share/x \"/tmp/d/${x##*/}.l\"",
		"ln -s /usr/local /tmp/d\nln -s /usr/share/x \"/tmp/d/sbin/${x##*/}.l\"",
		"ln -s /usr/local/sbin /tmp/d\nln -s /usr/share/x \"/tmp/d/${x##*/}\"",
		"ln -s /usr/share/x \"/usr/lib/bindir/${x##*/}.l\"",
	};

	for (size_t i = 0; i < S2C_ELEMENTSOF(on_path); i++) {
		_cleanup_free_ char *t = strdup_printf("x=$(cat /etc/x)\n%s\nreadlink /y",
						       on_path[i]);
		expect_incomplete(t, "stand in for it");
	}
	expect_mode("x=$(cat /etc/x)\nln -s /var/lib/s2c /tmp/d\n"
		    "ln -s /usr/share/x \"/tmp/d/${x##*/}.l\"\nreadlink /y\nchmod 4755 /usr/bin/prog",
		    04755);
}
END_TEST

/* Queries and the helpers other packages ship for maintainer scripts change no file. */
START_TEST(test_helpers)
{
	static const char *const none[] = {
		"lsmod | grep -q vmwgfx || true", "blend-update-usermenus science",
		"ypwhich >/dev/null 2>&1 || ypcat mail.aliases || true", "locale -a | grep -q C",
		"df --output=avail /var/lib/x || true", "lsof -nt /var/lib/x/y || true",
		(". /usr/share/apache2/apache2-maintscript-helper\n"
		 "apache2_invoke enmod auth_plain || true\napache2_reload restart || true"),
		"a2enmod -q ssl || true; a2query -m ssl || true",
		". /usr/lib/php/php-maintscript-helper\nphp_invoke enmod ALL ALL gearman || true",
		"phpenmod gearman || true; phpquery -V || true",
	};

	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		_cleanup_free_ char *text = strdup_printf("%s\nchmod 4755 /usr/bin/prog", none[i]);
		expect_mode(text, 04755);
	}
	/* what they answer is the system's */
	struct ms_analysis a = run("if lsmod | grep -q vmwgfx; then chmod 4755 /usr/bin/prog; fi");
	ck_assert_uint_eq(a.n, 1);
	ck_assert(a.v[0].conditional);
	ms_analysis_release(&a);
	expect_incomplete(". /usr/share/apache2/other-helper", "not the package's");
	expect_incomplete(". /usr/lib/php/php-helper", "not the package's");
}
END_TEST

/* sed's one substitution on a known line, and what it leaves unknown */
START_TEST(test_sed_subst)
{
	static const struct {
		const char *args[3];
		const char *line, *want;
	} cases[] = {
		{ { "s:/var/games/:/var/lib/games/:" }, "/var/games/x", "/var/lib/games/x" },
		{ { "-e", "s/a/b/g" }, "banana", "bbnbnb" },
		{ { "s/a/b/" }, "banana", "bbnana" },
		{ { "s/\\(a*\\)n/[\\1]&/" }, "aan", "[aa]aan" },
		{ { "-E", "s/(x+)?y/z/" }, "xy", NULL },       /* + ? unescaped: not taken */
		{ { "-E", "s/(b)a/\\1/g" }, "baba", "bb" },
		{ { "s/\\//_/g" }, "/a/b", "_a_b" },
		{ { "s|^/usr|/opt|" }, "/usr/usr", "/opt/usr" },
		{ { "s/x$//" }, "axx", "ax" },
		{ { "s/[a-z]//" }, "abc", NULL },             /* bracket expressions */
		{ { "s/a/\\n/" }, "abc", NULL },              /* GNU's \n, \L, \U */
		{ { "s/x*//g" }, "abc", NULL },               /* an empty match */
		{ { "s/a/b/2" }, "aaa", NULL },               /* flags but g */
		{ { "s/a/b/", "-i" }, "a", NULL },
		{ { "y/a/b/" }, "a", NULL },
		{ { "s/\\(a\\)/\\2/" }, "a", NULL },          /* a group it does not have */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = 0;
		while (n < 3 && cases[i].args[n])
			n++;
		_cleanup_free_ char *got = mssed_subst(cases[i].args, n, cases[i].line);
		if (cases[i].want)
			ck_assert_msg(got && strcmp(got, cases[i].want) == 0, "%zu: %s", i,
				      got ? got : "(unknown)");
		else
			ck_assert_msg(!got, "%zu: %s", i, got);
	}
	/* a name the script computes with it is named; one it cannot compute is not */
	expect_mode("f=$(echo /usr/lib/prog | sed s:/lib/:/bin/:)\nchmod 4755 \"$f\"", 04755);
	expect_mode("f=`echo /usr/lib/prog | sed -e 's,lib,bin,'`\nchmod 4755 $f", 04755);
	expect_incomplete("f=$(echo /usr/lib/prog | sed 's/[a-z]*b/bin/')\nchmod 4755 $f",
			  "which file");
	expect_incomplete("f=$(echo /usr/lib/prog | sed s/lib/bin/ >/dev/null)\nchmod 4755 $f",
			  "which file");
	expect_incomplete("f=$(echo '/usr/lib\\\\n' | sed s/lib/bin/)\nchmod 4755 $f",
			  "which file");
}
END_TEST

/* cut's one field of a line the evaluator knows */
START_TEST(test_cut_field)
{
	static const struct {
		const char *args[4];
		const char *line, *want;
	} cases[] = {
		{ { "-d:", "-f2" }, "a.conf:50-a.conf", "50-a.conf" },
		{ { "-d", ":", "-f", "1" }, "a.conf:50-a.conf", "a.conf" },
		{ { "-f3", "-d/" }, "/usr/bin/x", "bin" },
		{ { "-d:", "-f3" }, "a:b", "" },              /* past the last field */
		{ { "-d:", "-f2" }, "ab", "ab" },             /* no delimiter: the whole line */
		{ { "-d:", "-f1-2" }, "a:b", NULL },          /* ranges and lists are not taken */
		{ { "-d:", "-f1,2" }, "a:b", NULL },
		{ { "-d::", "-f1" }, "a:b", NULL },
		{ { "-c1" }, "ab", NULL },
		{ { "-d:", "-f1", "-s" }, "ab", NULL },
		{ { "-d:", "-f0" }, "a:b", NULL },
		{ { "-d:" }, "a:b", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = 0;
		while (n < 4 && cases[i].args[n])
			n++;
		_cleanup_free_ char *got = mssed_cut(cases[i].args, n, cases[i].line);
		if (cases[i].want)
			ck_assert_msg(got && strcmp(got, cases[i].want) == 0, "%zu: %s", i,
				      got ? got : "(unknown)");
		else
			ck_assert_msg(!got, "%zu: %s", i, got);
	}
	expect_mode("m=$(echo x:4755 | cut -d: -f2)\nchmod $m /usr/bin/prog", 04755);
	expect_incomplete("m=$(echo x:4755 | cut -d: -f2-)\nchmod $m /usr/bin/prog", "mode");
}
END_TEST

/* tempfile makes a new file in /tmp, never the package's; zcat prints */
START_TEST(test_tempfile)
{
	expect_mode("t=$(tempfile)\nzcat /usr/share/x.gz > $t\ninstall $t /etc/x\n"
		    "chmod 4755 /usr/bin/prog", 04755);
	/* with options, the name is not known */
	expect_incomplete("t=$(tempfile -d /usr/bin)\nmv $t /usr/bin/suid", "cannot name");
}
END_TEST

/*
 * Before the package is unpacked (preinst, %pre) none of its files is there: a test
 * does not find them, and a name on PATH runs another's program, not the package's.
 */
START_TEST(test_before_unpack)
{
	static const char *const texts[] = {
		"if [ -e /usr/bin/prog ]; then :; else chmod 4755 /bin/ping; fi",
		"if [ ! -x /usr/bin/prog ]; then chmod 4755 /bin/ping; fi",
	};
	struct ms_analysis a;

	for (size_t i = 0; i < S2C_ELEMENTSOF(texts); i++) {
		struct ms_analysis post = run_script("s2c-test", "postinst", false, texts[i]);
		struct ms_analysis pre = run_script("s2c-test", "preinst", true, texts[i]);

		ck_assert_msg(!incomplete_with(&post, "/bin/ping"), "%s", texts[i]);
		ck_assert_msg(pre.n_incomplete > 0, "preinst: %s", texts[i]);
		ms_analysis_release(&post);
		ms_analysis_release(&pre);
	}
	/* the package's groupadd stands in for passwd's once unpacked, not before */
	a = run_script("s2c-test", "preinst", true, "groupadd -r s2c");
	ck_assert_msg(a.n_incomplete == 0, "%s", a.n_incomplete ? a.incomplete[0] : "");
	ms_analysis_release(&a);
	a = run_script("s2c-test", "postinst", false, "groupadd -r s2c");
	ck_assert(incomplete_with(&a, "of the package"));
	ms_analysis_release(&a);
}
END_TEST

/* plocate's plocate-build writes the database it names last, a new file never set-ID */
START_TEST(test_plocate_build)
{
	struct ms_analysis a = run_as("plocate", "set +e\n"
				      "plocate-build -b 32 /var/lib/mlocate/mlocate.db /var/lib/plocate/p.db\n"
				      "chgrp plocate /var/lib/plocate/p.db\nchmod 4755 /usr/bin/prog");

	ck_assert_msg(a.n_incomplete == 0, "%s", a.n_incomplete ? a.incomplete[0] : "");
	ck_assert_uint_eq(state(&a, "/usr/bin/prog", MS_SCENARIO_WORKS).mode, 04755);
	ms_analysis_release(&a);
	/* onto a privileged file, or one it cannot name */
	a = run_as("plocate", "plocate-build -p /tmp/list /usr/bin/suid || true");
	ck_assert(incomplete_with(&a, "/usr/bin/suid"));
	ms_analysis_release(&a);
	a = run_as("plocate", "plocate-build /var/lib/mlocate/mlocate.db \"$DB\" || true");
	ck_assert_uint_gt(a.n_incomplete, 0);
	ms_analysis_release(&a);
	/* its status is the database's */
	a = run_as("plocate", "if plocate-build -l no /a /var/lib/p.db; then chmod 4755 /usr/bin/prog; fi");
	ck_assert_uint_eq(a.n, 1);
	ck_assert(a.v[0].conditional);
	ms_analysis_release(&a);
}
END_TEST

/*
 * The index of actions by path answers as asking every action does, for exact paths,
 * trees (the root too), globs by their directory and globs with a wildcard above their
 * last part; an action added after the index is made is still found.
 */
START_TEST(test_action_index)
{
	struct ms_analysis a;
	static const char *const paths[] = {
		"/usr/bin/a", "/usr/bin/ab", "/usr/bin", "/usr/bin/a/x", "/opt/tree",
		"/opt/tree/x/y", "/opt/treex/y", "/opt", "/usr/lib/x/l.so", "/usr/lib/x/y/l.so",
		"/usr/lib/x/l.so.1", "/srv/s/bin/p", "/srv/s/t/bin/p", "/srv/s/bin/pp",
		"/usr/bin/b c", "/etc/x/.hidden", "/etc/x/f", "/", "/var/lx/a/b", "/var/l",
		"/var/lx",
	};
	struct ms_analysis one = { 0 };

	add("/usr/bin/a", MEMBER_FILE, 0755, NULL);
	add("/usr/bin/b c", MEMBER_FILE, 0755, NULL);
	add("/usr/sbin/late", MEMBER_FILE, 0755, NULL);
	a = run("chmod 4755 /usr/bin/a; chmod -R u+s /opt/tree; chmod u+s /usr/lib/x/*.so; "
		"chmod u+s /srv/*/bin/?; setcap cap_net_raw+ep '/usr/bin/b c'; chmod 4755 /etc/x/*; "
		"chmod -R u+s /var/l?");

	ck_assert_uint_eq(a.n, 7);
	ck_assert_int_eq(ms_analysis_index(&a), 0);
	one.v = a.v;
	one.n = a.n;
	for (size_t i = 0; i < S2C_ELEMENTSOF(paths); i++) {
		bool want = false;
		for (size_t k = 0; k < a.n; k++)
			want = want || ms_action_names(&a.v[k], paths[i]);
		ck_assert_msg(ms_analysis_names(&a, paths[i]) == want, "%s", paths[i]);
		ck_assert_msg(ms_analysis_names(&one, paths[i]) == want, "%s", paths[i]);
	}
	ck_assert(ms_analysis_names(&a, "/opt/tree/x/y") && ms_analysis_names(&a, "/srv/s/bin/p"));
	ck_assert(ms_analysis_names(&a, "/var/lx/a/b") && !ms_analysis_names(&a, "/var/l"));
	/* '*' does not cross '/'; it matches a leading dot, more than the shell: a candidate more */
	ck_assert(!ms_analysis_names(&a, "/srv/s/t/bin/p") && ms_analysis_names(&a, "/etc/x/.hidden"));

	/* one more action, as a later reading would add: found though the index is older */
	ck_assert(!ms_analysis_names(&a, "/usr/sbin/late"));
	{
		struct ms_analysis b = run("chmod 4755 /usr/sbin/late");
		struct ms_action *v = reallocarray(a.v, a.n + 1, sizeof(*v));
		ck_assert_ptr_nonnull(v);
		a.v = v;
		a.v[a.n++] = b.v[0];
		b.n = 0;
		b.v[0] = (struct ms_action){ 0 };
		ms_analysis_release(&b);
	}
	ck_assert(ms_analysis_names(&a, "/usr/sbin/late"));
	ck_assert_int_eq(ms_analysis_index(&a), 0);
	ck_assert(ms_analysis_names(&a, "/usr/sbin/late") && ms_analysis_names(&a, "/usr/bin/a"));
	ms_analysis_release(&a);

	/* a recursive glob: below each directory it matches */
	a = run("chmod -R u+s /usr/b*");
	ck_assert_int_eq(ms_analysis_index(&a), 0);
	ck_assert(ms_analysis_names(&a, "/usr/bin/prog") && ms_analysis_names(&a, "/usr/bin"));
	ck_assert(!ms_analysis_names(&a, "/usr/sbin/groupadd") && !ms_analysis_names(&a, "/usr"));
	ms_analysis_release(&a);
}
END_TEST

Suite *mscommand_suite(void)
{
	Suite *s = suite_create("mscommand");
	TCase *tc = tcase_create("mscommand"), *scale = tcase_create("scale");

	tcase_set_timeout(tc, 20);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_chmod);
	tcase_add_test(tc, test_chown);
	tcase_add_test(tc, test_setcap);
	tcase_add_test(tc, test_statoverride);
	tcase_add_test(tc, test_copies);
	tcase_add_test(tc, test_made_files);
	tcase_add_test(tc, test_mkcert);
	tcase_add_test(tc, test_x2godbadmin);
	tcase_add_test(tc, test_writes_over);
	tcase_add_test(tc, test_hooks);
	tcase_add_test(tc, test_gac_install);
	tcase_add_test(tc, test_dictionary_config);
	tcase_add_test(tc, test_dbconfig);
	tcase_add_test(tc, test_network_and_env);
	tcase_add_test(tc, test_wrappers);
	tcase_add_test(tc, test_shell);
	tcase_add_test(tc, test_programs);
	tcase_add_test(tc, test_interpreters);
	tcase_add_test(tc, test_debconf);
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_unknown_links);
	tcase_add_test(tc, test_partial_names);
	tcase_add_test(tc, test_link_names);
	tcase_add_test(tc, test_loops);
	tcase_add_test(tc, test_link_dirs);
	tcase_add_test(tc, test_helpers);
	tcase_add_test(tc, test_sed_subst);
	tcase_add_test(tc, test_cut_field);
	tcase_add_test(tc, test_tempfile);
	tcase_add_test(tc, test_plocate_build);
	tcase_add_test(tc, test_before_unpack);
	tcase_add_test(tc, test_action_index);
	suite_add_tcase(s, tc);
	/* Scripts of thousands of commands: seconds under AddressSanitizer. */
	tcase_set_timeout(scale, 120);
	tcase_add_checked_fixture(scale, setup, teardown);
	tcase_add_test(scale, test_many_variables);
	tcase_add_test(scale, test_many_names);
	suite_add_tcase(s, scale);
	return s;
}
