/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "hash.h"
#include "journal.h"
#include "jsonout.h"
#include "jsonread.h"
#include "strtable.h"
#include "util.h"
#include "trust.h"
#include "common.h"

#define SUM_KEY ",\"sum\":\""
#define MAX_ENTRIES 100000

static const char *const outcome_names[_JOURNAL_OUTCOME_MAX] = {
	"pending", "applied", "skipped", "failed", "rolled-back",
};

DEFINE_STRING_TABLE_TO_NAME(journal_outcome_name, enum journal_outcome, outcome_names, "invalid")

struct journal *journal_free(struct journal *j)
{
	if (!j)
		return NULL;
	if (j->fd >= 0)
		(void)close(j->fd);
	for (size_t i = 0; i < j->n; i++) {
		free(j->v[i].path);
		free(j->v[i].rule_id);
		free(j->v[i].reason);
	}
	free(j->v);
	free(j->name);
	free(j->shown);
	free(j->root);
	free(j->plan_sha256);
	free(j);
	return NULL;
}

/* --- writing ------------------------------------------------------------------------ */

/* Seal @obj into one line: its JSON without the closing brace, then the
 * SHA-256 of that prefix as "sum". */
static char *seal(struct json_object *obj)
{
	const char *s = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = s ? strlen(s) : 0;
	char hex[HASH_HEX_LEN];
	char *line, *prefix;

	if (len < 2 || s[len - 1] != '}')
		return NULL;
	if (asprintf(&prefix, "%.*s,", (int)(len - 1), s) < 0)
		return NULL;
	if (hash_mem_sha256(prefix, strlen(prefix), hex) < 0) {
		free(prefix);
		return NULL;
	}
	if (asprintf(&line, "%s\"sum\":\"%s\"}\n", prefix, hex) < 0)
		line = NULL;
	free(prefix);
	return line;
}

/* Append one record and make it durable; a failed write is cut off again. */
static int append(struct journal *j, struct json_object *rec, struct s2c_error *err)
{
	_cleanup_free_ char *line = seal(rec);
	off_t start;
	size_t len, off = 0;

	json_object_put(rec);
	if (!line)
		return -ENOMEM;
	if (j->fd < 0)
		return s2c_error_set(err, -EBADF, "journal '%s' is not open for writing",
				     j->shown ? j->shown : "(parsed)");
	start = lseek(j->fd, 0, SEEK_END);
	if (start < 0)
		return s2c_error_errno(err, -errno, "cannot seek journal '%s'", j->shown);
	len = strlen(line);
	while (off < len) {
		ssize_t n = write(j->fd, line + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? -errno : -ENOSPC;
			if (ftruncate(j->fd, start) < 0) {
				/* the partial line stays; readers ignore a partial last line */
			}
			return s2c_error_errno(err, e, "cannot write journal '%s'", j->shown);
		}
		off += (size_t)n;
	}
	if (fdatasync(j->fd) < 0) {
		int e = -errno;
		if (ftruncate(j->fd, start) < 0) {
			/* as above: a partial or unsynced last record is ignored */
		}
		return s2c_error_errno(err, e, "cannot sync journal '%s'", j->shown);
	}
	return 0;
}

static struct json_object *record(const char *type)
{
	struct json_object *o = json_object_new_object();

	if (o && json_object_object_add(o, "r", json_object_new_string(type)) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *state_json(const struct file_state *s)
{
	struct json_object *o = json_object_new_object();
	char mode[8], hex[2 * FCAPS_BLOB_MAX + 1];

	if (!o)
		return NULL;
	(void)snprintf(mode, sizeof(mode), "%04o", s->mode & 07777);
	hex_encode(s->xattr, s->xattr_len, hex);
	if (jsonout_add_int(o, "uid", s->uid) < 0 || jsonout_add_int(o, "gid", s->gid) < 0 ||
	    jsonout_add_string(o, "mode", mode) < 0 ||
	    (s->has_xattr ? jsonout_add_string(o, "xattr", hex)
			  : json_object_object_add(o, "xattr", NULL)) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int new_entry(struct journal *j, struct journal_entry **ret)
{
	if (j->n >= MAX_ENTRIES)
		return -E2BIG;
	if (S2C_ARRAY_RESERVE(j->v, j->alloc, j->n + 1, 16) < 0)
		return -ENOMEM;
	memset(&j->v[j->n], 0, sizeof(j->v[0]));
	j->v[j->n].seq = (unsigned)j->n + 1;
	*ret = &j->v[j->n++];
	return 0;
}

int journal_intent(struct journal *j, const char *path, const char *rule_id,
		   const struct file_id *id, const struct file_state *after, unsigned *ret_seq,
		   struct s2c_error *err)
{
	struct json_object *rec = record("intent");
	struct journal_entry *e;
	char dev[32];
	int r;

	if (!rec)
		return -ENOMEM;
	if (strlen(id->sha256) != 64) {
		json_object_put(rec);
		return -EINVAL;
	}
	(void)snprintf(dev, sizeof(dev), "%u:%u", id->dev_major, id->dev_minor);
	if (jsonout_add_int(rec, "seq", (int64_t)j->n + 1) < 0 ||
	    jsonout_add_string(rec, "path", path) < 0 || jsonout_add_string(rec, "dev", dev) < 0 ||
	    jsonout_add_int(rec, "ino", (int64_t)id->ino) < 0 ||
	    jsonout_add_string(rec, "sha256", id->sha256) < 0 ||
	    (rule_id ? jsonout_add_string(rec, "rule", rule_id)
		     : json_object_object_add(rec, "rule", NULL)) < 0 ||
	    json_object_object_add(rec, "before", state_json(&id->state)) < 0 ||
	    json_object_object_add(rec, "after", state_json(after)) < 0) {
		json_object_put(rec);
		return -ENOMEM;
	}
	r = append(j, rec, err);
	if (r < 0)
		return r;
	r = new_entry(j, &e);
	if (r < 0)
		return r;
	e->path = strdup(path);
	e->rule_id = rule_id ? strdup(rule_id) : NULL;
	if (!e->path || (rule_id && !e->rule_id))
		return -ENOMEM;
	e->before = (struct file_id){ .dev_major = id->dev_major, .dev_minor = id->dev_minor,
				      .ino = id->ino, .state = id->state };
	memcpy(e->before.sha256, id->sha256, sizeof(e->before.sha256));
	e->after = *after;
	*ret_seq = e->seq;
	return 0;
}

struct journal_entry *journal_find(struct journal *j, unsigned seq)
{
	return seq >= 1 && seq <= j->n ? &j->v[seq - 1] : NULL;
}

int journal_done(struct journal *j, unsigned seq, enum journal_outcome outcome, const char *reason,
		 const char *sha256_after, struct s2c_error *err)
{
	struct journal_entry *e = journal_find(j, seq);
	struct json_object *rec = record("done");
	int r;

	if (!rec)
		return -ENOMEM;
	if (!e || outcome == JOURNAL_PENDING || (sha256_after && strlen(sha256_after) != 64)) {
		json_object_put(rec);
		return -EINVAL;
	}
	if (jsonout_add_int(rec, "seq", seq) < 0 ||
	    jsonout_add_string(rec, "outcome", journal_outcome_name(outcome)) < 0 ||
	    (reason ? jsonout_add_string(rec, "reason", reason)
		    : json_object_object_add(rec, "reason", NULL)) < 0 ||
	    (sha256_after && jsonout_add_string(rec, "sha256", sha256_after) < 0)) {
		json_object_put(rec);
		return -ENOMEM;
	}
	r = append(j, rec, err);
	if (r < 0)
		return r;
	if (sha256_after)
		memcpy(e->sha256_after, sha256_after, sizeof(e->sha256_after));
	e->outcome = outcome;
	free(e->reason);
	e->reason = reason ? strdup(reason) : NULL;
	return reason && !e->reason ? -ENOMEM : 0;
}

int journal_undo(struct journal *j, unsigned seq, bool finished, struct s2c_error *err)
{
	struct journal_entry *e = journal_find(j, seq);
	struct json_object *rec = record(finished ? "undone" : "undo");
	int r;

	if (!rec)
		return -ENOMEM;
	if (!e) {
		json_object_put(rec);
		return -EINVAL;
	}
	if (jsonout_add_int(rec, "seq", seq) < 0) {
		json_object_put(rec);
		return -ENOMEM;
	}
	r = append(j, rec, err);
	if (r < 0)
		return r;
	if (finished)
		e->undone = true;
	else
		e->undo_started = true;
	return 0;
}

int journal_end(struct journal *j, struct s2c_error *err)
{
	struct json_object *rec = record("end");
	int r;

	if (!rec)
		return -ENOMEM;
	r = append(j, rec, err);
	if (r == 0)
		j->ended = true;
	return r;
}

static int new_name(char **ret)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || !gmtime_r(&ts.tv_sec, &tm))
		return -errno;
	if (strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm) == 0)
		return -EINVAL;
	return asprintf(ret, "%s.%09ldZ.journal", stamp, ts.tv_nsec) < 0 ? -ENOMEM : 0;
}

/* @name as messages name it: beneath @dir when there is one. */
static char *journal_shown(const char *dir, const char *name)
{
	return dir ? path_join(dir, name) : strdup(name);
}

int journal_create(int dirfd, const char *dir, const char *root, const char *plan_sha256,
		   enum journal_flags flags, struct journal **ret, struct s2c_error *err)
{
	_cleanup_(journal_freep) struct journal *j = calloc(1, sizeof(*j));
	struct json_object *rec;
	int r;

	if (!j)
		return -ENOMEM;
	j->fd = -1;
	j->version = JOURNAL_VERSION;
	j->flags = flags;
	r = new_name(&j->name);
	if (r < 0)
		return r;
	j->shown = journal_shown(dir, j->name);
	j->root = strdup(root);
	j->plan_sha256 = strdup(plan_sha256);
	if (!j->shown || !j->root || !j->plan_sha256)
		return -ENOMEM;
	j->fd = openat(dirfd, j->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC,
		       0600);
	if (j->fd < 0)
		return s2c_error_errno(err, -errno, "cannot create journal '%s'", j->shown);
	rec = record("begin");
	if (!rec || jsonout_add_int(rec, "v", JOURNAL_VERSION) < 0 ||
	    jsonout_add_string(rec, "root", root) < 0 ||
	    jsonout_add_string(rec, "plan", plan_sha256) < 0 ||
	    jsonout_add_string(rec, "tool", S2C_VERSION) < 0 ||
	    jsonout_add_bool(rec, "root_equivalent_accepted", flags & JOURNAL_ROOT_EQUIVALENT) < 0) {
		json_object_put(rec);
		return -ENOMEM;
	}
	r = append(j, rec, err);
	if (r == 0 && fsync(dirfd) < 0)
		r = s2c_error_errno(err, -errno, "cannot create journal '%s': syncing its directory",
				    j->shown);
	if (r < 0) {
		(void)unlinkat(dirfd, j->name, 0);
		return r;
	}
	*ret = TAKE_PTR(j);
	return 0;
}

/* --- reading ------------------------------------------------------------------------ */

struct reader {
	struct journal *j;
	const char *display;
	size_t lineno;
	struct s2c_error *err;
};

S2C_PRINTF(2, 3) static int bad(const struct reader *rd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return s2c_error_set(rd->err, -EINVAL, "%s: line %zu: %s", rd->display, rd->lineno, msg);
}

/* Check the seal of one line (without its newline). */
static int unseal(const struct reader *rd, const char *line, size_t len)
{
	const char *p = NULL;
	char hex[HASH_HEX_LEN];
	size_t plen;

	for (const char *q = line; (q = memmem(q, len - (size_t)(q - line), SUM_KEY, strlen(SUM_KEY)));
	     q++)
		p = q;
	if (!p)
		return bad(rd, "record has no checksum");
	plen = (size_t)(p - line) + 1;
	if (len != plen + strlen("\"sum\":\"") + 64 + 2 || line[len - 1] != '}' || line[len - 2] != '"')
		return bad(rd, "malformed checksum");
	if (hash_mem_sha256(line, plen, hex) < 0)
		return -ENOMEM;
	if (memcmp(hex, line + plen + strlen("\"sum\":\""), 64) != 0)
		return bad(rd, "checksum mismatch: the record was damaged");
	return 0;
}

static int read_path(struct json_object *o, const struct jpath *p, char **ret, struct s2c_error *err)
{
	const char *path = NULL, *hex = NULL;
	size_t len;
	int r = jsonread_string(o, p, "path", true, &path, err);

	if (r == 0)
		r = jsonread_string(o, p, "path_hex", false, &hex, err);
	if (r < 0)
		return r;
	if (hex) {
		r = hex_decode(hex, ret, &len);
		if (r < 0 || strlen(*ret) != len)
			return jpath_error(p, err, "bad path_hex");
	} else if (!(*ret = strdup(path))) {
		return -ENOMEM;
	}
	if ((*ret)[0] != '/') {
		free(*ret);
		return jpath_error(p, err, "path is not absolute");
	}
	return 0;
}

static int read_state(struct json_object *o, const struct jpath *p, struct file_state *s,
		      struct s2c_error *err)
{
	static const char *const keys[] = { "uid", "gid", "mode", "xattr", NULL };
	const char *mode = NULL, *xattr = NULL;
	int64_t uid = 0, gid = 0;
	uint64_t m;
	int r = jsonread_keys(o, p, keys, keys, err);

	if (r == 0)
		r = jsonread_int(o, p, "uid", true, 0, UINT32_MAX, &uid, err);
	if (r == 0)
		r = jsonread_int(o, p, "gid", true, 0, UINT32_MAX, &gid, err);
	if (r == 0)
		r = jsonread_string(o, p, "mode", true, &mode, err);
	if (r == 0 && json_object_get_type(json_object_object_get(o, "xattr")) != json_type_null)
		r = jsonread_string(o, p, "xattr", true, &xattr, err);
	if (r < 0)
		return r;
	if (strlen(mode) != 4 || parse_u64(mode, 8, 07777, &m) < 0)
		return jpath_error(p, err, "bad mode '%s'", mode);
	memset(s, 0, sizeof(*s));
	s->uid = (uint32_t)uid;
	s->gid = (uint32_t)gid;
	s->mode = (uint32_t)m;
	if (xattr) {
		char *buf = NULL;       /* hex_decode() writes nothing when it fails */
		size_t len = 0;
		struct fcaps c;
		if (hex_decode(xattr, &buf, &len) < 0 || len > FCAPS_BLOB_MAX || len == 0 ||
		    fcaps_decode(buf, len, &c, NULL) < 0) {
			free(buf);
			return jpath_error(p, err, "bad xattr '%s'", xattr);
		}
		memcpy(s->xattr, buf, len);
		s->xattr_len = len;
		s->has_xattr = true;
		free(buf);
	}
	return 0;
}

/* A lowercase hex SHA-256. */
static int read_sha256(const struct reader *rd, struct json_object *o, const struct jpath *p,
		       const char **ret)
{
	const char *sha = NULL;
	int r = jsonread_string(o, p, "sha256", true, &sha, rd->err);

	if (r < 0)
		return r;
	if (strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64)
		return bad(rd, "bad sha256 '%s'", sha);
	*ret = sha;
	return 0;
}

static int parse_seq(const struct reader *rd, struct json_object *o, const struct jpath *p,
		     struct journal_entry **ret)
{
	int64_t seq = 0;
	int r = jsonread_int(o, p, "seq", true, 1, MAX_ENTRIES, &seq, rd->err);

	if (r < 0)
		return r;
	*ret = journal_find(rd->j, (unsigned)seq);
	if (!*ret)
		return bad(rd, "record for unknown entry %lld", (long long)seq);
	return 0;
}

static int parse_begin(struct reader *rd, struct json_object *o, const struct jpath *p,
		       const char *type)
{
	struct journal *j = rd->j;
	const char *root = NULL, *plan = NULL, *tool = NULL;
	bool accepted = false;
	int64_t v = 0;
	int r;

	(void)type;
	if (rd->lineno != 1)
		return bad(rd, "a second 'begin' record");
	r = jsonread_int(o, p, "v", true, 1, JOURNAL_VERSION, &v, rd->err);
	if (r == 0 && v >= 2)
		r = jsonread_bool(o, p, "root_equivalent_accepted", true, &accepted, rd->err);
	if (r == 0 && v < 2 && json_object_object_get_ex(o, "root_equivalent_accepted", NULL))
		return bad(rd, "'root_equivalent_accepted' in a version 1 journal");
	if (r == 0)
		r = jsonread_string(o, p, "root", true, &root, rd->err);
	if (r == 0)
		r = jsonread_string(o, p, "plan", true, &plan, rd->err);
	if (r == 0)
		r = jsonread_string(o, p, "tool", true, &tool, rd->err);
	if (r < 0)
		return r;
	j->version = (unsigned)v;
	j->flags = accepted ? JOURNAL_ROOT_EQUIVALENT : 0;
	j->root = strdup(root);
	j->plan_sha256 = strdup(plan);
	return j->root && j->plan_sha256 ? 0 : -ENOMEM;
}

static int parse_intent(struct reader *rd, struct json_object *o, const struct jpath *p,
			const char *type)
{
	struct journal *j = rd->j;
	const char *sha = NULL, *dev = NULL, *rule = NULL;
	struct json_object *before = NULL, *after = NULL, *rule_o = NULL;
	struct journal_entry *e;
	struct jpath bp = jpath_key(p, "before"), ap = jpath_key(p, "after");
	int64_t seq = 0, ino = 0;
	unsigned maj, min;
	char c;
	int r;

	(void)type;
	r = jsonread_int(o, p, "seq", true, 1, MAX_ENTRIES, &seq, rd->err);
	if (r == 0 && seq != (int64_t)j->n + 1)
		return bad(rd, "entry %lld out of order (expected %zu)", (long long)seq, j->n + 1);
	if (r == 0)
		r = jsonread_string(o, p, "dev", true, &dev, rd->err);
	if (r == 0 && sscanf(dev, "%u:%u%c", &maj, &min, &c) != 2)
		return bad(rd, "bad dev '%s'", dev);
	if (r == 0)
		r = jsonread_int(o, p, "ino", true, 0, INT64_MAX, &ino, rd->err);
	if (r == 0 && j->version < 2 && json_object_object_get_ex(o, "sha256", NULL))
		return bad(rd, "'sha256' in a version 1 journal");
	if (r == 0 && j->version >= 2)
		r = read_sha256(rd, o, p, &sha);
	if (r == 0 && (j->version >= 3) != json_object_object_get_ex(o, "rule", &rule_o))
		return bad(rd, j->version >= 3 ? "no 'rule' in a version 3 journal"
					       : "'rule' in a version %u journal", j->version);
	if (r == 0 && rule_o)
		r = jsonread_string(o, p, "rule", true, &rule, rd->err);
	if (r == 0)
		r = jsonread_object(o, p, "before", true, &before, rd->err);
	if (r == 0)
		r = jsonread_object(o, p, "after", true, &after, rd->err);
	if (r < 0)
		return r;
	r = new_entry(j, &e);
	if (r < 0)
		return r;
	e->before.dev_major = maj;
	e->before.dev_minor = min;
	e->before.ino = (uint64_t)ino;
	if (sha)
		memcpy(e->before.sha256, sha, 65);
	if (rule && !(e->rule_id = strdup(rule)))
		return -ENOMEM;
	r = read_path(o, p, &e->path, rd->err);
	if (r == 0)
		r = read_state(before, &bp, &e->before.state, rd->err);
	if (r == 0)
		r = read_state(after, &ap, &e->after, rd->err);
	return r;
}

static int parse_done(struct reader *rd, struct json_object *o, const struct jpath *p,
		      const char *type)
{
	const char *outcome = NULL, *reason = NULL, *sha = NULL;
	struct journal_entry *e = NULL;
	int o_idx = -1;
	int r;

	(void)type;
	r = parse_seq(rd, o, p, &e);
	if (r == 0)
		r = jsonread_string(o, p, "outcome", true, &outcome, rd->err);
	if (r == 0 && json_object_get_type(json_object_object_get(o, "reason")) != json_type_null)
		r = jsonread_string(o, p, "reason", false, &reason, rd->err);
	if (r == 0 && json_object_object_get_ex(o, "sha256", NULL)) {
		if (rd->j->version < 2)
			return bad(rd, "'sha256' in a version 1 journal");
		r = read_sha256(rd, o, p, &sha);
	}
	if (r < 0)
		return r;
	if (sha)
		memcpy(e->sha256_after, sha, 65);
	for (int i = 1; i < _JOURNAL_OUTCOME_MAX; i++)
		if (s2c_streq(outcome, outcome_names[i]))
			o_idx = i;
	if (o_idx < 0)
		return bad(rd, "unknown outcome '%s'", outcome);
	if (e->outcome != JOURNAL_PENDING)
		return bad(rd, "entry %u finished twice", e->seq);
	e->outcome = (enum journal_outcome)o_idx;
	e->reason = reason ? strdup(reason) : NULL;
	return reason && !e->reason ? -ENOMEM : 0;
}

/* "undo" (a rollback began on the entry) and "undone" (it finished). */
static int parse_undo(struct reader *rd, struct json_object *o, const struct jpath *p,
		      const char *type)
{
	struct journal_entry *e = NULL;
	int r = parse_seq(rd, o, p, &e);

	if (r < 0)
		return r;
	if (s2c_streq(type, "undo")) {
		e->undo_started = true;
		return 0;
	}
	if (!e->undo_started)
		return bad(rd, "'undone' without 'undo' for entry %u", e->seq);
	e->undone = true;
	return 0;
}

static int parse_end(struct reader *rd, struct json_object *o, const struct jpath *p,
		     const char *type)
{
	(void)o;
	(void)p;
	(void)type;
	rd->j->ended = true;
	return 0;
}

#define KEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Every record type: its keys, the ones it must have, and who reads the rest. */
static const struct record_type {
	const char *name;
	const char *const *keys;
	const char *const *required;
	const char *const *required_v1;  /* for a version 1 journal, when it differs */
	bool after_end;                  /* may follow 'end': a finished run is rolled back */
	int (*parse)(struct reader *rd, struct json_object *o, const struct jpath *p,
		     const char *type);
} record_types[] = {
	{ "begin", KEYS("r", "v", "root", "plan", "tool", "root_equivalent_accepted", "sum"),
	  KEYS("r", "v", "root", "plan", "tool", "sum"), NULL, false, parse_begin },
	{ "intent", KEYS("r", "seq", "path", "path_hex", "dev", "ino", "sha256", "rule", "before",
			 "after", "sum"),
	  KEYS("r", "seq", "path", "dev", "ino", "sha256", "before", "after", "sum"),
	  KEYS("r", "seq", "path", "dev", "ino", "before", "after", "sum"), false, parse_intent },
	{ "done", KEYS("r", "seq", "outcome", "reason", "sha256", "sum"),
	  KEYS("r", "seq", "outcome", "sum"), NULL, false, parse_done },
	{ "undo", KEYS("r", "seq", "sum"), KEYS("r", "seq", "sum"), NULL, true, parse_undo },
	{ "undone", KEYS("r", "seq", "sum"), KEYS("r", "seq", "sum"), NULL, true, parse_undo },
	{ "end", KEYS("r", "sum"), KEYS("r", "sum"), NULL, false, parse_end },
};

static int parse_record(struct reader *rd, struct json_object *o)
{
	const struct record_type *t = NULL;
	struct jpath p;
	const char *type = NULL;
	char where[64];
	int r;

	(void)snprintf(where, sizeof(where), "%s: line %zu", rd->display, rd->lineno);
	jpath_init(&p, where);
	r = jsonread_string(o, &p, "r", true, &type, rd->err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < S2C_ELEMENTSOF(record_types); i++)
		if (s2c_streq(type, record_types[i].name))
			t = &record_types[i];
	if (rd->lineno == 1 && !s2c_streq(type, "begin"))
		return bad(rd, "a journal starts with a 'begin' record");
	if (!t)
		return bad(rd, "unknown record type '%s'", type);
	if (rd->j->ended && !t->after_end)
		return bad(rd, "record after 'end'");
	r = jsonread_keys(o, &p, t->keys,
			  t->required_v1 && rd->j->version < 2 ? t->required_v1 : t->required,
			  rd->err);
	return r < 0 ? r : t->parse(rd, o, &p, type);
}

int journal_parse(const char *text, size_t len, const char *display, struct journal **ret,
		  struct s2c_error *err)
{
	_cleanup_(journal_freep) struct journal *j = calloc(1, sizeof(*j));
	struct reader rd = { .j = j, .display = display, .err = err };
	size_t off = 0;

	if (!j)
		return -ENOMEM;
	j->fd = -1;
	if (memchr(text, '\0', len))
		return s2c_error_set(err, -EINVAL, "%s: contains a NUL byte", display);
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t l;
		struct json_object *o = NULL;
		int r;

		rd.lineno++;
		if (!nl) {
			/* a crash while appending: the record never took effect */
			j->truncated = true;
			break;
		}
		l = (size_t)(nl - (text + off));
		r = unseal(&rd, text + off, l);
		if (r == 0) {
			char where[S2C_ERROR_MAX];
			(void)snprintf(where, sizeof(where), "%s: line %zu", display, rd.lineno);
			r = jsonread_parse_mem(text + off, l, where, &o, err);
		}
		if (r == 0)
			r = parse_record(&rd, o);
		json_object_put(o);
		if (r < 0)
			return r;
		off += l + 1;
	}
	if (rd.lineno == 0 || (rd.lineno == 1 && j->truncated))
		return s2c_error_set(err, -EINVAL, "%s: empty journal", display);
	*ret = TAKE_PTR(j);
	return 0;
}

int journal_open(int dirfd, const char *dir, const char *name, bool trusted, bool writable,
		 struct journal **ret, struct s2c_error *err)
{
	_cleanup_free_ char *buf = NULL, *shown = journal_shown(dir, name);
	_cleanup_(journal_freep) struct journal *j = NULL;
	uint32_t uid, mode;
	size_t len;
	int r;

	if (!shown)
		return -ENOMEM;
	r = jsonread_slurp_max(dirfd, name, shown, JOURNAL_MAX_SIZE, &buf, &len, &uid, &mode, err);
	if (r < 0)
		return r;
	if (trusted) {
		r = trust_check(uid, mode, TRUST_PRIVATE, "journal", shown, err);
		if (r < 0)
			return r;
	}
	r = journal_parse(buf, len, shown, &j, err);
	if (r < 0)
		return r;
	j->name = strdup(name);
	if (!j->name)
		return -ENOMEM;
	j->shown = TAKE_PTR(shown);
	if (writable) {
		j->fd = openat(dirfd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
		if (j->fd < 0)
			return s2c_error_errno(err, -errno, "cannot open journal '%s' for writing",
					       j->shown);
		if (j->truncated) {
			const char *last = memrchr(buf, '\n', len);
			off_t keep = last ? (off_t)(last - buf) + 1 : 0;
			if (ftruncate(j->fd, keep) < 0 || fdatasync(j->fd) < 0)
				return s2c_error_errno(err, -errno, "cannot repair journal '%s'",
						       j->shown);
		}
	}
	*ret = TAKE_PTR(j);
	return 0;
}
