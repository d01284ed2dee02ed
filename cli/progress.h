/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A progress line on stderr for long scans: directories, entries and rate,
 * redrawn a few times a second, only when stderr is a terminal.
 */
#ifndef S2C_CLI_PROGRESS_H
#define S2C_CLI_PROGRESS_H

#include <stdbool.h>

struct walk_stats;
struct progress;

/**
 * Start a progress display reading @stats (updated by the walker).  Returns
 * NULL, and displays nothing, when @enabled is false or a thread cannot start.
 */
struct progress *progress_start(const struct walk_stats *stats, bool enabled);

/** Stop the display and erase its line; accepts NULL. */
void progress_stop(struct progress *p);

#endif /* S2C_CLI_PROGRESS_H */
