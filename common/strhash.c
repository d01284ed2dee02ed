/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "strhash.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND(v0, v1, v2, v3)                                                           \
	do {                                                                               \
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);                  \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                                     \
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                                     \
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);                  \
	} while (0)

uint64_t siphash13(const void *data, size_t len, const uint64_t key[2])
{
	const unsigned char *p = data, *end = p + (len & ~(size_t)7);
	uint64_t v0 = 0x736f6d6570736575ULL ^ key[0], v1 = 0x646f72616e646f6dULL ^ key[1];
	uint64_t v2 = 0x6c7967656e657261ULL ^ key[0], v3 = 0x7465646279746573ULL ^ key[1];
	uint64_t b = (uint64_t)len << 56, m;

	for (; p < end; p += 8) {
		memcpy(&m, p, 8);       /* little-endian hosts; the value only has to be stable */
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	for (size_t i = 0; i < (len & 7); i++)
		b |= (uint64_t)p[i] << (8 * i);
	v3 ^= b;
	SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/* Written once, under pthread_once(), before any hash is taken: a constant afterwards. */
static uint64_t process_key[2];
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void key_init(void)
{
	struct timespec ts;

	if (getrandom(process_key, sizeof(process_key), GRND_NONBLOCK) == sizeof(process_key))
		return;
	/* Early at boot the pool may not be ready: still unknown to whoever wrote the names. */
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	process_key[0] ^= (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	process_key[1] ^= (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&ts;
}

uint64_t strhash_n(const char *s, size_t len)
{
	(void)pthread_once(&key_once, key_init);
	return siphash13(s, len, process_key);
}

uint64_t strhash_step(uint64_t prefix, const char *component, size_t len)
{
	uint64_t key[2];

	(void)pthread_once(&key_once, key_init);
	key[0] = process_key[0] ^ prefix;
	key[1] = process_key[1] + 0x9e3779b97f4a7c15ULL;
	return siphash13(component, len, key);
}

uint64_t strhash(const char *s)
{
	return strhash_n(s, strlen(s));
}
