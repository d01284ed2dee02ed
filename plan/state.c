/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "jsonout.h"
#include "jsonread.h"
#include "state.h"
#include "strhash.h"
#include "util.h"
#include "trust.h"
#include "common.h"

#define STATE_FILE "state.json"
#define STATE_SCHEMA 1

struct state *state_free(struct state *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].rule_id);
		free(s->v[i].journal);
	}
	free(s->v);
	free(s->root);
	hashindex_release(&s->index);
	free(s);
	return NULL;
}

struct lookup {
	const struct state *s;
	const char *path;
};

static bool same_path(size_t pos, const void *userdata)
{
	const struct lookup *l = userdata;

	return pos < l->s->n && s2c_streq(l->s->v[pos].path, l->path);
}

struct state_entry *state_find(struct state *s, const char *path)
{
	size_t i;

	if (s->unindexed) {
		for (i = 0; i < s->n; i++)
			if (s2c_streq(s->v[i].path, path))
				return &s->v[i];
		return NULL;
	}
	i = hashindex_find(&s->index, strhash(path), same_path, &(struct lookup){ s, path });
	return i == SIZE_MAX ? NULL : &s->v[i];
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct state_entry *)a)->path, ((const struct state_entry *)b)->path);
}

/* Index every entry again, after their positions changed; without memory, search. */
static void reindex(struct state *s)
{
	hashindex_release(&s->index);
	s->unindexed = false;
	for (size_t i = 0; i < s->n && !s->unindexed; i++)
		s->unindexed = hashindex_add(&s->index, strhash(s->v[i].path), i) < 0;
}

static void sort_entries(struct state *s)
{
	if (!s->unsorted)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_entry);
	s->unsorted = false;
	reindex(s);
}

/* A zeroed entry at the end of @s, or NULL. */
static struct state_entry *append(struct state *s)
{
	if (S2C_ARRAY_RESERVE(s->v, s->alloc, s->n + 1, 16) < 0)
		return NULL;
	memset(&s->v[s->n], 0, sizeof(s->v[0]));
	return &s->v[s->n++];
}

int state_put(struct state *s, const struct state_entry *e)
{
	struct state_entry *slot = state_find(s, e->path), copy = *e;

	copy.path = strdup(e->path);
	copy.rule_id = e->rule_id ? strdup(e->rule_id) : NULL;
	copy.journal = e->journal ? strdup(e->journal) : NULL;
	if (!copy.path || (e->rule_id && !copy.rule_id) || (e->journal && !copy.journal) ||
	    (!slot && !s->unindexed && hashindex_add(&s->index, strhash(e->path), s->n) < 0) ||
	    (!slot && !(slot = append(s)))) {
		free(copy.path);
		free(copy.rule_id);
		free(copy.journal);
		return -ENOMEM;
	}
	free(slot->path);
	free(slot->rule_id);
	free(slot->journal);
	*slot = copy;
	if (slot > s->v && strcmp(slot[-1].path, slot->path) > 0)
		s->unsorted = true;
	return 0;
}

bool state_remove(struct state *s, const char *path)
{
	struct state_entry *e = state_find(s, path), *last;

	if (!e)
		return false;
	free(e->path);
	free(e->rule_id);
	free(e->journal);
	last = &s->v[--s->n];
	if (e != last) {
		*e = *last;
		/* Its old position is past the end now: found through the new one only. */
		if (!s->unindexed)
			s->unindexed = hashindex_add(&s->index, strhash(e->path),
						     (size_t)(e - s->v)) < 0;
		s->unsorted = true;
	}
	return true;
}

/* --- JSON ------------------------------------------------------------------------ */

static struct json_object *entry_json(const struct state_entry *e)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *after;
	char dev[32], mode[8], hex[2 * FCAPS_BLOB_MAX + 1];

	if (!o)
		return NULL;
	(void)snprintf(dev, sizeof(dev), "%u:%u", e->left.dev_major, e->left.dev_minor);
	(void)snprintf(mode, sizeof(mode), "%04o", e->left.state.mode & 07777);
	hex_encode(e->left.state.xattr, e->left.state.xattr_len, hex);
	after = json_object_new_object();
	if (!after || json_object_object_add(o, "after", after) < 0)
		return NULL;
	if (jsonout_add_string(o, "path", e->path) < 0 ||
	    (e->rule_id ? jsonout_add_string(o, "rule", e->rule_id)
			: json_object_object_add(o, "rule", NULL)) < 0 ||
	    jsonout_add_string(o, "sha256", e->left.sha256) < 0 ||
	    jsonout_add_string(o, "dev", dev) < 0 ||
	    jsonout_add_int(o, "ino", (int64_t)e->left.ino) < 0 ||
	    (e->journal ? jsonout_add_string(o, "journal", e->journal)
			: json_object_object_add(o, "journal", NULL)) < 0 ||
	    jsonout_add_int(after, "uid", e->left.state.uid) < 0 ||
	    jsonout_add_int(after, "gid", e->left.state.gid) < 0 ||
	    jsonout_add_string(after, "mode", mode) < 0 ||
	    (e->left.state.has_xattr ? jsonout_add_string(after, "xattr", hex)
				: json_object_object_add(after, "xattr", NULL)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

int state_save(int dirfd, const char *dir, struct state *s, struct s2c_error *err)
{
	_cleanup_free_ char *shown = dir ? path_join(dir, STATE_FILE) : strdup(STATE_FILE);
	_cleanup_jsonput_ struct json_object *doc = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	const char *text;
	char tmp[64];
	size_t len, off = 0;
	int fd;

	if (!doc || !arr || !shown) {
		json_object_put(arr);
		return -ENOMEM;
	}
	sort_entries(s);
	if (json_object_object_add(doc, "schema", json_object_new_int(STATE_SCHEMA)) < 0 ||
	    jsonout_add_string(doc, "kind", "suid2cap-state") < 0 ||
	    jsonout_add_string(doc, "root", s->root ? s->root : "/") < 0 ||
	    json_object_object_add(doc, "entries", arr) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		struct json_object *e = entry_json(&s->v[i]);
		if (!e || json_object_array_add(arr, e) < 0) {
			json_object_put(e);
			return -ENOMEM;
		}
	}
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		return -ENOMEM;
	(void)snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", STATE_FILE, (int)getpid());
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return s2c_error_errno(err, -errno, "cannot write '%s': cannot create a temporary "
				       "file beside it", shown);
	len = strlen(text);
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? -errno : -ENOSPC;
			(void)close(fd);
			(void)unlinkat(dirfd, tmp, 0);
			return s2c_error_errno(err, e, "cannot write '%s'", shown);
		}
		off += (size_t)n;
	}
	if (write(fd, "\n", 1) != 1 || fsync(fd) < 0) {
		int e = errno ? -errno : -EIO;
		(void)close(fd);
		(void)unlinkat(dirfd, tmp, 0);
		return s2c_error_errno(err, e, "cannot write '%s'", shown);
	}
	(void)close(fd);
	if (renameat(dirfd, tmp, dirfd, STATE_FILE) < 0) {
		int e = -errno;
		(void)unlinkat(dirfd, tmp, 0);
		return s2c_error_errno(err, e, "cannot rename the new '%s' into place", shown);
	}
	if (fsync(dirfd) < 0)
		return s2c_error_errno(err, -errno, "cannot write '%s': syncing its directory",
				       shown);
	return 0;
}

static int read_entry(struct json_object *o, const struct jpath *p, struct state_entry *e,
		      struct s2c_error *err)
{
	static const char *const keys[] = { "path", "path_hex", "rule", "sha256", "dev", "ino",
					    "journal", "after", NULL };
	static const char *const req[] = { "path", "rule", "sha256", "dev", "ino", "journal",
					   "after", NULL };
	static const char *const akeys[] = { "uid", "gid", "mode", "xattr", NULL };
	struct json_object *after = NULL;
	struct jpath ap = jpath_key(p, "after");
	const char *path = NULL, *hex = NULL, *rule = NULL, *sha = NULL, *dev = NULL,
		   *journal = NULL, *mode = NULL, *xattr = NULL;
	int64_t ino = 0, uid = 0, gid = 0;
	uint64_t m;
	char c;
	int r = jsonread_keys(o, p, keys, req, err);

	if (r == 0) r = jsonread_string(o, p, "path", true, &path, err);
	if (r == 0) r = jsonread_string(o, p, "path_hex", false, &hex, err);
	if (r == 0 && !json_object_is_type(json_object_object_get(o, "rule"), json_type_null))
		r = jsonread_string(o, p, "rule", true, &rule, err);
	if (r == 0) r = jsonread_string(o, p, "sha256", true, &sha, err);
	if (r == 0) r = jsonread_string(o, p, "dev", true, &dev, err);
	if (r == 0) r = jsonread_int(o, p, "ino", true, 0, INT64_MAX, &ino, err);
	if (r == 0 && !json_object_is_type(json_object_object_get(o, "journal"), json_type_null))
		r = jsonread_string(o, p, "journal", true, &journal, err);
	if (r == 0) r = jsonread_object(o, p, "after", true, &after, err);
	if (r == 0) r = jsonread_keys(after, &ap, akeys, akeys, err);
	if (r == 0) r = jsonread_int(after, &ap, "uid", true, 0, UINT32_MAX, &uid, err);
	if (r == 0) r = jsonread_int(after, &ap, "gid", true, 0, UINT32_MAX, &gid, err);
	if (r == 0) r = jsonread_string(after, &ap, "mode", true, &mode, err);
	if (r == 0 && !json_object_is_type(json_object_object_get(after, "xattr"), json_type_null))
		r = jsonread_string(after, &ap, "xattr", true, &xattr, err);
	if (r < 0)
		return r;
	if (strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64)
		return jpath_error(p, err, "bad sha256");
	if (sscanf(dev, "%u:%u%c", &e->left.dev_major, &e->left.dev_minor, &c) != 2)
		return jpath_error(p, err, "bad dev '%s'", dev);
	if (strlen(mode) != 4 || parse_u64(mode, 8, 07777, &m) < 0)
		return jpath_error(&ap, err, "bad mode '%s'", mode);
	memcpy(e->left.sha256, sha, 65);
	e->left.ino = (uint64_t)ino;
	e->left.state.uid = (uint32_t)uid;
	e->left.state.gid = (uint32_t)gid;
	e->left.state.mode = (uint32_t)m;
	if (xattr) {
		char *buf;
		size_t len;
		struct fcaps fc;
		if (hex_decode(xattr, &buf, &len) < 0)
			return jpath_error(&ap, err, "bad xattr");
		if (len == 0 || len > FCAPS_BLOB_MAX || fcaps_decode(buf, len, &fc, NULL) < 0) {
			free(buf);
			return jpath_error(&ap, err, "bad xattr");
		}
		memcpy(e->left.state.xattr, buf, len);
		e->left.state.xattr_len = len;
		e->left.state.has_xattr = true;
		free(buf);
	}
	if (hex) {
		size_t len;
		if (hex_decode(hex, &e->path, &len) < 0 || strlen(e->path) != len)
			return jpath_error(p, err, "bad path_hex");
	} else if (!(e->path = strdup(path))) {
		return -ENOMEM;
	}
	if (e->path[0] != '/')
		return jpath_error(p, err, "path is not absolute");
	e->rule_id = rule ? strdup(rule) : NULL;
	e->journal = journal ? strdup(journal) : NULL;
	if ((rule && !e->rule_id) || (journal && !e->journal))
		return -ENOMEM;
	return 0;
}

/* The entries as the parser meets them, each checked and in order. */
struct entry_stream {
	struct state *s;
	struct s2c_error *err;
};

static int stream_entry(const struct jsonread_element *el, void *userdata)
{
	struct json_object *o = el->value;
	const struct jpath *p = el->path;
	struct entry_stream *es = userdata;
	struct state *s = es->s;
	int r;

	if (!append(s))
		return -ENOMEM;
	r = read_entry(o, p, &s->v[s->n - 1], es->err);
	if (r == 0 && s->n > 1 && strcmp(s->v[s->n - 2].path, s->v[s->n - 1].path) >= 0)
		r = jpath_error(p, es->err, "entries are not sorted by path, or a path is repeated");
	return r;
}

int state_parse(const char *text, size_t len, const char *display, struct state **ret,
		struct s2c_error *err)
{
	static const char *const keys[] = { "schema", "kind", "root", "root_hex", "entries", NULL };
	static const char *const req[] = { "schema", "kind", "root", "entries", NULL };
	_cleanup_(state_freep) struct state *s = calloc(1, sizeof(*s));
	struct entry_stream es = { .s = s, .err = err };
	struct json_object *doc = NULL, *arr = NULL;   /* arr: read already, empty */
	const char *kind = NULL, *root = NULL;
	struct jpath p;
	int64_t schema;
	int r;

	if (!s)
		return -ENOMEM;
	/* the entries one at a time: a record of many files costs them, not json-c's objects */
	r = jsonread_parse_stream(text, len, STATE_MAX_SIZE, display, "entries", stream_entry, &es,
				  &doc, err);
	if (r < 0)
		return r;
	jpath_init(&p, display);
	r = jsonread_keys(doc, &p, keys, req, err);
	if (r == 0) r = jsonread_int(doc, &p, "schema", true, STATE_SCHEMA, STATE_SCHEMA, &schema, err);
	if (r == 0) r = jsonread_string(doc, &p, "kind", true, &kind, err);
	if (r == 0 && !s2c_streq(kind, "suid2cap-state"))
		r = jpath_error(&p, err, "not a suid2cap state file (kind '%s')", kind);
	if (r == 0) r = jsonread_string(doc, &p, "root", true, &root, err);
	if (r == 0) r = jsonread_array(doc, &p, "entries", true, &arr, err);
	if (r == 0 && !(s->root = strdup(root)))
		r = -ENOMEM;
	json_object_put(doc);
	if (r < 0)
		return r;
	reindex(s);
	*ret = TAKE_PTR(s);
	return 0;
}

int state_load(int dirfd, const char *dir, const char *root, bool trusted, struct state **ret,
	       struct s2c_error *err)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *shown = dir ? path_join(dir, STATE_FILE) : strdup(STATE_FILE);
	uint32_t uid, mode;
	size_t len;
	int r;

	if (!shown)
		return -ENOMEM;
	r = jsonread_slurp_max(dirfd, STATE_FILE, shown, STATE_MAX_SIZE, &buf, &len, &uid, &mode,
			       err);

	if (r == -ENOENT) {
		struct state *s = calloc(1, sizeof(*s));
		if (!s || !(s->root = strdup(root))) {
			free(s);
			return -ENOMEM;
		}
		s2c_error_clear(err);
		*ret = s;
		return 0;
	}
	if (r < 0)
		return r;
	if (trusted) {
		r = trust_check(uid, mode, TRUST_PRIVATE, "state file", shown, err);
		if (r < 0)
			return r;
	}
	return state_parse(buf, len, shown, ret, err);
}
