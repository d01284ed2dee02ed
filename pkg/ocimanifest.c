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

#include "oci.h"
#include "ocimanifest.h"
#include "ocisrc.h"
#include "target.h"
#include "common.h"

static void jputp(struct json_object **o)
{
	if (*o)
		json_object_put(*o);
}

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

void ocimanifest_release(struct ocimanifest *im)
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

/* docker save: manifest.json = [{"Config": …, "RepoTags": […], "Layers": […]}] */
int ocimanifest_docker(const struct ocisrc *s, struct target *t, struct ocimanifest *im,
		       struct s2c_error *err)
{
	_cleanup_(jputp) struct json_object *doc = NULL;
	struct json_object *first, *layers, *tags;
	const char *config;
	int r = ocisrc_parse_doc(s, "manifest.json", &doc, err);

	if (r < 0)
		return r;
	if (!json_object_is_type(doc, json_type_array) || json_object_array_length(doc) == 0)
		return s2c_error_set(err, -EINVAL, "manifest.json lists no image");
	if (json_object_array_length(doc) > 1)
		r = target_incomplete(t, "manifest.json lists %zu images; only the first is audited",
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
int ocimanifest_index(const struct ocisrc *s, const char *name, const char *platform,
		      unsigned depth, struct target *t, struct ocimanifest *im,
		      struct s2c_error *err)
{
	_cleanup_(jputp) struct json_object *doc = NULL;
	struct json_object *manifests, *chosen = NULL;
	_cleanup_free_ char *next = NULL;
	const char *ref;
	int r;

	if (depth > OCIMANIFEST_DEPTH_MAX)
		return s2c_error_set(err, -ELOOP, "image indexes nested more than %d deep",
				     OCIMANIFEST_DEPTH_MAX);
	r = ocisrc_parse_doc(s, name, &doc, err);
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
		return ocimanifest_index(s, next, platform, depth + 1, t, im, err);
	/* The image manifest. */
	{
		_cleanup_(jputp) struct json_object *man = NULL;
		struct json_object *config, *layers;
		r = ocisrc_parse_doc(s, next, &man, err);
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
int ocimanifest_config(const struct ocisrc *s, struct target *t, const struct ocimanifest *im,
		       struct s2c_error *err)
{
	_cleanup_(jputp) struct json_object *cfg = NULL;
	struct json_object *diff_ids, *history;
	const char *os, *arch, *variant;
	size_t h = 0;
	int r = ocisrc_parse_doc(s, im->config, &cfg, err);

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
