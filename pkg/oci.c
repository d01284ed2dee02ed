/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An image read into one target: its files (ocisrc.c), which image and
 * which layers (ocimanifest.c), and here the layers applied in order as an
 * overlay would, with whiteouts and opaque directories.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/capability.h>
#include <archive.h>
#include <archive_entry.h>

#include "arread.h"
#include "member.h"
#include "oci.h"
#include "ociblob.h"
#include "ocimanifest.h"
#include "ocisrc.h"
#include "stage.h"
#include "target.h"
#include "util.h"
#include "common.h"

/* --- layers --------------------------------------------------------------------------------- */

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (s2c_streq(dir, "/"))
		return path[1] != '\0';
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

struct lower {
	struct target *t;
	const char *path;
	bool self;
	unsigned layer;
	int r;                  /* the first failure to remove from the stage */
};

/* Whether the member @m stays above lower->path; one that goes leaves the stage too. */
static bool lower_keep(struct member *m, void *userdata)
{
	struct lower *l = userdata;

	if (l->r < 0 || m->layer >= l->layer ||
	    !((l->self && s2c_streq(m->path, l->path)) || below(m->path, l->path)))
		return true;
	if (m->staged && l->t->stage) {
		l->r = stage_remove(l->t->stage, m->path);
		return l->r < 0;
	}
	return false;
}

/* Remove what lower layers put at @path (with @self) and below it (a whiteout, an opaque
 * directory, a directory replaced by a file): one pass over the members kept, a record
 * for the files noted. */
static int remove_lower(struct target *t, const char *path, bool self, unsigned layer)
{
	struct lower l = { .t = t, .path = path, .self = self, .layer = layer };

	(void)memberset_filter(&t->members, lower_keep, &l);
	return l.r < 0 ? l.r : memberset_hide(&t->members, path, self, layer);
}

/*
 * Where the directory @dir of an entry is once the lower layers are in place: its symlinks
 * followed among the members as the unpacker follows them (beneath the root, ".." stopping
 * at "/"), a directory that does not exist yet taken as one (the unpacker makes it).  Unlike
 * memberset_resolve(), which wants every component to exist.  Returns 0 with a new absolute
 * path in @ret, -ELOOP, -ENOTDIR (a component is a file) or -ENOMEM.
 */
static int resolve_parent(const struct target *t, const char *dir, char **ret)
{
	_cleanup_free_ char *cur = calloc(1, MEMBER_PATH_MAX + 2), *rest = strdup(dir);
	unsigned links = 0;
	size_t len = 0;

	if (!cur || !rest)
		return -ENOMEM;
	while (*rest) {
		char *p = rest + strspn(rest, "/"), *next;
		size_t n = strcspn(p, "/");
		const struct member *m;

		if (n == 0)
			break;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *up = strrchr(cur, '/');
			len = up ? (size_t)(up - cur) : 0;
			cur[len] = '\0';
		} else if (!(n == 1 && p[0] == '.')) {
			if (len + 1 + n > MEMBER_PATH_MAX)
				return -ENAMETOOLONG;
			cur[len] = '/';
			memcpy(cur + len + 1, p, n);
			cur[len + 1 + n] = '\0';
			m = memberset_get(&t->members, cur);
			if (m && m->type == MEMBER_SYMLINK) {
				if (++links > 40)
					return -ELOOP;
				cur[len] = '\0';        /* back to the link's directory */
				if (m->target[0] == '/')
					len = cur[0] = '\0';
				if (asprintf(&next, "%s/%s", m->target, p + n) < 0)
					return -ENOMEM;
				free(rest);
				rest = next;
				continue;
			}
			if ((m && m->type != MEMBER_DIR) ||
			    (!m && memberset_noted(&t->members, cur, NULL)))
				return -ENOTDIR;
			len += 1 + n;
		}
		memmove(rest, p + n, strlen(p + n) + 1);
	}
	*ret = strdup(len ? cur : "/");
	return *ret ? 0 : -ENOMEM;
}

/* @dir and @base joined: "/a" "b" -> "/a/b", "/" "b" -> "/b". */
static char *join(const char *dir, const char *base)
{
	return strdup_printf("%s/%s", s2c_streq(dir, "/") ? "" : dir, base);
}

/*
 * Put the entry @e's path (and a hard link's target) where the unpacker puts it: beneath
 * its directory as resolved.  Returns 0 with the new path in @ret (NULL for an entry of the
 * root itself), 1 when it cannot be placed (the target is then incomplete), or -ENOMEM.
 */
static int place_entry(struct target *t, struct archive_entry *e, unsigned layer,
		       const char *path, char **ret)
{
	const char *link = archive_entry_hardlink(e);
	_cleanup_free_ char *dir = NULL, *rdir = NULL, *lpath = NULL;
	struct s2c_error lerr = { 0 };
	char *slash;
	int r;

	*ret = NULL;
	if (s2c_streq(path, "/"))
		return 0;
	slash = strrchr(path, '/');
	dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	r = resolve_parent(t, dir, &rdir);
	if (r == 0 && link && member_path(link, &lpath, &lerr) == 0) {
		char *ls = strrchr(lpath, '/');
		_cleanup_free_ char *lrdir = NULL, *placed = NULL;
		*ls = '\0';
		r = resolve_parent(t, *lpath ? lpath : "/", &lrdir);
		if (r == 0 && !(placed = join(lrdir, ls + 1)))
			r = -ENOMEM;
		if (r == 0)
			archive_entry_set_hardlink(e, placed + 1);
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		_cleanup_free_ char *shown = escape_text(path);
		r = target_incomplete(t, "layer %u: '%s' lies %s; not applied", layer + 1,
				      shown ? shown : "?",
				      r == -ENOTDIR ? "beneath a file" : "beneath a symlink loop");
		return r < 0 ? r : 1;
	}
	*ret = join(rdir, slash + 1);
	if (!*ret)
		return -ENOMEM;
	archive_entry_set_pathname(e, *ret + 1);
	return 0;
}

static int apply_whiteout(struct target *t, const char *path, unsigned layer)
{
	_cleanup_free_ char *victim = NULL;
	const char *slash = strrchr(path, '/'), *base = slash + 1;

	if (s2c_streq(base, ".wh..wh..opq")) {
		/* everything the lower layers put in the (resolved) directory */
		_cleanup_free_ char *dir = strndup(path, (size_t)(slash - path));
		return dir ? remove_lower(t, *dir ? dir : "/", false, layer) : -ENOMEM;
	}
	if (strncmp(base, ".wh..wh.", 8) == 0 || !base[4])
		return 0;               /* other markers of the format: not files */
	victim = strdup_printf("%.*s/%s", (int)(slash - path), path, base + 4);
	return victim ? remove_lower(t, victim, true, layer) : -ENOMEM;
}

static int apply_layer(struct target *t, struct archive *a, unsigned layer,
		       const struct target_select *sel, struct stage *run, const char *stage_name,
		       struct arread_budget *b, struct s2c_error *err)
{
	struct archive_entry *e;
	int r = 0;

	while (r == 0 && (r = arread_next(a, b, &e, err)) > 0) {
		_cleanup_free_ char *path = NULL, *placed = NULL;
		struct member *old;

		r = member_path(archive_entry_pathname(e) ? archive_entry_pathname(e) : "", &path,
				err);
		if (r < 0)
			break;
		r = place_entry(t, e, layer, path, &placed);
		if (r < 0)
			break;
		if (r > 0) {
			r = arread_skip(a, err);
			continue;
		}
		if (placed) {
			free(path);
			path = TAKE_PTR(placed);
		}
		if (strncmp(member_base_name(path), ".wh.", 4) == 0) {
			r = apply_whiteout(t, path, layer);
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

/* --- which images --------------------------------------------------------------------------- */

/* Whether the index's platform @have (NULL: none given) is the one @want names: the same
 * os/arch, and the same variant when @want gives one. */
static bool platform_is(const char *have, const char *want)
{
	size_t n = strlen(want);

	if (!have)
		return false;
	return s2c_streq(have, want) ||
	       (strchr(want, '/') == strrchr(want, '/') && strncmp(have, want, n) == 0 &&
		have[n] == '/');
}

/* An attestation or other artefact buildx lists beside the images. */
static bool not_an_image(const struct ocimanifest_desc *d)
{
	return d->platform && strncmp(d->platform, "unknown/", 8) == 0;
}

/*
 * Which manifests of @l to read (@pick, in order): @platform ("all", "os/arch[/variant]"),
 * or by default the host's (@host), else the only platform there is.  Returns the number
 * picked, or -errno with a message.
 */
static int pick_images(const struct ocimanifest_list *l, const char *platform, const char *host,
		       size_t *pick, struct s2c_error *err)
{
	const char *want = platform ? platform : host;
	size_t n = 0, images = 0, only = SIZE_MAX;

	for (size_t i = 0; i < l->n; i++) {
		const char *p = l->v[i].platform;
		if (not_an_image(&l->v[i]))
			continue;
		images++;
		only = i;
		if (platform && s2c_streq(platform, "all")) {
			if (!p || strncmp(p, "linux/", 6) == 0)
				pick[n++] = i;
		} else if (n == 0 && (platform_is(p, want) || (!platform && !p))) {
			pick[n++] = i;
		}
	}
	/* One image of another platform than the host's: that one is the image. */
	if (n == 0 && !platform && images == 1 && only != SIZE_MAX)
		pick[n++] = only;
	if (n == 0) {
		char have[256] = "";
		for (size_t i = 0, o = 0; i < l->n && o < sizeof(have); i++)
			if (!not_an_image(&l->v[i]))
				o += (size_t)snprintf(have + o, sizeof(have) - o, "%s%s", o ? ", " : "",
						      l->v[i].platform ? l->v[i].platform : "?");
		return s2c_error_set(err, -ENOENT, "'index.json' has no image for %s%s; it has %s",
				     want, platform ? "" : " (this host's platform; --platform "
				     "picks another, or all)", have);
	}
	return (int)n;
}

/* Name, on @t, the platforms of @l that are not audited in this run (@pick: the audited). */
static int note_others(struct target *t, const struct ocimanifest_list *l, const size_t *pick,
		       size_t n_pick)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0, count = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		bool audited = false;
		for (size_t k = 0; k < n_pick; k++)
			audited = audited || pick[k] == i;
		if (audited || not_an_image(&l->v[i]))
			continue;
		(void)fprintf(f, "%s%s", count++ ? ", " : "",
			      l->v[i].platform ? l->v[i].platform : "(no platform)");
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	if (count == 0)
		return 0;
	{
		_cleanup_free_ char *shown = escape_text(text);
		return target_note(t, "not audited: the image's %s for %s (--platform all audits "
				   "every one)", count > 1 ? "images" : "image", shown ? shown : "?");
	}
}

/* --- reading -------------------------------------------------------------------------------- */

/* Open @path as a layout directory or an image tar. */
static int open_source(const char *path, struct ocisrc *s, struct s2c_error *err)
{
	struct stat st;

	s->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (s->fd < 0)
		return s2c_error_errno(err, -errno, "cannot open");
	if (fstat(s->fd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat");
	if (S_ISDIR(st.st_mode)) {
		s->dirfd = TAKE_FD(s->fd);
		return 0;
	}
	if (S_ISREG(st.st_mode))
		return ocisrc_index_tar(s, err);
	return s2c_error_set(err, -EINVAL, "neither a file nor a directory");
}

/* docker save writes manifest.json (docker 25 and later also an OCI index). */
static bool is_docker(const struct ocisrc *s)
{
	const struct ocisrc_ent *ent;
	struct s2c_error probe = { 0 };
	int fd;

	if (s->dirfd < 0)
		return ocisrc_find(s, "manifest.json", &ent, &probe) == 0;
	fd = ocisrc_open_beneath(s->dirfd, "manifest.json", &probe);
	if (fd >= 0)
		(void)close(fd);
	return fd >= 0;
}

/* The config and the layers of @im into @t, every blob checked against its digests. */
static int read_layers(struct ocisrc *s, struct ocimanifest *im, struct target *t,
		       const struct target_select *sel, struct stage *run, const char *stage_name,
		       struct s2c_error *err)
{
	int r = ocimanifest_config(s, t, im, err);

	/* No scripts: a file not kept matters to a later hard link and a later entry below it. */
	t->members.note_files = true;
	if (r == 0)
		r = ocisrc_spool(s, im->layers, im->n_layers, run, err);
	for (size_t i = 0; r == 0 && i < im->n_layers; i++) {
		struct ocisrc_layer l;
		r = ocisrc_open_layer(s, im->layers[i], im->layer_digests[i], im->diff_ids[i], &l,
				      err);
		if (r == 0)
			r = apply_layer(t, l.blob.a, (unsigned)i, sel, run, stage_name, s->budget, err);
		if (r == 0)
			r = ociblob_finish(&l.blob, err);
		if (r < 0 && r != -ENOMEM)
			(void)s2c_error_prefix(err, "layer %zu ('%s')", i + 1, im->layers[i]);
		ocisrc_layer_release(&l);
	}
	return r;
}

/* A new target for one image of @path; its reading ends in target_read_done(). */
static int image_done(struct target *t, int r, struct s2c_error *err, struct target ***v,
		      size_t *n)
{
	struct target **nv;

	if (r == -EBADMSG)
		t->bad_digest = true;
	if (target_read_done(t, r, err, &t) < 0)
		return -ENOMEM;
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv) {
		target_free(t);
		return -ENOMEM;
	}
	*v = nv;
	nv[(*n)++] = t;
	return 0;
}

/* Every image of the OCI layout @s that @platform asks for, each a target in @v. */
static int read_index(struct ocisrc *s, const char *path, const char *platform, const char *host,
		      const struct target_select *sel, struct stage *run, const char *stage_name,
		      struct target ***v, size_t *n, struct s2c_error *err)
{
	struct ocimanifest_list l = { 0 };
	size_t pick[OCIMANIFEST_IMAGES_MAX], kept = 0;
	int k, r = ocimanifest_index(s, &l, err);

	k = r < 0 ? r : pick_images(&l, platform, host, pick, err);
	for (int i = 0; k > 0 && i < k; i++) {
		struct s2c_error terr = { 0 };
		struct ocimanifest im = { 0 };
		_cleanup_free_ char *sname = i ? strdup_printf("%s-%d", stage_name, i + 1) :
					     strdup(stage_name);
		struct target *t = target_new(TARGET_IMAGE, path);

		if (!t || !sname) {
			target_free(t);
			k = -ENOMEM;
			break;
		}
		r = ocimanifest_read(s, &l.v[pick[i]], &im, &terr);
		if (r == 0)
			r = note_others(t, &l, pick, (size_t)k);
		if (r == 0)
			r = read_layers(s, &im, t, sel, run, sname, &terr);
		/* What is audited is what the config says; the index may have said otherwise. */
		if (r == 0 && l.v[pick[i]].platform && t->arch &&
		    !platform_is(t->arch, l.v[pick[i]].platform) &&
		    !platform_is(l.v[pick[i]].platform, t->arch))
			r = target_note(t, "the index lists this image for %s, its config says %s",
					l.v[pick[i]].platform, t->arch);
		ocimanifest_release(&im);
		if (image_done(t, r, &terr, v, n) < 0)
			k = -ENOMEM;
		/* --platform all: the images of one index must not add up past the budget */
		else if (!target_run_keeps((*v)[*n - 1], &kept) &&
			 target_over_run_budget((*v)[*n - 1]) < 0)
			k = -ENOMEM;
	}
	ocimanifest_list_release(&l);
	return k < 0 ? k : 0;
}

int oci_read(const char *path, const char *platform, const char *host,
	     const struct target_select *sel, struct stage *run, const char *stage_name,
	     struct target ***ret, size_t *ret_n)
{
	struct stage_limits lim = *stage_limits(run);
	struct arread_budget b = { .lim = &lim };
	struct ocisrc s = { .path = path, .dirfd = -1, .fd = -1, .budget = &b };
	struct s2c_error err = { 0 };
	struct target **v = NULL;
	size_t n = 0;
	int r = open_source(path, &s, &err);

	if (r == 0 && is_docker(&s)) {
		struct ocimanifest im = { 0 };
		struct target *t = target_new(TARGET_IMAGE, path);
		if (!t) {
			r = -ENOMEM;
		} else {
			r = ocimanifest_docker(&s, t, &im, &err);
			if (r == 0)
				r = read_layers(&s, &im, t, sel, run, stage_name, &err);
			r = image_done(t, r, &err, &v, &n);
		}
		ocimanifest_release(&im);
	} else if (r == 0) {
		r = read_index(&s, path, platform, host, sel, run, stage_name, &v, &n, &err);
	}
	/* The image as a whole could not be read: one failed target says why. */
	if (r < 0 && r != -ENOMEM && n == 0) {
		struct target *t = target_new(TARGET_IMAGE, path);
		r = t ? image_done(t, r, &err, &v, &n) : -ENOMEM;
	}
	ocisrc_release(&s);
	if (r == -ENOMEM) {
		for (size_t i = 0; i < n; i++)
			target_free(v[i]);
		free(v);
		return r;
	}
	*ret = v;
	*ret_n = n;
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
