/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet report: many JSON audit reports (of hosts, images, or shards of a
 * package run) joined into one.  Each report contributes its targets: a host
 * or root (by host name and hashed machine id), an image, or every package of
 * a package audit.  For every program (path) the report gives how many
 * targets have it, their verdicts, the state most of them agree on (verdict,
 * mode, owner, group, capabilities now and after), the targets that differ
 * from that majority (drift between hosts), and the package versions seen.
 *
 * The input is untrusted (reports come from many machines): every document is
 * checked for the keys used, a report that is not an audit report is refused
 * with its name and JSON path, and every text is escaped by the renderers as
 * the audit renderers do.  The output is deterministic for the same inputs.
 */
#ifndef S2C_REPORT_FLEET_H
#define S2C_REPORT_FLEET_H

#include <stdbool.h>
#include <stdio.h>

struct fleet;
struct json_object;
struct s2c_error;

/** Version of the fleet JSON document ("schema" key). */
#define FLEET_SCHEMA 1

/** The finding id of drift between targets (fleet reports only). */
#define FLEET_DRIFT_ID "S2C009"

/** A new empty fleet.  Returns 0 or -ENOMEM. */
int fleet_new(struct fleet **ret);

/** Free; accepts NULL; returns NULL. */
struct fleet *fleet_free(struct fleet *f);

/**
 * Add the audit report @doc (borrowed), read from @source.
 * Returns 0, -EINVAL with "source: $.path: message" in @err when it is not an
 * audit report suid2cap can read, or -ENOMEM.  Two reports of the same target
 * (the same host name, machine id and kind, or the same package and version)
 * are both kept, the later one with a note: the merge does not guess which
 * one is right.
 */
int fleet_add(struct fleet *f, const char *source, struct json_object *doc, struct s2c_error *err);

/** Largest report fleet_read() reads. */
#define FLEET_REPORT_MAX ((size_t)256 << 20)

/**
 * fleet_add() of the report whose text is the @len bytes at @text (borrowed), parsed
 * strictly (jsonread.h), its files one at a time: a report of many files costs its
 * text and what the fleet keeps, not the document's json-c objects.  A report up to
 * FLEET_REPORT_MAX bytes; @display names it in the parser's messages.  Returns as
 * fleet_add(), or -EFBIG.
 */
int fleet_read(struct fleet *f, const char *source, const char *display, const char *text,
	       size_t len, struct s2c_error *err);

/** Add a note to the report (a target found twice, …).  Returns 0 or -ENOMEM. */
int fleet_note(struct fleet *f, const char *note);

/**
 * Record that a report could not be read, with @note saying which and why: the fleet report
 * is then incomplete.  Returns 0 or -ENOMEM.
 */
int fleet_unread(struct fleet *f, const char *note);

/**
 * Call @fn for every target read whose audit was incomplete: its name, the report it is in,
 * its first reason, how many more there are, and whether its own audit allowed it
 * (--allow-incomplete).
 */
void fleet_each_incomplete(const struct fleet *f,
			   void (*fn)(void *userdata, const char *name, const char *report,
				      const char *reason, size_t more, bool allowed),
			   void *userdata);

/**
 * Whether any target's audit is incomplete (or a report could not be read) and neither
 * its own report nor @allow (report merge --allow-incomplete) allowed it: the exit status
 * is then 3.
 */
bool fleet_incomplete(const struct fleet *f, bool allow);

/**
 * Work out majorities and drift after the last fleet_add(), and tell apart targets that
 * share a name (a root that copied its host's name: "vm (root /srv/x on vm)").  Returns 0
 * or -ENOMEM.
 */
int fleet_finish(struct fleet *f);

/** Whether any program differs between targets. */
int fleet_drift(const struct fleet *f);

/** The JSON document (docs/schema/fleet.schema.json).  NULL on OOM. */
struct json_object *fleet_json(const struct fleet *f);

/**
 * Write what jsonout_write() would of fleet_json(), one program at a time: the
 * memory of the largest program, not of all.  Returns 0, -ENOMEM or -EIO.
 */
int fleet_json_write(const struct fleet *f, FILE *out);

/**
 * Text: summary, targets, programs with their majority and drift; @quiet: the
 * summary, the notes and the programs that differ between targets only.
 * Returns 0, -ENOMEM, -EIO.
 */
int fleet_text(const struct fleet *f, bool quiet, FILE *out);

/** Markdown.  Returns 0, -ENOMEM, -EIO. */
int fleet_markdown(const struct fleet *f, FILE *out);

/** One self-contained HTML page (no script; CSP allows only its own style). */
int fleet_html(const struct fleet *f, FILE *out);

/** SARIF 2.1.0: per program its majority's findings, and S2C009 where targets differ. */
int fleet_sarif(const struct fleet *f, FILE *out);

#endif /* S2C_REPORT_FLEET_H */
