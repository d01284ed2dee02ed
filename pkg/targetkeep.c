/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a reader keeps of a target's members: candidates (set-ID or
 * capabilities as packed, or named by an install-time action), libraries
 * whose imports are evidence, and for images the files `audit --root` reads.
 */
#include <string.h>

#include "actindex.h"
#include "maintscript.h"
#include "member.h"
#include "target.h"
#include "targetkeep.h"
#include "util.h"
#include "common.h"

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

static bool lib_wanted(const struct target_select *sel, const char *path)
{
	const char *b = member_base_name(path);

	for (size_t i = 0; sel->lib_globs && sel->lib_globs[i]; i++)
		if (s2c_fnmatch(sel->lib_globs[i], b, 0))
			return true;
	return false;
}

/* A directory the dynamic linker searches by default (any multiarch triplet). */
bool targetkeep_in_lib_dir(const char *path)
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

bool targetkeep_is_shared_lib(const char *path)
{
	return strstr(member_base_name(path), ".so") != NULL;
}

bool target_tmpfiles_conf(const char *path)
{
	return (strncmp(path, "/usr/lib/tmpfiles.d/", 20) == 0 ||
		strncmp(path, "/etc/tmpfiles.d/", 16) == 0) && strchr(path + 1, '.') &&
	       s2c_streq(strrchr(path, '.'), ".conf");
}

/* Files `audit --root` reads besides the candidates: accounts, os-release, sysctl, waivers, the
 * container runtime's marker (the bounding set) and the package databases (rules/pkgdb*.c). */
static bool system_file(const char *path)
{
	static const char *const exact[] = { "/etc/passwd", "/etc/group", "/etc/os-release",
					     "/usr/lib/os-release", "/etc/ld.so.conf",
					     "/etc/sysctl.conf", "/etc/hostname", "/etc/machine-id",
					     "/.dockerenv", "/run/.containerenv",
					     "/var/lib/dpkg/status", "/lib/apk/db/installed",
					     "/usr/lib/apk/db/installed", "/etc/suid2cap/waivers" };
	static const char *const dirs[] = { "/etc/ld.so.conf.d", "/etc/sysctl.d", "/usr/lib/sysctl.d",
					    "/lib/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d",
					    "/usr/lib/sysimage/rpm", "/var/lib/rpm",
					    "/etc/suid2cap/rules.d" };
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
	if (below(path, "/var/lib/dpkg/info"))
		return str_endswith(path, ".list") || str_endswith(path, ".md5sums");
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
	if (!candidate)
		candidate = ms_analysis_names(&t->scripts, m->path);
	*ret_candidate = candidate && m->type != MEMBER_DIR && m->type != MEMBER_SYMLINK;
	if (*ret_candidate)
		return true;
	if (m->type != MEMBER_FILE && m->type != MEMBER_SYMLINK && m->type != MEMBER_HARDLINK)
		return false;
	if (lib_wanted(sel, m->path))
		return true;
	/* a file the scripts run or read: its content decides what they do */
	if (ms_analysis_wants(&t->scripts, m->path))
		return true;
	if (!sel->system_files)
		return false;
	if (targetkeep_is_shared_lib(m->path) && targetkeep_in_lib_dir(m->path))
		return true;
	return m->type != MEMBER_SYMLINK && system_file(m->path);
}
