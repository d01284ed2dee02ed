/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <sys/capability.h>

#include "capset.h"
#include "db.h"
#include "dirlist.h"
#include "hash.h"
#include "host.h"
#include "pkgdb.h"
#include "resolve.h"
#include "strhash.h"
#include "util.h"
#include "common.h"

/* Kernel defaults of the sysctls rules ask about, for images without config. */
static const struct {
	const char *name, *value;
} sysctl_defaults[] = {
	{ "net.ipv4.ping_group_range", "1 0" },
	{ "net.ipv4.ip_unprivileged_port_start", "1024" },
	{ "kernel.unprivileged_userns_clone", "1" },
	{ "user.max_user_namespaces", "1" },
};

struct host *host_free(struct host *h)
{
	if (!h)
		return NULL;
	free(h->kernel_release);
	free(h->os_id);
	strv_free(h->os_like);
	free(h->os_pretty);
	free(h->bounding_what);
	for (size_t i = 0; i < h->n_pkg; i++) {
		free(h->pkg_paths[i]);
		pkgdb_entry_release(&h->pkg[i]);
	}
	free(h->pkg_paths);
	free(h->pkg);
	hashindex_release(&h->pkg_index);
	pkgdb_free(h->pkgdb);
	for (size_t i = 0; i < h->n_answers; i++) {
		free(h->answers[i].key);
		free(h->answers[i].value);
	}
	free(h->answers);
	free(h);
	return NULL;
}

static FILE *open_under(int rootfd, const char *path)
{
	int fd = resolve_open(rootfd, path, O_RDONLY | O_NONBLOCK);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f)
		(void)close(fd);
	return f;
}

/* Strip quotes of an os-release value in place. */
static char *unquote(char *v)
{
	size_t len = strlen(v);

	while (len && (v[len - 1] == '\n' || v[len - 1] == ' '))
		v[--len] = '\0';
	if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
		v[len - 1] = '\0';
		return v + 1;
	}
	return v;
}

static int split_words(const char *s, char ***ret)
{
	char **v = calloc(strlen(s) / 2 + 2, sizeof(char *));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	while (*s) {
		size_t len;
		s += strspn(s, " \t");
		len = strcspn(s, " \t");
		if (!len)
			break;
		v[n] = strndup(s, len);
		if (!v[n++]) {
			strv_free(v);
			return -ENOMEM;
		}
		s += len;
	}
	*ret = v;
	return 0;
}

static int load_os_release(struct host *h)
{
	_cleanup_fclose_ FILE *f = open_under(h->rootfd, "/etc/os-release");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	if (!f)
		f = open_under(h->rootfd, "/usr/lib/os-release");
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		char *eq = strchr(line, '='), *v;
		if (!eq)
			continue;
		*eq = '\0';
		v = unquote(eq + 1);
		if (s2c_streq(line, "ID") && !h->os_id) {
			if (!(h->os_id = strdup(v)))
				return -ENOMEM;
		} else if (s2c_streq(line, "ID_LIKE") && !h->os_like) {
			if (split_words(v, &h->os_like) < 0)
				return -ENOMEM;
		} else if (s2c_streq(line, "PRETTY_NAME") && !h->os_pretty) {
			if (!(h->os_pretty = strdup(v)))
				return -ENOMEM;
		}
	}
	return 0;
}

static int parse_kernel(const char *s, unsigned v[3])
{
	unsigned a = 0, b = 0, c = 0;

	if (sscanf(s, "%u.%u.%u", &a, &b, &c) < 2)
		return -EINVAL;
	v[0] = a, v[1] = b, v[2] = c;
	return 0;
}

static int detect_bounding(struct host *h);

int host_new(int rootfd, bool live, const char *kernel_override, struct host **ret,
	     struct s2c_error *err)
{
	_cleanup_(host_freep) struct host *h = calloc(1, sizeof(*h));
	struct utsname u;
	int r;

	if (!h)
		return -ENOMEM;
	h->rootfd = rootfd;
	h->live = live;
	if (kernel_override) {
		if (parse_kernel(kernel_override, h->kernel) < 0)
			return s2c_error_set(err, -EINVAL, "invalid kernel version '%s'",
					     kernel_override);
		h->kernel_release = strdup(kernel_override);
	} else {
		if (uname(&u) < 0 || parse_kernel(u.release, h->kernel) < 0)
			return s2c_error_errno(err, -EIO, "cannot read the kernel version");
		h->kernel_release = strdup(u.release);
	}
	if (!h->kernel_release)
		return -ENOMEM;
	r = load_os_release(h);
	if (r < 0)
		return r;
	r = pkgdb_open(rootfd, &h->pkgdb);
	if (r < 0)
		return r;
	h->pkg_db = pkgdb_count(h->pkgdb) > 0;
	h->bounding = HOST_BOUNDING_ALL;
	r = detect_bounding(h);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(h);
	return 0;
}

/* --- the bounding set of a container ------------------------------------------------- */

/*
 * The default capabilities of the container runtimes, which are also the
 * bounding set of what runs in their containers: moby's oci/caps defaults
 * (Docker) and containers.conf default_capabilities (Podman 4 and later,
 * which dropped CAP_NET_RAW, CAP_MKNOD and CAP_AUDIT_WRITE).
 */
#define M(c) S2C_CAPMASK(c)
static const uint64_t docker_default =
	M(CAP_CHOWN) | M(CAP_DAC_OVERRIDE) | M(CAP_FSETID) | M(CAP_FOWNER) | M(CAP_MKNOD) |
	M(CAP_NET_RAW) | M(CAP_SETGID) | M(CAP_SETUID) | M(CAP_SETFCAP) | M(CAP_SETPCAP) |
	M(CAP_NET_BIND_SERVICE) | M(CAP_SYS_CHROOT) | M(CAP_KILL) | M(CAP_AUDIT_WRITE);
static const uint64_t podman_default =
	M(CAP_CHOWN) | M(CAP_DAC_OVERRIDE) | M(CAP_FOWNER) | M(CAP_FSETID) | M(CAP_KILL) |
	M(CAP_NET_BIND_SERVICE) | M(CAP_SETFCAP) | M(CAP_SETGID) | M(CAP_SETPCAP) | M(CAP_SETUID) |
	M(CAP_SYS_CHROOT);
#undef M

int host_set_bounding(struct host *h, uint64_t bounding, const char *what)
{
	char *w = NULL;

	if (what && bounding != HOST_BOUNDING_ALL && !(w = strdup(what)))
		return -ENOMEM;
	free(h->bounding_what);
	h->bounding_what = w;
	h->bounding = w ? bounding : HOST_BOUNDING_ALL;
	return 0;
}

int host_bounding_parse(const char *s, uint64_t *ret, const char **ret_what,
			struct s2c_error *err)
{
	char bad[CAPSET_NAME_MAX];
	uint64_t mask = 0;

	if (s2c_streq(s, "docker")) {
		*ret = docker_default;
		*ret_what = "Docker's default bounding set (--bounding-set docker)";
		return 0;
	}
	if (s2c_streq(s, "podman")) {
		*ret = podman_default;
		*ret_what = "Podman's default bounding set (--bounding-set podman)";
		return 0;
	}
	if (s2c_streq(s, "all")) {
		*ret = HOST_BOUNDING_ALL;
		*ret_what = NULL;
		return 0;
	}
	if (capset_parse_list(s, &mask, bad) < 0 && *bad)
		return s2c_error_set(err, -EINVAL, "invalid bounding set '%s': unknown capability "
				     "'%s'", s, bad);
	if (!mask)
		return s2c_error_set(err, -EINVAL, "invalid bounding set '%s': expected docker, "
				     "podman, all or capability names separated by commas", s);
	*ret = mask;
	*ret_what = "the bounding set given with --bounding-set";
	return 0;
}

/* The bounding set of the running system's init, from /proc/1/status. */
static int init_bounding(uint64_t *ret)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/1/status", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	if (!f)
		return -ENOENT;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long v;
		if (sscanf(line, "CapBnd: %llx", &v) == 1) {
			*ret = (uint64_t)v;
			return 0;
		}
	}
	return -ENOENT;
}

static int detect_bounding(struct host *h)
{
	uint64_t b, known = 0;

	if (!h->live) {
		if (host_file_exists(h, "/run/.containerenv"))
			return host_set_bounding(h, podman_default, "Podman's default bounding set "
						 "(the image has /run/.containerenv)");
		if (host_file_exists(h, "/.dockerenv"))
			return host_set_bounding(h, docker_default, "Docker's default bounding set "
						 "(the image has /.dockerenv)");
		return 0;
	}
	/* every capability the running kernel knows (cap_max_bits() asks it) */
	for (int c = 0; c < (int)cap_max_bits() && c < 64; c++)
		known |= S2C_CAPMASK(c);
	if (init_bounding(&b) < 0 || (b & known) == known)
		return 0;
	/* Capabilities the kernel does not know narrow nothing: only the ones it lacks count. */
	return host_set_bounding(h, b | ~known, "the bounding set of this system's init "
				 "(/proc/1/status)");
}

int host_kernel_cmp(const struct host *h, const unsigned v[3])
{
	for (int i = 0; i < 3; i++)
		if (h->kernel[i] != v[i])
			return h->kernel[i] < v[i] ? -1 : 1;
	return 0;
}

bool host_os_is(const struct host *h, const char *id)
{
	if (h->os_id && s2c_streq(h->os_id, id))
		return true;
	for (size_t i = 0; h->os_like && h->os_like[i]; i++)
		if (s2c_streq(h->os_like[i], id))
			return true;
	return false;
}

bool host_file_exists(const struct host *h, const char *path)
{
	int fd = resolve_open(h->rootfd, path, O_PATH);

	if (fd < 0)
		return false;
	(void)close(fd);
	return true;
}

/* "a  b\t c\n" -> "a b c" */
static char *normalise_value(const char *v)
{
	char *out = malloc(strlen(v) + 1), *o = out;
	bool space = false;

	if (!out)
		return NULL;
	for (v += strspn(v, " \t"); *v && *v != '\n'; v++) {
		if (*v == ' ' || *v == '\t') {
			space = true;
			continue;
		}
		if (space && o != out)
			*o++ = ' ';
		space = false;
		*o++ = *v;
	}
	*o = '\0';
	return out;
}

static bool key_equal(const char *a, const char *b)
{
	/* sysctl keys may use '/' or '.' as separators */
	for (; *a && *b; a++, b++) {
		char x = *a == '/' ? '.' : *a, y = *b == '/' ? '.' : *b;
		if (x != y)
			return false;
	}
	return !*a && !*b;
}

/* Look for @name in one sysctl.conf-style file; the last setting wins. */
static int scan_conf(int rootfd, const char *path, const char *name, char **value)
{
	_cleanup_fclose_ FILE *f = open_under(rootfd, path);
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		char *k = line + strspn(line, " \t"), *eq, *end;
		if (*k == '#' || *k == ';' || !(eq = strchr(k, '=')))
			continue;
		if (*k == '-')
			k++;
		end = eq;
		while (end > k && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*end = '\0';
		if (!key_equal(k, name))
			continue;
		free(*value);
		*value = normalise_value(eq + 1);
		if (!*value)
			return -ENOMEM;
	}
	return 0;
}

/* systemd-sysctl order: *.conf from all directories sorted by file name, /etc
 * overriding /run and /usr/lib for the same name; then /etc/sysctl.conf. */
static int image_sysctl(const struct host *h, const char *name, char **value)
{
	static const char *const dirs[] = { "/etc/sysctl.d", "/run/sysctl.d",
					    "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d",
					    "/lib/sysctl.d" };
	char *files[512];
	size_t n = 0;
	int r = 0;

	for (size_t d = 0; d < S2C_ELEMENTSOF(dirs); d++) {
		_cleanup_close_ int fd = resolve_open(h->rootfd, dirs[d], O_RDONLY | O_DIRECTORY);
		_cleanup_(strv_freep) char **names = NULL;

		if (fd < 0 || dirlist(fd, "*.conf", 0, &names) < 0)
			continue;
		for (size_t k = 0; names[k] && n < S2C_ELEMENTSOF(files); k++) {
			bool dup = false;
			for (size_t i = 0; i < n; i++)
				dup |= s2c_streq(strrchr(files[i], '/') + 1, names[k]);
			if (dup)
				continue;   /* an earlier directory overrides this name */
			if (asprintf(&files[n], "%s/%s", dirs[d], names[k]) < 0) {
				r = -ENOMEM;
				goto out;
			}
			n++;
		}
	}
	/* sort by file name (not directory) */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(strrchr(files[j - 1], '/'), strrchr(files[j], '/')) > 0; j--) {
			char *t = files[j];
			files[j] = files[j - 1];
			files[j - 1] = t;
		}
	for (size_t i = 0; i < n && r == 0; i++)
		r = scan_conf(h->rootfd, files[i], name, value);
	if (r == 0)
		r = scan_conf(h->rootfd, "/etc/sysctl.conf", name, value);
out:
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	return r;
}

int host_sysctl(const struct host *h, const char *name, char **ret)
{
	char *value = NULL;
	int r;

	if (h->live) {
		char path[256], buf[256];
		_cleanup_fclose_ FILE *f = NULL;

		if (snprintf(path, sizeof(path), "/proc/sys/%s", name) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		for (char *p = path + 10; *p; p++)
			if (*p == '.')
				*p = '/';
		f = fopen(path, "re");
		if (!f || !fgets(buf, sizeof(buf), f))
			return -ENOENT;
		value = normalise_value(buf);
		if (!value)
			return -ENOMEM;
		*ret = value;
		return 0;
	}
	r = image_sysctl(h, name, &value);
	if (r < 0)
		return r;
	for (size_t i = 0; !value && i < S2C_ELEMENTSOF(sysctl_defaults); i++)
		if (s2c_streq(sysctl_defaults[i].name, name) &&
		    !(value = strdup(sysctl_defaults[i].value)))
			return -ENOMEM;
	if (!value)
		return -ENOENT;
	*ret = value;
	return 0;
}

/* --- packages -------------------------------------------------------------------- */

struct slot_lookup {
	const struct host *h;
	const char *path;
};

static bool same_slot(size_t pos, const void *userdata)
{
	const struct slot_lookup *l = userdata;

	return pos < l->h->n_pkg && s2c_streq(l->h->pkg_paths[pos], l->path);
}

/* The position of @path in the package cache, or -1: one hash and, as a rule, one compare. */
static int find_slot(const struct host *h, const char *path)
{
	size_t i = hashindex_find(&h->pkg_index, strhash(path), same_slot,
				  &(struct slot_lookup){ h, path });

	return i == SIZE_MAX ? -1 : (int)i;
}

/* Room for @more entries in the package cache. */
static int reserve_slots(struct host *h, size_t more)
{
	size_t want = h->n_pkg + more, na;
	struct pkgdb_entry *ne;
	char **np;

	if (want <= h->a_pkg)
		return 0;
	na = S2C_MAX(want, h->a_pkg * 2);
	np = realloc(h->pkg_paths, na * sizeof(*np));
	if (!np)
		return -ENOMEM;
	h->pkg_paths = np;
	ne = realloc(h->pkg, na * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	h->pkg = ne;
	h->a_pkg = na;
	return 0;
}

/* Append @path to the package cache with @e (taken on success); reserve_slots() first. */
static int add_slot(struct host *h, const char *path, struct pkgdb_entry e)
{
	char *copy = strdup(path);

	if (!copy || hashindex_add(&h->pkg_index, strhash(path), h->n_pkg) < 0) {
		free(copy);
		return -ENOMEM;
	}
	h->pkg_paths[h->n_pkg] = copy;
	h->pkg[h->n_pkg++] = e;
	return 0;
}

/* The packages of @n entries looked up for @want: only the files a package owns take a
 * slot; the others would be a slot each for nothing (a tree of files no package owns). */
static int keep_owned(struct host *h, const char *const *want, struct pkgdb_entry *found,
		      size_t n)
{
	size_t owned = 0;
	int r = 0;

	for (size_t i = 0; i < n; i++)
		owned += found[i].package != NULL;
	if (reserve_slots(h, owned) < 0)
		r = -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		/* a path given twice is looked up twice and kept once */
		if (r == 0 && found[i].package && find_slot(h, want[i]) < 0) {
			r = add_slot(h, want[i], found[i]);
			if (r == 0)
				continue; /* taken */
		}
		pkgdb_entry_release(&found[i]);
	}
	return r;
}

int host_load_packages(struct host *h, const char *const *paths, size_t n)
{
	_cleanup_free_ const char **want = calloc(n + 1, sizeof(char *));
	_cleanup_free_ struct pkgdb_entry *found = NULL;
	size_t nwant = 0;
	int r;

	if (!want)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (find_slot(h, paths[i]) < 0)
			want[nwant++] = paths[i];
	if (!h->pkgdb || !nwant)
		return 0;
	found = calloc(nwant, sizeof(*found));
	if (!found)
		return -ENOMEM;
	r = pkgdb_lookup(h->pkgdb, want, nwant, found);
	if (r < 0) {
		for (size_t i = 0; i < nwant; i++)
			pkgdb_entry_release(&found[i]);
		return r;
	}
	return keep_owned(h, want, found, nwant);
}

const struct pkgdb_entry *host_package_entry(const struct host *h, const char *path)
{
	int i = find_slot(h, path);

	return i >= 0 && h->pkg[i].package ? &h->pkg[i] : NULL;
}

int host_set_package(struct host *h, const char *path, const char *package,
		     const char *version)
{
	struct pkgdb_entry e = { 0 };
	int i = find_slot(h, path);

	if ((package && !(e.package = strdup(package))) ||
	    (version && !(e.version = strdup(version))) ||
	    (i < 0 && (reserve_slots(h, 1) < 0 || add_slot(h, path, e) < 0))) {
		pkgdb_entry_release(&e);
		return -ENOMEM;
	}
	if (i >= 0) {
		pkgdb_entry_release(&h->pkg[i]);
		h->pkg[i] = e;
	}
	return 0;
}

const char *host_package_of(const struct host *h, const char *path)
{
	const struct pkgdb_entry *e = host_package_entry(h, path);

	return e ? e->package : NULL;
}

int host_package_digest(const struct host *h, const char *path, int fd, enum host_digest *ret,
			const char **ret_package)
{
	const struct pkgdb_entry *e = host_package_entry(h, path);
	char got[HASH_ANY_HEX_LEN];
	int r;

	if (ret_package)
		*ret_package = e ? e->package : NULL;
	*ret = HOST_DIGEST_UNKNOWN;
	if (!e || !e->digest || e->algo == HASH_NONE)
		return 0;
	r = hash_fd_algo(fd, e->algo, got);
	if (r < 0)
		return r;
	*ret = s2c_streq(e->digest, got) ? HOST_DIGEST_MATCH : HOST_DIGEST_DIFFERS;
	return 0;
}

int host_new_given(const char *kernel, struct host **ret)
{
	_cleanup_(host_freep) struct host *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	h->rootfd = -1;
	h->bounding = HOST_BOUNDING_ALL;
	if (parse_kernel(kernel, h->kernel) < 0)
		return -EINVAL;
	if (!(h->kernel_release = strdup(kernel)))
		return -ENOMEM;
	*ret = TAKE_PTR(h);
	return 0;
}

/* --- what the rules' conditions ask ------------------------------------------------- */

static struct host_answer *find_answer(const struct host *h, bool file, const char *key)
{
	for (size_t i = 0; i < h->n_answers; i++)
		if (h->answers[i].file == file && s2c_streq(h->answers[i].key, key))
			return &h->answers[i];
	return NULL;
}

/* The answer to @key, a new one (unknown, not existing) when it was never asked. */
static struct host_answer *answer_slot(struct host *h, bool file, const char *key)
{
	struct host_answer *a = find_answer(h, file, key);
	char *k;

	if (a)
		return a;
	a = realloc(h->answers, (h->n_answers + 1) * sizeof(*a));
	if (!a)
		return NULL;
	h->answers = a;
	if (!(k = strdup(key)))
		return NULL;
	a = &h->answers[h->n_answers++];
	*a = (struct host_answer){ .file = file, .key = k };
	return a;
}

int host_set_sysctl(struct host *h, const char *name, const char *value)
{
	struct host_answer *a = answer_slot(h, false, name);
	char *v = NULL;

	if (!a || (value && !(v = strdup(value))))
		return -ENOMEM;
	free(a->value);
	a->value = v;
	return 0;
}

int host_set_file(struct host *h, const char *path, bool exists)
{
	struct host_answer *a = answer_slot(h, true, path);

	if (!a)
		return -ENOMEM;
	a->exists = exists;
	return 0;
}

const char *host_answer_sysctl(const struct host *h, const char *name)
{
	const struct host_answer *a = find_answer(h, false, name);

	return a ? a->value : NULL;
}

bool host_answer_file(const struct host *h, const char *path)
{
	const struct host_answer *a = find_answer(h, true, path);

	return a && a->exists;
}

/* One condition's questions, read from the target unless answered already. */
static int gather_when(struct host *h, const struct rule_when *w)
{
	int r = 0;

	if (w->sysctl_name && !find_answer(h, false, w->sysctl_name)) {
		_cleanup_free_ char *v = NULL;

		if (h->rootfd >= 0 && host_sysctl(h, w->sysctl_name, &v) == -ENOMEM)
			return -ENOMEM;
		r = host_set_sysctl(h, w->sysctl_name, v);
	}
	if (r == 0 && w->file_exists && !find_answer(h, true, w->file_exists))
		r = host_set_file(h, w->file_exists,
				  h->rootfd >= 0 && host_file_exists(h, w->file_exists));
	return r;
}

int host_gather(struct host *h, const struct rules_db *db)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < db->n; i++)
		for (size_t c = 0; r == 0 && c < db->rules[i]->n_conditions; c++)
			r = gather_when(h, &db->rules[i]->conditions[c].when);
	return r;
}
