/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One entry of a plan read back strictly: its path, texts, enums, identity,
 * before and after states, and the checks that combine them (planentry.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine.h"
#include "fcaps.h"
#include "fileid.h"
#include "jsonread.h"
#include "plan.h"
#include "planentry.h"
#include "util.h"
#include "common.h"

/*
 * The loader keeps going after a problem so that one run reports them all
 * (the mode of jsonread.h that records every problem).  Each reader returns 0
 * when it produced a value and a negative number when it did not; the checks
 * that combine members only run on values that were read, so one mistake does
 * not cascade into many.
 */

/* Absolute, normalised (no empty, "." or ".." component, no trailing slash), not "/". */
static int check_path(struct jcheck *jc, const struct jpath *p, const char *path)
{
	const char *c = path;

	if (path[0] != '/' || !path[1])
		return jcheck_problem(jc, p, "'%s' is not an absolute path to a file", path);
	while (*c == '/') {
		size_t len = strcspn(c + 1, "/");
		bool dots = (len == 1 && c[1] == '.') || (len == 2 && c[1] == '.' && c[2] == '.');

		if (len == 0 || dots)
			return jcheck_problem(jc, p, "'%s' has an empty, '.' or '..' component",
					      path);
		c += len + 1;
	}
	return 0;
}

static int get_mode(struct jcheck *jc, struct json_object *o, const struct jpath *p, uint32_t *ret)
{
	const char *s;
	struct jpath kp = jpath_key(p, "mode");
	uint64_t v;

	if (jcheck_string(jc, o, p, "mode", false, &s) < 0)
		return -EINVAL;
	if (strlen(s) != 4 || strspn(s, "01234567") != 4 || parse_u64(s, 8, 07777, &v) < 0)
		return jcheck_problem(jc, &kp, "'%s' is not a mode: expected 4 octal digits such "
				      "as \"4755\"", s);
	*ret = (uint32_t)v;
	return 0;
}

/* "caps": the capability text, into @n and @ret_caps; none for null. */
static int get_caps_text(struct jcheck *jc, struct json_object *o, const struct jpath *p,
			 struct plan_names *n, struct fcaps *ret_caps)
{
	struct jpath kp = jpath_key(p, "caps");
	struct s2c_error e = { 0 };
	const char *text;

	if (jcheck_string(jc, o, p, "caps", true, &text) < 0)
		return -EINVAL;
	if (!text)
		return 0;
	for (const char *c = text; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return jcheck_problem(jc, &kp, "holds a control character");
	if (fcaps_from_text(text, ret_caps, &e) < 0)
		return jcheck_problem(jc, &kp, "%s", e.msg);
	if (!(n->caps_text = strdup(text)))
		jc->oom = true;
	return 0;
}

/* "caps_raw": the exact attribute, into @s; it must show what "caps" (@caps) says. */
static int get_caps_raw(struct jcheck *jc, struct json_object *o, const struct jpath *p,
			struct file_state *s, const struct plan_names *n, const struct fcaps *caps,
			bool text_ok)
{
	struct jpath kp = jpath_key(p, "caps_raw");
	_cleanup_free_ char *bytes = NULL, *shown_caps = NULL;
	struct file_state as_text = *s;
	const char *hex;
	struct fcaps raw;
	size_t len;

	if (jcheck_string(jc, o, p, "caps_raw", true, &hex) < 0 || !text_ok)
		return -EINVAL;
	if (!hex)
		return n->caps_text ? jcheck_problem(jc, &kp, "null, but 'caps' is set") : 0;
	if (!jcheck_lower_hex(hex, strlen(hex)) || hex_decode(hex, &bytes, &len) < 0 ||
	    len > FCAPS_BLOB_MAX)
		return jcheck_problem(jc, &kp, "expected lowercase hex of at most %d bytes",
				      FCAPS_BLOB_MAX);
	memcpy(s->xattr, bytes, len);
	s->xattr_len = len;
	s->has_xattr = true;
	if (fcaps_decode(bytes, len, &raw, NULL) < 0)
		return n->caps_text ? jcheck_problem(jc, &kp, "malformed, but 'caps' is set") : 0;
	shown_caps = fcaps_to_text(&raw);
	if (!shown_caps) {
		jc->oom = true;
		return -ENOMEM;
	}
	if (!n->caps_text)
		return jcheck_problem(jc, &kp, "holds '%s', but 'caps' is null", shown_caps);
	filestate_set_caps(&as_text, caps);
	if (!filestate_match(s, &as_text, FILESTATE_SHOWN))
		return jcheck_problem(jc, &kp, "holds '%s', which disagrees with 'caps' '%s'",
				      shown_caps, n->caps_text);
	return 0;
}

/*
 * "before" (with caps_raw) or "after" (whose capabilities are the v2 bytes a change
 * writes) into the state @s and its names @n.
 */
static int read_state(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		      struct file_state *s, struct plan_names *n, bool before)
{
	/* "before" has the same keys as "after" plus "caps_raw". */
	static const char *const keys[] = { "caps_raw", "uid", "gid", "owner", "owner_hex", "group",
					    "group_hex", "mode", "caps", NULL };
	static const char *const req[] = { "caps_raw", "uid", "gid", "owner", "group", "mode",
					   "caps", NULL };
	const size_t problems = jc->count;
	uint64_t uid = 0, gid = 0;
	struct fcaps caps = { 0 };
	int text;

	if (jcheck_keys(jc, o, p, before ? keys : keys + 1, before ? req : req + 1) < 0)
		return -EINVAL;
	(void)jcheck_int(jc, o, p, "uid", 0, UINT32_MAX - 1, NULL, &uid);
	(void)jcheck_int(jc, o, p, "gid", 0, UINT32_MAX - 1, NULL, &gid);
	s->uid = (uint32_t)uid;
	s->gid = (uint32_t)gid;
	(void)jcheck_name(jc, o, p, "owner", true, &n->owner);
	(void)jcheck_name(jc, o, p, "group", true, &n->group);
	(void)get_mode(jc, o, p, &s->mode);
	text = get_caps_text(jc, o, p, n, &caps);
	if (before)
		(void)get_caps_raw(jc, o, p, s, n, &caps, text == 0);
	else if (n->caps_text)
		filestate_set_caps(s, &caps);
	return jc->count == problems ? 0 : -EINVAL;
}

/* "MAJOR:MINOR", decimal, each at most 32 bits. */
static int parse_dev(const char *s, uint32_t *ret_major, uint32_t *ret_minor)
{
	const char *colon = strchr(s, ':');
	_cleanup_free_ char *left = colon ? strndup(s, (size_t)(colon - s)) : NULL;
	uint64_t a, b;

	if (!left || parse_u64(left, 10, UINT32_MAX, &a) < 0 ||
	    parse_u64(colon + 1, 10, UINT32_MAX, &b) < 0)
		return -EINVAL;
	*ret_major = (uint32_t)a;
	*ret_minor = (uint32_t)b;
	return 0;
}

static int read_identity(struct jcheck *jc, struct json_object *o, const struct jpath *p,
			 struct plan_entry *e)
{
	static const char *const keys[] = { "dev", "ino", "size", "mtime_ns", "sha256", "nlink",
					    NULL };
	const size_t problems = jc->count;
	const char *dev = NULL, *sha = NULL;
	uint64_t nlink = 0;

	if (jcheck_keys(jc, o, p, keys, keys) < 0)
		return -EINVAL;
	if (jcheck_string(jc, o, p, "dev", false, &dev) == 0 &&
	    parse_dev(dev, &e->id.dev_major, &e->id.dev_minor) < 0) {
		struct jpath kp = jpath_key(p, "dev");
		(void)jcheck_problem(jc, &kp, "'%s' is not a device number: expected MAJOR:MINOR",
				     dev);
	}
	(void)jcheck_int(jc, o, p, "ino", 0, UINT64_MAX, NULL, &e->id.ino);
	(void)jcheck_int(jc, o, p, "size", 0, INT64_MAX, NULL, &e->id.size);
	(void)jcheck_int(jc, o, p, "mtime_ns", INT64_MIN, INT64_MAX, &e->id.mtime_ns, NULL);
	if (jcheck_int(jc, o, p, "nlink", 1, UINT32_MAX, NULL, &nlink) == 0)
		e->id.nlink = (uint32_t)nlink;
	if (jcheck_string(jc, o, p, "sha256", true, &sha) == 0 && sha) {
		struct jpath kp = jpath_key(p, "sha256");
		if (strlen(sha) != 64 || !jcheck_lower_hex(sha, 64))
			(void)jcheck_problem(jc, &kp, "expected 64 lowercase hex digits");
		else
			memcpy(e->id.sha256, sha, 65);
	}
	return jc->count == problems ? 0 : -EINVAL;
}

static enum confidence confidence_from_name(const char *s)
{
	for (int c = 0; c < _CONFIDENCE_MAX; c++)
		if (s2c_streq(confidence_name(c), s))
			return c;
	return _CONFIDENCE_INVALID;
}

/* Read an enumeration by name: "verdict", "confidence", "risk", "risk_now". */
static int get_enum(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		    const char *key, int *ret)
{
	struct jpath kp = jpath_key(p, key);
	const char *s;
	int v;

	if (jcheck_string(jc, o, p, key, false, &s) < 0)
		return -EINVAL;
	if (s2c_streq(key, "verdict"))
		v = verdict_from_name(s);
	else if (s2c_streq(key, "confidence"))
		v = confidence_from_name(s);
	else
		v = risk_from_name(s);
	if (v < 0)
		return jcheck_problem(jc, &kp, "unknown %s '%s'",
				      s2c_streq(key, "risk_now") ? "risk" : key, s);
	*ret = v;
	return 0;
}

static int read_smoke(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		      struct plan_entry *e)
{
	struct jpath kp = jpath_key(p, "smoke");
	bool placeholder = false;
	int r = jcheck_strv(jc, o, p, "smoke", true, &e->smoke, &e->n_smoke);

	if (r < 0 || !e->smoke)
		return r;
	for (size_t i = 0; i < e->n_smoke; i++)
		placeholder |= s2c_streq(e->smoke[i], "{}");
	if (!e->n_smoke)
		return jcheck_problem(jc, &kp, "needs at least one element (or null)");
	if (!placeholder)
		return jcheck_problem(jc, &kp, "needs \"{}\" where the file's path goes");
	return 0;
}

/* What read_entry() managed to read, for the checks that combine members. */
struct entry_ok {
	bool action, verdict, disguise, identity, before, after;
};

/* The after state a verdict allows. */
static void check_after(struct jcheck *jc, const struct jpath *p, const struct plan_entry *e)
{
	const struct file_state *b = &e->id.state, *a = &e->after;
	struct jpath ap = jpath_key(p, "after");

	if (e->verdict == VERDICT_MIGRATE) {
		if (!e->after_names.caps_text)
			jcheck_problem_at(jc, &ap, "caps", "a migrate entry needs capabilities");
		if (a->mode & S_ISUID)
			jcheck_problem_at(jc, &ap, "mode",
					  "a migrate entry cannot keep the set-user-ID bit");
		else if ((a->mode & S_ISGID) &&
			 (a->gid == 0 || a->gid != b->gid || !(b->mode & S_ISGID)))
			jcheck_problem_at(jc, &ap, "mode", "a migrate entry keeps the set-group-ID "
					  "bit only for the non-root group it already had");
	} else if (e->verdict == VERDICT_DROP) {
		if (e->after_names.caps_text)
			jcheck_problem_at(jc, &ap, "caps", "a drop entry cannot have capabilities");
		if (a->mode & (S_ISUID | S_ISGID))
			jcheck_problem_at(jc, &ap, "mode", "a drop entry cannot keep set-ID bits");
	}
}

static void check_entry(struct jcheck *jc, const struct jpath *p, const struct plan_entry *e,
			const struct entry_ok *ok)
{
	struct jpath ip = jpath_key(p, "identity");
	bool changes_verdict = e->verdict == VERDICT_MIGRATE || e->verdict == VERDICT_DROP;

	if (ok->action && ok->verdict && e->change && !changes_verdict)
		jcheck_problem_at(jc, p, "action", "a '%s' entry cannot change anything",
				  verdict_name(e->verdict));
	if (ok->action && ok->identity && e->change && !e->id.sha256[0])
		jcheck_problem_at(jc, &ip, "sha256", "a change needs the file's SHA-256, to "
				  "re-check its content before changing it");
	/* A change that only rewrites the attribute in another layout (a v3 one as v2) is a
	 * change; "after" never carries a root id. */
	if (ok->action && ok->before && ok->after && e->change &&
	    filestate_equal(&e->id.state, &e->after))
		jcheck_problem_at(jc, p, "after", "the same as 'before', but the action is "
				  "\"change\"");
	/* A migrate or drop entry that is "none" may be held back (plan/parents.h): its state
	 * after is still what the verdict asks for.  Keep and review never change a file. */
	if (ok->action && ok->before && ok->after && !e->change && !changes_verdict &&
	    !filestate_match(&e->id.state, &e->after, FILESTATE_SHOWN))
		jcheck_problem_at(jc, p, "after", "differs from 'before', but the action is "
				  "\"none\"");
	if (ok->disguise && ok->verdict && e->disguise && e->verdict != VERDICT_MIGRATE)
		jcheck_problem_at(jc, p, "setuid_in_disguise",
				  "only a migrate entry can be setuid in disguise");
	/* An entry that changes nothing (kept, already done, or held back as not packaged)
	 * keeps its state; what a verdict allows after a change does not apply to it. */
	if (ok->verdict && ok->before && ok->after && (!ok->action || e->change))
		check_after(jc, p, e);
}

/* A member object read by @fn at $.<p>.<key>; true when it had no problem. */
static bool read_member(struct jcheck *jc, struct json_object *o, const struct jpath *p,
			const char *key,
			int (*fn)(struct jcheck *, struct json_object *, const struct jpath *,
				  struct plan_entry *),
			struct plan_entry *e)
{
	struct jpath kp = jpath_key(p, key);
	bool present;
	struct json_object *v = jcheck_get(o, key, &present);

	return present && fn(jc, v, &kp, e) == 0;
}

static int read_before(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		       struct plan_entry *e)
{
	return read_state(jc, o, p, &e->id.state, &e->before_names, true);
}

static int read_after(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		      struct plan_entry *e)
{
	return read_state(jc, o, p, &e->after, &e->after_names, false);
}

/* "action", "rule" and "reason". */
static bool read_texts(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		       struct plan_entry *e)
{
	const char *action = NULL, *rule = NULL, *reason = NULL;
	bool ok = false;

	if (jcheck_string(jc, o, p, "action", false, &action) == 0) {
		ok = s2c_streq(action, "change") || s2c_streq(action, "none");
		if (!ok)
			jcheck_problem_at(jc, p, "action", "expected \"change\" or \"none\"");
		e->change = s2c_streq(action, "change");
	}
	if (jcheck_string(jc, o, p, "rule", true, &rule) == 0 && rule) {
		if (!*rule)
			jcheck_problem_at(jc, p, "rule",
					  "must not be empty (null when no rule matched)");
		else if (!(e->rule_id = strdup(rule)))
			jc->oom = true;
	}
	if (jcheck_string(jc, o, p, "reason", false, &reason) == 0 && !(e->reason = strdup(reason)))
		jc->oom = true;
	return ok;
}

int planentry_read(struct jcheck *jc, struct json_object *o, const struct jpath *p,
		   struct plan_entry *e)
{
	static const char *const keys[] = {
		"path", "path_hex", "action", "verdict", "rule", "reason", "confidence", "risk",
		"risk_now", "setuid_in_disguise", "package", "package_hex", "identity", "before",
		"after", "smoke", "evidence", "warnings", NULL,
	};
	static const char *const req[] = {
		"path", "action", "verdict", "rule", "reason", "confidence", "risk", "risk_now",
		"setuid_in_disguise", "package", "identity", "before", "after", "smoke",
		"evidence", "warnings", NULL,
	};
	const size_t problems = jc->count;
	struct entry_ok ok = { 0 };
	struct jpath pp = jpath_key(p, "path");
	int v;

	if (jcheck_keys(jc, o, p, keys, req) < 0)
		return -EINVAL;
	if (jcheck_name(jc, o, p, "path", false, &e->path) == 0)
		(void)check_path(jc, &pp, e->path);
	ok.action = read_texts(jc, o, p, e);
	if ((ok.verdict = get_enum(jc, o, p, "verdict", &v) == 0))
		e->verdict = v;
	if (get_enum(jc, o, p, "confidence", &v) == 0)
		e->confidence = v;
	if (get_enum(jc, o, p, "risk", &v) == 0)
		e->risk = v;
	if (get_enum(jc, o, p, "risk_now", &v) == 0)
		e->risk_now = v;
	ok.disguise = jcheck_bool(jc, o, p, "setuid_in_disguise", &e->disguise) == 0;
	(void)jcheck_name(jc, o, p, "package", true, &e->package);
	ok.identity = read_member(jc, o, p, "identity", read_identity, e);
	ok.before = read_member(jc, o, p, "before", read_before, e);
	ok.after = read_member(jc, o, p, "after", read_after, e);
	(void)read_smoke(jc, o, p, e);
	(void)jcheck_strv(jc, o, p, "evidence", false, &e->evidence, &e->n_evidence);
	(void)jcheck_strv(jc, o, p, "warnings", false, &e->warnings, &e->n_warnings);
	check_entry(jc, p, e, &ok);
	return jc->count == problems ? 0 : -EINVAL;
}

