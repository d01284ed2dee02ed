/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The write-ahead journal, the state file and the file operations of apply. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <check.h>

#include "error.h"
#include "fcaps.h"
#include "fileop.h"
#include "fixture.h"
#include "hash.h"
#include "journal.h"
#include "state.h"
#include "suites.h"

static char *root;
static int dirfd_ = -1;

static void setup(void)
{
	root = fx_tempdir();
	dirfd_ = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dirfd_, 0);
}

static void teardown(void)
{
	close(dirfd_);
	fx_rmrf(root);
	free(root);
}

static struct file_state st(uint32_t mode, const char *caps)
{
	struct file_state s = { .uid = 0, .gid = 0, .mode = mode };
	struct fcaps c;

	if (caps) {
		ck_assert_int_eq(fcaps_from_text(caps, &c, NULL), 0);
		filestate_set_caps(&s, &c);
	}
	return s;
}

static char *read_file(const char *name, size_t *len)
{
	char *path = fx_path(root, name), *buf;
	FILE *f = fopen(path, "r");
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), n);
	fclose(f);
	free(path);
	*len = (size_t)n;
	return buf;
}

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static struct file_id idof(uint64_t ino, struct file_state s)
{
	struct file_id id = { .dev_major = 254, .dev_minor = 0, .ino = ino, .state = s };

	memcpy(id.sha256, SHA_A, sizeof(id.sha256));
	return id;
}

START_TEST(test_roundtrip)
{
	struct journal *j = NULL, *k = NULL;
	struct file_state b = st(04755, NULL), a = st(0755, "cap_net_raw=p");
	struct s2c_error err = { 0 };
	unsigned seq = 0, seq2 = 0;
	struct file_id id1 = idof(42, b), id2 = idof(43, b);
	char *latest = NULL;
	struct stat s;

	ck_assert_int_eq(journal_create(dirfd_, NULL, "/", "abc", JOURNAL_ROOT_EQUIVALENT, &j, &err),
			 0);
	ck_assert_int_eq(fstatat(dirfd_, j->name, &s, 0), 0);
	ck_assert_uint_eq(s.st_mode & 07777, 0600);
	ck_assert_int_eq(journal_intent(j, "/usr/bin/ping", "iputils.ping", &id1, &a, &seq, &err), 0);
	ck_assert_uint_eq(seq, 1);
	ck_assert_int_eq(journal_done(j, seq, JOURNAL_APPLIED, NULL, SHA_B, &err), 0);
	ck_assert_int_eq(journal_intent(j, "/odd/new\nline\xff", NULL, &id2, &a, &seq2, &err), 0);
	ck_assert_int_eq(journal_end(j, &err), 0);
	latest = strdup(j->name);
	ck_assert_int_eq(journal_open(dirfd_, NULL, latest, false, true, &k, &err), 0);
	ck_assert_uint_eq(k->n, 2);
	ck_assert_uint_eq(k->version, 3);
	ck_assert_int_eq(k->flags, JOURNAL_ROOT_EQUIVALENT);
	ck_assert_str_eq(k->v[0].rule_id, "iputils.ping");
	ck_assert_ptr_null(k->v[1].rule_id);
	ck_assert_str_eq(k->root, "/");
	ck_assert_str_eq(k->plan_sha256, "abc");
	ck_assert_str_eq(k->v[0].path, "/usr/bin/ping");
	ck_assert_str_eq(k->v[0].before.sha256, SHA_A);
	ck_assert_str_eq(k->v[0].sha256_after, SHA_B);
	ck_assert_str_eq(k->v[1].sha256_after, "");
	ck_assert_int_eq(k->v[0].outcome, JOURNAL_APPLIED);
	ck_assert(filestate_equal(&k->v[0].before.state, &b));
	ck_assert(filestate_equal(&k->v[0].after, &a));
	ck_assert_str_eq(k->v[1].path, "/odd/new\nline\xff");   /* exact bytes back */
	ck_assert_int_eq(k->v[1].outcome, JOURNAL_PENDING);
	ck_assert(k->ended);
	/* undo records may follow the end */
	ck_assert_int_eq(journal_undo(k, 1, false, &err), 0);
	ck_assert_int_eq(journal_undo(k, 1, true, &err), 0);
	journal_free(k);
	ck_assert_int_eq(journal_open(dirfd_, NULL, latest, false, false, &k, &err), 0);
	ck_assert(k->v[0].undone);
	journal_free(k);
	journal_free(j);
	free(latest);
}
END_TEST

START_TEST(test_damage)
{
	struct journal *j = NULL, *k = NULL;
	struct file_state b = st(04755, NULL), a = st(0755, "cap_net_raw=p");
	struct s2c_error err = { 0 };
	unsigned seq;
	struct file_id id = idof(42, b);
	char *text, *name;
	size_t len;
	int fd;

	ck_assert_int_eq(journal_create(dirfd_, NULL, "/", "abc", 0, &j, &err), 0);
	ck_assert_int_eq(journal_intent(j, "/usr/bin/ping", NULL, &id, &a, &seq, &err), 0);
	name = strdup(j->name);
	journal_free(j);
	text = read_file(name, &len);

	/* a crash while appending leaves a partial line: ignored, and cut when reopened */
	fd = openat(dirfd_, name, O_WRONLY | O_APPEND);
	ck_assert_int_eq(write(fd, "{\"r\":\"done\",\"se", 15), 15);
	close(fd);
	ck_assert_int_eq(journal_open(dirfd_, NULL, name, false, true, &k, &err), 0);
	ck_assert(k->truncated);
	ck_assert_int_eq(journal_done(k, 1, JOURNAL_APPLIED, NULL, NULL, &err), 0);
	journal_free(k);
	ck_assert_int_eq(journal_open(dirfd_, NULL, name, false, false, &k, &err), 0);
	ck_assert(!k->truncated);
	ck_assert_int_eq(k->v[0].outcome, JOURNAL_APPLIED);
	journal_free(k);

	/* a damaged record is refused, naming the line */
	text[strlen(text) - 10] ^= 1;
	ck_assert_int_eq(journal_parse(text, len, "j", &k, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "j: line 2: checksum mismatch"));
	/* trust: a journal others can read is refused */
	ck_assert_int_eq(fchmodat(dirfd_, name, 0644, 0), 0);
	ck_assert_int_eq(journal_open(dirfd_, NULL, name, true, false, &k, &err), -EPERM);
	ck_assert_int_eq(journal_parse("", 0, "j", &k, &err), -EINVAL);
	ck_assert_int_eq(journal_parse("{}\n", 3, "j", &k, &err), -EINVAL);
	free(text);
	free(name);
}
END_TEST

/* One sealed journal line, as the writer makes it. */
static char *sealed(const char *json)
{
	char hex[HASH_HEX_LEN], *prefix = NULL, *line = NULL;

	ck_assert_int_gt(asprintf(&prefix, "%.*s,", (int)strlen(json) - 1, json), 0);
	ck_assert_int_eq(hash_mem_sha256(prefix, strlen(prefix), hex), 0);
	ck_assert_int_gt(asprintf(&line, "%s\"sum\":\"%s\"}\n", prefix, hex), 0);
	free(prefix);
	return line;
}

static int parse_lines(const char *const *lines, struct journal **ret, struct s2c_error *err)
{
	char *text = strdup("");
	int r;

	for (size_t i = 0; lines[i]; i++) {
		char *l = sealed(lines[i]), *t = NULL;
		ck_assert_int_gt(asprintf(&t, "%s%s", text, l), 0);
		free(text);
		free(l);
		text = t;
	}
	r = journal_parse(text, strlen(text), "j", ret, err);
	free(text);
	return r;
}

#define BEGIN1 "{\"r\":\"begin\",\"v\":1,\"root\":\"/\",\"plan\":\"p\",\"tool\":\"0\"}"
#define BEGIN2 "{\"r\":\"begin\",\"v\":2,\"root\":\"/\",\"plan\":\"p\",\"tool\":\"0\"," \
	"\"root_equivalent_accepted\":false}"
#define STATES "\"before\":{\"uid\":0,\"gid\":0,\"mode\":\"4755\",\"xattr\":null}," \
	"\"after\":{\"uid\":0,\"gid\":0,\"mode\":\"0755\",\"xattr\":null}}"
#define INTENT1 "{\"r\":\"intent\",\"seq\":1,\"path\":\"/usr/bin/ping\",\"dev\":\"8:1\",\"ino\":5," STATES
#define INTENT2 "{\"r\":\"intent\",\"seq\":1,\"path\":\"/usr/bin/ping\",\"dev\":\"8:1\",\"ino\":5," \
	"\"sha256\":\"" SHA_A "\"," STATES
#define BEGIN3 "{\"r\":\"begin\",\"v\":3,\"root\":\"/\",\"plan\":\"p\",\"tool\":\"0\"," \
	"\"root_equivalent_accepted\":false}"
#define INTENT3(rule) "{\"r\":\"intent\",\"seq\":1,\"path\":\"/usr/bin/ping\",\"dev\":\"8:1\"," \
	"\"ino\":5,\"sha256\":\"" SHA_A "\",\"rule\":" rule "," STATES

/* Journals of the first format still load (without content hashes); the
 * second format requires them; the third says which rule decided each change. */
START_TEST(test_versions)
{
	static const char *const v1[] = { BEGIN1, INTENT1, NULL };
	static const char *const v2[] = { BEGIN2, INTENT2, NULL };
	static const char *const v2_nosha[] = { BEGIN2, INTENT1, NULL };
	static const char *const v1_sha[] = { BEGIN1, INTENT2, NULL };
	static const char *const v2_badsha[] = { BEGIN2, "{\"r\":\"intent\",\"seq\":1,\"path\":\"/x\","
						 "\"dev\":\"8:1\",\"ino\":5,\"sha256\":\"ABC\"," STATES, NULL };
	static const char *const v3[] = { BEGIN3, INTENT3("\"iputils.ping\""), NULL };
	static const char *const v3_null[] = { BEGIN3, INTENT3("null"), NULL };
	static const char *const v3_norule[] = { BEGIN3, INTENT2, NULL };
	static const char *const v3_badrule[] = { BEGIN3, INTENT3("5"), NULL };
	static const char *const v2_rule[] = { BEGIN2, INTENT3("null"), NULL };
	static const char *const v4[] = { "{\"r\":\"begin\",\"v\":4,\"root\":\"/\",\"plan\":\"p\","
					  "\"tool\":\"0\",\"root_equivalent_accepted\":false}", NULL };
	struct s2c_error err = { 0 };
	struct journal *j = NULL;

	ck_assert_msg(parse_lines(v1, &j, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(j->version, 1);
	ck_assert_str_eq(j->v[0].before.sha256, "");
	journal_free(j);
	ck_assert_msg(parse_lines(v2, &j, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(j->version, 2);
	ck_assert_str_eq(j->v[0].before.sha256, SHA_A);
	journal_free(j);
	ck_assert_int_eq(parse_lines(v2_nosha, &j, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "missing key 'sha256'"));
	ck_assert_int_eq(parse_lines(v1_sha, &j, &err), -EINVAL);
	ck_assert_int_eq(parse_lines(v2_badsha, &j, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "bad sha256"));
	ck_assert_msg(parse_lines(v3, &j, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(j->version, 3);
	ck_assert_str_eq(j->v[0].rule_id, "iputils.ping");
	journal_free(j);
	ck_assert_msg(parse_lines(v3_null, &j, &err) == 0, "%s", err.msg);
	ck_assert_ptr_null(j->v[0].rule_id);
	journal_free(j);
	ck_assert_int_eq(parse_lines(v3_norule, &j, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "no 'rule' in a version 3 journal"));
	ck_assert_int_eq(parse_lines(v3_badrule, &j, &err), -EINVAL);
	ck_assert_int_eq(parse_lines(v2_rule, &j, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "'rule' in a version 2 journal"));
	ck_assert_int_eq(parse_lines(v4, &j, &err), -EINVAL);
}
END_TEST

/* A state's capability attribute that is not hex, not of a valid length or not a
 * capability attribute is refused, naming it; nothing that was not allocated is freed
 * (hex_decode() writes nothing when it fails). */
START_TEST(test_bad_xattr)
{
	static const char *const bad[] = { "abc", "zz", "", "00",
					   "0000000200000000000000000000000000000000000000000000" };
	struct s2c_error err = { 0 };
	struct journal *j = NULL;

	for (size_t i = 0; i < S2C_ELEMENTSOF(bad); i++) {
		char *intent = NULL;
		const char *lines[] = { BEGIN3, NULL, NULL };

		ck_assert_int_gt(asprintf(&intent, "{\"r\":\"intent\",\"seq\":1,\"path\":\"/x\","
					  "\"dev\":\"8:1\",\"ino\":5,\"sha256\":\"" SHA_A "\","
					  "\"rule\":null,\"before\":{\"uid\":0,\"gid\":0,\"mode\":"
					  "\"4755\",\"xattr\":\"%s\"},\"after\":{\"uid\":0,\"gid\":0,"
					  "\"mode\":\"0755\",\"xattr\":null}}", bad[i]), 0);
		lines[1] = intent;
		ck_assert_int_eq(parse_lines(lines, &j, &err), -EINVAL);
		ck_assert_msg(strstr(err.msg, "bad xattr"), "%s: %s", bad[i], err.msg);
		free(intent);
	}
}
END_TEST

START_TEST(test_state)
{
	struct state *s = NULL, *t = NULL;
	char ping[] = "/usr/bin/ping", arping[] = "/usr/bin/arping", rule[] = "iputils.ping",
	     jname[] = "j1";
	struct state_entry e = { .path = ping, .rule_id = rule,
				 .left = { .dev_major = 254, .ino = 7,
					   .state = st(0755, "cap_net_raw=p") },
				 .journal = jname };
	struct s2c_error err = { 0 };

	memset(e.left.sha256, 'a', 64);
	ck_assert_int_eq(state_load(dirfd_, NULL, "/", false, &s, &err), 0);   /* missing: empty */
	ck_assert_uint_eq(s->n, 0);
	ck_assert_int_eq(state_put(s, &e), 0);
	e.path = arping;
	ck_assert_int_eq(state_put(s, &e), 0);
	ck_assert_int_eq(state_put(s, &e), 0);                            /* replaces */
	ck_assert_uint_eq(s->n, 2);
	ck_assert_int_eq(state_save(dirfd_, NULL, s, &err), 0);
	ck_assert_int_eq(state_load(dirfd_, NULL, "/", false, &t, &err), 0);
	ck_assert_uint_eq(t->n, 2);
	ck_assert_str_eq(t->v[0].path, "/usr/bin/arping");                /* sorted */
	ck_assert(filestate_equal(&t->v[1].left.state, &e.left.state));
	ck_assert(!fileid_diff(&t->v[1].left, &e.left, FILEID_ALL));
	ck_assert(state_remove(t, "/usr/bin/arping"));
	ck_assert(!state_remove(t, "/usr/bin/arping"));
	ck_assert_uint_eq(t->n, 1);
	state_free(s);
	state_free(t);

	/* Many entries, put out of order, some again, some removed: each once, found, saved
	 * sorted. */
	ck_assert_int_eq(unlinkat(dirfd_, "state.json", 0), 0);
	ck_assert_int_eq(state_load(dirfd_, NULL, "/", false, &s, &err), 0);
	for (unsigned i = 0; i < 3000; i++) {
		char path[32];

		(void)snprintf(path, sizeof(path), "/p/%04u", (i * 7919) % 3000);
		e.path = path;
		ck_assert_int_eq(state_put(s, &e), 0);
		if (i % 3 == 0)
			ck_assert_int_eq(state_put(s, &e), 0);
	}
	ck_assert_uint_eq(s->n, 3000);
	for (unsigned i = 0; i < 3000; i += 2) {
		char path[32];

		(void)snprintf(path, sizeof(path), "/p/%04u", i);
		ck_assert(state_remove(s, path));
	}
	for (unsigned i = 0; i < 3000; i++) {
		char path[32];

		(void)snprintf(path, sizeof(path), "/p/%04u", i);
		ck_assert((state_find(s, path) != NULL) == (i % 2 == 1));
	}
	ck_assert_int_eq(state_save(dirfd_, NULL, s, &err), 0);
	ck_assert_int_eq(state_load(dirfd_, NULL, "/", false, &t, &err), 0);
	ck_assert_uint_eq(t->n, 1500);
	for (size_t i = 0; i < t->n; i++) {
		char path[32];

		(void)snprintf(path, sizeof(path), "/p/%04zu", 2 * i + 1);
		ck_assert_str_eq(t->v[i].path, path);
		ck_assert_ptr_eq(state_find(t, path), &t->v[i]);
		ck_assert_str_eq(s->v[i].path, path);            /* the saved state sorted too */
	}
	e.path = ping;
	state_free(s);
	state_free(t);
	ck_assert_int_eq(state_parse("{\"schema\": 1, \"kind\": \"x\", \"root\": \"/\", \"entries\": []}", 54,
				     "state.json", &s, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a suid2cap state file"));
}
END_TEST

/* The one comparison of states, at its three levels. */
START_TEST(test_match)
{
	struct file_state v2 = st(0755, "cap_net_raw=ep"), v3 = v2, foreign, malformed, none;
	struct fcaps c;

	ck_assert_int_eq(fcaps_from_text("cap_net_raw=ep", &c, NULL), 0);
	c.has_rootid = true;                    /* v3, root id 0: what libcap writes in a userns */
	filestate_set_caps(&v3, &c);
	ck_assert_uint_eq(v3.xattr_len, 24);
	ck_assert(!filestate_match(&v2, &v3, FILESTATE_EXACT));
	ck_assert(filestate_match(&v2, &v3, FILESTATE_GRANTS));
	ck_assert(filestate_match(&v2, &v3, FILESTATE_SHOWN));
	foreign = v3;
	c.rootid = 1000;                        /* bound to another user namespace */
	filestate_set_caps(&foreign, &c);
	ck_assert(!filestate_match(&v2, &foreign, FILESTATE_GRANTS));
	ck_assert(filestate_match(&v2, &foreign, FILESTATE_SHOWN));
	none = st(0755, NULL);
	malformed = none;
	malformed.has_xattr = true;
	malformed.xattr_len = 3;
	memcpy(malformed.xattr, "\x01\x02\x03", 3);
	ck_assert(!filestate_match(&none, &malformed, FILESTATE_GRANTS));
	ck_assert(filestate_match(&none, &malformed, FILESTATE_SHOWN));
	ck_assert(filestate_match(&malformed, &malformed, FILESTATE_EXACT));
	ck_assert(!filestate_match(&v2, &none, FILESTATE_SHOWN));
	none.mode = 04755;                      /* owner, group and mode always count */
	ck_assert(!filestate_match(&none, &malformed, FILESTATE_SHOWN));
}
END_TEST

/* What a file is now against what a change left: the comparison verify and rollback share. */
START_TEST(test_left)
{
	struct file_id left = { .dev_major = 8, .ino = 12, .state = st(0755, "cap_net_raw=ep") };
	struct file_id now = left;
	char what[256];

	memset(left.sha256, 'a', HASH_HEX_LEN - 1);
	now = left;
	ck_assert_int_eq(fileid_left(&left, &now), FILEID_AS_LEFT);
	now.ino = 13;
	ck_assert_int_eq(fileid_left(&left, &now), FILEID_REPLACED);
	now.ino = 12;
	now.sha256[0] = 'b';
	ck_assert_int_eq(fileid_left(&left, &now), FILEID_REWRITTEN);
	now.sha256[0] = '\0';
	ck_assert_int_eq(fileid_left(&left, &now), FILEID_REWRITTEN);   /* nothing to compare */
	now = left;
	now.state = st(0755, NULL);
	ck_assert_int_eq(fileid_left(&left, &now), FILEID_RESTATED);
	filestate_change(&left.state, &now.state, what, sizeof(what));
	ck_assert_str_eq(what, "its capabilities are gone");
	now.state = st(04750, "cap_net_raw,cap_net_admin=ep");
	now.state.uid = 10;
	filestate_change(&left.state, &now.state, what, sizeof(what));
	ck_assert_str_eq(what, "the set-ID bit is back (mode 4750); its owner changed (10, was 0); "
			 "its capabilities are different (cap_net_admin,cap_net_raw=ep, was "
			 "cap_net_raw=ep)");
	now.state = st(0700, "cap_net_raw=ep");
	now.state.gid = 60;
	filestate_change(&left.state, &now.state, what, sizeof(what));
	ck_assert_str_eq(what, "its mode is narrower (0700, was 0755); its group changed (60, was 0)");
	filestate_change(&now.state, &left.state, what, 40);
	ck_assert_str_eq(what, "its mode is wider (0755, was 0700); its");
	filestate_change(&left.state, &left.state, what, sizeof(what));
	ck_assert_str_eq(what, "");
}
END_TEST

/* --- privileged: real files ------------------------------------------------------------ */

START_TEST(test_fileop_order)
{
	struct file_state before, want = st(0755, "cap_net_raw=p"), got;
	struct s2c_error err = { 0 };
	struct stat sb;
	int fd;

	fx_file(root, "usr/bin/ping", 04755, "\177ELF");
	fd = fileop_open(dirfd_, "/usr/bin/ping", &sb, &err);
	ck_assert_msg(fd >= 0, "%s", err.msg);
	ck_assert_int_eq(filestate_read(fd, &before), 0);
	ck_assert_uint_eq(before.mode, 04755);
	ck_assert(!before.has_xattr);
	/* with an owner change: chown first (it clears caps), caps, then the mode */
	want.gid = 1;
	ck_assert_msg(fileop_write(fd, &before, &want, false, NULL, NULL, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(filestate_read(fd, &got), 0);
	ck_assert(filestate_equal(&got, &want));
	/* exact restore of the previous state, set-ID bit included */
	ck_assert_int_eq(fileop_write(fd, &got, &before, true, NULL, NULL, &err), 0);
	ck_assert_int_eq(filestate_read(fd, &got), 0);
	ck_assert(filestate_equal(&got, &before));
	close(fd);
}
END_TEST

struct stops {
	int fd;
	struct file_state v[FILEOP_STOPS_MAX];
	size_t n, seen;
};

/* A step of fileop_write(): the file must be in one of the states fileop_stops() lists. */
static void check_stop(void *userdata, const char *step)
{
	struct stops *s = userdata;
	struct file_state now;
	char buf[128];
	bool found = false;

	ck_assert_int_eq(filestate_read(s->fd, &now), 0);
	for (size_t i = 0; i < s->n; i++)
		found |= filestate_same(&now, &s->v[i]);
	filestate_describe(&now, buf, sizeof(buf));
	ck_assert_msg(found, "after %s the file is '%s', which fileop_stops() does not list", step,
		      buf);
	s->seen++;
}

/* fileop_stops() lists every state fileop_write() stops at, chown and both orders included. */
START_TEST(test_fileop_stops)
{
	static const struct { uint32_t mode, gid; const char *caps; } states[] = {
		{ 04755, 0, NULL }, { 0755, 0, "cap_net_raw=p" }, { 0755, 1, "cap_net_raw=ep" },
		{ 02755, 60, NULL }, { 02710, 1, NULL }, { 0710, 0, "cap_sys_nice=ep" },
		{ 06755, 0, NULL },
	};
	struct s2c_error err = { 0 };
	struct file_state from, want, got;
	struct stops s = { 0 };

	fx_file(root, "usr/bin/ping", 04755, "\177ELF");
	s.fd = fileop_open(dirfd_, "/usr/bin/ping", NULL, &err);
	ck_assert_msg(s.fd >= 0, "%s", err.msg);
	for (size_t i = 0; i < S2C_ELEMENTSOF(states); i++) {
		for (size_t k = 0; k < S2C_ELEMENTSOF(states); k++) {
			if (i == k)
				continue;
			from = st(states[i].mode, states[i].caps);
			from.gid = states[i].gid;
			want = st(states[k].mode, states[k].caps);
			want.gid = states[k].gid;
			ck_assert_int_eq(filestate_read(s.fd, &got), 0);
			ck_assert_int_eq(fileop_write(s.fd, &got, &from, true, NULL, NULL, &err), 0);
			s.n = fileop_stops(&from, &want, s.v);
			ck_assert_uint_le(s.n, FILEOP_STOPS_MAX);
			/* apply's way (libcap) and rollback's (exact bytes) */
			ck_assert_int_eq(fileop_write(s.fd, &from, &want, k % 2, check_stop, &s, &err),
					 0);
		}
	}
	ck_assert_uint_ge(s.seen, 2 * 7 * 6);
	close(s.fd);
}
END_TEST

START_TEST(test_fileop_refuses)
{
	struct s2c_error err = { 0 };
	char *p;

	fx_file(root, "real/bin/ping", 04755, "x");
	fx_symlink(root, "usr", "real");
	fx_symlink(root, "real/bin/link", "ping");
	ck_assert_int_eq(fileop_open(dirfd_, "/usr/bin/ping", NULL, &err), -ELOOP);
	ck_assert_int_eq(fileop_open(dirfd_, "/real/bin/link", NULL, &err), -ELOOP);
	p = fx_path(root, "real/bin");
	ck_assert_int_eq(chmod(p, 0775), 0);
	ck_assert_int_eq(fileop_open(dirfd_, "/real/bin/ping", NULL, &err), -EPERM);
	ck_assert_ptr_nonnull(strstr(err.msg, "writable by group or others"));
	ck_assert_int_eq(chmod(p, 0755), 0);
	ck_assert_int_eq(chown(p, 1, 0), 0);
	ck_assert_int_eq(fileop_open(dirfd_, "/real/bin/ping", NULL, &err), -EPERM);
	ck_assert_ptr_nonnull(strstr(err.msg, "not owned by root"));
	free(p);
}
END_TEST

Suite *journal_suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("journal");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_damage);
	tcase_add_test(tc, test_versions);
	tcase_add_test(tc, test_bad_xattr);
	tcase_add_test(tc, test_state);
	tcase_add_test(tc, test_match);
	tcase_add_test(tc, test_left);
	suite_add_tcase(s, tc);
	return s;
}

Suite *fileop_suite(void)
{
	Suite *s = suite_create("fileop");
	TCase *tc = tcase_create("fileop");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fileop_order);
	tcase_add_test(tc, test_fileop_stops);
	tcase_add_test(tc, test_fileop_refuses);
	suite_add_tcase(s, tc);
	return s;
}
