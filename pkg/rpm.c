/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

#ifdef HAVE_LIBRPM
#include <archive.h>
#include <archive_entry.h>
#include <rpm/header.h>
#include <rpm/rpmfiles.h>
#include <rpm/rpmlib.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmtag.h>
#include <rpm/rpmtd.h>
#include <rpm/rpmts.h>
#endif

#include "arread.h"
#include "fcaps.h"
#include "maintscript.h"
#include "rpm.h"
#include "rpmscript.h"
#include "stage.h"
#include "target.h"
#include "util.h"
#include "common.h"

#ifdef HAVE_LIBRPM

/* librpm's process-wide state (macro context, log, keyring) is not safe to use from several
 * threads at once: header reading holds this lock.  It is the only lock of the layer. */
static pthread_mutex_t rpm_lock = PTHREAD_MUTEX_INITIALIZER;

struct rpmlog_capture {
	char msg[512];
};

static int log_capture(rpmlogRec rec, rpmlogCallbackData data)
{
	struct rpmlog_capture *c = data;
	const char *m = rpmlogRecMessage(rec);

	if (c && m && !c->msg[0]) {
		(void)snprintf(c->msg, sizeof(c->msg), "%s", m);
		c->msg[strcspn(c->msg, "\n")] = '\0';
	}
	return 0;       /* never print */
}

/* The first string of a string or string-array tag, or NULL. */
static char *tag_string(Header h, rpmTagVal tag)
{
	struct rpmtd_s td;
	const char *s = NULL;
	char *copy = NULL;

	if (!headerGet(h, tag, &td, HEADERGET_MINMEM))
		return NULL;
	s = rpmtdGetString(&td);
	if (s)
		copy = strdup(s);
	rpmtdFreeData(&td);
	return copy;
}

static bool plain_value(const char *s)
{
	if (!s || !*s || strlen(s) > 256)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return false;
	return true;
}

/* Members from the header's file list. */
static int header_members(Header h, struct target *t, const struct target_select *sel,
			  struct s2c_error *err)
{
	rpmfiles fi = rpmfilesNew(NULL, h, RPMTAG_BASENAMES, RPMFI_FLAGS_QUERY);
	int n = fi ? rpmfilesFC(fi) : 0, r = 0;

	for (int i = 0; i < n && r == 0; i++) {
		_cleanup_free_ char *fn = rpmfilesFN(fi, i);
		_cleanup_free_ char *path = NULL;
		const char *caps = rpmfilesFCaps(fi, i);
		const char *link = rpmfilesFLink(fi, i);
		rpm_mode_t mode = rpmfilesFMode(fi, i);
		struct member *m;
		bool candidate;

		if (!fn) {
			r = -ENOMEM;
			break;
		}
		if (rpmfilesFFlags(fi, i) & RPMFILE_GHOST)
			continue;       /* not in the payload; rpm only records it */
		r = member_path(fn[0] == '/' ? fn + 1 : fn, &path, err);
		if (r < 0)
			break;
		m = member_new(path);
		if (!m) {
			r = -ENOMEM;
			break;
		}
		m->mode = mode & 07777;
		m->type = S_ISREG(mode) ? MEMBER_FILE : S_ISDIR(mode) ? MEMBER_DIR :
			  S_ISLNK(mode) ? MEMBER_SYMLINK : MEMBER_OTHER;
		m->size = rpmfilesFSize(fi, i);
		m->mtime = rpmfilesFMtime(fi, i);
		if (m->type == MEMBER_SYMLINK)
			m->target = strdup(link ? link : "");
		if (member_set_owner(m, rpmfilesFUser(fi, i), rpmfilesFGroup(fi, i), 0, 0) < 0 ||
		    (m->type == MEMBER_SYMLINK && !m->target)) {
			member_free(m);
			r = -ENOMEM;
			break;
		}
		if (caps && *caps) {
			unsigned char blob[FCAPS_BLOB_MAX];
			struct fcaps c;
			struct s2c_error cerr = { 0 };
			int len;
			m->has_caps = true;
			/* %caps is cap_from_text() syntax; rpm stores the text, we the xattr. */
			if (fcaps_from_text(caps, &c, &cerr) == 0 && (len = fcaps_encode(&c, blob)) > 0)
				r = member_set_caps(m, blob, (size_t)len);
			else
				r = target_incomplete(t, "%s: %%caps(%s) is not a capability text",
						      path, caps);
		}
		if (r == 0 && target_wants(t, sel, m, &candidate))
			m->candidate = candidate;
		if (r == 0)
			r = memberset_put(&t->members, m);
		else
			member_free(m);
	}
	rpmfilesFree(fi);
	return r;
}

/*
 * What reading the header of the .rpm at @fd costs, before librpm reads it:
 * from the lead (96 bytes), the signature header's size (its 16-byte intro:
 * magic, reserved, entries, data bytes; padded to 8), then the main header's
 * entries and data.  librpm holds it twice while it makes a Header of it (the
 * bytes read and the blob it verifies: 25 MiB at the peak for a 12 MiB header
 * of 100,000 files), so twice its size.  0 when the lead or the intros are
 * not an .rpm's, or larger than librpm reads: librpm then says what is wrong.
 */
static size_t header_cost(int fd)
{
	static const unsigned char lead_magic[] = { 0xed, 0xab, 0xee, 0xdb };
	static const unsigned char header_magic[] = { 0x8e, 0xad, 0xe8 };
	unsigned char b[16];
	uint64_t off = 96, entries, data;

	if (pread(fd, b, 4, 0) != 4 || memcmp(b, lead_magic, 4) != 0)
		return 0;
	for (int i = 0; i < 2; i++) {
		if (pread(fd, b, sizeof(b), (off_t)off) != (ssize_t)sizeof(b) ||
		    memcmp(b, header_magic, sizeof(header_magic)) != 0)
			return 0;
		entries = (uint64_t)b[8] << 24 | b[9] << 16 | b[10] << 8 | b[11];
		data = (uint64_t)b[12] << 24 | b[13] << 16 | b[14] << 8 | b[15];
		/* past what librpm reads at all (rpm's hdrchkTags, HEADER_DATA_MAX): its error */
		if (entries > 0xffff || data > 0x0fffffff)
			return 0;
		if (i == 1)
			return (size_t)(2 * (16 * entries + data));
		off += (16 + 16 * entries + data + 7) / 8 * 8;
	}
	return 0;
}

/* Read the header under the lock; the fd is left at the payload. */
static int read_header(int fd, Header *ret, struct s2c_error *err)
{
	struct rpmlog_capture cap = { 0 };
	rpmlogCallback old_cb;
	FD_t f;
	rpmts ts;
	rpmRC rc;
	int r = 0;

	(void)pthread_mutex_lock(&rpm_lock);
	old_cb = rpmlogSetCallback(log_capture, &cap);
	f = fdDup(fd);
	ts = rpmtsCreate();
	if (!f || !ts) {
		r = -ENOMEM;
	} else {
		rpmtsSetVSFlags(ts, RPMVSF_MASK_NOSIGNATURES);
		rc = rpmReadPackageFile(ts, f, "package", ret);
		if (rc != RPMRC_OK && rc != RPMRC_NOKEY && rc != RPMRC_NOTTRUSTED)
			r = s2c_error_set(err, -EINVAL, "not a readable rpm package%s%s",
					  cap.msg[0] ? ": " : "", cap.msg);
		else if (!*ret)
			r = s2c_error_set(err, -EINVAL, "not a readable rpm package");
		/* fdDup() shares the file offset: our fd now points at the payload. */
		else if (lseek(fd, 0, SEEK_CUR) != (off_t)Ftell(f))
			r = s2c_error_set(err, -EIO, "cannot find the payload");
	}
	if (ts)
		rpmtsFree(ts);
	if (f)
		Fclose(f);
	(void)rpmlogSetCallback(old_cb, NULL);
	(void)pthread_mutex_unlock(&rpm_lock);
	return r;
}

static int read_payload(int fd, struct target *t, const struct target_select *sel,
			struct stage *run, const char *stage_name, struct s2c_error *err)
{
	_cleanup_(archive_freep) struct archive *a = NULL;
	struct stage_limits lim = *stage_limits(run);
	struct arread_budget b = { .lim = &lim };
	struct archive_entry *e;
	int r = arread_new(ARREAD_CPIO, &a);

	if (r == 0)
		r = arread_open_fd(a, fd, err);
	while (r == 0 && (r = arread_next(a, &b, &e, err)) > 0) {
		_cleanup_free_ char *path = NULL;
		struct s2c_error serr = { 0 };
		struct member *m;
		bool candidate;

		r = member_path(archive_entry_pathname(e) ? archive_entry_pathname(e) : "", &path,
				err);
		if (r < 0)
			break;
		r = 0;          /* arread_next()'s 1: go on with the next entry */
		m = memberset_get(&t->members, path);
		if (!m) {
			_cleanup_free_ char *shown = escape_text(path);
			r = s2c_error_set(err, -EINVAL, "payload file '%s' is not in the header",
					  shown ? shown : "?");
			break;
		}
		if (!target_wants(t, sel, m, &candidate) || m->staged)
			continue;
		m->candidate = candidate;
		if (!t->stage) {
			r = stage_new_sub(run, stage_name, &t->stage, err);
			if (r < 0)
				break;
		}
		if (m->type == MEMBER_SYMLINK && archive_entry_filetype(e) == AE_IFLNK) {
			r = stage_symlink(t->stage, m->path, m->target, &serr);
			m->staged = r == 0;
			if (r < 0 && r != -ENOMEM)
				r = s2c_error_set(err, r, "member '%s': %s", m->path, serr.msg);
			continue;
		}
		if (archive_entry_filetype(e) != AE_IFREG || m->type != MEMBER_FILE)
			continue;
		/* The header's size is the file's; the payload must agree. */
		if (archive_entry_size(e) != (la_int64_t)m->size) {
			_cleanup_free_ char *shown = escape_text(path);
			r = s2c_error_set(err, -EINVAL, "payload size of '%s' differs from the header",
					  shown ? shown : "?");
			break;
		}
		r = arread_stage(a, t->stage, m->path, m->size, &serr);
		if (r == 0) {
			m->staged = true;
			r = target_count_candidate(t, m);
		} else if (r == -EFBIG) {
			r = target_note(t, "%s: not kept: %s", m->path, serr.msg);
		} else if (r != -ENOMEM) {
			r = s2c_error_set(err, r, "member '%s': %s", m->path, serr.msg);
		}
	}
	return r < 0 ? s2c_error_prefix(err, "payload") : 0;
}

/* Whether a member the scripts' second reading wants (a candidate, a file they run or read) is
 * not kept yet; the candidates are marked as it says. */
static bool wants_more(struct target *t, const struct target_select *sel)
{
	bool more = false;

	for (size_t i = 0; i < t->members.n_slots; i++) {
		struct member *m = t->members.slots[i];
		bool candidate;
		if (!m)
			continue;
		if (target_wants(t, sel, m, &candidate) && !m->staged &&
		    (m->type == MEMBER_FILE || m->type == MEMBER_SYMLINK))
			more = true;
		m->candidate = candidate;
	}
	return more;
}

/*
 * The scriptlets once more with the package's files known (links among them, its own
 * programs and sourced scripts), replacing the first reading (@n_incomplete: the target's
 * reasons before it); what that names and is not kept yet is read from the payload at
 * @payload again, and the scriptlets read once more, at most twice.
 */
static int second_reading(int fd, off_t payload, Header h, struct target *t,
			  const struct target_select *sel, struct stage *run, const char *stage_name,
			  size_t n_incomplete, struct s2c_error *err)
{
	int r = 0;

	for (int round = 0; round < 3 && r == 0; round++) {
		rpmscript_forget(t, n_incomplete);
		r = rpmscript_analyse(h, t, &t->members, t->stage ? stage_rootfd(t->stage) : -1);
		if (r < 0 || round == 2 || payload < 0 || !wants_more(t, sel))
			break;
		if (lseek(fd, payload, SEEK_SET) < 0)
			break;  /* what is not kept says so in the analysis */
		r = read_payload(fd, t, sel, run, stage_name, err);
	}
	return r;
}

static int read_rpm(int fd, struct target *t, const struct target_select *sel, struct stage *run,
		    const char *stage_name, struct s2c_error *err)
{
	Header h = NULL;
	off_t payload;
	_cleanup_free_ char *name = NULL, *version = NULL, *release = NULL, *format = NULL;
	_cleanup_free_ char *arch = NULL;
	uint64_t epoch;
	bool has_epoch;
	size_t n_incomplete = 0, held = header_cost(fd);
	int r = memberset_hold(&t->members, held);

	/* the header is the list of the files: within the members' budget, checked before it
	 * is read */
	if (r == 0)
		r = read_header(fd, &h, err);
	if (r < 0)
		return r;
	name = tag_string(h, RPMTAG_NAME);
	version = tag_string(h, RPMTAG_VERSION);
	release = tag_string(h, RPMTAG_RELEASE);
	arch = tag_string(h, RPMTAG_ARCH);
	format = tag_string(h, RPMTAG_PAYLOADFORMAT);
	has_epoch = headerIsEntry(h, RPMTAG_EPOCH);
	epoch = headerGetNumber(h, RPMTAG_EPOCH);
	if (headerIsSource(h)) {
		r = s2c_error_set(err, -EINVAL, "a source package installs no files");
	} else if (!plain_value(name) || !plain_value(version) || !plain_value(release) ||
		   !plain_value(arch)) {
		r = s2c_error_set(err, -EINVAL, "header without a plain name, version, release and "
				  "architecture");
	} else if (format && !s2c_streq(format, "cpio")) {
		r = s2c_error_set(err, -EINVAL, "payload format '%.32s' is not cpio", format);
	} else {
		t->name = TAKE_PTR(name);
		t->arch = TAKE_PTR(arch);
		if (has_epoch)
			r = asprintf(&t->version, "%llu:%s-%s", (unsigned long long)epoch, version,
				     release) < 0 ? -ENOMEM : 0;
		else
			r = asprintf(&t->version, "%s-%s", version, release) < 0 ? -ENOMEM : 0;
		if (r == 0)
			r = header_members(h, t, sel, err);
		/* First without the files: what the scriptlets name is kept from the payload. */
		n_incomplete = t->n_incomplete;
		if (r == 0)
			r = rpmscript_analyse(h, t, NULL, -1);
	}
	payload = lseek(fd, 0, SEEK_CUR);
	if (r == 0)
		r = read_payload(fd, t, sel, run, stage_name, err);
	if (r == 0)
		r = second_reading(fd, payload, h, t, sel, run, stage_name, n_incomplete, err);
	if (r == 0)
		r = target_alt_notes(t);
	headerFree(h);
	memberset_unhold(&t->members, held);
	return r;
}

#else

/* Built without librpm (S2C_RPMDB=OFF or rpm's headers missing): each .rpm is a failed
 * target that says so, and the rest of the run goes on. */
static int read_rpm(int fd, struct target *t, const struct target_select *sel, struct stage *run,
		    const char *stage_name, struct s2c_error *err)
{
	(void)fd, (void)t, (void)sel, (void)run, (void)stage_name;
	return s2c_error_set(err, -EOPNOTSUPP, "this suid2cap was built without librpm: "
			     ".rpm packages cannot be read");
}

#endif /* HAVE_LIBRPM */

int rpm_read(int fd, const char *source, const struct target_select *sel, struct stage *run,
	     const char *stage_name, struct target **ret)
{
	struct s2c_error err = { 0 };
	struct target *t = target_new(TARGET_RPM, source);
	int r;

	if (!t)
		return -ENOMEM;
	t->members.max_bytes = (size_t)stage_limits(run)->max_memory;
	r = read_rpm(fd, t, sel, run, stage_name, &err);
	return target_read_done(t, r, &err, ret);
}
