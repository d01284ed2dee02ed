/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the image reader (pkg/oci.h): which image, and its layers.  A
 * `docker save` manifest.json, or an OCI index.json through nested indexes
 * (the platform asked for, else the first linux one) to a manifest; then
 * the config: identity, architecture, layer digests and history.  Not for
 * use outside pkg/oci*.c.
 */
#ifndef S2C_PKG_OCIMANIFEST_H
#define S2C_PKG_OCIMANIFEST_H

#include <stddef.h>

struct ocisrc;
struct s2c_error;
struct target;

/** Deepest nesting of OCI indexes followed. */
#define OCIMANIFEST_DEPTH_MAX 4

/** The image chosen: its config and layers. */
struct ocimanifest {
	char *config;           /**< blob name of the config */
	char *config_digest;    /**< "sha256:…" */
	char *ref;              /**< a tag or ref name, or NULL */
	char **layers;          /**< blob names, in order */
	char **layer_digests;   /**< descriptor digests (OCI), or NULL entries */
	size_t n_layers;
};

/** Free what @im holds. */
void ocimanifest_release(struct ocimanifest *im);

/**
 * docker save: manifest.json = [{"Config": …, "RepoTags": […], "Layers": […]}]
 * into @im (the first tag as its ref); a note on @t when it lists more than
 * one image.  Returns 0, or -errno with a message.
 */
int ocimanifest_docker(const struct ocisrc *s, struct target *t, struct ocimanifest *im,
		       struct s2c_error *err);

/**
 * OCI: the index @name ("index.json" at @depth 0), through nested indexes, to
 * the manifest for @platform (NULL: the first linux one), into @im (with the
 * ref name annotated on the way); @t is unused.  Returns 0, or -errno with a
 * message.
 */
int ocimanifest_index(const struct ocisrc *s, const char *name, const char *platform,
		      unsigned depth, struct target *t, struct ocimanifest *im,
		      struct s2c_error *err);

/**
 * The config of @im: name, version (the config digest) and architecture into
 * @t, and its layers (digests, the history entries that made them), with a
 * note when the config and the manifest disagree on their number.  Returns
 * 0, or -errno with a message.
 */
int ocimanifest_config(const struct ocisrc *s, struct target *t, const struct ocimanifest *im,
		       struct s2c_error *err);

#endif /* S2C_PKG_OCIMANIFEST_H */
