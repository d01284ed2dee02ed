/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "db.h"
#include "dirlist.h"
#include "evidence.h"
#include "glob.h"
#include "hash.h"
#include "jsonread.h"
#include "override.h"
#include "resolve.h"
#include "ruleparse.h"
#include "strtable.h"
#include "util.h"
#include "trust.h"
#include "common.h"

#define CAPS_FILE "capabilities.json"
#define MAX_FILES 1024

static const char *const verdict_names[_VERDICT_MAX] = { "migrate", "drop", "keep", "review" };

DEFINE_STRING_TABLE_TO_NAME(verdict_name, enum verdict, verdict_names, "invalid")

DEFINE_STRING_TABLE_FROM_NAME(verdict_from_name, enum verdict, verdict_names)

struct rules_db *rules_db_free(struct rules_db *db)
{
	if (!db)
		return NULL;
	for (size_t i = 0; i < db->n_storage; i++) {
		struct rule *r = db->storage[i];
		free(r->paths);
		strv_free(r->layout);
		free(r->names);
		free(r->packages);
		free(r->sha256);
		free(r->groups);
		free(r->sources);
		free(r->smoke);
		for (size_t j = 0; j < r->n_conditions; j++)
			free(r->conditions[j].when.os);
		free(r->conditions);
		free(r->distros);
		free(r->identify.needed);
		free(r->identify.soname);
		free(r->identify.strings);
		free(r);
	}
	free(db->storage);
	free(db->strings);
	free(db->prefixes);
	free(db->symbols);
	for (size_t i = 0; i < db->n_layers; i++)
		free(db->layers[i].dir);
	free(db->layers);
	free(db->rules);
	free(db->overrides);
	if (db->have_caps)
		captable_release(&db->caps);
	for (size_t i = 0; i < db->n_files; i++)
		free(db->files[i]);
	free(db->files);
	for (size_t i = 0; i < db->n_docs; i++)
		json_object_put(db->docs[i]);
	free(db->docs);
	free(db);
	return NULL;
}

/* --- problems ------------------------------------------------------------------- */

void rules_problems_release(struct rules_problems *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

int rules_problems_add(struct rules_problems *p, const char *msg)
{
	char **nv;

	for (size_t i = 0; i < p->n; i++)
		if (s2c_streq(p->v[i], msg))
			return 0;
	nv = realloc(p->v, (p->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	p->v = nv;
	if (!(p->v[p->n] = strdup(msg)))
		return -ENOMEM;
	p->n++;
	return 0;
}

/*
 * A problem found while loading: with a collector (rules lint), record it and
 * go on (return 0); without, fail with it.  -ENOMEM always fails.
 */
int rules_problem(struct rules_problems *collect, int r, struct s2c_error *err,
		  struct s2c_error *local)
{
	if (r >= 0)
		return r;
	if (!collect || r == -ENOMEM) {
		if (err && local != err)
			*err = *local;
		return r;
	}
	r = rules_problems_add(collect, local->msg[0] ? local->msg : strerror(-r));
	s2c_error_clear(local);
	return r;
}

/* --- files and directories ---------------------------------------------------- */

static int keep_doc(struct rules_db *db, struct json_object *doc)
{
	struct json_object **nd = realloc(db->docs, (db->n_docs + 1) * sizeof(*nd));

	if (!nd)
		return -ENOMEM;
	db->docs = nd;
	db->docs[db->n_docs++] = doc;
	return 0;
}

/* A zeroed rule that @db owns.  Rules do not move: the layers and db->rules point to them. */
static struct rule *new_rule(struct rules_db *db)
{
	struct rule *rule;

	if (S2C_ARRAY_RESERVE(db->storage, db->alloc_storage, db->n_storage + 1, 256) < 0)
		return NULL;
	rule = calloc(1, sizeof(*rule));
	if (rule)
		db->storage[db->n_storage++] = rule;
	return rule;
}

static int check_trust(const struct stat *st, const char *what, const char *path,
		       struct s2c_error *err)
{
	return trust_check(st->st_uid, st->st_mode, TRUST_SHARED, what, path, err);
}

static int hash_update(struct hash_stream *md, const char *name, const char *buf, size_t len)
{
	int r = hash_stream_update(md, name, strlen(name) + 1);

	return r < 0 ? r : hash_stream_update(md, buf, len);
}

/* Parse one rules file; rules go to @layer (ids unique within the layer).  With
 * @collect, a bad rule is recorded there and skipped. */
static int load_rules_file(struct rules_db *db, struct json_object *doc, const char *display,
			   struct rule ***layer, size_t *n_layer, struct rules_problems *collect,
			   struct s2c_error *err)
{
	static const char *const keys[] = { "schema", "area", "description", "rules", "overrides",
					    NULL };
	static const char *const req[] = { "schema", "area", NULL };
	struct json_object *arr = NULL;
	const char *area = NULL, *descr = NULL;
	int64_t schema;
	struct jpath p, rp;
	int r;

	jpath_init(&p, display);
	r = jsonread_keys(doc, &p, keys, req, err);
	if (r == 0)
		r = jsonread_int(doc, &p, "schema", true, 1, 1, &schema, err);
	if (r == 0)
		r = jsonread_string(doc, &p, "area", true, &area, err);
	if (r == 0)
		r = jsonread_string(doc, &p, "description", false, &descr, err);
	if (r == 0)
		r = jsonread_array(doc, &p, "rules", false, &arr, err);
	if (r < 0)
		return r;
	{
		/* the area names the file: network.json holds area "network" */
		const char *base = strrchr(display, '/');
		size_t len;
		base = base ? base + 1 : display;
		len = strlen(base) - 5;   /* without ".json" */
		if (strlen(area) != len || strncmp(area, base, len) != 0) {
			struct jpath ap = jpath_key(&p, "area");
			return jpath_error(&ap, err, "area '%s' differs from the file name '%s'", area,
					   base);
		}
	}
	r = override_load_file(db, doc, &p, display, db->n_layers, arr != NULL, collect, err);
	if (r < 0)
		return r;
	rp = jpath_key(&p, "rules");
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		struct jpath ip = jpath_index(&rp, i);
		struct rule *rule = new_rule(db), **nl;

		if (!rule)
			return -ENOMEM;
		rule->file = display;
		(void)snprintf(rule->where, sizeof(rule->where), "%s", ip.path);
		r = ruleparse_rule(json_object_array_get_idx(arr, i), &ip, rule, err);
		for (size_t j = 0; j < *n_layer && r == 0; j++)
			if (s2c_streq((*layer)[j]->id, rule->id))
				r = jpath_error(&ip, err, "duplicate id '%s' (also in %s %s)",
						rule->id, (*layer)[j]->file, (*layer)[j]->where);
		if (r < 0) {
			/* rules lint: a bad rule is one problem, and the others are read on */
			r = rules_problem(collect, r, err, err);
			if (r < 0)
				return r;
			continue;
		}
		nl = realloc(*layer, (*n_layer + 1) * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		*layer = nl;
		(*layer)[(*n_layer)++] = rule;
	}
	return 0;
}

static int add_file_name(struct rules_db *db, char *display)
{
	char **nf = realloc(db->files, (db->n_files + 1) * sizeof(*nf));

	if (!nf) {
		free(display);
		return -ENOMEM;
	}
	db->files = nf;
	db->files[db->n_files++] = display;
	return 0;
}

/* Read, trust-check, hash and parse dfd/name; the document is kept in db. */
static int read_doc(struct rules_db *db, int dfd, const char *dir, const char *name,
		    enum rules_load_flags flags, struct hash_stream *md, struct json_object **ret,
		    const char **ret_display, struct s2c_error *err)
{
	_cleanup_free_ char *buf = NULL;
	char *display = path_join(dir, name);
	uint32_t uid, mode;
	size_t len;
	int r;

	if (!display)
		return -ENOMEM;
	r = add_file_name(db, display);
	if (r < 0)
		return r;
	r = jsonread_slurp(dfd, name, display, &buf, &len, &uid, &mode, err);
	if (r < 0)
		return r;
	if (flags & RULES_LOAD_TRUSTED) {
		struct stat st = { .st_uid = uid, .st_mode = mode };
		r = check_trust(&st, "rules file", display, err);
		if (r < 0)
			return r;
	}
	r = hash_update(md, name, buf, len);
	if (r == 0)
		r = jsonread_parse_mem(buf, len, display, ret, err);
	if (r == 0)
		r = keep_doc(db, *ret);
	if (r < 0)
		return r;
	*ret_display = display;
	return 0;
}

static int load_dir(struct rules_db *db, const char *dir, int dirfd, enum rules_load_flags flags,
		    struct hash_stream *md, struct rule ***layer, size_t *n_layer,
		    struct rules_problems *collect, struct s2c_error *err)
{
	_cleanup_close_ int dfd = dirfd >= 0 ? fcntl(dirfd, F_DUPFD_CLOEXEC, 3) :
					       open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_(strv_freep) char **names = NULL;
	struct s2c_error local = { 0 };
	struct stat st;
	int r;

	if (dfd < 0)
		return s2c_error_errno(err, -errno, "cannot open rules directory '%s'", dir);
	if (fstat(dfd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat '%s'", dir);
	if (flags & RULES_LOAD_TRUSTED) {
		r = check_trust(&st, "rules directory", dir, err);
		if (r < 0)
			return r;
	}
	if (faccessat(dfd, CAPS_FILE, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		struct json_object *doc;
		const char *display;

		r = read_doc(db, dfd, dir, CAPS_FILE, flags, md, &doc, &display, err);
		if (r < 0)
			return r;
		if (db->have_caps)
			captable_release(&db->caps);
		db->have_caps = false;
		r = captable_load(&db->caps, doc, display, err);
		if (r < 0)
			return r;
		db->have_caps = true;
	}
	r = dirlist(dfd, "*.json", MAX_FILES, &names);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot list '%s'", dir);
	r = 0;
	for (size_t i = 0; names[i] && r == 0; i++) {
		struct json_object *doc;
		const char *display;

		if (s2c_streq(names[i], CAPS_FILE))
			continue;
		r = read_doc(db, dfd, dir, names[i], flags, md, &doc, &display, &local);
		if (r == 0)
			r = load_rules_file(db, doc, display, layer, n_layer, collect, &local);
		/* rules lint: a file that cannot be read or parsed is one problem; go on */
		r = rules_problem(collect, r, err, &local);
	}
	return r;
}

static int cmp_rule_id(const void *a, const void *b)
{
	return strcmp((*(struct rule *const *)a)->id, (*(struct rule *const *)b)->id);
}

/* Put the layer's rules into db->rules, replacing earlier rules by id. */
static int merge_layer(struct rules_db *db, struct rule **layer, size_t n_layer)
{
	struct rule **nr = realloc(db->rules, (db->n + n_layer + 1) * sizeof(*nr));

	if (!nr)
		return -ENOMEM;
	db->rules = nr;
	for (size_t i = 0; i < n_layer; i++) {
		bool replaced = false;
		for (size_t j = 0; j < db->n; j++)
			if (s2c_streq(db->rules[j]->id, layer[i]->id)) {
				db->rules[j] = layer[i];
				replaced = true;
				break;
			}
		if (!replaced)
			db->rules[db->n++] = layer[i];
	}
	return 0;
}

/* The literals the engine looks for in binaries: breaker strings first (their
 * indexes stay those of caps.all_strings), then identify strings; the
 * version prefixes; the imports it asks about. */
static int collect_needles(struct rules_db *db)
{
	size_t ns = db->caps.n_strings, np = 0;

	for (size_t i = 0; i < db->n; i++) {
		const struct rule *r = db->rules[i];
		for (size_t j = 0; r->identify.strings && r->identify.strings[j]; j++)
			ns++;
		np += r->version_prefix != NULL;
	}
	db->strings = calloc(ns + 1, sizeof(*db->strings));
	db->prefixes = calloc(np + 1, sizeof(*db->prefixes));
	if (!db->strings || !db->prefixes)
		return -ENOMEM;
	for (size_t i = 0; i < db->caps.n_strings; i++)
		db->strings[db->n_strings++] = db->caps.all_strings[i];
	for (size_t i = 0; i < db->n; i++) {
		struct rule *r = db->rules[i];
		r->identify.strings_at = db->n_strings;
		for (size_t j = 0; r->identify.strings && r->identify.strings[j]; j++)
			db->strings[db->n_strings++] = r->identify.strings[j];
		if (r->version_prefix) {
			r->version_at = db->n_prefixes;
			db->prefixes[db->n_prefixes++] = r->version_prefix;
		}
	}
	return evidence_symbols(&db->caps, &db->symbols, &db->n_symbols);
}

struct binary_wants rules_db_wants(const struct rules_db *db)
{
	return (struct binary_wants){
		.strings = db->strings,
		.prefixes = db->prefixes,
		.symbols = db->symbols,
	};
}

/* Every capability named by the rules exists in the table. */
static int check_caps_known(const struct rules_db *db, struct rules_problems *collect,
			    struct s2c_error *err)
{
	for (size_t i = 0; i < db->n; i++) {
		const struct rule *r = db->rules[i];
		uint64_t m = r->caps.permitted | r->caps.inheritable | r->needs.permitted |
			     r->needs.inheritable;
		for (size_t c = 0; c < r->n_conditions; c++)
			m |= r->conditions[c].caps.permitted | r->conditions[c].caps.inheritable;
		for (unsigned b = 0; b < 64; b++)
			if ((m & S2C_CAPMASK(b)) && !db->caps.caps[b].known) {
				int e = s2c_error_set(err, -EINVAL,
						      "%s: %s: capability %u is not in the capability table",
						      r->file, r->where, b);
				e = rules_problem(collect, e, err, err);
				if (e < 0)
					return e;
			}
	}
	return 0;
}

/* Remember what each layer contributed, for reports. */
static int note_layer(struct rules_db *db, const char *dir, const char *label, bool present,
		      size_t n_rules)
{
	struct rules_db_layer *nl = realloc(db->layers, (db->n_layers + 1) * sizeof(*nl));

	if (!nl)
		return -ENOMEM;
	db->layers = nl;
	nl[db->n_layers] = (struct rules_db_layer){ .dir = strdup(dir), .present = present,
						    .rules = n_rules, .label = label };
	if (!nl[db->n_layers].dir)
		return -ENOMEM;
	db->n_layers++;
	return 0;
}

static bool layer_absent(const struct rules_layer *l)
{
	struct stat st;

	return l->dirfd == RULES_LAYER_ABSENT ||
	       (l->dirfd < 0 && stat(l->dir, &st) < 0 && errno == ENOENT);
}

int rules_db_load_layers(const struct rules_layer *layers, size_t n, enum rules_load_flags flags,
			 struct rules_problems *collect, struct rules_db **ret, struct s2c_error *err)
{
	_cleanup_(rules_db_freep) struct rules_db *db = calloc(1, sizeof(*db));
	struct hash_stream *md = NULL;
	char hex[HASH_ANY_HEX_LEN];
	struct s2c_error local = { 0 };
	size_t loaded = 0;
	int r = 0;

	if (!db || hash_stream_new(HASH_SHA256, &md) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct rule **layer = NULL;
		size_t n_layer = 0;

		/* Optional layers (e.g. /etc) may be absent; a lone --db may not. */
		if (layers[i].optional && layer_absent(&layers[i])) {
			r = note_layer(db, layers[i].dir, layers[i].label, false, 0);
			continue;
		}
		r = load_dir(db, layers[i].dir, layers[i].dirfd, flags, md, &layer, &n_layer, collect,
			     err);
		if (r == 0)
			r = merge_layer(db, layer, n_layer);
		if (r == 0)
			r = note_layer(db, layers[i].dir, layers[i].label, true, n_layer);
		free(layer);
		loaded++;
	}
	if (r == 0)
		r = hash_stream_final(md, hex);
	hash_stream_free(md);
	if (r < 0)
		return r;
	if (loaded == 0)
		return s2c_error_set(err, -ENOENT, "no rules directory found (looked in %s)",
				     n ? layers[0].dir : "nothing");
	if (!db->have_caps)
		return s2c_error_set(err, -ENOENT, "no %s in any rules directory", CAPS_FILE);
	memcpy(db->hash, hex, sizeof(db->hash));
	if (db->n)
		qsort(db->rules, db->n, sizeof(*db->rules), cmp_rule_id);
	r = rules_problem(collect, check_caps_known(db, collect, &local), err, &local);
	if (r == 0)
		r = rules_problem(collect, override_resolve(db, collect, &local), err, &local);
	if (r == 0)
		r = collect_needles(db);
	if (r == 0 && (flags & RULES_LOAD_NO_OVERLAP))
		r = rules_problem(collect, rules_db_overlaps(db, collect, &local), err, &local);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(db);
	return 0;
}

int rules_db_open_target_layer(int rootfd, int *ret_fd, struct s2c_error *err)
{
	int fd = resolve_open(rootfd, S2C_SYSCONF_DBDIR, O_RDONLY | O_DIRECTORY);

	if (fd == -ENOENT) {
		*ret_fd = RULES_LAYER_ABSENT;
		return 0;
	}
	if (fd == -ELOOP)
		return s2c_error_set(err, fd, "'%s' or a directory above it is a symbolic link",
				     S2C_SYSCONF_DBDIR);
	if (fd < 0)
		return s2c_error_errno(err, fd, "cannot open '%s'", S2C_SYSCONF_DBDIR);
	*ret_fd = fd;
	return 0;
}

int rules_db_load(const char *const *dirs, enum rules_load_flags flags, struct rules_db **ret,
		  struct s2c_error *err)
{
	struct rules_layer layers[64];
	size_t n = 0;

	while (dirs[n] && n < S2C_ELEMENTSOF(layers)) {
		layers[n] = (struct rules_layer){ .dir = dirs[n], .dirfd = -1 };
		n++;
	}
	/* Optional layers (e.g. /etc) may be absent; a lone --db may not. */
	for (size_t i = 0; n > 1 && i < n; i++)
		layers[i].optional = true;
	return rules_db_load_layers(layers, n, flags, NULL, ret, err);
}

const struct rule *rules_db_find(const struct rules_db *db, const char *id)
{
	size_t lo = 0, hi = db->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(db->rules[mid]->id, id);
		if (c == 0)
			return db->rules[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
