/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <linux/capability.h>
#include <archive.h>
#include <archive_entry.h>
#include <json-c/json.h>

#include "arread.h"
#include "member.h"
#include "oci.h"
#include "stage.h"
#include "target.h"
#include "util.h"
#include "common.h"

#define LINKS_MAX 16
#define INDEX_DEPTH_MAX 4

/* One member of an image tar. */
struct tarent {
	char *name;             /* relative, normalised: "blobs/sha256/ab…", "abc/layer.tar" */
	int64_t header;         /* offset of its header */
	int64_t size;
	enum member_type type;
	char *link;             /* symlink target as stored; a hard link's member name */
	bool hard;              /* a hard link: @link is a normalised member path ("/x/y") */
	char *data;             /* content, when small enough to keep */
	size_t len;
	char *spool;            /* path in the spool stage (compressed tars) */
};

/* Where the image's files come from. */
struct src {
	const char *path;
	int dirfd;              /* an OCI layout directory, or -1 */
	int fd;                 /* a tar, or -1 */
	bool compressed;        /* the tar is compressed: large members are spooled */
	struct tarent *v;
	size_t n;
	struct stage *spool;
	struct arread_budget *budget;
};

static void archive_freep(struct archive **a)
{
	if (*a)
		archive_read_free(*a);
}

static void jputp(struct json_object **o)
{
	if (*o)
		json_object_put(*o);
}

static void src_release(struct src *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].link);
		free(s->v[i].data);
		free(s->v[i].spool);
	}
	free(s->v);
	stage_free(s->spool);
	if (s->dirfd >= 0)
		(void)close(s->dirfd);
	if (s->fd >= 0)
		(void)close(s->fd);
}

/* --- the tar index -------------------------------------------------------------------------- */

static int index_tar(struct src *s, struct stage *run, struct s2c_error *err)
{
	_cleanup_(archive_freep) struct archive *a = NULL;
	struct archive_entry *e;
	int r = arread_new(ARREAD_TAR, &a);

	if (r == 0)
		r = arread_open_fd(a, s->fd, err);
	while (r == 0 && (r = arread_next(a, s->budget, &e, err)) > 0) {
		_cleanup_free_ char *path = NULL;
		struct tarent *v, *t;

		r = member_path(archive_entry_pathname(e) ? archive_entry_pathname(e) : "", &path, err);
		if (r < 0)
			break;
		r = 0;
		s->compressed = archive_filter_count(a) > 1;
		v = realloc(s->v, (s->n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		t = &v[s->n++];
		*t = (struct tarent){ .header = archive_read_header_position(a),
				      .size = archive_entry_size(e) };
		t->name = strdup(path + 1);
		if (!t->name)
			return -ENOMEM;
		if (archive_entry_hardlink(e)) {
			/* A hard link to an earlier member: the same blob under another name. */
			t->type = MEMBER_SYMLINK;
			t->hard = true;
			r = member_path(archive_entry_hardlink(e), &t->link, err);
			continue;
		}
		switch (archive_entry_filetype(e)) {
		case AE_IFREG:
			t->type = MEMBER_FILE;
			break;
		case AE_IFLNK:
			t->type = MEMBER_SYMLINK;
			t->link = strdup(archive_entry_symlink(e) ? archive_entry_symlink(e) : "");
			if (!t->link)
				return -ENOMEM;
			continue;
		default:
			t->type = MEMBER_OTHER;
			continue;
		}
		if (t->size >= 0 && (uint64_t)t->size <= OCI_JSON_MAX) {
			r = arread_slurp(a, OCI_JSON_MAX, &t->data, &t->len, err);
		} else if (s->compressed) {
			/* No seeking back into a compressed stream: keep the blob aside. */
			struct s2c_error serr = { 0 };
			char name[32];
			if (!s->spool) {
				struct stage_limits lim = *stage_limits(run);
				r = stage_new_sub(run, "spool", &s->spool, err);
				if (r < 0)
					break;
				lim.max_file = lim.max_total = lim.max_unpacked;
				stage_set_limits(s->spool, &lim);
			}
			(void)snprintf(name, sizeof(name), "/%zu", s->n);
			r = arread_stage(a, s->spool, name, (uint64_t)t->size, &serr);
			if (r == 0 && !(t->spool = strdup(name)))
				r = -ENOMEM;
			else if (r < 0 && r != -ENOMEM)
				r = s2c_error_set(err, r, "member '%s': %s", t->name, serr.msg);
		}
	}
	return r < 0 ? r : 0;
}

/* Resolve @name among the tar's members, following symlinks that stay inside. */
static int tar_find(const struct src *s, const char *name, const struct tarent **ret,
		    struct s2c_error *err)
{
	_cleanup_free_ char *cur = NULL;
	int r = member_path(name, &cur, err);

	if (r < 0)
		return r;
	for (unsigned hops = 0; hops <= LINKS_MAX; hops++) {
		const struct tarent *t = NULL;
		_cleanup_free_ char *joined = NULL, *next = NULL;
		char *slash;

		for (size_t i = s->n; i-- > 0 && !t;)
			if (s2c_streq(s->v[i].name, cur + 1))
				t = &s->v[i];
		if (!t)
			return s2c_error_set(err, -ENOENT, "'%s' is not in the image", cur + 1);
		if (t->type == MEMBER_FILE) {
			*ret = t;
			return 0;
		}
		if (t->type != MEMBER_SYMLINK)
			return s2c_error_set(err, -EINVAL, "'%s' is not a file", cur + 1);
		if (!t->hard && t->link[0] == '/')
			return s2c_error_set(err, -EXDEV, "'%s' is a symlink to an absolute path, "
					     "outside the image", t->name);
		/* A hard link names the other member directly (already normalised). */
		if (t->hard) {
			free(cur);
			cur = strdup(t->link);
			if (!cur)
				return -ENOMEM;
			continue;
		}
		slash = strrchr(cur, '/');
		*slash = '\0';
		if (asprintf(&joined, "%s/%s", cur, t->link) < 0)
			return -ENOMEM;
		/* Resolve ".." lexically: the image's namespace has no way above its top. */
		{
			char *out = calloc(1, strlen(joined) + 2);
			size_t o = 0;
			const char *p = joined;
			if (!out)
				return -ENOMEM;
			while (*p) {
				size_t n;
				p += strspn(p, "/");
				n = strcspn(p, "/");
				if (n == 0)
					break;
				if (n == 2 && p[0] == '.' && p[1] == '.') {
					char *up = strrchr(out, '/');
					if (!up) {
						free(out);
						return s2c_error_set(err, -EXDEV, "'%s' is a symlink that "
								     "leads out of the image", t->name);
					}
					*up = '\0';
					o = (size_t)(up - out);
				} else if (!(n == 1 && p[0] == '.')) {
					out[o++] = '/';
					memcpy(out + o, p, n);
					o += n;
					out[o] = '\0';
				}
				p += n;
			}
			next = out;
		}
		free(cur);
		cur = TAKE_PTR(next);
		if (!*cur)
			return s2c_error_set(err, -EINVAL, "'%s' is a symlink to the image's top", name);
	}
	return s2c_error_set(err, -ELOOP, "'%s': too many symlinks", name);
}

/* --- opening blobs -------------------------------------------------------------------------- */

static int open_beneath(int dirfd, const char *name, struct s2c_error *err)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	struct stat st;
	int fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

	if (fd < 0) {
		if (errno == EXDEV)
			return s2c_error_set(err, -EXDEV, "'%s' leads out of the image directory", name);
		return s2c_error_errno(err, -errno, "cannot open '%s'", name);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		(void)close(fd);
		return s2c_error_set(err, -EINVAL, "'%s' is not a regular file", name);
	}
	return fd;
}

/* A small document of the image (JSON), NUL-terminated. */
static int read_doc(const struct src *s, const char *name, char **ret, size_t *ret_len,
		    struct s2c_error *err)
{
	if (s->dirfd >= 0) {
		_cleanup_close_ int fd = open_beneath(s->dirfd, name, err);
		_cleanup_free_ char *buf = NULL;
		size_t len = 0;

		if (fd < 0)
			return fd;
		buf = malloc(OCI_JSON_MAX + 1);
		if (!buf)
			return -ENOMEM;
		for (;;) {
			ssize_t n = read(fd, buf + len, OCI_JSON_MAX + 1 - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return s2c_error_errno(err, -errno, "cannot read '%s'", name);
			if (n == 0)
				break;
			len += (size_t)n;
			if (len > OCI_JSON_MAX)
				return s2c_error_set(err, -EFBIG, "'%s' is larger than %u bytes", name,
						     OCI_JSON_MAX);
		}
		buf[len] = '\0';
		*ret = TAKE_PTR(buf);
		*ret_len = len;
		return 0;
	}
	{
		const struct tarent *t;
		int r = tar_find(s, name, &t, err);
		if (r < 0)
			return r;
		if (!t->data)
			return s2c_error_set(err, -EFBIG, "'%s' is larger than %u bytes", name,
					     OCI_JSON_MAX);
		*ret = malloc(t->len + 1);
		if (!*ret)
			return -ENOMEM;
		memcpy(*ret, t->data, t->len);
		(*ret)[t->len] = '\0';
		*ret_len = t->len;
		return 0;
	}
}

static int parse_doc(const struct src *s, const char *name, struct json_object **ret,
		     struct s2c_error *err)
{
	_cleanup_free_ char *text = NULL;
	struct json_tokener *tok;
	struct json_object *o;
	size_t len = 0;
	int r = read_doc(s, name, &text, &len, err);

	if (r < 0)
		return r;
	tok = json_tokener_new_ex(64);
	if (!tok)
		return -ENOMEM;
	o = len <= INT32_MAX ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    strspn(text + json_tokener_get_parse_end(tok), " \t\r\n") !=
	    len - json_tokener_get_parse_end(tok)) {
		r = s2c_error_set(err, -EINVAL, "'%s' is not valid JSON", name);
		json_object_put(o);
		json_tokener_free(tok);
		return r;
	}
	json_tokener_free(tok);
	*ret = o;
	return 0;
}

/* The reader of the layer blob @name: a tar, possibly compressed. */
struct layer_reader {
	struct archive *outer;  /* the image tar positioned on the member, or NULL */
	struct archive *a;      /* the layer's tar */
	int fd;
};

static void layer_reader_release(struct layer_reader *l)
{
	if (l->a)
		archive_read_free(l->a);
	if (l->outer)
		archive_read_free(l->outer);
	if (l->fd >= 0)
		(void)close(l->fd);
}

static int open_layer(const struct src *s, const char *name, struct layer_reader *l,
		      struct s2c_error *err)
{
	const struct tarent *t;
	struct archive_entry *e;
	int r;

	*l = (struct layer_reader){ .fd = -1 };
	r = arread_new(ARREAD_TAR, &l->a);
	if (r < 0)
		return r;
	if (s->dirfd >= 0) {
		l->fd = open_beneath(s->dirfd, name, err);
		return l->fd < 0 ? l->fd : arread_open_fd(l->a, l->fd, err);
	}
	r = tar_find(s, name, &t, err);
	if (r < 0)
		return r;
	if (t->data)
		return arread_open_memory(l->a, t->data, t->len, err);
	if (t->spool) {
		l->fd = openat(stage_rootfd(s->spool), t->spool + 1, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (l->fd < 0)
			return s2c_error_errno(err, -errno, "cannot open the spooled '%s'", name);
		return arread_open_fd(l->a, l->fd, err);
	}
	/* Uncompressed image tar: seek to the member's header and read it from there. */
	l->fd = fcntl(s->fd, F_DUPFD_CLOEXEC, 3);
	if (l->fd < 0)
		return -errno;
	if (lseek(l->fd, t->header, SEEK_SET) != t->header)
		return s2c_error_errno(err, -errno, "cannot seek to '%s'", name);
	r = arread_new(ARREAD_TAR, &l->outer);
	if (r == 0)
		r = arread_open_fd(l->outer, l->fd, err);
	if (r == 0 && archive_read_next_header(l->outer, &e) != ARCHIVE_OK)
		r = s2c_error_set(err, -EIO, "cannot read '%s' again", name);
	if (r == 0)
		r = arread_open_nested(l->a, l->outer, err);
	return r;
}

/* --- layers --------------------------------------------------------------------------------- */

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (s2c_streq(dir, "/"))
		return path[1] != '\0';
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* Remove what lower layers put at @path (with @self) and below it (a whiteout, an opaque
 * directory, a directory replaced by a file). */
static int remove_lower(struct target *t, const char *path, bool self, unsigned layer)
{
	for (size_t i = 0; i < t->members.n_slots; i++) {
		struct member *m = t->members.slots[i];
		if (!m || m->layer >= layer || !((self && s2c_streq(m->path, path)) ||
						 below(m->path, path)))
			continue;
		if (m->staged && t->stage) {
			int r = stage_remove(t->stage, m->path);
			if (r < 0)
				return r;
		}
		memberset_remove(&t->members, m->path, false);
		i = (size_t)-1;
	}
	return 0;
}

static int apply_layer(struct target *t, struct archive *a, unsigned layer,
		       const struct target_select *sel, struct stage *run, const char *stage_name,
		       struct arread_budget *b, struct s2c_error *err)
{
	struct archive_entry *e;
	int r = 0;

	while (r == 0 && (r = arread_next(a, b, &e, err)) > 0) {
		_cleanup_free_ char *path = NULL, *victim = NULL;
		const char *base;
		struct member *old;
		char *slash;

		r = member_path(archive_entry_pathname(e) ? archive_entry_pathname(e) : "", &path,
				err);
		if (r < 0)
			break;
		r = 0;
		slash = strrchr(path, '/');
		base = slash + 1;
		if (strncmp(base, ".wh.", 4) == 0) {
			if (s2c_streq(base, ".wh..wh..opq")) {
				*slash = '\0';
				r = remove_lower(t, *path ? path : "/", false, layer);
			} else if (strncmp(base, ".wh..wh.", 8) != 0 && base[4]) {
				*slash = '\0';
				if (asprintf(&victim, "%s/%s", path, base + 4) < 0)
					return -ENOMEM;
				r = remove_lower(t, victim, true, layer);
			}
			continue;       /* whiteouts are not files of the image */
		}
		old = memberset_get(&t->members, path);
		if (old && old->type == MEMBER_DIR && archive_entry_filetype(e) != AE_IFDIR)
			r = remove_lower(t, path, false, layer + 1);
		if (r == 0)
			r = target_take_entry(t, a, e, sel, run, stage_name, layer, err);
	}
	return r < 0 ? r : 0;
}

/* --- manifests ------------------------------------------------------------------------------ */

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static struct json_object *jget(struct json_object *o, const char *key, json_type type)
{
	struct json_object *v;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

/* "sha256:abc…" -> "blobs/sha256/abc…"; NULL for a digest that is not a plain name. */
static char *blob_path(const char *digest)
{
	const char *colon = digest ? strchr(digest, ':') : NULL;
	char *p = NULL;

	if (!colon || colon == digest || !colon[1])
		return NULL;
	for (const char *c = digest; *c; c++)
		if (c != colon && !((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
				    (*c >= '0' && *c <= '9') || *c == '+' || *c == '.' || *c == '_' ||
				    *c == '-' || *c == '='))
			return NULL;
	if (asprintf(&p, "blobs/%.*s/%s", (int)(colon - digest), digest, colon + 1) < 0)
		return NULL;
	return p;
}

struct image {
	char *config;           /* blob name of the config */
	char *config_digest;    /* "sha256:…" */
	char *ref;              /* a tag or ref name, or NULL */
	char **layers;          /* blob names, in order */
	char **layer_digests;   /* descriptor digests (OCI), or NULL entries */
	size_t n_layers;
};

static void image_release(struct image *im)
{
	free(im->config);
	free(im->config_digest);
	free(im->ref);
	for (size_t i = 0; i < im->n_layers; i++) {
		free(im->layers[i]);
		free(im->layer_digests[i]);
	}
	free(im->layers);
	free(im->layer_digests);
}

static int add_layer(struct image *im, const char *name, const char *digest)
{
	char **v = realloc(im->layers, (im->n_layers + 1) * sizeof(*v));
	char **d;

	if (!v)
		return -ENOMEM;
	im->layers = v;
	d = realloc(im->layer_digests, (im->n_layers + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	im->layer_digests = d;
	v[im->n_layers] = strdup(name);
	d[im->n_layers] = digest ? strdup(digest) : NULL;
	if (!v[im->n_layers] || (digest && !d[im->n_layers])) {
		free(v[im->n_layers]);
		free(d[im->n_layers]);
		return -ENOMEM;
	}
	im->n_layers++;
	return im->n_layers > OCI_LAYERS_MAX ? -E2BIG : 0;
}

/* docker save: manifest.json = [{"Config": …, "RepoTags": […], "Layers": […]}] */
static int docker_manifest(const struct src *s, struct target *t, struct image *im,
			   struct s2c_error *err)
{
	_cleanup_(jputp) struct json_object *doc = NULL;
	struct json_object *first, *layers, *tags;
	const char *config;
	int r = parse_doc(s, "manifest.json", &doc, err);

	if (r < 0)
		return r;
	if (!json_object_is_type(doc, json_type_array) || json_object_array_length(doc) == 0)
		return s2c_error_set(err, -EINVAL, "manifest.json lists no image");
	if (json_object_array_length(doc) > 1)
		r = target_note(t, "manifest.json lists %zu images; the first is audited",
				json_object_array_length(doc));
	first = json_object_array_get_idx(doc, 0);
	config = jstr(first, "Config");
	layers = jget(first, "Layers", json_type_array);
	if (r < 0 || !config || !layers)
		return r < 0 ? r : s2c_error_set(err, -EINVAL, "manifest.json: no Config or Layers");
	im->config = strdup(config);
	if (!im->config)
		return -ENOMEM;
	/* "<hex>.json" (docker) or "blobs/sha256/<hex>" (docker 25 and later) */
	{
		const char *b = strrchr(config, '/') ? strrchr(config, '/') + 1 : config;
		size_t n = strcspn(b, ".");
		if (asprintf(&im->config_digest, "sha256:%.*s", (int)n, b) < 0)
			return -ENOMEM;
	}
	tags = jget(first, "RepoTags", json_type_array);
	if (tags && json_object_array_length(tags) > 0 &&
	    json_object_is_type(json_object_array_get_idx(tags, 0), json_type_string) &&
	    !(im->ref = strdup(json_object_get_string(json_object_array_get_idx(tags, 0)))))
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(layers) && r == 0; i++) {
		struct json_object *l = json_object_array_get_idx(layers, i);
		if (!json_object_is_type(l, json_type_string))
			return s2c_error_set(err, -EINVAL, "manifest.json: Layers[%zu] is not a name", i);
		r = add_layer(im, json_object_get_string(l), NULL);
	}
	return r == -E2BIG ? s2c_error_set(err, r, "more than %d layers", OCI_LAYERS_MAX) : r;
}

static bool platform_matches(struct json_object *desc, const char *platform)
{
	struct json_object *p = jget(desc, "platform", json_type_object);
	const char *os = jstr(p, "os"), *arch = jstr(p, "architecture"), *variant = jstr(p, "variant");
	char have[128];

	if (!p)
		return !platform;
	if (os && !s2c_streq(os, "linux"))
		return false;
	if (!platform)
		return true;
	(void)snprintf(have, sizeof(have), "%s/%s%s%s", os ? os : "linux", arch ? arch : "",
		       variant ? "/" : "", variant ? variant : "");
	return s2c_streq(have, platform) || (strncmp(have, platform, strlen(platform)) == 0 &&
					     have[strlen(platform)] == '/');
}

static bool is_index_type(const char *mt)
{
	return mt && (s2c_streq(mt, "application/vnd.oci.image.index.v1+json") ||
		      s2c_streq(mt, "application/vnd.docker.distribution.manifest.list.v2+json"));
}

/* OCI: index.json -> (nested indexes) -> a manifest -> config and layers. */
static int oci_index(const struct src *s, const char *name, const char *platform, unsigned depth,
		     struct target *t, struct image *im, struct s2c_error *err)
{
	_cleanup_(jputp) struct json_object *doc = NULL;
	struct json_object *manifests, *chosen = NULL;
	_cleanup_free_ char *next = NULL;
	const char *ref;
	int r;

	if (depth > INDEX_DEPTH_MAX)
		return s2c_error_set(err, -ELOOP, "image indexes nested more than %d deep",
				     INDEX_DEPTH_MAX);
	r = parse_doc(s, name, &doc, err);
	if (r < 0)
		return r;
	manifests = jget(doc, "manifests", json_type_array);
	if (!manifests || json_object_array_length(manifests) == 0)
		return s2c_error_set(err, -EINVAL, "'%s' lists no manifest", name);
	for (size_t i = 0; i < json_object_array_length(manifests) && !chosen; i++) {
		struct json_object *d = json_object_array_get_idx(manifests, i);
		if (platform_matches(d, platform) || is_index_type(jstr(d, "mediaType")))
			chosen = d;
	}
	if (!chosen)
		return s2c_error_set(err, -ENOENT, "'%s' has no image for %s", name,
				     platform ? platform : "linux");
	ref = jstr(jget(chosen, "annotations", json_type_object), "org.opencontainers.image.ref.name");
	if (ref && !im->ref && !(im->ref = strdup(ref)))
		return -ENOMEM;
	next = blob_path(jstr(chosen, "digest"));
	if (!next)
		return s2c_error_set(err, -EINVAL, "'%s': a manifest without a plain digest", name);
	if (is_index_type(jstr(chosen, "mediaType")))
		return oci_index(s, next, platform, depth + 1, t, im, err);
	/* The image manifest. */
	{
		_cleanup_(jputp) struct json_object *man = NULL;
		struct json_object *config, *layers;
		r = parse_doc(s, next, &man, err);
		if (r < 0)
			return r;
		config = jget(man, "config", json_type_object);
		layers = jget(man, "layers", json_type_array);
		if (!config || !layers)
			return s2c_error_set(err, -EINVAL, "'%s': no config or layers", next);
		im->config = blob_path(jstr(config, "digest"));
		im->config_digest = jstr(config, "digest") ? strdup(jstr(config, "digest")) : NULL;
		if (!im->config || !im->config_digest)
			return s2c_error_set(err, -EINVAL, "'%s': a config without a plain digest", next);
		for (size_t i = 0; i < json_object_array_length(layers) && r == 0; i++) {
			struct json_object *l = json_object_array_get_idx(layers, i);
			_cleanup_free_ char *blob = blob_path(jstr(l, "digest"));
			if (!blob)
				return s2c_error_set(err, -EINVAL, "'%s': layers[%zu] without a plain "
						     "digest", next, i);
			r = add_layer(im, blob, jstr(l, "digest"));
		}
	}
	(void)t;
	return r == -E2BIG ? s2c_error_set(err, r, "more than %d layers", OCI_LAYERS_MAX) : r;
}

/* Identity and layer names from the config. */
static int read_config(const struct src *s, struct target *t, const struct image *im,
		       struct s2c_error *err)
{
	_cleanup_(jputp) struct json_object *cfg = NULL;
	struct json_object *diff_ids, *history;
	const char *os, *arch, *variant;
	size_t h = 0;
	int r = parse_doc(s, im->config, &cfg, err);

	if (r < 0)
		return r;
	os = jstr(cfg, "os");
	arch = jstr(cfg, "architecture");
	variant = jstr(cfg, "variant");
	if (asprintf(&t->arch, "%s/%s%s%s", os ? os : "?", arch ? arch : "?", variant ? "/" : "",
		     variant ? variant : "") < 0)
		return -ENOMEM;
	t->name = strdup(im->ref ? im->ref : im->config_digest);
	t->version = strdup(im->config_digest);
	if (!t->name || !t->version)
		return -ENOMEM;
	diff_ids = jget(jget(cfg, "rootfs", json_type_object), "diff_ids", json_type_array);
	history = jget(cfg, "history", json_type_array);
	t->layers = calloc(im->n_layers ? im->n_layers : 1, sizeof(*t->layers));
	if (!t->layers)
		return -ENOMEM;
	t->n_layers = im->n_layers;
	for (size_t i = 0; i < im->n_layers; i++) {
		struct json_object *d = diff_ids ? json_object_array_get_idx(diff_ids, i) : NULL;
		const char *digest = d && json_object_is_type(d, json_type_string) ?
			json_object_get_string(d) : im->layer_digests[i];
		if (digest && !(t->layers[i].digest = strdup(digest)))
			return -ENOMEM;
		/* The history entries that made a layer are those without empty_layer. */
		while (history && h < json_object_array_length(history)) {
			struct json_object *he = json_object_array_get_idx(history, h++);
			struct json_object *empty = jget(he, "empty_layer", json_type_boolean);
			if (empty && json_object_get_boolean(empty))
				continue;
			if (jstr(he, "created_by") &&
			    !(t->layers[i].created_by = strdup(jstr(he, "created_by"))))
				return -ENOMEM;
			break;
		}
	}
	if (diff_ids && json_object_array_length(diff_ids) != im->n_layers)
		r = target_note(t, "the config lists %zu layers, the manifest %zu",
				json_object_array_length(diff_ids), im->n_layers);
	return r;
}

static int read_image(const char *path, const char *platform, struct target *t,
		      const struct target_select *sel, struct stage *run, const char *stage_name,
		      struct s2c_error *err)
{
	struct stage_limits lim = *stage_limits(run);
	struct arread_budget b = { .lim = &lim };
	struct src s = { .path = path, .dirfd = -1, .fd = -1, .budget = &b };
	struct image im = { 0 };
	struct stat st;
	bool docker;
	int r;

	s.fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (s.fd < 0)
		return s2c_error_errno(err, -errno, "cannot open");
	if (fstat(s.fd, &st) < 0)
		r = s2c_error_errno(err, -errno, "cannot stat");
	else if (S_ISDIR(st.st_mode)) {
		s.dirfd = TAKE_FD(s.fd);
		r = 0;
	} else if (S_ISREG(st.st_mode)) {
		r = index_tar(&s, run, err);
	} else {
		r = s2c_error_set(err, -EINVAL, "neither a file nor a directory");
	}
	if (r == 0) {
		const struct tarent *ent;
		struct s2c_error probe = { 0 };
		/* docker save writes manifest.json (docker 25 and later also an OCI index). */
		if (s.dirfd >= 0) {
			int fd = open_beneath(s.dirfd, "manifest.json", &probe);
			docker = fd >= 0;
			if (fd >= 0)
				(void)close(fd);
		} else {
			docker = tar_find(&s, "manifest.json", &ent, &probe) == 0;
		}
		r = docker ? docker_manifest(&s, t, &im, err) :
			     oci_index(&s, "index.json", platform, 0, t, &im, err);
	}
	if (r == 0)
		r = read_config(&s, t, &im, err);
	for (size_t i = 0; r == 0 && i < im.n_layers; i++) {
		struct layer_reader l;
		r = open_layer(&s, im.layers[i], &l, err);
		if (r == 0)
			r = apply_layer(t, l.a, (unsigned)i, sel, run, stage_name, &b, err);
		if (r < 0 && r != -ENOMEM)
			(void)s2c_error_prefix(err, "layer %zu ('%s')", i + 1, im.layers[i]);
		layer_reader_release(&l);
	}
	image_release(&im);
	src_release(&s);
	return r;
}

int oci_read(const char *path, const char *platform, const struct target_select *sel,
	     struct stage *run, const char *stage_name, struct target **ret)
{
	struct s2c_error err = { 0 };
	struct target *t = target_new(TARGET_IMAGE, path);
	int r;

	if (!t)
		return -ENOMEM;
	r = read_image(path, platform, t, sel, run, stage_name, &err);
	if (r == -ENOMEM) {
		target_free(t);
		return r;
	}
	if (r < 0 && target_fail(t, r, &err) < 0) {
		target_free(t);
		return -ENOMEM;
	}
	*ret = t;
	return 0;
}

void oci_outside_bounding(uint64_t caps, uint64_t *ret_docker, uint64_t *ret_podman)
{
#define B(c) (UINT64_C(1) << (c))
	const uint64_t podman = B(CAP_CHOWN) | B(CAP_DAC_OVERRIDE) | B(CAP_FOWNER) | B(CAP_FSETID) |
				B(CAP_KILL) | B(CAP_NET_BIND_SERVICE) | B(CAP_SETFCAP) | B(CAP_SETGID) |
				B(CAP_SETPCAP) | B(CAP_SETUID) | B(CAP_SYS_CHROOT);
	const uint64_t docker = podman | B(CAP_AUDIT_WRITE) | B(CAP_MKNOD) | B(CAP_NET_RAW);
#undef B

	*ret_docker = caps & ~docker;
	*ret_podman = caps & ~podman;
}
