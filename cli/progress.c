/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "progress.h"
#include "walk.h"
#include "common.h"

struct progress {
	const struct walk_stats *stats;
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	bool drawn;
	struct timespec start;
};

static double elapsed(const struct timespec *t0)
{
	struct timespec now;

	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void draw(struct progress *p)
{
	uint64_t dirs = __atomic_load_n(&p->stats->dirs, __ATOMIC_RELAXED);
	uint64_t files = __atomic_load_n(&p->stats->files, __ATOMIC_RELAXED);
	uint64_t found = __atomic_load_n(&p->stats->candidates, __ATOMIC_RELAXED);
	double t = elapsed(&p->start);

	(void)fprintf(stderr, "\r\033[Kscanning: %" PRIu64 " directories, %" PRIu64
		      " entries, %" PRIu64 " privileged (%.0f entries/s)",
		      dirs, files, found, t > 0 ? (double)files / t : 0.0);
	(void)fflush(stderr);
	p->drawn = true;
}

static void *run(void *arg)
{
	struct progress *p = arg;
	struct timespec deadline;

	pthread_mutex_lock(&p->lock);
	/* Quick scans finish before the first frame and print nothing. */
	(void)clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_nsec += 500000000L;
	for (;;) {
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		while (!p->stop && pthread_cond_timedwait(&p->cond, &p->lock, &deadline) != ETIMEDOUT)
			;
		if (p->stop)
			break;
		draw(p);
		deadline.tv_nsec += 200000000L;
	}
	if (p->drawn) {
		(void)fputs("\r\033[K", stderr);
		(void)fflush(stderr);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct progress *progress_start(const struct walk_stats *stats, bool enabled)
{
	struct progress *p;

	if (!enabled)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->stats = stats;
	(void)clock_gettime(CLOCK_MONOTONIC, &p->start);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if (pthread_create(&p->tid, NULL, run, p) != 0) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->cond);
		free(p);
		return NULL;
	}
	return p;
}

void progress_stop(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	(void)pthread_join(p->tid, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}
