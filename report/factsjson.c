/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <json-c/json.h>

#include "facts.h"
#include "factsjson.h"
#include "fcaps.h"
#include "jsonout.h"
#include "util.h"
#include "common.h"

static struct json_object *caps_json(const struct facts *f)
{
	_cleanup_jsonput_ struct json_object *c = json_object_new_object();
	_cleanup_free_ char *perm = NULL, *inh = NULL;
	char raw[2 * FCAPS_BLOB_MAX + 1];

	if (!c)
		return NULL;
	hex_encode(f->caps_raw, f->caps_len, raw);
	if (jsonout_add_string(c, "raw", raw) < 0)
		return NULL;
	if (f->caps_error) {
		if (jsonout_add_string(c, "error", f->caps_error) < 0)
			return NULL;
		return TAKE_PTR(c);
	}
	perm = fcaps_mask_names(f->caps.permitted);
	inh = fcaps_mask_names(f->caps.inheritable);
	if (!perm || !inh ||
	    jsonout_add_string(c, "text", f->caps_text) < 0 ||
	    jsonout_add_int(c, "version", f->caps.version) < 0 ||
	    jsonout_add_bool(c, "effective", f->caps.effective) < 0 ||
	    jsonout_add_string(c, "permitted", perm) < 0 ||
	    jsonout_add_string(c, "inheritable", inh) < 0)
		return NULL;
	if (f->caps.has_rootid) {
		if (jsonout_add_int(c, "rootid", f->caps.rootid) < 0)
			return NULL;
	} else if (json_object_object_add(c, "rootid", NULL) < 0) {
		return NULL;
	}
	return TAKE_PTR(c);
}

static struct json_object *mount_json(const struct facts *f)
{
	_cleanup_jsonput_ struct json_object *m = json_object_new_object();

	if (!m ||
	    (f->mount.fstype ? jsonout_add_string(m, "fstype", f->mount.fstype)
			     : json_object_object_add(m, "fstype", NULL)) < 0 ||
	    (f->mount.target ? jsonout_add_string(m, "target", f->mount.target)
			     : json_object_object_add(m, "target", NULL)) < 0 ||
	    jsonout_add_bool(m, "nosuid", f->mount.nosuid) < 0 ||
	    jsonout_add_bool(m, "readonly", f->mount.rdonly) < 0 ||
	    jsonout_add_bool(m, "noexec", f->mount.noexec) < 0)
		return NULL;
	return TAKE_PTR(m);
}

static struct json_object *flags_json(enum facts_flags flags)
{
	_cleanup_jsonput_ struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (unsigned i = 0; i < _FACT_MAX; i++) {
		if (!(flags & (1u << i)))
			continue;
		if (json_object_array_add(a, json_object_new_string(facts_flag_name(1u << i))) < 0)
			return NULL;
	}
	return TAKE_PTR(a);
}

struct json_object *factsjson_new(const struct facts *f)
{
	_cleanup_jsonput_ struct json_object *o = json_object_new_object();
	char mode[5], dev[32], mtime[64];
	struct tm tm;
	time_t t = (time_t)f->mtime_sec;
	struct json_object *caps;

	if (!o)
		return NULL;
	facts_mode_octal(f->mode, mode);
	(void)snprintf(dev, sizeof(dev), "%" PRIu32 ":%" PRIu32, f->dev_major, f->dev_minor);
	if (!gmtime_r(&t, &tm) || strftime(mtime, sizeof(mtime), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		mtime[0] = '\0';
	if (jsonout_add_string(o, "path", f->path) < 0 ||
	    jsonout_add_id(o, "uid", f->uid, f->uid_later) < 0 ||
	    jsonout_add_name(o, "owner", f->owner) < 0 ||
	    jsonout_add_id(o, "gid", f->gid, f->gid_later) < 0 ||
	    jsonout_add_name(o, "group", f->group) < 0 ||
	    jsonout_add_string(o, "mode", mode) < 0 ||
	    jsonout_add_bool(o, "setuid", (f->mode & S_ISUID) != 0) < 0 ||
	    jsonout_add_bool(o, "setgid", (f->mode & S_ISGID) != 0) < 0 ||
	    jsonout_add_int(o, "size", (int64_t)f->size) < 0 ||
	    jsonout_add_string(o, "mtime", mtime) < 0 ||
	    jsonout_add_int(o, "mtime_ns", f->mtime_sec * 1000000000LL + f->mtime_nsec) < 0 ||
	    jsonout_add_string(o, "dev", dev) < 0 ||
	    jsonout_add_int(o, "ino", (int64_t)f->ino) < 0 ||
	    jsonout_add_int(o, "nlink", f->nlink) < 0)
		return NULL;
	caps = f->has_caps ? caps_json(f) : NULL;
	if (f->has_caps && !caps)
		return NULL;
	if (json_object_object_add(o, "caps", caps) < 0 ||
	    jsonout_add(o, "mount", mount_json(f)) < 0 ||
	    jsonout_add_name(o, "interpreter", f->interpreter) < 0 ||
	    jsonout_add(o, "flags", flags_json(f->flags)) < 0)
		return NULL;
	return TAKE_PTR(o);
}
