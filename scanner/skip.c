/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "jsonout.h"
#include "mounts.h"
#include "resolve.h"
#include "skip.h"
#include "strtable.h"
#include "util.h"
#include "common.h"

/* Container and VM storage of the usual engines, on the running system. */
static const char *const storage_dirs[] = {
	"/var/lib/docker", "/var/lib/containers", "/var/lib/machines", "/var/lib/lxc",
	"/var/lib/libvirt/images",
};

static const char *const reason_names[_SKIP_REASON_MAX] = {
	[SKIP_OS_ROOT] = "os-root",
	[SKIP_CONTAINERS] = "container-storage",
	[SKIP_OVERLAY] = "overlay",
	[SKIP_EXCLUDED] = "excluded",
};

static const char *const reason_texts[_SKIP_REASON_MAX] = {
	[SKIP_OS_ROOT] = "OS root",
	[SKIP_CONTAINERS] = "container storage",
	[SKIP_OVERLAY] = "overlayfs layer",
	[SKIP_EXCLUDED] = "excluded",
};

DEFINE_STRING_TABLE_TO_NAME(skip_reason_name, enum skip_reason, reason_names, "?")

DEFINE_STRING_TABLE_FROM_NAME(skip_reason_from_name, int, reason_names)

DEFINE_STRING_TABLE_TO_NAME(skip_reason_text, enum skip_reason, reason_texts, "?")

bool skip_reason_is_other_root(enum skip_reason r)
{
	return r != SKIP_EXCLUDED;
}

unsigned skip_path_depth(const char *path)
{
	unsigned n = 0;

	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			n++;
	return n;
}

void skip_entry_release(struct skip_entry *e)
{
	free(e->path);
	free(e->source);
	memset(e, 0, sizeof(*e));
}

/*
 * Collapse "//" and "." components, refuse "..", drop a trailing '/'.
 * @glob: also check the glob syntax fnmatch(3) would otherwise take literally.
 */
static int normalise(const char *pattern, bool glob, char **ret, struct s2c_error *err)
{
	_cleanup_free_ char *out = NULL;
	size_t o = 0;
	const char *p = pattern;

	if (s2c_isempty(pattern))
		return s2c_error_set(err, -EINVAL, "empty path");
	if (pattern[0] != '/')
		return s2c_error_set(err, -EINVAL, "not an absolute path (paths and globs are taken "
				     "under the root and start with '/')");
	out = malloc(strlen(pattern) + 1);
	if (!out)
		return -ENOMEM;
	while (*p) {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len == 0 || (len == 1 && p[0] == '.')) {
			p += len;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return s2c_error_set(err, -EINVAL, "'..' components are not allowed");
		if (glob) {
			for (size_t i = 0; i < len; i++) {
				if (p[i] == '\\') {
					if (i + 1 == len)
						return s2c_error_set(err, -EINVAL, "a backslash at the end "
								     "of a component escapes nothing");
					i++;
				} else if (p[i] == '[') {
					size_t j = i + 1;
					if (j < len && (p[j] == '!' || p[j] == '^'))
						j++;
					if (j < len && p[j] == ']')
						j++;
					while (j < len && p[j] != ']')
						j++;
					if (j == len)
						return s2c_error_set(err, -EINVAL, "unterminated '['");
					i = j;
				}
			}
		}
		out[o++] = '/';
		memcpy(out + o, p, len);
		o += len;
		p += len;
	}
	if (o == 0)
		return s2c_error_set(err, -EINVAL, "'/' is the whole root");
	out[o] = '\0';
	*ret = TAKE_PTR(out);
	return 0;
}

int skip_pattern_normalise(const char *pattern, char **ret, struct s2c_error *err)
{
	return normalise(pattern, true, ret, err);
}

/* Length of the leading components of @p that hold no glob character. */
static size_t literal_prefix(const char *p)
{
	size_t keep = 0;

	for (size_t i = 0; p[i]; i++) {
		if (strchr("*?[\\", p[i]))
			return keep;
		if (p[i + 1] == '/' || p[i + 1] == '\0')
			keep = i + 1;
	}
	return keep;
}

static int add(struct skip_list *l, const char *pattern, bool glob, enum skip_reason reason,
	       const char *source, struct s2c_error *err)
{
	_cleanup_free_ char *norm = NULL;
	_cleanup_free_ char *src = NULL;
	struct skip_rule *rule;
	int r;

	r = normalise(pattern, glob, &norm, err);
	if (r < 0)
		return r;
	if (source && !(src = strdup(source)))
		return -ENOMEM;
	if (S2C_ARRAY_RESERVE(l->v, l->alloc, l->n + 1, 16) < 0)
		return -ENOMEM;
	rule = &l->v[l->n++];
	*rule = (struct skip_rule){
		.reason = reason,
		.depth = skip_path_depth(norm),
		.glob = glob && strpbrk(norm, "*?[\\") != NULL,
	};
	rule->literal = rule->glob ? literal_prefix(norm) : strlen(norm);
	rule->pattern = TAKE_PTR(norm);
	rule->source = TAKE_PTR(src);
	l->max_depth = S2C_MAX(l->max_depth, rule->depth);
	return 0;
}

int skip_list_add(struct skip_list *l, const char *pattern, enum skip_reason reason,
		  const char *source, struct s2c_error *err)
{
	return add(l, pattern, true, reason, source, err);
}

void skip_list_release(struct skip_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].pattern);
		free(l->v[i].source);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* --- the exclude file ------------------------------------------------------------- */

/*
 * The trust check of a configuration file read as root.  Kept on its own so a
 * shared check can replace it.
 */
static int check_trusted_file(const struct stat *st, const char *display, struct s2c_error *err)
{
	if (st->st_uid != 0)
		return s2c_error_set(err, -EPERM, "exclude file '%s' is not owned by root, refusing it",
				     display);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return s2c_error_set(err, -EPERM, "exclude file '%s' is writable by group or others, "
				     "refusing it", display);
	return 0;
}

static char *strip(char *s)
{
	size_t len;

	s += strspn(s, " \t");
	len = strlen(s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' ||
		       s[len - 1] == '\r'))
		s[--len] = '\0';
	return s;
}

int skip_list_load(struct skip_list *l, int rootfd, const char *path, const char *display,
		   bool trusted, struct s2c_error *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	size_t cap = 0, lineno = 0;
	struct stat st;
	ssize_t len;
	int r;

	fd = resolve_open(rootfd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd == -ENOENT)
		return 0;
	if (fd == -ELOOP)
		return s2c_error_set(err, fd, "exclude file '%s' is or passes through a symbolic "
				     "link, refusing it", display);
	if (fd < 0)
		return s2c_error_errno(err, fd, "cannot open exclude file '%s'", display);
	if (fstat(fd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat exclude file '%s'", display);
	if (!S_ISREG(st.st_mode))
		return s2c_error_set(err, -EINVAL, "exclude file '%s' is not a regular file", display);
	if (trusted) {
		r = check_trusted_file(&st, display, err);
		if (r < 0)
			return r;
	}
	f = fdopen(fd, "r");
	if (!f)
		return s2c_error_errno(err, -errno, "cannot read exclude file '%s'", display);
	TAKE_FD(fd);
	while ((len = getline(&line, &cap, f)) > 0) {
		_cleanup_free_ char *source = NULL;
		struct s2c_error e = { 0 };
		char *s;

		lineno++;
		if (strlen(line) != (size_t)len)
			return s2c_error_set(err, -EINVAL, "'%s' line %zu: a NUL byte in the line",
					     display, lineno);
		s = strip(line);
		if (!*s || *s == '#')
			continue;
		if (asprintf(&source, "%s line %zu", display, lineno) < 0)
			return -ENOMEM;
		r = skip_list_add(l, s, SKIP_EXCLUDED, source, &e);
		if (r == -EINVAL)
			return s2c_error_set(err, r, "'%s' line %zu: %s", display, lineno, e.msg);
		if (r < 0)
			return r;
	}
	if (ferror(f))
		return s2c_error_errno(err, -EIO, "cannot read exclude file '%s'", display);
	return 0;
}

/* --- the running system's other roots -------------------------------------------- */

/* @dir is @path or one of its ancestors. */
static bool is_ancestor_or_self(const char *dir, const char *path)
{
	size_t len = strlen(dir);

	if (len == 1 && dir[0] == '/')
		return true;
	return strncmp(path, dir, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

static int add_overlays(struct skip_list *l, const struct mounts *m)
{
	for (size_t i = 0; m && i < m->n; i++) {
		const struct mount_entry *e = &m->v[i];

		for (size_t j = 0; e->overlay_dirs && e->overlay_dirs[j]; j++) {
			_cleanup_free_ char *source = NULL;
			const char *dir = e->overlay_dirs[j];
			int r;

			/* A layer above its own mount point ("/" as lowerdir, a /usr made
			 * writable by an overlay on /usr) is this system, not another one. */
			if (dir[0] != '/' || is_ancestor_or_self(dir, e->target))
				continue;
			if (asprintf(&source, "overlayfs %s of %s", e->overlay_kinds[j], e->target) < 0)
				return -ENOMEM;
			r = add(l, dir, false, SKIP_OVERLAY, source, NULL);
			if (r == -ENOMEM)
				return r;
		}
	}
	return 0;
}

struct home {
	char *dir, *user;
};

/* By home, then user: a home shared by several users is named after the first. */
static int cmp_home(const void *a, const void *b)
{
	const struct home *x = a, *y = b;
	int c = strcmp(x->dir, y->dir);

	return c ? c : strcmp(x->user, y->user);
}

/* Every user's rootless container storage; homes from NSS, each once. */
static int add_homes(struct skip_list *l)
{
	struct home *v = NULL;
	size_t n = 0, alloc = 0;
	struct passwd *pw;
	int r = 0;

	setpwent();
	while (r == 0 && (pw = getpwent())) {
		if (!pw->pw_dir || pw->pw_dir[0] != '/')
			continue;
		if (S2C_ARRAY_RESERVE(v, alloc, n + 1, 64) < 0) {
			r = -ENOMEM;
			break;
		}
		v[n].dir = strdup(pw->pw_dir);
		v[n].user = strdup(pw->pw_name ? pw->pw_name : "?");
		if (!v[n].dir || !v[n].user) {
			free(v[n].dir);
			free(v[n].user);
			r = -ENOMEM;
			break;
		}
		n++;
	}
	endpwent();
	if (n)
		qsort(v, n, sizeof(*v), cmp_home);
	for (size_t i = 0; i < n; i++) {
		if (r == 0 && (i == 0 || !s2c_streq(v[i].dir, v[i - 1].dir))) {
			_cleanup_free_ char *dir = path_join(v[i].dir, ".local/share/containers");
			_cleanup_free_ char *source = NULL;

			if (!dir || asprintf(&source, "rootless containers of user %s", v[i].user) < 0)
				r = -ENOMEM;
			else if (add(l, dir, false, SKIP_CONTAINERS, source, NULL) == -ENOMEM)
				r = -ENOMEM;   /* a home with ".." in it is no one's storage */
		}
	}
	for (size_t i = 0; i < n; i++) {
		free(v[i].dir);
		free(v[i].user);
	}
	free(v);
	return r;
}

int skip_list_add_live(struct skip_list *l, const struct mounts *m)
{
	int r;

	for (size_t i = 0; i < S2C_ELEMENTSOF(storage_dirs); i++) {
		r = add(l, storage_dirs[i], false, SKIP_CONTAINERS, "container and VM storage", NULL);
		if (r < 0)
			return r;
	}
	r = add_homes(l);
	/* Users the passwd database does not enumerate (LDAP, sssd) have homes too. */
	if (r == 0)
		r = add(l, "/home/*/.local/share/containers", true, SKIP_CONTAINERS,
			"rootless containers in a home directory", NULL);
	if (r == 0)
		r = add_overlays(l, m);
	return r;
}

/* --- matching ------------------------------------------------------------------- */

const struct skip_rule *skip_list_match(const struct skip_list *l, const char *path,
					unsigned depth)
{
	for (size_t i = 0; l && i < l->n; i++) {
		const struct skip_rule *r = &l->v[i];

		if (r->depth != depth || strncmp(path, r->pattern, r->literal) != 0)
			continue;
		if (!r->glob ? path[r->literal] == '\0'
			     : (path[r->literal] == '/' || r->literal == 0) &&
			       fnmatch(r->pattern, path, FNM_PATHNAME) == 0)
			return r;
	}
	return NULL;
}

bool skip_list_below(const struct skip_list *l, const char *dir, unsigned depth)
{
	size_t len = strlen(dir);

	if (!l || depth >= l->max_depth)
		return false;
	if (len == 1 && dir[0] == '/')
		return true;
	for (size_t i = 0; i < l->n; i++) {
		const struct skip_rule *r = &l->v[i];

		if (r->depth <= depth)
			continue;
		/* The rule's literal part lies below dir, or dir lies inside it. */
		if (r->literal >= len ? strncmp(r->pattern, dir, len) == 0 &&
					(r->pattern[len] == '/' || r->literal == len)
				      : r->literal == 0 || (strncmp(dir, r->pattern, r->literal) == 0 &&
							    dir[r->literal] == '/'))
			return true;
	}
	return false;
}

/* --- other OS roots ---------------------------------------------------------------- */

/* An entry named os-release in @dirfd/@sub: a file, or a symlink (not followed). */
static bool has_os_release(int dirfd, const char *sub)
{
	_cleanup_close_ int fd = openat(dirfd, sub, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstatat(fd, "os-release", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	return S_ISREG(st.st_mode) || S_ISLNK(st.st_mode);
}

bool skip_is_os_root(int dirfd)
{
	_cleanup_close_ int usr = openat(dirfd, "usr", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (usr < 0)
		return false;
	return has_os_release(dirfd, "etc") || has_os_release(usr, "lib");
}

struct json_object *skip_json(const struct skip_entry *v, size_t n)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++) {
		struct json_object *o = json_object_new_object();

		if (jsonout_push(a, o) < 0 || jsonout_add_string(o, "path", v[i].path) < 0 ||
		    jsonout_add(o, "reason", json_object_new_string(skip_reason_name(v[i].reason))) < 0 ||
		    jsonout_add_name(o, "source", v[i].source) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}
