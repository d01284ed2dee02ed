/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "arread.h"
#include "facts.h"
#include "fcaps.h"
#include "resolve.h"
#include "stage.h"
#include "target.h"
#include "util.h"
#include "common.h"

const char *target_kind_name(enum target_kind k)
{
	static const char *const names[_TARGET_KIND_MAX] = {
		[TARGET_DEB] = "deb", [TARGET_RPM] = "rpm", [TARGET_IMAGE] = "image",
	};
	return k < _TARGET_KIND_MAX ? names[k] : "?";
}

struct target *target_new(enum target_kind kind, const char *source)
{
	struct target *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->kind = kind;
	t->source = strdup(source);
	if (!t->source) {
		free(t);
		return NULL;
	}
	return t;
}

struct target *target_free(struct target *t)
{
	if (!t)
		return NULL;
	free(t->source);
	free(t->name);
	free(t->version);
	free(t->arch);
	memberset_release(&t->members);
	stage_free(t->stage);
	ms_analysis_release(&t->scripts);
	for (size_t i = 0; i < t->n_notes; i++)
		free(t->notes[i]);
	free(t->notes);
	for (size_t i = 0; i < t->n_layers; i++) {
		free(t->layers[i].digest);
		free(t->layers[i].created_by);
	}
	free(t->layers);
	free(t->error);
	free(t);
	return NULL;
}

int target_note(struct target *t, const char *fmt, ...)
{
	char *s = NULL;
	char **v;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return -ENOMEM;
	v = realloc(t->notes, (t->n_notes + 1) * sizeof(*v));
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	t->notes = v;
	v[t->n_notes++] = s;
	return 0;
}

int target_fail(struct target *t, int r, const struct s2c_error *err)
{
	free(t->error);
	t->error = strdup(s2c_error_isset(err) ? err->msg : strerror(r < 0 ? -r : r));
	t->stage = stage_free(t->stage);
	return t->error ? 0 : -ENOMEM;
}

/* --- what to keep --------------------------------------------------------------------------- */

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');
	return slash ? slash + 1 : s;
}

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* Whether install-time action @a names @path. */
static bool action_names(const struct ms_action *a, const char *path)
{
	if (a->glob ? fnmatch(a->path, path, FNM_PATHNAME) == 0 : s2c_streq(a->path, path))
		return true;
	return a->recursive && below(path, a->path);
}

static bool lib_wanted(const struct target_select *sel, const char *path)
{
	const char *b = base_name(path);

	for (size_t i = 0; sel->lib_globs && sel->lib_globs[i]; i++)
		if (fnmatch(sel->lib_globs[i], b, 0) == 0)
			return true;
	return false;
}

/* A directory the dynamic linker searches by default (any multiarch triplet). */
static bool in_lib_dir(const char *path)
{
	static const char *const dirs[] = { "/lib", "/usr/lib", "/lib64", "/usr/lib64", "/lib32",
					    "/usr/lib32", "/usr/local/lib" };
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) : 0;

	for (size_t i = 0; i < S2C_ELEMENTSOF(dirs); i++) {
		size_t n = strlen(dirs[i]);
		if (dl == n && strncmp(path, dirs[i], n) == 0)
			return true;
		/* /usr/lib/x86_64-linux-gnu: one level below, a triplet with two dashes */
		if (dl > n + 1 && strncmp(path, dirs[i], n) == 0 && path[n] == '/' &&
		    !memchr(path + n + 1, '/', dl - n - 1) && memchr(path + n + 1, '-', dl - n - 1))
			return true;
	}
	return false;
}

static bool is_shared_lib(const char *path)
{
	return strstr(base_name(path), ".so") != NULL;
}

/* Files `audit --root` reads besides the candidates: accounts, os-release, sysctl, the
 * container runtime's marker (the bounding set) and the package databases (rules/pkgdb*.c). */
static bool system_file(const char *path)
{
	static const char *const exact[] = { "/etc/passwd", "/etc/group", "/etc/os-release",
					     "/usr/lib/os-release", "/etc/ld.so.conf",
					     "/etc/sysctl.conf", "/etc/hostname", "/etc/machine-id",
					     "/.dockerenv", "/run/.containerenv",
					     "/var/lib/dpkg/status", "/lib/apk/db/installed",
					     "/usr/lib/apk/db/installed" };
	static const char *const dirs[] = { "/etc/ld.so.conf.d", "/etc/sysctl.d", "/usr/lib/sysctl.d",
					    "/lib/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d",
					    "/usr/lib/sysimage/rpm", "/var/lib/rpm" };
	static const char *const pacman[] = { "desc", "files", "mtree" };

	for (size_t i = 0; i < S2C_ELEMENTSOF(exact); i++)
		if (s2c_streq(path, exact[i]))
			return true;
	for (size_t i = 0; i < S2C_ELEMENTSOF(dirs); i++) {
		const char *slash = strrchr(path, '/');
		if (slash && (size_t)(slash - path) == strlen(dirs[i]) &&
		    strncmp(path, dirs[i], strlen(dirs[i])) == 0)
			return true;
	}
	if (below(path, "/var/lib/dpkg/info")) {
		size_t n = strlen(path);
		return (n > 5 && s2c_streq(path + n - 5, ".list")) ||
		       (n > 8 && s2c_streq(path + n - 8, ".md5sums"));
	}
	if (below(path, "/var/lib/pacman/local")) {
		/* local/NAME-VERSION/{desc,files,mtree} */
		const char *rest = path + strlen("/var/lib/pacman/local/"), *slash = strchr(rest, '/');
		for (size_t i = 0; slash && slash > rest && i < S2C_ELEMENTSOF(pacman); i++)
			if (s2c_streq(slash + 1, pacman[i]))
				return true;
	}
	return false;
}

bool target_wants(const struct target *t, const struct target_select *sel, const struct member *m,
		  bool *ret_candidate)
{
	bool candidate = false;

	if (m->type == MEMBER_FILE || m->type == MEMBER_HARDLINK)
		candidate = (m->mode & 06000) || m->has_caps;
	for (size_t i = 0; !candidate && i < t->scripts.n; i++)
		candidate = action_names(&t->scripts.v[i], m->path);
	*ret_candidate = candidate && m->type != MEMBER_DIR && m->type != MEMBER_SYMLINK;
	if (*ret_candidate)
		return true;
	if (m->type != MEMBER_FILE && m->type != MEMBER_SYMLINK && m->type != MEMBER_HARDLINK)
		return false;
	if (lib_wanted(sel, m->path))
		return true;
	if (!sel->system_files)
		return false;
	if (is_shared_lib(m->path) && in_lib_dir(m->path))
		return true;
	return m->type != MEMBER_SYMLINK && system_file(m->path);
}

static int stage_open(struct target *t, struct stage *run, const char *name, struct s2c_error *err)
{
	if (t->stage)
		return 0;
	return stage_new_sub(run, name, &t->stage, err);
}

int target_take_entry(struct target *t, struct archive *a, struct archive_entry *e,
		      const struct target_select *sel, struct stage *run, const char *stage_name,
		      unsigned layer, struct s2c_error *err)
{
	struct member *m = NULL;
	struct s2c_error serr = { 0 };
	bool candidate = false;
	int r = arread_member(e, &m, err);

	if (r < 0)
		return r;
	m->layer = layer;
	if (m->type == MEMBER_HARDLINK) {
		const struct member *to = memberset_get(&t->members, m->target);
		if (!to || (to->type != MEMBER_FILE && to->type != MEMBER_HARDLINK)) {
			_cleanup_free_ char *shown = escape_text(m->path);
			member_free(m);
			return s2c_error_set(err, -EINVAL, "member '%s' is a hard link to nothing the "
					     "archive holds before it", shown ? shown : "?");
		}
		/* The same inode: the same mode, owner and capabilities. */
		m->mode = to->mode;
		m->uid = to->uid;
		m->gid = to->gid;
		m->has_caps = to->has_caps;
		memcpy(m->caps, to->caps, sizeof(m->caps));
		m->caps_len = to->caps_len;
		m->size = to->size;
		free(m->target);
		m->target = strdup(to->type == MEMBER_HARDLINK ? to->target : to->path);
		if (!m->target) {
			member_free(m);
			return -ENOMEM;
		}
	}
	if (target_wants(t, sel, m, &candidate)) {
		m->candidate = candidate;
		r = stage_open(t, run, stage_name, err);
		if (r < 0) {
			member_free(m);
			return r;
		}
		switch (m->type) {
		case MEMBER_FILE:
			r = arread_stage(a, t->stage, m->path, m->size, &serr);
			if (r == 0)
				m->staged = true;
			else if (r == -EFBIG)
				r = target_note(t, "%s: not kept: %s", m->path, serr.msg);
			break;
		case MEMBER_HARDLINK: {
			const struct member *to = memberset_get(&t->members, m->target);
			if (to && to->staged) {
				r = stage_link(t->stage, m->path, m->target, &serr);
				m->staged = r == 0;
			}
			break;
		}
		case MEMBER_SYMLINK:
			r = stage_symlink(t->stage, m->path, m->target, &serr);
			m->staged = r == 0;
			break;
		default:
			break;
		}
		if (r < 0 && r != -ENOMEM) {
			_cleanup_free_ char *shown = escape_text(m->path);
			r = s2c_error_set(err, r, "member '%s': %s", shown ? shown : "?",
					  serr.msg[0] ? serr.msg : strerror(-r));
		}
		if (r < 0) {
			member_free(m);
			return r;
		}
	}
	/* A later layer's entry that is not kept hides the kept one of an earlier layer. */
	{
		const struct member *old = memberset_get(&t->members, m->path);
		if (old && old->staged && !m->staged && t->stage) {
			r = stage_remove(t->stage, m->path);
			if (r < 0) {
				member_free(m);
				return r;
			}
		}
	}
	return memberset_put(&t->members, m);
}

void target_trim(struct target *t)
{
	for (size_t i = 0; i < t->members.n_slots; i++) {
		struct member *m = t->members.slots[i];
		if (m && !m->staged && !m->candidate && !is_shared_lib(m->path)) {
			memberset_remove(&t->members, m->path, false);
			i = (size_t)-1;     /* removal re-seats entries: start over */
		}
	}
}

/* --- owners --------------------------------------------------------------------------------- */

struct idname {
	char *name;
	uint32_t id;
};

struct ids {
	struct idname *v;
	size_t n;
	uint32_t next;          /* next placeholder */
};

static void ids_release(struct ids *ids)
{
	for (size_t i = 0; i < ids->n; i++)
		free(ids->v[i].name);
	free(ids->v);
}

/* Map @name to @id when not mapped yet. */
static int ids_add(struct ids *ids, const char *name, uint32_t id)
{
	struct idname *v;

	if (!name || !*name)
		return 0;
	for (size_t i = 0; i < ids->n; i++)
		if (s2c_streq(ids->v[i].name, name))
			return 0;
	v = realloc(ids->v, (ids->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	ids->v = v;
	v[ids->n].name = strdup(name);
	if (!v[ids->n].name)
		return -ENOMEM;
	v[ids->n++].id = id;
	return 0;
}

/* The id of @name: as packed, 0 for root, a numeric name as itself, else a placeholder. */
static int ids_get(struct ids *ids, const char *name, uint32_t *ret)
{
	unsigned n;

	for (size_t i = 0; i < ids->n; i++)
		if (s2c_streq(ids->v[i].name, name)) {
			*ret = ids->v[i].id;
			return 0;
		}
	if (parse_uint(name, UINT32_MAX - 1, &n) == 0) {
		*ret = n;
		return 0;
	}
	if (s2c_streq(name, "root")) {
		*ret = 0;
		return ids_add(ids, name, 0);
	}
	*ret = ids->next++;
	return ids_add(ids, name, *ret);
}

/* Only plain account names go into the synthetic passwd and group files. */
static bool plain_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-' || *s == '.' || *s == '$'))
			return false;
	return true;
}

static int write_ids(struct target *t, const struct ids *users, const struct ids *groups,
		     struct s2c_error *err)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct ids *ids = pass ? groups : users;
		_cleanup_free_ char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		_cleanup_close_ int fd = -1;
		int r;

		if (!f)
			return -ENOMEM;
		for (size_t i = 0; i < ids->n; i++)
			if (plain_name(ids->v[i].name))
				(void)fprintf(f, pass ? "%s:x:%u:\n" : "%s:x:%u:%u::/:/bin/false\n",
					      ids->v[i].name, ids->v[i].id, ids->v[i].id);
		if (fclose(f) != 0)
			return -ENOMEM;
		r = stage_reserve(t->stage, len, err);
		if (r < 0)
			return r;
		fd = stage_create(t->stage, pass ? "/etc/group" : "/etc/passwd", err);
		if (fd < 0)
			return fd;
		if (write(fd, text, len) != (ssize_t)len)
			return s2c_error_errno(err, -errno, "cannot write a staged file");
	}
	return 0;
}

/* --- the installed files -------------------------------------------------------------------- */

void target_files_free(struct target_file *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		facts_free(v[i].facts);
		free(v[i].actions);
	}
	free(v);
}

static int script_rank(const char *script)
{
	if (s2c_streq(script, "preinst") || s2c_streq(script, "%pre"))
		return 0;
	if (s2c_streq(script, "postinst") || s2c_streq(script, "%post"))
		return 1;
	return 2;
}

static bool action_before(const struct ms_action *a, const struct ms_action *b,
			  enum ms_scenario sc)
{
	int ra = script_rank(a->script), rb = script_rank(b->script);

	return ra != rb ? ra < rb : a->seq[sc] < b->seq[sc];
}

/* The actions on @m, in the order of scenario @sc (those that ran in it). */
static int actions_on(const struct target *t, const struct member *m, enum ms_scenario sc,
		      const struct ms_action ***ret, size_t *ret_n)
{
	const struct ms_action **v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < t->scripts.n; i++) {
		const struct ms_action *a = &t->scripts.v[i];
		const struct ms_action **nv;
		if (a->seq[sc] == SIZE_MAX || !action_names(a, m->path))
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			return -ENOMEM;
		}
		v = nv;
		v[n++] = a;
	}
	/* Scripts run one after the other (preinst, postinst, posttrans); within one, in the
	 * scenario's order. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && action_before(v[j], v[j - 1], sc); j--) {
			const struct ms_action *x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	*ret = v;
	*ret_n = n;
	return 0;
}

static void apply_all(const struct ms_action *const *v, size_t n, enum ms_scenario sc,
		      struct ms_state *st)
{
	for (size_t i = 0; i < n; i++)
		if (ms_applies(v[i], sc))
			(void)ms_apply(v[i], false, st);   /* a mode chmod refuses changes nothing */
}

static bool privileged(const struct ms_state *st)
{
	return (st->mode & 06000) || st->has_caps;
}

/* Facts of the staged copy of @m with the installed state @st. */
static int make_facts(struct target *t, const struct member *m, const struct ms_state *st,
		      struct ids *users, struct ids *groups, struct facts **ret,
		      struct s2c_error *err)
{
	_cleanup_(facts_freep) struct facts *f = calloc(1, sizeof(*f));
	const char *name;
	_cleanup_close_ int dfd = -1, fd = -1;
	struct stat sb;
	char buf[256];
	ssize_t n;
	int r;

	if (!f)
		return -ENOMEM;
	dfd = resolve_open_parent(stage_rootfd(t->stage), m->path, &name);
	if (dfd < 0)
		return s2c_error_errno(err, dfd, "'%s' was not kept", m->path);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode))
		return s2c_error_errno(err, fd < 0 ? -errno : -EINVAL, "'%s' was not kept", m->path);
	f->path = strdup(m->path);
	if (!f->path)
		return -ENOMEM;
	f->uid = m->uid;
	f->gid = m->gid;
	/* Images name owners from their own passwd and group (the caller does); packages
	 * by the names they pack, which dpkg and rpm use when installing. */
	if (t->kind != TARGET_IMAGE) {
		f->owner = st->owner ? strdup(st->owner) : NULL;
		f->group = st->group ? strdup(st->group) : NULL;
		if ((st->owner && !f->owner) || (st->group && !f->group))
			return -ENOMEM;
		r = st->owner ? ids_get(users, st->owner, &f->uid) : 0;
		if (r == 0 && st->group)
			r = ids_get(groups, st->group, &f->gid);
		if (r < 0)
			return r;
	}
	f->mode = S_IFREG | (st->mode & 07777);
	f->size = m->size;
	f->mtime_sec = m->mtime;
	/* The staged copy's identity, so the engine reads exactly that file. */
	f->dev_major = major(sb.st_dev);
	f->dev_minor = minor(sb.st_dev);
	f->ino = sb.st_ino;
	f->nlink = 1;
	if (st->has_caps) {
		struct s2c_error cerr = { 0 };
		f->has_caps = true;
		if (st->caps) {
			/* setcap's text, as the script gives it */
			if (fcaps_from_text(st->caps, &f->caps, &cerr) < 0) {
				f->caps_error = strdup(cerr.msg[0] ? cerr.msg : "not a capability text");
			} else {
				int len = fcaps_encode(&f->caps, f->caps_raw);
				f->caps_len = len > 0 ? (size_t)len : 0;
				f->caps_text = fcaps_to_text(&f->caps);
			}
		} else if (m->caps_len == 0) {
			f->caps_error = strdup("capability attribute larger than any valid layout");
		} else {
			memcpy(f->caps_raw, m->caps, m->caps_len);
			f->caps_len = m->caps_len;
			if (fcaps_decode(m->caps, m->caps_len, &f->caps, &cerr) < 0)
				f->caps_error = strdup(cerr.msg);
			else
				f->caps_text = fcaps_to_text(&f->caps);
		}
		if (!f->caps_text && !f->caps_error)
			return -ENOMEM;
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n >= 2 && buf[0] == '#' && buf[1] == '!') {
		char *p;
		buf[n] = '\0';
		p = buf + 2 + strspn(buf + 2, " \t");
		if (!(f->interpreter = strndup(p, strcspn(p, " \t\n"))))
			return -ENOMEM;
	}
	facts_set_flags(f);
	*ret = TAKE_PTR(f);
	return 0;
}

/* Hard links among the candidates: count the names of each content. */
static uint32_t link_count(const struct target *t, const struct member *m)
{
	const char *content = m->type == MEMBER_HARDLINK ? m->target : m->path;
	uint32_t n = 0;

	for (size_t i = 0; i < t->members.n_slots; i++) {
		const struct member *o = t->members.slots[i];
		if (!o)
			continue;
		if (s2c_streq(o->path, content) ||
		    (o->type == MEMBER_HARDLINK && s2c_streq(o->target, content)))
			n++;
	}
	return n ? n : 1;
}

int target_files(struct target *t, struct target_file **ret, size_t *ret_n, struct s2c_error *err)
{
	struct ids users = { .next = TARGET_ID_PLACEHOLDER }, groups = { .next = TARGET_ID_PLACEHOLDER };
	_cleanup_free_ struct member **sorted = NULL;
	struct target_file *v = NULL;
	size_t n = 0;
	int r;

	if (!t->stage) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	r = memberset_sorted(&t->members, &sorted);
	if (r < 0)
		return r;
	/* Names the archive packed keep their ids; root is 0 whatever it says. */
	r = ids_add(&users, "root", 0);
	if (r == 0)
		r = ids_add(&groups, "root", 0);
	/* rpm packs names without numbers: those get placeholders (ids_get()). */
	for (size_t i = 0; i < t->members.n && r == 0 && t->kind != TARGET_RPM; i++) {
		r = ids_add(&users, sorted[i]->uname, sorted[i]->uid);
		if (r == 0)
			r = ids_add(&groups, sorted[i]->gname, sorted[i]->gid);
	}
	for (size_t i = 0; i < t->members.n && r == 0; i++) {
		const struct member *m = sorted[i];
		struct ms_state st = { .mode = m->mode, .owner = m->uname, .group = m->gname,
				       .has_caps = m->has_caps };
		struct ms_state fb;
		struct target_file *nv, *tf;
		const struct ms_action **acts = NULL, **fb_acts = NULL;
		size_t n_acts = 0, n_fb = 0;

		if (!m->candidate)
			continue;
		fb = st;
		r = actions_on(t, m, MS_SCENARIO_WORKS, &acts, &n_acts);
		if (r == 0)
			r = actions_on(t, m, MS_SCENARIO_FAILS, &fb_acts, &n_fb);
		if (r < 0) {
			free(acts);
			break;
		}
		apply_all(acts, n_acts, MS_SCENARIO_WORKS, &st);
		apply_all(fb_acts, n_fb, MS_SCENARIO_FAILS, &fb);
		/* All actions on the file for the report: this scenario's, then the fallback's. */
		for (size_t j = 0; j < n_fb; j++) {
			bool seen = false;
			for (size_t k = 0; k < n_acts && !seen; k++)
				seen = acts[k] == fb_acts[j];
			if (!seen) {
				const struct ms_action **grown = realloc(acts, (n_acts + 1) * sizeof(*acts));
				if (!grown) {
					r = -ENOMEM;
					break;
				}
				acts = grown;
				acts[n_acts++] = fb_acts[j];
			}
		}
		free(fb_acts);
		if (r < 0 || (!privileged(&st) && !privileged(&fb))) {
			free(acts);
			continue;
		}
		if (!m->staged) {
			r = target_note(t, "%s: privileged once installed, but its content is not in "
					"the archive's data (%s)", m->path,
					m->type == MEMBER_HARDLINK ? "a hard link to a file not kept" :
					"not kept");
			free(acts);
			continue;
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			free(acts);
			r = -ENOMEM;
			break;
		}
		v = nv;
		tf = &v[n];
		*tf = (struct target_file){ .member = m, .actions = acts, .n_actions = n_acts };
		n++;
		/* Ids of names the scripts introduce: placeholders, the same in facts and files. */
		uint32_t dummy;
		if (st.owner)
			r = ids_get(&users, st.owner, &dummy);
		if (r == 0 && st.group)
			r = ids_get(&groups, st.group, &dummy);
		if (r == 0 && fb.owner)
			r = ids_get(&users, fb.owner, &dummy);
		if (r == 0 && fb.group)
			r = ids_get(&groups, fb.group, &dummy);
		if (r == 0)
			r = make_facts(t, m, &st, &users, &groups, &tf->facts, err);
		if (r < 0)
			break;
		tf->facts->nlink = link_count(t, m);
		facts_set_flags(tf->facts);
		tf->changed = n_acts > 0 && (st.mode != m->mode || st.has_caps != m->has_caps ||
					     st.caps || st.owner != m->uname || st.group != m->gname);
		if (fb.mode != st.mode || fb.has_caps != st.has_caps || fb.owner != st.owner ||
		    fb.group != st.group) {
			tf->has_fallback = true;
			tf->fallback_mode = fb.mode;
			tf->fallback_owner = fb.owner;
			tf->fallback_group = fb.group;
			tf->fallback_caps = fb.has_caps;
		}
	}
	if (r == 0 && t->kind != TARGET_IMAGE && n > 0)
		r = write_ids(t, &users, &groups, err);
	ids_release(&users);
	ids_release(&groups);
	if (r < 0) {
		target_files_free(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int target_share_libs(struct target *t, struct target *const *all, size_t n)
{
	int shared = 0;

	if (!t->stage)
		return 0;
	for (size_t k = 0; k < n; k++) {
		const struct target *u = all[k];
		if (u == t || !u || !u->stage || u->error)
			continue;
		for (size_t i = 0; i < u->members.n_slots; i++) {
			const struct member *m = u->members.slots[i];
			int r;
			if (!m || !m->staged || m->candidate)
				continue;
			r = stage_share(t->stage, u->stage, m->path);
			if (r == -ENOMEM)
				return r;
			shared += r == 0;
		}
	}
	return shared;
}

static uint64_t hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

void libindex_release(struct libindex *x)
{
	free(x->slots);
	*x = (struct libindex){ 0 };
}

int libindex_build(struct libindex *x, struct target *const *all, size_t n)
{
	size_t count = 0;

	*x = (struct libindex){ 0 };
	for (size_t k = 0; k < n; k++)
		if (all[k] && !all[k]->error)
			count += all[k]->members.n;
	x->n_slots = 64;
	while (x->n_slots < 2 * count + 2)
		x->n_slots *= 2;
	x->slots = calloc(x->n_slots, sizeof(*x->slots));
	if (!x->slots)
		return -ENOMEM;
	/* Each name once per target: several targets may provide the same library. */
	for (size_t k = 0; k < n; k++) {
		if (!all[k] || all[k]->error)
			continue;
		for (size_t i = 0; i < all[k]->members.n_slots; i++) {
			const struct member *m = all[k]->members.slots[i];
			const char *b;
			size_t j;
			if (!m || (m->type != MEMBER_FILE && m->type != MEMBER_SYMLINK) ||
			    !in_lib_dir(m->path) || !is_shared_lib(m->path))
				continue;
			b = base_name(m->path);
			j = (size_t)hash_name(b) & (x->n_slots - 1);
			while (x->slots[j].name &&
			       !(x->slots[j].target == k && s2c_streq(x->slots[j].name, b)))
				j = (j + 1) & (x->n_slots - 1);
			if (x->slots[j].name)
				continue;
			x->slots[j] = (struct libentry){ b, m->path, k };
			x->n++;
		}
	}
	return 0;
}

size_t libindex_find(const struct libindex *x, size_t self, const char *soname,
		     const char **ret_path)
{
	size_t best = SIZE_MAX;
	const char *path = NULL;

	if (!x->n_slots)
		return SIZE_MAX;
	for (size_t j = (size_t)hash_name(soname) & (x->n_slots - 1); x->slots[j].name;
	     j = (j + 1) & (x->n_slots - 1)) {
		const struct libentry *e = &x->slots[j];
		if (!s2c_streq(e->name, soname))
			continue;
		if (e->target == self) {
			*ret_path = e->path;
			return self;
		}
		if (e->target < best) {
			best = e->target;
			path = e->path;
		}
	}
	if (best != SIZE_MAX)
		*ret_path = path;
	return best;
}
