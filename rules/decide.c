/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "db.h"
#include "decisionrec.h"
#include "decide.h"
#include "elfinfo.h"
#include "engine.h"
#include "facts.h"
#include "host.h"
#include "idmap.h"
#include "match.h"
#include "scan.h"
#include "spill.h"
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

/* The target's facts and names, and what @t says of them.  Returns 0 or -errno. */
static int target_open(const struct scan_result *res, const struct decide_target *t,
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
	}
	return r;
}

/* What @t says the @n candidates @v are: their names, their package.  Returns 0 or -errno. */
static int target_files(const struct decide_target *t, struct decisions *out,
			struct facts *const *v, size_t n, struct s2c_error *err)
{
	int r = 0;

	for (size_t i = 0; t && r == 0 && i < n; i++) {
		if (t->set_names)
			r = facts_set_names(v[i], out->ids);
		if (r == 0 && t->package)
			r = host_set_package(out->host, v[i]->path, t->package, t->package_version);
	}
	if (r < 0)
		(void)s2c_error_errno(err, r, "cannot decide");
	return r;
}

static int target_facts(struct scan_result *res, const struct decide_target *t,
			struct decisions *out, struct s2c_error *err)
{
	int r = target_open(res, t, out, err);

	return r < 0 ? r : target_files(t, out, res->v, res->n, err);
}

/* The content of @f: read during the scan (SCAN_CONTENT) and taken over, or read now. */
static int content_of(int rootfd, struct facts *f, const struct binary_wants *want,
		      struct binary *bin)
{
	*bin = (struct binary){ 0 };
	if (f->content) {
		*bin = *f->content;
		free(f->content);
		f->content = NULL;
		return 0;
	}
	return binary_read(rootfd, f, want, bin);
}

/* Name the failure @r of deciding about @path in @err. */
static int decide_failed(struct s2c_error *err, int r, const char *path)
{
	if (s2c_error_isset(err))
		(void)s2c_error_prefix(err, "cannot decide about '%s'", path);
	else
		(void)s2c_error_errno(err, r, "cannot decide about '%s'", path);
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
		struct binary bin;

		r = content_of(res->rootfd, res->v[i], &want, &bin);
		if (r == 0)
			r = engine_decide(&e, res->v[i], &bin, &out->v[i], err);
		binary_release(&bin);
		if (r == 0 && decision_share(out->v[i], &out->sentences) < 0) {
			out->v[i] = decision_free(out->v[i]);
			r = -ENOMEM;
		}
		if (r < 0)
			(void)decide_failed(err, r, res->v[i]->path);
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

/* Decide about @f, keep the record in s->spill; @f is freed. */
static int decide_one(struct decide_stream *s, const struct engine *e,
		      const struct binary_wants *want, int rootfd, struct facts *f)
{
	_cleanup_free_ void *p = NULL;
	struct decision *d = NULL;
	struct binary bin;
	size_t len = 0;
	int r = content_of(rootfd, f, want, &bin);

	if (r == 0)
		r = engine_decide(e, f, &bin, &d, s->err);
	binary_release(&bin);
	if (r == 0 && s->each)
		r = s->each(s->userdata, d);
	if (r == 0)
		r = decisionrec_pack(d, &p, &len);
	if (r == 0) {
		r = spill_add(s->spill, f->path, p, len);
		if (r < 0 && r != -ENOMEM)
			(void)s2c_error_errno(s->err, r, "cannot keep the audit's records in a "
					      "temporary file in '%s'", spill_dir(s->spill));
		else if (r < 0)
			(void)decide_failed(s->err, r, f->path);
	} else {
		(void)decide_failed(s->err, r, f->path);
	}
	if (r == 0)
		s->n++;
	decision_free(d);
	facts_free(f);
	return r;
}

int decide_batch(struct decide_stream *s, const struct scan_result *res, struct facts **v,
		 size_t n)
{
	const struct binary_wants want = rules_db_wants(s->db);
	struct engine e;
	int r = 0;

	if (!s->started) {
		s->ds.db = s->db;
		r = target_open(res, &s->t, &s->ds, s->err);
		s->started = r == 0;
	}
	if (r == 0)
		r = target_files(&s->t, &s->ds, v, n, s->err);
	e = (struct engine){ .db = s->db, .host = s->ds.host, .ids = s->ds.ids,
			     .rootfd = res->rootfd };
	if (r == 0 && (r = engine_prepare(&e, (const struct facts *const *)v, n)) < 0)
		(void)s2c_error_errno(s->err, r, "cannot decide");
	for (size_t i = 0; i < n; i++) {
		if (r == 0)
			r = decide_one(s, &e, &want, res->rootfd, v[i]);
		else
			facts_free(v[i]);
	}
	return r;
}

void decide_stream_release(struct decide_stream *s)
{
	decisions_release(&s->ds);
	s->started = false;
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
