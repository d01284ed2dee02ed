/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apk: lib/apk/db/installed, one record per package separated by blank
 * lines, one "X:value" field per line: P: the name, V: the version, F: a
 * directory (relative to the root), R: a file in the last F: directory, and
 * after it Z: the file's checksum, which apk-tools writes as "Q1" and the
 * base64 of a SHA-1 digest ("Q2" and base64 for SHA-256 in newer versions,
 * 32 hex digits for MD5).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nettle/base64.h>

#include "pkgdb-backend.h"
#include "resolve.h"
#include "util.h"
#include "common.h"

/* "Q1…" or "Q2…" (base64) or 32 hex digits: the digest in hex.  Returns the
 * algorithm, HASH_NONE when the text is none of these. */
static enum hash_algo decode_checksum(const char *z, char hex[static HASH_ANY_HEX_LEN])
{
	struct base64_decode_ctx b64;
	uint8_t raw[96];
	size_t len = strlen(z), want, n = 0;
	enum hash_algo algo;

	if (len == 32 && strspn(z, "0123456789abcdefABCDEF") == 32) {
		memcpy(hex, z, 33);
		return HASH_MD5;
	}
	if (len < 3 || z[0] != 'Q' || (z[1] != '1' && z[1] != '2'))
		return HASH_NONE;
	algo = z[1] == '1' ? HASH_SHA1 : HASH_SHA256;
	want = hash_algo_hex_len(algo) / 2;
	len -= 2;
	/* whole groups of four characters, padded to the digest's size */
	if (len % 4 || len / 4 * 3 < want || len / 4 * 3 > want + 2 ||
	    BASE64_DECODE_LENGTH(len) > sizeof(raw))
		return HASH_NONE;
	base64_decode_init(&b64);
	if (!base64_decode_update(&b64, &n, raw, len, z + 2) || !base64_decode_final(&b64) ||
	    n < want)
		return HASH_NONE;
	hex_encode(raw, want, hex);
	return algo;
}

int pkgdb_apk_lookup(int rootfd, struct pkgdb_query *q)
{
	_cleanup_(pkgdb_text_release) struct pkgdb_text t = { 0 };
	_cleanup_free_ char *dir = NULL, *path = NULL;
	char pkg[256] = "", version[256] = "";
	long last = -1;      /* wanted path of the last R: line, -1 when not wanted */
	const char *line;
	size_t n;
	int r = 0;

	if (pkgdb_text_open(resolve_open(rootfd, "/lib/apk/db/installed", O_RDONLY | O_NONBLOCK),
			    &t) < 0 &&
	    pkgdb_text_open(resolve_open(rootfd, "/usr/lib/apk/db/installed", O_RDONLY | O_NONBLOCK),
			    &t) < 0)
		return 0;
	while (r == 0 && (line = pkgdb_text_line(&t, &n))) {
		const char *v = line + 2;
		if (n == 0) {
			pkg[0] = version[0] = '\0';
			free(dir);
			dir = NULL;
			last = -1;
			continue;
		}
		if (n < 2 || line[1] != ':')
			continue;
		switch (line[0]) {
		case 'P':
			(void)snprintf(pkg, sizeof(pkg), "%s", v);
			break;
		case 'V':
			(void)snprintf(version, sizeof(version), "%s", v);
			break;
		case 'F':
			free(dir);
			if (!(dir = strdup(v)))
				return -ENOMEM;
			last = -1;
			break;
		case 'R':
			free(path);
			if (asprintf(&path, "%s%s%s", dir ? dir : "", dir && *dir ? "/" : "", v) < 0) {
				path = NULL;
				return -ENOMEM;
			}
			last = pkg[0] ? pkgdb_query_find(q, path, strlen(path), true) : -1;
			if (last >= 0) {
				int o = pkgdb_query_own(q, (size_t)last, pkg, version[0] ? version : NULL);
				if (o < 0)
					return o;
				if (o == 0)
					last = -1;   /* an earlier database owns it */
			}
			break;
		case 'Z':
			if (last >= 0) {
				char hex[HASH_ANY_HEX_LEN];
				enum hash_algo a = decode_checksum(v, hex);
				if (a != HASH_NONE)
					r = pkgdb_query_digest(q, (size_t)last, a, hex, strlen(hex));
			}
			last = -1;
			break;
		default:
			break;
		}
	}
	return r;
}
