/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "fcaps.h"
#include "jsonout.h"
#include "jsonread.h"
#include "observed.h"
#include "record.h"
#include "statedir.h"
#include "util.h"
#include "common.h"

/* --- the directory ------------------------------------------------------------------------ */

int learn_dir_open(int rootfd, const char *root, bool create, bool trusted, int *ret_fd,
		   struct s2c_error *err)
{
	_cleanup_close_ int sfd = -1;
	int r = statedir_open(rootfd, root, create, trusted, &sfd, err);

	if (r < 0)
		return r;
	return statedir_open_sub(sfd, root, LEARN_RECORD_DIR, "learn record directory", create,
				 trusted, ret_fd, err);
}

/* --- writing --------------------------------------------------------------------------------- */

static int write_all(int fd, const char *text, size_t len)
{
	while (len) {
		ssize_t n = write(fd, text, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

int learn_record_save(int dirfd, const struct learn_record *r, char **ret_name,
		      struct s2c_error *err)
{
	_cleanup_jsonput_ struct json_object *doc = learn_record_json(r);
	_cleanup_free_ char *name = NULL;
	char tmp[128];
	const char *text;
	int fd, e;

	if (!doc)
		return -ENOMEM;
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text || asprintf(&name, "%s.json", r->sha256) < 0)
		return -ENOMEM;
	(void)snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", r->sha256, (int)getpid());
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return s2c_error_errno(err, -errno, "cannot create '%s'", tmp);
	e = write_all(fd, text, strlen(text));
	if (e == 0)
		e = write_all(fd, "\n", 1);
	if (e == 0 && fsync(fd) < 0)
		e = -errno;
	if (close(fd) < 0 && e == 0)
		e = -errno;
	if (e == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		e = -errno;
	if (e < 0) {
		(void)unlinkat(dirfd, tmp, 0);
		return s2c_error_errno(err, e, "cannot write the learn record '%s'", name);
	}
	if (fsync(dirfd) < 0)
		return s2c_error_errno(err, -errno, "cannot sync the learn records' directory");
	if (ret_name)
		*ret_name = TAKE_PTR(name);
	return 0;
}

/* --- reading --------------------------------------------------------------------------------- */

static void learn_record_freep(struct learn_record **r)
{
	learn_record_free(*r);
}

static bool is_null(struct json_object *o, const char *key)
{
	return json_object_is_type(json_object_object_get(o, key), json_type_null);
}

/* A string that may be null; *ret stays NULL for null. */
static int opt_string(struct json_object *o, const struct jpath *p, const char *key, char **ret,
		      struct s2c_error *err)
{
	const char *s = NULL;
	int r;

	*ret = NULL;
	if (is_null(o, key))
		return 0;
	r = jsonread_string(o, p, key, true, &s, err);
	if (r < 0)
		return r;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

/* A string with its optional "<key>_hex" holding the exact bytes. */
static int exact_string(struct json_object *o, const struct jpath *p, const char *key, char **ret,
			struct s2c_error *err)
{
	char hexkey[64];
	const char *s = NULL, *hex = NULL;
	size_t len;
	int r;

	(void)snprintf(hexkey, sizeof(hexkey), "%s_hex", key);
	r = jsonread_string(o, p, key, true, &s, err);
	if (r == 0)
		r = jsonread_string(o, p, hexkey, false, &hex, err);
	if (r < 0)
		return r;
	if (!hex) {
		*ret = strdup(s);
		return *ret ? 0 : -ENOMEM;
	}
	if (hex_decode(hex, ret, &len) < 0 || strlen(*ret) != len)
		return jpath_error(p, err, "bad %s", hexkey);
	return 0;
}

/* "cap_a,cap_b" or null. */
static int read_mask(struct json_object *o, const struct jpath *p, const char *key, bool nullable,
		     uint64_t *ret, struct s2c_error *err)
{
	struct jpath kp = jpath_key(p, key);
	const char *s = NULL;
	uint64_t mask = 0;
	int r;

	if (nullable && is_null(o, key)) {
		*ret = 0;
		return 0;
	}
	r = jsonread_string(o, p, key, true, &s, err);
	if (r < 0)
		return r;
	for (const char *q = s; *q;) {
		size_t len = strcspn(q, ",");
		char name[64];
		int c;

		if (len == 0 || len >= sizeof(name))
			return jpath_error(&kp, err, "malformed capability list '%s'", s);
		memcpy(name, q, len);
		name[len] = '\0';
		c = fcaps_from_name(name);
		if (c < 0 || strncmp(name, "cap_", 4) != 0)
			return jpath_error(&kp, err, "unknown capability '%s'", name);
		mask |= S2C_CAPMASK(c);
		q += len + (q[len] == ',');
	}
	if (!mask)
		return jpath_error(&kp, err, "empty capability list (use null)");
	*ret = mask;
	return 0;
}

static int read_count(struct json_object *o, const struct jpath *p, const char *key, int64_t min,
		      uint64_t *ret, struct s2c_error *err)
{
	int64_t v = 0;
	int r = jsonread_int(o, p, key, true, min, INT64_MAX, &v, err);

	if (r == 0)
		*ret = (uint64_t)v;
	return r;
}

static int errno_from_name(const char *s)
{
	for (int e = 1; e < 4096; e++) {
		const char *n = strerrorname_np(e);
		if (n && s2c_streq(n, s))
			return e;
	}
	return -EINVAL;
}

static int signal_from_name(const char *s)
{
	for (int sig = 1; sig < NSIG; sig++) {
		const char *n = sigabbrev_np(sig);
		if (n && s2c_streq(n, s))
			return sig;
	}
	return -EINVAL;
}

static int read_check(struct learn_record *rec, struct json_object *o, const struct jpath *p,
		      struct s2c_error *err)
{
	static const char *const keys[] = { "capability", "result", "quiet", "syscall", "where",
					    "count", NULL };
	_cleanup_free_ char *syscall = NULL, *where = NULL;
	const char *result = NULL;
	uint64_t mask = 0, count = 0;
	bool quiet = false;
	int cap, r = jsonread_keys(o, p, keys, keys, err);

	if (r == 0) r = read_mask(o, p, "capability", false, &mask, err);
	if (r == 0) r = jsonread_string(o, p, "result", true, &result, err);
	if (r == 0) r = jsonread_bool(o, p, "quiet", true, &quiet, err);
	if (r == 0) r = opt_string(o, p, "syscall", &syscall, err);
	if (r == 0) r = opt_string(o, p, "where", &where, err);
	if (r == 0) r = read_count(o, p, "count", 1, &count, err);
	if (r < 0)
		return r;
	if (mask & (mask - 1))
		return jpath_error(p, err, "a check names exactly one capability");
	if (!s2c_streq(result, "granted") && !s2c_streq(result, "denied"))
		return jpath_error(p, err, "result must be granted or denied, not '%s'", result);
	for (cap = 0; !(mask & S2C_CAPMASK(cap)); cap++)
		;
	return learn_record_add_check(rec, cap, s2c_streq(result, "granted"), quiet, syscall, where,
				      count);
}

static int read_failure(struct learn_record *rec, struct json_object *o, const struct jpath *p,
			struct s2c_error *err)
{
	static const char *const keys[] = { "syscall", "errno", "capabilities", "count", NULL };
	_cleanup_free_ char *syscall = NULL;
	const char *name = NULL;
	uint64_t caps = 0, count = 0;
	int e, r = jsonread_keys(o, p, keys, keys, err);

	if (r == 0) r = opt_string(o, p, "syscall", &syscall, err);
	if (r == 0) r = jsonread_string(o, p, "errno", true, &name, err);
	if (r == 0) r = read_mask(o, p, "capabilities", true, &caps, err);
	if (r == 0) r = read_count(o, p, "count", 1, &count, err);
	if (r < 0)
		return r;
	e = errno_from_name(name);
	if (e < 0)
		return jpath_error(p, err, "unknown errno '%s'", name);
	return learn_record_add_failure(rec, syscall, e, caps, count);
}

static int read_run(struct learn_record *rec, struct json_object *o, const struct jpath *p,
		    struct s2c_error *err)
{
	static const char *const keys[] = { "exit_code", "signal", "timed_out", "timeout",
					    "elapsed_ms", "processes", "killed", "lost", "untraced",
					    "complete", "succeeded", NULL };
	/* Records from before "untraced" and "complete" were written lack them. */
	static const char *const req[] = { "exit_code", "signal", "timed_out", "timeout",
					   "elapsed_ms", "processes", "killed", "lost", "succeeded",
					   NULL };
	_cleanup_free_ char *sig = NULL;
	int64_t code = -1, timeout = 0;
	bool succeeded = false, complete;
	int r = jsonread_keys(o, p, keys, req, err);

	if (r == 0 && !is_null(o, "exit_code"))
		r = jsonread_int(o, p, "exit_code", true, 0, 255, &code, err);
	if (r == 0) r = opt_string(o, p, "signal", &sig, err);
	if (r == 0) r = jsonread_bool(o, p, "timed_out", true, &rec->timed_out, err);
	if (r == 0) r = jsonread_int(o, p, "timeout", true, 1, UINT32_MAX, &timeout, err);
	if (r == 0) r = read_count(o, p, "elapsed_ms", 0, &rec->elapsed_ms, err);
	if (r == 0) r = read_count(o, p, "processes", 0, &rec->processes, err);
	if (r == 0) r = read_count(o, p, "killed", 0, &rec->killed, err);
	if (r == 0) r = read_count(o, p, "lost", 0, &rec->lost, err);
	if (r == 0 && json_object_object_get_ex(o, "untraced", NULL))
		r = read_count(o, p, "untraced", 0, &rec->untraced, err);
	complete = learn_record_complete(rec);
	if (r == 0) r = jsonread_bool(o, p, "complete", false, &complete, err);
	if (r == 0) r = jsonread_bool(o, p, "succeeded", true, &succeeded, err);
	if (r < 0)
		return r;
	if (complete != learn_record_complete(rec))
		return jpath_error(p, err, "complete does not follow from untraced and lost");
	if ((code < 0) == !sig)
		return jpath_error(p, err, "exactly one of exit_code and signal must be set");
	rec->exit_code = (int)code;
	rec->timeout = (unsigned)timeout;
	if (sig && (rec->signal = signal_from_name(sig)) < 0)
		return jpath_error(p, err, "unknown signal '%s'", sig);
	if (succeeded != learn_record_succeeded(rec))
		return jpath_error(p, err, "succeeded does not follow from the outcome");
	return 0;
}

static int read_parts(struct learn_record *rec, struct json_object *doc, const struct jpath *p,
		      struct s2c_error *err)
{
	static const char *const pkeys[] = { "path", "path_hex", "sha256", "aware", "script", NULL };
	static const char *const preq[] = { "path", "sha256", "aware", "script", NULL };
	static const char *const ukeys[] = { "name", "name_hex", "uid", "gid", NULL };
	static const char *const ureq[] = { "name", "uid", "gid", NULL };
	static const char *const mkeys[] = { "name", "attach", "fallback", NULL };
	struct json_object *prog = NULL, *user = NULL, *mech = NULL;
	struct jpath pp = jpath_key(p, "program"), up = jpath_key(p, "user"),
		     mp = jpath_key(p, "mechanism");
	const char *sha = NULL, *mname = NULL;
	int64_t uid = 0, gid = 0;
	int m, r;

	r = jsonread_object(doc, p, "program", true, &prog, err);
	if (r == 0) r = jsonread_keys(prog, &pp, pkeys, preq, err);
	if (r == 0) r = exact_string(prog, &pp, "path", &rec->path, err);
	if (r == 0) r = jsonread_string(prog, &pp, "sha256", true, &sha, err);
	if (r == 0) r = jsonread_bool(prog, &pp, "aware", true, &rec->aware, err);
	if (r == 0) r = jsonread_bool(prog, &pp, "script", true, &rec->script, err);
	if (r == 0) r = jsonread_object(doc, p, "user", true, &user, err);
	if (r == 0) r = jsonread_keys(user, &up, ukeys, ureq, err);
	if (r == 0) r = exact_string(user, &up, "name", &rec->user, err);
	if (r == 0) r = jsonread_int(user, &up, "uid", true, 0, UINT32_MAX, &uid, err);
	if (r == 0) r = jsonread_int(user, &up, "gid", true, 0, UINT32_MAX, &gid, err);
	if (r == 0) r = jsonread_object(doc, p, "mechanism", true, &mech, err);
	if (r == 0) r = jsonread_keys(mech, &mp, mkeys, mkeys, err);
	if (r == 0) r = jsonread_string(mech, &mp, "name", true, &mname, err);
	if (r == 0) r = opt_string(mech, &mp, "attach", &rec->attach, err);
	if (r == 0) r = opt_string(mech, &mp, "fallback", &rec->fallback, err);
	if (r < 0)
		return r;
	if (strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64)
		return jpath_error(&pp, err, "bad sha256");
	memcpy(rec->sha256, sha, 65);
	if (rec->path[0] != '/')
		return jpath_error(&pp, err, "path is not absolute");
	if (!rec->attach)
		return jpath_error(&mp, err, "attach must be a string");
	m = learn_mechanism_from_name(mname);
	if (m < 0)
		return jpath_error(&mp, err, "unknown mechanism '%s'", mname);
	rec->mechanism = (enum learn_mechanism)m;
	rec->uid = (uint32_t)uid;
	rec->gid = (uint32_t)gid;
	return 0;
}

static int read_lists(struct learn_record *rec, struct json_object *doc, const struct jpath *p,
		      struct s2c_error *err)
{
	struct json_object *checks = NULL, *failures = NULL;
	struct jpath cp = jpath_key(p, "checks"), fp = jpath_key(p, "failures");
	const char **argv = NULL;
	size_t argc = 0;
	int r;

	r = jsonread_strv(doc, p, "command", true, 1, &argv, &argc, err);
	if (r == 0 && !(rec->argv = calloc(argc + 1, sizeof(char *))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < argc; i++)
		if (!(rec->argv[i] = strdup(argv[i])))
			r = -ENOMEM;
	free(argv);
	if (r == 0) r = jsonread_array(doc, p, "checks", true, &checks, err);
	if (r == 0) r = jsonread_array(doc, p, "failures", true, &failures, err);
	for (size_t i = 0; r == 0 && i < json_object_array_length(checks); i++) {
		struct jpath ip = jpath_index(&cp, i);
		r = read_check(rec, json_object_array_get_idx(checks, i), &ip, err);
	}
	for (size_t i = 0; r == 0 && i < json_object_array_length(failures); i++) {
		struct jpath ip = jpath_index(&fp, i);
		r = read_failure(rec, json_object_array_get_idx(failures, i), &ip, err);
	}
	return r;
}

/* The summary keys must say what the checks and failures say. */
static int check_summary(struct learn_record *rec, struct json_object *doc, const struct jpath *p,
			 struct s2c_error *err)
{
	static const char *const keys[] = { "used", "denied", "denied_without_effect", "quiet" };
	uint64_t want[4];
	int r = 0;

	learn_record_finish(rec);
	want[0] = rec->used;
	want[1] = rec->denied;
	want[2] = rec->denied_harmless;
	want[3] = rec->quiet;
	for (size_t i = 0; r == 0 && i < S2C_ELEMENTSOF(keys); i++) {
		uint64_t got = 0;
		r = read_mask(doc, p, keys[i], true, &got, err);
		if (r == 0 && got != want[i]) {
			struct jpath kp = jpath_key(p, keys[i]);
			r = jpath_error(&kp, err, "does not follow from the checks and failures");
		}
	}
	return r;
}

int learn_record_parse(const char *text, size_t len, const char *display,
		       struct learn_record **ret, struct s2c_error *err)
{
	static const char *const keys[] = { "schema", "kind", "time", "program", "command", "user",
					    "mechanism", "candidates", "run", "used", "denied",
					    "denied_without_effect", "quiet", "checks", "failures",
					    NULL };
	_cleanup_(learn_record_freep) struct learn_record *rec = learn_record_new();
	_cleanup_jsonput_ struct json_object *doc = NULL;
	struct json_object *run = NULL;
	struct jpath p, rp;
	const char *kind = NULL, *when = NULL;
	int64_t schema = 0;
	int r;

	if (!rec)
		return -ENOMEM;
	r = jsonread_parse_mem(text, len, display, &doc, err);
	if (r < 0)
		return r;
	jpath_init(&p, display);
	rp = jpath_key(&p, "run");
	r = jsonread_keys(doc, &p, keys, keys, err);
	if (r == 0)
		r = jsonread_int(doc, &p, "schema", true, LEARN_RECORD_SCHEMA, LEARN_RECORD_SCHEMA, &schema,
				 err);
	if (r == 0) r = jsonread_string(doc, &p, "kind", true, &kind, err);
	if (r == 0 && !s2c_streq(kind, "suid2cap-learn"))
		r = jpath_error(&p, err, "not a suid2cap learn record (kind '%s')", kind);
	if (r == 0) r = jsonread_string(doc, &p, "time", true, &when, err);
	if (r == 0 && !(rec->time = strdup(when)))
		r = -ENOMEM;
	if (r == 0) r = read_parts(rec, doc, &p, err);
	if (r == 0) r = read_mask(doc, &p, "candidates", true, &rec->candidates, err);
	if (r == 0) r = jsonread_object(doc, &p, "run", true, &run, err);
	if (r == 0) r = read_run(rec, run, &rp, err);
	if (r == 0) r = read_lists(rec, doc, &p, err);
	if (r == 0) r = check_summary(rec, doc, &p, err);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(rec);
	return 0;
}

int learn_record_load(int dirfd, const char *sha256, bool trusted, struct learn_record **ret,
		      struct s2c_error *err)
{
	_cleanup_free_ char *buf = NULL, *name = NULL;
	struct learn_record *rec = NULL;
	uint32_t uid = 0, mode = 0;
	size_t len = 0;
	int r;

	if (strlen(sha256) != 64 || strspn(sha256, "0123456789abcdef") != 64)
		return -EINVAL;
	if (asprintf(&name, "%s.json", sha256) < 0)
		return -ENOMEM;
	r = jsonread_slurp(dirfd, name, name, &buf, &len, &uid, &mode, err);
	if (r == -ENOENT) {
		s2c_error_clear(err);
		return -ENOENT;
	}
	if (r < 0)
		return r;
	if (trusted && (uid != 0 || (mode & 077)))
		return s2c_error_set(err, -EPERM, "%s: not owned by root or accessible by others "
				     "(mode %04o), refusing it", name, mode & 07777);
	r = learn_record_parse(buf, len, name, &rec, err);
	if (r < 0)
		return r;
	if (!s2c_streq(rec->sha256, sha256)) {
		learn_record_free(rec);
		return s2c_error_set(err, -EINVAL, "%s: $.program.sha256: does not match the file name",
				     name);
	}
	*ret = rec;
	return 0;
}
