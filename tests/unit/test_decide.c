/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Deciding about a scan (rules/decide): real ELF binaries compiled during the
 * test in an image root, scanned, read and decided with the bundled rules
 * database.  Root-owned set-ID fixtures need root; the engine's own suite
 * (test_engine.c) decides from facts built in memory as any user.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <check.h>

#include "db.h"
#include "decide.h"
#include "elfinfo.h"
#include "engine.h"
#include "error.h"
#include "facts.h"
#include "fixture.h"
#include "host.h"
#include "scan.h"
#include "suites.h"

static char *root;

struct world {
	struct rules_db *db;
	struct scan_result *res;
	struct decisions ds;          /* decide_all()'s */
};

static void setup(void)
{
	root = fx_tempdir();
}

static void teardown(void)
{
	fx_rmrf(root);
	free(root);
}

/* Decide about every file under root with the bundled rules and, if given,
 * the rules directory @extra on top. */
static struct world decide_with(const char *kernel, const char *extra)
{
	struct world w = { 0 };
	char *dir = NULL;
	const char *dirs[3] = { NULL, extra, NULL };
	struct s2c_error err = { 0 };

	ck_assert_int_gt(asprintf(&dir, "%s/db", S2C_TEST_SRCDIR), 0);
	dirs[0] = dir;
	ck_assert_msg(rules_db_load(dirs, 0, &w.db, &err) == 0, "%s", err.msg);
	free(dir);
	w.res = fx_scan(root, NULL, 0, 2, NULL);
	ck_assert_msg(decide_all(w.db, w.res, &(struct decide_target){ .kernel = kernel }, &w.ds,
				 &err) == 0, "%s", err.msg);
	return w;
}

static struct world decide(const char *kernel)
{
	return decide_with(kernel, NULL);
}

static void world_free(struct world *w)
{
	decisions_release(&w->ds);
	scan_result_free(w->res);
	rules_db_free(w->db);
}

static const struct decision *get(const struct world *w, const char *path)
{
	for (size_t i = 0; i < w->res->n; i++)
		if (strcmp(w->res->v[i]->path, path) == 0)
			return w->ds.v[i];
	ck_abort_msg("no decision for %s", path);
	return NULL;
}

static void compile(const char *rel, const char *src, const char *const *flags)
{
	ck_assert_msg(fx_compile(root, rel, src, 04755, flags) == 0, "cc failed for %s", rel);
}

static const char prog_socket[] =
	"#include <sys/socket.h>\n#include <netinet/in.h>\n"
	"int main(void) { int s = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP); int one = 1;"
	" return setsockopt(s, SOL_SOCKET, SO_DEBUG, &one, sizeof one); }\n";
static const char prog_mount[] =
	"#include <sys/mount.h>\nint main(void) { return mount(\"a\", \"/b\", \"tmpfs\", 0, 0); }\n";
static const char prog_rlimit_caps[] =
	"#include <sys/resource.h>\n#include <sys/capability.h>\n"
	"int main(void) { struct rlimit r = {1, 1}; cap_t c = cap_get_proc();"
	" cap_value_t v = CAP_NET_RAW; cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET);"
	" cap_set_proc(c); return setrlimit(RLIMIT_NOFILE, &r); }\n";
static const char prog_plain[] =
	"#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n";
static const char prog_su_like[] =
	"#include <pwd.h>\n#include <grp.h>\n#include <unistd.h>\n"
	"int main(int c, char **v) { struct passwd *p = getpwnam(v[1]); (void)c;"
	" initgroups(p->pw_name, p->pw_gid); setuid(p->pw_uid); execv(p->pw_shell, v); return 1; }\n";
static const char prog_breaker[] =
	"#include <stdio.h>\n#include <unistd.h>\n"
	"int main(void) { if (geteuid()) { fputs(\"pkexec must be setuid root\\n\", stderr); return 1; } return 0; }\n";
static const char prog_pcap_user[] =
	"int pcap_open_live(const char *, int, int, int, char *);\n"
	"int main(void) { char e[256]; return pcap_open_live(\"lo\", 64, 0, 0, e); }\n";
static const char lib_pcap[] =
	"int pcap_open_live(const char *d, int s, int p, int t, char *e) { (void)d; (void)s; (void)p;"
	" (void)t; (void)e; return 0; }\n";

START_TEST(test_evidence_verdicts)
{
	static const char *const lcap[] = { "-lcap", NULL };
	static const char *const stat[] = { "-static", NULL };
	static const char *const shared[] = { "-shared", "-fPIC", "-Wl,-soname,libpcap.so.0.8", NULL };
	char *pcap_flags[6];
	struct world w;
	const struct decision *d;

	compile("opt/bin/rawsock", prog_socket, NULL);
	compile("opt/bin/mounter", prog_mount, NULL);
	compile("opt/bin/limits", prog_rlimit_caps, lcap);
	compile("opt/bin/static", prog_plain, stat);
	compile("opt/bin/switcher", prog_su_like, NULL);
	compile("opt/bin/insists", prog_breaker, NULL);
	ck_assert_int_eq(fx_compile(root, "usr/lib/x86_64-linux-gnu/libpcap.so.0.8", lib_pcap, 0644, shared), 0);
	pcap_flags[0] = fx_path(root, "usr/lib/x86_64-linux-gnu/libpcap.so.0.8");
	pcap_flags[1] = NULL;
	compile("opt/bin/sniffer", prog_pcap_user, (const char *const *)pcap_flags);
	free(pcap_flags[0]);
	fx_file(root, "opt/bin/script", 04755, "#!/bin/sh\nid\n");
	w = decide(NULL);

	d = get(&w, "/opt/bin/sniffer");    /* strong library evidence, no rule */
	ck_assert(fx_has_evidence(d, "pcap_open_live"));
	ck_assert_int_eq(d->verdict, VERDICT_MIGRATE);
	ck_assert_str_eq(d->caps_text, "cap_net_raw=ep");        /* capability-dumb */
	ck_assert_int_eq(d->confidence, CONFIDENCE_HIGH);
	ck_assert_ptr_nonnull(d->elf);
	ck_assert_str_eq(d->elf->libs[0].path, "/usr/lib/x86_64-linux-gnu/libpcap.so.0.8");

	d = get(&w, "/opt/bin/mounter");    /* mount(2): cap_sys_admin, root-equivalent */
	ck_assert(fx_has_evidence(d, "imports mount"));
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_ptr_nonnull(strstr(d->reason, "root-equivalent"));

	d = get(&w, "/opt/bin/limits");     /* weak setrlimit, aware through libcap */
	ck_assert(d->aware);
	ck_assert(fx_has_evidence(d, "setrlimit"));
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_int_eq(d->confidence, CONFIDENCE_LOW);

	d = get(&w, "/opt/bin/rawsock");    /* socket alone proves nothing */
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert(!d->has_caps);

	d = get(&w, "/opt/bin/static");
	ck_assert(d->elf->is_static);
	ck_assert(fx_has_evidence(d, "statically linked"));
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_int_eq(d->confidence, CONFIDENCE_LOW);

	d = get(&w, "/opt/bin/switcher");   /* su-like: must most likely stay setuid */
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_ptr_nonnull(strstr(d->reason, "cap_setuid"));

	d = get(&w, "/opt/bin/insists");
	ck_assert(fx_has_warning(d, "must be setuid root"));

	d = get(&w, "/opt/bin/script");     /* the kernel ignores the bit */
	ck_assert_int_eq(d->verdict, VERDICT_DROP);
	ck_assert(d->changes);
	ck_assert_uint_eq(d->mode, 0755);
	world_free(&w);
}
END_TEST

START_TEST(test_rules_and_conditions)
{
	static const char *const lcap[] = { "-lcap", NULL };
	struct world w;
	const struct decision *d;

	compile("usr/bin/ping", prog_rlimit_caps, lcap);       /* capability-aware */
	compile("usr/bin/mtr-packet", prog_socket, NULL);      /* capability-dumb */
	compile("usr/bin/su", prog_su_like, NULL);
	compile("usr/bin/passwd", prog_plain, NULL);
	fx_file(root, "usr/bin/latent", 04644, "\177ELF");
	/* the owning package tells iputils ping from inetutils ping */
	fx_write(root, "var/lib/dpkg/info/iputils-ping.list", "/.\n/bin/ping\n");
	w = decide("6.1");

	d = get(&w, "/usr/bin/ping");
	ck_assert_ptr_nonnull(d->rule);
	ck_assert_str_eq(d->rule->id, "iputils.ping");
	ck_assert_str_eq(d->package, "iputils-ping");
	ck_assert_int_eq(d->verdict, VERDICT_MIGRATE);
	ck_assert_str_eq(d->caps_text, "cap_net_raw=p");
	ck_assert_uint_eq(d->mode, 0755);
	ck_assert(d->changes);
	ck_assert_uint_eq(d->n_conditions, 2);
	ck_assert_int_eq(d->conditions[0].holds, 0);             /* ping_group_range "1 0" */
	ck_assert_int_eq(d->conditions[1].holds, 0);             /* 6.1 is not below 5.17 */

	d = get(&w, "/usr/bin/mtr-packet");
	ck_assert_str_eq(d->rule->id, "mtr.mtr-packet");
	ck_assert_str_eq(d->caps_text, "cap_net_raw=ep");

	d = get(&w, "/usr/bin/su");
	ck_assert_int_eq(d->verdict, VERDICT_KEEP);
	ck_assert(!d->changes);
	ck_assert_uint_eq(d->mode, 04755);
	ck_assert_int_eq(d->risk, RISK_ROOT);
	ck_assert(d->needs != 0);

	d = get(&w, "/usr/bin/passwd");
	ck_assert_int_eq(d->verdict, VERDICT_KEEP);

	d = get(&w, "/usr/bin/latent");
	ck_assert_int_eq(d->verdict, VERDICT_DROP);
	world_free(&w);

	/* Before 5.17, ping -m needs cap_net_admin too. */
	w = decide("5.10");
	d = get(&w, "/usr/bin/ping");
	ck_assert_str_eq(d->caps_text, "cap_net_admin,cap_net_raw=p");
	ck_assert(d->conditions[1].chosen);
	world_free(&w);

	/* ICMP datagram sockets open to everyone: ping needs nothing. */
	fx_write(root, "usr/lib/sysctl.d/50-default.conf", "-net.ipv4.ping_group_range = 0 2147483647\n");
	w = decide("6.1");
	d = get(&w, "/usr/bin/ping");
	ck_assert_int_eq(d->verdict, VERDICT_DROP);
	ck_assert(d->conditions[0].chosen);
	ck_assert_uint_eq(d->mode, 0755);
	world_free(&w);
}
END_TEST

START_TEST(test_existing_caps)
{
	static const char *const lcap[] = { "-lcap", NULL };
	const char *gst = "usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper";
	struct world w;
	const struct decision *d;

	ck_assert_int_eq(fx_compile(root, gst, prog_rlimit_caps, 0755, lcap), 0);
	ck_assert_int_eq(fx_setcaps(root, gst, "cap_net_bind_service,cap_net_admin+ep"), 0);
	ck_assert_int_eq(fx_compile(root, "usr/bin/python3.11", prog_plain, 0755, NULL), 0);
	ck_assert_int_eq(fx_setcaps(root, "usr/bin/python3.11", "cap_setuid+ep"), 0);
	fx_write(root, "etc/os-release", "ID=debian\n");
	w = decide(NULL);
	d = get(&w, "/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper");
	ck_assert_str_eq(d->rule->id, "gstreamer.gst-ptp-helper");
	ck_assert_int_eq(d->verdict, VERDICT_MIGRATE);
	ck_assert(!d->changes);                                   /* recognised as done */
	d = get(&w, "/usr/bin/python3.11");                       /* root for anyone */
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_int_eq(d->risk_now, RISK_ROOT);
	ck_assert(fx_has_warning(d, "interpreter"));
	world_free(&w);

	/* From GStreamer 1.24 the helper is shipped with cap_sys_nice as well; a file
	 * that has fewer capabilities never gains one on its own: a person decides. */
	fx_write(root, "var/lib/dpkg/info/libgstreamer1.0-0.list", "/" "usr/lib/x86_64-linux-gnu/"
		 "gstreamer1.0/gstreamer-1.0/gst-ptp-helper\n");
	fx_write(root, "var/lib/dpkg/status", "Package: libgstreamer1.0-0\nStatus: install ok "
		 "installed\nVersion: 1.26.2-2\n");
	w = decide(NULL);
	d = get(&w, "/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper");
	ck_assert(!d->changes);
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_ptr_nonnull(strstr(d->reason, "would gain cap_sys_nice"));
	ck_assert_str_eq(d->caps_text, "cap_net_bind_service,cap_net_admin=ep");
	world_free(&w);
	/* The same helper set-user-ID root may move to the full set. */
	{
		char *p = fx_path(root, gst);
		ck_assert_int_eq(removexattr(p, "security.capability"), 0);
		ck_assert_int_eq(chmod(p, 04755), 0);
		free(p);
	}
	w = decide(NULL);
	d = get(&w, "/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper");
	ck_assert(d->changes);
	ck_assert_int_eq(d->verdict, VERDICT_MIGRATE);
	ck_assert_ptr_nonnull(strstr(d->caps_text, "cap_sys_nice"));
	world_free(&w);
}
END_TEST

/* A rules directory (outside the scanned root) holding @json as test.json. */
static char *rules_dir(const char *json)
{
	char *dir = fx_tempdir();

	fx_write(dir, "test.json", json);
	return dir;
}

static const char tie_rules[] =
	"{\"schema\": 1, \"area\": \"test\", \"rules\": ["
	"{\"id\": \"t.one\", \"program\": \"tie (one)\", \"match\": {\"paths\": [\"/usr/bin/tie\"],"
	" \"packages\": [\"one\"]}, \"identify\": {\"strings\": [\"flavour-one\"]},"
	" \"verdict\": \"migrate\", \"caps\": \"cap_net_raw=ep\", \"reason\": \"one needs a raw socket\","
	" \"sources\": [\"man:raw(7)\"]},"
	"{\"id\": \"t.two\", \"program\": \"tie (two)\", \"match\": {\"paths\": [\"/usr/bin/tie\"],"
	" \"packages\": [\"two\"]}, \"identify\": {\"strings\": [\"flavour-two\"], \"needed\": [\"libc.so*\"]},"
	" \"verdict\": \"keep\", \"needs\": \"cap_sys_admin=ep\", \"reason\": \"two mounts things\","
	" \"sources\": [\"man:mount(2)\"]},"
	"{\"id\": \"a.one\", \"program\": \"agree (one)\", \"match\": {\"paths\": [\"/usr/bin/agree\"],"
	" \"packages\": [\"one\"]}, \"verdict\": \"keep\", \"needs\": \"cap_setuid=ep\","
	" \"reason\": \"it switches users\", \"sources\": [\"man:setuid(2)\"]},"
	"{\"id\": \"a.two\", \"program\": \"agree (two)\", \"match\": {\"paths\": [\"/usr/bin/agree\"],"
	" \"packages\": [\"two\"]}, \"verdict\": \"keep\", \"needs\": \"cap_setuid=ep\","
	" \"reason\": \"it switches users too\", \"sources\": [\"man:setuid(2)\"]},"
	"{\"id\": \"v.tool\", \"program\": \"toolx\", \"match\": {\"paths\": [\"/usr/bin/toolx*\"]},"
	" \"version\": {\"prefix\": \"toolx \"}, \"verdict\": \"migrate\", \"caps\": \"cap_net_raw=ep\","
	" \"reason\": \"old versions need a raw socket\", \"sources\": [\"man:raw(7)\"],"
	" \"conditions\": [{\"when\": {\"version_at_least\": \"1.4\"}, \"verdict\": \"drop\","
	" \"reason\": \"from 1.4 it refuses to run set-ID\"}]}"
	"]}";

/* Rules that tie: the binary's identify signs, then agreement, then review. */
START_TEST(test_ties)
{
	char *db = rules_dir(tie_rules);
	struct world w;
	const struct decision *d;

	compile("usr/bin/tie", "#include <stdio.h>\nint main(void) { puts(\"flavour-two\"); return 0; }\n",
		NULL);
	compile("usr/bin/agree", prog_plain, NULL);
	w = decide_with("6.1", db);
	d = get(&w, "/usr/bin/tie");
	ck_assert_ptr_nonnull(d->rule);
	ck_assert_str_eq(d->rule->id, "t.two");
	ck_assert_int_eq(d->tie, TIE_IDENTIFIED);
	ck_assert_int_eq(d->verdict, VERDICT_KEEP);
	ck_assert_int_eq(d->confidence, CONFIDENCE_HIGH);
	ck_assert_uint_eq(d->n_ambiguous, 2);
	ck_assert_ptr_nonnull(strstr(d->match_how, "the string 'flavour-two'"));
	ck_assert_ptr_nonnull(strstr(d->match_how, "NEEDs libc.so.6"));
	/* rules that decide the same: the first, with medium confidence, and said so */
	d = get(&w, "/usr/bin/agree");
	ck_assert_str_eq(d->rule->id, "a.one");
	ck_assert_int_eq(d->tie, TIE_AGREE);
	ck_assert_int_eq(d->confidence, CONFIDENCE_MEDIUM);
	ck_assert_ptr_nonnull(strstr(d->reason, "all decide the same"));
	world_free(&w);

	/* the other flavour */
	fx_rmrf(root);
	free(root);
	root = fx_tempdir();
	compile("usr/bin/tie", "#include <stdio.h>\nint main(void) { puts(\"flavour-one\"); return 0; }\n",
		NULL);
	w = decide_with("6.1", db);
	d = get(&w, "/usr/bin/tie");
	ck_assert_str_eq(d->rule->id, "t.one");
	ck_assert_int_eq(d->verdict, VERDICT_MIGRATE);
	world_free(&w);

	/* neither: review, naming the rules and what would settle it */
	fx_rmrf(root);
	free(root);
	root = fx_tempdir();
	compile("usr/bin/tie", prog_plain, NULL);
	w = decide_with("6.1", db);
	d = get(&w, "/usr/bin/tie");
	ck_assert_ptr_null(d->rule);
	ck_assert_int_eq(d->tie, TIE_OPEN);
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_int_eq(d->confidence, CONFIDENCE_LOW);
	ck_assert_ptr_nonnull(strstr(d->reason, "(t.one, t.two)"));
	ck_assert_ptr_nonnull(strstr(d->reason, "no package database"));
	ck_assert_ptr_nonnull(strstr(d->reason, "would settle it"));
	world_free(&w);

	/* the package database settles it before the binary is asked */
	fx_write(root, "var/lib/dpkg/info/one.list", "/usr/bin/tie\n");
	w = decide_with("6.1", db);
	d = get(&w, "/usr/bin/tie");
	ck_assert_str_eq(d->rule->id, "t.one");
	ck_assert_int_eq(d->tie, TIE_NONE);
	world_free(&w);
	fx_rmrf(db);
	free(db);
}
END_TEST

/* The program's version: from the binary after the rule's prefix, else the package's. */
START_TEST(test_versions)
{
	char *db = rules_dir(tie_rules);
	struct world w;
	const struct decision *d;

	compile("usr/bin/toolx-new", "#include <stdio.h>\nint main(void) { puts(\"toolx 1.4.9\"); return 0; }\n",
		NULL);
	compile("usr/bin/toolx-old", "#include <stdio.h>\nint main(void) { puts(\"toolx 1.3.4\"); return 0; }\n",
		NULL);
	compile("usr/bin/toolx-pkg", prog_plain, NULL);
	compile("usr/bin/toolx-none", prog_plain, NULL);
	fx_write(root, "var/lib/dpkg/info/toolx.list", "/usr/bin/toolx-pkg\n");
	fx_write(root, "var/lib/dpkg/status",
		 "Package: toolx\nStatus: install ok installed\nVersion: 2:1.5-1\n\n");
	w = decide_with("6.1", db);
	d = get(&w, "/usr/bin/toolx-new");
	ck_assert_str_eq(d->version, "1.4.9");
	ck_assert_str_eq(d->version_source, "binary");
	ck_assert_int_eq(d->verdict, VERDICT_DROP);
	ck_assert_ptr_nonnull(strstr(d->conditions[0].text, "version 1.4.9 (binary) is at least 1.4"));
	d = get(&w, "/usr/bin/toolx-old");
	ck_assert_str_eq(d->version, "1.3.4");
	ck_assert_int_eq(d->verdict, VERDICT_MIGRATE);
	d = get(&w, "/usr/bin/toolx-pkg");
	ck_assert_str_eq(d->package_version, "2:1.5-1");
	ck_assert_str_eq(d->version, "1.5");
	ck_assert_str_eq(d->version_source, "package");
	ck_assert_int_eq(d->verdict, VERDICT_DROP);
	d = get(&w, "/usr/bin/toolx-none");
	ck_assert_ptr_null(d->version);
	ck_assert_int_eq(d->conditions[0].holds, -1);
	ck_assert_int_eq(d->verdict, VERDICT_MIGRATE);
	world_free(&w);
	fx_rmrf(db);
	free(db);
}
END_TEST

/* A front end whose privileged work is in its own library: the library's imports are
 * evidence, named and one step weaker; general libraries are not read. */
START_TEST(test_library_evidence)
{
	char *lib = fx_path(root, "usr/lib"), *ldflag = NULL;
	const char *libflags[] = { "-shared", "-fPIC", "-Wl,-soname,libfrontend.so.1", NULL };
	const char *progflags[4] = { NULL, "-l:libfrontend.so.1", "-Wl,--allow-shlib-undefined",
				     NULL };
	struct world w;
	const struct decision *d;
	bool libc = false;

	ck_assert_int_eq(fx_compile(root, "usr/lib/libfrontend.so.1",
				    "int pcap_open_live(const char *, int, int, int, char *);\n"
				    "int frontend_capture(void) { char e[256];\n"
				    " return pcap_open_live(\"lo\", 64, 0, 0, e); }\n", 0755, libflags), 0);
	ck_assert_int_gt(asprintf(&ldflag, "-L%s", lib), 0);
	progflags[0] = ldflag;
	compile("usr/bin/frontend", "int frontend_capture(void);\nint main(void) { return frontend_capture(); }\n",
		progflags);
	w = decide("6.1");
	d = get(&w, "/usr/bin/frontend");
	ck_assert_ptr_null(d->rule);
	for (size_t i = 0; i < d->n_evidence; i++) {
		libc |= strstr(d->evidence[i].what, "libc.so") != NULL;
		if (strstr(d->evidence[i].what, "imports pcap_open_live through its library "
					     "libfrontend.so.1 (/usr/lib/libfrontend.so.1)")) {
			ck_assert_int_eq(d->evidence[i].strength, STRENGTH_MEDIUM);
			ck_assert_uint_eq(d->evidence[i].caps, S2C_CAPMASK(13)); /* cap_net_raw */
		}
	}
	ck_assert(fx_has_evidence(d, "through its library libfrontend.so.1"));
	ck_assert(!libc);
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_uint_eq(d->proposed, S2C_CAPMASK(13));
	world_free(&w);
	free(ldflag);
	free(lib);
}
END_TEST

/* Content read by the walk's workers decides exactly as content read afterwards. */
static struct decisions decide_scanned(bool during_walk, struct scan_result **ret_res)
{
	struct decisions ds;
	struct rules_db *db = NULL;
	struct scan_result *res = NULL;
	struct s2c_error err = { 0 };
	char *dir = NULL;
	const char *dirs[2];

	ck_assert_int_gt(asprintf(&dir, "%s/db", S2C_TEST_SRCDIR), 0);
	dirs[0] = dir;
	dirs[1] = NULL;
	ck_assert_msg(rules_db_load(dirs, 0, &db, &err) == 0, "%s", err.msg);
	free(dir);
	const struct binary_wants want = rules_db_wants(db);
	struct scan_options o = {
		.root = root,
		.threads = 3,
		.flags = during_walk ? SCAN_CONTENT : 0,
		.want = during_walk ? &want : NULL,
	};
	ck_assert_msg(scan_run(&o, &res, &err) == 0, "%s", err.msg);
	for (size_t i = 0; i < res->n; i++)
		ck_assert_msg(!res->v[i]->content == !during_walk, "%s", res->v[i]->path);
	ck_assert_msg(decide_all(db, res, &(struct decide_target){ .kernel = "6.1" }, &ds, &err) == 0, "%s", err.msg);
	ds.own_db = db;         /* freed with the decisions */
	for (size_t i = 0; i < res->n; i++)
		ck_assert_ptr_null(res->v[i]->content);
	*ret_res = res;
	return ds;
}

START_TEST(test_content_during_scan)
{
	static const char *const libcap[] = { "-lcap", NULL };

	compile("usr/bin/ping", prog_socket, NULL);
	compile("usr/bin/mnt", prog_mount, NULL);
	compile("usr/bin/aware", prog_rlimit_caps, libcap);
	compile("usr/bin/plain", prog_plain, NULL);
	compile("usr/bin/insists", prog_breaker, NULL);
	fx_file(root, "usr/bin/script", 04755, "#!/bin/sh\nexit 0\n");
	fx_file(root, "usr/bin/junk", 02755, "\177ELF broken");

	struct scan_result *ra, *rb;
	struct decisions a = decide_scanned(true, &ra), b = decide_scanned(false, &rb);

	ck_assert_uint_eq(a.n, 7);
	ck_assert_uint_eq(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		const struct decision *x = a.v[i], *y = b.v[i];

		ck_assert_str_eq(x->facts->path, y->facts->path);
		ck_assert_int_eq(x->verdict, y->verdict);
		ck_assert_pstr_eq(x->sha256, y->sha256);
		ck_assert_pstr_eq(x->elf_error, y->elf_error);
		ck_assert(!x->elf == !y->elf);
		ck_assert_pstr_eq(x->caps_text, y->caps_text);
		ck_assert_pstr_eq(x->breaker, y->breaker);
		ck_assert_uint_eq(x->n_warnings, y->n_warnings);
		ck_assert_uint_eq(x->n_evidence, y->n_evidence);
		for (size_t k = 0; k < x->n_evidence; k++)
			ck_assert_str_eq(x->evidence[k].what, y->evidence[k].what);
	}
	decisions_release(&a);
	decisions_release(&b);
	scan_result_free(ra);
	scan_result_free(rb);
}
END_TEST

/* Files that get the same sentences share them: one copy of each in the decisions' pool,
 * the breaker still one of the file's warnings, and a warning added after deciding is
 * the pool's too (decisions_release() frees each once; ASan checks). */
START_TEST(test_shared_sentences)
{
	compile("usr/bin/insists", prog_breaker, NULL);
	compile("usr/bin/insists2", prog_breaker, NULL);
	fx_file(root, "usr/bin/s1", 04755, "#!/bin/sh\nexit 0\n");
	fx_file(root, "usr/bin/s2", 04755, "#!/bin/sh\nexit 0\n");

	struct scan_result *res;
	struct decisions ds = decide_scanned(false, &res);
	struct decision *by[4] = { NULL };
	static const char *const names[4] = { "/usr/bin/insists", "/usr/bin/insists2",
					      "/usr/bin/s1", "/usr/bin/s2" };

	ck_assert_uint_eq(ds.n, 4);
	for (size_t i = 0; i < ds.n; i++)
		for (size_t k = 0; k < 4; k++)
			if (s2c_streq(ds.v[i]->facts->path, names[k]))
				by[k] = ds.v[i];
	for (size_t k = 0; k < 4; k++) {
		ck_assert_msg(by[k] && by[k]->shared, "%s", names[k]);
		ck_assert_ptr_nonnull(by[k]->reason);
	}
	/* the two copies of the program: one reason, one breaker, one evidence text each */
	ck_assert_ptr_eq(by[0]->reason, by[1]->reason);
	ck_assert_ptr_nonnull(by[0]->breaker);
	ck_assert_ptr_eq(by[0]->breaker, by[1]->breaker);
	bool found = false;
	for (size_t i = 0; i < by[0]->n_warnings; i++)
		found |= by[0]->warnings[i] == by[0]->breaker;
	ck_assert(found);
	ck_assert_uint_eq(by[0]->n_evidence, by[1]->n_evidence);
	for (size_t i = 0; i < by[0]->n_evidence; i++)
		ck_assert_ptr_eq(by[0]->evidence[i].what, by[1]->evidence[i].what);
	/* the two scripts: one reason, not the program's */
	ck_assert_ptr_eq(by[2]->reason, by[3]->reason);
	ck_assert_ptr_ne(by[2]->reason, by[0]->reason);
	/* a warning added after deciding: the pool's, so the text of another is that one */
	size_t n = by[2]->n_warnings;
	char *w = strdup(by[0]->reason);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(decision_add_warning(by[2], w, &ds.sentences), 0);
	ck_assert_uint_eq(by[2]->n_warnings, n + 1);
	ck_assert_ptr_eq(by[2]->warnings[n], by[0]->reason);
	ck_assert_ptr_null(by[2]->warnings[n + 1]);
	decisions_release(&ds);
	scan_result_free(res);
}
END_TEST

Suite *decide_priv_suite(void)
{
	Suite *s = suite_create("decide_priv");
	TCase *tc = tcase_create("decide_priv");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_evidence_verdicts);
	tcase_add_test(tc, test_rules_and_conditions);
	tcase_add_test(tc, test_existing_caps);
	tcase_add_test(tc, test_ties);
	tcase_add_test(tc, test_versions);
	tcase_add_test(tc, test_library_evidence);
	tcase_add_test(tc, test_content_during_scan);
	tcase_add_test(tc, test_shared_sentences);
	suite_add_tcase(s, tc);
	return s;
}
