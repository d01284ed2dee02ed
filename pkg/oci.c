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

static int read_image(const char *path, const char *platform, struct target *t,
		      const struct target_select *sel, struct stage *run, const char *stage_name,
		      struct s2c_error *err)
{
	struct stage_limits lim = *stage_limits(run);
	struct arread_budget b = { .lim = &lim };
	struct ocisrc s = { .path = path, .dirfd = -1, .fd = -1, .budget = &b };
	struct ocimanifest im = { 0 };
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
		r = ocisrc_index_tar(&s, run, err);
	} else {
		r = s2c_error_set(err, -EINVAL, "neither a file nor a directory");
	}
	if (r == 0) {
		const struct ocisrc_ent *ent;
		struct s2c_error probe = { 0 };
		/* docker save writes manifest.json (docker 25 and later also an OCI index). */
		if (s.dirfd >= 0) {
			int fd = ocisrc_open_beneath(s.dirfd, "manifest.json", &probe);
			docker = fd >= 0;
			if (fd >= 0)
				(void)close(fd);
		} else {
			docker = ocisrc_find(&s, "manifest.json", &ent, &probe) == 0;
		}
		r = docker ? ocimanifest_docker(&s, t, &im, err) :
			     ocimanifest_index(&s, "index.json", platform, 0, t, &im, err);
	}
	if (r == 0)
		r = ocimanifest_config(&s, t, &im, err);
	for (size_t i = 0; r == 0 && i < im.n_layers; i++) {
		struct ocisrc_layer l;
		r = ocisrc_open_layer(&s, im.layers[i], &l, err);
		if (r == 0)
			r = apply_layer(t, l.a, (unsigned)i, sel, run, stage_name, &b, err);
		if (r < 0 && r != -ENOMEM)
			(void)s2c_error_prefix(err, "layer %zu ('%s')", i + 1, im.layers[i]);
		ocisrc_layer_release(&l);
	}
	ocimanifest_release(&im);
	ocisrc_release(&s);
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
	return target_read_done(t, r, &err, ret);
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
