/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Applying install-time actions to the state of one file (maintscript.h):
 * chmod's octal and symbolic modes, chown, setcap, dpkg-statoverride and
 * install as each leaves a file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "maintscript.h"
#include "common.h"

const char *ms_kind_name(enum ms_kind k)
{
	static const char *const names[_MS_KIND_MAX] = {
		[MS_CHMOD] = "chmod", [MS_CHOWN] = "chown", [MS_SETCAP] = "setcap",
		[MS_SETCAP_REMOVE] = "setcap -r", [MS_STATOVERRIDE] = "dpkg-statoverride",
		[MS_INSTALL] = "install",
	};
	return k < _MS_KIND_MAX ? names[k] : "?";
}

const char *ms_when_name(enum ms_when w)
{
	static const char *const names[_MS_WHEN_MAX] = {
		[MS_ALWAYS] = "always", [MS_SETCAP_WORKS] = "setcap-works",
		[MS_SETCAP_FAILS] = "setcap-fails",
	};
	return w < _MS_WHEN_MAX ? names[w] : "?";
}

static bool kind_needs_setcap(enum ms_kind k)
{
	return k == MS_SETCAP || k == MS_SETCAP_REMOVE;
}

/* --- applying ------------------------------------------------------------------------------- */

/* chmod's symbolic modes: [ugoa]*([-+=]([rwxXst]*|[ugo]))+ , comma separated. */
static int chmod_symbolic(const char *spec, uint32_t mode, bool is_dir, uint32_t *ret)
{
	const char *p = spec;

	while (*p) {
		uint32_t who = 0;
		bool who_given = false;

		for (; *p && strchr("ugoa", *p); p++) {
			who_given = true;
			who |= *p == 'u' ? 04700 : *p == 'g' ? 02070 : *p == 'o' ? 01007 : 07777;
		}
		if (!who_given)
			who = 07777;
		if (!*p || !strchr("+-=", *p))
			return -EINVAL;
		while (*p && strchr("+-=", *p)) {
			char op = *p++;
			uint32_t bits = 0;

			if (*p && strchr("ugo", *p)) {
				uint32_t src = mode;
				uint32_t r = *p == 'u' ? (src >> 6) & 7 : *p == 'g' ? (src >> 3) & 7 : src & 7;
				bits = r | (r << 3) | (r << 6);
				p++;
			} else {
				for (; *p && strchr("rwxXst", *p); p++) {
					switch (*p) {
					case 'r': bits |= 0444; break;
					case 'w': bits |= 0222; break;
					case 'x': bits |= 0111; break;
					case 'X':
						if (is_dir || (mode & 0111))
							bits |= 0111;
						break;
					case 's': bits |= 06000; break;
					case 't': bits |= 01000; break;
					}
				}
			}
			bits &= who;
			/* Without "who", rwx obey the umask (022); s and t do not. */
			if (!who_given)
				bits &= ~(uint32_t)022 | 07000;
			if (op == '+') {
				mode |= bits;
			} else if (op == '-') {
				mode &= ~bits;
			} else {
				uint32_t clear = who & 0777;
				/* = keeps a directory's set-ID bits unless named (GNU chmod). */
				if (!is_dir)
					clear |= who & 07000;
				mode = (mode & ~clear) | bits;
			}
		}
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -EINVAL;
	}
	*ret = mode & 07777;
	return 0;
}

int ms_chmod(const char *spec, uint32_t mode, bool is_dir, uint32_t *ret)
{
	size_t n = strlen(spec);

	if (n == 0)
		return -EINVAL;
	if (strspn(spec, "01234567") == n) {
		/* Any number of leading zeros, as chmod reads it. */
		const char *digits = spec + strspn(spec, "0");
		unsigned long v;
		if (strlen(digits) > 4)
			return -EINVAL;
		v = strtoul(spec, NULL, 8);
		if (v > 07777)
			return -EINVAL;
		/* GNU chmod keeps a directory's set-ID bits when fewer than 5 digits name them. */
		if (is_dir && n < 5)
			v |= mode & 06000;
		*ret = (uint32_t)v;
		return 0;
	}
	return chmod_symbolic(spec, mode, is_dir, ret);
}

bool ms_applies(const struct ms_action *a, enum ms_scenario sc)
{
	if (a->seq[sc] == SIZE_MAX)
		return false;
	return sc == MS_SCENARIO_WORKS || !kind_needs_setcap(a->kind);
}

int ms_apply(const struct ms_action *a, bool is_dir, struct ms_state *st)
{
	uint32_t mode;
	int r;

	switch (a->kind) {
	case MS_CHMOD:
		r = ms_chmod(a->mode, st->mode, is_dir, &mode);
		if (r < 0)
			return r;
		st->mode = mode;
		return 0;
	case MS_CHOWN:
		if (a->owner)
			st->owner = a->owner;
		if (a->group)
			st->group = a->group;
		/* The kernel clears set-user-ID (and set-group-ID with group execute) and
		 * drops security.capability when a regular file changes owner. */
		if (!is_dir) {
			st->mode &= ~(uint32_t)S_ISUID;
			if (st->mode & S_IXGRP)
				st->mode &= ~(uint32_t)S_ISGID;
			st->has_caps = false;
			st->caps = NULL;
		}
		return 0;
	case MS_SETCAP:
		st->has_caps = true;
		st->caps = a->caps;
		return 0;
	case MS_SETCAP_REMOVE:
		st->has_caps = false;
		st->caps = NULL;
		return 0;
	case MS_STATOVERRIDE:
	case MS_INSTALL: {
		unsigned long v;
		char *end;
		errno = 0;
		v = strtoul(a->mode, &end, 8);
		if (errno || *end || end == a->mode || v > 07777)
			return -EINVAL;
		st->owner = a->owner;
		st->group = a->group;
		st->mode = (uint32_t)v;
		/* dpkg applies an override with chown, then chmod; install copies a new file:
		 * capabilities go. */
		st->has_caps = false;
		st->caps = NULL;
		return 0;
	}
	default:
		return -EINVAL;
	}
}
