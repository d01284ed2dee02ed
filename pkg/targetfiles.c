/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The privileged files of a target once installed (target_files()): the
 * install-time actions applied in the order the scripts run, in the
 * scenario where setcap works and in its fallback; owner and group names
 * turned into ids; the facts of each staged copy for the engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "actindex.h"
#include "facts.h"
#include "fcaps.h"
#include "hashindex.h"
#include "resolve.h"
#include "stage.h"
#include "target.h"
#include "targetkeep.h"
#include "strhash.h"
#include "util.h"
#include "common.h"

/* --- owners --------------------------------------------------------------------------------- */

struct idname {
	char *name;
	uint32_t id;
};

struct ids {
	struct idname *v;
	size_t n, alloc;
	struct hashindex index; /* of @v by name */
	uint32_t next;          /* next placeholder */
};

static void ids_release(struct ids *ids)
{
	for (size_t i = 0; i < ids->n; i++)
		free(ids->v[i].name);
	free(ids->v);
	hashindex_release(&ids->index);
}

struct id_lookup {
	const struct ids *ids;
	const char *name;
};

static bool id_named(size_t pos, const void *userdata)
{
	const struct id_lookup *l = userdata;

	return s2c_streq(l->ids->v[pos].name, l->name);
}

/* The position of @name in @ids, or SIZE_MAX. */
static size_t ids_find(const struct ids *ids, const char *name)
{
	return hashindex_find(&ids->index, strhash(name), id_named,
			      &(struct id_lookup){ ids, name });
}

/* Map @name to @id when not mapped yet. */
static int ids_add(struct ids *ids, const char *name, uint32_t id)
{
	_cleanup_free_ char *copy = NULL;

	if (!name || !*name || ids_find(ids, name) != SIZE_MAX)
		return 0;
	if (S2C_ARRAY_RESERVE(ids->v, ids->alloc, ids->n + 1, 16) < 0)
		return -ENOMEM;
	copy = strdup(name);
	if (!copy || hashindex_add(&ids->index, strhash(name), ids->n) < 0)
		return -ENOMEM;
	ids->v[ids->n].name = TAKE_PTR(copy);
	ids->v[ids->n++].id = id;
	return 0;
}

/* The id of @name: as packed, 0 for root, a numeric name as itself, else a placeholder. */
static int ids_get(struct ids *ids, const char *name, uint32_t *ret)
{
	size_t pos = ids_find(ids, name);
	unsigned n;

	if (pos != SIZE_MAX) {
		*ret = ids->v[pos].id;
		return 0;
	}
	if (parse_uint(name, UINT32_MAX - 1, &n) == 0) {
		*ret = n;
		return 0;
	}
	if (s2c_streq(name, "root")) {
		*ret = 0;
		return ids_add(ids, name, 0);
	}
	*ret = ids->next++;
	return ids_add(ids, name, *ret);
}

/* Only plain account names go into the synthetic passwd and group files. */
static bool plain_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-' || *s == '.' || *s == '$'))
			return false;
	return true;
}

static int write_ids(struct target *t, const struct ids *users, const struct ids *groups,
		     struct s2c_error *err)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct ids *ids = pass ? groups : users;
		_cleanup_free_ char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		_cleanup_close_ int fd = -1;
		int r;

		if (!f)
			return -ENOMEM;
		for (size_t i = 0; i < ids->n; i++)
			if (plain_name(ids->v[i].name))
				(void)fprintf(f, pass ? "%s:x:%u:\n" : "%s:x:%u:%u::/:/bin/false\n",
					      ids->v[i].name, ids->v[i].id, ids->v[i].id);
		if (fclose(f) != 0)
			return -ENOMEM;
		r = stage_reserve(t->stage, len, err);
		if (r < 0)
			return r;
		fd = stage_create(t->stage, pass ? "/etc/group" : "/etc/passwd", err);
		if (fd < 0)
			return fd;
		if (write(fd, text, len) != (ssize_t)len)
			return s2c_error_errno(err, -errno, "cannot write a staged file");
	}
	return 0;
}

/* --- the installed files -------------------------------------------------------------------- */

void target_files_free(struct target_file *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		facts_free(v[i].facts);
		free(v[i].actions);
	}
	free(v);
}

/* When a script runs on installation: dpkg's three (debconf's config first), then rpm's scriptlets and triggers in the
 * order rpm runs them (rpmscript.h); a name is matched up to its " -- " conditions. */
static int script_rank(const char *script)
{
	static const char *const order[] = {
		"config", "preinst", "postinst", "%pretrans", "%triggerprein", "%pre", "%filetriggerin",
		"%post", "%triggerin", "%posttrans", "%transfiletriggerin",
	};
	size_t n = strcspn(script, " ");

	for (size_t i = 0; i < S2C_ELEMENTSOF(order); i++)
		if (strlen(order[i]) == n && strncmp(script, order[i], n) == 0)
			return (int)i;
	return (int)S2C_ELEMENTSOF(order);
}

/* Scripts run one after the other, each in the order of its actions; two scripts of one rank
 * (two triggers) in the order they were analysed, which is where their actions are. */
static bool action_before(const struct ms_action *a, const struct ms_action *b,
			  enum ms_scenario sc)
{
	int ra = script_rank(a->script), rb = script_rank(b->script);

	if (ra != rb)
		return ra < rb;
	return s2c_streq(a->script, b->script) ? a->seq[sc] < b->seq[sc] : a < b;
}

/* The positions of the actions on one file, as ms_analysis_each() finds them. */
struct positions {
	size_t *v;
	size_t n, alloc;
	bool failed;
};

static void add_position(size_t pos, void *userdata)
{
	struct positions *p = userdata;

	if (p->failed)
		return;
	if (S2C_ARRAY_RESERVE(p->v, p->alloc, p->n + 1, 8) < 0) {
		p->failed = true;
		return;
	}
	p->v[p->n++] = pos;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* The actions of @scripts on @m, in the order of scenario @sc (those that ran in it). */
static int actions_on(const struct ms_analysis *scripts, const struct member *m,
		      enum ms_scenario sc, const struct ms_action ***ret, size_t *ret_n)
{
	_cleanup_free_ size_t *found = NULL;
	struct positions p = { 0 };
	const struct ms_action **v;
	size_t n = 0;

	ms_analysis_each(scripts, m->path, add_position, &p);
	found = p.v;
	if (p.failed)
		return -ENOMEM;
	v = calloc(p.n ? p.n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (p.n > 1)
		qsort(found, p.n, sizeof(*found), cmp_size);
	for (size_t i = 0; i < p.n; i++)
		if ((i == 0 || found[i] != found[i - 1]) && scripts->v[found[i]].seq[sc] != SIZE_MAX)
			v[n++] = &scripts->v[found[i]];
	/* Scripts run one after the other (preinst, postinst, posttrans); within one, in the
	 * scenario's order. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && action_before(v[j], v[j - 1], sc); j--) {
			const struct ms_action *x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	*ret = v;
	*ret_n = n;
	return 0;
}

static void apply_all(const struct ms_action *const *v, size_t n, enum ms_scenario sc,
		      struct ms_state *st)
{
	for (size_t i = 0; i < n; i++)
		if (ms_applies(v[i], sc))
			(void)ms_apply(v[i], false, st);   /* a mode chmod refuses changes nothing */
}

static bool privileged(const struct ms_state *st)
{
	return (st->mode & 06000) || st->has_caps;
}

static bool same_name(const char *a, const char *b)
{
	return (!a && !b) || (a && b && s2c_streq(a, b));
}

static bool same_state(const struct ms_state *a, const struct ms_state *b)
{
	return a->mode == b->mode && same_name(a->owner, b->owner) &&
	       same_name(a->group, b->group) && a->has_caps == b->has_caps &&
	       same_name(a->caps, b->caps);
}

/* Most actions under undecided conditions on one file whose every combination is tried. */
#define CONDITIONAL_MAX 10

/* The state of @m as packed. */
static struct ms_state packed_state(const struct member *m)
{
	return (struct ms_state){ .mode = m->mode, .owner = member_uname(m),
				  .group = member_gname(m), .has_caps = m->has_caps };
}

/*
 * The state the @n actions @v leave @m in when of the @k conditional ones
 * (positions @cond in @v) only those whose bit is set in @mask run.
 */
static struct ms_state state_with(const struct member *m, const struct ms_action *const *v,
				  size_t n, enum ms_scenario sc, const size_t *cond, size_t k,
				  unsigned long mask)
{
	struct ms_state x = packed_state(m);
	size_t c = 0;

	for (size_t i = 0; i < n; i++) {
		bool skip = c < k && cond[c] == i && !((mask >> c++) & 1);
		if (!skip && ms_applies(v[i], sc))
			(void)ms_apply(v[i], false, &x);
	}
	return x;
}

/*
 * Whether the state @st that all @n actions leave is the one the file has
 * however the conditions the evaluation could not decide turn out: every
 * subset of the conditional actions (each may run or not) must leave the
 * same state, else the target is incomplete.
 */
static int decided(struct target *t, const struct member *m, const struct ms_action *const *v,
		   size_t n, enum ms_scenario sc, const struct ms_state *st)
{
	size_t cond[CONDITIONAL_MAX], k = 0;
	const struct ms_action *first = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!v[i]->conditional || !ms_applies(v[i], sc))
			continue;
		if (!first)
			first = v[i];
		if (k == CONDITIONAL_MAX)
			return target_incomplete(t, "%s: more than %d changes under conditions the "
						 "audit cannot decide", m->path, CONDITIONAL_MAX);
		cond[k++] = i;
	}
	for (unsigned long mask = 0; k && mask < (1ul << k) - 1; mask++) {
		struct ms_state x = state_with(m, v, n, sc, cond, k, mask);
		if (!same_state(&x, st) && (privileged(&x) || privileged(st)))
			return target_incomplete(t, "%s:%u: %s: its installed state depends on a "
						 "condition the audit cannot decide", first->script,
						 first->line, m->path);
	}
	return 0;
}

/* Facts of the staged copy of @m with the installed state @st. */
static int make_facts(struct target *t, const struct member *m, const struct ms_state *st,
		      struct ids *users, struct ids *groups, struct facts **ret,
		      struct s2c_error *err)
{
	_cleanup_(facts_freep) struct facts *f = calloc(1, sizeof(*f));
	const char *name;
	_cleanup_close_ int dfd = -1, fd = -1;
	struct stat sb;
	char buf[256];
	ssize_t n;
	int r;

	if (!f)
		return -ENOMEM;
	dfd = resolve_open_parent(stage_rootfd(t->stage), m->path, &name);
	if (dfd < 0)
		return s2c_error_errno(err, dfd, "'%s' was not kept", m->path);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode))
		return s2c_error_errno(err, fd < 0 ? -errno : -EINVAL, "'%s' was not kept", m->path);
	f->path = strdup(m->path);
	if (!f->path)
		return -ENOMEM;
	f->uid = member_uid(m);
	f->gid = member_gid(m);
	/* Images name owners from their own passwd and group (the caller does); packages
	 * by the names they pack, which dpkg and rpm use when installing. */
	if (t->kind != TARGET_IMAGE) {
		f->owner = st->owner ? strdup(st->owner) : NULL;
		f->group = st->group ? strdup(st->group) : NULL;
		if ((st->owner && !f->owner) || (st->group && !f->group))
			return -ENOMEM;
		r = st->owner ? ids_get(users, st->owner, &f->uid) : 0;
		if (r == 0 && st->group)
			r = ids_get(groups, st->group, &f->gid);
		if (r < 0)
			return r;
		f->uid_later = f->uid >= TARGET_ID_PLACEHOLDER;
		f->gid_later = f->gid >= TARGET_ID_PLACEHOLDER;
	}
	f->mode = S_IFREG | (st->mode & 07777);
	f->size = m->size;
	f->mtime_sec = m->mtime;
	/* The staged copy's identity, so the engine reads exactly that file. */
	f->dev_major = major(sb.st_dev);
	f->dev_minor = minor(sb.st_dev);
	f->ino = sb.st_ino;
	f->nlink = 1;
	if (st->has_caps) {
		struct s2c_error cerr = { 0 };
		f->has_caps = true;
		if (st->caps) {
			/* setcap's text, as the script gives it */
			if (fcaps_from_text(st->caps, &f->caps, &cerr) < 0) {
				f->caps_error = strdup(cerr.msg[0] ? cerr.msg : "not a capability text");
			} else {
				int len = fcaps_encode(&f->caps, f->caps_raw);
				f->caps_len = len > 0 ? (size_t)len : 0;
				f->caps_text = fcaps_to_text(&f->caps);
			}
		} else if (!member_caps(m)) {
			f->caps_error = strdup("capability attribute larger than any valid layout");
		} else {
			memcpy(f->caps_raw, member_caps(m), member_caps_len(m));
			f->caps_len = member_caps_len(m);
			if (fcaps_decode(member_caps(m), member_caps_len(m), &f->caps, &cerr) < 0)
				f->caps_error = strdup(cerr.msg);
			else
				f->caps_text = fcaps_to_text(&f->caps);
		}
		if (!f->caps_text && !f->caps_error)
			return -ENOMEM;
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n >= 2 && buf[0] == '#' && buf[1] == '!') {
		char *p;
		buf[n] = '\0';
		p = buf + 2 + strspn(buf + 2, " \t");
		if (!(f->interpreter = strndup(p, strcspn(p, " \t\n"))))
			return -ENOMEM;
	}
	facts_set_flags(f);
	*ret = TAKE_PTR(f);
	return 0;
}

/* The names of each candidate's content (hard links among the members), counted in one pass. */
struct links {
	struct hashindex index; /* of @content by path */
	const char **content;   /* borrowed from the members */
	uint32_t *count;
	size_t n;
};

struct link_lookup {
	const struct links *l;
	const char *path;
};

static bool link_named(size_t pos, const void *userdata)
{
	const struct link_lookup *k = userdata;

	return s2c_streq(k->l->content[pos], k->path);
}

static size_t links_find(const struct links *l, const char *path)
{
	return hashindex_find(&l->index, strhash(path), link_named,
			      &(struct link_lookup){ l, path });
}

static void links_release(struct links *l)
{
	hashindex_release(&l->index);
	free(l->content);
	free(l->count);
}

/* The file @m is a name of: itself, or the file a hard link names. */
static const char *content_of(const struct member *m)
{
	return m->type == MEMBER_HARDLINK ? m->target : m->path;
}

/* Count, for the content of every candidate among the @n members @v, the members naming it. */
static int links_build(struct links *l, struct member *const *v, size_t n)
{
	*l = (struct links){ .content = calloc(n ? n : 1, sizeof(*l->content)),
			     .count = calloc(n ? n : 1, sizeof(*l->count)) };
	if (!l->content || !l->count)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *c = content_of(v[i]);
		if (!v[i]->candidate || !c || links_find(l, c) != SIZE_MAX)
			continue;
		if (hashindex_add(&l->index, strhash(c), l->n) < 0)
			return -ENOMEM;
		l->content[l->n++] = c;
	}
	for (size_t i = 0; i < n && l->n; i++) {
		size_t pos = links_find(l, v[i]->path);
		if (pos != SIZE_MAX)
			l->count[pos]++;
		if (v[i]->type == MEMBER_HARDLINK && v[i]->target &&
		    !s2c_streq(v[i]->target, v[i]->path) &&
		    (pos = links_find(l, v[i]->target)) != SIZE_MAX)
			l->count[pos]++;
	}
	return 0;
}

/* Hard links among the members: the names of @m's content. */
static uint32_t link_count(const struct links *l, const struct member *m)
{
	size_t pos = content_of(m) ? links_find(l, content_of(m)) : SIZE_MAX;

	return pos != SIZE_MAX && l->count[pos] ? l->count[pos] : 1;
}

/* The owners and groups the archive packed keep their ids; root is 0 whatever it says. */
static int ids_packed(const struct target *t, struct member *const *sorted, struct ids *users,
		      struct ids *groups)
{
	int r = ids_add(users, "root", 0);

	if (r == 0)
		r = ids_add(groups, "root", 0);
	/* rpm packs names without numbers: those get placeholders (ids_get()). */
	for (size_t i = 0; i < t->members.n && r == 0 && t->kind != TARGET_RPM; i++) {
		r = ids_add(users, member_uname(sorted[i]), member_uid(sorted[i]));
		if (r == 0)
			r = ids_add(groups, member_gname(sorted[i]), member_gid(sorted[i]));
	}
	return r;
}

/* Append to @acts those of @more it does not hold yet. */
static int actions_union(const struct ms_action ***acts, size_t *n,
			 const struct ms_action *const *more, size_t n_more)
{
	for (size_t j = 0; j < n_more; j++) {
		const struct ms_action **grown;
		bool seen = false;

		for (size_t k = 0; k < *n && !seen; k++)
			seen = (*acts)[k] == more[j];
		if (seen)
			continue;
		grown = realloc(*acts, (*n + 1) * sizeof(**acts));
		if (!grown)
			return -ENOMEM;
		*acts = grown;
		grown[(*n)++] = more[j];
	}
	return 0;
}

/*
 * The states of @m once installed where setcap works (@st) and where it
 * fails (@fb), and in @ret all the actions on it for the report: this
 * scenario's, then the fallback's.
 */
static int installed_states(struct target *t, const struct member *m, struct ms_state *st,
			    struct ms_state *fb, const struct ms_action ***ret, size_t *ret_n)
{
	const struct ms_action **acts = NULL, **fb_acts = NULL;
	size_t n_acts = 0, n_fb = 0;
	int r;

	*st = packed_state(m);
	*fb = *st;
	r = actions_on(&t->scripts, m, MS_SCENARIO_WORKS, &acts, &n_acts);
	if (r == 0)
		r = actions_on(&t->scripts, m, MS_SCENARIO_FAILS, &fb_acts, &n_fb);
	if (r == 0) {
		apply_all(acts, n_acts, MS_SCENARIO_WORKS, st);
		apply_all(fb_acts, n_fb, MS_SCENARIO_FAILS, fb);
		r = decided(t, m, acts, n_acts, MS_SCENARIO_WORKS, st);
		if (r == 0)
			r = decided(t, m, fb_acts, n_fb, MS_SCENARIO_FAILS, fb);
	}
	if (r == 0)
		r = actions_union(&acts, &n_acts, fb_acts, n_fb);
	free(fb_acts);
	if (r < 0) {
		free(acts);
		return r;
	}
	*ret = acts;
	*ret_n = n_acts;
	return 0;
}

/*
 * Complete @tf for its member @m, installed as @st with the fallback @fb:
 * the ids of names the scripts introduce (placeholders, the same in facts
 * and in the staged passwd and group), the facts, and what changed.
 */
static int installed_file(struct target *t, struct target_file *tf, const struct ms_state *st,
			  const struct ms_state *fb, struct ids *users, struct ids *groups,
			  struct s2c_error *err)
{
	const struct member *m = tf->member;
	uint32_t dummy;
	int r = 0;

	if (st->owner)
		r = ids_get(users, st->owner, &dummy);
	if (r == 0 && st->group)
		r = ids_get(groups, st->group, &dummy);
	if (r == 0 && fb->owner)
		r = ids_get(users, fb->owner, &dummy);
	if (r == 0 && fb->group)
		r = ids_get(groups, fb->group, &dummy);
	if (r == 0)
		r = make_facts(t, m, st, users, groups, &tf->facts, err);
	if (r < 0)
		return r;
	tf->changed = tf->n_actions > 0 &&
		      (st->mode != m->mode || st->has_caps != m->has_caps || st->caps ||
		       st->owner != member_uname(m) || st->group != member_gname(m));
	if (fb->mode != st->mode || fb->has_caps != st->has_caps || fb->owner != st->owner ||
	    fb->group != st->group) {
		tf->has_fallback = true;
		tf->fallback_mode = fb->mode;
		tf->fallback_owner = fb->owner;
		tf->fallback_group = fb->group;
		tf->fallback_caps = fb->has_caps;
	}
	return 0;
}

/* "4754 root:wireshark with capabilities cap_net_raw=ep" */
static char *state_words(const struct ms_state *st)
{
	return strdup_printf("%04o %s:%s%s%s", st->mode & 07777, st->owner ? st->owner : "?",
			     st->group ? st->group : "?", st->has_caps ? " with capabilities " : "",
			     st->has_caps ? (st->caps ? st->caps : "as packed") : "");
}

/* The state @m ends in scenario @sc by the actions of @scripts. */
static int state_by(const struct ms_analysis *scripts, const struct member *m,
		    enum ms_scenario sc, struct ms_state *st)
{
	const struct ms_action **acts = NULL;
	size_t n = 0;
	int r = actions_on(scripts, m, sc, &acts, &n);

	*st = packed_state(m);
	if (r == 0)
		apply_all(acts, n, sc, st);
	free(acts);
	return r;
}

/*
 * The state @m ends in scenario @sc by the actions of an alternative's
 * @scripts; when that is not privileged but some of the actions under
 * conditions the audit cannot decide (each may run or not) leave it
 * privileged, the first such state, with *@ret_maybe set.
 */
static int alt_state_by(const struct ms_analysis *scripts, const struct member *m,
			enum ms_scenario sc, struct ms_state *st, bool *ret_maybe)
{
	const struct ms_action **acts = NULL;
	size_t n = 0, cond[CONDITIONAL_MAX], k = 0;
	int r = actions_on(scripts, m, sc, &acts, &n);

	*st = packed_state(m);
	*ret_maybe = false;
	if (r < 0)
		return r;
	apply_all(acts, n, sc, st);
	for (size_t i = 0; i < n && k < CONDITIONAL_MAX; i++)
		if (acts[i]->conditional && ms_applies(acts[i], sc))
			cond[k++] = i;
	for (unsigned long mask = 0; !privileged(st) && k && mask < (1ul << k) - 1; mask++) {
		struct ms_state x = state_with(m, acts, n, sc, cond, k, mask);
		if (privileged(&x)) {
			*st = x;
			*ret_maybe = true;
		}
	}
	free(acts);
	return 0;
}

int target_alt_notes(struct target *t)
{
	_cleanup_free_ struct member **sorted = NULL;
	int r;

	if (!t->n_alts)
		return 0;       /* no order of a million members to make for nothing */
	r = memberset_sorted(&t->members, &sorted);

	for (size_t a = 0; a < t->n_alts && r == 0; a++) {
		const struct target_alt *alt = &t->alts[a];
		for (size_t i = 0; i < t->members.n && r == 0; i++) {
			const struct member *m = sorted[i];
			struct ms_state def, other, fb;
			_cleanup_free_ char *text = NULL, *fbtext = NULL;
			bool maybe = false, fb_maybe = false;
			if (m->type != MEMBER_FILE && m->type != MEMBER_HARDLINK)
				continue;
			r = state_by(&t->scripts, m, MS_SCENARIO_WORKS, &def);
			if (r == 0)
				r = alt_state_by(&alt->scripts, m, MS_SCENARIO_WORKS, &other, &maybe);
			if (r == 0)
				r = alt_state_by(&alt->scripts, m, MS_SCENARIO_FAILS, &fb, &fb_maybe);
			if (r < 0 || same_state(&def, &other) ||
			    (!privileged(&def) && !privileged(&other) && !privileged(&fb)))
				continue;
			text = state_words(&other);
			fbtext = same_state(&fb, &other) ? strdup("") : state_words(&fb);
			r = text && fbtext ? target_note(t, "%s: %s: %s%s%s%s", m->path, alt->label,
							 maybe ? "may be " : "", text,
							 *fbtext ? "; where setcap fails: " : "",
							 fbtext) : -ENOMEM;
		}
		for (size_t i = 0; i < alt->scripts.n_incomplete && r == 0; i++) {
			bool dup = false;
			for (size_t k = 0; k < t->scripts.n_incomplete && !dup; k++)
				dup = s2c_streq(t->scripts.incomplete[k], alt->scripts.incomplete[i]);
			if (!dup)
				r = target_note(t, "%s: not worked out: %s", alt->label,
						alt->scripts.incomplete[i]);
		}
	}
	return r;
}

int target_files(struct target *t, struct target_file **ret, size_t *ret_n, struct s2c_error *err)
{
	struct ids users = { .next = TARGET_ID_PLACEHOLDER }, groups = { .next = TARGET_ID_PLACEHOLDER };
	_cleanup_free_ struct member **sorted = NULL;
	struct target_file *v = NULL;
	struct links links = { 0 };
	size_t n = 0, alloc = 0;
	int r;

	if (!t->stage) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	r = memberset_sorted(&t->members, &sorted);
	if (r < 0)
		return r;
	r = ids_packed(t, sorted, &users, &groups);
	if (r == 0)
		r = links_build(&links, sorted, t->members.n);
	for (size_t i = 0; i < t->members.n && r == 0; i++) {
		struct member *m = sorted[i];
		struct ms_state st, fb;
		const struct ms_action **acts = NULL;
		size_t n_acts = 0;

		if (!m->candidate)
			continue;
		r = installed_states(t, m, &st, &fb, &acts, &n_acts);
		if (r < 0)
			break;
		if (!privileged(&st) && !privileged(&fb)) {
			free(acts);
			continue;
		}
		if (!m->staged) {
			r = target_note(t, "%s: privileged once installed, but its content is not in "
					"the archive's data (%s)", m->path,
					m->type == MEMBER_HARDLINK ? "a hard link to a file not kept" :
					"not kept");
			free(acts);
			continue;
		}
		/* a member the scripts made a candidate after it was kept counts now */
		r = target_count_candidate(t, m);
		if (r < 0) {
			free(acts);
			r = target_over_budget(t, err);
			break;
		}
		if (S2C_ARRAY_RESERVE(v, alloc, n + 1, 16) < 0) {
			free(acts);
			r = -ENOMEM;
			break;
		}
		v[n] = (struct target_file){ .member = m, .actions = acts, .n_actions = n_acts };
		r = installed_file(t, &v[n++], &st, &fb, &users, &groups, err);
		if (r == 0) {
			v[n - 1].facts->nlink = link_count(&links, m);
			facts_set_flags(v[n - 1].facts);
		}
	}
	links_release(&links);
	if (r == 0 && t->kind != TARGET_IMAGE && n > 0)
		r = write_ids(t, &users, &groups, err);
	ids_release(&users);
	ids_release(&groups);
	if (r < 0) {
		target_files_free(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}
