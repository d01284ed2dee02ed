/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The draft rule of `suid2cap learn`: what one observed run says about a
 * program, as a rules file a person reviews before saving it.
 *
 * A draft never takes the id of a rule that exists: saved where learn says
 * (/etc/suid2cap/rules.d/local.json) it would replace that rule, and with it
 * conditions the run knew nothing about (iputils.ping's
 * net.ipv4.ping_group_range and kernel conditions).  When a rule matches the
 * program today, the draft is about the observed build only (match.sha256):
 * for it the draft goes first (rules/match.c), every other build keeps that
 * rule, and the draft's description names the conditions of that rule it
 * lacks.  A run that was not seen whole (learn_record_complete()) or did not
 * succeed drafts review, never migrate or drop.
 */
#ifndef S2C_REPORT_LEARNDRAFT_H
#define S2C_REPORT_LEARNDRAFT_H

struct json_object;
struct learn_record;
struct rule;
struct rules_db;

/**
 * The draft rules file for @r, ready to save as <area>.json in a rules
 * directory: {"schema", "area": "local", "description", "rules": [one rule]}.
 * @matching  the rule that matches the program today, or NULL.
 * @db        the rules database the id must be fresh in, or NULL.
 * The id is "local.<name>" (then "-2", "-3"… while @db has it); the match
 * is the program's path, plus its SHA-256 when @matching is set.  The verdict
 * is drop for a #! script (whose privilege the kernel never honours), review
 * with "needs" when the run failed, was denied something or was not seen
 * whole, else migrate with the capabilities used (=p for an aware program,
 * =ep otherwise), or drop when it used none.
 * Returns a new object or NULL on OOM.
 */
struct json_object *learndraft_build(const struct learn_record *r, const struct rule *matching,
				     const struct rules_db *db);

#endif /* S2C_REPORT_LEARNDRAFT_H */
