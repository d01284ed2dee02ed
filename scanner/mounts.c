/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>

#include "mounts.h"
#include "util.h"
#include "common.h"

/* Filesystems with no regular files worth scanning; never crossed into. */
static const char *const pseudo_types[] = {
	"autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs",
	"devpts", "devtmpfs", "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs",
	"proc", "pstore", "rpc_pipefs", "securityfs", "selinuxfs", "sysfs", "tracefs",
};

static const struct {
	long magic;
	const char *name;
	bool pseudo;
} magics[] = {
	{ 0x0187, "autofs", true },          { 0x42494e4d, "binfmt_misc", true },
	{ 0xcafe4a11, "bpf", true },         { 0x27e0eb, "cgroup", true },
	{ 0x63677270, "cgroup2", true },     { 0x62656570, "configfs", true },
	{ 0x64626720, "debugfs", true },     { 0x1cd1, "devpts", true },
	{ 0xde5e81e4, "efivarfs", true },    { 0x65735543, "fusectl", true },
	{ 0x958458f6, "hugetlbfs", true },   { 0x19800202, "mqueue", true },
	{ 0x6e736673, "nsfs", true },        { 0x9fa0, "proc", true },
	{ 0x6165676c, "pstore", true },      { 0x73636673, "securityfs", true },
	{ 0xf97cff8c, "selinuxfs", true },   { 0x62656572, "sysfs", true },
	{ 0x74726163, "tracefs", true },
	{ 0xef53, "ext4", false },           { 0x58465342, "xfs", false },
	{ 0x9123683e, "btrfs", false },      { 0x01021994, "tmpfs", false },
	{ 0x794c7630, "overlay", false },    { 0x4d44, "vfat", false },
	{ 0x6969, "nfs", false },            { 0x65735546, "fuse", false },
	{ 0x73717368, "squashfs", false },   { 0xe0f5e1e2, "erofs", false },
	{ 0x5346544e, "ntfs", false },       { 0x2fc12fc1, "zfs", false },
	{ 0x858458f6, "ramfs", false },      { 0x9660, "iso9660", false },
	{ 0xff534d42, "cifs", false },       { 0x01021997, "9p", false },
	{ 0xf2f52010, "f2fs", false },       { 0x3153464a, "jfs", false },
	{ 0x52654973, "reiserfs", false },   { 0x72b6, "jffs2", false },
	{ 0x24051905, "ubifs", false },      { 0x6a656a63, "fakeowner", false },
};

bool mounts_fstype_is_pseudo(const char *fstype)
{
	for (size_t i = 0; i < S2C_ELEMENTSOF(pseudo_types); i++)
		if (s2c_streq(fstype, pseudo_types[i]))
			return true;
	return false;
}

bool mounts_magic_is_pseudo(long magic)
{
	for (size_t i = 0; i < S2C_ELEMENTSOF(magics); i++)
		if (magics[i].magic == magic)
			return magics[i].pseudo;
	return false;
}

const char *mounts_magic_name(long magic)
{
	for (size_t i = 0; i < S2C_ELEMENTSOF(magics); i++)
		if (magics[i].magic == magic)
			return magics[i].name;
	return NULL;
}

static enum mount_flags parse_opts(const char *opts)
{
	static const struct {
		const char *name;
		enum mount_flags flag;
	} known[] = {
		{ "ro", MOUNT_RDONLY }, { "nosuid", MOUNT_NOSUID },
		{ "noexec", MOUNT_NOEXEC }, { "nodev", MOUNT_NODEV },
	};
	enum mount_flags flags = 0;
	const char *p = opts;

	while (*p) {
		size_t len = strcspn(p, ",");
		for (size_t i = 0; i < S2C_ELEMENTSOF(known); i++)
			if (strlen(known[i].name) == len && strncmp(p, known[i].name, len) == 0)
				flags |= known[i].flag;
		p += len;
		if (*p == ',')
			p++;
	}
	return flags;
}

static void entry_release(struct mount_entry *e)
{
	free(e->target);
	free(e->fstype);
	free(e->source);
	for (size_t i = 0; e->overlay_dirs && e->overlay_dirs[i]; i++)
		free(e->overlay_dirs[i]);
	free(e->overlay_dirs);
	free(e->overlay_kinds);
}

/* Undo the backslash escapes of an overlay layer path ("\:" for a colon) in place. */
static void unescape_layer(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1])
			s++;
		*o++ = *s;
	}
	*o = '\0';
}

static int add_overlay_dir(struct mount_entry *e, size_t *n, const char *kind, const char *path,
			   size_t len)
{
	char **nd;
	const char **nk;
	char *copy;

	if (len == 0)
		return 0;       /* "::" separates data-only layers */
	copy = strndup(path, len);
	if (!copy)
		return -ENOMEM;
	unescape_layer(copy);
	nd = realloc(e->overlay_dirs, (*n + 2) * sizeof(*nd));
	if (!nd) {
		free(copy);
		return -ENOMEM;
	}
	e->overlay_dirs = nd;
	nk = realloc(e->overlay_kinds, (*n + 2) * sizeof(*nk));
	if (!nk) {
		free(copy);
		e->overlay_dirs[*n] = NULL;
		return -ENOMEM;
	}
	e->overlay_kinds = nk;
	e->overlay_dirs[*n] = copy;
	e->overlay_kinds[*n] = kind;
	(*n)++;
	e->overlay_dirs[*n] = NULL;
	e->overlay_kinds[*n] = NULL;
	return 0;
}

/* A lowerdir list: split on ':' not escaped by a backslash ("::" ends the data-only layers). */
static int add_layers(struct mount_entry *e, size_t *n, const char *kind, const char *v, bool list)
{
	const char *end = v + strlen(v);
	int r = 0;

	if (!list)
		return add_overlay_dir(e, n, kind, v, (size_t)(end - v));
	while (r == 0 && v <= end) {
		const char *c = v;

		while (c < end && *c != ':')
			c += (*c == '\\' && c + 1 < end) ? 2 : 1;
		r = add_overlay_dir(e, n, kind, v, (size_t)(c - v));
		v = c + 1;
	}
	return r;
}

/*
 * The layers of an overlayfs mount from its super options as mountinfo
 * shows them: "rw,lowerdir=/a:/b\134:c,upperdir=/u,workdir=/w".  A comma
 * inside a value arrives octal-escaped (\054), so splitting on ',' first is
 * exact; then the value loses its octal escapes, a lowerdir list is split on
 * unescaped ':', and each layer loses its backslash escapes.
 */
static int parse_overlay(struct mount_entry *e, const char *opts)
{
	static const char *const kinds[] = { "lowerdir", "lowerdir+", "datadir+", "upperdir",
					     "workdir" };
	size_t n = 0;
	int r = 0;

	while (*opts && r == 0) {
		size_t len = strcspn(opts, ",");
		const char *eq = memchr(opts, '=', len);

		for (size_t k = 0; eq && k < S2C_ELEMENTSOF(kinds); k++) {
			_cleanup_free_ char *v = NULL;

			if ((size_t)(eq - opts) != strlen(kinds[k]) ||
			    strncmp(opts, kinds[k], (size_t)(eq - opts)) != 0)
				continue;
			v = strndup(eq + 1, len - (size_t)(eq + 1 - opts));
			if (!v)
				return -ENOMEM;
			unescape_octal(v);
			r = add_layers(e, &n, kinds[k], v, k == 0);
			break;
		}
		opts += len;
		if (*opts == ',')
			opts++;
	}
	return r;
}

struct mounts *mounts_free(struct mounts *m)
{
	if (!m)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		entry_release(&m->v[i]);
	free(m->v);
	free(m->targets_sorted);
	free(m);
	return NULL;
}

/*
 * One line: "ID PARENT MAJ:MIN ROOT TARGET OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER".
 * Fields are separated by single spaces; names are octal-escaped, so a plain
 * split is exact.
 */
static int parse_line(char *line, struct mount_entry *e)
{
	char *field[32];
	size_t n = 0, sep = 0;
	char *save = NULL;
	uint64_t v;

	for (char *tok = strtok_r(line, " \n", &save); tok && n < S2C_ELEMENTSOF(field);
	     tok = strtok_r(NULL, " \n", &save))
		field[n++] = tok;
	for (size_t i = 6; i < n; i++)
		if (s2c_streq(field[i], "-")) {
			sep = i;
			break;
		}
	if (n < 10 || sep == 0 || sep + 2 >= n)
		return -EINVAL;
	if (parse_u64(field[0], 10, UINT64_MAX, &v) < 0)
		return -EINVAL;
	e->id = v;
	if (parse_u64(field[1], 10, UINT64_MAX, &v) < 0)
		return -EINVAL;
	e->parent_id = v;
	if (sscanf(field[2], "%u:%u", &e->major, &e->minor) != 2)
		return -EINVAL;
	unescape_octal(field[4]);
	unescape_octal(field[sep + 1]);
	unescape_octal(field[sep + 2]);
	if (field[4][0] != '/')
		return -EINVAL;
	e->target = strdup(field[4]);
	e->fstype = strdup(field[sep + 1]);
	e->source = strdup(field[sep + 2]);
	if (!e->target || !e->fstype || !e->source)
		return -ENOMEM;
	e->flags = parse_opts(field[5]);
	e->pseudo = mounts_fstype_is_pseudo(e->fstype);
	if (s2c_streq(e->fstype, "overlay") && sep + 3 < n)
		return parse_overlay(e, field[sep + 3]);
	return 0;
}

static int build_targets(struct mounts *m)
{
	m->targets_sorted = calloc(m->n ? m->n : 1, sizeof(char *));
	if (!m->targets_sorted)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++)
		m->targets_sorted[i] = m->v[i].target;
	qsort(m->targets_sorted, m->n, sizeof(char *), strv_cmp);
	m->n_targets = 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->n_targets == 0 ||
		    !s2c_streq(m->targets_sorted[m->n_targets - 1], m->targets_sorted[i]))
			m->targets_sorted[m->n_targets++] = m->targets_sorted[i];
	return 0;
}

int mounts_parse(FILE *f, struct mounts **ret, struct s2c_error *err)
{
	_cleanup_(mounts_freep) struct mounts *m = calloc(1, sizeof(*m));
	_cleanup_free_ char *line = NULL;
	size_t cap = 0, alloc = 0, lineno = 0;
	int r;

	if (!m)
		return -ENOMEM;
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		if (S2C_ARRAY_RESERVE(m->v, alloc, m->n + 1, 32) < 0)
			return -ENOMEM;
		memset(&m->v[m->n], 0, sizeof(m->v[0]));
		r = parse_line(line, &m->v[m->n]);
		if (r < 0) {
			entry_release(&m->v[m->n]);
			if (r == -ENOMEM)
				return r;
			return s2c_error_set(err, r, "malformed mountinfo line %zu", lineno);
		}
		m->n++;
	}
	if (ferror(f))
		return s2c_error_errno(err, -EIO, "cannot read mountinfo");
	r = build_targets(m);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(m);
	return 0;
}

int mounts_load(const char *path, struct mounts **ret, struct s2c_error *err)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");

	if (!f)
		return s2c_error_errno(err, -errno, "cannot open '%s'", path);
	return mounts_parse(f, ret, err);
}

const struct mount_entry *mounts_at(const struct mounts *m, const char *path)
{
	if (!m)
		return NULL;
	for (size_t i = m->n; i-- > 0;)
		if (s2c_streq(m->v[i].target, path))
			return &m->v[i];
	return NULL;
}

bool mounts_below(const struct mounts *m, const char *path)
{
	size_t len = strlen(path);
	size_t lo = 0, hi;

	if (!m)
		return false;
	if (len == 1 && path[0] == '/')
		return m->n_targets > 1 || (m->n_targets == 1 && !s2c_streq(m->targets_sorted[0], "/"));
	/* First target > path in sorted order; targets below path follow it. */
	hi = m->n_targets;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(m->targets_sorted[mid], path) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->n_targets; i++) {
		const char *t = m->targets_sorted[i];
		int c = strncmp(t, path, len);
		if (c != 0)
			break;
		if (t[len] == '/')
			return true;
		/* "path-x" sorts between "path" and "path/…"; keep looking. */
	}
	return false;
}

const struct mount_entry *mounts_by_id(const struct mounts *m, uint64_t id)
{
	if (!m)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].id == id)
			return &m->v[i];
	return NULL;
}

const struct mount_entry *mounts_containing(const struct mounts *m, const char *path)
{
	const struct mount_entry *best = NULL;
	size_t best_len = 0;

	if (!m)
		return NULL;
	for (size_t i = 0; i < m->n; i++) {
		const char *t = m->v[i].target;
		size_t len = strlen(t);
		bool match;

		if (len == 1)
			match = true;
		else
			match = strncmp(path, t, len) == 0 && (path[len] == '/' || path[len] == '\0');
		if (match && len >= best_len) {
			best = &m->v[i];
			best_len = len;
		}
	}
	return best;
}
