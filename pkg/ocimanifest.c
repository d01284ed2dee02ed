/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which image of an archive or layout, and its layers: docker's
 * manifest.json, OCI indexes and manifests, and the config.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "jsonout.h"
#include "jsonread.h"
#include "oci.h"
#include "ocimanifest.h"
#include "ocisrc.h"
#include "target.h"
#include "common.h"

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

void ocimanifest_release(struct ocimanifest *im)
{
	free(im->config);
	free(im->config_digest);
	free(im->ref);
	for (size_t i = 0; i < im->n_layers; i++) {
		free(im->layers[i]);
		free(im->layer_digests[i]);
		free(im->diff_ids ? im->diff_ids[i] : NULL);
	}
	free(im->layers);
	free(im->layer_digests);
	free(im->diff_ids);
	*im = (struct ocimanifest){ 0 };
}

void ocimanifest_list_release(struct ocimanifest_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].blob);
		free(l->v[i].digest);
		free(l->v[i].platform);
		free(l->v[i].ref);
	}
	free(l->v);
	*l = (struct ocimanifest_list){ 0 };
}

static int add_layer(struct ocimanifest *im, const char *name, const char *digest)
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

/* The digest a docker-save member's name gives: "sha256:<hex>" of "<hex>.json" or
 * "blobs/sha256/<hex>"; NULL when it gives none. */
static char *name_digest(const char *name)
{
	const char *b = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	size_t n = strspn(b, "0123456789abcdef");
	char *d = NULL;

	if (n != 64 || !(b[n] == '\0' || s2c_streq(b + n, ".json")))
		return NULL;
	if (b != name && !(b - name == 13 && strncmp(name, "blobs/sha256/", 13) == 0))
		return NULL;
	return asprintf(&d, "sha256:%.64s", b) < 0 ? NULL : d;
}

/* docker save: manifest.json = [{"Config": …, "RepoTags": […], "Layers": […]}] */
int ocimanifest_docker(const struct ocisrc *s, struct target *t, struct ocimanifest *im,
		       struct s2c_error *err)
{
	_cleanup_jsonput_ struct json_object *doc = NULL;
	struct json_object *first, *layers, *tags;
	const char *config;
	int r = ocisrc_parse_doc(s, "manifest.json", NULL, &doc, err);

	if (r < 0)
		return r;
	if (!json_object_is_type(doc, json_type_array) || json_object_array_length(doc) == 0)
		return s2c_error_set(err, -EINVAL, "manifest.json lists no image");
	if (json_object_array_length(doc) > 1)
		r = target_incomplete(t, "manifest.json lists %zu images; only the first is audited",
				json_object_array_length(doc));
	first = json_object_array_get_idx(doc, 0);
	config = jget_str(first, "Config");
	layers = jget(first, "Layers", json_type_array);
	if (r < 0 || !config || !layers)
		return r < 0 ? r : s2c_error_set(err, -EINVAL, "manifest.json: no Config or Layers");
	im->config = strdup(config);
	if (!im->config)
		return -ENOMEM;
	/* "<hex>.json" (docker) or "blobs/sha256/<hex>" (docker 25 and later): named by the
	 * digest of its content, which is checked. */
	im->config_digest = name_digest(config);
	if (!im->config_digest)
		return s2c_error_set(err, -EBADMSG, "manifest.json: the config '%.80s' is not named "
				     "by its digest, so it cannot be checked", config);
	tags = jget(first, "RepoTags", json_type_array);
	if (tags && json_object_array_length(tags) > 0 &&
	    json_object_is_type(json_object_array_get_idx(tags, 0), json_type_string) &&
	    !(im->ref = strdup(json_object_get_string(json_object_array_get_idx(tags, 0)))))
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(layers) && r == 0; i++) {
		struct json_object *l = json_object_array_get_idx(layers, i);
		_cleanup_free_ char *digest = NULL;
		if (!json_object_is_type(l, json_type_string))
			return s2c_error_set(err, -EINVAL, "manifest.json: Layers[%zu] is not a name", i);
		/* docker 25 and later: blobs/sha256/<hex>, whose name is its digest */
		if (strncmp(json_object_get_string(l), "blobs/", 6) == 0)
			digest = name_digest(json_object_get_string(l));
		r = add_layer(im, json_object_get_string(l), digest);
	}
	return r == -E2BIG ? s2c_error_set(err, r, "more than %d layers", OCI_LAYERS_MAX) : r;
}

static bool is_index_type(const char *mt)
{
	return mt && (s2c_streq(mt, "application/vnd.oci.image.index.v1+json") ||
		      s2c_streq(mt, "application/vnd.docker.distribution.manifest.list.v2+json"));
}

/* A platform word as the image gives it when it is a plain one, else "?" (messages show it). */
static const char *plain_word(const char *s)
{
	if (!s)
		return NULL;
	if (!*s || strlen(s) > 32 || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789._-") != strlen(s))
		return "?";
	return s;
}

/* "os/arch[/variant]" of a descriptor's platform, or NULL (none, or out of memory: @ret). */
static int desc_platform(struct json_object *d, char **ret)
{
	struct json_object *p = jget(d, "platform", json_type_object);
	const char *os = plain_word(jget_str(p, "os")), *arch = plain_word(jget_str(p, "architecture"));
	const char *variant = plain_word(jget_str(p, "variant"));

	*ret = NULL;
	if (!p)
		return 0;
	if (asprintf(ret, "%s/%s%s%s", os ? os : "?", arch ? arch : "?", variant ? "/" : "",
		     variant ? variant : "") < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int add_desc(struct ocimanifest_list *l, struct json_object *d, const char *ref,
		    char *blob, struct s2c_error *err)
{
	struct ocimanifest_desc *v;
	struct ocimanifest_desc *x;

	if (l->n >= OCIMANIFEST_IMAGES_MAX) {
		free(blob);
		return s2c_error_set(err, -E2BIG, "more than %d images", OCIMANIFEST_IMAGES_MAX);
	}
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v) {
		free(blob);
		return -ENOMEM;
	}
	l->v = v;
	x = &v[l->n++];
	*x = (struct ocimanifest_desc){ .blob = blob, .digest = strdup(jget_str(d, "digest")) };
	if (ref && !(x->ref = strdup(ref)))
		return -ENOMEM;
	return x->digest ? desc_platform(d, &x->platform) : -ENOMEM;
}

/* The image manifests of the index @name (checked against @digest unless NULL). */
static int list_index(const struct ocisrc *s, const char *name, const char *digest,
		      const char *ref, unsigned depth, struct ocimanifest_list *l,
		      struct s2c_error *err)
{
	_cleanup_jsonput_ struct json_object *doc = NULL;
	struct json_object *manifests;
	int r;

	if (depth > OCIMANIFEST_DEPTH_MAX)
		return s2c_error_set(err, -ELOOP, "image indexes nested more than %d deep",
				     OCIMANIFEST_DEPTH_MAX);
	r = ocisrc_parse_doc(s, name, digest, &doc, err);
	if (r < 0)
		return r;
	manifests = jget(doc, "manifests", json_type_array);
	if (!manifests || json_object_array_length(manifests) == 0)
		return s2c_error_set(err, -EINVAL, "'%s' lists no manifest", name);
	for (size_t i = 0; i < json_object_array_length(manifests) && r == 0; i++) {
		struct json_object *d = json_object_array_get_idx(manifests, i);
		const char *mt = jget_str(d, "mediaType");
		const char *own = jget_str(jget(d, "annotations", json_type_object),
				       "org.opencontainers.image.ref.name");
		char *next = blob_path(jget_str(d, "digest"));

		if (!next)
			return s2c_error_set(err, -EINVAL, "'%s': manifests[%zu] without a plain "
					     "digest", name, i);
		if (is_index_type(mt)) {
			r = list_index(s, next, jget_str(d, "digest"), ref ? ref : own, depth + 1, l, err);
			free(next);
		} else {
			r = add_desc(l, d, ref ? ref : own, next, err);
		}
	}
	return r;
}

int ocimanifest_index(const struct ocisrc *s, struct ocimanifest_list *ret,
		      struct s2c_error *err)
{
	return list_index(s, "index.json", NULL, NULL, 0, ret, err);
}

int ocimanifest_read(const struct ocisrc *s, const struct ocimanifest_desc *d,
		     struct ocimanifest *im, struct s2c_error *err)
{
	_cleanup_jsonput_ struct json_object *man = NULL;
	struct json_object *config, *layers;
	int r = ocisrc_parse_doc(s, d->blob, d->digest, &man, err);

	if (r < 0)
		return r;
	if (d->ref && !(im->ref = strdup(d->ref)))
		return -ENOMEM;
	config = jget(man, "config", json_type_object);
	layers = jget(man, "layers", json_type_array);
	if (!config || !layers)
		return s2c_error_set(err, -EINVAL, "'%s': no config or layers", d->blob);
	im->config = blob_path(jget_str(config, "digest"));
	im->config_digest = jget_str(config, "digest") ? strdup(jget_str(config, "digest")) : NULL;
	if (!im->config || !im->config_digest)
		return s2c_error_set(err, -EINVAL, "'%s': a config without a plain digest", d->blob);
	for (size_t i = 0; i < json_object_array_length(layers) && r == 0; i++) {
		struct json_object *l = json_object_array_get_idx(layers, i);
		_cleanup_free_ char *blob = blob_path(jget_str(l, "digest"));
		if (!blob)
			return s2c_error_set(err, -EINVAL, "'%s': layers[%zu] without a plain "
					     "digest", d->blob, i);
		r = add_layer(im, blob, jget_str(l, "digest"));
	}
	return r == -E2BIG ? s2c_error_set(err, r, "more than %d layers", OCI_LAYERS_MAX) : r;
}

/* Identity and layer names from the config. */
int ocimanifest_config(const struct ocisrc *s, struct target *t, struct ocimanifest *im,
		       struct s2c_error *err)
{
	_cleanup_jsonput_ struct json_object *cfg = NULL;
	struct json_object *diff_ids, *history;
	const char *os, *arch, *variant;
	size_t h = 0;
	int r = ocisrc_parse_doc(s, im->config, im->config_digest, &cfg, err);

	if (r < 0)
		return r;
	os = jget_str(cfg, "os");
	arch = jget_str(cfg, "architecture");
	variant = jget_str(cfg, "variant");
	if (asprintf(&t->arch, "%s/%s%s%s", os ? os : "?", arch ? arch : "?", variant ? "/" : "",
		     variant ? variant : "") < 0)
		return -ENOMEM;
	t->name = strdup(im->ref ? im->ref : im->config_digest);
	t->version = strdup(im->config_digest);
	if (!t->name || !t->version)
		return -ENOMEM;
	diff_ids = jget(jget(cfg, "rootfs", json_type_object), "diff_ids", json_type_array);
	history = jget(cfg, "history", json_type_array);
	if (!diff_ids || json_object_array_length(diff_ids) != im->n_layers)
		return s2c_error_set(err, -EBADMSG, "the config lists %zu diff_ids for %zu layers, "
				     "so the layers cannot be checked",
				     diff_ids ? json_object_array_length(diff_ids) : 0, im->n_layers);
	im->diff_ids = calloc(im->n_layers ? im->n_layers : 1, sizeof(*im->diff_ids));
	if (!im->diff_ids)
		return -ENOMEM;
	t->layers = calloc(im->n_layers ? im->n_layers : 1, sizeof(*t->layers));
	if (!t->layers)
		return -ENOMEM;
	t->n_layers = im->n_layers;
	for (size_t i = 0; i < im->n_layers; i++) {
		struct json_object *d = json_object_array_get_idx(diff_ids, i);
		if (!json_object_is_type(d, json_type_string))
			return s2c_error_set(err, -EBADMSG, "the config's diff_ids[%zu] is not a digest",
					     i);
		if (!(t->layers[i].digest = strdup(json_object_get_string(d))) ||
		    !(im->diff_ids[i] = strdup(json_object_get_string(d))))
			return -ENOMEM;
		/* The history entries that made a layer are those without empty_layer. */
		while (history && h < json_object_array_length(history)) {
			struct json_object *he = json_object_array_get_idx(history, h++);
			struct json_object *empty = jget(he, "empty_layer", json_type_boolean);
			if (empty && json_object_get_boolean(empty))
				continue;
			if (jget_str(he, "created_by") &&
			    !(t->layers[i].created_by = strdup(jget_str(he, "created_by"))))
				return -ENOMEM;
			break;
		}
	}
	return r;
}
