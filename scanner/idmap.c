/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "idmap.h"
#include "resolve.h"
#include "util.h"
#include "common.h"

struct idname {
	uint32_t id;
	char *name;             /* NULL: looked up, unknown */
};

struct idtab {
	struct idname *v;
	size_t n, alloc;
	bool complete;          /* loaded from a file: absent means unknown */
};

/* idname::id of a name NSS does not know ((uid_t)-1 is never an account's id). */
#define ID_MISSING UINT32_MAX

struct idmap {
	bool nss;
	struct idtab users, groups;
	struct idtab user_names, group_names; /* names asked of NSS, with ID_MISSING for none */
};

static void idtab_release(struct idtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
}

struct idmap *idmap_free(struct idmap *m)
{
	if (m) {
		idtab_release(&m->users);
		idtab_release(&m->groups);
		idtab_release(&m->user_names);
		idtab_release(&m->group_names);
		free(m);
	}
	return NULL;
}

static struct idname *idtab_find(struct idtab *t, uint32_t id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].id == id)
			return &t->v[i];
	return NULL;
}

static int idtab_push(struct idtab *t, uint32_t id, const char *name)
{
	char *copy = NULL;

	if (S2C_ARRAY_RESERVE(t->v, t->alloc, t->n + 1, 64) < 0)
		return -ENOMEM;
	if (name && !(copy = strdup(name)))
		return -ENOMEM;
	t->v[t->n++] = (struct idname){ .id = id, .name = copy };
	return 0;
}

static int idtab_add(struct idtab *t, uint32_t id, const char *name)
{
	if (idtab_find(t, id))
		return 0;       /* first entry wins, as for getpwuid() on files */
	return idtab_push(t, id, name);
}

/* Parse "name:x:id:..." lines of passwd(5) or group(5) format. */
static int load_file(int rootfd, const char *path, struct idtab *t)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	int fd = resolve_open(rootfd, path, O_RDONLY);

	t->complete = true;
	if (fd < 0)
		return 0;
	f = fdopen(fd, "r");
	if (!f) {
		(void)close(fd);
		return -errno;
	}
	while (getline(&line, &cap, f) > 0) {
		char *name = line, *c1, *c2, *c3;
		unsigned id;

		c1 = strchr(name, ':');
		if (!c1)
			continue;
		*c1 = '\0';
		c2 = strchr(c1 + 1, ':');
		if (!c2)
			continue;
		c3 = strchr(c2 + 1, ':');
		if (c3)
			*c3 = '\0';
		if (parse_uint(c2 + 1, UINT32_MAX, &id) < 0 || !*name)
			continue;
		if (idtab_add(t, id, name) < 0)
			return -ENOMEM;
	}
	return 0;
}

int idmap_new(int rootfd, struct idmap **ret)
{
	struct idmap *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return -ENOMEM;
	if (rootfd < 0) {
		m->nss = true;
	} else {
		r = load_file(rootfd, "/etc/passwd", &m->users);
		if (r == 0)
			r = load_file(rootfd, "/etc/group", &m->groups);
		/* Id 0 is root on every Linux system, also in a tree without passwd
		 * and group files (an extracted package, a container layer). */
		if (r == 0 && !idtab_find(&m->users, 0))
			r = idtab_add(&m->users, 0, "root");
		if (r == 0 && !idtab_find(&m->groups, 0))
			r = idtab_add(&m->groups, 0, "root");
		if (r < 0) {
			idmap_free(m);
			return r;
		}
	}
	*ret = m;
	return 0;
}

int idmap_add(struct idmap *m, bool user, uint32_t id, const char *name)
{
	return idtab_add(user ? &m->users : &m->groups, id, name);
}

int idmap_new_given(struct idmap **ret)
{
	struct idmap *m = calloc(1, sizeof(*m));

	if (!m || idtab_add(&m->users, 0, "root") < 0 || idtab_add(&m->groups, 0, "root") < 0) {
		idmap_free(m);
		return -ENOMEM;
	}
	*ret = m;
	return 0;
}

static const char *lookup(struct idmap *m, struct idtab *t, uint32_t id, bool user)
{
	struct idname *e = idtab_find(t, id);
	char buf[4096];

	if (e || !m->nss)
		return e ? e->name : NULL;
	if (user) {
		struct passwd pw, *res = NULL;
		if (getpwuid_r(id, &pw, buf, sizeof(buf), &res) == 0 && res)
			return idtab_add(t, id, res->pw_name) < 0 ? NULL : idtab_find(t, id)->name;
	} else {
		struct group gr, *res = NULL;
		if (getgrgid_r(id, &gr, buf, sizeof(buf), &res) == 0 && res)
			return idtab_add(t, id, res->gr_name) < 0 ? NULL : idtab_find(t, id)->name;
	}
	(void)idtab_add(t, id, NULL);
	return NULL;
}

const char *idmap_user(struct idmap *m, uint32_t uid)
{
	return lookup(m, &m->users, uid, true);
}

const char *idmap_group(struct idmap *m, uint32_t gid)
{
	return lookup(m, &m->groups, gid, false);
}

/* @name asked of NSS once: the answer is kept, found or not. */
static int nss_reverse(struct idmap *m, const char *name, bool user, uint32_t *ret)
{
	struct idtab *t = user ? &m->user_names : &m->group_names;
	uint32_t id = ID_MISSING;
	char buf[4096];

	for (size_t i = 0; i < t->n; i++)
		if (s2c_streq(t->v[i].name, name)) {
			if (t->v[i].id == ID_MISSING)
				return -ENOENT;
			*ret = t->v[i].id;
			return 0;
		}
	if (user) {
		struct passwd pw, *res = NULL;
		if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) == 0 && res)
			id = res->pw_uid;
	} else {
		struct group gr, *res = NULL;
		if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) == 0 && res)
			id = res->gr_gid;
	}
	(void)idtab_push(t, id, name);  /* without the entry, NSS is asked again */
	if (id == ID_MISSING)
		return -ENOENT;
	*ret = id;
	return 0;
}

static int reverse(struct idmap *m, struct idtab *t, const char *name, bool user, uint32_t *ret)
{
	unsigned id;

	if (parse_uint(name, UINT32_MAX, &id) == 0) {
		*ret = id;
		return 0;
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].name && s2c_streq(t->v[i].name, name)) {
			*ret = t->v[i].id;
			return 0;
		}
	if (!m->nss)
		return -ENOENT;
	return nss_reverse(m, name, user, ret);
}

int idmap_uid(struct idmap *m, const char *name, uint32_t *ret_uid)
{
	return reverse(m, &m->users, name, true, ret_uid);
}

int idmap_gid(struct idmap *m, const char *name, uint32_t *ret_gid)
{
	return reverse(m, &m->groups, name, false, ret_gid);
}
