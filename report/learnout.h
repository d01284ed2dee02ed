/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The renderings of a learn record (learn/observed.h): the learn report as
 * text, the "learned" evidence that explain and audit show for a file with a
 * learn record, and its line in the audit text report.  The JSON document of
 * `learn --format json` is the record's own (learn_record_json()) with the
 * draft rule (report/learndraft) added.
 */
#ifndef S2C_REPORT_LEARNOUT_H
#define S2C_REPORT_LEARNOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "observed.h"

struct decision;
struct json_object;
struct rule;

/** Text options of the learn report. */
struct learnout_text_options {
	bool color;
	bool bpf_built;            /**< this build can use BPF */
	const char *record_file;   /**< where the record was saved, or NULL when it was not */
	const char *draft_file;    /**< where the draft should go, for the hint */
};

/**
 * Write the learn report: what ran, how, the outcome, the capabilities used
 * and denied, a table of every check, the failed syscalls, and the draft rule
 * @draft (may be NULL).  Every name goes through escape_text().
 * Returns 0 or -EIO/-ENOMEM.
 */
int learnout_text(const struct learn_record *r, const struct json_object *draft,
		  const struct learnout_text_options *o, FILE *out);

/**
 * The "learned" evidence object explain and audit add to a file's decision:
 * {"evidence": "observed", "time", "mechanism", "attach", "command", "user",
 * "candidates", "succeeded", "complete", "used", "denied", "denied_without_effect"}.
 * Returns a new object or NULL on OOM.
 */
struct json_object *learnout_evidence_json(const struct learn_record *r);

/**
 * The explain section about @r for decision @d: how it ran and what it used
 * and was denied, and whether the decision's capabilities cover what it used.
 * Returns 0 or -EIO/-ENOMEM.
 */
int learnout_explain(const struct learn_record *r, const struct decision *d, bool color,
		     FILE *out);

/**
 * One line for the audit text report: "observed: used X; denied Y (learn,
 * MECHANISM, TIME)", escaped.  Returns a new string or NULL on OOM.
 */
char *learnout_audit_line(const struct learn_record *r);

#endif /* S2C_REPORT_LEARNOUT_H */
