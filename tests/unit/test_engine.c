/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decision engine on real ELF binaries compiled during the test, in an
 * image root, with the bundled rules database.
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

#include "binary.h"
#include "db.h"
#include "elfinfo.h"
#include "engine.h"
#include "error.h"
#include "facts.h"
#include "fixture.h"
#include "host.h"
#include "idmap.h"
#include "scan.h"
#include "suites.h"

static char *root;

struct world {
	struct rules_db *db;
	struct scan_result *res;
	struct host *host;
	struct idmap *ids;
	struct decision **v;
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

static struct world decide(const char *kernel)
{
	struct world w = { 0 };
	char *dir = NULL;
	const char *dirs[2];
	struct s2c_error err = { 0 };
	struct engine e;

	ck_assert_int_gt(asprintf(&dir, "%s/db", S2C_TEST_SRCDIR), 0);
	dirs[0] = dir;
	dirs[1] = NULL;
	ck_assert_msg(rules_db_load(dirs, 0, &w.db, &err) == 0, "%s", err.msg);
	free(dir);
	w.res = fx_scan(root, NULL, 0, 2, NULL);
	ck_assert_int_eq(host_new(w.res->rootfd, false, kernel, &w.host, &err), 0);
	ck_assert_int_eq(idmap_new(w.res->rootfd, &w.ids), 0);
	e = (struct engine){ .db = w.db, .host = w.host, .ids = w.ids, .rootfd = w.res->rootfd };
	ck_assert_int_eq(engine_prepare(&e, (const struct facts *const *)w.res->v, w.res->n), 0);
	w.v = calloc(w.res->n + 1, sizeof(*w.v));
	for (size_t i = 0; i < w.res->n; i++) {
		struct binary bin = { 0 };
		ck_assert_int_eq(binary_read(w.res->rootfd, w.res->v[i], w.db->caps.all_strings, &bin), 0);
		ck_assert_int_eq(engine_decide(&e, w.res->v[i], &bin, &w.v[i], &err), 0);
		binary_release(&bin);
	}
	return w;
}

static void world_free(struct world *w)
{
	for (size_t i = 0; w->res && i < w->res->n; i++)
		decision_free(w->v[i]);
	free(w->v);
	idmap_free(w->ids);
	host_free(w->host);
	scan_result_free(w->res);
	rules_db_free(w->db);
}

static const struct decision *get(const struct world *w, const char *path)
{
	for (size_t i = 0; i < w->res->n; i++)
		if (strcmp(w->res->v[i]->path, path) == 0)
			return w->v[i];
	ck_abort_msg("no decision for %s", path);
	return NULL;
}

static bool has_evidence(const struct decision *d, const char *what)
{
	for (size_t i = 0; i < d->n_evidence; i++)
		if (strstr(d->evidence[i].what, what))
			return true;
	return false;
}

static bool has_warning(const struct decision *d, const char *text)
{
	for (size_t i = 0; i < d->n_warnings; i++)
		if (strstr(d->warnings[i], text))
			return true;
	return false;
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
	ck_assert(has_evidence(d, "pcap_open_live"));
	ck_assert_int_eq(d->verdict, VERDICT_MIGRATE);
	ck_assert_str_eq(d->caps_text, "cap_net_raw=ep");        /* capability-dumb */
	ck_assert_int_eq(d->confidence, CONFIDENCE_HIGH);
	ck_assert_ptr_nonnull(d->elf);
	ck_assert_str_eq(d->elf->libs[0].path, "/usr/lib/x86_64-linux-gnu/libpcap.so.0.8");

	d = get(&w, "/opt/bin/mounter");    /* mount(2): cap_sys_admin, root-equivalent */
	ck_assert(has_evidence(d, "imports mount"));
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_ptr_nonnull(strstr(d->reason, "root-equivalent"));

	d = get(&w, "/opt/bin/limits");     /* weak setrlimit, aware through libcap */
	ck_assert(d->aware);
	ck_assert(has_evidence(d, "setrlimit"));
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_int_eq(d->confidence, CONFIDENCE_LOW);

	d = get(&w, "/opt/bin/rawsock");    /* socket alone proves nothing */
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert(!d->has_caps);

	d = get(&w, "/opt/bin/static");
	ck_assert(d->elf->is_static);
	ck_assert(has_evidence(d, "statically linked"));
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_int_eq(d->confidence, CONFIDENCE_LOW);

	d = get(&w, "/opt/bin/switcher");   /* su-like: must most likely stay setuid */
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_ptr_nonnull(strstr(d->reason, "cap_setuid"));

	d = get(&w, "/opt/bin/insists");
	ck_assert(has_warning(d, "must be setuid root"));

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
	ck_assert(has_warning(d, "interpreter"));
	world_free(&w);

	/* Fedora ships the helper with cap_sys_nice as well; a file that has fewer
	 * capabilities never gains one on its own: a person decides. */
	fx_write(root, "etc/os-release", "ID=fedora\n");
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

Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_evidence_verdicts);
	tcase_add_test(tc, test_rules_and_conditions);
	tcase_add_test(tc, test_existing_caps);
	suite_add_tcase(s, tc);
	return s;
}
