/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "member.h"
#include "strhash.h"
#include "util.h"
#include "common.h"

int member_path(const char *name, char **ret, struct s2c_error *err)
{
	size_t len = strlen(name);
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *shown = NULL;
	size_t o = 0;
	const char *p = name;

	if (len == 0)
		return s2c_error_set(err, -EINVAL, "member with an empty name");
	if (len > MEMBER_PATH_MAX)
		return s2c_error_set(err, -EINVAL, "member name longer than %d bytes",
				     MEMBER_PATH_MAX);
	if (name[0] == '/') {
		shown = escape_text(name);
		return s2c_error_set(err, -EINVAL, "member '%s' has an absolute name",
				     shown ? shown : "?");
	}
	out = malloc(len + 2);
	if (!out)
		return -ENOMEM;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			shown = escape_text(name);
			return s2c_error_set(err, -EINVAL, "member '%s' has a '..' component",
					     shown ? shown : "?");
		}
		if (n > 0 && !(n == 1 && p[0] == '.')) {
			out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p += n;
		p += strspn(p, "/");
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	*ret = TAKE_PTR(out);
	return 0;
}

const char *member_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* What malloc() adds to each block, counted so that many small names cost what they take. */
#define ALLOC_OVERHEAD 16

/*
 * The owners almost every member has: root:root and no names, both 0:0
 * without capabilities, shared by all of them instead of a copy each.
 * Never written to, never freed.
 */
static struct member_owner root_owner = { .uname = "root", .gname = "root" };
static struct member_owner no_owner = { 0 };

static bool owner_shared(const struct member_owner *o)
{
	return o == &root_owner || o == &no_owner;
}

static void owner_free(struct member_owner *o)
{
	if (!owner_shared(o))
		free(o);
}

/*
 * An owner of @uname and @gname (either NULL), @uid, @gid and the capability
 * attribute @caps of @caps_len bytes (at most FCAPS_BLOB_MAX; 0: none) in one
 * allocation, or a shared one.
 */
static struct member_owner *owner_new(const char *uname, const char *gname, uint32_t uid,
					    uint32_t gid, const void *caps, size_t caps_len)
{
	size_t nu = uname ? strlen(uname) + 1 : 0, ng = gname ? strlen(gname) + 1 : 0;
	struct member_owner *o;
	char *p;

	if (uid == 0 && gid == 0 && caps_len == 0) {
		if (!uname && !gname)
			return &no_owner;
		if (uname && gname && s2c_streq(uname, "root") && s2c_streq(gname, "root"))
			return &root_owner;
	}
	o = malloc(sizeof(*o) + caps_len + nu + ng);
	if (!o)
		return NULL;
	o->uid = uid;
	o->gid = gid;
	o->caps_len = (uint8_t)caps_len;
	if (caps_len)
		memcpy(o->caps, caps, caps_len);
	p = (char *)o->caps + caps_len;
	o->uname = uname ? memcpy(p, uname, nu) : NULL;
	o->gname = gname ? memcpy(p + nu, gname, ng) : NULL;
	return o;
}

/* Bytes @o takes: nothing when shared. */
static size_t owner_bytes(const struct member_owner *o)
{
	if (owner_shared(o))
		return 0;
	return sizeof(*o) + o->caps_len + (o->uname ? strlen(o->uname) + 1 : 0) +
	       (o->gname ? strlen(o->gname) + 1 : 0) + ALLOC_OVERHEAD;
}

/* Make @o the owner of @m in place of the one it has.  Returns 0, or -ENOMEM when @o is NULL. */
static int owner_replace(struct member *m, struct member_owner *o)
{
	if (!o)
		return -ENOMEM;
	owner_free(m->owner);
	m->owner = o;
	return 0;
}

/* A member with @path in the same allocation, zeroed but for its owner: none. */
static struct member *member_alloc(const char *path)
{
	size_t n = strlen(path) + 1;
	struct member *m = calloc(1, offsetof(struct member, path) + n);

	if (!m)
		return NULL;
	m->owner = &no_owner;
	memcpy(m->path, path, n);
	return m;
}

struct member *member_new(const char *path)
{
	return member_alloc(path);
}

int member_set_owner(struct member *m, const char *uname, const char *gname, uint32_t uid,
		     uint32_t gid)
{
	return owner_replace(m, owner_new(uname, gname, uid, gid, m->owner->caps,
					  m->owner->caps_len));
}

int member_set_caps(struct member *m, const void *blob, size_t len)
{
	const struct member_owner *o = m->owner;

	m->has_caps = blob != NULL;
	if (!blob || len > FCAPS_BLOB_MAX)
		len = 0;
	return owner_replace(m, owner_new(o->uname, o->gname, o->uid, o->gid, blob, len));
}

struct member *member_free(struct member *m)
{
	if (m) {
		owner_free(m->owner);
		free(m->target);
		free(m);
	}
	return NULL;
}

struct member *member_dup(const struct member *m)
{
	struct member_owner *o = m->owner;
	struct member *c = member_alloc(m->path);

	if (!c)
		return NULL;
	*c = *m;        /* the path, the flexible array, is not copied: it is there */
	c->owner = &no_owner;
	c->target = NULL;
	if (owner_replace(c, owner_shared(o) ? o : owner_new(o->uname, o->gname, o->uid, o->gid,
							      o->caps, o->caps_len)) < 0 ||
	    (m->target && !(c->target = strdup(m->target))))
		return member_free(c);
	return c;
}

/* --- the table ------------------------------------------------------------------------------ */

uint64_t member_hash(const char *s)
{
	return strhash(s);
}

static size_t str_bytes(const char *s)
{
	return s ? strlen(s) + 1 + ALLOC_OVERHEAD : 0;
}

size_t member_bytes(const struct member *m)
{
	return offsetof(struct member, path) + ALLOC_OVERHEAD + strlen(m->path) + 1 +
	       owner_bytes(m->owner) + str_bytes(m->target);
}

/* Count @bytes more against the budget.  Returns 0, or -ENOBUFS with nothing counted. */
static int account(struct memberset *s, size_t bytes)
{
	if (!member_budget_fits(s->max_bytes, s->bytes, bytes))
		return -ENOBUFS;
	s->bytes += bytes;
	return 0;
}

int memberset_hold(struct memberset *s, size_t bytes)
{
	return account(s, bytes);
}

void memberset_unhold(struct memberset *s, size_t bytes)
{
	s->bytes -= bytes < s->bytes ? bytes : s->bytes;
}

void memberset_release(struct memberset *s)
{
	size_t max_bytes = s->max_bytes;

	for (size_t i = 0; i < s->n_slots; i++)
		member_free(s->slots[i]);
	free(s->slots);
	free(s->modules.v);
	membernotes_release(&s->notes);
	*s = (struct memberset){ .max_bytes = max_bytes };
}

/* What the budget leaves. */
static size_t room(const struct memberset *s)
{
	if (!s->max_bytes)
		return SIZE_MAX;
	return s->bytes < s->max_bytes ? s->max_bytes - s->bytes : 0;
}

int memberset_note(struct memberset *s, const struct member *m)
{
	size_t before = s->notes.bytes;
	struct note *n;
	int r = membernotes_put(&s->notes, member_hash(m->path), room(s), &n);

	s->bytes += s->notes.bytes - before;
	if (r < 0)
		return r;
	n->mode = (uint16_t)(m->mode & 07777);
	n->uid = member_uid(m);
	n->gid = member_gid(m);
	n->size = m->size;
	n->layer = m->layer;
	return 0;
}

bool memberset_noted(const struct memberset *s, const char *path, struct member_note *ret)
{
	const struct note *n = s->notes.n ? membernotes_find(&s->notes, member_hash(path)) : NULL;

	if (!n || n->gone || membernotes_hidden(&s->notes, path, n))
		return false;
	if (ret)
		*ret = (struct member_note){ .mode = n->mode, .uid = n->uid, .gid = n->gid,
					     .size = n->size, .layer = n->layer };
	return true;
}

int memberset_hide(struct memberset *s, const char *path, bool self, unsigned layer)
{
	size_t before = s->notes.bytes;
	int r;

	if (!s->notes.n)
		return 0;       /* nothing noted yet, nothing to hide */
	r = membernotes_hide(&s->notes, path, self, layer, room(s));
	s->bytes += s->notes.bytes - before;
	return r;
}

void memberset_forget_notes(struct memberset *s)
{
	s->bytes -= s->notes.bytes;
	membernotes_release(&s->notes);
}

/* --- the kernel modules among the members ---------------------------------------------------- */

/* The slot of the module name hashed @h, or of the empty slot where it would go. */
static size_t module_slot(const struct member_modules *x, uint64_t h)
{
	size_t mask = x->n_slots - 1;
	size_t i = (size_t)h & mask;

	while (x->v[i].used && x->v[i].hash != h)
		i = (i + 1) & mask;
	return i;
}

static int modules_grow(struct memberset *s)
{
	struct member_modules *x = &s->modules;
	size_t n = x->n_slots ? x->n_slots * 2 : 16;
	struct member_modules bigger = { .n_slots = n, .used = x->used };
	int r = account(s, n * sizeof(*x->v));

	if (r < 0)
		return r;
	bigger.v = calloc(n, sizeof(*x->v));
	if (!bigger.v) {
		s->bytes -= n * sizeof(*x->v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < x->n_slots; i++)
		if (x->v[i].used)
			bigger.v[module_slot(&bigger, x->v[i].hash)] = x->v[i];
	s->bytes -= x->n_slots * sizeof(*x->v);
	free(x->v);
	*x = bigger;
	return 0;
}

/* Count the module name hashed @h once more (@add) or once less; the table has room. */
static void module_count(struct member_modules *x, uint64_t h, bool add)
{
	struct member_module *e = &x->v[module_slot(x, h)];

	if (!add) {
		if (e->used && e->n)
			e->n--;
		return;
	}
	if (!e->used) {
		*e = (struct member_module){ .hash = h, .used = true };
		x->used++;
	}
	e->n++;
}

/* The base name of @path when it is in a module directory, else NULL. */
static const char *module_base(const char *path)
{
	if (strncmp(path, "/lib/modules/", 13) != 0 && strncmp(path, "/usr/lib/modules/", 17) != 0)
		return NULL;
	return member_base_name(path);
}

/*
 * Count the module names of @m once more (@add) or once less: every prefix of
 * its base name that ".ko" follows.  Returns 0, or -ENOBUFS or -ENOMEM with
 * nothing counted.
 */
static int modules_count(struct memberset *s, const struct member *m, bool add)
{
	const char *b = module_base(m->path);
	size_t k = 0;
	int r;

	for (const char *p = b ? strstr(b, ".ko") : NULL; p; p = strstr(p + 1, ".ko"))
		k++;
	while (add && k && (s->modules.used + k) * 2 > s->modules.n_slots)
		if ((r = modules_grow(s)) < 0)
			return r;
	for (const char *p = k ? strstr(b, ".ko") : NULL; p; p = strstr(p + 1, ".ko"))
		module_count(&s->modules, strhash_n(b, (size_t)(p - b)), add);
	return 0;
}

bool memberset_ships_module(const struct memberset *s, const char *name)
{
	const struct member_module *e;

	if (!s->modules.n_slots)
		return false;
	e = &s->modules.v[module_slot(&s->modules, member_hash(name))];
	return e->used && e->n > 0;
}

/* The slot of @path, or of the empty slot where it would go. */
static size_t slot_of(const struct memberset *s, const char *path)
{
	size_t mask = s->n_slots - 1;
	size_t i = (size_t)member_hash(path) & mask;

	while (s->slots[i] && !s2c_streq(s->slots[i]->path, path))
		i = (i + 1) & mask;
	return i;
}

static int grow(struct memberset *s)
{
	size_t n = s->n_slots ? s->n_slots * 2 : 64;
	struct memberset bigger = { .n_slots = n };
	int r = account(s, n * sizeof(*s->slots));

	if (r < 0)
		return r;
	bigger.slots = calloc(n, sizeof(*s->slots));
	if (!bigger.slots) {
		s->bytes -= n * sizeof(*s->slots);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_slots; i++)
		if (s->slots[i])
			bigger.slots[slot_of(&bigger, s->slots[i]->path)] = s->slots[i];
	s->bytes -= s->n_slots * sizeof(*s->slots);
	free(s->slots);
	s->slots = bigger.slots;
	s->n_slots = bigger.n_slots;
	return 0;
}

void memberset_shrink(struct memberset *s)
{
	size_t n = 8;
	struct memberset smaller;

	while ((s->n + 1) * 2 > n)
		n *= 2;
	if (n >= s->n_slots)
		return;
	smaller = (struct memberset){ .n_slots = n, .slots = calloc(n, sizeof(*s->slots)) };
	if (!smaller.slots)
		return;
	for (size_t i = 0; i < s->n_slots; i++)
		if (s->slots[i])
			smaller.slots[slot_of(&smaller, s->slots[i]->path)] = s->slots[i];
	s->bytes -= (s->n_slots - n) * sizeof(*s->slots);
	free(s->slots);
	s->slots = smaller.slots;
	s->n_slots = n;
}

int memberset_put(struct memberset *s, struct member *m)
{
	size_t i;
	int r = 0;

	/* Keep the load under 1/2 so probes stay short. */
	if ((s->n + 1) * 2 > s->n_slots)
		r = grow(s);
	if (r == 0)
		r = modules_count(s, m, true);
	if (r == 0 && (r = account(s, member_bytes(m))) < 0)
		(void)modules_count(s, m, false);
	if (r < 0) {
		member_free(m);
		return r;
	}
	if (s->notes.n) {
		/* the path is a member now: its note, if any, goes */
		struct note *n = membernotes_find(&s->notes, member_hash(m->path));
		if (n)
			n->gone = true;
	}
	i = slot_of(s, m->path);
	if (s->slots[i]) {
		s->bytes -= member_bytes(s->slots[i]);
		(void)modules_count(s, s->slots[i], false);
		member_free(s->slots[i]);
	} else {
		s->n++;
	}
	s->slots[i] = m;
	return 0;
}

bool member_has_part(const char *path, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = path; n && (p = strstr(p, name)); p++)
		if (p > path && p[-1] == '/' && (p[n] == '/' || !p[n]))
			return true;
	return false;
}

bool memberset_has_link_named(const struct memberset *s, const char *base)
{
	for (size_t i = 0; i < s->n_slots; i++) {
		const struct member *m = s->slots[i];
		if (m && m->type == MEMBER_SYMLINK && s2c_streq(member_base_name(m->path), base))
			return true;
	}
	return false;
}

struct member *memberset_get(const struct memberset *s, const char *path)
{
	return s->n_slots ? s->slots[slot_of(s, path)] : NULL;
}

/* Remove slot @i and re-seat the cluster after it (linear probing deletion). */
static void remove_slot(struct memberset *s, size_t i)
{
	size_t mask = s->n_slots - 1;

	s->bytes -= member_bytes(s->slots[i]);
	(void)modules_count(s, s->slots[i], false);
	member_free(s->slots[i]);
	s->slots[i] = NULL;
	s->n--;
	for (size_t j = (i + 1) & mask; s->slots[j]; j = (j + 1) & mask) {
		struct member *m = s->slots[j];
		s->slots[j] = NULL;
		s->slots[slot_of(s, m->path)] = m;
	}
}

static bool is_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (s2c_streq(dir, "/"))
		return path[0] == '/' && path[1] != '\0';
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

struct below {
	const char *dir;
	unsigned layer;         /* only members of an older layer; UINT_MAX: any */
};

static bool member_below(const struct member *m, const struct below *b)
{
	return m->layer < b->layer && is_below(m->path, b->dir);
}

/*
 * Remove every member below @b.  remove_slot() re-seats the members after
 * the slot it frees, into that slot or later ones, never before it: after a
 * removal the same slot is looked at again, and one pass finds them all.
 */
static size_t remove_below(struct memberset *s, const struct below *b)
{
	size_t removed = 0;

	for (size_t i = 0; i < s->n_slots;) {
		if (s->slots[i] && member_below(s->slots[i], b)) {
			remove_slot(s, i);
			removed++;
			continue;
		}
		i++;
	}
	return removed;
}

size_t memberset_remove(struct memberset *s, const char *path, bool below)
{
	size_t removed = 0;

	if (!s->n_slots)
		return 0;
	if (s->slots[slot_of(s, path)]) {
		remove_slot(s, slot_of(s, path));
		removed++;
	}
	if (below)
		removed += remove_below(s, &(struct below){ .dir = path, .layer = UINT_MAX });
	return removed;
}

size_t memberset_remove_older_below(struct memberset *s, const char *dir, unsigned layer)
{
	return remove_below(s, &(struct below){ .dir = dir, .layer = layer });
}

size_t memberset_filter(struct memberset *s, bool (*keep)(struct member *m, void *userdata),
			void *userdata)
{
	size_t removed = 0;

	/* remove_slot() never moves a member before the slot it frees: see remove_below(). */
	for (size_t i = 0; i < s->n_slots;) {
		if (s->slots[i] && !keep(s->slots[i], userdata)) {
			remove_slot(s, i);
			removed++;
			continue;
		}
		i++;
	}
	return removed;
}

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = *(struct member *const *)a, *y = *(struct member *const *)b;

	return strcmp(x->path, y->path);
}

int memberset_sorted(const struct memberset *s, struct member ***ret)
{
	struct member **v = calloc(s->n ? s->n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_slots; i++)
		if (s->slots[i])
			v[k++] = s->slots[i];
	qsort(v, k, sizeof(*v), cmp_member);
	*ret = v;
	return 0;
}

/* --- resolving links among the members ------------------------------------------------------ */

#define RESOLVE_LINKS_MAX 40

/*
 * Resolve @path component by component.  @done is the resolved prefix
 * ("" for the root), @rest what is left; a symlink's target replaces the
 * component and is prepended to the rest.
 */
/* "/a/./b//c/../d" -> "/a/b/d"; ".." stops at "/". */
char *member_normalise(const char *abs)
{
	char *out = malloc(strlen(abs) + 2);
	size_t n = 0;

	if (!out)
		return NULL;
	for (const char *p = abs; *p;) {
		size_t len;
		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (len == 0)
			break;
		if (len == 1 && p[0] == '.') {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
		} else {
			out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p += len;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return out;
}

/* The path @rest (below the link, "" or "/…") names through the symbolic link member @m. */
static char *link_target(const struct member *m, const char *rest)
{
	_cleanup_free_ char *joined = NULL;
	size_t dl = (size_t)(member_base_name(m->path) - m->path);

	if (m->target[0] == '/')
		joined = strdup_printf("%s%s", m->target, rest);
	else
		joined = strdup_printf("%.*s%s%s", (int)dl, m->path, m->target, rest);
	return joined ? member_normalise(joined) : NULL;
}

/*
 * Follow the members' symbolic links from @path as the kernel would: 0 with the member
 * reached in @ret (if @ret) and, if @ret_path, the path it is at; -ENOENT (with
 * @ret_path, the path the kernel lands on, which no member holds), -ELOOP or -ENOMEM.
 */
static int reach(const struct memberset *ms, const char *path, struct member **ret,
		 char **ret_path)
{
	_cleanup_free_ char *cur = member_normalise(path);

	for (unsigned hops = 0; cur && hops <= 40; hops++) {
		struct member *m = NULL;
		char *slash = cur;
		bool moved = false;
		/* the first component that is a link among the members, from the root */
		while (!moved && (slash = strchr(slash + 1, '/'))) {
			*slash = '\0';
			m = memberset_get(ms, cur);
			*slash = '/';
			if (m && m->type == MEMBER_SYMLINK && m->target) {
				char *next = link_target(m, slash);
				free(cur);
				cur = next;
				moved = true;
			}
		}
		if (moved)
			continue;
		m = memberset_get(ms, cur);
		if (!m || m->type != MEMBER_SYMLINK || !m->target) {
			if (ret_path)
				*ret_path = TAKE_PTR(cur);
			if (m && ret)
				*ret = m;
			return m ? 0 : -ENOENT;
		}
		char *next = link_target(m, "");
		free(cur);
		cur = next;
	}
	return cur ? -ELOOP : -ENOMEM;
}

int memberset_reach(const struct memberset *ms, const char *path, struct member **ret)
{
	return reach(ms, path, ret, NULL);
}

int memberset_landing(const struct memberset *ms, const char *path, char **ret)
{
	int r = reach(ms, path, NULL, ret);

	return r == -ENOENT ? 0 : r;
}

/* memberset_resolve(), and at -ENOENT whether the last component is a noted file (@noted). */
static int resolve(const struct memberset *s, const char *path, struct member **ret, bool *noted)
{
	_cleanup_free_ char *rest = strdup(path);
	_cleanup_free_ char *done = calloc(1, strlen(path) + 2);
	size_t done_len = 0, done_cap = strlen(path) + 2;
	unsigned links = 0;
	struct member *m = NULL;
	char *p;

	if (!rest || !done)
		return -ENOMEM;
	p = rest;
	for (;;) {
		size_t n;
		p += strspn(p, "/");
		if (!*p)
			break;
		n = strcspn(p, "/");
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(done, '/');
			done_len = slash ? (size_t)(slash - done) : 0;
			done[done_len] = '\0';
			p += n;
			m = NULL;
			continue;
		}
		if (done_len + n + 2 > done_cap) {
			char *bigger = realloc(done, done_len + n + 2);
			if (!bigger)
				return -ENOMEM;
			done = bigger;
			done_cap = done_len + n + 2;
		}
		done[done_len] = '/';
		memcpy(done + done_len + 1, p, n);
		done[done_len + 1 + n] = '\0';
		m = memberset_get(s, done);
		if (!m) {
			*noted = !p[n + strspn(p + n, "/")] && memberset_noted(s, done, NULL);
			return -ENOENT;
		}
		p += n;
		if (m->type == MEMBER_SYMLINK && m->target) {
			_cleanup_free_ char *next = NULL;
			if (++links > RESOLVE_LINKS_MAX)
				return -ELOOP;
			if (asprintf(&next, "%s%s", m->target, p) < 0)
				return -ENOMEM;
			if (m->target[0] == '/') {
				done_len = 0;
			} else {
				char *slash = strrchr(done, '/');
				done_len = slash ? (size_t)(slash - done) : 0;
			}
			done[done_len] = '\0';
			free(rest);
			rest = TAKE_PTR(next);
			p = rest;
			m = NULL;
			continue;
		}
		done_len += 1 + n;
		if (*p && m->type != MEMBER_DIR)
			return -ENOTDIR;
	}
	if (!m) {
		/* The path named the root, or ended in ".." or a link to a directory. */
		m = done_len ? memberset_get(s, done) : memberset_get(s, "/");
		if (!m)
			return -ENOENT;
	}
	*ret = m;
	return 0;
}

int memberset_resolve(const struct memberset *s, const char *path, struct member **ret)
{
	bool noted;

	return resolve(s, path, ret, &noted);
}

bool memberset_exists(const struct memberset *s, const char *path)
{
	struct member *m;
	bool noted = false;

	return resolve(s, path, &m, &noted) == 0 || noted;
}

static const char *const program_dirs[] = {
	"/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/opt/", "/usr/bin/",
	"/usr/games/", "/usr/lib/", "/usr/lib32/", "/usr/lib64/", "/usr/libexec/", "/usr/libx32/",
	"/usr/local/", "/usr/sbin/",
};

bool member_in_program_dir(const char *path)
{
	for (size_t i = 0; i < S2C_ELEMENTSOF(program_dirs); i++)
		if (s2c_startswith(path, program_dirs[i]))
			return true;
	return false;
}

bool member_reaches_program_dir(const char *path)
{
	size_t lit = strcspn(path, "*?[\\");
	_cleanup_free_ char *p = path[lit] ? strndup(path, lit) :
				 strdup_printf("%s/", s2c_streq(path, "/") ? "" : path);

	if (!p)
		return true;
	for (size_t i = 0; i < S2C_ELEMENTSOF(program_dirs); i++)
		if (s2c_startswith(p, program_dirs[i]) || s2c_startswith(program_dirs[i], p))
			return true;
	return false;
}
