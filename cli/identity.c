/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "identity.h"
#include "resolve.h"
#include "util.h"
#include "common.h"

/* The first line of a small file beneath @rootfd (-1: the host's), or NULL. */
static char *first_line(int rootfd, const char *path)
{
	_cleanup_close_ int fd = rootfd >= 0 ? resolve_open(rootfd, path, O_RDONLY) :
					       open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char buf[256];
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return buf[0] ? strdup(buf) : NULL;
}

/* Hashed with a fixed, application-specific prefix, as machine-id(5) recommends. */
static char *hash_machine_id(const char *id)
{
	_cleanup_free_ char *keyed = NULL;
	char hex[HASH_HEX_LEN];

	if (!id || strspn(id, "0123456789abcdef") != 32 || id[32])
		return NULL;
	if (asprintf(&keyed, "suid2cap machine id\n%s", id) < 0)
		return NULL;
	if (hash_mem_sha256(keyed, strlen(keyed), hex) < 0)
		return NULL;
	return strdup(hex);
}

static char *this_hostname(void)
{
	struct utsname u;

	return uname(&u) == 0 && u.nodename[0] ? strdup(u.nodename) : NULL;
}

void identity_init(struct identity *out, int rootfd, bool live, const char *shard)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	_cleanup_free_ char *mid = NULL;
	uint64_t epoch;
	time_t t;
	struct tm tm;

	memset(out, 0, sizeof(*out));
	if (sde && parse_u64(sde, 10, INT64_MAX, &epoch) == 0)
		t = (time_t)epoch;
	else
		t = time(NULL);
	if (!gmtime_r(&t, &tm) ||
	    strftime(out->time, sizeof(out->time), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		out->time[0] = '\0';
	if (live) {
		out->hostname = this_hostname();
		mid = first_line(-1, "/etc/machine-id");
	} else {
		if (rootfd >= 0) {
			out->hostname = first_line(rootfd, "/etc/hostname");
			mid = first_line(rootfd, "/etc/machine-id");
		}
		out->auditor = this_hostname();
	}
	out->machine_id = hash_machine_id(mid);
	out->shard = shard ? strdup(shard) : NULL;
	out->id = (struct audit_identity){
		.hostname = out->hostname,
		.machine_id = out->machine_id,
		.time = out->time[0] ? out->time : NULL,
		.auditor = out->auditor,
		.shard = out->shard,
	};
}

void identity_release(struct identity *i)
{
	free(i->hostname);
	free(i->machine_id);
	free(i->auditor);
	free(i->shard);
	memset(i, 0, sizeof(*i));
}
