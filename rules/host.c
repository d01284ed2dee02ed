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

#include "dirlist.h"
#include "hash.h"
#include "host.h"
#include "resolve.h"
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
	for (size_t i = 0; i < h->n_pkg; i++) {
		free(h->pkg_paths[i]);
		free(h->pkg_names[i]);
	}
	free(h->pkg_paths);
	free(h->pkg_names);
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
	{
		int fd = resolve_open(rootfd, "/var/lib/dpkg/info", O_PATH | O_DIRECTORY);
		h->pkg_db = fd >= 0;
		if (fd >= 0)
			(void)close(fd);
	}
	*ret = TAKE_PTR(h);
	return 0;
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

/* /usr/bin/x <-> /bin/x and the like, for merged-/usr systems. */
static char *usrmerge_alias(const char *path)
{
	static const char *const dirs[] = { "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/",
					    "/libx32/" };
	char *out = NULL;

	for (size_t i = 0; i < S2C_ELEMENTSOF(dirs); i++) {
		size_t n = strlen(dirs[i]);
		if (strncmp(path, dirs[i], n) == 0)
			return asprintf(&out, "/usr%s", path) < 0 ? NULL : out;
		if (strncmp(path, "/usr", 4) == 0 && strncmp(path + 4, dirs[i], n) == 0)
			return strdup(path + 4);
	}
	return NULL;
}

/* FNV-1a: enough to spread paths over a small table. */
static size_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)h;
}

static int find_slot(const struct host *h, const char *path)
{
	for (size_t i = 0; i < h->n_pkg; i++)
		if (s2c_streq(h->pkg_paths[i], path))
			return (int)i;
	return -1;
}

int host_load_packages(struct host *h, const char *const *paths, size_t n)
{
	_cleanup_free_ char **want = calloc(2 * n + 1, sizeof(char *));
	_cleanup_free_ size_t *slot = calloc(2 * n + 1, sizeof(size_t));
	_cleanup_free_ size_t *table = NULL;
	size_t mask = 15;
	size_t nwant = 0, base;
	int fd;
	DIR *dir;
	struct dirent *de;
	char **np, **nn;

	if (!want || !slot)
		return -ENOMEM;
	np = realloc(h->pkg_paths, (h->n_pkg + n) * sizeof(char *));
	if (!np)
		return -ENOMEM;
	h->pkg_paths = np;
	nn = realloc(h->pkg_names, (h->n_pkg + n) * sizeof(char *));
	if (!nn)
		return -ENOMEM;
	h->pkg_names = nn;
	base = h->n_pkg;
	for (size_t i = 0; i < n; i++) {
		char *alias;
		if (find_slot(h, paths[i]) >= 0)
			continue;
		if (!(h->pkg_paths[h->n_pkg] = strdup(paths[i])))
			return -ENOMEM;
		h->pkg_names[h->n_pkg] = NULL;
		want[nwant] = h->pkg_paths[h->n_pkg];
		slot[nwant++] = h->n_pkg;
		alias = usrmerge_alias(paths[i]);
		if (alias) {
			want[nwant] = alias;
			slot[nwant++] = h->n_pkg;
		}
		h->n_pkg++;
	}
	if (!h->pkg_db || h->n_pkg == base)
		goto done;
	/* An open-addressing set of the wanted paths: one lookup per listed file. */
	while (mask + 1 < 2 * nwant)
		mask = mask * 2 + 1;
	table = calloc(mask + 1, sizeof(*table));
	if (!table)
		return -ENOMEM;
	for (size_t i = 0; i < nwant; i++) {
		size_t b = str_hash(want[i]) & mask;
		while (table[b])
			b = (b + 1) & mask;
		table[b] = i + 1;
	}
	fd = resolve_open(h->rootfd, "/var/lib/dpkg/info", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		goto done;
	dir = fdopendir(fd);
	if (!dir) {
		(void)close(fd);
		goto done;
	}
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		_cleanup_fclose_ FILE *f = NULL;
		_cleanup_free_ char *line = NULL;
		size_t cap = 0;
		int lfd;

		if (len < 6 || strcmp(de->d_name + len - 5, ".list") != 0)
			continue;
		lfd = openat(dirfd(dir), de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (lfd < 0 || !(f = fdopen(lfd, "r"))) {
			if (lfd >= 0)
				(void)close(lfd);
			continue;
		}
		while (getline(&line, &cap, f) > 0) {
			size_t l = strlen(line);
			if (l && line[l - 1] == '\n')
				line[--l] = '\0';
			for (size_t b = str_hash(line) & mask; table[b]; b = (b + 1) & mask) {
				size_t i = table[b] - 1;
				char *pkg;
				if (!s2c_streq(want[i], line) || h->pkg_names[slot[i]])
					continue;
				/* "name:arch.list" or "name.list" -> "name" */
				pkg = strndup(de->d_name, S2C_MIN(strcspn(de->d_name, ":"), len - 5));
				if (!pkg) {
					(void)closedir(dir);
					return -ENOMEM;
				}
				h->pkg_names[slot[i]] = pkg;
			}
		}
	}
	(void)closedir(dir);
done:
	for (size_t i = 0; i < nwant; i++)
		if (want[i] != h->pkg_paths[slot[i]])
			free(want[i]);
	return 0;
}

int host_set_package(struct host *h, const char *path, const char *package)
{
	int i = find_slot(h, path);
	char **np, **nn;
	char *pc, *nc;

	pc = strdup(path);
	nc = package ? strdup(package) : NULL;
	if (!pc || (package && !nc)) {
		free(pc);
		free(nc);
		return -ENOMEM;
	}
	if (i >= 0) {
		free(pc);
		free(h->pkg_names[i]);
		h->pkg_names[i] = nc;
		return 0;
	}
	np = realloc(h->pkg_paths, (h->n_pkg + 1) * sizeof(char *));
	if (np)
		h->pkg_paths = np;
	nn = np ? realloc(h->pkg_names, (h->n_pkg + 1) * sizeof(char *)) : NULL;
	if (nn)
		h->pkg_names = nn;
	if (!np || !nn) {
		free(pc);
		free(nc);
		return -ENOMEM;
	}
	h->pkg_paths[h->n_pkg] = pc;
	h->pkg_names[h->n_pkg++] = nc;
	return 0;
}

const char *host_package_of(const struct host *h, const char *path)
{
	int i = find_slot(h, path);

	return i >= 0 ? h->pkg_names[i] : NULL;
}

/* Find the line of a dpkg md5sums file for @rel ("usr/bin/ping") or @alias;
 * true with its digest in @md5. */
static bool md5sums_lookup(FILE *f, const char *rel, const char *alias, char md5[static 33])
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, f)) > 0) {
		const char *p;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		/* "<32 hex>  <path>" */
		if (n < 35 || strspn(line, "0123456789abcdef") != 32 || line[32] != ' ' ||
		    line[33] != ' ')
			continue;
		p = line + 34;
		if (s2c_streq(p, rel) || (alias && s2c_streq(p, alias))) {
			memcpy(md5, line, 32);
			md5[32] = '\0';
			return true;
		}
	}
	return false;
}

int host_package_digest(const struct host *h, const char *path, int fd, enum host_digest *ret,
			const char **ret_package)
{
	const char *pkg = host_package_of(h, path);
	_cleanup_free_ char *alias = usrmerge_alias(path);
	char want[HASH_MD5_HEX_LEN] = "", got[HASH_MD5_HEX_LEN];
	DIR *dir = NULL;
	struct dirent *de;
	size_t plen;
	int dfd, r;

	if (ret_package)
		*ret_package = pkg;
	*ret = HOST_DIGEST_UNKNOWN;
	if (!pkg || path[0] != '/')
		return 0;
	plen = strlen(pkg);
	dfd = resolve_open(h->rootfd, "/var/lib/dpkg/info", O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return 0;
	dir = fdopendir(dfd);
	if (!dir) {
		(void)close(dfd);
		return -errno;
	}
	/* "PKG.md5sums" or "PKG:ARCH.md5sums" */
	while (!want[0] && (de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		_cleanup_fclose_ FILE *f = NULL;
		int lfd;

		if (len < plen + 8 || strncmp(de->d_name, pkg, plen) != 0 ||
		    (de->d_name[plen] != '.' && de->d_name[plen] != ':') ||
		    strcmp(de->d_name + len - 8, ".md5sums") != 0 ||
		    (de->d_name[plen] == '.' && len != plen + 8))
			continue;
		lfd = openat(dirfd(dir), de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (lfd < 0 || !(f = fdopen(lfd, "r"))) {
			if (lfd >= 0)
				(void)close(lfd);
			continue;
		}
		(void)md5sums_lookup(f, path + 1, alias ? alias + 1 : NULL, want);
	}
	(void)closedir(dir);
	if (!want[0])
		return 0;
	r = hash_fd_md5(fd, got);
	if (r < 0)
		return r;
	*ret = s2c_streq(want, got) ? HOST_DIGEST_MATCH : HOST_DIGEST_DIFFERS;
	return 0;
}
