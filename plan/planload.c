/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "engine.h"
#include "hash.h"
#include "jsonout.h"
#include "jsonread.h"
#include "plan.h"
#include "planentry.h"
#include "planload.h"
#include "skip.h"
#include "util.h"
#include "trust.h"
#include "common.h"

/*
 * The loader keeps going after a problem so that one run reports them all
 * (the mode of jsonread.h that records every problem).  Each reader returns 0
 * when it produced a value and a negative number when it did not; the checks
 * that combine members only run on values that were read, so one mistake does
 * not cascade into many.
 */

/* --- the document ---------------------------------------------------------------------- */

/* A member object at $.<key>, checked by @fn. */
static void read_object(struct jcheck *jc, struct json_object *doc, const struct jpath *p,
			const char *key,
			void (*fn)(struct jcheck *, struct json_object *, const struct jpath *,
				   struct plan *),
			struct plan *plan)
{
	struct jpath kp = jpath_key(p, key);
	bool present;
	struct json_object *o = jcheck_get(doc, key, &present);

	if (present)
		fn(jc, o, &kp, plan);
}

static void read_tool(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		      struct plan *plan)
{
	static const char *const keys[] = { "name", "version", NULL };
	const char *name, *version;

	if (jcheck_keys(jc, o, p, keys, keys) < 0)
		return;
	if (jcheck_string(jc, o, p, "name", false, &name) == 0 && !s2c_streq(name, "suid2cap"))
		jcheck_problem_at(jc, p, "name", "expected \"suid2cap\"");
	if (jcheck_string(jc, o, p, "version", false, &version) == 0 &&
	    !(plan->tool_version = strdup(version)))
		jc->oom = true;
}

/* "YYYY-MM-DDTHH:MM:SSZ" */
static bool valid_timestamp(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	unsigned y, mo, d, h, mi, se;

	if (strlen(s) != strlen(shape))
		return false;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
			return false;
	if (sscanf(s, "%4u-%2u-%2uT%2u:%2u:%2uZ", &y, &mo, &d, &h, &mi, &se) != 6)
		return false;
	return y >= 1970 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 &&
	       se <= 60;
}

static void read_host(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		      struct plan *plan)
{
	static const char *const keys[] = { "live", "kernel", "os_id", "os_pretty",
					    "ping_group_range", NULL };
	const char *kernel = NULL, *os_id = NULL, *pretty = NULL, *pgr = NULL;
	bool oom = false;

	if (jcheck_keys(jc, o, p, keys, keys) < 0)
		return;
	(void)jcheck_bool(jc, o, p, "live", &plan->live);
	(void)jcheck_string(jc, o, p, "kernel", false, &kernel);
	(void)jcheck_string(jc, o, p, "os_id", true, &os_id);
	(void)jcheck_string(jc, o, p, "os_pretty", true, &pretty);
	(void)jcheck_string(jc, o, p, "ping_group_range", true, &pgr);
	plan->kernel = kernel ? strdup(kernel) : NULL;
	plan->os_id = os_id ? strdup(os_id) : NULL;
	plan->os_pretty = pretty ? strdup(pretty) : NULL;
	plan->ping_group_range = pgr ? strdup(pgr) : NULL;
	oom = (kernel && !plan->kernel) || (os_id && !plan->os_id) ||
	      (pretty && !plan->os_pretty) || (pgr && !plan->ping_group_range);
	jc->oom |= oom;
}

static void read_database(struct jcheck *jc, struct json_object *o, const struct jpath *p,
			  struct plan *plan)
{
	static const char *const keys[] = { "hash", "rules", "files", NULL };
	struct jpath fp = jpath_key(p, "files");
	const char *hash;
	uint64_t rules = 0;

	if (jcheck_keys(jc, o, p, keys, keys) < 0)
		return;
	if (jcheck_string(jc, o, p, "hash", false, &hash) == 0) {
		if (strlen(hash) != 64 || !jcheck_lower_hex(hash, 64))
			jcheck_problem_at(jc, p, "hash", "expected 64 lowercase hex digits");
		else if (!(plan->db_hash = strdup(hash)))
			jc->oom = true;
	}
	if (jcheck_int(jc, o, p, "rules", 0, UINT32_MAX, NULL, &rules) == 0)
		plan->db_rules = (size_t)rules;
	if (jcheck_strv(jc, o, p, "files", false, &plan->db_files, &plan->n_db_files) < 0)
		return;
	for (size_t i = 0; i < plan->n_db_files; i++) {
		const char *f = plan->db_files[i];
		if (!*f || strchr(f, '/') || s2c_streq(f, ".") || s2c_streq(f, "..")) {
			struct jpath ip = jpath_index(&fp, i);
			(void)jcheck_problem(jc, &ip, "'%s' is not a file name (base names only)",
					     f);
		}
	}
}

/* How one kind of array in the document is read. */
struct array_kind {
	size_t size;                  /* of one element */
	/* Read one element; 0 when it can be put in order (it may still have problems). */
	int (*read)(struct jcheck *jc, struct json_object *o, const struct jpath *p, void *elem);
	int (*cmp)(const void *a, const void *b);   /* the order: strcmp-like */
	/* Report @elem equal to (@c == 0) or before (@c > 0) the element ahead of it. */
	void (*misordered)(struct jcheck *jc, const struct jpath *p, const void *elem, int c);
};

/*
 * Read element @e of kind @k from @o at @p and check it comes after @prev (NULL for
 * the first), when both could be put in order (*@prev_ok, updated for @e).
 */
static void read_element(struct jcheck *jc, const struct array_kind *k, struct json_object *o,
			 const struct jpath *p, const void *prev, void *e, bool *prev_ok)
{
	bool ok = k->read(jc, o, p, e) == 0;
	int c = ok && *prev_ok && prev ? k->cmp(prev, e) : -1;

	if (c >= 0)
		k->misordered(jc, p, e, c);
	*prev_ok = ok;
}

/*
 * Read the array @a at @p into a new vector (*@ret_v, with *@ret_n elements
 * read so far, so that what was read is released with the plan), checking
 * that its elements are unique and in order.
 */
static void read_array(struct jcheck *jc, struct json_object *a, const struct jpath *p,
		       const struct array_kind *k, void **ret_v, size_t *ret_n)
{
	size_t n;
	bool prev_ok = false;
	char *v;

	if (!json_object_is_type(a, json_type_array)) {
		(void)jcheck_problem(jc, p, "expected an array");
		return;
	}
	n = json_object_array_length(a);
	v = calloc(n ? n : 1, k->size);
	if (!v) {
		jc->oom = true;
		return;
	}
	*ret_v = v;
	for (size_t i = 0; i < n && !jc->oom; i++) {
		struct jpath ip = jpath_index(p, i);

		*ret_n = i + 1;
		read_element(jc, k, json_object_array_get_idx(a, i), &ip,
			     i ? v + (i - 1) * k->size : NULL, v + i * k->size, &prev_ok);
	}
}

static int read_mount(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		      struct plan_mount *m)
{
	static const char *const keys[] = { "target", "target_hex", "fstype", "nosuid",
					    "readonly", NULL };
	static const char *const req[] = { "target", "fstype", "nosuid", "readonly", NULL };
	const size_t problems = jc->count;
	const char *fstype = NULL;

	if (jcheck_keys(jc, o, p, keys, req) < 0)
		return -EINVAL;
	(void)jcheck_name(jc, o, p, "target", true, &m->target);
	if (jcheck_string(jc, o, p, "fstype", true, &fstype) == 0 && fstype &&
	    !(m->fstype = strdup(fstype)))
		jc->oom = true;
	(void)jcheck_bool(jc, o, p, "nosuid", &m->nosuid);
	(void)jcheck_bool(jc, o, p, "readonly", &m->rdonly);
	return jc->count == problems ? 0 : -EINVAL;
}

static int read_mount_el(struct jcheck *jc, struct json_object *o, const struct jpath *p,
			 void *elem)
{
	return read_mount(jc, o, p, elem);
}

static int mount_cmp(const void *a, const void *b)
{
	return plan_mount_cmp(a, b);
}

static void mount_misordered(struct jcheck *jc, const struct jpath *p, const void *elem, int c)
{
	(void)elem;
	(void)jcheck_problem(jc, p, c == 0 ? "the same mount twice"
					   : "not sorted (by target, fstype, nosuid, readonly)");
}

static const struct array_kind mounts_kind = {
	sizeof(struct plan_mount), read_mount_el, mount_cmp, mount_misordered,
};

static void read_mounts(struct jcheck *jc, struct json_object *a, const struct jpath *p,
			struct plan *plan)
{
	read_array(jc, a, p, &mounts_kind, (void **)&plan->mounts, &plan->n_mounts);
}

static int read_skipped(struct jcheck *jc, struct json_object *o, const struct jpath *p,
			struct skip_entry *e)
{
	static const char *const keys[] = { "path", "path_hex", "reason", "source", "source_hex",
					    NULL };
	static const char *const req[] = { "path", "reason", "source", NULL };
	const size_t problems = jc->count;
	const char *reason;

	if (jcheck_keys(jc, o, p, keys, req) < 0)
		return -EINVAL;
	if (jcheck_name(jc, o, p, "path", false, &e->path) == 0 && e->path[0] != '/')
		jcheck_problem_at(jc, p, "path", "'%s' is not an absolute path", e->path);
	if (jcheck_string(jc, o, p, "reason", false, &reason) == 0) {
		int r = skip_reason_from_name(reason);
		if (r < 0)
			jcheck_problem_at(jc, p, "reason", "expected \"os-root\", "
					  "\"container-storage\", \"overlay\" or \"excluded\"");
		else
			e->reason = (enum skip_reason)r;
	}
	(void)jcheck_name(jc, o, p, "source", true, &e->source);
	return jc->count == problems ? 0 : -EINVAL;
}

static int skipped_el(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		      void *elem)
{
	return read_skipped(jc, o, p, elem);
}

static int skipped_cmp(const void *a, const void *b)
{
	return strcmp(((const struct skip_entry *)a)->path, ((const struct skip_entry *)b)->path);
}

static void skipped_misordered(struct jcheck *jc, const struct jpath *p, const void *elem, int c)
{
	(void)elem;
	jcheck_problem_at(jc, p, "path", c == 0 ? "the same path twice" : "not sorted by path");
}

static const struct array_kind skipped_kind = {
	sizeof(struct skip_entry), skipped_el, skipped_cmp, skipped_misordered,
};

/* "not_scanned": what the scan left out; absent in plans from before it existed. */
static void read_not_scanned(struct jcheck *jc, struct json_object *a, const struct jpath *p,
			     struct plan *plan)
{
	read_array(jc, a, p, &skipped_kind, (void **)&plan->not_scanned, &plan->n_not_scanned);
}

/* An entry with problems is still ordered when its path was read. */
static int entry_el(struct jcheck *jc, struct json_object *o, const struct jpath *p, void *elem)
{
	struct plan_entry *e = elem;

	(void)planentry_read(jc, o, p, e);
	return e->path ? 0 : -EINVAL;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct plan_entry *)a)->path, ((const struct plan_entry *)b)->path);
}

static void entry_misordered(struct jcheck *jc, const struct jpath *p, const void *elem, int c)
{
	const struct plan_entry *e = elem;

	if (c == 0)
		jcheck_problem_at(jc, p, "path", "'%s' is in the plan twice", e->path);
	else
		jcheck_problem_at(jc, p, "path", "'%s' is out of order: entries are sorted by path",
				  e->path);
}

static const struct array_kind entries_kind = {
	sizeof(struct plan_entry), entry_el, entry_cmp, entry_misordered,
};

static void read_entries(struct jcheck *jc, struct json_object *a, const struct jpath *p,
			 struct plan *plan)
{
	read_array(jc, a, p, &entries_kind, (void **)&plan->v, &plan->n);
}

/*
 * The entries as the parser meets them, one at a time, with read_array()'s checks;
 * their problems are kept apart (@problems), to be told in their place among the
 * document's, and only if the document parses.
 */
struct entry_stream {
	struct jcheck jc;
	struct jcheck_problems problems;
	struct plan *plan;
	size_t alloc;
	bool prev_ok;
};

static int stream_entry(const struct jsonread_element *el, void *userdata)
{
	struct entry_stream *es = userdata;
	struct plan *plan = es->plan;
	struct plan_entry *e;

	if (S2C_ARRAY_RESERVE(plan->v, es->alloc, plan->n + 1, 64) < 0)
		return -ENOMEM;
	e = &plan->v[plan->n++];
	*e = (struct plan_entry){ 0 };
	read_element(&es->jc, &entries_kind, el->value, el->path, plan->n > 1 ? e - 1 : NULL, e,
		     &es->prev_ok);
	return es->jc.oom ? -ENOMEM : 0;
}

/* The summary; it must count the entries when @compare (they were read without a problem). */
static void read_summary(struct jcheck *jc, struct json_object *o, const struct jpath *p,
			 const struct plan *plan, bool compare)
{
	static const char *const keys[] = { "change", "unchanged", "migrate", "drop", "keep",
					    "review", NULL };
	struct plan_summary s;
	size_t want[6];

	if (jcheck_keys(jc, o, p, keys, keys) < 0)
		return;
	plan_summarise(plan, &s);
	want[0] = s.change;
	want[1] = s.unchanged;
	for (int v = 0; v < _VERDICT_MAX; v++)
		want[2 + v] = s.by_verdict[v];
	for (size_t i = 0; keys[i]; i++) {
		uint64_t n;
		if (jcheck_int(jc, o, p, keys[i], 0, UINT32_MAX, NULL, &n) == 0 && compare &&
		    n != want[i])
			jcheck_problem_at(jc, p, keys[i], "says %llu, but the entries count %zu",
					  (unsigned long long)n, want[i]);
	}
}

/* @streamed: the problems of the entries load_mem() read as the parser met them, when
 * it met some (plan->v), or NULL. */
static void read_plan(struct jcheck *jc, struct json_object *doc, const char *file,
		      struct plan *plan, const struct jcheck *streamed)
{
	static const char *const keys[] = { "schema", "kind", "tool", "created", "root",
					    "root_hex", "host", "database", "mounts", "not_scanned",
					    "summary", "entries", NULL };
	static const char *const req[] = { "schema", "kind", "tool", "root", "host", "database",
					   "mounts", "summary", "entries", NULL };
	struct jpath p, sp;
	const char *kind, *created;
	int64_t schema;
	size_t before_entries;
	bool present;
	struct json_object *summary;

	jpath_init(&p, file);
	sp = jpath_key(&p, "summary");
	if (jcheck_keys(jc, doc, &p, keys, req) < 0)
		return;
	if (jcheck_int(jc, doc, &p, "schema", INT64_MIN, INT64_MAX, &schema, NULL) == 0) {
		if (schema != PLAN_SCHEMA)
			jcheck_problem_at(jc, &p, "schema",
					  "plan schema %lld is not supported (this suid2cap reads "
					  "schema %d)", (long long)schema, PLAN_SCHEMA);
		plan->schema = PLAN_SCHEMA;
	}
	if (jcheck_string(jc, doc, &p, "kind", false, &kind) == 0 && !s2c_streq(kind, PLAN_KIND))
		jcheck_problem_at(jc, &p, "kind", "expected \"%s\"", PLAN_KIND);
	read_object(jc, doc, &p, "tool", read_tool, plan);
	if (jcheck_string(jc, doc, &p, "created", false, &created) == 0) {
		if (!valid_timestamp(created))
			jcheck_problem_at(jc, &p, "created", "expected a UTC time such as "
					  "\"2026-01-31T12:00:00Z\"");
		else if (!(plan->created = strdup(created)))
			jc->oom = true;
	}
	if (jcheck_name(jc, doc, &p, "root", false, &plan->root) == 0 && plan->root[0] != '/')
		jcheck_problem_at(jc, &p, "root", "'%s' is not an absolute path", plan->root);
	read_object(jc, doc, &p, "host", read_host, plan);
	read_object(jc, doc, &p, "database", read_database, plan);
	read_object(jc, doc, &p, "mounts", read_mounts, plan);
	read_object(jc, doc, &p, "not_scanned", read_not_scanned, plan);
	before_entries = jc->count;
	if (streamed && plan->v)
		jcheck_replay(jc, streamed);
	else
		read_object(jc, doc, &p, "entries", read_entries, plan);
	/* The summary is checked last, against the entries; counting entries that had
	 * problems would only repeat them. */
	summary = jcheck_get(doc, "summary", &present);
	if (present)
		read_summary(jc, summary, &sp, plan, jc->count == before_entries);
}

/* --- public ------------------------------------------------------------------------------ */

int plan_from_json_all(struct json_object *doc, const char *file, struct plan **ret,
		       struct jcheck_problems *problems, struct s2c_error *err)
{
	struct jcheck c = { .out = problems };
	struct plan *plan = calloc(1, sizeof(*plan));
	int r;

	if (!plan)
		return -ENOMEM;
	read_plan(&c, doc, file, plan, NULL);
	r = jcheck_finish(&c, err);
	if (r < 0) {
		plan_free(plan);
		return r;
	}
	*ret = plan;
	return 0;
}

int plan_from_json(struct json_object *doc, const char *file, struct plan **ret,
		   struct s2c_error *err)
{
	return plan_from_json_all(doc, file, ret, NULL, err);
}

/*
 * Parse @len bytes at @buf as a plan; content problems go to @problems too.  The
 * entries are read as the parser meets them, so that a plan of many files costs its
 * entries and its text, not json-c's objects of all of them.
 */
static int load_mem(const char *buf, size_t len, const char *display, struct plan **ret,
		    struct jcheck_problems *problems, struct s2c_error *err)
{
	_cleanup_jsonput_ struct json_object *doc = NULL;
	struct jcheck c = { .out = problems };
	struct plan *plan = calloc(1, sizeof(*plan));
	struct entry_stream es = { .plan = plan };
	int r;

	if (!plan)
		return -ENOMEM;
	es.jc.out = &es.problems;
	r = jsonread_parse_stream(buf, len, PLAN_MAX_SIZE, display, "entries", stream_entry, &es,
				  &doc, err);
	if (r == 0) {
		read_plan(&c, doc, display, plan, &es.jc);
		r = c.oom ? -ENOMEM : jcheck_finish(&c, err);
	} else if (r != -ENOMEM && !es.jc.oom) {
		/* only why the document stops: its entries may be cut anywhere */
		jcheck_record(&c, display, NULL, err && err->msg[0] ? err->msg : "malformed JSON");
		r = c.oom ? -ENOMEM : r;
	} else {
		r = -ENOMEM;
	}
	jcheck_problems_release(&es.problems);
	if (r < 0) {
		plan_free(plan);
		return r;
	}
	*ret = plan;
	return 0;
}

/* Read the file (trust-checked when asked) and, when @ret_sha256, hash its bytes. */
static int load_file(int dirfd, const char *name, const char *display, bool trusted,
		     struct plan **ret, struct jcheck_problems *problems, char *ret_sha256,
		     struct s2c_error *err)
{
	_cleanup_free_ char *buf = NULL;
	uint32_t uid = 0, mode = 0;
	size_t len = 0;
	int r;

	r = jsonread_slurp_max(dirfd, name, display, PLAN_MAX_SIZE, &buf, &len, &uid, &mode, err);
	if (r < 0)
		return r;
	if (trusted) {
		r = trust_check(uid, mode, TRUST_SHARED, "plan", display, err);
		if (r < 0)
			return r;
	}
	if (ret_sha256 && hash_mem_sha256(buf, len, ret_sha256) < 0)
		return -ENOMEM;
	return load_mem(buf, len, display, ret, problems, err);
}

int plan_load_all(int dirfd, const char *name, const char *display, bool trusted,
		  struct plan **ret, struct jcheck_problems *problems, struct s2c_error *err)
{
	return load_file(dirfd, name, display, trusted, ret, problems, NULL, err);
}

int plan_load(int dirfd, const char *name, const char *display, bool trusted,
	      struct plan **ret, struct s2c_error *err)
{
	return load_file(dirfd, name, display, trusted, ret, NULL, NULL, err);
}

int plan_load_hashed(int dirfd, const char *name, const char *display, bool trusted,
		     struct plan **ret, char ret_sha256[static HASH_HEX_LEN], struct s2c_error *err)
{
	char hex[HASH_HEX_LEN];
	int r = load_file(dirfd, name, display, trusted, ret, NULL, hex, err);

	if (r == 0)
		memcpy(ret_sha256, hex, HASH_HEX_LEN);
	return r;
}

int plan_from_mem(const char *buf, size_t len, const char *display, struct plan **ret,
		  struct s2c_error *err)
{
	return load_mem(buf, len, display, ret, NULL, err);
}

int plan_from_mem_all(const char *buf, size_t len, const char *display, struct plan **ret,
		      struct jcheck_problems *problems, struct s2c_error *err)
{
	return load_mem(buf, len, display, ret, problems, err);
}
