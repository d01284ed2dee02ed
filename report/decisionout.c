/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "audit.h"
#include "decisionout.h"
#include "elfinfo.h"
#include "engine.h"
#include "facts.h"
#include "factsjson.h"
#include "jsonout.h"
#include "override.h"
#include "util.h"
#include "common.h"

struct json_object *decisionout_mask(uint64_t mask)
{
	_cleanup_free_ char *names = NULL;

	if (!mask)
		return NULL;
	names = fcaps_mask_names(mask);
	return names ? json_object_new_string(names) : NULL;
}

/* Like jsonout_add(), but NULL @v is written as JSON null: absent parts of a
 * decision (no ELF facts, no rule, an empty mask) are null, not an error. */
static int add_nullable(struct json_object *o, const char *key, struct json_object *v)
{
	if (json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static int add_strv(struct json_object *o, const char *key, const char *const *v)
{
	struct json_object *a;

	if (!v)
		return add_nullable(o, key, NULL);
	a = json_object_new_array();
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; v[i]; i++)
		if (json_object_array_add(a, jsonout_string(v[i])) < 0) {
			json_object_put(a);
			return -ENOMEM;
		}
	return add_nullable(o, key, a);
}

static struct json_object *elf_json(const struct decision *d)
{
	const struct elfinfo *e = d->elf;
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *needed;

	if (!o)
		return NULL;
	needed = json_object_new_array();
	if (!needed || add_nullable(o, "needed", needed) < 0)
		return NULL;
	for (size_t i = 0; i < e->n_needed; i++)
		if (json_object_array_add(needed, jsonout_string(e->needed[i])) < 0)
			return NULL;
	if (jsonout_add_int(o, "class", e->elf_class) < 0 ||
	    jsonout_add_name(o, "machine", e->machine_name) < 0 ||
	    jsonout_add_bool(o, "pie", e->pie) < 0 ||
	    jsonout_add_bool(o, "static", e->is_static) < 0 ||
	    jsonout_add_name(o, "interp", e->interp) < 0 ||
	    jsonout_add_name(o, "rpath", e->rpath) < 0 ||
	    jsonout_add_name(o, "runpath", e->runpath) < 0 ||
	    jsonout_add_bool(o, "links_libcap", e->links_libcap) < 0 ||
	    jsonout_add_bool(o, "links_libcap_ng", e->links_libcap_ng) < 0 ||
	    jsonout_add_int(o, "imports", (int64_t)e->n_imports_all) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *rule_json(const struct decision *d)
{
	const struct rule *r = d->rule;
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *distros;

	if (!o || jsonout_add_name(o, "id", r->id) < 0 || jsonout_add_name(o, "program", r->program) < 0 ||
	    jsonout_add_name(o, "file", r->file) < 0 || jsonout_add_name(o, "where", r->where) < 0 ||
	    jsonout_add_name(o, "matched", d->match_how) < 0 ||
	    add_strv(o, "sources", r->sources) < 0)
		return NULL;
	distros = json_object_new_object();
	if (!distros || add_nullable(o, "distros", distros) < 0)
		return NULL;
	for (size_t i = 0; i < r->n_distros; i++)
		if (jsonout_add_string(distros, r->distros[i].key, r->distros[i].value) < 0)
			return NULL;
	return TAKE_PTR(o);
}

char *decisionout_override_text(const struct decision *d)
{
	const struct rule_override *o = d->override;
	char *s = NULL;

	if (!o)
		return NULL;
	if (asprintf(&s, "%s%s%s instead of the rule's %s, by the local override in %s %s",
		     verdict_name(o->verdict), o->caps_text ? " to " : "",
		     o->caps_text ? o->caps_text : "", verdict_name(d->overridden), o->file,
		     o->where) < 0)
		return NULL;
	return s;
}

static struct json_object *override_json(const struct decision *d)
{
	const struct rule_override *o = d->override;
	_cleanup_jsonput_ struct json_object *obj = json_object_new_object();

	if (!obj || jsonout_add_name(obj, "file", o->file) < 0 ||
	    jsonout_add_name(obj, "where", o->where) < 0 ||
	    jsonout_add_name(obj, "verdict", verdict_name(o->verdict)) < 0 ||
	    jsonout_add_name(obj, "caps", o->caps_text) < 0 ||
	    jsonout_add_name(obj, "rule_verdict", verdict_name(d->overridden)) < 0 ||
	    jsonout_add_name(obj, "reason", o->reason) < 0 ||
	    jsonout_add_name(obj, "accepted_risk", o->accepted_risk) < 0)
		return NULL;
	return TAKE_PTR(obj);
}

static struct json_object *evidence_json(const struct decision *d)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < d->n_evidence; i++) {
		const struct evidence_item *ev = &d->evidence[i];
		static const char *const kinds[] = { "needs", "aware", "unknown", "drops" };
		struct json_object *o = json_object_new_object();

		if (!o || json_object_array_add(a, o) < 0) {
			json_object_put(o);
			return NULL;
		}
		if (jsonout_add_name(o, "what", ev->what) < 0 || add_nullable(o, "caps", decisionout_mask(ev->caps)) < 0 ||
		    jsonout_add_name(o, "strength", strength_name(ev->strength)) < 0 ||
		    jsonout_add_name(o, "kind", kinds[ev->kind]) < 0 || jsonout_add_name(o, "note", ev->note) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}

static struct json_object *conditions_json(const struct decision *d)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < d->n_conditions; i++) {
		const struct condition_result *c = &d->conditions[i];
		struct json_object *o = json_object_new_object();

		if (!o || json_object_array_add(a, o) < 0) {
			json_object_put(o);
			return NULL;
		}
		if (jsonout_add_name(o, "text", c->text) < 0 ||
		    add_nullable(o, "holds", c->holds < 0 ? NULL : json_object_new_boolean(c->holds)) < 0 ||
		    jsonout_add_bool(o, "chosen", c->chosen) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}

struct json_object *decisionout_json(const struct decision *d)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	struct json_object *warnings, *amb;
	char mode[5];

	if (!o)
		return NULL;
	facts_mode_octal(d->mode, mode);
	if (add_nullable(o, "file", factsjson_new(d->facts)) < 0 ||
	    jsonout_add_name(o, "package", d->package) < 0 ||
	    jsonout_add_name(o, "package_version", d->package_version) < 0 ||
	    jsonout_add_name(o, "version", d->version) < 0 ||
	    jsonout_add_name(o, "version_source", d->version_source) < 0 ||
	    jsonout_add_name(o, "sha256", d->sha256) < 0 ||
	    add_nullable(o, "elf", d->elf ? elf_json(d) : NULL) < 0 ||
	    jsonout_add_name(o, "elf_error", d->elf ? NULL : d->elf_error) < 0 ||
	    add_nullable(o, "rule", d->rule ? rule_json(d) : NULL) < 0 ||
	    (d->override ? jsonout_add(o, "override", override_json(d)) :
			   add_nullable(o, "override", NULL)) < 0)
		return NULL;
	amb = json_object_new_array();
	if (!amb || add_nullable(o, "ambiguous", amb) < 0)
		return NULL;
	for (size_t i = 0; i < d->n_ambiguous; i++)
		if (json_object_array_add(amb, json_object_new_string(d->ambiguous[i])) < 0)
			return NULL;
	if (jsonout_add_name(o, "verdict", verdict_name(d->verdict)) < 0 ||
	    jsonout_add_name(o, "reason", d->reason) < 0 ||
	    jsonout_add_name(o, "confidence", confidence_name(d->confidence)) < 0 ||
	    jsonout_add_bool(o, "changes", d->changes) < 0 ||
	    jsonout_add_name(o, "caps_after", d->has_caps ? d->caps_text : NULL) < 0 ||
	    jsonout_add_id(o, "uid_after", d->uid, d->facts->uid_later && d->uid == d->facts->uid) < 0 ||
	    jsonout_add_id(o, "gid_after", d->gid, d->facts->gid_later && d->gid == d->facts->gid) < 0 ||
	    jsonout_add_name(o, "mode_after", mode) < 0 ||
	    jsonout_add_name(o, "risk_now", risk_name(d->risk_now)) < 0 ||
	    jsonout_add_name(o, "risk", risk_name(d->risk)) < 0 ||
	    jsonout_add_bool(o, "setuid_in_disguise", d->disguise) < 0 ||
	    jsonout_add_bool(o, "capability_aware", d->aware) < 0 ||
	    add_nullable(o, "needs", decisionout_mask(d->needs)) < 0 ||
	    add_nullable(o, "proposed", decisionout_mask(d->proposed)) < 0 ||
	    add_nullable(o, "evidence", evidence_json(d)) < 0 ||
	    add_nullable(o, "conditions", conditions_json(d)) < 0 ||
	    add_strv(o, "smoke", d->rule ? d->rule->smoke : NULL) < 0)
		return NULL;
	warnings = json_object_new_array();
	if (!warnings || add_nullable(o, "warnings", warnings) < 0)
		return NULL;
	for (size_t i = 0; i < d->n_warnings; i++)
		if (json_object_array_add(warnings, jsonout_string(d->warnings[i])) < 0)
			return NULL;
	return TAKE_PTR(o);
}

/* --- explain text ------------------------------------------------------------------------ */

struct style {
	bool color;
	FILE *out;
};

static void heading(const struct style *s, const char *label)
{
	(void)fprintf(s->out, "  %s%-11s%s ", s->color ? "\033[1m" : "", label, s->color ? "\033[0m" : "");
}

static void cont(const struct style *s)
{
	(void)fprintf(s->out, "  %-11s ", "");
}

static void put_esc(FILE *out, const char *str)
{
	_cleanup_free_ char *e = escape_text(str ? str : "");

	(void)fputs(e ? e : "?", out);
}

static void explain_file(const struct style *s, const struct decision *d)
{
	const struct facts *f = d->facts;
	char mode[11];

	facts_mode_string(f->mode, mode);
	heading(s, "file");
	(void)fprintf(s->out, "%s ", mode);
	put_esc(s->out, f->owner ? f->owner : "?");
	(void)fputc(':', s->out);
	put_esc(s->out, f->group ? f->group : "?");
	(void)fprintf(s->out, " (%u:%u), %" PRIu64 " bytes, %u link%s", f->uid, f->gid, f->size,
		      f->nlink, f->nlink == 1 ? "" : "s");
	if (f->mount.fstype)
		(void)fprintf(s->out, ", %s", f->mount.fstype);
	if (f->mount.target) {
		(void)fputs(" on ", s->out);
		put_esc(s->out, f->mount.target);
	}
	if (f->mount.nosuid || f->mount.rdonly || f->mount.noexec)
		(void)fprintf(s->out, " (%s%s%s)", f->mount.nosuid ? "nosuid " : "",
			      f->mount.rdonly ? "ro " : "", f->mount.noexec ? "noexec" : "");
	(void)fputc('\n', s->out);
	if (d->sha256) {
		cont(s);
		(void)fprintf(s->out, "sha256 %s\n", d->sha256);
	}
	heading(s, "now");
	(void)fprintf(s->out, "%s%s%s%s (risk: %s)\n",
		      (f->mode & S_ISUID) ? (f->uid == 0 ? "setuid root" : "setuid") : "",
		      (f->mode & S_ISUID) && (f->mode & S_ISGID) ? ", " : "",
		      (f->mode & S_ISGID) ? "setgid" : "",
		      (f->mode & (S_ISUID | S_ISGID)) ? "" : "no set-ID bits", risk_name(d->risk_now));
	if (f->has_caps) {
		cont(s);
		(void)fprintf(s->out, "capabilities %s\n",
			      f->caps_error ? f->caps_error : f->caps_text);
	}
	if (f->flags) {
		bool first = true;
		cont(s);
		(void)fputs("findings:", s->out);
		for (unsigned i = 0; i < _FACT_MAX; i++)
			if (f->flags & (1u << i)) {
				(void)fprintf(s->out, "%s %s", first ? "" : ",", facts_flag_name(1u << i));
				first = false;
			}
		(void)fputc('\n', s->out);
	}
	heading(s, "package");
	put_esc(s->out, d->package ? d->package : "(unknown)");
	if (d->package_version) {
		(void)fputc(' ', s->out);
		put_esc(s->out, d->package_version);
	}
	(void)fputc('\n', s->out);
	if (d->version) {
		heading(s, "version");
		put_esc(s->out, d->version);
		(void)fprintf(s->out, " (from the %s)\n", s2c_streq(d->version_source, "binary") ?
			      "binary's read-only data" : "package version");
	}
}

static void explain_binary(const struct style *s, const struct decision *d)
{
	const struct elfinfo *e = d->elf;

	heading(s, "binary");
	if (!e) {
		put_esc(s->out, d->elf_error ? d->elf_error : "not read");
		(void)fputc('\n', s->out);
		return;
	}
	(void)fprintf(s->out, "ELF %u-bit %s, %s%s, %zu imported symbols", e->elf_class,
		      e->machine_name, e->is_static ? "static" : "dynamic", e->pie ? ", PIE" : "",
		      e->n_imports_all);
	if (e->links_libcap || e->links_libcap_ng)
		(void)fprintf(s->out, ", links %s", e->links_libcap_ng ? "libcap-ng" : "libcap");
	(void)fputc('\n', s->out);
	if (e->n_needed) {
		cont(s);
		(void)fputs("NEEDs", s->out);
		for (size_t i = 0; i < e->n_needed; i++) {
			(void)fputc(' ', s->out);
			put_esc(s->out, e->needed[i]);
		}
		(void)fputc('\n', s->out);
	}
}

static void explain_rule(const struct style *s, const struct decision *d)
{
	heading(s, "rule");
	if (d->rule) {
		(void)fprintf(s->out, "%s: %s [%s %s]\n", d->rule->id, d->rule->program, d->rule->file,
			      d->rule->where);
		cont(s);
		(void)fprintf(s->out, "matched: %s\n", d->match_how);
	} else if (d->n_ambiguous) {
		(void)fprintf(s->out, "ambiguous: %s:", d->match_how);
		for (size_t i = 0; i < d->n_ambiguous; i++)
			(void)fprintf(s->out, " %s", d->ambiguous[i]);
		(void)fputc('\n', s->out);
	} else {
		(void)fputs("(none)\n", s->out);
	}
	if (d->override) {
		_cleanup_free_ char *text = decisionout_override_text(d);
		heading(s, "override");
		put_esc(s->out, text ? text : "?");
		(void)fputc('\n', s->out);
	}
	for (size_t i = 0; i < d->n_conditions; i++) {
		const struct condition_result *c = &d->conditions[i];
		if (i == 0)
			heading(s, "conditions");
		else
			cont(s);
		(void)fprintf(s->out, "%zu. %s%s\n", i + 1, c->text, c->chosen ? "  <- applies" : "");
	}
}

static void explain_evidence(const struct style *s, const struct decision *d)
{
	static const char *const kinds[] = { "needs", "aware", "unknown", "drops" };

	for (size_t i = 0; i < d->n_evidence; i++) {
		const struct evidence_item *ev = &d->evidence[i];
		_cleanup_free_ char *caps = ev->caps ? fcaps_mask_names(ev->caps) : NULL;

		if (i == 0)
			heading(s, "evidence");
		else
			cont(s);
		(void)fprintf(s->out, "%-6s %-7s %s", strength_name(ev->strength), kinds[ev->kind],
			      ev->what);
		if (caps)
			(void)fprintf(s->out, " -> %s", caps);
		(void)fputc('\n', s->out);
	}
}

static void explain_verdict(const struct style *s, const struct decision *d)
{
	char mode[11];
	_cleanup_free_ char *needs = d->needs ? fcaps_mask_names(d->needs) : NULL;

	heading(s, "verdict");
	(void)fprintf(s->out, "%s%s%s (confidence %s)%s\n", s->color ? audit_verdict_color(d->verdict) : "",
		      verdict_name(d->verdict), s->color ? "\033[0m" : "", confidence_name(d->confidence),
		      d->changes ? "" : ", nothing to change");
	heading(s, "reason");
	put_esc(s->out, d->reason);
	(void)fputc('\n', s->out);
	facts_mode_string((d->facts->mode & ~07777u) | d->mode, mode);
	heading(s, "after");
	(void)fprintf(s->out, "%s %u:%u %s (risk: %s)%s\n", mode, d->uid, d->gid,
		      d->has_caps ? d->caps_text : "no capabilities", risk_name(d->risk),
		      d->disguise ? " SETUID IN DISGUISE" : "");
	if (needs) {
		heading(s, "would need");
		(void)fprintf(s->out, "%s\n", needs);
	}
	for (size_t i = 0; i < d->n_warnings; i++) {
		if (i == 0)
			heading(s, "warnings");
		else
			cont(s);
		(void)fputs("- ", s->out);
		put_esc(s->out, d->warnings[i]);
		(void)fputc('\n', s->out);
	}
}

static void explain_sources(const struct style *s, const struct decision *d)
{
	if (!d->rule)
		return;
	for (size_t i = 0; d->rule->sources && d->rule->sources[i]; i++) {
		if (i == 0)
			heading(s, "sources");
		else
			cont(s);
		(void)fprintf(s->out, "%s\n", d->rule->sources[i]);
	}
	for (size_t i = 0; i < d->rule->n_distros; i++) {
		if (i == 0)
			heading(s, "distros");
		else
			cont(s);
		(void)fprintf(s->out, "%-9s %s\n", d->rule->distros[i].key, d->rule->distros[i].value);
	}
	if (d->rule->smoke) {
		heading(s, "smoke test");
		for (size_t i = 0; d->rule->smoke[i]; i++) {
			(void)fputs(i ? " " : "", s->out);
			if (s2c_streq(d->rule->smoke[i], "{}"))
				put_esc(s->out, d->facts->path);
			else
				(void)fputs(d->rule->smoke[i], s->out);
		}
		(void)fputc('\n', s->out);
	}
}

int decisionout_explain(const struct decision *d, bool color, FILE *out)
{
	struct style s = { color, out };

	put_esc(out, d->facts->path);
	(void)fputc('\n', out);
	explain_file(&s, d);
	explain_binary(&s, d);
	explain_rule(&s, d);
	explain_evidence(&s, d);
	explain_verdict(&s, d);
	explain_sources(&s, d);
	return ferror(out) ? -EIO : 0;
}
