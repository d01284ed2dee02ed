/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the image reader (pkg/oci.h): which images, and their layers.  A
 * `docker save` manifest.json, or an OCI index.json through nested indexes
 * to the image manifests of every platform; then each manifest and its
 * config: identity, architecture, layer digests, diff_ids and history.
 * Every document reached through a digest is checked against it.  Not for
 * use outside pkg/oci*.c.
 *
 * Internal: oci ocisrc ociblob ocimanifest.
 */
#ifndef S2C_PKG_OCIMANIFEST_H
#define S2C_PKG_OCIMANIFEST_H

#include <stddef.h>

struct ocisrc;
struct s2c_error;
struct target;

/** Deepest nesting of OCI indexes followed. */
#define OCIMANIFEST_DEPTH_MAX 4
/** Most image manifests an index may list (through its nested indexes). */
#define OCIMANIFEST_IMAGES_MAX 256

/** One image manifest an index lists. */
struct ocimanifest_desc {
	char *blob;             /**< its blob name, "blobs/sha256/…" */
	char *digest;           /**< "sha256:…" */
	char *platform;         /**< "linux/amd64[/variant]", or NULL when the index says none */
	char *ref;              /**< the ref name annotated on the way, or NULL */
};

/** The image manifests of an index. */
struct ocimanifest_list {
	struct ocimanifest_desc *v;
	size_t n;
};

/** The image chosen: its config and layers. */
struct ocimanifest {
	char *config;           /**< blob name of the config */
	char *config_digest;    /**< "sha256:…" */
	char *ref;              /**< a tag or ref name, or NULL */
	char **layers;          /**< blob names, in order */
	char **layer_digests;   /**< the blobs' digests, or NULL entries (docker's layer.tar) */
	char **diff_ids;        /**< from the config: the digests of the uncompressed tars */
	size_t n_layers;
};

/** Free what @im holds. */
void ocimanifest_release(struct ocimanifest *im);

/** Free what @l holds. */
void ocimanifest_list_release(struct ocimanifest_list *l);

/**
 * docker save: manifest.json = [{"Config": …, "RepoTags": […], "Layers": […]}]
 * into @im (the first tag as its ref; the config's digest from its name); the
 * audit of @t incomplete when it lists more than one image.  Returns 0, or
 * -errno with a message.
 */
int ocimanifest_docker(const struct ocisrc *s, struct target *t, struct ocimanifest *im,
		       struct s2c_error *err);

/**
 * OCI: every image manifest that index.json lists, through nested indexes
 * (each checked against its digest), in order, into @ret.  Returns 0, or
 * -errno with a message.
 */
int ocimanifest_index(const struct ocisrc *s, struct ocimanifest_list *ret,
		      struct s2c_error *err);

/**
 * The image manifest @d (checked against its digest) into @im.  Returns 0, or
 * -errno with a message.
 */
int ocimanifest_read(const struct ocisrc *s, const struct ocimanifest_desc *d,
		     struct ocimanifest *im, struct s2c_error *err);

/**
 * The config of @im (checked against its digest): name, version (the config
 * digest) and architecture into @t, its layers (digests, the history entries
 * that made them), and the diff_ids into @im.  A config that does not list a
 * diff_id for every layer is an error (-EBADMSG): the layers could not be
 * checked.  Returns 0, or -errno with a message.
 */
int ocimanifest_config(const struct ocisrc *s, struct target *t, struct ocimanifest *im,
		       struct s2c_error *err);

#endif /* S2C_PKG_OCIMANIFEST_H */
