/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "db.h"
#include "decide.h"
#include "elfinfo.h"
#include "engine.h"
#include "facts.h"
#include "host.h"
#include "idmap.h"
#include "match.h"
#include "scan.h"
#include "common.h"

void decisions_release(struct decisions *d)
{
	for (size_t i = 0; i < d->n; i++)
		decision_free(d->v[i]);
	free(d->v);
	strpool_release(&d->sentences);
	idmap_free(d->ids);
	host_free(d->host);
	rules_db_free(d->own_db);
	memset(d, 0, sizeof(*d));
}

/* The target's facts and names, and what @t says the candidates are.  Returns 0 or -errno. */
static int target_facts(struct scan_result *res, const struct decide_target *t,
			struct decisions *out, struct s2c_error *err)
{
	int r = host_new(res->rootfd, res->host, t ? t->kernel : NULL, &out->host, err);

	if (r == 0 && t && t->has_bounding)
		r = host_set_bounding(out->host, t->bounding, t->bounding_what);
	if (r == 0)
		r = idmap_new(res->host ? -1 : res->rootfd, &out->ids);
	if (r < 0) {
		if (s2c_error_isset(err))
			(void)s2c_error_prefix(err, "cannot read facts of the target");
		else
			(void)s2c_error_errno(err, r, "cannot read facts of the target");
		return r;
	}
	for (size_t i = 0; t && r == 0 && i < res->n; i++) {
		if (t->set_names)
			r = facts_set_names(res->v[i], out->ids);
		if (r == 0 && t->package)
			r = host_set_package(out->host, res->v[i]->path, t->package,
					     t->package_version);
	}
	if (r < 0)
		(void)s2c_error_errno(err, r, "cannot decide");
	return r;
}

int decide_all(const struct rules_db *db, struct scan_result *res, const struct decide_target *t,
	       struct decisions *out, struct s2c_error *err)
{
	struct binary_wants want;
	struct engine e;
	int r;

	memset(out, 0, sizeof(*out));
	out->db = db;
	r = target_facts(res, t, out, err);
	if (r < 0) {
		decisions_release(out);
		return r;
	}
	e = (struct engine){ .db = db, .host = out->host, .ids = out->ids, .rootfd = res->rootfd };
	want = rules_db_wants(db);
	r = engine_prepare(&e, (const struct facts *const *)res->v, res->n);
	if (r == 0 && !(out->v = calloc(res->n ? res->n : 1, sizeof(*out->v))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < res->n; i++) {
		struct facts *f = res->v[i];
		struct binary bin = { 0 };

		if (f->content) {
			/* Read during the scan (SCAN_CONTENT): taken over. */
			bin = *f->content;
			free(f->content);
			f->content = NULL;
			r = 0;
		} else
			r = binary_read(res->rootfd, f, &want, &bin);
		if (r == 0)
			r = engine_decide(&e, res->v[i], &bin, &out->v[i], err);
		binary_release(&bin);
		if (r == 0 && decision_share(out->v[i], &out->sentences) < 0) {
			out->v[i] = decision_free(out->v[i]);
			r = -ENOMEM;
		}
		if (r < 0 && s2c_error_isset(err))
			(void)s2c_error_prefix(err, "cannot decide about '%s'", res->v[i]->path);
		else if (r < 0)
			(void)s2c_error_errno(err, r, "cannot decide about '%s'", res->v[i]->path);
		else
			out->n = i + 1;
	}
	if (r < 0) {
		if (!s2c_error_isset(err))
			(void)s2c_error_errno(err, r, "cannot decide");
		decisions_release(out);
		return r;
	}
	return 0;
}

int decide_program(const struct decisions *ds, int rootfd, const char *path, const char *sha256,
		   int fd, bool script, const struct rule **ret_rule, bool *ret_aware)
{
	const struct engine e = { .db = ds->db, .host = ds->host, .ids = ds->ids,
				  .rootfd = rootfd };
	struct elfinfo_options eo = { .rootfd = -1, .path = path };
	struct elfinfo *elf = NULL;
	struct match_result m;
	int r;

	match_file(ds->db, path, host_package_of(ds->host, path), NULL, sha256, &m);
	*ret_rule = m.rule;
	if (!script)
		(void)elfinfo_load_fd(fd, &eo, &elf, NULL);
	r = engine_aware(&e, path, sha256, elf && elf->kind == ELFINFO_ELF ? elf : NULL,
			 ret_aware);
	elfinfo_free(elf);
	return r;
}
