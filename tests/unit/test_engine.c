/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decision engine from facts built in memory: owner, mode, capabilities,
 * ELF imports and libraries, packages, sysctl values and files of the target,
 * with the bundled rules database.  No file of a target is read or made, so
 * the suite runs as any user (test_decide.c decides about real binaries).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <check.h>
#include <json-c/json.h>

#include "binary.h"
#include "db.h"
#include "decisionout.h"
#include "decisionrec.h"
#include "elfinfo.h"
#include "engine.h"
#include "error.h"
#include "factsjson.h"
#include "facts.h"
#include "fcaps.h"
#include "fixture.h"
#include "host.h"
#include "idmap.h"
#include "strpool.h"
#include "util.h"
#include "suites.h"

static struct rules_db *db;

static void setup(void)
{
	char *dir = NULL;
	const char *dirs[2] = { NULL, NULL };
	struct s2c_error err = { 0 };

	ck_assert_int_gt(asprintf(&dir, "%s/db", S2C_TEST_SRCDIR), 0);
	dirs[0] = dir;
	ck_assert_msg(rules_db_load(dirs, 0, &db, &err) == 0, "%s", err.msg);
	free(dir);
}

static void teardown(void)
{
	db = rules_db_free(db);
}

/* A privileged file as the scanner would describe it. */
static struct facts *mkfacts(const char *path, uint32_t uid, uint32_t mode, const char *caps)
{
	struct facts *f = calloc(1, sizeof(*f));

	ck_assert_ptr_nonnull(f);
	f->path = strdup(path);
	f->uid = uid;
	f->owner = strdup(uid == 0 ? "root" : "someone");
	f->group = strdup("root");
	f->mode = S_IFREG | mode;
	f->nlink = 1;
	if (caps) {
		f->has_caps = true;
		ck_assert_int_eq(fcaps_from_text(caps, &f->caps, NULL), 0);
		f->caps_text = fcaps_to_text(&f->caps);
		ck_assert_int_gt(fcaps_encode(&f->caps, f->caps_raw), 0);
		f->caps_len = (size_t)fcaps_encode(&f->caps, f->caps_raw);
	}
	facts_set_flags(f);
	return f;
}

/* A dynamically linked ELF executable importing @imports, needing @needed
 * (each "soname=path" when found beneath the root), both NULL-terminated. */
static struct elfinfo *mkelf(const char *const *imports, const char *const *needed)
{
	struct elfinfo *e = calloc(1, sizeof(*e));
	size_t n = 0;

	ck_assert_ptr_nonnull(e);
	e->kind = ELFINFO_ELF;
	e->elf_class = 64;
	e->machine_name = "x86_64";
	e->pie = true;
	e->interp = strdup("/lib64/ld-linux-x86-64.so.2");
	while (imports && imports[n])
		n++;
	e->imports = calloc(n + 1, sizeof(*e->imports));
	for (size_t i = 0; i < n; i++)        /* given sorted, as the reader sorts them */
		e->imports[i].name = strdup(imports[i]);
	e->n_imports = n;
	for (n = 0; needed && needed[n]; n++)
		;
	e->needed = calloc(n + 1, sizeof(char *));
	e->libs = calloc(n + 1, sizeof(*e->libs));
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(needed[i], '=');

		e->needed[i] = eq ? strndup(needed[i], (size_t)(eq - needed[i])) : strdup(needed[i]);
		e->libs[i].soname = strdup(e->needed[i]);
		e->libs[i].path = eq ? strdup(eq + 1) : NULL;
		e->links_libcap |= strncmp(e->needed[i], "libcap.so", 9) == 0;
	}
	e->n_needed = e->n_libs = n;
	return e;
}

/* The target: kernel @kernel, nothing else known until the test says so. */
struct target {
	struct host *host;
	struct idmap *ids;
};

static struct target mktarget(const char *kernel)
{
	struct target t = { 0 };

	ck_assert_int_eq(host_new_given(kernel, &t.host), 0);
	ck_assert_int_eq(idmap_new_given(&t.ids), 0);
	return t;
}

static void target_free(struct target *t)
{
	host_free(t->host);
	idmap_free(t->ids);
}

/* The engine's decision about @f with content @elf (taken over; NULL: a script). */
static struct decision *decide(struct target *t, const struct facts *f, struct elfinfo *elf)
{
	struct engine e = { .db = db, .host = t->host, .ids = t->ids, .rootfd = -1 };
	struct binary bin = { .sha256 = strdup("00"), .elf = elf };
	struct decision *d = NULL;
	struct s2c_error err = { 0 };

	if (!elf)
		bin.error = strdup("a script");
	ck_assert_int_eq(engine_prepare(&e, &f, 1), 0);
	ck_assert_int_eq(engine_decide(&e, f, &bin, &d, &err), 0);
	ck_assert_ptr_null(bin.elf);                  /* taken over */
	return d;
}

static const char *const libc[] = { "libc.so.6=/usr/lib/x86_64-linux-gnu/libc.so.6", NULL };

/* Without a rule, the imports propose; the owner decides what setuid means. */
START_TEST(test_evidence)
{
	static const char *const pcap_imports[] = { "pcap_open_live", NULL };
	static const char *const pcap_needed[] = {
		"libc.so.6=/usr/lib/x86_64-linux-gnu/libc.so.6",
		"libpcap.so.0.8=/usr/lib/x86_64-linux-gnu/libpcap.so.0.8", NULL };
	static const char *const mount_imports[] = { "mount", NULL };
	struct target t = mktarget("6.1");
	struct facts *sniffer = mkfacts("/opt/bin/sniffer", 0, 04755, NULL);
	struct facts *user = mkfacts("/opt/bin/sniffer", 1000, 04755, NULL);
	struct facts *mounter = mkfacts("/opt/bin/mounter", 0, 04755, NULL);
	struct decision *d;

	d = decide(&t, sniffer, mkelf(pcap_imports, pcap_needed));
	ck_assert(fx_has_evidence(d, "pcap_open_live"));
	ck_assert_int_eq(d->verdict, VERDICT_MIGRATE);
	ck_assert_str_eq(d->caps_text, "cap_net_raw=ep");      /* capability-dumb */
	ck_assert_int_eq(d->confidence, CONFIDENCE_HIGH);
	ck_assert_uint_eq(d->mode, 0755);
	ck_assert(d->changes);
	decision_free(d);

	/* The same program set-user-ID to someone else holds no capability to keep. */
	d = decide(&t, user, mkelf(pcap_imports, pcap_needed));
	ck_assert_ptr_nonnull(strstr(d->reason, "not root"));
	ck_assert_ptr_null(d->caps_text);
	decision_free(d);

	d = decide(&t, mounter, mkelf(mount_imports, libc));   /* cap_sys_admin */
	ck_assert(fx_has_evidence(d, "imports mount"));
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_ptr_nonnull(strstr(d->reason, "root-equivalent"));
	decision_free(d);
	facts_free(sniffer);
	facts_free(user);
	facts_free(mounter);
	target_free(&t);
}
END_TEST

/* Generic facts decide before any rule: a script's bit, a nosuid mount. */
START_TEST(test_generic)
{
	struct target t = mktarget("6.1");
	struct facts *script = mkfacts("/usr/bin/ping", 0, 04755, NULL);
	struct facts *nosuid = mkfacts("/opt/bin/tool", 0, 04755, NULL);
	struct decision *d;

	script->interpreter = strdup("/bin/sh");
	facts_set_flags(script);
	d = decide(&t, script, NULL);
	ck_assert_int_eq(d->verdict, VERDICT_DROP);
	ck_assert_ptr_null(d->rule);                   /* the ping rule is not asked */
	ck_assert_uint_eq(d->mode, 0755);
	decision_free(d);

	nosuid->mount.nosuid = true;
	facts_set_flags(nosuid);
	d = decide(&t, nosuid, mkelf(NULL, libc));
	ck_assert_ptr_nonnull(strstr(d->reason, "nosuid"));
	decision_free(d);
	facts_free(script);
	facts_free(nosuid);
	target_free(&t);
}
END_TEST

/* A rule's conditions on the target: kernel, a sysctl given or unknown, the package. */
START_TEST(test_conditions)
{
	static const char *const cap_needed[] = {
		"libcap.so.2=/usr/lib/x86_64-linux-gnu/libcap.so.2",
		"libc.so.6=/usr/lib/x86_64-linux-gnu/libc.so.6", NULL };
	struct facts *ping = mkfacts("/usr/bin/ping", 0, 04755, NULL);
	struct target t = mktarget("6.1");
	struct decision *d;

	ck_assert_int_eq(host_set_package(t.host, "/usr/bin/ping", "iputils-ping", "3:20240905-3"), 0);
	ck_assert_int_eq(host_set_sysctl(t.host, "net.ipv4.ping_group_range", "1 0"), 0);
	d = decide(&t, ping, mkelf(NULL, cap_needed));
	ck_assert_str_eq(d->rule->id, "iputils.ping");
	ck_assert_str_eq(d->package, "iputils-ping");
	ck_assert_int_eq(d->verdict, VERDICT_MIGRATE);
	ck_assert_str_eq(d->caps_text, "cap_net_raw=p");     /* capability-aware */
	ck_assert_uint_eq(d->n_conditions, 2);
	ck_assert_int_eq(d->conditions[0].holds, 0);
	ck_assert_int_eq(d->conditions[1].holds, 0);
	decision_free(d);

	/* ICMP datagram sockets open to everyone: ping needs nothing. */
	ck_assert_int_eq(host_set_sysctl(t.host, "net.ipv4.ping_group_range", "0 2147483647"), 0);
	d = decide(&t, ping, mkelf(NULL, cap_needed));
	ck_assert_int_eq(d->verdict, VERDICT_DROP);
	ck_assert(d->conditions[0].chosen);
	decision_free(d);
	target_free(&t);

	/* Nothing said about the sysctl: unknown, never read; before 5.17 -m needs more. */
	t = mktarget("5.10");
	ck_assert_int_eq(host_set_package(t.host, "/usr/bin/ping", "iputils-ping", NULL), 0);
	d = decide(&t, ping, mkelf(NULL, cap_needed));
	ck_assert_int_eq(d->conditions[0].holds, -1);
	ck_assert_ptr_nonnull(strstr(d->conditions[0].text, "is unknown"));
	ck_assert_str_eq(d->caps_text, "cap_net_admin,cap_net_raw=p");
	ck_assert(d->conditions[1].chosen);
	decision_free(d);
	facts_free(ping);
	target_free(&t);
}
END_TEST

/* Capabilities a file has: recognised as done, or a root-equivalent interpreter. */
START_TEST(test_existing_caps)
{
	const char *gst = "/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-ptp-helper";
	struct facts *helper = mkfacts(gst, 0, 0755, "cap_net_bind_service,cap_net_admin+ep");
	struct facts *python = mkfacts("/usr/bin/python3.11", 0, 0755, "cap_setuid+ep");
	struct target t = mktarget("6.1");
	struct decision *d;

	d = decide(&t, helper, mkelf(NULL, libc));
	ck_assert_str_eq(d->rule->id, "gstreamer.gst-ptp-helper");
	ck_assert_int_eq(d->verdict, VERDICT_MIGRATE);
	ck_assert(!d->changes);
	decision_free(d);

	/* From GStreamer 1.24 the helper has cap_sys_nice too; a file never gains one. */
	ck_assert_int_eq(host_set_package(t.host, gst, "libgstreamer1.0-0", "1.26.2-2"), 0);
	d = decide(&t, helper, mkelf(NULL, libc));
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_ptr_nonnull(strstr(d->reason, "would gain cap_sys_nice"));
	ck_assert(!d->changes);
	decision_free(d);

	d = decide(&t, python, mkelf(NULL, libc));
	ck_assert_int_eq(d->verdict, VERDICT_REVIEW);
	ck_assert_int_eq(d->risk_now, RISK_ROOT);
	ck_assert(fx_has_warning(d, "interpreter"));
	decision_free(d);
	facts_free(helper);
	facts_free(python);
	target_free(&t);
}
END_TEST

/* The group a rule asks for, as the target names it; a missing one is said. */
START_TEST(test_owner_names)
{
	struct facts *dumpcap = mkfacts("/usr/bin/dumpcap", 0, 04754, NULL);
	struct target t = mktarget("6.1");
	struct decision *d;

	d = decide(&t, dumpcap, mkelf(NULL, libc));
	ck_assert_str_eq(d->rule->id, "wireshark.dumpcap");
	ck_assert(fx_has_warning(d, "'wireshark' of the rule does not exist on the target"));
	ck_assert_uint_eq(d->gid, 0);
	decision_free(d);

	/* Debian's root:wireshark 4754 becomes the group's capabilities. */
	ck_assert_int_eq(idmap_add(t.ids, false, 142, "wireshark"), 0);
	dumpcap->gid = 142;
	free(dumpcap->group);
	dumpcap->group = strdup("wireshark");
	d = decide(&t, dumpcap, mkelf(NULL, libc));
	ck_assert_msg(d->verdict == VERDICT_MIGRATE, "%s", d->reason);
	ck_assert_str_eq(d->caps_text, "cap_net_admin,cap_net_raw=ep");
	ck_assert_uint_eq(d->mode, 0750);
	ck_assert_uint_eq(d->gid, 142);
	ck_assert_str_eq(d->group_after, "wireshark");
	decision_free(d);
	facts_free(dumpcap);
	target_free(&t);
}
END_TEST

/* What the reports make of @d: its JSON object, its facts' and its explanation. */
static char *rendered(const struct decision *d)
{
	struct json_object *o = decisionout_json(d), *fo = factsjson_new(d->facts);
	char *text = NULL, *all = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(fo);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(decisionout_explain(d, false, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_gt(asprintf(&all, "%s\n%s\n%s",
				  json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY),
				  json_object_to_json_string_ext(fo, JSON_C_TO_STRING_PRETTY), text), 0);
	json_object_put(o);
	json_object_put(fo);
	free(text);
	return all;
}

/* @d kept as bytes and read back: the reports say the same, the bytes are the same again, and
 * every shorter or damaged copy of them is refused, not read. */
static void round_trip(const struct decision *d)
{
	char *want = rendered(d), *got;
	void *p = NULL, *q = NULL;
	size_t len = 0, len2 = 0;
	struct decision_rec r = { 0 };

	ck_assert_int_eq(decisionrec_pack(d, &p, &len), 0);
	ck_assert_int_eq(decisionrec_unpack(p, len, &r), 0);
	got = rendered(r.d);
	if (strcmp(got, want) != 0) {
		size_t k = 0;
		while (got[k] == want[k])
			k++;
		ck_abort_msg("%s: read back differs at byte %zu: \"%.60s\" instead of \"%.60s\"",
			     d->facts->path, k, got + k, want + k);
	}
	ck_assert_ptr_eq(r.d->facts, r.f);
	ck_assert_int_eq(decisionrec_pack(r.d, &q, &len2), 0);
	ck_assert_uint_eq(len2, len);
	ck_assert(memcmp(p, q, len) == 0);
	decisionrec_release(&r);
	ck_assert_ptr_null(r.d);
	for (size_t n = 0; n < len; n++) {
		ck_assert_int_eq(decisionrec_unpack(p, n, &r), -EBADMSG);
		ck_assert_ptr_null(r.d);
	}
	((unsigned char *)p)[0] ^= 1;
	ck_assert_int_eq(decisionrec_unpack(p, len, &r), -EBADMSG);
	free(p);
	free(q);
	free(got);
	free(want);
}

START_TEST(test_record_round_trip)
{
	static const char *const pcap_imports[] = { "pcap_open_live", NULL };
	static const char *const pcap_needed[] = {
		"libc.so.6=/usr/lib/x86_64-linux-gnu/libc.so.6",
		"libpcap.so.0.8=/usr/lib/x86_64-linux-gnu/libpcap.so.0.8", NULL };
	static const char *const mount_imports[] = { "mount", NULL };
	static const char *const cap_needed[] = {
		"libcap.so.2=/usr/lib/x86_64-linux-gnu/libcap.so.2",
		"libc.so.6=/usr/lib/x86_64-linux-gnu/libc.so.6", NULL };
	struct facts *f[] = {
		mkfacts("/opt/bin/sniffer", 0, 04755, NULL),
		mkfacts("/opt/bin/mounter", 0, 04755, NULL),
		mkfacts("/usr/bin/ping", 0, 04755, NULL),
		mkfacts("/usr/bin/python3.11", 0, 0755, "cap_setuid+ep"),
		mkfacts("/usr/bin/odd\nname \xff", 1000, 06750, NULL),
	};
	struct target t = mktarget("5.10");
	struct strpool pool = { 0 };

	ck_assert_int_eq(host_set_package(t.host, "/usr/bin/ping", "iputils-ping", "3:20240905-3"), 0);
	f[4]->interpreter = strdup("/bin/sh");
	f[4]->mount.fstype = strdup("ext4");
	f[4]->mount.target = strdup("/");
	f[4]->mount.nosuid = true;
	f[4]->caps_error = strdup("a malformed attribute");
	f[4]->caps_len = 3;
	memcpy(f[4]->caps_raw, "\x01\x00\x02", 3);
	f[4]->nlink = 2;
	f[4]->ino = 1234567890123ULL;
	f[4]->mtime_sec = -5;
	facts_set_flags(f[4]);
	for (size_t i = 0; i < S2C_ELEMENTSOF(f); i++) {
		struct elfinfo *e = i == 0 ? mkelf(pcap_imports, pcap_needed) :
				    i == 1 ? mkelf(mount_imports, libc) :
				    i == 2 ? mkelf(NULL, cap_needed) :
				    i == 3 ? mkelf(NULL, libc) : NULL;
		struct decision *d = decide(&t, f[i], e);

		if (e)
			d->elf->rpath = strdup("$ORIGIN/../lib");
		round_trip(d);
		/* as decide_all() keeps them: the sentences in a pool */
		ck_assert_int_eq(decision_share(d, &pool), 0);
		round_trip(d);
		decision_free(d);
		facts_free(f[i]);
	}
	strpool_release(&pool);
	target_free(&t);
}
END_TEST

Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_evidence);
	tcase_add_test(tc, test_generic);
	tcase_add_test(tc, test_conditions);
	tcase_add_test(tc, test_existing_caps);
	tcase_add_test(tc, test_owner_names);
	tcase_add_test(tc, test_record_round_trip);
	suite_add_tcase(s, tc);
	return s;
}
