/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "facts.h"
#include "factsrec.h"
#include "recio.h"
#include "util.h"
#include "common.h"

/* The first four bytes: "S2CF", then the layout's version. */
#define REC_MAGIC UINT32_C(0x46433253)
#define REC_VERSION 1

void factsrec_put_fcaps(struct rec_out *o, const struct fcaps *c)
{
	rec_put_u32(o, c->version);
	rec_put_bool(o, c->effective);
	rec_put_u64(o, c->permitted);
	rec_put_u64(o, c->inheritable);
	rec_put_bool(o, c->has_rootid);
	rec_put_u32(o, c->rootid);
}

void factsrec_put(struct rec_out *o, const struct facts *f)
{
	size_t caps_len = S2C_MIN(f->caps_len, sizeof(f->caps_raw));

	rec_put_str(o, f->path);
	rec_put_u32(o, f->uid);
	rec_put_u32(o, f->gid);
	rec_put_bool(o, f->uid_later);
	rec_put_bool(o, f->gid_later);
	rec_put_str(o, f->owner);
	rec_put_str(o, f->group);
	rec_put_u32(o, f->mode);
	rec_put_u64(o, f->size);
	rec_put_u64(o, (uint64_t)f->mtime_sec);
	rec_put_u32(o, f->mtime_nsec);
	rec_put_u32(o, f->dev_major);
	rec_put_u32(o, f->dev_minor);
	rec_put_u64(o, f->ino);
	rec_put_u32(o, f->nlink);
	rec_put_bool(o, f->has_caps);
	factsrec_put_fcaps(o, &f->caps);
	rec_put_str(o, f->caps_text);
	rec_put_str(o, f->caps_error);
	rec_put_u32(o, (uint32_t)caps_len);
	rec_put(o, f->caps_raw, caps_len);
	rec_put_str(o, f->mount.fstype);
	rec_put_str(o, f->mount.target);
	rec_put_bool(o, f->mount.nosuid);
	rec_put_bool(o, f->mount.rdonly);
	rec_put_bool(o, f->mount.noexec);
	rec_put_str(o, f->interpreter);
	rec_put_u64(o, f->mnt_id);
	rec_put_u32(o, (uint32_t)f->flags);
}

void factsrec_get_fcaps(struct rec_in *i, struct fcaps *c)
{
	c->version = rec_get_u32(i);
	c->effective = rec_get_bool(i);
	c->permitted = rec_get_u64(i);
	c->inheritable = rec_get_u64(i);
	c->has_rootid = rec_get_bool(i);
	c->rootid = rec_get_u32(i);
}

void factsrec_get(struct rec_in *i, struct facts *f)
{
	size_t caps_len;

	f->path = rec_get_str(i);
	f->uid = rec_get_u32(i);
	f->gid = rec_get_u32(i);
	f->uid_later = rec_get_bool(i);
	f->gid_later = rec_get_bool(i);
	f->owner = rec_get_str(i);
	f->group = rec_get_str(i);
	f->mode = rec_get_u32(i);
	f->size = rec_get_u64(i);
	f->mtime_sec = (int64_t)rec_get_u64(i);
	f->mtime_nsec = rec_get_u32(i);
	f->dev_major = rec_get_u32(i);
	f->dev_minor = rec_get_u32(i);
	f->ino = rec_get_u64(i);
	f->nlink = rec_get_u32(i);
	f->has_caps = rec_get_bool(i);
	factsrec_get_fcaps(i, &f->caps);
	f->caps_text = rec_get_str(i);
	f->caps_error = rec_get_str(i);
	caps_len = rec_get_u32(i);
	if (caps_len > sizeof(f->caps_raw) && !i->error)
		i->error = -EBADMSG;
	if (!i->error)
		rec_get(i, f->caps_raw, caps_len);
	f->caps_len = i->error ? 0 : caps_len;
	f->mount.fstype = rec_get_str(i);
	f->mount.target = rec_get_str(i);
	f->mount.nosuid = rec_get_bool(i);
	f->mount.rdonly = rec_get_bool(i);
	f->mount.noexec = rec_get_bool(i);
	f->interpreter = rec_get_str(i);
	f->mnt_id = rec_get_u64(i);
	f->flags = (enum facts_flags)rec_get_u32(i);
	if (!i->error && !f->path)
		i->error = -EBADMSG;
}

int factsrec_pack(const struct facts *f, void **ret, size_t *ret_len)
{
	struct rec_out o = { 0 };

	rec_put_u32(&o, REC_MAGIC);
	rec_put_u32(&o, REC_VERSION);
	factsrec_put(&o, f);
	return rec_out_finish(&o, ret, ret_len);
}

int factsrec_unpack(const void *p, size_t len, struct facts **ret)
{
	struct rec_in i = { .p = p, .n = len };
	struct facts *f;
	int r;

	if (rec_get_u32(&i) != REC_MAGIC || rec_get_u32(&i) != REC_VERSION)
		return -EBADMSG;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	factsrec_get(&i, f);
	r = rec_in_finish(&i);
	if (r < 0) {
		facts_free(f);
		return r;
	}
	*ret = f;
	return 0;
}
