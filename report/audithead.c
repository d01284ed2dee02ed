/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "audithead.h"
#include "audittext.h"
#include "db.h"
#include "host.h"
#include "pkgdb.h"
#include "scanout.h"
#include "targetout.h"
#include "textwrap.h"
#include "util.h"
#include "waiver.h"
#include "common.h"

/* The title, the target and when and by whom it was audited. */
static int text_title(const struct audit *a, const struct audittext_options *o, unsigned width,
		      FILE *out)
{
	const struct host *h = a->host;
	const struct audit_identity *id = a->identity;
	_cleanup_free_ char *title = NULL, *paths = NULL, *esc = NULL;
	char machine[32] = "";
	int r = 0;

	for (size_t i = 0; !a->targets && a->paths && a->paths[i]; i++) {
		char *p = strdup_printf("%s%s%s", paths ? paths : "", i ? ", " : ", paths ",
					a->paths[i]);
		free(paths);
		paths = p;
		if (!paths)
			return -ENOMEM;
	}
	if (a->targets)
		title = strdup_printf("%zu %s", a->n_targets, targetout_noun(a, a->n_targets));
	else
		title = strdup_printf("%s%s", a->root, paths ? paths : "");
	esc = title ? escape_text(title) : NULL;
	if (!esc)
		return -ENOMEM;
	textwrap_wrap(out, o->color ? TEXTWRAP_BOLD : "", "suid2cap audit of ", esc, 0, width);
	if (id && id->machine_id)
		(void)snprintf(machine, sizeof(machine), " (machine %.12s)", id->machine_id);
	if (h)
		r = textwrap_line(out, width, "target: ", "%s%s%s%s, kernel %s%s%s",
			      a->targets ? targetout_noun(a, a->n_targets) :
			      h->live ? "this host" : "image", id && id->hostname ? " " : "",
			      id && id->hostname ? id->hostname : "", machine, h->kernel_release,
			      h->os_pretty ? ", " : "", h->os_pretty ? h->os_pretty : "");
	if (r == 0 && id && id->label)
		r = textwrap_line(out, width, "label: ", "%s", id->label);
	if (r == 0 && id && id->time)
		r = textwrap_line(out, width, "audited: ", "%s%s%s%s%s, suid2cap %s", id->time,
			      id->auditor ? " on " : "", id->auditor ? id->auditor : "",
			      id->shard ? ", shard " : "", id->shard ? id->shard : "", S2C_VERSION);
	return r;
}

/* What net.ipv4.ping_group_range "LOW HIGH" means for ping. */
static const char *ping_groups(const char *range)
{
	unsigned long lo, hi;

	if (sscanf(range, "%lu %lu", &lo, &hi) != 2)
		return "";
	if (lo > hi)
		return " (no group may open ICMP sockets: ping needs cap_net_raw)";
	if (lo == 0 && hi >= 2147483647UL)
		return " (every group may open ICMP sockets: ping needs no privilege)";
	return " (only these groups may open ICMP sockets)";
}

/* Where owners and versions came from, the bounding set, and ping_group_range. */
static int text_target_db(const struct audit *a, unsigned width, FILE *out)
{
	const struct host *h = a->host;
	_cleanup_free_ char *dbs = NULL, *bounding = NULL;
	const char *problem;
	int r = 0;

	if (!h)
		return 0;
	if (h->pkgdb) {
		problem = pkgdb_problem(h->pkgdb);
		for (size_t i = 0; i < pkgdb_count(h->pkgdb); i++) {
			char *d = strdup_printf("%s%s%s", dbs ? dbs : "", i ? ", " : "",
						pkgdb_format_name(pkgdb_format_of(h->pkgdb, i)));
			free(dbs);
			dbs = d;
			if (!dbs)
				return -ENOMEM;
		}
		r = textwrap_line(out, width, "package database: ", "%s%s%s",
			      dbs ? dbs : "none (owners unknown: programs are told apart by their "
			      "binaries)", problem ? "; " : "", problem ? problem : "");
	}
	bounding = audit_bounding_text(h);
	if (!bounding)
		return -ENOMEM;
	/* ", " between the names, so that a long set wraps */
	for (char *c = bounding; r == 0 && (c = strchr(c, ',')); c++) {
		char *spaced = strdup_printf("%.*s, %s", (int)(c - bounding), bounding, c + 1);
		if (!spaced)
			return -ENOMEM;
		c = spaced + (c - bounding) + 1;
		free(bounding);
		bounding = spaced;
	}
	if (r == 0)
		r = textwrap_line(out, width, "bounding set: ", "%s%s%s", bounding,
			      h->bounding_what && !s2c_streq(bounding, "full") ? "; from " : "",
			      h->bounding_what && !s2c_streq(bounding, "full") ? h->bounding_what : "");
	/* It decides whether ping needs any privilege at all. */
	if (r == 0 && a->ping_group_range)
		r = textwrap_line(out, width, "net.ipv4.ping_group_range: ", "%s%s", a->ping_group_range,
			      ping_groups(a->ping_group_range));
	return r;
}

/* The rules database and each local layer of it. */
static int text_rules(const struct audit *a, unsigned width, FILE *out)
{
	int r = textwrap_line(out, width, "rules: ", "%zu rules, database %.12s", a->db->n,
			  a->db->hash);

	for (size_t i = 0; r == 0 && i < a->db->n_layers; i++) {
		const struct rules_db_layer *l = &a->db->layers[i];
		const char *what = !l->label || s2c_streq(l->label, "bundled") ? NULL :
				   s2c_streq(l->label, "local") ? "local rules: " :
				   s2c_streq(l->label, "target") ? "local rules (the target's): " :
				   "--db: ";
		if (!what)
			continue;
		if (l->present)
			r = textwrap_line(out, width, what, "%s: %zu rule%s", l->dir, l->rules,
				      l->rules == 1 ? "" : "s");
		else
			r = textwrap_line(out, width, what, "%s: none", l->dir);
	}
	return r;
}

/* The other roots and the excluded paths not scanned, each a header line wrapped at @width. */
static int text_skipped(const struct audit *a, unsigned width, FILE *out)
{
	for (int other = 1; other >= 0; other--) {
		bool none;
		_cleanup_free_ char *line = scanout_skipped_line(a->not_scanned, a->n_not_scanned,
								 other, &none);
		_cleanup_free_ char *lead = NULL;
		const char *rest = line ? strstr(line, ": ") : NULL;  /* after the lead's colon */

		if (!line && !none)
			return -ENOMEM;
		if (!rest)
			continue;
		/* a long list goes below its lead, two spaces in, rather than far to the right */
		if (!width || textwrap_width(line) <= width) {
			(void)fprintf(out, "%s\n", line);
			continue;
		}
		lead = strndup(line, (size_t)(rest + 1 - line));
		if (!lead)
			return -ENOMEM;
		(void)fprintf(out, "%s\n", lead);
		textwrap_wrap(out, "", "", rest + 2, 2, width);
	}
	return 0;
}

/* What was not read: the paths not scanned and the parts that failed. */
static int text_incomplete(const struct audit *a, unsigned width, FILE *out)
{
	if (text_skipped(a, width, out) < 0)
		return -ENOMEM;
	if (!a->complete && a->targets) {
		_cleanup_free_ char *why = targetout_incomplete(a);
		if (!why)
			return -ENOMEM;
		return textwrap_line(out, width, "INCOMPLETE: ", "%s; named below and on standard error",
				 why);
	}
	if (!a->complete)
		return textwrap_line(out, width, "INCOMPLETE: ", "%" PRIu64 " part%s of the tree could "
				 "not be read (see the warnings on standard error)", a->scan_warnings,
				 a->scan_warnings == 1 ? "" : "s");
	return 0;
}

/* The summary: verdicts, risk before and after, findings by level, waivers. */
static int text_summary(const struct audit *a, const struct audit_summary *s,
			const struct audittext_options *o, unsigned width, FILE *out)
{
	int r;

	(void)fprintf(out, "\n%sSummary:%s %zu privileged file%s\n", o->color ? TEXTWRAP_BOLD : "",
		      o->color ? TEXTWRAP_RESET : "", s->files, s->files == 1 ? "" : "s");
	r = textwrap_line(out, width, "  verdict     ", "%zu migrate, %zu drop, %zu review, %zu keep, "
		      "%zu nothing to change", s->states[AUDIT_STATE_MIGRATE],
		      s->states[AUDIT_STATE_DROP], s->states[AUDIT_STATE_REVIEW],
		      s->states[AUDIT_STATE_KEEP], s->states[AUDIT_STATE_DONE]);
	(void)fprintf(out, "  risk now    %zu root, %zu dangerous, %zu low, %zu none\n",
		      s->risk_now[RISK_ROOT], s->risk_now[RISK_DANGEROUS], s->risk_now[RISK_LOW],
		      s->risk_now[RISK_NONE]);
	(void)fprintf(out, "  risk after  %zu root, %zu dangerous, %zu low, %zu none\n",
		      s->risk_after[RISK_ROOT], s->risk_after[RISK_DANGEROUS],
		      s->risk_after[RISK_LOW], s->risk_after[RISK_NONE]);
	(void)fprintf(out, "  findings    %zu error%s, %zu warning%s, %zu note%s\n",
		      s->levels[AUDIT_LEVEL_ERROR], s->levels[AUDIT_LEVEL_ERROR] == 1 ? "" : "s",
		      s->levels[AUDIT_LEVEL_WARNING], s->levels[AUDIT_LEVEL_WARNING] == 1 ? "" : "s",
		      s->levels[AUDIT_LEVEL_NOTE], s->levels[AUDIT_LEVEL_NOTE] == 1 ? "" : "s");
	if (r == 0 && a->waivers)
		r = textwrap_line(out, width, "  waived      ", "%zu finding%s (not counted above); "
			      "waivers: %zu stale, %zu expired", s->waived, s->waived == 1 ? "" : "s",
			      s->waivers_stale, s->waivers_expired);
	(void)fprintf(out, "  setuid in disguise  %zu\n", s->disguise);
	(void)fprintf(out, "  would change        %zu file%s\n", s->changes, s->changes == 1 ? "" : "s");
	return r;
}

int audithead_write(const struct audit *a, const struct audit_summary *s,
		    const struct audittext_options *o, FILE *out)
{
	unsigned width = o->width ? o->width : AUDITTEXT_WRAP;
	int r = text_title(a, o, width, out);

	if (r == 0)
		r = text_target_db(a, width, out);
	if (r == 0)
		r = text_rules(a, width, out);
	if (r == 0)
		r = text_incomplete(a, width, out);
	if (r == 0)
		r = text_summary(a, s, o, width, out);
	return r;
}
